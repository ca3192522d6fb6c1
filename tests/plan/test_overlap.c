/* Permitted overlaps (ap_overlap): validation, the checker (accepts exactly what a pair's lead
 * allows), the lower bound and the plans, on problems small enough to work out by hand. */
#include "arenaplan/plan.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

/* A [0, 1] and B [1, 2], 100 bytes each: B is born at A's last step. */
static ap_problem *pair(uint64_t align, int64_t lead) {
  ap_problem *p = NULL;
  CHECK(ap_problem_create(NULL, &p) == AP_OK);
  CHECK(ap_problem_set_alignment(p, align) == AP_OK);
  CHECK(ap_problem_add(p, &(ap_request){.id = 10, .size = 100, .first = 0, .last = 1}) == AP_OK);
  CHECK(ap_problem_add(p, &(ap_request){.id = 11, .size = 100, .first = 1, .last = 2}) == AP_OK);
  CHECK_EQ(ap_problem_add_overlap(p, &(ap_overlap){.in = 0, .out = 1, .lead = lead}), AP_OK);
  return p;
}

static ap_status check(const ap_problem *p, const uint64_t *off, uint64_t arena, char *msg) {
  return ap_plan_check(p, off, arena, msg, 512);
}

static void validation(void) {
  ap_problem *p = pair(1, 20);
  CHECK_EQ(ap_problem_overlap_count(p), 1);
  CHECK_EQ(ap_problem_overlaps(p)[0].lead, 20);
  CHECK_EQ(ap_problem_add_overlap(p, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_problem_add_overlap(p, &(ap_overlap){.in = 1, .out = 1}), AP_ERR_RANGE);
  CHECK_STR(ap_problem_error(p),
            "overlap of request 1 into request 1: two different indices below 2");
  CHECK_EQ(ap_problem_add_overlap(p, &(ap_overlap){.in = 0, .out = 2}), AP_ERR_RANGE);
  /* B into A: A is not born at B's last step. */
  CHECK_EQ(ap_problem_add_overlap(p, &(ap_overlap){.in = 1, .out = 0}), AP_ERR_ARG);
  CHECK_STR(ap_problem_error(p),
            "overlap of request id 11 (steps [1, 2]) into request id 10 (steps [0, 1]): the "
            "second must start at the first's last step, and one of them live at another step "
            "too");
  CHECK(ap_problem_add(p, &(ap_request){.id = 12, .size = 8, .first = 1, .last = 1}) == AP_OK);
  /* Both only at step 1: rejected (a chain of such could close a cycle). */
  CHECK(ap_problem_add(p, &(ap_request){.id = 14, .size = 8, .first = 1, .last = 1}) == AP_OK);
  CHECK_EQ(ap_problem_add_overlap(p, &(ap_overlap){.in = 2, .out = 3}), AP_ERR_ARG);
  /* A already has an overlap as `in`. */
  CHECK_EQ(ap_problem_add_overlap(p, &(ap_overlap){.in = 0, .out = 2}), AP_ERR_ARG);
  CHECK_CONTAINS(ap_problem_error(p), "already has an overlap");
  CHECK(ap_problem_add(p, &(ap_request){.id = 13, .size = 8, .first = 2, .last = 3}) == AP_OK);
  CHECK_EQ(ap_problem_add_overlap(p, &(ap_overlap){.in = 1, .out = 4, .lead = (int64_t)1 << 62}),
           AP_OK);
  ap_problem_destroy(p);
  p = pair(1, 0);
  CHECK(ap_problem_add(p, &(ap_request){.id = 12, .size = 8, .first = 2, .last = 3}) == AP_OK);
  CHECK_EQ(ap_problem_add_overlap(
               p, &(ap_overlap){.in = 1, .out = 2, .lead = -(((int64_t)1 << 62) + 1)}),
           AP_ERR_RANGE);
  CHECK_EQ(ap_problem_add_overlap(NULL, &(ap_overlap){0}), AP_ERR_ARG);
  ap_problem_destroy(p);
}

static void checker(void) {
  char msg[512];
  ap_problem *p = pair(1, 20);
  /* B may start 20 or more bytes below A. */
  CHECK_EQ(check(p, (uint64_t[]){20, 0}, 120, msg), AP_OK);
  CHECK_EQ(check(p, (uint64_t[]){50, 0}, 150, msg), AP_OK);
  CHECK_EQ(check(p, (uint64_t[]){0, 100}, 200, msg), AP_OK); /* disjoint is always fine */
  CHECK_EQ(check(p, (uint64_t[]){19, 0}, 119, msg), AP_ERR_INVALID_PLAN);
  CHECK_STR(msg, "request id 11 (bytes [0, 100)) overlaps request id 10 (bytes [19, 119)) at "
                 "step 1, which it may only from at least 20 bytes below it");
  CHECK_EQ(check(p, (uint64_t[]){0, 0}, 100, msg), AP_ERR_INVALID_PLAN);
  CHECK_EQ(check(p, (uint64_t[]){0, 20}, 120, msg), AP_ERR_INVALID_PLAN);
  /* A third request at step 1 must stay clear of both: the pair's bytes are [0, 120). */
  CHECK(ap_problem_add(p, &(ap_request){.id = 12, .size = 10, .first = 1, .last = 1}) == AP_OK);
  CHECK_EQ(check(p, (uint64_t[]){20, 0, 120}, 130, msg), AP_OK);
  CHECK_EQ(check(p, (uint64_t[]){20, 0, 115}, 125, msg), AP_ERR_INVALID_PLAN);
  CHECK_CONTAINS(msg, "request id 12");
  /* In the gap of a disjoint pair it fits. */
  CHECK_EQ(check(p, (uint64_t[]){110, 0, 100}, 210, msg), AP_OK);
  ap_problem_destroy(p);
  /* lead -30: B may also start up to 30 bytes above A. */
  p = pair(1, -30);
  CHECK_EQ(check(p, (uint64_t[]){0, 30}, 130, msg), AP_OK);
  CHECK_EQ(check(p, (uint64_t[]){0, 0}, 100, msg), AP_OK);
  CHECK_EQ(check(p, (uint64_t[]){0, 31}, 131, msg), AP_ERR_INVALID_PLAN);
  ap_problem_destroy(p);
}

static uint64_t best_arena(const ap_problem *p, const char *strategy) {
  ap_plan *plan = NULL;
  ap_status st = ap_plan_create(p, &(ap_plan_options){.strategy = strategy}, &plan);
  CHECK_MSG(st == AP_OK, "%s: %s", strategy, ap_plan_error(plan));
  char msg[512];
  CHECK_EQ(ap_plan_check(p, ap_plan_offsets(plan), ap_plan_arena(plan), msg, sizeof msg), AP_OK);
  uint64_t a = ap_plan_arena(plan);
  ap_plan_destroy(plan);
  return a;
}

static void bounds_and_plans(void) {
  /* At step 1 the pair covers at least max(100, 20 + 100) = 120 bytes. */
  ap_problem *p = pair(1, 20);
  CHECK_EQ(ap_problem_lower_bound(p), 120);
  CHECK_EQ(best_arena(p, "best"), 120);
  CHECK_EQ(best_arena(p, "naive"), 120); /* merged, the pair is one block for any strategy */
  ap_problem_destroy(p);
  /* Alignment 16: B's offset and A's differ by a multiple of 16, at least 32: 32 + 100. */
  p = pair(16, 20);
  CHECK_EQ(ap_problem_lower_bound(p), 132);
  CHECK_EQ(best_arena(p, "best"), 132);
  ap_problem_destroy(p);
  /* lead <= 0: both at one offset. */
  p = pair(1, -5);
  CHECK_EQ(ap_problem_lower_bound(p), 100);
  CHECK_EQ(best_arena(p, "best"), 100);
  ap_problem_destroy(p);
  /* An `in` that lives only at the pair's step (a graph input read by the first op): 50
   * bytes [1, 1] into 100 bytes [1, 2] with lead 10: max(100, 10 + 50) = 100. */
  {
    ap_problem *q = NULL;
    CHECK(ap_problem_create(NULL, &q) == AP_OK);
    CHECK(ap_problem_add(q, &(ap_request){.id = 0, .size = 50, .first = 1, .last = 1}) == AP_OK);
    CHECK(ap_problem_add(q, &(ap_request){.id = 1, .size = 100, .first = 1, .last = 2}) == AP_OK);
    CHECK_EQ(ap_problem_add_overlap(q, &(ap_overlap){.in = 0, .out = 1, .lead = 10}), AP_OK);
    CHECK_EQ(ap_problem_lower_bound(q), 100);
    CHECK_EQ(best_arena(q, "best"), 100);
    ap_problem_destroy(q);
  }
  /* lead >= B's size: no byte can be shared; the bound is the plain one. */
  p = pair(1, 100);
  CHECK_EQ(ap_problem_lower_bound(p), 200);
  CHECK_EQ(best_arena(p, "best"), 200);
  ap_problem_destroy(p);
  /* A chain A -> B -> C, 100 bytes and lead 20 each: every step needs 120, but C must start
   * 20 below B (so B at 20 or more, A at 40 or more: 140) or clear of B (200). The chain
   * bound sees it: 140, and exact proves it. */
  p = pair(1, 20);
  CHECK(ap_problem_add(p, &(ap_request){.id = 12, .size = 100, .first = 2, .last = 3}) == AP_OK);
  CHECK_EQ(ap_problem_add_overlap(p, &(ap_overlap){.in = 1, .out = 2, .lead = 20}), AP_OK);
  CHECK_EQ(ap_problem_lower_bound(p), 140);
  CHECK_EQ(best_arena(p, "best"), 140);
  CHECK_EQ(best_arena(p, "tflite"), 140);
  ap_plan *plan = NULL;
  CHECK(ap_plan_create(p, &(ap_plan_options){.strategy = "exact"}, &plan) == AP_OK);
  CHECK_EQ(ap_plan_arena(plan), 140);
  CHECK(ap_plan_optimal(plan));
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
}

/* mlperf_vww_int8 in place (its requests and leads from `arenaplan plan --inplace`, 16-byte
 * alignment). Pairwise, every step fits 37,248 bytes; but the pointwise conv's output (36,864
 * bytes, steps [2, 3]) must start 18,816 below its input and the stride-2 depthwise's output
 * 384 below it, so the chain needs 384 + 18,816 + 18,432 = 37,632 (keeping either pair apart
 * needs 46,080). exact reaches it, honouring the overlaps, and the bound proves it. */
static bool valid_by_bytes(const ap_problem *p, const uint64_t *off);
static void vww_in_place(void) {
  static const uint64_t size[] = {27648, 18432, 18432, 36864, 9216, 18432, 18432, 18432,
                                  4608,  9216,  9216,  9216,  2304, 4608,  4608,  4608,
                                  4608,  4608,  4608,  4608,  4608, 4608,  4608,  4608,
                                  1152,  2304,  2304,  2304,  256,  2,     2};
  static const int64_t lead[] = {384, 768,  18816, 384, 9600, 1536, 768,
                                 384, 4992, 1536,  768, 384,  2688, 1536};
  ap_problem *p = NULL;
  CHECK(ap_problem_create(NULL, &p) == AP_OK);
  CHECK(ap_problem_set_alignment(p, 16) == AP_OK);
  for (size_t i = 0; i < 31; i++) {
    int32_t first = i == 0 ? 0 : (int32_t)i - 1, last = (int32_t)i;
    if (i == 28) last = 29; /* the pooled vector lives through the reshape (a view) */
    if (i >= 29) first = (int32_t)i, last = 30; /* the dense layer's output, the model's */
    CHECK(ap_problem_add(
              p, &(ap_request){.id = i, .size = size[i], .first = first, .last = last}) == AP_OK);
  }
  for (size_t k = 0; k < sizeof lead / sizeof lead[0]; k++)
    CHECK_EQ(ap_problem_add_overlap(p, &(ap_overlap){.in = k, .out = k + 1, .lead = lead[k]}),
             AP_OK);
  CHECK_EQ(ap_problem_lower_bound(p), 37632);
  ap_plan *plan = NULL;
  CHECK(ap_plan_create(p, &(ap_plan_options){.strategy = "exact"}, &plan) == AP_OK);
  CHECK_EQ(ap_plan_arena(plan), 37632);
  CHECK(ap_plan_optimal(plan));
  CHECK(valid_by_bytes(p, ap_plan_offsets(plan)));
  CHECK_EQ(ap_plan_check(p, ap_plan_offsets(plan), 37632, NULL, 0), AP_OK);
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
}

/* The checker's rule, byte by byte: two requests live at one step that share a byte are
 * valid only as an overlap's pair placed as its lead allows. */
static bool valid_by_bytes(const ap_problem *p, const uint64_t *off) {
  const ap_request *r = ap_problem_requests(p);
  size_t n = ap_problem_count(p);
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      if (r[i].last < r[j].first || r[j].last < r[i].first) continue;
      if (off[i] >= off[j] + r[j].size || off[j] >= off[i] + r[i].size) continue;
      bool ok = false;
      for (size_t k = 0; k < ap_problem_overlap_count(p); k++) {
        const ap_overlap *o = &ap_problem_overlaps(p)[k];
        if ((o->in == i && o->out == j) || (o->in == j && o->out == i))
          ok = (int64_t)off[o->in] - (int64_t)off[o->out] >= o->lead;
      }
      if (!ok) return false;
    }
  return true;
}

