/* The quantized pools (pool_body.h) compiled with AVX2 (x86-64 only): the same loops, 256-bit
 * vectors. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/pool_body.h"

bool ap_fastops_avx2_pool(const ap_qpool *q, int32_t b, int32_t oy0, int32_t oy1) {
  return pool_rows(q, b, oy0, oy1);
}
#endif
