/* Control flow: WHILE, IF and CALL_ONCE run other subgraphs of the model, so the runtime runs
 * them itself (through the custom-op interface) instead of a pure kernel.
 *
 * Semantics are TFLite Micro's (kernels/while.cc, if.cc, call_once.cc):
 *  - WHILE: the op's inputs go to cond's inputs and to the op's outputs; cond runs; while its
 *    output 0 (a bool) is true: op outputs -> body inputs, body runs, body outputs -> op
 *    outputs, op outputs -> cond inputs, cond runs.
 *  - IF: input 0 (a bool) picks then or else; the other inputs go to the branch's inputs, the
 *    branch runs, its outputs go to the op's outputs.
 *  - CALL_ONCE: runs its init subgraph on the first invoke only. ap_interpreter_reset_variables
 *    arms it again (TFLite Micro's reset does not, so there the init would never run again
 *    while its variables are reset to zeros: a state no fresh interpreter reaches).
 * Copies are direct: the plan (src/graph, arenaplan rules) keeps every copy's source and
 * destination live, and so in distinct bytes, at the moment of the copy. Nothing is allocated:
 * recursion depth is bounded (a subgraph calling itself fails at allocate, in src/graph). */
#include "arenaplan/options.h"
#include "runtime_internal.h"

#include <stdio.h>
#include <string.h>

/* The most nested control-flow calls eval follows (src/graph refuses deeper models first). */
#define RT_MAX_DEPTH 64

enum { BUILTIN_IF = 118, BUILTIN_WHILE = 119, BUILTIN_CALL_ONCE = 129 };

/* Tensor t of subgraph sg: its bytes, type and data (a constant's is the model's). */
typedef struct cf_tensor {
  void *data;
  size_t bytes;
  int type;
  bool constant;
} cf_tensor;

static bool cf_get(const ap_interpreter *it, uint32_t sg, int32_t t, cf_tensor *out) {
  if (t < 0 || (uint32_t)t >= it->sg[sg].tensor_count) return false;
  const rt_tensor *r = rt_rec(it, sg, (size_t)t);
  if (r) {
    *out = (cf_tensor){r->data, rt_tensor_bytes(r), r->type, false};
    return true;
  }
  ap_tensor_info ti;
  size_t size = 0;
  if (ap_model_tensor(it->model, sg, (size_t)t, &ti) != AP_OK) return false;
  const void *data = ap_model_buffer(it->model, ti.buffer, &size);
  *out = (cf_tensor){(void *)data, ti.bytes, ti.type, true};
  return true;
}

/* One side of a copy: an op's inputs (from `first`) or outputs, or a subgraph's inputs or
 * outputs. */
typedef struct cf_side {
  uint32_t sg;
  ap_ivec v;
  size_t first;
  const char *what; /* "input", "output" */
  int32_t callee;   /* -1: the op's own tensors */
} cf_side;

static cf_side op_side(const ap_op_context *c, bool inputs, size_t first) {
  return (cf_side){c->subgraph, inputs ? c->info.inputs : c->info.outputs, first,
                   inputs ? "input" : "output", -1};
}
static cf_side sub_side(const ap_interpreter *it, int32_t sg, bool inputs) {
  return (cf_side){(uint32_t)sg,
                   inputs ? ap_model_subgraph_inputs(it->model, (size_t)sg)
                          : ap_model_subgraph_outputs(it->model, (size_t)sg),
                   0, inputs ? "input" : "output", sg};
}
static size_t side_count(const cf_side *s) {
  return s->v.n > s->first ? s->v.n - s->first : 0;
}

static ap_status side_fail(ap_op_context *c, const cf_side *s, size_t i, const char *why) {
  if (s->callee < 0) return ap_op_fail(c, AP_ERR_FORMAT, "%s %zu %s", s->what, i + s->first, why);
  return ap_op_fail(c, AP_ERR_FORMAT, "subgraph %d's %s %zu %s", s->callee, s->what, i, why);
}

/* Copies every tensor of `from` to the same position of `to`: both lists as long, types and
 * bytes equal, destinations not constant. check: prepare (no data yet, nothing copied). */
