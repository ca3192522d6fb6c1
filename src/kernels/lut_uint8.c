/* TFLite's 8-bit lookup tables (LUTPopulate<uint8_t/int8_t> in kernels/internal/common.h):
 * TFLite's reference LOGISTIC and TANH for uint8 evaluate the float function on every one of
 * the 256 dequantized inputs and requantize, in float, rounding half away from zero. */
#include "kernels/kops_arm64.h"
#include "kernels/kops_detect.h"
#include "kernels/quant.h"

#include <math.h>

static float logistic_f(float v) {
  return 1.0f / (1.0f + expf(-v));
}

void ap_kdetect_lut8(int type, int op, float in_scale, int32_t in_zp, float out_scale,
                     int32_t out_zp, uint8_t lut[256]) {
  int32_t lo = type == AP_INT8 ? -128 : 0, hi = type == AP_INT8 ? 127 : 255;
  const float inverse = 1 / out_scale;
  for (int32_t v = lo; v <= hi; v++) {
    float x = in_scale * (float)(v - in_zp);
    float y = op == AP_KUN_LOGISTIC ? logistic_f(x) : ap_ktanhf(x);
    float r = ap_kq_roundf(y * inverse);
    /* rescaled + zero point, in float, then truncated to int32 as TFLite's static_cast; the
     * clamp first keeps the conversion defined for out-of-range values. */
    float q = r + (float)out_zp;
    int32_t qi = q >= 2147483647.0f ? INT32_MAX : q <= -2147483648.0f ? INT32_MIN : (int32_t)q;
    lut[(uint8_t)v] = (uint8_t)ap_kq_clamp(qi, lo, hi);
  }
}

void ap_kdetect_requant_u8(uint8_t *dst, const uint8_t *src, size_t n, float in_scale,
                           int32_t in_zp, float out_scale, int32_t out_zp) {
  const float scale = in_scale * (1.f / out_scale);
  const float bias = (float)-in_zp * scale;
  for (size_t j = 0; j < n; j++) {
    float r = ap_kq_roundf((float)src[j] * scale + bias);
    /* TFLite's static_cast<int32_t>, kept defined: anything outside [0, 255] clamps anyway. */
    int32_t v = r != r ? 0 : r > 1e6f ? 1000000 : r < -1e6f ? -1000000 : (int32_t)r;
    dst[j] = (uint8_t)ap_kq_clamp(v + out_zp, 0, 255);
  }
}
