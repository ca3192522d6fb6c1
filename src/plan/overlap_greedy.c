/* A greedy placement that uses the problem's overlaps directly: requests in one order, each at
 * the lowest aligned offset that every placed request overlapping it in time allows. For an
 * ordinary neighbour y that excludes the starts in (y - size, y + y.size); for an overlap's
 * partner it excludes fewer: the offsets where the two share bytes with the lead kept are
 * allowed (see ap_overlap in plan.h). Merged chains (plan.c) fix a chain's shape once; this
 * places each member where its neighbours leave room. O(n^2) in the requests. */
#include "plan/problem.h"
#include "plan/sort.h"

#include <stdlib.h>
#include <string.h>

/* Extra passes in randomly perturbed size orders. */
#define RANDOM_PASSES 24

typedef struct range {
  int64_t lo, hi; /* starts strictly between are excluded */
} range;

/* lift: a request whose overlap partner `out` is not placed yet starts at least the pair's
 * gap up, so that `out` can still go below it (placed first, a large `in` at 0 would leave
 * its `out` no room below). */
/* lifts (or NULL): each request starts at least that high (a chain's `in` above room for
 * the rest of its chain). */
/* Each request goes at the lowest start that no placed neighbour excludes: from the start, a
 * sweep over the neighbours by offset moves up past each range it is strictly inside. An
 * ordinary neighbour y excludes (off[y] - size, off[y] + y.size), so the placed requests kept in
 * offset order give those ranges sorted, and the sweep stops at the first that starts at or
 * above it (no per-request sort: that was 9/10 of a streamed plan's time). The two partners'
 * ranges start elsewhere; each one that moves it restarts the sweep. Every move is forced (no
 * start below it is free), so the start is the lowest free one whatever the order of moves. */
