/* TFLite's legacy uint8 kernels, worked by hand with TFLite's reference arithmetic: LOGISTIC
 * and TANH through their 256-entry tables (float function, round half away from zero),
 * CONCATENATION requantizing inputs whose quantization differs from the output's, ADD/SUB/MUL
 * with rescaling and saturation, RESIZE_BILINEAR's float interpolation plus 0.5 truncated,
 * RESIZE_NEAREST_NEIGHBOR's float coordinates (the data-movement kernel, when the build has it),
 * QUANTIZE and DEQUANTIZE between float, uint8 and int8. */
#include "kxtest.h"

enum {
  B_ADD = 0,
  B_CONCATENATION = 2,
  B_DEQUANTIZE = 6,
  B_LOGISTIC = 14,
  B_MUL = 18,
  B_TANH = 28,
  B_SUB = 41,
  B_QUANTIZE = 114
};

static void test_logistic_tanh(void) {
  kx_run r;
  uint8_t x[5] = {128, 138, 255, 0, 118}, y[5];
  ap_ktensor in = ktq(AP_UINT8, x, 1, 5, 0, 0, 0, 0.1f, 128);
  ap_ktensor out = kout(AP_UINT8, y, 1.0f / 256, 0);
  const ap_ktensor *ins[] = {&in};
  ap_ktensor *outs[] = {&out};
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, B_LOGISTIC), AP_OK);
  /* sigmoid(0) * 256 = 128; sigmoid(1) * 256 = 187.1; sigmoid(12.7) * 256 rounds to 256 and
   * clamps; sigmoid(-12.8) * 256 = 0.0007; sigmoid(-1) * 256 = 68.86. */
  uint8_t want[5] = {128, 187, 255, 0, 69};
  CHECK_ARRAY(y, want, 5);
  /* The output scale must be 1/256 (any zero point). */
  out = kout(AP_UINT8, y, 1.0f / 128, 0);
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, B_LOGISTIC), AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(r.err.msg, "1/256");
  /* TANH: no constraint; output 1/128 zero point 128: tanh(1) * 128 = 97.5 -> 97 + 128. */
  out = kout(AP_UINT8, y, 1.0f / 128, 128);
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, B_TANH), AP_OK);
  uint8_t want_t[5] = {128, 225, 255, 0, 31};
  CHECK_ARRAY(y, want_t, 5);
}

static void test_concat(void) {
  kx_run r;
  /* A: scale 0.5, zero point 10 (requantized); B: the output's quantization (copied). */
  uint8_t a[6] = {10, 11, 13, 9, 255, 0}, b[2] = {7, 200}, y[8];
  ap_ktensor ta = ktq(AP_UINT8, a, 2, 2, 3, 0, 0, 0.5f, 10);
  ap_ktensor tb = ktq(AP_UINT8, b, 2, 2, 1, 0, 0, 1.0f, 0);
  ap_ktensor out = kout(AP_UINT8, y, 1.0f, 0);
  const ap_ktensor *ins[] = {&ta, &tb};
  ap_ktensor *outs[] = {&out};
  kx_setup(&r, ins, 2, outs, 1);
  r.opt.axis = 1;
  CHECK_EQ(kx_do(&r, B_CONCATENATION), AP_OK);
  /* 0.5 rounds to 1, 1.5 to 2, -0.5 to -1 (clamped to 0), 122.5 to 123, -5 to 0. */
  uint8_t want[8] = {0, 1, 2, 7, 0, 123, 0, 200};
  CHECK_ARRAY(y, want, 8);
  /* Output zero point 250: everything shifts up and saturates at 255. */
  out = kout(AP_UINT8, y, 1.0f, 250);
  kx_setup(&r, ins, 2, outs, 1);
  r.opt.axis = 1;
  CHECK_EQ(kx_do(&r, B_CONCATENATION), AP_OK);
  uint8_t want2[8] = {250, 251, 252, 255 /* B: 7 - 0 + 250 */, 249, 255, 245, 255};
  /* B now differs from the output (zero point 0 vs 250): requantized too. */
  CHECK_ARRAY(y, want2, 8);
  /* A rescale with a zero scale is refused. */
  ta.scale = 0;
  out = kout(AP_UINT8, y, 1.0f, 0);
  kx_setup(&r, ins, 2, outs, 1);
  r.opt.axis = 1;
  CHECK_EQ(kx_do(&r, B_CONCATENATION), AP_ERR_FORMAT);
  CHECK_CONTAINS(r.err.msg, "needs rescaling");
}

