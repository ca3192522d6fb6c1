/* The plan checker. Overlap is found by a sweep over time that keeps the live requests in an
 * ordered set by offset: while the live set is disjoint, a newcomer can only collide with its
 * neighbours in that order, so each insertion checks two requests: O(n log n) in all. */
#include "plan/problem.h"
#include "plan/sort.h"

#include <stdarg.h>
#include <stdio.h>

/* Counts per rank in a Fenwick tree: the set of live requests ordered by (offset, index). */
typedef struct rankset {
  uint32_t *t;
  size_t n;
  unsigned log;
} rankset;

static void rs_add(rankset *s, size_t r, int d) {
  for (size_t i = r + 1; i <= s->n; i += i & (~i + 1))
    s->t[i] += (uint32_t)d;
}

static size_t rs_prefix(const rankset *s, size_t r) { /* live ranks < r */
  size_t c = 0;
  for (size_t i = r; i > 0; i -= i & (~i + 1))
    c += s->t[i];
  return c;
}

static size_t rs_kth(const rankset *s, size_t k) { /* rank of the k-th live (1-based) */
  size_t pos = 0;
  for (size_t step = (size_t)1 << s->log; step; step >>= 1)
    if (pos + step <= s->n && s->t[pos + step] < k) {
      pos += step;
      k -= s->t[pos];
    }
  return pos;
}

static ap_status say(char *msg, size_t size, ap_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static ap_status say(char *msg, size_t size, ap_status st, const char *fmt, ...) {
  if (msg && size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, size, fmt, ap);
    va_end(ap);
  }
  return st;
}

static ap_status overlap(char *msg, size_t size, const ap_request *a, uint64_t oa,
                         const ap_request *b, uint64_t ob) {
  return say(msg, size, AP_ERR_INVALID_PLAN,
             "request id %llu (bytes [%llu, %llu), steps [%d, %d]) overlaps request id %llu "
             "(bytes [%llu, %llu), steps [%d, %d])",
             (unsigned long long)a->id, (unsigned long long)oa, (unsigned long long)(oa + a->size),
             (int)a->first, (int)a->last, (unsigned long long)b->id, (unsigned long long)ob,
             (unsigned long long)(ob + b->size), (int)b->first, (int)b->last);
}

static ap_status sweep(const ap_allocator *a, const ap_request *req, const uint64_t *offsets,
                       size_t n, char *msg, size_t msg_size);

ap_status ap_plan_check(const ap_problem *p, const uint64_t *offsets, uint64_t arena, char *msg,
                        size_t msg_size) {
  if (msg && msg_size) msg[0] = '\0';
  if (!p) return say(msg, msg_size, AP_ERR_ARG, "problem is NULL");
  size_t n = p->n;
  if (n && !offsets) return say(msg, msg_size, AP_ERR_ARG, "offsets are NULL");
  const ap_request *req = p->req;
  uint64_t top = 0;
  size_t top_i = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t end;
    if (offsets[i] % p->align != 0)
      return say(msg, msg_size, AP_ERR_INVALID_PLAN,
                 "request id %llu: offset %llu is not a multiple of the alignment %llu",
                 (unsigned long long)req[i].id, (unsigned long long)offsets[i],
                 (unsigned long long)p->align);
    if (!ap_add_u64(offsets[i], req[i].size, &end))
      return say(msg, msg_size, AP_ERR_INVALID_PLAN,
                 "request id %llu: offset %llu + size %llu overflows 64 bits",
                 (unsigned long long)req[i].id, (unsigned long long)offsets[i],
                 (unsigned long long)req[i].size);
    if (end > top) {
      top = end;
      top_i = i;
    }
  }
  if (arena != top) {
    if (n == 0)
      return say(msg, msg_size, AP_ERR_INVALID_PLAN,
                 "arena is %llu bytes but the problem has no requests", (unsigned long long)arena);
    return say(msg, msg_size, AP_ERR_INVALID_PLAN,
               "arena is %llu bytes but the highest end is %llu (request id %llu)",
               (unsigned long long)arena, (unsigned long long)top,
               (unsigned long long)req[top_i].id);
  }
  if (p->nov) {
    /* Each pair that shares bytes, its lead checked, becomes one block at its step. */
    ap_request *r2;
    uint64_t *o2;
    size_t n2;
    ap_status st = ap_overlap_check_requests(p, offsets, &r2, &o2, &n2, msg, msg_size);
    if (st == AP_ERR_NOMEM) return say(msg, msg_size, st, "out of memory checking %zu requests", n);
    if (st != AP_OK) return st;
    st = sweep(p->alloc, r2, o2, n2, msg, msg_size);
    ap_free(p->alloc, r2);
    ap_free(p->alloc, o2);
    return st;
  }
  return sweep(p->alloc, req, offsets, n, msg, msg_size);
}

