/* tflm: TFLite Micro's GreedyMemoryPlanner (tflite-micro 90b983c2,
 * memory_planner/greedy_memory_planner.cc), reproduced exactly for online-planned buffers.
 *
 * Its order: CalculateOffsetsIfNeeded() writes the buffers into the sort array from the tail
 * (the first added lands last), then ReverseSortInPlace() bubble-sorts by size descending,
 * swapping only strictly smaller ones forward: so equal sizes keep that reversed order, and
 * of two equal buffers the one added later is placed first. Sizes are the aligned sizes
 * (TFLite Micro rounds every request to its 16-byte alignment before AddBuffer).
 *
 * Its placement: walking the placed buffers that overlap in time in offset order, the first
 * gap that holds the buffer, else after the highest; that is the lowest free offset, which
 * AP_FIT_FIRST computes. The bubble sort and list walk make TFLite Micro quadratic; the
 * same order from a stable sort and the same offsets from sorted neighbours are not.
 *
 * Offline-planned buffers (ctx->fixed >= 0) go first at their offsets, unsorted; the online
 * ones follow in the order above, each into the lowest gap the placed ones leave. */
#include "plan/place.h"

#include <string.h>

static ap_status plan_tflm(const ap_strategy_ctx *ctx, uint64_t *off, ap_strategy_result *res) {
  size_t n = ctx->n;
  ap_graph own;
  const ap_graph *g;
  ap_status st = ap_graph_get(ctx, &own, &g);
  if (st != AP_OK) return st;
  uint64_t *key = ap_calloc(ctx->alloc, n, sizeof *key);
  uint32_t *order = ap_calloc(ctx->alloc, n, sizeof *order);
  st = ap_fail(ctx->err, AP_ERR_NOMEM, "out of memory for %zu requests", n);
  if (!key || !order) goto done;
  for (size_t i = 0; i < n; i++) {
    order[i] = (uint32_t)(n - 1 - i);
    key[i] = UINT64_MAX - ap_req_asize(ctx, (uint32_t)i);
  }
  if ((st = ap_order_by_list(ctx, key, order)) != AP_OK) goto done;
  if (!ctx->fixed) {
    st = ap_place_all(ctx, g, order, AP_FIT_FIRST, off, &res->arena);
    goto done;
  }
  ap_placer pl;
  if ((st = ap_placer_init(ctx, g, &pl)) != AP_OK) goto done;
  res->arena = 0;
  for (size_t i = 0; i < n; i++)
    if (ctx->fixed[i] >= 0) {
      pl.off[i] = (uint64_t)ctx->fixed[i];
      pl.at[i] = (ap_span){pl.off[i], pl.off[i] + ctx->req[i].size};
      res->arena = AP_MAX(res->arena, pl.at[i].end);
    }
  for (size_t k = 0; k < n; k++)
    if (ctx->fixed[order[k]] < 0)
      res->arena =
          AP_MAX(res->arena, ap_place_one(&pl, order[k], AP_FIT_FIRST) + ctx->req[order[k]].size);
  memcpy(off, pl.off, n * sizeof *off);
  ap_placer_free(&pl);
done:
  ap_free(ctx->alloc, key);
  ap_free(ctx->alloc, order);
  ap_graph_free(ctx, &own);
  return st;
}

const ap_strategy ap_strategy_tflm = {
    "tflm", "TFLite Micro's GreedyMemoryPlanner: by size descending, lowest free offset",
    plan_tflm};
