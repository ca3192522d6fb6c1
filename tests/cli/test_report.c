/* `arenaplan report` and `--budget` on `plan` and `report`: exit statuses and the exact budget
 * lines, against figures measured independently through the library (the plan's arena, the
 * runtime's regions); JSON agrees with the library; every line within 100 columns on every
 * shared model unless --wide. */
#include "arenaplan/arenaplan.h"
#include "arenaplan/report.h"
#include "support/json.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

/* Runs the CLI in the models folder, so that `args` name models as a user would (and the
 * model line's width does not depend on where the tests run). */
static int cli(const char *args, char **out) {
  char cmd[8192], dir[1024];
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>&1", ap_test_path(dir, sizeof dir, "models"),
           ap_test_cli(), args);
  return ap_test_run(cmd, false, out);
}

static const char *model(const char *name) {
  static char path[4][1024];
  static int k;
  char *p = path[k++ % 4];
  return ap_test_path(p, 1024, "models/%s", name);
}

#define cli_thousands ap_test_thousands

static size_t widest(const char *s) {
  size_t w = 0, cur = 0;
  for (; s && *s; s++) {
    if (*s == '\n') {
      cur = 0;
      continue;
    }
    if (++cur > w) w = cur;
  }
  return w;
}

/* The figures the CLI must print, measured without it. */
static uint64_t plan_arena(const char *name) {
  ap_model *m = NULL;
  ap_model_plan *mp = NULL;
  CHECK_EQ(ap_model_open(model(name), NULL, &m), AP_OK);
  ap_model_plan_options o = ap_model_plan_defaults();
  CHECK_EQ(ap_model_plan_create(m, &o, NULL, &mp), AP_OK);
  uint64_t a = ap_model_plan_arena(mp);
  ap_model_plan_destroy(mp);
  ap_model_destroy(m);
  return a;
}

/* The device total with the given kernels (AP_KERNELS_AUTO: the default). */
static uint64_t device_total(const char *name, int kernels) {
  ap_model *m = NULL;
  ap_interpreter *it = NULL;
  ap_memory_usage mu = {0};
  ap_interpreter_options o = ap_interpreter_defaults();
  o.kernels = kernels;
  CHECK_EQ(ap_model_open(model(name), NULL, &m), AP_OK);
  CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_OK);
  CHECK_EQ(ap_interpreter_allocate(it), AP_OK);
  CHECK_EQ(ap_interpreter_memory(it, &mu), AP_OK);
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  return mu.arena + mu.persistent + mu.tables;
}

