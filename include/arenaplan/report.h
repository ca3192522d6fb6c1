/* arenaplan report: a model's plan in one call (lifetimes + problem + strategy), and the
 * figures every report shows.
 *
 *   ap_model_plan *mp;                          // the arena of the model as the file states it
 *   ap_model_plan_options o = ap_model_plan_defaults();
 *   if (ap_model_plan_create(m, &o, NULL, &mp) == AP_OK)
 *     printf("%llu\n", (unsigned long long)ap_model_plan_arena(mp));
 *   ap_model_plan_destroy(mp);                  // NULL-safe; the message is in mp on failure
 *
 *   ap_report *r;                               // everything a device needs, measured
 *   if (ap_report_create(m, NULL, NULL, &r) != AP_OK)
 *     fprintf(stderr, "%s\n", r ? ap_report_error(r) : "out of memory");
 *   else
 *     printf("%llu\n", (unsigned long long)ap_report_estimate(r)->device);
 *   ap_report_destroy(r);
 *
 * Ownership: a plan or report owns everything its accessors return (names, arrays, the
 * estimate); they live until it is destroyed, and the model must outlive both. */
#ifndef ARENAPLAN_REPORT_H
#define ARENAPLAN_REPORT_H

#include "arenaplan/graph.h"
#include "arenaplan/runtime.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ap_model_plan_options {
  const char *strategy; /* NULL: "best" */
  ap_rules rules;       /* whose lifetimes */
  bool preserve_inputs;
  uint64_t alignment;    /* 0: 16 */
  int subgraph;          /* -1: the whole model; K: only subgraph K */
  double budget_seconds; /* for "exact" */
  /* Optional: every tensor's bytes (model-wide index) and the kernels' scratch buffers, as an
   * interpreter found them in allocate: the plan is then exactly the runtime's. */
  const uint64_t *tensor_bytes;
  size_t tensor_bytes_count;
  const ap_scratch_info *scratch;
  size_t scratch_count;
  bool inplace; /* in-place sharing (ap_graph_options.inplace); off in the reproductions */
  bool stream;  /* streamed segments (ap_graph_options.stream); arenaplan's rules only */
} ap_model_plan_options;

/* Options for arenaplan's default plan: strategy "best", our rules, 16-byte alignment. */
ap_model_plan_options ap_model_plan_defaults(void);
/* What a runtime would need for this model: TFLite's ArenaPlanner (its rules and strategy,
 * 64-byte alignment) or TFLite Micro's GreedyMemoryPlanner (its rules and strategy, 16). */
ap_model_plan_options ap_model_plan_tflite(void);
ap_model_plan_options ap_model_plan_tflm(void);

typedef struct ap_model_plan ap_model_plan;

/* Plans a model. On failure *out still holds the message (unless out of memory). A model
 * planned under TFLite's rules with several subgraphs has one part per subgraph (TFLite gives
 * each its own arena); every other plan has one part. */
ap_status ap_model_plan_create(const ap_model *m, const ap_model_plan_options *opt,
                               const ap_allocator *a, ap_model_plan **out);
void ap_model_plan_destroy(ap_model_plan *mp);
const char *ap_model_plan_error(const ap_model_plan *mp);
const ap_graph *ap_model_plan_graph(const ap_model_plan *mp);
size_t ap_model_plan_parts(const ap_model_plan *mp);
const ap_problem *ap_model_plan_problem(const ap_model_plan *mp, size_t part);
const ap_plan *ap_model_plan_plan(const ap_model_plan *mp, size_t part);
/* Sums over the parts. */
uint64_t ap_model_plan_arena(const ap_model_plan *mp);
uint64_t ap_model_plan_lower_bound(const ap_model_plan *mp);
double ap_model_plan_time_ms(const ap_model_plan *mp);
size_t ap_model_plan_requests(const ap_model_plan *mp);
size_t ap_model_plan_reused(const ap_model_plan *mp);
bool ap_model_plan_optimal(const ap_model_plan *mp);
/* The offset of a tensor in its part's arena (a tensor sharing another's bytes in place: that
 * one's); false if the tensor is not planned. */
