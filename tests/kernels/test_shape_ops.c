/* PAD, TRANSPOSE, CONCATENATION, RESHAPE, MEAN, QUANTIZE and DEQUANTIZE. */
#include "ktest.h"

static void test_pad(void) {
  /* [2, 2] padded [[1, 0], [0, 2]] -> [3, 4]. */
  float in[4] = {1, 2, 3, 4}, out[12];
  int32_t pads[4] = {1, 0, 0, 2};
  ap_ktensor ti = kt(AP_FLOAT32, in, 2, 2, 2, 0, 0), tp = kt(AP_INT32, pads, 2, 2, 2, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  ap_pad_params p;
  CHECK_EQ(ap_pad_prepare(&ti, &tp, NULL, &to, &p, NULL), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 3 && to.dims[1] == 4);
  CHECK_EQ(ap_pad_eval(&p, &ti, &to), AP_OK);
  float want[12] = {0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0};
  CHECK_ARRAY(out, want, 12);
  /* int8 pads with the output zero point; PADV2's constant wins. */
  int8_t qi[2] = {5, 6}, qo[4];
  int32_t qp[2] = {1, 1};
  ti = ktq(AP_INT8, qi, 1, 2, 0, 0, 0, 0.5f, -3);
  tp = kt(AP_INT32, qp, 2, 1, 2, 0, 0);
  to = kout(AP_INT8, qo, 0.5f, -3);
  CHECK_EQ(ap_pad_prepare(&ti, &tp, NULL, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_pad_eval(&p, &ti, &to), AP_OK);
  int8_t wantq[4] = {-3, 5, 6, -3};
  CHECK_ARRAY(qo, wantq, 4);
  int8_t c[1] = {9};
  ap_ktensor tc = kt(AP_INT8, c, 0, 0, 0, 0, 0);
  CHECK_EQ(ap_pad_prepare(&ti, &tp, &tc, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_pad_eval(&p, &ti, &to), AP_OK);
  CHECK(qo[0] == 9 && qo[3] == 9);
  ap_errbuf e = {""};
  qp[0] = -1;
  CHECK_EQ(ap_pad_prepare(&ti, &tp, NULL, &to, &p, &e), AP_ERR_FORMAT);
  CHECK_STR(e.msg, "PAD: dim 0 padding [-1, 1] is invalid");
}

static void test_transpose(void) {
  /* [2, 3] -> [3, 2]. */
  int8_t in[6] = {1, 2, 3, 4, 5, 6}, out[6];
  int32_t perm[2] = {1, 0};
  ap_ktensor ti = kt(AP_INT8, in, 2, 2, 3, 0, 0), tp = kt(AP_INT32, perm, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, out, 0, 0);
  ap_transpose_params p;
  CHECK_EQ(ap_transpose_prepare(&ti, &tp, &to, &p, NULL), AP_OK);
  CHECK(to.dims[0] == 3 && to.dims[1] == 2);
  CHECK_EQ(ap_transpose_eval(&p, &ti, &to), AP_OK);
  int8_t want[6] = {1, 4, 2, 5, 3, 6};
  CHECK_ARRAY(out, want, 6);
  /* [2, 1, 3] with perm [2, 0, 1] -> [3, 2, 1]: out[k][i][0] = in[i][0][k]. */
  float f[6] = {1, 2, 3, 4, 5, 6}, fo[6];
  int32_t perm3[3] = {2, 0, 1};
  ti = kt(AP_FLOAT32, f, 3, 2, 1, 3, 0);
  tp = kt(AP_INT32, perm3, 1, 3, 0, 0, 0);
  to = kout(AP_FLOAT32, fo, 0, 0);
  CHECK_EQ(ap_transpose_prepare(&ti, &tp, &to, &p, NULL), AP_OK);
  CHECK(to.dims[0] == 3 && to.dims[1] == 2 && to.dims[2] == 1);
  CHECK_EQ(ap_transpose_eval(&p, &ti, &to), AP_OK);
  float wantf[6] = {1, 4, 2, 5, 3, 6};
  CHECK_ARRAY(fo, wantf, 6);
  perm3[1] = 2;
  ap_errbuf e = {""};
  CHECK_EQ(ap_transpose_prepare(&ti, &tp, &to, &p, &e), AP_ERR_FORMAT);
  CHECK_STR(e.msg, "TRANSPOSE: perm[1] = 2 is not a permutation");
}

static void test_concat_reshape(void) {
  float a[2] = {1, 2}, b[4] = {3, 4, 5, 6}, out[6];
  ap_ktensor ta = kt(AP_FLOAT32, a, 2, 2, 1, 0, 0), tb = kt(AP_FLOAT32, b, 2, 2, 2, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_concat_params p;
  CHECK_EQ(ap_concat_prepare(-1, AP_KACT_NONE, ins, 2, &to, &p, NULL), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 3);
  CHECK_EQ(ap_concat_eval(&p, ins, 2, &to), AP_OK);
  float want[6] = {1, 3, 4, 2, 5, 6};
  CHECK_ARRAY(out, want, 6);
  ap_errbuf e = {""};
  CHECK_EQ(ap_concat_prepare(0, AP_KACT_NONE, ins, 2, &to, &p, &e), AP_ERR_FORMAT);
  CHECK_STR(e.msg, "CONCATENATION: input 1 dim 1 is 2, input 0 has 1");

  int32_t shape[3] = {3, -1, 1};
  ap_ktensor tr = kout(AP_FLOAT32, out, 0, 0);
  tb = kt(AP_FLOAT32, (float[6]){1, 2, 3, 4, 5, 6}, 2, 2, 3, 0, 0);
  CHECK_EQ(ap_reshape_prepare(&tb, shape, 3, &tr, NULL), AP_OK);
  CHECK(tr.rank == 3 && tr.dims[0] == 3 && tr.dims[1] == 2 && tr.dims[2] == 1);
  CHECK_EQ(ap_reshape_eval(&tb, &tr), AP_OK);
  CHECK(out[5] == 6);
  shape[1] = 4;
  CHECK_EQ(ap_reshape_prepare(&tb, shape, 3, &tr, &e), AP_ERR_FORMAT);
  CHECK_STR(e.msg, "RESHAPE: 6 elements cannot take a shape of 12");
}

static void test_mean(void) {
  /* float [1, 2, 2, 2] over axes 1 and 2, keep_dims: the per-channel average. */
  float in[8] = {1, 10, 2, 20, 3, 30, 4, 41}, out[2];
  int32_t axes[2] = {1, -2}; /* -2 is axis 2 */
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, 1, 2, 2, 2), ta = kt(AP_INT32, axes, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  ap_mean_params p;
  CHECK_EQ(ap_mean_prepare(&ti, &ta, true, &to, &p, NULL), AP_OK);
  CHECK_DIMS4(to, 1, 1, 1, 2);
  CHECK_EQ(ap_mean_eval(&p, &ti, &to, NULL), AP_OK);
  CHECK(out[0] == 2.5f && out[1] == 25.25f);
  CHECK_EQ(ap_mean_prepare(&ti, &ta, false, &to, &p, NULL), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 1 && to.dims[1] == 2);
  /* int8, same quantization in and out: still the rounding multiplier path, so
   * [1, 2, 3] / 3 -> 2, [-1, -2, -4] -> -2.33 -> -2 and [1, 2] -> 1.5 -> 2 (a truncating
   * division of the raw sum would give 1). */
  int8_t qi[6] = {1, 2, 4, -1, -2, -4}, qo[2];
  int32_t ax1[1] = {1};
  ti = ktq(AP_INT8, qi, 2, 2, 3, 0, 0, 0.5f, 0);
  ta = kt(AP_INT32, ax1, 1, 1, 0, 0, 0);
  to = kout(AP_INT8, qo, 0.5f, 0);
  CHECK_EQ(ap_mean_prepare(&ti, &ta, false, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KMEAN_INT);
  CHECK_EQ(p.scratch_bytes, 8);
  int32_t scratch[3];
  CHECK_EQ(ap_mean_eval(&p, &ti, &to, scratch), AP_OK);
  CHECK(qo[0] == 2 && qo[1] == -2);
  int8_t hi[6] = {1, 2, 5, 6, -3, -4}, ho[3];
  ap_ktensor th = ktq(AP_INT8, hi, 2, 3, 2, 0, 0, 0.5f, 0), tho = kout(AP_INT8, ho, 0.5f, 0);
  CHECK_EQ(ap_mean_prepare(&th, &ta, false, &tho, &p, NULL), AP_OK);
  CHECK_EQ(ap_mean_eval(&p, &th, &tho, scratch), AP_OK);
  /* 1.5 -> 2, 5.5 -> 6; -3.5 -> -3: the high multiply takes negative ties toward zero */
  CHECK(ho[0] == 2 && ho[1] == 6 && ho[2] == -3);
  /* Rescaled: input scale 1, output 0.5: [1, 2] -> 1.5 -> 3 and [1, 2, 2] -> 5/3 / 0.5 =
   * 3.33 -> 3; the multiplier absorbs 1/count (2^31/3 = 715827882 at shift 1). */
  int8_t ri[6] = {1, 2, 2, 1, 2, 7}, ro[2];
  ti = ktq(AP_INT8, ri, 2, 2, 3, 0, 0, 1.0f, 0);
  to = kout(AP_INT8, ro, 0.5f, 0);
  CHECK_EQ(ap_mean_prepare(&ti, &ta, false, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KMEAN_INT);
  CHECK_EQ(ap_mean_eval(&p, &ti, &to, scratch), AP_OK);
  CHECK_EQ(ro[0], 3);
  CHECK_EQ(ro[1], 7); /* 10/3 / 0.5 = 6.67 -> 7 */
  ap_errbuf e = {""};
  ax1[0] = 2;
  CHECK_EQ(ap_mean_prepare(&ti, &ta, false, &to, &p, &e), AP_ERR_FORMAT);
  CHECK_STR(e.msg, "MEAN: axis 2 out of range for rank 2");
}

static void test_quantize(void) {
  /* float -> int8 at scale 0.5 zp 1: 1.25 -> round(2.5) = 3 -> 4; -1.25 -> -3 -> -2; huge
   * values clamp. */
  float in[4] = {1.25f, -1.25f, 1000, -1000};
  int8_t out[4];
  ap_ktensor ti = kt(AP_FLOAT32, in, 1, 4, 0, 0, 0), to = kout(AP_INT8, out, 0.5f, 1);
  ap_quantize_params p;
  CHECK_EQ(ap_quantize_prepare(&ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_quantize_eval(&p, &ti, &to), AP_OK);
  int8_t want[4] = {4, -2, 127, -128};
  CHECK_ARRAY(out, want, 4);
  /* int8 -> int8 requantize, scale 1 -> 2, zp 0 -> 10: 5 -> 2.5 -> 3 (tie up); -5 -> -2.5 ->
   * -2 (the high multiply takes negative ties toward zero). */
  int8_t qi[2] = {5, -5}, qo[2];
  ti = ktq(AP_INT8, qi, 1, 2, 0, 0, 0, 1.0f, 0);
  to = kout(AP_INT8, qo, 2.0f, 10);
  CHECK_EQ(ap_quantize_prepare(&ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KQ_REQUANTIZE);
  CHECK_EQ(ap_quantize_eval(&p, &ti, &to), AP_OK);
  CHECK_EQ(qo[0], 13);
  CHECK_EQ(qo[1], 8);
  /* uint8 -> int8 with the same scale: a shift of the zero point by 128. */
  uint8_t ui[2] = {0, 255};
  ti = ktq(AP_UINT8, ui, 1, 2, 0, 0, 0, 0.25f, 128);
  to = kout(AP_INT8, qo, 0.25f, 0);
  CHECK_EQ(ap_quantize_prepare(&ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_quantize_eval(&p, &ti, &to), AP_OK);
  CHECK(qo[0] == -128 && qo[1] == 127);
  /* Dequantize computes in double: 0.1f * 3 is 0.3000000045 in double, 0.3f after rounding. */
  int8_t di[2] = {5, -128};
  float dout[2];
  ti = ktq(AP_INT8, di, 1, 2, 0, 0, 0, 0.1f, 2);
  to = kout(AP_FLOAT32, dout, 0, 0);
  CHECK_EQ(ap_dequantize_prepare(&ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_quantize_eval(&p, &ti, &to), AP_OK);
  CHECK(dout[0] == (float)((double)0.1f * 3));
  CHECK(dout[1] == (float)((double)0.1f * -130));
  ap_errbuf e = {""};
  to = kout(AP_FLOAT32, dout, 1, 0);
  CHECK_EQ(ap_quantize_prepare(&ti, &to, &p, &e), AP_ERR_UNSUPPORTED);
  CHECK_STR(e.msg, "QUANTIZE: unsupported types INT8 -> FLOAT32");
  /* int16 -> int32 (keyword_scrambled_svdf's last op), scale 1.5 -> 1, zero point 5: the
   * multiplier 0.75 x 2^1; 3 -> 4.5 rounds up to 5 (+5 = 10); -3 -> -4.5 rounds toward zero
   * (SaturatingRoundingDoublingHighMul) to -4 (+5 = 1); 32767 -> 49150.5 -> 49151, past int16. */
  int16_t q16[3] = {3, -3, 32767};
  int32_t q32[3];
  ti = ktq(AP_INT16, q16, 1, 3, 0, 0, 0, 1.5f, 0);
  to = kout(AP_INT32, q32, 1.0f, 5);
  CHECK_EQ(ap_quantize_prepare(&ti, &to, &p, &e), AP_OK);
  CHECK_EQ(ap_quantize_eval(&p, &ti, &to), AP_OK);
  int32_t want_q[3] = {10, 1, 49156};
  CHECK_ARRAY(q32, want_q, 3);
}

int main(void) {
  test_pad();
  test_transpose();
  test_concat_reshape();
  test_mean();
  test_quantize();
  return ap_test_done();
}
