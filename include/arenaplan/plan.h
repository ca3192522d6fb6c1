/* arenaplan plan: problems (lists of requests), strategies, plans, the lower bound and the
 * plan checker. This layer knows nothing of models: any list of requests can be planned.
 *
 *   ap_problem *p; ap_plan *plan;
 *   ap_problem_create(NULL, &p);
 *   ap_problem_set_alignment(p, 16);
 *   ap_problem_add(p, &(ap_request){.id = 0, .size = 1000, .first = 0, .last = 2});
 *   ...
 *   if (ap_plan_create(p, &(ap_plan_options){.strategy = "best"}, &plan) != AP_OK)
 *     fprintf(stderr, "%s\n", ap_plan_error(plan));
 *   printf("%llu\n", (unsigned long long)ap_plan_arena(plan));
 *   ap_plan_destroy(plan); ap_problem_destroy(p);
 *
 * Ownership: a plan copies what it needs; the problem may be destroyed first. Pointers a getter
 * returns (ap_problem_requests, ap_plan_offsets) live as long as their object. Errors: every
 * fallible call returns a status (AP_ERR_ARG for NULL or invalid requests, AP_ERR_FORMAT for a
 * malformed CSV line, AP_ERR_OVERFLOW when sizes do not fit 64 bits, AP_ERR_NOMEM, and
 * AP_ERR_UNSUPPORTED when a strategy cannot handle a problem that large); the object keeps the
 * message. On a failed ap_plan_create *out is still a plan holding the message.
 */
#ifndef ARENAPLAN_PLAN_H
#define ARENAPLAN_PLAN_H

#include "arenaplan/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One block of bytes to place. The lifetime [first, last] is inclusive: two requests
 * conflict when their lifetimes share a step. */
typedef struct ap_request {
  uint64_t id;   /* the caller's name for it (a tensor index, a CSV id) */
  uint64_t size; /* bytes, > 0 */
  int32_t first; /* first step (may be negative: TFLite Micro plans subgraphs that never
                    run at step -1) */
  int32_t last;  /* last step, >= first */
} ap_request;

typedef struct ap_problem ap_problem;

ap_status ap_problem_create(const ap_allocator *a, ap_problem **out);
void ap_problem_destroy(ap_problem *p);
const char *ap_problem_error(const ap_problem *p);
/* Every offset is a multiple of the alignment (default 1; any value >= 1). */
ap_status ap_problem_set_alignment(ap_problem *p, uint64_t alignment);
uint64_t ap_problem_alignment(const ap_problem *p);
ap_status ap_problem_add(ap_problem *p, const ap_request *r);
size_t ap_problem_count(const ap_problem *p);
const ap_request *ap_problem_requests(const ap_problem *p);
/* Appends the requests of a MiniMalloc CSV ("id,lower,upper,size", upper exclusive). On a
 * malformed line the message names the line number and the field. An id is a non-negative
 * integer (the request's id) or a name as MiniMalloc's own examples use ("b1": printable ASCII
 * but '"', at most 255 bytes); a named request's id is its index in the problem, and
 * ap_problem_request_name gives the name back. Ids and names are unique within one text. */
ap_status ap_problem_parse_csv(ap_problem *p, const char *text, size_t len);
/* The name a CSV gave request i, or NULL (a numeric id, or i out of range). Lives as long as
 * the problem. */
const char *ap_problem_request_name(const ap_problem *p, size_t i);
/* The lower bound: no plan of this problem can have a smaller arena (with overlaps: each pair
 * counts, at its shared step, the least bytes the two can cover together; and along a chain of
 * pairs that share, each `in` sits at least its lead above its `out`, so the leads stack). */
uint64_t ap_problem_lower_bound(const ap_problem *p);

/* A permitted overlap (in place, with an offset). Request `out` is born at the step where
 * request `in` is last read (in.last == out.first; not both at that step only): the op there
 * reads each byte of `in` before it writes the byte of `out` that would land on it, as long as
 * `out` starts at least `lead` bytes below `in`:
 *     offset(in) - offset(out) >= lead
 * (lead <= 0: `out` may also start up to -lead bytes above `in`). The two may then share
 * bytes; every other pair of requests must stay disjoint, as must these two when the
 * inequality fails. A request is `in` of at most one overlap and `out` of at most one.
 * Every strategy may ignore overlaps (its plans stay valid); ap_plan_create also plans each
 * chain of overlaps as one block and keeps the smaller plan, and the lower bound and the
 * checker account for them. "exact" searches them itself (a lead <= 0 as one alignment unit,
 * then proving only what the lower bound proves). */
typedef struct ap_overlap {
  size_t in, out; /* request indices, in the problem's order */
  int64_t lead;   /* bytes; |lead| <= 2^62 */
} ap_overlap;
ap_status ap_problem_add_overlap(ap_problem *p, const ap_overlap *o);
size_t ap_problem_overlap_count(const ap_problem *p);
const ap_overlap *ap_problem_overlaps(const ap_problem *p);

typedef struct ap_plan ap_plan;

typedef struct ap_plan_options {
  const char *strategy;  /* NULL: "best" */
  double budget_seconds; /* for "exact": 0 = its default */
  uint64_t budget_nodes; /* for "exact": 0 = no limit but time */
  /* For "tflm" only (others refuse it): per request, an offset fixed in advance or -1, as
   * TFLite Micro's planner takes an offline plan: the fixed requests stay where they are and
   * the rest are placed around them in its order. The plan is checked like any other: fixed
   * offsets that overlap or break the alignment fail with AP_ERR_INVALID_PLAN. */
  const int64_t *fixed_offsets;
} ap_plan_options;

/* Plans the problem. On failure *out is still a plan handle (unless out of memory) with the
 * message. Plans are deterministic: the same problem and options give the same offsets. */
ap_status ap_plan_create(const ap_problem *p, const ap_plan_options *opt, ap_plan **out);
void ap_plan_destroy(ap_plan *plan);
const char *ap_plan_error(const ap_plan *plan);
const char *ap_plan_strategy(const ap_plan *plan);
uint64_t ap_plan_arena(const ap_plan *plan);
/* Offsets in the problem's request order. */
const uint64_t *ap_plan_offsets(const ap_plan *plan);
size_t ap_plan_count(const ap_plan *plan);
uint64_t ap_plan_lower_bound(const ap_plan *plan);
double ap_plan_time_ms(const ap_plan *plan);
/* True when the strategy proved no smaller arena exists (exact, or arena == lower bound). */
bool ap_plan_optimal(const ap_plan *plan);
/* Requests placed on bytes that an earlier-living request occupied. */
size_t ap_plan_reused(const ap_problem *p, const ap_plan *plan);

/* The checker: offsets aligned, no two requests overlapping both in time and in bytes (but the
 * problem's permitted overlaps, placed as they permit), and arena == the highest end. On
 * failure writes a message naming the requests. */
ap_status ap_plan_check(const ap_problem *p, const uint64_t *offsets, uint64_t arena, char *msg,
                        size_t msg_size);

/* The strategies, by name: "naive", "linear", "tflm", "tflite", ..., "best", "exact". */
size_t ap_strategy_count(void);
const char *ap_strategy_name(size_t i);
const char *ap_strategy_summary(size_t i);

#ifdef __cplusplus
}
#endif
#endif
