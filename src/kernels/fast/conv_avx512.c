/* The AVX-512 level's direct convolution (conv_win.h): 16 output channels per 512-bit vector,
 * weights packed [16-channel block][tap][input quad][16 channels][4 bytes], so one broadcast
 * quad of a pixel's window bytes times one vector of weights is vpdpbusd's 64 products into 16
 * sums. A tile holds 1, 2 or 4 blocks of channels for 8, 8 or 4 pixels in registers (no
 * horizontal sums, no patch copies); requantization is the reference's, 16 lanes at a time. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/conv_win.h"
#include "kernels/fast/requant_avx512.h"

#include <string.h>

static size_t packed_bytes(int32_t n, int32_t taps, int32_t cq) {
  return ((size_t)n + 15) / 16 * (size_t)taps * (size_t)cq * 64;
}

/* Sixteen channels of rows w (k bytes apart, k a multiple of 16), quads [0, kq) with kq a
 * multiple of 4, into the block at dst; returns the 16 channels' weight sums. */
static __m512i pack_block16(const int8_t *w, size_t k, size_t kq, int8_t *dst) {
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i sum = _mm512_setzero_si512();
  for (size_t qq = 0; qq < kq; qq += 4) {
    __m512i z[4];
    for (int g = 0; g < 4; g++) { /* lane L of z[g]: channel g + 4L's 16 bytes */
      __m512i v =
          _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(w + (size_t)g * k + qq * 4)));
      v = _mm512_inserti32x4(
          v, _mm_loadu_si128((const __m128i *)(w + (size_t)(g + 4) * k + qq * 4)), 1);
      v = _mm512_inserti32x4(
          v, _mm_loadu_si128((const __m128i *)(w + (size_t)(g + 8) * k + qq * 4)), 2);
      z[g] = _mm512_inserti32x4(
          v, _mm_loadu_si128((const __m128i *)(w + (size_t)(g + 12) * k + qq * 4)), 3);
    }
    /* A 4x4 transpose of quads in each 128-bit lane: t[v] lane L position i = channel 4L + i's
     * quad qq + v. */
    __m512i a = _mm512_unpacklo_epi32(z[0], z[1]), b = _mm512_unpackhi_epi32(z[0], z[1]);
    __m512i c = _mm512_unpacklo_epi32(z[2], z[3]), d = _mm512_unpackhi_epi32(z[2], z[3]);
    __m512i t[4] = {_mm512_unpacklo_epi64(a, c), _mm512_unpackhi_epi64(a, c),
                    _mm512_unpacklo_epi64(b, d), _mm512_unpackhi_epi64(b, d)};
    for (int v = 0; v < 4; v++) {
      _mm512_storeu_si512((void *)(dst + (qq + (size_t)v) * 64), t[v]);
      sum = _mm512_dpbusd_epi32(sum, ones, t[v]);
    }
  }
  return sum;
}

