/* The fast kernels against the reference ones: per model, median invoke of the reference
 * kernels, the fast kernels on 1 thread and on 2 threads, measured interleaved in one run (each
 * round invokes all three, in rotating order, so load on a shared machine hits them alike),
 * and the CPU time of the calling thread for the one-thread runs (what preemption on a loaded
 * machine does not inflate);
 * the speed-ups, the fast kernels' GMAC/s over CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED,
 * and whether all three gave the same output bytes. Prints Markdown.
 *
 * Each 2-thread invoke of that rotation starts after another interpreter's invoke, with its
 * workers asleep and its maps out of the cores' caches. The thread columns "back to back" time
 * the fast kernels as TFLite's benchmark_model does (a warm-up invoke, then invokes in a row):
 * blocks of BLOCK invokes of the 1- and the 2-thread interpreter, alternating, each block
 * after one untimed invoke, so drifting load hits both alike.
 *
 * Builtin ops are prepared once (options.prepare AP_PREPARE_ONCE), so invoke time is the
 * kernels'; AP_BENCH_PREPARE=each prepares them before every eval (the default's memory).
 *
 *   bench_kernels_bench [INVOKES [MODEL...]]   (default 30, the issue-16 models) */
#include "bench_run.h"

#include <stdlib.h>

static int64_t count(const ap_tensor_info *t) {
  int64_t n = 1;
  for (size_t i = 0; i < t->shape.n; i++)
    n *= t->shape.v[i];
  return n;
}

/* Multiply-adds of the convolutions and fully connected ops of subgraph 0. */
static double macs(const ap_model *m) {
  double total = 0;
  for (size_t k = 0; k < ap_model_op_count(m, 0); k++) {
    ap_op_info op;
    ap_tensor_info f, o;
    if (ap_model_op(m, 0, k, &op) != AP_OK || op.inputs.n < 2 || op.outputs.n < 1 ||
        op.inputs.v[1] < 0 || ap_model_tensor(m, 0, (size_t)op.inputs.v[1], &f) != AP_OK ||
        ap_model_tensor(m, 0, (size_t)op.outputs.v[0], &o) != AP_OK)
      continue;
    if (op.builtin == 3 && f.shape.n == 4) /* CONV_2D */
      total += (double)count(&o) * f.shape.v[1] * f.shape.v[2] * f.shape.v[3];
    else if (op.builtin == 4 && f.shape.n == 4) /* DEPTHWISE_CONV_2D */
      total += (double)count(&o) * f.shape.v[1] * f.shape.v[2];
    else if (op.builtin == 9 && f.shape.n == 2) /* FULLY_CONNECTED */
      total += (double)count(&o) * f.shape.v[1];
  }
  return total;
}

static ap_interpreter *make(const ap_model *m, const char *name, int kernels, int threads) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.kernels = kernels;
  o.threads = threads;
  const char *prepare = getenv("AP_BENCH_PREPARE");
  o.prepare = prepare && strcmp(prepare, "each") == 0 ? AP_PREPARE_EACH_INVOKE : AP_PREPARE_ONCE;
  return bench_interpreter(m, name, o);
}

