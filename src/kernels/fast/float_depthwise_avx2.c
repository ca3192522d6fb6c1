/* Float DEPTHWISE_CONV_2D for the AVX2 level (depth multiplier 1, or a multiple of 8: each
 * register's channels then read one input channel; others: the generic level's): channels in
 * lanes, four registers of channels per pass so their sums' adds overlap (8, 16 or 24
 * channels: eight pixels per pass instead, for the same reason). Each
 * output's taps are summed in the reference's order from 0.0f, those outside the input skipped
 * (the decision is per pixel, common to every lane), then the bias and the clamp; no FMA. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/float_x86.h"

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Channels [c0, c0 + 8 * V) of one output pixel. */
static inline __attribute__((always_inline)) void chans(const ap_fdw *d, const float *in_b,
                                                        int32_t y0, int32_t x0, int32_t c0,
                                                        float *out, const int V, const bool one) {
  __m256 acc[4];
  for (int v = 0; v < V; v++)
    acc[v] = _mm256_setzero_ps();
  for (int32_t fy = 0; fy < d->f_h; fy++) {
    int32_t iy = y0 + d->dil_h * fy;
    if (iy < 0 || iy >= d->in_h) continue;
    for (int32_t fx = 0; fx < d->f_w; fx++) {
      int32_t ix = x0 + d->dil_w * fx;
      if (ix < 0 || ix >= d->in_w) continue;
      const float *src = in_b + ((size_t)iy * d->in_w + ix) * d->in_d;
      const float *w = d->f + ((size_t)fy * d->f_w + fx) * d->out_d + c0;
      for (int v = 0; v < V; v++) {
        __m256 xv = one ? _mm256_loadu_ps(src + c0 + 8 * v)
                        : _mm256_broadcast_ss(src + (c0 + 8 * v) / d->mult);
        acc[v] = _mm256_add_ps(acc[v], _mm256_mul_ps(xv, _mm256_loadu_ps(w + 8 * v)));
      }
    }
  }
  for (int v = 0; v < V; v++) {
    __m256 bv = d->bias ? _mm256_loadu_ps(d->bias + c0 + 8 * v) : _mm256_setzero_ps();
    _mm256_storeu_ps(out + c0 + 8 * v, ap_clampf8(_mm256_add_ps(acc[v], bv), d->lo, d->hi));
  }
}

/* The last channels (fewer than 8), one lane at a time in the same order. */
static void tail(const ap_fdw *d, const float *in_b, int32_t y0, int32_t x0, int32_t c0,
                 float *out) {
  for (int32_t c = c0; c < d->out_d; c++) {
    float acc = 0.0f;
    for (int32_t fy = 0; fy < d->f_h; fy++) {
      int32_t iy = y0 + d->dil_h * fy;
      if (iy < 0 || iy >= d->in_h) continue;
      for (int32_t fx = 0; fx < d->f_w; fx++) {
        int32_t ix = x0 + d->dil_w * fx;
        if (ix < 0 || ix >= d->in_w) continue;
        acc += in_b[((size_t)iy * d->in_w + ix) * d->in_d + c / d->mult] *
               d->f[((size_t)fy * d->f_w + fx) * d->out_d + c];
      }
    }
    out[c] = ap_kq_clampf(acc + (d->bias ? d->bias[c] : 0.0f), d->lo, d->hi);
  }
}

/* All channels (out_d, a multiple of 8 below 32) of NP output pixels at once (flattened
 * indices px..px + NP - 1 of rows * out_w): one register of channels leaves one chain of
 * dependent adds per pixel, so NP pixels' chains are interleaved; each output still sums its taps
 * in the reference's order. The NP pixels' inputs are all read before their outputs are written, in
 * pixel order, so an output overlapping its input (in place) is written no earlier than one pixel
 * at a time would write it. */
enum { NP = 8 }; /* pixels per pass (8: 4% faster than 4 on magic_wand) */

