/* The graph object: creation, accessors, scratch requests and the problem it makes. The
 * timeline itself is built by one file per rule set. */
#include "arenaplan/options.h"
#include "graph_internal.h"

#include <string.h>

const char *ap_rules_name(ap_rules r) {
  switch (r) {
  case AP_RULES_ARENAPLAN: return "arenaplan";
  case AP_RULES_TFLITE: return "tflite";
  case AP_RULES_TFLM: return "tflm";
  }
  return "unknown";
}

const char *ap_kind_name(ap_tensor_kind k) {
  switch (k) {
  case AP_KIND_CONSTANT: return "constant";
  case AP_KIND_VARIABLE: return "variable";
  case AP_KIND_INPUT: return "input";
  case AP_KIND_OUTPUT: return "output";
  case AP_KIND_INTERMEDIATE: return "intermediate";
  case AP_KIND_NONE: return "none";
  }
  return "unknown";
}

/* Each call site of a subgraph gets its own steps, so subgraphs that call the next one twice
 * (WHILE cond and body, IF branches) double the timeline per level: a hostile model of 40 such
 * levels would ask for 2^40 steps. Real models stay far below this (thousands). */
#define GRAPH_MAX_STEPS ((size_t)1 << 22)

ap_status graph_push_step(ap_graph *g, uint32_t sg, int32_t op) {
  if (g->step_count >= GRAPH_MAX_STEPS)
    return ap_fail(&g->err, AP_ERR_UNSUPPORTED,
                   "%s: control flow expands to more than %zu steps (subgraphs called from many "
                   "places)",
                   ap_model_path(g->model), GRAPH_MAX_STEPS);
  if (g->step_count == g->step_cap) {
    size_t cap = g->step_cap ? g->step_cap * 2 : 64;
    uint32_t *s = ap_calloc(g->alloc, cap, sizeof *s);
    int32_t *o = ap_calloc(g->alloc, cap, sizeof *o);
    if (!s || !o) {
      ap_free(g->alloc, s);
      ap_free(g->alloc, o);
      return ap_fail(&g->err, AP_ERR_NOMEM, "out of memory for the timeline");
    }
    if (g->step_count) {
      memcpy(s, g->step_sg, g->step_count * sizeof *s);
      memcpy(o, g->step_op, g->step_count * sizeof *o);
    }
    ap_free(g->alloc, g->step_sg);
    ap_free(g->alloc, g->step_op);
    g->step_sg = s;
    g->step_op = o;
    g->step_cap = cap;
  }
  g->step_sg[g->step_count] = sg;
  g->step_op[g->step_count] = op;
  g->step_count++;
  return AP_OK;
}

static bool ivec_has(ap_ivec v, int32_t x) {
  for (size_t i = 0; i < v.n; i++)
    if (v.v[i] == x) return true;
  return false;
}

ap_status graph_classify(ap_graph *g) {
  const ap_model *m = g->model;
  for (size_t sg = 0; sg < g->sg_count; sg++) {
    ap_ivec in = ap_model_subgraph_inputs(m, sg), out = ap_model_subgraph_outputs(m, sg);
    size_t nt = ap_model_tensor_count(m, sg);
    for (size_t t = 0; t < nt; t++) {
      ap_tensor_info ti;
      ap_status s = ap_model_tensor(m, sg, t, &ti);
      if (s != AP_OK) return ap_fail(&g->err, s, "%s", ap_model_error(m));
      ap_lifetime *l = graph_life(g, sg, t);
      size_t id = g->tensor_base[sg] + t;
      l->bytes = g->opt.tensor_bytes && id < g->opt.tensor_bytes_count ? g->opt.tensor_bytes[id]
                                                                      : ti.bytes;
      if (ti.is_constant)
        l->kind = AP_KIND_CONSTANT;
      else if (ti.is_variable)
        l->kind = AP_KIND_VARIABLE;
      else if (l->bytes == 0)
        l->kind = AP_KIND_NONE;
      else if (ivec_has(in, (int32_t)t))
        l->kind = AP_KIND_INPUT;
      else if (ivec_has(out, (int32_t)t))
        l->kind = AP_KIND_OUTPUT;
      else
        l->kind = AP_KIND_INTERMEDIATE;
    }
    /* An op's `intermediates` (LSTM gate quantization) carry parameters, never data. */
    size_t nops = ap_model_op_count(m, sg);
    for (size_t k = 0; k < nops; k++) {
      ap_op_info op;
      ap_status s = ap_model_op(m, sg, k, &op);
      if (s != AP_OK) return ap_fail(&g->err, s, "%s", ap_model_error(m));
      for (size_t i = 0; i < op.intermediates.n; i++) {
        ap_lifetime *l = graph_life(g, sg, (size_t)op.intermediates.v[i]);
        if (l->kind != AP_KIND_CONSTANT && l->kind != AP_KIND_VARIABLE) l->kind = AP_KIND_NONE;
      }
    }
  }
  return AP_OK;
}

