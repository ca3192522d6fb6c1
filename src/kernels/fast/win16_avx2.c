/* A convolution's input rows widened once for the AVX2 outer kit (compiled with -mavx2 on
 * x86-64 only). patch16 builds every output pixel's patch, f_h x f_w x d values, from the
 * input bytes again: a 3x3 convolution widens each input value up to nine times, with the
 * geometry worked out per pixel (a sixth of mlperf_ic_resnet_int8's instructions). Here each
 * input row is widened once, (input + offset) as int16 with the padding's columns 0, into a
 * ring of rows; a filter row's taps (no dilation across) are then one run of f_w d values in
 * its widened row, which the outer kit reads where it lies (ap_fast_avx2_outer_runs). The ring
 * holds every row a group of four pixels reads (their output rows are at most two when
 * out_w >= 4), so no row is widened twice while in use, nor again for the next output row
 * of a stride-1 convolution. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/fast.h"

#include <immintrin.h>
#include <string.h>

/* The widened row's values: the columns the taps reach from the first pixel's (-pad_w) on. */
static size_t row_width(const ap_fast_geom *g) {
  return ((size_t)(g->out_w - 1) * (size_t)g->stride_w + (size_t)g->f_w) * (size_t)g->in_d;
}

/* A row's room: whole blocks of 16 and one spare (the widening's last block may overrun). */
static size_t row_room(const ap_fast_geom *g) {
  return (row_width(g) + 15) / 16 * 16 + 16;
}

size_t ap_fast_win16_bytes(const ap_fast_geom *g, int32_t batch) {
  if (batch != 1 || g->dil_w != 1 || g->out_w < 4 || g->f_h > AP_WIN16_SEGS || g->f_h < 1 ||
      g->f_w < 1 || g->stride_h < 1 || g->stride_w < 1 || g->dil_h < 1 || g->pad_w < 0 ||
      g->pad_h < 0 || (g->f_w * g->in_d) % 2 || g->in_d <= 0)
    return 0;
  int64_t slots = (int64_t)g->stride_h + (int64_t)g->dil_h * (g->f_h - 1) + 1;
  if (slots > AP_WIN16_SLOTS) return 0;
  return (size_t)(slots + 1) * row_room(g) * sizeof(int16_t);
}

void ap_fast_win16_init(ap_fast_win16 *w, const ap_fast_geom *g, const int8_t *in, int32_t in_off,
                        void *buf) {
  w->g = g;
  w->in = in;
  w->in_off = in_off;
  w->room = row_room(g);
  w->slots = g->stride_h + g->dil_h * (g->f_h - 1) + 1;
  w->rows = buf;
  int16_t *zero = w->rows + (size_t)w->slots * w->room;
  const __m256i z = _mm256_setzero_si256();
  for (size_t i = 0; i < w->room; i += 16)
    _mm256_storeu_si256((__m256i *)(zero + i), z);
  w->zero = zero;
  for (int32_t s = 0; s < AP_WIN16_SLOTS; s++)
    w->tag[s] = -1;
  w->row_oy = -1;
}

/* Input row iy widened into dst: pad_w columns of zeros, the input's columns the taps reach
 * (blocks of 16, a short last one through the last 16 bytes or one by one at the input's
 * end), zeros past in_w. Each part is written after the overrun of the one before. */
static void widen_row(const ap_fast_win16 *w, int32_t iy, int16_t *dst) {
  const ap_fast_geom *g = w->g;
  const int32_t d = g->in_d;
  const size_t width = row_width(g), lead = (size_t)g->pad_w * (size_t)d;
  const __m256i z = _mm256_setzero_si256(), off = _mm256_set1_epi16((int16_t)w->in_off);
  for (size_t i = 0; i < lead; i += 16)
    _mm256_storeu_si256((__m256i *)(dst + i), z);
  size_t cols = (size_t)g->in_w, reach = width / (size_t)d - (size_t)g->pad_w;
  if (width / (size_t)d < (size_t)g->pad_w) reach = 0;
  if (cols > reach) cols = reach;
  size_t len = cols * (size_t)d, i = 0;
  const int8_t *src = w->in + (size_t)iy * (size_t)g->in_w * (size_t)d;
  int16_t *o = dst + lead;
  for (; i + 16 <= len; i += 16)
    _mm256_storeu_si256(
        (__m256i *)(o + i),
        _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(src + i))), off));
  if (i < len) {
    if (len >= 16) {
      i = len - 16;
      _mm256_storeu_si256(
          (__m256i *)(o + i),
          _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(src + i))), off));
    } else {
      for (; i < len; i++)
        o[i] = (int16_t)(src[i] + w->in_off);
    }
  }
  for (size_t t = lead + len; t < width; t += 16)
    _mm256_storeu_si256((__m256i *)(dst + t), z);
}

/* Input row iy's widened values from column -pad_w: the zero row outside the input. */
static const int16_t *row_at(ap_fast_win16 *w, int32_t iy) {
  if (iy < 0 || iy >= w->g->in_h) return w->zero;
  int32_t s = iy % w->slots;
  int16_t *dst = w->rows + (size_t)s * w->room;
  if (w->tag[s] != iy) {
    widen_row(w, iy, dst);
    w->tag[s] = iy;
  }
  return dst;
}

/* The filter rows' widened rows for output row oy into w->row (kept for the next group: the
 * rows stay in the ring until a later output row's are looked up, which replaces them here). */
static const int16_t *const *rows_of(ap_fast_win16 *w, int32_t oy) {
  if (oy != w->row_oy) {
    const ap_fast_geom *g = w->g;
    int32_t y0 = oy * g->stride_h - g->pad_h;
    for (int32_t fy = 0; fy < g->f_h; fy++)
      w->row[fy] = row_at(w, y0 + fy * g->dil_h);
    w->row_oy = oy;
  }
  return w->row;
}

void ap_fast_win16_runs(ap_fast_win16 *w, int32_t r, int32_t rows, const int16_t **x) {
  const ap_fast_geom *g = w->g;
  const int32_t f_h = g->f_h, out_w = g->out_w;
  const size_t step = (size_t)g->stride_w * (size_t)g->in_d;
  int32_t ox = r % out_w, oy = r / out_w;
  if (rows == 4 && ox + 4 <= out_w) { /* four pixels of one output row: a vector a filter row */
    const int16_t *const *row = rows_of(w, oy);
    const int64_t s = (int64_t)(step * sizeof(int16_t));
    const __m256i offs = _mm256_setr_epi64x(0, s, 2 * s, 3 * s);
    for (int32_t fy = 0; fy < f_h; fy++)
      _mm256_storeu_si256(
          (__m256i *)(x + 4 * fy),
          _mm256_add_epi64(_mm256_set1_epi64x((int64_t)(intptr_t)(row[fy] + (size_t)ox * step)),
                           offs));
    return;
  }
  for (int32_t i = 0; i < 4; i++) {
    const int16_t *const *row = rows_of(w, oy);
    size_t col = (size_t)ox * step;
    for (int32_t fy = 0; fy < f_h; fy++)
      x[4 * fy + i] = row[fy] + col;
    if (i + 1 < rows && ++ox == out_w) ox = 0, oy++; /* rows past the last: the last's */
  }
}
#else
typedef int ap_fast_win16_unused; /* x86-64 only */
#endif
