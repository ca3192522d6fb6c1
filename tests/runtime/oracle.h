/* Shared by the runtime oracle tests: the models TFLite Micro ran, the oracle's input rule
 * (written again here from shared/oracle/tflm/README.md, independently of the CLI's copy, and
 * checked against the oracle's own input files), and small interpreter helpers. */
#ifndef AP_TEST_ORACLE_H
#define AP_TEST_ORACLE_H

#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>

/* The models that TFLite Micro runs and we do (the oracle has outputs for them): the 14 of
 * issue 4, then issue 8's stateful ones (LSTM, SVDF) and control-flow ones (WHILE, CALL_ONCE,
 * resource variables), whose oracle outputs are the first invoke after allocate:
 * oracle_invoke resets their state before each invoke. */
static const char *const oracle_models[] = {
    "hello_world_float",
    "hello_world_int8",
    "micro_speech_int8",
    "person_detect_int8",
    "magic_wand_float",
    "tflm_test_conv",
    "mlperf_kws_dscnn_int8",
    "mlperf_vww_int8",
    "mlperf_ic_resnet_int8",
    "mlperf_ic_resnet_float",
    "mlperf_ad_fc_int8",
    "mlperf_sww_int8",
    "mobilenet_v2_torch_int8",
    "multi_signatures",
    "mnist_lstm_float",
    "mnist_lstm_int8",
    "dtln_noise_suppression_int8",
    "keyword_scrambled_svdf",
    "call_once_mul",
    "resource_vars_fc",
    "while_multi_subgraph",
    "nested_while",
    "audio_preprocessor_int8",
};
#define ORACLE_MODEL_COUNT (sizeof oracle_models / sizeof oracle_models[0])

/* ASan+UBSan builds are unoptimised and about 10x slower: tests that repeat a check over many
 * seeds run fewer of them there (memory errors show on the first). */
#if defined(__SANITIZE_ADDRESS__)
#define ORACLE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ORACLE_SANITIZED 1
#endif
#endif
#ifndef ORACLE_SANITIZED
#define ORACLE_SANITIZED 0
#endif

static inline uint64_t oracle_draw(uint64_t *x) {
  *x ^= *x >> 12;
  *x ^= *x << 25;
  *x ^= *x >> 27;
  return *x * 0x2545F4914F6CDD1DULL;
}

/* Input k of a run with `seed`, written into t->data. */
static inline void oracle_fill(ap_tensor *t, uint64_t seed, uint64_t k) {
  uint64_t x = (seed + k) * 0x9E3779B97F4A7C15ULL + 1;
  unsigned char *p = t->data;
  size_t width = t->type == AP_INT16 ? 2 : (t->type == AP_INT32 || t->type == AP_FLOAT32) ? 4 : 1;
  if (!p) return;
  if (t->type != AP_INT8 && t->type != AP_UINT8 && t->type != AP_BOOL && width == 1) {
    memset(p, 0, t->bytes);
    return;
  }
  for (size_t i = 0; i < t->bytes / width; i++) {
    uint64_t r = oracle_draw(&x);
    if (t->type == AP_INT8 || t->type == AP_UINT8) {
      p[i] = (unsigned char)(r >> 56);
    } else if (t->type == AP_BOOL) {
      p[i] = (unsigned char)(r >> 63);
    } else if (t->type == AP_INT16) {
      int16_t v = (int16_t)(r >> 48);
      memcpy(p + 2 * i, &v, 2);
    } else if (t->type == AP_INT32) {
      int32_t v = (int32_t)((r >> 32) % 201) - 100;
      memcpy(p + 4 * i, &v, 4);
    } else {
      float v = ((r >> 40) / 16777216.0f) * 2 - 1;
      memcpy(p + 4 * i, &v, 4);
    }
  }
}

static inline ap_model *oracle_open(const char *name) {
  char path[4096];
  ap_model *m = NULL;
  ap_test_path(path, sizeof path, "models/%s.tflite", name);
  if (ap_model_open(path, NULL, &m) != AP_OK) {
    CHECK_MSG(0, "%s: %s", name, ap_model_error(m));
    ap_model_destroy(m);
    return NULL;
  }
  return m;
}

/* The defaults, with the kernels and threads the environment asks for: AP_TEST_KERNELS
 * (fast or reference) and AP_TEST_THREADS (runtime_test_oracle_fast runs the oracle tests with
 * each; AP_SIMD caps the fast kernels' level), AP_TEST_PREPARE (once: options.prepare
 * AP_PREPARE_ONCE) and AP_TEST_STREAM. */
static inline ap_interpreter_options oracle_options(void) {
  ap_interpreter_options o = ap_interpreter_defaults();
  const char *k = getenv("AP_TEST_KERNELS"), *t = getenv("AP_TEST_THREADS");
  if (k && strcmp(k, "reference") == 0) o.kernels = AP_KERNELS_REFERENCE;
  if (t) o.threads = atoi(t);
  const char *p = getenv("AP_TEST_PREPARE");
  if (p && strcmp(p, "once") == 0) o.prepare = AP_PREPARE_ONCE;
  /* AP_TEST_STREAM=1 (test_stream_oracle.c): streamed segments and in-place sharing. */
  const char *st = getenv("AP_TEST_STREAM");
  if (st && strcmp(st, "1") == 0) o.stream = o.inplace = true;
  return o;
}

