/* arenaplan tflm: what TensorFlow Lite Micro needs for a model, without a device.
 *
 * A model of TFLite Micro's allocator at tensorflow/tflite-micro 90b983c2 with its reference
 * kernels: `MicroInterpreter(model, resolver, arena, size)` then `AllocateTensors()`.
 *
 *   ap_tflm_result r;
 *   if (ap_tflm_estimate(m, &(ap_tflm_options){.target = AP_TFLM_MCU32}, NULL, &r) == AP_OK)
 *     printf("kTensorArenaSize >= %llu\n", (unsigned long long)r.min_arena_bytes);
 *   ap_tflm_result_free(&r, NULL);
 *
 * The arena has two ends. The head (from the arena start) holds TFLite Micro's
 * GreedyMemoryPlanner plan of every activation and every scratch buffer its kernels request in
 * Prepare, under its own lifetime rules (ap_graph AP_RULES_TFLM). The tail (from the arena
 * end) holds everything persistent, allocated in a fixed order, each block aligned on its own:
 * the allocator objects, TfLiteEvalTensor and NodeAndRegistration arrays, parsed builtin
 * options, each kernel's OpData and prepare-time buffers, variable tensors, scratch handles and
 * the input/output TfLiteTensors. arena_used_bytes = head + tail.
 *
 * AllocateTensors() needs more than arena_used_bytes on small models: during prepare the head
 * holds the scratch-request array and kernels' temporary TfLiteTensors, and the planning step
 * needs an AllocationInfo per tensor plus 40 bytes per planned buffer between head and tail.
 * min_arena_bytes = AlignUp16(max(arena_used, prepare_peak, planning_peak)).
 *
 * Targets. AP_TFLM_HOST64: x86-64 (LP64). AP_TFLM_MCU32: 32-bit pointers and size_t as
 * measured on i386. ARM AAPCS (Cortex-M) differs from i386 in one way: it aligns 8-byte
 * members (double, int64_t) to 8 where i386 aligns them to 4; an OpData holding one (SOFTMAX's
 * has a double) can be a few bytes larger on ARM before its 16-byte rounding, so on Cortex-M
 * the tail can exceed the mcu32 figure by up to 16 bytes per such kernel.
 */
#ifndef ARENAPLAN_TFLM_H
#define ARENAPLAN_TFLM_H

#include "arenaplan/model.h"
#include "arenaplan/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ap_tflm_target { AP_TFLM_HOST64 = 0, AP_TFLM_MCU32 = 1 } ap_tflm_target;
/* "host64", "mcu32"; false for anything else. */
const char *ap_tflm_target_name(ap_tflm_target t);
bool ap_tflm_parse_target(const char *s, ap_tflm_target *out);

/* The tail, by category. The first seven are TFLite Micro's RecordingMicroAllocator
 * categories (recording_micro_allocator.h); the rest is what it does not record. */
typedef enum ap_tflm_category {
  AP_TFLM_EVAL_TENSOR = 0,         /* kTfLiteEvalTensorData */
  AP_TFLM_PERSISTENT_TENSOR,       /* kPersistentTfLiteTensorData */
  AP_TFLM_PERSISTENT_TENSOR_QUANT, /* kPersistentTfLiteTensorQuantizationData */
  AP_TFLM_PERSISTENT_BUFFER,       /* kPersistentBufferData */
  AP_TFLM_VARIABLE_BUFFER,         /* kTfLiteTensorVariableBufferData */
  AP_TFLM_NODE_AND_REGISTRATION,   /* kNodeAndRegistrationArray */
  AP_TFLM_OP_DATA,                 /* kOpData: never recorded at 90b983c2, always 0 */
  AP_TFLM_ALLOCATOR_OBJECTS,       /* unrecorded: allocator and planner objects */
  AP_TFLM_MODEL_START,             /* unrecorded: builtin-data allocator, SubgraphAllocations */
  AP_TFLM_BUILTIN_DATA,            /* unrecorded: parsed builtin options */
  AP_TFLM_SCRATCH_HANDLES,         /* unrecorded: ScratchBufferHandle array */
  AP_TFLM_CATEGORY_COUNT
} ap_tflm_category;
/* "eval_tensor", "persistent_tensor", ... (the ../shared/bench column stems). */
const char *ap_tflm_category_name(ap_tflm_category c);
/* TFLite Micro's own name: "kTfLiteEvalTensorData", ...; "(unrecorded)" for the rest. */
const char *ap_tflm_category_tflm_name(ap_tflm_category c);

