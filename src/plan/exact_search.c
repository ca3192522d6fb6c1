/* The exact strategy's decision search: does a partition fit under a capacity?
 *
 * Ideas from MiniMalloc (Moffitt, ASPLOS 2024), our own code:
 * - Canonical solutions. Any plan can be pushed down until every request rests on the highest
 *   request below it that overlaps it in time (or on 0). Such a plan is built by placing
 *   requests in non-decreasing (offset, rank) order, each at its lowest aligned offset above
 *   the already placed requests it overlaps (its "min offset"). So each node branches only on
 *   which request comes next, never on where, and skips requests whose (min offset, rank) is
 *   below the last placed one's.
 * - Dominance. If an unplaced request r would end at or below offset x (min_off(r) + size(r)
 *   <= x), placing anything at x is dominated: r could always be moved down into the gap left
 *   beneath. So candidates at or above the lowest such end are never tried.
 * - Inference over sections. Within a section of time all live requests stack, so its floor
 *   (highest placed end, at least the lowest min offset of its unplaced requests, at least the
 *   current offset since offsets never decrease) plus the aligned sizes still to place must fit
 *   under the capacity; otherwise the node is pruned.
 *
 * The search is iterative (depth can be the number of requests) and undoes changes through a
 * trail, so memory is O(requests + overlaps along one path). */
#include "plan/exact_model.h"

#include <string.h>

#define EX_NONE UINT64_MAX

typedef struct ex_trail {
  uint32_t idx;
  uint32_t kind; /* 0: min_off[idx], 1: floor[idx] */
  uint64_t old;
} ex_trail;

typedef struct ex_level {
  uint32_t buf;        /* request placed at this depth */
  uint32_t last_rank;  /* key of the last candidate tried here */
  uint64_t last_off;
  uint64_t min_height; /* lowest end any unplaced request could have */
  size_t trail_mark;
  bool tried;          /* some candidate was tried at this level */
} ex_level;

struct ex_search {
  const ex_model *m;
  uint64_t *min_off, *off, *floor, *total;
  uint32_t *stamp, stamp_now;
  uint32_t *affected;
  ex_level *lev;
  ex_trail *trail;
  size_t trail_len, trail_cap;
};

void ex_search_destroy(ex_search *s) {
  if (!s) return;
  const ap_allocator *a = s->m->alloc;
  ap_free(a, s->min_off);
  ap_free(a, s->off);
  ap_free(a, s->floor);
  ap_free(a, s->total);
  ap_free(a, s->stamp);
  ap_free(a, s->affected);
  ap_free(a, s->lev);
  ap_free(a, s->trail);
  ap_free(a, s);
}

ap_status ex_search_create(const ex_model *m, ex_search **out) {
  const ap_allocator *a = m->alloc;
  *out = NULL;
  ex_search *s = ap_calloc(a, 1, sizeof *s);
  if (!s) return AP_ERR_NOMEM;
  s->m = m;
  size_t n = m->n ? m->n : 1, ns = m->nsec ? m->nsec : 1;
  s->min_off = ap_calloc(a, n, sizeof *s->min_off);
  s->off = ap_calloc(a, n, sizeof *s->off);
  s->floor = ap_calloc(a, ns, sizeof *s->floor);
  s->total = ap_calloc(a, ns, sizeof *s->total);
  s->stamp = ap_calloc(a, ns, sizeof *s->stamp);
  s->affected = ap_calloc(a, ns, sizeof *s->affected);
  s->lev = ap_calloc(a, n + 1, sizeof *s->lev);
  s->trail_cap = 4 * n + 64;
  s->trail = ap_calloc(a, s->trail_cap, sizeof *s->trail);
  if (!s->min_off || !s->off || !s->floor || !s->total || !s->stamp || !s->affected || !s->lev ||
      !s->trail) {
    ex_search_destroy(s);
    return AP_ERR_NOMEM;
  }
  for (size_t i = 0; i < m->n; i++) s->off[i] = EX_NONE;
  *out = s;
  return AP_OK;
}

