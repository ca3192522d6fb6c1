/* The placement engine the greedy strategies share: the conflict graph (which requests share
 * a step) and placing requests one by one, in a given order, into the gaps that the already
 * placed conflicting requests leave. */
#ifndef AP_SRC_PLAN_PLACE_H
#define AP_SRC_PLAN_PLACE_H

#include "plan/sort.h"
#include "plan/strategy.h"

/* Above this many conflict entries (twice the conflicting pairs) the graph is not built: the
 * greedy strategies then refuse (AP_ERR_UNSUPPORTED) rather than take unbounded memory. */
#define AP_MAX_CONFLICTS ((size_t)1 << 25)

typedef struct ap_graph {
  size_t n;
  size_t *start; /* n + 1: neighbours of i are adj[start[i] .. start[i+1]) */
  uint32_t *adj;
  size_t max_degree;
} ap_graph;

ap_status ap_graph_build(const ap_strategy_ctx *ctx, ap_graph *g);
void ap_graph_free(const ap_strategy_ctx *ctx, ap_graph *g);
/* ctx->graph if there is one, else builds `own` (free it with ap_graph_free either way). */
ap_status ap_graph_get(const ap_strategy_ctx *ctx, ap_graph *own, const ap_graph **g);

/* How a request chooses among the gaps it fits. */
typedef enum ap_fit {
  AP_FIT_FIRST,  /* the lowest offset (TFLite Micro's greedy planner) */
  AP_FIT_TFLITE, /* TFLite's SimpleMemoryArena: smallest gap by its own measure, else the end */
  AP_FIT_BEST    /* the smallest gap that fits, else the end */
} ap_fit;

typedef struct ap_span {
  uint64_t off, end;
} ap_span;

typedef struct ap_placer {
  const ap_strategy_ctx *ctx;
  const ap_graph *g;
  uint64_t *off;
  ap_span *at;        /* per request: its bytes once placed; end 0 while not (sizes are > 0) */
  ap_span *buf, *tmp; /* max_degree + 1 each */
} ap_placer;

ap_status ap_placer_init(const ap_strategy_ctx *ctx, const ap_graph *g, ap_placer *pl);
void ap_placer_free(ap_placer *pl);
/* Places the requests in `order` (all n of them) and writes the arena (highest end). */
uint64_t ap_place_order(ap_placer *pl, const uint32_t *order, ap_fit fit);
/* The whole job for a strategy that only chooses an order: places the requests in `order` with
 * `fit`, writes their offsets into off[] and the arena into *arena. */
ap_status ap_place_all(const ap_strategy_ctx *ctx, const ap_graph *g, const uint32_t *order,
                       ap_fit fit, uint64_t *off, uint64_t *arena);
/* Places one request given the already placed ones; returns its offset. */
uint64_t ap_place_one(ap_placer *pl, uint32_t i, ap_fit fit);

/* Sorts spans by offset, with tmp as scratch of the same size (no allocation). */
void ap_sort_spans(ap_span *s, size_t n, ap_span *tmp);

/* The highest end of a complete plan. */
uint64_t ap_plan_top(const ap_strategy_ctx *ctx, const uint64_t *off);
/* Orders 0..n-1 by a key (ascending, ties by index) into `order`. */
ap_status ap_order_by(const ap_strategy_ctx *ctx, const uint64_t *key, uint32_t *order);
/* Stable-sorts the list `order` (a permutation of 0..n-1) by key[order[k]] ascending. */
ap_status ap_order_by_list(const ap_strategy_ctx *ctx, const uint64_t *key, uint32_t *order);
/* Numbers the distinct boundaries (first, last + 1) of the requests: request i covers the
 * elementary time ranges [a[i], b[i]) of the t ranges. */
ap_status ap_time_compress(const ap_strategy_ctx *ctx, uint32_t *a, uint32_t *b, size_t *t);
/* The request's aligned size (never overflows: problems keep the aligned sum in 64 bits). */
static inline uint64_t ap_req_asize(const ap_strategy_ctx *ctx, uint32_t i) {
  uint64_t s;
  ap_align_up(ctx->req[i].size, ctx->align, &s);
  return s;
}

#endif
