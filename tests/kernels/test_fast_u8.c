/* The uint8 fast kernels (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED; TFLite's legacy
 * per-tensor arithmetic) against the reference at every SIMD level with 1-3 threads: zero
 * points at 0, 128 and 255 on input and filter (factors of -255 and 255), channel counts off
 * the 8-lane blocks, depths off 16, every border, stride 2 over odd sizes, dilation, depth
 * multipliers, activations that clamp, and sums that wrap past 2^31. */
#include "fastcmp.h"

enum { B_CONV = 3, B_DW = 4, B_FC = 9 };

static uint64_t rng = 777;
static int32_t rnd(int32_t lo, int32_t hi) {
  return lo + (int32_t)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

static uint8_t *bytes(size_t n, int lo, int hi) {
  uint8_t *p = malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)rnd(lo, hi);
  return p;
}

/* out_scale: the output's scale, 0 for a random one. */
static void conv_case(bool dw, int b, int h, int w, int cin, int cout, int fh, int fw, int stride,
                      int dil, int padding, int act, int in_zp, int f_zp, float out_scale) {
  int mult = dw ? cout / cin : 1;
  size_t nin = (size_t)b * h * w * cin, nf = (size_t)cout * fh * fw * (dw ? 1 : cin);
  uint8_t *in = bytes(nin, 0, 255), *f = bytes(nf, 0, 255);
  int32_t *bias = malloc((size_t)cout * 4);
  for (int i = 0; i < cout; i++)
    bias[i] = rnd(-30000, 30000);
  ap_ktensor ti = ktq(AP_UINT8, in, 4, b, h, w, cin, 0.02f, in_zp);
  ap_ktensor tf = dw ? ktq(AP_UINT8, f, 4, 1, fh, fw, cout, 0.01f, f_zp)
                     : ktq(AP_UINT8, f, 4, cout, fh, fw, cin, 0.01f, f_zp);
  ap_ktensor tb = kt(AP_INT32, bias, 1, cout, 0, 0, 0);
  float so = out_scale > 0 ? out_scale : 0.05f + (float)rnd(0, 100) / 100.0f;
  ap_ktensor to = kout(AP_UINT8, NULL, so, rnd(0, 255));
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){padding, stride, stride, dil, dil, act, dw ? mult : 0, 0};
  char what[200];
  snprintf(what, sizeof what,
           "uint8 %s b%d %dx%dx%d -> %d, filter %dx%d, stride %d, dilation %d, %s, zp %d/%d",
           dw ? "DEPTHWISE" : "CONV", b, h, w, cin, cout, fh, fw, stride, dil,
           padding == AP_KPAD_SAME ? "SAME" : "VALID", in_zp, f_zp);
  fc_compare(what, dw ? B_DW : B_CONV, &o, ins, 3, &to);
  /* Without a bias too. */
  fc_compare(what, dw ? B_DW : B_CONV, &o, ins, 2, &to);
  free(in), free(f), free(bias);
}

static void fc_case(int batches, int depth, int units, int in_zp, int f_zp, bool extreme) {
  size_t nin = (size_t)batches * depth, nw = (size_t)units * depth;
  uint8_t *in = extreme ? bytes(nin, 255, 255) : bytes(nin, 0, 255);
  uint8_t *wt = extreme ? bytes(nw, 255, 255) : bytes(nw, 0, 255);
  int32_t *bias = malloc((size_t)units * 4);
  for (int i = 0; i < units; i++)
    bias[i] = rnd(-5000, 5000);
  ap_ktensor ti = ktq(AP_UINT8, in, 2, batches, depth, 0, 0, 0.03f, in_zp);
  ap_ktensor tw = ktq(AP_UINT8, wt, 2, units, depth, 0, 0, 0.004f, f_zp);
  ap_ktensor tb = kt(AP_INT32, bias, 1, units, 0, 0, 0);
  ap_ktensor to = kout(AP_UINT8, NULL, extreme ? 3e4f : 0.2f, rnd(0, 255));
  const ap_ktensor *ins[3] = {&ti, &tw, &tb};
  ap_kop_options o = {0};
  o.fc.activation = AP_KACT_NONE;
  char what[128];
  snprintf(what, sizeof what, "uint8 FC %d x %d -> %d, zp %d/%d%s", batches, depth, units, in_zp,
           f_zp, extreme ? ", wrapping sum" : "");
  fc_compare(what, B_FC, &o, ins, 3, &to);
  fc_compare(what, B_FC, &o, ins, 2, &to);
  free(in), free(wt), free(bias);
}

