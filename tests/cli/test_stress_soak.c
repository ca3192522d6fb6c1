/* `arenaplan stress --threads/--duration` (tools/arenaplan/stress_soak.c, compiled in so a
 * custom op can be registered): a FULLY_CONNECTED override that allocates on every invoke makes
 * the soak fail with exit 1 (with and without a duration, CSV curve rising); the same model
 * without it passes; the CLI on person_detect_int8 with 2 threads for 2 s passes, writes one
 * CSV row per second (which `report --html --soak` plots) and counts AP_ERR_BUSY on the shared
 * interpreter; bad thread counts and durations are one line, exit 2. */
#include "../../tools/arenaplan/cli.c"
#include "../../tools/arenaplan/help.c"
#include "../../tools/arenaplan/run_input.c"
#include "../../tools/arenaplan/run_summary.c"
#include "../../tools/arenaplan/stress_soak.c"
#include "support/json.h"
#include "test.h"

/* help.c's command table: this test runs none of the commands. */
const ap_command *const ap_commands[] = {NULL};

/* The leaked blocks stay reachable (a list), so LeakSanitizer builds do not flag the test. */
static pthread_mutex_t leak_lock = PTHREAD_MUTEX_INITIALIZER;
static void **leaked;
static atomic_ullong leak_calls;

static ap_status leaky_eval(ap_op_context *c) {
  ap_tensor out;
  if (!ap_op_output(c, 0, &out)) return AP_ERR_RANGE;
  if (out.data) memset(out.data, 0, out.bytes);
  void **block = malloc(32);
  if (!block) return AP_ERR_NOMEM;
  pthread_mutex_lock(&leak_lock);
  *block = leaked;
  leaked = block;
  pthread_mutex_unlock(&leak_lock);
  atomic_fetch_add(&leak_calls, 1);
  /* Slow enough that a 1.5 s soak leaks a few MB, not hundreds. */
  struct timespec ts = {0, 100000};
  nanosleep(&ts, NULL);
  return AP_OK;
}

static void free_leaked(void) {
  while (leaked) {
    void **next = *leaked;
    free(leaked);
    leaked = next;
  }
}

static void leak(const ap_model *m) {
  ap_custom_op op = {NULL, 9 /* FULLY_CONNECTED */, {NULL, leaky_eval}};
  soak_config c = {.model = m,
                   .path = "hello_world_int8",
                   .custom_ops = &op,
                   .custom_op_count = 1,
                   .threads = 2,
                   .iterations = 20,
                   .seed = 1};
  CHECK_EQ(soak_run(&c), 1);
  CHECK(atomic_load(&leak_calls) > 0);
  free_leaked();
  char csv[] = "/tmp/ap_soak_XXXXXX";
  int fd = mkstemp(csv);
  CHECK(fd >= 0);
  if (fd >= 0) close(fd);
  c.duration = 1.5;
  c.csv = csv;
  CHECK_EQ(soak_run(&c), 1);
  free_leaked();
  size_t n = 0;
  char *text = (char *)ap_test_read_file(csv, &n);
  CHECK(text != NULL);
  /* The header, the sample after the first invokes, one at 1 s, the last: heap bytes rise. */
  size_t rows = 0;
  long long first = -1, last = -1;
  for (char *line = text ? strchr(text, '\n') : NULL; line && line[1];
       line = strchr(line + 1, '\n')) {
    double t;
    unsigned long long inv, alloc, heap;
    long rss;
    if (sscanf(line + 1, "%lf,%llu,%llu,%llu,%ld", &t, &inv, &alloc, &heap, &rss) != 5) break;
    if (first < 0) first = (long long)heap;
    last = (long long)heap;
    rows++;
  }
  CHECK_EQ(rows, 3);
  CHECK_MSG(last > first, "heap %lld -> %lld", first, last);
  free(text);
  unlink(csv);
}

static void clean(const ap_model *m) {
  soak_config c = {
      .model = m, .path = "hello_world_int8", .threads = 3, .iterations = 50, .seed = 7};
  CHECK_EQ(soak_run(&c), 0);
  c.threads = 1;
  c.duration = 0.2;
  CHECK_EQ(soak_run(&c), 0);
}