static ap_status copy_side(ap_op_context *c, const cf_side *from, const cf_side *to, bool check) {
  size_t n = side_count(from);
  if (side_count(to) != n) {
    if (to->callee >= 0)
      return ap_op_fail(c, AP_ERR_FORMAT, "subgraph %d has %zu %s(s), the op gives it %zu",
                        to->callee, side_count(to), to->what, n);
    return ap_op_fail(c, AP_ERR_FORMAT, "subgraph %d has %zu %s(s), the op has %zu %s(s)",
                      from->callee, n, from->what, side_count(to), to->what);
  }
  for (size_t i = 0; i < n; i++) {
    cf_tensor a, b;
    if (!cf_get(c->it, from->sg, from->v.v[from->first + i], &a))
      return side_fail(c, from, i, "is absent or out of range");
    if (!cf_get(c->it, to->sg, to->v.v[to->first + i], &b))
      return side_fail(c, to, i, "is absent or out of range");
    if (b.constant) return side_fail(c, to, i, "is a constant: it cannot receive a value");
    if (a.type != b.type || a.bytes != b.bytes) {
      char detail[96];
      snprintf(detail, sizeof detail, "(%s, %zu bytes) must match %s %zu's (%s, %zu bytes)",
               ap_dtype_name(b.type), b.bytes, from->what, i + from->first, ap_dtype_name(a.type),
               a.bytes);
      return side_fail(c, to, i, detail);
    }
    if (check || !a.bytes || a.data == b.data) continue;
    if (!a.data || !b.data) return side_fail(c, to, i, "has no memory (unplanned)");
    memcpy(b.data, a.data, a.bytes);
  }
  return AP_OK;
}

/* A called subgraph: in range and not the caller itself (deeper cycles: src/graph). */
static ap_status check_callee(ap_op_context *c, int32_t sg, const char *role) {
  if (sg < 0 || (uint32_t)sg >= c->it->sg_count)
    return ap_op_fail(c, AP_ERR_FORMAT, "%s subgraph %d out of range (the model has %u)", role, sg,
                      c->it->sg_count);
  if ((uint32_t)sg == c->subgraph)
    return ap_op_fail(c, AP_ERR_FORMAT, "%s subgraph %d is the op's own subgraph (a recursion)",
                      role, sg);
  return AP_OK;
}

static ap_status call(ap_op_context *c, int32_t sg) {
  if (c->depth + 1 > RT_MAX_DEPTH)
    return ap_op_fail(c, AP_ERR_UNSUPPORTED, "control flow nested deeper than %d", RT_MAX_DEPTH);
  return rt_run_subgraph(c->it, (uint32_t)sg, c->depth + 1);
}

static ap_status options(ap_op_context *c, ap_op_options *o, ap_options_kind kind) {
  ap_status s = ap_model_op_options(c->it->model, c->subgraph, c->index, o);
  if (s != AP_OK || o->kind != kind)
    return ap_op_fail(c, AP_ERR_FORMAT, "its options are missing or of another op");
  return AP_OK;
}

/* A bool tensor's first element; false with the message set when it has none. */
static ap_status read_bool(ap_op_context *c, uint32_t sg, int32_t t, const char *what, bool check,
                           bool *value) {
  cf_tensor b;
  if (!cf_get(c->it, sg, t, &b))
    return ap_op_fail(c, AP_ERR_FORMAT, "%s is absent or out of range", what);
  if (b.type != AP_BOOL || b.bytes < 1)
    return ap_op_fail(c, AP_ERR_FORMAT, "%s is %s of %zu bytes, not a bool", what,
                      ap_dtype_name(b.type), b.bytes);
  if (check) return AP_OK;
  if (!b.data) return ap_op_fail(c, AP_ERR_FORMAT, "%s has no memory", what);
  *value = *(const uint8_t *)b.data != 0;
  return AP_OK;
}

static ap_status cond_value(ap_op_context *c, int32_t cond, bool check, bool *value) {
  ap_ivec out = ap_model_subgraph_outputs(c->it->model, (size_t)cond);
  char what[48];
  snprintf(what, sizeof what, "cond subgraph %d's output 0", cond);
  if (out.n < 1) return ap_op_fail(c, AP_ERR_FORMAT, "cond subgraph %d has no output", cond);
  return read_bool(c, (uint32_t)cond, out.v[0], what, check, value);
}

