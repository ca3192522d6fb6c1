/* Issue 29's speed table, timed so that a shared machine's drift cancels: per model, three
 * interpreters side by side (the reference kernels, the default kernels on one thread and on
 * two; in place, builtin ops prepared once, the level AP_SIMD sets) and two comparisons, each
 * a run of block pairs in alternation:
 *   speed-up  one reference invoke beside a block of one-thread invokes; the pair's ratio is
 *             the reference invoke's time in the calling thread's CPU clock (preemption, which
 *             a 10 ms invoke meets far more often than a 200 us one on a loaded machine, does
 *             not count) over the block's median wall time (the median drops the block's first,
 *             cache-cold invoke and any preempted one, as the CPU clock cannot: its reading is
 *             also a microsecond's system call here, a tenth of a small model's invoke);
 *   2 / 1     a block of one-thread invokes beside a block of two-thread invokes (medians, wall
 *             time: only a machine with a core free for the second thread can show it; a
 *             block, not single invokes, so that the second thread's wake-up after the other
 *             interpreter's turn is paid once a block, as back-to-back invokes pay it once).
 * The order within a pair alternates; each figure is the median of its pairs' ratios, so a
 * slow spell of the machine slows both halves of a pair rather than one side's round.
 *
 *   bench_xnnpack_gap [--ms N] MODEL...   (names in ../shared/models, without .tflite)
 *
 * Prints one line per model: MODEL ref_cpu_us one_us two_us speedup two_over_one pairs_a
 * pairs_b (medians over all timed invokes, microseconds), or "MODEL refused". The three must
 * give byte-equal outputs; a model where they differ fails the run. */
#include "bench_run.h"

#include <stdlib.h>

#define BLOCK 9 /* invokes a block of the fast kernels */

/* The median of `k` invokes by `clock`; each invoke's time also appended to all[*na]. By the
 * thread's CPU clock (a system call to read), the block is timed whole and each invoke gets
 * the mean. */
static double block(ap_interpreter *it, int k, double (*clock)(void), double *all, size_t *na,
                    bool *ok) {
  double t[BLOCK];
  if (clock == bench_cpu_us) {
    double t0 = clock();
    for (int i = 0; i < k; i++)
      *ok = *ok && ap_interpreter_invoke(it) == AP_OK;
    double mean = (clock() - t0) / k;
    for (int i = 0; i < k; i++)
      all[(*na)++] = mean;
    return mean;
  }
  for (int i = 0; i < k; i++) {
    double t0 = clock();
    *ok = *ok && ap_interpreter_invoke(it) == AP_OK;
    t[i] = clock() - t0;
    all[(*na)++] = t[i];
  }
  return bench_median(t, (size_t)k);
}

/* Pairs of (a block of ka invokes of a, a block of kb of b) for about ms milliseconds (at least
 * 5 pairs, at most max): the median of a / b over the pairs; the invokes' times in ta, tb. */
static double pairs(ap_interpreter *a, int ka, double (*clock_a)(void), ap_interpreter *b, int kb,
                    double (*clock_b)(void), double ms, size_t max, double *ta, size_t *na,
                    double *tb, size_t *nb, size_t *count, bool *ok) {
  double *r = malloc(max * sizeof *r);
  if (!r) {
    *ok = false;
    return 0;
  }
  double t0 = bench_now_us();
  size_t n = 0;
  while (*ok && n < max && (n < 5 || bench_now_us() - t0 < ms * 1000.0)) {
    double x, y;
    if (n % 2) {
      y = block(b, kb, clock_b, tb, nb, ok);
      x = block(a, ka, clock_a, ta, na, ok);
    } else {
      x = block(a, ka, clock_a, ta, na, ok);
      y = block(b, kb, clock_b, tb, nb, ok);
    }
    r[n++] = x / (y > 0.001 ? y : 0.001);
  }
  double v = n ? bench_median(r, n) : 0;
  free(r);
  *count = n;
  return v;
}

/* 0 ran, 1 outputs differ or an invoke failed, 2 refused. */
static int one(const char *name, double ms) {
  ap_model *m = rt_load(name);
  ap_interpreter *ref = m ? bench_prepared(m, name, AP_KERNELS_REFERENCE, 1, true) : NULL;
  ap_interpreter *f1 = ref ? bench_prepared(m, name, AP_KERNELS_AUTO, 1, true) : NULL;
  ap_interpreter *f2 = f1 ? bench_prepared(m, name, AP_KERNELS_AUTO, 2, true) : NULL;
  int rc = 0;
  double *t = NULL;
  if (!f2) {
    printf("%s refused\n", name);
    rc = 2;
    goto out;
  }
  bool ok = ap_interpreter_invoke(ref) == AP_OK && ap_interpreter_invoke(f1) == AP_OK &&
            ap_interpreter_invoke(f2) == AP_OK;
  if (!ok || !bench_same_outputs(ref, f1) || !bench_same_outputs(ref, f2)) {
    printf("%s FAILED: %s\n", name,
           ok ? "the fast kernels' outputs differ from the reference's" : "an invoke failed");
    rc = 1;
    goto out;
  }
  const size_t max = 4001;
  t = malloc(max * (2 + 4 * BLOCK) * sizeof *t);
  if (!t) {
    printf("%s FAILED: out of memory\n", name);
    rc = 1;
    goto out;
  }
  double *tr = t, *t1 = tr + max, *t2 = t1 + max * 2 * BLOCK;
  size_t nr = 0, n1 = 0, n2 = 0, pa = 0, pb = 0;
  double speedup =
      pairs(ref, 1, bench_cpu_us, f1, BLOCK, bench_now_us, ms, max, tr, &nr, t1, &n1, &pa, &ok);
  double two =
      pairs(f1, BLOCK, bench_now_us, f2, BLOCK, bench_now_us, ms, max, t1, &n1, t2, &n2, &pb, &ok);
  if (ok)
    printf("%s %.2f %.2f %.2f %.2f %.3f %zu %zu\n", name, bench_median(tr, nr),
           bench_median(t1, n1), bench_median(t2, n2), speedup, two, pa, pb);
  else {
    printf("%s FAILED: an invoke failed\n", name);
    rc = 1;
  }
out:
  free(t);
  ap_interpreter_destroy(f2);
  ap_interpreter_destroy(f1);
  ap_interpreter_destroy(ref);
  ap_model_destroy(m);
  return rc;
}

int main(int argc, char **argv) {
  ap_test_require_shared();
  double ms = 3000;
  int bad = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc) {
      ms = atof(argv[++i]);
      if (!(ms > 0)) ms = 3000;
    } else {
      bad |= one(argv[i], ms) == 1;
    }
    fflush(stdout);
  }
  return bad;
}