typedef enum ap_tflm_phase {
  AP_TFLM_PHASE_SETUP = 0, /* allocator objects, resource variables */
  AP_TFLM_PHASE_START,     /* StartModelAllocation */
  AP_TFLM_PHASE_PARSE,     /* builtin options of one op */
  AP_TFLM_PHASE_INIT,      /* one kernel's init */
  AP_TFLM_PHASE_PREPARE,   /* one kernel's prepare */
  AP_TFLM_PHASE_FINISH     /* scratch handles, variables, I/O tensors */
} ap_tflm_phase;
const char *ap_tflm_phase_name(ap_tflm_phase p);

/* One tail allocation, in TFLite Micro's order. */
typedef struct ap_tflm_item {
  ap_tflm_phase phase;
  ap_tflm_category category;
  int32_t subgraph, op; /* -1 outside parse/init/prepare */
  const char *what;     /* a constant description: "TfLiteEvalTensor[]", "OpData", ... */
  uint64_t requested;
  uint32_t alignment;
  uint64_t consumed; /* requested + padding from the tail position before it */
} ap_tflm_item;

/* An op whose allocation behaviour is not modelled; `allowance` bytes were added to the tail
 * for it (see AP_TFLM_UNMODELLED_ALLOWANCE) and to min_arena_bytes. */
typedef struct ap_tflm_unmodelled {
  uint32_t subgraph, op;
  const char *name; /* builtin name or custom code, in the model */
  uint64_t allowance;
} ap_tflm_unmodelled;
/* Per unmodelled op: above the largest fixed OpData of any modelled reference kernel
 * (UNIDIRECTIONAL_SEQUENCE_LSTM: 688), rounded up. An allowance, not a bound: a kernel whose
 * buffers or scratch requests grow with its tensors can exceed it, and the output says so. */
#define AP_TFLM_UNMODELLED_ALLOWANCE 1024u

/* A kernel's RequestScratchBufferInArena call (bytes as requested; the planner rounds to 16). */
typedef struct ap_tflm_scratch {
  uint32_t subgraph, op;
  uint64_t bytes;
} ap_tflm_scratch;

typedef struct ap_tflm_options {
  ap_tflm_target target;
  /* Model TFLite Micro's benchmark setup (RecordingMicroAllocator, recording allocator
   * objects, MicroResourceVariables with 100 slots always) instead of the plain interpreter. */
  bool recording;
  /* Slots of MicroResourceVariables when the model uses resource variables (VAR_HANDLE);
   * 0: 100, TFLite Micro's examples' value. */
  uint32_t resource_variable_slots;
} ap_tflm_options;

typedef struct ap_tflm_result {
  ap_tflm_target target;
  uint64_t min_arena_bytes;  /* smallest kTensorArenaSize (multiple of 16) that allocates */
  uint64_t arena_used_bytes; /* MicroInterpreter::arena_used_bytes() after AllocateTensors */
  uint64_t head_bytes;       /* the planner's arena */
  uint64_t tail_bytes;
  uint64_t prepare_peak_bytes;  /* max over AllocateTensors of (head or temp) + tail */
  uint64_t planning_peak_bytes; /* what the planning step needs (see above) */
  uint64_t temp_peak_bytes;     /* prepare_peak_bytes before the final plan is placed */
  uint64_t category_bytes[AP_TFLM_CATEGORY_COUNT];
  /* Counted as RecordingMicroAllocator counts: tensors for eval tensors, ops for
   * NodeAndRegistration, allocations for the rest. */
  uint32_t category_count[AP_TFLM_CATEGORY_COUNT];
  size_t planned_buffers;   /* buffers handed to the GreedyMemoryPlanner */
  ap_tflm_scratch *scratch; /* RequestScratchBufferInArena calls, in order */
  size_t scratch_requests;
  uint64_t scratch_bytes;  /* their requested bytes */
  bool resource_variables; /* the setup creates MicroResourceVariables */
  ap_tflm_item *items;     /* the tail, in order */
  size_t item_count;
  ap_tflm_unmodelled *unmodelled;
  size_t unmodelled_count;
  uint64_t unmodelled_bytes; /* sum of allowances (included in tail and min_arena_bytes) */
  char error[256];           /* the message when ap_tflm_estimate fails */
} ap_tflm_result;