/* Random chains of three or four requests (sizes 1-8, leads -8..8, alignment 1 or 2):
 * the checker agrees with the byte rule on every placement in [0, 20), every strategy's
 * plan passes it, and no valid placement is below the lower bound. */
/* Unoptimised sanitizer builds are about 10x slower: fewer trials there. */
#if defined(__SANITIZE_ADDRESS__)
#define TRIALS 8
#else
#define TRIALS 40
#endif

static void random_chains(void) {
  uint64_t rng = 11;
  size_t mismatches = 0, plans = 0;
  for (int trial = 0; trial < TRIALS; trial++) {
    ap_problem *p = NULL;
    CHECK(ap_problem_create(NULL, &p) == AP_OK);
    uint64_t align = 1 + ap_test_rand(&rng) % 2;
    CHECK(ap_problem_set_alignment(p, align) == AP_OK);
    size_t n = 3 + ap_test_rand(&rng) % 2;
    for (size_t i = 0; i < n; i++) {
      /* Request i lives [i, i + 1], or only at i + 1 (an input read at its first step): each
       * born at the step the one before dies pairs with it. */
      uint64_t size = 1 + ap_test_rand(&rng) % 8;
      int32_t first = (int32_t)i + (ap_test_rand(&rng) % 3 == 0);
      CHECK(ap_problem_add(
                p, &(ap_request){.id = i, .size = size, .first = first, .last = (int32_t)i + 1}) ==
            AP_OK);
      int64_t lead = (int64_t)(ap_test_rand(&rng) % 17) - 8;
      const ap_request *prev = i ? &ap_problem_requests(p)[i - 1] : NULL;
      if (prev && prev->last == first && ap_test_rand(&rng) % 4)
        CHECK(ap_problem_add_overlap(p, &(ap_overlap){i - 1, i, lead}) == AP_OK);
    }
    uint64_t lb = ap_problem_lower_bound(p), least = UINT64_MAX, off[4] = {0};
    size_t total = 1;
    for (size_t i = 0; i < n; i++)
      total *= 20;
    for (size_t code = 0; code < total; code++) {
      uint64_t top = 0;
      bool aligned = true;
      for (size_t i = 0, c = code; i < n; i++, c /= 20) {
        off[i] = c % 20;
        aligned = aligned && off[i] % align == 0;
        uint64_t end = off[i] + ap_problem_requests(p)[i].size;
        top = end > top ? end : top;
      }
      if (!aligned) continue;
      bool want = valid_by_bytes(p, off);
      ap_status got = ap_plan_check(p, off, top, NULL, 0);
      if ((got == AP_OK) != want) mismatches++;
      if (want && top < least) least = top;
    }
    CHECK_MSG(least >= lb, "trial %d: a valid placement of %llu bytes is below the bound %llu",
              trial, (unsigned long long)least, (unsigned long long)lb);
    /* exact searches the overlaps: never above any other strategy, and when it says optimal
     * (and the optimum is small enough for the brute force to see), it is the least. */
    uint64_t exact = UINT64_MAX, others = UINT64_MAX;
    for (size_t s = 0; s < ap_strategy_count(); s++) {
      bool is_exact = strcmp(ap_strategy_name(s), "exact") == 0;
      ap_plan *plan = NULL;
      CHECK(ap_plan_create(p,
                           &(ap_plan_options){.strategy = ap_strategy_name(s),
                                              .budget_nodes = is_exact ? 200000 : 0},
                           &plan) == AP_OK);
      CHECK(plan && valid_by_bytes(p, ap_plan_offsets(plan)));
      CHECK(ap_plan_arena(plan) >= lb);
      if (is_exact) {
        exact = ap_plan_arena(plan);
        CHECK_MSG(!ap_plan_optimal(plan) || least > 20 || exact == least,
                  "trial %d: exact says %llu is optimal, brute force finds %llu", trial,
                  (unsigned long long)exact, (unsigned long long)least);
        CHECK_MSG(exact <= least, "trial %d: exact %llu, brute force %llu", trial,
                  (unsigned long long)exact, (unsigned long long)least);
      } else if (ap_plan_arena(plan) < others) {
        others = ap_plan_arena(plan);
      }
      plans++;
      ap_plan_destroy(plan);
    }
    CHECK(exact <= others);
    ap_problem_destroy(p);
  }
  CHECK_EQ(mismatches, 0);
  CHECK(plans >= TRIALS);
}

int main(void) {
  validation();
  random_chains();
  checker();
  bounds_and_plans();
  vww_in_place();
  return ap_test_done();
}