/* One output by hand: input 2x2x1 (zp 128), 2x2 filter (zp 100), VALID. */
static void hand_worked(void) {
  uint8_t in[4] = {130, 128, 0, 255}, f[4] = {101, 99, 200, 100}, out = 0;
  int32_t bias = 7;
  /* Offset input 2, 0, -128, 127; offset filter 1, -1, 100, 0: 2 + 0 - 12800 + 0 + 7 =
   * -12791, times 0.5 * 0.5 / 100 = -31.98, rounded to -32, plus the zero point 200: 168. */
  ap_ktensor ti = ktq(AP_UINT8, in, 4, 1, 2, 2, 1, 0.5f, 128);
  ap_ktensor tf = ktq(AP_UINT8, f, 4, 1, 2, 2, 1, 0.5f, 100);
  ap_ktensor tb = kt(AP_INT32, &bias, 1, 1, 0, 0, 0);
  ap_ktensor to = kout(AP_UINT8, &out, 100.0f, 200);
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){AP_KPAD_VALID, 1, 1, 1, 1, AP_KACT_NONE, 0, 0};
  for (int i = 0; i < fc_ncfg; i++) {
    size_t n, sc;
    ap_status s;
    uint8_t *got = fc_run(B_CONV, &o, ins, 3, &to, &fc_cfgs[i].x, &n, &sc, &s);
    CHECK_MSG(got && s == AP_OK && n == 1 && got[0] == 168, "hand-worked uint8 conv: %s gave %d",
              fc_cfgs[i].name, got ? got[0] : -1);
    free(got);
  }
}

