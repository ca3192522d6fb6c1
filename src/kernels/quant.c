#include "kernels/quant.h"

#include <float.h>
#include <math.h>

/* Wrapping int32 arithmetic: gemmlowp and TFLite compute these in plain int32, which wraps on
 * their targets; doing it in uint32 gives those bits without undefined behaviour. */
static inline int32_t wadd(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a + (uint32_t)b);
}
static inline int32_t wsub(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a - (uint32_t)b);
}
/* Shifts past 31 only come from hostile scales (ratios beyond 2^31); keep them defined. */
static inline int32_t wshl(int32_t a, int s) {
  return (int32_t)((uint32_t)a << (s > 31 ? 31 : s));
}

bool ap_kq_scale_ok(float scale) {
  return scale > 0.0f && isfinite(scale);
}

bool ap_kq_zero_point_ok(const ap_ktensor *t) {
  switch (t->type) {
  case AP_INT8: return t->zero_point >= -128 && t->zero_point <= 127;
  case AP_UINT8: return t->zero_point >= 0 && t->zero_point <= 255;
  case AP_INT16: return t->zero_point >= -32768 && t->zero_point <= 32767;
  default: return true;
  }
}

bool ap_kq_channel_scales_ok(const ap_ktensor *t) {
  if (!t->channel_scales || t->n_channels < 1) return ap_kq_scale_ok(t->scale);
  for (int i = 0; i < t->n_channels; i++) {
    if (!ap_kq_scale_ok(t->channel_scales[i])) return false;
  }
  return true;
}

void ap_kq_multiplier(double m, int32_t *multiplier, int *shift) {
  /* NaN and infinity (hostile scales) give the zero multiplier rather than undefined casts. */
  if (m == 0.0 || !isfinite(m)) {
    *multiplier = 0;
    *shift = 0;
    return;
  }
  int e;
  double q = frexp(m, &e);
  int64_t q_fixed = (int64_t)round(q * (double)(1LL << 31));
  if (q_fixed == (1LL << 31)) {
    q_fixed /= 2;
    e++;
  }
  if (e < -31) {
    e = 0;
    q_fixed = 0;
  }
  *multiplier = (int32_t)q_fixed;
  *shift = e;
}

bool ap_kq_multiplier_lt1(double m, int32_t *multiplier, int *left_shift) {
  if (!(m < 1.0 && m > 0.0)) return false;
  ap_kq_multiplier(m, multiplier, left_shift);
  return *left_shift <= 0;
}

bool ap_kq_multiplier_gt1(double m, int32_t *multiplier, int *left_shift) {
  if (!(m > 1.0)) return false;
  ap_kq_multiplier(m, multiplier, left_shift);
  return *left_shift >= 0;
}

int32_t ap_kq_srdhm(int32_t a, int32_t b) {
  if (a == b && a == INT32_MIN) return INT32_MAX;
  int64_t ab = (int64_t)a * (int64_t)b;
  int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return (int32_t)((ab + nudge) / (1LL << 31));
}

