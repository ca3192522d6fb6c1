/* In-place plans in the runtime (test_inplace_a.c and _b.c, half of the models each, so that
 * ctest -j2 runs them in parallel): on every shared model the runtime runs, outputs with
 * options.inplace are bit-identical to "naive" (no reuse at all) over seeded random inputs,
 * the arena is never larger than without in-place, and tensors that share bytes really do
 * point at the same bytes; in-place plans on 3 threads (fast kernels, ops split) give the same
 * bytes, so kernels whose output overlaps their input write rows in order. conformer_float, whose
 * arena in-place shrinks most, is also checked against TFLite Micro's own output. */
#ifndef AP_TEST_INPLACE_H
#define AP_TEST_INPLACE_H

#include "oracle.h"

static inline ap_interpreter *make_threads(const ap_model *m, const char *strategy, bool inplace,
                                           int threads) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.strategy = strategy;
  o.inplace = inplace;
  o.threads = threads;
  /* The fast kernels on every op: arenas are compared between plans, and a budget's choice
   * of kernels (the default) would differ between them. */
  o.kernels = AP_KERNELS_FAST;
  return oracle_make(m, &o);
}

static inline ap_interpreter *make(const ap_model *m, const char *strategy, bool inplace) {
  return make_threads(m, strategy, inplace, 1);
}

static inline uint64_t arena_of(const ap_interpreter *it) {
  ap_memory_usage u;
  return ap_interpreter_memory(it, &u) == AP_OK ? u.arena : 0;
}

static inline bool same_outputs(const ap_interpreter *a, const ap_interpreter *b) {
  if (ap_interpreter_output_count(a) != ap_interpreter_output_count(b)) return false;
  for (size_t k = 0; k < ap_interpreter_output_count(a); k++) {
    ap_tensor x, y;
    if (!oracle_output(a, k, &x) || !oracle_output(b, k, &y) || x.bytes != y.bytes ||
        memcmp(x.data, y.data, x.bytes) != 0)
      return false;
  }
  return true;
}

/* The shares and overlaps the graph layer makes (subgraph 0, model bytes: the runtime's for
 * these models). Each share must be the same address in the interpreter; each overlap's two
 * tensors must be disjoint or placed as its lead allows. Counts both, and the overlaps whose
 * tensors really share bytes. */
static inline void check_shares(const char *name, const ap_model *m, const ap_interpreter *it,
                                size_t *shares, size_t *overlapping) {
  ap_graph *g = NULL;
  ap_problem *p = NULL;
  *shares = *overlapping = 0;
  CHECK(ap_graph_create(m, &(ap_graph_options){.inplace = true}, NULL, &g) == AP_OK);
  for (size_t t = 0; g && t < ap_model_tensor_count(m, 0); t++) {
    uint64_t root;
    ap_tensor a, b;
    if (!ap_graph_shares(g, t, &root)) continue;
    CHECK(root < ap_model_tensor_count(m, 0));
    CHECK(ap_interpreter_tensor(it, 0, t, &a) == AP_OK);
    CHECK(ap_interpreter_tensor(it, 0, (size_t)root, &b) == AP_OK);
    /* A tensor whose shape is known only while running has a block of its own (the dynamic
     * region), and so has every tensor sharing its bytes: their ops read a dynamic input. */
    if (a.is_dynamic || b.is_dynamic) {
      CHECK_MSG(a.is_dynamic && b.is_dynamic, "%s: tensor %zu shares tensor %llu, one dynamic",
                name, t, (unsigned long long)root);
      continue;
    }
    CHECK_MSG(a.data && a.data == b.data, "%s: tensor %zu does not share tensor %llu's bytes", name,
              t, (unsigned long long)root);
    (*shares)++;
  }
  CHECK(g && ap_graph_problem(g, -1, 16, &p) == AP_OK);
  for (size_t k = 0; p && k < ap_problem_overlap_count(p); k++) {
    const ap_overlap *o = &ap_problem_overlaps(p)[k];
    const ap_request *r = ap_problem_requests(p);
    ap_tensor a, b;
    if (r[o->in].id >= ap_model_tensor_count(m, 0) || r[o->out].id >= ap_model_tensor_count(m, 0))
      continue;
    CHECK(ap_interpreter_tensor(it, 0, (size_t)r[o->in].id, &a) == AP_OK);
    CHECK(ap_interpreter_tensor(it, 0, (size_t)r[o->out].id, &b) == AP_OK);
    intptr_t ia = (intptr_t)a.data, ib = (intptr_t)b.data;
    bool disjoint = ia >= ib + (intptr_t)b.bytes || ib >= ia + (intptr_t)a.bytes;
    CHECK_MSG(disjoint || ia - ib >= o->lead,
              "%s: tensor %llu overlaps tensor %llu, %lld bytes "
              "below it where it may only from %lld",
              name, (unsigned long long)r[o->out].id, (unsigned long long)r[o->in].id,
              (long long)(ia - ib), (long long)o->lead);
    if (!disjoint) (*overlapping)++;
  }
  ap_problem_destroy(p);
  ap_graph_destroy(g);
}

