/* TRANSPOSE's fast path (tiles over the threads) against the reference at every SIMD level with
 * 1-3 threads: ranks 1 to 6, every element size it takes (1, 2, 4, 8 bytes), dims of 1 that
 * the reduction drops, dims that stay adjacent and merge, tiles cut off at both ends (sizes
 * around the 64-element tile), negative perm entries, an empty tensor and one element, three
 * byte planes interleaved at every length's remainder; plus a hand-worked NCHW -> NHWC case. */
#include "fastcmp.h"

enum { B_TRANSPOSE = 39 };

static uint64_t rng = 7;
static int32_t rnd(int32_t lo, int32_t hi) {
  return lo + (int32_t)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

static void tr_case(int type, int rank, const int32_t *dims, const int32_t *perm) {
  size_t n = 1, es = ap_ktype_size(type);
  for (int i = 0; i < rank; i++)
    n *= (size_t)dims[i];
  uint8_t *in = malloc(n * es + 1);
  for (size_t i = 0; i < n * es; i++)
    in[i] = (uint8_t)rnd(0, 255);
  if (type == AP_FLOAT32) /* finite values: the harness compares floats bit for bit anyway */
    for (size_t i = 0; i < n; i++)
      ((float *)in)[i] = (float)rnd(-1000, 1000) / 7.0f;
  ap_ktensor ti = ap_ktensor_make(type, in, rank, dims);
  int32_t pv[AP_KMAXDIMS];
  memcpy(pv, perm, (size_t)rank * sizeof *pv);
  int32_t pn = rank;
  ap_ktensor tp = ap_ktensor_make(AP_INT32, pv, 1, &pn);
  ap_ktensor to = kout(type, NULL, 0, 0);
  const ap_ktensor *ins[2] = {&ti, &tp};
  ap_kop_options o = {0};
  char what[200];
  int at = snprintf(what, sizeof what, "TRANSPOSE %s [", ap_ktype_name(type));
  for (int i = 0; i < rank && at < 150; i++)
    at += snprintf(what + at, sizeof what - (size_t)at, "%s%d", i ? "," : "", dims[i]);
  at += snprintf(what + at, sizeof what - (size_t)at, "] perm");
  for (int i = 0; i < rank && at < 190; i++)
    at += snprintf(what + at, sizeof what - (size_t)at, " %d", perm[i]);
  fc_compare(what, B_TRANSPOSE, &o, ins, 2, &to);
  free(in);
}

/* [1][2][2][3] NCHW (channel c holds 10 * c + pixel) -> [1][2][3][2] NHWC by hand. */
static void hand_worked(void) {
  int8_t in[12] = {0, 1, 2, 3, 10, 11, 12, 13};
  int8_t want[12] = {0, 10, 1, 11, 2, 12, 3, 13};
  int32_t dims[4] = {1, 2, 2, 2}, perm[4] = {0, 2, 3, 1}, pn = 4;
  ap_ktensor ti = ap_ktensor_make(AP_INT8, in, 4, dims);
  ap_ktensor tp = ap_ktensor_make(AP_INT32, perm, 1, &pn);
  ap_ktensor to = kout(AP_INT8, NULL, 0, 0);
  const ap_ktensor *ins[2] = {&ti, &tp};
  ap_kop_options o = {0};
  for (int i = 0; i < fc_ncfg; i++) {
    size_t nb, sc;
    ap_status s;
    uint8_t *got = fc_run(B_TRANSPOSE, &o, ins, 2, &to, &fc_cfgs[i].x, &nb, &sc, &s);
    CHECK_MSG(got && s == AP_OK && nb == 8 && memcmp(got, want, 8) == 0,
              "hand-worked NCHW -> NHWC: %s with %d threads", fc_cfgs[i].name,
              fc_cfgs[i].x.threads);
    free(got);
  }
}

int main(void) {
  fc_setup();
  hand_worked();
  static const int types[] = {AP_INT8, AP_INT16, AP_FLOAT32, AP_INT64};
  struct {
    int rank;
    int32_t dims[6], perm[6];
  } cases[] = {
      {1, {37}, {0}},
      {2, {65, 3}, {1, 0}},
      {2, {3, 129}, {1, 0}},
      {2, {64, 64}, {1, 0}},
      {2, {130, 67}, {-1, 0}},
      {4, {1, 3, 31, 29}, {0, 2, 3, 1}},
      {4, {2, 5, 9, 70}, {0, 2, 3, 1}},
      {4, {2, 17, 19, 3}, {0, 3, 1, 2}},
      {4, {3, 4, 5, 6}, {3, 2, 1, 0}},
      {4, {3, 4, 5, 6}, {1, 0, 2, 3}}, /* the last dim stays: runs */
      {4, {1, 1, 1, 1}, {3, 2, 1, 0}}, /* one element */
      {3, {4, 0, 5}, {2, 0, 1}},       /* empty */
      {5, {2, 1, 3, 66, 4}, {3, 0, 4, 1, 2}},
      {6, {2, 3, 1, 4, 5, 2}, {5, 3, 0, 4, 1, 2}},
      {6, {2, 3, 2, 3, 2, 3}, {0, 1, 4, 5, 2, 3}},
      /* three planes interleaved (bytes: the level's planes3): 32 and 16 a step, then bytes;
       * runs of 2048 cut off, batches */
      {2, {3, 15}, {1, 0}},
      {2, {3, 48}, {1, 0}},
      {2, {3, 4145}, {1, 0}},
      {4, {2, 3, 71, 77}, {0, 2, 3, 1}},
  };
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
      tr_case(types[t], cases[k].rank, cases[k].dims, cases[k].perm);
  /* Random shapes and permutations. */
  for (int r = 0; r < 60; r++) {
    int rank = rnd(1, 6);
    int32_t dims[6], perm[6];
    for (int i = 0; i < rank; i++) {
      dims[i] = rnd(1, rank <= 3 ? 70 : 9);
      perm[i] = i;
    }
    for (int i = rank - 1; i > 0; i--) {
      int j = rnd(0, i);
      int32_t v = perm[i];
      perm[i] = perm[j];
      perm[j] = v;
    }
    tr_case(types[r % 4], rank, dims, perm);
  }
  fc_teardown();
  return ap_test_done();
}
