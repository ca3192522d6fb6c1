/* The one interface every strategy implements (one file per strategy, like TFLite Micro's
 * memory_planner/). A strategy sees only requests: never a model. */
#ifndef AP_SRC_PLAN_STRATEGY_H
#define AP_SRC_PLAN_STRATEGY_H

#include "arenaplan/plan.h"
#include "base/base.h"

typedef struct ap_strategy_ctx {
  /* n requests, validated: size > 0, first <= last (steps may be negative), and the sum of
   * the aligned sizes fits in 64 bits, so no offset a strategy computes can overflow. */
  const ap_request *req;
  size_t n;
  uint64_t align; /* >= 1; every offset must be a multiple */
  const ap_allocator *alloc;
  uint64_t lower_bound;  /* ap_problem_lower_bound() of these requests */
  double budget_seconds; /* for searches; 0 = the strategy's default */
  uint64_t budget_nodes; /* for searches; 0 = no node limit */
  /* A valid plan to start from (a search only improves on it), or NULL. */
  const uint64_t *start_offsets;
  uint64_t start_arena;
  ap_errbuf *err; /* where a failing strategy writes its message */
  /* The conflict graph (place.h) when a caller (best) has built it once for several
   * strategies; NULL: a strategy that needs it builds its own. */
  const struct ap_graph *graph;
  /* Offsets fixed in advance, -1 for the requests to place (ap_plan_options.fixed_offsets). */
  const int64_t *fixed;
  /* The problem's permitted overlaps (plan.h), validated; a strategy may ignore them (its
   * disjoint plans stay valid). exact searches them. */
  const ap_overlap *ov;
  size_t nov;
} ap_strategy_ctx;

typedef struct ap_strategy_result {
  uint64_t arena; /* highest offset + size */
  bool optimal;   /* proven minimal (a search), or equal to the lower bound */
} ap_strategy_result;

/* Writes one offset per request (same order). Must be deterministic. */
typedef ap_status (*ap_strategy_fn)(const ap_strategy_ctx *ctx, uint64_t *offsets,
                                    ap_strategy_result *res);

typedef struct ap_strategy {
  const char *name;
  const char *summary;
  ap_strategy_fn plan;
} ap_strategy;

/* ap_plan_create starts the strategy named "exact" from best's plan (start_offsets).
 * The registry (registry.c): NULL when no strategy has that name. */
const ap_strategy *ap_strategy_find(const char *name);

#endif
