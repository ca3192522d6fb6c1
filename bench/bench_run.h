/* What the runtime benchmarks share: clocks and a median's comparison (bench_time.h), an allocated
 * interpreter fed the oracle's seed-1 inputs (or seeded bytes for a model the oracle lacks), and a
 * check that two interpreters gave the same output bytes. */
#ifndef AP_BENCH_RUN_H
#define AP_BENCH_RUN_H

#include "runtime/rt_test.h"

#include "bench_time.h"

#include <string.h>

/* NULL when the model does not allocate with these options. */
static inline ap_interpreter *bench_interpreter(const ap_model *m, const char *name,
                                                ap_interpreter_options o) {
  o.max_loop_iterations = 1000000;
  ap_interpreter *it = NULL;
  if (ap_interpreter_create(m, &o, &it) != AP_OK || ap_interpreter_allocate(it) != AP_OK) {
    ap_interpreter_destroy(it);
    return NULL;
  }
  if (!rt_feed_oracle(it, name, 1)) {
    uint64_t st = 1;
    for (size_t k = 0; k < ap_interpreter_input_count(it); k++) {
      ap_tensor in;
      ap_interpreter_input(it, k, &in);
      for (size_t b = 0; b < in.bytes; b++)
        ((uint8_t *)in.data)[b] = (uint8_t)ap_test_rand(&st);
      if (in.type == AP_FLOAT32) /* finite values, not random bit patterns */
        for (size_t b = 0; b < in.bytes / 4; b++)
          ((float *)in.data)[b] = (float)(b % 17) / 16.0f - 0.5f;
    }
  }
  return it;
}

/* The runtime as the issue-29 benches time it: builtin ops prepared once. */
static inline ap_interpreter *bench_prepared(const ap_model *m, const char *name, int kernels,
                                             int threads, bool inplace) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.kernels = kernels;
  o.threads = threads;
  o.prepare = AP_PREPARE_ONCE;
  o.inplace = inplace;
  return bench_interpreter(m, name, o);
}

static inline bool bench_same_outputs(ap_interpreter *a, ap_interpreter *b) {
  for (size_t k = 0; k < ap_interpreter_output_count(a); k++) {
    ap_tensor x, y;
    if (ap_interpreter_output(a, k, &x) != AP_OK || ap_interpreter_output(b, k, &y) != AP_OK ||
        x.bytes != y.bytes || memcmp(x.data, y.data, x.bytes) != 0)
      return false;
  }
  return true;
}

#endif
