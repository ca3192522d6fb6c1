/* Issue 29's first rule, timed so that a shared machine's drift cancels: per model, the default
 * kernel choice (auto: the fastest estimated plan within 1.02 x the reference kernels' total)
 * against the fastest plan (--kernels fast), both planned in place with builtin ops prepared
 * once, one thread, at the level AP_SIMD sets. The two interpreters live side by side and
 * invoke in alternation (fast then auto, auto then fast, ...), each pair's ratio taken at
 * once: a slow spell of the machine slows both halves of a pair, where rounds seconds apart
 * (bench/kernel_default.sh's first version) saw ratios of 1.3-1.9 between identical plans. The
 * verdict is the median of the pairs' ratios. Where auto chose the fast kernel on every op
 * and planned the same total, the two run the same code: the row says "same plan".
 *
 *   bench_kernel_default [--ms N] MODEL...   (names in ../shared/models, without .tflite)
 *
 * Prints one line per model:
 *   MODEL ref_total fast_total fast_us auto_total auto_us ratio same|differ pairs
 * (times: each side's median invoke in microseconds; ratio: the median of auto / fast over the
 * pairs), or "MODEL refused" when the runtime does not run it. Outputs of the two must be
 * byte-equal (the choice never changes results): a model where they differ is reported and
 * fails the run. */
#include "bench_run.h"

#include <stdlib.h>

static uint64_t total_of(const ap_interpreter *it) {
  ap_memory_usage mu;
  return ap_interpreter_memory(it, &mu) == AP_OK ? mu.total : 0;
}

/* Whether every op of every subgraph got the same kernel in both. */
static bool same_kernels(const ap_model *m, const ap_interpreter *a, const ap_interpreter *b) {
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t k = 0; k < ap_model_op_count(m, sg); k++) {
      const char *x = ap_interpreter_op_kernel(a, sg, k), *y = ap_interpreter_op_kernel(b, sg, k);
      if (!x || !y || strcmp(x, y) != 0) return false;
    }
  return true;
}

static double timed(ap_interpreter *it, bool *ok) {
  double t0 = bench_now_us();
  *ok = *ok && ap_interpreter_invoke(it) == AP_OK;
  return bench_now_us() - t0;
}

/* 0 ran (rules not judged here), 1 outputs differ or an invoke failed, 2 refused. */
static int one(const char *name, double ms) {
  ap_model *m = rt_load(name);
  ap_interpreter *ref = m ? bench_prepared(m, name, AP_KERNELS_REFERENCE, 1, true) : NULL;
  ap_interpreter *fast = ref ? bench_prepared(m, name, AP_KERNELS_FAST, 1, true) : NULL;
  ap_interpreter *dflt = fast ? bench_prepared(m, name, AP_KERNELS_AUTO, 1, true) : NULL;
  int rc = 0;
  if (!dflt) {
    printf("%s refused\n", name);
    rc = 2;
    goto out;
  }
  bool ok = ap_interpreter_invoke(fast) == AP_OK && ap_interpreter_invoke(dflt) == AP_OK;
  if (!ok || !bench_same_outputs(fast, dflt)) {
    printf("%s FAILED: %s\n", name,
           ok ? "the default's outputs differ from the fastest plan's" : "an invoke failed");
    rc = 1;
    goto out;
  }
  /* Pairs: as many as fit in `ms` by a first pair's time, at least 21, at most 20001. */
  double first = timed(fast, &ok) + timed(dflt, &ok);
  size_t n = first > 0 ? (size_t)(ms * 1000.0 / first) : 20001;
  n = n < 21 ? 21 : n > 20001 ? 20001 : n;
  double *tf = malloc(3 * n * sizeof *tf), *ta = tf ? tf + n : NULL, *r = tf ? tf + 2 * n : NULL;
  if (!tf) {
    printf("%s FAILED: out of memory\n", name);
    rc = 1;
    goto out;
  }
  for (size_t i = 0; ok && i < n; i++) {
    if (i % 2) {
      ta[i] = timed(dflt, &ok);
      tf[i] = timed(fast, &ok);
    } else {
      tf[i] = timed(fast, &ok);
      ta[i] = timed(dflt, &ok);
    }
    r[i] = ta[i] / (tf[i] > 0.001 ? tf[i] : 0.001);
  }
  if (ok) {
    double ratio = bench_median(r, n);
    printf("%s %llu %llu %.2f %llu %.2f %.3f %s %zu\n", name, (unsigned long long)total_of(ref),
           (unsigned long long)total_of(fast), bench_median(tf, n),
           (unsigned long long)total_of(dflt), bench_median(ta, n), ratio,
           same_kernels(m, fast, dflt) && total_of(fast) == total_of(dflt) ? "same" : "differ", n);
  } else {
    printf("%s FAILED: an invoke failed\n", name);
    rc = 1;
  }
  free(tf);
out:
  ap_interpreter_destroy(dflt);
  ap_interpreter_destroy(fast);
  ap_interpreter_destroy(ref);
  ap_model_destroy(m);
  return rc;
}

int main(int argc, char **argv) {
  ap_test_require_shared();
  double ms = 2000;
  int bad = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--ms") == 0 && i + 1 < argc) {
      ms = atof(argv[++i]);
      if (!(ms > 0)) ms = 2000;
    } else {
      bad |= one(argv[i], ms) == 1;
    }
    fflush(stdout);
  }
  return bad;
}
