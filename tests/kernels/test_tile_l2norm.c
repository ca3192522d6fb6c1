/* TILE and L2_NORMALIZATION: hand-computed outputs, zero-sized dims, rank 0, saturation, and
 * the refusals (multiples unknown before running, negative or overflowing multiples, fused
 * activations, ranks TFLite Micro does not take). */
#include "kxtest.h"

static void test_tile(void) {
  /* [2, 3] tiled [2, 1] -> [4, 3]: the rows repeat as a block ({0 1 2}{3 4 5}{0 1 2}{3 4 5}). */
  int32_t v[6] = {0, 1, 2, 3, 4, 5}, mult[2] = {2, 1}, out[24];
  ap_ktensor tv = kt(AP_INT32, v, 2, 2, 3, 0, 0), tm = kt(AP_INT32, mult, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_INT32, out, 0, 0);
  const ap_ktensor *ins[2] = {&tv, &tm};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_TILE), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 4 && to.dims[1] == 3);
  int32_t w1[12] = {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5};
  CHECK_ARRAY(out, w1, 12);
  /* [1, 2] along the inner dim: each row repeats in place ({0 1 2 0 1 2}{3 4 5 3 4 5}). */
  mult[0] = 1, mult[1] = 2;
  CHECK_EQ(kx_do(&r, AP_KB_TILE), AP_OK);
  CHECK(to.dims[0] == 2 && to.dims[1] == 6);
  int32_t w2[12] = {0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5};
  CHECK_ARRAY(out, w2, 12);
  /* [2, 2] with INT64 multiples and int8 elements: both dims at once. */
  int8_t q[2] = {-128, 127}, qo[8];
  int64_t m64[2] = {2, 2};
  ap_ktensor tq = ktq(AP_INT8, q, 2, 1, 2, 0, 0, 0.5f, 3), t64 = kt(AP_INT64, m64, 1, 2, 0, 0, 0);
  ap_ktensor tqo = kout(AP_INT8, qo, 0.5f, 3);
  const ap_ktensor *qins[2] = {&tq, &t64};
  ap_ktensor *qouts[1] = {&tqo};
  kx_setup(&r, qins, 2, qouts, 1);
  CHECK_EQ(kx_do(&r, AP_KB_TILE), AP_OK);
  CHECK(tqo.dims[0] == 2 && tqo.dims[1] == 4);
  int8_t wq[8] = {-128, 127, -128, 127, -128, 127, -128, 127};
  CHECK_ARRAY(qo, wq, 8);
  /* A multiple of 0 and a zero-sized input: empty outputs, nothing written. */
  kx_setup(&r, ins, 2, outs, 1);
  mult[0] = 0, mult[1] = 3;
  out[0] = 99;
  CHECK_EQ(kx_do(&r, AP_KB_TILE), AP_OK);
  CHECK(to.dims[0] == 0 && to.dims[1] == 9 && out[0] == 99);
  tv = kt(AP_INT32, v, 2, 2, 0, 0, 0);
  mult[0] = 3;
  CHECK_EQ(kx_do(&r, AP_KB_TILE), AP_OK);
  CHECK(to.dims[0] == 6 && to.dims[1] == 0 && out[0] == 99);
  /* Rank 0: no multiples, the one value copied. */
  int32_t scalar = 7;
  tv = kt(AP_INT32, &scalar, 0, 0, 0, 0, 0);
  tm = kt(AP_INT32, mult, 1, 0, 0, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_TILE), AP_OK);
  CHECK(to.rank == 0 && out[0] == 7);
  /* Refusals. */
  tv = kt(AP_INT32, v, 2, 2, 3, 0, 0);
  tm = kt(AP_INT32, mult, 1, 2, 0, 0, 0);
  mult[0] = -1;
  CHECK_EQ(kx_do(&r, AP_KB_TILE), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "TILE: multiples[0] is -1 for a dim of 2");
  mult[0] = 1 << 30; /* 2 * 2^30 rows do not fit a dim */
  CHECK_EQ(kx_do(&r, AP_KB_TILE), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "TILE: multiples[0] is 1073741824 for a dim of 2");
  tm = kt(AP_INT32, mult, 1, 3, 0, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_TILE), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "TILE: multiples must be an INT32 or INT64 vector of 2");
  tm = kt(AP_INT32, NULL, 1, 2, 0, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_TILE), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "TILE: unsupported multiples: not known before running, and they decide "
                       "the output shape");
  tm = kt(AP_INT32, mult, 1, 2, 0, 0, 0);
  to.type = AP_FLOAT32;
  CHECK_EQ(kx_do(&r, AP_KB_TILE), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "TILE: unsupported types INT32 -> FLOAT32");
}

