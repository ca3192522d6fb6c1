/* The `exact` strategy: the smallest arena, proven, or the best plan found within a budget.
 *
 * It starts from a valid plan (the caller's, checked, or its own first-fit by size), then asks
 * the decision search (exact_search.c) for plans under smaller capacities:
 * - at the lower bound: on most real instances the optimum equals it, and a plan there is
 *   proven optimal at once;
 * - below the best arena so far ("descents"): first at a deeper target, then one byte below.
 *   If the search space one byte below is exhausted, the best arena is proven optimal.
 * Attempts run in rounds whose node limit doubles. The order of the search (how requests at
 * the same offset are ranked) matters a lot and no order is best everywhere, so each round
 * tries MiniMalloc's three orders (WAT, TAW, TWA), deterministic random variations of them, and
 * for descents orders taken from the best plan itself (MiniMalloc's round robin, with
 * restarts). Independent partitions of time are searched separately.
 *
 * The lower bound is computed here, not taken from ctx->lower_bound: with sizes that are not
 * multiples of the alignment the topmost request needs no padding, so the peak of aligned
 * sizes can overstate the minimum (two 1-byte requests at alignment 4 fit in 5 bytes, not 8).
 * When every size is a multiple of the alignment the two bounds are equal.
 *
 * Permitted overlaps (ctx->ov): a pair's `in` may rest its lead (rounded up to the alignment)
 * above its `out`, inside it, and the sums of a section allow for the bytes its pairs may share
 * (exact_model.h); ap_plan_create starts the search from the best plan that uses them. The lower
 * bound then also counts the chains of pairs (ap_overlap_chain_bound).
 *
 * Budget: ctx->budget_nodes (0: none) and ctx->budget_seconds (0: 10 s, unless a node budget
 * is given, in which case the node budget alone bounds the search). With a node budget only,
 * the result is deterministic; a time budget may stop at different points on different runs.
 * Either way the plan is valid and never worse than the start. Problems of more than 20,000
 * requests (or 4 M overlapping pairs) are not searched: the start plan comes back. */
#include "plan/exact_model.h"

#include <stdlib.h>
#include <string.h>
#ifdef EX_TRACE
#include <stdio.h>
#define TRACE(...) fprintf(stderr, __VA_ARGS__)
#else
#define TRACE(...) ((void)0)
#endif

#define EX_DEFAULT_SECONDS 10.0
/* Beyond these the start plan is returned as is (a search could not finish anyway). */
#define EX_MAX_SEARCH_REQUESTS 20000
#define EX_MAX_PAIRS ((size_t)4 << 20)
#define EX_ORDERS 3
#ifndef EX_ORDER_LIST
#define EX_ORDER_LIST "WAT", "TAW", "TWA"
#endif

typedef struct ex_key {
  uint64_t k[3];
  uint32_t idx;
} ex_key;

static int cmp_key(const void *pa, const void *pb) {
  const ex_key *a = pa, *b = pb;
  for (int i = 0; i < 3; i++)
    if (a->k[i] != b->k[i]) return a->k[i] > b->k[i] ? -1 : 1; /* descending */
  return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Request orders among requests at the same offset, as priorities of keys (larger first):
 * W lifetime length, A area (size x length), T peak live bytes of its sections, C number of
 * sections, Z size. MiniMalloc's round robin uses WAT, TAW, TWA. */
static const char *const ex_orders[EX_ORDERS] = {EX_ORDER_LIST};

static ap_status make_ranks(const ex_model *m, uint32_t *rank[EX_ORDERS]) {
  const ap_allocator *a = m->alloc;
  ex_key *keys = ap_calloc(a, m->n ? m->n : 1, sizeof *keys);
  if (!keys) return AP_ERR_NOMEM;
  for (int h = 0; h < EX_ORDERS; h++) {
    const char *ord = ex_orders[h];
    for (uint32_t i = 0; i < m->n; i++) {
      keys[i].idx = i;
      ex_rank_keys(m, m->sec_total, ord, i, keys[i].k);
    }
    qsort(keys, m->n, sizeof *keys, cmp_key);
    for (uint32_t r = 0; r < m->n; r++)
      rank[h][keys[r].idx] = r;
  }
  ap_free(a, keys);
  return AP_OK;
}

/* A deterministic variation of order `base`: each request's rank moves by a random amount of
 * up to `spread` places. Restarts with such orders give the search different first choices. */
static void perturb_ranks(const ex_model *m, const uint32_t *base, uint64_t seed, uint32_t spread,
                          ex_key *keys, uint32_t *rank) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (uint32_t i = 0; i < m->n; i++) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    uint64_t noise = spread ? (x * 0x2545F4914F6CDD1Dull >> 33) % spread : 0;
    keys[i] = (ex_key){{UINT64_MAX - (base[i] + noise), 0, 0}, i};
  }
  qsort(keys, m->n, sizeof *keys, cmp_key);
  for (uint32_t r = 0; r < m->n; r++)
    rank[keys[r].idx] = r;
}

