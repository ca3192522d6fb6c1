/* Invokes at a camera's rate: per model, the fast kernels on 1 and on 2 threads invoked every
 * GAP milliseconds (the thread sleeping in between, as a capture loop waits for its next frame),
 * in blocks of 10 invokes of one interpreter, the two alternating; median invoke of each. Between
 * invokes the workers of the 2-thread interpreter spin for a while, then sleep (port.h): how long
 * they spin decides whether the next invoke finds them awake. Prints Markdown.
 *
 *   bench_periodic_bench [INVOKES [GAP_MS [MODEL...]]]   (default 30, 20 ms, mobilenet_v2) */
#include "bench_run.h"

#include <stdlib.h>
#include <time.h>

static void pause_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

int main(int argc, char **argv) {
  static const char *const defaults[] = {"mobilenet_v2_torch_int8"};
  int invokes = argc > 1 ? atoi(argv[1]) : 30;
  int gap = argc > 2 ? atoi(argv[2]) : 20;
  if (invokes < 1 || invokes > 100000) invokes = 30;
  if (gap < 0 || gap > 10000) gap = 20;
  const char *const *models = argc > 3 ? (const char *const *)argv + 3 : defaults;
  size_t n = argc > 3 ? (size_t)argc - 3 : 1;
  printf("| model | gap ms | 1 thread ms | 2 threads ms | 2 threads / 1 |\n");
  printf("|---|---:|---:|---:|---:|\n");
  double *t = malloc(2 * (size_t)invokes * sizeof *t);
  for (size_t i = 0; t && i < n; i++) {
    ap_model *m = rt_load(models[i]);
    ap_interpreter *it[2] = {m ? bench_prepared(m, models[i], AP_KERNELS_FAST, 1, false) : NULL,
                             m ? bench_prepared(m, models[i], AP_KERNELS_FAST, 2, false) : NULL};
    if (!it[0] || !it[1]) {
      printf("| %s | cannot run |\n", models[i]);
    } else {
      /* Blocks of BLOCK invokes of one interpreter (a capture loop runs one), alternating. */
      enum { BLOCK = 10 };
      for (int r = 0; r < invokes; r += BLOCK)
        for (int j = 0; j < 2; j++) {
          int w = (r / BLOCK + j) % 2;
          for (int k = r; k < r + BLOCK && k < invokes; k++) {
            pause_ms(gap);
            double t0 = bench_now_us();
            ap_interpreter_invoke(it[w]);
            t[w * invokes + k] = bench_now_us() - t0;
          }
        }
      double med[2];
      for (int w = 0; w < 2; w++) {
        qsort(t + w * invokes, (size_t)invokes, sizeof *t, bench_cmp_double);
        med[w] = t[w * invokes + invokes / 2];
      }
      printf("| %s | %d | %.3f | %.3f | %.2fx |\n", models[i], gap, med[0] / 1e3, med[1] / 1e3,
             med[0] / med[1]);
    }
    ap_interpreter_destroy(it[0]);
    ap_interpreter_destroy(it[1]);
    ap_model_destroy(m);
  }
  free(t);
  return 0;
}
