/* The float matrix product of BATCH_MATMUL's fast path, included by float_bmm_generic.c and
 * float_bmm_avx2.c (compiled with their level's flags, -ffp-contract=off): 8 output columns at
 * a time in fixed-length blocks the compiler turns into vector code. Each output keeps the
 * reference's sum: from 0.0f, over q in order, a product then an add (no FMA). */
#include "kernels/fast/fastops.h"

static void fmm_rows(const float *a, size_t a_row, size_t a_col, const float *b, float *out,
                     int32_t m, int32_t n, int32_t k) {
  for (int32_t i = 0; i < m; i++) {
    const float *ai = a + (size_t)i * a_row;
    float *o = out + (size_t)i * (size_t)n;
    int32_t j0 = 0;
    for (; j0 + 8 <= n; j0 += 8) {
      float acc[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
      for (int32_t q = 0; q < k; q++) {
        float av = ai[(size_t)q * a_col];
        const float *bq = b + (size_t)q * (size_t)n + j0;
        for (int t = 0; t < 8; t++)
          acc[t] += av * bq[t];
      }
      for (int t = 0; t < 8; t++)
        o[j0 + t] = acc[t];
    }
    for (int32_t j = j0; j < n; j++) {
      float acc = 0.0f;
      for (int32_t q = 0; q < k; q++)
        acc += ai[(size_t)q * a_col] * b[(size_t)q * (size_t)n + j];
      o[j] = acc;
    }
  }
}
