/* Permitted overlaps (plan.h, ap_overlap): adding them to a problem, the requests the lower
 * bound and the checker sweep in their place, and chains of them merged into single blocks. */
#include "plan/problem.h"

#include <stdio.h>
#include <string.h>

#define LEAD_MAX ((int64_t)1 << 62)

ap_status ap_problem_add_overlap(ap_problem *p, const ap_overlap *o) {
  if (!p) return AP_ERR_ARG;
  if (!o) return ap_fail(&p->err, AP_ERR_ARG, "overlap is NULL");
  if (o->in >= p->n || o->out >= p->n || o->in == o->out)
    return ap_fail(&p->err, AP_ERR_RANGE,
                   "overlap of request %zu into request %zu: two different indices below %zu",
                   o->in, o->out, p->n);
  const ap_request *a = &p->req[o->in], *b = &p->req[o->out];
  /* (first, last) grows along every chain of overlaps: none can close a cycle. */
  if (a->last != b->first || (a->first == b->first && a->last == b->last))
    return ap_fail(&p->err, AP_ERR_ARG,
                   "overlap of request id %llu (steps [%d, %d]) into request id %llu (steps "
                   "[%d, %d]): the second must start at the first's last step, and one of them "
                   "live at another step too",
                   (unsigned long long)a->id, (int)a->first, (int)a->last,
                   (unsigned long long)b->id, (int)b->first, (int)b->last);
  if (o->lead > LEAD_MAX || o->lead < -LEAD_MAX)
    return ap_fail(&p->err, AP_ERR_RANGE, "overlap of request id %llu: lead %lld beyond 2^62",
                   (unsigned long long)a->id, (long long)o->lead);
  for (size_t k = 0; k < p->nov; k++)
    if (p->ov[k].in == o->in || p->ov[k].out == o->out)
      return ap_fail(&p->err, AP_ERR_ARG,
                     "overlap of request id %llu into request id %llu: one of them already has "
                     "an overlap on that side",
                     (unsigned long long)a->id, (unsigned long long)b->id);
  if (p->nov == p->ovcap) {
    size_t cap = p->ovcap ? p->ovcap * 2 : 16, bytes;
    if (!ap_mul_size(cap, sizeof *p->ov, &bytes)) return AP_ERR_NOMEM;
    ap_overlap *n = ap_alloc(p->alloc, bytes);
    if (!n) return ap_fail(&p->err, AP_ERR_NOMEM, "out of memory for %zu overlaps", cap);
    if (p->nov) memcpy(n, p->ov, p->nov * sizeof *n);
    ap_free(p->alloc, p->ov);
    p->ov = n;
    p->ovcap = cap;
  }
  p->ov[p->nov++] = *o;
  return AP_OK;
}

size_t ap_problem_overlap_count(const ap_problem *p) {
  return p ? p->nov : 0;
}

const ap_overlap *ap_problem_overlaps(const ap_problem *p) {
  return p ? p->ov : NULL;
}

static uint64_t up(uint64_t v, uint64_t align) {
  uint64_t r = v;
  ap_align_up(v, align, &r); /* requests are validated: never overflows */
  return r;
}

/* The least distance offset(in) - offset(out) the overlap allows, as offsets can be: a
 * multiple of the alignment; 0 for a lead <= 0 (both at one offset is the tightest). */
static uint64_t min_gap(const ap_overlap *o, uint64_t align) {
  return o->lead <= 0 ? 0 : up((uint64_t)o->lead, align);
}

uint64_t ap_overlap_max_footprint(const ap_problem *p) {
  uint64_t most = 0;
  for (size_t k = 0; k < p->nov; k++) {
    const ap_overlap *o = &p->ov[k];
    const ap_request *a = &p->req[o->in], *b = &p->req[o->out];
    uint64_t gap = min_gap(o, p->align);
    uint64_t fp = gap >= b->size ? a->size + b->size
                  : o->lead <= 0 ? AP_MAX(a->size, b->size)
                                 : AP_MAX(b->size, gap + a->size);
    most = AP_MAX(most, fp);
  }
  return most;
}

