/* TFLite Micro's offline plans: the "OfflineMemoryAllocation" metadata (tflite-micro
 * docs/memory_management.md; read by micro_allocation_info.cc GetOfflinePlannedOffsets).
 *
 * Format: little-endian int32 words [version, subgraph count, n, offset x n], n the total
 * tensor count of all subgraphs, -1 for a tensor TFLite Micro plans itself. TFLite Micro only
 * checks n. Then, for every subgraph, its tensor i takes word 3 + i: the index is the tensor's
 * index in its subgraph, not the model-wide one the docs describe, so subgraph 1's tensor 0
 * reads subgraph 0's slot. A plan is what TFLite Micro does with it: the offsets of its planned
 * tensors (non-constant, non-variable, non-empty) are kept, every other buffer (scratch,
 * tensors at -1) goes into the gaps by its greedy planner. The head it ends with is the plan
 * strategy "tflm" makes with those offsets fixed. */
#include "arenaplan/graph.h"
#include "tflm_internal.h"

#include <stdio.h>
#include <string.h>

static ap_status fail(char *err, size_t n, ap_status s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static ap_status fail(char *err, size_t n, ap_status s, const char *fmt, ...) {
  if (err && n) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
  }
  return s;
}

static size_t total_tensors(const ap_model *m) {
  size_t n = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    n += ap_model_tensor_count(m, sg);
  return n;
}

/* TFLite Micro's problem and, per request, the offset TFLite Micro reads for it (-1: online). */
typedef struct fixed_view {
  ap_problem *p;
  int64_t *fixed;
  ap_graph *g;
} fixed_view;

static void view_free(fixed_view *v, const ap_allocator *a) {
  ap_problem_destroy(v->p);
  ap_graph_destroy(v->g);
  ap_free(a, v->fixed);
}

/* With `note` non-NULL, a model whose kernels TFLite Micro cannot prepare here (a custom op of
 * another build, like Ethos-U's) still gets its tensors' problem, without scratch buffers, and
 * note says why. */
static ap_status view_build(const ap_model *m, const ap_allocator *a, fixed_view *v, char *note,
                            size_t note_size, char *err, size_t err_size) {
  memset(v, 0, sizeof *v);
  char why[256] = "";
  ap_status st = ap_tflm_problem(m, a, &v->p, why, sizeof why);
  if (st && (st != AP_ERR_UNSUPPORTED || !note)) return fail(err, err_size, st, "%s", why);
  /* ids map to tensors through a graph of the same model (request ids are model-wide). */
  ap_status gs = ap_graph_create(m, &(ap_graph_options){.rules = AP_RULES_TFLM}, a, &v->g);
  if (gs) return fail(err, err_size, gs, "%s", ap_graph_error(v->g));
  if (st) {
    /* A long reason is cut: the note is one line for a person. */
    if (snprintf(note, note_size, "scratch buffers not known: %s", why) < 0) note[0] = '\0';
    if ((st = ap_graph_problem(v->g, -1, 16, &v->p)))
      return fail(err, err_size, st, "%s", ap_graph_error(v->g));
  }
  size_t n = ap_problem_count(v->p);
  v->fixed = ap_calloc(a, n ? n : 1, sizeof *v->fixed);
  if (!v->fixed) return fail(err, err_size, AP_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < n; i++)
    v->fixed[i] = -1;
  return AP_OK;
}

/* Names a request for messages: "tensor 7 of subgraph 0 (name)" or "scratch buffer 2". */
static void describe(const ap_model *m, const fixed_view *v, uint64_t id, char *buf, size_t n) {
  uint32_t sg, t;
  ap_tensor_info ti;
  if (ap_graph_id_tensor(v->g, id, &sg, &t) && ap_model_tensor(m, sg, t, &ti) == AP_OK)
    snprintf(buf, n, "tensor %u of subgraph %u (%s)", t, sg, ti.name);
  else
    snprintf(buf, n, "scratch buffer %llu", (unsigned long long)(id - total_tensors(m)));
}

