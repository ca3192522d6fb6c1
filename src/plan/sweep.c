/* sweep: what an allocator does at run time, in step order. Walking the steps, the requests
 * that ended are freed and the ones that start are put into the lowest gap of what is live
 * (first fit). It needs no conflict graph, only the live set, so it handles problems far too
 * large or too dense for the others: O(n log n + n * live). */
#include "plan/place.h"

#include <string.h>

typedef struct live {
  uint64_t off, end; /* end aligned up: the next free aligned offset */
  int32_t last;
} live;

/* Beyond this much work (live blocks looked at) the sweep gives up. */
#define SWEEP_MAX_WORK ((uint64_t)2000 * 1000 * 1000)

static ap_status plan_sweep(const ap_strategy_ctx *ctx, uint64_t *off, ap_strategy_result *res) {
  size_t n = ctx->n, nlive = 0;
  ap_kv *order = ap_calloc(ctx->alloc, n, sizeof *order);
  live *set = ap_calloc(ctx->alloc, n, sizeof *set);
  ap_status st = ap_fail(ctx->err, AP_ERR_NOMEM, "out of memory for %zu requests", n);
  if (!order || !set) goto done;
  /* By first step, larger first within a step so they get the low bytes. */
  for (size_t i = 0; i < n; i++)
    order[i] = (ap_kv){UINT64_MAX - ctx->req[i].size, (uint32_t)i};
  if ((st = ap_sort_kv(ctx->alloc, order, n)) != AP_OK) goto done;
  for (size_t i = 0; i < n; i++)
    order[i].key = ap_step_key(ctx->req[order[i].idx].first);
  if ((st = ap_sort_kv(ctx->alloc, order, n)) != AP_OK) goto done;
  uint64_t work = 0, top = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t i = order[k].idx;
    int32_t t = ctx->req[i].first;
    if (k == 0 || order[k - 1].key != order[k].key) { /* a new step: free what ended */
      size_t m = 0;
      for (size_t j = 0; j < nlive; j++)
        if (set[j].last >= t) set[m++] = set[j];
      work += nlive;
      nlive = m;
    }
    uint64_t size = ctx->req[i].size, at = 0;
    size_t pos = 0;
    for (; pos < nlive; pos++) {
      if (at + size <= set[pos].off) break;
      if (set[pos].end > at) at = set[pos].end;
    }
    work += pos + 1;
    if (work > SWEEP_MAX_WORK) {
      st = ap_fail(ctx->err, AP_ERR_UNSUPPORTED,
                   "%zu requests: too many live at once for the sweep", n);
      goto done;
    }
    memmove(&set[pos + 1], &set[pos], (nlive - pos) * sizeof *set);
    set[pos] = (live){at, at + ap_req_asize(ctx, i), ctx->req[i].last};
    nlive++;
    off[i] = at;
    if (at + size > top) top = at + size;
  }
  res->arena = top;
  st = AP_OK;
done:
  ap_free(ctx->alloc, order);
  ap_free(ctx->alloc, set);
  return st;
}

const ap_strategy ap_strategy_sweep = {
    "sweep", "in step order, each request into the lowest gap of what is live (first fit)",
    plan_sweep};
