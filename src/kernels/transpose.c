/* TRANSPOSE: output dim i is input dim perm[i]. */
#include "kernels/kernels.h"

#include <string.h>

static ap_status transpose_prepare(const ap_ktensor *input, const ap_ktensor *perm,
                                   ap_ktensor *output, ap_transpose_params *p, ap_errbuf *err) {
  if (!input || !perm || !output || !p) {
    return ap_fail(err, AP_ERR_ARG, "TRANSPOSE: NULL argument");
  }
  memset(p, 0, sizeof *p);
  int rank = input->rank;
  size_t n;
  if (!ap_ktensor_count(input, &n) || rank < 0 || rank > AP_KMAXDIMS) {
    return ap_fail(err, AP_ERR_FORMAT, "TRANSPOSE: invalid input shape");
  }
  size_t pn;
  if (!perm->data || perm->type != AP_INT32 || !ap_ktensor_count(perm, &pn) || pn != (size_t)rank) {
    return ap_fail(err, AP_ERR_FORMAT, "TRANSPOSE: perm must be a constant INT32 vector of %d",
                   rank);
  }
  if (output->type != input->type || ap_ktype_size(input->type) == 0) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "TRANSPOSE: unsupported types %s -> %s",
                   ap_ktype_name(input->type), ap_ktype_name(output->type));
  }
  bool seen[AP_KMAXDIMS] = {false};
  const int32_t *pv = perm->data;
  for (int i = 0; i < rank; i++) {
    int32_t a = pv[i] < 0 ? pv[i] + rank : pv[i];
    if (a < 0 || a >= rank || seen[a]) {
      return ap_fail(err, AP_ERR_FORMAT, "TRANSPOSE: perm[%d] = %d is not a permutation", i,
                     (int)pv[i]);
    }
    seen[a] = true;
    p->perm[i] = a;
    output->dims[i] = input->dims[a];
  }
  p->rank = rank;
  output->rank = rank;
  return AP_OK;
}

ap_status ap_transpose_prepare(const ap_ktensor *input, const ap_ktensor *perm, ap_ktensor *output,
                               ap_transpose_params *p, ap_errbuf *err) {
  ap_status s = transpose_prepare(input, perm, output, p, err);
  if (s == AP_OK) {
    p->in_shape = ap_kshape_of(input);
    p->out_shape = ap_kshape_of(output);
  }
  return s;
}

ap_status ap_transpose_eval(const ap_transpose_params *p, const ap_ktensor *input,
                            ap_ktensor *output) {
  if (!p || !input || !output || !input->data || !output->data) return AP_ERR_ARG;
  if (!ap_kshape_is(input, &p->in_shape) || !ap_kshape_is(output, &p->out_shape)) {
    return AP_ERR_ARG;
  }
  size_t es = ap_ktype_size(input->type), n;
  if (es == 0 || !ap_ktensor_count(output, &n)) return AP_ERR_ARG;
  size_t in_stride[AP_KMAXDIMS], stride[AP_KMAXDIMS];
  size_t s = 1;
  for (int i = p->rank - 1; i >= 0; i--) {
    in_stride[i] = s;
    s *= (size_t)input->dims[i];
  }
  for (int i = 0; i < p->rank; i++)
    stride[i] = in_stride[p->perm[i]];
  int32_t idx[AP_KMAXDIMS] = {0};
  size_t ii = 0;
  const unsigned char *in = input->data;
  unsigned char *out = output->data;
  for (size_t o = 0; o < n; o++) {
    memcpy(out + o * es, in + ii * es, es);
    for (int d = p->rank - 1; d >= 0; d--) {
      if (++idx[d] < output->dims[d]) {
        ii += stride[d];
        break;
      }
      ii -= stride[d] * (size_t)(output->dims[d] - 1);
      idx[d] = 0;
    }
  }
  return AP_OK;
}
