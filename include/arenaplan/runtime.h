/* arenaplan runtime: run a model in its planned arena.
 *
 *   ap_interpreter *it;
 *   ap_interpreter_options o = ap_interpreter_defaults();
 *   if (ap_interpreter_create(model, &o, &it) != AP_OK ||
 *       ap_interpreter_allocate(it) != AP_OK) {
 *     fprintf(stderr, "%s\n", ap_interpreter_error(it));
 *     ...
 *   }
 *   ap_tensor *in = ap_interpreter_input(it, 0);
 *   memcpy(in->data, my_input, in->bytes);
 *   if (ap_interpreter_invoke(it) != AP_OK) ...
 *   const ap_tensor *out = ap_interpreter_output(it, 0);
 *   ap_interpreter_destroy(it);
 *
 * Memory. ap_interpreter_allocate() runs every kernel's prepare (shape propagation, scratch
 * requests, persistent state), plans the arena and places every tensor. Regions:
 *  - weights: the model's constant buffers, read in place, never copied;
 *  - persistent: variable tensors and kernel state (live as long as the allocation);
 *  - tables: the interpreter's own bookkeeping (tensor and op records);
 *  - arena: the planned tensors and scratch buffers.
 * With a caller-owned arena (options.arena / arena_size), persistent, tables and arena all go
 * inside that buffer, which must outlive the interpreter and is not freed by it; allocate
 * fails with AP_ERR_ARENA_TOO_SMALL and "arena too small: needs N bytes, buffer has M" when
 * it cannot hold them. Without one, the three regions come from the allocator. Planning itself
 * uses temporary memory from the allocator, freed before allocate returns.
 * ap_interpreter_invoke() allocates nothing.
 *
 * Threads. An interpreter is used by one thread at a time: an invoke while another runs on the
 * same interpreter returns AP_ERR_BUSY. Several interpreters may share one model.
 * The model must outlive every interpreter made from it.
 */
#ifndef ARENAPLAN_RUNTIME_H
#define ARENAPLAN_RUNTIME_H

#include "arenaplan/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AP_MAX_DIMS 8

/* A tensor as the runtime sees it. Pointers stay valid until the next allocate. */
typedef struct ap_tensor {
  const char *name;
  int type;                  /* ap_dtype */
  int rank;
  int32_t dims[AP_MAX_DIMS];
  void *data;                /* NULL before allocate, and for tensors that need no bytes */
  size_t bytes;
  /* Quantization: per-tensor (count 1) or per-channel along quantized_dimension. */
  float scale;
  int32_t zero_point;
  const float *scales;
  const int64_t *zero_points;
  size_t quant_count;
  int32_t quantized_dimension;
  bool is_constant;          /* data points into the model: never write it */
  bool is_variable;
} ap_tensor;

/* What a kernel sees of its op, in prepare and in eval. */
typedef struct ap_op_context ap_op_context;
size_t ap_op_input_count(const ap_op_context *c);
size_t ap_op_output_count(const ap_op_context *c);
/* NULL for an optional input that is absent (-1). */
ap_tensor *ap_op_input(ap_op_context *c, size_t i);
ap_tensor *ap_op_output(ap_op_context *c, size_t i);
const ap_model *ap_op_model(const ap_op_context *c);
size_t ap_op_subgraph(const ap_op_context *c);
size_t ap_op_index(const ap_op_context *c);
/* The op's entry in the model (builtin code, options type, custom options). */
const ap_op_info *ap_op_info_of(const ap_op_context *c);
/* Prepare only: sets an output's shape (its bytes follow from its type). */
ap_status ap_op_set_output_shape(ap_op_context *c, size_t i, const int32_t *dims, int rank);
/* Prepare only: asks for a scratch buffer in the arena, live while the op runs. */
ap_status ap_op_request_scratch(ap_op_context *c, size_t bytes, int *index);
/* Eval only: the scratch buffer's address. */
void *ap_op_scratch(ap_op_context *c, int index);
/* Prepare only: memory in the persistent region (zeroed, 16-byte aligned) for the op's state;
 * it lives until the next allocate. NULL on failure (the context keeps the message). */
