/* Float FULLY_CONNECTED for the AVX2 level: eight units in the lanes, their weight rows turned
 * into lanes by 8x8 transposes on the fly (no packing, no scratch), up to four batches sharing
 * each transpose (fewer than four batches: sixteen units a pass instead, two chains of adds). Each
 * unit's sum runs over the depth in index order from 0.0f, then the bias and the clamp, as the
 * reference's; products and sums are separate instructions (no FMA). */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/float_x86.h"

#include <immintrin.h>
#include <string.h>

/* Columns d .. d + 7 of eight rows (w[l] + d, 8 floats each): c[i] holds depth d + i of rows
 * 0..7 in lanes 0..7. Rows l and l + 4 share a register from the loads on (vinsertf128 from
 * memory), so the transpose stays within 128-bit lanes: 16 shuffles instead of ap_transpose8's
 * 24 (8 of them across lanes). */
static inline __attribute__((always_inline)) void cols8(const float *const w[8], int32_t d,
                                                        __m256 c[8]) {
  _Pragma("GCC unroll 2") for (int h = 0; h < 2; h++) {
    __m256 a[4];
    _Pragma("GCC unroll 4") for (int l = 0; l < 4; l++) a[l] =
        _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(w[l] + d + 4 * h)),
                             _mm_loadu_ps(w[l + 4] + d + 4 * h), 1);
    __m256 t0 = _mm256_unpacklo_ps(a[0], a[1]), t1 = _mm256_unpackhi_ps(a[0], a[1]);
    __m256 t2 = _mm256_unpacklo_ps(a[2], a[3]), t3 = _mm256_unpackhi_ps(a[2], a[3]);
    c[4 * h + 0] = _mm256_shuffle_ps(t0, t2, 0x44);
    c[4 * h + 1] = _mm256_shuffle_ps(t0, t2, 0xee);
    c[4 * h + 2] = _mm256_shuffle_ps(t1, t3, 0x44);
    c[4 * h + 3] = _mm256_shuffle_ps(t1, t3, 0xee);
  }
}

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
    cols8(w, d0, r);
    _Pragma("GCC unroll 8") for (int i = 0; i < 8; i++)
        _Pragma("GCC unroll 4") for (int j = 0; j < NB; j++) acc[j] =
            _mm256_add_ps(acc[j], _mm256_mul_ps(_mm256_broadcast_ss(x[j] + d0 + i), r[i]));
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
    __m256 r[8];
    cols8(w, d0, r);
    _Pragma("GCC unroll 8") for (int i = 0; i < 8; i++) a0 =
        _mm256_add_ps(a0, _mm256_mul_ps(_mm256_broadcast_ss(x + d0 + i), r[i]));
    cols8(w + 8, d0, r);
    _Pragma("GCC unroll 8") for (int i = 0; i < 8; i++) a1 =
        _mm256_add_ps(a1, _mm256_mul_ps(_mm256_broadcast_ss(x + d0 + i), r[i]));
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