static void pack(const int8_t *w, int32_t n, int32_t taps, int32_t c, int32_t cq,
                 const int32_t *bias, int32_t in_off, void *packed, int32_t *col_bias) {
  int8_t *p = packed;
  size_t kq = (size_t)taps * (size_t)cq, k = (size_t)taps * (size_t)c, block = kq * 64;
  int32_t blocks = (n + 15) / 16, c0 = 0;
  uint32_t sums[16];
  if (c % 4 == 0 && k % 16 == 0) /* whole blocks by vectors */
    for (; c0 + 16 <= n; c0 += 16) {
      _mm512_storeu_si512((void *)sums,
                          pack_block16(w + (size_t)c0 * k, k, kq, p + (size_t)(c0 / 16) * block));
      for (int i = 0; i < 16; i++)
        col_bias[c0 + i] =
            (int32_t)((uint32_t)(bias ? bias[c0 + i] : 0) + (uint32_t)(in_off - 128) * sums[i]);
    }
  if (c0 < n && c < 4) { /* one quad per tap (an image's or a spectrogram's channels) */
    if (n % 16)          /* the lanes past n */
      memset(p + (size_t)(blocks - 1) * block, 0, block);
    for (int32_t ch = c0; ch < n; ch++) {
      const int8_t *row = w + (size_t)ch * k;
      int8_t *dst = p + (size_t)(ch / 16) * block + (size_t)(ch % 16) * 4;
      uint32_t sum = 0;
      for (int32_t t = 0; t < taps; t++, row += c, dst += 64) {
        uint32_t q = 0; /* built in a register: byte stores then a dword load would stall */
        for (int32_t i = 0; i < c; i++) {
          q |= (uint32_t)(uint8_t)row[i] << (8 * i);
          sum += (uint32_t)(int32_t)row[i];
        }
        memcpy(dst, &q, 4);
      }
      col_bias[ch] = (int32_t)((uint32_t)(bias ? bias[ch] : 0) + (uint32_t)(in_off - 128) * sum);
    }
    return;
  }
  if (c0 < n) /* the rest: zeros past c and past n */
    memset(p + (size_t)(c0 / 16) * block, 0, (size_t)(blocks - c0 / 16) * block);
  for (int32_t ch = c0; ch < n; ch++) {
    const int8_t *row = w + (size_t)ch * k;
    int8_t *dst = p + (size_t)(ch / 16) * block + (size_t)(ch % 16) * 4;
    uint32_t sum = 0;
    for (int32_t t = 0; t < taps; t++)
      for (int32_t i = 0; i < c; i++) {
        int8_t v = row[(size_t)t * c + i];
        dst[((size_t)t * cq + (size_t)(i / 4)) * 64 + (size_t)(i % 4)] = v;
        sum += (uint32_t)(int32_t)v;
      }
    col_bias[ch] = (int32_t)((uint32_t)(bias ? bias[ch] : 0) + (uint32_t)(in_off - 128) * sum);
  }
}

/* The constants of the 16 channels from c (lanes past n: zeros). */
static inline void rq_load(rq16 *r, __mmask16 *lanes, const ap_qconv *q, int32_t c) {
  int32_t left = q->n - c;
  *lanes = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
  rq_set(r, _mm512_maskz_loadu_epi32(*lanes, q->col_bias + c),
         _mm512_maskz_loadu_epi32(*lanes, q->mult + c),
         _mm512_maskz_loadu_epi32(*lanes, q->shift + c));
}

/* NB blocks of channels (from block b0) for MR pixels, of which `rows` are real (the others
 * repeat the last one and are not stored). */
static inline __attribute__((always_inline)) void tile(const int NB, const int MR,
                                                       const ap_qconv *q, int32_t b0,
                                                       const uint8_t *win, const ptrdiff_t *toff,
                                                       size_t step, int32_t rows, int8_t *out,
                                                       const rq16 *r, const __mmask16 *lanes) {
  __m512i acc[4][8];
#pragma GCC unroll 4
  for (int j = 0; j < NB; j++)
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
      acc[j][i] = _mm512_setzero_si512();
  size_t kq = (size_t)q->taps * (size_t)q->cq, block = kq * 64;
  const int8_t *w = (const int8_t *)q->packed + (size_t)b0 * block;
  const uint8_t *px[8];
#pragma GCC unroll 8
  for (int i = 0; i < MR; i++)
    px[i] = win + (size_t)(i < rows ? i : rows - 1) * step;
  for (int32_t t = 0; t < q->taps; t++) {
    ptrdiff_t o = toff[t];
    for (int32_t qq = 0; qq < q->cq; qq++, o += 4, w += 64) {
      __m512i wv[4];
#pragma GCC unroll 4
      for (int j = 0; j < NB; j++)
        wv[j] = _mm512_loadu_si512((const void *)(w + (size_t)j * block));
#pragma GCC unroll 8
      for (int i = 0; i < MR; i++) {
        int32_t quad;
        memcpy(&quad, px[i] + o, 4);
        __m512i x = _mm512_set1_epi32(quad);
#pragma GCC unroll 4
        for (int j = 0; j < NB; j++)
          acc[j][i] = _mm512_dpbusd_epi32(acc[j][i], x, wv[j]);
      }
    }
  }
  const __m512i off = _mm512_set1_epi32(q->out_off), lo = _mm512_set1_epi32(q->act_min),
                hi = _mm512_set1_epi32(q->act_max);
#pragma GCC unroll 8
  for (int i = 0; i < MR; i++)
    if (i < rows)
#pragma GCC unroll 4
      for (int j = 0; j < NB; j++)
        _mm_mask_storeu_epi8(out + (size_t)i * q->n + (size_t)(b0 + j) * 16, lanes[j],
                             requant16(acc[j][i], &r[j], off, lo, hi));
}

