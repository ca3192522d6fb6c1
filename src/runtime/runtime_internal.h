/* The interpreter's internals, shared by the runtime's files.
 *
 * Memory diet. The interpreter keeps, per tensor, only what changes at run time (data pointer,
 * current dims) and reads everything else (name, type, quantization) from the model in place.
 * Per op it keeps the kernel and its scratch pointer. Builtin kernels keep no parameters by
 * default: eval re-runs their prepare on the stack before every eval; with options.prepare
 * AP_PREPARE_ONCE each keeps what its prepare computed (ready.c, persistent region) and invoke
 * runs eval alone. Shapes point into the model's shape vectors unless a resize or a kernel made
 * them differ. */
#ifndef AP_SRC_RUNTIME_INTERNAL_H
#define AP_SRC_RUNTIME_INTERNAL_H

#include "arenaplan/runtime.h"
#include "base/base.h"
#include "kernels/fast/fast.h"
#include "kernels/registry.h"

#include <stdatomic.h>

/* The message buffer: smaller than other objects' (AP_ERRMSG_MAX) because a device pays for it
 * in every interpreter; longer messages are cut. */
#define RT_MSG_MAX 256

/* RT_KNOWN: an op output whose value prepare computed (shape_fold.c); RT_DYNAMIC: a tensor
 * whose shape is known only while running (dynamic.c). */
enum { RT_VARIABLE = 1, RT_OWNED_DIMS = 2, RT_KNOWN = 4, RT_DYNAMIC = 8 };

/* A non-constant tensor (constants have no record: everything about them is in the model). */
typedef struct rt_tensor {
  void *data;          /* arena or persistent region */
  const int32_t *dims; /* the model's shape vector, or memory of its own (RT_OWNED_DIMS) */
  uint32_t index;      /* in its subgraph */
  uint16_t rank;
  uint8_t type;
  uint8_t flags;
} rt_tensor;

/* A custom op's record after allocate (tables memory). */
typedef struct rt_custom {
  void *state;
  uint32_t scratch_count;
  void **scratch;     /* scratch_count pointers */
  uint64_t *capacity; /* scratch_count planned sizes */
} rt_custom;

/* `kernel` is a const ap_kernel * (builtin) or, with bit 0 set, a const ap_op_kernel *
 * (custom). A builtin's bits 1-2 hold its kernel choice (RT_K_*, kchoice.c): kept in the
 * pointer's alignment bits so that choosing costs no table byte. `ext`: a builtin's one
 * scratch buffer (or NULL), a custom op's rt_custom. */
typedef struct rt_op {
  uintptr_t kernel;
  void *ext;
} rt_op;

typedef struct rt_ready rt_ready;

static inline bool rt_op_is_custom(const rt_op *o) {
  return o->kernel & 1u;
}
static inline const ap_kernel *rt_op_builtin(const rt_op *o) {
  return (const ap_kernel *)(o->kernel & ~(uintptr_t)7);
}
_Static_assert(_Alignof(ap_kernel) >= 8, "a builtin's kernel choice lives in bits 1-2");

/* A builtin op's kernel (kchoice.c), fastest first: the fast kernels on the interpreter's
 * threads; with one workspace (on one thread but for the kernels whose scratch is the same on
 * any number: ap_kexec.one_workspace); the same without packed weights and with the lean
 * kernels (which split over the threads where the op does not overlap its input); the
 * reference kernel. */
enum { RT_K_FAST = 0, RT_K_ONE = 1, RT_K_FLAT = 2, RT_K_REF = 3, RT_K_COUNT = 4 };
static inline unsigned rt_op_choice(const rt_op *o) {
  return (o->kernel & 1u) ? RT_K_FAST : (unsigned)(o->kernel >> 1) & 3u;
}
static inline void rt_op_set_choice(rt_op *o, unsigned k) {
  if (!(o->kernel & 1u)) o->kernel = (o->kernel & ~(uintptr_t)6) | ((uintptr_t)(k & 3u) << 1);
}
static inline const ap_op_kernel *rt_op_custom(const rt_op *o) {
  return (const ap_op_kernel *)(o->kernel & ~(uintptr_t)1);
}

typedef struct rt_subgraph {
  rt_tensor *tensors; /* record_count records, of the non-constant tensors */
  uint16_t *slot;     /* per tensor: 1 + its record's index, 0 for a constant */
  rt_op *ops;
  uint32_t tensor_count, record_count, op_count;
  uint32_t tensor_base; /* model-wide index of tensor 0 (request ids) */
  uint32_t op_base;     /* model-wide index of op 0 */
} rt_subgraph;

