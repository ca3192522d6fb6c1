/* The audio front end's state across invokes: SignalFilterBankSpectralSubtraction's noise
 * estimate carries from one invoke to the next (so a second invoke on the same frame gives
 * other features), ap_interpreter_reset_variables zeroes it (the first invoke's output, which
 * the oracle holds, comes back), and a second interpreter on the same model has its own. */
#include "oracle.h"

/* Seed 1's frame (again: the plan may reuse the input's bytes once read), then one invoke. */
static void features(ap_interpreter *it, uint8_t out[40]) {
  ap_tensor t;
  oracle_fill(oracle_input(it, 0, &t), 1, 0);
  CHECK_EQ(ap_interpreter_invoke(it), AP_OK);
  CHECK_EQ(ap_interpreter_output(it, 0, &t), AP_OK);
  CHECK_EQ(t.bytes, 40);
  memcpy(out, t.data, 40);
}

int main(void) {
  ap_test_require_shared();
  const char *name = "audio_preprocessor_int8";
  ap_model *m = oracle_open(name);
  ap_interpreter *a = m ? oracle_interpreter(m, name, NULL, false) : NULL;
  ap_interpreter *b = m ? oracle_interpreter(m, name, "naive", false) : NULL;
  if (!a || !b) return ap_test_done();
  uint8_t first[40], second[40], again[40], other[40];
  features(a, first);
  oracle_compare("audio_preprocessor_int8.seed1.output0.bin", first, 40);
  /* The same frame, but the noise estimate has grown: the features change. */
  features(a, second);
  CHECK(memcmp(first, second, 40) != 0);
  /* b's first invoke does not see a's state. */
  features(b, other);
  CHECK(memcmp(first, other, 40) == 0);
  CHECK_EQ(ap_interpreter_reset_variables(a), AP_OK);
  features(a, again);
  CHECK(memcmp(first, again, 40) == 0);
  features(a, again);
  CHECK(memcmp(second, again, 40) == 0);
  /* A new allocate starts from zero as well. */
  CHECK_EQ(ap_interpreter_allocate(a), AP_OK);
  features(a, again);
  CHECK(memcmp(first, again, 40) == 0);
  ap_interpreter_destroy(a);
  ap_interpreter_destroy(b);
  ap_model_destroy(m);
  return ap_test_done();
}
