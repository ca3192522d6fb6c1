#include "plan/skyline.h"
#include <string.h>
extern const ap_strategy ap_strategy_tflm, ap_strategy_tflite, ap_strategy_greedy_size,
    ap_strategy_greedy_breadth, ap_strategy_skyline, ap_strategy_naive;
static ap_status plan_best(const ap_strategy_ctx *ctx, uint64_t *off, ap_strategy_result *res) {
  const ap_strategy *list[] = {&ap_strategy_skyline,        &ap_strategy_tflm,
                               &ap_strategy_tflite,         &ap_strategy_greedy_size,
                               &ap_strategy_greedy_breadth, &ap_strategy_naive};
  uint64_t *tmp = ap_calloc(ctx->alloc, ctx->n, sizeof *tmp);
  if (!tmp) return AP_ERR_NOMEM;
  res->arena = UINT64_MAX;
  for (size_t k = 0; k < sizeof list / sizeof list[0]; k++) {
    ap_strategy_result r = {0};
    if (list[k]->plan(ctx, tmp, &r) != AP_OK) continue;
    if (r.arena < res->arena) {
      res->arena = r.arena;
      memcpy(off, tmp, ctx->n * sizeof *off);
    }
  }
  ap_free(ctx->alloc, tmp);
  return AP_OK;
}
const ap_strategy ap_strategy_best = {"best", "todo", plan_best};
