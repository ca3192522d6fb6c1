/* The interpreter on the shared models: TFLite Micro's outputs bit for bit on the oracle's
 * three seeds, no allocator call inside invoke, everything freed at destroy, and the memory a
 * device must provide against TFLite Micro's smallest working arena. */
#include "rt_test.h"

/* min_arena_plain_16 of shared/bench/tflm_arena.tsv for `model`, 0 if absent. */
static uint64_t tflm_min_arena(const char *model) {
  long long v = ap_test_tflm_value(model, "min_arena_plain_16");
  return v > 0 ? (uint64_t)v : 0;
}

/* kernels: the fast ones (the default) or the reference ones; prepare: when builtins' prepare
 * runs. The memory is compared with TFLite Micro's for the reference kernels prepared at each
 * invoke: a device's configuration, the smallest (TFLite Micro's are reference kernels too; the
 * fast ones plan more scratch: packed weights and patch rows; ops prepared once keep their
 * parameters and views). */
static void run_oracle_model(const char *name, int kernels, int prepare) {
  ap_model *m = rt_load(name);
  CHECK_MSG(m != NULL, "%s", name);
  if (!m) return;
  rt_counter cnt;
  ap_allocator a = rt_counting(&cnt);
  ap_interpreter_options o = ap_interpreter_defaults();
  o.allocator = &a;
  o.kernels = kernels;
  o.prepare = prepare;
  bool device = kernels == AP_KERNELS_REFERENCE && prepare == AP_PREPARE_EACH_INVOKE;
  ap_interpreter *it;
  ap_status s = ap_interpreter_create(m, &o, &it);
  if (s == AP_OK) s = ap_interpreter_allocate(it);
  CHECK_MSG(s == AP_OK, "%s: %s", name, ap_interpreter_error(it));
  if (s == AP_OK) {
    /* mobilenet_v2 takes about a second per invoke (twenty under ASan): one seed, and two
     * invokes instead of ten for the allocation count. */
    bool heavy = strcmp(name, "mobilenet_v2_torch_int8") == 0;
    for (int seed = 1; seed <= (heavy ? 1 : 3); seed++) {
      CHECK_MSG(rt_feed_oracle(it, name, seed), "%s seed %d: inputs", name, seed);
      long before = atomic_load(&cnt.allocs) + atomic_load(&cnt.frees);
      CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s: %s", name, ap_interpreter_error(it));
      CHECK_EQ(atomic_load(&cnt.allocs) + atomic_load(&cnt.frees), before);
      for (size_t k = 0; k < ap_interpreter_output_count(it); k++)
        CHECK_MSG(rt_matches_oracle(it, name, seed, k), "%s seed %d output %zu", name, seed, k);
    }
    /* Ten more invokes: not one allocator call. */
    long before = atomic_load(&cnt.allocs) + atomic_load(&cnt.frees);
    for (int i = 0; i < (heavy ? 2 : 10); i++)
      CHECK(ap_interpreter_invoke(it) == AP_OK);
    CHECK_EQ(atomic_load(&cnt.allocs) + atomic_load(&cnt.frees), before);

    ap_memory_usage u;
    CHECK(ap_interpreter_memory(it, &u) == AP_OK);
    uint64_t tflm = tflm_min_arena(name);
    CHECK_MSG(tflm > 0, "%s: no TFLite Micro figure", name);
    printf("%-24s %10llu %10llu %8llu %10llu %10llu %6.3f %s, prepared %s\n", name,
           (unsigned long long)u.arena, (unsigned long long)u.persistent,
           (unsigned long long)u.tables, (unsigned long long)u.total, (unsigned long long)tflm,
           tflm ? (double)u.total / (double)tflm : 0.0,
           kernels == AP_KERNELS_FAST ? "fast" : "reference",
           prepare == AP_PREPARE_EACH_INVOKE ? "each invoke" : "once");
    /* Issue 4: below TFLite Micro's smallest working arena for every model. */
    CHECK_MSG(!device || u.total < tflm, "%s: total %llu >= TFLite Micro's %llu", name,
              (unsigned long long)u.total, (unsigned long long)tflm);
    CHECK_EQ(u.total, ((u.arena + 15) / 16 * 16) + u.persistent + u.tables);
    CHECK(u.arena_lower_bound > 0 && u.arena >= u.arena_lower_bound);
  }
  ap_interpreter_destroy(it);
  CHECK_EQ(atomic_load(&cnt.live_bytes), 0);
  ap_model_destroy(m);
}

/* The two models TFLite Micro cannot run: they run here (their values are checked against
 * Arm NN elsewhere); no allocation in invoke either. */
