/* The AVX-512 level's fully connected kernel, a matrix times one input row per batch: weights
 * read in place, 16 rows per pass in two halves of 8, 64 bytes of each row per step through
 * vpdpbusd against the input plus 128 as unsigned bytes (x ^ 0x80, one load per step shared by
 * the 8 rows). An input zero point other than -128 adds (in_off - 128) * sum(w), summed by a
 * second vpdpbusd on the weights already loaded (cheaper than widening them to int16 for
 * vpdpwssd, and no per-weight state to keep). Sums wrap modulo 2^32, as the reference's reduced
 * to 32 bits. The 16 rows' sums are folded into one vector by a transposing tree (3 operations
 * a row instead of a reduction each), then bias, requantization of the 16 lanes and a masked
 * store: nothing is scalar but the input's sum when the filter has a zero point. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/int8_x86.h"
#include "kernels/fast/requant_avx512.h"

/* Per 128-bit block: [a0 + a2, b0 + b2, a1 + a3, b1 + b3]. */
static inline __m256i fold_pairs(__m256i a, __m256i b) {
  return _mm256_add_epi32(_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b));
}

/* Two fold_pairs results (rows a, b and c, d) to [a, b, c, d] per 128-bit block. */
static inline __m256i fold_quads(__m256i ab, __m256i cd) {
  return _mm256_add_epi32(_mm256_unpacklo_epi64(ab, cd), _mm256_unpackhi_epi64(ab, cd));
}

/* [a.0 + a.1, b.0 + b.1] over 128-bit blocks. */
static inline __m256i fold_blocks(__m256i a, __m256i b) {
  return _mm256_add_epi32(_mm256_permute2x128_si256(a, b, 0x20),
                          _mm256_permute2x128_si256(a, b, 0x31));
}

/* How a row of k bytes is read, 32 at a time: when rows are k apart with k a multiple of 32
 * they share their alignment, and a head vector from the 32-byte boundary below the row's
 * start (its bytes before the row masked off) makes every later load aligned: a 32-byte load
 * across a cache line costs about twice one that is not (the model's buffers are 16-aligned). */
typedef struct walk {
  int32_t o, end;       /* the head's offset below the row (0: no head); where full steps end */
  __mmask32 head, tail; /* lanes the head and the last step read */
} walk;

static inline walk plan_walk(const int8_t *w, int32_t k) {
  walk v = {0, 0, 0, 0};
  int32_t d = 0;
  if (k % 32 == 0 && ((uintptr_t)w & 31)) {
    v.o = (int32_t)((uintptr_t)w & 31);
    v.head = (__mmask32)(~0u << v.o);
    d = 32 - v.o;
  }
  v.end = d + (k - d) / 32 * 32;
  v.tail = (__mmask32)(((uint64_t)1 << (k - v.end)) - 1);
  return v;
}

/* p + d, d possibly before p's object (a masked load reads nothing there). */
static inline const void *at(const int8_t *p, ptrdiff_t d) {
  return (const void *)((uintptr_t)p + (uintptr_t)d);
}

static inline __attribute__((always_inline)) void step8(__m256i s[8], __m256i z[8],
                                                        const int8_t *const r[8], ptrdiff_t d,
                                                        const int8_t *x, __mmask32 m,
                                                        const __m256i *cw) {
  const __m256i flip = _mm256_set1_epi8((char)0x80);
  /* Masked-off bytes are 0 in the weights: whatever x holds there adds nothing. */
  __m256i xv = _mm256_xor_si256(_mm256_maskz_loadu_epi8(m, at(x, d)), flip);
#pragma GCC unroll 8
  for (int i = 0; i < 8; i++) {
    __m256i wv = _mm256_maskz_loadu_epi8(m, at(r[i], d));
    s[i] = _mm256_dpbusd_epi32(s[i], xv, wv);
    if (cw) z[i] = _mm256_dpbusd_epi32(z[i], *cw, wv);
  }
}

/* Eight rows' dot products with x (k bytes; rows k apart from w, the first n of them real, the
 * others repeating row n - 1), as 8 lanes. cw: 128 - in_off as bytes, or NULL for in_off 128. */
