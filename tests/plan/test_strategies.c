/* Every strategy on hand-made problems (exact arenas, derived in the comments), on seeded
 * random problems (every plan through the checker, best never above any other), and best on
 * 10,000 and 1,000,000 requests. Never a wall-clock assertion. */
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

/* Plans with one strategy, checks the plan independently, returns the arena (0 on error). */
static uint64_t arena_of(const ap_problem *p, const char *strategy, uint64_t *offsets_out) {
  ap_plan *plan = NULL;
  ap_status st = ap_plan_create(p, &(ap_plan_options){.strategy = strategy}, &plan);
  CHECK_MSG(st == AP_OK, "%s: %s", strategy, ap_plan_error(plan));
  uint64_t arena = 0;
  if (st == AP_OK) {
    char msg[512];
    CHECK_MSG(ap_plan_check(p, ap_plan_offsets(plan), ap_plan_arena(plan), msg, sizeof msg) ==
                  AP_OK,
              "%s: %s", strategy, msg);
    CHECK_STR(ap_plan_strategy(plan), strategy);
    CHECK_STR(ap_plan_error(plan), "");
    CHECK_EQ(ap_plan_count(plan), ap_problem_count(p));
    CHECK(ap_plan_arena(plan) >= ap_plan_lower_bound(plan));
    CHECK_EQ(ap_plan_lower_bound(plan), ap_problem_lower_bound(p));
    CHECK(ap_plan_optimal(plan) == (ap_plan_arena(plan) == ap_plan_lower_bound(plan)));
    arena = ap_plan_arena(plan);
    if (offsets_out)
      memcpy(offsets_out, ap_plan_offsets(plan), ap_problem_count(p) * sizeof(uint64_t));
  }
  ap_plan_destroy(plan);
  return arena;
}

static void test_registry(void) {
  static const char *const expected[] = {
      "naive",          "linear", "tflm",    "tflite", "greedy_size",
      "greedy_breadth", "sweep",  "skyline", "search", "best"};
  size_t n = sizeof expected / sizeof expected[0];
  CHECK(ap_strategy_count() >= n);
  for (size_t i = 0; i < n; i++) {
    CHECK_STR(ap_strategy_name(i), expected[i]);
    CHECK(ap_strategy_summary(i) && strlen(ap_strategy_summary(i)) > 10);
  }
  CHECK(ap_strategy_name(ap_strategy_count()) == NULL);

  ap_problem *p = make(1, NULL, 0);
  ap_plan *plan = NULL;
  CHECK_EQ(ap_plan_create(p, &(ap_plan_options){.strategy = "fastest"}, &plan), AP_ERR_ARG);
  CHECK_CONTAINS(ap_plan_error(plan), "unknown strategy \"fastest\" (valid: naive, linear, "
                                      "tflm, tflite, greedy_size, greedy_breadth, sweep, "
                                      "skyline, search, best");
  ap_plan_destroy(plan);
  /* No requests: an empty plan, optimal. NULL options mean best. */
  CHECK_EQ(ap_plan_create(p, NULL, &plan), AP_OK);
  CHECK_STR(ap_plan_strategy(plan), "best");
  CHECK_EQ(ap_plan_arena(plan), 0);
  CHECK(ap_plan_optimal(plan));
  ap_plan_destroy(plan);
  CHECK_EQ(ap_plan_create(NULL, NULL, &plan), AP_ERR_ARG);
  CHECK_STR(ap_plan_error(plan), "problem is NULL");
  ap_plan_destroy(plan);
  CHECK_EQ(ap_plan_create(p, NULL, NULL), AP_ERR_ARG);
  ap_problem_destroy(p);
}

