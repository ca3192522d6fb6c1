/* The AVX2 level's quantized ADD and SUB of same-shape 8-bit tensors (quant_add_sub of the
 * reference: each input offset, shifted left by 20, scaled by MultiplyByQuantizedMultiplier-
 * SmallerThanOneExp; the sum or difference scaled again, offset, clamped), the same bytes.
 *
 * Each input's two roundings fold into one floor division by a power of two, computed in int32
 * (its value is at most 9 bits times the multiplier); the output's two into one, a 64-bit
 * product's high word shifted, with the offset folded in: ~3.9 instructions per element where
 * three MultiplyByQuantizedMultiplier on 8 lanes took ~8.5 (direct, kept for parameters outside
 * the folds' ranges: input scales 2^11 apart, an output shift outside [-23, -1]). A lookup table
 * of the 256 scaled values per input took fewer instructions (3.6) but ran 1.5x slower than
 * direct on Zen 3: its vpgatherdd are slow. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/int8_x86.h"
#include "kernels/fast/rq8_x86.h"

/* ap_kq_mul_lt1's terms: a positive shift clamped to 0 (the scalar code clamps its exponent),
 * so there is no left shift and rq8_mul0 applies. */
static rq8 rq8_lt1(int32_t m, int32_t shift) {
  return rq8_of(_mm256_set1_epi32(m), _mm256_set1_epi32(shift < 0 ? shift : 0));
}

/* The scalar quant_add_sub, for the tails of the direct path. */
static int32_t add1(const ap_binary_params *p, int32_t xv, int32_t yv, bool sub) {
  int32_t xs = (int32_t)((uint32_t)(p->input1_offset + xv) << p->left_shift);
  int32_t ys = (int32_t)((uint32_t)(p->input2_offset + yv) << p->left_shift);
  int32_t xr = ap_kq_mul_lt1(xs, p->input1_multiplier, p->input1_shift);
  int32_t yr = ap_kq_mul_lt1(ys, p->input2_multiplier, p->input2_shift);
  int32_t raw = sub ? xr - yr : xr + yr;
  int32_t r = ap_kq_mul_lt1(raw, p->output_multiplier, p->output_shift) + p->output_offset;
  return ap_kq_clamp(r, p->act_min, p->act_max);
}

/* quant_add_sub on 8 lanes, every term per element (short runs). */
static void direct(const ap_binary_params *p, const uint8_t *x, const uint8_t *y, uint8_t *o,
                   size_t n, bool is_unsigned) {
  const __m256i o1 = _mm256_set1_epi32(p->input1_offset), o2 = _mm256_set1_epi32(p->input2_offset),
                off = _mm256_set1_epi32(p->output_offset), lo = _mm256_set1_epi32(p->act_min),
                hi = _mm256_set1_epi32(p->act_max);
  const rq8 q1 = rq8_lt1(p->input1_multiplier, p->input1_shift),
            q2 = rq8_lt1(p->input2_multiplier, p->input2_shift),
            qo = rq8_lt1(p->output_multiplier, p->output_shift);
  const __m128i ls = _mm_cvtsi32_si128(p->left_shift);
  bool sub = p->op == AP_KBIN_SUB;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i xb = _mm_loadl_epi64((const __m128i *)(x + i)),
            yb = _mm_loadl_epi64((const __m128i *)(y + i));
    __m256i xv = is_unsigned ? _mm256_cvtepu8_epi32(xb) : _mm256_cvtepi8_epi32(xb);
    __m256i yv = is_unsigned ? _mm256_cvtepu8_epi32(yb) : _mm256_cvtepi8_epi32(yb);
    __m256i xr = rq8_mul0(_mm256_sll_epi32(_mm256_add_epi32(xv, o1), ls), &q1);
    __m256i yr = rq8_mul0(_mm256_sll_epi32(_mm256_add_epi32(yv, o2), ls), &q2);
    __m256i raw = sub ? _mm256_sub_epi32(xr, yr) : _mm256_add_epi32(xr, yr);
    __m256i r = _mm256_add_epi32(rq8_mul0(raw, &qo), off);
    r = _mm256_min_epi32(_mm256_max_epi32(r, lo), hi);
    __m128i p16 = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
    _mm_storel_epi64((__m128i *)(o + i),
                     is_unsigned ? _mm_packus_epi16(p16, p16) : _mm_packs_epi16(p16, p16));
  }
  for (; i < n; i++)
    o[i] =
        (uint8_t)add1(p, is_unsigned ? x[i] : (int8_t)x[i], is_unsigned ? y[i] : (int8_t)y[i], sub);
}

