/* GATHER_ND (TFLite's gather_nd.cc): indices [..., d] address d leading dims of `params`; each
 * index row picks the slice of the remaining dims. Output: indices' dims but the last, then
 * params' dims from d on. An index outside its dim fails eval (TFLite checks the same), so no
 * read goes out of bounds. */
#include "kernels/kops.h"

#include <string.h>

ap_status ap_kx_gather_nd_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "GATHER_ND", 2, 2, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0], *idx = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!ap_ktensor_count(in, &n) || !ap_ktensor_count(idx, &n)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "GATHER_ND: invalid input shapes");
  }
  if (idx->type != AP_INT32 && idx->type != AP_INT64) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "GATHER_ND: indices are %s, expected INT32 or INT64",
                   ap_ktype_name(idx->type));
  }
  if (out->type != in->type || ap_ktype_size(in->type) == 0) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "GATHER_ND: unsupported types %s -> %s",
                   ap_ktype_name(in->type), ap_ktype_name(out->type));
  }
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
  if (!ap_ktensor_count(out, &n)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "GATHER_ND: output too large");
  }
  p->count = d;
  p->in_shape = ap_kshape_of(in);
  p->in2_shape = ap_kshape_of(idx);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

ap_status ap_kx_gather_nd_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs != 2 || c->n_outputs < 1) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0], *idx = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  if (!in || !idx || !out || !in->data || !idx->data || !out->data ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(idx, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    return AP_ERR_ARG;
  }
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
