/* Float FULLY_CONNECTED for the AVX2 level: eight units in the lanes, their weight rows turned
 * into lanes by 8x8 transposes on the fly (no packing, no scratch), up to four batches sharing
 * each transpose (fewer than four batches: sixteen units a pass instead, two chains of adds). Each
 * unit's sum runs over the depth in index order from 0.0f, then the bias and the clamp, as the
 * reference's; products and sums are separate instructions (no FMA). */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/float_x86.h"

#include <immintrin.h>
#include <string.h>

static inline __attribute__((always_inline)) void
block(const ap_ffc *f, const float *const w[8], int32_t u, int32_t m, int32_t b0, const int NB) {
  const int32_t D = f->depth, d8 = D / 8 * 8;
  const float *x[4];
  __m256 acc[4];
  for (int j = 0; j < NB; j++) {
    x[j] = f->x + (size_t)(b0 + j) * D;
    acc[j] = _mm256_setzero_ps();
  }
  for (int32_t d0 = 0; d0 < d8; d0 += 8) {
    __m256 r[8];
    for (int l = 0; l < 8; l++)
      r[l] = _mm256_loadu_ps(w[l] + d0);
    ap_transpose8(r);
    for (int i = 0; i < 8; i++)
      for (int j = 0; j < NB; j++)
        acc[j] = _mm256_add_ps(acc[j], _mm256_mul_ps(_mm256_broadcast_ss(x[j] + d0 + i), r[i]));
  }
  if (d8 < D) { /* the last depths: masked loads (no read past a row), one transpose */
    int32_t t = D - d8;
    __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(t), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256 r[8];
    for (int l = 0; l < 8; l++)
      r[l] = _mm256_maskload_ps(w[l] + d8, mask);
    ap_transpose8(r);
    for (int32_t i = 0; i < t; i++)
      for (int j = 0; j < NB; j++)
        acc[j] = _mm256_add_ps(acc[j], _mm256_mul_ps(_mm256_broadcast_ss(x[j] + d8 + i), r[i]));
  }
  float bias[8] = {0.0f};
  if (f->bias) memcpy(bias, f->bias + u, (size_t)m * 4);
  __m256 bv = _mm256_loadu_ps(bias);
  for (int j = 0; j < NB; j++) {
    __m256 v = ap_clampf8(_mm256_add_ps(acc[j], bv), f->lo, f->hi);
    float *out = f->out + (size_t)(b0 + j) * f->units + u;
    if (m == 8) {
      _mm256_storeu_ps(out, v);
    } else {
      float t[8];
      _mm256_storeu_ps(t, v);
      memcpy(out, t, (size_t)m * 4);
    }
  }
}

/* One batch, sixteen units (u .. u + 15, m of them in the second eight): two blocks' sums in
 * one pass, so the two chains of adds overlap (one batch leaves block() a single chain). */
static void block16(const ap_ffc *f, const float *const w[16], int32_t u, int32_t m, int32_t b) {
  const int32_t D = f->depth, d8 = D / 8 * 8;
  const float *x = f->x + (size_t)b * D;
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  for (int32_t d0 = 0; d0 < d8; d0 += 8) {
    __m256 r[8], q[8];
    for (int l = 0; l < 8; l++) {
      r[l] = _mm256_loadu_ps(w[l] + d0);
      q[l] = _mm256_loadu_ps(w[8 + l] + d0);
    }
    ap_transpose8(r);
    ap_transpose8(q);
    for (int i = 0; i < 8; i++) {
      __m256 xv = _mm256_broadcast_ss(x + d0 + i);
      a0 = _mm256_add_ps(a0, _mm256_mul_ps(xv, r[i]));
      a1 = _mm256_add_ps(a1, _mm256_mul_ps(xv, q[i]));
    }
  }
  if (d8 < D) {
    int32_t t = D - d8;
    __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(t), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256 r[8], q[8];
    for (int l = 0; l < 8; l++) {
      r[l] = _mm256_maskload_ps(w[l] + d8, mask);
      q[l] = _mm256_maskload_ps(w[8 + l] + d8, mask);
    }
    ap_transpose8(r);
    ap_transpose8(q);
    for (int32_t i = 0; i < t; i++) {
      __m256 xv = _mm256_broadcast_ss(x + d8 + i);
      a0 = _mm256_add_ps(a0, _mm256_mul_ps(xv, r[i]));
      a1 = _mm256_add_ps(a1, _mm256_mul_ps(xv, q[i]));
    }
  }
  float bias[16] = {0.0f};
  if (f->bias) memcpy(bias, f->bias + u, (size_t)(8 + m) * 4);
  float *out = f->out + (size_t)b * f->units + u;
  _mm256_storeu_ps(out, ap_clampf8(_mm256_add_ps(a0, _mm256_loadu_ps(bias)), f->lo, f->hi));
  float t[8];
  _mm256_storeu_ps(t, ap_clampf8(_mm256_add_ps(a1, _mm256_loadu_ps(bias + 8)), f->lo, f->hi));
  memcpy(out + 8, t, (size_t)m * 4);
}

void ap_fast_avx2_ffc(const ap_ffc *f, int32_t u0, int32_t u1) {
  int32_t u = u0;
  if (f->batches < 4) /* few batches: sixteen units a pass, each batch on its own */
    for (; u + 8 < u1; u += 16) {
      int32_t m = u1 - u - 8 < 8 ? u1 - u - 8 : 8;
      const float *w[16];
      for (int32_t l = 0; l < 16; l++) /* lanes past the last unit repeat the first */
        w[l] = f->w + (size_t)(u + (l < 8 + m ? l : 0)) * f->depth;
      for (int32_t b = 0; b < f->batches; b++)
        block16(f, w, u, m, b);
    }
  for (; u < u1; u += 8) {
    int32_t m = u1 - u < 8 ? u1 - u : 8;
    const float *w[8];
    for (int32_t l = 0; l < 8; l++) /* lanes past the last unit repeat the first (not stored) */
      w[l] = f->w + (size_t)(u + (l < m ? l : 0)) * f->depth;
    int32_t b0 = 0;
    for (; b0 + 4 <= f->batches; b0 += 4)
      block(f, w, u, m, b0, 4);
    switch (f->batches - b0) {
    case 3: block(f, w, u, m, b0, 3); break;
    case 2: block(f, w, u, m, b0, 2); break;
    case 1: block(f, w, u, m, b0, 1); break;
    default: break;
    }
  }
}
#else
typedef int ap_fast_float_fc_avx2_unused; /* x86-64 only */
#endif