/* What prepare collects about an op during allocate (temporary memory). */
typedef struct rt_prep_scratch {
  uint64_t bytes;
  uint64_t id; /* the request's id in the problem */
  struct rt_prep_scratch *next;
} rt_prep_scratch;
typedef struct rt_prep {
  void *state;
  rt_prep_scratch *scratch;
  uint32_t scratch_count;
} rt_prep;

enum { RT_PREPARE = 1, RT_RESHAPE, RT_EVAL };

struct ap_op_context {
  ap_interpreter *it;
  uint32_t subgraph, index;
  int phase; /* RT_PREPARE, RT_RESHAPE or RT_EVAL */
  ap_op_info info;
  rt_op *op;
  rt_prep *prep;         /* RT_PREPARE */
  uint32_t scratch_seen; /* RT_RESHAPE: requests so far */
  uint32_t depth;        /* RT_EVAL: control-flow calls between subgraph 0 and this op */
  /* A builtin's prepare was called / succeeded: only its own refusal can make an op dynamic. */
  bool kernel_called, kernel_prepared;
};

struct ap_interpreter {
  const ap_model *model;
  ap_allocator alloc;
  const char *strategy;
  const ap_custom_op *custom_ops;
  size_t custom_op_count;
  uint64_t alignment;
  bool preserve_all;
  bool preserve_inputs;         /* options.preserve_inputs */
  uint64_t max_loop_iterations; /* 0: none */
  bool inplace;
  bool stream;
  bool keep_prepared;     /* options.prepare: builtin ops keep their prepare's results (ready.c) */
  /* While the kernel choice searches (kchoice.c): a measurement plans the segments without the
   * kits' and the rings' searches (lean RT_KITS_NONE, rings as the rule sets them). Those
   * searches keep a change only when the arena does not grow, so this arena bounds the placed
   * plan's from above, at one build a plan instead of dozens. */
  bool plan_quick; /* (in the bools' padding: the struct is counted in every total) */
  uint64_t prepare_calls; /* builtin kernels' prepare calls so far (tests count them) */
  /* Streamed segments after allocate (stream.c; tables memory), per op of subgraph 0: [2k] the
   * length of the segment starting at op k (0: none), [2k+1] the ring rows of its output
   * (0: whole). NULL when nothing streams. */
  uint32_t *segments;
  /* Per op of subgraph 0, at a segment's first op: how its members use the level's direct
   * kits (RT_KITS_*; stream.c; the plan's search keeps the arena as small as without them).
   * NULL: RT_KITS_ONCE everywhere. */
  uint8_t *stream_lean;
  /* While planning (place.c): per op of subgraph 0, the rows its output's ring is grown to
   * (0: the ring rule's). NULL otherwise. */
  const uint32_t *stream_grow;
  /* Runs a segment (rt_stream_run): set by whoever made `segments`, so that invoke does not
   * link the streaming code into a firmware whose plan has none. */
  ap_status (*stream_run)(ap_interpreter *it, uint32_t k, uint32_t count);
  /* Dynamic shapes and shape folding for builtin ops (dyn_ops.c): set by allocate; NULL in an
   * interpreter placed by a host's plan, so that its firmware does not link them. */
  const struct rt_dyn_ops *dyn;
  /* Prepare once (ready.c: rt_ready_keep, rt_ready_eval): set by allocate; NULL in an
   * interpreter placed by a host's plan, so that its firmware does not link them. */
  const struct rt_ready_ops *ready_ops;

  /* Caller-owned buffer: the interpreter, tables and persistent state from its top down
   * (tail_used bytes from the end), planning temporaries and then the arena from its bottom. */
  uint8_t *buf;
  size_t buf_size;
  size_t tail_used;
  size_t create_tail;           /* tail_used after create (what allocate starts again from) */
  size_t temp_used;             /* planning temporaries, from the aligned bottom */
  size_t temp_top;              /* the topmost temporary's header offset + 1 (0: none) */
  uint64_t temp_fallback_bytes; /* temporaries the buffer could not hold (from the allocator) */

