/* Plan correctness, the models the oracle has no seeds for (or one: conformer_float): see
 * oracle_strategies.h. Their inputs follow the oracle's rule all the same; outputs under every
 * strategy must equal those under "naive". (dp_net_float and dynamic_shapes, whose inputs need
 * more care, are in test_issue8_models.c.) */
#include "oracle_strategies.h"

int main(void) {
  ap_test_require_shared();
  static const char *const names[] = {"mlperf_kws_dscnn_hybrid", "mobilenet_v1_025_128_uint8",
                                      "movenet_lightning_ptq", "conformer_float"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    check_model(names[i]);
  return ap_test_done();
}
