/* GATHER (TFLite's gather.cc with batch_dims 0: slices of `params` along `axis` picked by
 * INT32/INT64 indices; an index outside [0, dim) fails eval, as TFLite's does) and ARG_MAX
 * (arg_min_max.h: the first index of the largest value, compared with `>`, so a NaN never
 * wins) and ARG_MIN (the same walk with `<`; kind 1). */
#include "kernels/kops_mathlogic.h"

#include <string.h>

static bool outer_inner(const ap_ktensor *t, int axis, size_t *outer, size_t *inner) {
  size_t o = 1, in = 1;
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] < 0 || (i < axis && !ap_mul_size(o, (size_t)t->dims[i], &o)) ||
        (i > axis && !ap_mul_size(in, (size_t)t->dims[i], &in))) {
      return false;
    }
  }
  *outer = o;
  *inner = in;
  return true;
}

static int64_t index_at(const ap_ktensor *t, size_t i) {
  return t->type == AP_INT32 ? ((const int32_t *)t->data)[i] : ((const int64_t *)t->data)[i];
}

ap_status ap_kx_gather_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "GATHER", 2, 2, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0], *idx = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!ap_ktensor_count(in, &n) || !ap_ktensor_count(idx, &n)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "GATHER: invalid input shapes");
  }
  if (c->options->batch_dims != 0) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "GATHER: batch_dims %d (only 0 is supported)",
                   c->options->batch_dims);
  }
  if (idx->type != AP_INT32 && idx->type != AP_INT64) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "GATHER: indices are %s, expected INT32 or INT64",
                   ap_ktype_name(idx->type));
  }
  if (out->type != in->type || ap_ktype_size(in->type) == 0) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "GATHER: unsupported types %s -> %s",
                   ap_ktype_name(in->type), ap_ktype_name(out->type));
  }
  int axis = c->options->axis < 0 ? c->options->axis + in->rank : c->options->axis;
  if (axis < 0 || axis >= in->rank) {
    return ap_fail(c->err, AP_ERR_FORMAT, "GATHER: axis %d out of range for rank %d",
                   c->options->axis, in->rank);
  }
  int rank = in->rank - 1 + idx->rank;
  if (rank > AP_KMAXDIMS) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "GATHER: output rank %d exceeds %d", rank,
                   AP_KMAXDIMS);
  }
  int j = 0;
  for (int i = 0; i < axis; i++)
    out->dims[j++] = in->dims[i];
  for (int i = 0; i < idx->rank; i++)
    out->dims[j++] = idx->dims[i];
  for (int i = axis + 1; i < in->rank; i++)
    out->dims[j++] = in->dims[i];
  out->rank = rank;
  if (!ap_ktensor_count(out, &n)) return ap_fail(c->err, AP_ERR_FORMAT, "GATHER: output too large");
  p->axis = axis;
  p->in_shape = ap_kshape_of(in);
  p->in2_shape = ap_kshape_of(idx);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

ap_status ap_kx_gather_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs != 2 || c->n_outputs < 1) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0], *idx = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  if (!in || !idx || !out || !in->data || !idx->data || !out->data ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(idx, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    return AP_ERR_ARG;
  }
  size_t outer, inner, n_idx, es = ap_ktype_size(in->type);
  if (!outer_inner(in, p->axis, &outer, &inner) || !ap_ktensor_count(idx, &n_idx)) {
    return AP_ERR_ARG;
  }
  int32_t axis_size = in->dims[p->axis];
  size_t block = inner * es;
  for (size_t j = 0; j < n_idx; j++) {
    int64_t v = index_at(idx, j);
    if (v < 0 || v >= axis_size) {
      return ap_fail(c->err, AP_ERR_RANGE, "GATHER: index %lld (position %zu) is outside [0, %d)",
                     (long long)v, j, (int)axis_size);
    }
  }
  for (size_t o = 0; o < outer; o++) {
    for (size_t j = 0; j < n_idx; j++) {
      size_t src = (o * (size_t)axis_size + (size_t)index_at(idx, j)) * block;
      memcpy((unsigned char *)out->data + (o * n_idx + j) * block,
             (const unsigned char *)in->data + src, block);
    }
  }
  return AP_OK;
}