  rt_subgraph *sg;
  uint32_t sg_count;
  uint32_t input_count;
  /* Subgraph 0's inputs: current dims when resized (rank -1: as in the model) and max dims
   * (rank -1: not given); AP_MAX_DIMS each. */
  int32_t *input_dims, *max_dims;
  int8_t *input_rank, *max_rank;
  bool has_max;
  /* Inputs a caller may resize: subgraph 0's, then other signature subgraphs' (interpreter.c:
   * the entry map); input_dims and input_rank hold one entry each (max dims: subgraph 0's). */
  uint32_t entry_input_count;

  /* Region sizes, each block rounded up to 16 bytes. */
  uint64_t create_tables; /* tables taken at create */
  uint64_t tables_bytes;
  uint64_t persistent_bytes;
  void *blocks; /* allocator blocks of allocate (a list) */

  uint8_t *arena_mem; /* from the allocator (NULL with a caller buffer) */
  uint8_t *arena;
  uint64_t arena_bytes;
  uint64_t arena_lower_bound;
  uint64_t *capacity;    /* with max dims: planned bytes per model-wide tensor index */
  uint64_t *scratch_cap; /* with max dims: a builtin's planned scratch per model-wide op */

  struct rt_vars *vars;      /* resource variables (resource_vars.c), persistent; NULL if none */
  const ap_kop_options *run; /* what every prepared builtin's eval reads (ready.c), persistent */
  /* With keep_prepared, after allocate: per model-wide op, its prepared block (NULL: a custom
   * or dynamic op, prepared at eval); tables memory. NULL otherwise. */
  rt_ready **ready;
  void *states; /* builtin kernels' state across invokes (op_state.c), persistent */

  bool allocated;
  int32_t stale_input;    /* >= 0: this input's resize made the plan stale */
  void *known;            /* shape_fold.c: values prepare computed (tables memory) */
  void *dynamic;          /* dynamic.c: dynamic tensors and scratch (tables memory) */
  uint32_t dynamic_count; /* dynamic tensors */
  uint64_t dynamic_bytes; /* bytes their blocks hold now (from the allocator) */

  /* Kernels: fast or reference (options.kernels), the SIMD level and the worker group chosen
   * at allocate (workers are kept until destroy). */
  int kernels, threads;
  /* options.budget, or AP_KERNELS_SMALL's small_scratch (0: the default rule of each) */
  uint64_t budget;
  ap_kexec exec;
  ap_port_workers *workers;
  /* Caller's per-op wall times of subgraph 0 (ap_interpreter_set_profile); NULL: off. */
  uint64_t *profile;
  size_t profile_count;

  atomic_int busy;
  char msg[RT_MSG_MAX]; /* the last failure's message */
};

/* What builtin kernels get: the level and workers, NULL for the reference kernels. */
static inline const ap_kexec *rt_kexec(const ap_interpreter *it) {
  return it->exec.level ? &it->exec : NULL;
}
/* Room for what rt_kexec_op builds on the caller's stack. A build without an OS has no threads
 * and needs none: there RT_K_ONE and RT_K_FLAT run as RT_K_FAST, so they size as it and
 * kchoice.c never offers them (a firmware's invoke keeps the stack it had before the choice). */
#ifndef AP_PORT_NONE
typedef struct rt_kexec_room {
  ap_kexec one;
  ap_fast_level flat;
} rt_kexec_room;
#define RT_KEXEC_ROOM(v) rt_kexec_room v##_store, *v = &v##_store
#else
typedef struct rt_kexec_room rt_kexec_room; /* nothing to build: never defined */
#define RT_KEXEC_ROOM(v) rt_kexec_room *v = NULL
#endif
/* What op o's kernel gets under its choice: rt_kexec, or that with one workspace, or with one
 * workspace, without packed weights and with the lean kernels where they cover the op
 * (kernels/fast/lean.h; built in *room), or NULL (the reference kernel). */
const ap_kexec *rt_kexec_op(const ap_interpreter *it, const rt_op *o, rt_kexec_room *room);
/* kchoice.c: allocate's search for each builtin op's kernel (the fastest estimated invoke
 * whose total is within the budget), after every op was prepared with RT_K_FAST; leaves the
 * choice in the ops, each chosen op prepared again and prep's scratch requests sized for it. */
ap_status rt_kchoice(ap_interpreter *it, rt_prep *prep);
/* Whether allocate searches (options.kernels AUTO or SMALL, or a budget). */
bool rt_kchoice_on(const ap_interpreter *it);

/* A builtin op's scratch bytes as its prepare computes them now (the plan holds that much). */
ap_status rt_builtin_scratch_bytes(ap_op_context *c, size_t *scratch);

