/* SOFTMAX's table of exponentials (kernels/fast/softmax_fast.c) against the reference kernel
 * (ap_softmax_eval) byte for byte: uint8 -> uint8, int8 -> int8 and int8 -> int16; one row of
 * 1001 (mobilenet's) and several rows; rows spanning few values; ties at the maximum, every value
 * equal (and every value the type's lowest), only the two extremes (a difference of -255), input
 * scales for which diff_min skips most differences and for which it skips none, betas below and
 * above 1, rows of one value. Too few values, no fast kernels, AP_KERNELS_SMALL's bound and hostile
 * arguments are refused. */
#include "kernels/fast/conv_win.h"
#include "kernels/kops_stream7.h"
#include "ktest.h"

#include <string.h>

static uint64_t rng = 77;
static int32_t rnd(int32_t lo, int32_t hi) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (int32_t)((rng >> 33) % (uint64_t)(hi - lo + 1));
}

/* FILL_NARROW: rows spanning 21 values, each row 5 above the one before (a row's outputs from
 * a table of its 21 differences, the exponentials' table as wide as the widest row's). */
enum { FILL_RANDOM, FILL_EQUAL, FILL_EXTREMES, FILL_TIES, FILL_LOWEST, FILL_NARROW };

#if AP_FAST_DIRECT
static const ap_kexec exec = {.level = &ap_fast_generic, .threads = 1};
/* exec, then 2 and 3 threads splitting any table (parallel_min 1), and 2 threads under one
 * workspace (the table is the same scratch for any count: ap_fast_shared) */
static ap_kexec execs[4];
static int nexec;

static void one(int it, int ot, int32_t rows, int32_t depth, float scale, float beta, int fill) {
  size_t n = (size_t)rows * (size_t)depth, es = ap_ktype_size(ot);
  uint8_t *x = malloc(n), *want = calloc(n, es), *got = calloc(n, es);
  int32_t lo = it == AP_INT8 ? -128 : 0, hi = it == AP_INT8 ? 127 : 255;
  for (size_t i = 0; i < n; i++) {
    int32_t v = fill == FILL_EQUAL      ? 17
                : fill == FILL_EXTREMES ? (rnd(0, 1) ? lo : hi)
                : fill == FILL_TIES     ? hi - rnd(0, 3) * 40
                : fill == FILL_LOWEST   ? lo
                : fill == FILL_NARROW   ? lo + 40 + (int32_t)(i / (size_t)depth) * 5 + rnd(0, 20)
                                        : rnd(lo, hi);
    x[i] = (uint8_t)v;
  }
  ap_ktensor in = ktq(it, x, 2, rows, depth, 0, 0, scale, it == AP_INT8 ? -3 : 120);
  ap_ktensor out = ot == AP_INT16  ? kout(ot, want, 1.0f / 65536, -32768)
                   : ot == AP_INT8 ? kout(ot, want, 1.0f / 256, -128)
                                   : kout(ot, want, 1.0f / 256, 0);
  ap_softmax_params p;
  CHECK_EQ(ap_softmax_prepare(beta, &in, &out, &p, NULL), AP_OK);
  CHECK_EQ(ap_softmax_eval(&p, &in, &out), AP_OK);
  size_t sb = 0;
  bool applies = ap_fast_softmax_scratch(&exec, &p, &in, &out, &sb);
  CHECK_MSG(applies == (n >= 128), "%zu values: applies %d", n, (int)applies);
  if (!applies) {
    free(x), free(want), free(got);
    return;
  }
  CHECK_EQ(sb, 1024);
  void *scratch = malloc(sb);
  memset(scratch, 0xa5, sb);
  ap_ktensor o2 = out;
  o2.data = got;
  ap_status s = AP_ERR_KERNEL;
  for (int e = 0; e < nexec; e++) {
    memset(got, 0x5a, n * es);
    memset(scratch, 0xa5, sb); /* no table left by the run before */
    s = AP_ERR_KERNEL;
    CHECK(ap_fast_softmax_eval(&execs[e], &p, &in, &o2, scratch, &s));
    CHECK_EQ(s, AP_OK);
    size_t first = n;
    for (size_t i = 0; i < n * es && first == n; i++)
      if (got[i] != want[i]) first = i / es;
    CHECK_MSG(first == n,
              "%s -> %s %dx%d scale %g beta %g fill %d, %d threads%s: value %zu differs",
              ap_ktype_name(it), ap_ktype_name(ot), rows, depth, (double)scale, (double)beta, fill,
              execs[e].threads, execs[e].one_workspace ? " (one workspace)" : "", first);
  }
  /* Hostile: no scratch, a shape other than prepared's. */
  CHECK(ap_fast_softmax_eval(&exec, &p, &in, &o2, NULL, &s));
  CHECK_EQ(s, AP_ERR_ARG);
  ap_ktensor bad = in;
  bad.dims[0] = rows + 1;
  CHECK(ap_fast_softmax_eval(&exec, &p, &bad, &o2, scratch, &s));
  CHECK_EQ(s, AP_ERR_ARG);
  free(x), free(want), free(got), free(scratch);
}

