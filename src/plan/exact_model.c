/* Builds the exact strategy's model of a problem: sections, overlaps, partitions, lower bound. */
#include "plan/exact_model.h"
#include "plan/problem.h"
#include "port/port.h"

#include <stdlib.h>
#include <string.h>

double ex_now(void) {
  return (double)ap_port_now_ns() * 1e-9;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Index of `v` in the sorted unique array `ev` (v is known to be present). */
static uint32_t find_event(const int64_t *ev, size_t count, int64_t v) {
  size_t lo = 0, hi = count;
  while (lo + 1 < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ev[mid] <= v)
      lo = mid;
    else
      hi = mid;
  }
  return (uint32_t)lo;
}

void ex_model_free(ex_model *m) {
  const ap_allocator *a = m->alloc;
  void *ptrs[] = {m->size,     m->asize,    m->slo,      m->shi,     m->sec_total,
                  m->adj_at,   m->adj,      m->mem_at,   m->mem,     m->part_at,
                  m->part_buf, m->part_slo, m->part_shi, m->part_lb, m->len,
                  m->pin,      m->plead,    m->pgap,     m->disc};
  for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
    ap_free(a, ptrs[i]);
  memset(m, 0, sizeof *m);
  m->alloc = a;
}

/* Permitted overlaps: partners, gaps and each section's discount. A pair shares bytes only at
 * its one common section (`out`'s first); there its aligned extents, `in` at least `gap` above
 * `out`, share at most min(asize(in), asize(out) - gap). */
static ap_status build_pairs(ex_model *m, const ap_strategy_ctx *ctx) {
  const ap_allocator *a = m->alloc;
  if (!ctx->nov) return AP_OK;
  if (ctx->nov > m->n || !ctx->ov)
    return ap_fail(ctx->err, AP_ERR_ARG, "exact: %zu overlaps for %u requests", ctx->nov, m->n);
  m->pin = ap_calloc(a, m->n, sizeof *m->pin);
  m->plead = ap_calloc(a, m->n, sizeof *m->plead);
  m->pgap = ap_calloc(a, m->n, sizeof *m->pgap);
  m->disc = ap_calloc(a, m->nsec ? m->nsec : 1, sizeof *m->disc);
  if (!m->pin || !m->plead || !m->pgap || !m->disc)
    return ap_fail(ctx->err, AP_ERR_NOMEM, "exact: out of memory for %zu overlaps", ctx->nov);
  for (uint32_t i = 0; i < m->n; i++)
    m->pin[i] = UINT32_MAX;
  for (size_t k = 0; k < ctx->nov; k++) {
    const ap_overlap *o = &ctx->ov[k];
    /* The problem validated these; a direct caller may not have. */
    if (o->in >= m->n || o->out >= m->n || o->in == o->out || m->pin[o->out] != UINT32_MAX ||
        ctx->req[o->in].last != ctx->req[o->out].first || o->lead > ((int64_t)1 << 62) ||
        o->lead < -((int64_t)1 << 62))
      return ap_fail(ctx->err, AP_ERR_ARG, "exact: overlap %zu (%zu into %zu) is invalid", k, o->in,
                     o->out);
    uint32_t in = (uint32_t)o->in, out = (uint32_t)o->out;
    uint64_t gap = 0;
    if (o->lead > 0 && !ap_align_up((uint64_t)o->lead, m->align, &gap))
      return ap_fail(ctx->err, AP_ERR_OVERFLOW, "exact: overlap %zu: lead overflows", k);
    m->pin[out] = in;
    m->plead[out] = o->lead;
    m->pgap[out] = gap ? gap : m->align;
    if (!gap) m->restricted = true;
    if (gap >= m->size[out]) continue; /* never share a byte */
    uint64_t share = AP_MIN(m->asize[in], m->asize[out] - gap);
    uint32_t sec = m->slo[out];
    if (!ap_add_u64(m->disc[sec], share, &m->disc[sec]))
      return ap_fail(ctx->err, AP_ERR_OVERFLOW, "exact: overlaps' bytes overflow 64 bits");
  }
  m->nov = (uint32_t)ctx->nov;
  return AP_OK;
}