static ap_status arg_prepare(ap_kctx *c, size_t *scratch, bool min) {
  const char *name = min ? "ARG_MIN" : "ARG_MAX";
  ap_status s = ap_kx_arity(c, name, 2, 2, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  p->kind = min;
  const ap_ktensor *in = c->inputs[0], *ax = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!ap_ktensor_count(in, &n) || in->rank < 1) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: input needs rank at least 1", name);
  }
  if (!ax->data || (ax->type != AP_INT32 && ax->type != AP_INT64) || !ap_ktensor_count(ax, &n) ||
      n != 1) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "%s: axis must be a constant INT32 or INT64 tensor of one element", name);
  }
  int t = in->type;
  if (t != AP_FLOAT32 && t != AP_INT32 && t != AP_INT8 && t != AP_UINT8 && t != AP_INT16 &&
      t != AP_INT64) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "%s: unsupported input type %s", name,
                   ap_ktype_name(t));
  }
  if (out->type != AP_INT32 && out->type != AP_INT64) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "%s: output type %s, expected INT32 or INT64", name,
                   ap_ktype_name(out->type));
  }
  int64_t a = index_at(ax, 0);
  int64_t axis = a < 0 ? a + in->rank : a;
  if (axis < 0 || axis >= in->rank) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: axis %lld out of range for rank %d", name,
                   (long long)a, in->rank);
  }
  out->rank = in->rank - 1;
  for (int i = 0, j = 0; i < in->rank; i++) {
    if (i != axis) out->dims[j++] = in->dims[i];
  }
  size_t outer, inner;
  if (!outer_inner(in, (int)axis, &outer, &inner)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: invalid shape", name);
  }
  if (in->dims[axis] == 0 && outer * inner > 0) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: dim %d is empty", name, (int)axis);
  }
  p->axis = (int32_t)axis;
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

ap_status ap_kx_argmax_prepare(ap_kctx *c, size_t *scratch) {
  return arg_prepare(c, scratch, false);
}

ap_status ap_kx_argmin_prepare(ap_kctx *c, size_t *scratch) {
  return arg_prepare(c, scratch, true);
}

static double value_at(int t, const void *d, size_t i) {
  switch (t) {
  case AP_FLOAT32: return ((const float *)d)[i];
  case AP_INT32: return ((const int32_t *)d)[i];
  case AP_INT16: return ((const int16_t *)d)[i];
  case AP_INT8: return ((const int8_t *)d)[i];
  default: return ((const uint8_t *)d)[i];
  }
}

/* Element i beats element j (is greater; with `min`, less). INT64 inputs compare as integers:
 * a double would merge neighbours above 2^53. */
static bool beats(int t, const void *d, size_t i, size_t j, bool min) {
  if (t == AP_INT64) {
    int64_t x = ((const int64_t *)d)[i], y = ((const int64_t *)d)[j];
    return min ? x < y : x > y;
  }
  double x = value_at(t, d, i), y = value_at(t, d, j);
  return min ? x < y : x > y;
}

ap_status ap_kx_argmax_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs != 2 || c->n_outputs < 1) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  if (!in || !out || !in->data || !out->data || !ap_kshape_is(in, &p->in_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    return AP_ERR_ARG;
  }
  size_t outer, inner;
  if (!outer_inner(in, p->axis, &outer, &inner)) return AP_ERR_ARG;
  size_t axis_size = (size_t)in->dims[p->axis];
  for (size_t o = 0; o < outer; o++) {
    for (size_t k = 0; k < inner; k++) {
      size_t base = o * axis_size * inner + k, best = base;
      int64_t best_i = 0;
      for (size_t i = 1; i < axis_size; i++) {
        size_t at = base + i * inner;
        if (beats(in->type, in->data, at, best, p->kind)) best = at, best_i = (int64_t)i;
      }
      if (out->type == AP_INT32) {
        ((int32_t *)out->data)[o * inner + k] = (int32_t)best_i;
      } else {
        ((int64_t *)out->data)[o * inner + k] = best_i;
      }
    }
  }
  return AP_OK;
}
