/* linear: TFLite Micro's LinearMemoryPlanner. It hands out bytes in AddBuffer order, each
 * buffer right after the previous one, and never reuses any: with requests in the order a
 * model adds them (first use), this is the arena TFLite Micro needs with that planner. Its
 * sizes are already rounded to the alignment, so it is the naive plan of the same order. */
#include "plan/place.h"

static ap_status plan_linear(const ap_strategy_ctx *ctx, uint64_t *off, ap_strategy_result *res) {
  uint64_t next = 0;
  for (size_t i = 0; i < ctx->n; i++) {
    off[i] = next;
    next += ap_req_asize(ctx, (uint32_t)i);
  }
  res->arena = ap_plan_top(ctx, off);
  return AP_OK;
}

const ap_strategy ap_strategy_linear = {
    "linear", "TFLite Micro's LinearMemoryPlanner: one after another in add order, no reuse",
    plan_linear};
