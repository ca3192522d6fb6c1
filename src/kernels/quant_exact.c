/* The multipliers of quant.h computed from the float scales with integer arithmetic, giving the
 * values the double formulas give (TFLite Micro's): for a core without a double-precision FPU,
 * where the double formulas link libgcc's soft double (about 3.4 KB on a Cortex-M4).
 *
 * (double)a * (double)b is exact (two 24-bit significands), so the only rounding before
 * QuantizeMultiplier is the division's, to nearest even at 53 bits; it is done here on the
 * integer significands with a remainder for the sticky bit. QuantizeMultiplier then rounds the
 * 53-bit significand to 31 bits, half away from zero. Finite nonzero float scales keep every
 * intermediate a normal double (exponents within -430 .. 410), so no other case arises. */
#include "kernels/quant.h"

#include <math.h>
#include <string.h>

/* A finite float as sign, significand in [2^23, 2^24) and exponent (value = sig * 2^exp);
 * false for zero, infinity and NaN. */
static bool split(float f, int *sign, uint32_t *sig, int *exp) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  int biased = (int)(bits >> 23) & 0xff;
  uint32_t m = bits & 0x7fffff;
  if (biased == 0xff || (biased == 0 && m == 0)) return false;
  *sign = (int)(bits >> 31);
  if (biased == 0) { /* subnormal: normalize */
    int e = -149;
    while (!(m & 0x800000)) {
      m <<= 1;
      e--;
    }
    *sig = m;
    *exp = e;
    return true;
  }
  *sig = m | 0x800000;
  *exp = biased - 150;
  return true;
}

/* QuantizeMultiplier of (-1)^sign * sig * 2^exp, sig in [2^52, 2^53). */
static void quantize(int sign, uint64_t sig, int exp, int32_t *multiplier, int *shift) {
  int e = exp + 53;                                  /* frexp: sig / 2^53 in [0.5, 1) */
  int64_t q = (int64_t)((sig + (1ull << 21)) >> 22); /* round(fraction * 2^31), half away */
  if (!sign && q == (1ll << 31)) { /* a negative one stays -2^31, as in the double code */
    q /= 2;
    e++;
  }
  if (e < -31) {
    e = 0;
    q = 0;
  }
  *multiplier = (int32_t)(sign ? -q : q);
  *shift = e;
}

/* (double)a * (double)b / (double)c as sign, 53-bit significand and exponent; false when the
 * double would be zero, infinite or NaN. */
static bool ratio(float a, float b, float c, int *sign, uint64_t *sig, int *exp) {
  int sa, sb, sc, ea, eb, ec;
  uint32_t ma, mb, mc;
  if (!split(a, &sa, &ma, &ea) || !split(b, &sb, &mb, &eb) || !split(c, &sc, &mc, &ec))
    return false;
  uint64_t p = (uint64_t)ma * mb; /* [2^46, 2^48) */
  /* q = p * 2^32 / mc, a byte at a time: mc < 2^24 keeps each step's dividend in 32 bits, a
   * hardware divide on a Cortex-M (a 64-bit one is a libgcc call ten times as long). */
  uint32_t rem = 0;
  uint64_t q = 0;
  for (int i = 9; i >= 0; i--) {
    uint32_t d = rem << 8 | (i >= 4 ? (uint32_t)(p >> (8 * (i - 4))) & 0xff : 0);
    q = q << 8 | d / mc;
    rem = d % mc;
  }
  int drop = 11 - __builtin_clzll(q); /* q in (2^54, 2^57): its bits beyond 53 */
  uint64_t tail = q & ((1ull << drop) - 1), half = 1ull << (drop - 1), r = q >> drop;
  if (tail > half || (tail == half && (rem != 0 || (r & 1)))) r++;
  int e = ea + eb - ec - 32 + drop;
  if (r == (1ull << 53)) {
    r >>= 1;
    e++;
  }
  *sign = sa ^ sb ^ sc;
  *sig = r;
  *exp = e;
  return true;
}

void ap_kq_multiplier_ratio(float a, float b, float c, int32_t *multiplier, int *shift) {
  int sign, exp;
  uint64_t sig;
  if (!ratio(a, b, c, &sign, &sig, &exp)) {
    *multiplier = 0;
    *shift = 0;
    return;
  }
  quantize(sign, sig, exp, multiplier, shift);
}

bool ap_kq_softmax_scaling_f(float beta, float input_scale, int input_integer_bits,
                             int32_t *multiplier, int *left_shift) {
  int sign, exp;
  uint64_t sig;
  /* beta * input_scale * 2^(31 - bits), capped at 2^31 - 1; then it must exceed 1. */
  const uint64_t cap = ((1ull << 31) - 1) << 22; /* 2^31 - 1 as a 53-bit significand, 2^-22 */
  if (isnan(beta) || isnan(input_scale)) return false;
  if (isinf(beta) || isinf(input_scale)) { /* an infinite product is capped; 0 * inf is NaN */
    if (beta == 0 || input_scale == 0 || !signbit(beta) != !signbit(input_scale)) return false;
    sig = cap;
    exp = -22;
  } else {
    if (!ratio(beta, input_scale, 1.0f, &sign, &sig, &exp) || sign) return false;
    exp += 31 - input_integer_bits;
    if (exp + 52 > 30 || (exp + 52 == 30 && sig > cap)) {
      sig = cap;
      exp = -22;
    }
  }
  if (exp + 53 <= 1 && !(exp + 53 == 1 && sig > (1ull << 52))) return false; /* <= 1 */
  quantize(0, sig, exp, multiplier, left_shift);
  return *left_shift >= 0;
}

int32_t ap_kq_input_radius_int(int input_integer_bits, int input_left_shift) {
  /* ((1 << bits) - 1) * 2^(31 - bits) * 2^-shift, floored, at most INT32_MAX. */
  uint64_t v = (((uint64_t)1 << input_integer_bits) - 1) << (31 - input_integer_bits);
  if (v == 0) return 0;
  if (input_left_shift >= 0) return input_left_shift > 63 ? 0 : (int32_t)(v >> input_left_shift);
  int up = -input_left_shift;
  if (up >= 32 || (v << up) >= INT32_MAX) return INT32_MAX;
  return (int32_t)(v << up);
}
