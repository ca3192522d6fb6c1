/* The AVX2 level's int8 depthwise kernel for a depth multiplier of 1 (int8_avx2.c's
 * ap_fast_avx2_dw calls it; the other multipliers stay there). Channels are in lanes, 16 a
 * block: each tap's 16 input bytes widen to int16 (vpmovsxbw from memory) plus the input
 * offset, two taps' vectors interleave (vpunpcklwd / vpunpckhwd: channels 0-3 and 8-11, 4-7 and
 * 12-15) and vpmaddwd sums each channel's two products into an int32 lane, against the weights
 * interleaved the same way at the start of the call (in the task's workspace, as many bytes as
 * the 8-channel layout they replace). A tap outside the input reads a row of zero points, whose
 * offset input is 0: it adds nothing, as the reference's skipped tap. An 8-channel block takes
 * the 8-lane form (bytes interleaved, then widened), the last C % 8 channels scalar code.
 * Products (x + in_off) * w lie in [-255 * 128, 255 * 128], so the int16 pairs are exact; sums
 * wrap as the reference's; requantization is int8_x86.h's, bit for bit. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/dw_taps.h"
#include "kernels/fast/int8_x86.h"

static inline __m256i widen16(const int8_t *p) {
  return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)p));
}

/* The weights of the 16-channel blocks ([block][pair][2 vectors]) and of the 8-channel block
 * after them ([pair][1 vector]); the second tap of an odd count's last pair is 0. */
static void pack_weights(const int8_t *f, int32_t C, int32_t taps, int16_t *wp) {
  int32_t pairs = (taps + 1) / 2, b16 = C / 16;
  const __m128i zero = _mm_setzero_si128();
  for (int32_t k = 0; k < b16; k++)
    for (int32_t q = 0; q < pairs; q++) {
      const int8_t *f0 = f + (size_t)(2 * q) * C + (size_t)k * 16;
      __m256i a = widen16(f0);
      __m256i b = 2 * q + 1 < taps ? widen16(f0 + C) : _mm256_setzero_si256();
      __m256i *dst = (__m256i *)(wp + ((size_t)k * pairs + q) * 32);
      _mm256_storeu_si256(dst, _mm256_unpacklo_epi16(a, b));
      _mm256_storeu_si256(dst + 1, _mm256_unpackhi_epi16(a, b));
    }
  if (C % 16 >= 8) {
    int16_t *w8 = wp + (size_t)b16 * pairs * 32;
    for (int32_t q = 0; q < pairs; q++) {
      const int8_t *f0 = f + (size_t)(2 * q) * C + (size_t)b16 * 16;
      __m128i w0 = _mm_loadl_epi64((const __m128i *)f0);
      __m128i w1 = 2 * q + 1 < taps ? _mm_loadl_epi64((const __m128i *)(f0 + C)) : zero;
      _mm256_storeu_si256((__m256i *)(w8 + (size_t)q * 16),
                          _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(w0, w1)));
    }
  }
}

typedef struct dw_consts {
  __m256i off, lo, hi, vin16;
  /* Folded (below): per channel, the bias plus in_off times the sum of the channel's weights,
   * and the requantization's right shift, its mask and half the mask. */
  const int32_t *fbias, *right, *mask, *half;
} dw_consts;

/* requant8 of int8_x86.h (mulq8v, then offset and clamp) for shifts in [-31, 0] (multipliers
 * below 1, the common case), whose right shift, mask and half the call tabulated: no left shift
 * and no clamps; the rounding threshold (half, plus 1 below zero) as half - (h >> 31), its
 * increment subtracted as the compare's -1. The same value for every input. */
static inline __m256i requant_tab(__m256i x, const ap_qdw *d, const dw_consts *k, size_t c) {
  const __m256i nudge = _mm256_set1_epi64x(1ll << 30);
  __m256i m = _mm256_loadu_si256((const __m256i *)(d->qmult + c));
  __m256i right = _mm256_loadu_si256((const __m256i *)(k->right + c));
  __m256i mask = _mm256_loadu_si256((const __m256i *)(k->mask + c));
  __m256i half = _mm256_loadu_si256((const __m256i *)(k->half + c));
  __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, m), nudge);
  __m256i odd =
      _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(m, 32)), nudge);
  __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
  __m256i thr = _mm256_sub_epi32(half, _mm256_srai_epi32(h, 31));
  __m256i r = _mm256_sub_epi32(_mm256_srav_epi32(h, right),
                               _mm256_cmpgt_epi32(_mm256_and_si256(h, mask), thr));
  return _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(r, k->off), k->lo), k->hi);
}

/* Requantizes channels [c, c + 8) of one pixel and stores them. fold: the sums lack the input
 * offset's products, which the folded bias holds. */