static void budget(const char *name) {
  char args[2048], want[256], *out = NULL;
  uint64_t arena = plan_arena(name), dev = device_total(name, AP_KERNELS_AUTO);
  /* A budget no plan fits: the report is of the smallest plan (the reference kernels). */
  uint64_t least = device_total(name, AP_KERNELS_REFERENCE);
  char a1[32], a2[32], a3[32];
  /* plan: the arena, exactly at the budget fits, one byte less does not. */
  snprintf(args, sizeof args, "plan %s --budget %llu", name, (unsigned long long)arena);
  CHECK_EQ(cli(args, &out), 0);
  snprintf(want, sizeof want, "\nfits: needs %s B, budget %s B (0 B to spare): the plan's arena\n",
           cli_thousands(a1, sizeof a1, arena), a1);
  CHECK_CONTAINS(out, want);
  free(out);
  snprintf(args, sizeof args, "plan %s --budget %llu", name, (unsigned long long)arena - 1);
  CHECK_EQ(cli(args, &out), 1);
  snprintf(want, sizeof want,
           "\ndoes not fit: needs %s B, budget %s B (short by 1 B): the plan's arena\n",
           cli_thousands(a1, sizeof a1, arena), cli_thousands(a2, sizeof a2, arena - 1));
  CHECK_CONTAINS(out, want);
  free(out);
  /* report: the device total (arena + persistent + tables). */
  snprintf(args, sizeof args, "report %s --budget %llu", name, (unsigned long long)dev);
  CHECK_EQ(cli(args, &out), 0);
  snprintf(want, sizeof want, "\nfits: needs %s B, budget %s B (0 B to spare): the device total\n",
           cli_thousands(a1, sizeof a1, dev), a1);
  CHECK_CONTAINS(out, want);
  free(out);
  snprintf(args, sizeof args, "report %s --budget 1K", name);
  CHECK_EQ(cli(args, &out), least > 1024 ? 1 : 0);
  snprintf(want, sizeof want,
           "\ndoes not fit: needs %s B, budget 1,024 B (short by %s B): the device total\n",
           cli_thousands(a1, sizeof a1, least), cli_thousands(a3, sizeof a3, least - 1024));
  if (least > 1024) CHECK_CONTAINS(out, want);
  free(out);
  snprintf(args, sizeof args, "report %s --budget 1K --json", name);
  CHECK_EQ(cli(args, &out), least > 1024 ? 1 : 0);
  ap_json *j = ap_json_parse(out);
  CHECK(j != NULL);
  bool fits = true;
  int64_t v = 0;
  CHECK(ap_json_bool(j, "fits", &fits) && fits == (least <= 1024));
  CHECK(ap_json_i64(j, "budget_bytes", &v) && v == 1024);
  CHECK(ap_json_i64(j, "estimate.device_bytes", &v) && v == (int64_t)least);
  CHECK_STR(ap_json_str(j, "budget_compared_with"), "device_bytes");
  ap_json_free(j);
  free(out);
}

