/* arenaplan runtime: run a model in its planned arena.
 *
 *   ap_interpreter *it;
 *   ap_interpreter_options o = ap_interpreter_defaults();
 *   if (ap_interpreter_create(model, &o, &it) != AP_OK ||
 *       ap_interpreter_allocate(it) != AP_OK) {
 *     fprintf(stderr, "%s\n", ap_interpreter_error(it));
 *     ...
 *   }
 *   ap_tensor in, out;
 *   ap_interpreter_input(it, 0, &in);
 *   memcpy(in.data, my_input, in.bytes);
 *   if (ap_interpreter_invoke(it) != AP_OK) ...
 *   ap_interpreter_output(it, 0, &out);
 *   ap_interpreter_destroy(it);
 *
 * Memory. ap_interpreter_allocate() runs every kernel's prepare (shape propagation, scratch
 * requests, persistent state), plans the arena and places every tensor. Regions:
 *  - weights: the model's constant buffers, read in place, never copied;
 *  - persistent: variable tensors, custom kernels' state and builtin ops' prepared parameters
 *    (options.prepare; live until the next allocate);
 *  - tables: the interpreter itself: its struct (with a 256-byte message buffer), 2 bytes per
 *    tensor plus 24 per non-constant tensor (constants are read from the model in place),
 *    16 bytes per op (24 with options.prepare AP_PREPARE_ONCE), shapes that differ from the
 *    model's, custom ops' records;
 *  - arena: the planned tensors and scratch buffers.
 * Builtin kernels' parameters (multipliers, padding, shapes, the fast path chosen) are computed
 * again from the model before each op runs, which costs no memory, or once in allocate and
 * kept with the op (options.prepare: faster invokes).
 * With a caller-owned buffer (options.arena / arena_size), the interpreter, persistent, tables
 * and arena all go inside it; it must outlive the interpreter and is not freed by it. Allocate
 * fails with AP_ERR_ARENA_TOO_SMALL and "arena too small: needs N bytes, buffer has M" when it
 * cannot hold them. Planning temporaries come from the part of the buffer the arena will later
 * use, and only when that is too small for them from the allocator (freed before allocate
 * returns); nothing else is allocated. Without a caller buffer, everything comes from the
 * allocator.
 * Stack: on x86-64 the AVX-512 fast kernels of streamed segments that have no room in the arena
 * for their weights' packing or their window rows build a tile of up to 16 input pixels' patches
 * (a convolution reading its weights in place) or a depthwise window on the stack of the thread
 * running them (the caller's or a worker's): at most 16 KiB each, outside the arena; and a
 * segment run keeps the direct kits' packed weights and window rows of the members the arena
 * left reading their weights in place or packing them at each call, and the rings between
 * members that the arena kept to a few rows, grown (at most 8 KiB of them), on the same stack
 * (16 KiB in all, beneath those: at most 32 KiB in all). Builds for other targets
 * (microcontrollers included) do not contain these.
 *
 * Dynamic tensors. Allocate resolves every shape it can: prepare sees the values of constants
 * and also of small integer tensors that ops compute from them and from known shapes (SHAPE of
 * a tensor of known shape, then STRIDED_SLICE, PACK, GATHER, CAST, MUL... of those: shape
 * arithmetic is folded in allocate, into the tables region). A tensor whose shape still depends
 * on values known only while running (dynamic_shapes.tflite slices by a CAST of an input) is
 * dynamic, and so is every output of an op reading a dynamic tensor. Dynamic tensors take no
 * arena bytes; ap_interpreter_dynamic_count() and ap_interpreter_dynamic_tensor() list them
 * after allocate, and ap_tensor.is_dynamic marks them.
 *
 * The no-allocation promise, precisely: for a model without dynamic tensors
 * (ap_interpreter_dynamic_count() == 0), ap_interpreter_invoke() allocates nothing, ever. For a
 * model with some, invoke prepares their ops with the values at hand and gives each dynamic
 * tensor (and each such op's scratch) a block of options.allocator (also with a caller buffer:
 * the buffer holds everything else, the dynamic region comes from the allocator). A block is
 * kept across invokes and replaced by a larger one only when an invoke needs more bytes than
 * it holds: an invoke allocates nothing when no dynamic tensor is larger than in an earlier
 * invoke since the last allocate (in particular, repeating an invoke with inputs of the same
 * values allocates nothing). Blocks are freed by the next allocate and by destroy;
 * ap_interpreter_dynamic_bytes() says how much they hold. Out of memory there fails the invoke
 * with AP_ERR_NOMEM.
 *
 * Threads. An interpreter is used by one thread at a time: invoke, allocate, resize or
 * reset_variables while one of them runs on the same interpreter returns AP_ERR_BUSY (and
 * leaves the message alone). Accessors are not synchronised. Several interpreters may share
 * one model and run at the same time (the model is read-only).
 *
 * Lifetimes. The model must outlive every interpreter made from it; so must a caller buffer,
 * options.strategy and options.custom_ops.
 */