static inline __attribute__((always_inline)) void
finish8(const ap_qdw *d, const dw_consts *k, __m256i acc, size_t c, int8_t *o, bool fold) {
  if (fold) {
    acc = _mm256_add_epi32(acc, _mm256_loadu_si256((const __m256i *)(k->fbias + c)));
    store8(o + c, requant_tab(acc, d, k, c));
    return;
  }
  if (d->bias) acc = _mm256_add_epi32(acc, _mm256_loadu_si256((const __m256i *)(d->bias + c)));
  store8(o + c, requant8(acc, d->qmult + c, d->qshift + c, k->off, k->lo, k->hi));
}

/* Input bytes of one tap (16 channels) as int16, plus the input offset unless folded. */
static inline __m256i tap16(const int8_t *p, const dw_consts *k, bool fold) {
  __m256i x = widen16(p);
  return fold ? x : _mm256_add_epi16(x, k->vin16);
}

/* One pixel's 16-channel block at c: pairs of taps px[2q], px[2q + 1] against w. PAIRS: a
 * constant for the common filters (the loop unrolled, the tap pointers kept in registers across
 * blocks), or 0 for `pairs` at run time. */
static inline __attribute__((always_inline)) void block16(const ap_qdw *d, const dw_consts *k,
                                                          const int8_t *const *px, size_t c,
                                                          const int16_t *w, int32_t pairs,
                                                          int8_t *o, bool fold) {
  __m256i a = _mm256_setzero_si256(), b = a;
#pragma GCC unroll 13
  for (int32_t q = 0; q < pairs; q++, w += 32) {
    __m256i x0 = tap16(px[2 * q] + c, k, fold), x1 = tap16(px[2 * q + 1] + c, k, fold);
    a = _mm256_add_epi32(a, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1),
                                              _mm256_loadu_si256((const __m256i *)w)));
    b = _mm256_add_epi32(b, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1),
                                              _mm256_loadu_si256((const __m256i *)(w + 16))));
  }
  /* a: channels 0-3 and 8-11, b: 4-7 and 12-15 */
  finish8(d, k, _mm256_permute2x128_si256(a, b, 0x20), c, o, fold);
  finish8(d, k, _mm256_permute2x128_si256(a, b, 0x31), c + 8, o, fold);
}

static inline __attribute__((always_inline)) void pixel(const ap_qdw *d, const dw_consts *k,
                                                        const int8_t *const *px, const int16_t *wp,
                                                        int32_t taps, int32_t pairs, int8_t *o,
                                                        bool fold) {
  int32_t C = d->out_d, b16 = C / 16;
  for (int32_t bk = 0; bk < b16; bk++)
    block16(d, k, px, (size_t)bk * 16, wp + (size_t)bk * pairs * 32, pairs, o, fold);
  int32_t c = b16 * 16;
  if (C - c >= 8) {
    const int16_t *w = wp + (size_t)b16 * pairs * 32;
    __m256i acc = _mm256_setzero_si256();
#pragma GCC unroll 13
    for (int32_t q = 0; q < pairs; q++, w += 16) {
      __m128i x0 = _mm_loadl_epi64((const __m128i *)(px[2 * q] + c));
      __m128i x1 = _mm_loadl_epi64((const __m128i *)(px[2 * q + 1] + c));
      __m256i x = _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(x0, x1));
      if (!fold) x = _mm256_add_epi16(x, k->vin16);
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, _mm256_loadu_si256((const __m256i *)w)));
    }
    finish8(d, k, acc, (size_t)c, o, fold);
    c += 8;
  }
  for (; c < C; c++) {
    uint32_t acc = 0;
    for (int32_t t = 0; t < taps; t++)
      acc += (uint32_t)(d->f[(size_t)t * C + c] * (px[t][c] + d->in_off));
    if (d->bias) acc += (uint32_t)d->bias[c];
    o[c] = ap_fast_requant((int32_t)acc, d->qmult[c], d->qshift[c], d->out_off, d->act_min,
                           d->act_max);
  }
}

/* Output rows [oy0, oy1) of batch b with `pairs` (PAIRS when a constant) of taps. Tap
 * pointers: each output row's filter rows once (NULL outside the input); pixels whose window
 * lies inside the input's columns (a range of ox) advance the previous pixel's pointers by
 * the stride, the others take each tap's column or the zero points. */
