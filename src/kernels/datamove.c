/* What the data-movement kernels share: prepare's start and end, reading shape-deciding
 * integer inputs, type checks. */
#include "kernels/kops_datamove.h"

#include <string.h>

ap_status ap_kxd_begin(ap_kctx *c, size_t *scratch, const char *op, int n_in, int max_in) {
  ap_status s = ap_kx_arity(c, op, n_in, max_in, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  memset(c->params, 0, sizeof(ap_kx_params));
  return AP_OK;
}

ap_status ap_kxd_input(ap_kctx *c, const char *op, int min_rank, int max_rank) {
  const ap_ktensor *in = c->inputs[0];
  size_t n;
  if (in->rank < min_rank || in->rank > max_rank || !ap_ktensor_count(in, &n)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: input has rank %d, expected %d to %d", op, in->rank,
                   min_rank, max_rank);
  }
  return ap_kxd_same_type(c, op, in, c->outputs[0]);
}

ap_status ap_kxd_finish(ap_kctx *c, const char *op) {
  ap_kx_params *p = c->params;
  size_t n;
  if (!ap_ktensor_count(c->outputs[0], &n)) {
    return ap_fail(c->err, AP_ERR_OVERFLOW, "%s: output too large", op);
  }
  p->in_shape = ap_kshape_of(c->inputs[0]);
  p->out_shape = ap_kshape_of(c->outputs[0]);
  return AP_OK;
}

int64_t ap_kxd_int_at(const ap_ktensor *t, size_t i) {
  return t->type == AP_INT32 ? ((const int32_t *)t->data)[i] : ((const int64_t *)t->data)[i];
}

ap_status ap_kxd_shape_values(ap_kctx *c, const char *op, const char *what, const ap_ktensor *t,
                              int max_rank, int max_n, int64_t *v, int *n) {
  size_t count;
  if (!t->data) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "%s: unsupported %s: not known before running, and it decides the output shape",
                   op, what);
  }
  if ((t->type != AP_INT32 && t->type != AP_INT64) || t->rank > max_rank ||
      !ap_ktensor_count(t, &count) || count > (size_t)max_n) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "%s: %s must be INT32 or INT64, of rank at most %d and %d values at most", op,
                   what, max_rank, max_n);
  }
  for (size_t i = 0; i < count; i++)
    v[i] = ap_kxd_int_at(t, i);
  *n = (int)count;
  return AP_OK;
}

ap_status ap_kxd_same_type(ap_kctx *c, const char *op, const ap_ktensor *in,
                           const ap_ktensor *out) {
  if (out->type != in->type || ap_ktype_size(in->type) == 0) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "%s: unsupported types %s -> %s", op,
                   ap_ktype_name(in->type), ap_ktype_name(out->type));
  }
  return AP_OK;
}

size_t ap_kxd_span(const ap_ktensor *t, int from, int to) {
  size_t n = 1;
  for (int i = from; i < to; i++)
    n *= (size_t)t->dims[i];
  return n;
}

void ap_kxd_shape_like(ap_ktensor *out, const ap_ktensor *in) {
  out->rank = in->rank;
  memcpy(out->dims, in->dims, sizeof out->dims);
}