ap_status graph_called_subgraphs(ap_graph *g, size_t sg, size_t op, int32_t called[2],
                                 size_t *count) {
  *count = 0;
  ap_op_info info;
  ap_status s = ap_model_op(g->model, sg, op, &info);
  if (s != AP_OK) return ap_fail(&g->err, s, "%s", ap_model_error(g->model));
  if (info.custom) return AP_OK;
  ap_op_options o;
  s = ap_model_op_options(g->model, sg, op, &o);
  if (s == AP_ERR_UNSUPPORTED) return AP_OK; /* no control flow among untyped options */
  if (s != AP_OK) return ap_fail(&g->err, s, "%s", ap_model_error(g->model));
  /* Subgraph indices are verified in range at load. */
  switch (o.kind) {
  case AP_OPTIONS_WHILE:
    called[0] = o.while_op.cond_subgraph;
    called[1] = o.while_op.body_subgraph;
    *count = 2;
    break;
  case AP_OPTIONS_IF:
    called[0] = o.if_op.then_subgraph;
    called[1] = o.if_op.else_subgraph;
    *count = 2;
    break;
  case AP_OPTIONS_CALL_ONCE:
    called[0] = o.call_once.init_subgraph;
    *count = 1;
    break;
  default: break;
  }
  return AP_OK;
}

ap_status ap_graph_create(const ap_model *m, const ap_graph_options *opt, const ap_allocator *a,
                          ap_graph **out) {
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  if (!m) return AP_ERR_ARG;
  a = ap_alloc_or_default(a);
  ap_graph *g = ap_calloc(a, 1, sizeof *g);
  if (!g) return AP_ERR_NOMEM;
  *out = g;
  g->model = m;
  g->alloc = a;
  if (opt) g->opt = *opt;
  if ((unsigned)g->opt.rules > AP_RULES_TFLM)
    return ap_fail(&g->err, AP_ERR_ARG, "unknown lifetime rules %d", (int)g->opt.rules);
  if (ap_model_error(m)[0] && ap_model_subgraph_count(m) == 0)
    return ap_fail(&g->err, AP_ERR_ARG, "the model failed to load: %s", ap_model_error(m));
  g->sg_count = ap_model_subgraph_count(m);
  g->tensor_base = ap_calloc(a, g->sg_count + 1, sizeof(size_t));
  g->op_base = ap_calloc(a, g->sg_count + 1, sizeof(size_t));
  if (!g->tensor_base || !g->op_base) return ap_fail(&g->err, AP_ERR_NOMEM, "out of memory");
  for (size_t sg = 0; sg < g->sg_count; sg++) {
    if (!ap_add_size(g->tensor_base[sg], ap_model_tensor_count(m, sg), &g->tensor_base[sg + 1]) ||
        !ap_add_size(g->op_base[sg], ap_model_op_count(m, sg), &g->op_base[sg + 1]))
      return ap_fail(&g->err, AP_ERR_OVERFLOW, "too many tensors or ops");
  }
  size_t nt = g->tensor_base[g->sg_count], no = g->op_base[g->sg_count];
  g->life = ap_calloc(a, nt ? nt : 1, sizeof *g->life);
  g->op_first = ap_calloc(a, no ? no : 1, sizeof(int32_t));
  g->op_last = ap_calloc(a, no ? no : 1, sizeof(int32_t));
  if (!g->life || !g->op_first || !g->op_last)
    return ap_fail(&g->err, AP_ERR_NOMEM, "out of memory for %zu tensors", nt);
  for (size_t i = 0; i < nt; i++) {
    g->life[i].first = g->life[i].last = -1;
    g->life[i].producer = g->life[i].last_reader = -1;
  }
  for (size_t i = 0; i < no; i++) g->op_first[i] = g->op_last[i] = -1;
  ap_status s = graph_classify(g);
  if (s != AP_OK) return s;
  switch (g->opt.rules) {
  case AP_RULES_ARENAPLAN: s = graph_build_arenaplan(g); break;
  case AP_RULES_TFLITE: s = graph_build_tflite(g); break;
  case AP_RULES_TFLM: s = graph_build_tflm(g); break;
  }
  if (s == AP_OK && g->opt.stream) s = graph_stream(g);
  if (s == AP_OK && g->opt.inplace) s = graph_share_inplace(g);
  return s;
}

