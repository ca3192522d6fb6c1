#include "plan/skyline.h"
static ap_status plan_search(const ap_strategy_ctx *ctx, uint64_t *off, ap_strategy_result *res) {
  extern const ap_strategy ap_strategy_skyline;
  return ap_strategy_skyline.plan(ctx, off, res);
}
const ap_strategy ap_strategy_search = {"search", "todo", plan_search};