/* Records a value before it changes. Returns false when the trail cannot grow. */
static bool trail_push(ex_search *s, uint32_t kind, uint32_t idx, uint64_t old) {
  if (s->trail_len == s->trail_cap) {
    size_t cap, bytes;
    if (!ap_mul_size(s->trail_cap, 2, &cap) || !ap_mul_size(cap, sizeof *s->trail, &bytes))
      return false;
    ex_trail *t = ap_alloc(s->m->alloc, bytes);
    if (!t) return false;
    memcpy(t, s->trail, s->trail_len * sizeof *t);
    ap_free(s->m->alloc, s->trail);
    s->trail = t;
    s->trail_cap = cap;
  }
  s->trail[s->trail_len++] = (ex_trail){idx, kind, old};
  return true;
}

static void undo_place(ex_search *s, uint32_t b, size_t mark) {
  const ex_model *m = s->m;
  while (s->trail_len > mark) {
    ex_trail t = s->trail[--s->trail_len];
    if (t.kind == 0)
      s->min_off[t.idx] = t.old;
    else
      s->floor[t.idx] = t.old;
  }
  for (uint32_t sec = m->slo[b]; sec <= m->shi[b]; sec++) s->total[sec] += m->asize[b];
  s->off[b] = EX_NONE;
}

static uint64_t align_up_sat(uint64_t v, uint64_t align) {
  uint64_t r;
  return ap_align_up(v, align, &r) ? r : EX_NONE;
}

/* Places b at its min offset and propagates. Returns false if the result is infeasible under
 * `cap` (the caller undoes) or the trail could not grow (*nomem). */
static bool place(ex_search *s, uint32_t part, uint32_t b, uint64_t cap, bool *nomem) {
  const ex_model *m = s->m;
  uint64_t x = s->min_off[b], h = x + m->size[b]; /* h <= cap: checked by the caller */
  uint64_t ha = align_up_sat(h, m->align);
  s->off[b] = x;
  if (++s->stamp_now == 0) {
    memset(s->stamp, 0, (size_t)m->nsec * sizeof *s->stamp);
    s->stamp_now = 1;
  }
  /* Totals first: undo_place adds them back whatever point this returns from. */
  for (uint32_t sec = m->slo[b]; sec <= m->shi[b]; sec++) s->total[sec] -= m->asize[b];
  for (uint32_t sec = m->slo[b]; sec <= m->shi[b]; sec++)
    if (s->floor[sec] < h) {
      if (!trail_push(s, 1, sec, s->floor[sec])) return *nomem = true, false;
      s->floor[sec] = h;
    }
  uint32_t naff = 0;
  for (size_t k = m->adj_at[b]; k < m->adj_at[b + 1]; k++) {
    uint32_t j = m->adj[k];
    if (s->off[j] != EX_NONE || s->min_off[j] >= ha) continue;
    if (!trail_push(s, 0, j, s->min_off[j])) return *nomem = true, false;
    s->min_off[j] = ha;
    if (ha == EX_NONE || ha + m->size[j] > cap) return false; /* j can no longer fit */
    for (uint32_t sec = m->slo[j]; sec <= m->shi[j]; sec++)
      if (s->stamp[sec] != s->stamp_now) {
        s->stamp[sec] = s->stamp_now;
        s->affected[naff++] = sec;
      }
  }
  /* A section's floor is at least the lowest min offset of the requests still to place in it. */
  for (uint32_t k = 0; k < naff; k++) {
    uint32_t sec = s->affected[k];
    if (!s->total[sec]) continue;
    uint64_t lo = EX_NONE;
    for (size_t q = m->mem_at[sec]; q < m->mem_at[sec + 1]; q++) {
      uint32_t j = m->mem[q];
      if (s->off[j] == EX_NONE && s->min_off[j] < lo) lo = s->min_off[j];
    }
    if (lo != EX_NONE && s->floor[sec] < lo) {
      if (!trail_push(s, 1, sec, s->floor[sec])) return *nomem = true, false;
      s->floor[sec] = lo;
    }
  }
  /* Every section still to fill: its floor (never below x: later offsets are >= x) plus what
   * is left, minus the padding the topmost request may save, must fit. */
  for (uint32_t sec = m->part_slo[part]; sec <= m->part_shi[part]; sec++) {
    uint64_t t = s->total[sec];
    if (!t) continue;
    uint64_t f = s->floor[sec] > x ? s->floor[sec] : x;
    f = align_up_sat(f, m->align);
    uint64_t need = t > m->slack ? t - m->slack : 1;
    if (f == EX_NONE || f > cap || need > cap - f) return false;
  }
  return true;
}

