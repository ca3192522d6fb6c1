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
 * - Dynamic decomposition. Once no unplaced request crosses a section boundary, each side is
 *   solved on its own (solve_split), ranked again by what is left to place in it.
 *
 * The search is iterative within a group (depth can be the number of requests; recursion only
 * at splits, at most EX_MAX_NEST deep) and undoes changes through a trail. Memory: O(requests +
 * sections) plus, along the current path, the trail and each level's sorted candidate list
 * (grown through the allocator; running out stops the search cleanly as if the budget ran
 * out). */
#include "plan/exact_model.h"

#include <stdlib.h>
#include <string.h>

#define EX_NONE UINT64_MAX

typedef struct ex_trail {
  uint32_t idx;
  uint32_t kind; /* 0: min_off[idx], 1: floor[idx] */
  uint64_t old;
} ex_trail;

typedef struct ex_level {
  uint32_t buf;        /* request placed at this depth */
  uint64_t min_height; /* lowest end any unplaced request could have */
  size_t trail_mark;
  size_t cand_at;          /* this level's candidates: cand[cand_at .. + cand_n), sorted */
  uint32_t cand_n, cand_i; /* cand_i: the next one to try */
} ex_level;

/* A candidate while sorting: (min offset, rank) is the canonical order. */
typedef struct ex_cand {
  uint64_t off;
  uint32_t rank, idx;
} ex_cand;

static int cmp_cand(const void *pa, const void *pb) {
  const ex_cand *a = pa, *b = pb;
  if (a->off != b->off) return a->off < b->off ? -1 : 1;
  return (a->rank > b->rank) - (a->rank < b->rank);
}

struct ex_search {
  const ex_model *m;
  uint64_t *min_off, *off, *floor, *total;
  uint32_t *stamp, stamp_now;
  uint32_t *affected;
  ex_level *lev;
  ex_trail *trail;
  size_t trail_len, trail_cap;
  uint32_t *cut;  /* unplaced requests crossing the boundary between sections s and s+1 */
  uint32_t depth; /* requests placed; lev[0 .. depth) say which, in order */
  /* Each section's members with the unplaced ones first: mem[mem_at[s] .. + live[s]) (a
   * sparse set; placements are undone in reverse order, so undo only moves the count).
   * pos[bm_at[b] + s - slo[b]] is b's index in section s's list. */
  uint32_t *mem, *live, *pos;
  size_t *bm_at;
  uint32_t *rank; /* the caller's ranks, re-ranked within split-off groups */
  /* Prefix and suffix maxima of total[] over sections sums_slo .. sums_shi, valid while
   * version == sums_version (every placement and undo bumps version). */
  uint64_t *pre, *suf;
  uint64_t version, sums_version;
  uint32_t sums_slo, sums_shi;
  /* The candidate lists of the levels on the current path, as a stack. */
  uint32_t *cand;
  size_t cand_len, cand_cap;
  ex_cand *sortbuf;
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
  ap_free(a, s->cut);
  ap_free(a, s->mem);
  ap_free(a, s->live);
  ap_free(a, s->pos);
  ap_free(a, s->bm_at);
  ap_free(a, s->rank);
  ap_free(a, s->pre);
  ap_free(a, s->suf);
  ap_free(a, s->cand);
  ap_free(a, s->sortbuf);
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
  s->cut = ap_calloc(a, ns, sizeof *s->cut);
  size_t nm = m->mem_at[m->nsec];
  s->mem = ap_calloc(a, nm ? nm : 1, sizeof *s->mem);
  s->pos = ap_calloc(a, nm ? nm : 1, sizeof *s->pos);
  s->live = ap_calloc(a, ns, sizeof *s->live);
  s->bm_at = ap_calloc(a, n + 1, sizeof *s->bm_at);
  s->rank = ap_calloc(a, n, sizeof *s->rank);
  s->pre = ap_calloc(a, ns, sizeof *s->pre);
  s->suf = ap_calloc(a, ns, sizeof *s->suf);
  s->sums_version = 1; /* != version: nothing computed yet */
  s->cand_cap = 4 * n + 64;
  s->cand = ap_calloc(a, s->cand_cap, sizeof *s->cand);
  s->sortbuf = ap_calloc(a, n, sizeof *s->sortbuf);
  if (!s->min_off || !s->off || !s->floor || !s->total || !s->stamp || !s->affected || !s->lev ||
      !s->trail || !s->cut || !s->mem || !s->pos || !s->live || !s->bm_at || !s->rank || !s->pre ||
      !s->suf || !s->cand || !s->sortbuf) {
    ex_search_destroy(s);
    return AP_ERR_NOMEM;
  }
  for (size_t i = 0; i < m->n; i++) {
    s->off[i] = EX_NONE;
    s->bm_at[i + 1] = s->bm_at[i] + (m->shi[i] - m->slo[i]) + 1;
  }
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
  s->version++;
  while (s->trail_len > mark) {
    ex_trail t = s->trail[--s->trail_len];
    if (t.kind == 0)
      s->min_off[t.idx] = t.old;
    else
      s->floor[t.idx] = t.old;
  }
  for (uint32_t sec = m->slo[b]; sec <= m->shi[b]; sec++) {
    s->total[sec] += m->asize[b];
    s->live[sec]++; /* b sits right after the unplaced ones: later moves were undone first */
  }
  for (uint32_t sec = m->slo[b]; sec < m->shi[b]; sec++)
    s->cut[sec]++;
  s->off[b] = EX_NONE;
}

