/* A model's plan in one call: lifetimes under some rules, the problem, a strategy. */
#include "arenaplan/report.h"
#include "base/base.h"

#include <string.h>

struct ap_model_plan {
  const ap_allocator *alloc;
  ap_errbuf err;
  const ap_model *model;
  ap_graph *graph;
  size_t parts;
  int *part_subgraph; /* -1: whole model */
  ap_problem **problems;
  ap_plan **plans;
};

ap_model_plan_options ap_model_plan_defaults(void) {
  return (ap_model_plan_options){
      .strategy = "best", .rules = AP_RULES_ARENAPLAN, .alignment = 16, .subgraph = -1};
}

ap_model_plan_options ap_model_plan_tflite(void) {
  return (ap_model_plan_options){
      .strategy = "tflite", .rules = AP_RULES_TFLITE, .alignment = 64, .subgraph = -1};
}

ap_model_plan_options ap_model_plan_tflm(void) {
  return (ap_model_plan_options){
      .strategy = "tflm", .rules = AP_RULES_TFLM, .alignment = 16, .subgraph = -1};
}

static ap_status plan_part(ap_model_plan *mp, size_t i, int sg, const ap_model_plan_options *o) {
  mp->part_subgraph[i] = sg;
  ap_status s = ap_graph_problem(mp->graph, sg, o->alignment ? o->alignment : 16, &mp->problems[i]);
  if (s != AP_OK) return ap_fail(&mp->err, s, "%s", ap_graph_error(mp->graph));
  ap_plan_options po = {.strategy = o->strategy, .budget_seconds = o->budget_seconds};
  s = ap_plan_create(mp->problems[i], &po, &mp->plans[i]);
  if (s != AP_OK) return ap_fail(&mp->err, s, "%s", ap_plan_error(mp->plans[i]));
  return AP_OK;
}

ap_status ap_model_plan_create(const ap_model *m, const ap_model_plan_options *opt,
                               const ap_allocator *a, ap_model_plan **out) {
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  a = ap_alloc_or_default(a);
  ap_model_plan *mp = ap_calloc(a, 1, sizeof *mp);
  if (!mp) return AP_ERR_NOMEM;
  *out = mp;
  mp->alloc = a;
  if (!m) return ap_fail(&mp->err, AP_ERR_ARG, "no model");
  mp->model = m;
  ap_model_plan_options o = opt ? *opt : ap_model_plan_defaults();
  size_t nsg = ap_model_subgraph_count(m);
  if (o.subgraph >= 0 && (size_t)o.subgraph >= nsg)
    return ap_fail(&mp->err, AP_ERR_RANGE, "%s: subgraph %d out of range (model has %zu)",
                   ap_model_path(m), o.subgraph, nsg);
  ap_graph_options go = {.rules = o.rules,
                         .preserve_inputs = o.preserve_inputs,
                         .tensor_bytes = o.tensor_bytes,
                         .tensor_bytes_count = o.tensor_bytes_count,
                         .inplace = o.inplace,
                         .stream = o.stream};
  ap_status s = ap_graph_create(m, &go, a, &mp->graph);
  if (s != AP_OK) return ap_fail(&mp->err, s, "%s", ap_graph_error(mp->graph));
  if (o.scratch_count && !o.scratch)
    return ap_fail(&mp->err, AP_ERR_ARG, "%zu scratch requests but no array", o.scratch_count);
  for (size_t i = 0; i < o.scratch_count; i++) {
    s = ap_graph_add_scratch(mp->graph, o.scratch[i].subgraph, o.scratch[i].op, o.scratch[i].bytes,
                             NULL);
    if (s != AP_OK) return ap_fail(&mp->err, s, "%s", ap_graph_error(mp->graph));
  }
  bool per_subgraph = o.subgraph < 0 && o.rules == AP_RULES_TFLITE && nsg > 1;
  mp->parts = per_subgraph ? nsg : 1;
  mp->part_subgraph = ap_calloc(a, mp->parts, sizeof(int));
  mp->problems = ap_calloc(a, mp->parts, sizeof(ap_problem *));
  mp->plans = ap_calloc(a, mp->parts, sizeof(ap_plan *));
  if (!mp->part_subgraph || !mp->problems || !mp->plans)
    return ap_fail(&mp->err, AP_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < mp->parts; i++) {
    s = plan_part(mp, i, per_subgraph ? (int)i : o.subgraph, &o);
    if (s != AP_OK) return s;
  }
  /* Streaming is never worse than not (as the runtime decides): the segment search counts
   * live bytes, not the overlaps a planner then exploits, so a smaller plan without segments
   * wins. Not when reproducing a runtime (tensor_bytes given): the runtime has decided. */
  if (o.stream && !o.tensor_bytes && ap_graph_segment_count(mp->graph)) {
    ap_model_plan *alt = NULL;
    ap_model_plan_options no = o;
    no.stream = false;
    if (ap_model_plan_create(m, &no, a, &alt) == AP_OK &&
        ap_model_plan_arena(alt) < ap_model_plan_arena(mp)) {
      ap_model_plan tmp = *mp;
      *mp = *alt;
      *alt = tmp;
    }
    ap_model_plan_destroy(alt);
  }
  return AP_OK;
}