/* Whether the plan shares bytes in place. Not with max_input_dims: a resize may shrink one
 * input of a broadcasting op and not the other, and the output would then outgrow the input
 * whose bytes it took. */
static inline bool rt_inplace(const ap_interpreter *it) {
  return it->inplace && !it->has_max;
}

/* Whether the plan streams segments: not with max_input_dims (a resize changes the rows), nor
 * when a caller's kernel overrides a builtin (a segment runs the builtin kernels' rows). */
bool rt_stream(const ap_interpreter *it);
/* stream.c: before planning, the segments' table (tables memory, zeroed; NULL with the
 * message set); after, its contents from the graph (it->segments stays NULL when the plan has
 * no segment); at invoke,
 * runs the segment of `count` ops starting at op k of subgraph 0, row by row. */
uint32_t *rt_stream_alloc(ap_interpreter *it);
ap_status rt_stream_table(ap_interpreter *it, const ap_graph *g, uint32_t *table);
ap_status rt_stream_run(ap_interpreter *it, uint32_t k, uint32_t count);
/* Frees p (NULL: nothing) with the interpreter's allocator, resolved at create: called
 * directly, so that a planned firmware links no default allocator. */
static inline void rt_free(ap_interpreter *it, void *p) {
  if (p) it->alloc.free(it->alloc.ctx, p);
}
/* ap_interpreter_create for an interpreter wholly in o->arena (required) with no heap behind
 * it (ap_no_heap): a planned firmware then links no malloc. */
ap_status rt_create_in_buffer(const ap_model *m, const ap_interpreter_options *o,
                              ap_interpreter **out);
/* Whether op k of subgraph 0 is in one of g's segments, or (after allocate) of the
 * interpreter's; the scratch bytes it needs there (its state while the segment runs and its
 * kernel's rows), from g's rings while planning, or (g NULL) the interpreter's after. */
bool rt_stream_in(const ap_graph *g, uint32_t k);
bool rt_stream_member(const ap_interpreter *it, uint32_t k);
ap_status rt_stream_scratch(ap_interpreter *it, const ap_graph *g, uint32_t k, uint64_t *bytes);
/* A segment's members run the level's direct kits with weights packed once per run (kept),
 * packed at each call (in the call's scratch), packed once where that takes little
 * (AP_FAST_WIN_BUDGET; the others on other kernels), only its depthwise members (packed once,
 * within that budget), or not at all. */
enum { RT_KITS_ONCE, RT_KITS_NONE, RT_KITS_EACH, RT_KITS_SMALL, RT_KITS_DW };
/* Or'ed into it->stream_lean[k] of a member k (its segment's mode in the low bits at the first
 * op): that member packs its weights once whatever its segment's mode. */
enum { RT_KITS_MEMBER_ONCE = 0x80 };
/* Whether a segment's members could run the level's direct kits (the choice it->stream_lean
 * makes). */
bool rt_stream_kits(const ap_interpreter *it);
/* A planned interpreter whose plan gave op k's segment less scratch than the direct kits need:
 * that segment runs without them (false: it already did, or no memory for the flags). */
bool rt_stream_lean_retry(ap_interpreter *it, uint32_t k);

