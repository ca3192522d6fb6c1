/* naive: no reuse at all. Each request gets its own bytes, one after another in request
 * order: the baseline every report compares with. */
#include "plan/place.h"

static ap_status plan_naive(const ap_strategy_ctx *ctx, uint64_t *off, ap_strategy_result *res) {
  uint64_t at = 0;
  for (size_t i = 0; i < ctx->n; i++) {
    off[i] = at;
    at += ap_req_asize(ctx, (uint32_t)i); /* the problem keeps this sum within 64 bits */
  }
  res->arena = ap_plan_top(ctx, off);
  return AP_OK;
}

const ap_strategy ap_strategy_naive = {"naive", "no reuse: every request has its own bytes",
                                       plan_naive};
