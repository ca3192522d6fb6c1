/* ELU (TFLite Micro's elu.cc): float x < 0 ? expm1(x) : x; int8 through the formula of its
 * 256-entry table (dequantize, exp(x) - 1 below zero, requantize in float), one element at a
 * time instead of a table kept per op. */
#include "kernels/kops_arm64.h"
#include "kernels/kops_elem16.h"
#include "kernels/quant.h"

#include <math.h>

ap_status ap_kx_elu_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_act_prepare(c, scratch, "ELU");
  if (s != AP_OK) return s;
  ap_kx_params *p = c->params; /* the int8 path's scales */
  p->alpha = c->inputs[0]->scale;
  p->fmax = c->outputs[0]->scale;
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

static float elu_f(float x) {
  return x < 0.0f ? ap_kexpm1f(x) : x;
}

ap_status ap_kx_elu_eval(ap_kctx *c) {
  return ap_kx_act_eval(c, elu_q, elu_f);
}
