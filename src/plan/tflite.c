/* tflite: TFLite's ArenaPlanner with SimpleMemoryArena (tensorflow/lite/arena_planner.cc,
 * simple_memory_arena.cc), reproduced exactly.
 *
 * Its order (CreateTensorAllocationVector): tensors alive for the whole run first, by index;
 * then by size descending; equal sizes by first use. TFLite uses std::sort, which leaves
 * fully equal tensors in no defined order; we break that last tie by request index.
 * "Whole run" here: first == the problem's first step and last == its last step.
 *
 * Its gap (SimpleMemoryArena::Allocate): among the placed allocations that overlap in time,
 * in offset order, the smallest gap that holds the tensor (measured from the unaligned end of
 * what lies below, taken at that end aligned up), stopping at a perfect fit; else the end.
 * TFLite aligns offsets to 64 bytes by default; this strategy uses the problem's alignment. */
#include "plan/place.h"

static ap_status plan_tflite(const ap_strategy_ctx *ctx, uint64_t *off, ap_strategy_result *res) {
  size_t n = ctx->n;
  int32_t lo = INT32_MAX, hi = 0;
  for (size_t i = 0; i < n; i++) {
    if (ctx->req[i].first < lo) lo = ctx->req[i].first;
    if (ctx->req[i].last > hi) hi = ctx->req[i].last;
  }
  ap_graph own;
  const ap_graph *g;
  ap_status st = ap_graph_get(ctx, &own, &g);
  if (st != AP_OK) return st;
  uint64_t *key = ap_calloc(ctx->alloc, n, sizeof *key);
  uint32_t *order = ap_calloc(ctx->alloc, n, sizeof *order);
  st = ap_fail(ctx->err, AP_ERR_NOMEM, "out of memory for %zu requests", n);
  if (!key || !order) goto done;
    /* Three stable passes, least significant key first: first use, size, whole-run. The
     * whole-run requests get constant keys in the first two, so they stay in index order. */
#define WHOLE(i) (ctx->req[i].first == lo && ctx->req[i].last == hi)
  for (size_t i = 0; i < n; i++)
    key[i] = WHOLE(i) ? 0 : ap_step_key(ctx->req[i].first);
  if ((st = ap_order_by(ctx, key, order)) != AP_OK) goto done;
  for (size_t i = 0; i < n; i++)
    key[i] = WHOLE(i) ? 0 : UINT64_MAX - ctx->req[i].size;
  if ((st = ap_order_by_list(ctx, key, order)) != AP_OK) goto done;
  for (size_t i = 0; i < n; i++)
    key[i] = WHOLE(i) ? 0 : 1;
  if ((st = ap_order_by_list(ctx, key, order)) != AP_OK) goto done;
#undef WHOLE
  st = ap_place_all(ctx, g, order, AP_FIT_TFLITE, off, &res->arena);
done:
  ap_free(ctx->alloc, key);
  ap_free(ctx->alloc, order);
  ap_graph_free(ctx, &own);
  return st;
}

const ap_strategy ap_strategy_tflite = {
    "tflite", "TFLite's ArenaPlanner: whole-run first, by size, smallest gap that fits",
    plan_tflite};