static void test_hand_made(void) {
  /* A [0,1] 100, B [1,2] 50, C [2,3] 100: A and C can share bytes, B sits above them.
   * Lower bound 150 (step 1 or 2), reached by everything that reuses; naive stacks all. */
  ap_request r[] = {{0, 100, 0, 1}, {1, 50, 1, 2}, {2, 100, 2, 3}};
  ap_problem *p = make(1, r, 3);
  CHECK_EQ(arena_of(p, "naive", NULL), 250);
  CHECK_EQ(arena_of(p, "linear", NULL), 250);
  const char *reuse[] = {"tflm",  "tflite",  "greedy_size", "greedy_breadth",
                         "sweep", "skyline", "search",      "best"};
  for (size_t i = 0; i < sizeof reuse / sizeof reuse[0]; i++)
    CHECK_MSG(arena_of(p, reuse[i], NULL) == 150, "%s", reuse[i]);
  uint64_t off[4];
  /* TFLite's order: A (size 100, first use 0), C (100, 2), B: A at 0, C at 0, B at 100. */
  CHECK_EQ(arena_of(p, "tflite", off), 150);
  CHECK(off[0] == 0 && off[1] == 100 && off[2] == 0);
  ap_problem_destroy(p);

  /* Alignment 16, 10 and 20 bytes live together. Largest first puts 20 at 0 and 10 at 32
   * (42); the optimum puts 10 at 0 and 20 at 16 (36 = the lower bound), which naive finds by
   * luck of order and best by its search. TFLite finds it too: both live through the whole
   * run, so it takes them in index order. */
  ap_request q[] = {{0, 10, 0, 0}, {1, 20, 0, 0}};
  p = make(16, q, 2);
  CHECK_EQ(ap_problem_lower_bound(p), 36);
  CHECK_EQ(arena_of(p, "naive", NULL), 36);
  CHECK_EQ(arena_of(p, "tflm", NULL), 42);
  CHECK_EQ(arena_of(p, "tflite", NULL), 36);
  CHECK_EQ(arena_of(p, "greedy_size", NULL), 42);
  CHECK_EQ(arena_of(p, "best", off), 36);
  CHECK(off[0] == 0 && off[1] == 16);
  ap_problem_destroy(p);

  /* TFLite's whole-run rule: W lives through every step and goes first (offset 0) though it
   * is the smallest; then X and Y (100 each) above it at 8. Z (50, step 1) meets only W: its
   * smallest gap is above W, at 8. Arena 108 = the lower bound. */
  ap_request w[] = {{0, 100, 0, 0}, {1, 8, 0, 2}, {2, 100, 2, 2}, {3, 50, 1, 1}};
  p = make(1, w, 4);
  CHECK_EQ(arena_of(p, "tflite", off), 108);
  CHECK(off[0] == 8 && off[1] == 0 && off[2] == 8 && off[3] == 8);
  /* TFLite Micro: by size, the later-added of equal sizes first: Y at 0, X at 0, Z (50) at 0
   * (it meets neither), W (meets all) at 100. */
  CHECK_EQ(arena_of(p, "tflm", off), 108);
  CHECK(off[0] == 0 && off[1] == 100 && off[2] == 0 && off[3] == 0);
  ap_problem_destroy(p);

  /* Negative steps and requests of one step. */
  ap_request neg[] = {{0, 16, -1, -1}, {1, 16, -1, 0}, {2, 16, 0, 0}};
  p = make(1, neg, 3);
  CHECK_EQ(arena_of(p, "best", NULL), 32);
  CHECK_EQ(arena_of(p, "tflm", NULL), 32);
  ap_problem_destroy(p);
}

/* Extreme steps and sizes: every strategy plans them without overflow. */
static void test_extremes(void) {
  ap_request r[] = {{0, 1ull << 40, INT32_MIN, INT32_MAX},
                    {1, 3, 0, 0},
                    {2, 5, INT32_MAX, INT32_MAX},
                    {3, (1ull << 40) + 1, INT32_MIN, INT32_MIN}};
  ap_problem *p = make(8, r, 4);
  /* At INT32_MIN: 2^40 (aligned) + 2^40 + 1 = 2^41 + 1. */
  CHECK_EQ(ap_problem_lower_bound(p), (1ull << 41) + 1);
  for (size_t s = 0; s < ap_strategy_count(); s++) {
    const char *name = ap_strategy_name(s);
    if (strcmp(name, "exact") == 0) continue;
    uint64_t a = arena_of(p, name, NULL);
    CHECK_MSG(a >= (1ull << 41) + 1, "%s: %llu", name, (unsigned long long)a);
  }
  CHECK_EQ(arena_of(p, "best", NULL), (1ull << 41) + 1);
  ap_problem_destroy(p);
}

static void test_random(void) {
  uint64_t aligns[] = {1, 16, 3, 64};
  size_t sizes[] = {1, 2, 5, 20, 100, 400};
  for (uint64_t seed = 1; seed <= 24; seed++) {
    ap_problem *p = make(aligns[seed % 4], NULL, 0);
    size_t n = sizes[seed % 6];
    CHECK_EQ(ap_test_random_problem(p, n, seed), AP_OK);
    uint64_t best = arena_of(p, "best", NULL);
    for (size_t s = 0; s < ap_strategy_count(); s++) {
      const char *name = ap_strategy_name(s);
      if (strcmp(name, "exact") == 0) continue; /* its own tests; it can take its budget */
      uint64_t a = arena_of(p, name, NULL);
      CHECK_MSG(a >= ap_problem_lower_bound(p), "%s seed %llu", name, (unsigned long long)seed);
      if (strcmp(name, "naive") != 0 && strcmp(name, "linear") != 0)
        CHECK_MSG(best <= a, "best %llu > %s %llu (seed %llu)", (unsigned long long)best, name,
                  (unsigned long long)a, (unsigned long long)seed);
    }
    ap_problem_destroy(p);
  }
}

static void test_deterministic(void) {
  ap_problem *p = make(16, NULL, 0);
  CHECK_EQ(ap_test_random_problem(p, 300, 77), AP_OK);
  size_t n = ap_problem_count(p);
  uint64_t *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
  for (size_t s = 0; s < ap_strategy_count(); s++) {
    const char *name = ap_strategy_name(s);
    if (strcmp(name, "exact") == 0) continue;
    uint64_t x = arena_of(p, name, a), y = arena_of(p, name, b);
    CHECK_MSG(x == y && memcmp(a, b, n * sizeof *a) == 0, "%s differs between runs", name);
  }
  free(a);
  free(b);
  ap_problem_destroy(p);
}

