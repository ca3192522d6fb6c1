/* The lower bound, the plan checker and the reuse count, on problems small enough to work
 * out by hand (the expected values are derived in the comments). */
#include "arenaplan/plan.h"
#include "test.h"

#include <stdlib.h>

static ap_problem *make(uint64_t align, const ap_request *r, size_t n) {
  ap_problem *p = NULL;
  CHECK(ap_problem_create(NULL, &p) == AP_OK);
  CHECK(ap_problem_set_alignment(p, align) == AP_OK);
  for (size_t i = 0; i < n; i++)
    CHECK(ap_problem_add(p, &r[i]) == AP_OK);
  return p;
}

static uint64_t lb(uint64_t align, const ap_request *r, size_t n) {
  ap_problem *p = make(align, r, n);
  uint64_t v = ap_problem_lower_bound(p);
  ap_problem_destroy(p);
  return v;
}

#define LB(align, ...)                                                                             \
  lb(align, (const ap_request[]){__VA_ARGS__},                                                     \
     sizeof((const ap_request[]){__VA_ARGS__}) / sizeof(ap_request))

static void test_lower_bound(void) {
  CHECK_EQ(lb(1, NULL, 0), 0);
  CHECK_EQ(LB(1, {0, 10, 0, 0}), 10);
  /* One request: the arena ends at its plain size, whatever the alignment. */
  CHECK_EQ(LB(16, {0, 10, 0, 0}), 10);
  /* Live together at step 1 only: 100 + 50. */
  CHECK_EQ(LB(1, {0, 100, 0, 1}, {1, 50, 1, 2}, {2, 100, 2, 3}), 150);
  /* Lifetimes are inclusive: [0,2] and [2,4] share step 2. */
  CHECK_EQ(LB(1, {0, 8, 0, 2}, {1, 8, 2, 4}), 16);
  CHECK_EQ(LB(1, {0, 8, 0, 1}, {1, 8, 2, 3}), 8);
  /* Alignment 16, sizes 10 and 20 together: the lower one takes its aligned size, the top
   * one its plain size; best is the 10 below (16 + 20 = 36), not 32 + 10 = 42. */
  CHECK_EQ(LB(16, {0, 10, 0, 0}, {1, 20, 0, 0}), 36);
  /* Alignment 3 (not a power of two): at step 1, 4, 4 and 1 live: aligned 6 + 6 + 3 = 15
   * minus the largest slack 2: 13 (1 at 0, 4 at 3, 4 at 9 ends at 13). */
  CHECK_EQ(LB(3, {0, 4, 0, 1}, {1, 4, 1, 2}, {2, 1, 1, 1}), 13);
  /* Steps may be negative (TFLite Micro's -1). */
  CHECK_EQ(LB(1, {0, 16, -1, -1}, {1, 16, -1, 0}, {2, 16, 0, 0}), 32);
  /* A single large request outweighs a busy step. */
  CHECK_EQ(LB(1, {0, 1000, 0, 0}, {1, 300, 1, 1}, {2, 300, 1, 1}), 1000);
}

static ap_status check(const ap_problem *p, const uint64_t *off, uint64_t arena, char *msg) {
  return ap_plan_check(p, off, arena, msg, 512);
}

