/* Every shared model, planned by every strategy under arenaplan's lifetimes, beside what TFLite
 * (ArenaPlanner: its lifetimes, 64-byte alignment) and TFLite Micro (GreedyMemoryPlanner: its
 * lifetimes, without kernel scratch) would need, all measured in the same run.
 * Usage: bench_model_bench [RUNS]. Prints a Markdown section for bench/RESULTS.md. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>

static double median(double *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return n ? v[n / 2] : 0;
}

/* TFLite Micro's measured head (column 3 of ../shared/bench/tflm_arena.tsv), 0 if absent. */
static uint64_t tflm_head(const char *model) {
  char path[4096];
  size_t size = 0;
  char *text =
      (char *)ap_test_read_file(ap_test_path(path, sizeof path, "bench/tflm_arena.tsv"), &size);
  uint64_t head = 0;
  size_t len = strlen(model);
  for (char *line = text; line && *line;) {
    char *end = strchr(line, '\n');
    if (strncmp(line, model, len) == 0 && line[len] == '\t') {
      char *f = strchr(line + len + 1, '\t');
      if (f) head = strtoull(f + 1, NULL, 10);
      break;
    }
    line = end ? end + 1 : NULL;
  }
  free(text);
  return head;
}

static uint64_t arena_of(const ap_model *m, ap_model_plan_options o, uint64_t *lb) {
  ap_model_plan *mp;
  uint64_t a = 0;
  if (ap_model_plan_create(m, &o, NULL, &mp) == AP_OK) {
    a = ap_model_plan_arena(mp);
    if (lb) *lb = ap_model_plan_lower_bound(mp);
  }
  ap_model_plan_destroy(mp);
  return a;
}

/* In-place sharing and overlaps (issue 11): each model's arena with and without, beside TFLite
 * with its own in-place sharing and TFLite Micro's measured head. */