static inline __attribute__((always_inline)) __m256i
rows8(const int8_t *w, size_t k, int n, const int8_t *x, const walk *v, const __m256i *cw) {
  const __m256i flip = _mm256_set1_epi8((char)0x80);
  const int8_t *r[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; i++)
    r[i] = w + (size_t)(i < n ? i : n - 1) * k;
  __m256i s[8], z[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; i++)
    s[i] = z[i] = _mm256_setzero_si256();
  int32_t d = 0;
  if (v->head) {
    /* From the boundary below each row: the same bytes of x, shifted alike. */
    step8(s, z, r, -(ptrdiff_t)v->o, x, v->head, cw);
    d = 32 - v->o;
  }
  for (; d < v->end; d += 32) {
    __m256i xv = _mm256_xor_si256(_mm256_loadu_si256((const void *)(x + d)), flip);
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
      __m256i wv = _mm256_loadu_si256((const void *)(r[i] + d));
      s[i] = _mm256_dpbusd_epi32(s[i], xv, wv);
      if (cw) z[i] = _mm256_dpbusd_epi32(z[i], *cw, wv);
    }
  }
  if (v->tail) step8(s, z, r, d, x, v->tail, cw);
  if (cw) {
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
      s[i] = _mm256_sub_epi32(s[i], z[i]);
  }
  return fold_blocks(fold_quads(fold_pairs(s[0], s[1]), fold_pairs(s[2], s[3])),
                     fold_quads(fold_pairs(s[4], s[5]), fold_pairs(s[6], s[7])));
}

/* Per-tensor requantization, the shift the same in every lane: the doubling high product and
 * the rounding right shift by e in one 64-bit step per even and odd lane, exact since nested
 * floors of integer divisions compose: with P = x * m, h = floor((P + 2^30) / 2^31) (the
 * reference's nudge and truncation) and the rounding floor((h + 2^(e-1) - [h < 0]) / 2^e) (e
 * >= 1; ties away from zero), out = floor((P + 2^30 + 2^(30+e) - [P < -2^30] 2^31) / 2^(31+e)).
 * |P| < 2^62, so nothing overflows. 12 operations where the per-lane code takes 15; the clamp
 * to int8 is the saturating narrowing, the activation's only when it is narrower. */
typedef struct rqt {
  __m512i m, c, neg, corr, off, lo, hi;
  __m128i left, even, odd; /* shift counts */
  bool odd_left, clamp;    /* e = 0: the odd lanes' result moved up by a left shift of 1 */
} rqt;

static inline void rqt_set(rqt *r, const ap_qfc *f) {
  int32_t left = f->shift1 > 0 ? f->shift1 : 0, e = f->shift1 < 0 ? -f->shift1 : 0;
  left = left < 31 ? left : 31;
  e = e < 31 ? e : 31;
  r->m = _mm512_set1_epi64(f->mult1);
  r->c = _mm512_set1_epi64((1ll << 30) + (e ? 1ll << (30 + e) : 0));
  r->neg = _mm512_set1_epi64(-(1ll << 30));
  r->corr = _mm512_set1_epi64(e ? 1ll << 31 : 0);
  r->off = _mm512_set1_epi32(f->out_off);
  r->lo = _mm512_set1_epi32(f->act_min);
  r->hi = _mm512_set1_epi32(f->act_max);
  r->left = _mm_cvtsi32_si128(left);
  r->even = _mm_cvtsi32_si128(31 + e);
  r->odd = _mm_cvtsi32_si128(e ? e - 1 : 0);
  r->odd_left = e == 0;
  r->clamp = f->act_min > -128 || f->act_max < 127;
}

/* The low 32 bits of each lane's result: even lanes in place, odd lanes in the high half. */
static inline __m512i rqt_half(__m512i x, const rqt *r) {
  __m512i p = _mm512_mul_epi32(x, r->m);
  __m512i t = _mm512_add_epi64(p, r->c);
  return _mm512_mask_sub_epi64(t, _mm512_cmplt_epi64_mask(p, r->neg), t, r->corr);
}

static inline __m128i rqt_apply(__m512i x, const rqt *r) {
  x = _mm512_sll_epi32(x, r->left);
  __m512i ev = _mm512_sra_epi64(rqt_half(x, r), r->even);
  __m512i od = rqt_half(_mm512_srli_epi64(x, 32), r);
  od = r->odd_left ? _mm512_slli_epi64(od, 1) : _mm512_sra_epi64(od, r->odd);
  __m512i v = _mm512_add_epi32(_mm512_mask_blend_epi32((__mmask16)0xAAAA, ev, od), r->off);
  if (r->clamp) v = _mm512_min_epi32(_mm512_max_epi32(v, r->lo), r->hi);
  return _mm512_cvtsepi32_epi8(v);
}

/* Depths 4, 8 and 16 (rows8 would spend a masked step and 8 lanes a row on them): 32 / k
 * whole rows per vector against x repeated as often (xs), n rows from w, k / 4 lanes a row
 * summed by horizontal adds. */
