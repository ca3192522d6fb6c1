/* TRANSPOSE's three-plane byte interleave on AVX2 (transpose_fast.c calls it through the
 * fastops table): o[3 a + l] = s[l * istl + a] for a < n, l < 3, as MobileNet-v2's NCHW input
 * ([3][224 * 224] -> [224 * 224][3]) needs. Each output vector of 16 bytes is three byte
 * shuffles (one per plane, zeroing the other planes' bytes) or'ed; 32 pixels a step, the two
 * 128-bit lanes holding pixels 0-15 and 16-31, then 16 a step, then bytes. The C loop took
 * about 6.5 instructions a byte (strided byte stores no compiler vectorises without SSSE3). */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/fastops.h"

#include <immintrin.h>

/* The shuffles of output vector k (bytes 16 k to 16 k + 15) for plane p: masks[k][p]. */
static inline __m128i mask(int k, int p) {
  static const int8_t m[3][3][16] = {
      {{0, -128, -128, 1, -128, -128, 2, -128, -128, 3, -128, -128, 4, -128, -128, 5},
       {-128, 0, -128, -128, 1, -128, -128, 2, -128, -128, 3, -128, -128, 4, -128, -128},
       {-128, -128, 0, -128, -128, 1, -128, -128, 2, -128, -128, 3, -128, -128, 4, -128}},
      {{-128, -128, 6, -128, -128, 7, -128, -128, 8, -128, -128, 9, -128, -128, 10, -128},
       {5, -128, -128, 6, -128, -128, 7, -128, -128, 8, -128, -128, 9, -128, -128, 10},
       {-128, 5, -128, -128, 6, -128, -128, 7, -128, -128, 8, -128, -128, 9, -128, -128}},
      {{-128, 11, -128, -128, 12, -128, -128, 13, -128, -128, 14, -128, -128, 15, -128, -128},
       {-128, -128, 11, -128, -128, 12, -128, -128, 13, -128, -128, 14, -128, -128, 15, -128},
       {10, -128, -128, 11, -128, -128, 12, -128, -128, 13, -128, -128, 14, -128, -128, 15}}};
  return _mm_loadu_si128((const __m128i *)m[k][p]);
}

void ap_fastops_avx2_planes3(const uint8_t *s, size_t istl, uint8_t *o, size_t n) {
  const uint8_t *s0 = s, *s1 = s + istl, *s2 = s + 2 * istl;
  __m256i m[3][3];
  for (int k = 0; k < 3; k++)
    for (int p = 0; p < 3; p++)
      m[k][p] = _mm256_broadcastsi128_si256(mask(k, p));
  size_t a = 0;
  for (; a + 32 <= n; a += 32, o += 96) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(s0 + a)),
            y = _mm256_loadu_si256((const __m256i *)(s1 + a)),
            z = _mm256_loadu_si256((const __m256i *)(s2 + a));
    __m256i r[3];
    for (int k = 0; k < 3; k++) /* low lane: output vector k, high lane: k + 3 */
      r[k] = _mm256_or_si256(
          _mm256_or_si256(_mm256_shuffle_epi8(x, m[k][0]), _mm256_shuffle_epi8(y, m[k][1])),
          _mm256_shuffle_epi8(z, m[k][2]));
    _mm256_storeu_si256((__m256i *)o, _mm256_permute2x128_si256(r[0], r[1], 0x20));
    _mm256_storeu_si256((__m256i *)(o + 32), _mm256_permute2x128_si256(r[2], r[0], 0x30));
    _mm256_storeu_si256((__m256i *)(o + 64), _mm256_permute2x128_si256(r[1], r[2], 0x31));
  }
  for (; a + 16 <= n; a += 16, o += 48) {
    __m128i x = _mm_loadu_si128((const __m128i *)(s0 + a)),
            y = _mm_loadu_si128((const __m128i *)(s1 + a)),
            z = _mm_loadu_si128((const __m128i *)(s2 + a));
    for (int k = 0; k < 3; k++)
      _mm_storeu_si128((__m128i *)(o + 16 * k),
                       _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(x, mask(k, 0)),
                                                 _mm_shuffle_epi8(y, mask(k, 1))),
                                    _mm_shuffle_epi8(z, mask(k, 2))));
  }
  for (; a < n; a++, o += 3) {
    o[0] = s0[a];
    o[1] = s1[a];
    o[2] = s2[a];
  }
}
#else
typedef int ap_fast_transpose_avx2_unused; /* x86-64 only */
#endif