ap_status ap_overlap_bound_requests(const ap_problem *p, ap_request **out_req, size_t *out_n) {
  *out_req = NULL;
  *out_n = 0;
  if (!p->nov) return AP_OK;
  ap_request *r = ap_calloc(p->alloc, p->n + p->nov, sizeof *r);
  if (!r) return AP_ERR_NOMEM;
  memcpy(r, p->req, p->n * sizeof *r);
  size_t n = p->n;
  for (size_t k = 0; k < p->nov; k++) {
    const ap_overlap *o = &p->ov[k];
    const ap_request *a = &p->req[o->in], *b = &p->req[o->out];
    uint64_t gap = min_gap(o, p->align);
    if (gap >= b->size) continue; /* no byte can be shared */
    uint64_t fp = o->lead <= 0 ? AP_MAX(a->size, b->size) : AP_MAX(b->size, gap + a->size);
    /* out's aligned size plus the rest of the footprint: aligned, they take up(fp); the
     * rest's slack is the footprint's own when the pair is topmost. */
    uint64_t as_b = up(b->size, p->align), extra = fp > as_b ? fp - as_b : 0;
    /* `in` ends a step early; one that lives only at that step is all inside the pair. */
    if ((int64_t)a->first < (int64_t)b->first)
      r[o->in].last = b->first - 1;
    else
      r[o->in].size = 0; /* dropped below */
    if (extra)
      r[n++] = (ap_request){.id = b->id, .size = extra, .first = b->first, .last = b->first};
  }
  size_t kept = 0;
  for (size_t i = 0; i < n; i++)
    if (r[i].size) r[kept++] = r[i];
  *out_req = r;
  *out_n = kept;
  return AP_OK;
}

ap_status ap_overlap_check_requests(const ap_problem *p, const uint64_t *off, ap_request **out_req,
                                    uint64_t **out_off, size_t *out_n, char *msg, size_t msg_size) {
  *out_req = NULL;
  *out_off = NULL;
  *out_n = 0;
  if (!p->nov) return AP_OK;
  size_t cap = p->n + p->nov;
  ap_request *r = ap_calloc(p->alloc, cap, sizeof *r);
  uint64_t *ro = ap_calloc(p->alloc, cap, sizeof *ro);
  uint8_t *cut = ap_calloc(p->alloc, p->n, 1); /* bit 0: loses its first step, bit 1: last */
  ap_status st = AP_ERR_NOMEM;
  size_t n = 0;
  if (!r || !ro || !cut) goto fail;
  st = AP_OK;
  for (size_t k = 0; k < p->nov; k++) {
    const ap_overlap *o = &p->ov[k];
    const ap_request *a = &p->req[o->in], *b = &p->req[o->out];
    uint64_t oa = off[o->in], ob = off[o->out], ea = oa + a->size, eb = ob + b->size;
    if (oa >= eb || ob >= ea) continue; /* disjoint: the sweep checks them as any two */
    bool ok = o->lead >= 0 ? oa >= ob && oa - ob >= (uint64_t)o->lead
                           : oa >= ob || ob - oa <= (uint64_t)(-o->lead);
    if (!ok) {
      if (msg && msg_size)
        snprintf(msg, msg_size,
                 "request id %llu (bytes [%llu, %llu)) overlaps request id %llu (bytes [%llu, "
                 "%llu)) at step %d, which it may only from at least %lld bytes below it",
                 (unsigned long long)b->id, (unsigned long long)ob, (unsigned long long)eb,
                 (unsigned long long)a->id, (unsigned long long)oa, (unsigned long long)ea,
                 (int)b->first, (long long)o->lead);
      st = AP_ERR_INVALID_PLAN;
      goto fail;
    }
    cut[o->in] |= 2;
    cut[o->out] |= 1;
    uint64_t lo = AP_MIN(oa, ob);
    r[n] =
        (ap_request){.id = b->id, .size = AP_MAX(ea, eb) - lo, .first = b->first, .last = b->first};
    ro[n++] = lo;
  }
  for (size_t i = 0; i < p->n; i++) {
    int64_t first = (int64_t)p->req[i].first + (cut[i] & 1);
    int64_t last = (int64_t)p->req[i].last - (cut[i] >> 1);
    if (first > last) continue;
    r[n] = p->req[i];
    r[n].first = (int32_t)first;
    r[n].last = (int32_t)last;
    ro[n++] = off[i];
  }
  ap_free(p->alloc, cut);
  *out_req = r;
  *out_off = ro;
  *out_n = n;
  return AP_OK;
fail:
  ap_free(p->alloc, r);
  ap_free(p->alloc, ro);
  ap_free(p->alloc, cut);
  return st;
}

