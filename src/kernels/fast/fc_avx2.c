/* The AVX2 level's fully connected kernel for depths of 16 or more: 8 weight rows per pass read
 * in place, 16 bytes of each per step widened to int16 and multiplied with (x + in_off) pairs
 * by vpmaddwd (exact for these ranges; sums wrap as the reference's); the row's last partial
 * step reads the 16 bytes that end the row, with the lanes already summed zeroed in x (no read
 * past a row, no scalar tail). The 8 sums are folded into one vector by a transposing tree
 * (rather than a reduction per row), then bias, requantization on 8 lanes and a store.
 * Depths below 16 read each row as one vector (rows8_short); matrices under 32 bytes take the
 * 4-row kernel of int8_avx2.c. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/rq8_x86.h"

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

static inline __m256i widen(const int8_t *p) {
  return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)p));
}

/* Eight rows' sums of (x + in_off) * w (rows k apart from w, the first n real, the others
 * repeating row n - 1), as 8 lanes. xw: x + in_off as int16 (XW_MAX values at most), or NULL:
 * x widened and offset here at each step. xt: x's last 16 values plus in_off with the lanes
 * before kfull zeroed (used when kfull < k). All eight rows in one pass (x read once a step for
 * the eight; from xw it is the multiply's memory operand, so a step is 3 instructions per 16
 * multiply-adds), two steps a loop turn, the sums started by the first step rather than from
 * zero. */
static inline __attribute__((always_inline)) __m256i rows8(const int8_t *w, int32_t k, int n,
                                                           const int8_t *x, const int16_t *xw,
                                                           int32_t kfull, __m256i io, __m256i xt) {
  const int8_t *r[8];
  if (n == 8) { /* every pass but a last one */
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
      r[i] = w + (size_t)i * (size_t)k;
  } else {
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
      r[i] = w + (size_t)(i < n ? i : n - 1) * (size_t)k;
  }
  __m256i s[8];
  int32_t d = 0;
  if (kfull >= 16) { /* kfull >= 16 whenever k >= 16 */
    __m256i xv = xw ? _mm256_loadu_si256((const __m256i *)xw) : _mm256_add_epi16(widen(x), io);
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
      s[i] = _mm256_madd_epi16(xv, widen(r[i]));
    d = 16;
  } else {
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
      s[i] = _mm256_setzero_si256();
  }
  for (; d + 32 <= kfull; d += 32) {
    __m256i x0, x1;
    if (xw) {
      x0 = _mm256_loadu_si256((const __m256i *)(xw + d));
      x1 = _mm256_loadu_si256((const __m256i *)(xw + d + 16));
    } else {
      x0 = _mm256_add_epi16(widen(x + d), io), x1 = _mm256_add_epi16(widen(x + d + 16), io);
    }
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
      s[i] = _mm256_add_epi32(_mm256_add_epi32(s[i], _mm256_madd_epi16(x0, widen(r[i] + d))),
                              _mm256_madd_epi16(x1, widen(r[i] + d + 16)));
  }
  if (d < kfull) {
    __m256i xv =
        xw ? _mm256_loadu_si256((const __m256i *)(xw + d)) : _mm256_add_epi16(widen(x + d), io);
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
      s[i] = _mm256_add_epi32(s[i], _mm256_madd_epi16(xv, widen(r[i] + d)));
  }
  if (kfull < k)
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
      s[i] = _mm256_add_epi32(s[i], _mm256_madd_epi16(xt, widen(r[i] + k - 16)));
  return fold_blocks(fold_quads(fold_pairs(s[0], s[1]), fold_pairs(s[2], s[3])),
                     fold_quads(fold_pairs(s[4], s[5]), fold_pairs(s[6], s[7])));
}

/* Depths below 16 (one vector a row) in a matrix of at least 32 bytes: each row's 16 bytes
 * ending where it ends (xe: x plus in_off in the last k lanes, zeros before), or for the rows
 * within 16 bytes of the matrix's start those starting where it starts (xs: in the first k
 * lanes), so nothing outside the matrix is read. Row `first` is the first of w. */
