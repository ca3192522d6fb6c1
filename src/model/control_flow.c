/* Which subgraphs a control-flow op runs: read from its builtin options. */
#include "model/model_internal.h"

#include <string.h>

/* BuiltinOperator codes and BuiltinOptions union numbers (schema.fbs declaration order). */
enum { OP_IF = 118, OP_WHILE = 119, OP_CALL_ONCE = 129 };
enum { UNION_IF = 92, UNION_WHILE = 93, UNION_CALL_ONCE = 103 };

ap_status ap_model_op_control_flow(const ap_model *m, size_t sg, size_t i, ap_control_flow *out) {
  if (!m || !out) return AP_ERR_ARG;
  memset(out, 0, sizeof *out);
  ap_op_info info;
  ap_status s = ap_model_op(m, sg, i, &info);
  if (s != AP_OK) return s;
  int want;
  switch (info.custom ? -1 : info.builtin) {
  case OP_IF: want = UNION_IF; break;
  case OP_WHILE: want = UNION_WHILE; break;
  case OP_CALL_ONCE: want = UNION_CALL_ONCE; break;
  default: return AP_OK;
  }
  size_t op = ap_model_op_pos(m, sg, i);
  size_t t = fb_table(m->bytes, op, FB_Operator_builtin_options);
  if (info.options_type != want || !t)
    return AP_ERR_FORMAT; /* the model is shared and read-only: the caller says what */
  /* Field 0 and 1 of IfOptions and WhileOptions; field 0 of CallOnceOptions. */
  out->subgraph[0] = fb_get_i32(m->bytes, t, 0, 0);
  out->count = 1;
  if (want != UNION_CALL_ONCE) {
    out->subgraph[1] = fb_get_i32(m->bytes, t, 1, 0);
    out->count = 2;
  }
  return AP_OK;
}