int main(int argc, char **argv) {
  ap_test_require_shared();
  static const char *const defaults[] = {"mlperf_vww_int8",         "mlperf_kws_dscnn_int8",
                                         "mlperf_ic_resnet_int8",   "mlperf_ad_fc_int8",
                                         "mobilenet_v2_torch_int8", "mlperf_ic_resnet_float",
                                         "person_detect_int8",      "mobilenet_v1_025_128_uint8"};
  int invokes = argc > 1 ? atoi(argv[1]) : 30;
  if (invokes < 1 || invokes > 100000) invokes = 30;
  const char *const *models = argc > 2 ? (const char *const *)argv + 2 : defaults;
  size_t n = argc > 2 ? (size_t)argc - 2 : sizeof defaults / sizeof defaults[0];
  printf("| model | MMAC | reference ms | fast ms | fast 2 threads ms | fast / reference | "
         "2 threads / 1 | fast ms, back to back | 2 threads ms, back to back | 2 threads / 1, "
         "back to back | reference CPU ms | fast CPU ms | CPU fast / reference | fast GMAC/s | "
         "level | same bytes |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
  enum { BLOCK = 5 };
  int blocks = invokes / BLOCK < 3 ? 3 : invokes / BLOCK;
  double *t = malloc(3 * (size_t)invokes * sizeof *t),
         *cpu = malloc(2 * (size_t)invokes * sizeof *cpu),
         *bb = malloc(2 * (size_t)blocks * BLOCK * sizeof *bb);
  for (size_t i = 0; t && cpu && bb && i < n; i++) {
    ap_model *m = rt_load(models[i]);
    ap_interpreter *it[3] = {NULL, NULL, NULL};
    if (m) {
      it[0] = make(m, models[i], AP_KERNELS_REFERENCE, 1);
      it[1] = make(m, models[i], AP_KERNELS_FAST, 1);
      it[2] = make(m, models[i], AP_KERNELS_FAST, 2);
    }
    if (!it[0] || !it[1] || !it[2]) {
      printf("| %s | cannot run |\n", models[i]);
    } else {
      /* The first invoke's outputs: later ones may read inputs whose bytes the plan reused
       * (the plans differ: the fast kernels' scratch is larger). */
      for (int w = 0; w < 3; w++)
        ap_interpreter_invoke(it[w]);
      bool same = bench_same_outputs(it[0], it[1]) && bench_same_outputs(it[0], it[2]);
      for (int r = 0; r < invokes; r++)
        for (int j = 0; j < 3; j++) {
          int w = (r + j) % 3;
          double t0 = bench_now_us(), c0 = bench_cpu_us();
          ap_interpreter_invoke(it[w]);
          t[w * invokes + r] = bench_now_us() - t0;
          if (w < 2) cpu[w * invokes + r] = bench_cpu_us() - c0;
        }
      double med[3], cmed[2];
      for (int w = 0; w < 2; w++) {
        qsort(cpu + w * invokes, (size_t)invokes, sizeof *cpu, bench_cmp_double);
        cmed[w] = cpu[w * invokes + invokes / 2];
      }
      for (int w = 0; w < 3; w++) {
        qsort(t + w * invokes, (size_t)invokes, sizeof *t, bench_cmp_double);
        med[w] = t[w * invokes + invokes / 2];
      }
      int nb = blocks * BLOCK;
      for (int r = 0; r < blocks; r++)
        for (int j = 0; j < 2; j++) {
          int w = (r + j) % 2;
          ap_interpreter_invoke(it[1 + w]); /* warm-up: workers awake, maps in cache */
          for (int k = 0; k < BLOCK; k++) {
            double t0 = bench_now_us();
            ap_interpreter_invoke(it[1 + w]);
            bb[w * nb + r * BLOCK + k] = bench_now_us() - t0;
          }
        }
      double bmed[2];
      for (int w = 0; w < 2; w++) {
        qsort(bb + w * nb, (size_t)nb, sizeof *bb, bench_cmp_double);
        bmed[w] = bb[w * nb + nb / 2];
      }
      double mmac = macs(m) / 1e6;
      printf(
          "| %s | %.1f | %.3f | %.3f | %.3f | %.1fx | %.2fx | %.3f | %.3f | %.2fx | %.3f | %.3f | "
          "%.1fx | %.1f | %s | %s |\n",
          models[i], mmac, med[0] / 1e3, med[1] / 1e3, med[2] / 1e3, med[0] / med[1],
          med[1] / med[2], bmed[0] / 1e3, bmed[1] / 1e3, bmed[0] / bmed[1], cmed[0] / 1e3,
          cmed[1] / 1e3, cmed[0] / cmed[1], mmac * 1e3 / med[1], ap_interpreter_kernels(it[1]),
          same ? "yes" : "NO");
    }
    for (int w = 0; w < 3; w++)
      ap_interpreter_destroy(it[w]);
    ap_model_destroy(m);
  }
  free(t);
  free(cpu);
  free(bb);
  return 0;
}
