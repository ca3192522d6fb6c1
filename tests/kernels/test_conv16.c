/* The conv-like kernels' 16x8, INT4 and int16 paths, hand-worked: int64 sums beyond int32
 * with int64 biases, int32 sums that wrap (quantized_bias_type INT32), the int64
 * requantization's round-half-up against the int32 one's half-away-from-zero, saturation at
 * the int16 range, zero padding at the borders, the INT4 nibble order, and one-line errors
 * for bad types. Scales are powers of two so that every multiplier is exact. */
#include "kernels/kops_conv16.h"
#include "kxtest.h"

#define N600 600

static ap_conv_options copts(int padding, int activation) {
  ap_conv_options o = {padding, 1, 1, 1, 1, activation, 0, 0};
  return o;
}

/* A filter view with its one scale also given as the per-axis array, as models carry it. */
static ap_ktensor filt(int type, void *data, int32_t d0, int32_t d1, int32_t d2, int32_t d3,
                       const float *scale) {
  ap_ktensor t = kt(type, data, 4, d0, d1, d2, d3);
  t.scale = scale[0];
  t.channel_scales = scale;
  t.n_channels = 1;
  return t;
}

/* Runs a builtin through the registry with the scratch its prepare asks for. */
static ap_status kx_do_scratch(kx_run *r, int32_t builtin) {
  static _Alignas(16) unsigned char scratch[4096];
  const ap_kernel *k = ap_kernel_find(builtin);
  size_t n = 0;
  r->err.msg[0] = 0;
  ap_status s = k->prepare(&r->c, &n);
  if (s != AP_OK) return s;
  if (n > sizeof scratch) return AP_ERR_INVALID_PLAN;
  r->c.scratch = n ? scratch : NULL;
  s = k->eval(&r->c);
  r->c.scratch = NULL;
  return s;
}

static void test_mul64(void) {
  /* 2^-20 is multiplier 2^30, shift -19; the 16-bit multiplier is 2^14 and the result
   * floor(x / 2^20 + 1/2): ties go up, where the int32 path goes away from zero. */
  int32_t m;
  int shift;
  ap_kq_multiplier(1.0 / (1 << 20), &m, &shift);
  CHECK_EQ(m, 1 << 30);
  CHECK_EQ(shift, -19);
  int64_t tie = 11LL << 19; /* 5.5 * 2^20 */
  CHECK_EQ(ap_kq_mul64(tie, m, shift), 6);
  CHECK_EQ(ap_kq_mul64(-tie, m, shift), -5);
  CHECK_EQ(ap_kq_mul(-(int32_t)tie, m, shift), -6);
  CHECK_EQ(ap_kq_mul(-(int32_t)tie + 1, m, shift), -5);
  /* Beyond 32 bits: 2^40 + 2^19 is 2^20 + 1/2 units. */
  CHECK_EQ(ap_kq_mul64((1LL << 40) + (1LL << 19), m, shift), (1 << 20) + 1);
  /* Multipliers from 0x7FFF0000 up use 0x7FFF: 65536 * 32767 / 32768 = 65534 (+ 0.5 down). */
  CHECK_EQ(ap_kq_mul64(1 << 16, 0x7FFFFFFF, 0), 65534);
  /* Shift 7 is the contract's largest: 3 * 2^7 exactly. */
  ap_kq_multiplier(128.0, &m, &shift);
  CHECK_EQ(shift, 8);
  ap_kq_multiplier(127.0, &m, &shift);
  CHECK_EQ(shift, 7);
  CHECK_EQ(ap_kq_mul64(3, 1 << 30, 7), 192);
}