static inline __attribute__((always_inline)) void pixels(const ap_fdw *d, int32_t px,
                                                         const int32_t y0[NP], const int32_t x0[NP],
                                                         const ptrdiff_t o[NP], const bool one,
                                                         const int FW) {
  const int32_t in_w = d->in_w, in_h = d->in_h, f_w = FW ? FW : d->f_w, f_h = d->f_h;
  const int32_t dil_w = d->dil_w, dil_h = d->dil_h;
  const ptrdiff_t xstep = (ptrdiff_t)dil_w * d->in_d, ystep = (ptrdiff_t)dil_h * in_w * d->in_d;
  __m256 res[NP][3];
  int nv = (int)(d->out_d / 8);
  for (int v = 0; v < nv; v++) {
    int32_t c0 = 8 * v, ci = one ? c0 : c0 / d->mult;
    const float *in = d->in + ci;
    __m256 acc[NP];
    _Pragma("GCC unroll 8") for (int p = 0; p < NP; p++) acc[p] = _mm256_setzero_ps();
    const float *w = d->f + c0;
    for (int32_t fy = 0, oy = 0; fy < f_h; fy++, oy += dil_h) {
      /* A tap row outside the input moves the pixel's columns out of reach. */
      ptrdiff_t ro[NP];
      int32_t xs[NP];
      _Pragma("GCC unroll 8") for (int p = 0; p < NP; p++) {
        ro[p] = o[p] + fy * ystep;
        xs[p] = (uint32_t)(y0[p] + oy) < (uint32_t)in_h ? x0[p] : INT32_MIN / 2;
      }
      _Pragma("GCC unroll 3") for (int32_t fx = 0, ox = 0; fx < f_w;
                                   fx++, ox += dil_w, w += d->out_d) {
        __m256 wv = _mm256_loadu_ps(w);
        _Pragma("GCC unroll 8") for (int p = 0; p < NP; p++) {
          if ((uint32_t)(xs[p] + ox) >= (uint32_t)in_w) continue;
          const float *src = in + (ro[p] + fx * xstep);
          __m256 xv = one ? _mm256_loadu_ps(src) : _mm256_broadcast_ss(src);
          acc[p] = _mm256_add_ps(acc[p], _mm256_mul_ps(xv, wv));
        }
      }
    }
    __m256 bv = d->bias ? _mm256_loadu_ps(d->bias + c0) : _mm256_setzero_ps();
    _Pragma("GCC unroll 8") for (int p = 0; p < NP; p++) res[p][v] =
        ap_clampf8(_mm256_add_ps(acc[p], bv), d->lo, d->hi);
  }
  _Pragma("GCC unroll 8") for (int p = 0; p < NP; p++) for (int v = 0; v < nv; v++)
      _mm256_storeu_ps(d->out + (size_t)(px + p) * d->out_d + 8 * v, res[p][v]);
}

/* Out_d 8, 16 or 24: blocks of NP pixels (pixels) over the rows' flattened pixels, the last
 * ones (fewer than NP) one by one. */
static inline __attribute__((always_inline)) void narrow(const ap_fdw *d, int32_t r0, int32_t r1,
                                                         const bool one) {
  int32_t first = r0 * d->out_w, end = r1 * d->out_w, i = first;
  /* The pixels' positions carried from one to the next (no division per pixel): batch b, row
   * oy, column ox of pixel i; per pixel of a block its window's corner (y0, x0) and the offset
   * in d->in of its first tap (possibly outside the input: only ever added to, never
   * dereferenced unless the tap is inside). */
  int32_t b = r0 / d->out_h, oy = r0 % d->out_h, ox = 0;
  for (; i + NP <= end; i += NP) {
    int32_t y0[NP], x0[NP];
    ptrdiff_t o[NP];
    for (int p = 0; p < NP; p++) {
      y0[p] = oy * d->stride_h - d->pad_h;
      x0[p] = ox * d->stride_w - d->pad_w;
      o[p] = (((ptrdiff_t)b * d->in_h + y0[p]) * d->in_w + x0[p]) * d->in_d;
      if (++ox == d->out_w) {
        ox = 0;
        if (++oy == d->out_h) oy = 0, b++;
      }
    }
    if (d->f_w == 3) /* 3 taps a row (most models): unrolled */
      pixels(d, i, y0, x0, o, one, 3);
    else
      pixels(d, i, y0, x0, o, one, 0);
  }
  for (; i < end; i++) {
    int32_t r = i / d->out_w, col = i % d->out_w;
    const float *in_b = d->in + (size_t)(r / d->out_h) * d->in_h * d->in_w * d->in_d;
    for (int32_t c0 = 0; c0 < d->out_d; c0 += 8)
      chans(d, in_b, (r % d->out_h) * d->stride_h - d->pad_h, col * d->stride_w - d->pad_w, c0,
            d->out + (size_t)i * d->out_d, 1, one);
  }
}

