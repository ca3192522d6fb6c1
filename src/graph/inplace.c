/* In-place sharing (graph.h, ap_graph_options.inplace): an op's output takes the bytes of one
 * of its inputs, and the tensors sharing bytes (a group, named by its root: the first tensor)
 * become one request over the union of their lifetimes. A group is a chain: every tensor in it
 * but the last is read by the op that adds the next one. */
#include "graph_internal.h"

#include <string.h>

enum { SHARE_NONE = 0, SHARE_VIEW, SHARE_MODIFY };

/* What an op's kernel allows: a view changes no byte (any input 0 may be shared); a modifying
 * op writes output element i after reading element i of every input (`inputs`: how many of
 * its first inputs may be shared). */
static int share_kind(int32_t builtin, bool tflite, int *inputs) {
  *inputs = 1;
  switch (builtin) {
  case 22: /* RESHAPE */
  case 43: /* SQUEEZE */
  case 70: /* EXPAND_DIMS */
  case 159: /* BITCAST */ return SHARE_VIEW;
  case 0:  /* ADD */
  case 41: /* SUB */
  case 18: /* MUL */
  case 42: /* DIV */ *inputs = 2; return SHARE_MODIFY;
  case 25: /* SOFTMAX */ return SHARE_MODIFY;
  default: break;
  }
  if (tflite) return SHARE_NONE;
  switch (builtin) {
  case 99: /* SQUARED_DIFFERENCE */
  case 55: /* MAXIMUM */
  case 57: /* MINIMUM */ *inputs = 2; return SHARE_MODIFY;
  case 19:  /* RELU */
  case 21:  /* RELU6 */
  case 14:  /* LOGISTIC */
  case 28:  /* TANH */
  case 98:  /* LEAKY_RELU */
  case 101: /* ABS */
  case 59:  /* NEG */
  case 75:  /* SQRT */
  case 76:  /* RSQRT */
  case 47:  /* EXP */
  case 73:  /* LOG */
  case 151: /* DYNAMIC_UPDATE_SLICE: element i is the operand's i or an update's */
    return SHARE_MODIFY;
  case 117: /* HARD_SWISH */
  case 111: /* ELU */
  case 50:  /* LOG_SOFTMAX: a row's values are all read before the last loop writes them */
  case 54: /* PRELU (input 0; alpha broadcasts) */ return SHARE_MODIFY;
  default: return SHARE_NONE;
  }
}

static size_t root_of(const ap_graph *g, size_t id) {
  return g->share[id] == SIZE_MAX ? id : g->share[id];
}

static ap_status tensor_type(ap_graph *g, size_t sg, size_t t, int *type) {
  ap_tensor_info ti;
  ap_status s = ap_model_tensor(g->model, sg, t, &ti);
  if (s != AP_OK) return ap_fail(&g->err, s, "%s", ap_model_error(g->model));
  *type = ti.type;
  return AP_OK;
}

static void join(ap_graph *g, size_t root, size_t id) {
  const ap_lifetime *l = &g->life[id];
  g->share[id] = root;
  if (l->first < g->req_first[root]) g->req_first[root] = l->first;
  if (l->last > g->req_last[root]) g->req_last[root] = l->last;
}

/* arenaplan's rule: may output `out` of the op at step s take input slot i's bytes? */
static ap_status try_ours(ap_graph *g, size_t sg, const ap_op_info *op, int kind, int32_t s,
                          size_t i, bool *done) {
  size_t base = g->tensor_base[sg];
  size_t out = base + (size_t)op->outputs.v[0], x = base + (size_t)op->inputs.v[i];
  const ap_lifetime *lo = &g->life[out], *lx = &g->life[x];
  if (lx->kind != AP_KIND_INTERMEDIATE || !lx->planned || lx->bytes != lo->bytes ||
      lx->producer < 0 || lx->producer >= s)
    return AP_OK;
  size_t r = root_of(g, x);
  if (kind == SHARE_MODIFY) {
    int tx = 0, to = 0;
    ap_status st = tensor_type(g, sg, (size_t)op->inputs.v[i], &tx);
    if (st == AP_OK) st = tensor_type(g, sg, (size_t)op->outputs.v[0], &to);
    if (st != AP_OK) return st;
    /* Equal type and bytes: the output's shape (broadcasting only widens). */
    if (tx != to || g->req_last[r] != s) return AP_OK;
    for (size_t j = 0; j < op->inputs.n; j++) {
      int32_t y = op->inputs.v[j];
      if (y >= 0 && y != op->inputs.v[i] && g->life[base + (size_t)y].planned &&
          root_of(g, base + (size_t)y) == r)
        return AP_OK;
    }
  }
  join(g, r, out);
  *done = true;
  return AP_OK;
}

