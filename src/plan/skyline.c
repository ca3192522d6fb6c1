/* skyline: builds the plan from the bottom up. The skyline is the top of what is placed,
 * per step. Take its lowest stretch; of the unplaced requests whose whole lifetime lies in
 * that stretch, place the preferred one on it; if none fits, raise the stretch to its lower
 * neighbour (those bytes stay unused). Every plan it makes is canonical in MiniMalloc's
 * sense (each request as low as the ones below allow), and it wastes bytes only where no
 * request fits a hole, which is why it packs dense problems far better than placing by a
 * fixed order. The skyline is kept as runs of equal height in a heap, and the unplaced
 * requests in buckets by first step, so a run costs about O(n log n) on real problems;
 * the worst case (wide stretches holding many requests that do not fit) is O(n^2). */
#include "plan/skyline.h"

#include <string.h>

ap_status ap_skyline_init(const ap_strategy_ctx *ctx, ap_skyline *s) {
  memset(s, 0, sizeof *s);
  s->ctx = ctx;
  const ap_allocator *al = ctx->alloc;
  size_t n = ctx->n ? ctx->n : 1;
  s->a = ap_calloc(al, n, sizeof *s->a);
  s->b = ap_calloc(al, n, sizeof *s->b);
  s->next = ap_calloc(al, 2 * n + 1, sizeof *s->next);
  s->prev = ap_calloc(al, 2 * n + 1, sizeof *s->prev);
  s->height = ap_calloc(al, 2 * n + 1, sizeof *s->height);
  /* Two sets of buckets (by first and by end range), t + 1 <= 2n + 1 keys each. */
  s->start = ap_calloc(al, 4 * n + 2, sizeof *s->start);
  s->count = ap_calloc(al, 4 * n + 2, sizeof *s->count);
  s->bucket = ap_calloc(al, 2 * n, sizeof *s->bucket);
  s->pos = ap_calloc(al, 2 * n, sizeof *s->pos);
  s->head = ap_calloc(al, 2 * n + 1, 1);
  s->heap_cap = 8 * n + 16;
  s->heap_h = ap_calloc(al, s->heap_cap, sizeof *s->heap_h);
  s->heap_k = ap_calloc(al, s->heap_cap, sizeof *s->heap_k);
  if (!s->a || !s->b || !s->next || !s->prev || !s->height || !s->start || !s->count ||
      !s->bucket || !s->pos || !s->head || !s->heap_h || !s->heap_k) {
    ap_skyline_free(s);
    return ap_fail(ctx->err, AP_ERR_NOMEM, "out of memory for %zu requests", ctx->n);
  }
  ap_status st = ap_time_compress(ctx, s->a, s->b, &s->t);
  if (st != AP_OK) ap_skyline_free(s);
  return st;
}

void ap_skyline_free(ap_skyline *s) {
  if (!s->ctx) return;
  const ap_allocator *al = s->ctx->alloc;
  ap_free(al, s->a);
  ap_free(al, s->b);
  ap_free(al, s->next);
  ap_free(al, s->prev);
  ap_free(al, s->height);
  ap_free(al, s->start);
  ap_free(al, s->count);
  ap_free(al, s->bucket);
  ap_free(al, s->pos);
  ap_free(al, s->head);
  ap_free(al, s->heap_h);
  ap_free(al, s->heap_k);
  s->ctx = NULL;
}

/* The runs in a min-heap by (height, start), so the lowest run, leftmost among equals, is
 * at the top. Entries go stale when a run changes; they are dropped when they surface. */
static void heap_push(ap_skyline *s, uint64_t h, uint32_t k) {
  if (s->heap_n == s->heap_cap) { /* full of stale entries: rebuild from the live runs */
    s->heap_n = 0;
    for (uint32_t r = 0; r < s->t; r = s->next[r])
      heap_push(s, s->height[r], r);
  }
  size_t i = s->heap_n++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (s->heap_h[parent] < h || (s->heap_h[parent] == h && s->heap_k[parent] < k)) break;
    s->heap_h[i] = s->heap_h[parent];
    s->heap_k[i] = s->heap_k[parent];
    i = parent;
  }
  s->heap_h[i] = h;
  s->heap_k[i] = k;
}