void ap_model_plan_destroy(ap_model_plan *mp) {
  if (!mp) return;
  for (size_t i = 0; i < mp->parts; i++) {
    if (mp->plans) ap_plan_destroy(mp->plans[i]);
    if (mp->problems) ap_problem_destroy(mp->problems[i]);
  }
  ap_free(mp->alloc, mp->plans);
  ap_free(mp->alloc, mp->problems);
  ap_free(mp->alloc, mp->part_subgraph);
  ap_graph_destroy(mp->graph);
  ap_free(mp->alloc, mp);
}

const char *ap_model_plan_error(const ap_model_plan *mp) {
  return mp ? mp->err.msg : "no plan (out of memory or a NULL argument)";
}
const ap_graph *ap_model_plan_graph(const ap_model_plan *mp) {
  return mp ? mp->graph : NULL;
}
size_t ap_model_plan_parts(const ap_model_plan *mp) {
  return mp && mp->plans ? mp->parts : 0;
}
const ap_problem *ap_model_plan_problem(const ap_model_plan *mp, size_t part) {
  return part < ap_model_plan_parts(mp) ? mp->problems[part] : NULL;
}
const ap_plan *ap_model_plan_plan(const ap_model_plan *mp, size_t part) {
  return part < ap_model_plan_parts(mp) ? mp->plans[part] : NULL;
}

/* Sums a per-part figure; parts that failed to plan count as 0. */
#define SUM_PARTS(mp, expr)                                                                        \
  do {                                                                                             \
    uint64_t sum_ = 0;                                                                             \
    for (size_t i = 0; i < ap_model_plan_parts(mp); i++)                                           \
      if ((mp)->plans[i]) {                                                                        \
        const ap_plan *pl = (mp)->plans[i];                                                        \
        const ap_problem *pr = (mp)->problems[i];                                                  \
        (void)pr;                                                                                  \
        sum_ += (expr);                                                                            \
      }                                                                                            \
    return sum_;                                                                                   \
  } while (0)

uint64_t ap_model_plan_arena(const ap_model_plan *mp) {
  SUM_PARTS(mp, ap_plan_arena(pl));
}
uint64_t ap_model_plan_lower_bound(const ap_model_plan *mp) {
  SUM_PARTS(mp, ap_plan_lower_bound(pl));
}
size_t ap_model_plan_requests(const ap_model_plan *mp) {
  SUM_PARTS(mp, ap_plan_count(pl));
}
size_t ap_model_plan_reused(const ap_model_plan *mp) {
  SUM_PARTS(mp, ap_plan_reused(pr, pl));
}

double ap_model_plan_time_ms(const ap_model_plan *mp) {
  double t = 0;
  for (size_t i = 0; i < ap_model_plan_parts(mp); i++)
    if (mp->plans[i]) t += ap_plan_time_ms(mp->plans[i]);
  return t;
}

