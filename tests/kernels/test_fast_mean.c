/* MEAN's fast path (int8, uint8, int16 over consecutive axes, blocks of 64 kept positions over
 * the threads) against the reference at every SIMD level with 1-3 threads: a classifier head
 * (7x7x1280 over H and W), kept sizes off the 64 block, one reduced axis, the innermost axes
 * (inner 1), the outermost (outer 1), negative axes, axes the fast path leaves to the reference
 * (not consecutive), keep_dims both ways, extreme inputs that clamp, equal and different
 * quantization on both sides; plus a hand-worked mean with its rounding. */
#include "fastcmp.h"

enum { B_MEAN = 40 };

static uint64_t rng = 11;
static int32_t rnd(int32_t lo, int32_t hi) {
  return lo + (int32_t)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

static void mean_case(int type, int rank, const int32_t *dims, int n_axes, const int32_t *axes,
                      bool keep, bool extreme, bool same_q) {
  size_t n = 1, es = ap_ktype_size(type);
  for (int i = 0; i < rank; i++)
    n *= (size_t)dims[i];
  uint8_t *in = malloc(n * es + 1);
  int32_t lo = type == AP_INT16 ? -32768 : type == AP_INT8 ? -128 : 0;
  int32_t hi = type == AP_INT16 ? 32767 : type == AP_INT8 ? 127 : 255;
  for (size_t i = 0; i < n; i++) {
    int32_t v = extreme ? (rnd(0, 3) ? hi : lo) : rnd(lo, hi);
    if (type == AP_INT16)
      ((int16_t *)in)[i] = (int16_t)v;
    else
      in[i] = (uint8_t)v;
  }
  ap_ktensor ti = ap_ktensor_make(type, in, rank, dims);
  ti.scale = 0.05f;
  ti.zero_point = type == AP_INT16 ? 0 : type == AP_INT8 ? rnd(-20, 20) : rnd(100, 150);
  int32_t av[AP_KMAXDIMS];
  memcpy(av, axes, (size_t)n_axes * sizeof *av);
  int32_t an = n_axes;
  ap_ktensor ta = ap_ktensor_make(AP_INT32, av, 1, &an);
  int32_t ozp = type == AP_INT16 ? 0 : type == AP_INT8 ? rnd(-20, 20) : rnd(100, 150);
  ap_ktensor to = kout(type, NULL, same_q ? ti.scale : 0.031f, same_q ? ti.zero_point : ozp);
  const ap_ktensor *ins[2] = {&ti, &ta};
  ap_kop_options o = {0};
  o.keep_dims = keep;
  char what[200];
  int at = snprintf(what, sizeof what, "MEAN %s [", ap_ktype_name(type));
  for (int i = 0; i < rank && at < 150; i++)
    at += snprintf(what + at, sizeof what - (size_t)at, "%s%d", i ? "," : "", dims[i]);
  at += snprintf(what + at, sizeof what - (size_t)at, "] axes");
  for (int i = 0; i < n_axes && at < 180; i++)
    at += snprintf(what + at, sizeof what - (size_t)at, " %d", axes[i]);
  snprintf(what + at, sizeof what - (size_t)at, "%s%s%s", keep ? ", keep" : "",
           extreme ? ", extremes" : "", same_q ? ", same quantization" : "");
  fc_compare(what, B_MEAN, &o, ins, 2, &to);
  free(in);
}

/* int8 [1][2][2][1] of 1, 2, 2, 2 over H and W, scale 1 and zero point 0 on both sides: 7/4 =
 * 1.75 -> 2; of -1, -2, -2, -2: -2; of 1, 1, 0, 0 (0.5, a tie): 1. */
static void hand_worked(void) {
  int8_t in[3][4] = {{1, 2, 2, 2}, {-1, -2, -2, -2}, {1, 1, 0, 0}};
  int8_t want[3] = {2, -2, 1};
  for (int k = 0; k < 3; k++) {
    int32_t dims[4] = {1, 2, 2, 1}, axes[2] = {1, 2}, an = 2;
    ap_ktensor ti = ap_ktensor_make(AP_INT8, in[k], 4, dims);
    ti.scale = 1.0f;
    ap_ktensor ta = ap_ktensor_make(AP_INT32, axes, 1, &an);
    ap_ktensor to = kout(AP_INT8, NULL, 1.0f, 0);
    const ap_ktensor *ins[2] = {&ti, &ta};
    ap_kop_options o = {0};
    o.keep_dims = true;
    for (int i = 0; i < fc_ncfg; i++) {
      size_t nb, sc;
      ap_status s;
      uint8_t *got = fc_run(B_MEAN, &o, ins, 2, &to, &fc_cfgs[i].x, &nb, &sc, &s);
      CHECK_MSG(got && s == AP_OK && nb == 1 && (int8_t)got[0] == want[k],
                "hand-worked mean %d: %s with %d threads gave %d, want %d", k, fc_cfgs[i].name,
                fc_cfgs[i].x.threads, got ? (int8_t)got[0] : 0, want[k]);
      free(got);
    }
  }
}

int main(void) {
  fc_setup();
  hand_worked();
  static const int types[] = {AP_INT8, AP_UINT8, AP_INT16};
  struct {
    int rank;
    int32_t dims[4];
    int n_axes;
    int32_t axes[4];
  } cases[] = {
      {4, {1, 7, 7, 1280}, 2, {1, 2}}, {4, {2, 5, 3, 70}, 2, {1, 2}}, {4, {2, 5, 3, 64}, 2, {1, 2}},
      {4, {1, 9, 4, 129}, 1, {1}},     {4, {2, 3, 4, 5}, 2, {2, 3}},  {3, {6, 4, 100}, 1, {0}},
      {4, {2, 3, 4, 70}, 2, {-3, -2}}, {4, {2, 3, 4, 5}, 2, {1, 3}},  {2, {3, 200}, 2, {0, 1}},
      {4, {3, 1, 1, 65}, 2, {1, 2}},
  };
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
      for (int v = 0; v < 4; v++)
        mean_case(types[t], cases[k].rank, cases[k].dims, cases[k].n_axes, cases[k].axes, v & 1,
                  v == 2, v == 3);
  fc_teardown();
  return ap_test_done();
}
