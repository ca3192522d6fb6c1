/* best: the portfolio. Runs the search over the skyline (on problems small enough for it;
 * one skyline run on larger ones) and the fast greedy strategies, the two reproductions
 * always among them, and keeps the smallest plan; equal arenas go to the earliest in the
 * list. So best is never larger than what TFLite or TFLite Micro would plan for the same
 * requests. The conflict graph is built once and shared. When the problem is too large for
 * every strategy here, it falls back to naive, which always works. */
#include "plan/skyline.h"

#include <string.h>

extern const ap_strategy ap_strategy_naive, ap_strategy_tflm, ap_strategy_tflite,
    ap_strategy_greedy_size, ap_strategy_greedy_breadth, ap_strategy_sweep;

/* Above this many requests a search of several skyline runs no longer fits best's time. */
#define SEARCH_MAX_REQUESTS 4096
/* The search's work in best: about 50 ms on the slowest MiniMalloc instance. */
#define SEARCH_WORK ((uint64_t)16 * 1000 * 1000)
/* The skyline's work grows about quadratically; one run of 65,536 requests is ~0.2 s. */
#define SKYLINE_MAX_REQUESTS 65536

static ap_status plan_best(const ap_strategy_ctx *ctx, uint64_t *off, ap_strategy_result *res) {
  static const ap_strategy *const greedy[] = {&ap_strategy_greedy_size, &ap_strategy_greedy_breadth,
                                              &ap_strategy_tflite, &ap_strategy_tflm};
  /* Large problems skip the two greedy heuristics the skyline nearly always beats there. */
  size_t first = ctx->n <= SEARCH_MAX_REQUESTS ? 0 : 2;
  size_t n = ctx->n;
  uint64_t *tmp = ap_calloc(ctx->alloc, n, sizeof *tmp);
  if (!tmp) return ap_fail(ctx->err, AP_ERR_NOMEM, "out of memory for %zu requests", n);
  uint64_t best = UINT64_MAX;
  ap_status st;
  /* A search budget of 0 still makes the first (deterministic) skyline run, bounded; beyond
   * SKYLINE_MAX_REQUESTS even one run would take seconds. */
  if (n > SKYLINE_MAX_REQUESTS ||
      ap_search_skyline(ctx, n <= SEARCH_MAX_REQUESTS ? ap_search_work(ctx, SEARCH_WORK) : 0, off,
                        &best) != AP_OK)
    best = UINT64_MAX;
  ap_graph g;
  ap_strategy_ctx shared = *ctx;
  if (best > ctx->lower_bound && ap_graph_build(ctx, &g) == AP_OK) {
    shared.graph = &g;
    for (size_t k = first; k < sizeof greedy / sizeof greedy[0]; k++) {
      ap_strategy_result r = {0};
      st = greedy[k]->plan(&shared, tmp, &r);
      if (st == AP_ERR_NOMEM) {
        ap_graph_free(ctx, &g);
        ap_free(ctx->alloc, tmp);
        return st;
      }
      if (st == AP_OK && r.arena < best) {
        best = r.arena;
        memcpy(off, tmp, n * sizeof *off);
      }
    }
    ap_graph_free(ctx, &g);
  }
  if (best > ctx->lower_bound) { /* no graph needed: works where the others give up */
    ap_strategy_result r = {0};
    st = ap_strategy_sweep.plan(ctx, tmp, &r);
    if (st == AP_OK && r.arena < best) {
      best = r.arena;
      memcpy(off, tmp, n * sizeof *off);
    }
  }
  if (best == UINT64_MAX) {
    ap_strategy_result r = {0};
    st = ap_strategy_naive.plan(ctx, off, &r);
    if (st != AP_OK) {
      ap_free(ctx->alloc, tmp);
      return st;
    }
    best = r.arena;
  }
  ap_free(ctx->alloc, tmp);
  res->arena = best;
  return AP_OK;
}

const ap_strategy ap_strategy_best = {
    "best", "the smallest plan of search, greedy_size, greedy_breadth, tflite, tflm, sweep",
    plan_best};
