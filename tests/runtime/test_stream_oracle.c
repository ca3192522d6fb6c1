/* The whole-model oracle (test_oracle.c: every shared model against TFLite Micro's outputs,
 * byte for byte) with streamed segments and in-place sharing on. */
#include <stdlib.h>

#define main oracle_main
#include "test_oracle.c"
#undef main

int main(void) {
  setenv("AP_TEST_STREAM", "1", 1);
  return oracle_main();
}
