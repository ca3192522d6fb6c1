/* The 16x8 fast paths (CONV_2D and FULLY_CONNECTED: int16 activations, int8 weights) against
 * the reference at every SIMD level with 1-3 threads: int64 and int32 biases and none, per
 * channel and per tensor, depths off the 16-lane steps and past 2048 (where the int32 partial
 * sums are widened), sums of extremes beyond int32 (exact in int64), padding at every border,
 * stride 2, dilation, 1x1 rows read in place, and activations that clamp. */
#include "fastcmp.h"

enum { B_CONV = 3, B_FC = 9 };

static uint64_t rng = 4242;
static int32_t rnd(int32_t lo, int32_t hi) {
  return lo + (int32_t)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

static int16_t *acts(size_t n, bool extreme) {
  int16_t *p = malloc(n ? n * 2 : 2);
  for (size_t i = 0; i < n; i++)
    p[i] = (int16_t)(extreme ? -32768 : rnd(-32768, 32767));
  return p;
}

static int8_t *weights(size_t n, bool extreme) {
  int8_t *p = malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++)
    p[i] = (int8_t)(extreme ? -128 : rnd(-127, 127));
  return p;
}

/* bias_type: AP_INT64, AP_INT32 or 0 (none). */
static void conv_case(int b, int h, int w, int cin, int cout, int fh, int fw, int stride, int dil,
                      int padding, int act, int bias_type, bool extreme) {
  size_t nin = (size_t)b * h * w * cin, nf = (size_t)cout * fh * fw * cin;
  int16_t *in = acts(nin, extreme);
  int8_t *f = weights(nf, extreme);
  int64_t *b64 = malloc((size_t)cout * 8);
  int32_t *b32 = malloc((size_t)cout * 4);
  for (int i = 0; i < cout; i++) {
    b64[i] = (int64_t)rnd(-2000000, 2000000) * 1000;
    b32[i] = rnd(-2000000, 2000000);
  }
  float *scales = malloc((size_t)cout * sizeof *scales);
  for (int i = 0; i < cout; i++)
    scales[i] = 0.001f + 0.0001f * (float)rnd(0, 100);
  ap_ktensor ti = ktq(AP_INT16, in, 4, b, h, w, cin, 0.5f, 0);
  ap_ktensor tf = kt(AP_INT8, f, 4, cout, fh, fw, cin);
  tf.scale = scales[0];
  tf.channel_scales = scales;
  tf.n_channels = cout;
  ap_ktensor tb = bias_type == AP_INT64 ? kt(AP_INT64, b64, 1, cout, 0, 0, 0)
                                        : kt(AP_INT32, b32, 1, cout, 0, 0, 0);
  ap_ktensor to = kout(AP_INT16, NULL, extreme ? 400.0f : 0.05f, 0);
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){padding, stride, stride, dil, dil, act, 0, 0};
  char what[200];
  snprintf(what, sizeof what, "16x8 CONV b%d %dx%dx%d -> %d, filter %dx%d, stride %d, dil %d, %s%s",
           b, h, w, cin, cout, fh, fw, stride, dil,
           bias_type == AP_INT64   ? "int64 bias"
           : bias_type == AP_INT32 ? "int32 bias"
                                   : "no bias",
           extreme ? ", extremes" : "");
  fc_compare(what, B_CONV, &o, ins, bias_type ? 3 : 2, &to);
  if (!bias_type) { /* without a bias the converter's bias type picks the sums */
    o.conv.quantized_bias_type = AP_INT32;
    fc_compare(what, B_CONV, &o, ins, 2, &to);
  }
  free(in), free(f), free(b64), free(b32), free(scales);
}

static void fc_case(int batches, int depth, int units, bool per_channel, int bias_type,
                    bool extreme) {
  size_t nin = (size_t)batches * depth, nw = (size_t)units * depth;
  int16_t *in = acts(nin, extreme);
  int8_t *wt = weights(nw, extreme);
  int64_t *b64 = malloc((size_t)units * 8);
  int32_t *b32 = malloc((size_t)units * 4);
  for (int i = 0; i < units; i++) {
    b64[i] = (int64_t)rnd(-2000000, 2000000) * 1000;
    b32[i] = rnd(-2000000, 2000000);
  }
  float *scales = malloc((size_t)units * sizeof *scales);
  for (int i = 0; i < units; i++)
    scales[i] = 0.001f + 0.0001f * (float)rnd(0, 100);
  ap_ktensor ti = ktq(AP_INT16, in, 2, batches, depth, 0, 0, 0.5f, 0);
  ap_ktensor tw = ktq(AP_INT8, wt, 2, units, depth, 0, 0, scales[0], 0);
  if (per_channel) {
    tw.channel_scales = scales;
    tw.n_channels = units;
  }
  ap_ktensor tb = bias_type == AP_INT64 ? kt(AP_INT64, b64, 1, units, 0, 0, 0)
                                        : kt(AP_INT32, b32, 1, units, 0, 0, 0);
  ap_ktensor to = kout(AP_INT16, NULL, extreme ? 400.0f : 0.05f, 0);
  const ap_ktensor *ins[3] = {&ti, &tw, &tb};
  ap_kop_options o = {0};
  o.fc.activation = AP_KACT_NONE;
  char what[160];
  snprintf(what, sizeof what, "16x8 FC %d x %d -> %d%s, bias %d%s", batches, depth, units,
           per_channel ? " per channel" : "", bias_type, extreme ? ", extremes" : "");
  fc_compare(what, B_FC, &o, ins, bias_type ? 3 : 2, &to);
  free(in), free(wt), free(b64), free(b32), free(scales);
}

int main(void) {
  fc_setup();
  static const int bias_types[] = {AP_INT64, AP_INT32, 0};
  static const int convs[][10] = {
      {1, 5, 5, 3, 2, 3, 3, 1, 1, AP_KPAD_SAME},    {1, 7, 7, 13, 9, 3, 3, 2, 1, AP_KPAD_SAME},
      {2, 6, 5, 17, 33, 1, 1, 1, 1, AP_KPAD_VALID}, {1, 9, 7, 33, 7, 1, 1, 2, 1, AP_KPAD_SAME},
      {1, 9, 9, 4, 6, 3, 3, 1, 2, AP_KPAD_SAME},    {1, 12, 11, 16, 24, 3, 3, 1, 1, AP_KPAD_SAME},
  };
  for (size_t bt = 0; bt < 3; bt++)
    for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++) {
      const int *c = convs[i];
      conv_case(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9],
                i % 2 ? AP_KACT_RELU : AP_KACT_NONE, bias_types[bt], false);
    }
  /* 3x3x300 taps of (-32768)(-128): 2^22 * 2700 passes 2^31 (and 2^32). */
  conv_case(1, 4, 4, 300, 3, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE, AP_INT64, true);
  conv_case(1, 4, 4, 300, 3, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE, AP_INT32, true);
  for (size_t bt = 0; bt < 3; bt++)
    for (int pc = 0; pc < 2; pc++) {
      fc_case(1, 1, 1, pc, bias_types[bt], false);
      fc_case(1, 7, 3, pc, bias_types[bt], false);
      fc_case(3, 17, 5, pc, bias_types[bt], false);
      fc_case(2, 33, 9, pc, bias_types[bt], false);
      fc_case(1, 640, 130, pc, bias_types[bt], false);
      fc_case(1, 5000, 3, pc, bias_types[bt], false);
      fc_case(1, 70000, 2, pc, bias_types[bt], true);
    }
  fc_teardown();
  return ap_test_done();
}