typedef struct ex_iv {
  uint64_t lo, hi;
} ex_iv;

static int cmp_iv(const void *pa, const void *pb) {
  const ex_iv *a = pa, *b = pb;
  return (a->lo > b->lo) - (a->lo < b->lo);
}

/* The start plan when the caller gives none: largest first, each at the lowest aligned offset
 * clear of the placed requests it overlaps in time. */
static ap_status greedy(const ex_model *m, const ap_strategy_ctx *ctx, uint64_t *off) {
  const ap_allocator *a = m->alloc;
  ex_key *keys = ap_calloc(a, m->n ? m->n : 1, sizeof *keys);
  bool *placed = ap_calloc(a, m->n ? m->n : 1, sizeof *placed);
  size_t maxdeg = 1;
  for (uint32_t i = 0; i < m->n; i++)
    if (m->adj_at[i + 1] - m->adj_at[i] > maxdeg) maxdeg = m->adj_at[i + 1] - m->adj_at[i];
  ex_iv *iv = ap_calloc(a, maxdeg, sizeof *iv);
  ap_status st = AP_OK;
  if (!keys || !placed || !iv) {
    st = ap_fail(ctx->err, AP_ERR_NOMEM, "exact: out of memory for the start plan");
    goto done;
  }
  for (uint32_t i = 0; i < m->n; i++) {
    keys[i].idx = i;
    keys[i].k[0] = m->size[i];
    keys[i].k[1] = (uint64_t)(m->shi[i] - m->slo[i]);
    keys[i].k[2] = 0;
  }
  qsort(keys, m->n, sizeof *keys, cmp_key);
  for (uint32_t r = 0; r < m->n; r++) {
    uint32_t i = keys[r].idx;
    size_t cnt = 0;
    for (size_t k = m->adj_at[i]; k < m->adj_at[i + 1]; k++) {
      uint32_t j = m->adj[k];
      if (placed[j]) iv[cnt++] = (ex_iv){off[j], off[j] + m->size[j]};
    }
    qsort(iv, cnt, sizeof *iv, cmp_iv);
    uint64_t x = 0;
    for (size_t k = 0; k < cnt; k++) {
      if (iv[k].hi <= x) continue;
      if (iv[k].lo >= x && iv[k].lo - x >= m->size[i]) break;
      if (!ap_align_up(iv[k].hi, m->align, &x)) goto overflow;
    }
    uint64_t end;
    if (!ap_add_u64(x, m->size[i], &end)) goto overflow;
    off[i] = x;
    placed[i] = true;
  }
  goto done;
overflow:
  st = ap_fail(ctx->err, AP_ERR_OVERFLOW, "exact: start plan offsets overflow 64 bits");
done:
  ap_free(a, keys);
  ap_free(a, placed);
  ap_free(a, iv);
  return st;
}

/* No reuse at all: the fallback start for problems too large to analyse. */
static ap_status stack_all(const ex_model *m, const ap_strategy_ctx *ctx, uint64_t *off) {
  uint64_t x = 0;
  for (uint32_t i = 0; i < m->n; i++) {
    off[i] = x;
    if (!ap_add_u64(x, m->asize[i], &x))
      return ap_fail(ctx->err, AP_ERR_OVERFLOW, "exact: start plan offsets overflow 64 bits");
  }
  return AP_OK;
}

static uint64_t highest_end(const ex_model *m, const uint32_t *buf, uint32_t nb,
                            const uint64_t *off) {
  uint64_t top = 0;
  for (uint32_t k = 0; k < nb; k++)
    if (off[buf[k]] + m->size[buf[k]] > top) top = off[buf[k]] + m->size[buf[k]];
  return top;
}

typedef struct ex_run {
  const ex_model *m;
  ex_search *search;
  uint32_t *rank[EX_ORDERS + 1]; /* the fixed orders, then the current perturbed one */
  ex_key *keys;
  uint32_t *guide; /* requests ranked by offset in the best plan */
  uint64_t heavy_rounds;
  uint64_t *part_hi; /* arena of each partition in the best plan */
  uint64_t *best;    /* the best plan */
  uint64_t *scratch; /* a partition's plan under test */
  ex_budget budget;
} ex_run;