/* No two of n requests overlap both in time and in bytes. */
static ap_status sweep(const ap_allocator *a, const ap_request *req, const uint64_t *offsets,
                       size_t n, char *msg, size_t msg_size) {
  if (n < 2) return AP_OK;
  ap_kv *by_off = ap_calloc(a, n, sizeof *by_off);
  ap_kv *by_first = ap_calloc(a, n, sizeof *by_first);
  ap_kv *by_last = ap_calloc(a, n, sizeof *by_last);
  uint32_t *rank = ap_calloc(a, n, sizeof *rank);
  uint32_t *at = ap_calloc(a, n, sizeof *at); /* rank -> request */
  rankset rs = {ap_calloc(a, n + 1, sizeof(uint32_t)), n, 0};
  ap_status st = say(msg, msg_size, AP_ERR_NOMEM, "out of memory checking %zu requests", n);
  if (!by_off || !by_first || !by_last || !rank || !at || !rs.t) goto done;
  while (((size_t)1 << (rs.log + 1)) <= n)
    rs.log++;
  for (size_t i = 0; i < n; i++) {
    by_off[i] = (ap_kv){offsets[i], (uint32_t)i};
    by_first[i] = (ap_kv){ap_step_key(req[i].first), (uint32_t)i};
    by_last[i] = (ap_kv){ap_step_key(req[i].last), (uint32_t)i};
  }
  if (ap_sort_kv(a, by_off, n) != AP_OK || ap_sort_kv(a, by_first, n) != AP_OK ||
      ap_sort_kv(a, by_last, n) != AP_OK)
    goto done;
  for (size_t r = 0; r < n; r++) {
    rank[by_off[r].idx] = (uint32_t)r;
    at[r] = by_off[r].idx;
  }
  size_t e = 0, live = 0;
  st = AP_OK;
  if (msg && msg_size) msg[0] = '\0';
  for (size_t s = 0; s < n && st == AP_OK; s++) {
    uint32_t i = by_first[s].idx;
    uint64_t t = by_first[s].key;
    while (e < n && by_last[e].key < t) {
      rs_add(&rs, rank[by_last[e++].idx], -1);
      live--;
    }
    size_t below = rs_prefix(&rs, rank[i]);
    if (below > 0) {
      uint32_t j = at[rs_kth(&rs, below)];
      if (offsets[j] + req[j].size > offsets[i])
        st = overlap(msg, msg_size, &req[j], offsets[j], &req[i], offsets[i]);
    }
    if (st == AP_OK && below < live) {
      uint32_t j = at[rs_kth(&rs, below + 1)];
      if (offsets[i] + req[i].size > offsets[j])
        st = overlap(msg, msg_size, &req[i], offsets[i], &req[j], offsets[j]);
    }
    rs_add(&rs, rank[i], +1);
    live++;
  }
done:
  ap_free(a, by_off);
  ap_free(a, by_first);
  ap_free(a, by_last);
  ap_free(a, rank);
  ap_free(a, at);
  ap_free(a, rs.t);
  return st;
}