static void run_other(const char *name) {
  ap_model *m = rt_load(name);
  CHECK_MSG(m != NULL, "%s", name);
  if (!m) return;
  rt_counter cnt;
  ap_allocator a = rt_counting(&cnt);
  ap_interpreter_options o = ap_interpreter_defaults();
  o.allocator = &a;
  ap_interpreter *it;
  ap_status s = ap_interpreter_create(m, &o, &it);
  if (s == AP_OK) s = ap_interpreter_allocate(it);
  CHECK_MSG(s == AP_OK, "%s: %s", name, ap_interpreter_error(it));
  if (s == AP_OK) {
    ap_tensor in;
    CHECK(ap_interpreter_input(it, 0, &in) == AP_OK);
    uint64_t st = 7;
    for (size_t i = 0; i < in.bytes; i++)
      ((uint8_t *)in.data)[i] = (uint8_t)ap_test_rand(&st);
    if (in.type == AP_FLOAT32)
      for (size_t i = 0; i < in.bytes / 4; i++)
        ((float *)in.data)[i] = (float)(ap_test_rand(&st) % 2000) / 1000.0f - 1.0f;
    long before = atomic_load(&cnt.allocs) + atomic_load(&cnt.frees);
    for (int i = 0; i < 10; i++)
      CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s: %s", name, ap_interpreter_error(it));
    CHECK_EQ(atomic_load(&cnt.allocs) + atomic_load(&cnt.frees), before);
    ap_memory_usage u;
    CHECK(ap_interpreter_memory(it, &u) == AP_OK);
    printf("%-24s %10llu %10llu %8llu %10llu %10s %6s\n", name, (unsigned long long)u.arena,
           (unsigned long long)u.persistent, (unsigned long long)u.tables,
           (unsigned long long)u.total, "-", "-");
  }
  ap_interpreter_destroy(it);
  CHECK_EQ(atomic_load(&cnt.live_bytes), 0);
  ap_model_destroy(m);
}

/* Every strategy (and preserve_all) places the same model so that it computes the same: the
 * oracle's outputs bit for bit. */
static void every_strategy(const char *name) {
  ap_model *m = rt_load(name);
  if (!m) return;
  for (size_t k = 0; k <= ap_strategy_count(); k++) {
    ap_interpreter_options o = ap_interpreter_defaults();
    if (k < ap_strategy_count()) {
      o.strategy = ap_strategy_name(k);
      if (strcmp(o.strategy, "exact") == 0) continue; /* a search with a time budget */
    } else {
      o.preserve_all = true;
    }
    ap_interpreter *it;
    ap_status s = ap_interpreter_create(m, &o, &it);
    if (s == AP_OK) s = ap_interpreter_allocate(it);
    CHECK_MSG(s == AP_OK, "%s with %s: %s", name, o.preserve_all ? "preserve_all" : o.strategy,
              ap_interpreter_error(it));
    if (s == AP_OK) {
      CHECK(rt_feed_oracle(it, name, 2));
      CHECK(ap_interpreter_invoke(it) == AP_OK);
      CHECK_MSG(rt_matches_oracle(it, name, 2, 0), "%s with %s", name,
                o.preserve_all ? "preserve_all" : o.strategy);
    }
    if (s == AP_OK && o.preserve_all) {
      /* No reuse: every non-constant tensor has bytes of its own, the arena holds them all. */
      ap_memory_usage u;
      ap_interpreter_memory(it, &u);
      uint64_t sum = 0;
      ap_tensor t;
      for (size_t i = 0; ap_interpreter_tensor(it, 0, i, &t) == AP_OK; i++)
        if (!t.is_constant && !t.is_variable) sum += (t.bytes + 15) / 16 * 16;
      CHECK(u.arena >= sum);
    }
    ap_interpreter_destroy(it);
  }
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  printf("%-24s %10s %10s %8s %10s %10s %6s\n", "model", "arena", "persistent", "tables", "total",
         "tflm_min", "ratio");
  for (size_t i = 0; i < RT_ORACLE_MODEL_COUNT; i++) {
    run_oracle_model(rt_oracle_models[i], AP_KERNELS_REFERENCE, AP_PREPARE_EACH_INVOKE);
    run_oracle_model(rt_oracle_models[i], AP_KERNELS_REFERENCE, AP_PREPARE_ONCE);
    run_oracle_model(rt_oracle_models[i], AP_KERNELS_FAST, AP_PREPARE_AUTO);
  }
  run_other("mlperf_kws_dscnn_hybrid");
  run_other("mobilenet_v1_025_128_uint8");
  every_strategy("person_detect_int8");
  every_strategy("mlperf_kws_dscnn_int8");
  every_strategy("mlperf_ad_fc_int8");
  return ap_test_done();
}