static bool key_less(uint64_t ao, uint32_t ar, uint64_t bo, uint32_t br) {
  return ao < bo || (ao == bo && ar < br);
}

ex_result ex_search_decide(ex_search *s, uint32_t part, const uint32_t *rank, uint64_t cap,
                           uint64_t node_limit, ex_budget *b, uint64_t *out) {
  const ex_model *m = s->m;
  const uint32_t *buf = m->part_buf + m->part_at[part];
  uint32_t nb = m->part_at[part + 1] - m->part_at[part];
  for (uint32_t k = 0; k < nb; k++) {
    s->min_off[buf[k]] = 0;
    s->off[buf[k]] = EX_NONE;
    if (m->size[buf[k]] > cap) return EX_INFEASIBLE;
  }
  for (uint32_t sec = m->part_slo[part]; sec <= m->part_shi[part]; sec++) {
    s->floor[sec] = 0;
    s->total[sec] = m->sec_total[sec];
    uint64_t t = s->total[sec];
    if (t && (t > m->slack ? t - m->slack : 1) > cap) return EX_INFEASIBLE;
  }
  s->trail_len = 0;
  uint64_t used = 0;
  uint32_t d = 0;
  bool fresh = true;
  for (;;) {
    if (d == nb) {
      for (uint32_t k = 0; k < nb; k++) out[buf[k]] = s->off[buf[k]];
      return EX_FOUND;
    }
    ex_level *L = &s->lev[d];
    if (fresh) {
      fresh = false;
      L->tried = false;
      L->min_height = EX_NONE;
      for (uint32_t k = 0; k < nb; k++) {
        uint32_t j = buf[k];
        if (s->off[j] == EX_NONE && s->min_off[j] + m->size[j] < L->min_height)
          L->min_height = s->min_off[j] + m->size[j];
      }
    }
    /* The next candidate: the smallest (min offset, rank) above the last one tried here, or
     * above the parent's placement (canonical order). */
    bool have_lo = L->tried || d > 0;
    uint64_t lo_off = L->tried ? L->last_off : d > 0 ? s->off[s->lev[d - 1].buf] : 0;
    uint32_t lo_rank = L->tried ? L->last_rank : d > 0 ? rank[s->lev[d - 1].buf] : 0;
    uint32_t best = UINT32_MAX;
    uint64_t best_off = EX_NONE;
    uint32_t best_rank = UINT32_MAX;
    for (uint32_t k = 0; k < nb; k++) {
      uint32_t j = buf[k];
      if (s->off[j] != EX_NONE) continue;
      uint64_t o = s->min_off[j];
      uint32_t r = rank[j];
      if (have_lo && !key_less(lo_off, lo_rank, o, r)) continue;
      if (best == UINT32_MAX || key_less(o, r, best_off, best_rank)) {
        best = j;
        best_off = o;
        best_rank = r;
      }
    }
    if (best == UINT32_MAX || best_off >= L->min_height) {
      if (d == 0) return EX_INFEASIBLE;
      d--;
      undo_place(s, s->lev[d].buf, s->lev[d].trail_mark);
      continue;
    }
    L->tried = true;
    L->last_off = best_off;
    L->last_rank = best_rank;
    if (m->size[best] > cap - best_off) continue; /* best_off <= cap: min_height <= cap */
    if (++used > node_limit) return EX_ABORTED;
    b->nodes++;
    if ((b->max_nodes && b->nodes > b->max_nodes) ||
        (b->deadline > 0 && (b->nodes & 255) == 0 && ex_now() > b->deadline)) {
      b->exhausted = true;
      return EX_ABORTED;
    }
    L->buf = best;
    L->trail_mark = s->trail_len;
    bool nomem = false;
    if (place(s, part, best, cap, &nomem)) {
      d++;
      fresh = true;
    } else {
      undo_place(s, best, L->trail_mark);
      if (nomem) {
        b->exhausted = true;
        return EX_ABORTED;
      }
    }
  }
}