static bool is_io(ap_ivec v, int32_t t) {
  for (size_t i = 0; i < v.n; i++)
    if (v.v[i] == t) return true;
  return false;
}

/* TFLite's rule (arena_planner.cc, IdentifyInPlaceTensors and InputTensorCanBeShared), with
 * `refs` its reference counts: readers, plus one for a subgraph input or output. */
static ap_status try_tflite(ap_graph *g, size_t sg, const ap_op_info *op, int kind, int inputs,
                            const uint32_t *refs) {
  size_t base = g->tensor_base[sg];
  size_t out = base + (size_t)op->outputs.v[0];
  const ap_lifetime *lo = &g->life[out];
  ap_ivec sin = ap_model_subgraph_inputs(g->model, sg);
  if (lo->kind != AP_KIND_INTERMEDIATE || !lo->planned) return AP_OK;
  size_t n = op->inputs.n < 3 ? op->inputs.n : 3;
  for (size_t i = 0; i < n && (int)i < inputs; i++) {
    int32_t t = op->inputs.v[i];
    if (t < 0) continue;
    size_t x = base + (size_t)t;
    const ap_lifetime *lx = &g->life[x];
    if (kind == SHARE_MODIFY && (lx->bytes != lo->bytes || lx->bytes <= 4 || refs[x] > 1)) continue;
    if (is_io(sin, t) || !lx->planned ||
        (lx->kind != AP_KIND_INTERMEDIATE && lx->kind != AP_KIND_OUTPUT))
      continue;
    size_t r = root_of(g, x);
    if (kind == SHARE_MODIFY && refs[r] > 1) return AP_OK;
    /* TFLite drops a share whose bytes differ (CalculateAllocations). */
    if (lx->bytes != lo->bytes) return AP_OK;
    g->share[out] = r;
    return AP_OK;
  }
  return AP_OK;
}

/* TFLite frees a group when the last read of any of its tensors is done; a subgraph output
 * in it is never freed. */
static void tflite_group_lifetimes(ap_graph *g, size_t sg) {
  ap_ivec sout = ap_model_subgraph_outputs(g->model, sg);
  size_t base = g->tensor_base[sg], nt = g->tensor_base[sg + 1] - base;
  for (size_t t = 0; t < nt; t++) {
    size_t id = base + t;
    if (g->share[id] == SIZE_MAX) continue;
    size_t r = g->share[id];
    int32_t reader = g->life[id].last_reader;
    if (reader > g->req_last[r] && !is_io(sout, (int32_t)(r - base))) g->req_last[r] = reader;
  }
}

