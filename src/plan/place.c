#include "plan/place.h"

#include "plan/sort.h"

#include <string.h>

ap_status ap_graph_build(const ap_strategy_ctx *ctx, ap_graph *g) {
  memset(g, 0, sizeof *g);
  size_t n = ctx->n;
  g->n = n;
  const ap_allocator *a = ctx->alloc;
  ap_kv *by_first = ap_calloc(a, n ? n : 1, sizeof *by_first);
  uint32_t *active = ap_calloc(a, n ? n : 1, sizeof *active);
  g->start = ap_calloc(a, n + 1, sizeof *g->start);
  ap_status st = AP_ERR_NOMEM;
  if (!by_first || !active || !g->start) goto fail;
  for (size_t i = 0; i < n; i++)
    by_first[i] = (ap_kv){ap_step_key(ctx->req[i].first), (uint32_t)i};
  if (ap_sort_kv(a, by_first, n) != AP_OK) goto fail;
  /* Two sweeps: the first counts degrees, the second fills the lists. A request meets every
   * still-live request that started no later, so the live list is exactly its new edges. */
  size_t *fill = NULL;
  for (int pass = 0; pass < 2; pass++) {
    size_t live = 0, total = 0;
    for (size_t s = 0; s < n; s++) {
      uint32_t i = by_first[s].idx;
      int32_t t = ctx->req[i].first;
      size_t k = 0;
      for (size_t j = 0; j < live; j++)
        if (ctx->req[active[j]].last >= t) active[k++] = active[j];
      live = k;
      total += 2 * live;
      if (pass == 0 && total > AP_MAX_CONFLICTS) break; /* no need to count the rest */
      for (size_t j = 0; j < live; j++) {
        uint32_t o = active[j];
        if (pass == 0) {
          g->start[i + 1]++;
          g->start[o + 1]++;
        } else {
          g->adj[fill[i]++] = o;
          g->adj[fill[o]++] = i;
        }
      }
      active[live++] = i;
    }
    if (pass == 0) {
      for (size_t i = 0; i < n; i++) {
        size_t d = g->start[i + 1];
        if (d > g->max_degree) g->max_degree = d;
        g->start[i + 1] += g->start[i];
      }
      if (total > AP_MAX_CONFLICTS) {
        st = ap_fail(ctx->err, AP_ERR_UNSUPPORTED,
                     "%zu requests with more than %zu pairs live at the same time: more than "
                     "this strategy handles",
                     n, AP_MAX_CONFLICTS / 2);
        goto fail;
      }
      g->adj = ap_calloc(a, g->start[n] ? g->start[n] : 1, sizeof *g->adj);
      fill = ap_calloc(a, n ? n : 1, sizeof *fill);
      if (!g->adj || !fill) {
        ap_free(a, fill);
        goto fail;
      }
      memcpy(fill, g->start, n * sizeof *fill);
    }
  }
  ap_free(a, fill);
  ap_free(a, by_first);
  ap_free(a, active);
  return AP_OK;
fail:
  if (st == AP_ERR_NOMEM)
    ap_fail(ctx->err, st, "out of memory for the conflicts of %zu requests", n);
  ap_free(a, by_first);
  ap_free(a, active);
  ap_graph_free(ctx, g);
  return st;
}

ap_status ap_graph_get(const ap_strategy_ctx *ctx, ap_graph *own, const ap_graph **g) {
  memset(own, 0, sizeof *own);
  if (ctx->graph) {
    *g = ctx->graph;
    return AP_OK;
  }
  *g = own;
  return ap_graph_build(ctx, own);
}

void ap_graph_free(const ap_strategy_ctx *ctx, ap_graph *g) {
  ap_free(ctx->alloc, g->start);
  ap_free(ctx->alloc, g->adj);
  g->start = NULL;
  g->adj = NULL;
}

