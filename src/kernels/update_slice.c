/* DYNAMIC_UPDATE_SLICE (TFLite Micro's dynamic_update_slice.cc): the operand with a block
 * overwritten by `update` at start indices read while running, each clamped so the block fits
 * (as TFLite clamps: no index is out of range). */
#include "kernels/kops_datamove.h"

#include <string.h>

ap_status ap_kx_update_slice_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kxd_begin(c, scratch, "DYNAMIC_UPDATE_SLICE", 3, 3);
  if (s != AP_OK || (s = ap_kxd_input(c, "DYNAMIC_UPDATE_SLICE", 0, AP_KMAXDIMS)) != AP_OK)
    return s;
  ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0], *up = c->inputs[1], *start = c->inputs[2];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!ap_ktensor_count(up, &n) || !ap_ktensor_count(start, &n)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "DYNAMIC_UPDATE_SLICE: invalid shapes");
  }
  if ((s = ap_kxd_same_type(c, "DYNAMIC_UPDATE_SLICE", in, up)) != AP_OK) return s;
  if ((start->type != AP_INT32 && start->type != AP_INT64) || start->rank != 1 ||
      start->dims[0] != in->rank) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "DYNAMIC_UPDATE_SLICE: start indices must be an INT32 or INT64 vector of %d",
                   in->rank);
  }
  if (up->rank != in->rank) {
    return ap_fail(c->err, AP_ERR_FORMAT, "DYNAMIC_UPDATE_SLICE: update has rank %d, operand %d",
                   up->rank, in->rank);
  }
  for (int i = 0; i < in->rank; i++) {
    if (up->dims[i] > in->dims[i]) {
      return ap_fail(c->err, AP_ERR_FORMAT,
                     "DYNAMIC_UPDATE_SLICE: update dim %d is %d, larger than the operand's %d", i,
                     (int)up->dims[i], (int)in->dims[i]);
    }
  }
  ap_kxd_shape_like(out, in);
  p->in2_shape = ap_kshape_of(up);
  return ap_kxd_finish(c, "DYNAMIC_UPDATE_SLICE");
}

ap_status ap_kx_update_slice_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  if (!ap_kx_eval_io(c, 3, 3, &in, &out)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  const ap_ktensor *up = c->inputs[1], *start = c->inputs[2];
  size_t n, nu;
  if (!up || !start || !up->data || !start->data || !ap_kshape_is(up, &p->in2_shape) ||
      (start->type != AP_INT32 && start->type != AP_INT64) || start->rank != 1 ||
      start->dims[0] != in->rank || !ap_ktensor_count(in, &n) || !ap_ktensor_count(up, &nu))
    return AP_ERR_ARG;
  size_t es = ap_ktype_size(in->type);
  if (n == nu) { /* the update is the whole operand */
    memmove(out->data, up->data, n * es);
    return AP_OK;
  }
  if (out->data != in->data) memmove(out->data, in->data, n * es);
  if (nu == 0) return AP_OK;
  int rank = in->rank;
  int64_t step[AP_KMAXDIMS], pos = 0, s = 1;
  for (int i = rank - 1; i >= 0; i--) {
    int64_t b = ap_kxd_int_at(start, (size_t)i), hi = in->dims[i] - up->dims[i];
    b = b < 0 ? 0 : b > hi ? hi : b;
    step[i] = s;
    pos += b * s;
    s *= in->dims[i];
  }
  /* Walk the operand's block in order, taking the update's elements one by one. */
  unsigned char *o = out->data;
  const unsigned char *u = up->data;
  int32_t idx[AP_KMAXDIMS] = {0};
  for (size_t k = 0; k < nu; k++) {
    memcpy(o + (size_t)pos * es, u + k * es, es);
    for (int i = rank - 1; i >= 0; i--) {
      if (++idx[i] < up->dims[i]) {
        pos += step[i];
        break;
      }
      pos -= step[i] * (up->dims[i] - 1);
      idx[i] = 0;
    }
  }
  return AP_OK;
}
