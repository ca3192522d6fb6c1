/* Plan correctness, second half of the models: see oracle_strategies.h. */
#include "oracle_strategies.h"

int main(void) {
  static const char *const names[] = {
      "mlperf_ic_resnet_int8", "mlperf_ic_resnet_float", "mlperf_kws_dscnn_int8",
      "mlperf_sww_int8",       "mlperf_ad_fc_int8",      "tflm_test_conv",
      "multi_signatures",      "resource_vars_fc",       "while_multi_subgraph"};
  return strategies_main(names, sizeof names / sizeof names[0]);
}
