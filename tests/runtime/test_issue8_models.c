/* The models of issue 8 that the new kernels complete: conformer_float (SELECT_V2, SLICE,
 * SQUARED_DIFFERENCE, RSQRT, BATCH_MATMUL) equals TFLite Micro's oracle byte for byte on its one
 * seed; dp_net_float (PRELU, POW, DIV, EXP, LOG, SQRT, RSQRT, STRIDED_SLICE, PACK, UNPACK,
 * REVERSE_V2, TRANSPOSE_CONV), which TFLite Micro cannot run, gives the same bytes under every
 * strategy as under `naive` (no reuse at all); so does dynamic_shapes (TILE, L2_NORMALIZATION,
 * dynamic tensors), under every registered strategy; call_once_mul and resource_vars_fc
 * (CALL_ONCE, resource variables) repeat themselves after ap_interpreter_reset_variables. */
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

/* Every output of `it` after `runs` invokes on the oracle's seed-1 inputs, appended to out. */
static size_t invoke_runs(ap_interpreter *it, const char *name, int runs, unsigned char *out,
                          size_t cap) {
  size_t n = 0;
  for (int r = 0; r < runs; r++) {
    /* Again each time: the plan may reuse an input's bytes once it has been read. */
    for (size_t k = 0; k < ap_interpreter_input_count(it); k++)
      oracle_fill(oracle_input(it, k, &(ap_tensor){0}), 1, k);
    ap_status s = ap_interpreter_invoke(it);
    CHECK_MSG(s == AP_OK, "%s run %d: %s", name, r, ap_interpreter_error(it));
    for (size_t k = 0; s == AP_OK && k < ap_interpreter_output_count(it); k++) {
      ap_tensor t;
      if (!oracle_output(it, k, &t) || n + t.bytes > cap) continue;
      memcpy(out + n, t.data, t.bytes);
      n += t.bytes;
    }
  }
  return n;
}

/* Resource variables carry state from one invoke to the next (CALL_ONCE initialises them on
 * the first): 10 invokes, reset_variables, 10 invokes give the same 10 outputs twice, the
 * first equal to the oracle's first invoke and the second not (the state moved). */
static void stateful(const char *name, size_t output_bytes, size_t output0_bytes) {
  ap_model *m = oracle_open(name);
  ap_interpreter *it = m ? oracle_interpreter(m, name, NULL, false) : NULL;
  if (it) {
    static unsigned char a[10 * 64], b[10 * 64];
    size_t na = invoke_runs(it, name, 10, a, sizeof a);
    CHECK_EQ(ap_interpreter_reset_variables(it), AP_OK);
    size_t nb = invoke_runs(it, name, 10, b, sizeof b);
    CHECK_EQ(na, 10 * output_bytes);
    CHECK_MSG(na == nb && memcmp(a, b, na) == 0, "%s: the runs after reset differ", name);
    CHECK_MSG(memcmp(a, a + output_bytes, output_bytes) != 0, "%s: invoke 2 equals invoke 1", name);
    /* Output 0 of the first invoke is the oracle's (the other outputs follow it in a). */
    char rel[128];
    snprintf(rel, sizeof rel, "%s.seed1.output0.bin", name);
    oracle_compare(rel, a, output0_bytes);
  }
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
}

/* dynamic_shapes with the oracle's inputs except z: the oracle's z lies in [-1, 1), which CAST
 * truncates to 0 rows (nothing to compare); z = 5 * seed + 3.5 gives n = 5 * seed + 3 rows of
 * y, so the dynamic tensors hold data and the arena's tensors (x, y, the slice of y, the
 * values of z) are read by them. */
static bool dynamic_run(ap_interpreter *it, uint64_t seed, unsigned char **out, size_t *bytes) {
  for (size_t k = 0; k < ap_interpreter_input_count(it); k++)
    oracle_fill(oracle_input(it, k, &(ap_tensor){0}), seed, k);
  ap_tensor z, o;
  if (!oracle_input(it, 2, &z) || z.bytes != 4) return false;
  ((float *)z.data)[0] = 5.0f * (float)seed + 3.5f;
  ap_status s = ap_interpreter_invoke(it);
  CHECK_MSG(s == AP_OK, "dynamic_shapes seed %llu: %s", (unsigned long long)seed,
            ap_interpreter_error(it));
  if (s != AP_OK || !oracle_output(it, 0, &o)) return false;
  CHECK_EQ(o.dims[1], 5 * (int)seed + 3);
  *out = malloc(o.bytes);
  if (*out) memcpy(*out, o.data, o.bytes);
  *bytes = o.bytes;
  return *out != NULL;
}

static void dynamic_shapes_strategies(void) {
  ap_model *m = oracle_open("dynamic_shapes");
  if (!m) return;
  ap_interpreter *naive = oracle_interpreter(m, "dynamic_shapes", "naive", false);
  size_t same = 0;
  for (uint64_t seed = 1; naive && seed <= 3; seed++) {
    unsigned char *want = NULL, *got = NULL;
    size_t n0 = 0, n = 0;
    if (!dynamic_run(naive, seed, &want, &n0)) continue;
    CHECK_EQ(n0, (size_t)8 * (5 * seed + 3) * 1024 * 4);
    for (size_t i = 0; i < ap_strategy_count(); i++) {
      const char *name = ap_strategy_name(i);
      if (strcmp(name, "naive") == 0) continue;
      ap_interpreter *it = oracle_interpreter(m, "dynamic_shapes", name, false);
      if (it && dynamic_run(it, seed, &got, &n)) {
        CHECK_MSG(n == n0 && memcmp(got, want, n) == 0,
                  "dynamic_shapes seed %llu: %s differs from naive", (unsigned long long)seed,
                  name);
        same += n == n0 && memcmp(got, want, n) == 0;
      }
      free(got);
      got = NULL;
      ap_interpreter_destroy(it);
    }
    free(want);
  }
  printf("dynamic_shapes: %zu strategy runs identical to naive\n", same);
  ap_interpreter_destroy(naive);
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  conformer_vs_oracle();
  dp_net_strategies();
  /* call_once_mul: one float; resource_vars_fc: two outputs of 5 floats. */
  stateful("call_once_mul", 4, 4);
  stateful("resource_vars_fc", 40, 20);
  dynamic_shapes_strategies();
  return ap_test_done();
}
