/* The model of TFLite Micro's allocator: per-target struct sizes and per-kernel rules. */
#ifndef AP_SRC_TFLM_INTERNAL_H
#define AP_SRC_TFLM_INTERNAL_H

#include "arenaplan/options.h"
#include "arenaplan/tflm.h"
#include "base/base.h"

/* sizeof/alignof of the runtime structs that go into the arena, per target (index
 * ap_tflm_target), as TFLite Micro 90b983c2 compiles them. */
typedef struct tflm_layout {
  uint32_t size, align;
} tflm_layout;
typedef struct tflm_sizes {
  tflm_layout eval_tensor, tensor, node_and_registration, subgraph_allocations;
  tflm_layout scratch_handle, scratch_request, affine_quantization, allocation_info, size_t_;
  tflm_layout single_arena_allocator, recording_single_arena_allocator, greedy_planner;
  tflm_layout micro_allocator, recording_micro_allocator, builtin_data_allocator;
  uint32_t pointer;
  uint32_t resource_variables_object; /* MicroResourceVariables */
  uint32_t resource_variable_slot;    /* one of its slots */
  uint32_t planner_per_buffer;        /* GreedyMemoryPlanner::per_buffer_size() */
} tflm_sizes;
const tflm_sizes *tflm_sizes_for(ap_tflm_target t);

/* What one op asks of the allocator beyond its builtin options. */
#define TFLM_MAX_REQUESTS 12 /* kMaxScratchBuffersPerOp; also bounds our persistent lists */
typedef struct tflm_needs {
  uint64_t init[TFLM_MAX_REQUESTS]; /* AllocatePersistentBuffer calls in init (16-aligned) */
  size_t init_count;
  uint64_t prepare[TFLM_MAX_REQUESTS]; /* ... in prepare */
  size_t prepare_count;
  uint64_t scratch[TFLM_MAX_REQUESTS]; /* RequestScratchBufferInArena calls, in order */
  size_t scratch_count;
  bool assign_variable; /* stores its input 1 in a resource variable (first time per id) */
  char reject[160];     /* non-empty: TFLite Micro's prepare fails, with this reason */
} tflm_needs;

typedef struct tflm_op_ctx {
  const ap_model *m;
  size_t sg, op;
  ap_op_info info;
  ap_tflm_target target;
} tflm_op_ctx;

typedef struct tflm_rule {
  const char *name; /* builtin name, or custom code when custom */
  bool custom;
  /* The parsed builtin options struct (Parse* in flatbuffer_conversions.cc): size 0 when the
   * parser allocates nothing. Index: ap_tflm_target. */
  uint8_t params_size[2], params_align[2];
  /* The kernel's OpData from init; 0 when init allocates nothing. */
  uint16_t op_data[2];
  /* Data-dependent buffers and scratch requests; NULL when there are none. */
  ap_status (*extra)(const tflm_op_ctx *c, tflm_needs *n);
} tflm_rule;

/* The rule for an op, or NULL when its allocation behaviour is not modelled. */
const tflm_rule *tflm_rule_for(const ap_op_info *info);

/* True for builtins TFLite Micro has no kernel for: AllocateTensors fails. */
bool tflm_kernel_absent(const ap_op_info *info);

/* Fills the needs of one op from its rule (op data, then the rule's extra). */
ap_status tflm_op_needs(const tflm_op_ctx *c, const tflm_rule *r, tflm_needs *n);

#endif