ap_status ap_placer_init(const ap_strategy_ctx *ctx, const ap_graph *g, ap_placer *pl) {
  memset(pl, 0, sizeof *pl);
  pl->ctx = ctx;
  pl->g = g;
  size_t n = ctx->n ? ctx->n : 1;
  pl->off = ap_calloc(ctx->alloc, n, sizeof *pl->off);
  pl->at = ap_calloc(ctx->alloc, n, sizeof *pl->at);
  pl->buf = ap_calloc(ctx->alloc, g->max_degree + 1, sizeof *pl->buf);
  pl->tmp = ap_calloc(ctx->alloc, g->max_degree + 1, sizeof *pl->tmp);
  if (!pl->off || !pl->at || !pl->buf || !pl->tmp) {
    ap_placer_free(pl);
    return ap_fail(ctx->err, AP_ERR_NOMEM, "out of memory placing %zu requests", ctx->n);
  }
  return AP_OK;
}

void ap_placer_free(ap_placer *pl) {
  if (!pl->ctx) return;
  ap_free(pl->ctx->alloc, pl->off);
  ap_free(pl->ctx->alloc, pl->at);
  ap_free(pl->ctx->alloc, pl->buf);
  ap_free(pl->ctx->alloc, pl->tmp);
  pl->tmp = NULL;
  pl->off = NULL;
  pl->at = NULL;
  pl->buf = NULL;
}

static void insertion_spans(ap_span *s, size_t n) {
  for (size_t i = 1; i < n; i++) {
    ap_span x = s[i];
    size_t j = i;
    while (j > 0 && s[j - 1].off > x.off) {
      s[j] = s[j - 1];
      j--;
    }
    s[j] = x;
  }
}

void ap_sort_spans(ap_span *s, size_t n, ap_span *tmp) {
  if (n <= 32) {
    insertion_spans(s, n);
    return;
  }
  /* LSD radix sort on the offsets, skipping the bytes no offset differs in (most of them:
   * offsets rarely need more than three or four bytes). */
  uint64_t all_or = 0, all_and = ~(uint64_t)0;
  for (size_t i = 0; i < n; i++) {
    all_or |= s[i].off;
    all_and &= s[i].off;
  }
  ap_span *src = s, *dst = tmp;
  for (unsigned shift = 0; shift < 64; shift += 8) {
    if ((((all_or ^ all_and) >> shift) & 0xff) == 0) continue;
    size_t count[257] = {0};
    for (size_t i = 0; i < n; i++)
      count[((src[i].off >> shift) & 0xff) + 1]++;
    for (int b = 0; b < 256; b++)
      count[b + 1] += count[b];
    for (size_t i = 0; i < n; i++)
      dst[count[(src[i].off >> shift) & 0xff]++] = src[i];
    ap_span *t = src;
    src = dst;
    dst = t;
  }
  if (src != s) memcpy(s, src, n * sizeof *s);
}

static uint64_t up(const ap_strategy_ctx *ctx, uint64_t v) {
  uint64_t r;
  ap_align_up(v, ctx->align, &r);
  return r;
}

uint64_t ap_place_one(ap_placer *pl, uint32_t i, ap_fit fit) {
  const ap_strategy_ctx *ctx = pl->ctx;
  const ap_graph *g = pl->g;
  size_t k = 0;
  for (size_t e = g->start[i]; e < g->start[i + 1]; e++) {
    uint32_t j = g->adj[e];
    if (pl->at[j].end) pl->buf[k++] = pl->at[j];
  }
  ap_sort_spans(pl->buf, k, pl->tmp);
  uint64_t size = ctx->req[i].size, o;
  if (fit == AP_FIT_FIRST) {
    o = 0;
    for (size_t j = 0; j < k; j++) {
      if (o + size <= pl->buf[j].off) break;
      uint64_t e = up(ctx, pl->buf[j].end);
      if (e > o) o = e;
    }
  } else if (fit == AP_FIT_TFLITE) {
    /* SimpleMemoryArena::Allocate, rule for rule: the fit it compares is measured from the
     * unaligned running end, the offset it takes is that end aligned up. */
    uint64_t cur = 0, best = UINT64_MAX, best_fit = UINT64_MAX;
    for (size_t j = 0; j < k; j++) {
      uint64_t aligned = up(ctx, cur);
      if (aligned + size <= pl->buf[j].off && pl->buf[j].off - aligned < best_fit) {
        best = aligned;
        best_fit = pl->buf[j].off - cur;
      }
      if (pl->buf[j].end > cur) cur = pl->buf[j].end;
      if (best_fit == 0) break;
    }
    o = best != UINT64_MAX ? best : up(ctx, cur);
  } else {
    uint64_t cur = 0, best = UINT64_MAX, best_gap = UINT64_MAX;
    for (size_t j = 0; j < k; j++) {
      if (cur + size <= pl->buf[j].off && pl->buf[j].off - cur < best_gap) {
        best = cur;
        best_gap = pl->buf[j].off - cur;
      }
      uint64_t e = up(ctx, pl->buf[j].end);
      if (e > cur) cur = e;
    }
    o = best != UINT64_MAX ? best : cur;
  }
  pl->off[i] = o;
  pl->at[i] = (ap_span){o, o + size};
  return o;
}

