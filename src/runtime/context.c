/* What kernels see of their op: tensors, shapes, scratch, persistent state, errors. */
#include "runtime_internal.h"

#include <stdio.h>
#include <string.h>

size_t ap_op_input_count(const ap_op_context *c) {
  return c ? c->info.inputs.n : 0;
}
size_t ap_op_output_count(const ap_op_context *c) {
  return c ? c->info.outputs.n : 0;
}

static bool fill(const ap_op_context *c, ap_ivec v, size_t i, ap_tensor *out) {
  if (!c || !out || i >= v.n || v.v[i] < 0) return false;
  if (!rt_fill_tensor(c->it, c->subgraph, (size_t)v.v[i], out)) return false;
  /* Prepare sees no data but the model's (as TFLite Micro's prepare sees no arena). */
  if (c->phase != RT_EVAL && !out->is_constant) out->data = NULL;
  return true;
}

bool ap_op_input(const ap_op_context *c, size_t i, ap_tensor *out) {
  return fill(c, c ? c->info.inputs : (ap_ivec){0}, i, out);
}
bool ap_op_output(const ap_op_context *c, size_t i, ap_tensor *out) {
  return fill(c, c ? c->info.outputs : (ap_ivec){0}, i, out);
}

const ap_model *ap_op_model(const ap_op_context *c) {
  return c ? c->it->model : NULL;
}
size_t ap_op_subgraph(const ap_op_context *c) {
  return c ? c->subgraph : 0;
}
size_t ap_op_index(const ap_op_context *c) {
  return c ? c->index : 0;
}
const ap_op_info *ap_op_info_of(const ap_op_context *c) {
  return c ? &c->info : NULL;
}

/* Parenthesised: the formatting ones, defined whatever AP_NO_MESSAGES says. */
ap_status(rt_fail)(ap_interpreter *it, ap_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(it->msg, sizeof it->msg, fmt, ap);
  va_end(ap);
  return s;
}

ap_status(ap_op_fail)(ap_op_context *c, ap_status s, const char *fmt, ...) {
  if (!c) return s;
  char detail[AP_ERRMSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  const char *name = c->info.custom ? c->info.custom : ap_builtin_name(c->info.builtin);
  return rt_fail(c->it, s, "subgraph %u op %u (%s): %s", c->subgraph, c->index, name, detail);
}

ap_status ap_op_set_output_shape(ap_op_context *c, size_t i, const int32_t *dims, int rank) {
  if (!c) return AP_ERR_ARG;
  if (c->phase == RT_EVAL) return ap_op_fail(c, AP_ERR_ARG, "output shapes are set in prepare");
  if (i >= c->info.outputs.n) return ap_op_fail(c, AP_ERR_RANGE, "output %zu out of range", i);
  rt_tensor *t = rt_rec(c->it, c->subgraph, (size_t)c->info.outputs.v[i]);
  if (!t || (t->flags & RT_VARIABLE))
    return ap_op_fail(c, AP_ERR_ARG, "output %zu is a constant or variable tensor", i);
  ap_status s = rt_set_dims(c->it, t, dims, rank, c->phase == RT_PREPARE);
  if (s != AP_OK) return ap_op_fail(c, s, "output %zu: %s", i, c->it->msg);
  if (c->phase == RT_RESHAPE && c->it->capacity) {
    uint32_t id = c->it->sg[c->subgraph].tensor_base + (uint32_t)c->info.outputs.v[i];
    if (rt_tensor_bytes(t) > c->it->capacity[id])
      return ap_op_fail(c, AP_ERR_NOT_ALLOCATED,
                        "output %zu needs %zu bytes, more than the %llu planned for the maximum "
                        "input dims: call ap_interpreter_allocate() again",
                        i, rt_tensor_bytes(t), (unsigned long long)c->it->capacity[id]);
  }
  return AP_OK;
}

ap_status ap_op_request_scratch(ap_op_context *c, size_t bytes, int *index) {
  if (!c || !index || bytes == 0) return AP_ERR_ARG;
  if (c->phase == RT_EVAL) return ap_op_fail(c, AP_ERR_ARG, "scratch is requested in prepare");
  /* A builtin's scratch was checked against its planned size by rt_builtin_prepare. */
  if (c->phase == RT_RESHAPE && rt_op_is_custom(c->op)) {
    const rt_custom *r = c->op->ext;
    uint32_t k = c->scratch_seen++;
    uint64_t cap = r && k < r->scratch_count ? r->capacity[k] : 0;
    if (bytes > cap)
      return ap_op_fail(c, AP_ERR_NOT_ALLOCATED,
                        "scratch %u needs %zu bytes, more than the %llu planned: call "
                        "ap_interpreter_allocate() again",
                        k, bytes, (unsigned long long)cap);
    *index = (int)k;
    if (!c->prep) return AP_OK;
  }
  ap_allocator t = rt_temp_allocator(c->it);
  rt_prep_scratch *r = ap_alloc(&t, sizeof *r);
  if (!r) return ap_op_fail(c, AP_ERR_NOMEM, "out of memory for a scratch request");
  *r = (rt_prep_scratch){.bytes = bytes};
  rt_prep_scratch **tail = &c->prep->scratch;
  while (*tail)
    tail = &(*tail)->next;
  *tail = r;
  *index = (int)c->prep->scratch_count++;
  return AP_OK;
}

void *ap_op_scratch(ap_op_context *c, int index) {
  if (!c || index < 0 || c->phase != RT_EVAL || !rt_op_is_custom(c->op)) return NULL;
  const rt_custom *r = c->op->ext;
  return r && (uint32_t)index < r->scratch_count ? r->scratch[index] : NULL;
}

void *ap_op_persistent(ap_op_context *c, size_t bytes) {
  if (!c) return NULL;
  if (c->phase != RT_PREPARE) {
    ap_op_fail(c, AP_ERR_ARG,
               "persistent memory is taken in the prepare of allocate only (this is %s)",
               c->phase == RT_EVAL ? "eval" : "a prepare re-run by a resize");
    return NULL;
  }
  return rt_persistent_alloc(c->it, bytes);
}

void ap_op_set_state(ap_op_context *c, void *state) {
  if (!c) return;
  if (c->phase == RT_PREPARE && c->prep)
    c->prep->state = state;
  else if (rt_op_is_custom(c->op) && c->op->ext)
    ((rt_custom *)c->op->ext)->state = state;
}

void *ap_op_state(const ap_op_context *c) {
  if (!c) return NULL;
  if (c->phase == RT_PREPARE && c->prep) return c->prep->state;
  if (rt_op_is_custom(c->op) && c->op->ext) return ((rt_custom *)c->op->ext)->state;
  return NULL;
}

bool rt_find_kernel(const ap_interpreter *it, const ap_op_info *op, rt_op *out) {
  for (size_t i = 0; i < it->custom_op_count; i++) {
    const ap_custom_op *k = &it->custom_ops[i];
    if (k->name ? (op->custom && strcmp(k->name, op->custom) == 0)
                : (!op->custom && k->builtin == op->builtin)) {
      out->kernel = (uintptr_t)&k->kernel | 1u;
      return true;
    }
  }
  const ap_op_kernel *own = op->custom ? NULL : rt_control_kernel(op->builtin);
  if (!own && !op->custom) own = rt_resource_kernel(op->builtin);
  if (own) {
    out->kernel = (uintptr_t)own | 1u;
    return true;
  }
  const ap_kernel *b = op->custom ? ap_kernel_find_custom(op->custom) : ap_kernel_find(op->builtin);
  out->kernel = (uintptr_t)b;
  return b != NULL;
}