static void inplace_section(char names[][64], size_t n) {
  printf("## In-place (shared models)\n\n");
  printf("`lower bound`: our lifetimes in the model's op order, no in-place; `best`: our arena "
         "without in-place; `in-place`: with views and element-wise ops sharing their input and "
         "convolutions and pooling overlapping it (`plan --inplace`), and its own lower bound; "
         "`TFLite`: its ArenaPlanner without and with its in-place sharing (its lifetimes, "
         "64-byte alignment); `TFLM head`: TFLite Micro's measured head "
         "(../shared/bench/tflm_arena.tsv). Bytes.\n\n");
  printf(
      "| model | lower bound | best | in-place | in-place lower bound | TFLite | TFLite in-place "
      "| TFLM head | in-place vs TFLite in-place "
      "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    ap_model *m;
    if (ap_model_open(ap_test_path(path, sizeof path, "models/%s", names[i]), NULL, &m) != AP_OK) {
      ap_model_destroy(m);
      continue;
    }
    uint64_t lb = 0, ilb = 0;
    ap_model_plan_options o = ap_model_plan_defaults(), t = ap_model_plan_tflite();
    uint64_t plain = arena_of(m, o, &lb);
    o.inplace = true;
    uint64_t in = arena_of(m, o, &ilb);
    uint64_t tfl = arena_of(m, t, NULL);
    t.inplace = true;
    uint64_t tfl_in = arena_of(m, t, NULL);
    char model[64];
    snprintf(model, sizeof model, "%.*s", (int)(strlen(names[i]) - strlen(".tflite")), names[i]);
    uint64_t head = tflm_head(model);
    char h[32] = "-";
    if (head) snprintf(h, sizeof h, "%llu", (unsigned long long)head);
    printf("| %s | %llu | %llu | %llu | %llu | %llu | %llu | %s | %.3f |\n", model,
           (unsigned long long)lb, (unsigned long long)plain, (unsigned long long)in,
           (unsigned long long)ilb, (unsigned long long)tfl, (unsigned long long)tfl_in, h,
           tfl_in ? (double)in / (double)tfl_in : 0.0);
    ap_model_destroy(m);
  }
  printf("\n");
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 3;
  if (runs < 1 || runs > 100) runs = 3;
  ap_test_require_shared();
  char names[64][64];
  size_t n = ap_test_models(names, 64);
  /* exact has its own section (bench_exact_bench): it is last in the registry. */
  size_t ns = ap_strategy_count();
  if (ns && strcmp(ap_strategy_name(ns - 1), "exact") == 0) ns--;
  printf("## Shared models (../shared/models)\n\n");
  printf("Our lifetimes, 16-byte alignment. Each cell: arena / lower bound (median plan time in ms "
         "over %d runs). `TFLite` and `TFLM`: what those runtimes' planners need under their own "
         "lifetimes (TFLite: 64-byte alignment, every subgraph its own arena; TFLM: head without "
         "kernel scratch), in bytes.\n\n",
         runs);
  printf("| model | requests | lower bound | TFLite | TFLM |");
  for (size_t s = 0; s < ns; s++) printf(" %s |", ap_strategy_name(s));
  printf(" best vs TFLite | best vs TFLM |\n|---|---:|---:|---:|---:|");
  for (size_t s = 0; s < ns; s++) printf("---:|");
  printf("---:|---:|\n");
  double sum_tfl = 0, sum_tflm = 0;
  int counted = 0, optimal = 0;
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    ap_model *m;
    if (ap_model_open(ap_test_path(path, sizeof path, "models/%s", names[i]), NULL, &m) != AP_OK) {
      printf("| %s | load failed: %s |\n", names[i], ap_model_error(m));
      ap_model_destroy(m);
      continue;
    }
    uint64_t ref[2] = {0, 0};
    ap_model_plan_options refs[2] = {ap_model_plan_tflite(), ap_model_plan_tflm()};
    for (int r = 0; r < 2; r++) {
      ap_model_plan *mp;
      if (ap_model_plan_create(m, &refs[r], NULL, &mp) == AP_OK) ref[r] = ap_model_plan_arena(mp);
      ap_model_plan_destroy(mp);
    }
    uint64_t best = 0, lb = 0;
    size_t requests = 0;
    char cells[4096] = "";
    size_t used = 0;
    for (size_t s = 0; s < ns; s++) {
      ap_model_plan_options o = ap_model_plan_defaults();
      o.strategy = ap_strategy_name(s);
      o.budget_seconds = 1;
      double t[100];
      uint64_t arena = 0;
      bool ok = true;
      for (int r = 0; r < runs && ok; r++) {
        ap_model_plan *mp;
        ok = ap_model_plan_create(m, &o, NULL, &mp) == AP_OK;
        if (ok) {
          arena = ap_model_plan_arena(mp);
          lb = ap_model_plan_lower_bound(mp);
          requests = ap_model_plan_requests(mp);
          t[r] = ap_model_plan_time_ms(mp);
          if (strcmp(o.strategy, "best") == 0) {
            best = arena;
            if (r == 0 && ap_model_plan_optimal(mp)) optimal++;
          }
        }
        ap_model_plan_destroy(mp);
      }
      used += (size_t)snprintf(cells + used, sizeof cells - used,
                               ok ? " %.3f (%.3f) |" : " failed |",
                               lb ? (double)arena / (double)lb : 1.0, median(t, runs));
    }
    printf("| %s | %zu | %llu | %llu | %llu |%s", names[i], requests, (unsigned long long)lb,
           (unsigned long long)ref[0], (unsigned long long)ref[1], cells);
    if (best && ref[0] && ref[1]) {
      printf(" %.3f | %.3f |\n", (double)best / (double)ref[0], (double)best / (double)ref[1]);
      sum_tfl += (double)best / (double)ref[0];
      sum_tflm += (double)best / (double)ref[1];
      counted++;
    } else {
      printf(" - | - |\n");
    }
    ap_model_destroy(m);
  }
  printf("\nbest / TFLite averages %.3f and best / TFLM %.3f over %d models; best is proven "
         "optimal (arena = lower bound, or exact search) on %d of %zu.\n\n",
         counted ? sum_tfl / counted : 0, counted ? sum_tflm / counted : 0, counted, optimal, n);
  inplace_section(names, n);
  return 0;
}