/* Sections and the lower bound. */
static ap_status build_sections(ex_model *m, const ap_strategy_ctx *ctx) {
  const ap_allocator *a = m->alloc;
  size_t n = m->n, nev = 2 * n;
  int64_t *ev = ap_calloc(a, nev ? nev : 1, sizeof *ev);
  if (!ev) return ap_fail(ctx->err, AP_ERR_NOMEM, "exact: out of memory for %zu events", nev);
  for (size_t i = 0; i < n; i++) {
    ev[2 * i] = ctx->req[i].first;
    ev[2 * i + 1] = (int64_t)ctx->req[i].last + 1;
  }
  qsort(ev, nev, sizeof *ev, cmp_i64);
  size_t u = 0;
  for (size_t i = 0; i < nev; i++)
    if (u == 0 || ev[u - 1] != ev[i]) ev[u++] = ev[i];
  /* u events bound u - 1 sections. */
  m->nsec = (uint32_t)(u - 1);
  m->sec_total = ap_calloc(a, m->nsec, sizeof *m->sec_total);
  uint64_t *sec_slack = ap_calloc(a, m->nsec, sizeof *sec_slack);
  if (!m->sec_total || !sec_slack) {
    ap_free(a, ev);
    ap_free(a, sec_slack);
    return ap_fail(ctx->err, AP_ERR_NOMEM, "exact: out of memory for %u sections", m->nsec);
  }
  for (size_t i = 0; i < n; i++) {
    m->slo[i] = find_event(ev, u, ctx->req[i].first);
    m->shi[i] = find_event(ev, u, (int64_t)ctx->req[i].last + 1) - 1;
  }
  ap_free(a, ev);
  ap_status pst = build_pairs(m, ctx);
  if (pst != AP_OK) {
    ap_free(a, sec_slack);
    return pst;
  }
  /* Totals through difference arrays: a request adds its size to a run of sections. Adds and
   * subtracts are kept apart so that every partial sum is checked. */
  bool overflow = false;
  uint64_t *add = ap_calloc(a, (size_t)m->nsec + 1, sizeof *add);
  uint64_t *sub = ap_calloc(a, (size_t)m->nsec + 1, sizeof *sub);
  if (!add || !sub) {
    ap_free(a, add);
    ap_free(a, sub);
    ap_free(a, sec_slack);
    return ap_fail(ctx->err, AP_ERR_NOMEM, "exact: out of memory for %u sections", m->nsec);
  }
  for (size_t i = 0; i < n && !overflow; i++) {
    overflow |= !ap_add_u64(add[m->slo[i]], m->asize[i], &add[m->slo[i]]);
    overflow |= !ap_add_u64(sub[m->shi[i] + 1], m->asize[i], &sub[m->shi[i] + 1]);
  }
  uint64_t run = 0;
  for (uint32_t s = 0; s < m->nsec && !overflow; s++) {
    overflow |= !ap_add_u64(run, add[s], &run);
    run -= sub[s]; /* never below zero: every subtracted size was added earlier */
    m->sec_total[s] = run;
  }
  ap_free(a, add);
  ap_free(a, sub);
  if (overflow) {
    ap_free(a, sec_slack);
    return ap_fail(ctx->err, AP_ERR_OVERFLOW, "exact: live bytes at one step overflow 64 bits");
  }
  /* The slack of the topmost request: max(asize - size) over a section's members. Only
   * matters when some size is not a multiple of the alignment. */
  memset(sec_slack, 0, m->nsec * sizeof *sec_slack);
  if (m->slack > 0) {
    for (size_t i = 0; i < n; i++) {
      uint64_t sl = m->asize[i] - m->size[i];
      for (uint32_t s = m->slo[i]; s <= m->shi[i]; s++)
        if (sec_slack[s] < sl) sec_slack[s] = sl;
    }
  }
  m->lower_bound = 0;
  for (uint32_t s = 0; s < m->nsec; s++) {
    uint64_t cut = sec_slack[s] + (m->disc ? m->disc[s] : 0), t = m->sec_total[s];
    uint64_t v = !t ? 0 : t > cut ? t - cut : 1;
    if (v > m->lower_bound) m->lower_bound = v;
  }
  ap_free(a, sec_slack);
  if (m->nov) {
    uint64_t chain;
    ap_status st = ap_overlap_chain_bound(a, ctx->req, m->n, ctx->ov, ctx->nov, m->align, &chain);
    if (st != AP_OK) return ap_fail(ctx->err, st, "exact: out of memory for the chain bound");
    if (chain > m->lower_bound) m->lower_bound = chain;
  }
  return AP_OK;
}

/* Overlap lists: requests i and j overlap iff their section ranges intersect. Sorting by first
 * section, the partners j of i that come after it are exactly those starting within i's
 * range. */