/* tflm against a literal, quadratic transcription of TFLite Micro's planner
 * (tests/support/tflm_literal.c): the same offsets, request for request. */
static void test_tflm_literal(void) {
  for (uint64_t seed = 100; seed < 130; seed++) {
    ap_problem *p = make(seed % 2 ? 16 : 1, NULL, 0);
    size_t n = 1 + (size_t)(seed * 37 % 300);
    CHECK_EQ(ap_test_random_problem(p, n, seed), AP_OK);
    /* Many equal sizes, so the tie rule matters. */
    uint64_t *lit = calloc(n, sizeof *lit), *ours = calloc(n, sizeof *ours), head = 0;
    CHECK_EQ(ap_test_tflm_literal(p, lit, &head), 0);
    arena_of(p, "tflm", ours);
    CHECK_MSG(memcmp(lit, ours, n * sizeof *lit) == 0, "seed %llu", (unsigned long long)seed);
    free(lit);
    free(ours);
    ap_problem_destroy(p);
  }
  /* Equal sizes only: the order is all tie rule (the later-added first). */
  ap_problem *p = make(1, NULL, 0);
  for (int i = 0; i < 40; i++)
    CHECK_EQ(ap_problem_add(p, &(ap_request){(uint64_t)i, 64, i % 7, i % 7 + i % 3}), AP_OK);
  uint64_t lit[40], ours[40], head;
  CHECK_EQ(ap_test_tflm_literal(p, lit, &head), 0);
  arena_of(p, "tflm", ours);
  CHECK(memcmp(lit, ours, sizeof lit) == 0);
  ap_problem_destroy(p);
}

/* An allocator that fails after a set number of allocations: every strategy must then
 * return an error (or a checked plan), never crash or leak (the ASan build checks). */
static long budget, live;
static void *tight_alloc(void *ctx, size_t n) {
  (void)ctx;
  if (budget-- <= 0) return NULL;
  live++;
  return malloc(n ? n : 1);
}
static void tight_free(void *ctx, void *ptr) {
  (void)ctx;
  if (ptr) live--;
  free(ptr);
}

static void test_out_of_memory(void) {
  ap_allocator tight = {tight_alloc, tight_free, NULL};
  for (size_t s = 0; s < ap_strategy_count(); s++) {
    const char *name = ap_strategy_name(s);
    if (strcmp(name, "exact") == 0) continue;
    bool succeeded = false;
    for (long fail_at = 0; fail_at < 200 && !succeeded; fail_at++) {
      budget = 1000;
      live = 0;
      ap_problem *p = NULL;
      CHECK_EQ(ap_problem_create(&tight, &p), AP_OK);
      CHECK_EQ(ap_test_random_problem(p, 60, 3), AP_OK);
      budget = fail_at;
      ap_plan *plan = NULL;
      ap_status st = ap_plan_create(p, &(ap_plan_options){.strategy = name}, &plan);
      if (st == AP_OK) {
        char msg[512];
        budget = 1000;
        CHECK_EQ(ap_plan_check(p, ap_plan_offsets(plan), ap_plan_arena(plan), msg, sizeof msg),
                 AP_OK);
        succeeded = true;
      } else {
        CHECK_MSG(st == AP_ERR_NOMEM || (plan && ap_plan_error(plan)[0]), "%s: status %s", name,
                  ap_status_name(st));
      }
      ap_plan_destroy(plan);
      ap_problem_destroy(p);
      CHECK_MSG(live == 0, "%s leaks %ld blocks when allocation %ld fails", name, live, fail_at);
    }
    CHECK_MSG(succeeded, "%s never succeeded", name);
  }
}

static void test_large(void) {
  ap_problem *p = make(16, NULL, 0);
  CHECK_EQ(ap_test_random_problem(p, 10000, 5), AP_OK);
  uint64_t best = arena_of(p, "best", NULL);
  CHECK(best > 0 && best <= arena_of(p, "tflm", NULL) && best <= arena_of(p, "tflite", NULL));
  ap_problem_destroy(p);

  p = make(16, NULL, 0);
  CHECK_EQ(ap_test_random_problem(p, 1000000, 6), AP_OK);
  ap_plan *plan = NULL;
  CHECK_EQ(ap_plan_create(p, NULL, &plan), AP_OK);
  char msg[512];
  CHECK_EQ(ap_plan_check(p, ap_plan_offsets(plan), ap_plan_arena(plan), msg, sizeof msg), AP_OK);
  /* Far below no reuse at all: the plan really shares bytes. */
  CHECK(ap_plan_arena(plan) < ap_problem_lower_bound(p) * 2);
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
}

int main(void) {
  test_registry();
  test_hand_made();
  test_extremes();
  test_random();
  test_deterministic();
  test_tflm_literal();
  test_out_of_memory();
  test_large();
  return ap_test_done();
}