static void test_checker(void) {
  char msg[512];
  ap_request r[] = {{1, 100, 0, 2}, {2, 50, 1, 3}, {3, 30, 4, 4}};
  ap_problem *p = make(16, r, 3);
  CHECK_EQ(check(p, (uint64_t[]){0, 112, 0}, 162, msg), AP_OK);
  CHECK_STR(msg, "");
  CHECK_EQ(check(p, (uint64_t[]){0, 64, 0}, 114, msg), AP_ERR_INVALID_PLAN);
  CHECK_STR(msg, "request id 1 (bytes [0, 100), steps [0, 2]) overlaps request id 2 "
                 "(bytes [64, 114), steps [1, 3])");
  /* Reversed in bytes: the message still names the lower one first. */
  CHECK_EQ(check(p, (uint64_t[]){80, 32, 0}, 180, msg), AP_ERR_INVALID_PLAN);
  CHECK_STR(msg, "request id 2 (bytes [32, 82), steps [1, 3]) overlaps request id 1 "
                 "(bytes [80, 180), steps [0, 2])");
  CHECK_EQ(check(p, (uint64_t[]){0, 104, 0}, 154, msg), AP_ERR_INVALID_PLAN);
  CHECK_STR(msg, "request id 2: offset 104 is not a multiple of the alignment 16");
  CHECK_EQ(check(p, (uint64_t[]){0, 112, 0}, 200, msg), AP_ERR_INVALID_PLAN);
  CHECK_STR(msg, "arena is 200 bytes but the highest end is 162 (request id 2)");
  CHECK_EQ(check(p, (uint64_t[]){0, 112, 0}, 100, msg), AP_ERR_INVALID_PLAN);
  CHECK_STR(msg, "arena is 100 bytes but the highest end is 162 (request id 2)");
  CHECK_EQ(check(p, (uint64_t[]){0, 112, UINT64_MAX - 15}, 0, msg), AP_ERR_INVALID_PLAN);
  CHECK_STR(msg, "request id 3: offset 18446744073709551600 + size 30 overflows 64 bits");
  CHECK_EQ(check(p, NULL, 0, msg), AP_ERR_ARG);
  CHECK_EQ(check(NULL, NULL, 0, msg), AP_ERR_ARG);
  /* Touching in bytes is fine; so is overlapping in bytes but not in time. */
  CHECK_EQ(check(p, (uint64_t[]){0, 112, 16}, 162, msg), AP_OK);
  ap_problem_destroy(p);

  ap_problem *empty = make(1, NULL, 0);
  CHECK_EQ(check(empty, NULL, 0, msg), AP_OK);
  CHECK_EQ(check(empty, NULL, 5, msg), AP_ERR_INVALID_PLAN);
  CHECK_STR(msg, "arena is 5 bytes but the problem has no requests");
  ap_problem_destroy(empty);
}

static void test_checker_large(void) {
  /* 200,000 requests in a chain, each sharing a step with the next: alternate offsets pass;
   * then one far from the other in the list collides with a long-lived one. */
  size_t n = 200000;
  ap_problem *p = make(1, NULL, 0);
  uint64_t *off = calloc(n + 1, sizeof *off);
  for (size_t i = 0; i < n; i++) {
    CHECK_EQ(ap_problem_add(p, &(ap_request){i, 10, (int32_t)i, (int32_t)i + 1}), AP_OK);
    off[i] = (i % 2) * 10;
  }
  CHECK_EQ(ap_problem_add(p, &(ap_request){n, 5, 0, (int32_t)n}), AP_OK);
  off[n] = 20;
  char msg[512];
  CHECK_EQ(ap_plan_check(p, off, 25, msg, sizeof msg), AP_OK);
  off[n] = 15;
  CHECK_EQ(ap_plan_check(p, off, 20, msg, sizeof msg), AP_ERR_INVALID_PLAN);
  CHECK_STR(msg, "request id 1 (bytes [10, 20), steps [1, 2]) overlaps request id 200000 "
                 "(bytes [15, 20), steps [0, 200000])");
  free(off);
  ap_problem_destroy(p);
}

static void test_reused(void) {
  /* tflm places C (added last among equal sizes) at 0, then A at 0 (not live with C), then
   * B above both at 100. C starts after A ended and sits on A's bytes: 1 reused. */
  ap_request r[] = {{10, 100, 0, 1}, {11, 50, 1, 2}, {12, 100, 2, 3}};
  ap_problem *p = make(1, r, 3);
  ap_plan *plan = NULL;
  CHECK_EQ(ap_plan_create(p, &(ap_plan_options){.strategy = "tflm"}, &plan), AP_OK);
  const uint64_t *off = ap_plan_offsets(plan);
  CHECK(off[0] == 0 && off[1] == 100 && off[2] == 0);
  CHECK_EQ(ap_plan_reused(p, plan), 1);
  ap_plan_destroy(plan);
  CHECK_EQ(ap_plan_create(p, &(ap_plan_options){.strategy = "naive"}, &plan), AP_OK);
  CHECK_EQ(ap_plan_reused(p, plan), 0);
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
  CHECK_EQ(ap_plan_reused(NULL, NULL), 0);
}

int main(void) {
  test_lower_bound();
  test_checker();
  test_checker_large();
  test_reused();
  return ap_test_done();
}