static void test_add_sub_mul(void) {
  kx_run r;
  /* a: scale 0.5 zp 128; b: scale 0.25 zp 128; output: scale 1 zp 128. */
  uint8_t a[4] = {130, 255, 0, 129}, b[4] = {132, 255, 0, 130}, y[4];
  ap_ktensor ta = ktq(AP_UINT8, a, 1, 4, 0, 0, 0, 0.5f, 128);
  ap_ktensor tb = ktq(AP_UINT8, b, 1, 4, 0, 0, 0, 0.25f, 128);
  ap_ktensor out = kout(AP_UINT8, y, 1.0f, 128);
  const ap_ktensor *ins[] = {&ta, &tb};
  ap_ktensor *outs[] = {&out};
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, B_ADD), AP_OK);
  /* 1 + 1 = 2; 63.5 + 31.75 = 95.25; -64 - 32 = -96; 0.5 + 0.5 = 1. */
  uint8_t want_add[4] = {130, 223, 32, 129};
  CHECK_ARRAY(y, want_add, 4);
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, B_SUB), AP_OK);
  /* 1 - 1 = 0; 63.5 - 31.75 = 31.75; -64 + 32 = -32; 0.5 - 0.5 = 0. */
  uint8_t want_sub[4] = {128, 160, 96, 128};
  CHECK_ARRAY(y, want_sub, 4);
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, B_MUL), AP_OK);
  /* 1 * 1 = 1; 63.5 * 31.75 saturates; -64 * -32 saturates; 0.5 * 0.5 = 0.25 -> 0. */
  uint8_t want_mul[4] = {129, 255, 255, 128};
  CHECK_ARRAY(y, want_mul, 4);
  /* RELU6 fused, output scale 0.1 zp 0: the sum clamps at 6.0 (quantized 60) and at 0. */
  out = kout(AP_UINT8, y, 0.1f, 0);
  kx_setup(&r, ins, 2, outs, 1);
  r.opt.activation = AP_KACT_RELU6;
  CHECK_EQ(kx_do(&r, B_ADD), AP_OK);
  uint8_t want_r6[4] = {20, 60, 0, 10};
  CHECK_ARRAY(y, want_r6, 4);
}

static void test_resize_bilinear(void) {
  kx_run r;
  uint8_t x[4] = {0, 255, 10, 13}, y[8];
  int32_t size[2] = {2, 4};
  ap_ktensor in = ktq(AP_UINT8, x, 4, 1, 2, 2, 1, 0.5f, 3);
  ap_ktensor sz = kt(AP_INT32, size, 1, 2, 0, 0, 0);
  /* The output's quantization differs: TFLite ignores it (raw bytes interpolated). */
  ap_ktensor out = kout(AP_UINT8, y, 0.25f, 7);
  const ap_ktensor *ins[] = {&in, &sz};
  ap_ktensor *outs[] = {&out};
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_RESIZE_BILINEAR), AP_OK);
  CHECK_DIMS4(out, 1, 2, 4, 1);
  /* Columns at 0, 0.5, 1, 1.5 (the last clamps to column 1): 127.5 + 0.5 -> 128; 11.5 + 0.5
   * -> 12 (halves round up, never down). */
  uint8_t want[8] = {0, 128, 255, 255, 10, 12, 13, 13};
  CHECK_ARRAY(y, want, 8);
  /* align_corners: columns at 0, 1/3, 2/3, 1: 85 + 0.5 -> 85, 170 + 0.5 -> 170; 11 and 12. */
  kx_setup(&r, ins, 2, outs, 1);
  r.opt.align_corners = true;
  CHECK_EQ(kx_do(&r, AP_KB_RESIZE_BILINEAR), AP_OK);
  uint8_t want_a[8] = {0, 85, 170, 255, 10, 11, 12, 13};
  CHECK_ARRAY(y, want_a, 8);
  /* uint8 in, int8 out: refused. */
  out = kout(AP_INT8, y, 0.5f, 3);
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_RESIZE_BILINEAR), AP_ERR_UNSUPPORTED);
}

