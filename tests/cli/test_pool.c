/* `arenaplan pool`: the resident-set verdict against costs the library measures, a trace
 * replay whose loads and unloads were counted by hand (and are the same on every run), and
 * the exact errors for bad input. The reference kernels (their scratch does not move with the
 * fast kernels' work) and budget 64,000 B: micro_speech + magic_wand (61,865 B with their
 * handles) and micro_speech + tflm_test_conv (57,767 B) fit, magic_wand + tflm_test_conv
 * (66,502 B) do not. */
#include "support/json.h"
#include "test.h"

#include <arenaplan/arenaplan.h>
#include <stdlib.h>
#include <unistd.h>

static char tmp[] = "/tmp/ap_test_pool_XXXXXX";
static char models[2048];
static char micro[512], magic[512], conv[512];

static int pool(const char *args, char **out, char **err) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' pool %s 2>/dev/null", ap_test_cli(), args);
  int rc = ap_test_run(cmd, false, out);
  if (err) {
    snprintf(cmd, sizeof cmd, "'%s' pool %s 2>&1 >/dev/null", ap_test_cli(), args);
    ap_test_run(cmd, false, err);
  }
  return rc;
}

static const char *write_trace(const char *name, const char *text) {
  static char path[1024];
  snprintf(path, sizeof path, "%s/%s", tmp, name);
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return path;
}

static ap_pool_cost cost_with(const char *path, int kernels) {
  ap_pool_options o = ap_pool_defaults();
  o.budget_bytes = 1 << 20;
  o.kernels = kernels;
  ap_pool *p = NULL;
  ap_pool_cost c = {0};
  if (ap_pool_create(&o, &p) == AP_OK && ap_pool_add(p, "m", path) == AP_OK)
    ap_pool_cost_of(p, "m", &c);
  ap_pool_destroy(p);
  return c;
}

static ap_pool_cost cost_of(const char *path) {
  return cost_with(path, AP_KERNELS_REFERENCE);
}

static uint64_t resident(const char *path) {
  return cost_of(path).resident;
}

/* 92407 -> "92,407" */
static const char *thousands(char buf[32], uint64_t v) {
  char digits[32];
  int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v), o = 0;
  for (int i = 0; i < n; i++) {
    if (i && (n - i) % 3 == 0) buf[o++] = ',';
    buf[o++] = digits[i];
  }
  buf[o] = 0;
  return buf;
}

static int64_t num(const ap_json *j, const char *path) {
  int64_t v = -1;
  CHECK_MSG(ap_json_i64(j, path, &v), "no integer at %s", path);
  return v;
}

static void resident_sets(void) {
  uint64_t all = resident(micro) + resident(magic) + resident(conv);
  char args[4096], *out = NULL, want[256], n[32];
  snprintf(args, sizeof args, "--budget 64000 %s", models);
  CHECK_EQ(pool(args, &out, NULL), 1);
  snprintf(want, sizeof want, "does not fit: needs %s B, budget 64,000 B", thousands(n, all));
  CHECK_CONTAINS(out, want);
  CHECK_CONTAINS(out, "any 1 of the 3 fit resident together, at most 2 at once (the 2 smallest)");
  free(out);
  snprintf(args, sizeof args, "--budget 64000 --json %s", models);
  CHECK_EQ(pool(args, &out, NULL), 1);
  ap_json *j = ap_json_parse(out ? out : "");
  CHECK(j != NULL);
  CHECK_EQ(num(j, "budget_bytes"), 64000);
  CHECK_EQ(num(j, "all_resident_bytes"), all);
  CHECK_EQ(num(j, "fit_any"), 1);
  CHECK_EQ(num(j, "fit_at_most"), 2);
  CHECK_EQ(num(j, "models[1].resident_bytes"), resident(magic));
  CHECK_EQ(num(j, "models[1].weights_bytes"), 19616); /* magic_wand_float.tflite's size */
  CHECK_STR(ap_json_str(j, "models[2].name"), "tflm_test_conv");
  ap_json_free(j);
  free(out);
  snprintf(args, sizeof args, "--budget 1M %s", models);
  CHECK_EQ(pool(args, &out, NULL), 0);
  CHECK_CONTAINS(out, "fits: needs ");
  free(out);
}

/* By hand, idle 1 s: 0 load micro; 100 load magic; 200 micro hit; 300 conv evicts magic (the
 * least recent) and loads; 400 magic evicts micro, then conv, and loads; 2000 magic has been
 * idle 1.6 s: unloaded, micro loads; 2500 micro hit. Loads 5, unloads 4, hits 2. With idle
 * 60 s the unload at 2000 does not happen (micro still fits beside magic): unloads 3. */
