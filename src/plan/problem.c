/* Problems: a growable list of requests with one alignment. */
#include "plan/problem.h"

#include <string.h>

ap_status ap_problem_create(const ap_allocator *a, ap_problem **out) {
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  a = ap_alloc_or_default(a);
  ap_problem *p = ap_calloc(a, 1, sizeof *p);
  if (!p) return AP_ERR_NOMEM;
  p->alloc = a;
  p->align = 1;
  *out = p;
  return AP_OK;
}

void ap_problem_destroy(ap_problem *p) {
  if (!p) return;
  ap_free(p->alloc, p->req);
  ap_free(p->alloc, p->ov);
  ap_free(p->alloc, p->name_at);
  ap_free(p->alloc, p->names);
  ap_free(p->alloc, p);
}

const char *ap_problem_error(const ap_problem *p) {
  return p ? p->err.msg : "no problem (NULL)";
}

static ap_status total_aligned(const ap_request *req, size_t n, uint64_t align, uint64_t *out) {
  uint64_t t = 0, s;
  for (size_t i = 0; i < n; i++)
    if (!ap_align_up(req[i].size, align, &s) || !ap_add_u64(t, s, &t)) return AP_ERR_OVERFLOW;
  *out = t;
  return AP_OK;
}

ap_status ap_problem_set_alignment(ap_problem *p, uint64_t alignment) {
  if (!p) return AP_ERR_ARG;
  if (alignment == 0) return ap_fail(&p->err, AP_ERR_ARG, "alignment 0: must be at least 1");
  uint64_t t;
  if (total_aligned(p->req, p->n, alignment, &t) != AP_OK)
    return ap_fail(&p->err, AP_ERR_OVERFLOW,
                   "alignment %llu: the aligned sizes of the requests sum past 2^64",
                   (unsigned long long)alignment);
  p->align = alignment;
  p->total = t;
  return AP_OK;
}

uint64_t ap_problem_alignment(const ap_problem *p) {
  return p ? p->align : 0;
}

ap_status ap_request_validate(const ap_request *r, uint64_t align, ap_errbuf *err) {
  if (r->size == 0)
    return ap_fail(err, AP_ERR_ARG, "request id %llu: size 0 (must be > 0)",
                   (unsigned long long)r->id);
  if (r->last < r->first)
    return ap_fail(err, AP_ERR_ARG, "request id %llu: last step %d < first step %d",
                   (unsigned long long)r->id, (int)r->last, (int)r->first);
  uint64_t s;
  if (!ap_align_up(r->size, align, &s))
    return ap_fail(
        err, AP_ERR_OVERFLOW, "request id %llu: size %llu aligned to %llu overflows 64 bits",
        (unsigned long long)r->id, (unsigned long long)r->size, (unsigned long long)align);
  return AP_OK;
}

ap_status ap_problem_add(ap_problem *p, const ap_request *r) {
  if (!p) return AP_ERR_ARG;
  if (!r) return ap_fail(&p->err, AP_ERR_ARG, "request is NULL");
  ap_status st = ap_request_validate(r, p->align, &p->err);
  if (st != AP_OK) return st;
  uint64_t s, t;
  ap_align_up(r->size, p->align, &s);
  if (!ap_add_u64(p->total, s, &t))
    return ap_fail(&p->err, AP_ERR_OVERFLOW,
                   "request id %llu: the sizes of the requests sum past 2^64",
                   (unsigned long long)r->id);
  if (p->n >= AP_MAX_REQUESTS)
    return ap_fail(&p->err, AP_ERR_RANGE, "too many requests (the limit is %zu)", AP_MAX_REQUESTS);
  if (p->n == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 64, bytes;
    if (!ap_mul_size(cap, sizeof *p->req, &bytes)) return AP_ERR_NOMEM;
    ap_request *nr = ap_alloc(p->alloc, bytes);
    if (!nr) return ap_fail(&p->err, AP_ERR_NOMEM, "out of memory for %zu requests", cap);
    size_t *na = NULL;
    if (p->name_at &&
        (!ap_mul_size(cap, sizeof *na, &bytes) || !(na = ap_alloc(p->alloc, bytes)))) {
      ap_free(p->alloc, nr);
      return ap_fail(&p->err, AP_ERR_NOMEM, "out of memory for %zu requests", cap);
    }
    if (p->n) memcpy(nr, p->req, p->n * sizeof *p->req);
    ap_free(p->alloc, p->req);
    p->req = nr;
    if (na) {
      memcpy(na, p->name_at, p->n * sizeof *na);
      ap_free(p->alloc, p->name_at);
      p->name_at = na;
    }
    p->cap = cap;
  }
  if (p->name_at) p->name_at[p->n] = SIZE_MAX;
  p->req[p->n++] = *r;
  p->total = t;
  return AP_OK;
}

size_t ap_problem_count(const ap_problem *p) {
  return p ? p->n : 0;
}

const ap_request *ap_problem_requests(const ap_problem *p) {
  return p ? p->req : NULL;
}

ap_status ap_problem_pair_bound(const ap_problem *p, uint64_t *out) {
  ap_request *r;
  size_t n;
  *out = 0;
  ap_status st = ap_overlap_bound_requests(p, &r, &n);
  if (st != AP_OK) return st;
  st = ap_lower_bound_of(p->alloc, r ? r : p->req, r ? n : p->n, p->align, out);
  ap_free(p->alloc, r);
  return st;
}

ap_status ap_problem_bound(const ap_problem *p, uint64_t *out) {
  ap_status st = ap_problem_pair_bound(p, out);
  uint64_t chain = 0;
  if (st == AP_OK && p->nov)
    st = ap_overlap_chain_bound(p->alloc, p->req, p->n, p->ov, p->nov, p->align, &chain);
  if (st == AP_OK && chain > *out) *out = chain;
  return st;
}

uint64_t ap_problem_lower_bound(const ap_problem *p) {
  uint64_t lb = 0;
  if (p && ap_problem_bound(p, &lb) != AP_OK) return 0;
  return lb;
}

const char *ap_problem_request_name(const ap_problem *p, size_t i) {
  if (!p || !p->name_at || i >= p->n || p->name_at[i] == SIZE_MAX) return NULL;
  return p->names + p->name_at[i];
}