static void heap_pop(ap_skyline *s) {
  uint64_t h = s->heap_h[--s->heap_n];
  uint32_t k = s->heap_k[s->heap_n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= s->heap_n) break;
    if (c + 1 < s->heap_n &&
        (s->heap_h[c + 1] < s->heap_h[c] ||
         (s->heap_h[c + 1] == s->heap_h[c] && s->heap_k[c + 1] < s->heap_k[c])))
      c++;
    if (h < s->heap_h[c] || (h == s->heap_h[c] && k < s->heap_k[c])) break;
    s->heap_h[i] = s->heap_h[c];
    s->heap_k[i] = s->heap_k[c];
    i = c;
  }
  s->heap_h[i] = h;
  s->heap_k[i] = k;
}

/* Joins run k with the run after it when they have the same height. */
static void join_next(ap_skyline *s, uint32_t k) {
  uint32_t m = s->next[k];
  if (m >= s->t || s->height[m] != s->height[k]) return;
  s->head[m] = 0;
  s->next[k] = s->next[m];
  if (s->next[k] < s->t) s->prev[s->next[k]] = k;
}

static void set_run(ap_skyline *s, uint32_t k, uint32_t end, uint64_t h, uint32_t before) {
  /* A run that keeps its start and height keeps its heap entry: entries leave the heap only
   * once stale, and this one never was. */
  bool listed = s->head[k] && s->height[k] == h;
  s->next[k] = end;
  s->prev[k] = before;
  s->height[k] = h;
  s->head[k] = 1;
  if (!listed) heap_push(s, h, k);
  if (end < s->t) s->prev[end] = k;
}

/* Unplaced requests are kept in two sets of buckets: set 0 by a (first range), set 1 by b
 * (end range), so the requests touching either end of a stretch are found directly. */
static uint32_t *bucket(ap_skyline *s, int set, uint32_t key) {
  return s->bucket + (size_t)set * s->ctx->n + s->start[(size_t)set * (s->t + 1) + key];
}
static uint32_t *bucket_count(ap_skyline *s, int set, uint32_t key) {
  return &s->count[(size_t)set * (s->t + 1) + key];
}

static void buckets_fill(ap_skyline *s, int set, const uint32_t *key) {
  size_t n = s->ctx->n, t = s->t, base = (size_t)set * (t + 1);
  memset(s->count + base, 0, (t + 1) * sizeof *s->count);
  for (size_t i = 0; i < n; i++)
    s->count[base + key[i]]++;
  for (size_t k = 0, at = 0; k <= t; k++) {
    s->start[base + k] = (uint32_t)at;
    at += s->count[base + k];
    s->count[base + k] = 0;
  }
  for (size_t i = 0; i < n; i++) {
    s->pos[(size_t)set * n + i] = *bucket_count(s, set, key[i]);
    bucket(s, set, key[i])[(*bucket_count(s, set, key[i]))++] = (uint32_t)i;
  }
}

static void bucket_remove(ap_skyline *s, int set, uint32_t key, uint32_t i) {
  size_t n = s->ctx->n;
  uint32_t *b = bucket(s, set, key), *c = bucket_count(s, set, key);
  uint32_t last = b[--*c], at = s->pos[(size_t)set * n + i];
  b[at] = last;
  s->pos[(size_t)set * n + last] = at;
}

/* The preferred candidate: higher tier, then higher prio, then lower index. */
static bool better(const uint64_t *prio, uint32_t i, int tier, uint32_t pick, int pick_tier) {
  return pick == UINT32_MAX || tier > pick_tier ||
         (tier == pick_tier && (prio[i] > prio[pick] || (prio[i] == prio[pick] && i < pick)));
}