bool ap_model_plan_optimal(const ap_model_plan *mp) {
  if (!ap_model_plan_parts(mp)) return false;
  for (size_t i = 0; i < mp->parts; i++)
    if (!mp->plans[i] || !ap_plan_optimal(mp->plans[i])) return false;
  return true;
}

/* A tensor's request id: the tensors of the subgraphs before it, plus its index. */
static uint64_t model_wide_id(const ap_model *m, size_t subgraph, size_t tensor) {
  uint64_t id = tensor;
  for (size_t sg = 0; sg < subgraph; sg++)
    id += ap_model_tensor_count(m, sg);
  return id;
}

bool ap_model_plan_tensor_offset(const ap_model_plan *mp, size_t subgraph, size_t tensor,
                                 uint64_t *offset) {
  if (!ap_model_plan_parts(mp)) return false;
  ap_lifetime l;
  if (ap_graph_tensor(mp->graph, subgraph, tensor, &l) != AP_OK || !l.planned) return false;
  uint64_t root;
  uint32_t rsg, rt;
  if (ap_graph_shares(mp->graph, model_wide_id(mp->model, subgraph, tensor), &root) &&
      ap_graph_id_tensor(mp->graph, root, &rsg, &rt)) {
    subgraph = rsg;
    tensor = rt;
  }
  for (size_t i = 0; i < mp->parts; i++) {
    if (mp->part_subgraph[i] >= 0 && (size_t)mp->part_subgraph[i] != subgraph) continue;
    if (!mp->plans[i]) return false;
    const ap_request *r = ap_problem_requests(mp->problems[i]);
    size_t n = ap_problem_count(mp->problems[i]);
    /* Requests are added in model-wide tensor order: binary search by id. */
    uint32_t sg;
    uint32_t t;
    size_t lo = 0, hi = n;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (!ap_graph_id_tensor(mp->graph, r[mid].id, &sg, &t) || sg > subgraph ||
          (sg == subgraph && t >= tensor))
        hi = mid;
      else
        lo = mid + 1;
    }
    if (lo < n && ap_graph_id_tensor(mp->graph, r[lo].id, &sg, &t) && sg == subgraph &&
        t == tensor) {
      if (offset) *offset = ap_plan_offsets(mp->plans[i])[lo];
      return true;
    }
  }
  return false;
}

uint64_t ap_model_weight_bytes(const ap_model *m, size_t *buffers) {
  /* Buffers a constant tensor uses, each once (tensors may share one; metadata buffers are not
   * weights). A stack bitset over windows of buffer indices keeps this allocation-free. */
  enum { WINDOW = 1 << 16 };
  uint8_t seen[WINDOW / 8];
  uint64_t sum = 0;
  size_t count = 0;
  size_t nb = ap_model_buffer_count(m);
  for (size_t lo = 0; lo < nb; lo += WINDOW) {
    memset(seen, 0, sizeof seen);
    for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
      for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++) {
        ap_tensor_info ti;
        if (ap_model_tensor(m, sg, t, &ti) != AP_OK || !ti.is_constant || ti.is_variable ||
            ti.buffer < lo || ti.buffer - lo >= WINDOW)
          continue;
        size_t k = ti.buffer - lo, sz = 0;
        if (seen[k / 8] & (1u << (k % 8))) continue;
        seen[k / 8] |= (uint8_t)(1u << (k % 8));
        ap_model_buffer(m, ti.buffer, &sz);
        sum += sz;
        count++;
      }
  }
  if (buffers) *buffers = count;
  return sum;
}

static uint64_t io_bytes(const ap_model *m, ap_ivec v, size_t sg) {
  uint64_t sum = 0;
  for (size_t i = 0; i < v.n; i++) {
    ap_tensor_info ti;
    if (v.v[i] >= 0 && ap_model_tensor(m, sg, (size_t)v.v[i], &ti) == AP_OK) sum += ti.bytes;
  }
  return sum;
}

uint64_t ap_model_input_bytes(const ap_model *m, size_t sg) {
  return io_bytes(m, ap_model_subgraph_inputs(m, sg), sg);
}
uint64_t ap_model_output_bytes(const ap_model *m, size_t sg) {
  return io_bytes(m, ap_model_subgraph_outputs(m, sg), sg);
}