static void test_l2norm_float(void) {
  /* Rows {3, 4}, {0, 0}, {-5, 12}: norms 5, max(0, 1e-6) and 13; 0 / 1e-6 = 0. The quotients
   * are correctly rounded float divisions of the literals. */
  float x[6] = {3, 4, 0, 0, -5, 12}, out[6];
  ap_ktensor tx = kt(AP_FLOAT32, x, 2, 3, 2, 0, 0), to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[1] = {&tx};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_L2_NORMALIZATION), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 3 && to.dims[1] == 2);
  float want[6] = {3.0f / 5, 4.0f / 5, 0, 0, -5.0f / 13, 12.0f / 13};
  CHECK_ARRAY(out, want, 6);
  /* A tiny row: the norm 1e-7 is below epsilon, so it divides by 1e-6 instead. */
  x[0] = 1e-7f, x[1] = 0;
  CHECK_EQ(kx_do(&r, AP_KB_L2_NORMALIZATION), AP_OK);
  CHECK(out[0] == 1e-7f / 1e-6f && out[1] == 0);
  /* Zero-sized rows or depth: nothing to write. */
  out[0] = 42;
  tx = kt(AP_FLOAT32, x, 2, 0, 2, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_L2_NORMALIZATION), AP_OK);
  tx = kt(AP_FLOAT32, x, 2, 3, 0, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_L2_NORMALIZATION), AP_OK);
  CHECK(to.dims[0] == 3 && to.dims[1] == 0 && out[0] == 42);
  /* Refusals: rank 0 and 5 (TFLite Micro takes 1 to 4), activations, other types. */
  tx = kt(AP_FLOAT32, x, 0, 0, 0, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_L2_NORMALIZATION), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "L2_NORMALIZATION: rank 0 (1 to 4)");
  int32_t d5[5] = {1, 1, 1, 1, 2};
  tx = ap_ktensor_make(AP_FLOAT32, x, 5, d5);
  CHECK_EQ(kx_do(&r, AP_KB_L2_NORMALIZATION), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "L2_NORMALIZATION: rank 5 (1 to 4)");
  tx = kt(AP_FLOAT32, x, 2, 3, 2, 0, 0);
  r.opt.activation = AP_KACT_RELU;
  CHECK_EQ(kx_do(&r, AP_KB_L2_NORMALIZATION), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "L2_NORMALIZATION: fused activation 1 (TFLite Micro takes none)");
  r.opt.activation = AP_KACT_NONE;
  tx.type = AP_INT32;
  CHECK_EQ(kx_do(&r, AP_KB_L2_NORMALIZATION), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "L2_NORMALIZATION: unsupported types INT32 -> FLOAT32");
}

