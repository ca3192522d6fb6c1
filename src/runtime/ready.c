/* Builtin ops prepared once. Allocate's prepare keeps what eval needs (the kernel's params:
 * multipliers, shifts, padding, the fast path it chose; its tensors' views; its scratch size)
 * in a block of the persistent region, and invoke runs eval on that block alone: it reads
 * nothing of the model and repeats no arithmetic of prepare. A resize within the max dims
 * prepares again into the same block. Dynamic ops (shapes known only while running) keep no
 * block and are prepared at every eval (builtin_ops.c). */
#include "runtime_internal.h"

#include <string.h>

struct rt_ready {
  const ap_ktensor **in; /* n_in pointers into `views` (NULL: an absent optional input) */
  ap_ktensor **out;      /* n_out pointers into `views` */
  void *params;
  size_t scratch; /* bytes prepare asked for (0: eval gets NULL) */
  uint32_t n_in, n_out;
  ap_ktensor views[];
};

static size_t round16(size_t n) {
  return (n + 15) & ~(size_t)15;
}

/* The block's bytes, or 0 on overflow. */
static size_t ready_bytes(size_t n_in, size_t n_out, size_t params_size) {
  size_t n = n_in + n_out, views, ptrs, total;
  if (n < n_in || !ap_mul_size(n, sizeof(ap_ktensor), &views) ||
      !ap_mul_size(n, sizeof(void *), &ptrs) ||
      !ap_add_size(round16(sizeof(rt_ready) + views), round16(params_size), &total) ||
      !ap_add_size(total, ptrs, &total))
    return 0;
  return total;
}

const rt_ready_ops rt_ready_all = {rt_ready_keep, rt_ready_eval};

ap_status rt_ready_keep(ap_op_context *c, ap_ktensor *const *pin, ap_ktensor *const *pout,
                        const void *params, size_t scratch) {
  const ap_kernel *k = rt_op_builtin(c->op);
  size_t n_in = c->info.inputs.n, n_out = c->info.outputs.n;
  size_t psize = k->params_size < AP_KPARAMS_SIZE ? k->params_size : AP_KPARAMS_SIZE;
  if (!c->it->ready) return AP_OK;
  rt_ready **slot = &c->it->ready[c->it->sg[c->subgraph].op_base + c->index], *r = *slot;
  if (!r) {
    /* Only allocate takes memory; a resize rewrites the block allocate made. */
    if (c->phase != RT_PREPARE || !c->prep) return AP_OK;
    size_t bytes = ready_bytes(n_in, n_out, psize);
    if (!bytes || n_in > UINT32_MAX || n_out > UINT32_MAX)
      return ap_op_fail(c, AP_ERR_OVERFLOW, "%zu inputs and %zu outputs overflow", n_in, n_out);
    if (!c->it->run) {
      /* Eval reads no model options, only how to run (one record for every op). */
      ap_kop_options *run = rt_persistent_alloc(c->it, sizeof *run);
      if (!run) return rt_nomem(c->it);
      run->exec = rt_kexec(c->it);
      c->it->run = run;
    }
    r = rt_persistent_alloc(c->it, bytes);
    if (!r) return rt_nomem(c->it);
    size_t n = n_in + n_out;
    r->params = (uint8_t *)r + round16(sizeof(rt_ready) + n * sizeof(ap_ktensor));
    r->in = (const ap_ktensor **)((uint8_t *)r->params + round16(psize));
    r->out = (ap_ktensor **)(r->in + n_in);
    r->n_in = (uint32_t)n_in;
    r->n_out = (uint32_t)n_out;
    *slot = r;
  }
  if (r->n_in != n_in || r->n_out != n_out) {
    *slot = NULL; /* cannot happen (the model is the same): prepare at eval instead */
    return AP_OK;
  }
  for (size_t i = 0; i < n_in; i++) {
    r->in[i] = pin[i] ? &r->views[i] : NULL;
    if (pin[i]) r->views[i] = *pin[i];
  }
  for (size_t i = 0; i < n_out; i++) {
    r->views[n_in + i] = *pout[i];
    r->out[i] = &r->views[n_in + i];
  }
  memcpy(r->params, params, psize);
  r->scratch = scratch;
  return AP_OK;
}