static uint64_t run_arena(const ex_run *r) {
  uint64_t hi = 0;
  for (uint32_t p = 0; p < r->m->npart; p++)
    if (r->part_hi[p] > hi) hi = r->part_hi[p];
  return hi;
}

/* Is there a plan with arena <= cap? Partitions already under cap are kept. */
static ex_result decide_all(ex_run *r, uint64_t cap, uint64_t limit, int slot, const char *order) {
  const ex_model *m = r->m;
  ex_result res = EX_FOUND;
  for (uint32_t p = 0; p < m->npart; p++) {
    if (r->part_hi[p] <= cap) continue;
    if (m->part_lb[p] > cap) return EX_INFEASIBLE;
    ex_result pr =
        ex_search_decide(r->search, p, r->rank[slot], order, cap, limit, &r->budget, r->scratch);
    if (pr == EX_INFEASIBLE) return EX_INFEASIBLE;
    if (pr == EX_ABORTED) {
      /* Other partitions may still prove the capacity infeasible, unless time is out. */
      res = EX_ABORTED;
      if (r->budget.exhausted) return res;
      continue;
    }
    const uint32_t *buf = m->part_buf + m->part_at[p];
    uint32_t nb = m->part_at[p + 1] - m->part_at[p];
    for (uint32_t k = 0; k < nb; k++)
      r->best[buf[k]] = r->scratch[buf[k]];
    r->part_hi[p] = highest_end(m, buf, nb, r->best);
  }
  return res;
}

/* minimise() lowers *hi (the best arena, kept in r->best) and raises *lo (the proven lower
 * bound). Each round tries the lower bound with the fixed orders and EX_PERTURBED variations
 * of them, then descends from the best arena with those orders and with EX_GUIDED orders taken
 * from the best plan itself (requests by offset, slightly perturbed: the search first rebuilds
 * something close to the best plan, then deviates from it; "solution-guided" search). */
/* Tuning (compile-time, for experiments): variations per round, guided orders, how often the
 * bound's limit still doubles once descents take over, the probe seeds, the jump divisor. */
#ifndef EX_PERTURBED
#define EX_PERTURBED 9
#endif
#ifndef EX_GUIDED
#define EX_GUIDED 3
#endif
#ifndef EX_HEAVY_PERTURBED
#define EX_HEAVY_PERTURBED 3
#endif
#ifndef EX_PROBE_SLOWDOWN
#define EX_PROBE_SLOWDOWN 3
#endif
#ifndef EX_PROBE_SEED
#define EX_PROBE_SEED (round * 64 + (uint64_t)h)
#endif
/* Descents first aim at hi - (hi - lo) / EX_JUMP. */
#ifndef EX_JUMP
#define EX_JUMP 4
#endif
/* After this many nodes (a few seconds) without reaching the lower bound, the optimum is
 * probably above it: descents then get a doubling limit of their own. */
#ifndef EX_PROBE_FIRST
#define EX_PROBE_FIRST 1000000
#endif

/* Selects the order of attempt h: a rank slot and the letters to re-rank split-off groups. */
static int set_order(ex_run *r, int h, bool guided, uint64_t seed, const char **letters) {
  const ex_model *m = r->m;
  if (!guided && h < EX_ORDERS) {
    *letters = ex_orders[h];
    return h;
  }
  const uint32_t *base = r->rank[h % EX_ORDERS];
  uint32_t spread = m->n / 8 + 2;
  *letters = ex_orders[h % EX_ORDERS];
  if (guided) {
    for (uint32_t i = 0; i < m->n; i++)
      r->keys[i] = (ex_key){{UINT64_MAX - r->best[i], UINT64_MAX - r->rank[0][i], 0}, i};
    qsort(r->keys, m->n, sizeof *r->keys, cmp_key);
    for (uint32_t k = 0; k < m->n; k++)
      r->guide[r->keys[k].idx] = k;
    base = r->guide;
    spread = h == 0 ? 0 : m->n / 16 + 2;
    *letters = NULL; /* keep the guide inside split-off groups too */
  }
  perturb_ranks(m, base, seed, spread, r->keys, r->rank[EX_ORDERS]);
  return EX_ORDERS;
}

/* Lowers *hi, one attempt after another under *hi - 1, with order `h`: first at a deeper
 * target (tighter capacities prune harder and can jump far), then one byte below. */
