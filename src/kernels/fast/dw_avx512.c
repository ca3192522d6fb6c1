/* The AVX-512 level's depthwise convolution over windows (conv_win.h): 64 bytes of channels at
 * a time, four taps of a filter row per vpdpbusd. The window bytes of taps fx..fx+3 are
 * interleaved by two rounds of byte and word unpacks into four vectors whose int32 lanes hold
 * one channel's four taps; lane i of 128-bit lane L of vector j is byte 16L + 4j + i of the 64,
 * so the weights and the requantization constants are packed in that order, and the four
 * results are put back in byte order by a 4x4 transpose of dwords before the store. With fewer
 * than 64 channels, a divisor of 64, the 64 bytes are 64 / c whole pixels (read in one load when
 * the stride is 1), so narrow layers fill the vectors too. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/conv_win.h"
#include "kernels/fast/requant_avx512.h"

#include <string.h>

/* Per 64-channel block: f_h x groups x 4 vectors of weights, then 4 x 7 vectors of rq16. */
static size_t wvecs(int32_t f_h, int32_t f_w) {
  return (size_t)f_h * (size_t)((f_w + 3) / 4) * 4;
}

static size_t packed_bytes(int32_t c, int32_t f_h, int32_t f_w) {
  return ((size_t)c + 63) / 64 * (wvecs(f_h, f_w) + 4 * 7) * 64;
}

static void pack(const int8_t *f, int32_t c, int32_t f_h, int32_t f_w, const int32_t *bias,
                 int32_t in_off, const int32_t *mult, const int32_t *shift, void *packed) {
  int32_t blocks = (c + 63) / 64, groups = (f_w + 3) / 4;
  size_t nw = wvecs(f_h, f_w), block = (nw + 28) * 64;
  bool grouped = 64 % c == 0; /* c < 64: whole pixels in 64 bytes */
  uint8_t *p = packed;
  for (int32_t b = 0; b < blocks; b++) {
    int8_t *w = (int8_t *)(p + (size_t)b * block);
    memset(w, 0, nw * 64);
    _Alignas(64) int32_t cb[4][16] = {{0}}, m[4][16] = {{0}}, sh[4][16] = {{0}};
    for (int32_t r = 0; r < 64 && (grouped || b * 64 + r < c); r++) {
      int32_t ch = grouped ? r % c : b * 64 + r, j = r % 16 / 4, lane = r / 16 * 4 + r % 4;
      uint32_t sum = 0;
      for (int32_t fy = 0; fy < f_h; fy++)
        for (int32_t fx = 0; fx < f_w; fx++) {
          int8_t v = f[((size_t)fy * f_w + fx) * c + ch];
          w[(((size_t)fy * groups + fx / 4) * 4 + j) * 64 + (size_t)lane * 4 + fx % 4] = v;
          sum += (uint32_t)(int32_t)v;
        }
      cb[j][lane] = (int32_t)((uint32_t)(bias ? bias[ch] : 0) + (uint32_t)(in_off - 128) * sum);
      m[j][lane] = mult[ch];
      sh[j][lane] = shift[ch];
    }
    rq16 *rq = (rq16 *)(void *)(p + (size_t)b * block + nw * 64);
    for (int j = 0; j < 4; j++) {
      rq16 t;
      rq_set(&t, _mm512_load_si512(cb[j]), _mm512_load_si512(m[j]), _mm512_load_si512(sh[j]));
      memcpy(&rq[j], &t, sizeof t);
    }
  }
}

/* Tap t of the 64 / c pixels from px, step bytes apart (the last one repeated past `have`). */
static inline __m512i gather(const uint8_t *px, ptrdiff_t t, size_t step, int32_t c, int32_t have) {
  int32_t per = 64 / c;
  const uint8_t *at[64];
  for (int32_t k = 0; k < per; k++)
    at[k] = px + (size_t)(k < have ? k : have - 1) * step + t;
  if (c == 32)
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)at[0])),
                              _mm256_loadu_si256((const __m256i *)at[1]), 1);
  if (c == 16) {
    __m512i v = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)at[0]));
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)at[1]), 1);
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)at[2]), 2);
    return _mm512_inserti32x4(v, _mm_loadu_si128((const __m128i *)at[3]), 3);
  }
  _Alignas(64) uint8_t buf[64];
  for (int32_t k = 0; k < per; k++)
    memcpy(buf + k * c, at[k], (size_t)c);
  return _mm512_load_si512(buf);
}

