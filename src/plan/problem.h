/* The problem's insides, shared by the files of the plan layer (never by other layers). */
#ifndef AP_SRC_PLAN_PROBLEM_H
#define AP_SRC_PLAN_PROBLEM_H

#include "arenaplan/plan.h"
#include "base/base.h"

/* Requests are indexed by uint32_t inside strategies; keeping the count below this also keeps
 * every index product in 64 bits. */
#define AP_MAX_REQUESTS ((size_t)INT32_MAX)

struct ap_problem {
  const ap_allocator *alloc;
  ap_errbuf err;
  ap_request *req;
  size_t n, cap;
  uint64_t align;
  /* Sum of the aligned sizes: kept so that any plan's offsets provably fit in 64 bits. */
  uint64_t total;
  ap_overlap *ov; /* permitted overlaps (overlap.c) */
  size_t nov, ovcap;
  /* Names of requests a CSV gave by name (csv.c): name_at[i] is the offset of request i's
   * NUL-terminated name in `names`, SIZE_MAX for none; NULL until a first name. */
  size_t *name_at;
  char *names;
  size_t names_len, names_cap;
};

/* Problems with overlaps up to this many bytes (sum of aligned sizes) are also planned with
 * merged chains and the overlap greedy, whose arithmetic is signed. */
#define OVERLAP_BYTES_MAX ((uint64_t)1 << 62)

/* overlap.c. With overlaps, the requests the lower bound sweeps (each pair's `in` ends a step
 * early and, at the shared step, a block of what the pair's smallest joint footprint adds to
 * `out`'s aligned size), the requests and offsets the checker sweeps (each pair that shares bytes,
 * once its lead is checked, becomes one block at the shared step), and plans of merged chains.
 * Arrays are allocated with p->alloc; *out_req is NULL when the problem has no overlaps. */
ap_status ap_overlap_bound_requests(const ap_problem *p, ap_request **out_req, size_t *out_n);
ap_status ap_overlap_check_requests(const ap_problem *p, const uint64_t *offsets,
                                    ap_request **out_req, uint64_t **out_off, size_t *out_n,
                                    char *msg, size_t msg_size);
/* Chains of overlaps as one request each (a chain is cut where its block would pass `cap`
 * bytes; 0: never): *blocks (nb requests, ids = the id of the block's first request), and per
 * request its block and its offset inside it. */
typedef struct ap_overlap_merge {
  ap_request *blocks;
  size_t nb;
  uint32_t *block_of;
  uint64_t *rel;
} ap_overlap_merge;
ap_status ap_overlap_merge_build(const ap_problem *p, uint64_t cap, ap_overlap_merge *m);
/* The largest least joint footprint of any overlap's pair: no arena is below it. */
uint64_t ap_overlap_max_footprint(const ap_problem *p);
void ap_overlap_merge_free(const ap_problem *p, ap_overlap_merge *m);
/* overlap_greedy.c: the best of five greedy placements that use the overlaps directly;
 * *arena = UINT64_MAX for an empty problem. */
ap_status ap_overlap_greedy(const ap_problem *p, uint64_t *off, uint64_t *arena);

/* Checks one request against the rules every strategy relies on. */
ap_status ap_request_validate(const ap_request *r, uint64_t align, ap_errbuf *err);
/* The problem's lower bound, its overlaps counted: each pair's least footprint at its step
 * (pair), and also the chains of pairs (ap_overlap_chain_bound). */
ap_status ap_problem_bound(const ap_problem *p, uint64_t *out);
ap_status ap_problem_pair_bound(const ap_problem *p, uint64_t *out);
/* overlap.c. The least arena the chains of overlaps allow on their own: along a chain, a pair
 * that shares bytes puts its `in` at least its gap above its `out`, so a run of sharing pairs
 * stacks its gaps; a pair kept apart needs both sizes. Requests and overlaps validated. */
ap_status ap_overlap_chain_bound(const ap_allocator *a, const ap_request *req, size_t n,
                                 const ap_overlap *ov, size_t nov, uint64_t align, uint64_t *out);
/* The lower bound of any request array (see lower_bound.c). 0 for n == 0. */
ap_status ap_lower_bound_of(const ap_allocator *a, const ap_request *req, size_t n, uint64_t align,
                            uint64_t *out);

#endif
