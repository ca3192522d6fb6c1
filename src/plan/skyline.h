/* The skyline placer shared by `skyline`, `search` and `best`. */
#ifndef AP_SRC_PLAN_SKYLINE_H
#define AP_SRC_PLAN_SKYLINE_H

#include "plan/place.h"

typedef struct ap_skyline {
  const ap_strategy_ctx *ctx;
  size_t t;        /* elementary time ranges */
  uint32_t *a, *b; /* request i covers ranges [a[i], b[i]) */
  /* The skyline as runs of equal height: run k covers [k, next[k]) at height[k]. */
  uint32_t *next, *prev;
  uint64_t *height;
  uint8_t *head;    /* k starts a run */
  uint64_t *heap_h; /* a min-heap of (height, run start), with stale entries */
  uint32_t *heap_k;
  size_t heap_n, heap_cap;
  /* Unplaced requests bucketed by a and, separately, by b (see skyline.c). */
  uint32_t *start, *count, *bucket, *pos;
  bool tiers; /* prefer requests that span the stretch, then those touching one end */
  /* Steps of work done so far (runs and candidates looked at), and where a run gives up
   * (0: never). Budgets count work, not time, so that plans stay deterministic. */
  uint64_t work, limit;
} ap_skyline;

ap_status ap_skyline_init(const ap_strategy_ctx *ctx, ap_skyline *s);
void ap_skyline_free(ap_skyline *s);
/* Places every request; of those that fit the lowest stretch of the skyline, the one with
 * the highest prio goes first (ties: lowest index). Writes offsets, returns the arena, or
 * UINT64_MAX when the work limit ran out (the offsets are then incomplete). */
uint64_t ap_skyline_run(ap_skyline *s, const uint64_t *prio, uint64_t *off);

/* The search of search.c: the best skyline plan found within `work` (see above). */
ap_status ap_search_skyline(const ap_strategy_ctx *ctx, uint64_t work, uint64_t *off,
                            uint64_t *arena);

/* The search's work for this call: budget_nodes, else budget_seconds converted at this
 * machine's rate (deterministic for a given budget), else dflt. */
uint64_t ap_search_work(const ap_strategy_ctx *ctx, uint64_t dflt);

#endif
