/* TFLite's fixed-point arithmetic: values worked out by hand from the definitions in
 * quantization_util.cc, common.h and gemmlowp's fixedpoint.h. */
#include "ktest.h"

static void test_multiplier(void) {
  int32_t m;
  int s;
  ap_kq_multiplier(0.5, &m, &s); /* 0.5 = 2^30 * 2^(0-31) */
  CHECK_EQ(m, 1073741824);
  CHECK_EQ(s, 0);
  ap_kq_multiplier(1.0, &m, &s);
  CHECK_EQ(m, 1073741824);
  CHECK_EQ(s, 1);
  ap_kq_multiplier(0.25, &m, &s);
  CHECK_EQ(m, 1073741824);
  CHECK_EQ(s, -1);
  ap_kq_multiplier(0.75, &m, &s); /* 0.75 * 2^31 */
  CHECK_EQ(m, 1610612736);
  CHECK_EQ(s, 0);
  ap_kq_multiplier(0.0, &m, &s);
  CHECK_EQ(m, 0);
  CHECK_EQ(s, 0);
  /* A mantissa that rounds up to 2^31 is renormalised to 2^30 with one more shift. */
  ap_kq_multiplier(1.0 - ldexp(1.0, -40), &m, &s);
  CHECK_EQ(m, 1073741824);
  CHECK_EQ(s, 1);
  /* Below 2^-31 of a unit the multiplier flushes to zero. */
  ap_kq_multiplier(ldexp(1.0, -40), &m, &s);
  CHECK_EQ(m, 0);
  CHECK_EQ(s, 0);
  CHECK(!ap_kq_multiplier_lt1(1.0, &m, &s));
  CHECK(!ap_kq_multiplier_lt1(0.0, &m, &s));
  CHECK(ap_kq_multiplier_lt1(0.25, &m, &s) && m == 1073741824 && s == -1);
  CHECK(!ap_kq_multiplier_gt1(0.5, &m, &s));
  CHECK(ap_kq_multiplier_gt1(4.0, &m, &s) && m == 1073741824 && s == 3);
}

static void test_rounding(void) {
  const int32_t half = 1 << 30; /* 0.5 in Q0.31 */
  CHECK_EQ(ap_kq_srdhm(INT32_MIN, INT32_MIN), INT32_MAX);
  CHECK_EQ(ap_kq_srdhm(half, half), 1 << 29);
  /* gemmlowp's nudge: positive ties round up, negative ties toward zero. */
  CHECK_EQ(ap_kq_srdhm(1, half), 1);
  CHECK_EQ(ap_kq_srdhm(-1, half), 0);
  CHECK_EQ(ap_kq_srdhm(-3, half), -1);
  CHECK_EQ(ap_kq_srdhm(3, half), 2);
  /* RoundingDivideByPOT: ties away from zero. */
  CHECK_EQ(ap_kq_rdbpot(5, 1), 3);
  CHECK_EQ(ap_kq_rdbpot(-5, 1), -3);
  CHECK_EQ(ap_kq_rdbpot(3, 1), 2);
  CHECK_EQ(ap_kq_rdbpot(-3, 1), -2);
  CHECK_EQ(ap_kq_rdbpot(7, 2), 2);
  CHECK_EQ(ap_kq_rdbpot(-6, 2), -2);
  CHECK_EQ(ap_kq_rdbpot(-7, 2), -2);
  CHECK_EQ(ap_kq_rdbpot(INT32_MAX, 31), 1);
  CHECK_EQ(ap_kq_rdbpot(INT32_MIN, 31), -1);
  /* MultiplyByQuantizedMultiplier. */
  CHECK_EQ(ap_kq_mul(100, half, 0), 50);
  CHECK_EQ(ap_kq_mul(101, half, 0), 51);
  CHECK_EQ(ap_kq_mul(-101, half, 0), -50);
  CHECK_EQ(ap_kq_mul(3, half, 2), 6);
  /* Double rounding: 5 * 0.25 = 1.25 becomes 2.5 -> 3 -> 1.5 -> 2 (single rounding: 1). */
  CHECK_EQ(ap_kq_mul(5, half, -1), 2);
  CHECK_EQ(ap_kq_mul_lt1(5, half, -1), 2);
  CHECK_EQ(ap_kq_mul_gt1(3, half, 2), 6);
}

