/* ELU (TFLite Micro's elu.cc): float x < 0 ? expm1(x) : x; int8 through the formula of its
 * 256-entry table (dequantize, exp(x) - 1 below zero, requantize in float), one element at a
 * time instead of a table kept per op. */
#include "kernels/kops_elem16.h"
#include "kernels/quant.h"

#include <limits.h>
#include <math.h>
#include <string.h>

ap_status ap_kx_elu_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "ELU", 1, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!ap_ktensor_count(in, &n)) return ap_fail(c->err, AP_ERR_FORMAT, "ELU: invalid shape");
  if ((in->type != AP_FLOAT32 && in->type != AP_INT8) || out->type != in->type) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "ELU: unsupported types %s -> %s",
                   ap_ktype_name(in->type), ap_ktype_name(out->type));
  }
  if (in->type == AP_INT8 && (!ap_kq_scale_ok(in->scale) || !ap_kq_scale_ok(out->scale) ||
                              !ap_kq_zero_point_ok(in) || !ap_kq_zero_point_ok(out))) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "ELU: int8 tensors need a positive scale and a zero point in [-128, 127]");
  }
  p->alpha = in->scale; /* the int8 path's scales */
  p->fmax = out->scale;
  p->q_offset[0] = in->zero_point;
  p->q_offset[2] = out->zero_point;
  out->rank = in->rank;
  memcpy(out->dims, in->dims, sizeof out->dims);
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

static int8_t elu_q(const ap_kx_params *p, int8_t x) {
  float v = p->alpha * (float)(x - p->q_offset[0]);
  float t = v < 0.0f ? expf(v) - 1.0f : v;
  float r = roundf(t * (1 / p->fmax)) + (float)p->q_offset[2];
  /* static_cast<int32_t> of a float out of range is undefined; x86 gives INT32_MIN. */
  int32_t q = r >= -2147483648.0f && r < 2147483648.0f ? (int32_t)r : INT32_MIN;
  return (int8_t)ap_kq_clamp(q, -128, 127);
}

ap_status ap_kx_elu_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  size_t n;
  if (!ap_kx_eval_io(c, 1, INT_MAX, &in, &out) || !ap_ktensor_count(in, &n)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  if (in->type == AP_INT8) {
    for (size_t i = 0; i < n; i++)
      ((int8_t *)out->data)[i] = elu_q(p, ((const int8_t *)in->data)[i]);
    return AP_OK;
  }
  const float *x = in->data;
  float *y = out->data;
  for (size_t i = 0; i < n; i++)
    y[i] = x[i] < 0.0f ? expm1f(x[i]) : x[i];
  return AP_OK;
}
