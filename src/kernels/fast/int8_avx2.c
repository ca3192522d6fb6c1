/* The AVX2 level (compiled with -mavx2 on x86-64 only; chosen when the CPU and OS have it).
 * Products are int16 x int16 pairs summed into int32 lanes (vpmaddwd: exact for these
 * ranges), sums wrap as the reference's; requantization is MultiplyByQuantizedMultiplier on 8
 * lanes, bit for bit. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/dw_taps.h"
#include "kernels/fast/int8_x86.h"
#include "kernels/fast/rq8_x86.h"

static size_t packed_bytes(int32_t n, int32_t k) {
  (void)n, (void)k;
  return 0; /* weights are read in place, rows of k */
}

static void pack(const int8_t *w, int32_t n, int32_t k, const int32_t *bias, int32_t in_off,
                 void *packed, int32_t *col_bias) {
  (void)w, (void)k, (void)in_off, (void)packed;
  for (int32_t c = 0; c < n; c++)
    col_bias[c] = bias ? bias[c] : 0;
}

size_t ap_fast_avx2_arow_bytes(int32_t k) {
  return ((size_t)k + 15) / 16 * 32;
}

void ap_fast_avx2_arow(const int8_t *src, int32_t k, int32_t in_off, void *dst) {
  int16_t *a = dst;
  __m256i off = _mm256_set1_epi16((int16_t)in_off);
  int32_t i = 0;
  for (; i + 16 <= k; i += 16) {
    __m256i v = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(src + i)));
    _mm256_storeu_si256((__m256i *)(a + i), _mm256_add_epi16(v, off));
  }
  for (; i < k; i++)
    a[i] = (int16_t)(src[i] + in_off);
  for (; i % 16; i++)
    a[i] = 0;
}

/* Elements [at, at + len) of a row of a (input + offset as int16; src NULL: padding, which is
 * 0 once offset) from src, widened 16 at a time. A short last block is widened whole where
 * its 16 source bytes lie before src_end and its 16 elements before cap: the elements past
 * at + len are the next run's (or the zeros past k), written after these. */
static inline void arow_part(int16_t *a, int32_t at, int32_t len, const int8_t *src,
                             const int8_t *src_end, __m256i off, int32_t cap) {
  int16_t *d = a + at;
  int32_t i = 0;
  if (!src) {
    const __m256i z = _mm256_setzero_si256();
    for (; i + 16 <= len; i += 16)
      _mm256_storeu_si256((__m256i *)(d + i), z);
    if (i < len && at + i + 16 <= cap) {
      _mm256_storeu_si256((__m256i *)(d + i), z);
      return;
    }
    for (; i < len; i++)
      d[i] = 0;
    return;
  }
  for (; i + 16 <= len; i += 16)
    _mm256_storeu_si256(
        (__m256i *)(d + i),
        _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(src + i))), off));
  if (i == len) return;
  if (len >= 16) { /* the last 16, overlapping the block before (the same values again) */
    i = len - 16;
  } else if (at + 16 > cap || src_end - src < 16) {
    if (len >= 8) { /* 8 through the lower half, then one by one */
      _mm_storeu_si128((__m128i *)d,
                       _mm_add_epi16(_mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)src)),
                                     _mm256_castsi256_si128(off)));
      i = 8;
    }
    int16_t o = (int16_t)_mm256_extract_epi16(off, 0);
    for (; i < len; i++)
      d[i] = (int16_t)(src[i] + o);
    return;
  }
  _mm256_storeu_si256(
      (__m256i *)(d + i),
      _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(src + i))), off));
}

