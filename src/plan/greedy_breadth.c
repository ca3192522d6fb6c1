/* greedy_breadth: Pisarchyk & Lee, "Efficient Memory Management for Deep Neural Net
 * Inference" (2020), greedy by breadth. Steps are visited from the widest (most live bytes)
 * down; at each, its unplaced requests go largest first into the smallest gap that holds
 * them. So a request's turn is set by the widest step it lives through: the order is (rank
 * of that step, size descending), found with a range-minimum over the ranks of the steps. */
#include "plan/place.h"

#include "plan/sort.h"

#include <string.h>

static ap_status plan_greedy_breadth(const ap_strategy_ctx *ctx, uint64_t *off,
                                     ap_strategy_result *res) {
  size_t n = ctx->n, t = 0;
  const ap_allocator *al = ctx->alloc;
  ap_graph own;
  const ap_graph *g;
  ap_status st = ap_graph_get(ctx, &own, &g);
  if (st != AP_OK) return st;
  uint32_t *a = ap_calloc(al, n, sizeof *a), *b = ap_calloc(al, n, sizeof *b);
  uint64_t *key = ap_calloc(al, 2 * n + 1, sizeof *key);
  uint32_t *order = ap_calloc(al, 2 * n + 1, sizeof *order); /* t <= 2n ranges first */
  uint32_t *rank = ap_calloc(al, 2 * n + 1, sizeof *rank);
  uint32_t *tree = ap_calloc(al, 4 * n + 2, sizeof *tree);
  st = ap_fail(ctx->err, AP_ERR_NOMEM, "out of memory for %zu requests", n);
  if (!a || !b || !key || !order || !rank || !tree) goto done;
  if ((st = ap_time_compress(ctx, a, b, &t)) != AP_OK) goto done;
  /* Breadth of each elementary time range, by a difference array. */
  memset(key, 0, (t + 1) * sizeof *key);
  for (size_t i = 0; i < n; i++) {
    uint64_t s = ap_req_asize(ctx, (uint32_t)i);
    key[a[i]] += s;
    key[b[i]] -= s;
  }
  for (size_t k = 1; k < t; k++)
    key[k] += key[k - 1];
  for (size_t k = 0; k < t; k++)
    key[k] = UINT64_MAX - key[k];
  {
    ap_strategy_ctx tc = *ctx;
    tc.n = t;
    if ((st = ap_order_by(&tc, key, order)) != AP_OK) goto done;
  }
  for (size_t r = 0; r < t; r++)
    rank[order[r]] = (uint32_t)r;
  /* An iterative min segment tree over the ranks: leaves at [t, 2t). */
  for (size_t k = 0; k < t; k++)
    tree[t + k] = rank[k];
  for (size_t k = t; k-- > 1;)
    tree[k] = AP_MIN(tree[2 * k], tree[2 * k + 1]);
  for (size_t i = 0; i < n; i++) {
    uint32_t best = UINT32_MAX;
    for (size_t lo = a[i] + t, hi = b[i] + t; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) best = AP_MIN(best, tree[lo++]);
      if (hi & 1) best = AP_MIN(best, tree[--hi]);
    }
    key[i] = UINT64_MAX - ap_req_asize(ctx, (uint32_t)i);
    rank[i] = best; /* reuse: the rank of the widest step of request i */
  }
  if ((st = ap_order_by(ctx, key, order)) != AP_OK) goto done;
  for (size_t i = 0; i < n; i++)
    key[i] = rank[i];
  if ((st = ap_order_by_list(ctx, key, order)) != AP_OK) goto done;
  st = ap_place_all(ctx, g, order, AP_FIT_BEST, off, &res->arena);
done:
  ap_free(al, a);
  ap_free(al, b);
  ap_free(al, key);
  ap_free(al, order);
  ap_free(al, rank);
  ap_free(al, tree);
  ap_graph_free(ctx, &own);
  return st;
}

const ap_strategy ap_strategy_greedy_breadth = {
    "greedy_breadth", "Pisarchyk & Lee's greedy by breadth: widest step first, best fit",
    plan_greedy_breadth};
