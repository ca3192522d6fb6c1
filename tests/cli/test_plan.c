/* The plan, compare and headline commands: exact figures where they are known independently
 * (the lower bound, TFLite Micro's measured head), budgets, JSON, and bad usage. */
#include "test.h"

#include <stdlib.h>

static int run(const char *args, char **out) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "%s %s", ap_test_cli(), args);
  return ap_test_run(cmd, true, out);
}

static void expect(const char *args, int status, const char *needle) {
  char *out = NULL;
  int st = run(args, &out);
  CHECK_MSG(st == status, "%s: exit %d, expected %d\n%s", args, st, status, out ? out : "");
  if (needle) CHECK_CONTAINS(out, needle);
  free(out);
}

int main(void) {
  ap_test_require_shared();
  char vww[4096], hw[4096], args[8192];
  ap_test_path(vww, sizeof vww, "models/mlperf_vww_int8.tflite");
  ap_test_path(hw, sizeof hw, "models/hello_world_float.tflite");

  /* vww: best reaches the lower bound (55,296); TFLite Micro's rules and planner give exactly
   * its measured head (73,728, shared/bench/tflm_arena.tsv). */
  snprintf(args, sizeof args, "plan %s --json", vww);
  expect(args, 0, "\"arena_bytes\": 55296");
  expect(args, 0, "\"lower_bound_bytes\": 55296");
  expect(args, 0, "\"optimal\": true");
  snprintf(args, sizeof args, "plan %s --rules tflm --strategy tflm", vww);
  expect(args, 0, "arena: 73728 bytes, 32 requests");
  snprintf(args, sizeof args, "plan %s", vww);
  expect(args, 0, "arena:        55,296 B (54.0 KiB)");

  /* In place: TFLite's ArenaPlanner with its own in-place sharing, measured with TFLite's code
   * (issue 11): conformer_float 39,144,856 -> 23,332,824. TFLite Micro has no in-place. */
  char conformer[4096];
  ap_test_path(conformer, sizeof conformer, "models/conformer_float.tflite");
  snprintf(args, sizeof args, "plan %s --strategy tflite --rules tflite --align 64", conformer);
  expect(args, 0, "arena: 39144856 bytes");
  snprintf(args, sizeof args, "plan %s --strategy tflite --rules tflite --align 64 --inplace",
           conformer);
  expect(args, 0, "arena: 23332824 bytes");
  expect(args, 0, "64-byte alignment, in-place)");
  /* vww in place: its pointwise conv 48x48x8 -> 48x48x16 (1x1, stride 1) must start its
   * output 48*768 - 47*384 = 18,816 bytes below its input, and the 3x3 stride-2 depthwise
   * after it (48x48x16 -> 24x24x16, no top padding) its output 384 below that: 384 + 18,816 +
   * 18,432 = 37,632 bytes. Leaving either pair apart needs 46,080 or more, so 37,632 is the
   * least any plan can have; best finds it. */
  snprintf(args, sizeof args, "plan %s --inplace", vww);
  expect(args, 0, "arena:        37,632 B (36.8 KiB)");
  /* The lower bound counts that chain (pairwise, each step fits 37,248), and exact, which
   * searches the overlaps, proves it. */
  expect(args, 0, "lower bound:  37,632 B (36.8 KiB)");
  snprintf(args, sizeof args, "plan %s --inplace --strategy exact", vww);
  expect(args, 0, "arena:        37,632 B (36.8 KiB)");
  expect(args, 0, "ratio:        1.000 (optimal)");
  snprintf(args, sizeof args, "plan %s --inplace --json", vww);
  expect(args, 0, "\"inplace\": true");
  snprintf(args, sizeof args, "plan %s --json", vww);
  expect(args, 0, "\"inplace\": false");
  snprintf(args, sizeof args, "plan %s --rules tflm --inplace", vww);
  expect(args, 2, "in-place sharing is not part of TFLite Micro's rules");
  snprintf(args, sizeof args, "run %s --inplace --iterations 1", hw);
  expect(args, 0, "in-place    on");

  /* Budgets: the plan's arena against the budget, in the words. */
  snprintf(args, sizeof args, "plan %s --budget 54K", vww);
  expect(args, 0, "fits");
  snprintf(args, sizeof args, "plan %s --budget 50000", vww);
  expect(args, 1, "does not fit: needs 55,296 B, budget 50,000 B (short by 5,296 B)");
  snprintf(args, sizeof args, "plan %s --budget 12Q", vww);
  expect(args, 2, "--budget \"12Q\"");
  snprintf(args, sizeof args, "plan %s --budget -5", vww);
  expect(args, 2, "--budget \"-5\"");

  /* The per-tensor table: hello_world's four planned tensors at known offsets. */
  snprintf(args, sizeof args, "plan %s --tensors --json", hw);
  expect(args, 0, "\"requests\": 4");
  expect(args, 0, "\"name\": \"StatefulPartitionedCall:0\"");

  /* Bad usage and input: one line, exit 2. */
  snprintf(args, sizeof args, "plan %s --strategy nope", vww);
  expect(args, 2, "unknown strategy \"nope\"; one of: naive");
  snprintf(args, sizeof args, "plan %s --subgraph 7", vww);
  expect(args, 2, "subgraph 7 out of range (model has 1)");
  snprintf(args, sizeof args, "plan %s --align 0", vww);
  expect(args, 2, "--align \"0\"");
  expect("plan", 2, "no model given");
  expect("plan /nonexistent.tflite", 2,
         "arenaplan: /nonexistent.tflite: cannot open: No such file or directory");
  expect("plan --frobnicate x", 2, "unknown option --frobnicate");
  expect("plan --help", 0, "usage: arenaplan plan MODEL");

  /* compare: every strategy, and the savings measured against the runtimes in the same run. */
  snprintf(args, sizeof args, "compare %s --json", vww);
  expect(args, 0, "\"tflm_head_bytes\": 73728");
  expect(args, 0, "{\"strategy\": \"best\", \"arena_bytes\": 55296");
  expect(args, 0, "\"saving_vs_tflm_pct\": 25.00");
  snprintf(args, sizeof args, "compare %s", vww);
  expect(args, 0, "tflm                     73,728");

  /* The headline. */
  snprintf(args, sizeof args, "%s", vww);
  expect(args, 0, "TFLite Micro would need: 73,728 B (72.0 KiB)  (33.3% more)");
  snprintf(args, sizeof args, "%s --json", vww);
  expect(args, 0, "\"weight_bytes\": 219072");
  expect("nosuchcommand", 2, "arenaplan: nosuchcommand: unknown command");
  return ap_test_done();
}
