/* search: an improvement pass over the skyline. The skyline's choices are steered by one
 * priority per request; this strategy searches over priorities. First restarts from seeded
 * random priorities (by lifetime, size, area or none, each with noise), then an iterated
 * local search: copy the best priorities, re-draw a few, keep the result when it is no
 * larger (equal moves let it drift across plateaus). Its budget counts skyline work, never
 * time, and its random numbers come from a fixed seed, so its plans are deterministic.
 * budget_nodes, when given, replaces the default amount of work. */
#include "plan/skyline.h"

#include <string.h>

/* About 50 ms on the slowest MiniMalloc instance (454 requests) on a 2-core machine. */
#define DEFAULT_WORK ((uint64_t)16 * 1000 * 1000)

#define ONE_RUN_WORK ((uint64_t)400 * 1000 * 1000)

static uint64_t next_rand(uint64_t *s) { /* xorshift64* */
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Dull;
}

static uint64_t clamp32(uint64_t v) {
  return v > UINT32_MAX ? UINT32_MAX : v;
}

static void draw(const ap_strategy_ctx *ctx, unsigned mode, uint64_t *seed, uint64_t *prio) {
  for (size_t i = 0; i < ctx->n; i++) {
    uint64_t dur = clamp32(ap_span_len(&ctx->req[i]) + 1), size = clamp32(ctx->req[i].size);
    uint64_t noise = 1000 + next_rand(seed) % 250;
    switch (mode) {
    case 0: prio[i] = dur * noise; break;
    case 1: prio[i] = size * noise; break;
    case 2: prio[i] = clamp32(dur * size >> 16) * noise; break;
    default: prio[i] = next_rand(seed) % 1000; break;
    }
  }
}

ap_status ap_search_skyline(const ap_strategy_ctx *ctx, uint64_t work, uint64_t *off,
                            uint64_t *arena) {
  size_t n = ctx->n;
  ap_skyline s;
  ap_status st = ap_skyline_init(ctx, &s);
  if (st != AP_OK) return st;
  s.tiers = true;
  /* With no work to search, one run, bounded so that a pathological problem cannot take
   * unbounded time (about a second). */
  s.limit = work ? work : ONE_RUN_WORK;
  uint64_t *prio = ap_calloc(ctx->alloc, n, sizeof *prio);
  uint64_t *best_prio = ap_calloc(ctx->alloc, n, sizeof *best_prio);
  uint64_t *tmp = ap_calloc(ctx->alloc, n, sizeof *tmp);
  if (!prio || !best_prio || !tmp) {
    st = ap_fail(ctx->err, AP_ERR_NOMEM, "out of memory for %zu requests", n);
    goto done;
  }
  for (size_t i = 0; i < n; i++)
    prio[i] = (ap_span_len(&ctx->req[i]) << 32) | clamp32(ctx->req[i].size);
  uint64_t best = ap_skyline_run(&s, prio, off);
  if (best == UINT64_MAX) {
    st = ap_fail(ctx->err, AP_ERR_UNSUPPORTED,
                 "%zu requests: more than the skyline search can place within its budget", n);
    goto done;
  }
  memcpy(best_prio, prio, n * sizeof *prio);
  uint64_t seed = 0x9E3779B97F4A7C15ull ^ n;
  size_t flips = n / 30 > 2 ? n / 30 : 2;
  /* Small problems make rounds cheap: without a cap, a dozen requests whose optimum lies above
   * the lower bound would spin through the whole work budget (300 ms) to no gain. */
  uint64_t max_rounds = 64 * (uint64_t)n + 1000;
  for (uint64_t round = 1; work && best > ctx->lower_bound && round <= max_rounds; round++) {
    if (s.work < work / 4) {
      draw(ctx, round % 4, &seed, prio);
    } else {
      memcpy(prio, best_prio, n * sizeof *prio);
      for (size_t m = 0; m < flips; m++) {
        size_t i = next_rand(&seed) % n;
        prio[i] = next_rand(&seed) % (2 * prio[i] + 1);
      }
    }
    uint64_t a = ap_skyline_run(&s, prio, tmp);
    if (a == UINT64_MAX) break; /* the budget ran out mid-run */
    if (a <= best) {
      if (a < best) memcpy(off, tmp, n * sizeof *off);
      best = a;
      memcpy(best_prio, prio, n * sizeof *prio);
    }
  }
  *arena = best;
done:
  ap_free(ctx->alloc, prio);
  ap_free(ctx->alloc, best_prio);
  ap_free(ctx->alloc, tmp);
  ap_skyline_free(&s);
  return st;
}

uint64_t ap_search_work(const ap_strategy_ctx *ctx, uint64_t dflt) {
  if (ctx->budget_nodes) return ctx->budget_nodes;
  if (ctx->budget_seconds > 0 && ctx->budget_seconds < 1e6) /* ~250k work per ms here */
    return (uint64_t)(ctx->budget_seconds * 2.5e8) + 1;
  return dflt;
}

static ap_status plan_search(const ap_strategy_ctx *ctx, uint64_t *off, ap_strategy_result *res) {
  return ap_search_skyline(ctx, ap_search_work(ctx, DEFAULT_WORK), off, &res->arena);
}

const ap_strategy ap_strategy_search = {
    "search", "iterated local search over the skyline's priorities (seeded, bounded work)",
    plan_search};