static void run(const ap_qconv *q, const uint8_t *win, const ptrdiff_t *toff, int32_t count,
                size_t step, int8_t *out) {
  int32_t c = q->n, f_w = q->cq, f_h = q->taps / f_w, groups = (f_w + 3) / 4;
  int32_t blocks = (c + 63) / 64;
  bool grouped = 64 % c == 0, contiguous = grouped && step == (size_t)c;
  int32_t per = grouped ? 64 / c : 1; /* pixels per vector */
  size_t nw = wvecs(f_h, f_w), block = (nw + 28) * 64;
  const __m512i off = _mm512_set1_epi32(q->out_off), lo = _mm512_set1_epi32(q->act_min),
                hi = _mm512_set1_epi32(q->act_max), zero = _mm512_setzero_si512();
  for (int32_t b = 0; b < blocks; b++) {
    const uint8_t *pk = (const uint8_t *)q->packed + (size_t)b * block;
    const __m512i *wv = (const __m512i *)(const void *)pk;
    rq16 rq[4];
    memcpy(rq, pk + nw * 64, sizeof rq);
    for (int32_t p = 0; p < count; p += per) {
      int32_t have = count - p < per ? count - p : per;
      int32_t bytes = grouped ? have * c : (c - b * 64 < 64 ? c - b * 64 : 64);
      __mmask64 cm = bytes >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << bytes) - 1;
      const uint8_t *px = win + (size_t)p * step + (size_t)b * 64;
      __m512i acc0 = zero, acc1 = zero, acc2 = zero, acc3 = zero;
      const __m512i *w = wv;
      for (int32_t fy = 0; fy < f_h; fy++)
        for (int32_t g = 0; g < groups; g++, w += 4) {
          const ptrdiff_t *t = toff + fy * f_w + g * 4;
          int32_t nt = f_w - g * 4;
          __m512i x[4] = {zero, zero, zero, zero};
          for (int32_t k = 0; k < 4 && k < nt; k++)
            x[k] = grouped && !contiguous ? gather(px, t[k], step, c, have)
                                          : _mm512_maskz_loadu_epi8(cm, px + t[k]);
          __m512i lo01 = _mm512_unpacklo_epi8(x[0], x[1]), hi01 = _mm512_unpackhi_epi8(x[0], x[1]);
          __m512i lo23 = _mm512_unpacklo_epi8(x[2], x[3]), hi23 = _mm512_unpackhi_epi8(x[2], x[3]);
          acc0 = _mm512_dpbusd_epi32(acc0, _mm512_unpacklo_epi16(lo01, lo23), w[0]);
          acc1 = _mm512_dpbusd_epi32(acc1, _mm512_unpackhi_epi16(lo01, lo23), w[1]);
          acc2 = _mm512_dpbusd_epi32(acc2, _mm512_unpacklo_epi16(hi01, hi23), w[2]);
          acc3 = _mm512_dpbusd_epi32(acc3, _mm512_unpackhi_epi16(hi01, hi23), w[3]);
        }
      __m128i r0 = requant16(acc0, &rq[0], off, lo, hi), r1 = requant16(acc1, &rq[1], off, lo, hi);
      __m128i r2 = requant16(acc2, &rq[2], off, lo, hi), r3 = requant16(acc3, &rq[3], off, lo, hi);
      /* Dword L of r_j is bytes 16L + 4j .. +3: a 4x4 transpose of dwords. */
      __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpackhi_epi32(r0, r1);
      __m128i t2 = _mm_unpacklo_epi32(r2, r3), t3 = _mm_unpackhi_epi32(r2, r3);
      __m512i v = _mm512_castsi128_si512(_mm_unpacklo_epi64(t0, t2));
      v = _mm512_inserti32x4(v, _mm_unpackhi_epi64(t0, t2), 1);
      v = _mm512_inserti32x4(v, _mm_unpacklo_epi64(t1, t3), 2);
      v = _mm512_inserti32x4(v, _mm_unpackhi_epi64(t1, t3), 3);
      _mm512_mask_storeu_epi8(out + (size_t)p * c + (size_t)b * 64, cm, v);
    }
  }
}

const ap_dw_kit ap_fast_avx512_dw = {packed_bytes, pack, run};
#else
typedef int ap_fast_dw_avx512_unused; /* x86-64 only */
#endif