static void refusals(void) {
  uint8_t x[256] = {0}, y[256];
  ap_ktensor in = ktq(AP_UINT8, x, 2, 1, 256, 0, 0, 0.1f, 0),
             out = kout(AP_UINT8, y, 1.0f / 256, 0);
  ap_softmax_params p;
  CHECK_EQ(ap_softmax_prepare(1.0f, &in, &out, &p, NULL), AP_OK);
  size_t sb;
  CHECK(ap_fast_softmax_scratch(&exec, &p, &in, &out, &sb));
  CHECK(!ap_fast_softmax_scratch(NULL, &p, &in, &out, &sb)); /* reference kernels */
  ap_kexec small = exec;
  small.small_extra = 512; /* AP_KERNELS_SMALL: more scratch than it allows */
  CHECK(!ap_fast_softmax_scratch(&small, &p, &in, &out, &sb));
  small.small_extra = 4096;
  CHECK(ap_fast_softmax_scratch(&small, &p, &in, &out, &sb));
  CHECK(!ap_fast_softmax_scratch(&exec, NULL, &in, &out, &sb));
  ap_status s;
  CHECK(!ap_fast_softmax_eval(&exec, &p, NULL, &out, x, &s));
  float f[256];
  ap_ktensor fin = kt(AP_FLOAT32, f, 2, 1, 256, 0, 0), fout = kout(AP_FLOAT32, f, 0, 0);
  CHECK(!ap_fast_softmax_scratch(&exec, &p, &fin, &fout, &sb));
}
#endif

int main(void) {
#if AP_FAST_DIRECT
  ap_port_workers *w2 = NULL, *w3 = NULL;
  CHECK(ap_port_workers_create(NULL, 2, &w2, NULL) == AP_OK);
  CHECK(ap_port_workers_create(NULL, 3, &w3, NULL) == AP_OK);
  execs[nexec++] = exec;
  execs[nexec++] = (ap_kexec){.level = exec.level, .workers = w2, .threads = 2, .parallel_min = 1};
  execs[nexec++] = (ap_kexec){.level = exec.level, .workers = w3, .threads = 3, .parallel_min = 1};
  execs[nexec++] = (ap_kexec){
      .level = exec.level, .workers = w2, .threads = 2, .parallel_min = 1, .one_workspace = true};
  static const float scales[] = {0.1f, 0.0039f, 1.5f, 16.0f};
  static const float betas[] = {1.0f, 0.5f, 2.0f};
  for (size_t s = 0; s < sizeof scales / sizeof *scales; s++)
    for (size_t b = 0; b < sizeof betas / sizeof *betas; b++)
      for (int fill = FILL_RANDOM; fill <= FILL_NARROW; fill++) {
        one(AP_UINT8, AP_UINT8, 1, 1001, scales[s], betas[b], fill);
        one(AP_INT8, AP_INT8, 4, 200, scales[s], betas[b], fill);
        one(AP_INT8, AP_INT16, 3, 100, scales[s], betas[b], fill);
      }
  one(AP_UINT8, AP_UINT8, 300, 1, 0.1f, 1.0f, FILL_RANDOM); /* rows of one value */
  one(AP_INT8, AP_INT8, 1, 127, 0.1f, 1.0f, FILL_RANDOM);   /* too few: the reference's */
  refusals();
  ap_port_workers_destroy(w2);
  ap_port_workers_destroy(w3);
#endif
  return ap_test_done();
}
