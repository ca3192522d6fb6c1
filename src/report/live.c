/* Live bytes per step, defined like the plan layer's lower bound of each step: at a step, the
 * requests live there stacked by offset take their aligned sizes except the topmost, which
 * takes its plain size; a permitted overlap's pair (in place) counts at its step the least
 * bytes the two can cover together, as the bound does. So no step's value passes the arena.
 * The curve's highest point is the plan's lower bound, or below it when chains of overlaps
 * raise the bound (ap_problem_lower_bound: gaps that stack along a chain). */
#include "report_internal.h"

static uint64_t up(uint64_t v, uint64_t align) {
  uint64_t r;
  return ap_align_up(v, align, &r) ? r : UINT64_MAX;
}

/* Each overlap's pair at its step: `in` leaves (its aligned size), and what the pair's least
 * joint footprint adds to `out`'s aligned size comes in (mirrors the plan layer's bound). */
static void count_overlaps(ap_report *r, uint64_t *slack) {
  const ap_problem *p = ap_model_plan_problem(r->mp, 0);
  const ap_overlap *ov = ap_problem_overlaps(p);
  for (size_t k = 0; k < ap_problem_overlap_count(p); k++) {
    if (ov[k].in >= r->req_count || ov[k].out >= r->req_count) continue;
    const ap_report_request *a = &r->req[ov[k].in], *b = &r->req[ov[k].out];
    int32_t s = b->first;
    if (s < 0 || (size_t)s >= r->steps || a->last != s) continue;
    uint64_t gap = ov[k].lead <= 0 ? 0 : up((uint64_t)ov[k].lead, r->alignment);
    if (gap >= b->bytes) continue; /* no byte can be shared */
    uint64_t fp = ov[k].lead <= 0 ? AP_MAX(a->bytes, b->bytes) : AP_MAX(b->bytes, gap + a->bytes);
    uint64_t as_b = up(b->bytes, r->alignment), extra = fp > as_b ? fp - as_b : 0;
    r->live[s] -= up(a->bytes, r->alignment); /* counted there by the loop over requests */
    if (extra) {
      r->live[s] += up(extra, r->alignment);
      if (up(extra, r->alignment) - extra > slack[s]) slack[s] = up(extra, r->alignment) - extra;
    }
  }
}

ap_status report_live_bytes(ap_report *r) {
  size_t steps = ap_graph_step_count(ap_model_plan_graph(r->mp));
  /* A request may end past the timeline only if the graph says so; cover every request. */
  for (size_t i = 0; i < r->req_count; i++)
    if (r->req[i].last >= 0 && (size_t)r->req[i].last >= steps) steps = (size_t)r->req[i].last + 1;
  r->steps = steps;
  r->live = ap_calloc(r->alloc, steps ? steps : 1, sizeof *r->live);
  uint64_t *slack = ap_calloc(r->alloc, steps ? steps : 1, sizeof *slack);
  if (!r->live || !slack) {
    ap_free(r->alloc, slack);
    return ap_fail(&r->err, AP_ERR_NOMEM, "out of memory for %zu steps", steps);
  }
  for (size_t i = 0; i < r->req_count; i++) {
    const ap_report_request *q = &r->req[i];
    uint64_t aligned;
    if (!ap_align_up(q->bytes, r->alignment, &aligned)) aligned = UINT64_MAX;
    for (int32_t s = q->first < 0 ? 0 : q->first; s <= q->last; s++) {
      r->live[s] += aligned; /* the problem's total of aligned sizes fits 64 bits */
      if (aligned - q->bytes > slack[s]) slack[s] = aligned - q->bytes;
    }
  }
  count_overlaps(r, slack);
  for (size_t s = 0; s < steps; s++)
    r->live[s] -= slack[s];
  ap_free(r->alloc, slack);
  return AP_OK;
}

size_t ap_report_step_count(const ap_report *r) {
  return r ? r->steps : 0;
}
const uint64_t *ap_report_live_bytes(const ap_report *r) {
  return r ? r->live : NULL;
}

size_t ap_report_peak_step(const ap_report *r) {
  size_t best = 0;
  for (size_t s = 1; r && s < r->steps; s++)
    if (r->live[s] > r->live[best]) best = s;
  return best;
}

size_t ap_report_top_steps(const ap_report *r, size_t *steps, size_t k) {
  if (!r || !steps) return 0;
  size_t n = 0;
  /* Insertion into a short sorted list: k is small (the report asks for 5). */
  for (size_t s = 0; s < r->steps; s++) {
    size_t pos = n;
    while (pos > 0 && r->live[steps[pos - 1]] < r->live[s])
      pos--;
    if (pos >= k) continue;
    size_t end = n < k ? n : k - 1;
    for (size_t j = end; j > pos; j--)
      steps[j] = steps[j - 1];
    steps[pos] = s;
    if (n < k) n++;
  }
  return n;
}
