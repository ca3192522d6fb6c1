/* Resource variables: VAR_HANDLE, READ_VARIABLE and ASSIGN_VARIABLE, with TFLite Micro's
 * semantics (kernels/var_handle.cc, read_variable.cc, assign_variable.cc and
 * micro_resource_variable.cc):
 *  - VAR_HANDLE names a variable by (container, shared_name); handles with the same names share
 *    it (an absent container matches any). Its output, a resource tensor, holds the variable's
 *    id (int32, ids in order of first appearance in prepare).
 *  - The first ASSIGN_VARIABLE whose handle comes from a VAR_HANDLE in its own subgraph sizes
 *    the variable at allocate (its value tensor's bytes) and fills it with the value's zero point
 *    (as int8; 0 without quantization). Reads before any assignment see that fill.
 *  - READ_VARIABLE copies the variable to its output; ASSIGN_VARIABLE copies its value in. Both
 *    find the variable by the id in their resource tensor at eval, so a handle may travel.
 * Storage is the persistent region, taken in allocate; eval only copies. Sizes that disagree
 * fail with a message (TFLite Micro only asserts them in debug builds). */
#include "arenaplan/options.h"
#include "runtime_internal.h"

#include <string.h>

enum { BUILTIN_VAR_HANDLE = 142, BUILTIN_READ_VARIABLE = 143, BUILTIN_ASSIGN_VARIABLE = 144 };

typedef struct rt_var {
  const char *container, *shared_name; /* the model's strings ("" when absent) */
  void *data;                          /* persistent, bytes long (NULL for 0 bytes) */
  size_t bytes;
  int fill;   /* every byte's initial value */
  bool sized; /* an ASSIGN_VARIABLE gave the size */
} rt_var;

struct rt_vars {
  uint32_t count, cap; /* cap: the model's VAR_HANDLE ops, a bound on distinct variables */
  rt_var v[];
};

static const char *or_empty(const char *s) {
  return s ? s : "";
}

/* The table, made at the first VAR_HANDLE's prepare in allocate. */
static ap_status vars_table(ap_op_context *c) {
  ap_interpreter *it = c->it;
  if (it->vars) return AP_OK;
  size_t handles = 0;
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    for (uint32_t k = 0; k < it->sg[sg].op_count; k++) {
      ap_op_info op;
      handles += ap_model_op(it->model, sg, k, &op) == AP_OK && !op.custom &&
                 op.builtin == BUILTIN_VAR_HANDLE;
    }
  size_t bytes;
  if (handles > UINT32_MAX || !ap_mul_size(handles, sizeof(rt_var), &bytes) ||
      !ap_add_size(bytes, sizeof(struct rt_vars), &bytes))
    return ap_op_fail(c, AP_ERR_OVERFLOW, "%zu resource variables overflow", handles);
  it->vars = rt_persistent_alloc(it, bytes);
  if (!it->vars)
    return ap_op_fail(c, rt_nomem(it), "no memory for %zu resource variables", handles);
  it->vars->cap = (uint32_t)handles;
  return AP_OK;
}

/* The id of the variable VAR_HANDLE op k of subgraph sg names; -1 if not known yet. */
static int32_t find_var(const ap_interpreter *it, uint32_t sg, uint32_t k) {
  ap_op_options o;
  if (!it->vars || ap_model_op_options(it->model, sg, k, &o) != AP_OK ||
      o.kind != AP_OPTIONS_VAR_HANDLE)
    return -1;
  const char *container = o.var_handle.container, *name = or_empty(o.var_handle.shared_name);
  for (uint32_t i = 0; i < it->vars->count; i++) {
    const rt_var *v = &it->vars->v[i];
    if ((!container || strcmp(container, v->container) == 0) && strcmp(name, v->shared_name) == 0)
      return (int32_t)i;
  }
  return -1;
}

/* The one non-constant output of a VAR_HANDLE or READ_VARIABLE, or input i's record. */
static rt_tensor *record(ap_op_context *c, ap_ivec v, size_t i) {
  return i < v.n && v.v[i] >= 0 && (uint32_t)v.v[i] < c->it->sg[c->subgraph].tensor_count
             ? rt_rec(c->it, c->subgraph, (size_t)v.v[i])
             : NULL;
}

