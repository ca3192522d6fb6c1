/* The runtime benchmark: per shared model, the bytes a device must provide (arena, persistent,
 * interpreter tables, total; and the total with in-place sharing) beside TFLite Micro's smallest
 * working arena and its planned head (../shared/bench/tflm_arena.tsv), and the median and
 * minimum invoke time. Models the runtime cannot run say why. Prints Markdown.
 *
 *   bench_runtime_bench [ITERATIONS]   (default 50) */
#include "runtime/rt_test.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Column `name` of shared/bench/tflm_arena.tsv for `model`, 0 if absent. */
static uint64_t tflm_column(const char *model, const char *name) {
  long long v = ap_test_tflm_value(model, name);
  return v > 0 ? (uint64_t)v : 0;
}

/* Allocated with the default strategy, in place or not; NULL after printing why. */
static ap_interpreter *interpreter(const ap_model *m, const char *name, bool inplace) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.inplace = inplace;
  o.max_loop_iterations = 1000000; /* random inputs must not make a WHILE endless */
  ap_interpreter *it = NULL;
  if (!m || ap_interpreter_create(m, &o, &it) != AP_OK || ap_interpreter_allocate(it) != AP_OK) {
    printf("| %s | cannot run: %s |\n", name, it ? ap_interpreter_error(it) : "load failed");
    ap_interpreter_destroy(it);
    return NULL;
  }
  return it;
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  ap_test_require_shared();
  int iterations = argc > 1 ? atoi(argv[1]) : 50;
  if (iterations < 1 || iterations > 100000) iterations = 50;
  printf("| model | arena | arena lower bound | persistent | tables | total | total in-place | "
         "TFLM head | TFLM min arena | total / TFLM | in-place / TFLM | lower bound / TFLM | "
         "invoke median us | invoke min us |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  double *t = malloc((size_t)iterations * sizeof *t);
  static char names[64][64];
  size_t count = ap_test_models(names, 64);
  for (size_t i = 0; t && i < count; i++) {
    char model[64];
    snprintf(model, sizeof model, "%.*s", (int)(strlen(names[i]) - strlen(".tflite")), names[i]);
    ap_model *m = rt_load(model);
    ap_interpreter *it = interpreter(m, model, false),
                   *ip = it ? interpreter(m, model, true) : NULL;
    if (!ip) {
      ap_interpreter_destroy(it);
      ap_model_destroy(m);
      continue;
    }
    ap_memory_usage ui;
    ap_interpreter_memory(ip, &ui);
    ap_interpreter_destroy(ip);
    if (!rt_feed_oracle(it, model, 1)) {
      uint64_t st = 1;
      for (size_t k = 0; k < ap_interpreter_input_count(it); k++) {
        ap_tensor in;
        ap_interpreter_input(it, k, &in);
        for (size_t b = 0; b < in.bytes; b++)
          ((uint8_t *)in.data)[b] = (uint8_t)ap_test_rand(&st);
        if (in.type == AP_FLOAT32)
          for (size_t b = 0; b < in.bytes / 4; b++)
            ((float *)in.data)[b] = 0.25f;
      }
    }
    for (int r = 0; r < iterations; r++) {
      double t0 = now_us();
      ap_interpreter_invoke(it);
      t[r] = now_us() - t0;
    }
    qsort(t, (size_t)iterations, sizeof *t, cmp_double);
    ap_memory_usage u;
    ap_interpreter_memory(it, &u);
    uint64_t head = tflm_column(model, "plain_head");
    uint64_t min = tflm_column(model, "min_arena_plain_16");
    char ratio[32] = "-", iratio[32] = "-", hs[32] = "-", ms[32] = "-", lb[32] = "-";
    if (min) snprintf(ratio, sizeof ratio, "%.3f", (double)u.total / (double)min);
    if (min) snprintf(iratio, sizeof iratio, "%.3f", (double)ui.total / (double)min);
    if (min) snprintf(lb, sizeof lb, "%.3f", (double)u.arena_lower_bound / (double)min);
    if (head) snprintf(hs, sizeof hs, "%llu", (unsigned long long)head);
    if (min) snprintf(ms, sizeof ms, "%llu", (unsigned long long)min);
    printf(
        "| %s | %llu | %llu | %llu | %llu | %llu | %llu | %s | %s | %s | %s | %s | %.1f | %.1f |\n",
        model, (unsigned long long)u.arena, (unsigned long long)u.arena_lower_bound,
        (unsigned long long)u.persistent, (unsigned long long)u.tables, (unsigned long long)u.total,
        (unsigned long long)ui.total, hs, ms, ratio, iratio, lb, t[iterations / 2], t[0]);
    ap_interpreter_destroy(it);
    ap_model_destroy(m);
  }
  free(t);
  return 0;
}