static uint64_t align_up_sat(uint64_t v, uint64_t align) {
  uint64_t r;
  return ap_align_up(v, align, &r) ? r : EX_NONE;
}

/* Places b at its min offset and propagates. Returns false if the result is infeasible under
 * `cap` (the caller undoes) or the trail could not grow (*nomem). Sets *split when no unplaced
 * request crosses one of b's section boundaries any more. Checks sections slo .. shi. */
static bool place(ex_search *s, uint32_t slo, uint32_t shi, uint32_t b, uint64_t cap, bool *nomem,
                  bool *split) {
  const ex_model *m = s->m;
  uint64_t x = s->min_off[b], h = x + m->size[b]; /* h <= cap: checked by the caller */
  uint64_t ha = align_up_sat(h, m->align);
  s->off[b] = x;
  s->version++;
  if (++s->stamp_now == 0) {
    memset(s->stamp, 0, (size_t)m->nsec * sizeof *s->stamp);
    s->stamp_now = 1;
  }
  /* Totals first: undo_place adds them back whatever point this returns from. */
  for (uint32_t sec = m->slo[b]; sec <= m->shi[b]; sec++) {
    s->total[sec] -= m->asize[b];
    /* Move b just past the unplaced members of sec. */
    uint32_t *list = s->mem + m->mem_at[sec];
    uint32_t pb = s->pos[s->bm_at[b] + sec - m->slo[b]], last = --s->live[sec];
    uint32_t e = list[last];
    list[pb] = e;
    s->pos[s->bm_at[e] + sec - m->slo[e]] = pb;
    list[last] = b;
    s->pos[s->bm_at[b] + sec - m->slo[b]] = last;
  }
  for (uint32_t sec = m->slo[b]; sec < m->shi[b]; sec++)
    *split |= --s->cut[sec] == 0;
  for (uint32_t sec = m->slo[b]; sec <= m->shi[b]; sec++)
    if (s->floor[sec] < h) {
      if (!trail_push(s, 1, sec, s->floor[sec])) return *nomem = true, false;
      s->floor[sec] = h;
    }
  uint32_t naff = 0;
  /* b's `in` (when b is an overlap's `out`) may rest the gap above b, inside it. */
  uint32_t in = m->pin ? m->pin[b] : UINT32_MAX;
  uint64_t hin = in != UINT32_MAX && m->pgap[b] < m->size[b] ? x + m->pgap[b] : ha;
  for (size_t k = m->adj_at[b]; k < m->adj_at[b + 1]; k++) {
    uint32_t j = m->adj[k];
    uint64_t hj = j == in ? hin : ha;
    if (s->off[j] != EX_NONE || s->min_off[j] >= hj) continue;
    if (!trail_push(s, 0, j, s->min_off[j])) return *nomem = true, false;
    s->min_off[j] = hj;
    if (hj == EX_NONE || hj + m->size[j] > cap) return false; /* j can no longer fit */
    for (uint32_t sec = m->slo[j]; sec <= m->shi[j]; sec++)
      if (s->stamp[sec] != s->stamp_now) {
        s->stamp[sec] = s->stamp_now;
        s->affected[naff++] = sec;
      }
  }
  /* A section's floor is at least the lowest min offset of the requests still to place in it. */
  for (uint32_t k = 0; k < naff; k++) {
    uint32_t sec = s->affected[k];
    /* The new minimum is at most ha (the raised requests sit there), and a member at or below
     * the floor settles it: both cut the scan short. */
    if (!s->total[sec] || s->floor[sec] >= ha) continue;
    /* Nor when even a floor of ha would pass the check below: the floor is only a lower
     * bound, so skipping the raise loses no correctness, and it saves most scans. */
    uint64_t need = ex_need(m, sec, s->total[sec]);
    if (ha <= cap && need <= cap - ha) continue;
    uint64_t lo = EX_NONE;
    const uint32_t *list = s->mem + m->mem_at[sec];
    for (uint32_t q = 0; q < s->live[sec] && lo > s->floor[sec]; q++)
      if (s->min_off[list[q]] < lo) lo = s->min_off[list[q]];
    if (lo != EX_NONE && s->floor[sec] < lo) {
      if (!trail_push(s, 1, sec, s->floor[sec])) return *nomem = true, false;
      s->floor[sec] = lo;
    }
  }
  /* Every section still to fill: its floor (never below x: later offsets are >= x) plus what
   * is left, minus the padding the topmost request may save, must fit. An unplaced request
   * reaches below the floor only into its overlap's partner: ex_need allows for that. */
  for (uint32_t sec = slo; sec <= shi; sec++) {
    uint64_t t = s->total[sec];
    if (!t) continue;
    uint64_t f = s->floor[sec] > x ? s->floor[sec] : x;
    f = align_up_sat(f, m->align);
    uint64_t need = ex_need(m, sec, t);
    if (need && (f == EX_NONE || f > cap || need > cap - f)) return false;
  }
  return true;
}

