/* The quantized pools in portable C (pool_body.h). */
#include "kernels/fast/pool_body.h"

bool ap_fastops_generic_pool(const ap_qpool *q, int32_t b, int32_t oy0, int32_t oy1) {
  return pool_rows(q, b, oy0, oy1);
}