/* Estimates TFLite Micro's arena for the model. On failure `out->error` says why and nothing
 * needs freeing: AP_ERR_UNSUPPORTED when TFLite Micro's AllocateTensors() itself fails (a
 * hybrid op, "Hybrid models are not supported on TFLite Micro."; a builtin it has no kernel
 * for, POW or TILE; the Ethos-U custom op, present only on Ethos-U builds) or when the model
 * carries an OfflineMemoryAllocation plan (not modelled); AP_ERR_FORMAT for tensors or
 * options a kernel cannot prepare; AP_ERR_OVERFLOW, AP_ERR_NOMEM, AP_ERR_ARG. On success free
 * with ap_tflm_result_free. */
ap_status ap_tflm_estimate(const ap_model *m, const ap_tflm_options *opt, const ap_allocator *a,
                           ap_tflm_result *out);
void ap_tflm_result_free(ap_tflm_result *r, const ap_allocator *a);

/* The smallest arena (multiple of 16) if TFLite Micro's head were `head_bytes` instead (an
 * embedded plan of the same buffers), with everything else as estimated. */
uint64_t ap_tflm_min_arena_with_head(const ap_tflm_result *r, uint64_t head_bytes);

/* The problem TFLite Micro's planner receives (its lifetimes, its kernels' scratch requests),
 * to plan it with any strategy: "tflm" gives head_bytes. Destroy with ap_problem_destroy. */
ap_status ap_tflm_problem(const ap_model *m, const ap_allocator *a, ap_problem **out, char *err,
                          size_t err_size);

/* TFLite Micro's offline plan (model.h: ap_offline_plan, ap_model_offline_plan): TFLite Micro
 * reads word 3 + i for tensor i of EVERY subgraph (its index within the subgraph), so only a
 * slot one planned tensor uses can carry an offset; scratch buffers stay online and fill the
 * gaps. */
/* A plan of TFLite Micro's own problem (its lifetimes, its kernels' scratch requests) made with
 * `strategy` (NULL: "best"), its tensors' offsets written where TFLite Micro will read them. */
ap_status ap_tflm_offline_build(const ap_model *m, const char *strategy, const ap_allocator *a,
                                ap_offline_plan *out, char *err, size_t err_size);

typedef struct ap_tflm_offline_result {
  uint64_t head_bytes;    /* TFLite Micro's head with this plan */
  uint64_t lower_bound;   /* of TFLite Micro's problem: no head is smaller */
  size_t offline_buffers; /* planned buffers at a fixed offset */
  size_t online_buffers;  /* placed by TFLite Micro around them */
  /* Non-empty when the kernels' scratch requests are not known (a custom op of another
   * TFLite Micro build, like Ethos-U's): the tensors alone were checked. */
  char note[256];
} ap_tflm_offline_result;
/* Checks offsets against TFLite Micro's lifetimes as TFLite Micro applies them: count equal to
 * the model's tensors (AP_ERR_FORMAT), offsets >= 0 or -1 and multiples of 16, no two fixed
 * buffers live at the same time sharing bytes (AP_ERR_INVALID_PLAN, naming both tensors); then
 * places the online buffers as TFLite Micro does. A model whose kernels cannot be modelled is
 * checked on its tensors alone (out->note says so); other failures as in ap_tflm_problem. */
ap_status ap_tflm_offline_check(const ap_model *m, const int32_t *offsets, size_t count,
                                const ap_allocator *a, ap_tflm_offline_result *out, char *err,
                                size_t err_size);

#ifdef __cplusplus
}
#endif
#endif