static void cli_person(void) {
  char m[4096], cmd[8192], csv[] = "/tmp/ap_soak_cli_XXXXXX";
  int fd = mkstemp(csv);
  if (fd >= 0) close(fd);
  snprintf(cmd, sizeof cmd, "'%s' stress '%s' --threads 2 --duration 2 --csv '%s' --json",
           ap_test_cli(), ap_test_path(m, sizeof m, "models/person_detect_int8.tflite"), csv);
  char *out = NULL;
  CHECK_EQ(ap_test_run(cmd, false, &out), 0);
  ap_json *j = out ? ap_json_parse(out) : NULL;
  bool pass = false;
  int64_t mism = -1, busy = -1, ok = -1, weights = -1, per = -1, device = -1, samples = -1;
  CHECK(ap_json_bool(j, "pass", &pass) && pass);
  CHECK(ap_json_i64(j, "mismatches", &mism) && mism == 0);
  CHECK(ap_json_i64(j, "shared.busy", &busy) && busy >= 0);
  CHECK(ap_json_i64(j, "shared.ok", &ok) && ok > 0);
  CHECK(ap_json_i64(j, "weights_bytes", &weights) && weights > 0);
  CHECK(ap_json_i64(j, "per_interpreter_bytes", &per) && per > 0);
  CHECK(ap_json_i64(j, "device_bytes", &device) && device == weights + 2 * per);
  CHECK(ap_json_i64(j, "samples", &samples) && samples == 3);
  printf("person_detect_int8, 2 threads, 2 s: shared interpreter %lld ran, %lld busy\n",
         (long long)ok, (long long)busy);
  ap_json_free(j);
  free(out);
  size_t n = 0;
  char *text = (char *)ap_test_read_file(csv, &n);
  CHECK(text &&
        strncmp(text, "seconds,invokes,allocator_bytes,heap_bytes,resident_kib\n", 56) == 0);
  free(text);
  /* The HTML report plots the curve: three series and one table row per sample. */
  char html[] = "/tmp/ap_soak_html_XXXXXX";
  fd = mkstemp(html);
  if (fd >= 0) close(fd);
  snprintf(cmd, sizeof cmd, "'%s' report '%s' --html '%s' --soak '%s' >/dev/null", ap_test_cli(), m,
           html, csv);
  CHECK_EQ(ap_test_run(cmd, false, NULL), 0);
  char *page = (char *)ap_test_read_file(html, &n);
  size_t lines = 0, rows = 0;
  for (const char *q = page; q && (q = strstr(q, "<polyline")); q++)
    lines++;
  const char *table = page ? strstr(page, "<table id=\"soak-samples\">") : NULL;
  const char *end = table ? strstr(table, "</table>") : NULL;
  for (const char *q = table; q && (q = strstr(q, "<tr><td>")) && q < end; q++)
    rows++;
  CHECK_EQ(lines, 3);
  CHECK_EQ(rows, (size_t)samples);
  CHECK(page && strstr(page, "Bytes in use after the first invoke: flat."));
  free(page);
  unlink(html);
  unlink(csv);
}

static void bad(const char *opt, const char *v, const char *want) {
  char m[4096], cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' stress '%s' %s '%s' 2>&1 >/dev/null | head -1", ap_test_cli(),
           ap_test_path(m, sizeof m, "models/hello_world_int8.tflite"), opt, v);
  char *err = NULL;
  ap_test_run(cmd, false, &err);
  CHECK_MSG(err && strcmp(err, want) == 0, "%s %s: \"%s\"", opt, v, err ? err : "");
  free(err);
  snprintf(cmd, sizeof cmd, "'%s' stress '%s' %s '%s' >/dev/null 2>&1", ap_test_cli(), m, opt, v);
  CHECK_EQ(ap_test_run(cmd, false, NULL), 2);
}

int main(void) {
  ap_test_require_shared();
  char path[4096];
  ap_model *m = NULL;
  CHECK_EQ(
      ap_model_open(ap_test_path(path, sizeof path, "models/hello_world_int8.tflite"), NULL, &m),
      AP_OK);
  if (m) {
    leak(m);
    clean(m);
  }
  ap_model_destroy(m);
  cli_person();
  static const char *const threads[] = {"-1", "0", "257", "99999999999999999999", "abc", ""};
  for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
    char want[256];
    snprintf(want, sizeof want, "arenaplan: stress: --threads \"%s\": expected 1 to 256\n",
             threads[i]);
    bad("--threads", threads[i], want);
  }
  static const char *const durations[] = {"-1", "0", "86401", "1e99", "nan", "inf", "abc"};
  for (size_t i = 0; i < sizeof durations / sizeof durations[0]; i++) {
    char want[256];
    snprintf(want, sizeof want,
             "arenaplan: stress: --duration \"%s\": expected seconds from 0.001 to 86400\n",
             durations[i]);
    bad("--duration", durations[i], want);
  }
  bad("--csv", "x.csv", "arenaplan: stress: --csv needs --threads or --duration\n");
  return ap_test_done();
}
