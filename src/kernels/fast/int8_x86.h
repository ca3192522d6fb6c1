/* The requantization and stores that the x86 levels share (included by files compiled with
 * AVX2 or wider: every function is static inline, compiled with the including file's flags). */
#ifndef AP_KERNELS_FAST_INT8_X86_H
#define AP_KERNELS_FAST_INT8_X86_H

#include "kernels/fast/fast.h"

#include <immintrin.h>
#include <string.h>

/* The reference's rounding divide by 2^right (remainder against half of 2^right, ties away
 * from zero) as sign(h) * ((|h| + half) >> right), half = 2^right / 2 (0 for right 0): the
 * same value, ties going away from zero either side. h is a doubling high product, never
 * INT32_MIN (ap_fast_mul's comment), so |h| is exact and |h| + half < 2^32 shifts unsigned. */
static inline __m256i rdbpot8(__m256i h, __m256i right, __m256i half) {
  __m256i r = _mm256_srlv_epi32(_mm256_add_epi32(_mm256_abs_epi32(h), half), right);
  return _mm256_sign_epi32(r, h);
}

/* ap_kq_mul on 8 lanes (mulq8v; ap_kq_mul_lt1 is the same with shift <= 0), then, in
 * requant8, the output offset and the clamp. The multipliers come from
 * ap_kq_multiplier: in [0, 2^31), never INT32_MIN, so the doubling high product cannot
 * saturate; shifts are clamped to 31 as the scalar code clamps them. */
static inline __m256i mulq8v(__m256i x, __m256i m, __m256i sh) {
  const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1),
                max_shift = _mm256_set1_epi32(31);
  __m256i left = _mm256_min_epi32(_mm256_max_epi32(sh, zero), max_shift);
  __m256i right = _mm256_min_epi32(_mm256_max_epi32(_mm256_sub_epi32(zero, sh), zero), max_shift);
  x = _mm256_sllv_epi32(x, left);
  /* (x * m + 2^30) >> 31, floor: the reference's nudge and truncating division in one. */
  const __m256i nudge = _mm256_set1_epi64x(1ll << 30);
  __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, m), nudge);
  __m256i odd =
      _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(m, 32)), nudge);
  __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
  return rdbpot8(h, right, _mm256_srli_epi32(_mm256_sllv_epi32(one, right), 1));
}

/* mulq8v's per-channel terms for 8 channels, computed once for many rows: the multiplier
 * (and its odd lanes moved down), the clamped shifts, rdbpot8's half, and the column's bias. */
typedef struct rq8 {
  __m256i m, m_odd, left, right, half, bias;
} rq8;

static inline rq8 rq8_load(const int32_t *mult, const int32_t *shift, const int32_t *bias) {
  const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1),
                max_shift = _mm256_set1_epi32(31);
  __m256i sh = _mm256_loadu_si256((const __m256i *)shift);
  rq8 q;
  q.m = _mm256_loadu_si256((const __m256i *)mult);
  q.m_odd = _mm256_srli_epi64(q.m, 32);
  q.left = _mm256_min_epi32(_mm256_max_epi32(sh, zero), max_shift);
  q.right = _mm256_min_epi32(_mm256_max_epi32(_mm256_sub_epi32(zero, sh), zero), max_shift);
  q.half = _mm256_srli_epi32(_mm256_sllv_epi32(one, q.right), 1);
  q.bias = bias ? _mm256_loadu_si256((const __m256i *)bias) : zero;
  return q;
}

/* ap_kq_mul(x) with q's terms, x already holding the bias (sums started at it). */
static inline __m256i rq8_mul_sum(__m256i x, const rq8 *q) {
  const __m256i nudge = _mm256_set1_epi64x(1ll << 30);
  x = _mm256_sllv_epi32(x, q->left);
  __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, q->m), nudge);
  __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), q->m_odd), nudge);
  __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
  return rdbpot8(h, q->right, q->half);
}

/* ap_kq_mul(x + the bias) with q's terms: mulq8v's arithmetic, the same bits. */
static inline __m256i rq8_mul(__m256i x, const rq8 *q) {
  return rq8_mul_sum(_mm256_add_epi32(x, q->bias), q);
}

/* rq8_mul for sums that already hold their bias, where q's left shifts are all 0
 * (rq8_left0): the same bits with two operations fewer. */
static inline __m256i rq8_mul0(__m256i x, const rq8 *q) {
  const __m256i nudge = _mm256_set1_epi64x(1ll << 30);
  __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, q->m), nudge);
  __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), q->m_odd), nudge);
  __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
  return rdbpot8(h, q->right, q->half);
}

static inline bool rq8_left0(const rq8 *q) {
  return _mm256_testz_si256(q->left, q->left) != 0;
}