void ap_fast_avx2_patch16(const ap_fast_geom *g, const int8_t *in, const int8_t *in_end,
                          int32_t in_off, int32_t r, int32_t rows, int32_t k, int32_t kp,
                          int16_t *a) {
  const int32_t out_w = g->out_w, out_h = g->out_h, in_h = g->in_h, in_w = g->in_w, d = g->in_d,
                f_h = g->f_h, f_w = g->f_w, dil_h = g->dil_h, dil_w = g->dil_w;
  int32_t ox = r % out_w, oy = r / out_w % out_h, b = r / out_w / out_h;
  int32_t run = f_w * d; /* one filter row's values */
  const __m256i off = _mm256_set1_epi16((int16_t)in_off);
  const size_t row_bytes = (size_t)in_w * (size_t)d;
  int32_t q = 0;
  if (run < 16 && dil_w == 1) {
    /* Filter rows of fewer than 16 values (an image's first layer: 3 taps of 3 channels) while
     * the window lies inside the input: each filter row one widened block of 16 (the values
     * past it this row's later ones, its zeros past k or the next row's, each written after),
     * as the general loop below builds them, without its per-row geometry (a sixth of
     * mobilenet_v2's first convolution). The call's last row, whose blocks would pass its end,
     * is built on the stack and copied (kp <= 64). */
    const size_t step = (size_t)dil_h * row_bytes, last = (size_t)(f_h - 1) * step;
    _Alignas(32) int16_t tmp[64 + 16];
    for (; q < rows; q++, a += kp) {
      int16_t *dst = q + 1 < rows ? a : tmp;
      if (dst == tmp && kp > 64) break;
      int32_t y0 = oy * g->stride_h - g->pad_h, x0 = ox * g->stride_w - g->pad_w;
      if (y0 < 0 || y0 + dil_h * (f_h - 1) >= in_h || x0 < 0 || x0 + f_w - 1 >= in_w) break;
      const int8_t *src =
          in + ((size_t)b * (size_t)in_h + (size_t)y0) * row_bytes + (size_t)x0 * (size_t)d;
      if (in_end - src < (ptrdiff_t)last + 16) break;
      for (int32_t fy = 0; fy < f_h; fy++)
        _mm256_storeu_si256((__m256i *)(dst + fy * run),
                            _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128(
                                                 (const __m128i *)(src + (size_t)fy * step))),
                                             off));
      if (k < kp) _mm256_storeu_si256((__m256i *)(dst + k), _mm256_setzero_si256());
      if (dst == tmp)
        for (int32_t i = 0; i < kp; i += 16)
          _mm256_storeu_si256((__m256i *)(a + i), _mm256_load_si256((const __m256i *)(tmp + i)));
      if (++ox == out_w) { /* the next output pixel */
        ox = 0;
        if (++oy == out_h) oy = 0, b++;
      }
    }
  }
  for (; q < rows; q++, a += kp) {
    int32_t y0 = oy * g->stride_h - g->pad_h, x0 = ox * g->stride_w - g->pad_w;
    const int8_t *in_b = in + (size_t)b * (size_t)in_h * row_bytes;
    bool cols_in = x0 >= 0 && x0 + dil_w * (f_w - 1) < in_w && dil_w == 1;
    if (cols_in && y0 >= 0 && y0 + dil_h * (f_h - 1) < in_h) {
      /* The whole window inside: runs of 16 or more in blocks of 16, the last one overlapping
       * the block before (the same values again); a shorter run in one block of 16 where its
       * bytes can be read, the values past it landing in this row's later runs, its zeros past
       * k or the next row (each written after), never past the last row. */
      const int8_t *src = in_b + (size_t)y0 * row_bytes + (size_t)x0 * d;
      const size_t step = (size_t)dil_h * row_bytes;
      for (int32_t fy = 0, at = 0; fy < f_h; fy++, src += step, at += run) {
        int16_t *dst = a + at;
        if (run < 16) {
          if (in_end - src >= 16 && (at + 16 <= kp || q + 1 < rows))
            _mm256_storeu_si256(
                (__m256i *)dst,
                _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)src)), off));
          else
            arow_part(a, at, run, src, in_end, off, k);
          continue;
        }
        int32_t i = 0;
        for (; i + 16 <= run; i += 16)
          _mm256_storeu_si256(
              (__m256i *)(dst + i),
              _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(src + i))),
                               off));
        if (i < run)
          _mm256_storeu_si256(
              (__m256i *)(dst + run - 16),
              _mm256_add_epi16(
                  _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(src + run - 16))), off));
      }
    } else if (cols_in) { /* each row's taps adjacent */
      for (int32_t fy = 0, at = 0; fy < f_h; fy++, at += run) {
        int32_t iy = y0 + dil_h * fy;
        bool in_row = iy >= 0 && iy < in_h;
        arow_part(a, at, run, in_row ? in_b + (size_t)iy * row_bytes + (size_t)x0 * d : NULL,
                  in_end, off, k);
      }
    } else {
      for (int32_t fy = 0, at = 0; fy < f_h; fy++) {
        int32_t iy = y0 + dil_h * fy;
        const int8_t *src = iy >= 0 && iy < in_h ? in_b + (size_t)iy * row_bytes : NULL;
        for (int32_t fx = 0; fx < f_w; fx++, at += d) {
          int32_t ix = x0 + dil_w * fx;
          bool in_px = src && ix >= 0 && ix < in_w;
          arow_part(a, at, d, in_px ? src + (size_t)ix * d : NULL, in_end, off, k);
        }
      }
    }
    if (k < kp && q + 1 < rows) /* arow's zeros past k, the rest on the next row's values */
      _mm256_storeu_si256((__m256i *)(a + k), _mm256_setzero_si256());
    else
      for (int32_t i = k; i < kp; i++)
        a[i] = 0;
    if (++ox == out_w) { /* the next output pixel */
      ox = 0;
      if (++oy == out_h) oy = 0, b++;
    }
  }
}

/* 16 weights of channel row w from d, zero past k; reads in place when 16 bytes fit before
 * `end` (the bytes past k are the next row's, multiplied by the row of a's zeros). */
static inline __m256i wload(const int8_t *w, int32_t d, int32_t k, const int8_t *end) {
  if (d + 16 <= k || w + d + 16 <= end)
    return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + d)));
  int8_t t[16] = {0};
  memcpy(t, w + d, (size_t)(k - d));
  return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)t));
}

/* Channels c and c + 1 (c + 1 < n or not) over the four rows: the 8 sums' vectors reduced to
 * lanes (row 0 c, row 0 c + 1, row 1 c, row 1 c + 1) in *r01 and the same for rows 2, 3. */
static inline __attribute__((always_inline)) void
gemm_pair(const int8_t *w0, const int8_t *w1, int32_t k, int32_t kp, const int8_t *end,
          const int16_t *const r[4], __m128i *r01, __m128i *r23) {
  const int16_t *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3];
  __m256i s00 = _mm256_setzero_si256(), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00,
          s30 = s00, s31 = s00;
  /* Whole blocks of 16 weights with no test in the loop (a copy for the tail in the loop
   * spilled every accumulator each step), then the tail's block. */
  int32_t kf = k / 16 * 16;
  for (int32_t d = 0; d < kf; d += 16)
    AP_ROWS_4X2(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w0 + d))),
                _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w1 + d))), d);
  if (kf < kp) AP_ROWS_4X2(wload(w0, kf, k, end), wload(w1, kf, k, end), kf);
  *r01 = hsum4(s00, s01, s10, s11);
  *r23 = hsum4(s20, s21, s30, s31);
}

