/* int8 FULLY_CONNECTED, fast kernels against the reference at every SIMD level with 1-3
 * threads, on the edges the matrix-times-vector kernels add: weights at every offset from a
 * 32-byte boundary (the AVX-512 kernel reads rows from the boundary below them when the depth
 * is a multiple of 32), depths off the vector widths and below one vector, unit counts off 8
 * and 16 (repeated rows in the last pass, a masked store), input zero points -128 (unsigned
 * bytes as they are), 127, 0 and others (a correction by the weights' sums), a filter zero
 * point, per-channel multipliers, a multiplier above 1 (left shift), and hand-worked values. */
#include "fastcmp.h"

enum { B_FC = 9 };

static uint64_t rng = 777;
static int32_t rnd(int32_t lo, int32_t hi) {
  return lo + (int32_t)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

/* out = FC(in, w at `align` bytes past a 64-byte boundary, bias); NULL with *s on failure. */
static int8_t *run_fc(const int8_t *in, int batches, int depth, const int8_t *w, int units,
                      const int32_t *bias, int align, float in_scale, int in_zp, float w_scale,
                      float out_scale, int out_zp, const ap_kexec *x, ap_status *s) {
  size_t nw = (size_t)units * depth, bytes, sc;
  int8_t *wbuf = aligned_alloc(64, (nw + 127) / 64 * 64 + 64);
  memcpy(wbuf + align, w, nw);
  ap_ktensor ti = ktq(AP_INT8, (void *)in, 2, batches, depth, 0, 0, in_scale, in_zp);
  ap_ktensor tw = ktq(AP_INT8, wbuf + align, 2, units, depth, 0, 0, w_scale, 0);
  ap_ktensor tb = kt(AP_INT32, (void *)bias, 1, units, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, NULL, out_scale, out_zp);
  const ap_ktensor *ins[3] = {&ti, &tw, &tb};
  ap_kop_options o = {0};
  uint8_t *out = fc_run(B_FC, &o, ins, 3, &to, x, &bytes, &sc, s);
  free(wbuf);
  return (int8_t *)out;
}

/* Every row's (x + in_off) is 1 or -1, row u's weights all u - 8 over depth 64 (one AVX-512
 * head, a full step and a tail when misaligned), bias 0, multiplier 1/256 (2^30, shift -7):
 * out[u] = round(+-64 (u - 8) / 256), halves away from zero. */
static void hand_worked(void) {
  enum { D = 64, U = 17 };
  static const int8_t want[U] = {-2, -2, -2, -1, -1, -1, -1, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2};
  int8_t w[U * D], in[D], in_neg[D], in_zp5[D];
  int32_t bias[U] = {0};
  for (int u = 0; u < U; u++)
    memset(w + u * D, u - 8, D);
  memset(in, -127, D);    /* zero point -128: x + 128 = 1 */
  memset(in_neg, 126, D); /* zero point 127: x - 127 = -1 */
  memset(in_zp5, 6, D);   /* zero point 5: x - 5 = 1 */
  for (int c = 0; c < fc_ncfg; c++)
    for (int align = 0; align < 64; align += 8) {
      ap_status s;
      int8_t *a =
          run_fc(in, 1, D, w, U, bias, align, 1.0f, -128, 1.0f, 256.0f, 0, &fc_cfgs[c].x, &s);
      int8_t *b =
          run_fc(in_neg, 1, D, w, U, bias, align, 1.0f, 127, 1.0f, 256.0f, 0, &fc_cfgs[c].x, &s);
      int8_t *e =
          run_fc(in_zp5, 1, D, w, U, bias, align, 1.0f, 5, 1.0f, 256.0f, 0, &fc_cfgs[c].x, &s);
      CHECK_MSG(a && b && e, "%s: hand-worked FC failed", fc_cfgs[c].name);
      for (int u = 0; a && b && e && u < U; u++) {
        CHECK_MSG(a[u] == want[u] && e[u] == want[u] && b[u] == -want[u],
                  "%s, %d threads, weights at +%d: unit %d gives %d, %d, %d (want %d, %d, %d)",
                  fc_cfgs[c].name, fc_cfgs[c].x.threads, align, u, a[u], e[u], b[u], want[u],
                  want[u], -want[u]);
      }
      free(a), free(b), free(e);
    }
}

/* Depth 3, (x + in_off) = 1, rows of -2..2 (sums -6, -3, 0, 3, 6), no bias: multiplier 0.5
 * (2^30, shift 0: the rounding shift is 0) gives floor((sum + 1) / 2), multiplier 2 (2^30,
 * shift 2: a left shift) twice the sum. */
static void hand_worked_shifts(void) {
  static const int8_t w[15] = {-2, -2, -2, -1, -1, -1, 0, 0, 0, 1, 1, 1, 2, 2, 2};
  static const int8_t in[3] = {-127, -127, -127};
  static const int8_t half[5] = {-3, -1, 0, 2, 3}, twice[5] = {-12, -6, 0, 6, 12};
  static const int32_t bias[5] = {0};
  for (int c = 0; c < fc_ncfg; c++) {
    ap_status s;
    int8_t *a = run_fc(in, 1, 3, w, 5, bias, 0, 1.0f, -128, 1.0f, 2.0f, 0, &fc_cfgs[c].x, &s);
    int8_t *b = run_fc(in, 1, 3, w, 5, bias, 0, 1.0f, -128, 1.0f, 0.5f, 0, &fc_cfgs[c].x, &s);
    CHECK_MSG(a && b, "%s: hand-worked FC failed", fc_cfgs[c].name);
    for (int u = 0; a && b && u < 5; u++)
      CHECK_MSG(a[u] == half[u] && b[u] == twice[u], "%s: unit %d gives %d, %d (want %d, %d)",
                fc_cfgs[c].name, u, a[u], b[u], half[u], twice[u]);
    free(a), free(b);
  }
}

/* Random values; every configuration equals the reference byte for byte. */
static void fc_case(int batches, int depth, int units, int align, int in_zp, bool per_channel,
                    int filter_zp, float out_scale) {
  size_t nin = (size_t)batches * depth, nw = (size_t)units * depth;
  int8_t *in = malloc(nin), *w = malloc(nw);
  int32_t *bias = malloc((size_t)units * 4);
  float *scales = malloc((size_t)units * sizeof *scales);
  for (size_t i = 0; i < nin; i++)
    in[i] = (int8_t)rnd(-128, 127);
  for (size_t i = 0; i < nw; i++)
    w[i] = (int8_t)rnd(-128, 127);
  for (int i = 0; i < units; i++) {
    bias[i] = rnd(-40000, 40000);
    scales[i] = 0.001f + 0.02f * (float)rnd(0, 1000) / 1000.0f;
  }
  int8_t *wbuf = aligned_alloc(64, (nw + 127) / 64 * 64 + 64);
  memcpy(wbuf + align, w, nw);
  ap_ktensor ti = ktq(AP_INT8, in, 2, batches, depth, 0, 0, 0.03f, in_zp);
  ap_ktensor tw = ktq(AP_INT8, wbuf + align, 2, units, depth, 0, 0, scales[0], filter_zp);
  if (per_channel) {
    tw.channel_scales = scales;
    tw.n_channels = units;
  }
  ap_ktensor tb = kt(AP_INT32, bias, 1, units, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, NULL, out_scale, rnd(-20, 20));
  const ap_ktensor *ins[3] = {&ti, &tw, &tb};
  ap_kop_options o = {0};
  o.fc.activation = rnd(0, 1) ? AP_KACT_RELU : AP_KACT_NONE;
  char what[160];
  snprintf(what, sizeof what,
           "FC %d x %d -> %d, weights at +%d, input zp %d%s, filter zp %d, output scale %g",
           batches, depth, units, align, in_zp, per_channel ? ", per channel" : "", filter_zp,
           (double)out_scale);
  fc_compare(what, B_FC, &o, ins, 3, &to);
  free(in), free(w), free(wbuf), free(bias), free(scales);
}

int main(void) {
  fc_setup();
  hand_worked();
  hand_worked_shifts();
  static const int depths[] = {1, 3, 4, 8, 16, 31, 32, 33, 48, 63, 64, 96, 100, 128, 160, 640};
  static const int units[] = {1, 7, 8, 9, 15, 16, 17, 33, 130};
  static const int zps[] = {-128, 127, 0, -89, 42};
  for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++)
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
      int align = rnd(0, 63), zp = zps[(d + u) % 5];
      fc_case(1, depths[d], units[u], align, zp, (d + u) % 3 == 0, 0, 0.5f);
    }
  /* Every offset from the boundary, with a depth whose rows share it and one whose rows do not. */
  for (int align = 0; align < 64; align++) {
    fc_case(1, 96, 20, align, zps[align % 5], false, 0, 0.5f);
    fc_case(2, 40, 18, align, zps[align % 5], align % 2 == 0, 0, 0.5f);
  }
  /* Batches, a filter zero point, a multiplier above 1 (output scale below input x filter),
   * and a tiny one. */
  fc_case(3, 128, 24, 16, -128, false, 0, 0.5f);
  fc_case(2, 64, 17, 5, 3, false, 7, 0.5f);
  fc_case(1, 32, 16, 0, -128, false, 0, 1e-6f);
  fc_case(1, 200, 31, 48, 127, true, 0, 1e-6f);
  fc_case(1, 640, 40, 16, -89, false, 0, 1e4f);
  /* Depths past the AVX2 kernel's row of x widened on the stack (2048), one off 16. */
  fc_case(2, 2064, 24, 3, 42, true, 0, 0.5f);
  fc_case(1, 2100, 17, 9, -128, false, 3, 0.5f);
  /* Output scales from a multiplier far above 1 to far below, through [0.5, 1) (shift 0). */
  static const float out_scales[] = {1e-8f, 1e-6f, 1e-5f, 1e-4f, 3e-4f, 4e-4f,  5e-4f,
                                     7e-4f, 1e-3f, 0.01f, 0.2f,  3.0f,  100.0f, 1e5f};
  for (size_t i = 0; i < sizeof out_scales / sizeof out_scales[0]; i++) {
    fc_case(1, 128, 40, 32, -128, false, 0, out_scales[i]);
    fc_case(1, 77, 19, 3, zps[i % 5], i % 2 == 1, 0, out_scales[i]);
    /* depths of a fraction of a vector, rows packed whole into one */
    for (int d = 4; d <= 16; d *= 2)
      fc_case(1, d, 37, (int)i, zps[(i + (size_t)d) % 5], false, 0, out_scales[i]);
  }
  fc_teardown();
  return ap_test_done();
}