/* 16 outputs from two vectors of products (rq8_mul's): packed with saturation to int16, the
 * offset added with saturation (|off| <= 128: a value saturated at either int16 end stays
 * beyond the int8 range, as its exact sum is), packed to int8 with saturation and clamped
 * there (the clamp's bounds lie in int8, so the saturations change nothing it keeps). */
static inline __m128i rq16_bytes(__m256i a, __m256i b, __m256i off16, __m128i lo8, __m128i hi8) {
  __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8);
  p = _mm256_adds_epi16(p, off16);
  __m128i v = _mm_packs_epi16(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
  return _mm_min_epi8(_mm_max_epi8(v, lo8), hi8);
}

/* rq16_bytes for two rows at once: rows i and i + 1's 16 outputs (a0, b0: channels 0-7 and
 * 8-15 of row i; a1, b1 of row i + 1) in one 32-byte vector, row i in its low half. The same
 * saturating steps per value; the two rows share the byte pack, one lane permute and the clamp
 * (9 operations for 32 outputs, 14 as two rq16_bytes). */
static inline __m256i rq32_bytes(__m256i a0, __m256i b0, __m256i a1, __m256i b1, __m256i off16,
                                 __m256i lo8, __m256i hi8) {
  /* int16 lanes: [row i: 0-3, 8-11 | 4-7, 12-15], the same for row i + 1 */
  __m256i p0 = _mm256_adds_epi16(_mm256_packs_epi32(a0, b0), off16);
  __m256i p1 = _mm256_adds_epi16(_mm256_packs_epi32(a1, b1), off16);
  /* bytes, dwords: [i 0-3, i 8-11, i+1 0-3, i+1 8-11 | i 4-7, i 12-15, i+1 4-7, i+1 12-15] */
  __m256i v = _mm256_packs_epi16(p0, p1);
  v = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  return _mm256_min_epi8(_mm256_max_epi8(v, lo8), hi8);
}

/* rq32_bytes's rows stored: row i at o, row i + 1 at o + stride where rows > 1. */
static inline void rq32_store(int8_t *o, size_t stride, __m256i v, int32_t rows) {
  _mm_storeu_si128((__m128i *)o, _mm256_castsi256_si128(v));
  if (rows > 1) _mm_storeu_si128((__m128i *)(o + stride), _mm256_extracti128_si256(v, 1));
}

/* rq8_load's terms (no bias) for 8 shifts in [INT32_MIN + 1, 0] (rq8_right0 said so): no left
 * shift, the right shifts the negated shifts clamped to 31, in three operations fewer. */
static inline rq8 rq8_load_right(const int32_t *mult, const int32_t *shift) {
  const __m256i one = _mm256_set1_epi32(1);
  rq8 q;
  q.m = _mm256_loadu_si256((const __m256i *)mult);
  q.m_odd = _mm256_srli_epi64(q.m, 32);
  q.left = _mm256_setzero_si256();
  q.right = _mm256_min_epi32(
      _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_loadu_si256((const __m256i *)shift)),
      _mm256_set1_epi32(31));
  q.half = _mm256_srli_epi32(_mm256_sllv_epi32(one, q.right), 1);
  q.bias = _mm256_setzero_si256();
  return q;
}

/* Whether the 16 shifts at shift all lie in [INT32_MIN + 1, 0] (multipliers below one), where
 * rq8_load_right's terms are rq8_load's: shift - 1 is negative exactly there. */
static inline bool rq8_right0(const int32_t *shift) {
  const __m256i one = _mm256_set1_epi32(1);
  __m256i a = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)shift), one);
  __m256i b = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(shift + 8)), one);
  return (_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_and_si256(a, b))) & 0xFF) == 0xFF;
}

/* requant8 of (x + the bias) with q's terms: mulq8v's arithmetic, the same bits. */
static inline __m256i rq8_apply(__m256i x, const rq8 *q, __m256i off, __m256i lo, __m256i hi) {
  return _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(rq8_mul(x, q), off), lo), hi);
}

static inline __m256i requant8(__m256i x, const int32_t *mult, const int32_t *shift, __m256i off,
                               __m256i lo, __m256i hi) {
  __m256i r = mulq8v(x, _mm256_loadu_si256((const __m256i *)mult),
                     _mm256_loadu_si256((const __m256i *)shift));
  r = _mm256_add_epi32(r, off);
  return _mm256_min_epi32(_mm256_max_epi32(r, lo), hi);
}

static inline void store8(int8_t *dst, __m256i v) {
  __m128i p = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  _mm_storel_epi64((__m128i *)dst, _mm_packs_epi16(p, p));
}

