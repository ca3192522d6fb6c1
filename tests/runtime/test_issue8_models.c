/* The models of issue 8 that the new kernels complete: conformer_float (SELECT_V2, SLICE,
 * SQUARED_DIFFERENCE, RSQRT, BATCH_MATMUL) equals TFLite Micro's oracle byte for byte on its one
 * seed; dp_net_float (PRELU, POW, DIV, EXP, LOG, SQRT, RSQRT, STRIDED_SLICE, PACK, UNPACK,
 * REVERSE_V2, TRANSPOSE_CONV), which TFLite Micro cannot run, gives the same bytes under every
 * strategy as under `naive` (no reuse at all). */
#include "oracle.h"

#include <string.h>

static void conformer_vs_oracle(void) {
  ap_model *m = oracle_open("conformer_float");
  if (!m) return;
  ap_interpreter *it = oracle_interpreter(m, "conformer_float", NULL, false);
  if (it && oracle_invoke(it, "conformer_float", 1)) {
    ap_tensor t;
    CHECK_EQ(ap_interpreter_output_count(it), 1);
    if (oracle_output(it, 0, &t))
      oracle_compare("conformer_float.seed1.output0.bin", t.data, t.bytes);
  }
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
}

/* Output k of one run of `strategy` with the oracle's seed-1 inputs, copied to malloc'd memory. */
static unsigned char *run_outputs(const ap_model *m, const char *strategy, size_t *bytes) {
  ap_interpreter *it = oracle_interpreter(m, "dp_net_float", strategy, false);
  unsigned char *all = NULL;
  *bytes = 0;
  if (it && oracle_invoke(it, "dp_net_float", 1)) {
    for (size_t k = 0; k < ap_interpreter_output_count(it); k++) {
      ap_tensor t;
      if (!oracle_output(it, k, &t)) continue;
      unsigned char *grown = realloc(all, *bytes + t.bytes);
      CHECK(grown != NULL);
      if (!grown) break;
      all = grown;
      memcpy(all + *bytes, t.data, t.bytes);
      *bytes += t.bytes;
    }
  }
  ap_interpreter_destroy(it);
  return all;
}

static void dp_net_strategies(void) {
  ap_model *m = oracle_open("dp_net_float");
  if (!m) return;
  size_t n0 = 0;
  unsigned char *ref = run_outputs(m, "naive", &n0);
  /* 257 * 3 + 4096 * 2 floats: the model's five outputs. */
  CHECK_EQ(n0, (257 * 3 + 4096 * 2) * 4);
  static const char *const strategies[] = {"linear", "tflm",    "tflite", "greedy_size",
                                           "sweep",  "skyline", "best"};
  for (size_t i = 0; ref && i < sizeof strategies / sizeof strategies[0]; i++) {
    size_t n = 0;
    unsigned char *got = run_outputs(m, strategies[i], &n);
    CHECK_MSG(got && n == n0 && memcmp(got, ref, n) == 0, "dp_net_float: %s differs from naive",
              strategies[i]);
    free(got);
  }
  free(ref);
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  conformer_vs_oracle();
  dp_net_strategies();
  return ap_test_done();
}
