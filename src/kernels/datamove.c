/* What the data-movement kernels share: reading shape-deciding integer inputs, type checks. */
#include "kernels/kops_datamove.h"

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