static void test_ranges(void) {
  int32_t lo, hi;
  CHECK(ap_kq_act_range_quant(AP_KACT_NONE, AP_INT8, 0.5f, -10, &lo, &hi));
  CHECK(lo == -128 && hi == 127);
  CHECK(ap_kq_act_range_quant(AP_KACT_RELU, AP_INT8, 0.5f, -10, &lo, &hi));
  CHECK(lo == -10 && hi == 127);
  CHECK(ap_kq_act_range_quant(AP_KACT_RELU6, AP_INT8, 0.5f, -10, &lo, &hi));
  CHECK(lo == -10 && hi == 2); /* 6 / 0.5 = 12 steps above -10 */
  CHECK(ap_kq_act_range_quant(AP_KACT_RELU_N1_TO_1, AP_INT8, 0.5f, -10, &lo, &hi));
  CHECK(lo == -12 && hi == -8);
  CHECK(ap_kq_act_range_quant(AP_KACT_RELU6, AP_UINT8, 0.1f, 0, &lo, &hi));
  CHECK(lo == 0 && hi == 60);
  /* Clipped by the type: RELU6 at scale 0.01 would be 600. */
  CHECK(ap_kq_act_range_quant(AP_KACT_RELU6, AP_INT8, 0.01f, 0, &lo, &hi));
  CHECK(lo == 0 && hi == 127);
  CHECK(!ap_kq_act_range_quant(AP_KACT_TANH, AP_INT8, 0.5f, 0, &lo, &hi));
  CHECK(!ap_kq_act_range_quant(AP_KACT_NONE, AP_FLOAT32, 0.5f, 0, &lo, &hi));
  float flo, fhi;
  CHECK(ap_kq_act_range_float(AP_KACT_RELU6, &flo, &fhi) && flo == 0.0f && fhi == 6.0f);
  CHECK(ap_kq_act_range_float(AP_KACT_RELU_N1_TO_1, &flo, &fhi) && flo == -1.0f && fhi == 1.0f);
  CHECK(!ap_kq_act_range_float(AP_KACT_SIGN_BIT, &flo, &fhi));
  CHECK(ap_kq_clampf(NAN, 0.0f, 6.0f) != ap_kq_clampf(NAN, 0.0f, 6.0f)); /* NaN stays NaN */
}

static void test_softmax_scaling(void) {
  /* (2^5 - 1) * 2^26 / 2^20 */
  CHECK_EQ(ap_kq_input_radius(5, 20), 1984);
  /* Q4.27 with shift 27: 15 * 2^27 / 2^27 */
  CHECK_EQ(ap_kq_input_radius(4, 27), 15);
  int32_t m;
  int s;
  /* beta 1, scale 1/16: 2^-4 * 2^26 = 2^22 = 0.5 * 2^23. */
  CHECK(ap_kq_softmax_scaling(1.0, 0.0625, 5, &m, &s));
  CHECK_EQ(m, 1073741824);
  CHECK_EQ(s, 23);
  CHECK_EQ(-ap_kq_input_radius(5, s), -248);
  /* Capped at 2^31 - 1 for huge products. */
  CHECK(ap_kq_softmax_scaling(1e6, 1e6, 5, &m, &s));
  CHECK_EQ(s, 31);
}

static double q31(int32_t raw) {
  return raw / 2147483648.0;
}