static void replay(void) {
  const char *trace = write_trace("t.csv", "time_ms,model\n0,micro_speech_int8\n"
                                           "100,magic_wand_float\n200,micro_speech_int8\n"
                                           "300,tflm_test_conv\n400,magic_wand_float\n"
                                           "2000,micro_speech_int8\n2500,micro_speech_int8\n");
  char args[4096], *out = NULL, want[256], n[32];
  for (int round = 0; round < 2; round++) {
    snprintf(args, sizeof args, "--budget 64000 --idle 1 --trace %s --json %s", trace, models);
    CHECK_EQ(pool(args, &out, NULL), 0);
    ap_json *j = ap_json_parse(out ? out : "");
    CHECK(j != NULL);
    CHECK_EQ(num(j, "requests"), 7);
    CHECK_EQ(num(j, "loads"), 5);
    CHECK_EQ(num(j, "unloads"), 4);
    CHECK_EQ(num(j, "evictions_room"), 3); /* magic at 300, micro and conv at 400 */
    CHECK_EQ(num(j, "evictions_idle"), 1); /* magic at 2000 */
    CHECK_EQ(num(j, "hits"), 2);
    CHECK_EQ(num(j, "peak_resident_bytes"), resident(micro) + resident(magic));
    CHECK_EQ(num(j, "models[0].loads"), 2);
    CHECK_EQ(num(j, "models[0].unloads"), 1);
    CHECK_EQ(num(j, "models[0].requests"), 4);
    CHECK_EQ(num(j, "models[1].unloads"), 2);
    CHECK_EQ(num(j, "models[1].evictions_room"), 1);
    CHECK_EQ(num(j, "models[1].evictions_idle"), 1);
    CHECK_EQ(num(j, "models[0].evictions_room"), 1);
    CHECK_EQ(num(j, "models[2].evictions_room"), 1);
    CHECK_EQ(num(j, "models[2].loads"), 1);
    double p50 = -1, p90 = -1, p99 = -1, max = -1;
    CHECK(ap_json_f64(j, "latency_p50_us", &p50) && ap_json_f64(j, "latency_p90_us", &p90) &&
          ap_json_f64(j, "latency_p99_us", &p99) && ap_json_f64(j, "latency_max_us", &max));
    CHECK(p50 > 0 && p50 <= p90 && p90 <= p99 && p99 == max); /* 7 requests: p99 is the max */
    ap_json_free(j);
    free(out);
  }
  snprintf(args, sizeof args, "--budget 64000 --idle 60 --trace %s --json %s", trace, models);
  CHECK_EQ(pool(args, &out, NULL), 0);
  ap_json *j = ap_json_parse(out ? out : "");
  CHECK_EQ(num(j, "loads"), 5);
  CHECK_EQ(num(j, "unloads"), 3);
  CHECK_EQ(num(j, "evictions_room"), 3);
  CHECK_EQ(num(j, "evictions_idle"), 0);
  ap_json_free(j);
  free(out);
  snprintf(args, sizeof args, "--budget 64000 --idle 1 --trace %s %s", trace, models);
  CHECK_EQ(pool(args, &out, NULL), 0);
  CHECK_CONTAINS(out, "loads 5, unloads 4, hits 2");
  snprintf(want, sizeof want, "peak resident: %s B",
           thousands(n, resident(micro) + resident(magic)));
  CHECK_CONTAINS(out, want);
  snprintf(want, sizeof want, "every model resident would take: %s B",
           thousands(n, resident(micro) + resident(magic) + resident(conv)));
  CHECK_CONTAINS(out, want);
  free(out);
}

static void expect_error(const char *args, int rc, const char *msg);

/* --kernels reaches the pool's interpreters: each choice's costs are the library's own, and the
 * fast kernels' scratch is never below the reference's nor the small budget's above fast. */
static void kernel_choices(void) {
  static const char *const names[] = {"reference", "small", "fast"};
  static const int kinds[] = {AP_KERNELS_REFERENCE, AP_KERNELS_SMALL, AP_KERNELS_FAST};
  uint64_t got[3] = {0};
  for (int k = 0; k < 3; k++) {
    char args[4096], *out = NULL;
    snprintf(args, sizeof args, "--budget 1M --json --kernels %s '%s'", names[k], micro);
    CHECK_EQ(pool(args, &out, NULL), 0);
    ap_json *j = ap_json_parse(out ? out : "");
    CHECK(j != NULL);
    got[k] = (uint64_t)num(j, "models[0].resident_bytes");
    CHECK_EQ(got[k], cost_with(micro, kinds[k]).resident);
    ap_json_free(j);
    free(out);
  }
  CHECK(got[0] <= got[1] && got[1] <= got[2]);
  CHECK(got[1] <= got[0] + AP_SMALL_SCRATCH_DEFAULT);
  expect_error("--budget 1M --kernels quick x.tflite", 2,
               "arenaplan: pool: --kernels \"quick\": expected auto, fast, small or reference");
}