static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static ap_status build_overlaps(ex_model *m, const ap_strategy_ctx *ctx, size_t max_pairs) {
  const ap_allocator *a = m->alloc;
  uint32_t n = m->n;
  uint32_t *order = ap_calloc(a, n ? n : 1, sizeof *order);
  uint64_t *key = ap_calloc(a, n ? n : 1, sizeof *key);
  size_t *deg = ap_calloc(a, (size_t)n + 1, sizeof *deg);
  if (!order || !deg || !key) {
    ap_free(a, order);
    ap_free(a, key);
    ap_free(a, deg);
    return ap_fail(ctx->err, AP_ERR_NOMEM, "exact: out of memory for %u requests", n);
  }
  /* (first section, index) packed in one integer: a total order, so the sort is
   * deterministic, and no global is needed for a comparator (plans may run on threads). */
  for (uint32_t i = 0; i < n; i++)
    key[i] = (uint64_t)m->slo[i] << 32 | i;
  qsort(key, n, sizeof *key, cmp_u64);
  for (uint32_t i = 0; i < n; i++)
    order[i] = (uint32_t)key[i];
  ap_free(a, key);
  size_t pairs = 0;
  for (uint32_t x = 0; x < n; x++) {
    uint32_t i = order[x];
    for (uint32_t y = x + 1; y < n && m->slo[order[y]] <= m->shi[i]; y++) {
      deg[i]++;
      deg[order[y]]++;
      if (++pairs > max_pairs) {
        ap_free(a, order);
        ap_free(a, deg);
        return ap_fail(ctx->err, AP_ERR_UNSUPPORTED,
                       "exact: more than %zu overlapping pairs; too large to search", max_pairs);
      }
    }
  }
  m->adj_at = ap_calloc(a, (size_t)n + 1, sizeof *m->adj_at);
  m->adj = ap_calloc(a, pairs ? 2 * pairs : 1, sizeof *m->adj);
  if (!m->adj_at || !m->adj) {
    ap_free(a, order);
    ap_free(a, deg);
    return ap_fail(ctx->err, AP_ERR_NOMEM, "exact: out of memory for %zu overlaps", pairs);
  }
  for (uint32_t i = 0; i < n; i++)
    m->adj_at[i + 1] = m->adj_at[i] + deg[i];
  memset(deg, 0, ((size_t)n + 1) * sizeof *deg);
  for (uint32_t x = 0; x < n; x++) {
    uint32_t i = order[x];
    for (uint32_t y = x + 1; y < n && m->slo[order[y]] <= m->shi[i]; y++) {
      uint32_t j = order[y];
      m->adj[m->adj_at[i] + deg[i]++] = j;
      m->adj[m->adj_at[j] + deg[j]++] = i;
    }
  }
  ap_free(a, order);
  ap_free(a, deg);
  return AP_OK;
}

static ap_status build_members(ex_model *m, const ap_strategy_ctx *ctx, size_t max_pairs) {
  const ap_allocator *a = m->alloc;
  size_t total = 0;
  for (uint32_t i = 0; i < m->n; i++) {
    total += (size_t)(m->shi[i] - m->slo[i]) + 1;
    if (total > max_pairs)
      return ap_fail(ctx->err, AP_ERR_UNSUPPORTED,
                     "exact: more than %zu section memberships; too large to search", max_pairs);
  }
  m->mem_at = ap_calloc(a, (size_t)m->nsec + 1, sizeof *m->mem_at);
  m->mem = ap_calloc(a, total ? total : 1, sizeof *m->mem);
  size_t *fill = ap_calloc(a, (size_t)m->nsec + 1, sizeof *fill);
  if (!m->mem_at || !m->mem || !fill) {
    ap_free(a, fill);
    return ap_fail(ctx->err, AP_ERR_NOMEM, "exact: out of memory for %zu memberships", total);
  }
  for (uint32_t i = 0; i < m->n; i++)
    for (uint32_t s = m->slo[i]; s <= m->shi[i]; s++)
      fill[s + 1]++;
  for (uint32_t s = 0; s < m->nsec; s++)
    m->mem_at[s + 1] = m->mem_at[s] + fill[s + 1];
  memset(fill, 0, ((size_t)m->nsec + 1) * sizeof *fill);
  for (uint32_t i = 0; i < m->n; i++)
    for (uint32_t s = m->slo[i]; s <= m->shi[i]; s++)
      m->mem[m->mem_at[s] + fill[s]++] = i;
  ap_free(a, fill);
  return AP_OK;
}

/* Partitions: a boundary between sections s and s+1 that no request crosses splits the problem
 * into parts that can be planned independently (the arena is the largest part's). */