static void descend(ex_run *r, uint64_t *lo, uint64_t *hi, int h, uint64_t limit, uint64_t seed) {
  const char *letters;
  int slot = h < EX_ORDERS + EX_PERTURBED
                 ? set_order(r, h, false, seed, &letters)
                 : set_order(r, h - EX_ORDERS - EX_PERTURBED, true, seed, &letters);
  while (*lo + EX_JUMP < *hi && !r->budget.exhausted) {
    uint64_t cap = *hi - (*hi - *lo) / EX_JUMP;
    ex_result res = decide_all(r, cap, limit, slot, letters);
    if (res == EX_INFEASIBLE) *lo = cap + 1;
    *hi = run_arena(r);
    TRACE("  jump cap=%llu h=%d -> %d hi=%llu\n", (unsigned long long)cap, h, res,
          (unsigned long long)*hi);
    if (res == EX_ABORTED) break;
  }
  while (*lo < *hi && !r->budget.exhausted) {
    ex_result res = decide_all(r, *hi - 1, limit, slot, letters);
    if (res == EX_INFEASIBLE) *lo = *hi;
    *hi = run_arena(r);
    TRACE("  cap=%llu h=%d -> %d hi=%llu\n", (unsigned long long)(*hi - 1), h, res,
          (unsigned long long)*hi);
    if (res == EX_ABORTED) break;
  }
}

/* Rounds of attempts. At first most nodes go to the lower bound: every order tries it with a
 * limit that doubles each round, while every order descends with a small constant limit
 * (cheap, and it finds the easy improvements). After EX_PROBE_FIRST nodes the optimum is
 * probably above the bound: then fewer orders keep trying the bound (EX_HEAVY_PERTURBED
 * variations), their limit doubling every EX_PROBE_SLOWDOWN rounds, and the descents' limit
 * doubles each round. */
static void minimise(ex_run *r, uint64_t *lo, uint64_t *hi) {
  const uint64_t base = 2 * (uint64_t)r->m->n + 1024;
  const int all = EX_ORDERS + EX_PERTURBED + EX_GUIDED;
  uint64_t plimit = base, dlimit = base;
  bool heavy = false;
  for (uint64_t round = 1; *lo < *hi && !r->budget.exhausted; round++) {
    int probes = EX_ORDERS + (heavy ? EX_HEAVY_PERTURBED : EX_PERTURBED);
    for (int h = 0; h < probes && *lo < *hi && !r->budget.exhausted; h++) {
      const char *letters;
      /* Seeds depend only on the round and the order, so that the attempts at the bound do
       * not depend on what the descents did. */
      int slot = set_order(r, h, false, EX_PROBE_SEED, &letters);
      ex_result res = decide_all(r, *lo, plimit, slot, letters);
      TRACE("probe lo=%llu h=%d limit=%llu -> %d\n", (unsigned long long)*lo, h,
            (unsigned long long)plimit, res);
      if (res == EX_INFEASIBLE) *lo += 1;
      *hi = run_arena(r);
    }
    if (!heavy && r->budget.nodes >= EX_PROBE_FIRST) heavy = true;
    for (int k = 0; k < all && *lo < *hi && !r->budget.exhausted; k++)
      descend(r, lo, hi, k, dlimit, ((uint64_t)1 << 40) + round * 64 + (uint64_t)k);
    if (heavy && dlimit < UINT64_MAX / 2) dlimit *= 2;
    if ((!heavy || ++r->heavy_rounds % EX_PROBE_SLOWDOWN == 0) && plimit < UINT64_MAX / 2)
      plimit *= 2;
  }
}

static ap_status start_plan(const ex_model *m, const ap_strategy_ctx *ctx, uint64_t *off) {
  if (!ctx->start_offsets) return m->full ? greedy(m, ctx, off) : stack_all(m, ctx, off);
  memcpy(off, ctx->start_offsets, (size_t)m->n * sizeof *off);
  uint32_t ba, bb;
  if (m->full && !ex_model_check(m, off, ctx->start_arena, &ba, &bb)) {
    if (ba == UINT32_MAX)
      return ap_fail(ctx->err, AP_ERR_ARG, "exact: start arena %llu is not the highest end",
                     (unsigned long long)ctx->start_arena);
    return ap_fail(ctx->err, AP_ERR_ARG,
                   "exact: start plan invalid at requests %u and %u (offsets %llu, %llu)", ba, bb,
                   (unsigned long long)off[ba], (unsigned long long)off[bb]);
  }
  return AP_OK;
}

