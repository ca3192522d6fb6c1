/* ap_interpreter_set_profile: off by default, one entry per op of subgraph 0, every op that ran
 * timed, the sum within the invoke's wall time, no allocation in invoke, outputs unchanged
 * (run under ThreadSanitizer by make test-tsan: the 2-thread interpreter). */
#include "rt_test.h"

#include <time.h>

#define SENTINEL 0xA5A5A5A5A5A5A5A5ull
#define MAX_OPS 256

static uint64_t wall_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fill(uint64_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    p[i] = SENTINEL;
}

static size_t untouched(const uint64_t *p, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++)
    c += p[i] == SENTINEL;
  return c;
}

/* One invoke with the oracle's input; its wall time in *ns. */
static bool invoke(ap_interpreter *it, const char *model, uint64_t *ns) {
  if (!rt_feed_oracle(it, model, 1)) return false;
  uint64_t t0 = wall_ns();
  ap_status s = ap_interpreter_invoke(it);
  *ns = wall_ns() - t0;
  return s == AP_OK && rt_matches_oracle(it, model, 1, 0);
}

static void model(const char *name, int threads, bool stream) {
  ap_model *m = rt_load(name);
  if (!m) return;
  size_t ops = ap_model_op_count(m, 0);
  CHECK(ops > 0 && ops + 2 <= MAX_OPS);
  rt_counter cnt;
  ap_allocator a = rt_counting(&cnt);
  ap_interpreter_options o = ap_interpreter_defaults();
  o.allocator = &a;
  o.threads = threads;
  o.stream = stream;
  ap_interpreter *it = NULL;
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  static uint64_t prof[MAX_OPS];
  uint64_t ns;

  /* Off by default: a caller array nobody registered stays as it was. */
  fill(prof, MAX_OPS);
  CHECK_MSG(invoke(it, name, &ns), "%s: off", name);
  CHECK_EQ(untouched(prof, MAX_OPS), MAX_OPS);

  /* Hostile arguments. */
  CHECK_EQ(ap_interpreter_set_profile(NULL, prof, ops), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_set_profile(it, NULL, ops), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_set_profile(it, prof, 0), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_set_profile(it, prof, SIZE_MAX / 4), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_set_profile(it, NULL, 0), AP_OK);

  /* On, with two spare entries: every op has a time, the spares read 0. */
  CHECK_EQ(ap_interpreter_set_profile(it, prof, ops + 2), AP_OK);
  for (int round = 0; round < 3; round++) {
    fill(prof, MAX_OPS);
    long before = atomic_load(&cnt.allocs);
    CHECK_MSG(invoke(it, name, &ns), "%s: %d threads, profiled invoke %d", name, threads, round);
    CHECK_EQ(atomic_load(&cnt.allocs), before);
    uint64_t sum = 0;
    size_t timed = 0;
    for (size_t k = 0; k < ops; k++) {
      CHECK(prof[k] != SENTINEL);
      sum += prof[k];
      timed += prof[k] > 0;
    }
    /* Streamed segments charge their first op; otherwise every op ran and has a time. */
    if (!stream)
      CHECK_MSG(timed == ops, "%s: %zu of %zu ops timed", name, timed, ops);
    else
      CHECK(timed > 0 && timed <= ops);
    CHECK_EQ(prof[ops], 0);
    CHECK_EQ(prof[ops + 1], 0);
    CHECK_EQ(untouched(prof, MAX_OPS), MAX_OPS - ops - 2);
    CHECK_MSG(sum <= ns, "%s: ops sum %llu ns > invoke %llu ns", name, (unsigned long long)sum,
              (unsigned long long)ns);
  }

  /* A shorter array: only its ops are timed, nothing past it is written. */
  CHECK_EQ(ap_interpreter_set_profile(it, prof, 2), AP_OK);
  fill(prof, MAX_OPS);
  CHECK(invoke(it, name, &ns));
  CHECK(prof[0] != SENTINEL && prof[1] != SENTINEL);
  CHECK_EQ(untouched(prof, MAX_OPS), MAX_OPS - 2);

  /* Off again. */
  CHECK_EQ(ap_interpreter_set_profile(it, NULL, 0), AP_OK);
  fill(prof, MAX_OPS);
  CHECK(invoke(it, name, &ns));
  CHECK_EQ(untouched(prof, MAX_OPS), MAX_OPS);

  ap_interpreter_destroy(it);
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  model("mlperf_kws_dscnn_int8", 1, false);
  model("mlperf_kws_dscnn_int8", 2, false);
  model("mlperf_vww_int8", 2, false);
  model("mlperf_vww_int8", 1, true);
  return ap_test_done();
}
