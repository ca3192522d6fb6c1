/* int16 SOFTMAX (reference_ops::SoftmaxInt16, softmax_common.cc): exp and 1/(1+x) by two
 * 513-entry int16 tables with linear interpolation. The tables depend on no tensor's
 * quantization, so instead of keeping 2 KiB per op they are rebuilt in scratch at each eval,
 * exactly as LUTPopulate<int16_t> builds them: samples in float over [input_min, input_max],
 * each less half the rounding error of interpolating its interval's midpoint. */
#include "kernels/kops_elem16.h"
#include "kernels/quant.h"

#include <math.h>

enum { LUT_STEPS = 512, LUT_SIZE = LUT_STEPS + 1 };

static float lut_exp(float x) {
  return expf(x);
}

static float lut_recip(float x) {
  return 1.0f / (1.0f + x);
}

static int16_t lut_clamp(float v) {
  return (int16_t)(v < -32768.0f ? -32768.0f : v > 32767.0f ? 32767.0f : v);
}

/* Every operation in float and in TFLite's order, so each entry rounds the same way. */
static void lut_fill(float in_scale, int32_t in_zp, float out_scale, float (*f)(float),
                     int16_t *lut) {
  const float in_min = in_scale * (float)(INT16_MIN - in_zp);
  const float in_max = in_scale * (float)(INT16_MAX - in_zp);
  const float out_min = out_scale * (float)INT16_MIN, out_max = out_scale * (float)INT16_MAX;
  const float step = (in_max - in_min) / LUT_STEPS, half_step = step / 2;
  const float inv = 65536.0f / (out_max - out_min);
  for (int i = 0; i < LUT_STEPS; i++) {
    float v = f(in_min + (float)i * step);
    float v_mid = f(in_min + (float)i * step + half_step);
    float v_next = f(in_min + (float)(i + 1) * step);
    float sample = roundf(v * inv);
    float interp = roundf((v_next * inv + roundf(v * inv)) / 2);
    float err = interp - roundf(v_mid * inv);
    lut[i] = lut_clamp(sample - roundf(err / 2));
  }
  lut[LUT_STEPS] = lut_clamp(roundf(f(in_max) * inv));
}

/* LUTLookup: 9 bits index, 7 bits interpolate. */
static int16_t lut_lookup(const int16_t *lut, int16_t v) {
  int index = 256 + (v >> 7);
  int32_t offset = v & 0x7f;
  int32_t slope = lut[index + 1] - lut[index];
  return (int16_t)(lut[index] + ((slope * offset + 64) >> 7));
}

size_t ap_softmax16_scratch(void) {
  return ap_kscratch_round(2 * LUT_SIZE * sizeof(int16_t));
}

ap_status ap_softmax16_setup(float beta, const ap_ktensor *in, const ap_ktensor *out,
                             ap_softmax_params *p, ap_errbuf *err) {
  if (in->zero_point != 0 || out->zero_point != 0 ||
      !(fabsf(out->scale - 1.0f / 32768) <= 0.001f * 1.0f / 32768) || !ap_kq_scale_ok(in->scale)) {
    return ap_fail(err, AP_ERR_UNSUPPORTED,
                   "SOFTMAX: int16 needs zero points 0 and output scale 1/32768, got %g, %d -> "
                   "%g, %d",
                   (double)in->scale, (int)in->zero_point, (double)out->scale,
                   (int)out->zero_point);
  }
  if (in->dims[in->rank - 1] > 65535) {
    return ap_fail(err, AP_ERR_UNSUPPORTED,
                   "SOFTMAX: int16 rows of %d values would overflow TFLite's int32 sum of exps",
                   (int)in->dims[in->rank - 1]);
  }
  /* The input difference scaled so that [-65535, 0] covers [-10, 0]. */
  ap_kq_multiplier((double)in->scale * (double)beta / (10.0 / 65535.0), &p->input_multiplier,
                   &p->input_left_shift);
  p->scratch_bytes = ap_softmax16_scratch();
  return AP_OK;
}

void ap_softmax16_eval(const ap_softmax_params *p, const int16_t *x, int16_t *y, size_t outer,
                       size_t depth, void *scratch) {
  int16_t *exp_lut = scratch, *recip_lut = exp_lut + LUT_SIZE;
  const float range = 65535.0f;
  lut_fill(10.0f / range, INT16_MAX, 2.0f / range, lut_exp, exp_lut);
  lut_fill(1.0f / range, INT16_MIN, 2.0f / range, lut_recip, recip_lut);
  for (size_t i = 0; i < outer; i++) {
    const int16_t *xi = x + i * depth;
    int16_t *yi = y + i * depth;
    int16_t max = INT16_MIN;
    for (size_t c = 0; c < depth; c++)
      max = xi[c] > max ? xi[c] : max;
    int32_t sum = 0; /* Q16.15; the exps wait in the output */
    for (size_t c = 0; c < depth; c++) {
      int32_t scaled = ap_kq_mul(xi[c] - max, p->input_multiplier, p->input_left_shift);
      yi[c] = lut_lookup(exp_lut, (int16_t)ap_kq_clamp(scaled + 32767, INT16_MIN, INT16_MAX));
      sum += yi[c];
    }
    /* The max's own exp is in the sum, so it is positive and at most depth * 32767. */
    int headroom_plus_one = __builtin_clz((uint32_t)sum);
    int32_t shifted = (int32_t)((((int64_t)sum << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
    /* 1/(1+x) of x = sum - 1, recentred from [0, 65535] to int16. */
    int32_t sym = ap_kq_clamp(shifted - ((1 << 15) + (1 << 16)), INT16_MIN, INT16_MAX);
    int16_t recip = lut_lookup(recip_lut, (int16_t)sym);
    int right_shift = 31 - headroom_plus_one;
    int64_t round = right_shift > 0 ? (int64_t)1 << (right_shift - 1) : 0;
    for (size_t c = 0; c < depth; c++) {
      int64_t r = ((int64_t)yi[c] * recip + round) >> right_shift;
      yi[c] = (int16_t)(r < 0 ? 0 : r > 32767 ? 32767 : r);
    }
  }
}