bool ap_model_plan_tensor_offset(const ap_model_plan *mp, size_t subgraph, size_t tensor,
                                 uint64_t *offset);

/* Bytes of the model's weights: the distinct buffers that constant tensors use, as stored
 * (variables' initial values and metadata are not weights). *buffers (may be NULL) receives
 * how many buffers that is. */
uint64_t ap_model_weight_bytes(const ap_model *m, size_t *buffers);
/* Bytes of the inputs and outputs of subgraph sg. */
uint64_t ap_model_input_bytes(const ap_model *m, size_t sg);
uint64_t ap_model_output_bytes(const ap_model *m, size_t sg);

/* SHA-256 (FIPS 180-4) of a byte string. */
void ap_sha256(const void *data, size_t size, uint8_t out[32]);
/* The same as 64 lowercase hex digits and a NUL. */
void ap_sha256_hex(const void *data, size_t size, char out[65]);

/* ---- The memory report: where every byte a model needs goes. ---- */

typedef struct ap_report_options {
  const char *strategy; /* NULL: "best" */
  uint64_t alignment;   /* 0: 16 */
  bool no_runtime;      /* do not try the interpreter (persistent from the model only) */
  bool inplace;         /* in-place sharing and overlaps (ap_graph_options.inplace) */
  bool stream;          /* streamed segments (ap_graph_options.stream) */
  /* The kernels the runtime's plan is for (ap_interpreter_options.kernels and small_scratch):
   * their scratch is in the arena. */
  int kernels;
  size_t small_scratch;
  uint64_t budget; /* ap_interpreter_options.budget (with AP_KERNELS_AUTO) */
  /* Invokes timed at each point of the kernel curve (0: none; at most 1000), inputs filled by
   * a fixed pattern: each point beside the fastest plan, invoking in alternation, so that a
   * shared machine's slow spells fall on both; measured_ns is the fastest plan's median invoke
   * times the median of the point's pair ratios. */
  int measure;
} ap_report_options;

/* The estimate. total = weights + io + intermediates + persistent + tables, each byte once:
 *  - weights (W): the model file as it is, every byte (constant data, the FlatBuffers
 *    structure around it, length prefixes and alignment padding): a zero-copy interpreter reads
 *    the weights in place, so a device keeps the whole file. weights_data is the part that is
 *    constant tensor data (the sum of the buffers' sizes).
 *  - io: the bytes of the entry subgraph's inputs and outputs (each tensor once). They are
 *    planned in the arena, so io + intermediates == arena.
 *  - intermediates (M): arena - io: intermediate tensors, kernel scratch and the plan's gaps.
 *    When inputs and outputs share bytes over time (arena < their sum), io is the arena and
 *    M is 0.
 *  - persistent: variable tensors and kernel state; tables: the interpreter's records. Both
 *    measured by an interpreter (from_runtime) or, when it cannot allocate the model, variable
 *    tensor bytes from the model and tables 0 (runtime_error says why). */
typedef struct ap_estimate {
  uint64_t weights, weights_data;
  uint64_t io, intermediates, arena;
  uint64_t persistent, tables;
  uint64_t total;  /* weights + arena + persistent + tables */
  uint64_t device; /* arena + persistent + tables: what a device must provide besides the model */
  /* The smallest caller-owned buffer (ap_interpreter_options.arena, aligned to buffer_alignment)
   * with which the interpreter allocates this model: device plus the rounding of its regions
   * inside one buffer. Measured; 0 when not from_runtime. */
  uint64_t buffer;
  uint64_t buffer_alignment;
  uint64_t scratch; /* of the arena's requests, bytes of kernel scratch */
  size_t scratch_requests;
  bool from_runtime;
  const char *runtime_error; /* "" when from_runtime */
} ap_estimate;

