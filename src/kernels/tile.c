/* TILE (TFLite's tile.cc): the input repeated multiples[i] times along each dim i; multiples an
 * INT32 or INT64 vector of the input's rank whose values decide the output shape (constant,
 * folded in prepare, or the op is dynamic). Any element type, copied as bytes, in TFLite's
 * order: the innermost dim's rows first, then each copied block repeated. */
#include "kernels/kops.h"

#include <string.h>

ap_status ap_kx_tile_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "TILE", 2, 2, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0], *m = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!ap_ktensor_count(in, &n)) return ap_fail(c->err, AP_ERR_FORMAT, "TILE: invalid shape");
  if (out->type != in->type || ap_ktype_size(in->type) == 0) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "TILE: unsupported types %s -> %s",
                   ap_ktype_name(in->type), ap_ktype_name(out->type));
  }
  if (!m->data) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "TILE: unsupported multiples: not known before running, and they decide the "
                   "output shape");
  }
  if ((m->type != AP_INT32 && m->type != AP_INT64) || m->rank != 1 || !ap_ktensor_count(m, &n) ||
      n != (size_t)in->rank) {
    return ap_fail(c->err, AP_ERR_FORMAT, "TILE: multiples must be an INT32 or INT64 vector of %d",
                   in->rank);
  }
  for (int i = 0; i < in->rank; i++) {
    int64_t k = m->type == AP_INT32 ? ((const int32_t *)m->data)[i] : ((const int64_t *)m->data)[i];
    int64_t d = (int64_t)in->dims[i] * (k < 0 ? 0 : k);
    if (k < 0 || k > INT32_MAX || d > INT32_MAX) {
      return ap_fail(c->err, AP_ERR_FORMAT, "TILE: multiples[%d] is %lld for a dim of %d", i,
                     (long long)k, (int)in->dims[i]);
    }
    p->stride[i] = (int32_t)k;
    out->dims[i] = (int32_t)d;
  }
  out->rank = in->rank;
  if (!ap_ktensor_count(out, &n)) return ap_fail(c->err, AP_ERR_OVERFLOW, "TILE: output too large");
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

/* Writes the tiling of `in`'s dims [dim, rank) at `out`; returns the bytes written. */
static size_t tile_dim(const ap_kx_params *p, const ap_ktensor *in, int dim, size_t es,
                       const unsigned char *src, unsigned char *out) {
  size_t written = 0;
  if (dim == in->rank - 1) {
    written = (size_t)in->dims[dim] * es;
    memcpy(out, src, written);
  } else {
    size_t inner = es;
    for (int i = dim + 1; i < in->rank; i++)
      inner *= (size_t)in->dims[i];
    for (int32_t i = 0; i < in->dims[dim]; i++)
      written += tile_dim(p, in, dim + 1, es, src + (size_t)i * inner, out + written);
  }
  for (int32_t k = 1; k < p->stride[dim]; k++)
    memcpy(out + (size_t)k * written, out, written);
  return written * (size_t)p->stride[dim];
}

ap_status ap_kx_tile_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  size_t n;
  if (!ap_kx_eval_io(c, 2, 2, &in, &out) || !ap_ktensor_count(out, &n)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  size_t es = ap_ktype_size(in->type);
  if (n == 0) return AP_OK;
  if (in->rank == 0) {
    memcpy(out->data, in->data, es);
    return AP_OK;
  }
  tile_dim(p, in, 0, es, in->data, out->data);
  return AP_OK;
}
