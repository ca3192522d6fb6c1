/* GATHER (TFLite's gather.cc, batch_dims too: slices of `params` along `axis` picked by
 * INT32/INT64 indices; an index outside [0, dim) fails eval, as TFLite's does) and ARG_MAX
 * (arg_min_max.h: the first index of the largest value, compared with `>`, so a NaN never
 * wins) and ARG_MIN (the same walk with `<`; kind 1). */
#include "kernels/kops_datamove.h"
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
  return ap_kxd_int_at(t, i);
}

ap_status ap_kx_gather_check(ap_kctx *c, size_t *scratch, const char *op) {
  ap_status s = ap_kxd_begin(c, scratch, op, 2, 2);
  if (s != AP_OK) return s;
  const ap_ktensor *in = c->inputs[0], *idx = c->inputs[1];
  size_t n;
  if (!ap_ktensor_count(in, &n) || !ap_ktensor_count(idx, &n)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: invalid input shapes", op);
  }
  if (idx->type != AP_INT32 && idx->type != AP_INT64) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "%s: indices are %s, expected INT32 or INT64", op,
                   ap_ktype_name(idx->type));
  }
  return ap_kxd_same_type(c, op, in, c->outputs[0]);
}

ap_status ap_kx_gather_record(ap_kctx *c, const char *op) {
  ((ap_kx_params *)c->params)->in2_shape = ap_kshape_of(c->inputs[1]);
  return ap_kxd_finish(c, op);
}

bool ap_kx_gather_io(const ap_kctx *c, const ap_ktensor **in, const ap_ktensor **idx,
                     ap_ktensor **out) {
  if (!c || !c->params || c->n_inputs != 2 || c->n_outputs < 1) return false;
  const ap_kx_params *p = c->params;
  *in = c->inputs[0], *idx = c->inputs[1], *out = c->outputs[0];
  return *in && *idx && *out && (*in)->data && (*idx)->data && (*out)->data &&
         ap_kshape_is(*in, &p->in_shape) && ap_kshape_is(*idx, &p->in2_shape) &&
         ap_kshape_is(*out, &p->out_shape);
}

ap_status ap_kx_gather_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_gather_check(c, scratch, "GATHER");
  if (s != AP_OK) return s;
  ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0], *idx = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  int axis = c->options->axis < 0 ? c->options->axis + in->rank : c->options->axis;
  if (axis < 0 || axis >= in->rank) {
    return ap_fail(c->err, AP_ERR_FORMAT, "GATHER: axis %d out of range for rank %d",
                   c->options->axis, in->rank);
  }
  int bd = c->options->batch_dims < 0 ? c->options->batch_dims + idx->rank : c->options->batch_dims;
  if (bd < 0 || bd > axis || bd > idx->rank) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "GATHER: batch_dims %d must lie in [0, %d] (the axis and the indices' rank)",
                   c->options->batch_dims, axis < idx->rank ? axis : idx->rank);
  }
  for (int i = 0; i < bd; i++) {
    if (in->dims[i] != idx->dims[i]) {
      return ap_fail(c->err, AP_ERR_FORMAT, "GATHER: batch dim %d is %d in params, %d in indices",
                     i, (int)in->dims[i], (int)idx->dims[i]);
    }
  }
  int rank = in->rank - 1 + idx->rank - bd;
  if (rank > AP_KMAXDIMS) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "GATHER: output rank %d exceeds %d", rank,
                   AP_KMAXDIMS);
  }
  int j = 0;
  for (int i = 0; i < axis; i++)
    out->dims[j++] = in->dims[i];
  for (int i = bd; i < idx->rank; i++)
    out->dims[j++] = idx->dims[i];
  for (int i = axis + 1; i < in->rank; i++)
    out->dims[j++] = in->dims[i];
  out->rank = rank;
  p->axis = axis;
  p->count = bd;
  return ap_kx_gather_record(c, "GATHER");
}

ap_status ap_kx_gather_eval(ap_kctx *c) {
  const ap_ktensor *in, *idx;
  ap_ktensor *out;
  if (!ap_kx_gather_io(c, &in, &idx, &out)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  size_t outer, inner, n_idx, es = ap_ktype_size(in->type);
  if (!outer_inner(in, p->axis, &outer, &inner) || !ap_ktensor_count(idx, &n_idx)) {
    return AP_ERR_ARG;
  }
  int32_t axis_size = in->dims[p->axis];
  for (size_t j = 0; j < n_idx; j++) {
    int64_t v = index_at(idx, j);
    if (v < 0 || v >= axis_size) {
      return ap_fail(c->err, AP_ERR_RANGE, "GATHER: index %lld (position %zu) is outside [0, %d)",
                     (long long)v, j, (int)axis_size);
    }
  }
  /* outer = batch x (dims between the batch dims and the axis); each batch has its own
   * n_idx / batch indices. */
  size_t batch = ap_kxd_span(in, 0, p->count);
  if (batch == 0) return AP_OK;
  size_t per_batch = n_idx / batch, mid = outer / batch, block = inner * es;
  for (size_t b = 0; b < batch; b++) {
    for (size_t m = 0; m < mid; m++) {
      size_t o = b * mid + m;
      for (size_t j = 0; j < per_batch; j++) {
        size_t src = (o * (size_t)axis_size + (size_t)index_at(idx, b * per_batch + j)) * block;
        memcpy((unsigned char *)out->data + (o * per_batch + j) * block,
               (const unsigned char *)in->data + src, block);
      }
    }
  }
  return AP_OK;
}

static ap_status arg_prepare(ap_kctx *c, size_t *scratch, bool min) {
  const char *name = min ? "ARG_MIN" : "ARG_MAX";
  ap_status s = ap_kxd_begin(c, scratch, name, 2, 2);
  if (s != AP_OK) return s;
  ap_kx_params *p = c->params;
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
