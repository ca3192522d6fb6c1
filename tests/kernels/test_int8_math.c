/* int8 DIV, SQUARED_DIFFERENCE and RSQRT (TFLite Micro's integer paths), worked by hand from
 * the reference formulas with scales chosen so that every multiplier is a power of two:
 * QuantizeMultiplier(2^k) = (2^30, k + 1), and SRDHM(x, 2^30) = x / 2 for even x. */
#include "kxtest.h"

typedef struct q8 {
  int8_t a[8], b[8], out[8];
  ap_ktensor ta, tb, to;
  const ap_ktensor *ins[2];
  ap_ktensor *outs[1];
  kx_run r;
} q8;

static void q8_setup(q8 *q, int n, int nb, float sa, int za, float sb, int zb, float so, int zo) {
  q->ta = ktq(AP_INT8, q->a, 1, n, 0, 0, 0, sa, za);
  q->tb = ktq(AP_INT8, q->b, nb ? 1 : 0, nb, 0, 0, 0, sb, zb);
  q->to = kout(AP_INT8, q->out, so, zo);
  q->ins[0] = &q->ta, q->ins[1] = &q->tb;
  q->outs[0] = &q->to;
  kx_setup(&q->r, q->ins, 2, q->outs, 1);
}

static void test_squared_difference(void) {
  /* Scales 0.5, 0.5 -> 0.25, zero points 0. Both inputs rescale by 0.5 / (2 * 0.5) = 1/2
   * (multiplier 2^30, shift 0): s = (v * 128) / 2 = 64 v exactly. The output multiplier is
   * 1^2 / (2^14 * 0.25) = 2^-12 (2^30, shift -11): SRDHM halves d^2 = 4096 (v1 - v2)^2 and
   * the rounding shift by 11 leaves (v1 - v2)^2: the real answer, 0.25 (v1 - v2)^2 / 0.25. */
  q8 q;
  q8_setup(&q, 4, 1, 0.5f, 0, 0.5f, 0, 0.25f, 0);
  int8_t a[4] = {5, -1, 2, 14};
  memcpy(q.a, a, 4);
  q.b[0] = 2; /* a scalar: broadcast against every element */
  CHECK_EQ(kx_do(&q.r, AP_KB_SQUARED_DIFFERENCE), AP_OK);
  CHECK(q.to.rank == 1 && q.to.dims[0] == 4);
  int8_t w1[4] = {9, 9, 0, 127}; /* 12^2 = 144 saturates */
  CHECK_ARRAY(q.out, w1, 4);
  /* Output zero point -10: 9 - 10 = -1; 0 - 10; 144 - 10 still saturates. */
  q8_setup(&q, 4, 1, 0.5f, 0, 0.5f, 0, 0.25f, -10);
  memcpy(q.a, a, 4);
  q.b[0] = 2;
  CHECK_EQ(kx_do(&q.r, AP_KB_SQUARED_DIFFERENCE), AP_OK);
  int8_t w2[4] = {-1, -1, -10, 127};
  CHECK_ARRAY(q.out, w2, 4);
  /* Output scale 0.5: the multiplier is 2^-13 (shift -12), the result (v1 - v2)^2 / 2: ties.
   * 9 / 2 = 4.5 -> 5 and 1 / 2 = 0.5 -> 1 (RoundingDivideByPOT: remainder 2048 of 4096 is
   * above the threshold 2047: half away from zero); 25 / 2 = 12.5 -> 13; 0 -> 0. */
  q8_setup(&q, 4, 4, 0.5f, 0, 0.5f, 0, 0.5f, 0);
  int8_t a3[4] = {5, 2, -3, 7}, b3[4] = {2, 3, 2, 7};
  memcpy(q.a, a3, 4);
  memcpy(q.b, b3, 4);
  CHECK_EQ(kx_do(&q.r, AP_KB_SQUARED_DIFFERENCE), AP_OK);
  int8_t w3[4] = {5, 1, 13, 0};
  CHECK_ARRAY(q.out, w3, 4);
  /* Different input scales and zero points: (5 - 3) * 1 = 2 and (2 + 2) * 0.5 = 2: 0. */
  q8_setup(&q, 1, 1, 1.0f, 3, 0.5f, -2, 0.5f, 0);
  q.a[0] = 5, q.b[0] = 2;
  CHECK_EQ(kx_do(&q.r, AP_KB_SQUARED_DIFFERENCE), AP_OK);
  CHECK_EQ(q.out[0], 0);
  /* Zero-sized: nothing written. */
  q8_setup(&q, 0, 1, 0.5f, 0, 0.5f, 0, 0.5f, 0);
  q.out[0] = 42;
  CHECK_EQ(kx_do(&q.r, AP_KB_SQUARED_DIFFERENCE), AP_OK);
  CHECK(q.to.dims[0] == 0 && q.out[0] == 42);
  /* int32: plain (x - y)^2; a difference past 2^16 wraps as TFLite's int32 does. */
  int32_t ia[2] = {-3, 70000}, ib[1] = {4}, io[2];
  ap_ktensor ta = kt(AP_INT32, ia, 1, 2, 0, 0, 0), tb = kt(AP_INT32, ib, 0, 0, 0, 0, 0);
  ap_ktensor to = kout(AP_INT32, io, 0, 0);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_SQUARED_DIFFERENCE), AP_OK);
  CHECK_EQ(io[0], 49);
  CHECK_EQ(io[1], (int32_t)(uint32_t)(69996u * 69996u)); /* 4899440016 mod 2^32 */
  /* A zero point outside int8 is refused. */
  q8_setup(&q, 1, 1, 0.5f, 200, 0.5f, 0, 0.5f, 0);
  CHECK_EQ(kx_do(&q.r, AP_KB_SQUARED_DIFFERENCE), AP_ERR_FORMAT);
  CHECK_STR(q.r.err.msg, "SQUARED_DIFFERENCE: int8 tensors need a positive scale and a zero "
                         "point in [-128, 127]");
}