/* A handle tensor: one resource (or int32) element, not constant. */
static ap_status check_handle(ap_op_context *c, const rt_tensor *t, const char *what) {
  if (!t) return ap_op_fail(c, AP_ERR_FORMAT, "%s is absent or constant", what);
  if ((t->type != AP_RESOURCE && t->type != AP_INT32) || rt_tensor_bytes(t) != 4)
    return ap_op_fail(c, AP_ERR_FORMAT, "%s is %s of %zu bytes, not one resource handle", what,
                      ap_dtype_name(t->type), rt_tensor_bytes(t));
  return AP_OK;
}

static ap_status var_handle_prepare(ap_op_context *c) {
  if (c->info.inputs.n != 0 || c->info.outputs.n != 1)
    return ap_op_fail(c, AP_ERR_FORMAT, "has %zu inputs and %zu outputs (takes 0 and 1)",
                      c->info.inputs.n, c->info.outputs.n);
  ap_status s = check_handle(c, record(c, c->info.outputs, 0), "output 0");
  if (s != AP_OK || c->phase != RT_PREPARE) return s;
  s = vars_table(c);
  if (s != AP_OK || find_var(c->it, c->subgraph, c->index) >= 0) return s;
  struct rt_vars *vars = c->it->vars;
  ap_op_options o;
  if (ap_model_op_options(c->it->model, c->subgraph, c->index, &o) != AP_OK ||
      o.kind != AP_OPTIONS_VAR_HANDLE)
    return ap_op_fail(c, AP_ERR_FORMAT, "its options are missing or of another op");
  if (vars->count >= vars->cap) return ap_op_fail(c, AP_ERR_FORMAT, "too many variables");
  vars->v[vars->count++] = (rt_var){.container = or_empty(o.var_handle.container),
                                    .shared_name = or_empty(o.var_handle.shared_name)};
  return AP_OK;
}

static ap_status var_handle_eval(ap_op_context *c) {
  int32_t id = find_var(c->it, c->subgraph, c->index);
  rt_tensor *out = record(c, c->info.outputs, 0);
  if (id < 0 || !out || !out->data)
    return ap_op_fail(c, AP_ERR_FORMAT, "its variable or its output is missing");
  memcpy(out->data, &id, 4);
  return AP_OK;
}

/* The VAR_HANDLE in this subgraph producing tensor t: its variable's id, -1 if none. */
static int32_t producer_var(const ap_op_context *c, int32_t t) {
  const ap_interpreter *it = c->it;
  for (uint32_t k = 0; k < it->sg[c->subgraph].op_count; k++) {
    ap_op_info op;
    if (ap_model_op(it->model, c->subgraph, k, &op) == AP_OK && !op.custom &&
        op.builtin == BUILTIN_VAR_HANDLE && op.outputs.n == 1 && op.outputs.v[0] == t)
      return find_var(it, c->subgraph, k);
  }
  return -1;
}

/* The variable whose id the handle input holds now (eval). */
static ap_status var_at_eval(ap_op_context *c, rt_var **out) {
  const rt_tensor *h = record(c, c->info.inputs, 0);
  int32_t id = -1;
  if (h && h->data) memcpy(&id, h->data, 4);
  const struct rt_vars *vars = c->it->vars;
  if (!vars || id < 0 || (uint32_t)id >= vars->count)
    return ap_op_fail(c, AP_ERR_FORMAT, "resource handle %d names no variable (%u exist)", id,
                      vars ? vars->count : 0);
  *out = &c->it->vars->v[id];
  if (!(*out)->sized)
    return ap_op_fail(c, AP_ERR_FORMAT,
                      "resource variable %d (\"%s\") has no size: no ASSIGN_VARIABLE in the "
                      "subgraph of its VAR_HANDLE gives it one",
                      id, (*out)->shared_name);
  return AP_OK;
}

static ap_status size_fail(ap_op_context *c, const rt_var *v, const char *what, size_t bytes) {
  return ap_op_fail(c, AP_ERR_FORMAT, "resource variable \"%s\" holds %zu bytes, %s %zu",
                    v->shared_name, v->bytes, what, bytes);
}