static inline __m256i rows8_short(const int8_t *w, int32_t k, int n, __m256i xs,
                                  const __m256i *cw) {
  __m256i s[4];
  int32_t bytes = n * k;
  for (int j = 0; j < k / 4; j++) {
    int32_t left = bytes - 32 * j;
    __mmask32 m = left >= 32 ? ~(__mmask32)0 : left > 0 ? (__mmask32)((1u << left) - 1) : 0;
    __m256i wv = _mm256_maskz_loadu_epi8(m, w + 32 * j);
    s[j] = _mm256_dpbusd_epi32(_mm256_setzero_si256(), xs, wv);
    if (cw) s[j] = _mm256_sub_epi32(s[j], _mm256_dpbusd_epi32(_mm256_setzero_si256(), *cw, wv));
  }
  if (k == 4) return s[0];
  if (k == 8) /* [r0 r1 r4 r5 | r2 r3 r6 r7] */
    return _mm256_permute4x64_epi64(_mm256_hadd_epi32(s[0], s[1]), 0xD8);
  /* [r0 r2 r4 r6 | r1 r3 r5 r7] */
  __m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_hadd_epi32(s[2], s[3]));
  return _mm256_permutevar8x32_epi32(h, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

/* The k (4, 8 or 16) bytes at x, repeated across 32. */
static inline __m256i repeat(const int8_t *x, int32_t k) {
  if (k == 16) return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)x));
  int64_t q = 0;
  memcpy(&q, x, (size_t)k);
  return k == 8 ? _mm256_set1_epi64x(q) : _mm256_set1_epi32((int32_t)q);
}

/* Units [u0, u1) of every batch; cw as rows8's; short_rows (a constant): depth 4, 8 or 16. */
static inline __attribute__((always_inline)) void fc_u8(const ap_qfc *f, int32_t u0, int32_t u1,
                                                        const __m256i *cw, const bool short_rows) {
  size_t k = (size_t)f->depth;
  walk wk = plan_walk(f->w, f->depth);
  const __m512i off = _mm512_set1_epi32(f->out_off), lo = _mm512_set1_epi32(f->act_min),
                hi = _mm512_set1_epi32(f->act_max), zero = _mm512_setzero_si512();
  rq16 rq;
  rqt rt;
  rqt_set(&rt, f);
  for (int32_t b = 0; b < f->batches; b++) {
    const int8_t *x = f->x + (size_t)b * k;
    uint32_t corr =
        f->filter_off ? (uint32_t)f->filter_off * ap_fast_row_sum(x, f->depth, f->in_off) : 0;
    const __m512i vcorr = _mm512_set1_epi32((int32_t)corr);
    __m256i xs = _mm256_setzero_si256();
    if (short_rows) xs = _mm256_xor_si256(repeat(x, f->depth), _mm256_set1_epi8((char)0x80));
    int8_t *out = f->out + (size_t)b * (size_t)f->units;
    for (int32_t u = u0; u < u1; u += 16) {
      int n = u1 - u < 16 ? (int)(u1 - u) : 16;
      __mmask16 m = (__mmask16)((1u << n) - 1);
      __m256i lo8, hi8 = _mm256_setzero_si256();
      if (short_rows) {
        lo8 = rows8_short(f->w + (size_t)u * k, f->depth, n < 8 ? n : 8, xs, cw);
        if (n > 8) hi8 = rows8_short(f->w + (size_t)(u + 8) * k, f->depth, n - 8, xs, cw);
      } else {
        lo8 = rows8(f->w + (size_t)u * k, k, n < 8 ? n : 8, x, &wk, cw);
        if (n > 8) hi8 = rows8(f->w + (size_t)(u + 8) * k, k, n - 8, x, &wk, cw);
      }
      __m512i v = _mm512_add_epi32(_mm512_inserti64x4(_mm512_castsi256_si512(lo8), hi8, 1), vcorr);
      if (f->bias) v = _mm512_add_epi32(v, _mm512_maskz_loadu_epi32(m, f->bias + u));
      __m128i q;
      if (f->qmult) {
        rq_set(&rq, zero, _mm512_maskz_loadu_epi32(m, f->qmult + u),
               _mm512_maskz_loadu_epi32(m, f->qshift + u));
        q = requant16(v, &rq, off, lo, hi);
      } else {
        q = rqt_apply(v, &rt);
      }
      _mm_mask_storeu_epi8(out + u, m, q);
    }
  }
}

void ap_fast_avx512_fc(const ap_qfc *f, int32_t u0, int32_t u1) {
  /* (x + in_off) = (x + 128) - (128 - in_off): the second an unsigned byte for the zero
   * points int8 has; any other offset takes the AVX2 kernel's int16 products. */
  bool sh = f->depth == 4 || f->depth == 8 || f->depth == 16;
  if (f->in_off == 128) {
    sh ? fc_u8(f, u0, u1, NULL, true) : fc_u8(f, u0, u1, NULL, false);
  } else if (f->in_off >= -127 && f->in_off < 128) {
    const __m256i cw = _mm256_set1_epi8((char)(uint8_t)(128 - f->in_off));
    sh ? fc_u8(f, u0, u1, &cw, true) : fc_u8(f, u0, u1, &cw, false);
  } else {
    ap_fast_avx2_fc(f, u0, u1);
  }
}
#else
typedef int ap_fast_fc_avx512_unused; /* x86-64 only */
#endif