typedef enum ap_request_kind {
  AP_REQ_INPUT = 0,
  AP_REQ_OUTPUT,
  AP_REQ_INTERMEDIATE,
  AP_REQ_SCRATCH
} ap_request_kind;
const char *ap_request_kind_name(ap_request_kind k);

/* One request of the plan, with what it is. */
typedef struct ap_report_request {
  uint64_t id; /* the problem's request id */
  ap_request_kind kind;
  uint32_t subgraph;
  int32_t tensor;      /* -1 for scratch */
  int32_t op;          /* scratch: the op that asked for it; otherwise -1 */
  const char *name;    /* the tensor's name ("" for scratch) */
  uint64_t bytes;      /* the request's size */
  int32_t first, last; /* lifetime (steps, inclusive) */
  int32_t producer;    /* step of the op writing it, -1 if none */
  int32_t last_reader; /* step of the last op reading it, -1 if none */
  uint64_t offset;
} ap_report_request;

/* A plan beside ours: a strategy under some rules and alignment. */
typedef struct ap_report_alt {
  const char *name; /* "tflite", "tflm", "naive" */
  const char *rules;
  uint64_t alignment;
  bool ok; /* false: it could not plan the model (arena 0) */
  uint64_t arena;
} ap_report_alt;

typedef struct ap_report ap_report;

/* What each kernel choice costs, measured by an interpreter with the report's strategy,
 * alignment, inplace and stream on one thread (AP_SIMD caps the level as at run time): the
 * fast kernels' scratch (packed weights, patch rows, workspaces) next to the reference
 * kernels'. */
typedef struct ap_report_kernels {
  int kernels;          /* AP_KERNELS_REFERENCE, _SMALL, _FAST or _AUTO (the report's budget) */
  bool ok;              /* false: the runtime could not allocate the model with them */
  const char *level;    /* "reference" or the SIMD level ("avx2", ...) */
  uint64_t arena;       /* the runtime's arena */
  uint64_t total;       /* arena + persistent + tables */
  uint64_t scratch;     /* every op's scratch, summed */
  uint64_t scratch_max; /* the largest op's */
  size_t scratch_count; /* one entry per scratch request, in plan order */
  const ap_scratch_info *scratch_ops;
} ap_report_kernels;
/* kernels: an AP_KERNELS_* value; NULL for another value or a NULL report. */
const ap_report_kernels *ap_report_kernel_costs(const ap_report *r, int kernels);

/* The speed-memory curve of the kernel choice (AP_KERNELS_AUTO, the report's strategy,
 * alignment, inplace and stream, one thread): its Pareto points from the fastest plan (budget
 * UINT64_MAX) to the smallest, each the runtime's choice for a budget one byte below the total
 * of the point before (points no faster than a smaller one are left out), at most 48 (then the
 * last is the reference kernels' plan). Totals fall and estimates rise along it. Each point
 * allocates the model once: computed on the first call and kept. */
typedef struct ap_report_kernel_point {
  uint64_t budget;       /* the budget it was planned with (UINT64_MAX: none) */
  uint64_t total;        /* ap_memory_usage.total */
  uint64_t estimate_ns;  /* ap_interpreter_estimate_ns */
  uint64_t measured_ns;  /* the invoke by ap_report_options.measure (0: not measured) */
  size_t op_count;       /* every subgraph's ops, in order */
  const uint8_t *kernel; /* per op: 0 fast, 1 one thread, 2 in place, 3 reference, 4 custom */
} ap_report_kernel_point;
const ap_report_kernel_point *ap_report_kernel_curve(const ap_report *r, size_t *count);
/* "fast", "one thread", "in place", "reference", "-" (custom) for a point's kernel[i]. */
const char *ap_report_kernel_name(int kernel);

/* Plans the model (with the runtime's shapes and scratch when an interpreter can allocate it)
 * and gathers the estimate, the requests, the live bytes per step and the other plans. The
 * model must outlive the report. On failure *out holds the message (unless out of memory). */
