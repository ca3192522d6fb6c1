/* Plan correctness (test_oracle_strategies_a.c and _b.c, half of the models each): for each of the
 * models, the outputs under every strategy are bit-identical to those under "naive" (no reuse)
 * over seeded random inputs (the oracle's rule, seeds 1..100). A plan that lets two live tensors
 * share bytes corrupts one of them, and with inputs that vary the corruption shows in the outputs.
 *
 * Seeds: 100 per model, except mobilenet_v2_torch_int8: one invoke takes ~0.5 s and ten
 * strategies run per seed, so it runs seeds 1..2 (~11 s); a plan is the same for every input,
 * and its outputs take ~90 distinct values, so two inputs already exercise every overlap its
 * plans have. Under ASan+UBSan (unoptimised, ~10x slower) every model runs seeds 1..3 and
 * mobilenet_v2 none: the fast build proves equality; the sanitized build looks for memory
 * errors, which do not depend on the input values. */
#ifndef AP_TEST_ORACLE_STRATEGIES_H
#define AP_TEST_ORACLE_STRATEGIES_H

#include "oracle.h"

#include <time.h>

#define MAX_STRATEGIES 32

static inline uint64_t seeds_for(const char *name) {
  /* ~0.5 s per invoke (conformer_float: 38 MB of arena; movenet 1.1 MB at 192x192) */
  bool big = strcmp(name, "mobilenet_v2_torch_int8") == 0 || strcmp(name, "conformer_float") == 0 ||
             strcmp(name, "movenet_lightning_ptq") == 0;
  /* The stateful models (test_oracle_strategies_c.c) keep the suite fast with 10 seeds: their
   * plans hold few buffers, and the outputs of mnist_lstm_int8, dtln and the LSTMs vary. */
  bool stateful = strstr(name, "lstm") || strstr(name, "svdf") || strstr(name, "dtln");
  /* mobilenet_v1_025_128_uint8: 30 ms per invoke, 11 invokes per seed. */
  bool few = stateful || strcmp(name, "mobilenet_v1_025_128_uint8") == 0;
  if (ORACLE_SANITIZED) return big ? 0 : 3;
  return big ? 2 : few ? 10 : 100;
}

/* Copies every output of `it` into one malloc'd block. */
static inline uint8_t *outputs_of(const ap_interpreter *it, size_t *total) {
  size_t n = 0;
  for (size_t k = 0; k < ap_interpreter_output_count(it); k++)
    n += oracle_output(it, k, &(ap_tensor){0})->bytes;
  uint8_t *all = malloc(n ? n : 1), *p = all;
  for (size_t k = 0; all && k < ap_interpreter_output_count(it); k++) {
    ap_tensor slot;
    const ap_tensor *t = oracle_output(it, k, &slot);
    memcpy(p, t->data, t->bytes);
    p += t->bytes;
  }
  *total = n;
  return all;
}

static inline void check_model(const char *name) {
  ap_model *m = oracle_open(name);
  if (!m) return;
  size_t ns = ap_strategy_count();
  CHECK(ns > 1 && ns <= MAX_STRATEGIES);
  ap_interpreter *its[MAX_STRATEGIES] = {0};
  size_t naive = ns;
  for (size_t i = 0; i < ns && i < MAX_STRATEGIES; i++) {
    its[i] = oracle_interpreter(m, name, ap_strategy_name(i), false);
    if (strcmp(ap_strategy_name(i), "naive") == 0) naive = i;
  }
  CHECK(naive < ns);
  uint64_t seeds = seeds_for(name), done = 0;
  size_t differ = 0;
  for (uint64_t seed = 1; naive < ns && its[naive] && seed <= seeds; seed++) {
    if (!oracle_invoke(its[naive], name, seed)) break;
    size_t n, n2;
    uint8_t *want = outputs_of(its[naive], &n);
    for (size_t i = 0; want && i < ns; i++) {
      if (i == naive || !its[i] || !oracle_invoke(its[i], name, seed)) continue;
      uint8_t *got = outputs_of(its[i], &n2);
      bool same = got && n2 == n && memcmp(got, want, n) == 0;
      /* One line per (strategy, first differing seed) keeps a failure readable. */
      if (!same && differ++ < 5)
        CHECK_MSG(0, "%s seed %llu: outputs under %s differ from naive", name,
                  (unsigned long long)seed, ap_strategy_name(i));
      else
        CHECK(same);
      free(got);
    }
    free(want);
    done++;
  }
  CHECK_EQ(done, seeds);
  printf("%-26s %3llu seeds x %zu strategies: %s\n", name, (unsigned long long)done, ns - 1,
         differ ? "DIFFER" : "identical to naive");
  for (size_t i = 0; i < ns; i++)
    ap_interpreter_destroy(its[i]);
  ap_model_destroy(m);
}

/* Runs check_model over the named models: the suite splits them over two executables so
 * that ctest -j2 runs the halves in parallel. */
static inline int strategies_main(const char *const *names, size_t n) {
  ap_test_require_shared();
  for (size_t i = 0; i < n; i++) {
    CHECK_MSG(oracle_is_model(names[i]), "%s is not one of the oracle models", names[i]);
    check_model(names[i]);
  }
  return ap_test_done();
}

#endif
