/* The reference's requantization on 16 int32 lanes, for files compiled with the AVX-512 level's
 * flags (every function static inline). */
#ifndef AP_KERNELS_FAST_REQUANT_AVX512_H
#define AP_KERNELS_FAST_REQUANT_AVX512_H

#include <immintrin.h>
#include <stdint.h>

/* 16 lanes' constants: the bias added first, then MultiplyByQuantizedMultiplier split into the
 * left shift, the doubling high product (x * m + 2^30) >> 31 (the reference's nudge and
 * truncating division in one floor; m in [0, 2^31) from ap_kq_multiplier, so it cannot
 * saturate) and the rounding right shift (remainder against half, ties away from zero); shifts
 * clamped to 31 as the scalar code clamps them. */
typedef struct rq16 {
  __m512i bias, m, mhi, left, right, mask, half;
} rq16;

static inline void rq_set(rq16 *r, __m512i bias, __m512i m, __m512i sh) {
  const __m512i zero = _mm512_setzero_si512(), max_shift = _mm512_set1_epi32(31),
                one = _mm512_set1_epi32(1);
  r->bias = bias;
  r->m = m;
  r->mhi = _mm512_srli_epi64(m, 32);
  r->left = _mm512_min_epi32(_mm512_max_epi32(sh, zero), max_shift);
  r->right = _mm512_min_epi32(_mm512_max_epi32(_mm512_sub_epi32(zero, sh), zero), max_shift);
  r->mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, r->right), one);
  r->half = _mm512_srai_epi32(r->mask, 1);
}

/* The doubling high product (x * m + 2^30) >> 31, then the rounding right shift. */
static inline __m512i mulq16(__m512i x, const rq16 *r) {
  const __m512i nudge = _mm512_set1_epi64(1ll << 30), one = _mm512_set1_epi32(1),
                zero = _mm512_setzero_si512();
  __m512i even = _mm512_add_epi64(_mm512_mul_epi32(x, r->m), nudge);
  __m512i odd = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), r->mhi), nudge);
  __m512i h = _mm512_mask_blend_epi32((__mmask16)0xAAAA, _mm512_srli_epi64(even, 31),
                                      _mm512_slli_epi64(odd, 1));
  __m512i rem = _mm512_and_si512(h, r->mask);
  __m512i thr = _mm512_mask_add_epi32(r->half, _mm512_cmplt_epi32_mask(h, zero), r->half, one);
  __m512i v = _mm512_srav_epi32(h, r->right);
  return _mm512_mask_add_epi32(v, _mm512_cmpgt_epi32_mask(rem, thr), v, one);
}

/* requant(x + bias), clamped to [lo, hi], as 16 bytes. */
static inline __m128i requant16(__m512i x, const rq16 *r, __m512i off, __m512i lo, __m512i hi) {
  __m512i v = mulq16(_mm512_sllv_epi32(_mm512_add_epi32(x, r->bias), r->left), r);
  v = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(v, off), lo), hi);
  return _mm512_cvtepi32_epi8(v);
}

#endif
