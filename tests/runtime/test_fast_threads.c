/* The fast kernels on 1, 2 and 3 threads give TFLite Micro's bytes, invoke after invoke on the
 * same workers, by default and in place (run under ThreadSanitizer by make test-tsan). */
#include "rt_test.h"

/* Every model of `models` on 1-3 threads with `kernels` and `inplace`: the oracle's bytes. */
static void run(const char *const *models, size_t n, int kernels, bool inplace) {
  for (size_t i = 0; i < n; i++) {
    ap_model *m = rt_load(models[i]);
    for (int threads = 1; m && threads <= 3; threads++) {
      ap_interpreter_options o = ap_interpreter_defaults();
      o.threads = threads;
      o.kernels = kernels;
      o.inplace = inplace;
      ap_interpreter *it = NULL;
      CHECK(ap_interpreter_create(m, &o, &it) == AP_OK && ap_interpreter_allocate(it) == AP_OK);
      CHECK_EQ(ap_interpreter_threads(it), threads);
      for (int round = 0; round < 2; round++) {
        CHECK(rt_feed_oracle(it, models[i], 1));
        CHECK(ap_interpreter_invoke(it) == AP_OK);
        CHECK_MSG(rt_matches_oracle(it, models[i], 1, 0), "%s, %d threads%s, invoke %d", models[i],
                  threads, inplace ? ", in place" : "", round + 1);
      }
      ap_interpreter_destroy(it);
    }
    ap_model_destroy(m);
  }
}

int main(void) {
  ap_test_require_shared();
  static const char *const models[] = {"mlperf_kws_dscnn_int8", "mlperf_vww_int8",
                                       "mlperf_ad_fc_int8"};
  run(models, sizeof models / sizeof models[0], AP_KERNELS_AUTO, false);
  /* In place, the fast kernels on threads plan no convolution over its input (its rows then
   * split over the threads; bench/threads_balance.sh counts them). */
  static const char *const split[] = {"mlperf_vww_int8", "mlperf_ic_resnet_int8",
                                      "mlperf_ic_resnet_float", "mobilenet_v2_torch_int8"};
  run(split, sizeof split / sizeof split[0], AP_KERNELS_FAST, true);
  return ap_test_done();
}
