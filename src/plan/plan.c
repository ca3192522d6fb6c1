/* ap_plan_create: validate, run the strategy, time it, and check what it made. A strategy
 * bug must surface as an error, never as a wrong plan, so every result goes through the
 * checker before the caller sees it. */
#include "plan/problem.h"
#include "plan/strategy.h"
#include "port/port.h"

#include <stdio.h>
#include <string.h>

struct ap_plan {
  const ap_allocator *alloc;
  ap_errbuf err;
  const char *strategy;
  uint64_t *off;
  size_t n;
  uint64_t arena, lower_bound;
  double ms;
  bool optimal;
};

static double now_ms(void) {
  return (double)ap_port_now_ns() / 1e6;
}

static ap_status list_strategies(ap_errbuf *err, const char *name) {
  char list[256] = "";
  size_t len = 0;
  for (size_t i = 0; i < ap_strategy_count() && len < sizeof list; i++)
    len +=
        (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", ap_strategy_name(i));
  return ap_fail(err, AP_ERR_ARG, "unknown strategy \"%s\" (valid: %s)", name, list);
}

static ap_status run(const ap_strategy *s, const ap_strategy_ctx *ctx, uint64_t *off,
                     ap_strategy_result *res) {
  memset(res, 0, sizeof *res);
  if (ctx->n == 0) return AP_OK;
  return s->plan(ctx, off, res);
}

/* With overlaps: plans chains of them as single blocks too (with the same strategy; for
 * exact, with best), and places them greedily where each pair may share (overlap_greedy.c),
 * and keeps such a plan when its arena is smaller. A whole chain drifts by
 * its gaps and can outgrow two disjoint tensors, so chains are also cut where their block
 * would pass the largest footprint of one pair, or 1, 1.25 or 1.5 times the lower bound. */
static ap_status plan_merged_cap(const ap_problem *p, uint64_t cap, const ap_strategy *s,
                                 const ap_strategy_ctx *ctx, uint64_t *off,
                                 ap_strategy_result *res);
static ap_status plan_merged(const ap_problem *p, const ap_strategy *s, const ap_strategy_ctx *ctx,
                             uint64_t *off, ap_strategy_result *res) {
  uint64_t fp = ap_overlap_max_footprint(p), lb = ctx->lower_bound;
  const uint64_t caps[] = {0, fp, lb, lb + lb / 4, lb + lb / 2};
  for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
    if (k > 1 && caps[k] < lb) break; /* overflowed */
    ap_status st = plan_merged_cap(p, caps[k], s, ctx, off, res);
    if (st != AP_OK) return st;
  }
  uint64_t *tmp = ap_calloc(ctx->alloc, p->n, sizeof *tmp), arena;
  ap_status st = tmp ? ap_overlap_greedy(p, tmp, &arena) : AP_ERR_NOMEM;
  if (st == AP_OK && arena < res->arena) {
    memcpy(off, tmp, p->n * sizeof *off);
    res->arena = arena;
  }
  ap_free(ctx->alloc, tmp);
  if (st != AP_OK) return ap_fail(ctx->err, st, "out of memory placing %zu overlaps", p->nov);
  return AP_OK;
}

static ap_status plan_merged_cap(const ap_problem *p, uint64_t cap, const ap_strategy *s,
                                 const ap_strategy_ctx *ctx, uint64_t *off,
                                 ap_strategy_result *res) {
  ap_overlap_merge m;
  ap_status st = ap_overlap_merge_build(p, cap, &m);
  if (st != AP_OK) return ap_fail(ctx->err, st, "out of memory merging %zu overlaps", p->nov);
  uint64_t *boff = ap_calloc(ctx->alloc, m.nb ? m.nb : 1, sizeof *boff);
  st = boff ? AP_OK : AP_ERR_NOMEM;
  ap_strategy_ctx mc = *ctx;
  mc.req = m.blocks;
  mc.n = m.nb;
  mc.start_offsets = NULL;
  mc.start_arena = 0;
  mc.budget_seconds = 0;
  mc.budget_nodes = 0;
  mc.ov = NULL; /* blocks have none between them */
  mc.nov = 0;
  if (st == AP_OK && m.nb < p->n)
    st = ap_lower_bound_of(ctx->alloc, m.blocks, m.nb, p->align, &mc.lower_bound);
  ap_strategy_result r = {0};
  if (st == AP_OK && m.nb < p->n) st = run(s, &mc, boff, &r);
  if (st == AP_OK && m.nb < p->n && r.arena < res->arena) {
    for (size_t i = 0; i < p->n; i++)
      off[i] = boff[m.block_of[i]] + m.rel[i];
    res->arena = r.arena;
  }
  ap_free(ctx->alloc, boff);
  ap_overlap_merge_free(p, &m);
  if (st == AP_ERR_NOMEM) return ap_fail(ctx->err, st, "out of memory planning merged overlaps");
  /* A strategy that cannot plan the merged blocks leaves the disjoint plan, which stands. */
  ap_err_clear(ctx->err);
  return AP_OK;
}

