/* CONV_2D and DEPTHWISE_CONV_2D on cases small enough to work out by hand. */
#include "ktest.h"

#include <string.h>

static ap_conv_options opts(int padding, int stride, int dilation, int act) {
  ap_conv_options o = {padding, stride, stride, dilation, dilation, act, 0, 0};
  return o;
}

static void test_float_valid(void) {
  float in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  float f[4] = {1, 0, 0, 1}; /* adds the top-left and bottom-right of each 2x2 window */
  float bias[1] = {1};
  float out[4];
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, 1, 3, 3, 1), tf = kt(AP_FLOAT32, f, 4, 1, 2, 2, 1);
  ap_ktensor tb = kt(AP_FLOAT32, bias, 1, 1, 0, 0, 0), to = kout(AP_FLOAT32, out, 0, 0);
  ap_conv_params p;
  ap_conv_options o = opts(AP_KPAD_VALID, 1, 1, AP_KACT_NONE);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK_DIMS4(to, 1, 2, 2, 1);
  CHECK_EQ(p.kind, AP_KCONV_FLOAT);
  CHECK_EQ(p.scratch_bytes, 0);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, NULL), AP_OK);
  float want[4] = {1 + 5 + 1, 2 + 6 + 1, 4 + 8 + 1, 5 + 9 + 1};
  CHECK_ARRAY(out, want, 4);
  /* RELU6 clamps every sum. */
  o.activation = AP_KACT_RELU6;
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, NULL), AP_OK);
  float want6[4] = {6, 6, 6, 6};
  CHECK_ARRAY(out, want6, 4);
}

static void test_float_same_odd(void) {
  /* 4x4 ones, 3x3 ones, stride 2, SAME: the one padding row/column goes after the image, so
   * the first window is complete (9) and the last is a 2x2 corner (4). */
  float in[16], f[9], out[4];
  for (int i = 0; i < 16; i++)
    in[i] = 1;
  for (int i = 0; i < 9; i++)
    f[i] = 1;
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, 1, 4, 4, 1), tf = kt(AP_FLOAT32, f, 4, 1, 3, 3, 1);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  ap_conv_params p;
  ap_conv_options o = opts(AP_KPAD_SAME, 2, 1, AP_KACT_NONE);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  CHECK_DIMS4(to, 1, 2, 2, 1);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, NULL, &to, NULL), AP_OK);
  float want[4] = {9, 6, 6, 4};
  CHECK_ARRAY(out, want, 4);
  /* 5x5, stride 2: padding 1 on each side; corners see 2x2, edges 2x3, centre 3x3. */
  float in5[25], out5[9];
  for (int i = 0; i < 25; i++)
    in5[i] = 1;
  ti = kt(AP_FLOAT32, in5, 4, 1, 5, 5, 1);
  to = kout(AP_FLOAT32, out5, 0, 0);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  CHECK_DIMS4(to, 1, 3, 3, 1);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, NULL, &to, NULL), AP_OK);
  float want5[9] = {4, 6, 4, 6, 9, 6, 4, 6, 4};
  CHECK_ARRAY(out5, want5, 9);
}

static void test_float_dilation_channels(void) {
  /* 5x5 input holding its own index, 2x2 ones dilated by 2 (a 3x3 footprint): output (0,0)
   * is in(0,0) + in(0,2) + in(2,0) + in(2,2). */
  float in[25], f[4] = {1, 1, 1, 1}, out[9];
  for (int i = 0; i < 25; i++)
    in[i] = (float)i;
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, 1, 5, 5, 1), tf = kt(AP_FLOAT32, f, 4, 1, 2, 2, 1);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  ap_conv_params p;
  ap_conv_options o = opts(AP_KPAD_VALID, 1, 2, AP_KACT_NONE);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  CHECK_DIMS4(to, 1, 3, 3, 1);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, NULL, &to, NULL), AP_OK);
  CHECK_EQ(out[0], 0 + 2 + 10 + 12);
  CHECK_EQ(out[8], 12 + 14 + 22 + 24);
  /* Two input and two output channels, 1x1: a 2x2 matrix per pixel. */
  float in2[4] = {1, 2, 3, 4}, f2[4] = {1, 10, 100, 1000}, out2[4];
  ti = kt(AP_FLOAT32, in2, 4, 1, 1, 2, 2);
  tf = kt(AP_FLOAT32, f2, 4, 2, 1, 1, 2);
  to = kout(AP_FLOAT32, out2, 0, 0);
  o = opts(AP_KPAD_SAME, 1, 1, AP_KACT_NONE);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, NULL, &to, NULL), AP_OK);
  float want2[4] = {21, 2100, 43, 4300};
  CHECK_ARRAY(out2, want2, 4);
}