/* An empty tensor (a 0 dim) gets no bytes in the plan, so its data is NULL; kernels refuse
 * NULL data, so it points here instead: nothing is read or written through it. */
void *rt_data_or_empty(const ap_ktensor *k, void *data) {
  static _Alignas(16) unsigned char empty[16];
  size_t n;
  return !data && ap_ktensor_count(k, &n) && n == 0 ? empty : data;
}

/* Points the views of op k at their tensors' bytes and its state's header at its state. A
 * view whose shape is no longer its tensor's (a malformed graph where a later op sets the
 * shape again) drops the block: eval then prepares again and says what is wrong. */
static ap_status bind(ap_interpreter *it, uint32_t sg, uint32_t k, rt_ready **slot) {
  ap_op_context c = {
      .it = it, .subgraph = sg, .index = k, .phase = RT_EVAL, .op = &it->sg[sg].ops[k]};
  rt_ready *r = *slot;
  ap_status s = ap_model_op(it->model, sg, k, &c.info);
  if (s != AP_OK) return rt_fail(it, s, "%s", ap_model_error(it->model));
  for (uint32_t i = 0; i < r->n_in + r->n_out; i++) {
    int32_t t = i < r->n_in ? c.info.inputs.v[i] : c.info.outputs.v[i - r->n_in];
    const rt_tensor *x = t >= 0 ? rt_rec(it, sg, (size_t)t) : NULL;
    if (!x || (i < r->n_in && !r->in[i])) continue;
    ap_ktensor *v = &r->views[i];
    if (v->rank != x->rank || (x->rank && memcmp(v->dims, x->dims, (size_t)x->rank * 4) != 0)) {
      *slot = NULL;
      return AP_OK;
    }
    v->data = rt_data_or_empty(v, x->data);
  }
  ap_kstate *st = ap_kernel_state(rt_op_builtin(c.op), r->params);
  if (st && st->bytes) {
    st->data = rt_state_find(&c, st->bytes);
    if (!st->data) return AP_ERR_NOT_ALLOCATED;
  }
  return AP_OK;
}

ap_status rt_ready_bind(ap_interpreter *it) {
  for (uint32_t sg = 0; it->ready && sg < it->sg_count; sg++)
    for (uint32_t k = 0; k < it->sg[sg].op_count; k++) {
      rt_ready **slot = &it->ready[it->sg[sg].op_base + k];
      ap_status s = *slot ? bind(it, sg, k, slot) : AP_OK;
      if (s != AP_OK) return s;
    }
  return AP_OK;
}

ap_status rt_ready_eval(ap_interpreter *it, uint32_t sg, uint32_t k, const rt_ready *r) {
  const rt_op *o = &it->sg[sg].ops[k];
  bool unplanned = r->scratch && !o->ext;
  ap_errbuf e;
  e.msg[0] = 0;
  const ap_kop_options *run = it->run;
  ap_kop_options own; /* an op whose kernel is not the interpreter's (kchoice.c) */
  RT_KEXEC_ROOM(room);
  if (rt_op_choice(o) != RT_K_FAST && run) {
    own = *run;
    own.exec = rt_kexec_op(it, o, room);
    run = &own;
  }
  ap_kctx kc = {
      r->in, (int)r->n_in, r->out, (int)r->n_out, run, r->params, r->scratch ? o->ext : NULL, &e};
  ap_status s = unplanned ? AP_ERR_KERNEL : rt_op_builtin(o)->eval(&kc);
  if (s == AP_OK) return AP_OK;
  /* The failure path only: the op's context, for its message. */
  ap_op_context c = {.it = it, .subgraph = sg, .index = k, .phase = RT_EVAL, .op = (rt_op *)o};
  if (ap_model_op(it->model, sg, k, &c.info) != AP_OK) return rt_fail(it, s, "op %u failed", k);
  if (unplanned)
    return ap_op_fail(&c, s, "needs %zu bytes of scratch that were not planned", r->scratch);
  return ap_op_fail(&c, s, "%s", e.msg[0] ? e.msg : ap_status_name(s));
}

uint64_t rt_prepare_calls(const ap_interpreter *it) {
  return it ? it->prepare_calls : 0;
}