/* out[c] for c in [0, n): requant(acc[c] + add[c]) (add may be NULL). */
static inline void requant_row(const int32_t *acc, const int32_t *add, int32_t n,
                               const int32_t *mult, const int32_t *shift, int32_t out_off,
                               int32_t lo, int32_t hi, int8_t *out) {
  __m256i voff = _mm256_set1_epi32(out_off), vlo = _mm256_set1_epi32(lo),
          vhi = _mm256_set1_epi32(hi);
  int32_t c = 0;
  for (; c + 8 <= n; c += 8) {
    __m256i v = _mm256_loadu_si256((const __m256i *)(acc + c));
    if (add) v = _mm256_add_epi32(v, _mm256_loadu_si256((const __m256i *)(add + c)));
    store8(out + c, requant8(v, mult + c, shift + c, voff, vlo, vhi));
  }
  for (; c < n; c++) {
    int32_t v = (int32_t)((uint32_t)acc[c] + (uint32_t)(add ? add[c] : 0));
    out[c] = ap_fast_requant(v, mult[c], shift[c], out_off, lo, hi);
  }
}

/* The products' step of a 4-row by 2-vector tile: accumulators s00 .. s31 (row, vector) in
 * the caller, x0 .. x3 the rows' int16 values, v0, v1 the two vectors of weights. */
#define AP_MADD_4X2(X0, X1, X2, X3, V0, V1)                                                        \
  do {                                                                                             \
    s00 = _mm256_add_epi32(s00, _mm256_madd_epi16(X0, V0));                                        \
    s01 = _mm256_add_epi32(s01, _mm256_madd_epi16(X0, V1));                                        \
    s10 = _mm256_add_epi32(s10, _mm256_madd_epi16(X1, V0));                                        \
    s11 = _mm256_add_epi32(s11, _mm256_madd_epi16(X1, V1));                                        \
    s20 = _mm256_add_epi32(s20, _mm256_madd_epi16(X2, V0));                                        \
    s21 = _mm256_add_epi32(s21, _mm256_madd_epi16(X2, V1));                                        \
    s30 = _mm256_add_epi32(s30, _mm256_madd_epi16(X3, V0));                                        \
    s31 = _mm256_add_epi32(s31, _mm256_madd_epi16(X3, V1));                                        \
  } while (0)

/* S += madd(X, W) with S kept in its register: written as intrinsics over a loop of several
 * steps, gcc renamed the sums from step to step and moved them back (3 copies every 2 steps of
 * the outer product's 4 x 2 tile, 7 % of its instructions). The same two instructions. */
#define AP_MADD_ACC(S, X, W)                                                                       \
  do {                                                                                             \
    __m256i t_;                                                                                    \
    __asm__("vpmaddwd %[w], %[x], %[t]\n\tvpaddd %[t], %[s], %[s]"                                 \
            : [s] "+x"(S), [t] "=&x"(t_)                                                           \
            : [x] "x"(X), [w] "x"(W));                                                             \
  } while (0)

/* AP_MADD_4X2 through AP_MADD_ACC. */
#define AP_MADD_4X2_PINNED(X0, X1, X2, X3, V0, V1)                                                 \
  do {                                                                                             \
    AP_MADD_ACC(s00, X0, V0);                                                                      \
    AP_MADD_ACC(s01, X0, V1);                                                                      \
    AP_MADD_ACC(s10, X1, V0);                                                                      \
    AP_MADD_ACC(s11, X1, V1);                                                                      \
    AP_MADD_ACC(s20, X2, V0);                                                                      \
    AP_MADD_ACC(s21, X2, V1);                                                                      \
    AP_MADD_ACC(s30, X3, V0);                                                                      \
    AP_MADD_ACC(s31, X3, V1);                                                                      \
  } while (0)

/* The same with the rows' values loaded from int16 rows r0 .. r3 (the caller's) at D. */
#define AP_ROWS_4X2(V0, V1, D)                                                                     \
  do {                                                                                             \
    __m256i v0_ = V0, v1_ = V1;                                                                    \
    __m256i x0_ = _mm256_loadu_si256((const __m256i *)(r0 + (D)));                                 \
    __m256i x1_ = _mm256_loadu_si256((const __m256i *)(r1 + (D)));                                 \
    __m256i x2_ = _mm256_loadu_si256((const __m256i *)(r2 + (D)));                                 \
    __m256i x3_ = _mm256_loadu_si256((const __m256i *)(r3 + (D)));                                 \
    AP_MADD_4X2(x0_, x1_, x2_, x3_, v0_, v1_);                                                     \
  } while (0)

/* Four horizontal sums: lanes 0..3 = sum(a), sum(b), sum(c), sum(d). */
static inline __m128i hsum4(__m256i a, __m256i b, __m256i c, __m256i d) {
  __m256i ab = _mm256_hadd_epi32(a, b), cd = _mm256_hadd_epi32(c, d);
  __m256i abcd = _mm256_hadd_epi32(ab, cd);
  return _mm_add_epi32(_mm256_castsi256_si128(abcd), _mm256_extracti128_si256(abcd, 1));
}

#endif
