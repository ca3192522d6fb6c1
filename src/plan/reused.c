/* ap_plan_reused: how many requests sit on bytes that a request which ended earlier had used.
 * A sweep in order of first step marks the byte ranges of requests as they end (in a segment
 * tree over the distinct offsets) and asks, for each request, whether its range touches a
 * marked byte: O(n log n). */
#include "plan/problem.h"
#include "plan/sort.h"

typedef struct cover {
  uint8_t *full, *any; /* per node: all of its range marked / some of it */
  size_t m;            /* elementary ranges */
} cover;

static void mark(cover *c, size_t node, size_t lo, size_t hi, size_t a, size_t b) {
  if (b <= lo || hi <= a || c->full[node]) return;
  c->any[node] = 1;
  if (a <= lo && hi <= b) {
    c->full[node] = 1;
    return;
  }
  size_t mid = lo + (hi - lo) / 2;
  mark(c, 2 * node, lo, mid, a, b);
  mark(c, 2 * node + 1, mid, hi, a, b);
}

static bool touched(const cover *c, size_t node, size_t lo, size_t hi, size_t a, size_t b) {
  if (b <= lo || hi <= a || !c->any[node]) return false;
  if (c->full[node] || (a <= lo && hi <= b)) return true;
  size_t mid = lo + (hi - lo) / 2;
  return touched(c, 2 * node, lo, mid, a, b) || touched(c, 2 * node + 1, mid, hi, a, b);
}

static size_t find(const uint64_t *v, size_t m, uint64_t x) {
  size_t lo = 0, hi = m;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

size_t ap_plan_reused(const ap_problem *p, const ap_plan *plan) {
  if (!p || !plan || ap_plan_count(plan) != p->n || !ap_plan_offsets(plan) || p->n < 2) return 0;
  const uint64_t *off = ap_plan_offsets(plan);
  const ap_allocator *a = p->alloc;
  size_t n = p->n, reused = 0;
  ap_kv *pts = ap_calloc(a, 2 * n, sizeof *pts);
  ap_kv *by_first = ap_calloc(a, n, sizeof *by_first);
  ap_kv *by_last = ap_calloc(a, n, sizeof *by_last);
  uint64_t *coord = ap_calloc(a, 2 * n, sizeof *coord);
  cover c = {ap_calloc(a, 8 * n, 1), ap_calloc(a, 8 * n, 1), 0};
  if (!pts || !by_first || !by_last || !coord || !c.full || !c.any) goto done;
  for (size_t i = 0; i < n; i++) {
    pts[2 * i] = (ap_kv){off[i], 0};
    pts[2 * i + 1] = (ap_kv){off[i] + p->req[i].size, 0};
    by_first[i] = (ap_kv){ap_step_key(p->req[i].first), (uint32_t)i};
    by_last[i] = (ap_kv){ap_step_key(p->req[i].last), (uint32_t)i};
  }
  if (ap_sort_kv(a, pts, 2 * n) != AP_OK || ap_sort_kv(a, by_first, n) != AP_OK ||
      ap_sort_kv(a, by_last, n) != AP_OK)
    goto done;
  size_t m = 0;
  for (size_t k = 0; k < 2 * n; k++)
    if (m == 0 || coord[m - 1] != pts[k].key) coord[m++] = pts[k].key;
  c.m = m - 1; /* m >= 2: every request has size > 0 */
  size_t e = 0;
  for (size_t s = 0; s < n; s++) {
    uint32_t i = by_first[s].idx;
    while (e < n && by_last[e].key < by_first[s].key) {
      uint32_t j = by_last[e++].idx;
      mark(&c, 1, 0, c.m, find(coord, m, off[j]), find(coord, m, off[j] + p->req[j].size));
    }
    if (touched(&c, 1, 0, c.m, find(coord, m, off[i]), find(coord, m, off[i] + p->req[i].size)))
      reused++;
  }
done:
  ap_free(a, pts);
  ap_free(a, by_first);
  ap_free(a, by_last);
  ap_free(a, coord);
  ap_free(a, c.full);
  ap_free(a, c.any);
  return reused;
}
