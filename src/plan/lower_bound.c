/* The lower bound. At one step the live requests are disjoint and every offset is aligned,
 * so stacked by offset each but the topmost takes its aligned size, and the topmost its plain
 * size: no arena is below sum(aligned) - max(aligned - size) over the live requests. The bound
 * is the peak of that over steps, found by a sweep over sorted starts and ends. */
#include "plan/problem.h"
#include "plan/sort.h"

/* A max-heap of slacks (aligned - size) with lazy deletion: an entry whose request has ended
 * stays until it reaches the top. */
typedef struct slack_heap {
  uint64_t *slack;
  uint32_t *idx;
  size_t n;
} slack_heap;

static void heap_push(slack_heap *h, uint64_t s, uint32_t i) {
  size_t k = h->n++;
  while (k > 0) {
    size_t parent = (k - 1) / 2;
    if (h->slack[parent] >= s) break;
    h->slack[k] = h->slack[parent];
    h->idx[k] = h->idx[parent];
    k = parent;
  }
  h->slack[k] = s;
  h->idx[k] = i;
}

static void heap_pop(slack_heap *h) {
  uint64_t s = h->slack[--h->n];
  uint32_t i = h->idx[h->n];
  size_t k = 0;
  for (;;) {
    size_t c = 2 * k + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && h->slack[c + 1] > h->slack[c]) c++;
    if (h->slack[c] <= s) break;
    h->slack[k] = h->slack[c];
    h->idx[k] = h->idx[c];
    k = c;
  }
  if (h->n) {
    h->slack[k] = s;
    h->idx[k] = i;
  }
}

ap_status ap_lower_bound_of(const ap_allocator *a, const ap_request *req, size_t n, uint64_t align,
                            uint64_t *out) {
  *out = 0;
  if (n == 0) return AP_OK;
  ap_kv *by_first = ap_calloc(a, n, sizeof *by_first);
  ap_kv *by_last = ap_calloc(a, n, sizeof *by_last);
  slack_heap h = {ap_calloc(a, n, sizeof(uint64_t)), ap_calloc(a, n, sizeof(uint32_t)), 0};
  ap_status st = AP_ERR_NOMEM;
  if (!by_first || !by_last || !h.slack || !h.idx) goto done;
  for (size_t i = 0; i < n; i++) {
    by_first[i] = (ap_kv){ap_step_key(req[i].first), (uint32_t)i};
    by_last[i] = (ap_kv){ap_step_key(req[i].last), (uint32_t)i};
  }
  if (ap_sort_kv(a, by_first, n) != AP_OK || ap_sort_kv(a, by_last, n) != AP_OK) goto done;
  uint64_t sum = 0, best = 0;
  size_t e = 0;
  for (size_t s = 0; s < n;) {
    uint64_t t = by_first[s].key;
    /* Requests ending before t are no longer live at t (lifetimes are inclusive). */
    while (e < n && by_last[e].key < t) {
      const ap_request *r = &req[by_last[e++].idx];
      uint64_t as;
      ap_align_up(r->size, align, &as);
      sum -= as;
    }
    for (; s < n && by_first[s].key == t; s++) {
      uint32_t i = by_first[s].idx;
      uint64_t as;
      /* Problems keep the sum of aligned sizes within 64 bits, so neither add overflows. */
      ap_align_up(req[i].size, align, &as);
      sum += as;
      heap_push(&h, as - req[i].size, i);
    }
    while (h.n && ap_step_key(req[h.idx[0]].last) < t)
      heap_pop(&h);
    uint64_t bound = sum - (h.n ? h.slack[0] : 0);
    if (bound > best) best = bound;
  }
  for (size_t i = 0; i < n; i++)
    if (req[i].size > best) best = req[i].size;
  *out = best;
  st = AP_OK;
done:
  ap_free(a, by_first);
  ap_free(a, by_last);
  ap_free(a, h.slack);
  ap_free(a, h.idx);
  return st;
}
