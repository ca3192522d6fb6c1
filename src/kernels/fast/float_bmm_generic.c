/* BATCH_MATMUL's float product in portable C (float_bmm_body.h). */
#include "kernels/fast/float_bmm_body.h"

void ap_fastops_generic_fmm(const float *a, size_t a_row, size_t a_col, const float *b, float *out,
                            int32_t m, int32_t n, int32_t k) {
  fmm_rows(a, a_row, a_col, b, out, m, n, k);
}
