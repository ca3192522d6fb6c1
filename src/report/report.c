/* The memory report: runs the interpreter (when it can allocate the model) to learn the
 * runtime's tensor sizes, scratch, persistent state and tables, then plans exactly that
 * problem, so the picture, the peak and the estimate all describe one arena. */
#include "report_internal.h"

#include <inttypes.h>
#include <string.h>

static ap_status fail(ap_report *r, ap_status s, const char *msg) {
  return ap_fail(&r->err, s, "%s", msg);
}

/* The smallest caller-owned buffer: allocate once in a roomy buffer, then the runtime reports
 * the exact size that works (ap_memory_usage.total with a caller buffer). */
static uint64_t buffer_need(ap_report *r, const ap_interpreter_options *base, uint64_t device,
                            uint64_t align) {
  uint64_t size = device;
  for (int attempt = 0; attempt < 6; attempt++) {
    /* A multiple of 16: the runtime rounds the buffer's end down to 16 bytes before taking
     * its tables from there, so any remainder would count in the total it reports. */
    if (!ap_add_u64(size, size / 4 + 4096, &size) || !ap_align_up(size, 16, &size) ||
        size > SIZE_MAX - align)
      return 0;
    uint8_t *raw = ap_alloc(r->alloc, (size_t)(size + align));
    if (!raw) return 0;
    ap_interpreter_options io = *base;
    uint64_t p;
    ap_align_up((uintptr_t)raw, align, &p);
    io.arena = (void *)(uintptr_t)p;
    io.arena_size = (size_t)size;
    ap_interpreter *it = NULL;
    ap_memory_usage mu = {0};
    ap_status s = ap_interpreter_create(r->model, &io, &it);
    if (s == AP_OK) s = ap_interpreter_allocate(it);
    if (s == AP_OK) s = ap_interpreter_memory(it, &mu);
    ap_interpreter_destroy(it);
    ap_free(r->alloc, raw);
    if (s == AP_OK) return mu.total;
    if (s != AP_ERR_ARENA_TOO_SMALL) return 0;
  }
  return 0;
}

/* The op of subgraph sg writing tensor t (-1: none). */
static int32_t producer_op(const ap_model *m, size_t sg, int32_t t) {
  for (size_t k = 0; k < ap_model_op_count(m, sg); k++) {
    ap_op_info op;
    if (ap_model_op(m, sg, k, &op) != AP_OK) continue;
    for (size_t i = 0; i < op.outputs.n; i++)
      if (op.outputs.v[i] == t) return (int32_t)k;
  }
  return -1;
}

static bool dynamic_tensors(ap_report *r, const ap_interpreter *it) {
  size_t n = ap_interpreter_dynamic_count(it);
  r->dyn = ap_calloc(r->alloc, n ? n : 1, sizeof *r->dyn);
  if (!r->dyn) return false;
  for (size_t i = 0; i < n; i++) {
    size_t sg, t;
    ap_tensor_info ti;
    if (ap_interpreter_dynamic_tensor(it, i, &sg, &t) != AP_OK ||
        ap_model_tensor(r->model, sg, t, &ti) != AP_OK)
      continue;
    r->dyn[r->dyn_count++] = (ap_report_dynamic){(uint32_t)sg, (int32_t)t, ti.name,
                                                 producer_op(r->model, sg, (int32_t)t)};
  }
  return true;
}