static ap_status place(const ap_problem *p, const uint32_t *order, bool lift, const uint64_t *lifts,
                       uint64_t *off, uint64_t *arena) {
  size_t n = p->n;
  const ap_request *q = p->req;
  /* Per request, its overlap partners: as `out` (in_of, lead_in) and as `in` (out_of). */
  size_t *in_of = ap_calloc(p->alloc, n, sizeof *in_of),
         *out_of = ap_calloc(p->alloc, n, sizeof *out_of);
  int64_t *lead_in = ap_calloc(p->alloc, n, sizeof *lead_in),
          *lead_out = ap_calloc(p->alloc, n, sizeof *lead_out);
  uint8_t *placed = ap_calloc(p->alloc, n, 1);
  uint32_t *by_off = ap_calloc(p->alloc, n, sizeof *by_off);
  ap_status st = AP_ERR_NOMEM;
  if (!in_of || !out_of || !lead_in || !lead_out || !placed || !by_off) goto done;
  for (size_t i = 0; i < n; i++)
    in_of[i] = out_of[i] = SIZE_MAX;
  for (size_t k = 0; k < p->nov; k++) {
    in_of[p->ov[k].out] = p->ov[k].in;
    lead_in[p->ov[k].out] = p->ov[k].lead;
    out_of[p->ov[k].in] = p->ov[k].out;
    lead_out[p->ov[k].in] = p->ov[k].lead;
  }
  *arena = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t x = order[k];
    int64_t sx = (int64_t)q[x].size;
    /* The partners' ranges (placed and live with x). */
    range sp[2];
    size_t nsp = 0;
    const size_t partner[2] = {in_of[x], out_of[x]};
    for (int j = 0; j < 2; j++) {
      size_t y = partner[j];
      if (y == SIZE_MAX || (j && y == partner[0]) || !placed[y] || q[y].last < q[x].first ||
          q[x].last < q[y].first)
        continue;
      int64_t oy = (int64_t)off[y], sy = (int64_t)q[y].size;
      range e = {oy - sx, oy + sy};
      if (j == 0) /* x is y's out: x <= y - lead shares bytes legally */
        e.lo = oy - AP_MIN(lead_in[x], sx);
      else /* x is y's in: x >= y + lead shares bytes legally */
        e.hi = oy + AP_MIN(lead_out[x], sy);
      if (e.lo < e.hi) sp[nsp++] = e;
    }
    int64_t start = 0;
    /* ... unless it is itself an `out` whose `in` is placed: its place is below that. */
    bool below_in = in_of[x] != SIZE_MAX && placed[in_of[x]];
    if (lift && !below_in && out_of[x] != SIZE_MAX && !placed[out_of[x]] && lead_out[x] > 0) {
      uint64_t gap;
      ap_align_up((uint64_t)lead_out[x], p->align, &gap); /* lead <= 2^62 */
      start = (int64_t)gap;
    }
    if (lifts) start = (int64_t)lifts[x];
    int64_t pos = start;
    for (bool moved = true; moved;) {
      for (size_t i = 0; i < k; i++) {
        uint32_t y = by_off[i];
        int64_t oy = (int64_t)off[y];
        if (oy - sx >= pos) break;
        if (y == partner[0] || y == partner[1] || q[y].last < q[x].first || q[x].last < q[y].first)
          continue;
        int64_t hi = oy + (int64_t)q[y].size;
        if (hi > pos) {
          uint64_t up;
          ap_align_up((uint64_t)hi, p->align, &up);
          pos = (int64_t)up;
        }
      }
      moved = false;
      for (size_t j = 0; j < nsp; j++)
        if (sp[j].lo < pos && sp[j].hi > pos) {
          uint64_t up;
          ap_align_up((uint64_t)sp[j].hi, p->align, &up);
          pos = (int64_t)up;
          moved = true;
        }
    }
    off[x] = (uint64_t)pos;
    placed[x] = 1;
    if (off[x] + q[x].size > *arena) *arena = off[x] + q[x].size;
    /* Into the offset order: after every request at or below its offset. */
    size_t lo = 0, hi = k;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (off[by_off[mid]] <= off[x])
        lo = mid + 1;
      else
        hi = mid;
    }
    memmove(by_off + lo + 1, by_off + lo, (k - lo) * sizeof *by_off);
    by_off[lo] = x;
  }
  st = AP_OK;
done:
  ap_free(p->alloc, in_of);
  ap_free(p->alloc, out_of);
  ap_free(p->alloc, lead_in);
  ap_free(p->alloc, lead_out);
  ap_free(p->alloc, placed);
  ap_free(p->alloc, by_off);
  return st;
}

