/* arenaplan's own lifetime rules (see graph.h): one timeline for the whole model, entries one
 * after the other, control flow nested in its op's range, tensors freed after their last
 * reader. */
#include "arenaplan/options.h"
#include "graph_internal.h"

#define MAX_NESTING 64

typedef struct walk {
  ap_graph *g;
  uint8_t *on_stack; /* subgraphs being walked: a call back into one is a cycle */
  uint8_t *visited;
  int32_t *sub_first, *sub_last; /* union of each subgraph's ranges */
} walk;

static void cover_io(ap_graph *g, size_t sg, int32_t first, int32_t last) {
  ap_ivec in = ap_model_subgraph_inputs(g->model, sg);
  ap_ivec out = ap_model_subgraph_outputs(g->model, sg);
  for (size_t i = 0; i < in.n; i++)
    life_cover(graph_life(g, sg, (size_t)in.v[i]), first, last);
  for (size_t i = 0; i < out.n; i++)
    life_cover(graph_life(g, sg, (size_t)out.v[i]), first, last);
}

static bool is_while(ap_graph *g, size_t sg, size_t k) {
  ap_op_options o;
  return ap_model_op_options(g->model, sg, k, &o) == AP_OK && o.kind == AP_OPTIONS_WHILE;
}

static ap_status visit(walk *w, size_t sg, int depth) {
  ap_graph *g = w->g;
  if (depth > MAX_NESTING)
    return ap_fail(&g->err, AP_ERR_UNSUPPORTED, "%s: control flow nested deeper than %d",
                   ap_model_path(g->model), MAX_NESTING);
  if (w->on_stack[sg])
    return ap_fail(&g->err, AP_ERR_FORMAT, "%s: subgraph %zu calls itself through control flow",
                   ap_model_path(g->model), sg);
  w->on_stack[sg] = 1;
  w->visited[sg] = 1;
  size_t nops = ap_model_op_count(g->model, sg);
  for (size_t k = 0; k < nops; k++) {
    int32_t s = (int32_t)g->step_count;
    ap_status st = graph_push_step(g, (uint32_t)sg, (int32_t)k);
    int32_t called[2], last[2];
    size_t ncalled = 0;
    if (st == AP_OK) st = graph_called_subgraphs(g, sg, k, called, &ncalled);
    for (size_t c = 0; st == AP_OK && c < ncalled; c++) {
      st = visit(w, (size_t)called[c], depth + 1);
      last[c] = (int32_t)g->step_count - 1;
    }
    if (st != AP_OK) return st;
    int32_t e = (int32_t)g->step_count - 1;
    size_t ok = g->op_base[sg] + k;
    if (g->op_first[ok] < 0) g->op_first[ok] = s;
    if (e > g->op_last[ok]) g->op_last[ok] = e;
    /* A called subgraph's inputs and outputs live over its own steps: the op copies into the
     * first one's inputs at s, into a later one's as it starts, and out of each as it ends
     * (the runtime's control_flow.c). Between runs they hold nothing: a loop copies its state
     * into the op's outputs, which live over [s, e]. */
    for (size_t c = 0; c < ncalled; c++) {
      size_t cs = (size_t)called[c];
      if (w->sub_first[cs] < 0 || s < w->sub_first[cs]) w->sub_first[cs] = s;
      if (e > w->sub_last[cs]) w->sub_last[cs] = e;
      int32_t from = c == 0 ? s : last[c - 1] + 1;
      cover_io(g, cs, from <= last[c] ? from : last[c], last[c]);
    }
    ap_op_info op;
    st = ap_model_op(g->model, sg, k, &op);
    if (st != AP_OK) return ap_fail(&g->err, st, "%s", ap_model_error(g->model));
    /* A control-flow op writes its outputs until e (a loop keeps its state in them), read by a
     * later op or not. */
    for (size_t i = 0; i < op.outputs.n; i++) {
      ap_lifetime *l = graph_life(g, sg, (size_t)op.outputs.v[i]);
      if (l->producer < 0 || s < l->producer) l->producer = s;
      life_cover(l, s, ncalled ? e : s);
    }
    /* WHILE reads its inputs once, at s (into cond's inputs and its own outputs); IF's are read
     * when its branch starts, CALL_ONCE has none. */
    int32_t read_to = is_while(g, sg, k) ? s : e;
    for (size_t i = 0; i < op.inputs.n; i++) {
      if (op.inputs.v[i] < 0) continue;
      ap_lifetime *l = graph_life(g, sg, (size_t)op.inputs.v[i]);
      if (read_to > l->last_reader) l->last_reader = read_to;
      if (read_to > l->last) l->last = read_to;
    }
  }
  w->on_stack[sg] = 0;
  return AP_OK;
}