/* column8's sums once the taps [lo, lo + nt) of a filter row inside the input are known: NT of
 * them when NT is nonzero (unrolled), else nt. Each pixel's first tap inside the input (row 0,
 * column lo) one pointer, the taps' offsets from it the same for every pixel. */
static inline __attribute__((always_inline)) void column8_taps(const ap_fdw *d, const float *first0,
                                                               int32_t lo, int32_t nt, float *out,
                                                               size_t ostep, const bool one,
                                                               const int NT) {
  enum { R = 8 };
  const int32_t taps = NT ? NT : nt, f_h = d->f_h, out_d = d->out_d;
  const ptrdiff_t in_d = d->in_d, xstep = (ptrdiff_t)d->dil_w * in_d;
  const ptrdiff_t ystep = (ptrdiff_t)d->dil_h * d->in_w * in_d;
  const ptrdiff_t pstep = (ptrdiff_t)d->stride_h * d->in_w * in_d;
  const size_t wrow = (size_t)d->f_w * (size_t)out_d;
  for (int32_t c0 = 0; c0 < out_d; c0 += 8) {
    const ptrdiff_t ci = one ? c0 : c0 / d->mult;
    __m256 acc[R];
    _Pragma("GCC unroll 8") for (int p = 0; p < R; p++) acc[p] = _mm256_setzero_ps();
    const float *first[R];
    _Pragma("GCC unroll 8") for (int p = 0; p < R; p++) first[p] =
        taps > 0 ? first0 + (ci + p * pstep) : d->in;
    const float *wr = d->f + (size_t)lo * out_d + c0;
    for (int32_t fy = 0; fy < f_h && taps > 0; fy++, wr += wrow) {
      const ptrdiff_t row = fy * ystep;
      _Pragma("GCC unroll 3") for (int32_t t = 0; t < taps; t++) {
        __m256 wv = _mm256_loadu_ps(wr + (size_t)t * out_d);
        const ptrdiff_t off = row + t * xstep;
        _Pragma("GCC unroll 8") for (int p = 0; p < R; p++) {
          __m256 xv = one ? _mm256_loadu_ps(first[p] + off) : _mm256_broadcast_ss(first[p] + off);
          acc[p] = _mm256_add_ps(acc[p], _mm256_mul_ps(xv, wv));
        }
      }
    }
    __m256 bv = d->bias ? _mm256_loadu_ps(d->bias + c0) : _mm256_setzero_ps();
    _Pragma("GCC unroll 8") for (int p = 0; p < R; p++)
        _mm256_storeu_ps(out + p * ostep + c0, ap_clampf8(_mm256_add_ps(acc[p], bv), d->lo, d->hi));
  }
}

/* Out_d 8, 16 or 24, the same column of eight consecutive output rows (oy .. oy + 7 of batch b),
 * all of whose filter rows are inside the input: the pixels' windows then share the columns
 * inside the input, so the taps run over those alone with no check per pixel (taps outside
 * skipped, as the reference's), and the eight pixels' chains of adds interleave; three or two
 * taps a filter row (a 3-wide filter inside, or at a border) unrolled. */
static inline __attribute__((always_inline)) void column8(const ap_fdw *d, int32_t b, int32_t oy,
                                                          int32_t ox, float *out, size_t ostep,
                                                          const bool one) {
  const int32_t x0 = ox * d->stride_w - d->pad_w, y0 = oy * d->stride_h - d->pad_h;
  int32_t lo = 0, hi = d->f_w; /* the taps [lo, hi) of a filter row inside the input */
  while (lo < hi && x0 + lo * d->dil_w < 0)
    lo++;
  while (hi > lo && x0 + (hi - 1) * d->dil_w >= d->in_w)
    hi--;
  const float *first0 =
      lo < hi ? d->in + (((ptrdiff_t)b * d->in_h + y0) * d->in_w + x0 + lo * d->dil_w) * d->in_d
              : d->in;
  if (hi - lo == 3)
    column8_taps(d, first0, lo, 3, out, ostep, one, 3);
  else if (hi - lo == 2)
    column8_taps(d, first0, lo, 2, out, ostep, one, 2);
  else
    column8_taps(d, first0, lo, hi - lo, out, ostep, one, 0);
}

