/* The plan benchmark: every strategy on every MiniMalloc instance and every real-model
 * instance of ../shared/bench/tflm_plans, plus the 10,000-request timing. Prints Markdown
 * (scripts/bench.sh writes it to bench/RESULTS.md). Times are medians of several runs.
 *
 *   bench_plan_bench [RUNS]      (default 5) */
#include "arenaplan/plan.h"
#include "test.h"

#include <stdlib.h>
#include <time.h>

#define MAX_STRATEGIES 32

typedef struct cell {
  uint64_t arena;
  double ms; /* median */
  bool ok;
} cell;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static cell measure(const ap_problem *p, const char *strategy, int runs) {
  cell c = {0, 0, false};
  double t[64];
  if (runs > 64) runs = 64;
  for (int r = 0; r < runs; r++) {
    ap_plan *plan = NULL;
    if (ap_plan_create(p, &(ap_plan_options){.strategy = strategy}, &plan) != AP_OK) {
      fprintf(stderr, "%s: %s\n", strategy, ap_plan_error(plan));
      ap_plan_destroy(plan);
      return c;
    }
    if (r > 0 && ap_plan_arena(plan) != c.arena)
      fprintf(stderr, "%s: not deterministic\n", strategy);
    c.arena = ap_plan_arena(plan);
    t[r] = ap_plan_time_ms(plan);
    ap_plan_destroy(plan);
  }
  qsort(t, (size_t)runs, sizeof t[0], cmp_double);
  c.ms = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
  c.ok = true;
  return c;
}

static ap_problem *load(const char *rel, uint64_t align) {
  char path[4096];
  ap_test_path(path, sizeof path, "%s", rel);
  size_t len = 0;
  uint8_t *text = ap_test_read_file(path, &len);
  if (!text) {
    fprintf(stderr, "cannot read %s\n", path);
    return NULL;
  }
  ap_problem *p = NULL;
  ap_problem_create(NULL, &p);
  ap_problem_set_alignment(p, align);
  if (ap_problem_parse_csv(p, (char *)text, len) != AP_OK) {
    fprintf(stderr, "%s: %s\n", path, ap_problem_error(p));
    ap_problem_destroy(p);
    p = NULL;
  }
  free(text);
  return p;
}

static size_t index_of(const char *name) {
  for (size_t s = 0; s < ap_strategy_count(); s++)
    if (strcmp(ap_strategy_name(s), name) == 0) return s;
  return SIZE_MAX;
}

/* One suite: a table of ratio (median ms) per instance and strategy, then the means. */
static void suite(const char *title, const char *dir, const char *const *names, size_t count,
                  uint64_t align, int runs) {
  /* exact has its own section (bench_exact_bench): it is last in the registry. */
  size_t ns = index_of("exact") < ap_strategy_count() ? index_of("exact") : ap_strategy_count();
  if (ns > MAX_STRATEGIES) ns = MAX_STRATEGIES;
  double sum_ratio[MAX_STRATEGIES] = {0}, worst_ratio[MAX_STRATEGIES] = {0},
         sum_ms[MAX_STRATEGIES] = {0}, worst_ms[MAX_STRATEGIES] = {0};
  size_t at_lb[MAX_STRATEGIES] = {0}, done = 0;
  size_t ib = index_of("best"), itl = index_of("tflite"), itm = index_of("tflm");
  double save_tflite = 0, save_tflm = 0;
  size_t never_worse = 0;
  printf("## %s\n\nAlignment %llu. Each cell: arena / lower bound (median plan time in ms over "
         "%d runs).\n\n| instance | requests | lower bound |",
         title, (unsigned long long)align, runs);
  for (size_t s = 0; s < ns; s++)
    printf(" %s |", ap_strategy_name(s));
  printf("\n|---|---:|---:|");
  for (size_t s = 0; s < ns; s++)
    printf("---:|");
  printf("\n");
  for (size_t k = 0; k < count; k++) {
    char rel[512];
    snprintf(rel, sizeof rel, "%s/%s", dir, names[k]);
    ap_problem *p = load(rel, align);
    if (!p) continue;
    uint64_t lb = ap_problem_lower_bound(p);
    printf("| %s | %zu | %llu |", names[k], ap_problem_count(p), (unsigned long long)lb);
    cell c[MAX_STRATEGIES];
    for (size_t s = 0; s < ns; s++) {
      c[s] = measure(p, ap_strategy_name(s), runs);
      if (!c[s].ok) {
        printf(" error |");
        continue;
      }
      double ratio = lb ? (double)c[s].arena / (double)lb : 1.0;
      printf(" %.3f (%.3f) |", ratio, c[s].ms);
      sum_ratio[s] += ratio;
      if (ratio > worst_ratio[s]) worst_ratio[s] = ratio;
      sum_ms[s] += c[s].ms;
      if (c[s].ms > worst_ms[s]) worst_ms[s] = c[s].ms;
      if (c[s].arena == lb) at_lb[s]++;
    }
    printf("\n");
    if (ib < ns && itl < ns && itm < ns && c[ib].ok && c[itl].ok && c[itm].ok) {
      save_tflite += 1.0 - (double)c[ib].arena / (double)c[itl].arena;
      save_tflm += 1.0 - (double)c[ib].arena / (double)c[itm].arena;
      if (c[ib].arena <= c[itl].arena && c[ib].arena <= c[itm].arena) never_worse++;
    }
    done++;
    ap_problem_destroy(p);
  }
  if (!done) return;
  printf("| **mean ratio** | | |");
  for (size_t s = 0; s < ns; s++)
    printf(" **%.3f** |", sum_ratio[s] / (double)done);
  printf("\n| worst ratio | | |");
  for (size_t s = 0; s < ns; s++)
    printf(" %.3f |", worst_ratio[s]);
  printf("\n| at lower bound | | |");
  for (size_t s = 0; s < ns; s++)
    printf(" %zu/%zu |", at_lb[s], done);
  printf("\n| mean ms | | |");
  for (size_t s = 0; s < ns; s++)
    printf(" %.2f |", sum_ms[s] / (double)done);
  printf("\n| worst ms | | |");
  for (size_t s = 0; s < ns; s++)
    printf(" %.2f |", worst_ms[s]);
  printf("\n\nbest vs the peers in the same run: best <= tflite and <= tflm on %zu/%zu; mean "
         "saving %.1f%% against tflite, %.1f%% against tflm.\n\n",
         never_worse, done, 100.0 * save_tflite / (double)done, 100.0 * save_tflm / (double)done);
}