/* Channels [c, c + 8) over the four rows: four pairs' sums, one vector of 8 channels a row
 * (p01[q] holds rows 0 and 1 of channels c + 2q and c + 2q + 1: their 64-bit halves side by
 * side). */
static inline __attribute__((always_inline)) void gemm_eight(const ap_qgemm *g, int32_t c,
                                                             int32_t kp, const int8_t *end,
                                                             const int16_t *const r[4],
                                                             __m256i v[4]) {
  __m128i p01[4], p23[4];
  for (int q = 0; q < 4; q++) {
    const int8_t *w0 = g->w + (size_t)(c + 2 * q) * g->k;
    gemm_pair(w0, w0 + g->k, g->k, kp, end, r, &p01[q], &p23[q]);
  }
  v[0] = _mm256_set_m128i(_mm_unpacklo_epi64(p01[2], p01[3]), _mm_unpacklo_epi64(p01[0], p01[1]));
  v[1] = _mm256_set_m128i(_mm_unpackhi_epi64(p01[2], p01[3]), _mm_unpackhi_epi64(p01[0], p01[1]));
  v[2] = _mm256_set_m128i(_mm_unpacklo_epi64(p23[2], p23[3]), _mm_unpacklo_epi64(p23[0], p23[1]));
  v[3] = _mm256_set_m128i(_mm_unpackhi_epi64(p23[2], p23[3]), _mm_unpackhi_epi64(p23[0], p23[1]));
}

static void gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc, int8_t *out,
                 size_t out_stride) {
  int32_t n = g->n, k = g->k, kp = (k + 15) / 16 * 16;
  const int16_t *a0 = a, *r[4];
  for (int i = 0; i < 4; i++)
    r[i] = a0 + (size_t)(i < rows ? i : 0) * (size_t)kp;
  const int8_t *end = g->w + (size_t)n * (size_t)k;
  __m256i off = _mm256_set1_epi32(g->out_off), lo = _mm256_set1_epi32(g->act_min),
          hi = _mm256_set1_epi32(g->act_max);
  /* Eight channels at a time: four pairs' sums gathered into one vector per row (no trip
   * through memory), requantized with the channels' terms loaded once for the rows; two
   * eights make one 16-byte store a row. */
  __m256i off16 = _mm256_set1_epi16((int16_t)g->out_off);
  __m128i lo8 = _mm_set1_epi8((int8_t)g->act_min), hi8 = _mm_set1_epi8((int8_t)g->act_max);
  __m256i lo32 = _mm256_set1_epi8((int8_t)g->act_min), hi32 = _mm256_set1_epi8((int8_t)g->act_max);
  int32_t c = 0;
  for (; c + 8 <= n; c += 8) {
    __m256i v[4], u[4];
    gemm_eight(g, c, kp, end, r, v);
    if (c + 16 <= n) {
      gemm_eight(g, c + 8, kp, end, r, u);
      if (rq8_right0(g->shift + c)) { /* multipliers below one: outer_gemm's rows in twos */
        rq8 q0 = rq8_load_right(g->mult + c, g->shift + c);
        rq8 q1 = rq8_load_right(g->mult + c + 8, g->shift + c + 8);
        __m256i b0 = _mm256_loadu_si256((const __m256i *)(g->col_bias + c)),
                b1 = _mm256_loadu_si256((const __m256i *)(g->col_bias + c + 8));
        for (int32_t i = 0; i < 4; i++)
          v[i] = rq8_mul0(_mm256_add_epi32(v[i], b0), &q0),
          u[i] = rq8_mul0(_mm256_add_epi32(u[i], b1), &q1);
        int8_t *o = out + (size_t)c;
        rq32_store(o, out_stride, rq32_bytes(v[0], u[0], v[1], u[1], off16, lo32, hi32), rows);
        if (rows > 2)
          rq32_store(o + 2 * out_stride, out_stride,
                     rq32_bytes(v[2], u[2], v[3], u[3], off16, lo32, hi32), rows - 2);
        c += 8;
        continue;
      }
      rq8 q0 = rq8_load(g->mult + c, g->shift + c, g->col_bias + c);
      rq8 q1 = rq8_load(g->mult + c + 8, g->shift + c + 8, g->col_bias + c + 8);
      for (int32_t i = 0; i < rows; i++)
        _mm_storeu_si128((__m128i *)(out + (size_t)i * out_stride + (size_t)c),
                         rq16_bytes(rq8_mul(v[i], &q0), rq8_mul(u[i], &q1), off16, lo8, hi8));
      c += 8;
      continue;
    }
    rq8 q = rq8_load(g->mult + c, g->shift + c, g->col_bias + c);
    for (int32_t i = 0; i < rows; i++)
      store8(out + (size_t)i * out_stride + (size_t)c, rq8_apply(v[i], &q, off, lo, hi));
  }
  if (c == n) return;
  /* The last n % 8 channels: sums through acc, then one by one. */
  for (int32_t cc = c; cc < n; cc += 2) {
    const int8_t *w0 = g->w + (size_t)cc * k, *w1 = cc + 1 < n ? w0 + k : w0;
    int32_t t[8];
    __m128i p01, p23;
    gemm_pair(w0, w1, k, kp, end, r, &p01, &p23);
    _mm_storeu_si128((__m128i *)t, p01);
    _mm_storeu_si128((__m128i *)(t + 4), p23);
    for (int32_t i = 0; i < rows; i++) {
      acc[(size_t)i * n + cc] = t[2 * i];
      if (cc + 1 < n) acc[(size_t)i * n + cc + 1] = t[2 * i + 1];
    }
  }
  for (int32_t i = 0; i < rows; i++)
    requant_row(acc + (size_t)i * n + c, g->col_bias + c, n - c, g->mult + c, g->shift + c,
                g->out_off, g->act_min, g->act_max, out + (size_t)i * out_stride + c);
}

