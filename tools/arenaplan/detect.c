/* Finding TFLite_Detection_PostProcess's outputs among a model's and reading its detections. */
#define AP_DETECT_WITH_MODEL
#include "detect.h"

#include <math.h>
#include <string.h>

static bool output_index(const ap_model *m, int32_t tensor, size_t *out) {
  ap_ivec outs = ap_model_subgraph_outputs(m, 0);
  for (size_t k = 0; k < outs.n; k++) {
    if (outs.v[k] != tensor) continue;
    *out = k;
    return true;
  }
  return false;
}

det_outputs det_find_outputs(const ap_model *m) {
  det_outputs d = {0};
  if (!m || ap_model_subgraph_count(m) == 0) return d;
  for (size_t i = 0; i < ap_model_op_count(m, 0); i++) {
    ap_op_info op;
    if (ap_model_op(m, 0, i, &op) != AP_OK || !op.custom ||
        strcmp(op.custom, "TFLite_Detection_PostProcess") != 0 || op.outputs.n != 4)
      continue;
    d.found = output_index(m, op.outputs.v[0], &d.boxes) &&
              output_index(m, op.outputs.v[1], &d.classes) &&
              output_index(m, op.outputs.v[2], &d.scores) &&
              output_index(m, op.outputs.v[3], &d.count);
    if (d.found) return d;
  }
  d.found = false;
  return d;
}

static float at(const ap_tensor *t, size_t i) {
  float v;
  memcpy(&v, (const unsigned char *)t->data + 4 * i, 4);
  return v;
}

size_t det_read(const ap_interpreter *it, const det_outputs *d, double threshold, det_box *out,
                size_t max, size_t *total) {
  ap_tensor b, c, s, n;
  *total = 0;
  if (!d->found || ap_interpreter_output(it, d->boxes, &b) != AP_OK ||
      ap_interpreter_output(it, d->classes, &c) != AP_OK ||
      ap_interpreter_output(it, d->scores, &s) != AP_OK ||
      ap_interpreter_output(it, d->count, &n) != AP_OK || b.type != AP_FLOAT32 ||
      c.type != AP_FLOAT32 || s.type != AP_FLOAT32 || n.type != AP_FLOAT32 || n.bytes < 4 ||
      !b.data || !c.data || !s.data || !n.data)
    return 0;
  /* The op writes count as a float; never trust it beyond the tensors' own sizes. */
  size_t cap = s.bytes / 4;
  if (c.bytes / 4 < cap) cap = c.bytes / 4;
  if (b.bytes / 16 < cap) cap = b.bytes / 16;
  float cnt = at(&n, 0);
  size_t k = isfinite(cnt) && cnt > 0 ? (cnt < (float)cap ? (size_t)cnt : cap) : 0;
  *total = k;
  size_t w = 0;
  for (size_t i = 0; i < k && w < max; i++) {
    float score = at(&s, i);
    if (!(score >= threshold)) continue;
    det_box *x = &out[w++];
    float cv = at(&c, i);
    x->cls = isfinite(cv) && cv >= -1e6f && cv <= 1e6f ? (int)cv : -1;
    x->score = score;
    x->ymin = at(&b, 4 * i);
    x->xmin = at(&b, 4 * i + 1);
    x->ymax = at(&b, 4 * i + 2);
    x->xmax = at(&b, 4 * i + 3);
  }
  return w;
}
