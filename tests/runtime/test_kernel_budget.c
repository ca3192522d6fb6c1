/* Kernel choice within a byte budget (options.budget, AP_KERNELS_AUTO), on three models at
 * every SIMD level this CPU has and 1, 2 and 3 threads (those the oracle tests run): budgets
 * at the reference kernels' total, between it and the fast kernels', at the fast total and
 * above give totals within the budget, estimated times that never grow with the budget, and
 * outputs byte-equal to the reference kernels' (the oracle's inputs). The default (budget 0)
 * stays within 1.02 x the reference total; a budget below the smallest plan fails, saying by
 * how much. Then dense sweeps of in-place budgets (dp_net_float, mlperf_ic_resnet_int8): no
 * larger budget gives a slower estimate. */
#include "port/port.h"
#include "rt_test.h"

#include <stdlib.h>
#include <string.h>

typedef struct run {
  uint64_t total, est;
  uint8_t out[4096];
  size_t out_bytes;
} run;

static ap_status measure(ap_model *m, const char *name, int kernels, int threads, uint64_t budget,
                         run *r, char *err, size_t err_size) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.kernels = kernels;
  o.threads = threads;
  o.budget = budget;
  ap_interpreter *it = NULL;
  ap_memory_usage mu;
  memset(r, 0, sizeof *r);
  ap_status s = ap_interpreter_create(m, &o, &it);
  if (s == AP_OK) s = ap_interpreter_allocate(it);
  if (s == AP_OK) s = ap_interpreter_memory(it, &mu);
  ap_tensor t;
  if (s == AP_OK && !rt_feed_oracle(it, name, 1)) s = AP_ERR_IO;
  if (s == AP_OK) s = ap_interpreter_invoke(it);
  if (s == AP_OK) s = ap_interpreter_output(it, 0, &t);
  if (s == AP_OK && t.bytes > sizeof r->out) s = AP_ERR_RANGE;
  if (s == AP_OK) {
    memcpy(r->out, t.data, t.bytes);
    r->out_bytes = t.bytes;
    r->total = mu.total;
    r->est = ap_interpreter_estimate_ns(it);
  }
  if (err) snprintf(err, err_size, "%s", ap_interpreter_error(it));
  ap_interpreter_destroy(it);
  return s;
}

static void same_output(const char *what, const run *ref, const run *x) {
  CHECK_MSG(x->out_bytes == ref->out_bytes && memcmp(x->out, ref->out, ref->out_bytes) == 0,
            "%s: output differs from the reference kernels'", what);
}

static void budgets(const char *name, const char *level, int threads) {
  ap_model *m = rt_load(name);
  CHECK(m != NULL);
  if (!m) return;
  run ref, fast, r;
  char what[160], err[256];
  CHECK(measure(m, name, AP_KERNELS_REFERENCE, threads, 0, &ref, NULL, 0) == AP_OK);
  CHECK(measure(m, name, AP_KERNELS_FAST, threads, 0, &fast, NULL, 0) == AP_OK);
  same_output(name, &ref, &fast);
  /* The default: within 1.02 x the reference total. */
  snprintf(what, sizeof what, "%s %s %d threads default", name, level, threads);
  CHECK_MSG(measure(m, name, AP_KERNELS_AUTO, threads, 0, &r, NULL, 0) == AP_OK, "%s", what);
  CHECK_MSG(r.total <= ref.total + ref.total / 50, "%s: total %llu, reference %llu", what,
            (unsigned long long)r.total, (unsigned long long)ref.total);
  same_output(what, &ref, &r);
  uint64_t lo = ref.total, hi = fast.total > ref.total ? fast.total : ref.total;
  uint64_t b[] = {lo, lo + (hi - lo) / 4, lo + (hi - lo) / 2, hi, hi + hi / 2};
  uint64_t last_est = UINT64_MAX;
  for (size_t i = 0; i < sizeof b / sizeof *b; i++) {
    snprintf(what, sizeof what, "%s %s %d threads budget %llu", name, level, threads,
             (unsigned long long)b[i]);
    CHECK_MSG(measure(m, name, AP_KERNELS_AUTO, threads, b[i], &r, NULL, 0) == AP_OK, "%s", what);
    CHECK_MSG(r.total <= b[i], "%s: total %llu", what, (unsigned long long)r.total);
    CHECK_MSG(r.est <= last_est, "%s: estimate %llu ns, %llu at a smaller budget", what,
              (unsigned long long)r.est, (unsigned long long)last_est);
    last_est = r.est;
    same_output(what, &ref, &r);
  }
  /* With room for all of it, the fast kernels' plan (and its estimate). */
  run all;
  CHECK(measure(m, name, AP_KERNELS_AUTO, threads, hi + hi / 2, &all, NULL, 0) == AP_OK);
  CHECK_MSG(all.total == fast.total, "%s %s: budget above fast: total %llu, fast %llu", name, level,
            (unsigned long long)all.total, (unsigned long long)fast.total);
  /* Too small for any plan: a message with the numbers. */
  CHECK(measure(m, name, AP_KERNELS_AUTO, threads, 1000, &r, err, sizeof err) ==
        AP_ERR_ARENA_TOO_SMALL);
  CHECK_CONTAINS(err, "budget 1,000 B: the smallest plan");
  CHECK_CONTAINS(err, " B over");
  ap_model_destroy(m);
}