ap_status ap_overlap_merge_build(const ap_problem *p, uint64_t cap, ap_overlap_merge *m) {
  memset(m, 0, sizeof *m);
  size_t n = p->n;
  size_t *next = ap_calloc(p->alloc, n ? n : 1, sizeof *next);
  int64_t *rel = ap_calloc(p->alloc, n ? n : 1, sizeof *rel);
  uint8_t *inner = ap_calloc(p->alloc, n ? n : 1, 1); /* not the first of its chain */
  m->blocks = ap_calloc(p->alloc, n ? n : 1, sizeof *m->blocks);
  m->block_of = ap_calloc(p->alloc, n ? n : 1, sizeof *m->block_of);
  m->rel = ap_calloc(p->alloc, n ? n : 1, sizeof *m->rel);
  int64_t *gaps = ap_calloc(p->alloc, n ? n : 1, sizeof *gaps);
  ap_status st = AP_ERR_NOMEM;
  if (!next || !rel || !inner || !m->blocks || !m->block_of || !m->rel || !gaps) goto done;
  for (size_t i = 0; i < n; i++)
    next[i] = SIZE_MAX;
  /* Offsets inside a block are signed while it is built: no merging past 2^62 bytes. */
  for (size_t k = 0; p->total <= OVERLAP_BYTES_MAX && k < p->nov; k++) {
    const ap_overlap *o = &p->ov[k];
    uint64_t gap = min_gap(o, p->align);
    if (gap >= p->req[o->out].size) continue; /* nothing to share: merging only wastes */
    next[o->in] = o->out;
    gaps[o->in] = (int64_t)gap;
    inner[o->out] = 1;
  }
  /* A chain whose members step down by their gaps drifts: its block grows. Where taking the
   * next member would pass `cap` bytes, the block ends at its cheapest cut instead: the pair
   * of the fewest bytes when left unshared (in + out), which then stays disjoint. */
  for (size_t h0 = 0; h0 < n; h0++) {
    if (inner[h0]) continue;
    for (size_t h = h0; h != SIZE_MAX;) {
      int64_t lo = 0, hi = (int64_t)p->req[h].size;
      size_t i = h, cut = SIZE_MAX;
      uint64_t cut_cost = UINT64_MAX;
      rel[h] = 0;
      while (next[i] != SIZE_MAX) {
        size_t j = next[i];
        int64_t rj = rel[i] - gaps[i];
        int64_t nlo = AP_MIN(lo, rj), nhi = AP_MAX(hi, rj + (int64_t)p->req[j].size);
        if (cap && (uint64_t)(nhi - nlo) > cap) {
          if (cut != SIZE_MAX) i = cut;
          break;
        }
        uint64_t cost = p->req[i].size + p->req[j].size;
        if (cost <= cut_cost) {
          cut_cost = cost;
          cut = i;
        }
        rel[j] = rj;
        lo = nlo;
        hi = nhi;
        i = j;
      }
      /* The block is h .. i; its extent is recomputed over exactly those members. */
      lo = 0;
      hi = 0;
      for (size_t k = h;; k = next[k]) {
        lo = AP_MIN(lo, rel[k]);
        hi = AP_MAX(hi, rel[k] + (int64_t)p->req[k].size);
        if (k == i) break;
      }
      for (size_t k = h;; k = next[k]) {
        m->block_of[k] = (uint32_t)m->nb;
        m->rel[k] = (uint64_t)(rel[k] - lo);
        if (k == i) break;
      }
      m->blocks[m->nb++] = (ap_request){.id = p->req[h].id,
                                        .size = (uint64_t)(hi - lo),
                                        .first = p->req[h].first,
                                        .last = p->req[i].last};
      h = next[i];
    }
  }
  st = AP_OK;
done:
  ap_free(p->alloc, next);
  ap_free(p->alloc, rel);
  ap_free(p->alloc, inner);
  ap_free(p->alloc, gaps);
  if (st != AP_OK) ap_overlap_merge_free(p, m);
  return st;
}