static ap_status build_partitions(ex_model *m, const ap_strategy_ctx *ctx) {
  const ap_allocator *a = m->alloc;
  uint32_t nsec = m->nsec;
  uint32_t *cross = ap_calloc(a, (size_t)nsec + 1, sizeof *cross);
  uint32_t *sec_part = ap_calloc(a, (size_t)nsec + 1, sizeof *sec_part);
  if (!cross || !sec_part) {
    ap_free(a, cross);
    ap_free(a, sec_part);
    return ap_fail(ctx->err, AP_ERR_NOMEM, "exact: out of memory for %u sections", nsec);
  }
  /* cross[s] > 0: some request covers both s and s+1 (difference array, then prefix sum). */
  int64_t *d = (int64_t *)ap_calloc(a, (size_t)nsec + 1, sizeof *d);
  if (!d) {
    ap_free(a, cross);
    ap_free(a, sec_part);
    return ap_fail(ctx->err, AP_ERR_NOMEM, "exact: out of memory for %u sections", nsec);
  }
  for (uint32_t i = 0; i < m->n; i++)
    if (m->shi[i] > m->slo[i]) {
      d[m->slo[i]]++;
      d[m->shi[i]]--;
    }
  int64_t run = 0;
  for (uint32_t s = 0; s < nsec; s++) {
    run += d[s];
    cross[s] = run > 0;
  }
  ap_free(a, d);
  uint32_t np = 0;
  for (uint32_t s = 0; s < nsec; s++) {
    sec_part[s] = np;
    if (!cross[s]) np++;
  }
  /* The last section always closes a partition, so np >= 1 when nsec >= 1. Empty partitions
   * (sections nobody lives in) are kept: they simply hold no requests. */
  m->npart = np;
  m->part_at = ap_calloc(a, (size_t)np + 1, sizeof *m->part_at);
  m->part_buf = ap_calloc(a, m->n ? m->n : 1, sizeof *m->part_buf);
  m->part_slo = ap_calloc(a, np ? np : 1, sizeof *m->part_slo);
  m->part_shi = ap_calloc(a, np ? np : 1, sizeof *m->part_shi);
  m->part_lb = ap_calloc(a, np ? np : 1, sizeof *m->part_lb);
  if (!m->part_at || !m->part_buf || !m->part_slo || !m->part_shi || !m->part_lb) {
    ap_free(a, cross);
    ap_free(a, sec_part);
    return ap_fail(ctx->err, AP_ERR_NOMEM, "exact: out of memory for %u partitions", np);
  }
  for (uint32_t s = nsec; s-- > 0;)
    m->part_slo[sec_part[s]] = s;
  for (uint32_t s = 0; s < nsec; s++)
    m->part_shi[sec_part[s]] = s;
  for (uint32_t i = 0; i < m->n; i++)
    m->part_at[sec_part[m->slo[i]] + 1]++;
  for (uint32_t p = 0; p < np; p++)
    m->part_at[p + 1] += m->part_at[p];
  uint32_t *fill = cross; /* reuse: per-partition fill counts */
  memset(fill, 0, ((size_t)nsec + 1) * sizeof *fill);
  for (uint32_t i = 0; i < m->n; i++) {
    uint32_t p = sec_part[m->slo[i]];
    m->part_buf[m->part_at[p] + fill[p]++] = i;
  }
  ap_free(a, cross);
  ap_free(a, sec_part);
  return AP_OK;
}

static void partition_bounds(ex_model *m) {
  for (uint32_t p = 0; p < m->npart; p++) {
    uint64_t lb = 0;
    for (uint32_t s = m->part_slo[p]; s <= m->part_shi[p]; s++) {
      uint64_t total = m->sec_total[s], sl = 0;
      if (!total) continue;
      if (m->slack)
        for (size_t k = m->mem_at[s]; k < m->mem_at[s + 1]; k++) {
          uint32_t i = m->mem[k];
          if (m->asize[i] - m->size[i] > sl) sl = m->asize[i] - m->size[i];
        }
      uint64_t cut = sl + (m->disc ? m->disc[s] : 0), v = total > cut ? total - cut : 1;
      if (v > lb) lb = v;
    }
    m->part_lb[p] = lb;
  }
}