static void json_agrees(const char *name) {
  ap_model *m = NULL;
  ap_report *r = NULL;
  CHECK_EQ(ap_model_open(model(name), NULL, &m), AP_OK);
  CHECK_EQ(ap_report_create(m, NULL, NULL, &r), AP_OK);
  char args[2048], *out = NULL;
  snprintf(args, sizeof args, "report %s --json", name);
  CHECK_EQ(cli(args, &out), 0);
  ap_json *j = ap_json_parse(out);
  CHECK_MSG(j != NULL, "%s: not JSON", name);
  const ap_estimate *e = ap_report_estimate(r);
  int64_t v = -1;
  CHECK(ap_json_i64(j, "schema_version", &v) && v == 1);
  CHECK(ap_json_i64(j, "estimate.total_bytes", &v) && v == (int64_t)e->total);
  CHECK(ap_json_i64(j, "estimate.arena_bytes", &v) && v == (int64_t)e->arena);
  CHECK(ap_json_i64(j, "estimate.weights_bytes", &v) && v == (int64_t)e->weights);
  CHECK(ap_json_i64(j, "estimate.persistent_bytes", &v) && v == (int64_t)e->persistent);
  CHECK(ap_json_i64(j, "estimate.tables_bytes", &v) && v == (int64_t)e->tables);
  CHECK(ap_json_i64(j, "lower_bound_bytes", &v) &&
        v == (int64_t)ap_model_plan_lower_bound(ap_report_plan(r)));
  CHECK_EQ(ap_json_len(j, "requests"), (long)ap_report_request_count(r));
  CHECK_EQ(ap_json_len(j, "live_bytes"), (long)ap_report_step_count(r));
  CHECK_EQ(ap_json_len(j, "plans"), AP_REPORT_ALT_COUNT);
  CHECK_EQ(ap_json_len(j, "dynamic_tensors"), (long)ap_report_dynamic_count(r));
  CHECK(ap_json_i64(j, "peak.step.step", &v) && v == (int64_t)ap_report_peak_step(r));
  CHECK(ap_json_at(j, "top_steps[0].live_bytes") != NULL);
  ap_json_free(j);
  free(out);
  ap_report_destroy(r);
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  char *out = NULL, args[2048];
  /* hello_world_int8, worked out in tests/report/test_report.c: arena 32, 4 requests. */
  snprintf(args, sizeof args, "report hello_world_int8.tflite");
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(out, "\narena: 32 bytes, 4 requests, 2 reused\n");
  CHECK_CONTAINS(out, "\npeak: step 1 (op 1 FULLY_CONNECTED), 32 B live\n");
  CHECK_CONTAINS(out, "\n  naive                      arenaplan     16                     49 B"
                      "  +53.1%\n");
  CHECK_CONTAINS(out, "\n  inputs and outputs IO                               2 B");
  free(out);

  budget("hello_world_int8.tflite");
  budget("person_detect_int8.tflite");
  json_agrees("hello_world_int8.tflite");
  json_agrees("person_detect_int8.tflite");
  json_agrees("nested_while.tflite");
  json_agrees("dynamic_shapes.tflite");

  /* dynamic_shapes: its 18 tensors past the STRIDED_SLICE whose end is a CAST of input z
   * (tensors 25..42, see tests/runtime/test_dynamic.c) are listed, outside the arena. */
  CHECK_EQ(cli("report dynamic_shapes.tflite --json", &out), 0);
  ap_json *dj = ap_json_parse(out);
  int64_t t = -1, op = -1;
  CHECK(dj && ap_json_len(dj, "dynamic_tensors") == 18);
  CHECK(ap_json_i64(dj, "dynamic_tensors[0].tensor", &t) && t == 25);
  CHECK(ap_json_i64(dj, "dynamic_tensors[0].op", &op) && op == 6);
  CHECK_STR(ap_json_str(dj, "dynamic_tensors[17].name"), "Identity");
  ap_json_free(dj);
  free(out);
  CHECK_EQ(cli("report dynamic_shapes.tflite", &out), 0);
  CHECK_CONTAINS(out, "\ndynamic tensors (shape known only while running: blocks of the "
                      "allocator during invoke,\nnot in the arena)\n");
  CHECK_CONTAINS(out, "\n    25 StridedSlice2                    [-1,-1]          op 6 "
                      "STRIDED_SLICE\n");
  CHECK_CONTAINS(out, "\n    42 Identity                         [8,-1,1024]      op 23 "
                      "BATCH_MATMUL\n");
  free(out);

  /* Usage errors: exit 2, one line naming the problem. */
  snprintf(args, sizeof args, "report hello_world_int8.tflite --budget 12Q");
  CHECK_EQ(cli(args, &out), 2);
  CHECK_CONTAINS(out, "arenaplan: report: --budget \"12Q\": expected a size like 76800, 75K, "
                      "1.5M, 2MiB\n");
  free(out);
  CHECK_EQ(cli("report", &out), 2);
  CHECK_CONTAINS(out, "arenaplan: report: no model given\n");
  free(out);
  CHECK_EQ(cli("report /nonexistent.tflite", &out), 2);
  CHECK_CONTAINS(out, "arenaplan: /nonexistent.tflite: ");
  free(out);
  snprintf(args, sizeof args, "report hello_world_int8.tflite --html /nonexistent-dir/x.html");
  CHECK_EQ(cli(args, &out), 2);
  CHECK_CONTAINS(out, "arenaplan: /nonexistent-dir/x.html: cannot write: ");
  free(out);

  /* Within 100 columns on every shared model; --wide lifts the limit (conformer has long
   * tensor names). */
  char names[64][64];
  size_t n = ap_test_models(names, 64);
  for (size_t i = 0; i < n; i++) {
    snprintf(args, sizeof args, "report %s", names[i]);
    CHECK_EQ(cli(args, &out), 0);
    CHECK_MSG(widest(out) <= 100, "%s: a line of %zu columns", names[i], widest(out));
    free(out);
  }
  snprintf(args, sizeof args, "report conformer_float.tflite --wide");
  CHECK_EQ(cli(args, &out), 0);
  CHECK(widest(out) > 100);
  free(out);
  return ap_test_done();
}
