/* HARD_SWISH (TFLite Micro's hard_swish.cc, reference hard_swish.h): float x * relu6(x + 3) / 6;
 * int8 in 16-bit fixed point: the input at 2^7 times its scale, a "relu-ish" factor in [0, 1]
 * (the input rescaled so that 3.0 is 32768, saturated, mapped to [0, 1]), a truncating
 * doubling high multiply of the two, then the output's right shift. */
#include "kernels/kops_elem16.h"
#include "kernels/quant.h"

#include <limits.h>
#include <string.h>

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
  ap_status s = ap_kx_arity(c, "HARD_SWISH", 1, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!ap_ktensor_count(in, &n)) return ap_fail(c->err, AP_ERR_FORMAT, "HARD_SWISH: invalid shape");
  if ((in->type != AP_FLOAT32 && in->type != AP_INT8) || out->type != in->type) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "HARD_SWISH: unsupported types %s -> %s",
                   ap_ktype_name(in->type), ap_ktype_name(out->type));
  }
  if (in->type == AP_INT8) {
    if (!ap_kq_scale_ok(in->scale) || !ap_kq_scale_ok(out->scale) || !ap_kq_zero_point_ok(in) ||
        !ap_kq_zero_point_ok(out)) {
      return ap_fail(c->err, AP_ERR_FORMAT,
                     "HARD_SWISH: int8 tensors need a positive scale and a zero point in "
                     "[-128, 127]");
    }
    p->q_offset[0] = in->zero_point;
    p->q_offset[2] = out->zero_point;
    /* Every ratio in float, then widened, as hard_swish_common.cc. */
    float hires = (1.0f / 128.0f) * in->scale, reluish = 3.0f / 32768.0f;
    int32_t m;
    ap_kq_multiplier((double)(hires / out->scale), &m, &p->q_shift[0]);
    p->q_mult[0] = downscale(m);
    ap_kq_multiplier((double)(hires / reluish), &m, &p->q_shift[1]);
    p->q_mult[1] = downscale(m);
    if (p->q_shift[0] > 0 || p->q_shift[0] < -31 || p->q_shift[1] < -31) {
      return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                     "HARD_SWISH: scales %g -> %g give a rescale TFLite Micro cannot apply",
                     (double)in->scale, (double)out->scale);
    }
  }
  out->rank = in->rank;
  memcpy(out->dims, in->dims, sizeof out->dims);
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
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

ap_status ap_kx_hard_swish_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  size_t n;
  if (!ap_kx_eval_io(c, 1, INT_MAX, &in, &out) || !ap_ktensor_count(in, &n)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  if (in->type == AP_INT8) {
    for (size_t i = 0; i < n; i++)
      ((int8_t *)out->data)[i] = hard_swish_q(p, ((const int8_t *)in->data)[i]);
    return AP_OK;
  }
  const float *x = in->data;
  float *y = out->data;
  for (size_t i = 0; i < n; i++) {
    /* std::min(6, std::max(0, x + 3)): NaN + 3 gives 0 there, and NaN * 0 is NaN. */
    float t = x[i] + 3.0f;
    float lo = 0.0f < t ? t : 0.0f;
    float r = lo < 6.0f ? lo : 6.0f;
    y[i] = x[i] * r / 6.0f;
  }
  return AP_OK;
}
