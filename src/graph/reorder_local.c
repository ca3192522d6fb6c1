/* Local improvement of an op order, after a beam search that had to cut its layers: the beam
 * keeps the sets of lowest prefix peak, so a choice that costs nothing early but blocks a
 * cheaper step later is lost. Here single ops move across the peak step: an op run after the
 * peak (one that frees bytes) moves before it, an op run before it (whose outputs wait past
 * the peak) moves after it; each right beside the peak step or as far across it as its
 * dependencies allow. A move stays when it lowers the peak, or
 * keeps it and leaves fewer steps at it. Deterministic: a fixed number of evaluations bounds
 * the work, never the clock. */
#include "graph/reorder_internal.h"

#include <string.h>

typedef struct local {
  const rdag *d;
  uint32_t *order, *trial, *pos;
  uint64_t *key;
  size_t words;
  uint64_t evals, max_evals;
} local;

/* Peak of `order`, how many steps reach it and the first of them. */
static uint64_t evaluate(local *l, const uint32_t *order, size_t *at_peak, size_t *first_peak) {
  const rdag *d = l->d;
  memset(l->key, 0, l->words * sizeof *l->key);
  uint64_t live = d->live0, peak = 0;
  *at_peak = 0;
  *first_peak = 0;
  for (size_t i = 0; i < d->n; i++) {
    uint32_t v = order[i];
    uint64_t mem;
    rdag_step(d, l->key, i == 0, live, v, &mem, &live);
    if (mem > peak) {
      peak = mem;
      *at_peak = 0;
      *first_peak = i;
    }
    if (mem == peak) ++*at_peak;
    l->key[v >> 6] |= (uint64_t)1 << (v & 63);
  }
  l->evals++;
  return peak;
}

/* Moves the op at position `from` to position `to` in trial (a copy of order). */
static void move_op(local *l, size_t from, size_t to) {
  uint32_t *t = l->trial;
  memcpy(t, l->order, l->d->n * sizeof *t);
  uint32_t v = t[from];
  if (from < to)
    memmove(t + from, t + from + 1, (to - from) * sizeof *t);
  else
    memmove(t + to + 1, t + to, (from - to) * sizeof *t);
  t[to] = v;
}

/* The range of positions op v may take: after its last predecessor, before its first
 * successor. */
static void window(const local *l, uint32_t v, size_t *lo, size_t *hi) {
  const rdag *d = l->d;
  size_t a = 0, b = d->n - 1;
  for (uint32_t e = d->pred_at[v]; e < d->pred_at[v + 1]; e++)
    if (l->pos[d->pred[e]] + 1 > a) a = l->pos[d->pred[e]] + 1;
  for (uint32_t e = d->succ_at[v]; e < d->succ_at[v + 1]; e++)
    if (l->pos[d->succ[e]] < b + 1) b = l->pos[d->succ[e]] - 1;
  *lo = a;
  *hi = b;
}

ap_status reorder_local(const rdag *d, const ap_allocator *a, uint64_t max_evals, uint32_t *order,
                        uint64_t *peak) {
  if (d->n < 3) return AP_OK;
  local l = {.d = d, .order = order, .words = ((size_t)d->n + 63) / 64, .max_evals = max_evals};
  l.trial = ap_calloc(a, d->n, sizeof *l.trial);
  l.pos = ap_calloc(a, d->n, sizeof *l.pos);
  l.key = ap_calloc(a, l.words, sizeof *l.key);
  ap_status st = AP_ERR_NOMEM;
  if (!l.trial || !l.pos || !l.key) goto done;
  st = AP_OK;
  size_t count, p;
  uint64_t best = evaluate(&l, order, &count, &p);
  bool improved = true;
  while (improved && l.evals < l.max_evals) {
    improved = false;
    for (size_t i = 0; i < d->n; i++)
      l.pos[order[i]] = (uint32_t)i;
    /* Ops after the peak moved to just before it, ops before it to just after it. */
    for (size_t q = 0; q < d->n && !improved && l.evals < l.max_evals; q++) {
      if (q == p) continue;
      size_t lo, hi;
      window(&l, order[q], &lo, &hi);
      /* Right beside the peak step, or as far across it as the dependencies allow. */
      size_t tos[2] = {p, q > p ? lo : hi};
      for (int k = 0; k < 2 && !improved && l.evals < l.max_evals; k++) {
        size_t to = tos[k];
        if (to < lo || to > hi || (k == 1 && to == p) || (q > p ? to > p : to < p)) continue;
        move_op(&l, q, to);
        size_t c2, p2;
        uint64_t v = evaluate(&l, l.trial, &c2, &p2);
        if (v < best || (v == best && c2 < count)) {
          memcpy(order, l.trial, d->n * sizeof *order);
          best = v;
          count = c2;
          p = p2;
          improved = true;
        }
      }
    }
  }
  *peak = best;
done:
  ap_free(a, l.trial);
  ap_free(a, l.pos);
  ap_free(a, l.key);
  return st;
}
