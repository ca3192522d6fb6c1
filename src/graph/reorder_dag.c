/* Builds the reorder search's view of one subgraph (reorder_internal.h) from the graph's
 * lifetimes under arenaplan's rules. */
#include "graph/reorder_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct pairs {
  uint32_t (*v)[2];
  size_t n, cap;
} pairs;

static bool pairs_add(const ap_allocator *a, pairs *p, uint32_t x, uint32_t y) {
  if (p->n == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 256;
    uint32_t(*q)[2] = ap_calloc(a, cap, sizeof *q);
    if (!q) return false;
    if (p->n) memcpy(q, p->v, p->n * sizeof *q);
    ap_free(a, p->v);
    p->v = q;
    p->cap = cap;
  }
  p->v[p->n][0] = x;
  p->v[p->n][1] = y;
  p->n++;
  return true;
}

static int pair_cmp(const void *pa, const void *pb) {
  const uint32_t *a = pa, *b = pb;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* CSR of the distinct pairs (x, y) grouped by x (0 .. rows-1); flip groups by y instead. */
static bool csr(const ap_allocator *a, pairs *p, uint32_t rows, bool flip, uint32_t **at,
                uint32_t **items) {
  if (flip)
    for (size_t i = 0; i < p->n; i++) {
      uint32_t t = p->v[i][0];
      p->v[i][0] = p->v[i][1];
      p->v[i][1] = t;
    }
  if (p->n) qsort(p->v, p->n, sizeof *p->v, pair_cmp);
  *at = ap_calloc(a, (size_t)rows + 1, sizeof **at);
  *items = ap_calloc(a, p->n ? p->n : 1, sizeof **items);
  if (!*at || !*items) return false;
  size_t k = 0;
  for (size_t i = 0; i < p->n; i++) {
    if (i && p->v[i][0] == p->v[i - 1][0] && p->v[i][1] == p->v[i - 1][1]) continue;
    (*items)[k++] = p->v[i][1];
    (*at)[p->v[i][0] + 1]++;
  }
  for (uint32_t r = 0; r < rows; r++)
    (*at)[r + 1] += (*at)[r];
  if (flip) /* restore for a second use */
    for (size_t i = 0; i < p->n; i++) {
      uint32_t t = p->v[i][0];
      p->v[i][0] = p->v[i][1];
      p->v[i][1] = t;
    }
  return true;
}

/* Ops whose effects are not visible as tensors keep their relative order. */
static bool pinned(ap_graph *g, size_t sg, uint32_t k, const ap_op_info *op) {
  if (op->custom) return true;
  const char *name = ap_builtin_name(op->builtin);
  if (!strcmp(name, "VAR_HANDLE") || !strcmp(name, "READ_VARIABLE") ||
      !strcmp(name, "ASSIGN_VARIABLE") || !strcmp(name, "CALL_ONCE") || !strcmp(name, "WHILE") ||
      !strcmp(name, "IF"))
    return true;
  int32_t called[2];
  size_t nc = 0;
  if (graph_called_subgraphs(g, sg, k, called, &nc) != AP_OK || nc) return true;
  for (int io = 0; io < 2; io++) {
    ap_ivec v = io ? op->outputs : op->inputs;
    for (size_t i = 0; i < v.n; i++) {
      if (v.v[i] < 0) continue;
      ap_tensor_info ti;
      if (ap_model_tensor(g->model, sg, (size_t)v.v[i], &ti) != AP_OK) return true;
      if (ti.is_variable || ti.type == AP_RESOURCE || ti.type == AP_VARIANT) return true;
    }
  }
  return false;
}

/* Per step, the bytes of planned tensors of subgraphs other than sg live then. */
static ap_status other_bytes(const ap_graph *g, size_t sg, uint64_t align, const ap_allocator *a,
                             uint64_t **out) {
  size_t ns = g->step_count;
  uint64_t *diff = ap_calloc(a, ns + 1, sizeof *diff);
  if (!diff) return AP_ERR_NOMEM;
  for (size_t s = 0; s < g->sg_count; s++) {
    if (s == sg) continue;
    for (size_t i = g->tensor_base[s]; i < g->tensor_base[s + 1]; i++) {
      const ap_lifetime *l = &g->life[i];
      uint64_t b;
      if (!l->planned || l->first < 0 || !ap_align_up(l->bytes, align, &b)) continue;
      diff[l->first] += b;
      diff[l->last + 1] -= b;
    }
  }
  for (size_t s = 1; s <= ns; s++)
    diff[s] += diff[s - 1];
  *out = diff;
  return AP_OK;
}

void rdag_free(rdag *d, const ap_allocator *a) {
  ap_free(a, d->pred_at);
  ap_free(a, d->pred);
  ap_free(a, d->succ_at);
  ap_free(a, d->succ);
  ap_free(a, d->out_at);
  ap_free(a, d->out);
  ap_free(a, d->touch_at);
  ap_free(a, d->touch);
  ap_free(a, d->size);
  ap_free(a, d->keep);
  ap_free(a, d->prod_at);
  ap_free(a, d->prod);
  ap_free(a, d->use_at);
  ap_free(a, d->use);
  ap_free(a, d->inner);
  ap_free(a, d->base);
  memset(d, 0, sizeof *d);
}

typedef struct touch_rec {
  uint32_t tensor, op;
  uint8_t write;
} touch_rec;

static int touch_cmp(const void *pa, const void *pb) {
  const touch_rec *a = pa, *b = pb;
  if (a->tensor != b->tensor) return a->tensor < b->tensor ? -1 : 1;
  if (a->op != b->op) return a->op < b->op ? -1 : 1;
  return (int)a->write - (int)b->write; /* an op's read of a tensor before its write */
}

/* Dependencies through tensors, in stored order: a read after the last write; a write after
 * the last write and every read since. */
static bool tensor_deps(const ap_allocator *a, touch_rec *r, size_t n, pairs *dep) {
  if (n) qsort(r, n, sizeof *r, touch_cmp);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && r[j].tensor == r[i].tensor)
      j++;
    uint32_t writer = UINT32_MAX;
    size_t since = i; /* first read after the last write */
    for (size_t k = i; k < j; k++) {
      uint32_t op = r[k].op;
      if (writer != UINT32_MAX && writer != op && !pairs_add(a, dep, writer, op)) return false;
      if (r[k].write) {
        for (size_t q = since; q < k; q++)
          if (!r[q].write && r[q].op != op && !pairs_add(a, dep, r[q].op, op)) return false;
        writer = op;
        since = k + 1;
      }
    }
    i = j;
  }
  return true;
}

