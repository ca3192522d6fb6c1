/* Random problems shaped like a network's tensors, for tests and benchmarks. */
#include "arenaplan/plan.h"
#include "test.h"

int ap_test_random_problem(ap_problem *p, size_t n, uint64_t seed) {
  uint64_t s = seed ? seed : 1;
  /* About two tensors per step; most die within a few steps, some are skip connections
   * that live long, a few live for the whole run. */
  int32_t steps = (int32_t)(n / 2 + 1);
  for (size_t i = 0; i < n; i++) {
    int32_t first = (int32_t)(i / 2), len;
    uint64_t r = ap_test_rand(&s) % 100;
    if (r < 70)
      len = 1 + (int32_t)(ap_test_rand(&s) % 3);
    else if (r < 97)
      len = 4 + (int32_t)(ap_test_rand(&s) % 20);
    else
      len = 25 + (int32_t)(ap_test_rand(&s) % 200);
    if (r == 99 && i % 50 == 0) {
      first = 0;
      len = steps;
    }
    int32_t last = first + len - 1 < steps ? first + len - 1 : steps;
    uint64_t size = 1 + ap_test_rand(&s) % (ap_test_rand(&s) % 2 ? 4096 : 65536);
    int st = ap_problem_add(p, &(ap_request){.id = i, .size = size, .first = first, .last = last});
    if (st != AP_OK) return st;
  }
  return AP_OK;
}