void *ap_op_persistent(ap_op_context *c, size_t bytes);
/* The op's state pointer, kept between prepare and eval. */
void ap_op_set_state(ap_op_context *c, void *state);
void *ap_op_state(const ap_op_context *c);
/* Records a message naming the op and returns `s`, e.g.
 *   return ap_op_fail(c, AP_ERR_UNSUPPORTED, "input type %s", ap_dtype_name(t->type)); */
ap_status ap_op_fail(ap_op_context *c, ap_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A kernel: prepare runs in allocate, eval in invoke (it must not allocate). */
typedef struct ap_op_kernel {
  ap_status (*prepare)(ap_op_context *c);
  ap_status (*eval)(ap_op_context *c);
} ap_op_kernel;

/* A custom op the caller provides, by its custom_code (or a builtin it overrides). */
typedef struct ap_custom_op {
  const char *name;          /* custom_code; NULL to override a builtin */
  int32_t builtin;           /* used when name is NULL */
  ap_op_kernel kernel;
} ap_custom_op;

typedef struct ap_interpreter_options {
  const char *strategy;      /* NULL: "best" */
  uint64_t alignment;        /* 0: 16; else a multiple of 8 (AP_ERR_ARG otherwise) */
  const ap_allocator *allocator;
  void *arena;               /* optional caller-owned buffer for all regions */
  size_t arena_size;
  int threads;               /* kernels may use this many threads (0 or 1: one) */
  const ap_custom_op *custom_ops;
  size_t custom_op_count;
  bool preserve_all;         /* no reuse at all (every tensor kept intact: for dumps) */
} ap_interpreter_options;

ap_interpreter_options ap_interpreter_defaults(void);

typedef struct ap_interpreter ap_interpreter;

ap_status ap_interpreter_create(const ap_model *m, const ap_interpreter_options *opt,
                                ap_interpreter **out);
void ap_interpreter_destroy(ap_interpreter *it);
const char *ap_interpreter_error(const ap_interpreter *it);

ap_status ap_interpreter_allocate(ap_interpreter *it);
/* Marks the plan stale: invoke fails with AP_ERR_NOT_ALLOCATED until the next allocate. */
ap_status ap_interpreter_resize_input(ap_interpreter *it, size_t input, const int32_t *dims,
                                      int rank);
ap_status ap_interpreter_invoke(ap_interpreter *it);
/* Sets every variable tensor back to its initial value (zero, or its constant data). */
ap_status ap_interpreter_reset_variables(ap_interpreter *it);

/* The entry subgraph's (subgraph 0's) inputs and outputs. NULL when out of range. */
size_t ap_interpreter_input_count(const ap_interpreter *it);
size_t ap_interpreter_output_count(const ap_interpreter *it);
ap_tensor *ap_interpreter_input(ap_interpreter *it, size_t i);
const ap_tensor *ap_interpreter_output(const ap_interpreter *it, size_t i);
/* Any tensor, by subgraph and index or by name (first match in subgraph order). */
ap_tensor *ap_interpreter_tensor(ap_interpreter *it, size_t subgraph, size_t tensor);
ap_tensor *ap_interpreter_tensor_by_name(ap_interpreter *it, const char *name);

typedef struct ap_memory_usage {
  uint64_t arena;            /* planned tensors and scratch */
  uint64_t persistent;       /* variable tensors and kernel state */
  uint64_t tables;           /* the interpreter's own records */
  uint64_t total;            /* what a device must provide besides the model */
} ap_memory_usage;
/* Exact bytes of each region after allocate. */
ap_status ap_interpreter_memory(const ap_interpreter *it, ap_memory_usage *out);

#ifdef __cplusplus
}
#endif
#endif
