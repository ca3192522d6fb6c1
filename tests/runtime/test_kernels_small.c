/* AP_KERNELS_SMALL (the kernel choice within the reference kernels' total plus small_scratch)
 * and the kernel choices' scratch, on real models: exact scratch and arena bytes for
 * mobilenet_v1_025_128_uint8 under each choice (generic and AVX2 levels), the budget's promise
 * (the total never more than the reference's plus small_scratch, with 1 and 2 threads and a
 * tight budget), and the same output bytes from every choice. */
#include "port/port.h"
#include "rt_test.h"

#include <stdlib.h>
#include <string.h>

typedef struct cost {
  uint64_t arena, scratch, largest, total;
  size_t n;
  ap_scratch_info ops[256];
  uint8_t out[4096];
  size_t out_bytes;
} cost;

static bool measure(ap_model *m, const char *name, int kernels, int threads, size_t budget,
                    cost *c) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.kernels = kernels;
  o.threads = threads;
  o.small_scratch = budget;
  ap_interpreter *it = NULL;
  ap_memory_usage mu;
  memset(c, 0, sizeof *c);
  bool ok = ap_interpreter_create(m, &o, &it) == AP_OK && ap_interpreter_allocate(it) == AP_OK &&
            ap_interpreter_memory(it, &mu) == AP_OK;
  c->n = ok ? ap_interpreter_scratch_count(it) : 0;
  ok = ok && c->n <= 256;
  for (size_t i = 0; ok && i < c->n; i++) {
    ok = ap_interpreter_scratch(it, i, &c->ops[i]) == AP_OK;
    c->scratch += c->ops[i].bytes;
    if (c->ops[i].bytes > c->largest) c->largest = c->ops[i].bytes;
  }
  ap_tensor t;
  if (ok && !rt_feed_oracle(it, name, 1)) { /* no oracle inputs: seeded bytes */
    uint64_t st = 7;
    for (size_t k = 0; ok && k < ap_interpreter_input_count(it); k++) {
      ok = ap_interpreter_input(it, k, &t) == AP_OK;
      for (size_t b = 0; ok && b < t.bytes; b++)
        ((uint8_t *)t.data)[b] = (uint8_t)ap_test_rand(&st);
    }
  }
  ok = ok && ap_interpreter_invoke(it) == AP_OK && ap_interpreter_output(it, 0, &t) == AP_OK &&
       t.bytes <= sizeof c->out;
  if (ok) {
    memcpy(c->out, t.data, t.bytes);
    c->out_bytes = t.bytes;
  }
  c->arena = ok ? mu.arena : 0;
  c->total = ok ? mu.total : 0;
  ap_interpreter_destroy(it);
  return ok;
}

/* The total within the reference's plus the budget; the same outputs. */
static void within(const char *what, const cost *ref, const cost *small, size_t budget) {
  CHECK_MSG(small->total <= ref->total + budget, "%s: total %llu, reference %llu + budget %zu",
            what, (unsigned long long)small->total, (unsigned long long)ref->total, budget);
  CHECK_MSG(small->out_bytes == ref->out_bytes && memcmp(small->out, ref->out, ref->out_bytes) == 0,
            "%s: output differs from the reference kernels'", what);
}

/* mobilenet_v1_025_128_uint8 at one level: {reference, small, fast} x {arena, scratch,
 * largest}, one thread. */