static void expect_error(const char *args, int rc, const char *msg) {
  char *err = NULL;
  CHECK_EQ(pool(args, NULL, &err), rc);
  CHECK_CONTAINS(err, msg);
  free(err);
}

static void bad_input(void) {
  char args[4096], want[2048];
  snprintf(args, sizeof args, "--budget 0 %s", models);
  expect_error(args, 2,
               "arenaplan: pool: --budget \"0\": expected a size above 0, like 76800, 75K, 1.5M");
  snprintf(args, sizeof args, "--budget 30000 %s", models);
  ap_pool_cost mc = cost_of(magic);
  snprintf(want, sizeof want,
           "arenaplan: %s: model magic_wand_float (%s) alone needs %llu bytes (weights 19616 "
           "+ handle %llu + interpreter %llu), more than the budget of 30000 bytes",
           magic, magic, (unsigned long long)mc.resident, (unsigned long long)mc.handle,
           (unsigned long long)mc.interpreter);
  expect_error(args, 1, want);
  const char *t = write_trace("unknown.csv", "0,micro_speech_int8\n5,nope\n");
  snprintf(args, sizeof args, "--budget 64000 --trace %s %s", t, models);
  snprintf(want, sizeof want, "arenaplan: %s: line 2: unknown model \"nope\"", t);
  expect_error(args, 2, want);
  t = write_trace("malformed.csv", "0,micro_speech_int8\nabc\n");
  snprintf(args, sizeof args, "--budget 64000 --trace %s %s", t, models);
  snprintf(want, sizeof want, "arenaplan: %s: line 2: \"abc\": expected time_ms,model", t);
  expect_error(args, 2, want);
  t = write_trace("time.csv", "x1,micro_speech_int8\n");
  snprintf(args, sizeof args, "--budget 64000 --trace %s %s", t, models);
  snprintf(want, sizeof want,
           "arenaplan: %s: line 1: \"x1,micro_speech_int8\": time_ms is not a non-negative "
           "integer",
           t);
  expect_error(args, 2, want);
  t = write_trace("back.csv", "10,micro_speech_int8\n5,micro_speech_int8\n");
  snprintf(args, sizeof args, "--budget 64000 --trace %s %s", t, models);
  snprintf(want, sizeof want,
           "arenaplan: %s: line 2: time 5 ms is before the previous request's 10 ms", t);
  expect_error(args, 2, want);
  t = write_trace("empty.csv", "time_ms,model\n");
  snprintf(args, sizeof args, "--budget 64000 --trace %s %s", t, models);
  snprintf(want, sizeof want, "arenaplan: %s: no requests", t);
  expect_error(args, 2, want);
  snprintf(args, sizeof args, "%s", models);
  expect_error(args, 2, "arenaplan: pool: --budget SIZE is required");
  snprintf(args, sizeof args, "--budget 1M --idle 5 %s", models);
  expect_error(args, 2, "arenaplan: pool: --idle applies to a --trace replay");
  snprintf(args, sizeof args, "--budget 1M --trace %s --idle -1 %s", t, models);
  expect_error(args, 2, "arenaplan: pool: --idle \"-1\": expected seconds");
  snprintf(args, sizeof args, "--budget 1M %s %s", micro, micro);
  expect_error(args, 2, "two models named \"micro_speech_int8\"");
}

int main(void) {
  ap_test_require_shared();
  ap_test_path(micro, sizeof micro, "models/micro_speech_int8.tflite");
  ap_test_path(magic, sizeof magic, "models/magic_wand_float.tflite");
  ap_test_path(conv, sizeof conv, "models/tflm_test_conv.tflite");
  snprintf(models, sizeof models, "--kernels reference '%s' '%s' '%s'", micro, magic, conv);
  if (!mkdtemp(tmp)) {
    perror(tmp);
    return 1;
  }
  resident_sets();
  kernel_choices();
  replay();
  bad_input();
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  CHECK_EQ(system(cmd), 0);
  return ap_test_done();
}