ap_status graph_share_inplace(ap_graph *g) {
  size_t nt = g->tensor_base[g->sg_count];
  if (g->opt.rules == AP_RULES_TFLM)
    return ap_fail(
        &g->err, AP_ERR_UNSUPPORTED,
        "in-place sharing is not part of TFLite Micro's rules (use arenaplan or tflite)");
  bool tflite = g->opt.rules == AP_RULES_TFLITE;
  g->share = ap_calloc(g->alloc, nt ? nt : 1, sizeof *g->share);
  g->req_first = ap_calloc(g->alloc, nt ? nt : 1, sizeof *g->req_first);
  g->req_last = ap_calloc(g->alloc, nt ? nt : 1, sizeof *g->req_last);
  uint32_t *refs = tflite ? ap_calloc(g->alloc, nt ? nt : 1, sizeof *refs) : NULL;
  ap_status st = AP_OK;
  if (!g->share || !g->req_first || !g->req_last || (tflite && !refs)) {
    st = ap_fail(&g->err, AP_ERR_NOMEM, "out of memory for in-place sharing of %zu tensors", nt);
    goto done;
  }
  for (size_t i = 0; i < nt; i++) {
    g->share[i] = SIZE_MAX;
    g->req_first[i] = g->life[i].first;
    g->req_last[i] = g->life[i].last;
  }
  for (size_t sg = 0; tflite && sg < g->sg_count; sg++) {
    size_t base = g->tensor_base[sg];
    ap_ivec in = ap_model_subgraph_inputs(g->model, sg),
            out = ap_model_subgraph_outputs(g->model, sg);
    for (size_t i = 0; i < in.n; i++)
      refs[base + (size_t)in.v[i]]++;
    for (size_t i = 0; i < out.n; i++)
      refs[base + (size_t)out.v[i]]++;
    for (size_t k = 0; k < ap_model_op_count(g->model, sg); k++) {
      ap_op_info op;
      if ((st = ap_model_op(g->model, sg, k, &op)) != AP_OK) {
        st = ap_fail(&g->err, st, "%s", ap_model_error(g->model));
        goto done;
      }
      for (size_t i = 0; i < op.inputs.n; i++)
        if (op.inputs.v[i] >= 0) refs[base + (size_t)op.inputs.v[i]]++;
    }
  }
  /* Steps in order: a group grows along the timeline. */
  for (size_t step = 0; step < g->step_count; step++) {
    size_t sg = g->step_sg[step];
    int32_t k = g->step_op[step];
    if (k < 0) continue;
    size_t ok = g->op_base[sg] + (size_t)k;
    if (g->op_first[ok] != (int32_t)step || g->op_last[ok] != (int32_t)step) continue;
    if (graph_in_segment(g, sg, (size_t)k)) { /* rows in flight: nothing shared inside */
      if ((st = graph_segment_overlap(g, sg, (size_t)k, (int32_t)step)) != AP_OK) goto done;
      continue;
    }
    ap_op_info op;
    if ((st = ap_model_op(g->model, sg, (size_t)k, &op)) != AP_OK) {
      st = ap_fail(&g->err, st, "%s", ap_model_error(g->model));
      goto done;
    }
    int inputs, kind = op.custom ? SHARE_NONE : share_kind(op.builtin, tflite, &inputs);
    bool split = g->opt.no_overlap && ok < g->opt.no_overlap_count && g->opt.no_overlap[ok];
    if (kind == SHARE_NONE && !tflite && !split) st = graph_find_overlap(g, sg, &op, (int32_t)step);
    if (st != AP_OK) goto done;
    if (kind == SHARE_NONE || op.outputs.n < 1 || op.outputs.v[0] < 0) continue;
    if (tflite) {
      st = try_tflite(g, sg, &op, kind, inputs, refs);
    } else {
      const ap_lifetime *lo = &g->life[g->tensor_base[sg] + (size_t)op.outputs.v[0]];
      if (lo->kind != AP_KIND_INTERMEDIATE || !lo->planned || lo->producer != (int32_t)step)
        continue;
      bool done = false;
      for (size_t i = 0; st == AP_OK && !done && i < op.inputs.n && (int)i < inputs; i++)
        if (op.inputs.v[i] >= 0) st = try_ours(g, sg, &op, kind, (int32_t)step, i, &done);
    }
    if (st != AP_OK) goto done;
  }
  for (size_t sg = 0; tflite && sg < g->sg_count; sg++)
    tflite_group_lifetimes(g, sg);
done:
  ap_free(g->alloc, refs);
  return st;
}

bool ap_graph_shares(const ap_graph *g, uint64_t id, uint64_t *root) {
  if (!g || !g->share || id >= g->tensor_base[g->sg_count] || g->share[id] == SIZE_MAX)
    return false;
  if (root) *root = g->share[id];
  return true;
}
