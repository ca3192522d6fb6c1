/* The quantized pools' fast path (AVERAGE_POOL_2D, MAX_POOL_2D over int8, uint8 and int16)
 * against the reference at every SIMD level with 1-3 threads: channel counts off the 16-lane
 * blocks, windows clipped at every border (SAME), strides over odd sizes, windows larger than
 * the image, rounding ties both ways, activations that clamp, extreme values, and the
 * reference's error for an average over an empty window. */
#include "fastcmp.h"

enum { B_AVG = 1, B_MAX = 17 };

static uint64_t rng = 99;
static int32_t rnd(int32_t lo, int32_t hi) {
  return lo + (int32_t)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

static void pool_case(int type, int32_t builtin, int b, int h, int w, int c, int fh, int fw, int sh,
                      int sw, int padding, int act, bool extreme) {
  size_t n = (size_t)b * h * w * c, esz = type == AP_INT16 ? 2 : 1;
  uint8_t *in = malloc(n * esz);
  for (size_t i = 0; i < n; i++) {
    int32_t lo = type == AP_INT16 ? -32768 : type == AP_INT8 ? -128 : 0;
    int32_t hi = type == AP_INT16 ? 32767 : type == AP_INT8 ? 127 : 255;
    int32_t v = extreme ? (rnd(0, 1) ? lo : hi) : rnd(lo, hi);
    if (type == AP_INT16)
      ((int16_t *)in)[i] = (int16_t)v;
    else
      in[i] = (uint8_t)v;
  }
  int zp = type == AP_UINT8 ? rnd(0, 255) : type == AP_INT8 ? rnd(-128, 127) : 0;
  ap_ktensor ti = ktq(type, in, 4, b, h, w, c, 0.5f, zp);
  ap_ktensor to = kout(type, NULL, 0.5f, zp);
  const ap_ktensor *ins[1] = {&ti};
  ap_kop_options o = {0};
  o.pool = (ap_pool_options){padding, sw, sh, fw, fh, act};
  char what[200];
  snprintf(what, sizeof what, "%s %s b%d %dx%dx%d, filter %dx%d, stride %dx%d, %s, act %d%s",
           builtin == B_AVG ? "AVERAGE_POOL_2D" : "MAX_POOL_2D", ap_ktype_name(type), b, h, w, c,
           fh, fw, sh, sw, padding == AP_KPAD_SAME ? "SAME" : "VALID", act,
           extreme ? ", extremes" : "");
  fc_compare(what, builtin, &o, ins, 1, &to);
  free(in);
}

/* Hand-worked: 2x2 int8 window of 1, 2, 2, 2 (sum 7, 7/4 = 1.75 -> 2) and -1, -2, -2, -2
 * (-1.75 -> -2); ties: 1, 2, 0, 0 (0.75 -> 1), 1, 1, 0, 0 (0.5 -> 1), -1, -1, 0, 0 (-0.5 -> -1). */
static void hand_worked(void) {
  int8_t in[5][4] = {{1, 2, 2, 2}, {-1, -2, -2, -2}, {1, 2, 0, 0}, {1, 1, 0, 0}, {-1, -1, 0, 0}};
  int8_t want[5] = {2, -2, 1, 1, -1};
  for (int k = 0; k < 5; k++) {
    ap_ktensor ti = ktq(AP_INT8, in[k], 4, 1, 2, 2, 1, 1.0f, 0);
    ap_ktensor to = kout(AP_INT8, NULL, 1.0f, 0);
    const ap_ktensor *ins[1] = {&ti};
    ap_kop_options o = {0};
    o.pool = (ap_pool_options){AP_KPAD_VALID, 2, 2, 2, 2, AP_KACT_NONE};
    for (int i = 0; i < fc_ncfg; i++) {
      size_t nb, sc;
      ap_status s;
      uint8_t *got = fc_run(B_AVG, &o, ins, 1, &to, &fc_cfgs[i].x, &nb, &sc, &s);
      CHECK_MSG(got && s == AP_OK && nb == 1 && (int8_t)got[0] == want[k],
                "hand-worked average %d: %s gave %d, want %d", k, fc_cfgs[i].name,
                got ? (int8_t)got[0] : 0, want[k]);
      free(got);
    }
  }
}

int main(void) {
  fc_setup();
  hand_worked();
  static const int types[] = {AP_INT8, AP_UINT8, AP_INT16};
  static const int cases[][10] = {
      /* b, h, w, c, fh, fw, sh, sw, padding, act */
      {1, 5, 5, 3, 2, 2, 2, 2, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 7, 9, 17, 3, 3, 2, 2, AP_KPAD_SAME, AP_KACT_RELU},
      {2, 6, 5, 16, 3, 2, 1, 2, AP_KPAD_SAME, AP_KACT_RELU6},
      {1, 4, 4, 33, 4, 4, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 3, 3, 8, 5, 5, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 16, 16, 64, 2, 2, 2, 2, AP_KPAD_VALID, AP_KACT_RELU_N1_TO_1},
      {1, 40, 33, 24, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 9, 9, 1, 9, 9, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      /* a whole map of 125 values (mlperf_kws's; AVX2: int16 sums up to 128 values) and of 132 */
      {1, 25, 5, 64, 25, 5, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 12, 11, 20, 12, 11, 1, 1, AP_KPAD_VALID, AP_KACT_RELU},
  };
  for (size_t t = 0; t < 3; t++)
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      for (int op = 0; op < 2; op++)
        for (int ex = 0; ex < 2; ex++) {
          const int *c = cases[i];
          pool_case(types[t], op ? B_MAX : B_AVG, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
                    c[8], c[9], ex == 1);
        }
  /* int16 sums of a 64x64 window of extremes: int32 sums far from wrapping, but large. */
  pool_case(AP_INT16, B_AVG, 1, 64, 64, 5, 64, 64, 1, 1, AP_KPAD_VALID, AP_KACT_NONE, true);
  fc_teardown();
  return ap_test_done();
}
