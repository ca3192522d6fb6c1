/* An interpreter placed by a plan made on the host (include/arenaplan/planned.h): the model
 * handle, the interpreter and the arena in the caller's buffer, every pointer set from the
 * plan's offsets. Nothing here reaches the planner, the graph or the model verifier, so a
 * firmware that creates its interpreter this way links none of them. */
#include "planned.h"
#include "kernels/fast/dsp.h"
#include "model/trusted.h"
#include "runtime_internal.h"

#include <string.h>

/* Kernels, scratch and the check that each op's prepare needs no more than the plan holds
 * (a streamed segment's members: st->check). */
static ap_status place_ops(ap_interpreter *it, const uint32_t *plan, const rt_planned_stream *st) {
  rt_subgraph *r = &it->sg[0];
  const uint32_t *w = plan + PL_HEAD + r->tensor_count;
  for (uint32_t k = 0; k < r->op_count; k++, w += 2) {
    ap_op_context c = {.it = it, .subgraph = 0, .index = k, .phase = RT_EVAL, .op = &r->ops[k]};
    ap_status s = ap_model_op(it->model, 0, k, &c.info);
    if (s != AP_OK) return rt_fail(it, s, "op %u: %s", k, ap_model_error(it->model));
    const ap_kernel *kern = c.info.custom ? NULL : ap_kernel_find(c.info.builtin);
    if (!kern)
      return rt_fail(it, AP_ERR_UNSUPPORTED, "op %u (builtin %d): no kernel registered", k,
                     c.info.builtin);
    c.op->kernel = (uintptr_t)kern;
    c.op->ext = NULL;
    if (w[0] && !pl_in_arena(it, w[0] - 1, w[1]))
      return rt_fail(it, AP_ERR_INVALID_PLAN, "op %u: scratch outside the arena", k);
    if (w[0]) c.op->ext = it->arena + (w[0] - 1);
    if (it->segments && st->member(it, k)) continue;
    size_t need = 0;
    s = rt_builtin_scratch_bytes(&c, &need);
    if (s != AP_OK) return s;
    if (need > (w[0] ? w[1] : 0))
      return rt_fail(it, AP_ERR_INVALID_PLAN,
                     "op %u needs %llu bytes of scratch, the plan has %u (made for other kernels)",
                     k, (unsigned long long)need, w[0] ? w[1] : 0);
  }
  return AP_OK;
}

static ap_status place(ap_interpreter *it, const uint32_t *plan, const rt_planned_stream *st) {
  uint32_t nt = plan[PL_TENSORS], no = plan[PL_OPS];
  if (it->sg_count != 1 || it->sg[0].tensor_count != nt || it->sg[0].op_count != no)
    return rt_fail(it, AP_ERR_INVALID_PLAN, "the plan's tensors and ops are not the model's");
  /* The plan's scratch is the portable level's (arenaplan header --plan sets AP_SIMD=generic):
   * only levels with its sizes may run in it (the DSP level's fast or small family, as the
   * registration chose, on cores that have the extension; the generic level elsewhere), and the
   * CPU probe is not linked. */
  it->exec.level = (plan[PL_FLAGS] & PL_REFERENCE) ? NULL : ap_kernels_board_level();
  it->exec.workers = NULL;
  it->exec.threads = 1;
  if (plan[PL_FLAGS] & PL_SEGMENTS) {
    if (!st)
      return rt_fail(it, AP_ERR_UNSUPPORTED,
                     "a streamed plan: create it with ap_interpreter_create_planned_streamed");
    ap_status s = st->load(it, plan);
    if (s != AP_OK) return s;
  }
  uintptr_t lo = (uintptr_t)it->buf, top = (uintptr_t)it->buf + it->buf_size - it->tail_used;
  uint64_t align = plan[PL_ALIGN] > 16 ? plan[PL_ALIGN] : 16, base;
  if (align & (align - 1) || !ap_align_up(lo, align, &base) || base > top ||
      top - base < plan[PL_ARENA])
    return rt_fail(it, AP_ERR_ARENA_TOO_SMALL, "arena too small: the plan's arena is %u bytes",
                   plan[PL_ARENA]);
  it->arena = (uint8_t *)(uintptr_t)base;
  it->arena_bytes = plan[PL_ARENA];
  for (uint32_t t = 0; t < nt; t++) {
    uint32_t w = plan[PL_HEAD + t];
    rt_tensor *x = rt_rec(it, 0, t);
    if (!x) {
      if (w) return rt_fail(it, AP_ERR_INVALID_PLAN, "tensor %u: a constant placed", t);
      continue;
    }
    if (x->flags & RT_VARIABLE)
      return rt_fail(it, AP_ERR_UNSUPPORTED, "tensor %u: variables are not planned", t);
    size_t bytes = rt_tensor_bytes(x);
    x->data = NULL;
    if (!w) {
      if (bytes) return rt_fail(it, AP_ERR_INVALID_PLAN, "tensor %u: not placed", t);
      continue;
    }
    uint32_t off = PL_OFFSET(w);
    if (w & PL_KNOWN) return rt_fail(it, AP_ERR_INVALID_PLAN, "tensor %u: a folded value", t);
    if ((w & PL_RING) && !it->segments)
      return rt_fail(it, AP_ERR_INVALID_PLAN, "tensor %u: a ring without segments", t);
    if (!pl_in_arena(it, off, (w & PL_RING) ? 0 : bytes)) /* a ring: st->check sizes it */
      return rt_fail(it, AP_ERR_INVALID_PLAN, "tensor %u: outside the arena", t);
    x->data = it->arena + off;
  }
  ap_status s = place_ops(it, plan, st);
  return s == AP_OK && it->segments ? st->check(it, plan) : s;
}