extern const ap_fast_level ap_fast_generic;

/* Depthwise with a depth multiplier above 1: each tap's input is first spread to the output
 * channels (channel c reads input channel c / multiplier, taps outside the input the zero
 * point), then 8 output channels at a time go through 32-bit products. */
/* Multiplier a multiple of 8: a block of 8 output channels reads one input channel, so each
 * tap's offset input is broadcast against the block's 8 weights (no expanded copy); a tap
 * outside the input is skipped, as the reference skips it. */
static void dw_mult8(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1) {
  int32_t C = d->out_d, D = d->in_d, M = d->mult;
  __m256i voff = _mm256_set1_epi32(d->out_off), vlo = _mm256_set1_epi32(d->act_min),
          vhi = _mm256_set1_epi32(d->act_max);
  for (int32_t oy = oy0; oy < oy1; oy++)
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int32_t y0 = oy * d->stride_h - d->pad_h, x0 = ox * d->stride_w - d->pad_w;
      int8_t *o = d->out + (((size_t)b * d->out_h + oy) * d->out_w + ox) * C;
      for (int32_t ic = 0; ic < D; ic++)
        for (int32_t m = 0; m < M; m += 8) {
          int32_t c = ic * M + m;
          __m256i acc =
              d->bias ? _mm256_loadu_si256((const __m256i *)(d->bias + c)) : _mm256_setzero_si256();
          for (int32_t fy = 0; fy < d->f_h; fy++) {
            int32_t iy = y0 + d->dil_h * fy;
            if (iy < 0 || iy >= d->in_h) continue;
            const int8_t *row = d->in + ((size_t)b * d->in_h + iy) * d->in_w * D + ic;
            const int8_t *wr = d->f + (size_t)fy * d->f_w * C + c;
            for (int32_t fx = 0; fx < d->f_w; fx++) {
              int32_t ix = x0 + d->dil_w * fx;
              if (ix < 0 || ix >= d->in_w) continue;
              __m256i x = _mm256_set1_epi32(row[(size_t)ix * D] + d->in_off);
              __m256i w =
                  _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(wr + (size_t)fx * C)));
              acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(x, w));
            }
          }
          store8(o + c, requant8(acc, d->qmult + c, d->qshift + c, voff, vlo, vhi));
        }
    }
}

static void dw_multiplier(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1) {
  int32_t C = d->out_d, taps = d->f_h * d->f_w, D = d->in_d;
  _Alignas(32) int8_t ex[32768 + 32];
  __m256i voff = _mm256_set1_epi32(d->out_off), vlo = _mm256_set1_epi32(d->act_min),
          vhi = _mm256_set1_epi32(d->act_max), vin = _mm256_set1_epi32(d->in_off);
  int8_t zp = (int8_t)-d->in_off;
  for (int32_t oy = oy0; oy < oy1; oy++)
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int32_t y0 = oy * d->stride_h - d->pad_h, x0 = ox * d->stride_w - d->pad_w;
      int8_t *o = d->out + (((size_t)b * d->out_h + oy) * d->out_w + ox) * C;
      for (int32_t fy = 0, t = 0; fy < d->f_h; fy++) {
        int32_t iy = y0 + d->dil_h * fy;
        for (int32_t fx = 0; fx < d->f_w; fx++, t++) {
          int32_t ix = x0 + d->dil_w * fx;
          int8_t *e = ex + (size_t)t * C;
          if (iy < 0 || iy >= d->in_h || ix < 0 || ix >= d->in_w) {
            memset(e, zp, (size_t)C);
            continue;
          }
          const int8_t *src = d->in + (((size_t)b * d->in_h + iy) * d->in_w + ix) * D;
          if (D == 1) { /* a single input channel (an image's first layer) */
            memset(e, src[0], (size_t)C);
            continue;
          }
          for (int32_t ic = 0, c = 0; ic < D; ic++)
            for (int32_t m = 0; m < d->mult; m++)
              e[c++] = src[ic];
        }
      }
      int32_t c = 0;
      for (; c + 8 <= C; c += 8) {
        __m256i acc = _mm256_setzero_si256();
        for (int32_t t = 0; t < taps; t++) {
          __m256i x =
              _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(ex + (size_t)t * C + c)));
          __m256i w =
              _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(d->f + (size_t)t * C + c)));
          acc = _mm256_add_epi32(acc, _mm256_mullo_epi32(_mm256_add_epi32(x, vin), w));
        }
        if (d->bias)
          acc = _mm256_add_epi32(acc, _mm256_loadu_si256((const __m256i *)(d->bias + c)));
        store8(o + c, requant8(acc, d->qmult + c, d->qshift + c, voff, vlo, vhi));
      }
      for (; c < C; c++) {
        uint32_t acc = 0;
        for (int32_t t = 0; t < taps; t++)
          acc += (uint32_t)(d->f[(size_t)t * C + c] * (ex[(size_t)t * C + c] + d->in_off));
        if (d->bias) acc += (uint32_t)d->bias[c];
        o[c] = ap_fast_requant((int32_t)acc, d->qmult[c], d->qshift[c], d->out_off, d->act_min,
                               d->act_max);
      }
    }
}

