/* ap_reorder: per subgraph, an order of its ops with a lower peak of live bytes (see
 * reorder.h). reorder_dag.c builds what the search needs; this file searches. */
#include "arenaplan/reorder.h"
#include "graph/reorder_internal.h"
#include "port/port.h"

#include <stdlib.h>
#include <string.h>

struct ap_reorder {
  const ap_allocator *alloc;
  ap_errbuf err;
  size_t sg_count, op_count;
  uint32_t *order;
  ap_reorder_subgraph *info;
};

static double now_ms(void) {
  return (double)ap_port_now_ns() / 1e6;
}

/* One layer of the search: sets of executed ops reached after the same number of steps. */
typedef struct layer {
  size_t n, cap, words;
  uint64_t *keys; /* n * words */
  uint64_t *hash, *f, *live;
  uint32_t *rec;      /* the record (parent, op) that reached it */
  uint32_t *ready_at; /* n + 1 offsets into ready */
  uint32_t *ready;
  size_t ready_n, ready_cap;
  uint32_t *slots; /* open-addressing table of state index + 1 */
  size_t slot_cap;
} layer;

typedef struct search {
  const rdag *d;
  const ap_allocator *a;
  layer cur, next;
  uint32_t *rec_parent, *rec_op;
  size_t rec_n, rec_cap;
  uint64_t *zob;
  uint64_t states;
  bool empty; /* expanding the empty set: unread graph inputs are freed after its step */
} search;

static void layer_free(const ap_allocator *a, layer *l) {
  ap_free(a, l->keys);
  ap_free(a, l->hash);
  ap_free(a, l->f);
  ap_free(a, l->live);
  ap_free(a, l->rec);
  ap_free(a, l->ready_at);
  ap_free(a, l->ready);
  ap_free(a, l->slots);
  memset(l, 0, sizeof *l);
}

static bool grow(const ap_allocator *a, void **p, size_t old_n, size_t new_n, size_t size) {
  void *q = ap_calloc(a, new_n, size);
  if (!q) return false;
  if (old_n) memcpy(q, *p, old_n * size);
  ap_free(a, *p);
  *p = q;
  return true;
}

static bool layer_reserve(const ap_allocator *a, layer *l, size_t n) {
  if (n <= l->cap) return true;
  size_t cap = l->cap ? l->cap : 64;
  while (cap < n)
    cap *= 2;
  if (!grow(a, (void **)&l->keys, l->n * l->words, cap * l->words, sizeof(uint64_t)) ||
      !grow(a, (void **)&l->hash, l->n, cap, sizeof(uint64_t)) ||
      !grow(a, (void **)&l->f, l->n, cap, sizeof(uint64_t)) ||
      !grow(a, (void **)&l->live, l->n, cap, sizeof(uint64_t)) ||
      !grow(a, (void **)&l->rec, l->n, cap, sizeof(uint32_t)) ||
      !grow(a, (void **)&l->ready_at, l->cap ? l->n + 1 : 0, cap + 1, sizeof(uint32_t)))
    return false;
  l->cap = cap;
  return true;
}

static bool layer_reserve_ready(const ap_allocator *a, layer *l, size_t n) {
  if (n <= l->ready_cap) return true;
  size_t cap = l->ready_cap ? l->ready_cap : 256;
  while (cap < n)
    cap *= 2;
  if (!grow(a, (void **)&l->ready, l->ready_n, cap, sizeof(uint32_t))) return false;
  l->ready_cap = cap;
  return true;
}

/* Rebuilds the hash slots for a layer about to receive up to `n` states. */
static bool layer_slots(const ap_allocator *a, layer *l, size_t n) {
  size_t cap = 64;
  while (cap < 2 * n)
    cap *= 2;
  if (cap > l->slot_cap) {
    ap_free(a, l->slots);
    l->slots = ap_calloc(a, cap, sizeof *l->slots);
    if (!l->slots) return false;
    l->slot_cap = cap;
  } else {
    memset(l->slots, 0, l->slot_cap * sizeof *l->slots);
  }
  return true;
}

