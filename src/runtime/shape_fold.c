/* Folding of shape arithmetic in prepare: the values of small integer tensors that ops compute
 * from constants and known shapes (SHAPE of a tensor of known shape, then STRIDED_SLICE, PACK,
 * GATHER, CAST, MUL... of those), so that the ops whose output shapes they decide (RESHAPE,
 * STRIDED_SLICE, TILE...) are prepared before running instead of becoming dynamic. */
#include "kernels/kops.h"
#include "runtime_internal.h"

#include <string.h>

/* Values above this many bytes are data, not shapes: such ops are not run in prepare. */
#define RT_FOLD_MAX 256

typedef union rt_known_hdr {
  struct {
    union rt_known_hdr *next;
    uint32_t sg, t;
    size_t cap;
  } h;
  max_align_t pad; /* keeps the value after the header aligned for any type */
} rt_known_hdr;

static rt_known_hdr *find(const ap_interpreter *it, uint32_t sg, uint32_t t) {
  for (rt_known_hdr *k = it->known; k; k = k->h.next)
    if (k->h.sg == sg && k->h.t == t) return k;
  return NULL;
}

const void *rt_known_value(const ap_interpreter *it, uint32_t sg, uint32_t t) {
  rt_known_hdr *k = find(it, sg, t);
  return k ? k + 1 : NULL;
}

/* SHAPE reads only its input's dims; every other op reads its inputs' values. */
static bool inputs_known(const ap_op_context *c) {
  if (c->info.builtin == AP_KB_SHAPE) return !rt_inputs_dynamic(c);
  for (size_t i = 0; i < c->info.inputs.n; i++) {
    int32_t t = c->info.inputs.v[i];
    if (t < 0) continue;
    const rt_tensor *r = rt_rec(c->it, c->subgraph, (size_t)t);
    if (r && !(r->flags & RT_KNOWN)) return false;
  }
  return true;
}

static bool small_ints(const ap_kctx *k) {
  size_t total = 0;
  for (int i = 0; i < k->n_outputs; i++) {
    const ap_ktensor *o = k->outputs[i];
    size_t n;
    if ((o->type != AP_INT32 && o->type != AP_INT64) || !ap_ktensor_count(o, &n) ||
        !ap_mul_size(n, ap_ktype_size(o->type), &n) || !ap_add_size(total, n, &total) ||
        total > RT_FOLD_MAX)
      return false;
  }
  return true;
}

ap_status rt_fold(ap_op_context *c, ap_kctx *k, size_t scratch) {
  ap_interpreter *it = c->it;
  bool refold = c->phase == RT_RESHAPE;
  /* A kernel with state changes it when it runs: it runs at invoke only. */
  const ap_kstate *st = ap_kernel_state(rt_op_builtin(c->op), k->params);
  if (c->phase == RT_EVAL || scratch || (st && st->bytes)) return AP_OK;
  for (size_t i = 0; i < c->info.outputs.n; i++) {
    const rt_tensor *r = rt_rec(it, c->subgraph, (size_t)c->info.outputs.v[i]);
    /* A resize keeps what allocate decided: only values folded then are computed again. */
    if (!r || (r->flags & RT_VARIABLE) || (refold && !(r->flags & RT_KNOWN))) return AP_OK;
  }
  if (!inputs_known(c) || !small_ints(k)) {
    if (!refold) return AP_OK;
    return ap_op_fail(c, AP_ERR_NOT_ALLOCATED,
                      "its output values were computed in allocate and can no longer be: call "
                      "ap_interpreter_allocate() again");
  }
  for (int i = 0; i < k->n_outputs; i++) {
    uint32_t t = (uint32_t)c->info.outputs.v[i];
    size_t bytes = ap_ktype_size(k->outputs[i]->type), n;
    ap_ktensor_count(k->outputs[i], &n); /* small_ints checked it */
    bytes *= n;
    rt_known_hdr *h = find(it, c->subgraph, t);
    if (!h && !refold) {
      h = rt_tables_alloc(it, sizeof *h + (bytes ? bytes : 1));
      if (!h) return rt_nomem(it);
      h->h = (__typeof__(h->h)){.next = it->known, .sg = c->subgraph, .t = t, .cap = bytes};
      it->known = h;
    }
    if (!h || bytes > h->h.cap)
      return ap_op_fail(c, AP_ERR_NOT_ALLOCATED,
                        "output %d: %zu bytes of values, more than the %zu of allocate: call "
                        "ap_interpreter_allocate() again",
                        i, bytes, h ? h->h.cap : 0);
    k->outputs[i]->data = h + 1;
  }
  static const ap_kop_options none;
  ap_errbuf e = {{0}};
  ap_kctx run = *k;
  run.options = &none;
  run.err = &e;
  ap_status s = rt_op_builtin(c->op)->eval(&run);
  for (int i = 0; i < k->n_outputs; i++)
    k->outputs[i]->data = NULL;
  /* A kernel refusing these values (an index out of range) refuses them at invoke as well: the
   * op then simply stays unfolded, and invoke reports it. */
  if (s != AP_OK) return refold ? ap_op_fail(c, s, "%s", e.msg[0] ? e.msg : "eval failed") : AP_OK;
  for (size_t i = 0; i < c->info.outputs.n; i++)
    rt_rec(it, c->subgraph, (size_t)c->info.outputs.v[i])->flags |= RT_KNOWN;
  return AP_OK;
}