ap_status ap_tflm_offline_check(const ap_model *m, const int32_t *offsets, size_t count,
                                const ap_allocator *a, ap_tflm_offline_result *out, char *err,
                                size_t err_size) {
  if (!out) return AP_ERR_ARG;
  memset(out, 0, sizeof *out);
  if (!m || (count && !offsets)) return fail(err, err_size, AP_ERR_ARG, "no model or offsets");
  a = ap_alloc_or_default(a);
  if (count != total_tensors(m))
    return fail(err, err_size, AP_ERR_FORMAT, "%zu offsets, the model has %zu tensors", count,
                total_tensors(m));
  fixed_view v;
  ap_status st = view_build(m, a, &v, out->note, sizeof out->note, err, err_size);
  size_t n = v.p ? ap_problem_count(v.p) : 0;
  const ap_request *req = v.p ? ap_problem_requests(v.p) : NULL;
  for (size_t i = 0; !st && i < n; i++) {
    uint32_t sg, t;
    if (!ap_graph_id_tensor(v.g, req[i].id, &sg, &t)) continue; /* scratch: online */
    int32_t o = offsets[t]; /* TFLite Micro's index: the tensor's own, in any subgraph */
    if (o == -1) continue;
    char what[160];
    describe(m, &v, req[i].id, what, sizeof what);
    if (o < 0)
      st = fail(err, err_size, AP_ERR_FORMAT, "%s: offset %d (only -1 may be negative)", what, o);
    else if (o % 16)
      st = fail(err, err_size, AP_ERR_INVALID_PLAN,
                "%s: offset %d is not a multiple of 16 (TFLite Micro's buffer alignment)", what, o);
    v.fixed[i] = o;
  }
  /* Two fixed buffers live at the same time must not share bytes. */
  for (size_t i = 0; !st && i < n; i++)
    for (size_t j = i + 1; !st && v.fixed[i] >= 0 && j < n; j++) {
      if (v.fixed[j] < 0 || req[i].last < req[j].first || req[j].last < req[i].first) continue;
      uint64_t ai = (uint64_t)v.fixed[i], aj = (uint64_t)v.fixed[j];
      if (ai + req[i].size <= aj || aj + req[j].size <= ai) continue;
      char wi[160], wj[160];
      describe(m, &v, req[i].id, wi, sizeof wi);
      describe(m, &v, req[j].id, wj, sizeof wj);
      st = fail(err, err_size, AP_ERR_INVALID_PLAN,
                "%s at [%llu, %llu) and %s at [%llu, %llu) overlap while both live (steps "
                "%d-%d and %d-%d)",
                wi, (unsigned long long)ai, (unsigned long long)(ai + req[i].size), wj,
                (unsigned long long)aj, (unsigned long long)(aj + req[j].size), req[i].first,
                req[i].last, req[j].first, req[j].last);
    }
  ap_plan *plan = NULL;
  if (!st) {
    st = ap_plan_create(v.p, &(ap_plan_options){.strategy = "tflm", .fixed_offsets = v.fixed},
                        &plan);
    if (st) fail(err, err_size, st, "%s", plan ? ap_plan_error(plan) : "out of memory");
  }
  if (!st) {
    out->head_bytes = ap_plan_arena(plan);
    out->lower_bound = ap_plan_lower_bound(plan);
    for (size_t i = 0; i < n; i++) {
      if (v.fixed[i] >= 0)
        out->offline_buffers++;
      else
        out->online_buffers++;
    }
  }
  ap_plan_destroy(plan);
  view_free(&v, a);
  return st;
}

ap_status ap_tflm_offline_build(const ap_model *m, const char *strategy, const ap_allocator *a,
                                ap_offline_plan *out, char *err, size_t err_size) {
  if (!out) return AP_ERR_ARG;
  memset(out, 0, sizeof *out);
  if (!m) return fail(err, err_size, AP_ERR_ARG, "no model");
  a = ap_alloc_or_default(a);
  fixed_view v;
  ap_status st = view_build(m, a, &v, NULL, 0, err, err_size);
  ap_plan *plan = NULL;
  if (!st) {
    st = ap_plan_create(v.p, &(ap_plan_options){.strategy = strategy}, &plan);
    if (st) fail(err, err_size, st, "%s", plan ? ap_plan_error(plan) : "out of memory");
  }
  size_t total = total_tensors(m), nsg = ap_model_subgraph_count(m);
  /* planned[t]: how many subgraphs have a TFLite Micro-planned tensor at index t. */
  uint8_t *planned = NULL;
  if (!st) {
    out->offsets = ap_calloc(a, total ? total : 1, sizeof *out->offsets);
    planned = ap_calloc(a, total ? total : 1, 1);
    if (!out->offsets || !planned) st = fail(err, err_size, AP_ERR_NOMEM, "out of memory");
  }
  if (!st) {
    out->version = 0;
    out->subgraphs = (uint32_t)nsg;
    out->count = total;
    for (size_t i = 0; i < total; i++)
      out->offsets[i] = -1;
    size_t n = ap_problem_count(v.p);
    const ap_request *req = ap_problem_requests(v.p);
    const uint64_t *off = ap_plan_offsets(plan);
    for (size_t i = 0; i < n; i++) {
      uint32_t sg, t;
      if (ap_graph_id_tensor(v.g, req[i].id, &sg, &t) && planned[t] < 255) planned[t]++;
    }
    /* Only a slot that one planned tensor reads can hold an offset: TFLite Micro gives slot t
     * to tensor t of every subgraph. Offsets past int32 stay online. */
    for (size_t i = 0; i < n; i++) {
      uint32_t sg, t;
      if (!ap_graph_id_tensor(v.g, req[i].id, &sg, &t) || planned[t] != 1 || sg != 0 ||
          off[i] > (uint64_t)INT32_MAX)
        continue;
      out->offsets[t] = (int32_t)off[i];
    }
  }
  ap_free(a, planned);
  ap_plan_destroy(plan);
  view_free(&v, a);
  if (st) ap_offline_plan_free(out, a);
  return st;
}