/* Depthwise: multiplier 1 in dw_avx2.c, the others here. */
void ap_fast_avx2_dw(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws) {
  int32_t C = d->out_d, taps = d->f_h * d->f_w;
  /* The multiplier path's bound is its expanded taps (80 taps x 8 channels, micro_speech's
   * first layer, stay on it); the pairs path's offsets table holds 64 taps. */
  if (d->mult != 1 ? (size_t)taps * (size_t)C > 32768 : taps > 64) {
    ap_fast_generic.dw(d, b, oy0, oy1, ws);
    return;
  }
  if (d->mult % 8 == 0) {
    dw_mult8(d, b, oy0, oy1);
    return;
  }
  if (d->mult != 1) {
    dw_multiplier(d, b, oy0, oy1);
    return;
  }
  ap_fast_avx2_dw1(d, b, oy0, oy1, ws);
}

void ap_fast_avx2_fc(const ap_qfc *f, int32_t u0, int32_t u1) {
  enum { CHUNK = 64 };
  int32_t k = f->depth, kfull = k / 16 * 16, m1[CHUNK], s1[CHUNK], sums[CHUNK];
  for (int i = 0; i < CHUNK; i++)
    m1[i] = f->mult1, s1[i] = f->shift1;
  const __m256i io = _mm256_set1_epi16((int16_t)f->in_off);
  for (int32_t b = 0; b < f->batches; b++) {
    const int8_t *x = f->x + (size_t)b * k;
    uint32_t corr = f->filter_off ? (uint32_t)f->filter_off * ap_fast_row_sum(x, k, f->in_off) : 0;
    int8_t *out = f->out + (size_t)b * f->units;
    for (int32_t c0 = u0; c0 < u1; c0 += CHUNK) {
      int32_t c1 = u1 - c0 < CHUNK ? u1 : c0 + CHUNK;
      for (int32_t u = c0; u < c1; u += 4) {
        int32_t nu = c1 - u < 4 ? c1 - u : 4;
        const int8_t *w[4];
        for (int i = 0; i < 4; i++)
          w[i] = f->w + (size_t)(u + (i < nu ? i : 0)) * k;
        __m256i s0 = _mm256_setzero_si256(), s1v = s0, s2 = s0, s3 = s0;
        for (int32_t d = 0; d < kfull; d += 16) {
          __m256i xv =
              _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(x + d))), io);
#define AP_DOT(S, I)                                                                               \
  S = _mm256_add_epi32(                                                                            \
      S,                                                                                           \
      _mm256_madd_epi16(xv, _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w[I] + d)))))
          AP_DOT(s0, 0);
          AP_DOT(s1v, 1);
          AP_DOT(s2, 2);
          AP_DOT(s3, 3);
#undef AP_DOT
        }
        int32_t t[4];
        _mm_storeu_si128((__m128i *)t, hsum4(s0, s1v, s2, s3));
        for (int i = 0; i < nu; i++) {
          uint32_t acc = (uint32_t)t[i] + corr;
          for (int32_t d = kfull; d < k; d++)
            acc += (uint32_t)((x[d] + f->in_off) * w[i][d]);
          if (f->bias) acc += (uint32_t)f->bias[u + i];
          sums[u - c0 + i] = (int32_t)acc;
        }
      }
      requant_row(sums, NULL, c1 - c0, f->qmult ? f->qmult + c0 : m1,
                  f->qshift ? f->qshift + c0 : s1, f->out_off, f->act_min, f->act_max, out + c0);
    }
  }
}

/* The outer-product kit: output channels in lanes, no horizontal sums. Weights packed as int16
 * in blocks of 16 channels: [block][k pair][16 channels][2], zeros past n and k; each step
 * broadcasts one (a[k], a[k+1]) pair of a row and multiply-adds it with 16 channels' pairs. */
size_t ap_fast_avx2_outer_bytes(int32_t n, int32_t k) {
  return ((size_t)n + 15) / 16 * 16 * (((size_t)k + 1) / 2) * 4;
}

void ap_fast_avx2_outer_pack(const int8_t *w, int32_t n, int32_t k, const int32_t *bias,
                             int32_t in_off, void *packed, int32_t *col_bias) {
  (void)in_off;
  int16_t *p = packed;
  int32_t k2 = (k + 1) / 2, blocks = (n + 15) / 16;
  /* Channels past n (the last block's tail) hold zeros. */
  if (n % 16) {
    int16_t *last = p + (size_t)(blocks - 1) * k2 * 32;
    for (int32_t j = 0; j < k2; j++)
      memset(last + (size_t)j * 32 + (size_t)(n % 16) * 2, 0, (size_t)(16 - n % 16) * 4);
  }
  /* Eight channels by eight pairs at a time: each channel's 16 weights widened (a pair per
   * int32 lane), the 8 x 8 lanes transposed, each pair's 8 channels stored in one go. */
  int32_t n8 = n / 8 * 8, jv = k / 16 * 8;
  for (int32_t c0 = 0; c0 < n8; c0 += 8) {
    int16_t *dst = p + (size_t)(c0 / 16) * k2 * 32 + (size_t)(c0 % 16) * 2;
    for (int32_t j0 = 0; j0 < jv; j0 += 8) {
      /* Unrolled whole: as loops gcc kept the three arrays on the stack (4 instructions a
       * weight, a tenth of a 7x7 1x1 convolution's; 1 unrolled). */
      __m256i r[8], t[8], u[8];
#pragma GCC unroll 8
      for (int i = 0; i < 8; i++)
        r[i] = _mm256_cvtepi8_epi16(
            _mm_loadu_si128((const __m128i *)(w + (size_t)(c0 + i) * k + 2 * (size_t)j0)));
#pragma GCC unroll 4
      for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
      }
#pragma GCC unroll 2
      for (int i = 0; i < 8; i += 4) {
        u[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);
        u[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]);
        u[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]);
        u[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]);
      }