ap_status ap_report_create(const ap_model *m, const ap_report_options *opt, const ap_allocator *a,
                           ap_report **out);
void ap_report_destroy(ap_report *r);
const char *ap_report_error(const ap_report *r);

const ap_model *ap_report_model(const ap_report *r);
const ap_model_plan *ap_report_plan(const ap_report *r);
const char *ap_report_strategy(const ap_report *r);
uint64_t ap_report_alignment(const ap_report *r);
const ap_estimate *ap_report_estimate(const ap_report *r);
/* The requests in the problem's order. */
size_t ap_report_request_count(const ap_report *r);
const ap_report_request *ap_report_requests(const ap_report *r);
/* Per step: the lower bound of the requests live there (aligned sizes, the topmost plain; in
 * place, each permitted overlap's pair as the least bytes the two can cover together), so the
 * largest value is the plan's lower bound, or below it where chains of overlaps raise the
 * bound; never above the arena. */
size_t ap_report_step_count(const ap_report *r);
const uint64_t *ap_report_live_bytes(const ap_report *r);
/* The step where live bytes peak (the first such step). */
size_t ap_report_peak_step(const ap_report *r);
/* The k steps with the most live bytes, most first (ties: earlier step first); returns how
 * many were written (at most k and the step count). */
size_t ap_report_top_steps(const ap_report *r, size_t *steps, size_t k);
/* Which op runs at a step: its subgraph, index (-1 for none) and name ("CONV_2D", a custom
 * code, or "" for none). */
const char *ap_report_step_op(const ap_report *r, size_t step, uint32_t *subgraph, int32_t *op);
/* The name of op k of subgraph sg: builtin name or custom code. */
const char *ap_report_op_name(const ap_report *r, size_t sg, int32_t op);
/* The plans beside ours, in this order: naive (our lifetimes and sizes, no reuse), tflite and
 * tflm (their lifetimes, alignment and strategy), and our strategy on the model's shapes
 * without kernel scratch (what ap_model_plan_create plans; named "STRATEGY, no scratch"). */
enum {
  AP_REPORT_ALT_NAIVE,
  AP_REPORT_ALT_TFLITE,
  AP_REPORT_ALT_TFLM,
  AP_REPORT_ALT_MODEL,
  AP_REPORT_ALT_COUNT
};
/* Tensors whose shape is known only while running (ap_interpreter_dynamic_count): they take
 * no arena bytes (not in the plan, the requests or the estimate) but blocks of the caller's
 * allocator during invoke. Empty when the runtime could not allocate the model. */
typedef struct ap_report_dynamic {
  uint32_t subgraph;
  int32_t tensor;
  const char *name; /* inside the model */
  int32_t op;       /* the op writing it, -1 if none */
} ap_report_dynamic;
size_t ap_report_dynamic_count(const ap_report *r);
const ap_report_dynamic *ap_report_dynamics(const ap_report *r);

size_t ap_report_alt_count(const ap_report *r);
const ap_report_alt *ap_report_alts(const ap_report *r);

/* The memory map: x = step, y = offset, one <rect class="req"> per request (data-* attributes
 * name, shape, bytes, lifetime, kind), the live-bytes curve and the arena line. */
ap_status ap_report_write_svg(const ap_report *r, FILE *f);
/* A self-contained HTML page (inline SVG, CSS and script; nothing fetched) with the estimate
 * and the map; hovering a rectangle shows its tensor. */
ap_status ap_report_write_html(const ap_report *r, FILE *f);
/* A C header for firmware builds: sizes as macros named PREFIX_..., the model's sha256 in a
 * comment, and PREFIX_ASSERT_ARENA_FITS(n) / PREFIX_ASSERT_BUFFER_FITS(n) that fail to compile
 * when n is too small. prefix: an uppercase C identifier prefix (NULL: "MODEL"). */
ap_status ap_report_write_c_header(const ap_report *r, const char *prefix, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