static inline __attribute__((always_inline)) void
rows(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, const int16_t *wp, const int8_t *zp,
     const dw_consts *k, int32_t fh, int32_t fw, int32_t pairs, bool fold) {
  int32_t C = d->out_d, taps = fh * fw;
  const int8_t *px[66], *row[64];
  const int8_t *in_b = d->in + (size_t)b * d->in_h * d->in_w * C;
  size_t step = (size_t)d->stride_w * C, dx = (size_t)d->dil_w * C;
  /* [lo, hi): the pixels whose columns are all inside */
  int32_t span = d->dil_w * (fw - 1), lo = 0, hi = d->out_w;
  while (lo < hi && lo * d->stride_w - d->pad_w < 0)
    lo++;
  while (hi > lo && (hi - 1) * d->stride_w - d->pad_w + span >= d->in_w)
    hi--;
  px[taps] = zp;
  for (int32_t oy = oy0; oy < oy1; oy++) {
    int8_t *o = d->out + (((size_t)b * d->out_h + oy) * d->out_w) * C;
    int32_t y0 = oy * d->stride_h - d->pad_h;
    bool rows_in = true;
    for (int32_t fy = 0; fy < fh; fy++) {
      int32_t iy = y0 + d->dil_h * fy;
      bool in = iy >= 0 && iy < d->in_h;
      row[fy] = in ? in_b + (size_t)iy * d->in_w * C : NULL;
      rows_in = rows_in && in;
    }
    for (int32_t ox = 0; ox < d->out_w; ox++, o += C) {
      int32_t x0 = ox * d->stride_w - d->pad_w;
      if (rows_in && ox > lo && ox < hi) {
#pragma GCC unroll 25
        for (int32_t t = 0; t < taps; t++)
          px[t] += step;
      } else if (rows_in && ox == lo && lo < hi) {
        for (int32_t fy = 0, t = 0; fy < fh; fy++)
          for (int32_t fx = 0; fx < fw; fx++, t++)
            px[t] = row[fy] + (size_t)x0 * C + (size_t)fx * dx;
      } else {
        for (int32_t fx = 0; fx < fw; fx++) {
          int32_t ix = x0 + d->dil_w * fx;
          bool in = ix >= 0 && ix < d->in_w;
          for (int32_t fy = 0; fy < fh; fy++)
            px[fy * fw + fx] = in && row[fy] ? row[fy] + (size_t)ix * C : zp;
        }
      }
      pixel(d, k, px, wp, taps, pairs, o, fold);
    }
  }
}

/* Channels up to which the input offset is folded into the bias and the requantization
 * tabulated (tables on the stack: 16 bytes a channel). */
enum { FOLD_MAX = 1024 };

void ap_fast_avx2_dw1(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws) {
  int32_t C = d->out_d, taps = d->f_h * d->f_w, pairs = (taps + 1) / 2;
  int16_t *wp = ws;
  int8_t *zp = (int8_t *)ws + (size_t)pairs * (size_t)(C / 8) * 32;
  memset(zp, -d->in_off, (size_t)C);
  pack_weights(d->f, C, taps, wp);
  _Alignas(32) int32_t fbias[FOLD_MAX], right[FOLD_MAX], mask[FOLD_MAX], half[FOLD_MAX];
  dw_consts k = {_mm256_set1_epi32(d->out_off),
                 _mm256_set1_epi32(d->act_min),
                 _mm256_set1_epi32(d->act_max),
                 _mm256_set1_epi16((int16_t)d->in_off),
                 fbias,
                 right,
                 mask,
                 half};
  /* Folding: sum (x + in_off) w = sum x w + in_off sum w (modulo 2^32); a tap outside the input
   * reads the zero points' row, -in_off, whose product cancels its part of in_off sum w, as the
   * reference's skipped tap adds nothing. Only for shifts in [-31, 0] (requant_tab). */
  bool fold = C <= FOLD_MAX;
  for (int32_t c = 0; fold && c < C; c++)
    fold = d->qshift[c] <= 0 && d->qshift[c] >= -31;
  for (int32_t c = 0; fold && c < C; c++) {
    uint32_t sw = 0;
    for (int32_t t = 0; t < taps; t++)
      sw += (uint32_t)d->f[(size_t)t * C + c];
    fbias[c] = (int32_t)((d->bias ? (uint32_t)d->bias[c] : 0u) + (uint32_t)d->in_off * sw);
    right[c] = -d->qshift[c];
    mask[c] = (int32_t)((1u << right[c]) - 1u);
    half[c] = mask[c] >> 1;
  }
  /* the common filters with constant extents: every tap loop unrolled */
  if (d->f_h == 3 && d->f_w == 3 && fold)
    rows(d, b, oy0, oy1, wp, zp, &k, 3, 3, 5, true);
  else if (d->f_h == 5 && d->f_w == 5 && fold)
    rows(d, b, oy0, oy1, wp, zp, &k, 5, 5, 13, true);
  else if (fold)
    rows(d, b, oy0, oy1, wp, zp, &k, d->f_h, d->f_w, pairs, true);
  else
    rows(d, b, oy0, oy1, wp, zp, &k, d->f_h, d->f_w, pairs, false);
}
#else
typedef int ap_fast_dw_avx2_unused; /* x86-64 only */
#endif