#pragma GCC unroll 4
      for (int i = 0; i < 4; i++) { /* pairs j0 + i and j0 + 4 + i */
        _mm256_storeu_si256((__m256i *)(dst + (size_t)(j0 + i) * 32),
                            _mm256_permute2x128_si256(u[i], u[4 + i], 0x20));
        _mm256_storeu_si256((__m256i *)(dst + (size_t)(j0 + 4 + i) * 32),
                            _mm256_permute2x128_si256(u[i], u[4 + i], 0x31));
      }
    }
  }
  for (int32_t c = 0; c < n; c++) {
    const int8_t *row = w + (size_t)c * k;
    int16_t *dst = p + (size_t)(c / 16) * k2 * 32 + (size_t)(c % 16) * 2;
    int32_t j = c < n8 ? jv : 0; /* the pairs the blocks above left */
    for (; 2 * j + 1 < k; j++) { /* one (k, k + 1) pair as one 32-bit store */
      uint32_t v = (uint32_t)(uint16_t)row[2 * j] | (uint32_t)(uint16_t)row[2 * j + 1] << 16;
      memcpy(dst + (size_t)j * 32, &v, 4);
    }
    if (j < k2) { /* odd k: the last pair's second weight is 0 */
      uint32_t v = (uint32_t)(uint16_t)row[2 * j];
      memcpy(dst + (size_t)j * 32, &v, 4);
    }
    col_bias[c] = bias ? bias[c] : 0;
  }
}

/* Channels [c, c + 8) of rows [0, rows) (accumulators s[0..rows)), out rows out_stride
 * apart: a whole 8 requantized with the channels' terms loaded once for the rows, a tail
 * (the last block's, fewer than 8 channels) one by one. */
static inline void outer_store(const ap_qgemm *g, const __m256i *s, int32_t rows, int32_t c,
                               int8_t *out, size_t out_stride) {
  int32_t cols = g->n - c < 8 ? g->n - c : 8;
  if (cols <= 0) return;
  out += c;
  if (cols == 8) {
    rq8 q = rq8_load(g->mult + c, g->shift + c, g->col_bias + c);
    __m256i off = _mm256_set1_epi32(g->out_off), lo = _mm256_set1_epi32(g->act_min),
            hi = _mm256_set1_epi32(g->act_max);
    for (int32_t i = 0; i < rows; i++)
      store8(out + (size_t)i * out_stride, rq8_apply(s[i], &q, off, lo, hi));
    return;
  }
  for (int32_t i = 0; i < rows; i++) {
    int32_t t[8];
    _mm256_storeu_si256((__m256i *)t, s[i]);
    for (int32_t q = 0; q < cols; q++)
      out[(size_t)i * out_stride + (size_t)q] =
          ap_fast_requant((int32_t)((uint32_t)t[q] + (uint32_t)g->col_bias[c + q]), g->mult[c + q],
                          g->shift[c + q], g->out_off, g->act_min, g->act_max);
  }
}

/* The broadcast pair j of each row (its two int16 as one int32). */
static inline __m256i pair(const int16_t *r, int32_t j) {
  int32_t p;
  memcpy(&p, r + 2 * j, 4);
  return _mm256_set1_epi32(p);
}

/* A block of at most 8 channels (the last, n % 16 <= 8): its upper 8 lanes' weights are zeros,
 * so only the lower half is multiplied (the same products and sums as the whole block's). The
 * rows' pairs come in nseg runs of run2 pairs: run s of row i from x[4 s + i]. */
static void half_block(const ap_qgemm *g, const int16_t *b, const int16_t *const *x, int32_t nseg,
                       int32_t run2, int32_t rows, int32_t c, int8_t *out, size_t out_stride) {
  __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
  for (int32_t sg = 0; sg < nseg; sg++, b += (size_t)run2 * 32) {
    const int16_t *const *r = x + 4 * sg;
    for (int32_t j = 0; j < run2; j++) {
      __m256i b0 = _mm256_loadu_si256((const __m256i *)(b + (size_t)j * 32));
      s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(pair(r[0], j), b0));
      s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(pair(r[1], j), b0));
      s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(pair(r[2], j), b0));
      s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(pair(r[3], j), b0));
    }
  }
  __m256i s[4] = {s0, s1, s2, s3};
  outer_store(g, s, rows, c, out, out_stride);
}

/* A block's sums requantized and stored where outer_runs' common case (a whole block of 16
 * channels, four rows, multipliers below one) does not apply: a whole block's other shifts or
 * fewer rows (lo[i], hi[i]: row i's channels 0-7 and 8-15, bias included), or a block with
 * 9 to 15 channels (no bias in its sums). Out of line: the sums' arrays, indexed by row here,
 * would otherwise sit on the stack on the common path too. */
