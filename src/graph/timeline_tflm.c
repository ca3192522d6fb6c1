/* TFLite Micro's lifetimes (micro_allocation_info.cc at 90b983c2), reproduced step for step:
 * a single counter of "allocation scopes" starts at 0 on entering subgraph 0; every op opens a
 * scope, and so does every subgraph a control-flow op enters. Marking a tensor "created"
 * resets both ends of its lifetime; "used" moves its end. Only subgraph 0 is a root. */
#include "graph_internal.h"

#define MAX_NESTING 64

static void created(ap_lifetime *l, int32_t scope) { l->first = l->last = scope; }
static void used(ap_lifetime *l, int32_t scope) { l->last = scope; }

static ap_status mark(ap_graph *g, size_t sg, int depth, uint8_t *on_stack) {
  if (depth > MAX_NESTING)
    return ap_fail(&g->err, AP_ERR_UNSUPPORTED, "%s: control flow nested deeper than %d",
                   ap_model_path(g->model), MAX_NESTING);
  if (on_stack[sg])
    return ap_fail(&g->err, AP_ERR_FORMAT, "%s: subgraph %zu calls itself through control flow",
                   ap_model_path(g->model), sg);
  on_stack[sg] = 1;
  /* Entering the subgraph: the scope opened by the caller (or 0 for the root). */
  int32_t scope = (int32_t)g->step_count - 1;
  ap_ivec in = ap_model_subgraph_inputs(g->model, sg);
  ap_ivec out = ap_model_subgraph_outputs(g->model, sg);
  for (size_t i = 0; i < in.n; i++) created(graph_life(g, sg, (size_t)in.v[i]), scope);
  for (size_t i = 0; i < out.n; i++) created(graph_life(g, sg, (size_t)out.v[i]), scope);
  size_t nops = ap_model_op_count(g->model, sg);
  for (size_t k = 0; k < nops; k++) {
    ap_status st = graph_push_step(g, (uint32_t)sg, (int32_t)k);
    if (st != AP_OK) return st;
    scope = (int32_t)g->step_count - 1;
    ap_op_info op;
    st = ap_model_op(g->model, sg, k, &op);
    if (st != AP_OK) return ap_fail(&g->err, st, "%s", ap_model_error(g->model));
    for (size_t i = 0; i < op.outputs.n; i++) {
      ap_lifetime *l = graph_life(g, sg, (size_t)op.outputs.v[i]);
      created(l, scope);
      if (l->producer < 0) l->producer = scope;
    }
    int32_t start = scope;
    int32_t called[2];
    size_t ncalled = 0;
    st = graph_called_subgraphs(g, sg, k, called, &ncalled);
    for (size_t c = 0; st == AP_OK && c < ncalled; c++) {
      st = graph_push_step(g, (uint32_t)called[c], -1);
      if (st == AP_OK) st = mark(g, (size_t)called[c], depth + 1, on_stack);
    }
    if (st != AP_OK) return st;
    scope = (int32_t)g->step_count - 1;
    for (size_t i = 0; i < op.inputs.n; i++) {
      if (op.inputs.v[i] < 0) continue;
      ap_lifetime *l = graph_life(g, sg, (size_t)op.inputs.v[i]);
      used(l, scope);
      l->last_reader = scope;
    }
    for (size_t i = 0; i < op.outputs.n; i++) used(graph_life(g, sg, (size_t)op.outputs.v[i]), scope);
    size_t ok = g->op_base[sg] + k;
    g->op_first[ok] = start;
    g->op_last[ok] = scope;
  }
  for (size_t i = 0; i < out.n; i++) used(graph_life(g, sg, (size_t)out.v[i]), scope);
  on_stack[sg] = 0;
  return AP_OK;
}

ap_status graph_build_tflm(ap_graph *g) {
  if (g->sg_count == 0) return AP_OK;
  uint8_t *on_stack = ap_calloc(g->alloc, g->sg_count, 1);
  if (!on_stack) return ap_fail(&g->err, AP_ERR_NOMEM, "out of memory");
  ap_status st = graph_push_step(g, 0, -1);
  if (st == AP_OK) st = mark(g, 0, 0, on_stack);
  ap_free(g->alloc, on_stack);
  if (st != AP_OK) return st;
  /* needs_allocating: not constant, not variable, non-zero bytes; sizes rounded up to 16
   * (MicroArenaBufferAlignment). Unreached tensors keep lifetime [-1, -1]. */
  size_t nt = g->tensor_base[g->sg_count];
  for (size_t i = 0; i < nt; i++) {
    ap_lifetime *l = &g->life[i];
    bool needs = l->kind != AP_KIND_CONSTANT && l->kind != AP_KIND_VARIABLE && l->bytes != 0;
    l->planned = needs;
    if (!needs) continue;
    uint64_t b;
    if (!ap_align_up(l->bytes, 16, &b))
      return ap_fail(&g->err, AP_ERR_OVERFLOW, "tensor %zu: size overflows", i);
    l->bytes = b;
  }
  return AP_OK;
}
