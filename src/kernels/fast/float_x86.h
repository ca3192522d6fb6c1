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
#endif

#ifdef __AVX512F__
static inline __m512 ap_clampf16(__m512 x, float lo, float hi) {
  __m512 l = _mm512_set1_ps(lo), h = _mm512_set1_ps(hi);
  x = _mm512_mask_mov_ps(x, _mm512_cmp_ps_mask(x, l, _CMP_LT_OQ), l);
  return _mm512_mask_mov_ps(x, _mm512_cmp_ps_mask(h, x, _CMP_LT_OQ), h);
}
#endif

#endif