static __attribute__((noinline)) void outer_rest(const ap_qgemm *g, const __m256i *lo,
                                                 const __m256i *hi, int32_t rows, int32_t c,
                                                 int8_t *out, size_t out_stride) {
  if (c + 16 > g->n) {
    outer_store(g, lo, rows, c, out, out_stride);
    outer_store(g, hi, rows, c + 8, out, out_stride);
    return;
  }
  __m256i off16 = _mm256_set1_epi16((int16_t)g->out_off);
  __m128i lo8 = _mm_set1_epi8((int8_t)g->act_min), hi8 = _mm_set1_epi8((int8_t)g->act_max);
  if (rq8_right0(g->shift + c)) {                       /* multipliers below one: no left shift */
    rq8 q0 = rq8_load_right(g->mult + c, g->shift + c); /* (the sums hold the bias) */
    rq8 q1 = rq8_load_right(g->mult + c + 8, g->shift + c + 8);
    for (int32_t i = 0; i < rows; i++)
      _mm_storeu_si128((__m128i *)(out + (size_t)i * out_stride + (size_t)c),
                       rq16_bytes(rq8_mul0(lo[i], &q0), rq8_mul0(hi[i], &q1), off16, lo8, hi8));
    return;
  }
  rq8 q0 = rq8_load(g->mult + c, g->shift + c, NULL); /* (the sums hold the bias) */
  rq8 q1 = rq8_load(g->mult + c + 8, g->shift + c + 8, NULL);
  if (rq8_left0(&q0) && rq8_left0(&q1)) /* (shifts of INT32_MIN: right shifts of 0) */
    for (int32_t i = 0; i < rows; i++)
      _mm_storeu_si128((__m128i *)(out + (size_t)i * out_stride + (size_t)c),
                       rq16_bytes(rq8_mul0(lo[i], &q0), rq8_mul0(hi[i], &q1), off16, lo8, hi8));
  else
    for (int32_t i = 0; i < rows; i++)
      _mm_storeu_si128((__m128i *)(out + (size_t)i * out_stride + (size_t)c),
                       rq16_bytes(rq8_mul(lo[i], &q0), rq8_mul(hi[i], &q1), off16, lo8, hi8));
}

/* The outer kit's product over rows given as runs: row i's pairs [s run2, (s + 1) run2) at
 * x[4 s + i] (nseg runs, nseg run2 = the packing's (k + 1) / 2 pairs). One run is a row of a;
 * a convolution's window (win16_avx2.c) gives a filter row's taps as one run where they lie in
 * a widened input row, with no patch built. */
/* outer_runs for a single row (a product's last when m % 4 == 1: a 7x7 map's 49th pixel), as
 * the four-row tile would compute it for its row 0: 7 instructions a pair instead of 22. */
static void outer_row1(const ap_qgemm *g, const int16_t *const *x, int32_t nseg, int32_t run2,
                       int8_t *out, size_t out_stride) {
  int32_t k2 = nseg * run2, blocks = (g->n + 15) / 16;
  for (int32_t bl = 0; bl < blocks; bl++) {
    const int16_t *b = (const int16_t *)g->packed + (size_t)bl * k2 * 32;
    int32_t c = bl * 16;
    bool whole = c + 16 <= g->n; /* (else no bias in the sums: outer_store adds it) */
    __m256i s0 =
        whole ? _mm256_loadu_si256((const __m256i *)(g->col_bias + c)) : _mm256_setzero_si256();
    __m256i s1 =
        whole ? _mm256_loadu_si256((const __m256i *)(g->col_bias + c + 8)) : _mm256_setzero_si256();
    for (int32_t sg = 0; sg < nseg; sg++, b += (size_t)run2 * 32) {
      const int16_t *r = x[4 * sg];
      for (int32_t j = 0; j < run2; j++) {
        __m256i p = pair(r, j);
        AP_MADD_ACC(s0, p, _mm256_loadu_si256((const __m256i *)(b + (size_t)j * 32)));
        AP_MADD_ACC(s1, p, _mm256_loadu_si256((const __m256i *)(b + (size_t)j * 32 + 16)));
      }
    }
    if (g->n - c <= 8) /* (the upper 8 lanes' weights are zeros) */
      outer_store(g, &s0, 1, c, out, out_stride);
    else
      outer_rest(g, &s0, &s1, 1, c, out, out_stride);
  }
}