#ifndef ARENAPLAN_RUNTIME_H
#define ARENAPLAN_RUNTIME_H

#include "arenaplan/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AP_MAX_DIMS 8

/* A tensor as the runtime sees it: a value the accessors fill in. The interpreter keeps no
 * such record per tensor (it keeps 24 bytes per tensor and reads names, types and
 * quantization from the model in place); `data` stays valid until the next allocate or
 * resize, and writing through it (an input) is how a caller feeds the model. */
typedef struct ap_tensor {
  const char *name; /* inside the model */
  int type;         /* ap_dtype */
  int rank;
  int32_t dims[AP_MAX_DIMS]; /* current dims: resized inputs and shapes kernels computed */
  void *data;                /* NULL before allocate, and for tensors that need no bytes */
  size_t bytes;
  /* Quantization: per-tensor (count 1) or per-channel along quantized_dimension. */
  float scale;
  int32_t zero_point;
  const float *scales;
  const int64_t *zero_points;
  size_t quant_count;
  int32_t quantized_dimension;
  bool is_constant; /* data points into the model: never write it */
  bool is_variable;
  /* Its shape is known only while running (see "Dynamic tensors" above): dims, data and bytes
   * are those of the last invoke; before the first, the model's dims, data NULL, bytes 0. */
  bool is_dynamic;
} ap_tensor;

/* What a kernel sees of its op, in prepare and in eval. The context lives only during the
 * call: keep nothing from it but what ap_op_set_state and ap_op_persistent give. */
typedef struct ap_op_context ap_op_context;
size_t ap_op_input_count(const ap_op_context *c);
size_t ap_op_output_count(const ap_op_context *c);
/* Fills *out with the op's input or output i. False when i is out of range or the input is
 * an absent optional one (-1). In prepare, data is NULL for tensors that are not constant. */
bool ap_op_input(const ap_op_context *c, size_t i, ap_tensor *out);
bool ap_op_output(const ap_op_context *c, size_t i, ap_tensor *out);
const ap_model *ap_op_model(const ap_op_context *c);
size_t ap_op_subgraph(const ap_op_context *c);
size_t ap_op_index(const ap_op_context *c);
/* The op's entry in the model (builtin code, options type, custom options). */
const ap_op_info *ap_op_info_of(const ap_op_context *c);
/* Prepare only: sets an output's shape (its bytes follow from its type). */
ap_status ap_op_set_output_shape(ap_op_context *c, size_t i, const int32_t *dims, int rank);
/* Prepare only: asks for a scratch buffer in the arena, live while the op runs. When prepare
 * runs again for a resize within max_input_dims, the requests must come in the same order and
 * be no larger than at allocate. */
ap_status ap_op_request_scratch(ap_op_context *c, size_t bytes, int *index);
/* Eval only: the scratch buffer's address (16-byte aligned). */
void *ap_op_scratch(ap_op_context *c, int index);
/* Prepare in allocate only: memory in the persistent region (zeroed, 16-byte aligned) for the
 * op's state; it lives until the next allocate. NULL on failure (the interpreter keeps the
 * message), and during a prepare re-run by a resize within max_input_dims (the state from
 * allocate is kept: read it with ap_op_state). */