static void test_l2norm_int8(void) {
  /* Output in units of 1/128: round(128 * d / sqrt(sum d^2)) with d = q - zero point, the
   * inverse square root a Newton-Raphson multiplier within a few units of 2^31 / sqrt(sum)
   * (relative error ~1e-8), so results far from .5 are exact:
   *   {3, 4}:     sum 25, 76.8 -> 77, 102.4 -> 102
   *   {1, 2, 2}:  sum 9, 42.67 -> 43, 85.33 -> 85 (twice)
   *   {2, 0}:     sum 4, 128 saturates to 127; 0 -> 0
   *   {-1, 0}:    sum 1: the multiplier is INT32_MAX (1/sqrt(1) = 1 does not fit Q0.31):
   *               -128 * (2^31 - 1) / 2^31 = -127.99999994 rounds to -128 (the int8 minimum)
   *   {0, 0}:     sum 0, taken as 1 (no division by zero): 0. */
  int8_t q[14] = {13, 14, 11, 12, 12, 12, 10, 9, 10, 10, 10, 10, 10, 10}, out[14];
  ap_ktensor tq = ktq(AP_INT8, q, 1, 2, 0, 0, 0, 0.5f, 10), to = kout(AP_INT8, out, 1 / 128.0f, 0);
  const ap_ktensor *ins[1] = {&tq};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_L2_NORMALIZATION), AP_OK);
  CHECK(out[0] == 77 && out[1] == 102);
  tq = ktq(AP_INT8, q + 2, 1, 3, 0, 0, 0, 0.5f, 10);
  CHECK_EQ(kx_do(&r, AP_KB_L2_NORMALIZATION), AP_OK);
  CHECK(out[0] == 43 && out[1] == 85 && out[2] == 85);
  int8_t rows[6] = {12, 10, 9, 10, 10, 10};
  tq = ktq(AP_INT8, rows, 2, 3, 2, 0, 0, 0.5f, 10);
  CHECK_EQ(kx_do(&r, AP_KB_L2_NORMALIZATION), AP_OK);
  int8_t want[6] = {127, 0, -128, 0, 0, 0};
  CHECK_ARRAY(out, want, 6);
  /* The extremes: {-128} * 3 with zero point 127: d = -255 each, sum 195075; -255 / sqrt(3 *
   * 255^2) = -1 / sqrt(3): 128 * -0.57735 = -73.9 -> -74. */
  int8_t lo[3] = {-128, -128, -128};
  tq = ktq(AP_INT8, lo, 1, 3, 0, 0, 0, 1.0f, 127);
  CHECK_EQ(kx_do(&r, AP_KB_L2_NORMALIZATION), AP_OK);
  CHECK(out[0] == -74 && out[1] == -74 && out[2] == -74);
}

static void test_inv_sqrt(void) {
  /* GetInvSqrtQuantizedMultiplierExp's special cases and its scale. Both inputs below are
   * normalised to 2^28 by whole bit pairs (4 << 26, 2^20 << 8), where the iteration gives
   * x = 1.0 in Q3.28 (raw 2^28); the pairs move into the shift (11 - 13 = -2 for 4, 11 - 4 = 7
   * for 2^20). A negative shift is folded into the multiplier: 4 -> 2^28 << 2 = 2^30 at shift
   * 0 (1/2); 2^20 -> 2^28 at left shift -7: 2^28 / 2^31 * 2^-7 = 2^-10. */
  int32_t m;
  int s;
  ap_kq_inv_sqrt(0, -1, &m, &s);
  CHECK(m == INT32_MAX && s == 0);
  ap_kq_inv_sqrt(1, -1, &m, &s);
  CHECK(m == INT32_MAX && s == 0);
  ap_kq_inv_sqrt(4, -1, &m, &s);
  CHECK_MSG(s == 0 && m >= (1 << 30) - 64 && m <= (1 << 30) + 64, "4: %d, %d", m, s);
  ap_kq_inv_sqrt(1 << 20, -1, &m, &s);
  CHECK_MSG(s == -7 && m >= (1 << 28) - 64 && m <= (1 << 28) + 64, "2^20: %d, %d", m, s);
}

int main(void) {
  test_tile();
  test_l2norm_float();
  test_l2norm_int8();
  test_inv_sqrt();
  return ap_test_done();
}
