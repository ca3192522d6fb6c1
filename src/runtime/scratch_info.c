/* The scratch buffers kernels asked for, in the order allocate planned them: read by reports
 * that re-plan exactly the runtime's problem (same tensor sizes, same scratch requests). The
 * interpreter keeps no sizes for builtin kernels' scratch (their prepare is pure), so they are
 * computed again here. */
#include "runtime_internal.h"

/* Calls `visit` for every scratch buffer in plan order; stops when it returns true. */
static ap_status each_scratch(const ap_interpreter *cit,
                              bool (*visit)(void *ctx, size_t sg, size_t op, uint64_t bytes),
                              void *ctx) {
  ap_interpreter *it = (ap_interpreter *)cit; /* prepare only reads; messages may change */
  for (size_t sg = 0; sg < it->sg_count; sg++)
    for (size_t k = 0; k < it->sg[sg].op_count; k++) {
      rt_op *o = &it->sg[sg].ops[k];
      if (rt_op_is_custom(o)) {
        const rt_custom *x = o->ext;
        for (uint32_t j = 0; x && j < x->scratch_count; j++)
          if (visit(ctx, sg, k, x->capacity[j])) return AP_OK;
        continue;
      }
      if (!o->ext) continue;
      ap_op_context c = {
          .it = it, .subgraph = (uint32_t)sg, .index = (uint32_t)k, .phase = RT_EVAL, .op = o};
      ap_status s = ap_model_op(it->model, sg, k, &c.info);
      size_t bytes = 0;
      if (s == AP_OK) {
        if (sg == 0 && rt_stream_member(it, (uint32_t)k)) {
          uint64_t b = 0;
          s = rt_stream_scratch(it, NULL, (uint32_t)k, &b);
          bytes = (size_t)b;
        } else {
          s = rt_builtin_scratch_bytes(&c, &bytes);
        }
      }
      if (s != AP_OK) return s;
      if (it->scratch_cap && it->scratch_cap[it->sg[sg].op_base + k] > bytes)
        bytes = it->scratch_cap[it->sg[sg].op_base + k];
      if (visit(ctx, sg, k, bytes)) return AP_OK;
    }
  return AP_OK;
}

static bool count_one(void *ctx, size_t sg, size_t op, uint64_t bytes) {
  (void)sg, (void)op, (void)bytes;
  ++*(size_t *)ctx;
  return false;
}

size_t ap_interpreter_scratch_count(const ap_interpreter *it) {
  size_t n = 0;
  if (it && it->sg && it->allocated) each_scratch(it, count_one, &n);
  return n;
}

typedef struct pick {
  size_t want, seen;
  ap_scratch_info *out;
  bool found;
} pick;

static bool pick_one(void *ctx, size_t sg, size_t op, uint64_t bytes) {
  pick *p = ctx;
  if (p->seen++ != p->want) return false;
  *p->out = (ap_scratch_info){.subgraph = sg, .op = op, .bytes = bytes};
  p->found = true;
  return true;
}

ap_status ap_interpreter_scratch(const ap_interpreter *it, size_t i, ap_scratch_info *out) {
  if (!it || !out) return AP_ERR_ARG;
  if (!it->sg || !it->allocated) return AP_ERR_NOT_ALLOCATED;
  pick p = {i, 0, out, false};
  ap_status s = each_scratch(it, pick_one, &p);
  if (s != AP_OK) return s;
  return p.found ? AP_OK : AP_ERR_RANGE;
}
