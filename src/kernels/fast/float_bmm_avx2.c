/* BATCH_MATMUL's float product (float_bmm_body.h) compiled with AVX2, x86-64 only; no FMA
 * (-ffp-contract=off). */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/float_bmm_body.h"

void ap_fastops_avx2_fmm(const float *a, size_t a_row, size_t a_col, const float *b, float *out,
                         int32_t m, int32_t n, int32_t k) {
  fmm_rows(a, a_row, a_col, b, out, m, n, k);
}
#endif