static void test_div(void) {
  /* Scales 1, 1 -> 1: output multiplier QuantizeMultiplier(1.0) = (2^30, 1). For v1 / v2:
   * GetReciprocal(v2, 31) gives 1/v2 as a Q0.31 raw value and a shift, the dividend is
   * normalised by its sign bits, then rescaled. 6 / 3 = 2 exactly. The ties show TFLite's
   * asymmetric rounding: 3 / 2 = 1.5: the reciprocal of 2 is (2^31 - 1) at shift 1,
   * headroom(3) = 29, quotient SRDHM(3 << 29, 2^31 - 1) = 3 * 2^29; total shift
   * 1 - 1 - 29 = -29; SRDHM(3 * 2^29, 2^30) = 3 * 2^28, divided by 2^29 rounding: 1.5 -> 2.
   * -3 / 2: SRDHM's division truncates toward zero, so the quotient is -3 * 2^29 + 1 and the
   * next SRDHM -3 * 2^28 + 1: just above -1.5 -> -1. Likewise 5/2 -> 3, -5/2 -> -2,
   * 7/2 -> 4, -7/2 -> -3: ties go up, not away from zero. A negative divisor flips both
   * signs first: 3 / -2 = -3 / 2 -> -1. -128 / 1 = -128; 1 / 3 = 0.33 -> 0. */
  q8 q;
  q8_setup(&q, 8, 8, 1.0f, 0, 1.0f, 0, 1.0f, 0);
  int8_t a[8] = {6, 3, -3, 5, -5, 7, -7, 3}, b[8] = {3, 2, 2, 2, 2, 2, 2, -2};
  memcpy(q.a, a, 8);
  memcpy(q.b, b, 8);
  CHECK_EQ(kx_do(&q.r, AP_KB_DIV), AP_OK);
  int8_t w[8] = {2, 2, -1, 3, -2, 4, -3, -1};
  CHECK_ARRAY(q.out, w, 8);
  q8_setup(&q, 2, 1, 1.0f, 0, 1.0f, 0, 1.0f, 0);
  q.a[0] = -128, q.a[1] = 1, q.b[0] = 1;
  CHECK_EQ(kx_do(&q.r, AP_KB_DIV), AP_OK);
  CHECK(q.out[0] == -128 && q.out[1] == 1);
  q.b[0] = 3;
  CHECK_EQ(kx_do(&q.r, AP_KB_DIV), AP_OK);
  CHECK(q.out[0] == -43 && q.out[1] == 0); /* -42.67 -> -43 */
  /* Saturation and the fused RELU: 100 / (1/2 scale: 0.5) with output scale 1 -> 200 -> 127;
   * -100 / 1 with RELU (range [zero point 0, 127]) -> 0. */
  q8_setup(&q, 2, 1, 1.0f, 0, 0.5f, 0, 1.0f, 0);
  q.a[0] = 100, q.a[1] = -100, q.b[0] = 1;
  q.r.opt.activation = AP_KACT_RELU;
  CHECK_EQ(kx_do(&q.r, AP_KB_DIV), AP_OK);
  CHECK(q.out[0] == 127 && q.out[1] == 0);
  /* A divisor equal to its zero point is a division by 0. */
  q8_setup(&q, 1, 1, 1.0f, 0, 1.0f, 5, 1.0f, 0);
  q.a[0] = 1, q.b[0] = 5;
  CHECK_EQ(kx_do(&q.r, AP_KB_DIV), AP_ERR_KERNEL);
  CHECK_STR(q.r.err.msg, "DIV: division by 0 (the divisor is its zero point) at output element 0");
}