static inline __attribute__((always_inline)) void tiles(const int NB, const int MR,
                                                        const ap_qconv *q, int32_t b0,
                                                        const uint8_t *win, const ptrdiff_t *toff,
                                                        int32_t count, size_t step, int8_t *out) {
  rq16 r[4];
  __mmask16 lanes[4];
  for (int j = 0; j < NB; j++)
    rq_load(&r[j], &lanes[j], q, (b0 + j) * 16);
  for (int32_t p = 0; p < count; p += MR)
    tile(NB, MR, q, b0, win + (size_t)p * step, toff, step, count - p < MR ? count - p : MR,
         out + (size_t)p * q->n, r, lanes);
}

static void tiles4(const ap_qconv *q, int32_t b0, const uint8_t *win, const ptrdiff_t *toff,
                   int32_t count, size_t step, int8_t *out) {
  tiles(4, 4, q, b0, win, toff, count, step, out);
}
static void tiles2(const ap_qconv *q, int32_t b0, const uint8_t *win, const ptrdiff_t *toff,
                   int32_t count, size_t step, int8_t *out) {
  tiles(2, 8, q, b0, win, toff, count, step, out);
}
static void tiles1(const ap_qconv *q, int32_t b0, const uint8_t *win, const ptrdiff_t *toff,
                   int32_t count, size_t step, int8_t *out) {
  tiles(1, 8, q, b0, win, toff, count, step, out);
}

static void run(const ap_qconv *q, const uint8_t *win, const ptrdiff_t *toff, int32_t count,
                size_t step, int8_t *out) {
  int32_t blocks = (q->n + 15) / 16, b = 0;
  for (; b + 4 <= blocks; b += 4)
    tiles4(q, b, win, toff, count, step, out);
  for (; b + 2 <= blocks; b += 2)
    tiles2(q, b, win, toff, count, step, out);
  for (; b < blocks; b++)
    tiles1(q, b, win, toff, count, step, out);
}

void ap_fast_avx512_fill(uint8_t *dst, const int8_t *src, int32_t pixels, int32_t c, int32_t cp) {
  const __m512i flip = _mm512_set1_epi8((char)0x80);
  if (c == cp) {
    size_t n = (size_t)pixels * (size_t)c, i = 0;
    for (; i + 64 <= n; i += 64)
      _mm512_storeu_si512((void *)(dst + i),
                          _mm512_xor_si512(_mm512_loadu_si512((const void *)(src + i)), flip));
    if (i < n) {
      __mmask64 m = ((__mmask64)1 << (n - i)) - 1;
      _mm512_mask_storeu_epi8(dst + i, m,
                              _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, src + i), flip));
    }
    return;
  }
  if (c == 3 && cp == 4) { /* an image's pixels: 4 at a time, 12 bytes spread to 16 */
    const __m128i spread = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
    const __m128i flip3 = _mm_set1_epi32(0x808080);
    for (int32_t i = 0; i < pixels; i += 4) {
      int32_t k = pixels - i < 4 ? pixels - i : 4;
      __m128i v = _mm_maskz_loadu_epi8((__mmask16)((1u << (3 * k)) - 1), src + (size_t)i * 3);
      _mm_mask_storeu_epi8(dst + (size_t)i * 4, (__mmask16)((1u << (4 * k)) - 1),
                           _mm_xor_si128(_mm_shuffle_epi8(v, spread), flip3));
    }
    return;
  }
  for (int32_t i = 0; i < pixels; i++, src += c, dst += cp) { /* channels padded with zeros */
    for (int32_t k = 0; k < cp; k += 64) {
      int32_t have = c - k < 0 ? 0 : c - k < 64 ? c - k : 64, want = cp - k < 64 ? cp - k : 64;
      __mmask64 hm = have >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << have) - 1;
      __mmask64 wm = want >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << want) - 1;
      __m512i v = _mm512_maskz_xor_epi32(~(__mmask16)0, _mm512_maskz_loadu_epi8(hm, src + k),
                                         _mm512_maskz_mov_epi8(hm, flip));
      _mm512_mask_storeu_epi8(dst + k, wm, v);
    }
  }
}

const ap_conv_kit ap_fast_avx512_conv = {packed_bytes, pack, run, ap_fast_avx512_fill, 16};
#else
typedef int ap_fast_conv_avx512_unused; /* x86-64 only */
#endif
