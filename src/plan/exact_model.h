/* The exact strategy's view of a problem: time cut into sections (maximal runs of steps where
 * the set of live requests does not change), who overlaps whom, and independent partitions
 * (runs of sections no request crosses between). Private to exact*.c. */
#ifndef AP_SRC_PLAN_EXACT_MODEL_H
#define AP_SRC_PLAN_EXACT_MODEL_H

#include "plan/strategy.h"

typedef struct ex_model {
  const ap_allocator *alloc;
  uint32_t n;
  uint64_t align;
  uint64_t slack;  /* max over requests of asize - size */
  uint64_t *size;  /* request sizes */
  uint64_t *asize; /* sizes rounded up to the alignment */
  uint64_t *len;   /* lifetime lengths in steps */
  uint32_t *slo;   /* first section of each request */
  uint32_t *shi;   /* last section of each request (inclusive) */
  uint32_t nsec;
  uint64_t *sec_total; /* sum of asize of the requests live in each section */
  /* Lower bound valid for sizes that are not multiples of the alignment: in a section, every
   * request but the topmost one occupies its aligned size. */
  uint64_t lower_bound;
  /* Built only when `full`: */
  bool full;
  size_t *adj_at; /* overlaps of request i: adj[adj_at[i] .. adj_at[i+1]) */
  uint32_t *adj;
  size_t *mem_at; /* requests live in section s: mem[mem_at[s] .. mem_at[s+1]) */
  uint32_t *mem;
  uint32_t npart;
  uint32_t *part_at; /* requests of partition p: part_buf[part_at[p] .. part_at[p+1]) */
  uint32_t *part_buf;
  uint32_t *part_slo, *part_shi; /* section range of each partition (inclusive) */
  uint64_t *part_lb;             /* lower bound of each partition */
  /* Permitted overlaps (ctx->ov): per request as `out`, its `in` (UINT32_MAX: none), the
   * overlap's lead, and the gap the search keeps (the lead rounded up to the alignment; a lead
   * <= 0 is searched as one alignment unit, so that an `out` never rests above its `in`:
   * `restricted` then says proofs of infeasibility cover only that narrower problem). Per
   * section, `disc`: the most bytes its pairs can share (aligned sizes), which every sum of live
   * bytes there may overstate. */
  uint32_t *pin;
  int64_t *plead;
  uint64_t *pgap;
  uint64_t *disc;
  uint32_t nov;
  bool restricted;
} ex_model;

/* The bytes a section's live requests still need above the highest placed end (rounded up to
 * the alignment): their aligned sizes `total`, less the padding of the topmost one and what
 * the section's overlapping pairs may share (an unplaced request may lie inside its placed
 * partner). 0: nothing can be concluded (without overlaps only for total 0, as an aligned size
 * always exceeds the slack). */
static inline uint64_t ex_need(const ex_model *m, uint32_t sec, uint64_t total) {
  uint64_t cut = m->slack + (m->disc ? m->disc[sec] : 0);
  return total > cut ? total - cut : 0;
}

/* Validates the requests and builds the model. With `full` false only sizes, sections and the
 * lower bound are built (for problems too large to search). `full` fails with
 * AP_ERR_UNSUPPORTED when the overlap lists would exceed `max_pairs`. */
ap_status ex_model_build(ex_model *m, const ap_strategy_ctx *ctx, bool full, size_t max_pairs);
void ex_model_free(ex_model *m);

/* Checks a plan against the model (needs `full`): aligned, no overlap (but permitted ones,
 * placed as their lead allows), arena == highest end.
 * Returns false and writes the two offending requests (or the same one twice) on failure. */
bool ex_model_check(const ex_model *m, const uint64_t *off, uint64_t arena, uint32_t *bad_a,
                    uint32_t *bad_b);

/* Requests i and j, placed at off[i], off[j] and sharing bytes, are an overlap's pair placed
 * as its lead allows. */
bool ex_pair_ok(const ex_model *m, uint32_t i, uint32_t j, const uint64_t *off);

/* The budget shared by every search attempt of one plan call. */
typedef struct ex_budget {
  uint64_t nodes;     /* nodes used so far */
  uint64_t max_nodes; /* 0: no limit */
  double deadline;    /* monotonic seconds; 0: none */
  bool exhausted;     /* set once either limit is hit */
} ex_budget;

double ex_now(void);

typedef enum ex_result { EX_FOUND, EX_INFEASIBLE, EX_ABORTED } ex_result;

typedef struct ex_search ex_search;

ap_status ex_search_create(const ex_model *m, ex_search **out);
void ex_search_destroy(ex_search *s);
/* Decides whether partition `part` fits under `capacity`. Branches only on canonical
 * (left-justified, non-decreasing offset) placements; `rank` breaks ties between requests with
 * the same lowest offset and so orders the search. When `order` is given (three key letters,
 * see ex_rank_keys), groups split off during the search are ranked again by it, with the bytes
 * still to place. On EX_FOUND writes the offsets of the partition's requests into `out`. Stops
 * after `node_limit` nodes (EX_ABORTED) or when the budget runs out. */
ex_result ex_search_decide(ex_search *s, uint32_t part, const uint32_t *rank, const char *order,
                           uint64_t capacity, uint64_t node_limit, ex_budget *b, uint64_t *out);

/* Sort keys of request i for an order: W lifetime length, A area (size x length), T peak of
 * `totals` over its sections, C number of sections, Z size (larger first). */
void ex_rank_keys(const ex_model *m, const uint64_t *totals, const char *order, uint32_t i,
                  uint64_t key[3]);

#endif