ap_status rdag_build(const ap_graph *gc, size_t sg, uint64_t align, const ap_allocator *a, rdag *d,
                     ap_errbuf *err) {
  ap_graph *g = (ap_graph *)gc; /* graph_called_subgraphs may write its message */
  memset(d, 0, sizeof *d);
  const ap_model *m = g->model;
  size_t n = ap_model_op_count(m, sg), nt = ap_model_tensor_count(m, sg);
  if (n >= UINT32_MAX / 2 || nt >= UINT32_MAX / 2)
    return ap_fail(err, AP_ERR_UNSUPPORTED, "subgraph %zu: too many ops or tensors", sg);
  d->n = (uint32_t)n;
  /* Is sg run by a control-flow op? Then its inputs and outputs live over the whole call. */
  bool called = false;
  for (size_t s = 0; s < g->sg_count && !called; s++)
    for (size_t k = 0; k < ap_model_op_count(m, s) && !called; k++) {
      int32_t c[2];
      size_t nc = 0;
      if (graph_called_subgraphs(g, s, k, c, &nc) == AP_OK)
        for (size_t i = 0; i < nc; i++)
          called = called || (size_t)c[i] == sg;
    }
  uint32_t *local = ap_calloc(a, nt ? nt : 1, sizeof *local); /* tensor -> local + 1 */
  bool *always = NULL;
  pairs dep = {0}, outs = {0}, touch = {0};
  touch_rec *tr = NULL;
  size_t tr_n = 0, tr_cap = 0;
  uint64_t *other = NULL;
  ap_status st = AP_OK;
  if (!local) goto nomem;
  ap_ivec gin = ap_model_subgraph_inputs(m, sg), gout = ap_model_subgraph_outputs(m, sg);
  for (size_t t = 0; t < nt; t++)
    if (g->life[g->tensor_base[sg] + t].planned) local[t] = ++d->t;
  d->size = ap_calloc(a, d->t ? d->t : 1, sizeof *d->size);
  d->keep = ap_calloc(a, d->t ? d->t : 1, 1);
  d->inner = ap_calloc(a, n ? n : 1, sizeof *d->inner);
  d->base = ap_calloc(a, n ? n : 1, sizeof *d->base);
  always = ap_calloc(a, d->t ? d->t : 1, sizeof *always);
  if (!d->size || !d->keep || !d->inner || !d->base || !always) goto nomem;
  for (size_t t = 0; t < nt && !st; t++)
    if (local[t] &&
        !ap_align_up(g->life[g->tensor_base[sg] + t].bytes, align, &d->size[local[t] - 1]))
      st = ap_fail(err, AP_ERR_OVERFLOW, "subgraph %zu tensor %zu: size overflows", sg, t);
  for (int io = 0; io < 2; io++) {
    ap_ivec v = io ? gout : gin;
    for (size_t i = 0; i < v.n; i++) {
      if (v.v[i] < 0 || (size_t)v.v[i] >= nt || !local[v.v[i]]) continue;
      uint32_t lt = local[v.v[i]] - 1;
      if (io || called) d->keep[lt] = 1;
      if (called) always[lt] = true;
    }
  }
  uint32_t prev_pinned = UINT32_MAX;
  for (uint32_t k = 0; k < n && !st; k++) {
    ap_op_info op;
    if ((st = ap_model_op(m, sg, k, &op))) {
      ap_fail(err, st, "%s", ap_model_error(m));
      break;
    }
    if (pinned(g, sg, k, &op)) {
      if (prev_pinned != UINT32_MAX && !pairs_add(a, &dep, prev_pinned, k)) goto nomem;
      prev_pinned = k;
    }
    for (int io = 0; io < 2; io++) {
      ap_ivec v = io ? op.outputs : op.inputs;
      for (size_t i = 0; i < v.n; i++) {
        int32_t t = v.v[i];
        if (t < 0) continue;
        if (tr_n == tr_cap) {
          size_t cap = tr_cap ? tr_cap * 2 : 256;
          touch_rec *q = ap_calloc(a, cap, sizeof *q);
          if (!q) goto nomem;
          if (tr_n) memcpy(q, tr, tr_n * sizeof *q);
          ap_free(a, tr);
          tr = q;
          tr_cap = cap;
        }
        tr[tr_n++] = (touch_rec){(uint32_t)t, k, (uint8_t)io};
        if (!local[t]) continue;
        uint32_t lt = local[t] - 1;
        if (!pairs_add(a, &touch, k, lt)) goto nomem;
        if (io && !always[lt] && !pairs_add(a, &outs, k, lt)) goto nomem;
      }
    }
  }
  if (st) goto done;
  if (!tensor_deps(a, tr, tr_n, &dep) || !csr(a, &dep, d->n, false, &d->succ_at, &d->succ) ||
      !csr(a, &dep, d->n, true, &d->pred_at, &d->pred) ||
      !csr(a, &outs, d->n, false, &d->out_at, &d->out) ||
      !csr(a, &outs, d->t, true, &d->prod_at, &d->prod) ||
      !csr(a, &touch, d->n, false, &d->touch_at, &d->touch) ||
      !csr(a, &touch, d->t, true, &d->use_at, &d->use))
    goto nomem;
  /* What is live before the first op: tensors nobody in this subgraph writes. */
  uint64_t always_bytes = 0;
  for (uint32_t t = 0; t < d->t; t++) {
    if (d->prod_at[t] != d->prod_at[t + 1]) continue;
    d->live0 += d->size[t];
    if (d->keep[t])
      always_bytes += d->size[t];
    else if (d->use_at[t] == d->use_at[t + 1])
      d->unread_bytes += d->size[t];
  }
  /* A control-flow op's step holds what its called subgraphs hold. */
  if ((st = other_bytes(g, sg, align, a, &other))) goto nomem;
  for (uint32_t k = 0; k < n; k++) {
    int32_t first = g->op_first[g->op_base[sg] + k], last = g->op_last[g->op_base[sg] + k];
    for (int32_t s = first; s >= 0 && s <= last; s++)
      d->inner[k] = AP_MAX(d->inner[k], other[s]);
    uint64_t touched = always_bytes;
    for (uint32_t e = d->touch_at[k]; e < d->touch_at[k + 1]; e++) {
      uint32_t t = d->touch[e];
      if (!(d->keep[t] && d->prod_at[t] == d->prod_at[t + 1])) touched += d->size[t];
    }
    d->base[k] = touched + d->inner[k];
    d->floor = AP_MAX(d->floor, d->base[k]);
  }
  if (n == 0) d->floor = d->live0;
  goto done;
nomem:
  st = ap_fail(err, AP_ERR_NOMEM, "out of memory for subgraph %zu's dependencies", sg);
done:
  ap_free(a, local);
  ap_free(a, always);
  ap_free(a, tr);
  ap_free(a, dep.v);
  ap_free(a, outs.v);
  ap_free(a, touch.v);
  ap_free(a, other);
  if (st) rdag_free(d, a);
  return st;
}