/* The most bytes any section of slo .. shi would still need once b is placed (ex_need): offsets
 * never decrease, so if the candidate's offset plus that exceeds the capacity, placing b fails
 * whatever the propagation does (most failing candidates fail this way). */
static uint64_t max_total_without(ex_search *s, uint32_t b, uint32_t slo, uint32_t shi) {
  const ex_model *m = s->m;
  if (s->sums_version != s->version || s->sums_slo != slo || s->sums_shi != shi) {
    uint64_t run = 0;
    for (uint32_t sec = slo; sec <= shi; sec++)
      s->pre[sec] = run = AP_MAX(run, ex_need(m, sec, s->total[sec]));
    run = 0;
    for (uint32_t sec = shi + 1; sec-- > slo;)
      s->suf[sec] = run = AP_MAX(run, ex_need(m, sec, s->total[sec]));
    s->sums_version = s->version;
    s->sums_slo = slo;
    s->sums_shi = shi;
  }
  uint64_t t = 0;
  if (m->slo[b] > slo) t = s->pre[m->slo[b] - 1];
  if (m->shi[b] < shi) t = AP_MAX(t, s->suf[m->shi[b] + 1]);
  for (uint32_t sec = m->slo[b]; sec <= m->shi[b]; sec++)
    t = AP_MAX(t, ex_need(m, sec, s->total[sec] - m->asize[b]));
  return t;
}

static bool key_less(uint64_t ao, uint32_t ar, uint64_t bo, uint32_t br) {
  return ao < bo || (ao == bo && ar < br);
}

/* What one decision call shares across its nested groups. */
typedef struct ex_call {
  uint32_t *rank;
  const char *order;
  uint64_t cap;
  uint64_t limit, used;
  ex_budget *b;
  uint32_t nest;
} ex_call;

typedef struct ex_gkey {
  uint64_t k[3];
  uint32_t idx;
} ex_gkey;