/* Out_d 8, 16 or 24, the same column of n (below 8) consecutive output rows (oy .. oy + n - 1 of
 * batch b) some of whose filter rows are outside the input (the map's top and bottom): as
 * column8, each pixel skipping its filter rows outside, as the reference's. */
static inline __attribute__((always_inline)) void column_edge(const ap_fdw *d, int32_t b,
                                                              int32_t oy, int32_t ox, int32_t n,
                                                              float *out, size_t ostep,
                                                              const bool one) {
  enum { R = 8 };
  const int32_t x0 = ox * d->stride_w - d->pad_w, y0 = oy * d->stride_h - d->pad_h;
  int32_t lo = 0, hi = d->f_w;
  while (lo < hi && x0 + lo * d->dil_w < 0)
    lo++;
  while (hi > lo && x0 + (hi - 1) * d->dil_w >= d->in_w)
    hi--;
  const ptrdiff_t in_d = d->in_d, xstep = (ptrdiff_t)d->dil_w * in_d;
  const ptrdiff_t ystep = (ptrdiff_t)d->dil_h * d->in_w * in_d;
  /* per pixel its filter rows [fy0, fy1) inside the input (none for p >= n), and the offset in
   * d->in of its filter row 0's tap at column lo (outside the input when that row is: only
   * added to, dereferenced once a row inside is added) */
  int32_t fy0[R], fy1[R];
  ptrdiff_t first[R];
  for (int p = 0; p < R; p++) {
    int32_t top = y0 + (p < n ? p : 0) * d->stride_h;
    fy0[p] = 0, fy1[p] = p < n ? d->f_h : 0;
    while (fy0[p] < fy1[p] && top + fy0[p] * d->dil_h < 0)
      fy0[p]++;
    while (fy1[p] > fy0[p] && top + (fy1[p] - 1) * d->dil_h >= d->in_h)
      fy1[p]--;
    first[p] = (((ptrdiff_t)b * d->in_h + top) * d->in_w + x0 + lo * d->dil_w) * in_d;
  }
  for (int32_t c0 = 0; c0 < d->out_d; c0 += 8) {
    const ptrdiff_t ci = one ? c0 : c0 / d->mult;
    __m256 acc[R];
    _Pragma("GCC unroll 8") for (int p = 0; p < R; p++) acc[p] = _mm256_setzero_ps();
    for (int32_t fy = 0; fy < d->f_h && lo < hi; fy++) {
      const float *w = d->f + ((size_t)fy * d->f_w + (size_t)lo) * d->out_d + c0;
      ptrdiff_t off = fy * ystep + ci;
      for (int32_t fx = lo; fx < hi; fx++, off += xstep, w += d->out_d) {
        __m256 wv = _mm256_loadu_ps(w);
        _Pragma("GCC unroll 8") for (int p = 0; p < R; p++) {
          if (fy < fy0[p] || fy >= fy1[p]) continue;
          const float *src = d->in + (first[p] + off);
          __m256 xv = one ? _mm256_loadu_ps(src) : _mm256_broadcast_ss(src);
          acc[p] = _mm256_add_ps(acc[p], _mm256_mul_ps(xv, wv));
        }
      }
    }
    __m256 bv = d->bias ? _mm256_loadu_ps(d->bias + c0) : _mm256_setzero_ps();
    _Pragma("GCC unroll 8") for (int p = 0; p < R; p++) if (p < n)
        _mm256_storeu_ps(out + p * ostep + c0, ap_clampf8(_mm256_add_ps(acc[p], bv), d->lo, d->hi));
  }
}

/* Out_d 8, 16 or 24 (rows narrower than 8 pixels): groups of up to eight rows of one batch,
 * column by column (column8 where every filter row is inside the input, column_edge at the map's
 * top and bottom). An output placed over its input (the planner's in-place overlap,
 * src/graph/overlap.c) may have row r written only over input rows no row from r on reads: a
 * group whose rows miss every input byte from its first input row on writes them as it goes;
 * any other writes its rows only after all of them are read (held in buf, then copied in row
 * order), which the planner's rule for its last row makes safe. */