static void test_fixed_point(void) {
  CHECK_EQ(ap_kfp_exp_on_negative_values(0, 5), INT32_MAX);
  /* exp(-k/8) for k = 1 .. 100 in Q5.26, against libm. gemmlowp evaluates exp on [-1/4, 0)
   * with a 4th-order Taylor polynomial around -1/8, whose truncation error is at most
   * (1/8)^5 / 5! = 2.5e-7; 3e-7 bounds it while catching any wrong table entry or branch. */
  double worst = 0;
  for (int k = 1; k <= 100; k++) {
    int32_t a = -(k << 23);
    double got = q31(ap_kfp_exp_on_negative_values(a, 5));
    worst = fmax(worst, fabs(got - exp(-k / 8.0)));
  }
  CHECK_MSG(worst < 3e-7, "worst exp error %g", worst);
  /* An input of exactly -1 is the polynomial at -1/4 times exp(-1/4) and exp(-1/2) from the
   * table: exp(-1/8) * (1 + x + x^2/2 + x^3/6 + x^4/24) at x = -1/8, then e^-0.75, times 2^31
   * is 790015307.35 (python's math, not our code); exp(-1) itself would be 790015084. */
  int32_t e1 = ap_kfp_exp_on_negative_values(-(1 << 26), 5);
  CHECK_MSG(abs(e1 - 790015307) <= 3, "exp(-1) raw %d", e1);
  /* 1/(1+x): x = 0.5 gives 2/3. */
  CHECK_MSG(fabs(q31(ap_kfp_one_over_one_plus_x(1 << 30)) - 2.0 / 3.0) < 1e-8, "1/1.5");
  CHECK_EQ(ap_kfp_one_over_one_plus_x(0), INT32_MAX); /* 1.0 saturates */
  CHECK_EQ(ap_kfp_logistic(0, 4), 1 << 30);
  CHECK_EQ(ap_kfp_tanh(0, 4), 0);
  double lw = 0, tw = 0;
  for (int k = -120; k <= 120; k++) {
    int32_t a = k * (1 << 23); /* k/16 in Q4.27 */
    lw = fmax(lw, fabs(q31(ap_kfp_logistic(a, 4)) - 1.0 / (1.0 + exp(-k / 16.0))));
    tw = fmax(tw, fabs(q31(ap_kfp_tanh(a, 4)) - tanh(k / 16.0)));
  }
  CHECK_MSG(lw < 1e-7, "worst logistic error %g", lw);
  CHECK_MSG(tw < 3e-7, "worst tanh error %g", tw); /* exp(2x): same polynomial bound */
  /* 1/4.0 in Q12.19: 2^21 has 10 leading zeros; the reciprocal is 1.0 (saturated) shifted by
   * 12 - 10 = 2 bits. */
  int bits;
  CHECK_EQ(ap_kq_reciprocal(1 << 21, 12, &bits), INT32_MAX);
  CHECK_EQ(bits, 2);
}

static void test_padding(void) {
  ap_kpadding p;
  /* SAME, 5 wide, filter 3, stride 2: 3 outputs, 2 padding split 1/1. */
  CHECK(ap_kcompute_padding(AP_KPAD_SAME, 5, 5, 3, 3, 2, 2, 1, 1, &p));
  CHECK(p.out_h == 3 && p.out_w == 3 && p.pad_h == 1 && p.pad_w == 1 && p.pad_h_offset == 0);
  /* SAME, 4 wide: 2 outputs, 1 padding, all of it after (TFLite pads less at the start). */
  CHECK(ap_kcompute_padding(AP_KPAD_SAME, 4, 4, 3, 3, 2, 2, 1, 1, &p));
  CHECK(p.out_h == 2 && p.pad_h == 0 && p.pad_h_offset == 1);
  /* SAME with dilation: effective filter 5 on 7, stride 1: 7 outputs, pad 2. */
  CHECK(ap_kcompute_padding(AP_KPAD_SAME, 7, 7, 3, 3, 1, 1, 2, 2, &p));
  CHECK(p.out_w == 7 && p.pad_w == 2);
  /* VALID: (7 + 2 - 3) / 2 = 3. */
  CHECK(ap_kcompute_padding(AP_KPAD_VALID, 7, 7, 3, 3, 2, 2, 1, 1, &p));
  CHECK(p.out_h == 3 && p.pad_h == 0);
  /* VALID with a filter larger than the input, zero stride, unknown padding: no output. */
  CHECK(!ap_kcompute_padding(AP_KPAD_VALID, 2, 2, 3, 3, 1, 1, 1, 1, &p));
  CHECK(!ap_kcompute_padding(AP_KPAD_SAME, 2, 2, 3, 3, 0, 1, 1, 1, &p));
  CHECK(!ap_kcompute_padding(7, 2, 2, 1, 1, 1, 1, 1, 1, &p));
  /* SAME ignores the filter for the output size, but a dilation this large would overflow the
   * window arithmetic: refused. */
  CHECK(!ap_kcompute_padding(AP_KPAD_SAME, 4, 4, 3, 3, 1, 1, INT32_MAX, 1, &p));
  /* At the edge: 3 windows with stride 2^30 - 1 end exactly at INT32_MAX. */
  CHECK(ap_kcompute_padding(AP_KPAD_SAME, INT32_MAX, 4, 1, 1, INT32_MAX / 2, 1, 1, 1, &p));
  CHECK(p.out_h == 3 && p.pad_h == 0);
}

int main(void) {
  test_multiplier();
  test_rounding();
  test_ranges();
  test_softmax_scaling();
  test_fixed_point();
  test_padding();
  return ap_test_done();
}