void ap_graph_destroy(ap_graph *g) {
  if (!g) return;
  const ap_allocator *a = g->alloc;
  ap_free(a, g->tensor_base);
  ap_free(a, g->op_base);
  ap_free(a, g->life);
  ap_free(a, g->op_first);
  ap_free(a, g->op_last);
  ap_free(a, g->step_sg);
  ap_free(a, g->step_op);
  ap_free(a, g->scratch);
  ap_free(a, g->share);
  ap_free(a, g->req_first);
  ap_free(a, g->req_last);
  ap_free(a, g->ovl);
  ap_free(a, g->seg);
  ap_free(a, g->seg_lead);
  ap_free(a, g->seg_of_op);
  ap_free(a, g->ring_rows);
  ap_free(a, g);
}

const char *ap_graph_error(const ap_graph *g) {
  return g ? g->err.msg : "no graph (out of memory or a NULL argument)";
}

size_t ap_graph_step_count(const ap_graph *g) { return g ? g->step_count : 0; }

ap_status ap_graph_step(const ap_graph *g, size_t step, uint32_t *subgraph, int32_t *op) {
  if (!g) return AP_ERR_ARG;
  if (step >= g->step_count) return AP_ERR_RANGE;
  if (subgraph) *subgraph = g->step_sg[step];
  if (op) *op = g->step_op[step];
  return AP_OK;
}

int32_t ap_graph_op_step(const ap_graph *g, size_t subgraph, size_t op) {
  if (!g || subgraph >= g->sg_count || op >= g->op_base[subgraph + 1] - g->op_base[subgraph])
    return -1;
  return g->op_first[g->op_base[subgraph] + op];
}

ap_status ap_graph_tensor(const ap_graph *g, size_t subgraph, size_t tensor, ap_lifetime *out) {
  if (!g || !out) return AP_ERR_ARG;
  if (subgraph >= g->sg_count ||
      tensor >= g->tensor_base[subgraph + 1] - g->tensor_base[subgraph])
    return AP_ERR_RANGE;
  *out = g->life[g->tensor_base[subgraph] + tensor];
  return AP_OK;
}

ap_status ap_graph_add_scratch(ap_graph *g, size_t subgraph, size_t op, uint64_t bytes,
                               uint64_t *id) {
  if (!g) return AP_ERR_ARG;
  if (bytes == 0)
    return ap_fail(&g->err, AP_ERR_ARG,
                   "scratch for subgraph %zu op %zu: 0 bytes (must be at least 1)", subgraph, op);
  if (subgraph >= g->sg_count || op >= g->op_base[subgraph + 1] - g->op_base[subgraph])
    return ap_fail(&g->err, AP_ERR_RANGE, "scratch for subgraph %zu op %zu: no such op",
                   subgraph, op);
  size_t k = g->op_base[subgraph] + op;
  if (g->op_first[k] < 0)
    return ap_fail(&g->err, AP_ERR_ARG, "scratch for subgraph %zu op %zu: the op never runs",
                   subgraph, op);
  if (g->scratch_count == g->scratch_cap) {
    size_t cap = g->scratch_cap ? g->scratch_cap * 2 : 16;
    ap_scratch *n = ap_calloc(g->alloc, cap, sizeof *n);
    if (!n) return ap_fail(&g->err, AP_ERR_NOMEM, "out of memory for scratch requests");
    if (g->scratch_count) memcpy(n, g->scratch, g->scratch_count * sizeof *n);
    ap_free(g->alloc, g->scratch);
    g->scratch = n;
    g->scratch_cap = cap;
  }
  /* TFLite Micro's planner rounds every buffer up to MicroArenaBufferAlignment (16). */
  if (g->opt.rules == AP_RULES_TFLM && !ap_align_up(bytes, 16, &bytes))
    return ap_fail(&g->err, AP_ERR_OVERFLOW, "scratch of %llu bytes overflows",
                   (unsigned long long)bytes);
  ap_scratch *sc = &g->scratch[g->scratch_count];
  sc->subgraph = (uint32_t)subgraph;
  sc->op = (uint32_t)op;
  sc->bytes = bytes;
  sc->first = g->op_first[k];
  sc->last = g->op_last[k];
  /* A streamed segment's members run in turns over all its steps. */
  if (graph_in_segment(g, subgraph, op)) {
    const ap_segment *seg = &g->seg[g->seg_of_op[k]];
    sc->first = g->op_first[g->op_base[subgraph] + seg->first_op];
    sc->last = g->op_last[g->op_base[subgraph] + seg->first_op + seg->op_count - 1];
  }
  if (id) *id = g->tensor_base[g->sg_count] + g->scratch_count;
  g->scratch_count++;
  return AP_OK;
}

