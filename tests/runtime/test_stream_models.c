/* Streamed segments in the runtime (ap_interpreter_options.stream): on every shared model the
 * runtime runs, outputs streamed (alone and with in-place, with the fast kernels at the level
 * AP_SIMD allows and with the reference kernels) are bit-identical to "naive" over seeded
 * random inputs, and the streamed in-place arena is never above the in-place one. */
#include "inplace.h"

static ap_interpreter *make_stream(const ap_model *m, bool inplace, int kernels) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.stream = true;
  o.inplace = inplace;
  o.kernels = kernels;
  return oracle_make(m, &o);
}

static void stream_model(const char *name, size_t *models, size_t *smaller, size_t *streamed) {
  ap_model *m = oracle_open(name);
  if (!m) return;
  ap_interpreter *naive = make(m, "naive", false);
  if (!naive) {
    ap_model_destroy(m);
    return;
  }
  ap_interpreter *in = make(m, "best", true), *s = make_stream(m, false, AP_KERNELS_FAST),
                 *si = make_stream(m, true, AP_KERNELS_FAST),
                 *sr = make_stream(m, true, AP_KERNELS_REFERENCE);
  CHECK_MSG(in && s && si && sr, "%s: streamed allocate failed", name);
  if (in && s && si && sr) {
    CHECK_MSG(arena_of(si) <= arena_of(in), "%s: streamed in-place arena %llu > in-place %llu",
              name, (unsigned long long)arena_of(si), (unsigned long long)arena_of(in));
    uint64_t seeds = arena_of(naive) > (1u << 20) || ORACLE_SANITIZED ? 1 : 3;
    for (uint64_t seed = 1; seed <= seeds; seed++) {
      if (!oracle_invoke(naive, name, seed) || !oracle_invoke(s, name, seed) ||
          !oracle_invoke(si, name, seed) || !oracle_invoke(sr, name, seed))
        break;
      CHECK_MSG(same_outputs(naive, s), "%s seed %llu: streamed outputs differ from naive", name,
                (unsigned long long)seed);
      CHECK_MSG(same_outputs(naive, si), "%s seed %llu: streamed in-place outputs differ", name,
                (unsigned long long)seed);
      CHECK_MSG(same_outputs(naive, sr), "%s seed %llu: streamed reference outputs differ", name,
                (unsigned long long)seed);
    }
    printf("%-28s in-place %10llu  streamed %10llu  streamed in-place %10llu\n", name,
           (unsigned long long)arena_of(in), (unsigned long long)arena_of(s),
           (unsigned long long)arena_of(si));
    (*models)++;
    if (arena_of(si) < arena_of(in)) (*smaller)++;
    if (ap_interpreter_streamed(si) && ap_interpreter_streamed(sr)) (*streamed)++;
  }
  ap_interpreter_destroy(sr);
  ap_interpreter_destroy(si);
  ap_interpreter_destroy(s);
  ap_interpreter_destroy(in);
  ap_interpreter_destroy(naive);
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  static char names[128][64];
  size_t n = ap_test_models(names, 128), models = 0, smaller = 0, streamed = 0;
  for (size_t i = 0; i < n; i++) {
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(names[i]) - strlen(".tflite")), names[i]);
    /* An NPU's custom op; conformer_float: 38 MB, no convolution chain. */
    if (strcmp(name, "person_detect_vela") == 0 || strcmp(name, "conformer_float") == 0) continue;
    stream_model(name, &models, &smaller, &streamed);
  }
  CHECK(models >= 16);
  /* person_detect_int8, magic_wand_float and more shrink. */
  CHECK(smaller >= 2);
  /* The fast and the reference kernels' rows both run: person_detect_int8, mlperf_vww_int8,
   * mlperf_ic_resnet_int8, magic_wand_float, mobilenet_v1_025_128_uint8, tflm_test_conv,
   * mlperf_kws_dscnn_int8, movenet_lightning_ptq, mobilenet_v2_torch_int8 and more stream. */
  printf("%zu models streamed (fast and reference kernels)\n", streamed);
  CHECK(streamed >= 9);
  return ap_test_done();
}