static void test_resize_nearest(void) {
  kx_run r;
  uint8_t x[4] = {1, 2, 3, 4}, y[9];
  int32_t size[2] = {3, 3};
  ap_ktensor in = ktq(AP_UINT8, x, 4, 1, 2, 2, 1, 0.5f, 3);
  ap_ktensor sz = kt(AP_INT32, size, 1, 2, 0, 0, 0);
  ap_ktensor out = kout(AP_UINT8, y, 0.5f, 3);
  const ap_ktensor *ins[] = {&in, &sz};
  ap_ktensor *outs[] = {&out};
  enum { B_RESIZE_NEAREST_NEIGHBOR = 97 };
  /* The data-movement family's kernel (a byte copy for every type) serves uint8; until that
   * branch is merged there is none. */
  if (!ap_kernel_find(B_RESIZE_NEAREST_NEIGHBOR)) {
    printf("RESIZE_NEAREST_NEIGHBOR: no kernel in this build, uint8 cases skipped\n");
    return;
  }
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, B_RESIZE_NEAREST_NEIGHBOR), AP_OK);
  CHECK_DIMS4(out, 1, 3, 3, 1);
  /* Scale 2/3: floor(0), floor(0.67), floor(1.33) pick rows and columns 0, 0, 1. */
  uint8_t want[9] = {1, 1, 2, 1, 1, 2, 3, 3, 4};
  CHECK_ARRAY(y, want, 9);
  /* align_corners, scale 1/2: round(0.5) is 1 (half away from zero): 0, 1, 1. */
  kx_setup(&r, ins, 2, outs, 1);
  r.opt.align_corners = true;
  CHECK_EQ(kx_do(&r, B_RESIZE_NEAREST_NEIGHBOR), AP_OK);
  uint8_t want_a[9] = {1, 2, 2, 3, 4, 4, 3, 4, 4};
  CHECK_ARRAY(y, want_a, 9);
  /* half_pixel_centers: floor((v + 0.5) * 2/3) = 0, 1, 1. */
  kx_setup(&r, ins, 2, outs, 1);
  r.opt.half_pixel_centers = true;
  CHECK_EQ(kx_do(&r, B_RESIZE_NEAREST_NEIGHBOR), AP_OK);
  CHECK_ARRAY(y, want_a, 9);
  /* A negative size is refused. */
  size[1] = -1;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, B_RESIZE_NEAREST_NEIGHBOR), AP_ERR_FORMAT);
}

static void test_quantize(void) {
  kx_run r;
  /* float -> uint8, scale 0.5 zero point 10: 0.25 / 0.5 = 0.5 rounds away from zero to 1;
   * -0.25 to -1; 200 saturates; -100 saturates at 0. */
  float x[4] = {0.25f, -0.25f, 200, -100};
  uint8_t q[4];
  ap_ktensor in = kt(AP_FLOAT32, x, 1, 4, 0, 0, 0);
  ap_ktensor out = kout(AP_UINT8, q, 0.5f, 10);
  const ap_ktensor *ins[] = {&in};
  ap_ktensor *outs[] = {&out};
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, B_QUANTIZE), AP_OK);
  uint8_t want_q[4] = {11, 9, 255, 0};
  CHECK_ARRAY(q, want_q, 4);
  /* uint8 -> float: (q - 10) * 0.5. */
  float f[4];
  ap_ktensor qin = ktq(AP_UINT8, q, 1, 4, 0, 0, 0, 0.5f, 10);
  ap_ktensor fout = kout(AP_FLOAT32, f, 0, 0);
  const ap_ktensor *qins[] = {&qin};
  ap_ktensor *fouts[] = {&fout};
  kx_setup(&r, qins, 1, fouts, 1);
  CHECK_EQ(kx_do(&r, B_DEQUANTIZE), AP_OK);
  float want_f[4] = {0.5f, -0.5f, 122.5f, -5};
  CHECK_ARRAY(f, want_f, 4);
  /* uint8 (zero point 128) -> int8 (zero point 0), same scale: a shift by 128. */
  uint8_t u[3] = {200, 128, 0};
  int8_t s8[3];
  ap_ktensor uin = ktq(AP_UINT8, u, 1, 3, 0, 0, 0, 0.25f, 128);
  ap_ktensor sout = kout(AP_INT8, s8, 0.25f, 0);
  const ap_ktensor *uins[] = {&uin};
  ap_ktensor *souts[] = {&sout};
  kx_setup(&r, uins, 1, souts, 1);
  CHECK_EQ(kx_do(&r, B_QUANTIZE), AP_OK);
  int8_t want_s[3] = {72, 0, -128};
  CHECK_ARRAY(s8, want_s, 3);
}

int main(void) {
  test_logistic_tanh();
  test_concat();
  test_add_sub_mul();
  test_resize_bilinear();
  test_resize_nearest();
  test_quantize();
  return ap_test_done();
}