static void layer_reset(layer *l) {
  l->n = 0;
  l->ready_n = 0;
  if (l->ready_at) l->ready_at[0] = 0;
}

static bool in_set(const uint64_t *key, uint32_t v) {
  return (key[v >> 6] >> (v & 63)) & 1;
}

void rdag_step(const rdag *d, const uint64_t *key, bool empty, uint64_t live, uint32_t v,
               uint64_t *mem, uint64_t *after) {
  uint64_t grow_by = 0, freed = empty ? d->unread_bytes : 0;
  for (uint32_t e = d->out_at[v]; e < d->out_at[v + 1]; e++) {
    uint32_t t = d->out[e];
    bool started = false;
    for (uint32_t p = d->prod_at[t]; p < d->prod_at[t + 1] && !started; p++)
      started = in_set(key, d->prod[p]);
    if (!started) grow_by += d->size[t];
  }
  for (uint32_t e = d->touch_at[v]; e < d->touch_at[v + 1]; e++) {
    uint32_t t = d->touch[e];
    if (d->keep[t]) continue;
    bool done = true;
    for (uint32_t p = d->use_at[t]; p < d->use_at[t + 1] && done; p++)
      done = d->use[p] == v || in_set(key, d->use[p]);
    if (done) freed += d->size[t];
  }
  *mem = live + grow_by + d->inner[v];
  *after = live + grow_by - freed;
}

/* The ops that become ready once v joins `key` (v already set in it). */
static bool newly_ready(const rdag *d, const uint64_t *key, uint32_t w) {
  if (in_set(key, w)) return false;
  for (uint32_t p = d->pred_at[w]; p < d->pred_at[w + 1]; p++)
    if (!in_set(key, d->pred[p])) return false;
  return true;
}

static ap_status add_record(search *s, uint32_t parent, uint32_t op, uint32_t *idx) {
  if (s->rec_n == s->rec_cap) {
    size_t cap = s->rec_cap ? s->rec_cap * 2 : 1024;
    if (cap > UINT32_MAX || !grow(s->a, (void **)&s->rec_parent, s->rec_n, cap, 4) ||
        !grow(s->a, (void **)&s->rec_op, s->rec_n, cap, 4))
      return AP_ERR_NOMEM;
    s->rec_cap = cap;
  }
  s->rec_parent[s->rec_n] = parent;
  s->rec_op[s->rec_n] = op;
  *idx = (uint32_t)s->rec_n++;
  return AP_OK;
}

/* Expands state i of cur by op v into next (or improves the set already there). */
static ap_status expand(search *s, size_t i, uint32_t v, uint64_t ub, uint64_t *tmp) {
  const rdag *d = s->d;
  layer *c = &s->cur, *nx = &s->next;
  size_t W = c->words;
  const uint64_t *key = c->keys + i * W;
  uint64_t mem, after;
  rdag_step(d, key, s->empty, c->live[i], v, &mem, &after);
  uint64_t f = AP_MAX(c->f[i], mem);
  if (f >= ub) return AP_OK;
  uint64_t h = c->hash[i] ^ s->zob[v];
  memcpy(tmp, key, W * sizeof *tmp);
  tmp[v >> 6] |= (uint64_t)1 << (v & 63);
  size_t mask = nx->slot_cap - 1;
  for (size_t p = h & mask;; p = (p + 1) & mask) {
    uint32_t at = nx->slots[p];
    if (!at) {
      if (!layer_reserve(s->a, nx, nx->n + 1)) return AP_ERR_NOMEM;
      size_t j = nx->n++;
      nx->slots[p] = (uint32_t)(j + 1);
      memcpy(nx->keys + j * W, tmp, W * sizeof *tmp);
      nx->hash[j] = h;
      nx->f[j] = f;
      nx->live[j] = after;
      nx->rec[j] = (uint32_t)i; /* the parent's index in cur until the layer's records exist */
      s->states++;
      /* ready: cur's ready list without v, plus v's successors now free */
      uint32_t ra = c->ready_at[i], rb = c->ready_at[i + 1];
      size_t need = nx->ready_n + (rb - ra) + (d->succ_at[v + 1] - d->succ_at[v]);
      if (!layer_reserve_ready(s->a, nx, need)) return AP_ERR_NOMEM;
      for (uint32_t r = ra; r < rb; r++)
        if (c->ready[r] != v) nx->ready[nx->ready_n++] = c->ready[r];
      for (uint32_t e = d->succ_at[v]; e < d->succ_at[v + 1]; e++) {
        uint32_t w = d->succ[e];
        bool dup = false;
        for (size_t r = nx->ready_at[j]; r < nx->ready_n && !dup; r++)
          dup = nx->ready[r] == w;
        if (!dup && newly_ready(d, tmp, w)) nx->ready[nx->ready_n++] = w;
      }
      nx->ready_at[j + 1] = (uint32_t)nx->ready_n;
      return AP_OK;
    }
    size_t j = at - 1;
    if (nx->hash[j] == h && memcmp(nx->keys + j * W, tmp, W * sizeof *tmp) == 0) {
      if (f < nx->f[j]) {
        nx->f[j] = f;
        nx->rec[j] = (uint32_t)i;
      }
      return AP_OK;
    }
  }
}