/* One input's scaled value RDBPOT(SRDHM(v << 20, m), r), v = byte + offset, without a 64-bit
 * product. SRDHM(v 2^20, m) = floor((v m + 2^10) / 2^11) (the nudge and truncation as
 * floor, as mulq8v; the factor 2^20 cancels), and RDBPOT(h, r) = floor((h + 2^(r-1) - [h < 0])
 * / 2^r) for r >= 1 (h for r = 0); the two floors nest into one: floor((v m + c_v) / 2^t),
 * t = 11 + r, c_v = 2^10 + (2^(r-1) - [v < 0]) 2^11 ([h < 0] is [v < 0] for m > 2^10). With
 * m = mh 2^t + ml, that is v mh + ((v ml + c_v) >> t): |v| <= 255 and ml < 2^22 (r <= 11)
 * keep both in int32. */
typedef struct in_terms {
  __m256i off, mh, ml, cpos, cneg, t;
} in_terms;

static bool in_terms_of(in_terms *q, int32_t off, int32_t m, int32_t shift) {
  if (m <= 1 << 10 || shift < -11) return false;
  int r = shift < 0 ? -shift : 0, t = 11 + r; /* ap_kq_rdbpot's exponent, clamped at 0 */
  int32_t c = (1 << 10) + (r ? 1 << (r + 10) : 0);
  q->off = _mm256_set1_epi32(off);
  q->mh = _mm256_set1_epi32(m >> t);
  q->ml = _mm256_set1_epi32(m & ((1 << t) - 1));
  q->cpos = _mm256_set1_epi32(c);
  q->cneg = _mm256_set1_epi32(r ? c - (1 << 11) : c);
  q->t = _mm256_set1_epi32(t); /* srav: a vector count stays an operand */
  return true;
}

static inline __m256i scaled(__m256i byte, const in_terms *q) {
  __m256i v = _mm256_add_epi32(byte, q->off);
  __m256i c = _mm256_castps_si256(_mm256_blendv_ps(
      _mm256_castsi256_ps(q->cpos), _mm256_castsi256_ps(q->cneg), _mm256_castsi256_ps(v)));
  __m256i lo = _mm256_add_epi32(_mm256_mullo_epi32(v, q->ml), c);
  return _mm256_add_epi32(_mm256_mullo_epi32(v, q->mh), _mm256_srav_epi32(lo, q->t));
}

/* The sum's requantization with the output offset: RDBPOT(SRDHM(x, m), r) + off for r >= 1 is
 * floor((x m + k) / 2^(31 + r)), k = 2^30 + (2^(r-1) - [h < 0]) 2^31 + off 2^(31 + r) (the
 * floors nested as above). [h < 0] is taken as [x m < 0]: where they differ (x m in
 * [-2^30, 0)) h is 0 and either k gives off. r <= 23 keeps k + x m (|x| < 2^28) in int64; the
 * quotient is the product's high word shifted right by r - 1 (10 operations, rq8_mul0's 12
 * and the offset's add). */
typedef struct out_terms {
  __m256i m, kpos, kneg, s;
} out_terms;

static bool out_terms_of(out_terms *q, int32_t m, int32_t shift, int32_t off) {
  if (m < 0 || shift > -1 || shift < -23) return false;
  int r = -shift;
  int64_t k = (1ll << 30) + (1ll << (r + 30)) + (int64_t)off * (1ll << (31 + r));
  q->m = _mm256_set1_epi32(m);
  q->kpos = _mm256_set1_epi64x(k);
  q->kneg = _mm256_set1_epi64x(k - (1ll << 31));
  q->s = _mm256_set1_epi32(r - 1);
  return true;
}

static inline __m256i k_of(__m256i prod, const out_terms *q) {
  return _mm256_castpd_si256(_mm256_blendv_pd(
      _mm256_castsi256_pd(q->kpos), _mm256_castsi256_pd(q->kneg), _mm256_castsi256_pd(prod)));
}

static inline __m256i requant(__m256i raw, const out_terms *q) {
  __m256i e = _mm256_mul_epi32(raw, q->m), o = _mm256_mul_epi32(_mm256_srli_epi64(raw, 32), q->m);
  e = _mm256_add_epi64(e, k_of(e, q));
  o = _mm256_add_epi64(o, k_of(o, q));
  return _mm256_srav_epi32(_mm256_blend_epi32(_mm256_srli_epi64(e, 32), o, 0xAA), q->s);
}