int32_t ap_kq_rdbpot(int32_t x, int exponent) {
  /* Valid scales keep exponents in [0, 31]; hostile ones are clamped, not undefined. */
  if (exponent < 0) exponent = 0;
  if (exponent > 31) exponent = 31;
  int32_t mask = (int32_t)((1LL << exponent) - 1);
  int32_t remainder = x & mask;
  int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t ap_kq_mul(int32_t x, int32_t multiplier, int shift) {
  int left = shift > 0 ? shift : 0;
  int right = shift > 0 ? 0 : -shift;
  return ap_kq_rdbpot(ap_kq_srdhm(wshl(x, left), multiplier), right);
}

int32_t ap_kq_mul_lt1(int32_t x, int32_t multiplier, int left_shift) {
  return ap_kq_rdbpot(ap_kq_srdhm(x, multiplier), -left_shift);
}

int32_t ap_kq_mul_gt1(int32_t x, int32_t multiplier, int left_shift) {
  return ap_kq_srdhm(wshl(x, left_shift), multiplier);
}

int32_t ap_kq_mul64(int64_t x, int32_t multiplier, int shift) {
  /* TFLite rounds the multiplier to 16 bits so that an accumulator of up to 48 bits times it
   * fits in 64. Shifts outside [-31, 7] are outside TFLite's contract; they are clamped here
   * so that no shift is undefined. The product wraps as unsigned (hostile int64 biases). */
  if (shift > 7) shift = 7;
  if (shift < -31) shift = -31;
  int32_t reduced =
      multiplier < 0x7FFF0000 ? (int32_t)(((int64_t)multiplier + (1 << 15)) >> 16) : 0x7FFF;
  int total_shift = 15 - shift;
  uint64_t v = (uint64_t)x * (uint64_t)(int64_t)reduced + ((uint64_t)1 << (total_shift - 1));
  return (int32_t)(uint32_t)(uint64_t)((int64_t)v >> total_shift);
}

int32_t ap_kq_input_radius(int input_integer_bits, int input_left_shift) {
  /* ldexp instead of TFLite's (1ll << input_left_shift): the same value for the shifts TFLite
   * accepts, and defined for the negative ones it does not guard against. */
  double max_input_rescaled =
      1.0 * ((1 << input_integer_bits) - 1) * (double)(1LL << (31 - input_integer_bits));
  max_input_rescaled = ldexp(max_input_rescaled, -input_left_shift);
  double r = floor(max_input_rescaled);
  return r >= (double)INT32_MAX ? INT32_MAX : (int32_t)r;
}

bool ap_kq_softmax_scaling(double beta, double input_scale, int input_integer_bits,
                           int32_t *multiplier, int *left_shift) {
  double m = beta * input_scale * (double)(1 << (31 - input_integer_bits));
  if (m > (double)((1LL << 31) - 1)) m = (double)((1LL << 31) - 1);
  return ap_kq_multiplier_gt1(m, multiplier, left_shift);
}

bool ap_kq_act_range_float(int activation, float *min, float *max) {
  switch (activation) {
  case AP_KACT_NONE: *min = -FLT_MAX, *max = FLT_MAX; return true;
  case AP_KACT_RELU: *min = 0.0f, *max = FLT_MAX; return true;
  case AP_KACT_RELU6: *min = 0.0f, *max = 6.0f; return true;
  case AP_KACT_RELU_N1_TO_1: *min = -1.0f, *max = 1.0f; return true;
  default: return false;
  }
}

float ap_kq_roundf(float x) {
  return roundf(x);
}

/* kernel_util.cc Quantize(): the division and rounding are in float. */
static bool quantize_value(float scale, int32_t zero_point, float f, int32_t *q) {
  float tmp = roundf(f / scale);
  if (!(tmp >= (float)INT32_MIN && tmp <= (float)INT32_MAX) || tmp == (float)INT32_MAX) {
    return false;
  }
  *q = zero_point + (int32_t)tmp;
  return true;
}

bool ap_kq_act_range_quant(int activation, int type, float scale, int32_t zero_point, int32_t *min,
                           int32_t *max) {
  int32_t qmin, qmax, q;
  switch (type) {
  case AP_INT8: qmin = -128, qmax = 127; break;
  case AP_UINT8: qmin = 0, qmax = 255; break;
  case AP_INT16: qmin = -32768, qmax = 32767; break;
  case AP_INT32: qmin = INT32_MIN, qmax = INT32_MAX; break;
  default: return false;
  }
  *min = qmin;
  *max = qmax;
  switch (activation) {
  case AP_KACT_NONE: return true;
  case AP_KACT_RELU:
    if (!quantize_value(scale, zero_point, 0.0f, &q)) return false;
    *min = AP_MAX(qmin, q);
    return true;
  case AP_KACT_RELU6:
    if (!quantize_value(scale, zero_point, 0.0f, &q)) return false;
    *min = AP_MAX(qmin, q);
    if (!quantize_value(scale, zero_point, 6.0f, &q)) return false;
    *max = AP_MIN(qmax, q);
    return true;
  case AP_KACT_RELU_N1_TO_1:
    if (!quantize_value(scale, zero_point, -1.0f, &q)) return false;
    *min = AP_MAX(qmin, q);
    if (!quantize_value(scale, zero_point, 1.0f, &q)) return false;
    *max = AP_MIN(qmax, q);
    return true;
  default: return false;
  }
}

/* --- gemmlowp fixed point --- */

/* SaturatingRoundingMultiplyByPOT with a positive exponent: a saturating left shift. */
static int32_t sat_shl(int32_t x, int exponent) {
  int32_t threshold = (int32_t)((1LL << (31 - exponent)) - 1);
  if (x > threshold) return INT32_MAX;
  if (x < -threshold) return INT32_MIN;
  return wshl(x, exponent);
}

/* Rescale from src to dst integer bits. */
static int32_t rescale(int32_t x, int src_bits, int dst_bits) {
  int e = src_bits - dst_bits;
  if (e > 0) return sat_shl(x, e);
  if (e < 0) return ap_kq_rdbpot(x, -e);
  return x;
}

/* exp(a) for a in [-1/4, 0), Taylor expansion around -1/8. All values Q0.31. */
static int32_t exp_quarter_interval(int32_t a) {
  const int32_t constant_term = 1895147668;    /* exp(-1/8) */
  const int32_t constant_1_over_3 = 715827883; /* 1/3 */
  int32_t x = wadd(a, 1 << 28);                /* a + 1/8 */
  int32_t x2 = ap_kq_srdhm(x, x);
  int32_t x3 = ap_kq_srdhm(x2, x);
  int32_t x4 = ap_kq_srdhm(x2, x2);
  int32_t x4_over_4 = ap_kq_rdbpot(x4, 2);
  int32_t poly = ap_kq_rdbpot(wadd(ap_kq_srdhm(wadd(x4_over_4, x3), constant_1_over_3), x2), 1);
  return wadd(constant_term, ap_kq_srdhm(constant_term, wadd(x, poly)));
}

int32_t ap_kfp_exp_on_negative_values(int32_t a, int integer_bits) {
  int frac = 31 - integer_bits;
  int32_t one_quarter = (int32_t)1 << (frac - 2);
  int32_t mask = one_quarter - 1;
  int32_t a_mod_quarter_minus_one_quarter = wsub(a & mask, one_quarter);
  int32_t result = exp_quarter_interval(rescale(a_mod_quarter_minus_one_quarter, integer_bits, 0));
  int32_t remainder = wsub(a_mod_quarter_minus_one_quarter, a);
  /* exp(-2^k) for k = -2 .. 4, Q0.31. */
  static const int32_t multipliers[7] = {1672461947, 1302514674, 790015084, 290630308,
                                         39332535,   720401,     242};
  for (int k = -2; k <= 4; k++) {
    if (integer_bits > k) {
      int shift = frac + k;
      if (remainder & ((int32_t)1 << shift)) result = ap_kq_srdhm(result, multipliers[k + 2]);
    }
  }
  if (integer_bits > 5) {
    int32_t clamp = -((int32_t)1 << (36 - integer_bits)); /* -32 */
    if (a < clamp) result = 0;
  }
  if (a == 0) result = INT32_MAX;
  return result;
}

/* Newton-Raphson for 1/(1+a) with a in [0, 1]; the iterate is Q2.29. */
static int32_t newton_half_denominator(int32_t a, int32_t *half_denominator) {
  int64_t sum = (int64_t)a + INT32_MAX;
  int64_t sign = sum >= 0 ? 1 : -1;
  int32_t hd = (int32_t)((sum + sign) / 2); /* RoundingHalfSum(a, One) */
  const int32_t constant_48_over_17 = 1515870810;
  const int32_t constant_neg_32_over_17 = -1010580540;
  int32_t x = wadd(constant_48_over_17, ap_kq_srdhm(hd, constant_neg_32_over_17));
  for (int i = 0; i < 3; i++) {
    int32_t hd_x = ap_kq_srdhm(hd, x);
    int32_t one_minus = wsub(1 << 29, hd_x);
    x = wadd(x, rescale(ap_kq_srdhm(x, one_minus), 4, 2));
  }
  *half_denominator = hd;
  return x;
}

int32_t ap_kfp_one_over_one_plus_x(int32_t a) {
  int32_t hd;
  int32_t x = newton_half_denominator(a, &hd);
  /* x is 1/(half denominator) in Q2.29; halving it by relabelling to Q1.30 then rescaling
   * to Q0.31 is a saturating shift by one. */
  return rescale(x, 1, 0);
}

static int32_t one_minus_x_over_one_plus_x(int32_t a) {
  int32_t hd;
  int32_t x = newton_half_denominator(a, &hd);
  return rescale(wsub(x, 1 << 29), 2, 0);
}

int32_t ap_kfp_logistic(int32_t a, int integer_bits) {
  if (a == 0) return 1 << 30;
  int32_t abs_a = a > 0 ? a : wsub(0, a);
  int32_t pos =
      ap_kfp_one_over_one_plus_x(ap_kfp_exp_on_negative_values(wsub(0, abs_a), integer_bits));
  return a > 0 ? pos : wsub(INT32_MAX, pos);
}

int32_t ap_kfp_tanh(int32_t a, int integer_bits) {
  if (a == 0) return 0;
  int32_t n = a < 0 ? a : wsub(0, a);
  /* exp(2n): the raw value reinterpreted with one more integer bit. */
  int32_t t = one_minus_x_over_one_plus_x(ap_kfp_exp_on_negative_values(n, integer_bits + 1));
  return a < 0 ? wsub(0, t) : t;
}

int32_t ap_kq_reciprocal(int32_t x, int x_integer_digits, int *num_bits_over_unit) {
  int headroom_plus_one = x == 0 ? 32 : __builtin_clz((uint32_t)x);
  *num_bits_over_unit = x_integer_digits - headroom_plus_one;
  uint32_t shifted = headroom_plus_one >= 32 ? 0 : (uint32_t)x << headroom_plus_one;
  int32_t shifted_sum_minus_one = (int32_t)(shifted - (1u << 31));
  return ap_kfp_one_over_one_plus_x(shifted_sum_minus_one);
}

void ap_kq_inv_sqrt(int32_t input, int reverse_shift, int32_t *multiplier, int *shift) {
  /* 0 and 1 both give the largest multiplier: 0 has no inverse square root, and 1 would
   * overflow the iteration below. */
  if (input <= 1) {
    *multiplier = INT32_MAX;
    *shift = 0;
    return;
  }
  *shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++*shift;
  }
  /* Normalise into [2^27, 2^29) by whole bit pairs, so the square root shifts by whole bits. */
  int pairs = (__builtin_clz((uint32_t)input) - 1) / 2 - 1;
  *shift -= pairs;
  input = wshl(input, 2 * pairs);
  /* Newton-Raphson on Q3.28 (three integer bits hold the iteration's range), from x = 1. */
  const int32_t half_input = ap_kq_rdbpot(input >> 1, 1);
  const int32_t three_halves = (1 << 28) + (1 << 27);
  int32_t x = 1 << 28;
  for (int i = 0; i < 5; i++) {
    int32_t x3 = rescale(ap_kq_srdhm(ap_kq_srdhm(x, x), x), 9, 3);
    x = rescale(wsub(ap_kq_srdhm(three_halves, x), ap_kq_srdhm(half_input, x3)), 6, 3);
  }
  x = ap_kq_srdhm(x, 1518500250); /* sqrt(2)/2 in Q0.31 */
  *multiplier = x;
  if (*shift < 0) {
    *multiplier = wshl(*multiplier, -*shift);
    *shift = 0;
  }
  *shift *= reverse_shift;
}
