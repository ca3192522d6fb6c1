/* The exact strategy as users run it (ap_plan_create with "exact": started from best's plan)
 * on the MiniMalloc suite (A-K, alignment 1), every real-model instance in
 * shared/bench/tflm_plans (alignment 16) and every shared model (our lifetimes, alignment 16):
 * arena, lower bound, ratio, whether the optimum was proven, and the time (wall clock, which
 * the budget is measured in, and this process's CPU time, to compare on a loaded machine).
 *
 *   bench_exact_bench [--budget SECONDS] [--only SUBSTRING]
 *
 * The budget defaults to 60 s per instance (1 s per shared model). Prints Markdown. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <dirent.h>
#include <stdlib.h>
#include <time.h>

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void row(const char *label, size_t n, uint64_t arena, uint64_t lb, bool optimal,
                double wall, double cpu) {
  printf("| %s | %zu | %llu | %llu | %.4f | %s | %.3f | %.3f |\n", label, n,
         (unsigned long long)arena, (unsigned long long)lb, lb ? (double)arena / (double)lb : 1.0,
         optimal ? "yes" : "no", wall, cpu);
  fflush(stdout);
}

static void run_csv(const char *label, const char *path, uint64_t align, double budget) {
  size_t len;
  char *text = (char *)ap_test_read_file(path, &len);
  ap_problem *p = NULL;
  ap_plan *plan = NULL;
  if (!text || ap_problem_create(NULL, &p) != AP_OK || ap_problem_set_alignment(p, align) ||
      ap_problem_parse_csv(p, text, len) != AP_OK) {
    printf("| %s | cannot read: %s |\n", label, p ? ap_problem_error(p) : path);
  } else {
    double t = clock_s(CLOCK_MONOTONIC), cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    ap_status s =
        ap_plan_create(p, &(ap_plan_options){.strategy = "exact", .budget_seconds = budget}, &plan);
    t = clock_s(CLOCK_MONOTONIC) - t;
    cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu;
    if (s != AP_OK)
      printf("| %s | error: %s |\n", label, ap_plan_error(plan));
    else
      row(label, ap_problem_count(p), ap_plan_arena(plan), ap_problem_lower_bound(p),
          ap_plan_optimal(plan), t, cpu);
  }
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
  free(text);
}

static void run_model(const char *name, double budget) {
  char path[4096];
  ap_model *m;
  if (ap_model_open(ap_test_path(path, sizeof path, "models/%s", name), NULL, &m) != AP_OK) {
    printf("| %s | cannot load: %s |\n", name, ap_model_error(m));
    ap_model_destroy(m);
    return;
  }
  ap_model_plan_options o = ap_model_plan_defaults();
  o.strategy = "exact";
  o.budget_seconds = budget;
  ap_model_plan *mp;
  double t = clock_s(CLOCK_MONOTONIC), cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  ap_status s = ap_model_plan_create(m, &o, NULL, &mp);
  t = clock_s(CLOCK_MONOTONIC) - t;
  cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu;
  if (s != AP_OK)
    printf("| %s | error: %s |\n", name, ap_model_plan_error(mp));
  else
    row(name, ap_model_plan_requests(mp), ap_model_plan_arena(mp), ap_model_plan_lower_bound(mp),
        ap_model_plan_optimal(mp), t, cpu);
  ap_model_plan_destroy(mp);
  ap_model_destroy(m);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void header(const char *title) {
  printf("\n### %s\n\n| instance | requests | arena | lower bound | ratio | optimal | wall s | "
         "cpu s |\n|---|---:|---:|---:|---:|---|---:|---:|\n",
         title);
}

int main(int argc, char **argv) {
  double budget = 60;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--budget") && i + 1 < argc)
      budget = atof(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--budget SECONDS] [--only SUBSTRING]\n", argv[0]);
      return 2;
    }
  }
  ap_test_require_shared();
  char path[1024];
  printf("## exact (started from best; budget %.0f s per instance, 1 s per model)\n", budget);
  header("MiniMalloc challenging A-K (alignment 1)");
  for (char c = 'A'; c <= 'K'; c++) {
    char label[32];
    snprintf(label, sizeof label, "%c.1048576.csv", c);
    if (only && !strstr(label, only)) continue;
    run_csv(label, ap_test_path(path, sizeof path, "bench/minimalloc/challenging/%s", label), 1,
            budget);
  }
  header("TFLite Micro's real-model instances (bench/tflm_plans, alignment 16)");
  DIR *d = opendir(ap_test_path(path, sizeof path, "bench/tflm_plans"));
  char *names[256];
  size_t nn = 0;
  for (struct dirent *e; d && (e = readdir(d)) && nn < 256;) {
    size_t l = strlen(e->d_name);
    if (l > 4 && !strcmp(e->d_name + l - 4, ".csv")) names[nn++] = strdup(e->d_name);
  }
  if (d) closedir(d);
  qsort(names, nn, sizeof *names, cmp_str);
  for (size_t i = 0; i < nn; i++) {
    if (!only || strstr(names[i], only))
      run_csv(names[i], ap_test_path(path, sizeof path, "bench/tflm_plans/%s", names[i]), 16,
              budget);
    free(names[i]);
  }
  header("Shared models (our lifetimes, alignment 16)");
  char models[64][64];
  size_t n = ap_test_models(models, 64);
  for (size_t i = 0; i < n; i++)
    if (!only || strstr(models[i], only)) run_model(models[i], 1);
  return 0;
}