static inline __m256i widen(const uint8_t *p, bool is_unsigned) {
  __m128i b = _mm_loadl_epi64((const __m128i *)p);
  return is_unsigned ? _mm256_cvtepu8_epi32(b) : _mm256_cvtepi8_epi32(b);
}

static inline __m256i raw8(const uint8_t *x, const uint8_t *y, const in_terms *q1,
                           const in_terms *q2, bool sub, bool is_unsigned) {
  __m256i a = scaled(widen(x, is_unsigned), q1), b = scaled(widen(y, is_unsigned), q2);
  return sub ? _mm256_sub_epi32(a, b) : _mm256_add_epi32(a, b);
}

/* 32 results (with their offset) to bytes: rq32_bytes's saturating packs and clamp. */
static inline __m256i bytes32(__m256i a, __m256i b, __m256i c, __m256i d, __m256i lo, __m256i hi,
                              bool is_unsigned) {
  __m256i p0 = _mm256_packs_epi32(a, b), p1 = _mm256_packs_epi32(c, d);
  __m256i v = is_unsigned ? _mm256_packus_epi16(p0, p1) : _mm256_packs_epi16(p0, p1);
  v = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  return is_unsigned ? _mm256_min_epu8(_mm256_max_epu8(v, lo), hi)
                     : _mm256_min_epi8(_mm256_max_epi8(v, lo), hi);
}

static inline __attribute__((always_inline)) void
fused(const ap_binary_params *p, const in_terms *q1, const in_terms *q2, const out_terms *qo,
      const uint8_t *x, const uint8_t *y, uint8_t *o, size_t n, bool is_unsigned, bool sub) {
  const __m256i lo = is_unsigned ? _mm256_set1_epi8((char)(uint8_t)p->act_min)
                                 : _mm256_set1_epi8((char)(int8_t)p->act_min),
                hi = is_unsigned ? _mm256_set1_epi8((char)(uint8_t)p->act_max)
                                 : _mm256_set1_epi8((char)(int8_t)p->act_max);
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i r0 = requant(raw8(x + i, y + i, q1, q2, sub, is_unsigned), qo);
    __m256i r1 = requant(raw8(x + i + 8, y + i + 8, q1, q2, sub, is_unsigned), qo);
    __m256i r2 = requant(raw8(x + i + 16, y + i + 16, q1, q2, sub, is_unsigned), qo);
    __m256i r3 = requant(raw8(x + i + 24, y + i + 24, q1, q2, sub, is_unsigned), qo);
    _mm256_storeu_si256((__m256i *)(o + i), bytes32(r0, r1, r2, r3, lo, hi, is_unsigned));
  }
  for (; i + 8 <= n; i += 8) {
    __m256i r = requant(raw8(x + i, y + i, q1, q2, sub, is_unsigned), qo);
    __m256i v = bytes32(r, r, r, r, lo, hi, is_unsigned);
    _mm_storel_epi64((__m128i *)(o + i), _mm256_castsi256_si128(v));
  }
  for (; i < n; i++)
    o[i] =
        (uint8_t)add1(p, is_unsigned ? x[i] : (int8_t)x[i], is_unsigned ? y[i] : (int8_t)y[i], sub);
}

void ap_fast_avx2_add(const ap_binary_params *p, const void *a, const void *b, void *out, size_t n,
                      bool is_unsigned) {
  in_terms q1, q2;
  out_terms qo;
  if (p->left_shift != 20 ||
      !in_terms_of(&q1, p->input1_offset, p->input1_multiplier, p->input1_shift) ||
      !in_terms_of(&q2, p->input2_offset, p->input2_multiplier, p->input2_shift) ||
      !out_terms_of(&qo, p->output_multiplier, p->output_shift, p->output_offset)) {
    direct(p, a, b, out, n, is_unsigned);
    return;
  }
  /* constant flags: each of the four loops compiled without a test inside */
  bool sub = p->op == AP_KBIN_SUB;
  if (is_unsigned)
    sub ? fused(p, &q1, &q2, &qo, a, b, out, n, true, true)
        : fused(p, &q1, &q2, &qo, a, b, out, n, true, false);
  else
    sub ? fused(p, &q1, &q2, &qo, a, b, out, n, false, true)
        : fused(p, &q1, &q2, &qo, a, b, out, n, false, false);
}
#else
typedef int ap_fast_add_avx2_unused; /* x86-64 only */
#endif