static void test_rsqrt(void) {
  /* Input scale 1, output scale 1/64: 1 / sqrt(v) in units of 1/64 is 64 / sqrt(v). The
   * multiplier 1 / (sqrt(1) * 1/64) = 64 = (2^30, 7). For v = 4: the inverse square root
   * multiplier of 4 is 2^30 (+4 from the iteration), 1 at 2^20 becomes 2^19, then
   * SRDHM(2^19, 2^30) = 2^18 and a rounding shift by 20 - 7 = 13: 32. v = 1 -> 64, 16 -> 16,
   * 2 -> 45.25 -> 45, 0 -> 127 (TFLite Micro's value for 1/sqrt(0)). */
  int8_t x[5] = {4, 1, 16, 2, 0}, out[5];
  ap_ktensor tx = ktq(AP_INT8, x, 1, 5, 0, 0, 0, 1.0f, 0), to = kout(AP_INT8, out, 1 / 64.0f, 0);
  const ap_ktensor *ins[1] = {&tx};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_RSQRT), AP_OK);
  int8_t w[5] = {32, 64, 16, 45, 127};
  CHECK_ARRAY(out, w, 5);
  /* Zero points: input -5 (x = -1 is v = 4), output 3: 32 + 3 = 35. Output scale 1/256:
   * 256 / sqrt(1) saturates at 127. */
  tx = ktq(AP_INT8, x, 1, 1, 0, 0, 0, 1.0f, -5);
  x[0] = -1;
  to = kout(AP_INT8, out, 1 / 64.0f, 3);
  CHECK_EQ(kx_do(&r, AP_KB_RSQRT), AP_OK);
  CHECK_EQ(out[0], 35);
  tx = ktq(AP_INT8, x, 1, 1, 0, 0, 0, 1.0f, 0);
  x[0] = 1;
  to = kout(AP_INT8, out, 1 / 256.0f, 0);
  CHECK_EQ(kx_do(&r, AP_KB_RSQRT), AP_OK);
  CHECK_EQ(out[0], 127);
  /* Below the zero point: a negative real value, refused as TFLite Micro does. */
  x[0] = -1;
  CHECK_EQ(kx_do(&r, AP_KB_RSQRT), AP_ERR_KERNEL);
  CHECK_STR(r.err.msg, "RSQRT: element 0 is below its zero point (a negative value)");
  /* SQRT and EXP stay float-only. */
  CHECK_EQ(kx_do(&r, AP_KB_SQRT), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "SQRT: unsupported type INT8");
}

static void test_leaky_relu_prelu(void) {
  /* LEAKY_RELU, scales 0.5 -> 0.5, alpha 0.25: at or above the zero point the multiplier is
   * 1 = (2^30, 1), exact; below it 0.25 = (2^30, -1): SRDHM(v, 2^30) = v / 2 truncated toward
   * zero after the nudge, then a rounding halving. v = -6: -3, then -3 / 2 -> -2 (the real
   * -1.5, half away from zero); -2 -> -1 (-0.5); -4 -> -1; -5 -> -1 (-1.25); -7 -> -2 (-1.75).
   * alpha -1 is (-2^30, 1): -v, and -(-128) = 128 saturates at 127. */
  int8_t x[8] = {-6, -2, -4, -5, -7, 0, 5, 127}, out[8];
  ap_ktensor tx = ktq(AP_INT8, x, 1, 8, 0, 0, 0, 0.5f, 0), to = kout(AP_INT8, out, 0.5f, 0);
  const ap_ktensor *ins[2] = {&tx, NULL};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  r.opt.alpha = 0.25f;
  CHECK_EQ(kx_do(&r, AP_KB_LEAKY_RELU), AP_OK);
  int8_t w1[8] = {-2, -1, -1, -1, -2, 0, 5, 127};
  CHECK_ARRAY(out, w1, 8);
  r.opt.alpha = -1;
  x[0] = -128;
  CHECK_EQ(kx_do(&r, AP_KB_LEAKY_RELU), AP_OK);
  CHECK(out[0] == 127 && out[1] == 2 && out[6] == 5);
  /* Output scale 0.25, zero point 10: the identity doubles: 5 -> 20 (+10), 127 saturates. */
  to = kout(AP_INT8, out, 0.25f, 10);
  CHECK_EQ(kx_do(&r, AP_KB_LEAKY_RELU), AP_OK);
  CHECK(out[5] == 10 && out[6] == 20 && out[7] == 127);

  /* PRELU: input and output scale 0.5, alpha scale 1/64 with zero point -64 (q -48 is 16,
   * 0.25; q 0 is 64, 1.0) per column of [2, 2]. Below zero: v * a rescaled by 1/64 =
   * (2^30, -5). Row {-4, -4}: -4 * 16 = -64 -> -1 (-1.0) and -4 * 64 -> -4; row {3, -128}:
   * 3 stays, -128 * 64 / 64 = -128. Then {-2, -6} at alpha 0.25: -32 / 64 = -0.5 -> -1 and
   * -96 / 64 = -1.5 -> -2: halves away from zero. */
  int8_t v[4] = {-4, -4, 3, -128}, a[2] = {-48, 0}, po[4];
  ap_ktensor tv = ktq(AP_INT8, v, 2, 2, 2, 0, 0, 0.5f, 0);
  ap_ktensor ta = ktq(AP_INT8, a, 1, 2, 0, 0, 0, 1 / 64.0f, -64);
  ap_ktensor tpo = kout(AP_INT8, po, 0.5f, 0);
  const ap_ktensor *pins[2] = {&tv, &ta};
  ap_ktensor *pouts[1] = {&tpo};
  kx_setup(&r, pins, 2, pouts, 1);
  CHECK_EQ(kx_do(&r, AP_KB_PRELU), AP_OK);
  CHECK(tpo.rank == 2 && tpo.dims[0] == 2 && tpo.dims[1] == 2);
  int8_t w2[4] = {-1, -4, 3, -128};
  CHECK_ARRAY(po, w2, 4);
  v[0] = -2, v[2] = -6, a[1] = -48;
  CHECK_EQ(kx_do(&r, AP_KB_PRELU), AP_OK);
  CHECK(po[0] == -1 && po[2] == -2);
  ta.zero_point = 300;
  CHECK_EQ(kx_do(&r, AP_KB_PRELU), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg,
            "PRELU: quantized tensors need a positive scale and a zero point of their type");
}

