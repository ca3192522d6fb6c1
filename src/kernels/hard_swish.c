/* HARD_SWISH (TFLite Micro's hard_swish.cc, reference hard_swish.h): float x * relu6(x + 3) / 6;
 * int8 in 16-bit fixed point: the input at 2^7 times its scale, a "relu-ish" factor in [0, 1]
 * (the input rescaled so that 3.0 is 32768, saturated, mapped to [0, 1]), a truncating
 * doubling high multiply of the two, then the output's right shift. */
#include "kernels/kops_elem16.h"
#include "kernels/quant.h"

#include <limits.h>

/* gemmlowp's int16 SaturatingRoundingDoublingHighMul. */
static int16_t srdhm16(int16_t a, int16_t b) {
  if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
  int32_t ab = (int32_t)a * b;
  int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return (int16_t)((ab + nudge) / (1 << 15));
}

/* The same rounding toward zero (hard_swish.h's SaturatingDoublingHighMul). */
static int16_t sdhm16(int16_t a, int16_t b) {
  if (a == INT16_MIN && b == INT16_MIN) return INT16_MAX;
  return (int16_t)(((int32_t)a * b) / (1 << 15));
}

static int16_t sat_lshift16(int16_t v, int amount) {
  int64_t r = amount >= 32 ? (v > 0   ? INT64_MAX / 2
                              : v < 0 ? -INT64_MAX / 2
                                      : 0)
                           : (int64_t)v * ((int64_t)1 << amount);
  return (int16_t)(r > INT16_MAX ? INT16_MAX : r < INT16_MIN ? INT16_MIN : r);
}

/* gemmlowp's RoundingDivideByPOT on int16: its mask is cut to 16 bits, which matters only for
 * exponents of 16 and more. */
static int16_t rdbpot16(int16_t x, int exponent) {
  int16_t mask = (int16_t)((1LL << exponent) - 1);
  int16_t remainder = (int16_t)(x & mask);
  int16_t threshold = (int16_t)((mask >> 1) + (x < 0 ? 1 : 0));
  return (int16_t)((x >> exponent) + (remainder > threshold ? 1 : 0));
}

/* DownScaleInt32ToInt16Multiplier: the Q31 multiplier rounded to Q15. */
static int16_t downscale(int32_t m) {
  if (m >= INT32_MAX - (1 << 15)) return INT16_MAX;
  return (int16_t)((m + (1 << 15)) >> 16);
}

ap_status ap_kx_hard_swish_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_act_prepare(c, scratch, "HARD_SWISH");
  if (s != AP_OK || c->inputs[0]->type != AP_INT8) return s;
  ap_kx_params *p = c->params;
  float in_scale = c->inputs[0]->scale, out_scale = c->outputs[0]->scale;
  /* Every ratio in float, then widened, as hard_swish_common.cc. */
  float hires = (1.0f / 128.0f) * in_scale, reluish = 3.0f / 32768.0f;
  int32_t m;
  ap_kq_multiplier((double)(hires / out_scale), &m, &p->q_shift[0]);
  p->q_mult[0] = downscale(m);
  ap_kq_multiplier((double)(hires / reluish), &m, &p->q_shift[1]);
  p->q_mult[1] = downscale(m);
  if (p->q_shift[0] > 0 || p->q_shift[0] < -31 || p->q_shift[1] < -31) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "HARD_SWISH: scales %g -> %g give a rescale TFLite Micro cannot apply",
                   (double)in_scale, (double)out_scale);
  }
  return AP_OK;
}

static int8_t hard_swish_q(const ap_kx_params *p, int8_t x) {
  int16_t hires = (int16_t)((x - p->q_offset[0]) * (1 << 7));
  int16_t pre_out = srdhm16(hires, (int16_t)p->q_mult[0]);
  int e = p->q_shift[1];
  int16_t r = hires;
  if (e > 0) r = sat_lshift16(r, e - 1);
  r = srdhm16(r, (int16_t)p->q_mult[1]);
  if (e > 0) r = sat_lshift16(r, 1);
  if (e < 0) r = rdbpot16(r, -e);
  r = (int16_t)((r + (1 << 15)) >> 1); /* [-1, 1] to [0, 1] */
  int16_t o = rdbpot16(sdhm16(r, pre_out), -p->q_shift[0]);
  o = (int16_t)(o + p->q_offset[2]);
  return (int8_t)(o > 127 ? 127 : o < -128 ? -128 : o);
}

/* std::min(6, std::max(0, x + 3)): NaN + 3 gives 0 there, and NaN * 0 is NaN. */
static float hard_swish_f(float x) {
  float t = x + 3.0f;
  float lo = 0.0f < t ? t : 0.0f;
  float r = lo < 6.0f ? lo : 6.0f;
  return x * r / 6.0f;
}

ap_status ap_kx_hard_swish_eval(ap_kctx *c) {
  return ap_kx_act_eval(c, hard_swish_q, hard_swish_f);
}
