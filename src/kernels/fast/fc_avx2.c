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

/* What the passes over one batch row share, in locals: out is int8_t, so a store through it
 * may alias any field of the ap_qfc (the compiler would load them again after every store). */
typedef struct fc_row {
  const int8_t *x, *w;
  const int16_t *xw;
  const int32_t *bias, *qmult, *qshift;
  int8_t *out;
  int32_t k, kfull;
  bool short_rows;
  __m256i io, xt, xe, corr, off, lo, hi;
  rq8 one; /* per tensor (qmult NULL) */
} fc_row;

/* The sums of the n (1-8) rows from unit u, without the bias. */
static inline __attribute__((always_inline)) __m256i pass_sums(const fc_row *r, int32_t u, int n) {
  const int8_t *w = r->w + (size_t)u * (size_t)r->k;
  __m256i v = r->short_rows ? rows8_short(w, r->k, n, u, r->xt, r->xe)
              : r->xw       ? rows8(w, r->k, n, r->x, r->xw, r->kfull, r->io, r->xt)
                            : rows8(w, r->k, n, r->x, NULL, r->kfull, r->io, r->xt);
  return _mm256_add_epi32(v, r->corr);
}

/* Units [u0, u1) of one batch row: whole passes of 8 rows read bias and multipliers with plain
 * loads and store 8 bytes; the last partial pass masks its loads and copies n bytes. The
 * per-tensor requantization's left shift is almost always 0 (multipliers below 1): then
 * rq8_mul0, two operations fewer a pass. */
static inline __attribute__((always_inline)) void row_units(const fc_row *r, int32_t u0, int32_t u1,
                                                            bool left0) {
  int32_t u = u0;
  for (; u + 8 <= u1; u += 8) {
    __m256i v = pass_sums(r, u, 8);
    if (r->bias) v = _mm256_add_epi32(v, _mm256_loadu_si256((const __m256i *)(r->bias + u)));
    if (r->qmult) {
      rq8 q = rq8_of(_mm256_loadu_si256((const __m256i *)(r->qmult + u)),
                     _mm256_loadu_si256((const __m256i *)(r->qshift + u)));
      v = rq8_mul(v, &q);
    } else {
      v = left0 ? rq8_mul0(v, &r->one) : rq8_mul(v, &r->one);
    }
    store8(r->out + u,
           _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(v, r->off), r->lo), r->hi));
  }
  if (u < u1) {
    int n = (int)(u1 - u);
    __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256i v = pass_sums(r, u, n);
    if (r->bias) v = _mm256_add_epi32(v, _mm256_maskload_epi32(r->bias + u, mask));
    rq8 q = r->one;
    if (r->qmult) { /* no read past the units' multipliers */
      q = rq8_of(_mm256_maskload_epi32(r->qmult + u, mask),
                 _mm256_maskload_epi32(r->qshift + u, mask));
    }
    int8_t t[8];
    store8(t, _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(rq8_mul(v, &q), r->off), r->lo),
                               r->hi));
    memcpy(r->out + u, t, (size_t)n);
  }
}

void ap_fast_avx2_fc_rows(const ap_qfc *f, int32_t u0, int32_t u1) {
  int32_t k = f->depth;
  bool short_rows = k < 16;
  if (short_rows && (int64_t)f->units * k < 32) {
    ap_fast_avx2_fc(f, u0, u1);
    return;
  }
  fc_row r;
  r.w = f->w, r.bias = f->bias, r.qmult = f->qmult, r.qshift = f->qshift;
  r.k = k, r.kfull = k / 16 * 16, r.short_rows = short_rows;
  r.io = _mm256_set1_epi16((int16_t)f->in_off), r.off = _mm256_set1_epi32(f->out_off);
  r.lo = _mm256_set1_epi32(f->act_min), r.hi = _mm256_set1_epi32(f->act_max);
  r.one = rq8_of(_mm256_set1_epi32(f->mult1), _mm256_set1_epi32(f->shift1));
  const bool left0 = !f->qmult && f->shift1 <= 0;
  /* int16 lanes [0, 16 - (k - kfull)) of the last 16 values were summed by the full steps */
  const __m256i keep =
      _mm256_cmpgt_epi16(_mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm256_set1_epi16((int16_t)(15 - (k - r.kfull))));
  /* x + in_off as int16 once a batch row (when it fits on the stack) rather than once a pass */
  _Alignas(32) int16_t xw_buf[XW_MAX];
  const bool use_xw = !short_rows && r.kfull <= XW_MAX && u1 - u0 > 8;
  const int32_t batches = f->batches, units = f->units, in_off = f->in_off,
                filter_off = f->filter_off;
  const int8_t *x0 = f->x;
  int8_t *out0 = f->out;
  for (int32_t b = 0; b < batches; b++) {
    const int8_t *x = x0 + (size_t)b * (size_t)k;
    r.x = x, r.xw = NULL;
    if (use_xw) {
      for (int32_t d = 0; d < r.kfull; d += 16)
        _mm256_store_si256((__m256i *)(xw_buf + d), _mm256_add_epi16(widen(x + d), r.io));
      r.xw = xw_buf;
    }
    uint32_t corr = filter_off ? (uint32_t)filter_off * ap_fast_row_sum(x, k, in_off) : 0;
    r.corr = _mm256_set1_epi32((int32_t)corr);
    r.xt = _mm256_setzero_si256(), r.xe = r.xt;
    if (short_rows) {
      int16_t a[16] = {0}, e[16] = {0};
      for (int32_t d = 0; d < k; d++)
        a[d] = e[16 - k + d] = (int16_t)(x[d] + in_off);
      r.xt = _mm256_loadu_si256((const __m256i *)a);
      r.xe = _mm256_loadu_si256((const __m256i *)e);
    } else {
      r.xt = _mm256_and_si256(_mm256_add_epi16(widen(x + k - 16), r.io), keep);
    }
    r.out = out0 + (size_t)b * (size_t)units;
    if (left0)
      row_units(&r, u0, u1, true);
    else
      row_units(&r, u0, u1, false);
  }
}
#else
typedef int ap_fast_fc_avx2_unused; /* x86-64 only */
#endif