/* Learns the runtime's view; on failure records why in runtime_err and returns false. */
static bool from_runtime(ap_report *r, const ap_report_options *o) {
  ap_interpreter_options io = ap_interpreter_defaults();
  io.strategy = r->strategy;
  io.alignment = r->alignment;
  io.allocator = r->alloc;
  io.inplace = o->inplace;
  io.stream = o->stream;
  io.kernels = o->kernels;
  io.small_scratch = o->small_scratch;
  io.budget = o->budget;
  ap_interpreter *it = NULL;
  bool ok = false;
  ap_memory_usage mu;
  if (o->no_runtime) {
    ap_fail(&r->runtime_err, AP_ERR_ARG, "not tried (no_runtime)");
    return false;
  }
  if (ap_interpreter_create(r->model, &io, &it) != AP_OK || ap_interpreter_allocate(it) != AP_OK ||
      ap_interpreter_memory(it, &mu) != AP_OK) {
    ap_fail(&r->runtime_err, AP_ERR_UNSUPPORTED, "%s", ap_interpreter_error(it));
    goto done;
  }
  r->tensor_bytes = ap_calloc(r->alloc, r->tensor_total ? r->tensor_total : 1, sizeof(uint64_t));
  r->scratch_count = ap_interpreter_scratch_count(it);
  r->runtime_streamed = ap_interpreter_streamed(it);
  r->scratch = ap_calloc(r->alloc, r->scratch_count ? r->scratch_count : 1, sizeof *r->scratch);
  if (!r->tensor_bytes || !r->scratch) {
    ap_fail(&r->runtime_err, AP_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (size_t sg = 0, id = 0; sg < ap_model_subgraph_count(r->model); sg++)
    for (size_t t = 0; t < ap_model_tensor_count(r->model, sg); t++, id++) {
      ap_tensor x;
      r->tensor_bytes[id] = ap_interpreter_tensor(it, sg, t, &x) == AP_OK ? x.bytes : 0;
    }
  if (!dynamic_tensors(r, it)) {
    ap_fail(&r->runtime_err, AP_ERR_NOMEM, "out of memory");
    goto done;
  }
  for (size_t i = 0; i < r->scratch_count; i++)
    if (ap_interpreter_scratch(it, i, &r->scratch[i]) != AP_OK) {
      ap_fail(&r->runtime_err, AP_ERR_RANGE, "scratch %zu unreadable", i);
      goto done;
    }
  r->est.persistent = mu.persistent;
  r->est.tables = mu.tables;
  r->est.arena = mu.arena; /* checked against our plan of the same problem below */
  r->est.buffer_alignment = r->alignment > 16 ? r->alignment : 16;
  r->est.buffer =
      buffer_need(r, &io, mu.arena + mu.persistent + mu.tables, r->est.buffer_alignment);
  ok = true;
done:
  ap_interpreter_destroy(it);
  if (!ok) {
    ap_free(r->alloc, r->tensor_bytes);
    ap_free(r->alloc, r->scratch);
    ap_free(r->alloc, r->dyn);
    r->tensor_bytes = NULL;
    r->scratch = NULL;
    r->scratch_count = 0;
    r->dyn = NULL;
    r->dyn_count = 0;
  }
  return ok;
}

static uint64_t variable_bytes(const ap_model *m) {
  uint64_t sum = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++) {
      ap_tensor_info ti;
      if (ap_model_tensor(m, sg, t, &ti) == AP_OK && ti.is_variable && !ti.is_constant)
        sum += ti.bytes;
    }
  return sum;
}

static bool ivec_has(ap_ivec v, size_t n, int32_t x) {
  for (size_t i = 0; i < n && i < v.n; i++)
    if (v.v[i] == x) return true;
  return false;
}

/* Inputs and outputs of subgraph 0, each tensor once, as planned. */
static uint64_t io_bytes(const ap_report *r) {
  const ap_graph *g = ap_model_plan_graph(r->mp);
  ap_ivec in = ap_model_subgraph_inputs(r->model, 0), out = ap_model_subgraph_outputs(r->model, 0);
  uint64_t sum = 0;
  for (size_t k = 0; k < in.n + out.n; k++) {
    int32_t t = k < in.n ? in.v[k] : out.v[k - in.n];
    bool seen = k < in.n ? ivec_has(in, k, t) : ivec_has(in, in.n, t) || ivec_has(out, k - in.n, t);
    ap_lifetime l;
    if (t < 0 || seen || ap_graph_tensor(g, 0, (size_t)t, &l) != AP_OK || !l.planned) continue;
    sum += l.bytes;
  }
  return sum;
}

static ap_status fill_requests(ap_report *r) {
  const ap_problem *p = ap_model_plan_problem(r->mp, 0);
  const ap_plan *pl = ap_model_plan_plan(r->mp, 0);
  const ap_graph *g = ap_model_plan_graph(r->mp);
  size_t n = ap_problem_count(p);
  const ap_request *q = ap_problem_requests(p);
  const uint64_t *off = ap_plan_offsets(pl);
  r->req = ap_calloc(r->alloc, n ? n : 1, sizeof *r->req);
  if (!r->req) return fail(r, AP_ERR_NOMEM, "out of memory for the report's requests");
  r->req_count = n;
  for (size_t i = 0; i < n; i++) {
    ap_report_request *x = &r->req[i];
    *x = (ap_report_request){.id = q[i].id,
                             .bytes = q[i].size,
                             .first = q[i].first,
                             .last = q[i].last,
                             .offset = off[i],
                             .tensor = -1,
                             .op = -1,
                             .name = "",
                             .producer = -1,
                             .last_reader = -1};
    uint32_t sg, t;
    ap_lifetime l;
    if (ap_graph_id_tensor(g, q[i].id, &sg, &t) && ap_graph_tensor(g, sg, t, &l) == AP_OK) {
      ap_tensor_info ti;
      x->subgraph = sg;
      x->tensor = (int32_t)t;
      if (ap_model_tensor(r->model, sg, t, &ti) == AP_OK) x->name = ti.name;
      x->kind = l.kind == AP_KIND_INPUT    ? AP_REQ_INPUT
                : l.kind == AP_KIND_OUTPUT ? AP_REQ_OUTPUT
                                           : AP_REQ_INTERMEDIATE;
      x->producer = l.producer;
      x->last_reader = l.last_reader;
    } else if (q[i].id >= r->tensor_total && q[i].id - r->tensor_total < r->scratch_count) {
      const ap_scratch_info *s = &r->scratch[q[i].id - r->tensor_total];
      x->kind = AP_REQ_SCRATCH;
      x->subgraph = (uint32_t)s->subgraph;
      x->op = (int32_t)s->op;
      int32_t step = ap_graph_op_step(g, s->subgraph, s->op);
      x->producer = x->last_reader = step;
      r->est.scratch += q[i].size;
      r->est.scratch_requests++;
    } else {
      return ap_fail(&r->err, AP_ERR_RANGE, "request id %llu is neither a tensor nor scratch",
                     (unsigned long long)q[i].id);
    }
  }
  return AP_OK;
}

static void plan_alt(ap_report *r, size_t i, const char *name, ap_model_plan_options o) {
  ap_model_plan *mp = NULL;
  ap_report_alt *a = &r->alts[i];
  *a = (ap_report_alt){.name = name, .rules = ap_rules_name(o.rules), .alignment = o.alignment};
  a->ok = ap_model_plan_create(r->model, &o, r->alloc, &mp) == AP_OK;
  a->arena = a->ok ? ap_model_plan_arena(mp) : 0;
  ap_model_plan_destroy(mp);
}

/* naive on our own problem: the same lifetimes and sizes, no reuse. */
static void naive_alt(ap_report *r) {
  ap_report_alt *a = &r->alts[AP_REPORT_ALT_NAIVE];
  *a = (ap_report_alt){.name = "naive", .rules = "arenaplan", .alignment = r->alignment};
  ap_plan *pl = NULL;
  a->ok = ap_plan_create(ap_model_plan_problem(r->mp, 0), &(ap_plan_options){.strategy = "naive"},
                         &pl) == AP_OK;
  a->arena = a->ok ? ap_plan_arena(pl) : 0;
  ap_plan_destroy(pl);
}

static ap_status build(ap_report *r, const ap_report_options *o) {
  const ap_model *m = r->model;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    if (!ap_add_size(r->tensor_total, ap_model_tensor_count(m, sg), &r->tensor_total))
      return fail(r, AP_ERR_OVERFLOW, "tensor count overflows");
  r->est.from_runtime = from_runtime(r, o);
  uint64_t runtime_arena = r->est.arena;
  ap_model_plan_options po = ap_model_plan_defaults();
  po.strategy = r->strategy;
  po.alignment = r->alignment;
  po.tensor_bytes = r->tensor_bytes;
  po.tensor_bytes_count = r->tensor_bytes ? r->tensor_total : 0;
  po.scratch = r->scratch;
  po.scratch_count = r->scratch_count;
  po.inplace = o->inplace;
  /* The runtime decided whether segments pay (with its kernels' scratch): follow it. */
  po.stream = o->stream && (!r->est.from_runtime || r->runtime_streamed);
  r->inplace = o->inplace;
  ap_status s = ap_model_plan_create(m, &po, r->alloc, &r->mp);
  if (s != AP_OK) return fail(r, s, ap_model_plan_error(r->mp));
  if (ap_model_plan_parts(r->mp) != 1) return fail(r, AP_ERR_UNSUPPORTED, "plan has several parts");
  ap_estimate *e = &r->est;
  e->arena = ap_model_plan_arena(r->mp);
  if (e->from_runtime && e->arena != runtime_arena)
    return ap_fail(&r->err, AP_ERR_INVALID_PLAN,
                   "the report's plan (%llu bytes) differs from the runtime's (%llu bytes)",
                   (unsigned long long)e->arena, (unsigned long long)runtime_arena);
  if (!e->from_runtime) e->persistent = variable_bytes(m);
  e->runtime_error = e->from_runtime ? "" : r->runtime_err.msg;
  size_t file_size = 0;
  ap_model_bytes(m, &file_size);
  e->weights = file_size;
  e->weights_data = ap_model_weight_bytes(m, NULL);
  e->io = AP_MIN(io_bytes(r), e->arena);
  e->intermediates = e->arena - e->io;
  if (!ap_add_u64(e->arena, e->persistent, &e->device) ||
      !ap_add_u64(e->device, e->tables, &e->device) ||
      !ap_add_u64(e->device, e->weights, &e->total))
    return fail(r, AP_ERR_OVERFLOW, "the estimate overflows");
  s = fill_requests(r);
  if (s != AP_OK) return s;
  s = report_live_bytes(r);
  if (s != AP_OK) return s;
  naive_alt(r);
  report_kernel_costs(r);
  plan_alt(r, AP_REPORT_ALT_TFLITE, "tflite", ap_model_plan_tflite());
  plan_alt(r, AP_REPORT_ALT_TFLM, "tflm", ap_model_plan_tflm());
  ap_model_plan_options mo = ap_model_plan_defaults();
  mo.strategy = r->strategy;
  mo.alignment = r->alignment;
  mo.inplace = o->inplace;
  mo.stream = o->stream;
  snprintf(r->model_alt_name, sizeof r->model_alt_name, "%s, no scratch", r->strategy);
  plan_alt(r, AP_REPORT_ALT_MODEL, r->model_alt_name, mo);
  return AP_OK;
}

ap_status ap_report_create(const ap_model *m, const ap_report_options *opt, const ap_allocator *a,
                           ap_report **out) {
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  a = ap_alloc_or_default(a);
  ap_report *r = ap_calloc(a, 1, sizeof *r);
  if (!r) return AP_ERR_NOMEM;
  *out = r;
  r->alloc = a;
  if (!m) return fail(r, AP_ERR_ARG, "no model");
  r->model = m;
  ap_report_options o = opt ? *opt : (ap_report_options){0};
  const char *strategy = o.strategy ? o.strategy : "best";
  if (strlen(strategy) >= sizeof r->strategy)
    return ap_fail(&r->err, AP_ERR_ARG, "strategy name too long: %.40s", strategy);
  strcpy(r->strategy, strategy);
  r->alignment = o.alignment ? o.alignment : 16;
  r->inplace = o.inplace;
  r->stream = o.stream;
  r->kernels = o.kernels;
  r->small_scratch = o.small_scratch;
  r->budget = o.budget;
  if (o.measure < 0 || o.measure > 1000)
    return ap_fail(&r->err, AP_ERR_ARG, "measure: %d invokes (0 to 1000)", o.measure);
  r->measure = o.measure;
  return build(r, &o);
}

void ap_report_destroy(ap_report *r) {
  if (!r) return;
  ap_model_plan_destroy(r->mp);
  report_kernel_costs_free(r);
  report_kernel_curve_free(r);
  ap_free(r->alloc, r->tensor_bytes);
  ap_free(r->alloc, r->scratch);
  ap_free(r->alloc, r->dyn);
  ap_free(r->alloc, r->req);
  ap_free(r->alloc, r->live);
  ap_free(r->alloc, r);
}

const char *ap_report_error(const ap_report *r) {
  return r ? r->err.msg : "no report (out of memory or a NULL argument)";
}
const ap_model *ap_report_model(const ap_report *r) {
  return r ? r->model : NULL;
}
const ap_model_plan *ap_report_plan(const ap_report *r) {
  return r ? r->mp : NULL;
}
const char *ap_report_strategy(const ap_report *r) {
  return r ? r->strategy : "";
}
uint64_t ap_report_alignment(const ap_report *r) {
  return r ? r->alignment : 0;
}
const ap_estimate *ap_report_estimate(const ap_report *r) {
  return r ? &r->est : NULL;
}
size_t ap_report_request_count(const ap_report *r) {
  return r ? r->req_count : 0;
}
const ap_report_request *ap_report_requests(const ap_report *r) {
  return r ? r->req : NULL;
}
size_t ap_report_alt_count(const ap_report *r) {
  return r && r->mp ? AP_REPORT_ALT_COUNT : 0;
}
const ap_report_alt *ap_report_alts(const ap_report *r) {
  return r ? r->alts : NULL;
}

const char *ap_request_kind_name(ap_request_kind k) {
  switch (k) {
  case AP_REQ_INPUT: return "input";
  case AP_REQ_OUTPUT: return "output";
  case AP_REQ_INTERMEDIATE: return "intermediate";
  case AP_REQ_SCRATCH: return "scratch";
  }
  return "unknown";
}

const char *ap_report_op_name(const ap_report *r, size_t sg, int32_t op) {
  ap_op_info oi;
  if (!r || op < 0 || ap_model_op(r->model, sg, (size_t)op, &oi) != AP_OK) return "";
  return oi.custom ? oi.custom : ap_builtin_name(oi.builtin);
}

const char *ap_report_step_op(const ap_report *r, size_t step, uint32_t *subgraph, int32_t *op) {
  uint32_t sg = 0;
  int32_t k = -1;
  if (r && r->mp && ap_graph_step(ap_model_plan_graph(r->mp), step, &sg, &k) != AP_OK) k = -1;
  if (subgraph) *subgraph = sg;
  if (op) *op = k;
  return ap_report_op_name(r, sg, k);
}

const char *report_shape(const ap_report *r, const ap_report_request *q, char *buf, size_t size) {
  ap_tensor_info ti;
  size_t o = 0;
  if (size) buf[0] = '\0';
  if (q->tensor < 0 || ap_model_tensor(r->model, q->subgraph, (size_t)q->tensor, &ti) != AP_OK)
    return buf;
  o += (size_t)snprintf(buf + o, size - o, "[");
  for (size_t i = 0; i < ti.shape.n && o < size; i++)
    o += (size_t)snprintf(buf + o, size - o, "%s%d", i ? "," : "", ti.shape.v[i]);
  if (o < size) snprintf(buf + o, size - o, "]");
  return buf;
}

bool report_has_rings(const ap_report *r) {
  return r && r->mp && ap_graph_segment_count(ap_model_plan_graph(r->mp)) > 0;
}

const char *report_thousands(char *buf, size_t size, uint64_t v) {
  char d[24];
  int n = snprintf(d, sizeof d, "%" PRIu64, v);
  size_t o = 0;
  for (int i = 0; i < n && o + 2 < size; i++) {
    if (i && (n - i) % 3 == 0) buf[o++] = ',';
    buf[o++] = d[i];
  }
  if (size) buf[o < size ? o : size - 1] = '\0';
  return buf;
}

void report_xml_escape(FILE *f, const char *s) {
  for (; s && *s; s++)
    switch (*s) {
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '&': fputs("&amp;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&#39;", f); break;
    default:
      if ((unsigned char)*s < 0x20)
        fputc(' ', f); /* XML 1.0 forbids most controls */
      else
        fputc(*s, f);
    }
}

size_t ap_report_dynamic_count(const ap_report *r) {
  return r ? r->dyn_count : 0;
}
const ap_report_dynamic *ap_report_dynamics(const ap_report *r) {
  return r ? r->dyn : NULL;
}
