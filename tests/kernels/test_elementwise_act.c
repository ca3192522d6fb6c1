/* ADD, SUB, MUL (broadcasting, quantized rescaling, saturation) and the activations. */
#include "ktest.h"

static void test_float_broadcast(void) {
  /* [2, 1] + [1, 3] -> [2, 3]; a rank-1 [3] broadcasts against [2, 3] too. */
  float a[2] = {10, 20}, b[3] = {1, 2, 3}, out[6];
  ap_ktensor ta = kt(AP_FLOAT32, a, 2, 2, 1, 0, 0), tb = kt(AP_FLOAT32, b, 2, 1, 3, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  ap_binary_params p;
  CHECK_EQ(ap_binary_prepare(AP_KBIN_ADD, AP_KACT_NONE, &ta, &tb, &to, &p, NULL), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 3);
  CHECK_EQ(ap_binary_eval(&p, &ta, &tb, &to), AP_OK);
  float want[6] = {11, 12, 13, 21, 22, 23};
  CHECK_ARRAY(out, want, 6);
  CHECK_EQ(ap_binary_prepare(AP_KBIN_SUB, AP_KACT_RELU6, &ta, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_binary_eval(&p, &ta, &tb, &to), AP_OK);
  float want_sub[6] = {6, 6, 6, 6, 6, 6};
  CHECK_ARRAY(out, want_sub, 6);
  tb = kt(AP_FLOAT32, b, 1, 3, 0, 0, 0);
  CHECK_EQ(ap_binary_prepare(AP_KBIN_MUL, AP_KACT_NONE, &ta, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_binary_eval(&p, &ta, &tb, &to), AP_OK);
  float want_mul[6] = {10, 20, 30, 20, 40, 60};
  CHECK_ARRAY(out, want_mul, 6);
  /* 4-D broadcast in two directions: [1,2,1,2] * [2,1,2,1] -> [2,2,2,2]. */
  float c[4] = {1, 2, 3, 4}, d[4] = {1, 10, 100, 1000}, o4[16];
  ap_ktensor tc = kt(AP_FLOAT32, c, 4, 1, 2, 1, 2), td = kt(AP_FLOAT32, d, 4, 2, 1, 2, 1);
  to = kout(AP_FLOAT32, o4, 0, 0);
  CHECK_EQ(ap_binary_prepare(AP_KBIN_MUL, AP_KACT_NONE, &tc, &td, &to, &p, NULL), AP_OK);
  CHECK_DIMS4(to, 2, 2, 2, 2);
  CHECK_EQ(ap_binary_eval(&p, &tc, &td, &to), AP_OK);
  /* out[i,j,k,l] = c[0,j,0,l] * d[i,0,k,0] */
  float want4[16] = {1, 2, 10, 20, 3, 4, 30, 40, 100, 200, 1000, 2000, 300, 400, 3000, 4000};
  CHECK_ARRAY(o4, want4, 16);
  ap_errbuf e = {""};
  tb = kt(AP_FLOAT32, b, 1, 2, 0, 0, 0);
  ta = kt(AP_FLOAT32, a, 1, 3, 0, 0, 0);
  CHECK_EQ(ap_binary_prepare(AP_KBIN_ADD, AP_KACT_NONE, &ta, &tb, &to, &p, &e), AP_ERR_FORMAT);
  CHECK_STR(e.msg, "ADD: shapes do not broadcast: dim 0 is 3 and 2");
}

static void test_quantized(void) {
  /* a: scale 1 zp 0, 10 -> 10. b: scale 0.5 zp 0, 7 -> 3.5. Output scale 0.25 zp -20:
   * 13.5 -> 54 - 20 = 34. With 20 bits of headroom every step is exact here. */
  int8_t a[1] = {10}, b[1] = {7}, o[1];
  ap_ktensor ta = ktq(AP_INT8, a, 1, 1, 0, 0, 0, 1.0f, 0);
  ap_ktensor tb = ktq(AP_INT8, b, 1, 1, 0, 0, 0, 0.5f, 0);
  ap_ktensor to = kout(AP_INT8, o, 0.25f, -20);
  ap_binary_params p;
  CHECK_EQ(ap_binary_prepare(AP_KBIN_ADD, AP_KACT_NONE, &ta, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.left_shift, 20);
  CHECK_EQ(p.input1_multiplier, 1073741824); /* 1 / (2 * 1) = 0.5 */
  CHECK_EQ(p.input1_shift, 0);
  CHECK_EQ(p.input2_shift, -1);  /* 0.25 */
  CHECK_EQ(p.output_shift, -16); /* 2 / (2^20 * 0.25) = 2^-17 = 0.5 * 2^-16 */
  CHECK_EQ(ap_binary_eval(&p, &ta, &tb, &to), AP_OK);
  CHECK_EQ(o[0], 34);
  CHECK_EQ(ap_binary_prepare(AP_KBIN_SUB, AP_KACT_NONE, &ta, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_binary_eval(&p, &ta, &tb, &to), AP_OK);
  CHECK_EQ(o[0], 6); /* 6.5 / 0.25 = 26 - 20 */
  /* Saturation: 100 + 50 at output scale 0.25 is far above 127. */
  a[0] = 100;
  b[0] = 100;
  CHECK_EQ(ap_binary_prepare(AP_KBIN_ADD, AP_KACT_NONE, &ta, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_binary_eval(&p, &ta, &tb, &to), AP_OK);
  CHECK_EQ(o[0], 127);
  /* RELU6 at output zp -20, scale 0.25: clamp to [-20, 4]. */
  CHECK_EQ(ap_binary_prepare(AP_KBIN_ADD, AP_KACT_RELU6, &ta, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_binary_eval(&p, &ta, &tb, &to), AP_OK);
  CHECK_EQ(o[0], 4);
  /* MUL: a 10 at 0.5 = 5, b -6 at 0.25 zp -2 = -1, output scale 0.1: -5 -> -50. */
  a[0] = 10;
  b[0] = -6;
  ta = ktq(AP_INT8, a, 1, 1, 0, 0, 0, 0.5f, 0);
  tb = ktq(AP_INT8, b, 1, 1, 0, 0, 0, 0.25f, -2);
  to = kout(AP_INT8, o, 0.1f, 0);
  CHECK_EQ(ap_binary_prepare(AP_KBIN_MUL, AP_KACT_NONE, &ta, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_binary_eval(&p, &ta, &tb, &to), AP_OK);
  CHECK_EQ(o[0], -50);
  /* uint8 broadcast add of a per-tensor bias: [1,2] + [1] at equal scales, zp 128. */
  uint8_t ua[2] = {130, 120}, ub[1] = {131}, uo[2];
  ta = ktq(AP_UINT8, ua, 2, 1, 2, 0, 0, 1.0f, 128);
  tb = ktq(AP_UINT8, ub, 1, 1, 0, 0, 0, 1.0f, 128);
  to = kout(AP_UINT8, uo, 1.0f, 128);
  CHECK_EQ(ap_binary_prepare(AP_KBIN_ADD, AP_KACT_NONE, &ta, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_binary_eval(&p, &ta, &tb, &to), AP_OK);
  CHECK_EQ(uo[0], 133);
  CHECK_EQ(uo[1], 123);
  /* int32 wraps like TFLite's and clamps to the activation. */
  int32_t ia[2] = {INT32_MAX, -7}, ib[2] = {1, 3}, io[2];
  ta = kt(AP_INT32, ia, 1, 2, 0, 0, 0);
  tb = kt(AP_INT32, ib, 1, 2, 0, 0, 0);
  to = kout(AP_INT32, io, 0, 0);
  CHECK_EQ(ap_binary_prepare(AP_KBIN_ADD, AP_KACT_RELU, &ta, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_binary_eval(&p, &ta, &tb, &to), AP_OK);
  CHECK_EQ(io[0], 0); /* wrapped to INT32_MIN, then RELU */
  CHECK_EQ(io[1], 0);
}

static void test_activations_float(void) {
  float in[6] = {-7, -0.5f, 0, 0.5f, 6.5f, 20}, out[6];
  ap_ktensor ti = kt(AP_FLOAT32, in, 1, 6, 0, 0, 0), to = kout(AP_FLOAT32, out, 0, 0);
  ap_unary_params p;
  CHECK_EQ(ap_unary_prepare(AP_KUN_RELU, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_unary_eval(&p, &ti, &to), AP_OK);
  float relu[6] = {0, 0, 0, 0.5f, 6.5f, 20};
  CHECK_ARRAY(out, relu, 6);
  CHECK_EQ(ap_unary_prepare(AP_KUN_RELU6, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_unary_eval(&p, &ti, &to), AP_OK);
  float relu6[6] = {0, 0, 0, 0.5f, 6, 6};
  CHECK_ARRAY(out, relu6, 6);
  CHECK_EQ(ap_unary_prepare(AP_KUN_LOGISTIC, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_unary_eval(&p, &ti, &to), AP_OK);
  CHECK(out[2] == 0.5f);
  CHECK(out[5] == 1.0f);                       /* above 16.619: exactly 1 */
  CHECK(out[0] == 1.0f / (1.0f + expf(7.0f))); /* inside the cutoffs: 1 / (1 + e^-x) */
  CHECK(fabsf(out[0] - 9.1105e-4f) < 1e-7f);
  CHECK_EQ(ap_unary_prepare(AP_KUN_TANH, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_unary_eval(&p, &ti, &to), AP_OK);
  CHECK(out[2] == 0.0f && out[3] == tanhf(0.5f));
}

static void test_activations_int8(void) {
  /* RELU rescales: input scale 0.5, output 0.25 zp -128: 10 -> 5.0 -> 20 - 128. */
  int8_t in[3] = {10, -5, 0}, out[3];
  ap_ktensor ti = ktq(AP_INT8, in, 1, 3, 0, 0, 0, 0.5f, 0), to = kout(AP_INT8, out, 0.25f, -128);
  ap_unary_params p;
  CHECK_EQ(ap_unary_prepare(AP_KUN_RELU, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_unary_eval(&p, &ti, &to), AP_OK);
  int8_t want[3] = {-108, -128, -128};
  CHECK_ARRAY(out, want, 3);
  /* RELU6 clamps in the input's quantization: scale 0.5 zp -10 -> [-10, 2]. */
  int8_t in6[4] = {-20, -10, 0, 5}, out6[4];
  ti = ktq(AP_INT8, in6, 1, 4, 0, 0, 0, 0.5f, -10);
  to = kout(AP_INT8, out6, 0.5f, -10);
  CHECK_EQ(ap_unary_prepare(AP_KUN_RELU6, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_unary_eval(&p, &ti, &to), AP_OK);
  int8_t want6[4] = {-10, -10, 0, 2};
  CHECK_ARRAY(out6, want6, 4);
  /* LOGISTIC and TANH over every int8 input at scale 1/16 against libm, within one step;
   * exact at 0 and at the saturated ends. */
  int8_t all[256], lo[256], th[256];
  for (int i = 0; i < 256; i++)
    all[i] = (int8_t)(i - 128);
  ti = ktq(AP_INT8, all, 1, 256, 0, 0, 0, 1.0f / 16, 0);
  to = kout(AP_INT8, lo, 1.0f / 256, -128);
  CHECK_EQ(ap_unary_prepare(AP_KUN_LOGISTIC, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.shift, 24); /* 2^-4 * 2^27 = 2^23 = 0.5 * 2^24 */
  CHECK_EQ(p.multiplier, 1073741824);
  CHECK_EQ(p.input_range_radius, 120); /* 15 * 2^27 / 2^24 */
  CHECK_EQ(ap_unary_eval(&p, &ti, &to), AP_OK);
  to = kout(AP_INT8, th, 1.0f / 128, 0);
  CHECK_EQ(ap_unary_prepare(AP_KUN_TANH, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_unary_eval(&p, &ti, &to), AP_OK);
  int bad_l = 0, bad_t = 0;
  for (int i = 0; i < 256; i++) {
    double x = (i - 128) / 16.0;
    double wl = fmin(127, round(256.0 / (1.0 + exp(-x))) - 128);
    double wt = fmax(-128, fmin(127, round(128.0 * tanh(x))));
    bad_l += fabs(lo[i] - wl) > 1;
    bad_t += fabs(th[i] - wt) > 1;
  }
  CHECK_EQ(bad_l, 0);
  CHECK_EQ(bad_t, 0);
  CHECK_EQ(lo[128], 0); /* logistic(0) = 0.5 -> 128 - 128 */
  CHECK_EQ(th[128], 0);
  CHECK_EQ(lo[0], -128);  /* -8: at the radius */
  CHECK_EQ(lo[255], 127); /* 7.94: 255.9 rounds to 256, clamped */
  CHECK_EQ(th[0], -128);
  CHECK_EQ(th[255], 127);
  ap_errbuf e = {""};
  to = kout(AP_INT8, lo, 1.0f / 256, 0);
  CHECK_EQ(ap_unary_prepare(AP_KUN_LOGISTIC, &ti, &to, &p, &e), AP_ERR_UNSUPPORTED);
  CHECK_STR(e.msg, "LOGISTIC: int8 output zero point must be -128, got 0");
}

int main(void) {
  test_float_broadcast();
  test_quantized();
  test_activations_float();
  test_activations_int8();
  return ap_test_done();
}
