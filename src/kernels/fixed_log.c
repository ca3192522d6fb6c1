/* log(x) for x >= 1 in gemmlowp-style fixed point, as TFLite's common.h
 * log_x_for_x_greater_than_or_equal_to_1 computes it (LOG_SOFTMAX's int8 path needs it bit for
 * bit): x = 2^k * z with z in [sqrt(1/2), sqrt(2)), then log z by a rational approximation
 * around 2^(-1/4), and k log 2 added with one bit of headroom. */
#include "kernels/kops_elem16.h"
#include "kernels/quant.h"

static int32_t wrap_add(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a + (uint32_t)b);
}

static int32_t wrap_sub(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a - (uint32_t)b);
}

/* SaturatingRoundingMultiplyByPOTParam with exponent in [0, 31]. */
static int32_t sat_pot(int32_t x, int exponent) {
  if (exponent == 0) return x;
  int32_t threshold = (int32_t)((1LL << (31 - exponent)) - 1);
  if (x > threshold) return INT32_MAX;
  if (x < -threshold) return INT32_MIN;
  return (int32_t)((uint32_t)x << exponent);
}

static int32_t sat_add64(int64_t v) {
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

static int clz32(int32_t x) {
  return x == 0 ? 32 : __builtin_clz((uint32_t)x);
}

int32_t ap_kfp_log_x_ge_1(int32_t x, int in_bits, int out_bits) {
  const int accum_bits = out_bits + 1;
  /* Q0.31 constants: round(c * 2^31). */
  const int32_t log_2 = 1488522236;          /* log(2) */
  const int32_t sqrt_sqrt_half = 1805811301; /* 2^(-1/4) */
  const int32_t sqrt_half = 1518500250;      /* 2^(-1/2) */
  const int32_t one_quarter = 536870912;     /* 1/4 */
  const int32_t alpha_n = 117049297;         /* 11/240 * 2^(1/4) */
  const int32_t alpha_d = 127690142;         /* 1/20 * 2^(1/4) */
  const int32_t alpha_i = 1057819769;        /* 2 / 2^(1/4) - 2^(1/4) */
  const int32_t alpha_f = 638450708;         /* 1/4 * 2^(1/4) */
  const int32_t shifted_quarter = ap_kq_rdbpot(one_quarter, accum_bits);

  /* Two normalisations of x into Q0.31, z_a in [1/2, 1) and z_b in [sqrt(1/2), sqrt(2)) / 2,
   * with the powers of two they took (less 3/4 and 1/4). */
  int za_headroom_plus_1 = clz32(x);
  int32_t ra_tmp = sat_pot(x, za_headroom_plus_1 - 1);
  int32_t ra = sat_pot(ap_kq_srdhm(ra_tmp, sqrt_half), 1);
  int32_t za_pow2 =
      sat_add64((int64_t)sat_pot(in_bits - za_headroom_plus_1, 31 - accum_bits) + shifted_quarter);
  int32_t zb = ap_kq_srdhm(x, sqrt_half);
  int zb_headroom = clz32(zb) - 1;
  int32_t rb = sat_pot(x, zb_headroom);
  int32_t zb_pow2 =
      sat_add64((int64_t)sat_pot(in_bits - zb_headroom, 31 - accum_bits) - shifted_quarter);
  int32_t r = ra < rb ? ra : rb;
  int32_t z_pow2 = za_pow2 > zb_pow2 ? za_pow2 : zb_pow2;

  /* RoundingHalfSum(r, 2^(-1/4)). */
  int64_t sum = (int64_t)r + sqrt_sqrt_half;
  int32_t p = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
  int32_t q = wrap_sub(r, sqrt_sqrt_half);
  q = wrap_add(q, q);
  int32_t common_sq = ap_kq_srdhm(q, q);
  int32_t num = wrap_add(ap_kq_srdhm(q, r), ap_kq_srdhm(ap_kq_srdhm(q, common_sq), alpha_n));
  int32_t denom_minus_one =
      wrap_add(ap_kq_srdhm(p, wrap_add(wrap_add(alpha_i, q), ap_kq_srdhm(alpha_d, common_sq))),
               ap_kq_srdhm(alpha_f, q));
  int32_t recip_denom = ap_kfp_one_over_one_plus_x(denom_minus_one);
  int32_t num_scaled = ap_kq_rdbpot(num, accum_bits);
  int32_t acc = wrap_add(ap_kq_srdhm(z_pow2, log_2), ap_kq_srdhm(num_scaled, recip_denom));
  /* From accum_bits to out_bits integer bits: a saturating doubling. */
  return sat_pot(acc, accum_bits - out_bits);
}
