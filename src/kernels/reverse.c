/* REVERSE_V2 (TFLite's reverse.cc): the input with the listed axes reversed; the axes must be
 * a constant INT32/INT64 vector (negative axes count from the end). Any element type, copied as
 * bytes. */
#include "kernels/kops.h"

#include <string.h>

ap_status ap_kx_reverse_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "REVERSE_V2", 2, 2, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0], *axes = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!ap_ktensor_count(in, &n)) return ap_fail(c->err, AP_ERR_FORMAT, "REVERSE_V2: bad shape");
  if (out->type != in->type || ap_ktype_size(in->type) == 0) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "REVERSE_V2: unsupported types %s -> %s",
                   ap_ktype_name(in->type), ap_ktype_name(out->type));
  }
  if (!axes->data || (axes->type != AP_INT32 && axes->type != AP_INT64) || axes->rank != 1 ||
      !ap_ktensor_count(axes, &n) || n > (size_t)AP_MAX(in->rank, 1)) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "REVERSE_V2: axis must be a constant INT32 or INT64 vector of at most %d",
                   in->rank);
  }
  for (size_t i = 0; i < n; i++) {
    int64_t a = axes->type == AP_INT32 ? ((const int32_t *)axes->data)[i]
                                       : ((const int64_t *)axes->data)[i];
    int64_t r = a < 0 ? a + in->rank : a;
    if (r < 0 || r >= in->rank || p->stride[r] == -1) {
      return ap_fail(c->err, AP_ERR_FORMAT, "REVERSE_V2: axis %lld is invalid for rank %d",
                     (long long)a, in->rank);
    }
    p->stride[r] = -1; /* reversed dims; begin[] keeps 0 for the others */
  }
  out->rank = in->rank;
  memcpy(out->dims, in->dims, sizeof out->dims);
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

ap_status ap_kx_reverse_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  size_t n;
  if (!ap_kx_eval_io(c, 2, 2, &in, &out) || !ap_ktensor_count(in, &n)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  size_t es = ap_ktype_size(in->type);
  if (n == 0) return AP_OK;
  /* Walk the output in order; the input position moves backwards along reversed dims. */
  int rank = in->rank;
  int64_t step[AP_KMAXDIMS], pos = 0, s = 1;
  for (int i = rank - 1; i >= 0; i--) {
    bool rev = p->stride[i] == -1;
    step[i] = rev ? -s : s;
    if (rev) pos += s * (in->dims[i] - 1);
    s *= in->dims[i];
  }
  ap_kx_strided_copy(out->data, in->data, es, n, rank, in->dims, step, pos);
  return AP_OK;
}