static void test_compare(void) {
  /* Scales 0.5 and 0.25: each value goes to 256 times its real value, the scale as a multiplier
   * (0.5 = (2^30, 0), 0.25 = (2^30, -1)): 2 -> 512 * 0.5 = 256, 4 -> 1024 * 0.25 = 256: equal
   * (both 1.0); 3 (1.5) -> 384 against 7 (1.75) -> 448: less; 5 (2.5) against 10 (2.5): equal
   * though the raw values differ. */
  q8 q;
  q8_setup(&q, 3, 3, 0.5f, 0, 0.25f, 0, 0, 0);
  int8_t a[3] = {2, 3, 5}, b[3] = {4, 7, 10};
  memcpy(q.a, a, 3);
  memcpy(q.b, b, 3);
  uint8_t out[3];
  q.to = kout(AP_BOOL, out, 0, 0);
  CHECK_EQ(kx_do(&q.r, AP_KB_EQUAL), AP_OK);
  CHECK(out[0] == 1 && out[1] == 0 && out[2] == 1);
  CHECK_EQ(kx_do(&q.r, AP_KB_LESS), AP_OK);
  CHECK(out[0] == 0 && out[1] == 1 && out[2] == 0);
  /* A rounding tie of the rescale: at scale 1/512, q 1 is 256 / 512 = 0.5 units, rounded half
   * away from zero to 1; at scale 1/256, q 1 is exactly 1 unit. So 1/512 "equals" 1/256
   * (and -1/512 equals -1/256: SRDHM truncates -128.5 to -128, then -128 / 256 rounds to -1). */
  q8_setup(&q, 2, 2, 1 / 512.0f, 0, 1 / 256.0f, 0, 0, 0);
  q.a[0] = 1, q.a[1] = -1, q.b[0] = 1, q.b[1] = -1;
  q.to = kout(AP_BOOL, out, 0, 0);
  CHECK_EQ(kx_do(&q.r, AP_KB_EQUAL), AP_OK);
  CHECK(out[0] == 1 && out[1] == 1);
  /* Zero points: q 10 at zero point 10 is 0, below q -5 at zero point -7 (2 * 0.5 = 1). */
  q8_setup(&q, 1, 1, 0.5f, 10, 0.5f, -7, 0, 0);
  q.a[0] = 10, q.b[0] = -5;
  q.to = kout(AP_BOOL, out, 0, 0);
  CHECK_EQ(kx_do(&q.r, AP_KB_LESS), AP_OK);
  CHECK_EQ(out[0], 1);
  q.ta.scale = 0;
  CHECK_EQ(kx_do(&q.r, AP_KB_LESS), AP_ERR_FORMAT);
  CHECK_STR(q.r.err.msg, "LESS: 8-bit inputs need a positive scale and a zero point of their type");
}

int main(void) {
  test_compare();
  test_leaky_relu_prelu();
  test_squared_difference();
  test_div();
  test_rsqrt();
  return ap_test_done();
}
