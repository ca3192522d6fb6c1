/* skyline: builds the plan from the bottom up. The skyline is the top of what is placed,
 * per step. Take its lowest stretch; of the unplaced requests whose whole lifetime lies in
 * that stretch, place the preferred one on it; if none fits, raise the stretch to its lower
 * neighbour (those bytes stay unused). Every plan it makes is "canonical" in MiniMalloc's
 * sense (each request as low as the ones below it allow), and it wastes bytes only when no
 * request fits a hole, which is why it packs dense problems far better than placing by a
 * fixed order. O(n (n + t)) for n requests over t distinct boundaries. */
#include "plan/skyline.h"

#include <string.h>

ap_status ap_skyline_init(const ap_strategy_ctx *ctx, ap_skyline *s) {
  memset(s, 0, sizeof *s);
  s->ctx = ctx;
  size_t n = ctx->n ? ctx->n : 1;
  s->a = ap_calloc(ctx->alloc, n, sizeof *s->a);
  s->b = ap_calloc(ctx->alloc, n, sizeof *s->b);
  s->h = ap_calloc(ctx->alloc, 2 * n, sizeof *s->h);
  s->pending = ap_calloc(ctx->alloc, n, sizeof *s->pending);
  if (!s->a || !s->b || !s->h || !s->pending) {
    ap_skyline_free(s);
    return ap_fail(ctx->err, AP_ERR_NOMEM, "out of memory for %zu requests", ctx->n);
  }
  ap_status st = ap_time_compress(ctx, s->a, s->b, &s->t);
  if (st != AP_OK) ap_skyline_free(s);
  return st;
}

void ap_skyline_free(ap_skyline *s) {
  if (!s->ctx) return;
  ap_free(s->ctx->alloc, s->a);
  ap_free(s->ctx->alloc, s->b);
  ap_free(s->ctx->alloc, s->h);
  ap_free(s->ctx->alloc, s->pending);
  s->ctx = NULL;
}

uint64_t ap_skyline_run(ap_skyline *s, const uint64_t *prio, uint64_t *off) {
  const ap_strategy_ctx *ctx = s->ctx;
  size_t n = ctx->n, t = s->t, left = n;
  for (size_t i = 0; i < n; i++)
    s->pending[i] = (uint32_t)i;
  memset(s->h, 0, t * sizeof *s->h);
  uint64_t top = 0;
  while (left) {
    size_t lo = 0;
    for (size_t k = 1; k < t; k++)
      if (s->h[k] < s->h[lo]) lo = k;
    size_t hi = lo + 1;
    while (hi < t && s->h[hi] == s->h[lo])
      hi++;
    size_t pick = SIZE_MAX;
    for (size_t k = 0; k < left; k++) {
      uint32_t i = s->pending[k];
      if (s->a[i] < lo || s->b[i] > hi) continue;
      if (pick == SIZE_MAX || prio[i] > prio[s->pending[pick]] ||
          (prio[i] == prio[s->pending[pick]] && i < s->pending[pick]))
        pick = k;
    }
    if (pick == SIZE_MAX) {
      /* Nothing fits: lift the stretch to its lower neighbour (one exists, or all would fit). */
      uint64_t up = UINT64_MAX;
      if (lo > 0) up = s->h[lo - 1];
      if (hi < t && s->h[hi] < up) up = s->h[hi];
      for (size_t k = lo; k < hi; k++)
        s->h[k] = up;
      continue;
    }
    uint32_t i = s->pending[pick];
    s->pending[pick] = s->pending[--left];
    uint64_t o = s->h[lo];
    off[i] = o;
    if (o + ctx->req[i].size > top) top = o + ctx->req[i].size;
    uint64_t h = o + ap_req_asize(ctx, i);
    for (size_t k = s->a[i]; k < s->b[i]; k++)
      s->h[k] = h;
  }
  return top;
}

static ap_status plan_skyline(const ap_strategy_ctx *ctx, uint64_t *off, ap_strategy_result *res) {
  ap_skyline s;
  ap_status st = ap_skyline_init(ctx, &s);
  if (st != AP_OK) return st;
  uint64_t *prio = ap_calloc(ctx->alloc, ctx->n, sizeof *prio);
  if (!prio) {
    ap_skyline_free(&s);
    return ap_fail(ctx->err, AP_ERR_NOMEM, "out of memory for %zu requests", ctx->n);
  }
  /* Longest lifetime first: it covers the stretch best, leaving the fewest slivers. */
  for (size_t i = 0; i < ctx->n; i++)
    prio[i] = (ap_span_len(&ctx->req[i]) << 32) |
              (ctx->req[i].size > UINT32_MAX ? UINT32_MAX : ctx->req[i].size);
  res->arena = ap_skyline_run(&s, prio, off);
  ap_free(ctx->alloc, prio);
  ap_skyline_free(&s);
  return AP_OK;
}

const ap_strategy ap_strategy_skyline = {
    "skyline", "bottom up: the lowest stretch of the skyline takes the longest request that fits",
    plan_skyline};
