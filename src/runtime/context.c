/* What kernels see of their op: tensors, shapes, scratch, persistent state, errors. */
#include "runtime_internal.h"

#include <stdio.h>
#include <string.h>

size_t ap_op_input_count(const ap_op_context *c) { return c ? c->info.inputs.n : 0; }
size_t ap_op_output_count(const ap_op_context *c) { return c ? c->info.outputs.n : 0; }

ap_tensor *ap_op_input(ap_op_context *c, size_t i) {
  if (!c || i >= c->info.inputs.n || c->info.inputs.v[i] < 0) return NULL;
  return &c->it->sg[c->subgraph].tensors[c->info.inputs.v[i]];
}

ap_tensor *ap_op_output(ap_op_context *c, size_t i) {
  if (!c || i >= c->info.outputs.n) return NULL;
  return &c->it->sg[c->subgraph].tensors[c->info.outputs.v[i]];
}

const ap_model *ap_op_model(const ap_op_context *c) { return c ? c->it->model : NULL; }
size_t ap_op_subgraph(const ap_op_context *c) { return c ? c->subgraph : 0; }
size_t ap_op_index(const ap_op_context *c) { return c ? c->index : 0; }
const ap_op_info *ap_op_info_of(const ap_op_context *c) { return c ? &c->info : NULL; }

ap_status ap_op_fail(ap_op_context *c, ap_status s, const char *fmt, ...) {
  if (!c) return s;
  char detail[AP_ERRMSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  const char *name = c->info.custom ? c->info.custom : ap_builtin_name(c->info.builtin);
  return ap_fail(&c->it->err, s, "subgraph %u op %u (%s): %s", c->subgraph, c->index, name,
                 detail);
}

ap_status ap_op_set_output_shape(ap_op_context *c, size_t i, const int32_t *dims, int rank) {
  if (!c) return AP_ERR_ARG;
  if (!c->preparing) return ap_op_fail(c, AP_ERR_ARG, "output shapes are set in prepare only");
  ap_tensor *t = ap_op_output(c, i);
  if (!t) return ap_op_fail(c, AP_ERR_RANGE, "output %zu out of range", i);
  if (t->is_constant) return ap_op_fail(c, AP_ERR_ARG, "output %zu is a constant", i);
  if ((rank > 0 && !dims) || !rt_set_shape(t, dims, rank))
    return ap_op_fail(c, AP_ERR_OVERFLOW, "output %zu: invalid shape (rank %d)", i, rank);
  return AP_OK;
}

ap_status ap_op_request_scratch(ap_op_context *c, size_t bytes, int *index) {
  if (!c || !index || bytes == 0) return AP_ERR_ARG;
  if (!c->preparing) return ap_op_fail(c, AP_ERR_ARG, "scratch is requested in prepare only");
  ap_scratch_rec *r = rt_persistent_alloc(c->it, sizeof *r);
  if (!r) return c->it->buf ? AP_ERR_ARENA_TOO_SMALL : AP_ERR_NOMEM;
  /* Scratch records are bookkeeping, not kernel state: count them with the tables. */
  c->it->persistent_bytes -= sizeof *r;
  c->it->tables_bytes += sizeof *r;
  r->bytes = bytes;
  ap_scratch_rec **tail = &c->scratch;
  while (*tail) tail = &(*tail)->next;
  *tail = r;
  *index = c->scratch_count++;
  return AP_OK;
}

void *ap_op_scratch(ap_op_context *c, int index) {
  if (!c || index < 0) return NULL;
  ap_scratch_rec *r = c->scratch;
  for (int i = 0; r && i < index; i++) r = r->next;
  return r ? r->data : NULL;
}

void *ap_op_persistent(ap_op_context *c, size_t bytes) {
  if (!c) return NULL;
  if (!c->preparing) {
    ap_op_fail(c, AP_ERR_ARG, "persistent memory is taken in prepare only");
    return NULL;
  }
  return rt_persistent_alloc(c->it, bytes);
}

void ap_op_set_state(ap_op_context *c, void *state) {
  if (c) c->state = state;
}
void *ap_op_state(const ap_op_context *c) { return c ? c->state : NULL; }

bool rt_find_kernel(ap_op_context *c) {
  const ap_interpreter *it = c->it;
  const ap_op_info *op = &c->info;
  c->custom = NULL;
  c->builtin = NULL;
  for (size_t i = 0; i < it->opt.custom_op_count; i++) {
    const ap_custom_op *k = &it->opt.custom_ops[i];
    if (k->name ? (op->custom && strcmp(k->name, op->custom) == 0)
                : (!op->custom && k->builtin == op->builtin)) {
      c->custom = &k->kernel;
      return true;
    }
  }
  if (!op->custom) c->builtin = ap_kernel_find(op->builtin);
  return c->builtin != NULL;
}
