/* What a streamed segment keeps for one run must not outlive it (runtime/stream.c): window rows
 * kept over calls on the run's stack (AP_FAST_WIN_OWN), weights packed once there, rows laid out
 * once (ap_fast_block_rows). Two streamed in-place interpreters on one model, the fast kernels,
 * invoked in turn on different inputs, each invoke also repeated on the same input: every
 * output bit-identical to the unstreamed no-reuse run of the same input. The models are those
 * whose segments take these paths: the direct kits on the stack (tflm_test_conv,
 * person_detect_int8, mlperf_kws_dscnn_int8, mlperf_vww_int8), the float convolution, float
 * depthwise and pools laid out (magic_wand_float), the uint8 pools (mobilenet_v1_025_128_uint8). */
#include "inplace.h"

static ap_interpreter *make_stream(const ap_model *m) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.stream = true;
  o.inplace = true;
  o.kernels = AP_KERNELS_FAST;
  return oracle_make(m, &o);
}

static bool check(ap_interpreter *naive, ap_interpreter *it, const char *name, const char *which,
                  uint64_t seed) {
  if (!oracle_invoke(naive, name, seed) || !oracle_invoke(it, name, seed)) return false;
  CHECK_MSG(same_outputs(naive, it), "%s interpreter %s seed %llu: streamed outputs differ", name,
            which, (unsigned long long)seed);
  return true;
}

static bool rerun_model(const char *name) {
  ap_model *m = oracle_open(name);
  if (!m) return false;
  ap_interpreter *naive = make(m, "naive", false), *a = make_stream(m), *b = make_stream(m);
  CHECK_MSG(naive && a && b, "%s: allocate failed", name);
  bool streamed = a && b && ap_interpreter_streamed(a) && ap_interpreter_streamed(b);
  static const uint64_t seeds[] = {1, 2, 3, 7};
  enum { N = sizeof seeds / sizeof seeds[0] };
  for (int r = 0; naive && a && b && r < N; r++) {
    /* a and b in turn on different inputs; a again on its input, then on b's */
    if (!check(naive, a, name, "a", seeds[r]) || !check(naive, b, name, "b", seeds[N - 1 - r]) ||
        !check(naive, a, name, "a", seeds[r]) || !check(naive, a, name, "a", seeds[N - 1 - r]))
      break;
  }
  ap_interpreter_destroy(b);
  ap_interpreter_destroy(a);
  ap_interpreter_destroy(naive);
  ap_model_destroy(m);
  return streamed;
}

int main(void) {
  ap_test_require_shared();
  static const char *models[] = {"tflm_test_conv",     "magic_wand_float",
                                 "person_detect_int8", "mlperf_kws_dscnn_int8",
                                 "mlperf_vww_int8",    "mobilenet_v1_025_128_uint8"};
  size_t streamed = 0;
  for (size_t i = 0; i < sizeof models / sizeof *models; i++)
    streamed += rerun_model(models[i]);
  /* mlperf_kws_dscnn_int8's plan may stay unstreamed (its streamed plan is not smaller) */
  CHECK(streamed >= 5);
  return ap_test_done();
}