static uint32_t choose(ap_skyline *s, const uint64_t *prio, uint32_t lo, uint32_t hi) {
  uint32_t pick = UINT32_MAX;
  int pick_tier = -1;
  uint32_t from = lo;
  if (s->tiers) {
    /* Requests touching an end of the stretch outrank all others: look at those first. */
    uint32_t *b = bucket(s, 0, lo), c = *bucket_count(s, 0, lo);
    for (uint32_t q = 0; q < c; q++) {
      uint32_t i = b[q];
      int tier = 1 + (s->b[i] == hi);
      if (s->b[i] <= hi && better(prio, i, tier, pick, pick_tier)) {
        pick = i;
        pick_tier = tier;
      }
    }
    b = bucket(s, 1, hi);
    c = *bucket_count(s, 1, hi);
    for (uint32_t q = 0; q < c; q++) {
      uint32_t i = b[q];
      if (s->a[i] > lo && better(prio, i, 1, pick, pick_tier)) {
        pick = i;
        pick_tier = 1;
      }
    }
    s->work += *bucket_count(s, 0, lo) + *bucket_count(s, 1, hi) + 2;
    if (pick != UINT32_MAX) return pick;
    from = lo + 1;
  }
  for (uint32_t k = from; k < hi; k++) {
    uint32_t *b = bucket(s, 0, k), c = *bucket_count(s, 0, k);
    s->work += c + 1;
    for (uint32_t q = 0; q < c; q++) {
      uint32_t i = b[q];
      if (s->b[i] <= hi && better(prio, i, 0, pick, pick_tier)) {
        pick = i;
        pick_tier = 0;
      }
    }
  }
  return pick;
}

uint64_t ap_skyline_run(ap_skyline *s, const uint64_t *prio, uint64_t *off) {
  const ap_strategy_ctx *ctx = s->ctx;
  size_t n = ctx->n, t = s->t, left = n;
  uint32_t T = (uint32_t)t;
  buckets_fill(s, 0, s->a);
  buckets_fill(s, 1, s->b);
  memset(s->head, 0, t);
  s->heap_n = 0;
  set_run(s, 0, T, 0, UINT32_MAX);
  uint64_t top = 0;
  while (left) {
    while (!s->head[s->heap_k[0]] || s->height[s->heap_k[0]] != s->heap_h[0]) {
      heap_pop(s);
      s->work++;
    }
    uint32_t lo = s->heap_k[0];
    s->work += 16; /* the heap, the run updates: a rough cost per step */
    if (s->limit && s->work > s->limit) return UINT64_MAX;
    uint32_t hi = s->next[lo];
    uint32_t pick = choose(s, prio, lo, hi);
    uint64_t h = s->height[lo];
    if (pick == UINT32_MAX) {
      /* Nothing fits: lift the stretch to its lower neighbour (one exists, or all would fit). */
      uint32_t before = s->prev[lo];
      uint64_t up = UINT64_MAX;
      if (before != UINT32_MAX) up = s->height[before];
      if (hi < T && s->height[hi] < up) up = s->height[hi];
      s->height[lo] = up;
      heap_push(s, up, lo);
      join_next(s, lo);
      if (before != UINT32_MAX) join_next(s, before);
      continue;
    }
    bucket_remove(s, 0, s->a[pick], pick);
    bucket_remove(s, 1, s->b[pick], pick);
    left--;
    off[pick] = h;
    if (h + ctx->req[pick].size > top) top = h + ctx->req[pick].size;
    uint64_t nh = h + ap_req_asize(ctx, pick);
    uint32_t a = s->a[pick], b = s->b[pick], before = s->prev[lo];
    if (a > lo) {
      set_run(s, lo, a, h, before);
      before = lo;
    }
    set_run(s, a, b, nh, before);
    if (b < hi) set_run(s, b, hi, h, a);
    join_next(s, a);
    if (s->prev[a] != UINT32_MAX) join_next(s, s->prev[a]);
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
  s.tiers = true;
  res->arena = ap_skyline_run(&s, prio, off);
  ap_free(ctx->alloc, prio);
  ap_skyline_free(&s);
  return AP_OK;
}

const ap_strategy ap_strategy_skyline = {
    "skyline", "bottom up: the lowest stretch of the skyline takes the longest request that fits",
    plan_skyline};