void ap_overlap_merge_free(const ap_problem *p, ap_overlap_merge *m) {
  ap_free(p->alloc, m->blocks);
  ap_free(p->alloc, m->block_of);
  ap_free(p->alloc, m->rel);
  memset(m, 0, sizeof *m);
}

/* Can every chain fit under t? From each chain's end back, `d` is the least offset its current
 * request can have: a pair kept apart (both sizes fit under t) lets its `in` start at 0, which
 * is never worse for the pairs before it; a pair that must share puts its `in` the gap above
 * its `out` (a lead <= 0: up to -lead below it, not below 0). */
static bool chains_fit(const ap_request *req, const ap_overlap *ov, const size_t *prev,
                       const uint8_t *is_in, size_t n, uint64_t align, uint64_t t) {
  for (size_t end = 0; end < n; end++) {
    if (is_in[end] || prev[end] == SIZE_MAX) continue; /* not the end of a chain */
    uint64_t d = 0;
    for (size_t j = end; prev[j] != SIZE_MAX;) {
      const ap_overlap *o = &ov[prev[j]];
      uint64_t si = req[o->in].size, so = req[o->out].size;
      if (d > t || so > t - d) return false;
      uint64_t dn;
      if (si <= t && so <= t - si) {
        dn = 0;
      } else if (o->lead > 0) {
        uint64_t gap = up((uint64_t)o->lead, align);
        if (gap > t || d > t - gap) return false;
        dn = d + gap;
      } else {
        uint64_t back = (uint64_t)(-o->lead);
        dn = d > back ? up(d - back, align) : 0;
      }
      if (dn > t || si > t - dn) return false;
      d = dn;
      j = o->in;
    }
  }
  return true;
}

ap_status ap_overlap_chain_bound(const ap_allocator *a, const ap_request *req, size_t n,
                                 const ap_overlap *ov, size_t nov, uint64_t align, uint64_t *out) {
  *out = 0;
  if (!nov || !n) return AP_OK;
  size_t *prev = ap_calloc(a, n, sizeof *prev);
  uint8_t *is_in = ap_calloc(a, n, 1);
  if (!prev || !is_in) {
    ap_free(a, prev);
    ap_free(a, is_in);
    return AP_ERR_NOMEM;
  }
  for (size_t i = 0; i < n; i++)
    prev[i] = SIZE_MAX;
  uint64_t hi = 0;
  for (size_t k = 0; k < nov; k++) {
    prev[ov[k].out] = k;
    is_in[ov[k].in] = 1;
  }
  /* Stacking every request of the problem always fits: a valid upper end for the search. */
  for (size_t i = 0; i < n; i++) {
    uint64_t s = up(req[i].size, align);
    hi = hi > UINT64_MAX - s ? UINT64_MAX : hi + s;
  }
  uint64_t lo = 0;
  while (lo < hi) { /* the least t that fits */
    uint64_t mid = lo + (hi - lo) / 2;
    if (chains_fit(req, ov, prev, is_in, n, align, mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  *out = lo;
  ap_free(a, prev);
  ap_free(a, is_in);
  return AP_OK;
}
