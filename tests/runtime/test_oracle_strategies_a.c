/* Plan correctness, first half of the models: see oracle_strategies.h. */
#include "oracle_strategies.h"

int main(void) {
  static const char *const names[] = {
      "person_detect_int8", "mlperf_vww_int8",  "mobilenet_v2_torch_int8",
      "hello_world_float",  "hello_world_int8", "micro_speech_int8",
      "magic_wand_float",   "call_once_mul",    "nested_while"};
  return strategies_main(names, sizeof names / sizeof names[0]);
}