void ap_fast_avx2_outer_runs(const ap_qgemm *g, const int16_t *const *x, int32_t nseg, int32_t run2,
                             int32_t rows, int8_t *out, size_t out_stride) {
  if (rows == 1) {
    outer_row1(g, x, nseg, run2, out, out_stride);
    return;
  }
  int32_t k2 = nseg * run2, blocks = (g->n + 15) / 16;
  const int16_t *packed = g->packed;
  /* The requantization's constants once a call (per block, gcc built them again each time). */
  const __m256i off16 = _mm256_set1_epi16((int16_t)g->out_off),
                lo32 = _mm256_set1_epi8((int8_t)g->act_min),
                hi32 = _mm256_set1_epi8((int8_t)g->act_max);
  for (int32_t bl = 0; bl < blocks; bl++) {
    const int16_t *b = packed + (size_t)bl * k2 * 32;
    int32_t c = bl * 16;
    if (g->n - c <= 8) { /* the block's upper 8 channels are all past n: half the work */
      half_block(g, b, x, nseg, run2, rows, c, out, out_stride);
      continue;
    }
    /* A whole block's sums start at their bias (added once, not at each row's requantization). */
    bool whole = c + 16 <= g->n;
    __m256i s00 =
        whole ? _mm256_loadu_si256((const __m256i *)(g->col_bias + c)) : _mm256_setzero_si256();
    __m256i s01 =
        whole ? _mm256_loadu_si256((const __m256i *)(g->col_bias + c + 8)) : _mm256_setzero_si256();
    __m256i s10 = s00, s11 = s01, s20 = s00, s21 = s01, s30 = s00, s31 = s01;
    /* Four pairs a step (the loop's own instructions once for four), the sums pinned to their
     * registers (AP_MADD_ACC), then the pairs left one at a time. */
#define AP_OUTER_STEP(J)                                                                           \
  do {                                                                                             \
    __m256i b0 = _mm256_loadu_si256((const __m256i *)(b + (size_t)(J)*32));                        \
    __m256i b1 = _mm256_loadu_si256((const __m256i *)(b + (size_t)(J)*32 + 16));                   \
    __m256i x0 = pair(r0, J), x1 = pair(r1, J), x2 = pair(r2, J), x3 = pair(r3, J);                \
    AP_MADD_4X2_PINNED(x0, x1, x2, x3, b0, b1);                                                    \
  } while (0)
    for (int32_t sg = 0; sg < nseg; sg++, b += (size_t)run2 * 32) {
      const int16_t *r0 = x[4 * sg], *r1 = x[4 * sg + 1], *r2 = x[4 * sg + 2], *r3 = x[4 * sg + 3];
      int32_t j = 0;
      for (; j + 4 <= run2; j += 4) {
        AP_OUTER_STEP(j);
        AP_OUTER_STEP(j + 1);
        AP_OUTER_STEP(j + 2);
        AP_OUTER_STEP(j + 3);
      }
      for (; j < run2; j++)
        AP_OUTER_STEP(j);
    }
#undef AP_OUTER_STEP
    if (!whole || rows != 4 || !rq8_right0(g->shift + c)) {
      __m256i lo[4] = {s00, s10, s20, s30}, hi[4] = {s01, s11, s21, s31};
      outer_rest(g, lo, hi, rows, c, out, out_stride);
      continue;
    }
    /* A whole block of four rows, multipliers below one (no left shift): rows in twos
     * (rq32_bytes), 16 outputs a row in one store. */
    rq8 q0 = rq8_load_right(g->mult + c, g->shift + c); /* (the sums hold the bias) */
    rq8 q1 = rq8_load_right(g->mult + c + 8, g->shift + c + 8);
    int8_t *o = out + (size_t)c;
    rq32_store(o, out_stride,
               rq32_bytes(rq8_mul0(s00, &q0), rq8_mul0(s01, &q1), rq8_mul0(s10, &q0),
                          rq8_mul0(s11, &q1), off16, lo32, hi32),
               2);
    rq32_store(o + 2 * out_stride, out_stride,
               rq32_bytes(rq8_mul0(s20, &q0), rq8_mul0(s21, &q1), rq8_mul0(s30, &q0),
                          rq8_mul0(s31, &q1), off16, lo32, hi32),
               2);
  }
}

static void outer_gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc_ws, int8_t *out,
                       size_t out_stride) {
  (void)acc_ws;
  size_t kp = ap_fast_avx2_arow_bytes(g->k) / 2;
  const int16_t *x[4];
  for (int i = 0; i < 4; i++)
    x[i] = (const int16_t *)a + (size_t)(i < rows ? i : 0) * kp;
  ap_fast_avx2_outer_runs(g, x, 1, (g->k + 1) / 2, rows, out, out_stride);
}

const ap_gemm_kit ap_fast_avx2_outer = {4,
                                        ap_fast_avx2_outer_bytes,
                                        ap_fast_avx2_outer_pack,
                                        ap_fast_avx2_arow_bytes,
                                        ap_fast_avx2_arow,
                                        outer_gemm,
                                        NULL};

const ap_fast_level ap_fast_avx2 = {
    .name = "avx2",
    .level = AP_SIMD_AVX2,
    .gemm = {.mr = 4,
             .packed_bytes = packed_bytes,
             .pack = pack,
             .arow_bytes = ap_fast_avx2_arow_bytes,
             .arow = ap_fast_avx2_arow,
             .gemm = gemm},
    .outer = &ap_fast_avx2_outer,
    /* From a 7x7 map up: measured (mobilenet_v2_torch_int8's 7x7 1x1 convolutions, m = 49, k
     * 160 to 960) the packed product beat the in-place one by 15-25 % including its packing;
     * at a 6x6 map (vww, m = 36, k = 128) the in-place one was 3 % faster. AVX-512's in-place
     * product is the faster one there (128 kept). */
    .outer_min_m = 48,
    .outer_max_bytes = 1u << 20,
    .dw = ap_fast_avx2_dw,
    .fc = ap_fast_avx2_fc_rows,
    .add = ap_fast_avx2_add,
    .fconv = ap_fast_avx2_fconv,
    .fadd = ap_fast_avx2_fadd,
    /* -- int8speed -- */
    /* -- float -- */
    .fbin = ap_fast_avx2_fbin,
    .fpool = ap_fast_avx2_fpool,
    .fdw = ap_fast_avx2_fdw,
    .ffc = ap_fast_avx2_ffc,
    .fconv_pack = ap_fast_avx2_fconv_pack,
    /* -- fastops -- */
    .ops = &ap_fastops_avx2,
    /* -- stream3 -- */
};
#else
typedef int ap_fast_avx2_unused; /* x86-64 only */
#endif
