/* --kernels fast|small|reference and --small-scratch on run, report and header: the kernels
 * each prints, the report's side-by-side costs (text and JSON) and per-op differences, the
 * header's per-choice arenas and NAME_KERNELS, the budget's effect, and bad values refused
 * with a usage error. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

static int cli(const char *args, char **out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s", ap_test_cli(), args);
  return ap_test_run(cmd, true, out);
}

int main(void) {
  ap_test_require_shared();
  char path[512], args[1024];
  ap_test_path(path, sizeof path, "models/mlperf_ic_resnet_int8.tflite");
  char *out = NULL;

  snprintf(args, sizeof args, "run '%s' --iterations 1 --kernels small", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(out, "kernels     small (");
  free(out);
  snprintf(args, sizeof args, "run '%s' --iterations 1 --small-scratch 4K --json", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(out, "\"kernels\": \"small\"");
  free(out);
  snprintf(args, sizeof args, "run '%s' --kernels tiny", path);
  CHECK_EQ(cli(args, &out), 2);
  CHECK_CONTAINS(out, "--kernels \"tiny\": expected auto, fast, small or reference");
  free(out);
  snprintf(args, sizeof args, "run '%s' --small-scratch 0", path);
  CHECK_EQ(cli(args, &out), 2);
  CHECK_CONTAINS(out, "--small-scratch \"0\": expected a size in bytes");
  free(out);

  /* The report lists the three choices, marks the planned one, and the ops that differ. */
  snprintf(args, sizeof args, "report '%s' --kernels reference", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(out, "kernels (one thread each)");
  CHECK_CONTAINS(out, "  reference *");
  CHECK_CONTAINS(out, "scratch per op where the kernels differ");
  CHECK_CONTAINS(out, "op 0 CONV_2D");
  free(out);
  snprintf(args, sizeof args, "report '%s' --json", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(out, "\"kernels\": \"fast\"");
  CHECK_CONTAINS(out, "\"kernel_choices\": [");
  CHECK_CONTAINS(out, "{\"kernels\": \"reference\", \"ok\": true, \"level\": \"reference\", "
                      "\"arena_bytes\": 49280,");
  free(out);

  /* The header: each choice's arena; small and reference name the kernels to set. */
  snprintf(args, sizeof args, "header '%s' --prefix R --kernels small --small-scratch 2048", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(out, "#define R_ARENA_BYTES_REFERENCE 49280u");
  CHECK_CONTAINS(out, "#define R_ARENA_BYTES_SMALL ");
  CHECK_CONTAINS(out, "#define R_ARENA_BYTES_FAST ");
  CHECK_CONTAINS(out, "#define R_KERNELS AP_KERNELS_SMALL");
  CHECK_CONTAINS(out, "#define R_SMALL_SCRATCH 2048u");
  free(out);
  snprintf(args, sizeof args, "header '%s' --prefix R", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK(!strstr(out, "R_KERNELS "));
  free(out);
  return ap_test_done();
}