/* Formats the interpreter's message and returns `s`. */
ap_status rt_fail(ap_interpreter *it, ap_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#ifdef AP_NO_MESSAGES /* base.h: the status and its name, no formatting linked */
__attribute__((always_inline, format(printf, 3, 4))) static inline ap_status
rt_fail_quiet(ap_interpreter *it, ap_status s, const char *fmt, ...) {
  (void)fmt;
  ap_fail_code(it->msg, sizeof it->msg, s);
  return s;
}
__attribute__((always_inline, format(printf, 3, 4))) static inline ap_status
ap_op_fail_quiet(ap_op_context *c, ap_status s, const char *fmt, ...) {
  (void)fmt;
  if (c) ap_fail_code(c->it->msg, sizeof c->it->msg, s);
  return s;
}
#define rt_fail(...) rt_fail_quiet(__VA_ARGS__)
#define ap_op_fail(...) ap_op_fail_quiet(__VA_ARGS__)
#endif

/* memory.c. Tables (create and allocate) and persistent memory (allocate): zeroed, 16-byte
 * aligned; from the caller buffer's top or the allocator. NULL with the message set. */
void *rt_tables_alloc(ap_interpreter *it, size_t bytes);
void *rt_persistent_alloc(ap_interpreter *it, size_t bytes);
/* Frees everything allocate made; keeps what create made. */
void rt_release(ap_interpreter *it);
/* An allocator for planning temporaries: the caller buffer's free bottom, else it->alloc. */
ap_allocator rt_temp_allocator(ap_interpreter *it);
/* The status a failed rt_*_alloc stands for. */
static inline ap_status rt_nomem(const ap_interpreter *it) {
  return it->buf ? AP_ERR_ARENA_TOO_SMALL : AP_ERR_NOMEM;
}

/* tensors.c. The record of tensor t, NULL for a constant. */
static inline rt_tensor *rt_rec(const ap_interpreter *it, size_t sg, size_t t) {
  uint16_t s = it->sg[sg].slot[t];
  return s ? &it->sg[sg].tensors[s - 1] : NULL;
}
size_t rt_tensor_bytes(const rt_tensor *t);
/* Sets a tensor's dims: in place when they equal the current ones or it owns storage of that
 * rank; otherwise new tables memory (only when `may_allocate`). */
ap_status rt_set_dims(ap_interpreter *it, rt_tensor *t, const int32_t *dims, int rank,
                      bool may_allocate);
bool rt_fill_tensor(const ap_interpreter *it, size_t sg, size_t t, ap_tensor *out);

/* context.c: finds the op's kernel (the caller's custom ops first, then the builtins). */
bool rt_find_kernel(const ap_interpreter *it, const ap_op_info *info, rt_op *op);

/* builtin_ops.c: prepare (RT_PREPARE or RT_RESHAPE: output shapes, scratch request, the op's
 * ready block) and eval of an op without one (a dynamic op: prepare again on the stack, then
 * eval). */
ap_status rt_builtin_prepare(ap_op_context *c);
ap_status rt_builtin_eval(ap_op_context *c);

/* ready.c. keep: after a builtin's successful prepare, copies its views and params into the
 * op's block (allocate makes it; a resize rewrites it). bind: after placing (and after every
 * prepare of a resize), points every block's views at their tensors' bytes and its kernel state
 * at the op's. eval: runs the op from its block alone. */
ap_status rt_ready_keep(ap_op_context *c, ap_ktensor *const *pin, ap_ktensor *const *pout,
                        const void *params, size_t scratch);
ap_status rt_ready_bind(ap_interpreter *it);
ap_status rt_ready_eval(ap_interpreter *it, uint32_t sg, uint32_t k, const rt_ready *r);
typedef struct rt_ready_ops {
  ap_status (*keep)(ap_op_context *c, ap_ktensor *const *pin, ap_ktensor *const *pout,
                    const void *params, size_t scratch);
  ap_status (*eval)(ap_interpreter *it, uint32_t sg, uint32_t k, const rt_ready *r);
} rt_ready_ops;
extern const rt_ready_ops rt_ready_all;
/* Builtin kernels' prepare calls so far (tests/runtime/test_prepare_once.c reads it). */
uint64_t rt_prepare_calls(const ap_interpreter *it);
/* data, or for an empty tensor (no bytes planned) a non-NULL pointer nothing goes through. */
void *rt_data_or_empty(const ap_ktensor *k, void *data);

/* shape_fold.c. Folding: prepare runs the kernel of an op whose inputs' values are all known
 * (constants, or outputs folded before; SHAPE needs only its input's shape) and whose outputs
 * are small integer tensors, so that shape arithmetic (SHAPE, STRIDED_SLICE, PACK, GATHER,
 * CAST, MUL...) gives the shapes it decides before running. The values live in tables memory;
 * at invoke the op runs as any other (it gives the same values). */
const void *rt_known_value(const ap_interpreter *it, uint32_t sg, uint32_t t);
/* After a successful prepare (k: its context, outputs without data): folds when it can. */
ap_status rt_fold(ap_op_context *c, ap_kctx *k, size_t scratch);

/* dynamic.c. An op is dynamic when an input is dynamic, or when its prepare fails while an
 * input whose value decides its output shape is neither constant nor known. Its outputs are
 * dynamic: planned at 0 bytes, given blocks of the allocator while running. */
bool rt_op_dynamic(const ap_op_context *c);     /* an output is dynamic (after allocate) */
bool rt_inputs_dynamic(const ap_op_context *c); /* an input is dynamic */
bool rt_shape_inputs_unknown(const ap_op_context *c);
ap_status rt_mark_dynamic(ap_op_context *c); /* prepare in allocate only */
/* Eval: sets dynamic output i to the shape prepare gave `v` and points it (and v) at a block
 * of its bytes, grown through the allocator when it is too small. */
ap_status rt_dynamic_output(ap_op_context *c, size_t i, ap_ktensor *v);
/* Eval: scratch of a dynamic op (the plan has none for it). */
ap_status rt_dynamic_scratch(ap_op_context *c, size_t bytes, void **out);
/* A tensor made dynamic by its type (strings: their bytes depend on their values), with a
 * record of its own. */
ap_status rt_dynamic_track(ap_interpreter *it, uint32_t sg, rt_tensor *x);
/* Gives dynamic tensor x the dims and a block of at least `bytes` (grown only when smaller). */
ap_status rt_dynamic_set(ap_interpreter *it, uint32_t sg, rt_tensor *x, const int32_t *dims,
                         int rank, size_t bytes);
/* strings.c: string tensors are dynamic (marked in allocate); ops on them run the runtime's own
 * string kernels (GATHER, RESHAPE, ...), chosen before the builtins. */
ap_status rt_strings_mark(ap_interpreter *it);
bool rt_string_kernel(ap_op_context *c);
bool rt_string_op(const rt_op *o);
ap_status rt_string_prepare(ap_op_context *c);
/* hashtable.c: HASHTABLE, HASHTABLE_FIND, HASHTABLE_IMPORT, HASHTABLE_SIZE (NULL for any
 * other builtin), run as string ops are (rt_string_kernel picks them). */
const ap_op_kernel *rt_hashtable_kernel(int32_t builtin);
bool rt_hashtable_op(const ap_op_kernel *k);
/* Frees every block (allocate and destroy call it through rt_release). */
void rt_dynamic_release(ap_interpreter *it);

/* place.c: plans every non-constant tensor and scratch request and places them (plan_only:
 * only computes the arena size into *arena). */
ap_status rt_plan(ap_interpreter *it, rt_prep *prep, bool place, uint64_t *arena);

/* dyn_ops.c: what builtin ops reach of dynamic.c and shape_fold.c, through it->dyn. */
typedef struct rt_dyn_ops {
  bool (*op_dynamic)(const ap_op_context *c);
  ap_status (*output)(ap_op_context *c, size_t i, ap_ktensor *v);
  ap_status (*scratch)(ap_op_context *c, size_t bytes, void **out);
  ap_status (*fold)(ap_op_context *c, ap_kctx *k, size_t scratch);
  const void *(*known_value)(const ap_interpreter *it, uint32_t sg, uint32_t t);
} rt_dyn_ops;
extern const rt_dyn_ops rt_dyn_all;
/* rt_op_dynamic when the interpreter has dynamic shapes at all. */
static inline bool rt_dyn_op(const ap_op_context *c) {
  return c->it->dyn && c->it->dyn->op_dynamic(c);
}

/* Runs the ops of subgraph sg in order (eval); depth counts the control-flow calls above it. */
ap_status rt_run_subgraph(ap_interpreter *it, uint32_t sg, uint32_t depth);

/* control_flow.c and resource_vars.c: the builtins the runtime runs itself because they reach
 * other subgraphs or interpreter state (WHILE, IF, CALL_ONCE, VAR_HANDLE, READ_VARIABLE,
 * ASSIGN_VARIABLE). They use the custom-op interface (the op's record holds their state); NULL
 * for any other builtin. */
const ap_op_kernel *rt_control_kernel(int32_t builtin);
const ap_op_kernel *rt_resource_kernel(int32_t builtin);
/* Back to the state after allocate: CALL_ONCE ops armed again, resource variables at their
 * initial fill. */
void rt_control_reset(ap_interpreter *it);
/* op_state.c: the state a builtin kernel keeps across invokes (ap_kstate). take: in
 * allocate's prepare, `bytes` of zeroed persistent memory for the op; in a resize's prepare, a
 * check that the op's state still holds `bytes`. find: the op's state at eval (NULL with the
 * message set when none of that size was taken). reset: zeroes every op's state. */
ap_status rt_state_take(ap_op_context *c, size_t bytes);
void *rt_state_find(ap_op_context *c, size_t bytes);
void rt_state_reset(ap_interpreter *it);
void rt_resource_reset(ap_interpreter *it);

/* Runs prepare of every op in phase RT_PREPARE (prep: one per op, model-wide) or RT_RESHAPE. */
ap_status rt_prepare_all(ap_interpreter *it, int phase, rt_prep *prep);

#endif
