/* Helpers shared by the interpreter tests: loading shared models, the oracle's seeded inputs
 * and outputs, and an allocator that counts its calls. Header-only: each test is one
 * executable. */
#ifndef AP_TESTS_RT_TEST_H
#define AP_TESTS_RT_TEST_H

#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The models issue 4 runs that TFLite Micro also runs (oracle data exists for them). */
static const char *const rt_oracle_models[] = {
    "hello_world_float",       "hello_world_int8",  "micro_speech_int8",
    "person_detect_int8",      "magic_wand_float",  "tflm_test_conv",
    "mlperf_kws_dscnn_int8",   "mlperf_vww_int8",   "mlperf_ic_resnet_int8",
    "mlperf_ic_resnet_float",  "mlperf_ad_fc_int8", "mlperf_sww_int8",
    "mobilenet_v2_torch_int8", "multi_signatures"};
#define RT_ORACLE_MODEL_COUNT (sizeof rt_oracle_models / sizeof rt_oracle_models[0])

static inline ap_model *rt_load(const char *name) {
  char path[512];
  ap_test_path(path, sizeof path, "models/%s.tflite", name);
  ap_model *m = NULL;
  if (ap_model_open(path, NULL, &m) != AP_OK) {
    fprintf(stderr, "%s: %s\n", path, ap_model_error(m));
    ap_model_destroy(m);
    return NULL;
  }
  return m;
}

/* The oracle file MODEL.seedS.KIND K.bin (malloc'd), or NULL. */
static inline uint8_t *rt_oracle(const char *model, int seed, const char *kind, int k,
                                 size_t *size) {
  char path[512];
  ap_test_path(path, sizeof path, "oracle/tflm/%s.seed%d.%s%d.bin", model, seed, kind, k);
  return ap_test_read_file(path, size);
}

/* Copies the oracle's inputs of `seed` into the interpreter's inputs; false if any is missing
 * or of another size. */
static inline bool rt_feed_oracle(ap_interpreter *it, const char *model, int seed) {
  for (size_t i = 0; i < ap_interpreter_input_count(it); i++) {
    ap_tensor in;
    size_t size;
    uint8_t *data = rt_oracle(model, seed, "input", (int)i, &size);
    bool ok = data && ap_interpreter_input(it, i, &in) == AP_OK && in.bytes == size && in.data;
    if (ok) memcpy(in.data, data, size);
    free(data);
    if (!ok) return false;
  }
  return true;
}

/* Output k equals the oracle's byte for byte. */
static inline bool rt_matches_oracle(ap_interpreter *it, const char *model, int seed, size_t k) {
  ap_tensor out;
  size_t size;
  uint8_t *want = rt_oracle(model, seed, "output", (int)k, &size);
  bool ok = want && ap_interpreter_output(it, k, &out) == AP_OK && out.bytes == size &&
            memcmp(out.data, want, size) == 0;
  free(want);
  return ok;
}

/* An allocator that counts calls and bytes, over malloc; `fail_after` >= 0 makes every call
 * after that many fail. */
typedef struct rt_counter {
  atomic_long allocs, frees;
  atomic_long live_bytes;
  long fail_after;
} rt_counter;

typedef union rt_hdr {
  size_t size;
  max_align_t align;
} rt_hdr;

static inline void *rt_count_alloc(void *ctx, size_t n) {
  rt_counter *c = ctx;
  long k = atomic_fetch_add(&c->allocs, 1);
  if (c->fail_after >= 0 && k >= c->fail_after) return NULL;
  rt_hdr *h = malloc(sizeof *h + n);
  if (!h) return NULL;
  h->size = n;
  atomic_fetch_add(&c->live_bytes, (long)n);
  return h + 1;
}
static inline void rt_count_free(void *ctx, void *p) {
  rt_counter *c = ctx;
  atomic_fetch_add(&c->frees, 1);
  if (!p) return;
  rt_hdr *h = (rt_hdr *)p - 1;
  atomic_fetch_sub(&c->live_bytes, (long)h->size);
  free(h);
}
static inline ap_allocator rt_counting(rt_counter *c) {
  atomic_init(&c->allocs, 0);
  atomic_init(&c->frees, 0);
  atomic_init(&c->live_bytes, 0);
  c->fail_after = -1;
  return (ap_allocator){rt_count_alloc, rt_count_free, c};
}

/* A crafted model: the writer's bytes copied into an aligned buffer the model reads in place
 * (*bytes: free it after destroying the model). NULL on failure. */
static inline ap_model *rt_finish(ap_writer *w, uint8_t **bytes) {
  const uint8_t *b;
  size_t n;
  *bytes = NULL;
  if (ap_writer_finish(w, &b, &n) != AP_OK) {
    fprintf(stderr, "writer: %s\n", ap_writer_error(w));
    return NULL;
  }
  *bytes = aligned_alloc(16, (n + 15) / 16 * 16);
  memcpy(*bytes, b, n);
  ap_model *m = NULL;
  if (ap_model_from_buffer(*bytes, n, "crafted", NULL, &m) != AP_OK) {
    fprintf(stderr, "crafted: %s\n", ap_model_error(m));
    ap_model_destroy(m);
    return NULL;
  }
  return m;
}

/* A float32 tensor of the given shape in subgraph 0 (no data). */
static inline int32_t rt_float_tensor(ap_writer *w, const char *name, const int32_t *shape,
                                      size_t rank) {
  int32_t t = -1;
  ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = name, .shape = shape, .rank = rank}, &t);
  return t;
}

/* A string tensor buffer (model.h's format) of n C strings into out; returns its size. */
static inline size_t rt_strings(uint8_t *out, size_t cap, const char *const *s, size_t n) {
  const uint8_t *p[16];
  size_t len[16], need = 0;
  CHECK(n <= 16);
  for (size_t i = 0; i < n; i++) {
    p[i] = (const uint8_t *)s[i];
    len[i] = strlen(s[i]);
  }
  CHECK(ap_string_buffer_write(out, cap, p, len, n, &need) == AP_OK);
  return need;
}

#endif