static ap_status assign_prepare(ap_op_context *c) {
  if (c->info.inputs.n != 2 || c->info.outputs.n != 0)
    return ap_op_fail(c, AP_ERR_FORMAT, "has %zu inputs and %zu outputs (takes 2 and 0)",
                      c->info.inputs.n, c->info.outputs.n);
  ap_status s = check_handle(c, record(c, c->info.inputs, 0), "input 0");
  if (s != AP_OK) return s;
  ap_tensor value;
  if (!ap_op_input(c, 1, &value)) return ap_op_fail(c, AP_ERR_FORMAT, "input 1 is absent");
  int32_t id = producer_var(c, c->info.inputs.v[0]);
  if (id < 0) return AP_OK; /* a handle from elsewhere: checked at eval */
  rt_var *v = &c->it->vars->v[id];
  if (v->sized) return v->bytes == value.bytes ? AP_OK : size_fail(c, v, "the value", value.bytes);
  if (c->phase != RT_PREPARE)
    return ap_op_fail(c, AP_ERR_NOT_ALLOCATED, "call ap_interpreter_allocate() again");
  v->sized = true;
  v->bytes = value.bytes;
  v->fill = value.quant_count ? (int8_t)value.zero_point : 0;
  if (!v->bytes) return AP_OK;
  v->data = ap_op_persistent(c, v->bytes);
  if (!v->data)
    return ap_op_fail(c, rt_nomem(c->it), "no memory for variable \"%s\"", v->shared_name);
  memset(v->data, (unsigned char)v->fill, v->bytes);
  return AP_OK;
}

static ap_status assign_eval(ap_op_context *c) {
  rt_var *v = NULL;
  ap_status s = var_at_eval(c, &v);
  ap_tensor value;
  if (s == AP_OK && !ap_op_input(c, 1, &value))
    s = ap_op_fail(c, AP_ERR_FORMAT, "input 1 is absent");
  if (s != AP_OK) return s;
  if (value.bytes != v->bytes) return size_fail(c, v, "the value", value.bytes);
  if (v->bytes && v->data != value.data) memcpy(v->data, value.data, v->bytes);
  return AP_OK;
}

static ap_status read_prepare(ap_op_context *c) {
  if (c->info.inputs.n != 1 || c->info.outputs.n != 1)
    return ap_op_fail(c, AP_ERR_FORMAT, "has %zu inputs and %zu outputs (takes 1 and 1)",
                      c->info.inputs.n, c->info.outputs.n);
  ap_status s = check_handle(c, record(c, c->info.inputs, 0), "input 0");
  if (s == AP_OK && !record(c, c->info.outputs, 0))
    s = ap_op_fail(c, AP_ERR_FORMAT, "output 0 is a constant");
  return s;
}

static ap_status read_eval(ap_op_context *c) {
  rt_var *v = NULL;
  ap_status s = var_at_eval(c, &v);
  if (s != AP_OK) return s;
  const rt_tensor *out = record(c, c->info.outputs, 0);
  size_t bytes = out ? rt_tensor_bytes(out) : 0;
  if (!out || bytes != v->bytes) return size_fail(c, v, "output 0", bytes);
  if (bytes) memcpy(out->data, v->data, bytes);
  return AP_OK;
}

static const ap_op_kernel var_handle_kernel = {var_handle_prepare, var_handle_eval};
static const ap_op_kernel read_kernel = {read_prepare, read_eval};
static const ap_op_kernel assign_kernel = {assign_prepare, assign_eval};

const ap_op_kernel *rt_resource_kernel(int32_t builtin) {
  switch (builtin) {
  case BUILTIN_VAR_HANDLE: return &var_handle_kernel;
  case BUILTIN_READ_VARIABLE: return &read_kernel;
  case BUILTIN_ASSIGN_VARIABLE: return &assign_kernel;
  default: return NULL;
  }
}

void rt_resource_reset(ap_interpreter *it) {
  if (!it->allocated) return; /* the table went with the last allocate */
  for (uint32_t i = 0; it->vars && i < it->vars->count; i++) {
    rt_var *v = &it->vars->v[i];
    if (v->data) memset(v->data, (unsigned char)v->fill, v->bytes);
  }
}