static ap_status run_entry(walk *w, size_t sg) {
  ap_graph *g = w->g;
  int32_t a = (int32_t)g->step_count;
  ap_status st = visit(w, sg, 0);
  if (st == AP_OK && (int32_t)g->step_count == a) st = graph_push_step(g, (uint32_t)sg, -1);
  if (st != AP_OK) return st;
  int32_t b = (int32_t)g->step_count - 1;
  w->sub_first[sg] = a;
  w->sub_last[sg] = b;
  ap_ivec in = ap_model_subgraph_inputs(g->model, sg);
  ap_ivec out = ap_model_subgraph_outputs(g->model, sg);
  for (size_t i = 0; i < in.n; i++)
    life_cover(graph_life(g, sg, (size_t)in.v[i]), a, g->opt.preserve_inputs ? b : a);
  for (size_t i = 0; i < out.n; i++) {
    ap_lifetime *l = graph_life(g, sg, (size_t)out.v[i]);
    life_cover(l, l->first >= 0 ? l->first : a, b);
  }
  return AP_OK;
}

ap_status graph_build_arenaplan(ap_graph *g) {
  size_t n = g->sg_count;
  if (n == 0) return AP_OK;
  walk w = {g, ap_calloc(g->alloc, n, 1), ap_calloc(g->alloc, n, 1),
            ap_calloc(g->alloc, n, sizeof(int32_t)), ap_calloc(g->alloc, n, sizeof(int32_t))};
  ap_status st = AP_OK;
  if (!w.on_stack || !w.visited || !w.sub_first || !w.sub_last)
    st = ap_fail(&g->err, AP_ERR_NOMEM, "out of memory");
  for (size_t i = 0; st == AP_OK && i < n; i++)
    w.sub_first[i] = w.sub_last[i] = -1;
  /* Entries: subgraph 0, then each signature's subgraph not already run. */
  if (st == AP_OK) st = run_entry(&w, 0);
  size_t nsig = ap_model_signature_count(g->model);
  for (size_t i = 0; st == AP_OK && i < nsig; i++) {
    ap_signature_info si;
    st = ap_model_signature(g->model, i, &si);
    if (st != AP_OK) {
      st = ap_fail(&g->err, st, "%s", ap_model_error(g->model));
      break;
    }
    if (si.subgraph < n && !w.visited[si.subgraph]) st = run_entry(&w, si.subgraph);
  }
  /* Finish every tensor: read-but-never-written tensors exist from their subgraph's start;
   * written-but-never-read ones only at their producer. */
  for (size_t sg = 0; st == AP_OK && sg < n; sg++) {
    size_t nt = ap_model_tensor_count(g->model, sg);
    for (size_t t = 0; t < nt; t++) {
      ap_lifetime *l = graph_life(g, sg, t);
      bool data =
          l->kind == AP_KIND_INPUT || l->kind == AP_KIND_OUTPUT || l->kind == AP_KIND_INTERMEDIATE;
      if (!data || l->last < 0 || w.sub_first[sg] < 0) {
        l->planned = false;
        if (l->kind != AP_KIND_CONSTANT && l->kind != AP_KIND_VARIABLE && l->last < 0)
          l->kind = AP_KIND_NONE;
        if (!data) l->first = l->last = -1;
        continue;
      }
      if (l->first < 0) l->first = w.sub_first[sg];
      if (l->last < l->first) l->last = l->first;
      l->planned = true;
    }
  }
  ap_free(g->alloc, w.on_stack);
  ap_free(g->alloc, w.visited);
  ap_free(g->alloc, w.sub_first);
  ap_free(g->alloc, w.sub_last);
  return st;
}
