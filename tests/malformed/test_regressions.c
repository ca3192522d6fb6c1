/* Every input in tests/malformed/MANIFEST.tsv (fuzz reproducers and hand-written edge cases)
 * run the way its fuzz harness runs it, with the expected outcome: the exact error message,
 * or "ok": every step succeeds or fails with a message, and every plan passes the checker. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>

#define DIR AP_SOURCE_DIR "/tests/malformed"

/* Every strategy on p: each plan checked, each failure with a message. */
static void plan_all(const ap_problem *p, const char *file) {
  for (size_t i = 0; i < ap_strategy_count(); i++) {
    const char *name = ap_strategy_name(i);
    ap_plan *plan = NULL;
    ap_status s =
        ap_plan_create(p, &(ap_plan_options){.strategy = name, .budget_nodes = 20000}, &plan);
    CHECK(plan != NULL);
    if (s == AP_OK) {
      char msg[256] = "";
      CHECK_MSG(ap_plan_check(p, ap_plan_offsets(plan), ap_plan_arena(plan), msg, sizeof msg) ==
                    AP_OK,
                "%s: %s: %s", file, name, msg);
    } else {
      CHECK_MSG(ap_plan_error(plan)[0] != '\0', "%s: %s failed without a message", file, name);
    }
    ap_plan_destroy(plan);
  }
}

/* Lifetimes under every rule set and every problem planned; the first error or "ok". */
static void model_plans(const ap_model *m, const char *file, char *first_err, size_t size) {
  for (int r = AP_RULES_ARENAPLAN; r <= AP_RULES_TFLM; r++) {
    ap_graph *g = NULL;
    ap_status s = ap_graph_create(m, &(ap_graph_options){.rules = (ap_rules)r}, NULL, &g);
    if (s != AP_OK) {
      if (!first_err[0]) snprintf(first_err, size, "%s", ap_graph_error(g));
      ap_graph_destroy(g);
      continue;
    }
    for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
      for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++) {
        ap_lifetime l;
        CHECK(ap_graph_tensor(g, sg, t, &l) == AP_OK);
        CHECK_MSG(!l.planned || l.first <= l.last,
                  "%s: %s rules: subgraph %zu tensor %zu: [%d, %d]", file,
                  ap_rules_name((ap_rules)r), sg, t, l.first, l.last);
      }
    int lo = r == AP_RULES_TFLITE ? 0 : -1;
    int hi = r == AP_RULES_TFLITE ? (int)ap_model_subgraph_count(m) - 1 : -1;
    for (int sg = lo; sg <= hi; sg++) {
      ap_problem *p = NULL;
      if (ap_graph_problem(g, sg, 16, &p) == AP_OK)
        plan_all(p, file);
      else if (!first_err[0])
        snprintf(first_err, size, "%s", ap_graph_error(g));
      ap_problem_destroy(p);
    }
    ap_graph_destroy(g);
  }
}

static void run_model(const ap_model *m, char *err, size_t size, int prepare) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.strategy = "greedy_size";
  o.prepare = prepare;
  ap_interpreter *it = NULL;
  ap_status s = ap_interpreter_create(m, &o, &it);
  if (s == AP_OK) s = ap_interpreter_allocate(it);
  if (s == AP_OK) {
    for (size_t i = 0; i < ap_interpreter_input_count(it); i++) {
      ap_tensor t;
      if (ap_interpreter_input(it, i, &t) == AP_OK && t.data && !t.is_constant)
        memset(t.data, 0, t.bytes);
    }
    s = ap_interpreter_invoke(it);
  }
  if (s != AP_OK) snprintf(err, size, "%s", ap_interpreter_error(it));
  ap_interpreter_destroy(it);
}

static void check_one(const char *file, const char *harness, const char *expected) {
  char path[512], err[1024] = "";
  snprintf(path, sizeof path, "%s/%s", DIR, file);
  size_t size = 0;
  uint8_t *bytes = ap_test_read_file(path, &size);
  CHECK_MSG(bytes != NULL, "%s: cannot read", path);
  if (!bytes) return;
  if (strcmp(harness, "csv") == 0) {
    ap_problem *p = NULL;
    CHECK_EQ(ap_problem_create(NULL, &p), AP_OK);
    if (ap_problem_parse_csv(p, (const char *)bytes, size) != AP_OK)
      snprintf(err, sizeof err, "%s", ap_problem_error(p));
    else
      plan_all(p, file);
    ap_problem_destroy(p);
  } else {
    ap_model *m = NULL;
    if (ap_model_from_buffer(bytes, size, file, NULL, &m) != AP_OK)
      snprintf(err, sizeof err, "%s", ap_model_error(m));
    else if (strcmp(harness, "run") == 0) {
      /* Builtins prepared once say the same as prepared at each invoke. */
      char once[sizeof err] = "";
      run_model(m, once, sizeof once, AP_PREPARE_ONCE);
      run_model(m, err, sizeof err, AP_PREPARE_EACH_INVOKE);
      CHECK_MSG(strcmp(once, err) == 0, "%s: prepared once \"%s\", at each invoke \"%s\"", file,
                once, err);
    } else
      model_plans(m, file, err, sizeof err);
    ap_model_destroy(m);
  }
  if (strcmp(expected, "ok") == 0)
    CHECK_MSG(err[0] == '\0', "%s: expected ok, got \"%s\"", file, err);
  else
    CHECK_MSG(strcmp(err, expected) == 0, "%s: got \"%s\", expected \"%s\"", file, err, expected);
  free(bytes);
}

int main(void) {
  size_t size = 0;
  char *manifest = (char *)ap_test_read_file(DIR "/MANIFEST.tsv", &size);
  CHECK(manifest != NULL);
  if (!manifest) return ap_test_done();
  manifest[size] = '\0'; /* ap_test_read_file leaves at least one byte after the data */
  size_t entries = 0;
  char *save = NULL;
  for (char *line = strtok_r(manifest, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#' || line[0] == '\0') continue;
    char *tab1 = strchr(line, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
    CHECK_MSG(tab2 != NULL, "MANIFEST.tsv: bad line \"%s\"", line);
    if (!tab2) continue;
    *tab1 = *tab2 = '\0';
    const char *harness = tab1 + 1;
    CHECK_MSG(strcmp(harness, "model") == 0 || strcmp(harness, "csv") == 0 ||
                  strcmp(harness, "run") == 0,
              "MANIFEST.tsv: unknown harness \"%s\"", harness);
    check_one(line, harness, tab2 + 1);
    entries++;
  }
  CHECK(entries >= 3);
  free(manifest);
  return ap_test_done();
}
