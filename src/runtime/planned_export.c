/* The host's half of a planned interpreter (include/arenaplan/planned.h): an allocated
 * interpreter's placement as the plan's words, for ap_interpreter_create_planned on a device. */
#include "model/trusted.h"
#include "planned.h"
#include "runtime_internal.h"

#include <string.h>

static ap_status refuse(ap_interpreter *it, const char *why) {
  return rt_fail(it, AP_ERR_UNSUPPORTED, "no plan for a device: %s", why);
}

/* What a plan cannot carry; AP_OK when it can. */
static ap_status plannable(ap_interpreter *it, size_t model_size) {
  if (!it->allocated) return rt_fail(it, AP_ERR_NOT_ALLOCATED, "not allocated");
  if (it->exec.level && it->exec.level != &ap_fast_generic)
    return refuse(it, "fast kernels above the portable level (set AP_SIMD=generic)");
  if (it->exec.threads > 1) return refuse(it, "threads (scratch is per thread)");
  if (it->sg_count != 1) return refuse(it, "the model has several subgraphs");
  if (it->has_max) return refuse(it, "max_input_dims given");
  if (it->dynamic_count) return refuse(it, "dynamic tensors");
  if (it->states) return refuse(it, "kernels keep state");
  if (model_size > UINT32_MAX || it->arena_bytes >= PL_RING)
    return refuse(it, "the model or arena exceeds 1 GiB");
  const rt_subgraph *r = &it->sg[0];
  for (uint32_t k = 0; k < r->op_count; k++) {
    if (rt_op_is_custom(&r->ops[k])) return refuse(it, "custom or control-flow ops");
    if (rt_op_choice(&r->ops[k]) != RT_K_FAST)
      return refuse(it, "ops whose kernels a budget chose (a device runs the same kernel for "
                        "every op: plan with --kernels fast or reference)");
  }
  for (uint32_t i = 0; i < r->record_count; i++) {
    const rt_tensor *x = &r->tensors[i];
    ap_tensor_info ti;
    if (x->flags & (RT_VARIABLE | RT_DYNAMIC)) return refuse(it, "variable tensors");
    /* A folded value is read by a later op's prepare, which create runs before any eval. */
    if (x->flags & RT_KNOWN) return refuse(it, "shapes computed from tensors' values");
    if (ap_model_tensor(it->model, 0, x->index, &ti) != AP_OK || ti.shape.n != x->rank ||
        (x->rank && memcmp(ti.shape.v, x->dims, x->rank * sizeof(int32_t)) != 0))
      return refuse(it, "a tensor's shape differs from the model's");
  }
  return AP_OK;
}

/* An arena pointer as the plan's word: offset + 1, 0 for none. */
static bool word_of(const ap_interpreter *it, const void *p, uint32_t *w) {
  if (!p) return (*w = 0), true;
  const uint8_t *q = p;
  if (q < it->arena || (uint64_t)(q - it->arena) >= it->arena_bytes) return false;
  *w = (uint32_t)(q - it->arena) + 1;
  return true;
}

static ap_status write_words(ap_interpreter *it, uint32_t *w, size_t size) {
  const rt_subgraph *r = &it->sg[0];
  w[PL_MAGIC] = AP_PLAN_MAGIC;
  w[PL_MODEL_BYTES] = (uint32_t)size;
  w[PL_FINGERPRINT] = ap_model_fingerprint(ap_model_bytes(it->model, NULL), size);
  w[PL_FLAGS] = (it->exec.level ? 0 : PL_REFERENCE) | (it->segments ? PL_SEGMENTS : 0);
  w[PL_ARENA] = (uint32_t)it->arena_bytes;
  w[PL_ALIGN] = (uint32_t)(it->alignment > 16 ? it->alignment : 16);
  w[PL_TENSORS] = r->tensor_count;
  w[PL_OPS] = r->op_count;
  uint32_t *tw = w + PL_HEAD, *ow = tw + r->tensor_count;
  for (uint32_t t = 0; t < r->tensor_count; t++) {
    const rt_tensor *x = rt_rec(it, 0, t);
    tw[t] = 0;
    if (x && rt_tensor_bytes(x) && !word_of(it, x->data, &tw[t]))
      return refuse(it, "a tensor outside the arena");
  }
  for (uint32_t k = 0; it->segments && k < r->op_count; k++) {
    ap_op_info op;
    if (it->segments[2 * k + 1] && ap_model_op(it->model, 0, k, &op) == AP_OK && op.outputs.n &&
        op.outputs.v[0] >= 0 && tw[op.outputs.v[0]])
      tw[op.outputs.v[0]] |= PL_RING;
  }
  for (uint32_t k = 0; k < r->op_count; k++) {
    ap_op_context c = {.it = it, .subgraph = 0, .index = k, .phase = RT_EVAL, .op = &r->ops[k]};
    ap_status s = ap_model_op(it->model, 0, k, &c.info);
    uint64_t bytes = 0;
    size_t n = 0;
    if (s == AP_OK && rt_stream_member(it, k)) {
      s = rt_stream_scratch(it, NULL, k, &bytes);
    } else if (s == AP_OK) {
      s = rt_builtin_scratch_bytes(&c, &n);
      bytes = n;
    }
    if (s != AP_OK) return s;
    if (!word_of(it, c.op->ext, &ow[2 * k])) return refuse(it, "a scratch outside the arena");
    ow[2 * k + 1] = ow[2 * k] ? (uint32_t)bytes : 0;
  }
  if (it->segments) memcpy(ow + 2 * r->op_count, it->segments, 2 * r->op_count * sizeof(uint32_t));
  return AP_OK;
}

ap_status ap_interpreter_plan_words(ap_interpreter *it, uint32_t *words, size_t capacity,
                                    size_t *count) {
  if (!it || !count) return AP_ERR_ARG;
  if (!it->sg) return rt_fail(it, AP_ERR_ARG, "the interpreter failed to create");
  size_t size = 0;
  ap_model_bytes(it->model, &size);
  ap_status s = plannable(it, size);
  if (s != AP_OK) return s;
  const rt_subgraph *r = &it->sg[0];
  uint64_t n = PL_HEAD + (uint64_t)r->tensor_count + 2 * (uint64_t)r->op_count;
  if (it->segments) n += 2 * (uint64_t)r->op_count;
  if (n > UINT32_MAX) return refuse(it, "too many tensors");
  *count = (size_t)n;
  if (!words) return AP_OK;
  if (capacity < n) return rt_fail(it, AP_ERR_RANGE, "the plan needs %zu words", (size_t)n);
  words[PL_WORDS] = (uint32_t)n;
  return write_words(it, words, size);
}

ap_status ap_interpreter_plan_overhead(ap_interpreter *it, uint64_t *bytes) {
  if (!it || !bytes) return AP_ERR_ARG;
  if (!it->allocated) return rt_fail(it, AP_ERR_NOT_ALLOCATED, "not allocated");
  /* The records (and the segments' table) as this host made them, the model's handle, and
   * up to 15 bytes to align the buffer's end. */
  *bytes = it->tables_bytes + ap_model_trusted_bytes() + 16;
  return AP_OK;
}
