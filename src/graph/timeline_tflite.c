/* TFLite's ArenaPlanner lifetimes (arena_planner.cc PlanAllocations): every subgraph is its own
 * arena over its own op indices. Graph inputs and outputs are never freed; other tensors are
 * freed when their reference count (number of reading ops) reaches zero, so a tensor nobody
 * reads is never freed. Steps here: subgraph k's ops follow subgraph k-1's. */
#include "graph_internal.h"

ap_status graph_build_tflite(ap_graph *g) {
  for (size_t sg = 0; sg < g->sg_count; sg++) {
    int32_t base = (int32_t)g->step_count;
    size_t nops = ap_model_op_count(g->model, sg);
    for (size_t k = 0; k < nops; k++) {
      ap_status st = graph_push_step(g, (uint32_t)sg, (int32_t)k);
      if (st != AP_OK) return st;
      g->op_first[g->op_base[sg] + k] = g->op_last[g->op_base[sg] + k] = base + (int32_t)k;
    }
    if (nops == 0) continue;
    int32_t end = (int32_t)g->step_count - 1;
    for (size_t k = 0; k < nops; k++) {
      int32_t s = base + (int32_t)k;
      ap_op_info op;
      ap_status st = ap_model_op(g->model, sg, k, &op);
      if (st != AP_OK) return ap_fail(&g->err, st, "%s", ap_model_error(g->model));
      for (size_t i = 0; i < op.outputs.n; i++) {
        ap_lifetime *l = graph_life(g, sg, (size_t)op.outputs.v[i]);
        if (l->producer < 0) l->producer = s;
      }
      for (size_t i = 0; i < op.inputs.n; i++) {
        if (op.inputs.v[i] < 0) continue;
        ap_lifetime *l = graph_life(g, sg, (size_t)op.inputs.v[i]);
        l->last_reader = s;
      }
    }
    ap_ivec in = ap_model_subgraph_inputs(g->model, sg);
    ap_ivec out = ap_model_subgraph_outputs(g->model, sg);
    size_t nt = ap_model_tensor_count(g->model, sg);
    for (size_t t = 0; t < nt; t++) {
      ap_lifetime *l = graph_life(g, sg, t);
      if (l->kind != AP_KIND_INPUT && l->kind != AP_KIND_OUTPUT &&
          l->kind != AP_KIND_INTERMEDIATE)
        continue;
      /* The ArenaPlanner allocates graph inputs and op outputs. A tensor that ops read but
       * nothing writes (a delegate's scratch, say) is counted from the start: the op needs its
       * bytes either way. */
      if (l->kind == AP_KIND_INPUT || (l->producer < 0 && l->last_reader >= 0))
        l->first = base;
      else if (l->producer >= 0)
        l->first = l->producer;
      else
        continue;
      /* Freed when its last reader runs, but only once allocated: a tensor whose readers all
       * run before its producer (ops out of order) is never freed, as in TFLite. */
      l->last = l->last_reader >= l->first ? l->last_reader : end;
      l->planned = true;
    }
    for (size_t i = 0; i < in.n; i++) {
      ap_lifetime *l = graph_life(g, sg, (size_t)in.v[i]);
      if (l->planned) l->last = end;
    }
    for (size_t i = 0; i < out.n; i++) {
      ap_lifetime *l = graph_life(g, sg, (size_t)out.v[i]);
      if (l->planned) l->last = end;
    }
  }
  return AP_OK;
}
