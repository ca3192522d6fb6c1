/* State across invokes (LSTM and SVDF variables, in the persistent region): ten invokes on the
 * oracle's seeds 1..10, reset, the same ten again give identical outputs and state after every
 * invoke; the state moves (the same input twice in a row leaves two different states) and
 * reset puts TFLite Micro's reset value back (every byte the zero point for int8, else 0;
 * shared/oracle/tflm/README.md). The first invoke after allocate equals the oracle's seed 1. */
#include "oracle.h"

#define INVOKES 10

static const char *const stateful[] = {"mnist_lstm_float", "mnist_lstm_int8",
                                       "dtln_noise_suppression_int8", "keyword_scrambled_svdf"};

/* The outputs and every variable tensor of subgraph 0, appended to buf at *n. */
static void snapshot(const ap_interpreter *it, const ap_model *m, uint8_t *buf, size_t cap,
                     size_t *n) {
  for (size_t k = 0; k < ap_interpreter_output_count(it); k++) {
    ap_tensor slot, *t = oracle_output(it, k, &slot);
    if (t && *n + t->bytes <= cap) memcpy(buf + *n, t->data, t->bytes), *n += t->bytes;
  }
  for (size_t i = 0; i < ap_model_tensor_count(m, 0); i++) {
    ap_tensor slot, *t = oracle_tensor(it, i, &slot);
    if (t && t->is_variable && *n + t->bytes <= cap)
      memcpy(buf + *n, t->data, t->bytes), *n += t->bytes;
  }
}

/* Runs seeds 1..INVOKES without reset in between; snapshots after each into runs. */
static bool ten(ap_interpreter *it, const ap_model *m, const char *name, uint8_t *runs, size_t cap,
                size_t *each) {
  for (int i = 0; i < INVOKES; i++) {
    for (size_t k = 0; k < ap_interpreter_input_count(it); k++)
      oracle_fill(oracle_input(it, k, &(ap_tensor){0}), (uint64_t)i + 1, k);
    ap_status s = ap_interpreter_invoke(it);
    CHECK_MSG(s == AP_OK, "%s invoke %d: %s", name, i, ap_interpreter_error(it));
    if (s != AP_OK) return false;
    size_t n = 0;
    snapshot(it, m, runs + (size_t)i * cap, cap, &n);
    *each = n;
  }
  return true;
}

/* After reset every variable holds the reset value. Returns the number of variables. */
static size_t check_reset(const ap_interpreter *it, const ap_model *m, const char *name) {
  size_t vars = 0;
  for (size_t i = 0; i < ap_model_tensor_count(m, 0); i++) {
    ap_tensor slot, *t = oracle_tensor(it, i, &slot);
    ap_tensor_info ti;
    if (!t || !t->is_variable || ap_model_tensor(m, 0, i, &ti) != AP_OK) continue;
    vars++;
    uint8_t want = ti.type == AP_INT8 ? (uint8_t)(int8_t)ti.zero_point[0] : 0;
    size_t bad = 0;
    for (size_t b = 0; b < t->bytes; b++)
      bad += ((const uint8_t *)t->data)[b] != want;
    CHECK_MSG(bad == 0, "%s tensor %zu: %zu bytes differ from the reset value 0x%02x", name, i, bad,
              want);
  }
  return vars;
}

static void model(const char *name, size_t want_vars) {
  ap_model *m = oracle_open(name);
  ap_interpreter *it = m ? oracle_interpreter(m, name, NULL, false) : NULL;
  enum { CAP = 16384 };
  uint8_t *a = calloc(INVOKES, CAP), *b = calloc(INVOKES, CAP);
  size_t na = 0, nb = 0;
  if (it && a && b) {
    CHECK_EQ(check_reset(it, m, name), want_vars);
    bool ok = ten(it, m, name, a, CAP, &na);
    CHECK_EQ(ap_interpreter_reset_variables(it), AP_OK);
    CHECK_EQ(check_reset(it, m, name), want_vars);
    ok = ok && ten(it, m, name, b, CAP, &nb);
    CHECK(na > 0 && na == nb && na < CAP);
    for (int i = 0; ok && i < INVOKES; i++)
      CHECK_MSG(memcmp(a + (size_t)i * CAP, b + (size_t)i * CAP, na) == 0,
                "%s: invoke %d after reset differs from invoke %d after allocate", name, i, i);
    /* The first invoke is the oracle's (outputs first in the snapshot). */
    char rel[256];
    ap_tensor slot, *t = oracle_output(it, 0, &slot);
    snprintf(rel, sizeof rel, "%s.seed1.output0.bin", name);
    if (t) oracle_compare(rel, a, t->bytes);
    /* Seed 1 again on top of the state seed 1 left: the state must differ from the first's. */
    CHECK_EQ(ap_interpreter_reset_variables(it), AP_OK);
    size_t n1 = 0, n2 = 0;
    uint8_t *s1 = calloc(1, CAP), *s2 = calloc(1, CAP);
    for (int r = 0; s1 && s2 && r < 2; r++) {
      for (size_t k = 0; k < ap_interpreter_input_count(it); k++)
        oracle_fill(oracle_input(it, k, &(ap_tensor){0}), 1, k);
      CHECK_EQ(ap_interpreter_invoke(it), AP_OK);
      snapshot(it, m, r ? s2 : s1, CAP, r ? &n2 : &n1);
    }
    CHECK(s1 && s2 && n1 == n2 && n1 == na && memcmp(s1, a, n1) == 0);
    CHECK_MSG(s1 && s2 && memcmp(s1, s2, n1) != 0, "%s: a second invoke left the same state", name);
    free(s1);
    free(s2);
  }
  free(a);
  free(b);
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  /* MANIFEST.tsv: 2 variables in each mnist_lstm, 4 in dtln (two LSTMs), 7 in the SVDF model. */
  static const size_t vars[] = {2, 2, 4, 7};
  for (size_t i = 0; i < sizeof stateful / sizeof stateful[0]; i++)
    model(stateful[i], vars[i]);
  return ap_test_done();
}
