/* The fast kernels on 1, 2 and 3 threads give TFLite Micro's bytes, invoke after invoke on the
 * same workers (run under ThreadSanitizer by make test-tsan). */
#include "rt_test.h"

int main(void) {
  ap_test_require_shared();
  static const char *const models[] = {"mlperf_kws_dscnn_int8", "mlperf_vww_int8",
                                        "mlperf_ad_fc_int8"};
  for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
    ap_model *m = rt_load(models[i]);
    for (int threads = 1; m && threads <= 3; threads++) {
      ap_interpreter_options o = ap_interpreter_defaults();
      o.threads = threads;
      ap_interpreter *it = NULL;
      CHECK(ap_interpreter_create(m, &o, &it) == AP_OK && ap_interpreter_allocate(it) == AP_OK);
      CHECK_EQ(ap_interpreter_threads(it), threads);
      for (int round = 0; round < 2; round++) {
        CHECK(rt_feed_oracle(it, models[i], 1));
        CHECK(ap_interpreter_invoke(it) == AP_OK);
        CHECK_MSG(rt_matches_oracle(it, models[i], 1, 0), "%s, %d threads, invoke %d", models[i],
                  threads, round + 1);
      }
      ap_interpreter_destroy(it);
    }
    ap_model_destroy(m);
  }
  return ap_test_done();
}