static bool plan_ok(const uint32_t *plan, size_t words, size_t model_size) {
  if (!plan || words < PL_HEAD || plan[PL_MAGIC] != AP_PLAN_MAGIC || plan[PL_WORDS] != words ||
      plan[PL_MODEL_BYTES] != model_size)
    return false;
  uint64_t ops = plan[PL_OPS], need = PL_HEAD + (uint64_t)plan[PL_TENSORS] + 2 * ops;
  if (plan[PL_FLAGS] & PL_SEGMENTS) need += 2 * ops;
  return need == words;
}

ap_status rt_create_planned(const void *model, size_t model_size, const uint32_t *plan,
                            size_t plan_words, void *buffer, size_t buffer_size,
                            const rt_planned_stream *stream, ap_interpreter **out) {
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  if (!model || !buffer || (uintptr_t)model % 8) return AP_ERR_ARG;
  if (!plan_ok(plan, plan_words, model_size) ||
      ap_model_fingerprint(model, model_size) != plan[PL_FINGERPRINT])
    return AP_ERR_INVALID_PLAN;
  /* The model's handle at the buffer's top, the interpreter below it. */
  uintptr_t lo = (uintptr_t)buffer, end = (lo + buffer_size) & ~(uintptr_t)15;
  size_t handle = ap_model_trusted_bytes();
  if (end < lo || end - lo < handle + 16) return AP_ERR_ARENA_TOO_SMALL;
  ap_model *m;
  ap_status s = ap_model_open_trusted(model, model_size, (void *)(end - handle), &m);
  if (s != AP_OK) return s;
  ap_interpreter_options o = ap_interpreter_defaults();
  o.arena = buffer;
  o.arena_size = end - handle - lo;
  o.kernels = (plan[PL_FLAGS] & PL_REFERENCE) ? AP_KERNELS_REFERENCE : AP_KERNELS_FAST;
  s = rt_create_in_buffer(m, &o, out);
  if (s != AP_OK) return s;
  ap_interpreter *it = *out;
  s = place(it, plan, stream);
  if (s != AP_OK) {
    it->arena = NULL;
    return s;
  }
  it->allocated = true;
  it->stale_input = -1;
  return AP_OK;
}

ap_status ap_interpreter_create_planned(const void *model, size_t model_size, const uint32_t *plan,
                                        size_t plan_words, void *buffer, size_t buffer_size,
                                        ap_interpreter **out) {
  return rt_create_planned(model, model_size, plan, plan_words, buffer, buffer_size, NULL, out);
}