static void exact(const char *level, const uint64_t want[3][3]) {
  setenv("AP_SIMD", level, 1);
  ap_model *m = rt_load("mobilenet_v1_025_128_uint8");
  static const int kinds[3] = {AP_KERNELS_REFERENCE, AP_KERNELS_SMALL, AP_KERNELS_FAST};
  static cost c[3];
  for (int k = 0; m && k < 3; k++) {
    CHECK(measure(m, "mobilenet_v1_025_128_uint8", kinds[k], 1, 0, &c[k]));
    CHECK_MSG(c[k].arena == want[k][0] && c[k].scratch == want[k][1] && c[k].largest == want[k][2],
              "%s, kernels %d: arena %llu, scratch %llu, largest %llu; expected %llu, %llu, %llu",
              level, kinds[k], (unsigned long long)c[k].arena, (unsigned long long)c[k].scratch,
              (unsigned long long)c[k].largest, (unsigned long long)want[k][0],
              (unsigned long long)want[k][1], (unsigned long long)want[k][2]);
  }
  if (m) within(level, &c[0], &c[1], AP_SMALL_SCRATCH_DEFAULT);
  if (m) within(level, &c[0], &c[2], SIZE_MAX / 2);
  ap_model_destroy(m);
}

/* The budget holds for a tighter budget and for 2 threads, on every model. */
static void budgets(const char *name) {
  ap_model *m = rt_load(name);
  static cost ref, small;
  if (!m || !measure(m, name, AP_KERNELS_REFERENCE, 1, 0, &ref)) {
    CHECK_MSG(false, "%s: reference kernels failed", name);
    ap_model_destroy(m);
    return;
  }
  static const size_t sizes[] = {64, 2048, AP_SMALL_SCRATCH_DEFAULT, 65536};
  char what[160];
  for (size_t b = 0; b < sizeof sizes / sizeof sizes[0]; b++)
    for (int threads = 1; threads <= 2; threads++) {
      snprintf(what, sizeof what, "%s, budget %zu, %d threads", name, sizes[b], threads);
      CHECK_MSG(measure(m, name, AP_KERNELS_SMALL, threads, sizes[b], &small), "%s failed", what);
      within(what, &ref, &small, sizes[b]);
    }
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  /* The generic level (every CPU): the uint8 kernels' patch rows and depthwise workspaces fit
   * the default budget, so small is fast. On x86-64 (AP_FAST_DIRECT's condition) the SOFTMAX's
   * table of exponentials (1,024 bytes, softmax_fast.c) adds to both (the arena stays). */
#if defined(__x86_64__) || defined(_M_X64)
  enum { SOFTMAX_TABLE = 1024 };
#else
  enum { SOFTMAX_TABLE = 0 };
#endif
  static const uint64_t generic[3][3] = {
      {98304, 0, 0}, {98320, 29312 + SOFTMAX_TABLE, 5392}, {98320, 29312 + SOFTMAX_TABLE, 5392}};
  exact("generic", generic);
#if defined(__x86_64__) || defined(_M_X64)
  /* AVX2 rows are padded to 16 values, and convolutions over 128 rows or more pack their
   * weights (8,192 bytes of packing): the fast kernels' total is within small's budget (the
   * reference total + 8 KiB), so small runs them all. The first two convolutions (at most 32
   * taps into 8 and 16 channels: smallk_avx2.c) take no scratch, as the reference's, so the
   * arena is the reference's. */
  static const uint64_t avx2[3][3] = {
      {98304, 0, 0}, {98304, 53520 + SOFTMAX_TABLE, 8704}, {98304, 53520 + SOFTMAX_TABLE, 8704}};
  if (ap_port_cpu_features() & AP_CPU_AVX2) exact("avx2", avx2);
#endif
  unsetenv("AP_SIMD");
  budgets("mobilenet_v1_025_128_uint8");
  budgets("mlperf_ic_resnet_int8");
  budgets("person_detect_int8");
  /* Unknown kernels are refused with a message. */
  ap_model *m = rt_load("mlperf_ic_resnet_int8");
  ap_interpreter_options o = ap_interpreter_defaults();
  o.kernels = 4;
  ap_interpreter *it = NULL;
  CHECK(m && ap_interpreter_create(m, &o, &it) != AP_OK);
  CHECK_CONTAINS(ap_interpreter_error(it), "AP_KERNELS_SMALL");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  return ap_test_done();
}
