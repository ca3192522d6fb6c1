/* MIRROR_PAD (TFLite Micro's mirror_pad.cc): padding mirrored from the input's own edge, with
 * the edge element (SYMMETRIC) or without it (REFLECT). Paddings: a constant INT32/INT64
 * [rank, 2], each at most the dim (less one for REFLECT), as TFLite requires; larger ones would
 * read outside the input. */
#include "kernels/kops_datamove.h"

#include <string.h>

ap_status ap_kx_mirror_pad_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kxd_begin(c, scratch, "MIRROR_PAD", 2, 2);
  if (s != AP_OK || (s = ap_kxd_input(c, "MIRROR_PAD", 0, AP_KMAXDIMS)) != AP_OK) return s;
  ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0], *pads = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  int mode = c->options->mirror_mode;
  if (mode != 0 && mode != 1) {
    return ap_fail(c->err, AP_ERR_FORMAT, "MIRROR_PAD: mode %d is neither REFLECT nor SYMMETRIC",
                   mode);
  }
  int64_t v[2 * AP_KMAXDIMS];
  int np;
  s = ap_kxd_shape_values(c, "MIRROR_PAD", "paddings", pads, 2, 2 * AP_KMAXDIMS, v, &np);
  if (s != AP_OK) return s;
  if (np != 2 * in->rank || pads->rank != 2 || pads->dims[1] != 2) {
    return ap_fail(c->err, AP_ERR_FORMAT, "MIRROR_PAD: paddings must be an INT32 or INT64 [%d, 2]",
                   in->rank);
  }
  int offset = mode == 0 ? 1 : 0;
  for (int i = 0; i < in->rank; i++) {
    int64_t lo = v[2 * i], hi = v[2 * i + 1], d = in->dims[i];
    if (lo < 0 || hi < 0 || lo > d - offset || hi > d - offset || d + lo + hi > INT32_MAX) {
      return ap_fail(
          c->err, AP_ERR_FORMAT, "MIRROR_PAD: dim %d of %lld cannot take %s padding [%lld, %lld]",
          i, (long long)d, mode == 0 ? "REFLECT" : "SYMMETRIC", (long long)lo, (long long)hi);
    }
    out->dims[i] = (int32_t)(d + lo + hi);
    p->begin[i] = (int32_t)lo;
  }
  out->rank = in->rank;
  p->kind = offset;
  return ap_kxd_finish(c, "MIRROR_PAD");
}

/* Input index along one dim of output index o: mirrored about the first or last element. */
static size_t source(int64_t o, int64_t lo, int64_t d, int offset) {
  int64_t i = o - lo;
  if (i < 0)
    i = -i - 1 + offset;
  else if (i >= d)
    i = 2 * d - i - 1 - offset;
  return (size_t)i;
}

ap_status ap_kx_mirror_pad_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  size_t n;
  if (!ap_kx_eval_io(c, 2, 2, &in, &out) || !ap_ktensor_count(out, &n)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  int rank = in->rank;
  size_t es = ap_ktype_size(in->type), stride[AP_KMAXDIMS], s = 1;
  int32_t idx[AP_KMAXDIMS] = {0};
  for (int i = rank - 1; i >= 0; i--)
    stride[i] = s, s *= (size_t)in->dims[i];
  for (size_t k = 0; k < n; k++) {
    size_t at = 0;
    for (int i = 0; i < rank; i++)
      at += source(idx[i], p->begin[i], in->dims[i], p->kind) * stride[i];
    memcpy((unsigned char *)out->data + k * es, (const unsigned char *)in->data + at * es, es);
    for (int i = rank - 1; i >= 0 && ++idx[i] == out->dims[i]; i--)
      idx[i] = 0;
  }
  return AP_OK;
}
