/* The single-op oracle (test_oracle_ops.c) with streamed segments and in-place sharing on:
 * every model still equals TFLite Micro byte for byte. */
#define ORACLE_OPS_STREAM true
#include "test_oracle_ops.c"
