/* The interpreter's internals, shared by the runtime's files. */
#ifndef AP_SRC_RUNTIME_INTERNAL_H
#define AP_SRC_RUNTIME_INTERNAL_H

#include "arenaplan/runtime.h"
#include "base/base.h"
#include "kernels/registry.h"

#include <stdatomic.h>

typedef struct ap_scratch_rec {
  uint64_t bytes;
  uint64_t request_id;
  void *data;
  struct ap_scratch_rec *next;
} ap_scratch_rec;

/* A block of persistent memory when it comes from the allocator (freed at the next allocate). */
typedef struct ap_block {
  struct ap_block *next;
} ap_block;

struct ap_op_context {
  ap_interpreter *it;
  uint32_t subgraph, index;
  ap_op_info info;
  const ap_op_kernel *custom; /* a caller's kernel, or */
  const ap_kernel *builtin;   /* one of arenaplan's */
  void *state;
  /* Builtin kernels: their views of the op's tensors, options and prepared parameters. */
  ap_ktensor *kin, *kout;
  ap_ktensor **kin_ptr, **kout_ptr;
  ap_kop_options kopt;
  void *params;
  int builtin_scratch;
  ap_scratch_rec *scratch; /* in request order */
  int scratch_count;
  bool preparing;
};

typedef struct ap_subgraph_rt {
  ap_tensor *tensors;
  size_t tensor_count;
  ap_op_context *ops;
  size_t op_count;
} ap_subgraph_rt;

struct ap_interpreter {
  const ap_model *model;
  const ap_allocator *alloc;
  ap_interpreter_options opt;
  ap_errbuf err;

  /* Caller-owned buffer: tables and persistent state are taken from its top, the arena from its
   * bottom. */
  uint8_t *buf;
  size_t buf_size;
  size_t tail_used;      /* bytes taken from the top */
  size_t tables_bytes;   /* the part of tail_used that the tables take */

  ap_subgraph_rt *sg;
  size_t sg_count;
  int32_t **input_dims;  /* subgraph 0 inputs: resized dims (NULL: as in the model) */
  int *input_rank;

  ap_block *blocks;      /* persistent memory from the allocator */
  uint64_t persistent_bytes;
  uint8_t *arena_mem;    /* from the allocator (NULL with a caller buffer) */
  uint8_t *arena;        /* aligned base of the planned arena */
  uint64_t arena_bytes;

  bool allocated;        /* a plan is in place and matches the shapes */
  atomic_int busy;
};

/* Memory for the tables (create time): from the caller buffer's top, or the allocator. */
void *rt_tables_alloc(ap_interpreter *it, size_t bytes);
/* Persistent memory (prepare time), zeroed, 16-byte aligned. */
void *rt_persistent_alloc(ap_interpreter *it, size_t bytes);
/* Frees everything allocate made (persistent blocks, the arena); keeps the tables. */
void rt_release(ap_interpreter *it);

/* Sets a tensor's shape and its byte size from its type; false on overflow or unknown size. */
bool rt_set_shape(ap_tensor *t, const int32_t *dims, int rank);

/* Finds the op's kernel: the caller's custom ops first, then the builtins. False if none. */
bool rt_find_kernel(ap_op_context *c);

/* The builtin kernels as ops (builtin_ops.c): prepare in allocate, bind once the tensors are
 * placed, eval in invoke. */
ap_status rt_builtin_prepare(ap_op_context *c);
ap_status rt_builtin_bind(ap_op_context *c);
ap_status rt_builtin_eval(ap_op_context *c);

#endif