typedef struct rank {
  uint64_t f, live;
  uint32_t idx;
} rank;

static int rank_cmp(const void *pa, const void *pb) {
  const rank *a = pa, *b = pb;
  if (a->f != b->f) return a->f < b->f ? -1 : 1;
  if (a->live != b->live) return a->live < b->live ? -1 : 1;
  return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Keeps the `width` best states of next (compacting it in place, order kept by rank). */
static ap_status truncate_layer(search *s, size_t width) {
  layer *l = &s->next;
  size_t n = l->n, W = l->words;
  rank *r = ap_calloc(s->a, n, sizeof *r);
  layer k = {.words = W};
  if (!r || !layer_reserve(s->a, &k, width) || !layer_reserve_ready(s->a, &k, l->ready_n)) {
    ap_free(s->a, r);
    layer_free(s->a, &k);
    return AP_ERR_NOMEM;
  }
  for (size_t i = 0; i < n; i++)
    r[i] = (rank){l->f[i], l->live[i], (uint32_t)i};
  qsort(r, n, sizeof *r, rank_cmp);
  k.ready_at[0] = 0;
  for (size_t q = 0; q < width; q++) {
    size_t i = r[q].idx;
    memcpy(k.keys + q * W, l->keys + i * W, W * sizeof(uint64_t));
    k.hash[q] = l->hash[i];
    k.f[q] = l->f[i];
    k.live[q] = l->live[i];
    k.rec[q] = l->rec[i];
    for (uint32_t e = l->ready_at[i]; e < l->ready_at[i + 1]; e++)
      k.ready[k.ready_n++] = l->ready[e];
    k.ready_at[q + 1] = (uint32_t)k.ready_n;
  }
  k.n = width;
  k.slots = l->slots;
  k.slot_cap = l->slot_cap;
  l->slots = NULL;
  ap_free(s->a, r);
  layer_free(s->a, l);
  *l = k;
  return AP_OK;
}

/* The op that differs between a child key and its parent's. */
static uint32_t added_op(const uint64_t *child, const uint64_t *parent, size_t W) {
  for (size_t w = 0; w < W; w++) {
    uint64_t x = child[w] ^ parent[w];
    if (x) return (uint32_t)(w * 64 + (size_t)__builtin_ctzll(x));
  }
  return 0;
}

/* The stored order's peak. */
static uint64_t stored_peak(const rdag *d, uint64_t *key) {
  size_t W = (d->n + 63) / 64;
  memset(key, 0, W * sizeof *key);
  uint64_t live = d->live0, peak = 0;
  for (uint32_t v = 0; v < d->n; v++) {
    uint64_t mem, after;
    rdag_step(d, key, v == 0, live, v, &mem, &after);
    peak = AP_MAX(peak, mem);
    live = after;
    key[v >> 6] |= (uint64_t)1 << (v & 63);
  }
  return peak;
}

/* One beam search of the given width with ub as the peak to beat. Sets *found (and order,
 * *peak) when a full order stays below ub; *truncated when a layer was cut to the width
 * (otherwise the search was exact); AP_ERR_TIMEOUT past the deadline (0: none). */
typedef struct run_out {
  bool found, truncated;
  uint64_t peak;
  uint64_t bound; /* no order's peak is lower (0: not known) */
} run_out;

/* A layer holding every set of its size that stays below ub bounds the optimum: each order
 * passes through one of them, so its peak is at least that set's best prefix peak and at least
 * what every op still to run touches. */
static uint64_t layer_bound(const rdag *d, const layer *l, uint64_t ub) {
  uint64_t bound = ub;
  for (size_t j = 0; j < l->n; j++) {
    uint64_t b = l->f[j];
    const uint64_t *key = l->keys + j * l->words;
    for (uint32_t v = 0; v < d->n && b < bound; v++)
      if (!in_set(key, v) && d->base[v] > b) b = d->base[v];
    if (b < bound) bound = b;
  }
  return bound;
}

static ap_status run_search(search *s, uint64_t ub, size_t width, double deadline, uint32_t *order,
                            run_out *ro) {
  const rdag *d = s->d;
  size_t n = d->n, W = (n + 63) / 64;
  memset(ro, 0, sizeof *ro);
  uint64_t *tmp = ap_calloc(s->a, W, sizeof *tmp);
  s->zob = ap_calloc(s->a, n, sizeof *s->zob);
  s->cur.words = s->next.words = W;
  ap_status st = AP_ERR_NOMEM;
  if (!tmp || !s->zob || !layer_reserve(s->a, &s->cur, 1)) goto done;
  uint64_t x = 0;
  for (size_t v = 0; v < n; v++) { /* splitmix64: deterministic keys for the hash */
    uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    s->zob[v] = z ^ (z >> 31);
  }
  /* the empty set */
  layer *c = &s->cur;
  memset(c->keys, 0, W * sizeof(uint64_t));
  c->n = 1;
  c->hash[0] = 0;
  c->f[0] = 0;
  c->live[0] = d->live0;
  c->ready_at[0] = 0;
  if (!layer_reserve_ready(s->a, c, n)) goto done;
  for (uint32_t v = 0; v < n; v++)
    if (d->pred_at[v] == d->pred_at[v + 1]) c->ready[c->ready_n++] = v;
  c->ready_at[1] = (uint32_t)c->ready_n;
  uint32_t root;
  if (add_record(s, UINT32_MAX, UINT32_MAX, &root)) goto done;
  c->rec[0] = root;
  s->empty = true;
  for (size_t depth = 0; depth < n; depth++) {
    if (deadline > 0 && now_ms() > deadline) { /* per step: a wide layer's can be long */
      st = AP_ERR_TIMEOUT;
      goto done;
    }
    layer_reset(&s->next);
    size_t expansions = 0;
    for (size_t i = 0; i < c->n; i++)
      expansions += c->ready_at[i + 1] - c->ready_at[i];
    if (!layer_reserve(s->a, &s->next, 1) || !layer_slots(s->a, &s->next, expansions)) goto done;
    s->next.ready_at[0] = 0;
    for (size_t i = 0; i < c->n; i++)
      for (uint32_t r = c->ready_at[i]; r < c->ready_at[i + 1]; r++)
        if (expand(s, i, c->ready[r], ub, tmp)) goto done;
    s->empty = false;
    if (s->next.n == 0) { /* no order stays below ub */
      st = AP_OK;
      goto done;
    }
    if (s->next.n > width) {
      if (!ro->truncated) ro->bound = layer_bound(d, &s->next, ub);
      ro->truncated = true;
      if (truncate_layer(s, width)) goto done;
    }
    /* records: parent record and the op that was added */
    for (size_t j = 0; j < s->next.n; j++) {
      uint32_t pi = s->next.rec[j];
      uint32_t op = added_op(s->next.keys + j * W, c->keys + (size_t)pi * W, W);
      if (add_record(s, c->rec[pi], op, &s->next.rec[j])) goto done;
    }
    layer t = s->cur;
    s->cur = s->next;
    s->next = t;
    c = &s->cur;
  }
  /* the one full set, its peak below ub */
  uint32_t r = c->rec[0];
  for (size_t k = n; k-- > 0;) {
    order[k] = s->rec_op[r];
    r = s->rec_parent[r];
  }
  ro->found = true;
  ro->peak = c->f[0];
  st = AP_OK;
done:
  ap_free(s->a, tmp);
  return st;
}

static void search_free(search *s) {
  layer_free(s->a, &s->cur);
  layer_free(s->a, &s->next);
  ap_free(s->a, s->rec_parent);
  ap_free(s->a, s->rec_op);
  ap_free(s->a, s->zob);
}

/* Orders the local improvement may evaluate after a heuristic search (each costs one pass over
 * the ops). */
#define LOCAL_EVALS 20000

/* Beam searches of growing width (16, 64, 256, ...) while the budget lasts: the first one that
 * never cuts a layer is exact and ends it; otherwise the best order found stands. */
static ap_status reorder_subgraph(ap_reorder *r, const rdag *d, const ap_reorder_options *o,
                                  uint32_t *order, ap_reorder_subgraph *info) {
  double t0 = now_ms(), deadline = t0 + o->budget_seconds * 1e3;
  info->ops = d->n;
  for (uint32_t v = 0; v < d->n; v++)
    order[v] = v;
  uint64_t *key = ap_calloc(r->alloc, (d->n + 63) / 64 + 1, sizeof *key);
  uint32_t *cand = ap_calloc(r->alloc, d->n ? d->n : 1, sizeof *cand);
  if (!key || !cand) {
    ap_free(r->alloc, key);
    ap_free(r->alloc, cand);
    return ap_fail(&r->err, AP_ERR_NOMEM, "out of memory");
  }
  info->peak_before = info->peak_after = stored_peak(d, key);
  ap_free(r->alloc, key);
  info->floor = d->floor;
  info->exact = true;
  ap_status st = AP_OK;
  if (d->n > 1 && info->peak_before > d->floor) {
    info->exact = false;
    size_t first = AP_MIN((size_t)16, o->beam_width);
    for (size_t width = first;; width *= 4) {
      width = AP_MIN(width, o->beam_width);
      search s = {.d = d, .a = r->alloc};
      double started = now_ms();
      run_out ro;
      /* The narrowest search always runs to its end: its result does not depend on the
       * machine's speed. The budget decides only how far the width grows. */
      st = run_search(&s, info->peak_after, width, width == first ? 0 : deadline, cand, &ro);
      info->states += s.states;
      search_free(&s);
      if (st == AP_ERR_TIMEOUT) {
        info->floor = AP_MAX(info->floor, ro.bound);
        st = AP_OK;
        break;
      }
      if (st) {
        ap_free(r->alloc, cand);
        return ap_fail(&r->err, st, "out of memory searching %u ops", d->n);
      }
      if (ro.found) {
        memcpy(order, cand, d->n * sizeof *order);
        info->peak_after = ro.peak;
        info->changed = true;
      }
      if (!ro.truncated) {
        info->exact = true;
        break;
      }
      info->floor = AP_MAX(info->floor, ro.bound);
      if (info->floor >= info->peak_after) { /* the bound meets the best order found */
        info->exact = true;
        break;
      }
      /* the next width costs about four times this one */
      double took = now_ms() - started;
      if (width >= o->beam_width || now_ms() + 4 * took > deadline) break;
    }
  }
  ap_free(r->alloc, cand);
  if (!st && !info->exact && info->peak_after > info->floor) {
    uint64_t peak = info->peak_after;
    uint32_t *kept = ap_calloc(r->alloc, d->n, sizeof *kept);
    if (!kept) return ap_fail(&r->err, AP_ERR_NOMEM, "out of memory");
    memcpy(kept, order, d->n * sizeof *kept);
    st = reorder_local(d, r->alloc, LOCAL_EVALS, order, &peak);
    if (st) {
      ap_free(r->alloc, kept);
      return ap_fail(&r->err, st, "out of memory improving the order of %u ops", d->n);
    }
    if (peak < info->peak_after) {
      info->peak_after = peak;
      info->changed = true;
    } else { /* a move that only thinned the peak is no change worth reporting */
      memcpy(order, kept, d->n * sizeof *order);
    }
    ap_free(r->alloc, kept);
    if (info->floor >= info->peak_after) info->exact = true;
  }
  if (info->exact) info->floor = info->peak_after;
  info->ms = now_ms() - t0;
  return AP_OK;
}

ap_status ap_reorder_create(const ap_model *m, const ap_reorder_options *opt, const ap_allocator *a,
                            ap_reorder **out) {
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  if (!m) return AP_ERR_ARG;
  a = ap_alloc_or_default(a);
  ap_reorder *r = ap_calloc(a, 1, sizeof *r);
  if (!r) return AP_ERR_NOMEM;
  *out = r;
  r->alloc = a;
  ap_reorder_options o = opt ? *opt : (ap_reorder_options){0};
  if (!o.alignment) o.alignment = 16;
  if (!o.beam_width) o.beam_width = 4096;
  if (!(o.budget_seconds > 0)) o.budget_seconds = 2;
  ap_graph *g = NULL;
  ap_status st = ap_graph_create(m, &(ap_graph_options){.rules = AP_RULES_ARENAPLAN}, a, &g);
  if (st) {
    ap_fail(&r->err, st, "%s", g ? ap_graph_error(g) : "out of memory");
    ap_graph_destroy(g);
    return st;
  }
  r->sg_count = g->sg_count;
  r->op_count = g->op_base[g->sg_count];
  r->order = ap_calloc(a, r->op_count ? r->op_count : 1, sizeof *r->order);
  r->info = ap_calloc(a, r->sg_count ? r->sg_count : 1, sizeof *r->info);
  if (!r->order || !r->info) st = ap_fail(&r->err, AP_ERR_NOMEM, "out of memory");
  for (size_t sg = 0; sg < r->sg_count && !st; sg++) {
    rdag d;
    st = rdag_build(g, sg, o.alignment, a, &d, &r->err);
    if (!st) st = reorder_subgraph(r, &d, &o, r->order + g->op_base[sg], &r->info[sg]);
    rdag_free(&d, a);
  }
  ap_graph_destroy(g);
  return st;
}

void ap_reorder_destroy(ap_reorder *r) {
  if (!r) return;
  ap_free(r->alloc, r->order);
  ap_free(r->alloc, r->info);
  ap_free(r->alloc, r);
}

const char *ap_reorder_error(const ap_reorder *r) {
  return r ? r->err.msg : "no reorder (out of memory or a NULL argument)";
}

size_t ap_reorder_subgraph_count(const ap_reorder *r) {
  return r ? r->sg_count : 0;
}

ap_status ap_reorder_subgraph_info(const ap_reorder *r, size_t sg, ap_reorder_subgraph *out) {
  if (!r || !out) return AP_ERR_ARG;
  if (sg >= r->sg_count) return AP_ERR_RANGE;
  *out = r->info[sg];
  return AP_OK;
}

const uint32_t *ap_reorder_order(const ap_reorder *r, size_t *count) {
  if (count) *count = r ? r->op_count : 0;
  return r ? r->order : NULL;
}

bool ap_reorder_changed(const ap_reorder *r) {
  for (size_t sg = 0; r && sg < r->sg_count; sg++)
    if (r->info[sg].changed) return true;
  return false;
}

const char *ap_reorder_method(const ap_reorder *r) {
  for (size_t sg = 0; r && sg < r->sg_count; sg++)
    if (!r->info[sg].exact) return "heuristic";
  return "exact";
}