void *ap_op_persistent(ap_op_context *c, size_t bytes);
/* The op's state pointer, kept from prepare to every eval. */
void ap_op_set_state(ap_op_context *c, void *state);
void *ap_op_state(const ap_op_context *c);
/* Records a message naming the op and returns `s`, e.g.
 *   return ap_op_fail(c, AP_ERR_UNSUPPORTED, "input type %s", ap_dtype_name(t.type)); */
ap_status ap_op_fail(ap_op_context *c, ap_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A kernel: prepare runs in allocate (and again after a resize within max_input_dims), eval in
 * invoke (it must not allocate). Either may be NULL. */
typedef struct ap_op_kernel {
  ap_status (*prepare)(ap_op_context *c);
  ap_status (*eval)(ap_op_context *c);
} ap_op_kernel;

/* A custom op the caller provides, by its custom_code (or a builtin it overrides). */
typedef struct ap_custom_op {
  const char *name; /* custom_code; NULL to override a builtin */
  int32_t builtin;  /* used when name is NULL */
  ap_op_kernel kernel;
} ap_custom_op;

/* The ops this build runs (without a caller's custom ops): the builtin kernels, the runtime's
 * own (control flow, resource variables) and the custom ops TFLite Micro ships, built in. */
typedef struct ap_op_support {
  int32_t builtin;   /* 32 (CUSTOM) for a custom op */
  const char *name;  /* "CONV_2D", or the custom_code ("TFLite_Detection_PostProcess") */
  const char *types; /* the input types the oracle proves it runs, space-separated ("float32
                      * int8 int16x8"); "" when no single-op oracle model covers it */
} ap_op_support;
size_t ap_supported_op_count(void);
ap_status ap_supported_op(size_t i, ap_op_support *out); /* AP_ERR_RANGE past the end */
/* Whether this build has a kernel for op `op` of subgraph `sg`: AP_OK, or AP_ERR_UNSUPPORTED
 * with the reason in why. A check from the file alone: allocate may still refuse the op's
 * types, shapes or quantization (its message names them). */
ap_status ap_op_supported(const ap_model *m, size_t sg, size_t op, char *why, size_t why_size);

/* Dims of one input: rank entries (rank 0 with dims NULL: not given). */
typedef struct ap_dims {
  const int32_t *dims;
  int rank;
} ap_dims;

typedef struct ap_interpreter_options {
  const char *strategy;          /* NULL: "best"; must outlive the interpreter */
  uint64_t alignment;            /* 0: 16; else a multiple of 8 (AP_ERR_ARG otherwise) */
  const ap_allocator *allocator; /* copied */
  void *arena; /* optional caller-owned buffer for all regions (any address: aligned inside) */
  size_t arena_size;
  /* Threads for the large ops of the fast kernels (0 or 1: the calling thread only; at most
   * AP_MAX_THREADS): CONV_2D (int8 and float) and DEPTHWISE_CONV_2D split by output rows,
   * FULLY_CONNECTED by units, same-shape ADD/SUB by elements, PAD by rows; the calling thread
   * takes a share. The workers start at the first allocate (their record from the allocator,
   * also with a caller-owned buffer; their stacks from the OS) and stay until destroy; invoke
   * runs on them without allocating. An op below about a microsecond of work (64K
   * multiply-adds of a convolution) stays on the calling thread; so does a convolution,
   * depthwise convolution or pool whose output overlaps its input (options.inplace: the plan
   * gives no overlap to an op whose kernel choice is the fast kernels on threads, and the
   * choice counts the bytes that costs against the budget).
   * Between ops the workers spin (up to a millisecond after the last split op, then sleep;
   * invoke wakes them; where waking a sleeper has cost more than 125 us, as on virtual
   * machines where it took milliseconds, up to 8 times that cost, at most 50 ms, so a model
   * invoked at a camera's rate finds them awake): a CPU each while a model runs and for that
   * while after, none when idle longer. Outputs are the same bytes for every thread count
   * (integer sums in any order are exact; a float output keeps its one-thread sum order). The
   * interpreters of an ap_pool run with 0 (pool.h). */
  int threads;
  /* Which kernel each builtin op runs. Candidates per op, fastest first: the fast kernels (SIMD
   * for the level the CPU has, capped by the environment variable AP_SIMD: generic; sse41,
   * avx2, avx512 on x86-64; neon, neondot on AArch64) on `threads` threads (one workspace per
   * thread), on one thread, on one thread without packed weights, and the reference kernel
   * (the specification: plain loops, smallest scratch). Every choice gives the same output
   * bytes. Their scratch is planned in the arena with the tensors, so scratch that fits in the
   * free space at its op's step costs nothing.
   * AP_KERNELS_AUTO (0, the default): allocate chooses, per op, the set with the fastest
   * estimated invoke (a model of each candidate's multiply-adds and bytes moved per SIMD
   * level, ap_interpreter_estimate_ns) whose total (arena + persistent + tables, as
   * ap_memory_usage.total) is within `budget`, or with budget 0 within 1.02 x the reference
   * kernels' total: the memory of the smallest kernels at nearly the speed of the fastest.
   * Exhaustive when the candidates' combinations are few (64 or fewer), else greedy (from
   * every op fastest, the op saving the most bytes per estimated nanosecond lost steps down,
   * re-planned each time) with a pass that steps ops back up while the total stays within.
   * No set fits: allocate fails with AP_ERR_ARENA_TOO_SMALL and "budget B bytes: the smallest
   * plan (reference kernels) needs N bytes, M over".
   * AP_KERNELS_FAST: the fast kernels on every op they cover (the fastest plan, whatever its
   * memory). AP_KERNELS_REFERENCE: the reference kernels only (one thread).
   * AP_KERNELS_SMALL: AP_KERNELS_AUTO with the budget the reference kernels' total plus
   * small_scratch bytes (0: AP_SMALL_SCRATCH_DEFAULT), for memory-tight targets. */
  int kernels;
  /* AP_KERNELS_SMALL's bytes over the reference total (0: AP_SMALL_SCRATCH_DEFAULT). */
  size_t small_scratch;
  const ap_custom_op *custom_ops; /* must outlive the interpreter */
  size_t custom_op_count;
  bool preserve_all; /* no reuse at all (every tensor kept intact: for dumps) */
  /* Optional, copied: the largest dims of subgraph 0's inputs (max_input_count entries, in
   * input order; an entry with rank 0 is not resizable without a new allocate). Allocate plans
   * every tensor at these dims; afterwards a resize to dims of the same rank, each no larger,
   * needs no new allocate: resize re-runs every op's prepare (shapes, parameters, scratch) in
   * place, without allocating, and invoke works at once. ap_interpreter_max_dims_cost() says
   * what planning for the maximum costs. */
  const ap_dims *max_input_dims;
  size_t max_input_count;
  /* 0: no limit, as in TFLite Micro (a WHILE whose condition never turns false runs forever).
   * Else a WHILE op's invoke fails with AP_ERR_TIMEOUT once its body has run this many times in
   * one execution of the op: for models from untrusted sources. */
  uint64_t max_loop_iterations;
  /* In-place sharing (ap_graph_options.inplace): a view's or an element-wise op's output takes
   * its input's bytes, a convolution's or pooling's may overlap its input. A custom kernel
   * overriding one of those builtins must then accept that (output data == input data, or
   * the output starting below the input and written in the builtin's row order). Ignored with
   * preserve_all and with max_input_dims (a resize could make a broadcasting op's output outgrow
   * the input it shares). */
  bool inplace;
  /* Streamed segments (ap_graph_options.stream): runs of convolutions and pooling of subgraph
   * 0 run row by row, the maps between them held as rings of rows in the arena, with the
   * builtin reference kernels' arithmetic (outputs equal an unstreamed run's). Ignored with
   * preserve_all, with max_input_dims, and when a custom op overrides a builtin. */
  bool stream;
  /* When builtin ops' prepare runs. AP_PREPARE_EACH_INVOKE (0, the default): before every
   * eval, from the model (nothing kept: the smallest memory; small models spend about a third
   * of their invoke there). AP_PREPARE_ONCE: in allocate (and a resize) only; each op keeps
   * what it computed (parameters, its tensors' views: a few hundred bytes per op, in the
   * persistent region and counted there) and invoke runs eval alone. Ops whose shapes are known
   * only while running are prepared at every invoke either way. */
  int prepare;
  /* Subgraph inputs keep their bytes to the end of the invoke (and so after it), as TFLite's
   * interpreter keeps them: a second invoke without copying the inputs in again sees the same
   * inputs. Off by default: the plan may reuse an input's bytes once its last reader has run
   * (a smaller arena). TFLite's C API (src/compat) turns it on. */
  bool preserve_inputs;
  /* Bytes the whole interpreter may take (ap_memory_usage.total) when allocate chooses the
   * kernels (AP_KERNELS_AUTO): the fastest estimated plan within it. 0: 1.02 x the reference
   * kernels' total. Ignored with AP_KERNELS_FAST, _REFERENCE and _SMALL. */
  uint64_t budget;
} ap_interpreter_options;

enum { AP_KERNELS_AUTO = 0, AP_KERNELS_REFERENCE = 1, AP_KERNELS_SMALL = 2, AP_KERNELS_FAST = 3 };
#define AP_SMALL_SCRATCH_DEFAULT 8192
enum { AP_PREPARE_EACH_INVOKE = 0, AP_PREPARE_ONCE = 1 };
#define AP_MAX_THREADS 64

ap_interpreter_options ap_interpreter_defaults(void);

typedef struct ap_interpreter ap_interpreter;

/* On failure *out is still an interpreter (unless out of memory, or a caller buffer too small
 * for the interpreter itself: then NULL) whose message says why; destroy it as usual. */
ap_status ap_interpreter_create(const ap_model *m, const ap_interpreter_options *opt,
                                ap_interpreter **out);
/* Destroy every interpreter before its model. NULL is harmless. */
void ap_interpreter_destroy(ap_interpreter *it);
const char *ap_interpreter_error(const ap_interpreter *it);

/* Prepares, plans and places. Calling it again re-plans from scratch (it is how a resize
 * beyond max_input_dims takes effect). */
ap_status ap_interpreter_allocate(ap_interpreter *it);
/* Sets input `input`'s dims. Within max_input_dims (same rank, every dim no larger) the plan
 * stays valid and shapes are updated at once; otherwise the plan is stale: invoke fails with
 * AP_ERR_NOT_ALLOCATED, naming the input, until the next allocate. */
ap_status ap_interpreter_resize_input(ap_interpreter *it, size_t input, const int32_t *dims,
                                      int rank);
/* Sets the dims of an input of a signature's subgraph (what TFLite's SignatureRunner does before
 * each run), by its tensor index in that subgraph; as ap_interpreter_resize_input for subgraph
 * 0's (which this also takes), except that max_input_dims applies to subgraph 0 only: the plan
 * is stale until the next allocate (invoke then fails with AP_ERR_NOT_ALLOCATED and the
 * generic "not allocated" message; the resize's own message names the tensor). AP_ERR_ARG for a
 * tensor that is no such input. */
ap_status ap_interpreter_resize_tensor(ap_interpreter *it, size_t subgraph, size_t tensor,
                                       const int32_t *dims, int rank);
ap_status ap_interpreter_invoke(ap_interpreter *it);
/* Runs a signature's subgraph as the entry (what TFLite's SignatureRunner does); subgraph 0 is
 * ap_interpreter_invoke. Its inputs and outputs are read and written with
 * ap_interpreter_tensor (ap_model_signature_input/output give their indices). The entries
 * share one arena (graph.h: only one runs at a time), so running one may overwrite the outputs
 * another left: read them before the next invoke of any entry. Resize subgraph 0's inputs with
 * ap_interpreter_resize_input, a signature's with ap_interpreter_resize_tensor.
 * AP_ERR_RANGE for a subgraph out of range, AP_ERR_ARG for one that is no
 * signature's (a control-flow body runs only from its op). */
ap_status ap_interpreter_invoke_subgraph(ap_interpreter *it, size_t subgraph);
/* Per-op profile ("where does the time go?"). From the next invoke on, each invoke writes into
 * ns_per_op[k] the wall time in nanoseconds of op k of subgraph 0 (the entry), for k < count
 * (count may be smaller or larger than the op count: ops beyond it are not timed, entries
 * beyond the ops stay 0). A streamed segment's time goes to its first op, its other ops read
 * 0; ops an invoke did not reach read 0; a control-flow op's time includes its subgraphs'.
 * The array stays the caller's and must outlive the invokes that use it; invoke writes it and
 * allocates nothing. The sum over ops is at most the invoke's time: the gap is the runtime's
 * own per-invoke and per-op work. Off by default; (NULL, 0) turns it off again. A build
 * without a clock (the freestanding port, AP_PORT_NONE) has no profile: AP_ERR_UNSUPPORTED.
 * AP_ERR_ARG when only one of ns_per_op and count is zero/NULL. */
ap_status ap_interpreter_set_profile(ap_interpreter *it, uint64_t *ns_per_op, size_t count);
/* Sets every variable tensor back to its initial value: the model's data for it, or else
 * TFLite Micro's reset value: the zero point for INT8, zeros for other types. (Allocate does
 * the same.) Variables live in the persistent region, never in the model. Resource variables
 * (VAR_HANDLE) go back to their fill (the zero point of the value first assigned to them, else
 * 0) and CALL_ONCE ops run their init subgraph again on the next invoke: the next invoke is a
 * freshly allocated interpreter's first. */
ap_status ap_interpreter_reset_variables(ap_interpreter *it);

/* The entry subgraph's (subgraph 0's) inputs and outputs, filled into *out (AP_ERR_RANGE when
 * out of range). The data pointers live until the next allocate or resize. */
size_t ap_interpreter_input_count(const ap_interpreter *it);
size_t ap_interpreter_output_count(const ap_interpreter *it);
ap_status ap_interpreter_input(const ap_interpreter *it, size_t i, ap_tensor *out);
ap_status ap_interpreter_output(const ap_interpreter *it, size_t i, ap_tensor *out);
/* Any tensor, by subgraph and index, or by name (first match in subgraph order; the indices
 * of the match go to *subgraph and *tensor when those are not NULL). */
ap_status ap_interpreter_tensor(const ap_interpreter *it, size_t subgraph, size_t tensor,
                                ap_tensor *out);
ap_status ap_interpreter_tensor_by_name(const ap_interpreter *it, const char *name, ap_tensor *out,
                                        size_t *subgraph, size_t *tensor);

/* String tensors (STRING; model.h gives their buffer format) are dynamic tensors (above):
 * their bytes depend on their values. A string input is set with a whole buffer, copied into
 * its block in the dynamic region (allocated, or grown, only when it needs more bytes than it
 * holds), with the tensor's dims, whose element count must be the buffer's string count:
 * AP_ERR_FORMAT with the reason for a hostile buffer (offsets out of order or past its end, a
 * count that overflows or differs), AP_ERR_NOT_ALLOCATED before allocate. Ops writing strings
 * (GATHER, GATHER_ND, RESHAPE, SQUEEZE, EXPAND_DIMS, CONCATENATION, SLICE, FILL, TILE) and
 * comparing them (EQUAL, NOT_EQUAL) run on them, and TFLite's static hash tables (HASHTABLE,
 * HASHTABLE_IMPORT, HASHTABLE_FIND, HASHTABLE_SIZE; int64 -> string or string -> int64, the
 * entries copied once at import into the dynamic region); ap_interpreter_tensor gives a string
 * tensor's buffer (data) and its size (bytes). */
ap_status ap_interpreter_set_string(ap_interpreter *it, size_t subgraph, size_t tensor,
                                    const void *buffer, size_t size, const int32_t *dims,
                                    int rank);

typedef struct ap_memory_usage {
  uint64_t arena;      /* planned tensors and scratch */
  uint64_t persistent; /* variable tensors, kernels' state, prepared ops (options.prepare) */
  uint64_t tables;     /* everything the interpreter itself holds: its struct and records */
  /* What a device must provide besides the model: the arena rounded up to 16, plus persistent,
   * plus tables (each block of those rounded up to 16). With alignment <= 16 it is the exact
   * smallest caller-owned buffer that works when 16-byte aligned (an unaligned one needs up to
   * 15 bytes more); the allocator's own per-block overhead is not counted. */
  uint64_t total;
  /* The arena's lower bound (max over steps of the bytes live together): no plan of these
   * requests is smaller. */
  uint64_t arena_lower_bound;
} ap_memory_usage;
/* After allocate with options.stream: whether the plan streams segments (false when a plan
 * without them was smaller, or nothing streams). */
bool ap_interpreter_streamed(const ap_interpreter *it);
/* Exact bytes of each region after allocate (AP_ERR_NOT_ALLOCATED before). */
ap_status ap_interpreter_memory(const ap_interpreter *it, ap_memory_usage *out);
/* With max_input_dims: the arena as planned (at the maximum dims) and the arena a plan for the
 * current dims would need (planned now, with temporary memory, placing nothing). Without:
 * both are the current arena. */
ap_status ap_interpreter_max_dims_cost(ap_interpreter *it, uint64_t *planned_arena,
                                       uint64_t *current_arena);

/* Dynamic tensors (see the top of this file), after allocate: how many, tensor i of them in
 * model order (subgraph, then index; AP_ERR_RANGE past the end, AP_ERR_NOT_ALLOCATED before
 * allocate), and the bytes the dynamic region holds now (0 before the first invoke). */
size_t ap_interpreter_dynamic_count(const ap_interpreter *it);
ap_status ap_interpreter_dynamic_tensor(const ap_interpreter *it, size_t i, size_t *subgraph,
                                        size_t *tensor);
uint64_t ap_interpreter_dynamic_bytes(const ap_interpreter *it);

/* The kernels in use after allocate: "reference", or the fast kernels' SIMD level ("generic",
 * "avx2", ...); before allocate, "none". And the threads they run on (1: the caller only). */
const char *ap_interpreter_kernels(const ap_interpreter *it);
int ap_interpreter_threads(const ap_interpreter *it);
/* After allocate: op `op` of subgraph `sg`'s kernel: "fast", "one thread" (the fast kernel on
 * one thread), "in place" (on one thread, weights read in place, not packed), "reference";
 * "-" for a custom op, and NULL out of range or before allocate. The fast kernel of an op they
 * do not cover is its reference kernel. */
const char *ap_interpreter_op_kernel(const ap_interpreter *it, size_t sg, size_t op);
/* After allocate: the estimated invoke time in nanoseconds of the kernels chosen (the model
 * allocate's choice minimises; not a measurement); 0 before. */
uint64_t ap_interpreter_estimate_ns(const ap_interpreter *it);

/* The scratch buffers the kernels asked for in the last allocate, in op order (0 before
 * allocate): a report re-plans exactly the runtime's problem from these and the tensors'
 * bytes. */
typedef struct ap_scratch_info {
  size_t subgraph, op;
  uint64_t bytes;
} ap_scratch_info;
size_t ap_interpreter_scratch_count(const ap_interpreter *it);
ap_status ap_interpreter_scratch(const ap_interpreter *it, size_t i, ap_scratch_info *out);

#ifdef __cplusplus
}
#endif
#endif