ap_status ap_overlap_greedy(const ap_problem *p, uint64_t *off, uint64_t *arena) {
  size_t n = p->n;
  *arena = UINT64_MAX;
  /* Offsets and sizes are signed here: problems of 2^62 bytes and more are left to the
   * strategies (their disjoint plans stand). */
  if (n == 0 || p->total > OVERLAP_BYTES_MAX) return AP_OK;
  ap_kv *kv = ap_calloc(p->alloc, n, sizeof *kv);
  uint32_t *order = ap_calloc(p->alloc, n, sizeof *order);
  uint64_t *tmp = ap_calloc(p->alloc, n, sizeof *tmp);
  ap_status st = AP_ERR_NOMEM;
  if (!kv || !order || !tmp) goto done;
  /* Two orders, largest first and by first step (ties by index), each without and with
   * lifting; and backwards in time (last step, latest first), which places an `out` before
   * its `in`: a chain whose outputs grow then stacks each `in` just its lead above. */
  uint64_t seed = 0x9e3779b97f4a7c15u;
  for (int pass = 0; pass < 5 + RANDOM_PASSES; pass++) {
    for (size_t i = 0; i < n; i++) {
      uint64_t step = ap_step_key(p->req[i].first);
      uint64_t big = UINT64_MAX - p->req[i].size;
      uint64_t late = UINT64_MAX - ap_step_key(p->req[i].last);
      /* After the five: by size within a random factor of 2 (a fixed seed: deterministic). */
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      uint64_t noisy = big - (p->req[i].size >> 1) / 256 * (seed >> 56);
      kv[i] = (ap_kv){pass >= 5       ? noisy
                      : pass == 4     ? late
                      : pass % 2 == 0 ? big
                                      : step,
                      (uint32_t)i};
    }
    if ((st = ap_sort_kv(p->alloc, kv, n)) != AP_OK) goto done;
    for (size_t i = 0; i < n; i++)
      order[i] = kv[i].idx;
    uint64_t a;
    if ((st = place(p, order, pass == 2 || pass == 3 || (pass >= 5 && pass % 2), NULL, tmp, &a)) !=
        AP_OK)
      goto done;
    if (a < *arena) {
      *arena = a;
      memcpy(off, tmp, n * sizeof *off);
    }
  }
  /* Chains lifted as a whole: from each chain's end back, a request starts high enough for
   * every later member to go below it by its gap, as long as it stays under `cap`; past that
   * the chain breaks (the next pair is placed apart). Placed in time order. */
  if (st == AP_OK) {
    uint64_t lb = 0, fp = ap_overlap_max_footprint(p);
    uint64_t *lifts = ap_calloc(p->alloc, n, sizeof *lifts);
    size_t *next = ap_calloc(p->alloc, n, sizeof *next),
           *prev = ap_calloc(p->alloc, n, sizeof *prev);
    st = lifts && next && prev ? ap_problem_pair_bound(p, &lb) : AP_ERR_NOMEM;
    const uint64_t caps[] = {lb, fp, lb + lb / 4, lb + lb / 2};
    for (size_t i = 0; st == AP_OK && i < n; i++)
      next[i] = prev[i] = SIZE_MAX;
    for (size_t k = 0; st == AP_OK && k < p->nov; k++) {
      next[p->ov[k].in] = k;
      prev[p->ov[k].out] = k;
    }
    for (size_t i = 0; st == AP_OK && i < n; i++)
      kv[i] = (ap_kv){ap_step_key(p->req[i].first), (uint32_t)i};
    if (st == AP_OK) st = ap_sort_kv(p->alloc, kv, n);
    for (size_t i = 0; st == AP_OK && i < n; i++)
      order[i] = kv[i].idx;
    for (size_t c = 0; st == AP_OK && c < sizeof caps / sizeof caps[0]; c++) {
      /* Chain ends first: walk back from every request that is no pair's `in`. */
      for (size_t t = 0; t < n; t++) {
        if (next[t] != SIZE_MAX) continue;
        lifts[t] = 0;
        for (size_t j = t; prev[j] != SIZE_MAX;) {
          const ap_overlap *o = &p->ov[prev[j]];
          size_t i = o->in;
          uint64_t gap = 0;
          if (o->lead > 0) ap_align_up((uint64_t)o->lead, p->align, &gap);
          uint64_t want = gap + lifts[j];
          /* Below `out` whole when it fits there; else `out`'s whole lift under this one;
           * else only `out` itself (which then starts at 0: the chain after it breaks); else
           * wherever the greedy finds room. */
          if (p->req[i].size <= lifts[j]) {
            lifts[i] = 0;
          } else if (want + p->req[i].size <= caps[c]) {
            lifts[i] = want;
          } else if (gap + p->req[i].size <= caps[c]) {
            lifts[i] = gap;
            lifts[j] = 0;
          } else {
            lifts[i] = 0;
          }
          j = i;
        }
      }
      uint64_t a;
      st = place(p, order, false, lifts, tmp, &a);
      if (st == AP_OK && a < *arena) {
        *arena = a;
        memcpy(off, tmp, n * sizeof *off);
      }
    }
    ap_free(p->alloc, lifts);
    ap_free(p->alloc, next);
    ap_free(p->alloc, prev);
  }
done:
  ap_free(p->alloc, kv);
  ap_free(p->alloc, order);
  ap_free(p->alloc, tmp);
  return st;
}