static inline void check_model(const char *name, size_t *models, size_t *with_shares,
                               size_t *with_overlaps) {
  ap_model *m = oracle_open(name);
  if (!m) return;
  ap_interpreter *naive = make(m, "naive", false);
  if (!naive) { /* an op the runtime does not run: test_interpreter_all_models covers it */
    ap_model_destroy(m);
    return;
  }
  ap_interpreter *plain = make(m, "best", false), *in = make(m, "best", true);
  CHECK_MSG(plain && in, "%s: in-place allocate failed", name);
  if (plain && in) {
    CHECK_MSG(arena_of(in) <= arena_of(plain), "%s: in-place arena %llu > %llu", name,
              (unsigned long long)arena_of(in), (unsigned long long)arena_of(plain));
    /* Big models (slow invokes) get one seed, small ones three. */
    uint64_t seeds = arena_of(naive) > (1u << 20) || ORACLE_SANITIZED ? 1 : 3;
    for (uint64_t seed = 1; seed <= seeds; seed++) {
      if (!oracle_invoke(naive, name, seed) || !oracle_invoke(in, name, seed)) break;
      CHECK_MSG(same_outputs(naive, in), "%s seed %llu: in-place outputs differ from naive", name,
                (unsigned long long)seed);
    }
    ap_interpreter *in3 = make_threads(m, "best", true, 3);
    CHECK_MSG(in3 && oracle_invoke(in3, name, 1) && oracle_invoke(naive, name, 1) &&
                  same_outputs(naive, in3),
              "%s seed 1: in-place outputs on 3 threads differ from naive", name);
    ap_interpreter_destroy(in3);
    size_t shares, overlapping;
    check_shares(name, m, in, &shares, &overlapping);
    printf("%-28s arena %10llu -> %10llu in-place: %4zu shared, %2zu overlapping\n", name,
           (unsigned long long)arena_of(plain), (unsigned long long)arena_of(in), shares,
           overlapping);
    if (overlapping) (*with_overlaps)++;
    (*models)++;
    if (shares) (*with_shares)++;
  }
  ap_interpreter_destroy(in);
  ap_interpreter_destroy(plain);
  ap_interpreter_destroy(naive);
  ap_model_destroy(m);
}

/* conformer_float: 38,069,400 bytes without in-place (best, our rules); its in-place plan
 * still gives TFLite Micro's own output for seed 1. */
static inline void conformer(void) {
  ap_model *m = oracle_open("conformer_float");
  if (!m) return;
  ap_interpreter *it = make(m, "best", true);
  CHECK(it != NULL);
  if (it && oracle_invoke(it, "conformer_float", 1)) {
    ap_tensor t;
    CHECK(oracle_output(it, 0, &t) != NULL);
    oracle_compare("conformer_float.seed1.output0.bin", t.data, t.bytes);
    CHECK(arena_of(it) < 38069400);
  }
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
}

/* Runs check_model over the shared models whose index has parity `half` (conformer_float
 * with half 0, against the oracle instead of naive). */
static inline int inplace_main(size_t half) {
  ap_test_require_shared();
  static char names[128][64];
  size_t n = ap_test_models(names, 128), models = 0, with_shares = 0, with_overlaps = 0;
  for (size_t i = 0; i < n; i++) {
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(names[i]) - strlen(".tflite")), names[i]);
    /* A custom op of another runtime (the NPU's): nothing to run. */
    if (strcmp(name, "person_detect_vela") == 0 || strcmp(name, "conformer_float") == 0 ||
        i % 2 != half)
      continue;
    check_model(name, &models, &with_shares, &with_overlaps);
  }
  /* 18 models run besides conformer_float (test_interpreter_all_models), about half here; the
   * graph shares bytes in place in most of them. */
  CHECK(models >= 8);
  CHECK(with_shares >= 6);
  /* Plans where a convolution or pooling writes over its own input: four models per half. */
  CHECK(with_overlaps >= 4);
  if (half == 0) conformer();
  return ap_test_done();
}

#endif