static void large(int runs) {
  printf("## Large problems\n\nSeeded random problems shaped like a network's tensors "
         "(tests/support/problem_gen.c), alignment 16. Median of %d runs.\n\n"
         "| requests | strategy | arena / lower bound | plan time ms |\n|---:|---|---:|---:|\n",
         runs);
  static const char *const which[] = {"best", "tflm", "tflite", "sweep"};
  size_t sizes[] = {10000, 1000000};
  for (size_t k = 0; k < 2; k++) {
    ap_problem *p = NULL;
    ap_problem_create(NULL, &p);
    ap_problem_set_alignment(p, 16);
    ap_test_random_problem(p, sizes[k], 5);
    uint64_t lb = ap_problem_lower_bound(p);
    if (sizes[k] <= 10000) { /* TFLite Micro's own quadratic algorithm, for its time */
      uint64_t *off = calloc(sizes[k], sizeof *off), head = 0;
      struct timespec t0, t1;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      int rc = off ? ap_test_tflm_literal(p, off, &head) : -1;
      clock_gettime(CLOCK_MONOTONIC, &t1);
      if (rc == 0)
        printf("| %zu | TFLite Micro's algorithm as written (bubble sort, list walk; "
               "tests/support/tflm_literal.c), 1 run | %.3f | %.2f |\n",
               sizes[k], (double)head / (double)lb,
               (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
      free(off);
    }
    for (size_t w = 0; w < 4; w++) {
      cell c = measure(p, which[w], sizes[k] > 100000 ? 1 : runs);
      if (c.ok)
        printf("| %zu | %s | %.3f | %.2f |\n", sizes[k], which[w], (double)c.arena / (double)lb,
               c.ms);
      else
        printf("| %zu | %s | error | |\n", sizes[k], which[w]);
    }
    ap_problem_destroy(p);
  }
  printf("\n");
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 5;
  if (runs < 1) runs = 1;
  ap_test_require_shared();
  static const char *const mm[] = {"A.1048576.csv", "B.1048576.csv", "C.1048576.csv",
                                   "D.1048576.csv", "E.1048576.csv", "F.1048576.csv",
                                   "G.1048576.csv", "H.1048576.csv", "I.1048576.csv",
                                   "J.1048576.csv", "K.1048576.csv"};
  static const char *const tp[] = {"audio_preprocessor_int8.csv",
                                   "call_once_mul.csv",
                                   "conformer_float.csv",
                                   "dtln_noise_suppression_int8.csv",
                                   "hello_world_float.csv",
                                   "hello_world_int8.csv",
                                   "keyword_scrambled_svdf.csv",
                                   "magic_wand_float.csv",
                                   "micro_speech_int8.csv",
                                   "mlperf_ad_fc_int8.csv",
                                   "mlperf_ic_resnet_float.csv",
                                   "mlperf_ic_resnet_int8.csv",
                                   "mlperf_kws_dscnn_int8.csv",
                                   "mlperf_sww_int8.csv",
                                   "mlperf_vww_int8.csv",
                                   "mnist_lstm_float.csv",
                                   "mnist_lstm_int8.csv",
                                   "mobilenet_v2_torch_int8.csv",
                                   "movenet_lightning_ptq.csv",
                                   "multi_signatures.csv",
                                   "nested_while.csv",
                                   "person_detect_int8.csv",
                                   "resource_vars_fc.csv",
                                   "tflm_test_conv.csv",
                                   "while_multi_subgraph.csv"};
  suite("MiniMalloc challenging A-K", "bench/minimalloc/challenging", mm, sizeof mm / sizeof mm[0],
        1, runs);
  suite("TFLite Micro real-model instances (bench/tflm_plans)", "bench/tflm_plans", tp,
        sizeof tp / sizeof tp[0], 16, runs);
  large(runs);
  return 0;
}