/* Estimates never grow with the budget on a dense sweep from the reference total to the fast
 * one, in-place plans (where dp_net_float's greedy once gave 7.32 ms estimated at 340,716 B
 * and 7.13 ms at 337,056 B), every total within its budget. */
static void sweep(const char *name, int steps) {
  ap_model *m = rt_load(name);
  CHECK(m != NULL);
  if (!m) return;
  uint64_t total[2] = {0, 0}, est, last = UINT64_MAX;
  int kinds[2] = {AP_KERNELS_REFERENCE, AP_KERNELS_FAST};
  for (int k = 0; k < 2; k++) {
    ap_interpreter_options o = ap_interpreter_defaults();
    o.kernels = kinds[k];
    o.inplace = true;
    ap_interpreter *it = NULL;
    ap_memory_usage mu;
    CHECK(ap_interpreter_create(m, &o, &it) == AP_OK && ap_interpreter_allocate(it) == AP_OK &&
          ap_interpreter_memory(it, &mu) == AP_OK);
    total[k] = mu.total;
    ap_interpreter_destroy(it);
  }
  for (int i = 0; i <= steps; i++) {
    uint64_t b = total[0] + (total[1] - total[0]) * (uint64_t)i / (uint64_t)steps;
    ap_interpreter_options o = ap_interpreter_defaults();
    o.budget = b;
    o.inplace = true;
    ap_interpreter *it = NULL;
    ap_memory_usage mu;
    bool ok = ap_interpreter_create(m, &o, &it) == AP_OK && ap_interpreter_allocate(it) == AP_OK &&
              ap_interpreter_memory(it, &mu) == AP_OK;
    CHECK_MSG(ok, "%s: budget %llu: %s", name, (unsigned long long)b, ap_interpreter_error(it));
    if (ok) {
      est = ap_interpreter_estimate_ns(it);
      CHECK_MSG(mu.total <= b, "%s: budget %llu: total %llu", name, (unsigned long long)b,
                (unsigned long long)mu.total);
      CHECK_MSG(est <= last, "%s: budget %llu: estimate %llu ns, %llu at a smaller budget", name,
                (unsigned long long)b, (unsigned long long)est, (unsigned long long)last);
      last = est;
    }
    ap_interpreter_destroy(it);
  }
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  static const char *const models[] = {"mlperf_ic_resnet_int8", "mlperf_vww_int8",
                                       "mlperf_kws_dscnn_int8"};
  static const char *const levels[] = {"generic", "sse41", "avx2", "avx512"};
#if defined(__x86_64__) || defined(_M_X64)
  size_t nlevels = 4;
#else
  size_t nlevels = 1;
#endif
  for (size_t l = 0; l < nlevels; l++) {
    setenv("AP_SIMD", levels[l], 1); /* capped to what the CPU has */
    for (size_t i = 0; i < sizeof models / sizeof *models; i++)
      for (int threads = 1; threads <= 3; threads++)
        budgets(models[i], levels[l], threads);
  }
  setenv("AP_SIMD", "avx2", 1);
  sweep("dp_net_float", 16);
  sweep("mlperf_ic_resnet_int8", 24);
  unsetenv("AP_SIMD");
  /* Unknown kernels are refused with a message. */
  ap_model *m = rt_load("mlperf_ic_resnet_int8");
  ap_interpreter_options o = ap_interpreter_defaults();
  o.kernels = 4;
  ap_interpreter *it = NULL;
  CHECK(m && ap_interpreter_create(m, &o, &it) != AP_OK);
  CHECK_CONTAINS(ap_interpreter_error(it), "AP_KERNELS_AUTO");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  return ap_test_done();
}