static void test_conv_large_sums(void) {
  /* 1x1 conv over 600 channels of 32767 * 127: the sum 2,496,845,400 exceeds int32. */
  static int16_t in[N600];
  static int8_t f[N600];
  for (int i = 0; i < N600; i++) {
    in[i] = 32767;
    f[i] = 127;
  }
  int16_t out[1];
  int64_t bias64[1] = {0};
  const float fs[1] = {1.0f / (1 << 20)};
  ap_ktensor ti = ktq(AP_INT16, in, 4, 1, 1, 1, N600, 1.0f, 0);
  ap_ktensor tf = filt(AP_INT8, f, 1, 1, 1, N600, fs);
  ap_ktensor tb = kt(AP_INT64, bias64, 1, 1, 0, 0, 0), to = kout(AP_INT16, out, 1.0f, 0);
  ap_conv_options o = copts(AP_KPAD_VALID, AP_KACT_NONE);
  ap_conv_params p;
  _Alignas(16) unsigned char scratch[64];
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KCONV_INT16X8);
  CHECK(!p.acc32);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[0], 2381); /* 2,496,845,400 / 2^20 = 2381.17 */
  /* An int64 bias below INT32_MIN brings the sum to +5.5 and -5.5 units: 6 and -5. */
  bias64[0] = (11LL << 19) - 2496845400LL;
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[0], 6);
  bias64[0] = -(11LL << 19) - 2496845400LL;
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[0], -5);
  /* Saturation at the int16 range, and RELU's floor at the zero point. */
  bias64[0] = 1LL << 40;
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[0], 32767);
  bias64[0] = -(1LL << 40);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[0], -32768);
  o.activation = AP_KACT_RELU;
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[0], 0);
  /* No bias: quantized_bias_type INT32 makes TFLM sum in int32, which wraps to -1,798,121,896;
   * the int32 requantization gives -1715. Without it the sums stay int64. */
  o.activation = AP_KACT_NONE;
  o.quantized_bias_type = AP_INT32;
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  CHECK(p.acc32);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, NULL, &to, scratch), AP_OK);
  CHECK_EQ(out[0], -1715);
  o.quantized_bias_type = 0;
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, NULL, &to, scratch), AP_OK);
  CHECK_EQ(out[0], 2381);
  /* An int32 bias also means int32 sums: (-1,798,121,896 + 3,000,000) / 2^20 = -1711.96. */
  int32_t bias32[1] = {3000000};
  tb = kt(AP_INT32, bias32, 1, 1, 0, 0, 0);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK(p.acc32);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[0], -1712);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, NULL), AP_ERR_ARG);
}