ap_status ex_model_build(ex_model *m, const ap_strategy_ctx *ctx, bool full, size_t max_pairs) {
  const ap_allocator *a = ap_alloc_or_default(ctx->alloc);
  memset(m, 0, sizeof *m);
  m->alloc = a;
  if (ctx->n > UINT32_MAX / 4)
    return ap_fail(ctx->err, AP_ERR_UNSUPPORTED, "exact: %zu requests is too many", ctx->n);
  m->n = (uint32_t)ctx->n;
  m->align = ctx->align;
  m->size = ap_calloc(a, m->n ? m->n : 1, sizeof *m->size);
  m->asize = ap_calloc(a, m->n ? m->n : 1, sizeof *m->asize);
  m->slo = ap_calloc(a, m->n ? m->n : 1, sizeof *m->slo);
  m->shi = ap_calloc(a, m->n ? m->n : 1, sizeof *m->shi);
  m->len = ap_calloc(a, m->n ? m->n : 1, sizeof *m->len);
  if (!m->size || !m->asize || !m->slo || !m->shi || !m->len) {
    ex_model_free(m);
    return ap_fail(ctx->err, AP_ERR_NOMEM, "exact: out of memory for %u requests", m->n);
  }
  for (uint32_t i = 0; i < m->n; i++) {
    const ap_request *r = &ctx->req[i];
    if (r->size == 0 || r->first < 0 || r->last < r->first) {
      ex_model_free(m);
      return ap_fail(ctx->err, AP_ERR_ARG,
                     "exact: request %u (id %llu): size %llu, lifetime [%d, %d] is invalid", i,
                     (unsigned long long)r->id, (unsigned long long)r->size, (int)r->first,
                     (int)r->last);
    }
    m->size[i] = r->size;
    m->len[i] = (uint64_t)((int64_t)r->last - r->first) + 1;
    if (!ap_align_up(r->size, m->align, &m->asize[i])) {
      ex_model_free(m);
      return ap_fail(ctx->err, AP_ERR_OVERFLOW,
                     "exact: request %u: size %llu aligned to %llu overflows 64 bits", i,
                     (unsigned long long)r->size, (unsigned long long)m->align);
    }
    if (m->asize[i] - m->size[i] > m->slack) m->slack = m->asize[i] - m->size[i];
  }
  ap_status st = build_sections(m, ctx);
  if (st == AP_OK && full) {
    st = build_overlaps(m, ctx, max_pairs);
    if (st == AP_OK) st = build_members(m, ctx, max_pairs);
    if (st == AP_OK) st = build_partitions(m, ctx);
    if (st == AP_OK) {
      partition_bounds(m);
      m->full = true;
    }
  }
  if (st != AP_OK) ex_model_free(m);
  return st;
}

bool ex_pair_ok(const ex_model *m, uint32_t i, uint32_t j, const uint64_t *off) {
  if (!m->pin) return false;
  uint32_t in = m->pin[i] == j ? j : m->pin[j] == i ? i : UINT32_MAX;
  if (in == UINT32_MAX) return false;
  uint32_t out = in == i ? j : i;
  int64_t lead = m->plead[out];
  /* Offsets are below 2^64 and |lead| <= 2^62: compare without a signed difference. */
  if (off[in] >= off[out]) return lead <= 0 || off[in] - off[out] >= (uint64_t)lead;
  return lead < 0 && off[out] - off[in] <= (uint64_t)(-lead);
}

bool ex_model_check(const ex_model *m, const uint64_t *off, uint64_t arena, uint32_t *bad_a,
                    uint32_t *bad_b) {
  uint64_t top = 0;
  for (uint32_t i = 0; i < m->n; i++) {
    uint64_t end;
    *bad_a = *bad_b = i;
    if (off[i] % m->align != 0 || !ap_add_u64(off[i], m->size[i], &end)) return false;
    if (end > top) top = end;
    for (size_t k = m->adj_at[i]; k < m->adj_at[i + 1]; k++) {
      uint32_t j = m->adj[k];
      *bad_b = j;
      /* Written so that no sum can overflow: j's end is only checked in its own turn. */
      if (off[j] < end && (off[i] < off[j] || off[i] - off[j] < m->size[j]) &&
          !ex_pair_ok(m, i, j, off))
        return false;
    }
  }
  *bad_a = *bad_b = UINT32_MAX;
  return top == arena;
}

void ex_rank_keys(const ex_model *m, const uint64_t *totals, const char *order, uint32_t i,
                  uint64_t key[3]) {
  for (int k = 0; k < 3; k++) {
    uint64_t v = m->size[i];
    switch (order[k]) {
    case 'W': v = m->len[i]; break;
    case 'A':
      if (!ap_mul_u64(m->size[i], m->len[i], &v)) v = UINT64_MAX;
      break;
    case 'T':
      v = 0;
      for (uint32_t s = m->slo[i]; s <= m->shi[i]; s++)
        if (totals[s] > v) v = totals[s];
      break;
    case 'C': v = (uint64_t)(m->shi[i] - m->slo[i]) + 1; break;
    default: break;
    }
    key[k] = v;
  }
}