static ap_status exact_plan(const ap_strategy_ctx *ctx, uint64_t *offsets,
                            ap_strategy_result *res) {
  if (!ctx || !offsets || !res || (ctx->n && !ctx->req) || ctx->align == 0 ||
      !(ctx->budget_seconds >= 0))
    return ctx ? ap_fail(ctx->err, AP_ERR_ARG, "exact: invalid arguments") : AP_ERR_ARG;
  res->arena = 0;
  res->optimal = true;
  if (ctx->n == 0) return AP_OK;
  double t0 = ex_now();
  ex_model m;
  bool full = ctx->n <= EX_MAX_SEARCH_REQUESTS || !ctx->start_offsets;
  ap_status st = ex_model_build(&m, ctx, full, EX_MAX_PAIRS);
  if (st == AP_ERR_UNSUPPORTED) st = ex_model_build(&m, ctx, false, 0);
  if (st != AP_OK) return st;
  ex_run r = {.m = &m};
  st = start_plan(&m, ctx, offsets);
  if (st != AP_OK) goto done;
  uint64_t hi = 0, lo = m.lower_bound;
  for (uint32_t i = 0; i < m.n; i++) {
    uint64_t end;
    if (!ap_add_u64(offsets[i], m.size[i], &end)) {
      st = ap_fail(ctx->err, AP_ERR_OVERFLOW, "exact: request %u ends past 64 bits", i);
      goto done;
    }
    if (end > hi) hi = end;
  }
  if (m.full && m.n <= EX_MAX_SEARCH_REQUESTS && lo < hi) {
    const ap_allocator *a = m.alloc;
    r.part_hi = ap_calloc(a, m.npart ? m.npart : 1, sizeof *r.part_hi);
    r.best = ap_calloc(a, m.n, sizeof *r.best);
    r.scratch = ap_calloc(a, m.n, sizeof *r.scratch);
    bool ok = r.part_hi && r.best && r.scratch;
    for (int h = 0; h <= EX_ORDERS; h++)
      ok = ok && (r.rank[h] = ap_calloc(a, m.n, 4));
    ok = ok && (r.keys = ap_calloc(a, m.n, sizeof *r.keys));
    ok = ok && (r.guide = ap_calloc(a, m.n, sizeof *r.guide));
    if (!ok || ex_search_create(&m, &r.search) != AP_OK || make_ranks(&m, r.rank) != AP_OK) {
      st = ap_fail(ctx->err, AP_ERR_NOMEM, "exact: out of memory for the search");
      goto done;
    }
    memcpy(r.best, offsets, (size_t)m.n * sizeof *offsets);
    for (uint32_t p = 0; p < m.npart; p++)
      r.part_hi[p] =
          highest_end(&m, m.part_buf + m.part_at[p], m.part_at[p + 1] - m.part_at[p], r.best);
    r.budget.max_nodes = ctx->budget_nodes;
    double secs = ctx->budget_seconds > 0 ? ctx->budget_seconds
                  : ctx->budget_nodes     ? 0
                                          : EX_DEFAULT_SECONDS;
    r.budget.deadline = secs > 0 ? t0 + secs : 0;
    minimise(&r, &lo, &hi);
    TRACE("nodes %llu\n", (unsigned long long)r.budget.nodes);
    memcpy(offsets, r.best, (size_t)m.n * sizeof *offsets);
    uint32_t ba, bb;
    if (!ex_model_check(&m, offsets, hi, &ba, &bb)) {
      st = ap_fail(ctx->err, AP_ERR_INVALID_PLAN,
                   "exact: internal error: plan invalid at requests %u and %u", ba, bb);
      goto done;
    }
  }
  res->arena = hi;
  /* A search that narrowed some overlap (a lead <= 0) proved nothing of the wider problem. */
  res->optimal = hi <= (m.restricted ? m.lower_bound : lo);
done:
  ex_search_destroy(r.search);
  for (int h = 0; h <= EX_ORDERS; h++)
    ap_free(m.alloc, r.rank[h]);
  ap_free(m.alloc, r.keys);
  ap_free(m.alloc, r.guide);
  ap_free(m.alloc, r.part_hi);
  ap_free(m.alloc, r.best);
  ap_free(m.alloc, r.scratch);
  ex_model_free(&m);
  return st;
}

const ap_strategy ap_strategy_exact = {
    "exact",
    "search for the smallest arena (MiniMalloc-style); proves it or stops at the budget",
    exact_plan,
};
