/* Our model of TFLite Micro's lifetimes, checked against the exact buffer lists its allocator
 * handed its planner (../shared/bench/tflm_plans, recorded from TFLite Micro itself) and its
 * measured head (../shared/bench/tflm_arena.tsv). */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>

/* Adds TFLite Micro's scratch requests ("node:bytes;s/node:bytes", or "-"). */
static void add_scratch(ap_graph *g, const char *spec) {
  if (!spec || strcmp(spec, "-") == 0) return;
  char *copy = strdup(spec), *save;
  for (char *item = strtok_r(copy, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
    unsigned sg = 0, node = 0;
    unsigned long long bytes = 0;
    if (strchr(item, '/'))
      CHECK(sscanf(item, "%u/%u:%llu", &sg, &node, &bytes) == 3);
    else
      CHECK(sscanf(item, "%u:%llu", &node, &bytes) == 2);
    CHECK_MSG(ap_graph_add_scratch(g, sg, node, bytes, NULL) == AP_OK, "%s", ap_graph_error(g));
  }
  free(copy);
}

static int check_model(const char *name) {
  char path[4096];
  size_t size;
  char *csv = (char *)ap_test_read_file(ap_test_path(path, sizeof path, "bench/tflm_plans/%s.csv",
                                                     name), &size);
  if (!csv) return 0; /* TFLite Micro could not allocate this model: no plan recorded */
  csv[size - 1] = '\0';
  ap_model *m;
  ap_test_path(path, sizeof path, "models/%s.tflite", name);
  CHECK_MSG(ap_model_open(path, NULL, &m) == AP_OK, "%s", ap_model_error(m));
  ap_graph *g;
  ap_graph_options go = {.rules = AP_RULES_TFLM};
  CHECK_MSG(ap_graph_create(m, &go, NULL, &g) == AP_OK, "%s: %s", name, ap_graph_error(g));
  char *scratch = ap_test_tflm_field(name, "scratch_requests");
  add_scratch(g, scratch);
  free(scratch);
  ap_problem *p;
  CHECK(ap_graph_problem(g, -1, 16, &p) == AP_OK);
  const ap_request *r = ap_problem_requests(p);
  size_t n = ap_problem_count(p), row = 0;
  char *save, *line = strtok_r(csv, "\n", &save); /* header */
  while ((line = strtok_r(NULL, "\n", &save))) {
    long long id, lower, upper, bytes;
    if (sscanf(line, "%lld,%lld,%lld,%lld", &id, &lower, &upper, &bytes) != 4) continue;
    if (row < n)
      CHECK_MSG((long long)r[row].size == bytes && r[row].first == lower + 1 &&
                    r[row].last == upper,
                "%s row %zu: ours size %llu [%d,%d], TFLite Micro's %lld [%lld,%lld] (+1)", name,
                row, (unsigned long long)r[row].size, r[row].first, r[row].last, bytes,
                lower + 1, upper);
    row++;
  }
  CHECK_MSG(row == n, "%s: %zu buffers, TFLite Micro planned %zu", name, n, row);

  /* Its planner over its buffers gives its measured head. */
  ap_plan *plan;
  CHECK(ap_plan_create(p, &(ap_plan_options){.strategy = "tflm"}, &plan) == AP_OK);
  char *head = ap_test_tflm_field(name, "plain_head");
  CHECK_MSG(head && strtoull(head, NULL, 10) == ap_plan_arena(plan), "%s: head %llu, TFLM %s",
            name, (unsigned long long)ap_plan_arena(plan), head ? head : "?");
  free(head);
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
  ap_graph_destroy(g);
  ap_model_destroy(m);
  free(csv);
  return 1;
}

int main(void) {
  ap_test_require_shared();
  char names[64][64];
  size_t n = ap_test_models(names, 64);
  CHECK(n == 30);
  int checked = 0;
  for (size_t i = 0; i < n; i++) {
    names[i][strlen(names[i]) - 7] = '\0';
    checked += check_model(names[i]);
  }
  CHECK_EQ(checked, 25);
  return ap_test_done();
}