static inline __m256i rows8_short(const int8_t *w, int32_t k, int n, int32_t first, __m256i xs,
                                  __m256i xe) {
  __m256i s[8];
#pragma GCC unroll 8
  for (int i = 0; i < 8; i++) {
    int32_t row = i < n ? i : n - 1;
    bool end = (first + row + 1) * k >= 16;
    s[i] = _mm256_madd_epi16(end ? xe : xs, widen(w + row * k + (end ? k - 16 : 0)));
  }
  return fold_blocks(fold_quads(fold_pairs(s[0], s[1]), fold_pairs(s[2], s[3])),
                     fold_quads(fold_pairs(s[4], s[5]), fold_pairs(s[6], s[7])));
}

enum { XW_MAX = 2048 }; /* depths widened once a batch row: 4 KiB of stack */

void ap_fast_avx2_fc_rows(const ap_qfc *f, int32_t u0, int32_t u1) {
  int32_t k = f->depth;
  bool short_rows = k < 16;
  if (short_rows && (int64_t)f->units * k < 32) {
    ap_fast_avx2_fc(f, u0, u1);
    return;
  }
  int32_t kfull = k / 16 * 16;
  const __m256i io = _mm256_set1_epi16((int16_t)f->in_off), off = _mm256_set1_epi32(f->out_off),
                lo = _mm256_set1_epi32(f->act_min), hi = _mm256_set1_epi32(f->act_max),
                lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  /* int16 lanes [0, 16 - (k - kfull)) of the last 16 values were summed by the full steps */
  const __m256i keep =
      _mm256_cmpgt_epi16(_mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm256_set1_epi16((int16_t)(15 - (k - kfull))));
  const rq8 one = rq8_of(_mm256_set1_epi32(f->mult1), _mm256_set1_epi32(f->shift1));
  /* x + in_off as int16 once a batch row (when it fits on the stack) rather than once a pass */
  _Alignas(32) int16_t xw_buf[XW_MAX];
  const bool use_xw = !short_rows && kfull <= XW_MAX && u1 - u0 > 8;
  for (int32_t b = 0; b < f->batches; b++) {
    const int8_t *x = f->x + (size_t)b * (size_t)k;
    const int16_t *xw = NULL;
    if (use_xw) {
      for (int32_t d = 0; d < kfull; d += 16)
        _mm256_store_si256((__m256i *)(xw_buf + d), _mm256_add_epi16(widen(x + d), io));
      xw = xw_buf;
    }
    uint32_t corr = f->filter_off ? (uint32_t)f->filter_off * ap_fast_row_sum(x, k, f->in_off) : 0;
    __m256i xt = _mm256_setzero_si256(), xe = xt;
    if (short_rows) {
      int16_t a[16] = {0}, e[16] = {0};
      for (int32_t d = 0; d < k; d++)
        a[d] = e[16 - k + d] = (int16_t)(x[d] + f->in_off);
      xt = _mm256_loadu_si256((const __m256i *)a);
      xe = _mm256_loadu_si256((const __m256i *)e);
    } else {
      xt = _mm256_and_si256(_mm256_add_epi16(widen(x + k - 16), io), keep);
    }
    int8_t *out = f->out + (size_t)b * (size_t)f->units;
    for (int32_t u = u0; u < u1; u += 8) {
      int n = u1 - u < 8 ? (int)(u1 - u) : 8;
      __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), lane);
      const int8_t *w = f->w + (size_t)u * (size_t)k;
      __m256i v = _mm256_add_epi32(short_rows ? rows8_short(w, k, n, u, xt, xe)
                                   : xw       ? rows8(w, k, n, x, xw, kfull, io, xt)
                                              : rows8(w, k, n, x, NULL, kfull, io, xt),
                                   _mm256_set1_epi32((int32_t)corr));
      if (f->bias) v = _mm256_add_epi32(v, _mm256_maskload_epi32(f->bias + u, mask));
      rq8 q = one;
      if (f->qmult) { /* per channel; no read past the units' multipliers */
        q = rq8_of(_mm256_maskload_epi32(f->qmult + u, mask),
                   _mm256_maskload_epi32(f->qshift + u, mask));
      }
      __m256i r = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(rq8_mul(v, &q), off), lo), hi);
      if (n == 8) {
        store8(out + u, r);
      } else {
        int8_t t[8];
        store8(t, r);
        memcpy(out + u, t, (size_t)n);
      }
    }
  }
}
#else
typedef int ap_fast_fc_avx2_unused; /* x86-64 only */
#endif
