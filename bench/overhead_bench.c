/* Per-op overhead (issue 16): per model, the CPU time of one invoke with builtin ops prepared
 * at each invoke (options.prepare AP_PREPARE_EACH_INVOKE, the default) and prepared once in
 * allocate (AP_PREPARE_ONCE), for the reference and the fast kernels on one thread; the four
 * interpreters measured interleaved (each round times a batch of invokes of each, in rotating
 * order), the median over rounds of the batches' mean. Also what preparing once keeps
 * (persistent and tables bytes beyond the default's) and whether all four gave the same output
 * bytes. Prints Markdown.
 *
 *   bench_overhead_bench [ROUNDS [MODEL...]]   (default 21, the small issue-16 models) */
#include "bench_run.h"

#include <stdlib.h>

static ap_interpreter *make(const ap_model *m, const char *name, int kernels, int prepare) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.kernels = kernels;
  o.prepare = prepare;
  return bench_interpreter(m, name, o);
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
      bool same = bench_same_outputs(it[0], it[1]) && bench_same_outputs(it[0], it[2]) &&
                  bench_same_outputs(it[0], it[3]);
      /* A batch takes about 2 ms of the slowest interpreter. */
      double t0 = bench_cpu_us();
      ap_interpreter_invoke(it[0]);
      double one = bench_cpu_us() - t0;
      int batch = one > 2000 ? 1 : (int)(2000 / (one > 0.05 ? one : 0.05));
      for (int r = 0; r < rounds; r++)
        for (int j = 0; j < 4; j++) {
          int w = (r + j) % 4;
          double c0 = bench_cpu_us();
          for (int b = 0; b < batch; b++)
            ap_interpreter_invoke(it[w]);
          t[w * rounds + r] = (bench_cpu_us() - c0) / batch;
        }
      double med[4];
      for (int w = 0; w < 4; w++) {
        qsort(t + w * rounds, (size_t)rounds, sizeof *t, bench_cmp_double);
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
