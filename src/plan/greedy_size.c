/* greedy_size: largest first (longer lifetime first among equal sizes), each into the
 * smallest gap that holds it among the requests it meets in time, else on top. Best fit
 * keeps big holes whole for later requests, where TFLite Micro's first fit chips at them. */
#include "plan/place.h"

static ap_status plan_greedy_size(const ap_strategy_ctx *ctx, uint64_t *off,
                                  ap_strategy_result *res) {
  size_t n = ctx->n;
  ap_graph own;
  const ap_graph *g;
  ap_status st = ap_graph_get(ctx, &own, &g);
  if (st != AP_OK) return st;
  uint64_t *key = ap_calloc(ctx->alloc, n, sizeof *key);
  uint32_t *order = ap_calloc(ctx->alloc, n, sizeof *order);
  st = ap_fail(ctx->err, AP_ERR_NOMEM, "out of memory for %zu requests", n);
  if (!key || !order) goto done;
  for (size_t i = 0; i < n; i++)
    key[i] = UINT64_MAX - ap_span_len(&ctx->req[i]);
  if ((st = ap_order_by(ctx, key, order)) != AP_OK) goto done;
  for (size_t i = 0; i < n; i++)
    key[i] = UINT64_MAX - ap_req_asize(ctx, (uint32_t)i);
  if ((st = ap_order_by_list(ctx, key, order)) != AP_OK) goto done;
  st = ap_place_all(ctx, g, order, AP_FIT_BEST, off, &res->arena);
done:
  ap_free(ctx->alloc, key);
  ap_free(ctx->alloc, order);
  ap_graph_free(ctx, &own);
  return st;
}

const ap_strategy ap_strategy_greedy_size = {
    "greedy_size", "largest first, each into the smallest gap that holds it (best fit)",
    plan_greedy_size};
