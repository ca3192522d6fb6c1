/* SQUEEZE and EXPAND_DIMS (TFLite Micro's squeeze.cc, expand_dims.cc): the same bytes under a
 * shape with dims of size 1 removed or one inserted; the planner may give input and output the
 * same bytes (graph/inplace.c), and then eval has nothing to do. ZEROS_LIKE and FILL
 * (zeros_like.cc, fill.cc): an output of zeros shaped as the input, or of one value shaped by a
 * dims vector (which must be known in prepare, or the op runs as a dynamic one). */
#include "kernels/kops_datamove.h"

#include <string.h>

static ap_status view_common(ap_kctx *c, size_t *scratch, const char *op, int n_in) {
  ap_status s = ap_kxd_begin(c, scratch, op, n_in, n_in);
  return s != AP_OK ? s : ap_kxd_input(c, op, 0, AP_KMAXDIMS);
}

ap_status ap_kx_squeeze_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = view_common(c, scratch, "SQUEEZE", 1);
  if (s != AP_OK) return s;
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  const ap_kop_options *o = c->options;
  bool drop[AP_KMAXDIMS] = {false};
  if (o->squeeze_dims_n <= 0 || !o->squeeze_dims) {
    for (int i = 0; i < in->rank; i++)
      drop[i] = in->dims[i] == 1;
  }
  for (int k = 0; k < o->squeeze_dims_n && o->squeeze_dims; k++) {
    int32_t d = o->squeeze_dims[k], i = d < 0 ? d + in->rank : d;
    if (i < 0 || i >= in->rank || in->dims[i] != 1) {
      return ap_fail(c->err, AP_ERR_FORMAT, "SQUEEZE: squeeze_dims[%d] = %d is not a dim of size 1",
                     k, (int)d);
    }
    drop[i] = true;
  }
  int j = 0;
  for (int i = 0; i < in->rank; i++)
    if (!drop[i]) out->dims[j++] = in->dims[i];
  out->rank = j;
  return ap_kxd_finish(c, "SQUEEZE");
}

ap_status ap_kx_expand_dims_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = view_common(c, scratch, "EXPAND_DIMS", 2);
  if (s != AP_OK) return s;
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  int64_t v[1];
  int n;
  if ((s = ap_kxd_shape_values(c, "EXPAND_DIMS", "axis", c->inputs[1], 1, 1, v, &n)) != AP_OK)
    return s;
  int64_t a = n == 1 && v[0] < 0 ? v[0] + in->rank + 1 : v[0];
  if (n != 1 || a < 0 || a > in->rank) {
    return ap_fail(c->err, AP_ERR_FORMAT, "EXPAND_DIMS: axis %lld out of range for rank %d",
                   n == 1 ? (long long)v[0] : 0LL, in->rank);
  }
  if (in->rank + 1 > AP_KMAXDIMS) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "EXPAND_DIMS: output rank %d exceeds %d",
                   in->rank + 1, AP_KMAXDIMS);
  }
  for (int i = 0, j = 0; i <= in->rank; i++)
    out->dims[i] = i == a ? 1 : in->dims[j++];
  out->rank = in->rank + 1;
  return ap_kxd_finish(c, "EXPAND_DIMS");
}

ap_status ap_kx_view_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  if (!ap_kx_eval_io(c, 1, 2, &in, &out)) return AP_ERR_ARG;
  return ap_reshape_eval(in, out);
}

ap_status ap_kx_zeros_like_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = view_common(c, scratch, "ZEROS_LIKE", 1);
  if (s != AP_OK) return s;
  ap_kxd_shape_like(c->outputs[0], c->inputs[0]);
  return ap_kxd_finish(c, "ZEROS_LIKE");
}

ap_status ap_kx_zeros_like_eval(ap_kctx *c) {
  const ap_kx_params *p = c && c->params ? c->params : NULL;
  size_t n;
  ap_ktensor *out = c && c->n_outputs >= 1 ? c->outputs[0] : NULL;
  if (!p || !out || !out->data || !ap_kshape_is(out, &p->out_shape) || !ap_ktensor_count(out, &n))
    return AP_ERR_ARG;
  /* All-zero bytes are 0 in every type, 0.0f included. */
  memset(out->data, 0, n * ap_ktype_size(out->type));
  return AP_OK;
}

ap_status ap_kx_fill_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kxd_begin(c, scratch, "FILL", 2, 2);
  if (s != AP_OK) return s;
  ap_kx_params *p = c->params;
  const ap_ktensor *dims = c->inputs[0], *value = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (value->rank != 0 || !ap_ktensor_count(value, &n)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "FILL: value must be a scalar (it has rank %d)",
                   value->rank);
  }
  if ((s = ap_kxd_same_type(c, "FILL", value, out)) != AP_OK) return s;
  int64_t v[AP_KMAXDIMS];
  int rank;
  if ((s = ap_kxd_shape_values(c, "FILL", "dims", dims, 1, AP_KMAXDIMS, v, &rank)) != AP_OK)
    return s;
  if (dims->rank != 1) return ap_fail(c->err, AP_ERR_FORMAT, "FILL: dims must be a vector");
  for (int i = 0; i < rank; i++) {
    if (v[i] < 0 || v[i] > INT32_MAX) {
      return ap_fail(c->err, AP_ERR_FORMAT, "FILL: dims[%d] is %lld", i, (long long)v[i]);
    }
    out->dims[i] = (int32_t)v[i];
  }
  out->rank = rank;
  s = ap_kxd_finish(c, "FILL");
  p->in_shape = ap_kshape_of(value); /* eval reads the value, input 1 */
  return s;
}

ap_status ap_kx_fill_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs != 2 || c->n_outputs < 1) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  const ap_ktensor *value = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!value || !out || !value->data || !out->data || !ap_kshape_is(value, &p->in_shape) ||
      !ap_kshape_is(out, &p->out_shape) || value->type != out->type || !ap_ktensor_count(out, &n))
    return AP_ERR_ARG;
  size_t es = ap_ktype_size(out->type);
  for (size_t i = 0; i < n; i++)
    memcpy((unsigned char *)out->data + i * es, value->data, es);
  return AP_OK;
}