static int cmp_gkey(const void *pa, const void *pb) {
  const ex_gkey *a = pa, *b = pb;
  for (int i = 0; i < 3; i++)
    if (a->k[i] != b->k[i]) return a->k[i] > b->k[i] ? -1 : 1; /* larger first */
  return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Nested groups beyond this are searched as one (correct, only slower). */
#define EX_MAX_NEST 200

static ex_result solve_group(ex_search *s, ex_call *c, const uint32_t *buf, uint32_t nb,
                             uint32_t slo, uint32_t shi);

/* Once no unplaced request crosses a section boundary, the requests left on either side no
 * longer interact (MiniMalloc's dynamic decomposition): each side is solved on its own, and a
 * failure on one side is not retried by re-ordering the other. */
static ex_result solve_split(ex_search *s, ex_call *c, const uint32_t *buf, uint32_t nb,
                             uint32_t slo, uint32_t shi) {
  const ex_model *m = s->m;
  uint32_t left = 0;
  for (uint32_t k = 0; k < nb; k++)
    left += s->off[buf[k]] == EX_NONE;
  uint32_t *sub = ap_calloc(m->alloc, left ? left : 1, sizeof *sub);
  uint32_t *saved = ap_calloc(m->alloc, left ? left : 1, sizeof *saved);
  ex_gkey *keys = c->order ? ap_calloc(m->alloc, left ? left : 1, sizeof *keys) : NULL;
  if (!sub || !saved || (c->order && !keys)) {
    ap_free(m->alloc, sub);
    ap_free(m->alloc, saved);
    ap_free(m->alloc, keys);
    c->b->exhausted = true;
    return EX_ABORTED;
  }
  /* Components in time order: [cs, ce] runs of sections with no zero cut inside. */
  ex_result r = EX_FOUND;
  uint32_t cs = slo;
  for (uint32_t sec = slo; sec <= shi && r == EX_FOUND; sec++) {
    if (sec < shi && s->cut[sec] != 0) continue;
    uint32_t cnt = 0;
    for (uint32_t k = 0; k < nb; k++) {
      uint32_t j = buf[k];
      if (s->off[j] == EX_NONE && m->slo[j] >= cs && m->slo[j] <= sec) sub[cnt++] = j;
    }
    if (cnt) {
      for (uint32_t k = 0; k < cnt; k++)
        saved[k] = c->rank[sub[k]];
      if (keys && cnt > 1) {
        /* Rank the group by what is left to place in it (MiniMalloc re-sorts sub-problems). */
        for (uint32_t k = 0; k < cnt; k++) {
          keys[k].idx = sub[k];
          ex_rank_keys(m, s->total, c->order, sub[k], keys[k].k);
        }
        qsort(keys, cnt, sizeof *keys, cmp_gkey);
        for (uint32_t k = 0; k < cnt; k++)
          c->rank[keys[k].idx] = k;
      }
      c->nest++;
      r = solve_group(s, c, sub, cnt, cs, sec);
      c->nest--;
      for (uint32_t k = 0; k < cnt; k++)
        c->rank[sub[k]] = saved[k];
    }
    cs = sec + 1;
  }
  ap_free(m->alloc, sub);
  ap_free(m->alloc, saved);
  ap_free(m->alloc, keys);
  return r;
}

/* Depth-first search over one group of requests that share sections slo .. shi. On EX_FOUND
 * the group's requests stay placed; otherwise everything it placed is undone (EX_ABORTED
 * leaves the state to be reset by the caller). */
/* Pushes the candidates of a new level: the unplaced requests above the previous placement in
 * canonical order and below min_height (dominance), sorted. False if the stack cannot grow. */
static bool push_candidates(ex_search *s, ex_level *L, const uint32_t *buf, uint32_t nb,
                            bool have_lo, uint64_t lo_off, uint32_t lo_rank, const uint32_t *rank) {
  const ex_model *m = s->m;
  L->min_height = EX_NONE;
  for (uint32_t k = 0; k < nb; k++) {
    uint32_t j = buf[k];
    if (s->off[j] == EX_NONE && s->min_off[j] + m->size[j] < L->min_height)
      L->min_height = s->min_off[j] + m->size[j];
  }
  uint32_t cnt = 0;
  for (uint32_t k = 0; k < nb; k++) {
    uint32_t j = buf[k];
    if (s->off[j] != EX_NONE || s->min_off[j] >= L->min_height) continue;
    if (have_lo && !key_less(lo_off, lo_rank, s->min_off[j], rank[j])) continue;
    s->sortbuf[cnt++] = (ex_cand){s->min_off[j], rank[j], j};
  }
  qsort(s->sortbuf, cnt, sizeof *s->sortbuf, cmp_cand);
  if (s->cand_cap - s->cand_len < cnt) {
    size_t cap, bytes;
    if (!ap_add_size(s->cand_len, cnt, &cap) || !ap_mul_size(cap, 2, &cap) ||
        !ap_mul_size(cap, sizeof *s->cand, &bytes))
      return false;
    uint32_t *t = ap_alloc(m->alloc, bytes);
    if (!t) return false;
    memcpy(t, s->cand, s->cand_len * sizeof *t);
    ap_free(m->alloc, s->cand);
    s->cand = t;
    s->cand_cap = cap;
  }
  L->cand_at = s->cand_len;
  L->cand_n = cnt;
  L->cand_i = 0;
  for (uint32_t k = 0; k < cnt; k++)
    s->cand[s->cand_len++] = s->sortbuf[k].idx;
  return true;
}

/* Depth-first search over one group of requests that share sections slo .. shi. On EX_FOUND
 * the group's requests stay placed; otherwise everything it placed is undone (EX_ABORTED
 * leaves the state to be reset by the caller). */
static ex_result solve_group(ex_search *s, ex_call *c, const uint32_t *buf, uint32_t nb,
                             uint32_t slo, uint32_t shi) {
  const ex_model *m = s->m;
  const uint32_t *rank = c->rank;
  uint32_t base = s->depth;
  bool fresh = true;
  for (;;) {
    uint32_t d = s->depth - base;
    if (d == nb) return EX_FOUND;
    ex_level *L = &s->lev[s->depth];
    if (fresh) {
      fresh = false;
      bool have_lo = d > 0;
      uint32_t prev = have_lo ? s->lev[s->depth - 1].buf : 0;
      if (!push_candidates(s, L, buf, nb, have_lo, have_lo ? s->off[prev] : 0,
                           have_lo ? rank[prev] : 0, rank)) {
        c->b->exhausted = true;
        return EX_ABORTED;
      }
    }
    s->cand_len = L->cand_at + L->cand_n; /* drop the lists of deeper levels */
    if (L->cand_i == L->cand_n) {
      if (d == 0) return EX_INFEASIBLE;
      s->depth--;
      undo_place(s, s->lev[s->depth].buf, s->lev[s->depth].trail_mark);
      continue;
    }
    uint32_t best = s->cand[L->cand_at + L->cand_i++];
    uint64_t best_off = s->min_off[best];
    if (m->size[best] > c->cap - best_off) continue; /* best_off < min_height <= cap */
    if (max_total_without(s, best, slo, shi) > c->cap - best_off) continue;
    if (++c->used > c->limit) return EX_ABORTED;
    ex_budget *b = c->b;
    b->nodes++;
    if ((b->max_nodes && b->nodes > b->max_nodes) ||
        (b->deadline > 0 && (b->nodes & 255) == 0 && ex_now() > b->deadline)) {
      b->exhausted = true;
      return EX_ABORTED;
    }
    L->buf = best;
    L->trail_mark = s->trail_len;
    s->depth++;
    bool nomem = false, split = false;
    if (!place(s, slo, shi, best, c->cap, &nomem, &split)) {
      s->depth--;
      undo_place(s, best, L->trail_mark);
      if (nomem) {
        b->exhausted = true;
        return EX_ABORTED;
      }
      continue;
    }
    if (split && d + 1 < nb && c->nest < EX_MAX_NEST) {
      ex_result r = solve_split(s, c, buf, nb, slo, shi);
      if (r != EX_INFEASIBLE) return r;
      while (s->depth > base + d) {
        s->depth--;
        undo_place(s, s->lev[s->depth].buf, s->lev[s->depth].trail_mark);
      }
      continue;
    }
    fresh = true;
  }
}

ex_result ex_search_decide(ex_search *s, uint32_t part, const uint32_t *rank, const char *order,
                           uint64_t cap, uint64_t node_limit, ex_budget *b, uint64_t *out) {
  const ex_model *m = s->m;
  const uint32_t *buf = m->part_buf + m->part_at[part];
  uint32_t nb = m->part_at[part + 1] - m->part_at[part];
  uint32_t slo = m->part_slo[part], shi = m->part_shi[part];
  for (uint32_t sec = slo; sec <= shi; sec++) {
    s->floor[sec] = 0;
    s->total[sec] = m->sec_total[sec];
    s->cut[sec] = 0;
    if (ex_need(m, sec, s->total[sec]) > cap) return EX_INFEASIBLE;
  }
  for (uint32_t k = 0; k < nb; k++) {
    uint32_t j = buf[k];
    s->min_off[j] = 0;
    s->off[j] = EX_NONE;
    if (m->size[j] > cap) return EX_INFEASIBLE;
    for (uint32_t sec = m->slo[j]; sec < m->shi[j]; sec++)
      s->cut[sec]++;
  }
  for (uint32_t sec = slo; sec <= shi; sec++) {
    s->live[sec] = (uint32_t)(m->mem_at[sec + 1] - m->mem_at[sec]);
    for (size_t q = m->mem_at[sec]; q < m->mem_at[sec + 1]; q++) {
      uint32_t j = m->mem[q];
      s->mem[q] = j;
      s->pos[s->bm_at[j] + sec - m->slo[j]] = (uint32_t)(q - m->mem_at[sec]);
    }
  }
  s->trail_len = 0;
  s->depth = 0;
  for (uint32_t k = 0; k < nb; k++)
    s->rank[buf[k]] = rank[buf[k]];
  ex_call c = {.rank = s->rank, .order = order, .cap = cap, .limit = node_limit, .b = b};
  ex_result r = solve_group(s, &c, buf, nb, slo, shi);
  if (r == EX_FOUND)
    for (uint32_t k = 0; k < nb; k++)
      out[buf[k]] = s->off[buf[k]];
  for (uint32_t k = 0; k < nb; k++)
    s->off[buf[k]] = EX_NONE;
  return r;
}
