/* The AVX-512 level's depthwise (the level's `dw`: rows of the whole tensor and a segment's
 * depthwise where the window kit cannot keep its packing): the AVX2 kernel's scheme, 16 channels
 * per vector. Taps go in pairs through vpdpwssd: 16 channels of two taps, bytes interleaved then
 * widened (input + offset, in [-255, 255]), against the weights interleaved the same way in ws
 * (built at each call: as many bytes as the AVX2 kernel's, ap_fast_dw_ws); int16 products summed
 * into int32 lanes without saturation, so the sums wrap modulo 2^32 as the reference's. A tap
 * outside the input reads a row of zero points, whose offset input is 0. The requantization is
 * requant_avx512.h's, its constants set once per call for every block (at most 16 blocks: 256
 * channels; more, and channel counts not multiples of 16, take the AVX2 kernel). */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/dw_taps.h"
#include "kernels/fast/requant_avx512.h"
#include "kernels/kops_stream6.h"

#include <string.h>

enum { MAX_BLOCKS = 16, MAX_TAPS = 64 };

/* 16 channels of taps a and b (bytes at pa, pb), interleaved per channel and widened. */
static inline __m512i pairs16(const int8_t *pa, const int8_t *pb) {
  __m128i a = _mm_loadu_si128((const __m128i *)pa), b = _mm_loadu_si128((const __m128i *)pb);
  __m256i ab = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi8(a, b)),
                                       _mm_unpackhi_epi8(a, b), 1);
  return _mm512_cvtepi8_epi16(ab);
}

void ap_fast_avx512_dwrows(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws) {
  int32_t C = d->out_d, taps = d->f_h * d->f_w, blocks = C / 16, pairs = (taps + 1) / 2;
  if (d->mult != 1 || C % 16 != 0 || blocks > MAX_BLOCKS || taps > MAX_TAPS) {
    ap_fast_avx2_dw(d, b, oy0, oy1, ws);
    return;
  }
  int16_t *wp = ws;
  int8_t *zp = (int8_t *)ws + (size_t)pairs * (size_t)blocks * 64;
  memset(zp, -d->in_off, (size_t)C + 16);
  for (int32_t q = 0; q < pairs; q++)
    for (int32_t k = 0; k < blocks; k++) {
      const int8_t *f0 = d->f + (size_t)(2 * q) * C + (size_t)k * 16;
      /* the odd tap of the last pair: zero weights (read from the zero points, then cleared) */
      __m512i w = pairs16(f0, 2 * q + 1 < taps ? f0 + C : zp);
      if (2 * q + 1 >= taps) w = _mm512_maskz_mov_epi16((__mmask32)0x55555555u, w);
      _mm512_storeu_si512((void *)(wp + ((size_t)q * blocks + k) * 32), w);
    }
  rq16 r[MAX_BLOCKS];
  for (int32_t k = 0; k < blocks; k++)
    rq_set(&r[k],
           d->bias ? _mm512_loadu_si512((const void *)(d->bias + k * 16)) : _mm512_setzero_si512(),
           _mm512_loadu_si512((const void *)(d->qmult + k * 16)),
           _mm512_loadu_si512((const void *)(d->qshift + k * 16)));
  const __m512i off = _mm512_set1_epi32(d->out_off), lo = _mm512_set1_epi32(d->act_min),
                hi = _mm512_set1_epi32(d->act_max), in16 = _mm512_set1_epi16((int16_t)d->in_off);
  ptrdiff_t inner[MAX_TAPS];
  ap_fast_dw_inner(d, C, inner);
  const int8_t *px[MAX_TAPS + 2];
  const int8_t *in_b = d->in + (size_t)b * d->in_h * d->in_w * C;
  for (int32_t oy = oy0; oy < oy1; oy++)
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int8_t *o = d->out + (((size_t)b * d->out_h + oy) * d->out_w + ox) * C;
      ap_fast_dw_taps(d, in_b, C, inner, zp, oy, ox, px);
      px[taps] = zp;
      for (int32_t k = 0; k < blocks; k++) {
        size_t c = (size_t)k * 16;
        __m512i acc = _mm512_setzero_si512();
        const int16_t *w = wp + (size_t)k * 32;
        for (int32_t q = 0; q < pairs; q++, w += (size_t)blocks * 32)
          acc = _mm512_dpwssd_epi32(
              acc, _mm512_add_epi16(pairs16(px[2 * q] + c, px[2 * q + 1] + c), in16),
              _mm512_loadu_si512((const void *)w));
        _mm_storeu_si128((__m128i *)(o + c), requant16(acc, &r[k], off, lo, hi));
      }
    }
}
#else
typedef int ap_fast_dwrows_avx512_unused; /* x86-64 only */
#endif
