/* SLICE and STRIDED_SLICE (TFLite's slice.cc, strided_slice.cc and strided_slice_logic.h).
 * Both reduce to a start and a stride per input dim and a loop shape, kept in params; eval walks
 * the loop shape. begin/size/end/strides must be constant (their values decide the output
 * shape, which prepare must know). STRIDED_SLICE takes begin, end and shrink_axis masks and
 * `offset`; ellipsis and new-axis masks are refused. */
#include "kernels/kops.h"

#include <limits.h>
#include <string.h>

/* A constant INT32/INT64 vector of `rank` elements, read into v. */
static ap_status const_vector(ap_kctx *c, const char *op, const char *what, const ap_ktensor *t,
                              int rank, int64_t *v) {
  size_t n;
  if (!t->data) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "%s: unsupported %s: not a constant tensor, and its values decide the output "
                   "shape, which must be known before running",
                   op, what);
  }
  if ((t->type != AP_INT32 && t->type != AP_INT64) || t->rank != 1 || !ap_ktensor_count(t, &n) ||
      n != (size_t)rank) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: %s must be an INT32 or INT64 vector of %d", op, what,
                   rank);
  }
  for (int i = 0; i < rank; i++)
    v[i] = t->type == AP_INT32 ? ((const int32_t *)t->data)[i] : ((const int64_t *)t->data)[i];
  return AP_OK;
}

static ap_status common(ap_kctx *c, const char *op, int n_in) {
  ap_status s = ap_kx_arity(c, op, n_in, n_in, 1);
  if (s != AP_OK) return s;
  const ap_ktensor *in = c->inputs[0];
  size_t n;
  if (!ap_ktensor_count(in, &n)) return ap_fail(c->err, AP_ERR_FORMAT, "%s: invalid shape", op);
  if (c->outputs[0]->type != in->type || ap_ktype_size(in->type) == 0) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "%s: unsupported types %s -> %s", op,
                   ap_ktype_name(in->type), ap_ktype_name(c->outputs[0]->type));
  }
  memset(c->params, 0, sizeof(ap_kx_params));
  return AP_OK;
}

ap_status ap_kx_slice_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = common(c, "SLICE", 3);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  int64_t begin[AP_KMAXDIMS], size[AP_KMAXDIMS];
  if ((s = const_vector(c, "SLICE", "begin", c->inputs[1], in->rank, begin)) != AP_OK ||
      (s = const_vector(c, "SLICE", "size", c->inputs[2], in->rank, size)) != AP_OK) {
    return s;
  }
  for (int i = 0; i < in->rank; i++) {
    int64_t d = in->dims[i], b = begin[i];
    int64_t z = b < 0 || b > d ? -1 : size[i] == -1 ? d - b : size[i];
    if (z < 0 || z > d - b) {
      return ap_fail(c->err, AP_ERR_FORMAT,
                     "SLICE: dim %d: begin %lld size %lld do not fit its %lld elements", i,
                     (long long)begin[i], (long long)size[i], (long long)d);
    }
    p->begin[i] = (int32_t)b;
    p->stride[i] = 1;
    out->dims[i] = (int32_t)z;
  }
  out->rank = in->rank;
  p->in_shape = ap_kshape_of(in);
  p->in2_shape = ap_kshape_of(out); /* the loop shape */
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

ap_status ap_kx_strided_slice_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = common(c, "STRIDED_SLICE", 4);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  const ap_kop_options *o = c->options;
  if (o->ss.ellipsis_mask || o->ss.new_axis_mask) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "STRIDED_SLICE: ellipsis_mask %d / new_axis_mask %d are not supported",
                   (int)o->ss.ellipsis_mask, (int)o->ss.new_axis_mask);
  }
  int rank = in->rank;
  int64_t begin[AP_KMAXDIMS], end[AP_KMAXDIMS], stride[AP_KMAXDIMS];
  if ((s = const_vector(c, "STRIDED_SLICE", "begin", c->inputs[1], rank, begin)) != AP_OK ||
      (s = const_vector(c, "STRIDED_SLICE", "end", c->inputs[2], rank, end)) != AP_OK ||
      (s = const_vector(c, "STRIDED_SLICE", "strides", c->inputs[3], rank, stride)) != AP_OK) {
    return s;
  }
  int j = 0;
  for (int i = 0; i < rank; i++) {
    int64_t d = in->dims[i], st = stride[i];
    if (st == 0 || st < INT32_MIN || st > INT32_MAX) {
      return ap_fail(c->err, AP_ERR_FORMAT, "STRIDED_SLICE: stride %lld of dim %d", (long long)st,
                     i);
    }
    bool shrink = o->ss.shrink_axis_mask & (1 << i);
    /* strided_slice_logic.h: negative indices count from the end, then clamp to the range a
     * walk in the stride's direction can start or stop at; masks take the whole range. */
    int64_t b = begin[i] < 0 ? begin[i] + d : begin[i];
    b = st > 0 ? clamp64(b, 0, d) : clamp64(b, -1, d - 1);
    if (o->ss.begin_mask & (1 << i)) b = st > 0 ? 0 : d - 1;
    int64_t e;
    if (shrink) {
      if (b < 0 || b >= d) {
        return ap_fail(c->err, AP_ERR_FORMAT,
                       "STRIDED_SLICE: shrunk dim %d: index %lld is outside its %lld elements", i,
                       (long long)begin[i], (long long)d);
      }
      e = b + 1;
      st = 1;
    } else {
      /* b is within [-1, d], so only a hostile end can overflow the sum; clamp it first. */
      e = o->ss.offset ? clamp64(end[i], -2 * (int64_t)INT32_MAX, 2 * (int64_t)INT32_MAX) + b
                       : end[i];
      if (e < 0) e += d;
      e = st > 0 ? clamp64(e, 0, d) : clamp64(e, -1, d - 1);
      if (o->ss.end_mask & (1 << i)) e = st > 0 ? d : -1;
    }
    int64_t n = st > 0 ? (e - b + st - 1) / st : (b - e + (-st) - 1) / (-st);
    if (n < 0) n = 0;
    p->begin[i] = (int32_t)b;
    p->stride[i] = (int32_t)st;
    p->in2_shape.dims[i] = (int32_t)n;
    if (!shrink) out->dims[j++] = (int32_t)n;
  }
  p->in2_shape.rank = rank;
  out->rank = j;
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

ap_status ap_kx_slice_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  if (!ap_kx_eval_io(c, 1, INT_MAX, &in, &out)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  const ap_kshape *loop = &p->in2_shape;
  int rank = loop->rank;
  size_t n = 1, es = ap_ktype_size(in->type);
  for (int i = 0; i < rank; i++)
    n *= (size_t)loop->dims[i];
  if (n == 0) return AP_OK;
  int64_t step[AP_KMAXDIMS], pos = 0, s = 1;
  for (int i = rank - 1; i >= 0; i--) {
    step[i] = s * p->stride[i];
    pos += s * p->begin[i];
    s *= in->dims[i];
  }
  ap_kx_strided_copy(out->data, in->data, es, n, rank, loop->dims, step, pos);
  return AP_OK;
}