static void test_int8_per_channel(void) {
  /* input scale 0.5 zp -1: [3, 5] are 2.0 and 3.0. Filter scales [1, 0.5]: channel 0 is
   * [1, 2], channel 1 [2, -1]. Output scale 1, zp 3. */
  int8_t in[2] = {3, 5};
  int8_t f[4] = {1, 2, 4, -2};
  float scales[2] = {1.0f, 0.5f};
  int32_t bias[2] = {2, -4}; /* bias scales 0.5 and 0.25: real 1 and -1 */
  int8_t out[2];
  ap_ktensor ti = ktq(AP_INT8, in, 4, 1, 1, 1, 2, 0.5f, -1);
  ap_ktensor tf = kt(AP_INT8, f, 4, 2, 1, 1, 2);
  tf.channel_scales = scales;
  tf.n_channels = 2;
  tf.scale = 1.0f;
  ap_ktensor tb = kt(AP_INT32, bias, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, out, 1.0f, 3);
  ap_conv_params p;
  ap_conv_options o = opts(AP_KPAD_VALID, 1, 1, AP_KACT_NONE);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KCONV_INT8);
  CHECK_EQ(p.scratch_bytes, 16); /* two multipliers and two shifts */
  _Alignas(16) unsigned char scratch[16];
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  /* channel 0: 2*1 + 3*2 + 1 = 9 -> 12; channel 1: 2*2 - 3 - 1 = 0 -> 3 */
  CHECK_EQ(out[0], 12);
  CHECK_EQ(out[1], 3);
  /* Ties: accumulator 19 * 0.5 = 9.5 rounds up; -2 * 0.25 = -0.5 rounds to -1 (the high
   * multiply takes -0.5 * 2 to -1, the shift keeps it). */
  bias[0] = 3;
  bias[1] = -6;
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[0], 13);
  CHECK_EQ(out[1], 2);
  /* RELU: the output zero point is the floor. */
  o.activation = AP_KACT_RELU;
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.act_min, 3);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[1], 3);
  /* Saturation at 127. */
  bias[0] = 1000;
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[0], 127);
  /* Missing scratch is refused, not dereferenced. */
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, NULL), AP_ERR_ARG);
}

static void test_uint8(void) {
  /* input and filter zero point 128, scale 1; output scale 2: (132-128)*(130-128) / 2 = 4. */
  uint8_t in[1] = {130}, f[1] = {132}, out[1];
  ap_ktensor ti = ktq(AP_UINT8, in, 4, 1, 1, 1, 1, 1.0f, 128);
  ap_ktensor tf = ktq(AP_UINT8, f, 4, 1, 1, 1, 1, 1.0f, 128);
  ap_ktensor to = kout(AP_UINT8, out, 2.0f, 0);
  ap_conv_params p;
  ap_conv_options o = opts(AP_KPAD_VALID, 1, 1, AP_KACT_NONE);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KCONV_UINT8);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, NULL, &to, NULL), AP_OK);
  CHECK_EQ(out[0], 4);
  in[0] = 0; /* (4)*(-128)/2 = -256: clamped to 0 */
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, NULL, &to, NULL), AP_OK);
  CHECK_EQ(out[0], 0);
}