uint64_t ap_place_order(ap_placer *pl, const uint32_t *order, ap_fit fit) {
  size_t n = pl->ctx->n;
  memset(pl->at, 0, n * sizeof *pl->at);
  uint64_t top = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t i = order[k];
    uint64_t e = ap_place_one(pl, i, fit) + pl->ctx->req[i].size;
    if (e > top) top = e;
  }
  return top;
}

uint64_t ap_plan_top(const ap_strategy_ctx *ctx, const uint64_t *off) {
  uint64_t top = 0;
  for (size_t i = 0; i < ctx->n; i++)
    if (off[i] + ctx->req[i].size > top) top = off[i] + ctx->req[i].size;
  return top;
}

ap_status ap_order_by_list(const ap_strategy_ctx *ctx, const uint64_t *key, uint32_t *order) {
  size_t n = ctx->n;
  ap_kv *v = ap_calloc(ctx->alloc, n ? n : 1, sizeof *v);
  if (!v) return ap_fail(ctx->err, AP_ERR_NOMEM, "out of memory ordering %zu requests", n);
  for (size_t k = 0; k < n; k++)
    v[k] = (ap_kv){key[order[k]], order[k]};
  ap_status st = ap_sort_kv(ctx->alloc, v, n);
  if (st == AP_OK)
    for (size_t k = 0; k < n; k++)
      order[k] = v[k].idx;
  else
    ap_fail(ctx->err, st, "out of memory ordering %zu requests", n);
  ap_free(ctx->alloc, v);
  return st;
}

ap_status ap_order_by(const ap_strategy_ctx *ctx, const uint64_t *key, uint32_t *order) {
  for (size_t i = 0; i < ctx->n; i++)
    order[i] = (uint32_t)i;
  return ap_order_by_list(ctx, key, order);
}

ap_status ap_time_compress(const ap_strategy_ctx *ctx, uint32_t *a, uint32_t *b, size_t *t) {
  size_t n = ctx->n;
  ap_kv *v = ap_calloc(ctx->alloc, 2 * n + 1, sizeof *v);
  if (!v) return ap_fail(ctx->err, AP_ERR_NOMEM, "out of memory for %zu requests", n);
  for (size_t i = 0; i < n; i++) {
    v[2 * i] = (ap_kv){ap_step_key(ctx->req[i].first), (uint32_t)(2 * i)};
    v[2 * i + 1] = (ap_kv){ap_step_key(ctx->req[i].last) + 1, (uint32_t)(2 * i + 1)};
  }
  ap_status st = ap_sort_kv(ctx->alloc, v, 2 * n);
  if (st != AP_OK) {
    ap_free(ctx->alloc, v);
    return ap_fail(ctx->err, st, "out of memory for %zu requests", n);
  }
  uint32_t rank = 0;
  for (size_t k = 0; k < 2 * n; k++) {
    if (k > 0 && v[k].key != v[k - 1].key) rank++;
    uint32_t i = v[k].idx / 2;
    if (v[k].idx % 2)
      b[i] = rank;
    else
      a[i] = rank;
  }
  *t = n ? rank : 0;
  ap_free(ctx->alloc, v);
  return AP_OK;
}

ap_status ap_place_all(const ap_strategy_ctx *ctx, const ap_graph *g, const uint32_t *order,
                       ap_fit fit, uint64_t *off, uint64_t *arena) {
  ap_placer pl = {0};
  ap_status st = ap_placer_init(ctx, g, &pl);
  if (st == AP_OK) {
    *arena = ap_place_order(&pl, order, fit);
    memcpy(off, pl.off, ctx->n * sizeof *off);
  }
  ap_placer_free(&pl);
  return st;
}