ap_status ap_plan_create(const ap_problem *p, const ap_plan_options *opt, ap_plan **out) {
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  const ap_allocator *a = ap_alloc_or_default(p ? p->alloc : NULL);
  ap_plan *plan = ap_calloc(a, 1, sizeof *plan);
  if (!plan) return AP_ERR_NOMEM;
  plan->alloc = a;
  *out = plan;
  if (!p) return ap_fail(&plan->err, AP_ERR_ARG, "problem is NULL");
  const char *name = opt && opt->strategy ? opt->strategy : "best";
  const ap_strategy *s = ap_strategy_find(name);
  if (!s) return list_strategies(&plan->err, name);
  plan->strategy = s->name;
  for (size_t i = 0; i < p->n; i++) {
    ap_status st = ap_request_validate(&p->req[i], p->align, &plan->err);
    if (st != AP_OK) return st;
  }
  plan->n = p->n;
  plan->off = ap_calloc(a, p->n ? p->n : 1, sizeof *plan->off);
  if (!plan->off) return ap_fail(&plan->err, AP_ERR_NOMEM, "out of memory for %zu offsets", p->n);
  ap_status st = ap_problem_bound(p, &plan->lower_bound);
  if (st != AP_OK) return ap_fail(&plan->err, st, "out of memory for the lower bound");

  ap_strategy_ctx ctx = {
      .req = p->req,
      .n = p->n,
      .align = p->align,
      .alloc = a,
      .lower_bound = plan->lower_bound,
      .budget_seconds = opt ? opt->budget_seconds : 0,
      .budget_nodes = opt ? opt->budget_nodes : 0,
      .err = &plan->err,
      .fixed = opt ? opt->fixed_offsets : NULL,
      .ov = p->ov,
      .nov = p->nov,
  };
  if (ctx.fixed && strcmp(s->name, "tflm") != 0)
    return ap_fail(&plan->err, AP_ERR_UNSUPPORTED,
                   "strategy %s does not take fixed offsets (only tflm does)", s->name);
  /* Online requests may stack on the highest fixed end: all of it must fit 64 bits. */
  uint64_t sum = 0, a_size;
  for (size_t i = 0; ctx.fixed && i < p->n; i++)
    if (ap_align_up(p->req[i].size, p->align, &a_size)) sum += a_size; /* validated: fits */
  for (size_t i = 0; ctx.fixed && i < p->n; i++) {
    if (ctx.fixed[i] >= 0 && (uint64_t)ctx.fixed[i] > UINT64_MAX - sum)
      return ap_fail(&plan->err, AP_ERR_OVERFLOW, "request %llu: fixed offset %lld overflows",
                     (unsigned long long)p->req[i].id, (long long)ctx.fixed[i]);
    if (ctx.fixed[i] >= 0 && (uint64_t)ctx.fixed[i] % p->align)
      return ap_fail(&plan->err, AP_ERR_INVALID_PLAN,
                     "request %llu: fixed offset %lld is not a multiple of the alignment %llu",
                     (unsigned long long)p->req[i].id, (long long)ctx.fixed[i],
                     (unsigned long long)p->align);
  }
  ap_strategy_result res;
  uint64_t *start = NULL;
  double t0 = now_ms();
  const ap_strategy *best = ap_strategy_find("best");
  if (strcmp(s->name, "exact") == 0 && best && best != s && p->n) {
    /* A search only improves: hand it the portfolio's plan to beat. */
    start = ap_calloc(a, p->n, sizeof *start);
    if (!start) return ap_fail(&plan->err, AP_ERR_NOMEM, "out of memory for %zu offsets", p->n);
    /* best at its own default effort: the budget is the search's to spend. */
    ap_strategy_ctx quick = ctx;
    quick.budget_seconds = 0;
    quick.budget_nodes = 0;
    st = run(best, &quick, start, &res);
    /* With overlaps, the plans that share bytes too: the search starts from the smallest. */
    if (st == AP_OK && p->nov) st = plan_merged(p, best, &quick, start, &res);
    if (st == AP_OK) {
      ctx.start_offsets = start;
      ctx.start_arena = res.arena;
    }
  }
  ap_err_clear(&plan->err);
  st = run(s, &ctx, plan->off, &res);
  ap_free(a, start);
  /* exact searches the overlaps itself, from a start that had them; others get them here. */
  if (st == AP_OK && p->nov && !ctx.start_offsets) {
    st = plan_merged(p, s == ap_strategy_find("exact") ? best : s, &ctx, plan->off, &res);
    res.optimal = false; /* a proof over disjoint plans says nothing of overlapping ones */
  }
  plan->ms = now_ms() - t0;
  if (st != AP_OK) {
    if (!plan->err.msg[0]) ap_fail(&plan->err, st, "strategy %s failed", s->name);
    return st;
  }
  char msg[AP_ERRMSG_MAX - 64];
  st = ap_plan_check(p, plan->off, res.arena, msg, sizeof msg);
  if (st != AP_OK)
    return ap_fail(&plan->err, st == AP_ERR_NOMEM ? st : AP_ERR_INVALID_PLAN,
                   "strategy %s made an invalid plan: %s", s->name, msg);
  plan->arena = res.arena;
  plan->optimal = res.optimal || res.arena == plan->lower_bound;
  ap_err_clear(&plan->err); /* what a portfolio's members gave up on is no failure */
  return AP_OK;
}

void ap_plan_destroy(ap_plan *plan) {
  if (!plan) return;
  ap_free(plan->alloc, plan->off);
  ap_free(plan->alloc, plan);
}

const char *ap_plan_error(const ap_plan *plan) {
  return plan ? plan->err.msg : "no plan (NULL)";
}
const char *ap_plan_strategy(const ap_plan *plan) {
  return plan && plan->strategy ? plan->strategy : "";
}
uint64_t ap_plan_arena(const ap_plan *plan) {
  return plan ? plan->arena : 0;
}
const uint64_t *ap_plan_offsets(const ap_plan *plan) {
  return plan ? plan->off : NULL;
}
size_t ap_plan_count(const ap_plan *plan) {
  return plan ? plan->n : 0;
}
uint64_t ap_plan_lower_bound(const ap_plan *plan) {
  return plan ? plan->lower_bound : 0;
}
double ap_plan_time_ms(const ap_plan *plan) {
  return plan ? plan->ms : 0;
}
bool ap_plan_optimal(const ap_plan *plan) {
  return plan && plan->optimal;
}