static void test_hybrid(void) {
  /* Per-channel: input [1.0, 0.0] quantizes asymmetrically to scale 1/255, zero point -128:
   * [127, -128]. Channel 0 weights [2, 4] at scale 0.5: (2 * 255 + 4 * 0) = 510 -> 510 * 0.5
   * * (1/255) = 1.0 (to float rounding). Channel 1 weights [4, 8] at 0.25: 1020 * 0.25 / 255. */
  float in[2] = {1.0f, 0.0f}, out[2], bias[2] = {0.5f, -1.0f};
  int8_t f[4] = {2, 4, 4, 8};
  float scales[2] = {0.5f, 0.25f};
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, 1, 1, 1, 2), tf = kt(AP_INT8, f, 4, 2, 1, 1, 2);
  tf.channel_scales = scales;
  tf.n_channels = 2;
  ap_ktensor tb = kt(AP_FLOAT32, bias, 1, 2, 0, 0, 0), to = kout(AP_FLOAT32, out, 0, 0);
  ap_conv_params p;
  ap_conv_options o = opts(AP_KPAD_VALID, 1, 1, AP_KACT_NONE);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KCONV_HYBRID_PER_CHANNEL);
  CHECK_EQ(p.scratch_bytes, 16 + 8); /* 2 quantized bytes rounded to 16, factor, offset */
  _Alignas(16) unsigned char scratch[64];
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(((int8_t *)scratch)[0], 127);
  CHECK_EQ(((int8_t *)scratch)[1], -128);
  float sf = (float)(1.0 / 255.0);
  CHECK(out[0] == 510.0f * 0.5f * sf + 0.5f);
  CHECK(out[1] == 1020.0f * 0.25f * sf - 1.0f);
  CHECK(fabsf(out[0] - 1.5f) < 1e-6f && fabsf(out[1] - 0.0f) < 1e-6f);
  /* One scale: symmetric quantization, 127 / max|x|: [1.0, -0.5] -> [127, -64] (-63.5
   * rounds away from zero). Weights [2, 4] at 0.5: 254 - 256 = -2, times 0.5/127. */
  float in2[2] = {1.0f, -0.5f}, out2[1];
  int8_t f2[2] = {2, 4};
  ti = kt(AP_FLOAT32, in2, 4, 1, 1, 1, 2);
  tf = kt(AP_INT8, f2, 4, 1, 1, 1, 2);
  tf.scale = 0.5f;
  to = kout(AP_FLOAT32, out2, 0, 0);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KCONV_HYBRID);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, NULL, &to, scratch), AP_OK);
  CHECK_EQ(((int8_t *)scratch)[1], -64);
  float sf2 = 1.0f / 127.0f * 0.5f;
  CHECK(out2[0] == -2.0f * sf2);
}

static void test_errors(void) {
  float in[4], f[4], out[4];
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, 1, 2, 2, 1), tf = kt(AP_INT8, f, 4, 1, 1, 1, 2);
  ap_ktensor to = kout(AP_INT8, out, 1, 0);
  ap_conv_params p;
  ap_errbuf e = {""};
  ap_conv_options o = opts(AP_KPAD_VALID, 1, 1, AP_KACT_NONE);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, &e), AP_ERR_FORMAT);
  CHECK_STR(e.msg, "CONV_2D: input depth 1 does not match filter depth 2 with 1 filters");
  tf = kt(AP_INT8, f, 4, 1, 1, 1, 1);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, &e), AP_ERR_UNSUPPORTED);
  CHECK_STR(e.msg, "CONV_2D: unsupported types input FLOAT32, filter INT8, output INT8");
  tf = kt(AP_FLOAT32, f, 4, 1, 3, 3, 1);
  to = kout(AP_FLOAT32, out, 0, 0);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, &e), AP_ERR_FORMAT);
  CHECK_STR(e.msg, "CONV_2D: no output for input 2x2, filter 3x3, stride 1x1, padding 1");
  o.stride_w = 0;
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, &e), AP_ERR_FORMAT);
  CHECK_EQ(ap_conv_prepare(NULL, &ti, &tf, NULL, &to, &p, &e), AP_ERR_ARG);
}

