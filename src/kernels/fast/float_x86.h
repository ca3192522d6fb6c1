/* Float helpers shared by the x86 levels' float files (each compiled with its level's flags). */
#ifndef AP_KERNELS_FAST_FLOAT_X86_H
#define AP_KERNELS_FAST_FLOAT_X86_H

#include "kernels/fast/fast.h"

#include <immintrin.h>

#ifdef __AVX2__
/* std::min(std::max(x, lo), hi) as the reference's clamp: NaN passes through. */
static inline __m256 ap_clampf8(__m256 x, float lo, float hi) {
  __m256 l = _mm256_set1_ps(lo), h = _mm256_set1_ps(hi);
  x = _mm256_blendv_ps(x, l, _mm256_cmp_ps(x, l, _CMP_LT_OQ));
  return _mm256_blendv_ps(x, h, _mm256_cmp_ps(h, x, _CMP_LT_OQ));
}
/* Eight rows of 8 floats transposed: r[i] becomes column i. */
static inline void ap_transpose8(__m256 r[8]) {
  __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
  __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
  __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
  __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

#endif

#ifdef __AVX512F__
static inline __m512 ap_clampf16(__m512 x, float lo, float hi) {
  __m512 l = _mm512_set1_ps(lo), h = _mm512_set1_ps(hi);
  x = _mm512_mask_mov_ps(x, _mm512_cmp_ps_mask(x, l, _CMP_LT_OQ), l);
  return _mm512_mask_mov_ps(x, _mm512_cmp_ps_mask(h, x, _CMP_LT_OQ), h);
}
#endif

#endif
