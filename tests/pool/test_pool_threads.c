/* 8 threads issue seeded random requests across 4 models under a budget that holds any two
 * of them and never three: every output equals the single-threaded reference, and resident
 * bytes (the pool's count, and the allocator's own) never exceed the budget. The CI runs it
 * under ThreadSanitizer too (make test-tsan). */
#include "runtime/rt_test.h"

#include <pthread.h>

#define THREADS 8
#define REQUESTS 10 /* per thread */
#define SEEDS 3
#define MODELS 4

static const char *const names[MODELS] = {"mlperf_kws_dscnn_int8", "mlperf_sww_int8",
                                          "mlperf_kws_dscnn_hybrid", "mlperf_ic_resnet_int8"};

/* Reference outputs (all outputs concatenated) per model and seed. */
static uint8_t *want[MODELS][SEEDS];
static size_t want_size[MODELS][SEEDS];

/* Fills every input from its own stream of (model, seed, input). */
static void fill_inputs(ap_interpreter *it, size_t model, int seed) {
  for (size_t i = 0; i < ap_interpreter_input_count(it); i++) {
    ap_tensor t;
    if (ap_interpreter_input(it, i, &t) != AP_OK || !t.data) continue;
    uint64_t s = 1 + model * 1000 + (uint64_t)seed * 10 + i;
    uint8_t *d = t.data;
    for (size_t b = 0; b < t.bytes; b++)
      d[b] = (uint8_t)(ap_test_rand(&s) >> 56);
    /* Float inputs: keep them finite and small (any bits could be NaN). */
    if (t.type == AP_FLOAT32)
      for (size_t b = 0; b + 4 <= t.bytes; b += 4) {
        float f = (float)((int8_t)d[b]) / 64.0f;
        memcpy(d + b, &f, 4);
      }
  }
}

static uint8_t *collect_outputs(ap_interpreter *it, size_t *size) {
  size_t n = 0;
  for (size_t k = 0; k < ap_interpreter_output_count(it); k++) {
    ap_tensor t;
    if (ap_interpreter_output(it, k, &t) == AP_OK) n += t.bytes;
  }
  uint8_t *out = malloc(n ? n : 1), *q = out;
  for (size_t k = 0; k < ap_interpreter_output_count(it); k++) {
    ap_tensor t;
    if (ap_interpreter_output(it, k, &t) == AP_OK) {
      memcpy(q, t.data, t.bytes);
      q += t.bytes;
    }
  }
  *size = n;
  return out;
}

/* The allocator's live bytes and their peak, besides the pool's own count. */
static atomic_long live, peak;
typedef union hdr {
  size_t size;
  max_align_t align;
} hdr;
static void *peak_alloc(void *ctx, size_t n) {
  (void)ctx;
  hdr *h = malloc(sizeof *h + n);
  if (!h) return NULL;
  h->size = n;
  long now = atomic_fetch_add(&live, (long)n) + (long)n, p = atomic_load(&peak);
  while (now > p && !atomic_compare_exchange_weak(&peak, &p, now)) {
  }
  return h + 1;
}
static void peak_free(void *ctx, void *q) {
  (void)ctx;
  if (!q) return;
  hdr *h = (hdr *)q - 1;
  atomic_fetch_sub(&live, (long)h->size);
  free(h);
}

typedef struct worker {
  ap_pool *p;
  uint64_t rng;
  int mismatches, failures;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  for (int r = 0; r < REQUESTS; r++) {
    size_t model = ap_test_rand(&w->rng) % MODELS;
    int seed = (int)(ap_test_rand(&w->rng) % SEEDS);
    ap_interpreter *it = NULL;
    if (ap_pool_acquire(w->p, names[model], 60000, &it) != AP_OK) {
      fprintf(stderr, "%s: %s\n", names[model], ap_pool_error(w->p));
      w->failures++;
      continue;
    }
    fill_inputs(it, model, seed);
    if (ap_interpreter_invoke(it) != AP_OK) {
      w->failures++;
    } else {
      size_t n;
      uint8_t *got = collect_outputs(it, &n);
      if (n != want_size[model][seed] || memcmp(got, want[model][seed], n) != 0) w->mismatches++;
      free(got);
    }
    if (ap_pool_release(w->p, it) != AP_OK) w->failures++;
  }
  return NULL;
}