static void test_depthwise(void) {
  /* 2x2 input with 2 channels, multiplier 2, 2x2 filter, VALID: output channel m + 2*c sums
   * channel c weighted by filter channel m + 2*c. */
  float in[8] = {1, 10, 2, 20, 3, 30, 4, 40};
  float f[16];
  for (int y = 0; y < 4; y++) {
    f[y * 4 + 0] = 1;               /* channel 0, m 0: sum of channel 0 */
    f[y * 4 + 1] = 2;               /* channel 0, m 1: twice that */
    f[y * 4 + 2] = (float)(y == 0); /* channel 1, m 0: top-left only */
    f[y * 4 + 3] = -1;              /* channel 1, m 1: minus the sum */
  }
  float bias[4] = {0, 0, 0, 0.5f}, out[4];
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, 1, 2, 2, 2), tf = kt(AP_FLOAT32, f, 4, 1, 2, 2, 4);
  ap_ktensor tb = kt(AP_FLOAT32, bias, 1, 4, 0, 0, 0), to = kout(AP_FLOAT32, out, 0, 0);
  ap_conv_params p;
  ap_conv_options o = opts(AP_KPAD_VALID, 1, 1, AP_KACT_NONE);
  o.depth_multiplier = 2;
  CHECK_EQ(ap_depthwise_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK_DIMS4(to, 1, 1, 1, 4);
  CHECK_EQ(p.depth_multiplier, 2);
  CHECK_EQ(ap_depthwise_eval(&p, &ti, &tf, &tb, &to, NULL), AP_OK);
  float want[4] = {10, 20, 10, -99.5f};
  CHECK_ARRAY(out, want, 4);
  /* A multiplier that disagrees with the shapes is a malformed model. */
  ap_errbuf e = {""};
  o.depth_multiplier = 3;
  CHECK_EQ(ap_depthwise_prepare(&o, &ti, &tf, &tb, &to, &p, &e), AP_ERR_FORMAT);
  CHECK_CONTAINS(e.msg, "depth_multiplier 3");

  /* int8, SAME 3x3 over a 2x2 single channel: every window sees all four pixels. Input scale
   * 1 zp 0, filter scale 0.25, output scale 1 zp -5: sum 1+2+3+4 = 10 of weights 2 -> 20 *
   * 0.25 = 5 -> 0. */
  int8_t qi[4] = {1, 2, 3, 4}, qf[9], qo[4];
  for (int i = 0; i < 9; i++)
    qf[i] = 2;
  float fs[1] = {0.25f};
  ti = ktq(AP_INT8, qi, 4, 1, 2, 2, 1, 1.0f, 0);
  tf = kt(AP_INT8, qf, 4, 1, 3, 3, 1);
  tf.channel_scales = fs;
  tf.n_channels = 1;
  to = kout(AP_INT8, qo, 1.0f, -5);
  o = opts(AP_KPAD_SAME, 1, 1, AP_KACT_NONE);
  CHECK_EQ(ap_depthwise_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  CHECK_DIMS4(to, 1, 2, 2, 1);
  _Alignas(16) unsigned char scratch[8];
  CHECK_EQ(p.scratch_bytes, 8);
  CHECK_EQ(ap_depthwise_eval(&p, &ti, &tf, NULL, &to, scratch), AP_OK);
  int8_t wantq[4] = {0, 0, 0, 0};
  CHECK_ARRAY(qo, wantq, 4);
  /* uint8 with offsets: (in - 128) * (f - 130), scale 1 -> output zp 100. */
  uint8_t ui[1] = {131}, uf[1] = {128}, uo[1];
  ti = ktq(AP_UINT8, ui, 4, 1, 1, 1, 1, 1.0f, 128);
  tf = ktq(AP_UINT8, uf, 4, 1, 1, 1, 1, 1.0f, 130);
  to = kout(AP_UINT8, uo, 1.0f, 100);
  CHECK_EQ(ap_depthwise_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_depthwise_eval(&p, &ti, &tf, NULL, &to, NULL), AP_OK);
  CHECK_EQ(uo[0], 100 - 6);
}

int main(void) {
  test_float_valid();
  test_float_same_odd();
  test_float_dilation_channels();
  test_int8_per_channel();
  test_uint8();
  test_hybrid();
  test_errors();
  test_depthwise();
  return ap_test_done();
}