static void columns(const ap_fdw *d, int32_t r0, int32_t r1, const bool one) {
  const int64_t in_row = (int64_t)d->in_w * d->in_d * (int64_t)sizeof(float);
  const int64_t out_row = (int64_t)d->out_w * d->out_d * (int64_t)sizeof(float);
  /* byte positions relative to the output's start */
  const int64_t in_at = (int64_t)((uintptr_t)d->in - (uintptr_t)d->out);
  const int64_t in_end = in_at + ((int64_t)(r1 - 1) / d->out_h + 1) * d->in_h * in_row;
  const size_t ostep = (size_t)d->out_w * d->out_d;
  float buf[8 * 7 * 24]; /* eight rows of up to 7 pixels of up to 24 channels */
  for (int32_t r = r0; r < r1;) {
    int32_t b = r / d->out_h, oy = r % d->out_h;
    int32_t n = d->out_h - oy < 8 ? d->out_h - oy : 8;
    if (r1 - r < n) n = r1 - r;
    int32_t top = oy * d->stride_h - d->pad_h;
    if (top < 0) { /* the rows above the first whole window: a group of their own */
      int32_t whole = (d->pad_h + d->stride_h - 1) / d->stride_h - oy;
      if (whole < n) n = whole;
    }
    int32_t bottom = (oy + n - 1) * d->stride_h - d->pad_h + (d->f_h - 1) * d->dil_h;
    int64_t first = in_at + ((int64_t)b * d->in_h + (top > 0 ? top : 0)) * in_row;
    bool apart = (int64_t)(r + n) * out_row <= first || (int64_t)r * out_row >= in_end;
    float *out = apart ? d->out + (size_t)r * ostep : buf;
    if (n == 8 && top >= 0 && bottom < d->in_h)
      for (int32_t ox = 0; ox < d->out_w; ox++)
        column8(d, b, oy, ox, out + (size_t)ox * d->out_d, ostep, one);
    else
      for (int32_t ox = 0; ox < d->out_w; ox++)
        column_edge(d, b, oy, ox, n, out + (size_t)ox * d->out_d, ostep, one);
    if (!apart) memcpy(d->out + (size_t)r * ostep, buf, (size_t)n * ostep * sizeof(float));
    r += n;
  }
}

void ap_fast_avx2_fdw(const ap_fdw *d, int32_t r0, int32_t r1) {
  bool one = d->mult == 1;
  if (!one && d->mult % 8) {
    ap_fast_generic_fdw(d, r0, r1);
    return;
  }
  if (d->out_d < 32 && d->out_d % 8 == 0) {
    if (d->out_w < NP) { /* rows narrower than a block of pixels (magic_wand's: 3) */
      if (one)
        columns(d, r0, r1, true);
      else
        columns(d, r0, r1, false);
      return;
    }
    if (one)
      narrow(d, r0, r1, true);
    else
      narrow(d, r0, r1, false);
    return;
  }
  for (int32_t r = r0; r < r1; r++) {
    int32_t b = r / d->out_h, oy = r % d->out_h, y0 = oy * d->stride_h - d->pad_h;
    const float *in_b = d->in + (size_t)b * d->in_h * d->in_w * d->in_d;
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int32_t x0 = ox * d->stride_w - d->pad_w, c0 = 0;
      float *out = d->out + ((size_t)r * d->out_w + ox) * d->out_d;
      if (one) {
        for (; c0 + 32 <= d->out_d; c0 += 32)
          chans(d, in_b, y0, x0, c0, out, 4, true);
        for (; c0 + 8 <= d->out_d; c0 += 8)
          chans(d, in_b, y0, x0, c0, out, 1, true);
      } else {
        for (; c0 + 32 <= d->out_d; c0 += 32)
          chans(d, in_b, y0, x0, c0, out, 4, false);
        for (; c0 + 8 <= d->out_d; c0 += 8)
          chans(d, in_b, y0, x0, c0, out, 1, false);
      }
      if (c0 < d->out_d) tail(d, in_b, y0, x0, c0, out);
    }
  }
}
#else
typedef int ap_fast_float_depthwise_avx2_unused; /* x86-64 only */
#endif
