/* A requantization multiplier and shift on 8 lanes taken apart once into int8_x86.h's rq8 (its
 * clamped left and right shifts and rounding half, as rq8_load takes them; no bias), applied by
 * rq8_mul, for kernels that apply the same ones many times: per-tensor fully connected (fc_avx2.c),
 * ADD's three (int8_avx2.c). Included by files compiled with AVX2 or wider: every function is
 * static inline. */
#ifndef AP_KERNELS_FAST_RQ8_X86_H
#define AP_KERNELS_FAST_RQ8_X86_H

#include "kernels/fast/int8_x86.h"

static inline rq8 rq8_of(__m256i m, __m256i sh) {
  const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1),
                max_shift = _mm256_set1_epi32(31);
  rq8 q;
  q.m = m;
  q.m_odd = _mm256_srli_epi64(m, 32);
  q.left = _mm256_min_epi32(_mm256_max_epi32(sh, zero), max_shift);
  q.right = _mm256_min_epi32(_mm256_max_epi32(_mm256_sub_epi32(zero, sh), zero), max_shift);
  q.half = _mm256_srli_epi32(_mm256_sllv_epi32(one, q.right), 1); /* as rq8_load's */
  q.bias = zero;
  return q;
}

#endif
