/* A streamed plan's entry point: the only reference from a planned firmware to the streaming
 * code (stream.c), so that firmware without segments does not link it or these checks. */
#include "kernels/stream_kernels.h"
#include "planned.h"
#include "runtime_internal.h"

#include <string.h>

static ap_status load(ap_interpreter *it, const uint32_t *plan) {
  uint32_t no = plan[PL_OPS];
  const uint32_t *seg = plan + PL_HEAD + plan[PL_TENSORS] + 2 * (size_t)no;
  for (uint32_t k = 0; k < no; k++)
    if (seg[2 * k] > AP_SEGMENT_MAX_OPS || seg[2 * k] > no - k)
      return rt_fail(it, AP_ERR_INVALID_PLAN, "segment at op %u out of range", k);
  uint32_t *table = rt_tables_alloc(it, (no ? no : 1) * 2 * sizeof(uint32_t));
  if (!table) return rt_nomem(it);
  memcpy(table, seg, no * 2 * sizeof(uint32_t));
  it->segments = table;
  it->stream_run = rt_stream_run;
  return AP_OK;
}

/* A ring's rows (the segments' table) fit the arena at its offset: rows of its shape's row. */
static ap_status check_ring(ap_interpreter *it, const uint32_t *plan, uint32_t k, int32_t t) {
  const rt_tensor *x = t >= 0 ? rt_rec(it, 0, (size_t)t) : NULL;
  uint32_t w = x ? plan[PL_HEAD + t] : 0, rows = it->segments[2 * k + 1];
  if (!x || !(w & PL_RING) || x->rank != 4 || x->dims[1] <= 0 || rows > (uint32_t)x->dims[1] ||
      !pl_in_arena(it, PL_OFFSET(w), rows * (uint64_t)(rt_tensor_bytes(x) / (size_t)x->dims[1])))
    return rt_fail(it, AP_ERR_INVALID_PLAN, "op %u: its ring is not in the arena", k);
  return AP_OK;
}

static ap_status check(ap_interpreter *it, const uint32_t *plan) {
  uint32_t nt = plan[PL_TENSORS], rings = 0;
  for (uint32_t t = 0; t < nt; t++)
    rings += (plan[PL_HEAD + t] & PL_RING) != 0;
  const uint32_t *w = plan + PL_HEAD + nt;
  for (uint32_t k = 0; k < it->sg[0].op_count; k++, w += 2) {
    ap_op_info op;
    ap_status s = ap_model_op(it->model, 0, k, &op);
    if (s == AP_OK && it->segments[2 * k + 1]) {
      s = check_ring(it, plan, k, op.outputs.n ? op.outputs.v[0] : -1);
      rings--;
    }
    uint64_t need = 0;
    if (s == AP_OK && rt_stream_member(it, k)) s = rt_stream_scratch(it, NULL, k, &need);
    if (s != AP_OK) return s;
    if (need > (w[0] ? w[1] : 0)) {
      /* A plan made where the segment ran without the direct kits: run it so, and check its
       * ops again. */
      if (AP_KSTREAM_WIN && rt_stream_lean_retry(it, k)) return check(it, plan);
      return rt_fail(it, AP_ERR_INVALID_PLAN, "op %u: a segment's scratch exceeds the plan's", k);
    }
  }
  if (rings) return rt_fail(it, AP_ERR_INVALID_PLAN, "a ring that no segment's op writes");
  return AP_OK;
}

static const rt_planned_stream stream = {load, rt_stream_member, check};

ap_status ap_interpreter_create_planned_streamed(const void *model, size_t model_size,
                                                 const uint32_t *plan, size_t plan_words,
                                                 void *buffer, size_t buffer_size,
                                                 ap_interpreter **out) {
  return rt_create_planned(model, model_size, plan, plan_words, buffer, buffer_size, &stream, out);
}