int main(void) {
  fc_setup();
  /* and on 2 and 3 threads with one workspace, as the kernel choice's "one thread" candidate
   * runs them: the convolution's patch rows on each thread's stack */
  const ap_fast_level *l[AP_TEST_MAX_LEVELS];
  for (int i = 0, n = ap_test_levels(l); i < n; i++) {
    fc_cfgs[fc_ncfg++] = (fc_cfg){
        {.level = l[i], .workers = fc_w2, .threads = 2, .one_workspace = true, .parallel_min = 1},
        l[i]->name};
    fc_cfgs[fc_ncfg++] = (fc_cfg){
        {.level = l[i], .workers = fc_w3, .threads = 3, .one_workspace = true, .parallel_min = 1},
        l[i]->name};
  }
  hand_worked();
  static const int zps[][2] = {{128, 128}, {0, 255}, {255, 0}, {3, 140}};
  static const int convs[][11] = {
      {1, 5, 5, 3, 2, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 7, 7, 13, 9, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {2, 6, 5, 17, 33, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_RELU6},
      {1, 9, 7, 33, 7, 1, 1, 2, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 8, 9, 5, 17, 5, 3, 2, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 9, 9, 4, 6, 3, 3, 1, 2, AP_KPAD_SAME, AP_KACT_RELU},
      {1, 19, 17, 16, 24, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      {1, 1, 1, 70, 1, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      /* Packed weights (over 128 rows): two blocks of 16 channels stored whole, then 8. */
      {1, 12, 12, 8, 40, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      /* Packed 8 pairs at a time (u8pack's turn), then the rest one by one: depths 21 (an odd
       * last value) and 40 (16 bytes past two steps), a partial block of 5 channels. */
      {1, 12, 12, 21, 13, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 12, 11, 40, 24, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_RELU},
      /* At most 32 taps into 8 or 16 channels (smallk_avx2.c): mobilenet_v1's first layer
       * (3x3 over RGB, stride 2) and 1x1 over 8, odd sizes, batches, dilation. */
      {1, 13, 12, 3, 8, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      {2, 9, 7, 8, 16, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 11, 10, 3, 16, 3, 3, 1, 2, AP_KPAD_SAME, AP_KACT_RELU},
      {1, 5, 5, 32, 8, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      /* Border pixels a filter row at a time (sk_patch): even sizes at stride 2 (padding below
       * and right only, as mobilenet_v1's first layer), stride 1 (both sides), a filter wider
       * than the input, runs of 15 (an odd lane whose weight must stay 0 under the filter's
       * offset). */
      {1, 10, 12, 3, 8, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 9, 7, 3, 16, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {1, 3, 2, 3, 8, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {2, 5, 4, 5, 8, 2, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      /* A row block or fewer (mobilenet_v1's classifier: one pixel into 1001 channels): the
       * one-row product (depths on and off 16, channels off 8), the threads taking channels. */
      {1, 1, 1, 256, 1001, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 1, 1, 37, 203, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_RELU},
      {1, 1, 3, 21, 45, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 3, 3, 5, 19, 3, 3, 1, 1, AP_KPAD_VALID, AP_KACT_RELU6},
  };
  for (size_t z = 0; z < sizeof zps / sizeof zps[0]; z++)
    for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++) {
      const int *c = convs[i];
      conv_case(false, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], zps[z][0],
                zps[z][1], 0.0f);
    }
  /* Outputs that saturate both ways (a small output scale), zero points at the ends: the
   * packed product's 16-channel stores pack with saturation before the offset and clamp. */
  for (size_t z = 0; z < sizeof zps / sizeof zps[0]; z++) {
    conv_case(false, 1, 12, 12, 8, 40, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE, zps[z][0],
              zps[z][1], 0.0005f);
    conv_case(false, 1, 9, 8, 3, 16, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_NONE, zps[z][0], zps[z][1],
              0.0005f);
  }
  static const int dws[][11] = {
      {1, 5, 5, 3, 3, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 7, 7, 9, 9, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      {1, 8, 7, 17, 17, 3, 3, 2, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 6, 6, 4, 8, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {2, 9, 9, 5, 15, 5, 5, 2, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {1, 9, 11, 16, 16, 3, 3, 1, 2, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 20, 17, 40, 40, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      {1, 3, 3, 8, 8, 5, 5, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 4, 4, 8, 8, 2, 2, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      /* Multiplier 1 (AVX2: 16-channel blocks, an 8-channel one, scalar channels; 3x3 and 5x5
       * unrolled, others counted at run time; 8 channels with stride 1: pixels in twos) */
      {1, 6, 5, 24, 24, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 9, 8, 33, 33, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      {1, 25, 5, 64, 64, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {1, 8, 9, 48, 48, 5, 5, 2, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 4, 5, 7, 7, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 9, 10, 41, 41, 7, 7, 2, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {1, 2, 1, 32, 32, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 7, 10, 8, 8, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {1, 6, 9, 8, 8, 5, 5, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      /* 3x3, stride 1, 16 or 32 channels: each block swept along a row inside the input */
      {1, 9, 21, 32, 32, 3, 3, 1, 1, AP_KPAD_VALID, AP_KACT_RELU6},
      {2, 7, 18, 16, 16, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 5, 3, 32, 32, 3, 3, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
  };
  for (size_t z = 0; z < sizeof zps / sizeof zps[0]; z++)
    for (size_t i = 0; i < sizeof dws / sizeof dws[0]; i++) {
      const int *c = dws[i];
      conv_case(true, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], zps[z][0],
                zps[z][1], 0.0f);
    }
  /* A requantization multiplier above 1 (a left shift: the table's kernel). */
  conv_case(true, 1, 7, 6, 24, 24, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE, 3, 140, 1e-5f);
  for (size_t z = 0; z < sizeof zps / sizeof zps[0]; z++) {
    fc_case(1, 1, 1, zps[z][0], zps[z][1], false);
    fc_case(1, 7, 3, zps[z][0], zps[z][1], false);
    fc_case(3, 17, 5, zps[z][0], zps[z][1], false);
    fc_case(2, 33, 9, zps[z][0], zps[z][1], false);
    fc_case(1, 640, 130, zps[z][0], zps[z][1], false);
  }
  /* (255 - 0)^2 * 70000 passes 2^32: the int32 sum wraps as the reference's. */
  fc_case(1, 70000, 2, 0, 0, true);
  fc_teardown();
  return ap_test_done();
}