static void test_conv_padding(void) {
  /* SAME 3x3 over a 2x2 image: only the taps inside the image count (zero padding).
   * in {{1, 2}, {3, 4}}, w {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}:
   * (0,0) = 1*5 + 2*6 + 3*8 + 4*9 = 77; (0,1) = 1*4 + 2*5 + 3*7 + 4*8 = 67;
   * (1,0) = 1*2 + 2*3 + 3*5 + 4*6 = 47; (1,1) = 1*1 + 2*2 + 3*4 + 4*5 = 37.
   * The input zero point is ignored on the 16x8 path, as TFLM's reference ignores it. */
  int16_t in[4] = {1, 2, 3, 4}, out[4];
  int8_t w[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  int64_t bias[1] = {0};
  const float fs[1] = {1.0f};
  ap_ktensor ti = ktq(AP_INT16, in, 4, 1, 2, 2, 1, 1.0f, 5);
  ap_ktensor tf = filt(AP_INT8, w, 1, 3, 3, 1, fs);
  ap_ktensor tb = kt(AP_INT64, bias, 1, 1, 0, 0, 0), to = kout(AP_INT16, out, 1.0f, 0);
  ap_conv_options o = copts(AP_KPAD_SAME, AP_KACT_NONE);
  ap_conv_params p;
  _Alignas(16) unsigned char scratch[64];
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK_DIMS4(to, 1, 2, 2, 1);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  int16_t want[4] = {77, 67, 47, 37};
  CHECK_ARRAY(out, want, 4);
  /* The same filter as a depthwise one ([1, 3, 3, 1]) gives the same sums. */
  memset(out, 0, sizeof out);
  CHECK_EQ(ap_depthwise_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KCONV_INT16X8);
  CHECK_EQ(ap_depthwise_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_ARRAY(out, want, 4);
  /* Depthwise: 2 channels, multiplier 1, negative values, 64-bit ties at scale 1/4:
   * channel 0: -3 * -7 = 21 + bias 1 = 22 / 4 = 5.5 -> 6; channel 1: 2 * -9 = -18 / 4 = -4.5 ->
   * -4 (half up). */
  int16_t in2[2] = {-3, 2};
  int8_t w2[2] = {-7, -9};
  int64_t b2[2] = {1, 0};
  const float fs2[1] = {0.25f};
  ti = ktq(AP_INT16, in2, 4, 1, 1, 1, 2, 1.0f, 0);
  tf = filt(AP_INT8, w2, 1, 1, 1, 2, fs2);
  tb = kt(AP_INT64, b2, 1, 2, 0, 0, 0);
  o = copts(AP_KPAD_VALID, AP_KACT_NONE);
  CHECK_EQ(ap_depthwise_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_depthwise_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[0], 6);
  CHECK_EQ(out[1], -4);
}

static void test_int4(void) {
  /* Low nibble first, sign-extended: 0x1F -> -1, 1; 0x87 -> 7, -8; an odd count takes the
   * last byte's low nibble only. */
  const uint8_t packed[3] = {0x1F, 0x87, 0xA5};
  int8_t w[5];
  ap_kint4_unpack(packed, 5, w);
  int8_t want[5] = {-1, 1, 7, -8, 5};
  CHECK_ARRAY(w, want, 5);
  /* CONV_2D int8 over INT4 weights [-1, 1, 7, -8]: 1*-1 + 2*1 + 3*7 + 4*-8 = -10, bias 3. */
  int8_t in[4] = {1, 2, 3, 4}, out[4];
  int32_t bias[4] = {3, 0, 0, 0};
  const float fs[1] = {1.0f};
  ap_ktensor ti = ktq(AP_INT8, in, 4, 1, 1, 1, 4, 1.0f, 0);
  ap_ktensor tf = filt(AP_INT4, (void *)packed, 1, 1, 1, 4, fs);
  ap_ktensor tb = kt(AP_INT32, bias, 1, 1, 0, 0, 0), to = kout(AP_INT8, out, 1.0f, 0);
  ap_conv_options o = copts(AP_KPAD_VALID, AP_KACT_NONE);
  ap_conv_params p;
  _Alignas(16) unsigned char scratch[64];
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KCONV_INT8_W4);
  CHECK_EQ(p.scratch_bytes, 16 + 4); /* multiplier and shift, then the 4 unpacked weights */
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[0], -7);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, NULL), AP_ERR_ARG);
  /* DEPTHWISE_CONV_2D: one weight per channel: 1*-1, 2*1, 3*7, 4*-8. */
  tb = kt(AP_INT32, bias, 1, 4, 0, 0, 0);
  bias[0] = 0;
  CHECK_EQ(ap_depthwise_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KCONV_INT8_W4);
  CHECK_EQ(ap_depthwise_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  int8_t want_dw[4] = {-1, 2, 21, -32};
  CHECK_ARRAY(out, want_dw, 4);
  /* FULLY_CONNECTED: weights [1, 4], the same dot product; one scale only. */
  ap_fc_options fo = {AP_KACT_NONE, false, false, 0};
  ap_fc_params fp;
  tf = kt(AP_INT4, (void *)packed, 2, 1, 4, 0, 0);
  tf.scale = 1.0f;
  ti = ktq(AP_INT8, in, 2, 1, 4, 0, 0, 1.0f, 0);
  tb = kt(AP_INT32, bias, 1, 1, 0, 0, 0);
  bias[0] = 3;
  CHECK_EQ(ap_fc_prepare(&fo, &ti, &tf, &tb, &to, &fp, NULL), AP_OK);
  CHECK_EQ(fp.kind, AP_KFC_INT8_W4);
  CHECK_EQ(ap_fc_eval(&fp, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[0], -7);
  const float two[2] = {1.0f, 0.5f};
  tf = kt(AP_INT4, (void *)packed, 2, 2, 2, 0, 0);
  tf.channel_scales = two;
  tf.n_channels = 2;
  tf.scale = 1.0f;
  ti = ktq(AP_INT8, in, 2, 1, 2, 0, 0, 1.0f, 0);
  ap_errbuf err;
  CHECK_EQ(ap_fc_prepare(&fo, &ti, &tf, NULL, &to, &fp, &err), AP_ERR_UNSUPPORTED);
  CHECK_STR(err.msg, "FULLY_CONNECTED: INT4 weights with per-channel scales (TFLM takes one)");
}

static void test_fc16(void) {
  /* x {1000, -2000}, w {{3, 4}, {-5, 6}}: sums -5000 and -17000. Unit scales 1 and 1/4,
   * biases 10 and -2, output zero point 7: unit 0 -4990 + 7; unit 1 -17002 / 4 = -4250.5,
   * -4250 with int64 sums (half up), -4251 with int32 ones (half away from zero). */
  int16_t x[2] = {1000, -2000}, out[2];
  int8_t w[4] = {3, 4, -5, 6};
  int64_t b64[2] = {10, -2};
  int32_t b32[2] = {10, -2};
  const float scales[2] = {1.0f, 0.25f};
  ap_ktensor ti = ktq(AP_INT16, x, 2, 1, 2, 0, 0, 1.0f, 0);
  ap_ktensor tf = kt(AP_INT8, w, 2, 2, 2, 0, 0);
  tf.scale = 1.0f;
  tf.channel_scales = scales;
  tf.n_channels = 2;
  ap_ktensor tb = kt(AP_INT64, b64, 1, 2, 0, 0, 0), to = kout(AP_INT16, out, 1.0f, 7);
  ap_fc_options fo = {AP_KACT_NONE, false, false, 0};
  ap_fc_params p;
  _Alignas(16) unsigned char scratch[64];
  CHECK_EQ(ap_fc_prepare(&fo, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KFC_INT16_PER_CHANNEL);
  CHECK_EQ(ap_fc_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[0], -4983);
  CHECK_EQ(out[1], -4243);
  tb = kt(AP_INT32, b32, 1, 2, 0, 0, 0);
  CHECK_EQ(ap_fc_prepare(&fo, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  CHECK(p.acc32);
  CHECK_EQ(ap_fc_eval(&p, &ti, &tf, &tb, &to, scratch), AP_OK);
  CHECK_EQ(out[0], -4983);
  CHECK_EQ(out[1], -4244);
  /* Per-tensor: one scale 1/4; the input zero point 100 applies here (TFLM's FullyConnected
   * takes offsets): (900 * 3 + -2100 * 4) = -5700 / 4 = -1425; RELU_N1_TO_1 at scale 1/4 clamps
   * to [-4 + 7, 4 + 7]. */
  tf.channel_scales = NULL;
  tf.n_channels = 0;
  tf.scale = 0.25f;
  ti.zero_point = 100;
  CHECK_EQ(ap_fc_prepare(&fo, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KFC_INT16);
  CHECK_EQ(ap_fc_eval(&p, &ti, &tf, NULL, &to, scratch), AP_OK);
  CHECK_EQ(out[0], -1425 + 7);
  to.scale = 0.25f;
  tf.scale = 1.0f / 16;
  fo.activation = AP_KACT_RELU_N1_TO_1;
  CHECK_EQ(ap_fc_prepare(&fo, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.act_min, 3);
  CHECK_EQ(p.act_max, 11);
  CHECK_EQ(ap_fc_eval(&p, &ti, &tf, NULL, &to, scratch), AP_OK);
  CHECK_EQ(out[0], 3);
}

static void test_transpose_conv(void) {
  /* int8: input {3, -1} with zero point -1 is {4, 0}; filter [1, 1, 2, 1] {2, 5}, stride 1,
   * output width 3: {8, 20, 0}; bias -3: {5, 17, -3}; scale 1/2: {2.5 -> 3, 8.5 -> 9,
   * -1.5 -> -1}; output zero point 10. */
  int32_t shape[4] = {1, 1, 3, 1};
  int8_t x8[2] = {3, -1}, w[2] = {2, 5}, y8[4];
  int32_t b32[1] = {-3};
  const float fs[1] = {1.0f};
  ap_ktensor ts = kt(AP_INT32, shape, 1, 4, 0, 0, 0), tw = filt(AP_INT8, w, 1, 1, 2, 1, fs);
  ap_ktensor tx = ktq(AP_INT8, x8, 4, 1, 1, 2, 1, 1.0f, -1);
  ap_ktensor tb = kt(AP_INT32, b32, 1, 1, 0, 0, 0), ty = kout(AP_INT8, y8, 2.0f, 10);
  const ap_ktensor *ins[4] = {&ts, &tw, &tx, &tb};
  ap_ktensor *outs[1] = {&ty};
  kx_run r;
  kx_setup(&r, ins, 4, outs, 1);
  r.opt.conv = copts(AP_KPAD_VALID, AP_KACT_NONE);
  CHECK_EQ(kx_do_scratch(&r, AP_KB_TRANSPOSE_CONV), AP_OK);
  CHECK_DIMS4(ty, 1, 1, 3, 1);
  int8_t want8[3] = {13, 19, 9};
  CHECK_ARRAY(y8, want8, 3);
  /* 16x8 with an int16 bias (widened, as TFLM does): input {1000, -300}, stride 2, width 4:
   * {2000, 5000, -600, -1500} - 98, scale 1/4: {475.5, 1225.5, -174.5, -399.5} -> half up. */
  int16_t x16[2] = {1000, -300}, y16[4], b16[1] = {-98};
  shape[2] = 4;
  tx = ktq(AP_INT16, x16, 4, 1, 1, 2, 1, 1.0f, 0);
  tb = kt(AP_INT16, b16, 1, 1, 0, 0, 0);
  ty = kout(AP_INT16, y16, 4.0f, 0);
  r.opt.conv.stride_w = 2;
  CHECK_EQ(kx_do_scratch(&r, AP_KB_TRANSPOSE_CONV), AP_OK);
  int16_t want16[4] = {476, 1226, -174, -399};
  CHECK_ARRAY(y16, want16, 4);
  /* The same with an int64 bias; an int32 one is refused (TFLM would read it as int64). */
  int64_t b64[1] = {-98};
  tb = kt(AP_INT64, b64, 1, 1, 0, 0, 0);
  memset(y16, 0, sizeof y16);
  CHECK_EQ(kx_do_scratch(&r, AP_KB_TRANSPOSE_CONV), AP_OK);
  CHECK_ARRAY(y16, want16, 4);
  tb = kt(AP_INT32, b32, 1, 1, 0, 0, 0);
  CHECK_EQ(kx_do_scratch(&r, AP_KB_TRANSPOSE_CONV), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "TRANSPOSE_CONV: bias is INT32, expected INT64");
  /* Saturation: bias 2^32 takes the sums to about 2^30, clamped at 32767 (RELU keeps it). */
  b64[0] = 1LL << 32;
  tb = kt(AP_INT64, b64, 1, 1, 0, 0, 0);
  r.opt.conv.activation = AP_KACT_RELU;
  CHECK_EQ(kx_do_scratch(&r, AP_KB_TRANSPOSE_CONV), AP_OK);
  CHECK_EQ(y16[0], 32767);
  CHECK_EQ(y16[3], 32767);
  /* Beyond TFLite's contract (a result past int32), the int64 requantization keeps the low 32
   * bits as TFLM's cast does: (2^40 + 2000) / 4 = 2^38 + 500 -> 500. */
  b64[0] = 1LL << 40;
  CHECK_EQ(kx_do_scratch(&r, AP_KB_TRANSPOSE_CONV), AP_OK);
  CHECK_EQ(y16[0], 500);
  /* int8 input with an int16 filter is no type TFLM has. */
  int16_t w16[2] = {2, 5};
  tw = filt(AP_INT16, w16, 1, 1, 2, 1, fs);
  CHECK_EQ(kx_do_scratch(&r, AP_KB_TRANSPOSE_CONV), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "TRANSPOSE_CONV: unsupported types INT16, INT16 -> INT16");
}

static void test_batch_matmul(void) {
  /* int8: lhs [1, 2] {5, 7} zero point 1, rhs [2, 1] {3, -2} zero point -2:
   * 4 * 5 + 6 * 0 = 20; scale 1/2 -> 10; output zero point -3. */
  int8_t a8[2] = {5, 7}, b8[2] = {3, -2}, y8[1];
  ap_ktensor ta = ktq(AP_INT8, a8, 2, 1, 2, 0, 0, 1.0f, 1);
  ap_ktensor tb = ktq(AP_INT8, b8, 2, 2, 1, 0, 0, 1.0f, -2);
  ap_ktensor ty = kout(AP_INT8, y8, 2.0f, -3);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_ktensor *outs[1] = {&ty};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_BATCH_MATMUL), AP_OK);
  CHECK_EQ(y8[0], 7);
  /* int16: 3 * 32767^2 = 3,221,028,867 needs the int64 sum; scale 2^-20 -> 3071.8 -> 3072. */
  int16_t a16[3] = {32767, 32767, 32767}, b16[3] = {32767, 32767, 32767}, y16[1];
  ta = ktq(AP_INT16, a16, 2, 1, 3, 0, 0, 1.0f, 0);
  tb = ktq(AP_INT16, b16, 2, 3, 1, 0, 0, 1.0f / (1 << 20), 0);
  ty = kout(AP_INT16, y16, 1.0f, 0);
  CHECK_EQ(kx_do(&r, AP_KB_BATCH_MATMUL), AP_OK);
  CHECK_EQ(y16[0], 3072);
  /* Saturation with a coarser scale: 3,221,028,867 / 2^10 clamps at 32767; negated, -32768. */
  tb.scale = 1.0f / (1 << 10);
  CHECK_EQ(kx_do(&r, AP_KB_BATCH_MATMUL), AP_OK);
  CHECK_EQ(y16[0], 32767);
  b16[0] = b16[1] = b16[2] = -32768;
  CHECK_EQ(kx_do(&r, AP_KB_BATCH_MATMUL), AP_OK);
  CHECK_EQ(y16[0], -32768);
  tb.zero_point = 1;
  CHECK_EQ(kx_do(&r, AP_KB_BATCH_MATMUL), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "BATCH_MATMUL: int16 zero points must be 0 (have 0, 1, 0)");
  tb = ktq(AP_INT8, b8, 2, 2, 1, 0, 0, 1.0f, 0);
  CHECK_EQ(kx_do(&r, AP_KB_BATCH_MATMUL), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "BATCH_MATMUL: unsupported types INT16, INT8 -> INT16");
  r.c.n_inputs = 1;
  CHECK_EQ(kx_do(&r, AP_KB_BATCH_MATMUL), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "BATCH_MATMUL: expected 2 to 2 inputs and 1 output");
}

static void test_pool_mean16(void) {
  /* 2x2 windows over [1, 2, 4, 1]: sums 10 and -10 over 4 round half away from zero. */
  int16_t in[8] = {1, 2, -1, -2, 3, 4, -3, -4}, out[2];
  ap_ktensor ti = ktq(AP_INT16, in, 4, 1, 2, 4, 1, 1.0f, 0), to = kout(AP_INT16, out, 1.0f, 0);
  ap_pool_options po = {AP_KPAD_VALID, 2, 2, 2, 2, AP_KACT_NONE};
  ap_pool_params p;
  CHECK_EQ(ap_pool_prepare(AP_KPOOL_AVERAGE, &po, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_pool_eval(&p, &ti, &to), AP_OK);
  CHECK_EQ(out[0], 3);  /* 10 / 4 = 2.5 */
  CHECK_EQ(out[1], -3); /* -10 / 4 = -2.5 */
  /* Max from the type's lowest value; RELU floors it at the zero point. */
  int16_t low[8] = {-32768, -32768, -5, -6, -32768, -32768, -7, -8};
  ti.data = low;
  CHECK_EQ(ap_pool_prepare(AP_KPOOL_MAX, &po, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_pool_eval(&p, &ti, &to), AP_OK);
  CHECK_EQ(out[0], -32768);
  CHECK_EQ(out[1], -5);
  po.activation = AP_KACT_RELU;
  CHECK_EQ(ap_pool_prepare(AP_KPOOL_MAX, &po, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_pool_eval(&p, &ti, &to), AP_OK);
  CHECK_EQ(out[1], 0);
  /* Averages of extremes stay in range: four 32767s -> 32767 (the int32 sum does not wrap). */
  int16_t hi[8] = {32767, 32767, 0, 0, 32767, 32767, 0, 1};
  ti.data = hi;
  po.activation = AP_KACT_NONE;
  CHECK_EQ(ap_pool_prepare(AP_KPOOL_AVERAGE, &po, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_pool_eval(&p, &ti, &to), AP_OK);
  CHECK_EQ(out[0], 32767);
  CHECK_EQ(out[1], 0); /* 1 / 4 rounds to 0 */
  ap_ktensor bad = kout(AP_INT8, out, 1.0f, 0);
  ap_errbuf err;
  CHECK_EQ(ap_pool_prepare(AP_KPOOL_AVERAGE, &po, &ti, &bad, &p, &err), AP_ERR_UNSUPPORTED);
  CHECK_STR(err.msg, "AVERAGE_POOL_2D: unsupported types INT16 -> INT8");
  /* MEAN over axis 1 of [2, 2] (QuantizedMeanOrSum: 1/count joins the multiplier, 2^30 with
   * shift 0 here): 301 / 2 = 150.5 -> 151; -7 / 2 = -3.5 -> -3 (the doubling high multiply
   * rounds this tie toward zero). Output scale 2 adds a rounding right shift: 151 / 2 = 75.5
   * -> 76 and -3 / 2 = -1.5 -> -2 (away from zero): double rounding, as TFLM's. */
  int16_t m_in[4] = {100, 201, -3, -4}, m_out[2];
  int32_t axis[1] = {1};
  _Alignas(16) unsigned char scratch[64];
  ap_ktensor mi = ktq(AP_INT16, m_in, 2, 2, 2, 0, 0, 1.0f, 0);
  ap_ktensor ma = kt(AP_INT32, axis, 1, 1, 0, 0, 0), mo = kout(AP_INT16, m_out, 1.0f, 0);
  ap_mean_params mp;
  CHECK_EQ(ap_mean_prepare(&mi, &ma, false, &mo, &mp, NULL), AP_OK);
  CHECK_EQ(ap_mean_eval(&mp, &mi, &mo, scratch), AP_OK);
  CHECK_EQ(m_out[0], 151);
  CHECK_EQ(m_out[1], -3);
  mo.scale = 2.0f;
  CHECK_EQ(ap_mean_prepare(&mi, &ma, false, &mo, &mp, NULL), AP_OK);
  CHECK_EQ(ap_mean_eval(&mp, &mi, &mo, scratch), AP_OK);
  CHECK_EQ(m_out[0], 76);
  CHECK_EQ(m_out[1], -2);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static int32_t rnd(int32_t lo, int32_t hi) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return lo + (int32_t)(rng_state % (uint64_t)(hi - lo + 1));
}

/* INT4 weights give exactly what the int8 kernel gives on the unpacked weights, for random
 * shapes, odd element counts included; the packed buffer is allocated to its exact size
 * (ceil(n / 2) bytes) so that a sanitizer build catches any read past it. */
static void test_int4_matches_int8(void) {
  int bad = 0, ran = 0;
  for (int iter = 0; iter < 200; iter++) {
    int32_t h = rnd(1, 5), w = rnd(1, 5), c = rnd(1, 5), oc = rnd(1, 5), fh = rnd(1, 3);
    int32_t fw = rnd(1, 3), op = rnd(0, 2);
    if (op == 1) oc = c * rnd(1, 2); /* depthwise: a multiple of the input depth */
    size_t nf = op == 0 ? (size_t)oc * fh * fw * c : op == 1 ? (size_t)fh * fw * oc : 0;
    if (op == 2) nf = (size_t)oc * h * w * c; /* FULLY_CONNECTED over the flat input */
    size_t ni = (size_t)h * w * c;
    uint8_t *packed = malloc((nf + 1) / 2);
    int8_t *unpacked = malloc(nf), *in = malloc(ni);
    int8_t out4[256], out8[256];
    int32_t bias[16];
    float scales[16];
    for (size_t i = 0; i < (nf + 1) / 2; i++)
      packed[i] = (uint8_t)rnd(0, 255);
    ap_kint4_unpack(packed, nf, unpacked);
    for (size_t i = 0; i < ni; i++)
      in[i] = (int8_t)rnd(-128, 127);
    for (int i = 0; i < 16; i++) {
      bias[i] = rnd(-500, 500);
      scales[i] = (float)rnd(1, 64) / 256.0f;
    }
    ap_ktensor tb = kt(AP_INT32, bias, 1, oc, 0, 0, 0);
    ap_ktensor o4 = kout(AP_INT8, out4, 0.5f, rnd(-5, 5)), o8 = o4;
    o8.data = out8;
    _Alignas(16) unsigned char s4[1024], s8[1024];
    ap_status r4, r8;
    if (op < 2) {
      ap_ktensor ti = ktq(AP_INT8, in, 4, 1, h, w, c, 0.25f, rnd(-3, 3));
      ap_ktensor f4 =
          op == 0 ? kt(AP_INT4, packed, 4, oc, fh, fw, c) : kt(AP_INT4, packed, 4, 1, fh, fw, oc);
      f4.channel_scales = scales;
      f4.n_channels = oc;
      f4.scale = scales[0];
      ap_ktensor f8 = f4;
      f8.type = AP_INT8;
      f8.data = unpacked;
      ap_conv_options o = copts(rnd(0, 1), rnd(0, 3));
      o.stride_w = rnd(1, 2);
      ap_conv_params p4, p8;
      if (op == 0) {
        r4 = ap_conv_prepare(&o, &ti, &f4, &tb, &o4, &p4, NULL);
        r8 = ap_conv_prepare(&o, &ti, &f8, &tb, &o8, &p8, NULL);
        if (r4 == AP_OK && r4 == r8) r4 = ap_conv_eval(&p4, &ti, &f4, &tb, &o4, s4);
        if (r8 == AP_OK) r8 = ap_conv_eval(&p8, &ti, &f8, &tb, &o8, s8);
      } else {
        r4 = ap_depthwise_prepare(&o, &ti, &f4, &tb, &o4, &p4, NULL);
        r8 = ap_depthwise_prepare(&o, &ti, &f8, &tb, &o8, &p8, NULL);
        if (r4 == AP_OK && r4 == r8) r4 = ap_depthwise_eval(&p4, &ti, &f4, &tb, &o4, s4);
        if (r8 == AP_OK) r8 = ap_depthwise_eval(&p8, &ti, &f8, &tb, &o8, s8);
      }
    } else {
      ap_ktensor ti = ktq(AP_INT8, in, 2, 1, (int32_t)ni, 0, 0, 0.25f, rnd(-3, 3));
      ap_ktensor f4 = kt(AP_INT4, packed, 2, oc, (int32_t)ni, 0, 0), f8 = f4;
      f4.scale = scales[0];
      f8 = f4;
      f8.type = AP_INT8;
      f8.data = unpacked;
      ap_fc_options fo = {rnd(0, 3), false, false, 0};
      ap_fc_params p4, p8;
      r4 = ap_fc_prepare(&fo, &ti, &f4, &tb, &o4, &p4, NULL);
      r8 = ap_fc_prepare(&fo, &ti, &f8, &tb, &o8, &p8, NULL);
      if (r4 == AP_OK && r4 == r8) r4 = ap_fc_eval(&p4, &ti, &f4, &tb, &o4, s4);
      if (r8 == AP_OK) r8 = ap_fc_eval(&p8, &ti, &f8, &tb, &o8, s8);
    }
    size_t n;
    if (r4 != r8 || (r4 == AP_OK && (!ap_ktensor_count(&o4, &n) || n > sizeof out4 ||
                                     memcmp(out4, out8, n) != 0))) {
      bad++;
    }
    ran += r4 == AP_OK;
    free(packed);
    free(unpacked);
    free(in);
  }
  CHECK_EQ(bad, 0);
  CHECK_MSG(ran > 150, "only %d of 200 ran", ran);
}

static void test_errors(void) {
  int16_t in[4] = {0}, out[4];
  int8_t w8[4] = {0};
  int16_t w16[4] = {0};
  int32_t b32[1] = {0};
  float bf[1] = {0};
  const float fs[1] = {1.0f}, big[1] = {256.0f};
  ap_ktensor ti = ktq(AP_INT16, in, 4, 1, 1, 1, 1, 1.0f, 0), to = kout(AP_INT16, out, 1.0f, 0);
  ap_ktensor tf = filt(AP_INT16, w16, 1, 1, 1, 1, fs);
  ap_conv_options o = copts(AP_KPAD_VALID, AP_KACT_NONE);
  ap_conv_params p;
  ap_errbuf err;
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, &err), AP_ERR_UNSUPPORTED);
  CHECK_STR(err.msg, "CONV_2D: unsupported types input INT16, filter INT16, output INT16");
  tf = filt(AP_INT4, w8, 1, 1, 1, 1, fs);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, &err), AP_ERR_UNSUPPORTED);
  CHECK_STR(err.msg, "CONV_2D: unsupported types input INT16, filter INT4, output INT16");
  tf = filt(AP_INT8, w8, 1, 1, 1, 1, fs);
  ap_ktensor tb = kt(AP_FLOAT32, bf, 1, 1, 0, 0, 0);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, &tb, &to, &p, &err), AP_ERR_UNSUPPORTED);
  CHECK_STR(err.msg, "CONV_2D: bias is FLOAT32, expected INT64");
  tb = kt(AP_INT32, b32, 1, 1, 0, 0, 0);
  CHECK_EQ(ap_depthwise_prepare(&o, &ti, &tf, &tb, &to, &p, &err), AP_ERR_UNSUPPORTED);
  CHECK_STR(err.msg, "DEPTHWISE_CONV_2D: bias is INT32, expected INT64 for 16x8");
  /* A rescale of 256 is beyond the int64 requantization's shift of 7. */
  tf = filt(AP_INT8, w8, 1, 1, 1, 1, big);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, &err), AP_ERR_UNSUPPORTED);
  CHECK_STR(err.msg, "CONV_2D: channel 0 rescales by 256, beyond the 64-bit requantization's 2^7");
  /* ... but the int32 sums (quantized_bias_type INT32) take it. */
  o.quantized_bias_type = AP_INT32;
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, &err), AP_OK);
  /* Output int8 from int16 input. */
  ap_ktensor to8 = kout(AP_INT8, out, 1.0f, 0);
  tf = filt(AP_INT8, w8, 1, 1, 1, 1, fs);
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to8, &p, &err), AP_ERR_UNSUPPORTED);
  CHECK_STR(err.msg, "CONV_2D: unsupported types input INT16, filter INT8, output INT8");
  /* FULLY_CONNECTED 16x8 with an int16 bias. */
  ap_fc_options fo = {AP_KACT_NONE, false, false, 0};
  ap_fc_params fp;
  ap_ktensor fi = ktq(AP_INT16, in, 2, 1, 1, 0, 0, 1.0f, 0);
  ap_ktensor fw = kt(AP_INT8, w8, 2, 1, 1, 0, 0);
  fw.scale = 1.0f;
  ap_ktensor fb = kt(AP_INT16, w16, 1, 1, 0, 0, 0);
  CHECK_EQ(ap_fc_prepare(&fo, &fi, &fw, &fb, &to, &fp, &err), AP_ERR_UNSUPPORTED);
  CHECK_STR(err.msg, "FULLY_CONNECTED: bias is INT16, expected INT64");
  /* INT16 MEAN to INT8. */
  int32_t axis[1] = {0};
  ap_ktensor ma = kt(AP_INT32, axis, 1, 1, 0, 0, 0);
  ap_mean_params mp;
  CHECK_EQ(ap_mean_prepare(&fi, &ma, false, &to8, &mp, &err), AP_ERR_UNSUPPORTED);
  CHECK_STR(err.msg, "MEAN: unsupported types INT16 -> INT8");
}

int main(void) {
  test_mul64();
  test_conv_large_sums();
  test_conv_padding();
  test_int4();
  test_int4_matches_int8();
  test_fc16();
  test_transpose_conv();
  test_batch_matmul();
  test_pool_mean16();
  test_errors();
  return ap_test_done();
}