/* An interpreter created and allocated with options o, or NULL (nothing left to destroy). */
static inline ap_interpreter *oracle_make(const ap_model *m, const ap_interpreter_options *o) {
  ap_interpreter *it = NULL;
  if (ap_interpreter_create(m, o, &it) != AP_OK || ap_interpreter_allocate(it) != AP_OK) {
    ap_interpreter_destroy(it);
    return NULL;
  }
  return it;
}

/* An allocated interpreter, or NULL after a failed CHECK naming the model and the message. */
static inline ap_interpreter *oracle_interpreter(const ap_model *m, const char *name,
                                                 const char *strategy, bool preserve_all) {
  ap_interpreter_options o = oracle_options();
  o.strategy = strategy;
  o.preserve_all = preserve_all;
  ap_interpreter *it = NULL;
  if (ap_interpreter_create(m, &o, &it) != AP_OK || ap_interpreter_allocate(it) != AP_OK) {
    CHECK_MSG(0, "%s (%s): %s", name, strategy ? strategy : "best",
              it ? ap_interpreter_error(it) : "create failed");
    ap_interpreter_destroy(it);
    return NULL;
  }
  return it;
}

/* The runtime's tensor views, by value into `slot`; NULL when out of range. */
static inline ap_tensor *oracle_input(const ap_interpreter *it, size_t k, ap_tensor *slot) {
  return ap_interpreter_input(it, k, slot) == AP_OK ? slot : NULL;
}
static inline ap_tensor *oracle_output(const ap_interpreter *it, size_t k, ap_tensor *slot) {
  return ap_interpreter_output(it, k, slot) == AP_OK ? slot : NULL;
}
static inline ap_tensor *oracle_tensor(const ap_interpreter *it, size_t t, ap_tensor *slot) {
  return ap_interpreter_tensor(it, 0, t, slot) == AP_OK ? slot : NULL;
}

/* Fills every input with the oracle rule for `seed`, resets state and invokes. */
static inline bool oracle_invoke(ap_interpreter *it, const char *name, uint64_t seed) {
  for (size_t k = 0; k < ap_interpreter_input_count(it); k++)
    oracle_fill(oracle_input(it, k, &(ap_tensor){0}), seed, k);
  ap_interpreter_reset_variables(it);
  ap_status s = ap_interpreter_invoke(it);
  CHECK_MSG(s == AP_OK, "%s seed %llu: %s", name, (unsigned long long)seed,
            ap_interpreter_error(it));
  return s == AP_OK;
}

/* Compares bytes with the oracle file shared/oracle/tflm/REL; reports the first difference. */
static inline void oracle_compare(const char *rel, const void *data, size_t bytes) {
  char path[4096];
  size_t n = 0;
  uint8_t *want = ap_test_read_file(ap_test_path(path, sizeof path, "oracle/tflm/%s", rel), &n);
  CHECK_MSG(want != NULL, "cannot read %s", path);
  if (!want) return;
  CHECK_MSG(n == bytes, "%s: %zu bytes, ours %zu", rel, n, bytes);
  if (n == bytes && bytes && memcmp(want, data, n) != 0) {
    size_t i = 0;
    while (((const uint8_t *)data)[i] == want[i])
      i++;
    CHECK_MSG(0, "%s: differs first at byte %zu of %zu (0x%02x, oracle 0x%02x)", rel, i, n,
              ((const uint8_t *)data)[i], want[i]);
  } else if (n == bytes) {
    ap_test_passed++;
  }
  free(want);
}

/* Reads shared/oracle/tflm/REL (a TSV) into a malloc'd string; NULL after a failed CHECK. */
static inline char *oracle_tsv(const char *rel) {
  char path[4096];
  size_t n = 0;
  uint8_t *text = ap_test_read_file(ap_test_path(path, sizeof path, "oracle/tflm/%s", rel), &n);
  CHECK_MSG(text != NULL, "cannot read %s", path);
  if (!text) return NULL;
  char *s = malloc(n + 1);
  if (s) {
    memcpy(s, text, n);
    s[n] = '\0';
  }
  free(text);
  return s;
}

/* Splits one TSV line (modified in place) into at most max fields; returns the count. */
static inline size_t oracle_fields(char *line, char **f, size_t max) {
  size_t n = 0;
  while (n < max) {
    f[n++] = line;
    char *tab = strchr(line, '\t');
    if (!tab) break;
    *tab = '\0';
    line = tab + 1;
  }
  return n;
}

static inline bool oracle_is_model(const char *name) {
  for (size_t i = 0; i < ORACLE_MODEL_COUNT; i++)
    if (strcmp(oracle_models[i], name) == 0) return true;
  return false;
}

#endif