bool ap_graph_id_tensor(const ap_graph *g, uint64_t id, uint32_t *subgraph, uint32_t *tensor) {
  if (!g || id >= g->tensor_base[g->sg_count]) return false;
  size_t sg = 0;
  while (id >= g->tensor_base[sg + 1]) sg++;
  if (subgraph) *subgraph = (uint32_t)sg;
  if (tensor) *tensor = (uint32_t)(id - g->tensor_base[sg]);
  return true;
}

ap_status ap_graph_problem(const ap_graph *gc, int subgraph, uint64_t alignment,
                           ap_problem **out) {
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  if (!gc) return AP_ERR_ARG;
  ap_graph *g = (ap_graph *)gc; /* only its error message changes */
  if (subgraph >= 0 && (size_t)subgraph >= g->sg_count)
    return ap_fail(&g->err, AP_ERR_RANGE, "subgraph %d out of range (model has %zu)", subgraph,
                   g->sg_count);
  if (subgraph < 0 && g->opt.rules == AP_RULES_TFLITE && g->sg_count > 1)
    return ap_fail(&g->err, AP_ERR_UNSUPPORTED,
                   "TFLite plans each of the %zu subgraphs as its own arena: plan them one by one",
                   g->sg_count);
  ap_problem *p;
  ap_status s = ap_problem_create(g->alloc, &p);
  if (s != AP_OK) return ap_fail(&g->err, s, "out of memory for the problem");
  s = ap_problem_set_alignment(p, alignment);
  /* TFLite Micro's unreached tensors have lifetime -1: shift every time by one. */
  int32_t shift = g->opt.rules == AP_RULES_TFLM ? 1 : 0;
  size_t lo = subgraph < 0 ? 0 : (size_t)subgraph;
  size_t hi = subgraph < 0 ? g->sg_count : (size_t)subgraph + 1;
  for (size_t i = g->tensor_base[lo]; s == AP_OK && i < g->tensor_base[hi]; i++) {
    const ap_lifetime *l = &g->life[i];
    if (!l->planned || (g->share && g->share[i] != SIZE_MAX)) continue;
    int32_t first = g->share ? g->req_first[i] : l->first;
    int32_t last = g->share ? g->req_last[i] : l->last;
    ap_request r = {.id = i, .size = l->bytes, .first = first + shift, .last = last + shift};
    s = ap_problem_add(p, &r);
  }
  for (size_t i = 0; s == AP_OK && i < g->scratch_count; i++) {
    const ap_scratch *sc = &g->scratch[i];
    if (subgraph >= 0 && sc->subgraph != (uint32_t)subgraph) continue;
    ap_request r = {.id = g->tensor_base[g->sg_count] + i,
                    .size = sc->bytes,
                    .first = sc->first + shift,
                    .last = sc->last + shift};
    s = ap_problem_add(p, &r);
  }
  if (s != AP_OK) {
    ap_fail(&g->err, s, "%s", ap_problem_error(p));
    ap_problem_destroy(p);
    return s;
  }
  if (g->ovl_count && (s = graph_add_overlaps(g, p)) != AP_OK) {
    ap_problem_destroy(p);
    return s;
  }
  *out = p;
  return AP_OK;
}
