/* `arenaplan stress`: the red line it finds by running the model equals the smallest
 * caller-owned buffer the report measures (itself checked by bisection in test_header.c),
 * from any start; invoke allocates nothing; a model the runtime cannot run is exit 2. */
#include "support/json.h"
#include "test.h"

#include <stdlib.h>

static int cli(const char *args, char **out, bool merge) {
  char cmd[4096], dir[1024];
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s", ap_test_path(dir, sizeof dir, "models"),
           ap_test_cli(), args);
  return ap_test_run(cmd, merge, out);
}

static int64_t field(const char *json, const char *key) {
  ap_json *j = ap_json_parse(json);
  int64_t v = -1;
  CHECK_MSG(j && ap_json_i64(j, key, &v), "%s in %s", key, json ? json : "(null)");
  ap_json_free(j);
  return v;
}

int main(void) {
  ap_test_require_shared();
  char *out = NULL;
  CHECK_EQ(cli("report hello_world_int8.tflite --json", &out, false), 0);
  int64_t buffer = field(out, "estimate.buffer_bytes");
  free(out);
  CHECK(buffer > 0);
  static const char *starts[] = {"", "--start 1K", "--start 1M", "--start 4704"};
  for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
    char args[256];
    snprintf(args, sizeof args, "stress hello_world_int8.tflite --iterations 5 --json %s",
             starts[i]);
    CHECK_EQ(cli(args, &out, false), 0);
    CHECK_EQ(field(out, "red_line_bytes"), buffer);
    CHECK_EQ(field(out, "planned_bytes"), buffer);
    CHECK_EQ(field(out, "allocations_in_invoke"), 0);
    CHECK_EQ(field(out, "mismatches"), 0);
    CHECK_EQ(field(out, "heap_growth_bytes"), 0);
    CHECK_EQ(field(out, "iterations"), 5);
    int64_t red = buffer, rec = (red + red / 10 + 15) / 16 * 16;
    CHECK_EQ(field(out, "recommended_bytes"), rec);
    free(out);
  }
  CHECK_EQ(cli("stress hello_world_int8.tflite --iterations 3", &out, false), 0);
  CHECK_CONTAINS(out, "\ninvoke:       0 allocator calls in ");
  CHECK_CONTAINS(out,
                 "\noutputs:      bit-identical to the naive run at every size that allocated\n");
  CHECK_CONTAINS(out,
                 "\nmemory:       no growth over invokes 2..3 at the red line (malloc's bytes");
  free(out);
  /* No progress bar when stderr is not a terminal. */
  CHECK_EQ(cli("stress hello_world_int8.tflite --iterations 2 2>&1 >/dev/null", &out, false), 0);
  CHECK_STR(out, "");
  free(out);
  CHECK_EQ(cli("stress person_detect_vela.tflite --iterations 2", &out, true), 2);
  CHECK_CONTAINS(out, "arenaplan: person_detect_vela.tflite: the runtime cannot allocate this "
                      "model: unsupported custom op \"ethos-u\"");
  free(out);
  CHECK_EQ(cli("stress hello_world_int8.tflite --iterations 0", &out, true), 2);
  CHECK_CONTAINS(out, "--iterations \"0\": expected 1 to 1000000");
  free(out);
  return ap_test_done();
}
