/* Per-channel multipliers, the same values as ap_kconv_channel_multipliers (QuantizeMultiplier
 * of input_scale * filter_scale / output_scale in double) without frexp and round: for a
 * positive normal double, frexp's fraction is the 53-bit significand over 2^53, so
 * round(fraction * 2^31), half away from zero, is (significand + 2^21) >> 22. Anything else
 * (zero, subnormal, infinite, NaN, negative) takes the reference's path. Every eval recomputes
 * them, so their cost shows on small models. */
#include "kernels/fast/fast.h"

#include <string.h>

static void multiplier(double m, int32_t *mult, int32_t *shift) {
  uint64_t bits;
  memcpy(&bits, &m, sizeof bits);
  int biased = (int)(bits >> 52) & 0x7ff;
  if ((bits >> 63) || biased == 0 || biased == 0x7ff) {
    int s;
    ap_kq_multiplier(m, mult, &s);
    *shift = s;
    return;
  }
  uint64_t significand = (bits & ((1ull << 52) - 1)) | (1ull << 52);
  int e = biased - 1022; /* frexp's exponent: m = fraction * 2^e, fraction in [0.5, 1) */
  int64_t q = (int64_t)((significand + (1ull << 21)) >> 22);
  if (q == (1ll << 31)) {
    q /= 2;
    e++;
  }
  if (e < -31) {
    e = 0;
    q = 0;
  }
  *mult = (int32_t)q;
  *shift = e;
}

void ap_fast_channel_multipliers(float input_scale, const ap_ktensor *filter, float output_scale,
                                 int32_t n, int32_t *mult, int32_t *shift) {
  bool per_channel = filter->channel_scales && filter->n_channels > 0;
  for (int32_t c = 0; c < n; c++) {
    float s = per_channel ? filter->channel_scales[filter->n_channels > 1 ? c : 0] : filter->scale;
    if (AP_KQ_SOFT_DOUBLE) { /* no double FPU: the integer route to the same values */
      int e;
      ap_kq_multiplier_ratio(input_scale, s, output_scale, &mult[c], &e);
      shift[c] = e;
    } else {
      multiplier((double)input_scale * (double)s / (double)output_scale, &mult[c], &shift[c]);
    }
  }
}
