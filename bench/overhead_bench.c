/* Per-op overhead (issue 16): per model, the CPU time of one invoke with builtin ops prepared
 * at each invoke (options.prepare AP_PREPARE_EACH_INVOKE, the default) and prepared once in
 * allocate (AP_PREPARE_ONCE), for the reference and the fast kernels on one thread; the four
 * interpreters measured interleaved (each round times a batch of invokes of each, in rotating
 * order), the median over rounds of the batches' mean. Also what preparing once keeps
 * (persistent and tables bytes beyond the default's) and whether all four gave the same output
 * bytes. Prints Markdown.
 *
 *   bench_overhead_bench [ROUNDS [MODEL...]]   (default 21, the small issue-16 models) */
#include "runtime/rt_test.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static ap_interpreter *make(const ap_model *m, const char *name, int kernels, int prepare) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.kernels = kernels;
  o.prepare = prepare;
  o.max_loop_iterations = 1000000;
  ap_interpreter *it = NULL;
  if (ap_interpreter_create(m, &o, &it) != AP_OK || ap_interpreter_allocate(it) != AP_OK) {
    ap_interpreter_destroy(it);
    return NULL;
  }
  if (!rt_feed_oracle(it, name, 1)) {
    uint64_t st = 1;
    for (size_t k = 0; k < ap_interpreter_input_count(it); k++) {
      ap_tensor in;
      ap_interpreter_input(it, k, &in);
      for (size_t b = 0; b < in.bytes; b++)
        ((uint8_t *)in.data)[b] = (uint8_t)ap_test_rand(&st);
    }
  }
  return it;
}

static bool same_outputs(ap_interpreter *a, ap_interpreter *b) {
  for (size_t k = 0; k < ap_interpreter_output_count(a); k++) {
    ap_tensor x, y;
    if (ap_interpreter_output(a, k, &x) != AP_OK || ap_interpreter_output(b, k, &y) != AP_OK ||
        x.bytes != y.bytes || memcmp(x.data, y.data, x.bytes) != 0)
      return false;
  }
  return true;
}

int main(int argc, char **argv) {
  ap_test_require_shared();
  static const char *const defaults[] = {"hello_world_int8", "micro_speech_int8",
                                         "mlperf_ad_fc_int8", "mlperf_kws_dscnn_int8"};
  int rounds = argc > 1 ? atoi(argv[1]) : 21;
  if (rounds < 1 || rounds > 10000) rounds = 21;
  const char *const *models = argc > 2 ? (const char *const *)argv + 2 : defaults;
  size_t n = argc > 2 ? (size_t)argc - 2 : sizeof defaults / sizeof defaults[0];
  printf("| model | ops | reference us, each invoke | reference us, once | fast us, each invoke | "
         "fast us, once | fast once / each | CPU fast / reference, each | CPU fast / reference, "
         "once | kept bytes | same bytes |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
  double *t = malloc(4 * (size_t)rounds * sizeof *t);
  for (size_t i = 0; t && i < n; i++) {
    ap_model *m = rt_load(models[i]);
    ap_interpreter *it[4] = {NULL, NULL, NULL, NULL};
    for (int w = 0; m && w < 4; w++)
      it[w] = make(m, models[i], w < 2 ? AP_KERNELS_REFERENCE : AP_KERNELS_FAST,
                   w % 2 ? AP_PREPARE_ONCE : AP_PREPARE_EACH_INVOKE);
    if (!it[0] || !it[1] || !it[2] || !it[3]) {
      printf("| %s | cannot run |\n", models[i]);
    } else {
      for (int w = 0; w < 4; w++)
        ap_interpreter_invoke(it[w]);
      bool same =
          same_outputs(it[0], it[1]) && same_outputs(it[0], it[2]) && same_outputs(it[0], it[3]);
      /* A batch takes about 2 ms of the slowest interpreter. */
      double t0 = cpu_us();
      ap_interpreter_invoke(it[0]);
      double one = cpu_us() - t0;
      int batch = one > 2000 ? 1 : (int)(2000 / (one > 0.05 ? one : 0.05));
      for (int r = 0; r < rounds; r++)
        for (int j = 0; j < 4; j++) {
          int w = (r + j) % 4;
          double c0 = cpu_us();
          for (int b = 0; b < batch; b++)
            ap_interpreter_invoke(it[w]);
          t[w * rounds + r] = (cpu_us() - c0) / batch;
        }
      double med[4];
      for (int w = 0; w < 4; w++) {
        qsort(t + w * rounds, (size_t)rounds, sizeof *t, cmp_double);
        med[w] = t[w * rounds + rounds / 2];
      }
      ap_memory_usage each, once;
      ap_interpreter_memory(it[2], &each);
      ap_interpreter_memory(it[3], &once);
      printf("| %s | %zu | %.2f | %.2f | %.2f | %.2f | %.2fx | %.1fx | %.1fx | %llu | %s |\n",
             models[i], ap_model_op_count(m, 0), med[0], med[1], med[2], med[3], med[3] / med[2],
             med[0] / med[2], med[1] / med[3], (unsigned long long)(once.total - each.total),
             same ? "yes" : "NO");
    }
    for (int w = 0; w < 4; w++)
      ap_interpreter_destroy(it[w]);
    ap_model_destroy(m);
  }
  free(t);
  return 0;
}
