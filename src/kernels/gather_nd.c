/* GATHER_ND (TFLite's gather_nd.cc): indices [..., d] address d leading dims of `params`; each
 * index row picks the slice of the remaining dims. Output: indices' dims but the last, then
 * params' dims from d on. An index outside its dim fails eval (TFLite checks the same), so no
 * read goes out of bounds. */
#include "kernels/kops_datamove.h"

#include <string.h>

ap_status ap_kx_gather_nd_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_gather_check(c, scratch, "GATHER_ND");
  if (s != AP_OK) return s;
  ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0], *idx = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  if (in->rank < 1 || idx->rank < 1) {
    return ap_fail(c->err, AP_ERR_FORMAT, "GATHER_ND: params and indices need rank at least 1");
  }
  int d = idx->dims[idx->rank - 1];
  if (d < 1 || d > in->rank) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "GATHER_ND: index depth %d must be between 1 and the params rank %d", d,
                   in->rank);
  }
  int rank = idx->rank - 1 + in->rank - d;
  if (rank > AP_KMAXDIMS) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "GATHER_ND: output rank %d exceeds %d", rank,
                   AP_KMAXDIMS);
  }
  int j = 0;
  for (int i = 0; i < idx->rank - 1; i++)
    out->dims[j++] = idx->dims[i];
  for (int i = d; i < in->rank; i++)
    out->dims[j++] = in->dims[i];
  out->rank = rank;
  p->count = d;
  return ap_kx_gather_record(c, "GATHER_ND");
}

ap_status ap_kx_gather_nd_eval(ap_kctx *c) {
  const ap_ktensor *in, *idx;
  ap_ktensor *out;
  if (!ap_kx_gather_io(c, &in, &idx, &out)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  int d = p->count;
  size_t slice = 1, n_idx, es = ap_ktype_size(in->type);
  for (int i = d; i < in->rank; i++)
    slice *= (size_t)in->dims[i];
  if (!ap_ktensor_count(idx, &n_idx)) return AP_ERR_ARG;
  n_idx /= (size_t)d;
  size_t block = slice * es;
  for (size_t r = 0; r < n_idx; r++) {
    size_t pos = 0;
    for (int k = 0; k < d; k++) {
      size_t at = r * (size_t)d + (size_t)k;
      int64_t v = idx->type == AP_INT32 ? ((const int32_t *)idx->data)[at]
                                        : ((const int64_t *)idx->data)[at];
      if (v < 0 || v >= in->dims[k]) {
        return ap_fail(c->err, AP_ERR_RANGE,
                       "GATHER_ND: index %lld (row %zu, component %d) is outside [0, %d)",
                       (long long)v, r, k, (int)in->dims[k]);
      }
      pos = pos * (size_t)in->dims[k] + (size_t)v;
    }
    memcpy((unsigned char *)out->data + r * block, (const unsigned char *)in->data + pos * block,
           block);
  }
  return AP_OK;
}
