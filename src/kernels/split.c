/* SPLIT and SPLIT_V (TFLite Micro's split.cc, split_v.cc): the input cut along one axis into
 * consecutive pieces, one per output. SPLIT cuts equal pieces (the dim must divide by the
 * number of outputs); SPLIT_V takes the sizes from a vector (one -1: the rest). The axis (and
 * SPLIT_V's sizes) decide the output shapes, so they must be known in prepare. */
#include "kernels/kops_datamove.h"

#include <string.h>

static ap_status read_axis(ap_kctx *c, const char *op, const ap_ktensor *axis, const ap_ktensor *in,
                           int32_t *out) {
  int64_t v[1];
  int n;
  ap_status s = ap_kxd_shape_values(c, op, "axis", axis, 1, 1, v, &n);
  if (s != AP_OK) return s;
  int64_t a = n == 1 && v[0] < 0 ? v[0] + in->rank : v[0];
  if (n != 1 || a < 0 || a >= in->rank) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: axis %lld out of range for rank %d", op,
                   n == 1 ? (long long)v[0] : 0LL, in->rank);
  }
  *out = (int32_t)a;
  return AP_OK;
}

/* The checks both share; *axis read from input `axis_at`. */
static ap_status common(ap_kctx *c, size_t *scratch, const char *op, int n_in, int in_at,
                        int axis_at, int32_t *axis) {
  ap_status s = ap_kxd_begin(c, scratch, op, n_in, n_in);
  if (s != AP_OK) return s;
  ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[in_at];
  size_t n;
  if (!ap_ktensor_count(in, &n)) return ap_fail(c->err, AP_ERR_FORMAT, "%s: invalid shape", op);
  for (int i = 0; i < c->n_outputs; i++) {
    if ((s = ap_kxd_same_type(c, op, in, c->outputs[i])) != AP_OK) return s;
  }
  if (c->options->num_splits != 0 && c->options->num_splits != c->n_outputs) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: num_splits %d but %d outputs", op,
                   (int)c->options->num_splits, c->n_outputs);
  }
  if ((s = read_axis(c, op, c->inputs[axis_at], in, axis)) != AP_OK) return s;
  p->axis = *axis;
  p->count = in_at; /* where eval finds the input */
  p->in_shape = ap_kshape_of(in);
  return AP_OK;
}

static void set_output(ap_kctx *c, int i, const ap_ktensor *in, int axis, int32_t size) {
  ap_ktensor *o = c->outputs[i];
  o->rank = in->rank;
  memcpy(o->dims, in->dims, sizeof o->dims);
  o->dims[axis] = size;
  if (i == 0) ((ap_kx_params *)c->params)->out_shape = ap_kshape_of(o);
}

ap_status ap_kx_split_prepare(ap_kctx *c, size_t *scratch) {
  int32_t axis;
  ap_status s = common(c, scratch, "SPLIT", 2, 1, 0, &axis);
  if (s != AP_OK) return s;
  const ap_ktensor *in = c->inputs[1];
  int32_t d = in->dims[axis];
  if (d % c->n_outputs != 0) {
    return ap_fail(c->err, AP_ERR_FORMAT, "SPLIT: dim %d of size %d does not split into %d", axis,
                   (int)d, c->n_outputs);
  }
  for (int i = 0; i < c->n_outputs; i++)
    set_output(c, i, in, axis, d / c->n_outputs);
  return AP_OK;
}

ap_status ap_kx_split_v_prepare(ap_kctx *c, size_t *scratch) {
  int32_t axis;
  ap_status s = common(c, scratch, "SPLIT_V", 3, 0, 2, &axis);
  if (s != AP_OK) return s;
  const ap_ktensor *in = c->inputs[0];
  int64_t sizes[64];
  int n;
  if (c->n_outputs > 64) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "SPLIT_V: %d outputs (at most 64)", c->n_outputs);
  }
  if ((s = ap_kxd_shape_values(c, "SPLIT_V", "size_splits", c->inputs[1], 1, 64, sizes, &n)) !=
      AP_OK)
    return s;
  if (n != c->n_outputs) {
    return ap_fail(c->err, AP_ERR_FORMAT, "SPLIT_V: %d size_splits for %d outputs", n,
                   c->n_outputs);
  }
  int64_t d = in->dims[axis], known = 0;
  int unknown = -1;
  for (int i = 0; i < n; i++) {
    if (sizes[i] == -1 && unknown < 0) {
      unknown = i;
    } else if (sizes[i] < 0 || sizes[i] > d) {
      return ap_fail(c->err, AP_ERR_FORMAT, "SPLIT_V: size_splits[%d] is %lld", i,
                     (long long)sizes[i]);
    } else {
      known += sizes[i];
    }
  }
  if (unknown >= 0 && known <= d) sizes[unknown] = d - known, known = d;
  if (known != d) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "SPLIT_V: size_splits add up to %lld, the dim %d has %lld elements",
                   (long long)known, axis, (long long)d);
  }
  for (int i = 0; i < n; i++)
    set_output(c, i, in, axis, (int32_t)sizes[i]);
  return AP_OK;
}

ap_status ap_kx_split_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs < 2 || c->n_outputs < 1) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  int axis = p->axis;
  const ap_ktensor *in = p->count < c->n_inputs ? c->inputs[p->count] : NULL;
  if (!in || !in->data || !ap_kshape_is(in, &p->in_shape)) return AP_ERR_ARG;
  /* The outputs must tile the input along the axis: anything else would overrun. */
  int64_t total = 0;
  for (int i = 0; i < c->n_outputs; i++) {
    const ap_ktensor *o = c->outputs[i];
    if (!o || o->rank != in->rank || o->type != in->type) return AP_ERR_ARG;
    for (int k = 0; k < in->rank; k++)
      if (k != axis && o->dims[k] != in->dims[k]) return AP_ERR_ARG;
    if (o->dims[axis] < 0) return AP_ERR_ARG;
    if (o->dims[axis] > 0 && !o->data && ap_kxd_span(in, 0, in->rank) > 0) return AP_ERR_ARG;
    total += o->dims[axis];
  }
  if (total != in->dims[axis]) return AP_ERR_ARG;
  size_t es = ap_ktype_size(in->type);
  size_t outer = ap_kxd_span(in, 0, axis), inner = ap_kxd_span(in, axis + 1, in->rank) * es;
  const unsigned char *src = in->data;
  for (size_t k = 0; k < outer; k++) {
    for (int i = 0; i < c->n_outputs; i++) {
      size_t block = (size_t)c->outputs[i]->dims[axis] * inner;
      if (block) memcpy((unsigned char *)c->outputs[i]->data + k * block, src, block);
      src += block;
    }
  }
  return AP_OK;
}
