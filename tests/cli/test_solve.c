/* arenaplan solve: output, JSON, --out and exit codes, on a problem worked out by hand:
 * A [0,2) 100, B [1,3) 50, C [2,4) 100 (MiniMalloc steps, upper exclusive). Lower bound 150;
 * the optimum puts A and C at 0 and B at 100; C then sits on bytes A used: 1 reused. */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/ap_test_solve_XXXXXX";

static const char *write_file(const char *name, const char *text) {
  static char path[8][512];
  static int k;
  char *p = path[k++ % 8];
  snprintf(p, 512, "%s/%s", dir, name);
  FILE *f = fopen(p, "w");
  CHECK(f != NULL);
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return p;
}

static int solve(const char *args, char **out, bool merge) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s solve %s", ap_test_cli(), args);
  return ap_test_run(cmd, merge, out);
}

int main(void) {
  CHECK(mkdtemp(dir) != NULL);
  const char *abc = write_file("abc.csv", "id,lower,upper,size\n0,0,2,100\n1,1,3,50\n2,2,4,100\n");
  char args[1024], *out = NULL;

  snprintf(args, sizeof args, "%s", abc);
  CHECK_EQ(solve(args, &out, false), 0);
  CHECK_CONTAINS(out, "strategy:    best\n");
  CHECK_CONTAINS(out, "arena:       150 B\n");
  CHECK_CONTAINS(out, "lower bound: 150 B\n");
  CHECK_CONTAINS(out, "ratio:       1.0000\n");
  CHECK_CONTAINS(out, "optimal:     yes\n");
  CHECK_CONTAINS(out, "(3 requests, alignment 1)");
  CHECK_CONTAINS(out, "\narena: 150 bytes, 3 requests, 1 reused\n");
  free(out);

  snprintf(args, sizeof args, "%s --json", abc);
  CHECK_EQ(solve(args, &out, false), 0);
  CHECK_CONTAINS(out, "\"strategy\": \"best\"");
  CHECK_CONTAINS(out, "\"arena_bytes\": 150,");
  CHECK_CONTAINS(out, "\"lower_bound_bytes\": 150,");
  CHECK_CONTAINS(out, "\"optimal\": true,");
  CHECK_CONTAINS(out, "\"plan_time_ms\": ");
  CHECK_CONTAINS(out, "\"requests\": 3,");
  CHECK_CONTAINS(out, "\"reused\": 1}");
  free(out);

  snprintf(args, sizeof args, "%s --strategy naive", abc);
  CHECK_EQ(solve(args, &out, false), 0);
  CHECK_CONTAINS(out, "arena:       250 B\n");
  CHECK_CONTAINS(out, "ratio:       1.6667\n");
  CHECK_CONTAINS(out, "optimal:     not proven\n");
  CHECK_CONTAINS(out, "\narena: 250 bytes, 3 requests, 0 reused\n");
  free(out);

  /* TFLite's order: A, C (size 100, by first use), B: offsets 0, 100, 0. */
  char plan_path[600];
  snprintf(plan_path, sizeof plan_path, "%s/plan.csv", dir);
  snprintf(args, sizeof args, "%s --strategy tflite --out %s", abc, plan_path);
  CHECK_EQ(solve(args, &out, false), 0);
  free(out);
  size_t plan_len = 0;
  char *plan = (char *)ap_test_read_file(plan_path, &plan_len);
  const char *want_plan = "id,lower,upper,size,offset\n0,0,2,100,0\n1,1,3,50,100\n2,2,4,100,0\n";
  CHECK(plan != NULL && plan_len == strlen(want_plan) && memcmp(plan, want_plan, plan_len) == 0);
  free(plan);

  /* Named ids, as MiniMalloc's examples/input.12.csv writes them: kept in --out. Same
   * problem as abc.csv, so the same offsets. */
  const char *named = write_file("named.csv", "id,lower,upper,size\nb1,0,2,100\nb2,1,3,50\n"
                                              "b3,2,4,100\n");
  snprintf(args, sizeof args, "%s --strategy tflite --out %s", named, plan_path);
  CHECK_EQ(solve(args, &out, false), 0);
  free(out);
  plan = (char *)ap_test_read_file(plan_path, &plan_len);
  want_plan = "id,lower,upper,size,offset\nb1,0,2,100,0\nb2,1,3,50,100\nb3,2,4,100,0\n";
  CHECK(plan != NULL && plan_len == strlen(want_plan) && memcmp(plan, want_plan, plan_len) == 0);
  free(plan);

  /* Alignment 16: 10 and 20 bytes together: 10 at 0, 20 at 16 ends at 36. */
  const char *al = write_file("align.csv", "0,0,1,10\n1,0,1,20\n");
  snprintf(args, sizeof args, "%s --align 16 --json", al);
  CHECK_EQ(solve(args, &out, false), 0);
  CHECK_CONTAINS(out, "\"alignment\": 16, \"arena_bytes\": 36, \"lower_bound_bytes\": 36,");
  free(out);

  /* Bad input: exit 2, one line naming the file, the line and the field. */
  const char *bad = write_file("bad.csv", "id,lower,upper,size\n0,0,2,10\n1,5,5,3\n");
  snprintf(args, sizeof args, "%s", bad);
  CHECK_EQ(solve(args, &out, true), 2);
  char want[700];
  snprintf(want, sizeof want, "arenaplan: %s: line 3: lower 5 >= upper 5\n", bad);
  CHECK_STR(out, want);
  free(out);
  const char *neg = write_file("neg.csv", "0,0,2,-5\n");
  snprintf(args, sizeof args, "%s", neg);
  CHECK_EQ(solve(args, &out, true), 2);
  snprintf(want, sizeof want, "arenaplan: %s: line 1: size \"-5\" is not a positive integer\n",
           neg);
  CHECK_STR(out, want);
  free(out);

  snprintf(args, sizeof args, "%s --strategy fastest", abc);
  CHECK_EQ(solve(args, &out, true), 2);
  CHECK_CONTAINS(out, "unknown strategy \"fastest\" (valid: naive, linear, tflm, tflite,");
  free(out);
  snprintf(args, sizeof args, "%s/missing.csv", dir);
  CHECK_EQ(solve(args, &out, true), 2);
  CHECK_CONTAINS(out, "missing.csv: cannot read: No such file or directory");
  free(out);
  CHECK_EQ(solve("", &out, true), 2);
  CHECK_CONTAINS(out, "no problem file");
  free(out);
  snprintf(args, sizeof args, "%s --align 0", abc);
  CHECK_EQ(solve(args, &out, true), 2);
  CHECK_CONTAINS(out, "--align \"0\": expected a positive integer");
  free(out);
  snprintf(args, sizeof args, "%s --budget -1", abc);
  CHECK_EQ(solve(args, &out, true), 2);
  free(out);
  CHECK_EQ(solve("--strategy list", &out, false), 0);
  CHECK_CONTAINS(out, "  tflm ");
  CHECK_CONTAINS(out, "  best ");
  free(out);
  CHECK_EQ(solve("--help", &out, false), 0);
  CHECK_CONTAINS(out, "usage: arenaplan solve PROBLEM.csv");
  free(out);

  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK_EQ(system(cmd), 0);
  return ap_test_done();
}
