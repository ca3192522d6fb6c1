/* A requantization multiplier and shift on 8 lanes taken apart once (int8_x86.h's mulq8v: its
 * clamped left and right shifts, rounding mask and half), for kernels that apply the same ones
 * many times: per-tensor fully connected (fc_avx2.c), ADD's three (int8_avx2.c). Included by
 * files compiled with AVX2 or wider: every function is static inline. */
#ifndef AP_KERNELS_FAST_RQ8_X86_H
#define AP_KERNELS_FAST_RQ8_X86_H

#include "kernels/fast/int8_x86.h"

typedef struct rq8 {
  __m256i m, m_odd, left, right, mask, half;
} rq8;

static inline rq8 rq8_of(__m256i m, __m256i sh) {
  const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1),
                max_shift = _mm256_set1_epi32(31);
  rq8 q;
  q.m = m;
  q.m_odd = _mm256_srli_epi64(m, 32);
  q.left = _mm256_min_epi32(_mm256_max_epi32(sh, zero), max_shift);
  q.right = _mm256_min_epi32(_mm256_max_epi32(_mm256_sub_epi32(zero, sh), zero), max_shift);
  q.mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, q.right), one);
  q.half = _mm256_srai_epi32(q.mask, 1);
  return q;
}

/* mulq8v(x, m, sh) of int8_x86.h, the same steps: the threshold (half, plus 1 for a negative
 * h) as half - (h >> 31), and the rounding increment subtracted as the compare's -1. */
static inline __m256i rq8_mul(const rq8 *q, __m256i x) {
  const __m256i nudge = _mm256_set1_epi64x(1ll << 30);
  x = _mm256_sllv_epi32(x, q->left);
  __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, q->m), nudge);
  __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), q->m_odd), nudge);
  __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
  __m256i rem = _mm256_and_si256(h, q->mask);
  __m256i thr = _mm256_sub_epi32(q->half, _mm256_srai_epi32(h, 31));
  return _mm256_sub_epi32(_mm256_srav_epi32(h, q->right), _mm256_cmpgt_epi32(rem, thr));
}

#endif