int main(void) {
  ap_test_require_shared();
  char paths[MODELS][512];
  for (size_t i = 0; i < MODELS; i++) {
    ap_test_path(paths[i], sizeof paths[i], "models/%s.tflite", names[i]);
    ap_model *m = rt_load(names[i]);
    ap_interpreter *it = NULL;
    CHECK(m && ap_interpreter_create(m, NULL, &it) == AP_OK &&
          ap_interpreter_allocate(it) == AP_OK);
    for (int s = 0; s < SEEDS && it; s++) {
      fill_inputs(it, i, s);
      CHECK_EQ(ap_interpreter_invoke(it), AP_OK);
      want[i][s] = collect_outputs(it, &want_size[i][s]);
    }
    ap_interpreter_destroy(it);
    ap_model_destroy(m);
  }

  /* The budget: one byte short of the three smallest models together. */
  ap_pool_options o = ap_pool_defaults();
  o.budget_bytes = UINT64_MAX / 4;
  /* The budget needs every pair to fit where no triple does: true of the reference kernels'
   * sizes (the fast ones plan more scratch for convolutions). */
  o.kernels = AP_KERNELS_REFERENCE;
  ap_pool *probe = NULL;
  CHECK_EQ(ap_pool_create(&o, &probe), AP_OK);
  uint64_t cost[MODELS], max_pair = 0, min_triple = UINT64_MAX;
  for (size_t i = 0; i < MODELS; i++) {
    ap_pool_cost c = {0};
    CHECK_EQ(ap_pool_add(probe, names[i], paths[i]), AP_OK);
    CHECK_EQ(ap_pool_cost_of(probe, names[i], &c), AP_OK);
    cost[i] = c.resident;
  }
  ap_pool_destroy(probe);
  for (size_t i = 0; i < MODELS; i++)
    for (size_t j = i + 1; j < MODELS; j++) {
      if (cost[i] + cost[j] > max_pair) max_pair = cost[i] + cost[j];
      for (size_t k = j + 1; k < MODELS; k++)
        if (cost[i] + cost[j] + cost[k] < min_triple) min_triple = cost[i] + cost[j] + cost[k];
    }
  uint64_t budget = min_triple - 1;
  CHECK(max_pair <= budget);

  ap_allocator a = {peak_alloc, peak_free, NULL};
  o = ap_pool_defaults();
  o.budget_bytes = budget;
  o.kernels = AP_KERNELS_REFERENCE;
  o.max_interpreters = 2;
  o.allocator = &a;
  ap_pool *p = NULL;
  CHECK_EQ(ap_pool_create(&o, &p), AP_OK);
  for (size_t i = 0; i < MODELS; i++)
    CHECK_EQ(ap_pool_add(p, names[i], paths[i]), AP_OK);
  /* From here the allocator holds the pool's records plus what is resident (less the mapped
   * weights): its peak above this base must stay within the budget. */
  long base = atomic_load(&live);
  atomic_store(&peak, base);

  worker w[THREADS];
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){p, 0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1), 0, 0};
    CHECK_EQ(pthread_create(&t[i], NULL, work, &w[i]), 0);
  }
  int mismatches = 0, failures = 0;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(t[i], NULL);
    mismatches += w[i].mismatches;
    failures += w[i].failures;
  }
  CHECK_EQ(mismatches, 0);
  CHECK_EQ(failures, 0);
  ap_pool_stats st;
  CHECK_EQ(ap_pool_get_stats(p, &st), AP_OK);
  CHECK_EQ(st.acquires, THREADS * REQUESTS);
  CHECK(st.peak_resident_bytes <= budget);
  CHECK(st.peak_resident_bytes >= max_pair / 2); /* something was resident */
  CHECK(st.loads >= MODELS);
  CHECK((uint64_t)(atomic_load(&peak) - base) <= budget);
  uint64_t sum = 0, loaded = 0;
  for (size_t i = 0; i < ap_pool_model_count(p); i++) {
    ap_pool_model_info mi;
    CHECK_EQ(ap_pool_model(p, i, &mi), AP_OK);
    CHECK_EQ(mi.acquired, 0);
    sum += mi.resident_bytes;
    loaded += mi.loaded;
  }
  CHECK_EQ(sum, st.resident_bytes);
  CHECK_EQ(loaded, st.loads - st.unloads);
  CHECK(loaded <= 2);
  printf("budget %llu: peak %llu, loads %llu, unloads %llu, hits %llu, waits %llu, "
         "allocator peak above base %ld\n",
         (unsigned long long)budget, (unsigned long long)st.peak_resident_bytes,
         (unsigned long long)st.loads, (unsigned long long)st.unloads, (unsigned long long)st.hits,
         (unsigned long long)st.waits, atomic_load(&peak) - base);
  ap_pool_destroy(p);
  CHECK_EQ(atomic_load(&live), 0);
  for (size_t i = 0; i < MODELS; i++)
    for (int s = 0; s < SEEDS; s++)
      free(want[i][s]);
  return ap_test_done();
}