/* Prepare (check) and eval share the copies, so both test the same pairs. */
static ap_status while_run(ap_op_context *c, bool check) {
  ap_op_options o;
  ap_status s = options(c, &o, AP_OPTIONS_WHILE);
  int32_t cond = o.while_op.cond_subgraph, body = o.while_op.body_subgraph;
  if (s == AP_OK) s = check_callee(c, cond, "cond");
  if (s == AP_OK) s = check_callee(c, body, "body");
  if (s != AP_OK) return s;
  ap_interpreter *it = c->it;
  cf_side in = op_side(c, true, 0), out = op_side(c, false, 0);
  cf_side cin = sub_side(it, cond, true), bin = sub_side(it, body, true),
          bout = sub_side(it, body, false);
  s = copy_side(c, &in, &cin, check);
  if (s == AP_OK) s = copy_side(c, &in, &out, check);
  bool go = false;
  if (s == AP_OK && !check) s = call(c, cond);
  if (s == AP_OK) s = cond_value(c, cond, check, &go);
  if (s == AP_OK && check) {
    s = copy_side(c, &out, &bin, true);
    if (s == AP_OK) s = copy_side(c, &bout, &out, true);
  }
  uint64_t cap = it->max_loop_iterations, runs = 0;
  while (s == AP_OK && go) {
    if (cap && runs++ == cap)
      return ap_op_fail(c, AP_ERR_TIMEOUT,
                        "its body ran %llu times and the condition is still true (the "
                        "interpreter's max_loop_iterations)",
                        (unsigned long long)cap);
    s = copy_side(c, &out, &bin, false);
    if (s == AP_OK) s = call(c, body);
    if (s == AP_OK) s = copy_side(c, &bout, &out, false);
    if (s == AP_OK) s = copy_side(c, &out, &cin, false);
    if (s == AP_OK) s = call(c, cond);
    if (s == AP_OK) s = cond_value(c, cond, false, &go);
  }
  return s;
}

static ap_status if_run(ap_op_context *c, bool check) {
  ap_op_options o;
  ap_status s = options(c, &o, AP_OPTIONS_IF);
  int32_t then_sg = o.if_op.then_subgraph, else_sg = o.if_op.else_subgraph;
  if (s == AP_OK) s = check_callee(c, then_sg, "then");
  if (s == AP_OK) s = check_callee(c, else_sg, "else");
  if (s == AP_OK && c->info.inputs.n < 1)
    s = ap_op_fail(c, AP_ERR_FORMAT, "has no inputs (input 0 is the condition)");
  if (s != AP_OK) return s;
  bool pick = false;
  s = read_bool(c, c->subgraph, c->info.inputs.v[0], "input 0 (the condition)", check, &pick);
  cf_side in = op_side(c, true, 1), out = op_side(c, false, 0);
  for (int b = 0; s == AP_OK && b < 2; b++) {
    int32_t sg = b == 0 ? then_sg : else_sg;
    if (!check && (b == 0) != pick) continue;
    cf_side bin = sub_side(c->it, sg, true), bout = sub_side(c->it, sg, false);
    s = copy_side(c, &in, &bin, check);
    if (s == AP_OK && !check) s = call(c, sg);
    if (s == AP_OK) s = copy_side(c, &bout, &out, check);
  }
  return s;
}

/* CALL_ONCE's state pointer is NULL until its init subgraph has run. */
static char ran_marker;

static ap_status call_once_run(ap_op_context *c, bool check) {
  ap_op_options o;
  ap_status s = options(c, &o, AP_OPTIONS_CALL_ONCE);
  if (s == AP_OK) s = check_callee(c, o.call_once.init_subgraph, "init");
  if (s == AP_OK && (c->info.inputs.n || c->info.outputs.n))
    s = ap_op_fail(c, AP_ERR_FORMAT, "has %zu inputs and %zu outputs (CALL_ONCE takes none)",
                   c->info.inputs.n, c->info.outputs.n);
  if (s != AP_OK || check || ap_op_state(c)) return s;
  s = call(c, o.call_once.init_subgraph);
  if (s == AP_OK) ap_op_set_state(c, &ran_marker);
  return s;
}

static ap_status while_prepare(ap_op_context *c) {
  return while_run(c, true);
}
static ap_status while_eval(ap_op_context *c) {
  return while_run(c, false);
}
static ap_status if_prepare(ap_op_context *c) {
  return if_run(c, true);
}
static ap_status if_eval(ap_op_context *c) {
  return if_run(c, false);
}
static ap_status call_once_prepare(ap_op_context *c) {
  return call_once_run(c, true);
}
static ap_status call_once_eval(ap_op_context *c) {
  return call_once_run(c, false);
}

static const ap_op_kernel while_kernel = {while_prepare, while_eval};
static const ap_op_kernel if_kernel = {if_prepare, if_eval};
static const ap_op_kernel call_once_kernel = {call_once_prepare, call_once_eval};

const ap_op_kernel *rt_control_kernel(int32_t builtin) {
  switch (builtin) {
  case BUILTIN_WHILE: return &while_kernel;
  case BUILTIN_IF: return &if_kernel;
  case BUILTIN_CALL_ONCE: return &call_once_kernel;
  default: return NULL;
  }
}

void rt_control_reset(ap_interpreter *it) {
  if (!it->allocated) return; /* op records exist only after a successful allocate */
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    for (uint32_t k = 0; k < it->sg[sg].op_count; k++) {
      rt_op *o = &it->sg[sg].ops[k];
      if (rt_op_is_custom(o) && rt_op_custom(o) == &call_once_kernel && o->ext)
        ((rt_custom *)o->ext)->state = NULL;
    }
}
