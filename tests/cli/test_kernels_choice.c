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

  /* --budget: the fastest plan within it (auto), its total within; none fits: exit 1 with the
   * numbers (the smallest plan, the reference kernels' total here, is the CLI's default
   * report); a bad size: a usage error. */
  uint64_t least = 0, fast = 0;
  snprintf(args, sizeof args, "run '%s' --iterations 1 --kernels reference --json", path);
  CHECK_EQ(cli(args, &out), 0);
  char *t = out ? strstr(out, "\"total_bytes\": ") : NULL;
  if (t) least = strtoull(t + 15, NULL, 10);
  free(out);
  snprintf(args, sizeof args, "run '%s' --iterations 1 --kernels fast --json", path);
  CHECK_EQ(cli(args, &out), 0);
  t = out ? strstr(out, "\"total_bytes\": ") : NULL;
  if (t) fast = strtoull(t + 15, NULL, 10);
  free(out);
  CHECK(least > 0 && fast >= least);
  uint64_t mid = least + (fast - least) / 2;
  snprintf(args, sizeof args, "run '%s' --iterations 1 --budget %llu --json", path,
           (unsigned long long)mid);
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(out, "\"kernels\": \"auto\"");
  t = out ? strstr(out, "\"total_bytes\": ") : NULL;
  CHECK(t && strtoull(t + 15, NULL, 10) <= mid);
  free(out);
  snprintf(args, sizeof args, "run '%s' --iterations 1 --budget %llu", path,
           (unsigned long long)least - 1);
  CHECK_EQ(cli(args, &out), 1);
  char want[256], n1[32], n2[32];
  snprintf(want, sizeof want, "does not fit: budget %s B: the smallest plan",
           ap_test_thousands(n1, sizeof n1, least - 1));
  CHECK_CONTAINS(out, want);
  snprintf(want, sizeof want, "needs %s B, 1 B over", ap_test_thousands(n2, sizeof n2, least));
  CHECK_CONTAINS(out, want);
  free(out);
  snprintf(args, sizeof args, "run '%s' --budget 1.5X", path);
  CHECK_EQ(cli(args, &out), 2);
  CHECK_CONTAINS(out, "--budget \"1.5X\": expected a size in bytes");
  free(out);
  /* The header for that point: its budget named, its arena within. */
  snprintf(args, sizeof args, "header '%s' --prefix R --budget %llu", path,
           (unsigned long long)mid);
  CHECK_EQ(cli(args, &out), 0);
  snprintf(want, sizeof want, "#define R_BUDGET %lluu", (unsigned long long)mid);
  CHECK_CONTAINS(out, want);
  free(out);
  /* The report's curve, ends included. */
  snprintf(args, sizeof args, "report '%s' --json", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(out, "\"kernel_curve\": [");
  snprintf(want, sizeof want, "{\"total_bytes\": %llu, ", (unsigned long long)fast);
  CHECK_CONTAINS(out, want);
  free(out);
  snprintf(args, sizeof args, "report '%s'", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(out, "kernels: speed against memory (Pareto points");
  CHECK_CONTAINS(out, "every op fast");
  CHECK_CONTAINS(out, "auto (");
  free(out);
  return ap_test_done();
}
