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

/* Per 64-byte block: f_h x groups x 4 vectors of weights, then per vector j its 16 lanes'
 * bias (with the offset's correction), multiplier and shift: 12 vectors. */
static size_t wvecs(int32_t f_h, int32_t f_w) {
  return (size_t)f_h * (size_t)((f_w + 3) / 4) * 4;
}

static size_t packed_bytes(int32_t c, int32_t f_h, int32_t f_w) {
  return ((size_t)c + 63) / 64 * (wvecs(f_h, f_w) + 12) * 64;
}

/* The c weights of one tap repeated to 64 bytes (c divides 64). */
static inline __m512i repeat(const int8_t *w, int32_t c) {
  int64_t q = 0;
  int32_t d = 0;
  int16_t h = 0;
  switch (c) {
  case 64: return _mm512_loadu_si512((const void *)w);
  case 32: return _mm512_broadcast_i64x4(_mm256_loadu_si256((const __m256i *)w));
  case 16: return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)w));
  case 8: memcpy(&q, w, 8); return _mm512_set1_epi64(q);
  case 4: memcpy(&d, w, 4); return _mm512_set1_epi32(d);
  case 2: memcpy(&h, w, 2); return _mm512_set1_epi16(h);
  default: return _mm512_set1_epi8(w[0]);
  }
}

/* Channel values by byte r of a 64-byte block, 16 a vector (v[k]: r = 16k .. 16k + 15): the
 * channel r % c when c divides 64, else b * 64 + r, 0 past the channels or without src. */
static void per_r(const int32_t *src, int32_t c, bool grouped, int32_t b, int32_t rest,
                  __m512i v[4]) {
  if (grouped && src) {
    _Alignas(64) int32_t t[64];
    for (int32_t r = 0; r < 64; r += c)
      memcpy(t + r, src, (size_t)c * sizeof *t);
    for (int k = 0; k < 4; k++)
      v[k] = _mm512_load_si512(t + 16 * k);
    return;
  }
  for (int k = 0; k < 4; k++) {
    int32_t n = rest - 16 * k;
    v[k] = !src || n <= 0
               ? _mm512_setzero_si512()
               : _mm512_maskz_loadu_epi32(n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1),
                                          src + (size_t)b * 64 + 16 * (size_t)k);
  }
}

/* run()'s lane order from byte order: lane l of vector j is byte 16 (l / 4) + 4 j + l % 4, so
 * 128-bit lane L of vector j is 128-bit lane j of v[L] (a 4x4 transpose of 128-bit lanes). */
static void lanes_t(__m512i v[4]) {
  __m512i a = _mm512_shuffle_i32x4(v[0], v[1], 0x44), b = _mm512_shuffle_i32x4(v[0], v[1], 0xee);
  __m512i c = _mm512_shuffle_i32x4(v[2], v[3], 0x44), d = _mm512_shuffle_i32x4(v[2], v[3], 0xee);
  v[0] = _mm512_shuffle_i32x4(a, c, 0x88);
  v[1] = _mm512_shuffle_i32x4(a, c, 0xdd);
  v[2] = _mm512_shuffle_i32x4(b, d, 0x88);
  v[3] = _mm512_shuffle_i32x4(b, d, 0xdd);
}

/* Each block's weights interleaved as run() interleaves the window's bytes (the same unpacks),
 * then the bias with the offset's correction, multipliers and shifts in that lane order. */
static void pack_blocks(const int8_t *f, int32_t c, int32_t f_h, int32_t f_w, const int32_t *bias,
                        int32_t in_off, const int32_t *mult, const int32_t *shift, void *packed,
                        int32_t b0, int32_t b1) {
  int32_t groups = (f_w + 3) / 4;
  size_t nw = wvecs(f_h, f_w), block = (nw + 12) * 64;
  bool grouped = 64 % c == 0; /* c < 64: whole pixels in 64 bytes */
  uint8_t *p = packed;
  const __m512i zero = _mm512_setzero_si512();
  for (int32_t b = b0; b < b1; b++) {
    int32_t rest = c - b * 64;
    __mmask64 cm = rest >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << rest) - 1;
    uint8_t *w = p + (size_t)b * block;
    __m512i sum[4] = {zero, zero, zero, zero}; /* bytes 16k .. 16k + 15 in sum[k] */
    for (int32_t fy = 0; fy < f_h; fy++)
      for (int32_t g = 0; g < groups; g++) {
        __m512i x[4];
        for (int32_t t = 0; t < 4; t++) {
          int32_t fx = g * 4 + t;
          const int8_t *row = f + ((size_t)fy * f_w + (size_t)fx) * (size_t)c;
          x[t] = fx >= f_w ? zero
                 : grouped ? repeat(row, c)
                           : _mm512_maskz_loadu_epi8(cm, row + (size_t)b * 64);
          sum[0] = _mm512_add_epi32(sum[0], _mm512_cvtepi8_epi32(_mm512_castsi512_si128(x[t])));
          sum[1] =
              _mm512_add_epi32(sum[1], _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32(x[t], 1)));
          sum[2] =
              _mm512_add_epi32(sum[2], _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32(x[t], 2)));
          sum[3] =
              _mm512_add_epi32(sum[3], _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32(x[t], 3)));
        }
        __m512i lo01 = _mm512_unpacklo_epi8(x[0], x[1]), hi01 = _mm512_unpackhi_epi8(x[0], x[1]);
        __m512i lo23 = _mm512_unpacklo_epi8(x[2], x[3]), hi23 = _mm512_unpackhi_epi8(x[2], x[3]);
        uint8_t *dst = w + ((size_t)fy * groups + (size_t)g) * 4 * 64;
        _mm512_storeu_si512((void *)dst, _mm512_unpacklo_epi16(lo01, lo23));
        _mm512_storeu_si512((void *)(dst + 64), _mm512_unpackhi_epi16(lo01, lo23));
        _mm512_storeu_si512((void *)(dst + 128), _mm512_unpacklo_epi16(hi01, hi23));
        _mm512_storeu_si512((void *)(dst + 192), _mm512_unpackhi_epi16(hi01, hi23));
      }
    __m512i bv[4], mv[4], sv[4];
    per_r(bias, c, grouped, b, rest, bv);
    per_r(mult, c, grouped, b, rest, mv);
    per_r(shift, c, grouped, b, rest, sv);
    const __m512i corr = _mm512_set1_epi32(in_off - 128); /* wraps as the uint32 sum does */
    for (int k = 0; k < 4; k++) /* lanes past the channels: sums of masked-out bytes, 0 */
      bv[k] = _mm512_add_epi32(bv[k], _mm512_mullo_epi32(corr, sum[k]));
    lanes_t(bv);
    lanes_t(mv);
    lanes_t(sv);
    int32_t *rq = (int32_t *)(void *)(w + nw * 64);
    for (int j = 0; j < 4; j++) {
      _mm512_storeu_si512((void *)(rq + j * 48), bv[j]);
      _mm512_storeu_si512((void *)(rq + j * 48 + 16), mv[j]);
      _mm512_storeu_si512((void *)(rq + j * 48 + 32), sv[j]);
    }
  }
}

static void pack(const int8_t *f, int32_t c, int32_t f_h, int32_t f_w, const int32_t *bias,
                 int32_t in_off, const int32_t *mult, const int32_t *shift, void *packed) {
  pack_blocks(f, c, f_h, f_w, bias, in_off, mult, shift, packed, 0, (c + 63) / 64);
}

enum { CONTIG, STRIDE2, GATHER16, GATHER32, GATHER_ANY };

/* Tap t's 64 bytes: pixels' channels in one load (CONTIG, masked to cm); at stride 2, the even
 * pixels of 128 bytes (masked to cm and cm2) picked by one permutation (sel); else 64 / c
 * pixels at the offsets po from px. */
static inline __attribute__((always_inline)) __m512i tap(const int mode, const uint8_t *px,
                                                         ptrdiff_t t, const size_t *po, int32_t c,
                                                         __mmask64 cm, __mmask64 cm2, __m512i sel) {
  px += t;
  if (mode == CONTIG) return _mm512_maskz_loadu_epi8(cm, px);
  if (mode == STRIDE2)
    return _mm512_permutex2var_epi32(_mm512_maskz_loadu_epi8(cm, px), sel,
                                     _mm512_maskz_loadu_epi8(cm2, px + 64));
  if (mode == GATHER32)
    return _mm512_inserti64x4(
        _mm512_castsi256_si512(_mm256_loadu_si256((const void *)(px + po[0]))),
        _mm256_loadu_si256((const void *)(px + po[1])), 1);
  if (mode == GATHER16) {
    __m512i v = _mm512_castsi128_si512(_mm_loadu_si128((const void *)(px + po[0])));
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const void *)(px + po[1])), 1);
    v = _mm512_inserti32x4(v, _mm_loadu_si128((const void *)(px + po[2])), 2);
    return _mm512_inserti32x4(v, _mm_loadu_si128((const void *)(px + po[3])), 3);
  }
  _Alignas(64) uint8_t buf[64] = {0};
  for (int32_t k = 0; k < 64 / c; k++)
    memcpy(buf + k * c, px + po[k], (size_t)c);
  return _mm512_load_si512(buf);
}

/* FW: the filter's width when it is 3 (the common case, one group of taps), else 0. */
static inline __attribute__((always_inline)) void run_mode(const int mode, const int FW,
                                                           const ap_qconv *q, const uint8_t *win,
                                                           const ptrdiff_t *toff, int32_t count,
                                                           size_t step, int8_t *out) {
  int32_t c = q->n, f_w = FW ? FW : q->cq, f_h = q->taps / f_w, groups = (f_w + 3) / 4;
  int32_t blocks = (c + 63) / 64;
  bool grouped = 64 % c == 0;
  int32_t per = grouped ? 64 / c : 1; /* pixels per vector */
  size_t nw = wvecs(f_h, f_w), block = (nw + 12) * 64;
  const __m512i off = _mm512_set1_epi32(q->out_off), lo = _mm512_set1_epi32(q->act_min),
                hi = _mm512_set1_epi32(q->act_max), zero = _mm512_setzero_si512();
  _Alignas(64) int32_t idx[16]; /* STRIDE2: dword d of the result from dword idx[d] of 128 */
  for (int32_t d = 0; d < 16; d++)
    idx[d] = (2 * (d * 4 / c) * c + d * 4 % c) / 4;
  const __m512i sel = _mm512_load_si512(idx);
  for (int32_t b = 0; b < blocks; b++) {
    const uint8_t *pk = (const uint8_t *)q->packed + (size_t)b * block;
    const __m512i *wv = (const __m512i *)(const void *)pk; /* 16-byte aligned: loadu */
    rq16 rq[4];
    const int32_t *rqp = (const int32_t *)(const void *)(pk + nw * 64);
    for (int j = 0; j < 4; j++)
      rq_set(&rq[j], _mm512_loadu_si512(rqp + j * 48), _mm512_loadu_si512(rqp + j * 48 + 16),
             _mm512_loadu_si512(rqp + j * 48 + 32));
    for (int32_t p = 0; p < count; p += per) {
      int32_t have = count - p < per ? count - p : per;
      int32_t bytes = grouped ? have * c : (c - b * 64 < 64 ? c - b * 64 : 64);
      __mmask64 cm = bytes >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << bytes) - 1;
      const uint8_t *px = win + (size_t)p * step + (size_t)b * 64;
      size_t po[64];              /* gathers: pixel k's offset (the last real one repeated) */
      __mmask64 lm = cm, cm2 = 0; /* the loads' masks (cm: the store's) */
      if (mode == STRIDE2) {      /* the bytes of pixels [0, have) at stride 2 */
        int32_t span = (have - 1) * 2 * c + c;
        lm = span >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << span) - 1;
        cm2 = span >= 128 ? ~(__mmask64)0 : span > 64 ? ((__mmask64)1 << (span - 64)) - 1 : 0;
      }
      if (mode != CONTIG && mode != STRIDE2)
        for (int32_t k = 0; k < per; k++)
          po[k] = (size_t)(k < have ? k : have - 1) * step;
      __m512i acc0 = zero, acc1 = zero, acc2 = zero, acc3 = zero;
      const __m512i *w = wv;
      for (int32_t fy = 0; fy < f_h; fy++)
        for (int32_t g = 0; g < groups; g++, w += 4) {
          const ptrdiff_t *t = toff + fy * f_w + g * 4;
          int32_t nt = f_w - g * 4;
          __m512i x0 = tap(mode, px, t[0], po, c, lm, cm2, sel);
          __m512i x1 = nt > 1 ? tap(mode, px, t[1], po, c, lm, cm2, sel) : zero;
          __m512i x2 = nt > 2 ? tap(mode, px, t[2], po, c, lm, cm2, sel) : zero;
          __m512i x3 = nt > 3 ? tap(mode, px, t[3], po, c, lm, cm2, sel) : zero;
          __m512i lo01 = _mm512_unpacklo_epi8(x0, x1), hi01 = _mm512_unpackhi_epi8(x0, x1);
          __m512i lo23 = _mm512_unpacklo_epi8(x2, x3), hi23 = _mm512_unpackhi_epi8(x2, x3);
          acc0 = _mm512_dpbusd_epi32(acc0, _mm512_unpacklo_epi16(lo01, lo23),
                                     _mm512_loadu_si512(w + 0));
          acc1 = _mm512_dpbusd_epi32(acc1, _mm512_unpackhi_epi16(lo01, lo23),
                                     _mm512_loadu_si512(w + 1));
          acc2 = _mm512_dpbusd_epi32(acc2, _mm512_unpacklo_epi16(hi01, hi23),
                                     _mm512_loadu_si512(w + 2));
          acc3 = _mm512_dpbusd_epi32(acc3, _mm512_unpackhi_epi16(hi01, hi23),
                                     _mm512_loadu_si512(w + 3));
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

#define AP_DW_RUN(NAME, MODE, FW)                                                                  \
  static void NAME(const ap_qconv *q, const uint8_t *win, const ptrdiff_t *toff, int32_t count,    \
                   size_t step, int8_t *out) {                                                     \
    run_mode(MODE, FW, q, win, toff, count, step, out);                                            \
  }
AP_DW_RUN(run_contig3, CONTIG, 3)
AP_DW_RUN(run_contig, CONTIG, 0)
AP_DW_RUN(run_s2_3, STRIDE2, 3)
AP_DW_RUN(run_s2, STRIDE2, 0)
AP_DW_RUN(run_g16_3, GATHER16, 3)
AP_DW_RUN(run_g32_3, GATHER32, 3)
AP_DW_RUN(run_gather, GATHER_ANY, 0)
#undef AP_DW_RUN

/* 64-byte vectors of whole channels blocks, or of whole pixels read in one load when the
 * stride is 1 (window pixels adjacent), else gathered. */
static void run(const ap_qconv *q, const uint8_t *win, const ptrdiff_t *toff, int32_t count,
                size_t step, int8_t *out) {
  int32_t c = q->n;
  bool gathered = 64 % c == 0 && c < 64 && step != (size_t)c;
  if (!gathered) {
    (q->cq == 3 ? run_contig3 : run_contig)(q, win, toff, count, step, out);
    return;
  }
  if (c % 4 == 0 && step == (size_t)c * 2)
    (q->cq == 3 ? run_s2_3 : run_s2)(q, win, toff, count, step, out);
  else if (q->cq == 3 && c == 16)
    run_g16_3(q, win, toff, count, step, out);
  else if (q->cq == 3 && c == 32)
    run_g32_3(q, win, toff, count, step, out);
  else
    run_gather(q, win, toff, count, step, out);
}

/* Each input byte repeated rep times (2, 4 or 8): 64 / rep bytes widened to rep-byte lanes, whose
 * low byte a shuffle copies across the lane; other multipliers byte by byte. */
static void fill_rep(uint8_t *dst, const int8_t *src, int32_t pixels, int32_t c, int32_t cp) {
  static const int8_t dup[3][16] = {{0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12, 14, 14},
                                    {0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12},
                                    {0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 8, 8, 8, 8, 8, 8}};
  int32_t rep = cp / c;
  size_t bytes = (size_t)pixels * (size_t)c, i = 0;
  if (rep != 2 && rep != 4 && rep != 8) {
    for (; i < bytes; i++)
      for (int32_t r = 0; r < rep; r++)
        *dst++ = (uint8_t)(src[i] ^ 0x80);
    return;
  }
  const int lg = rep == 2 ? 0 : rep == 4 ? 1 : 2;
  const size_t unit = (size_t)64 / (size_t)rep;
  const __m512i ctl = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)dup[lg]));
  const __m512i flip = _mm512_set1_epi8((char)0x80);
  for (; i < bytes; i += unit, dst += 64) {
    size_t n = bytes - i < unit ? bytes - i : unit;
    __m256i v = _mm256_maskz_loadu_epi8(n >= 32 ? ~(__mmask32)0 : ((__mmask32)1 << n) - 1, src + i);
    __m512i w = lg == 0   ? _mm512_cvtepu8_epi16(v)
                : lg == 1 ? _mm512_cvtepu8_epi32(_mm256_castsi256_si128(v))
                          : _mm512_cvtepu8_epi64(_mm256_castsi256_si128(v));
    __mmask64 m = n == unit ? ~(__mmask64)0 : ((__mmask64)1 << (n * (size_t)rep)) - 1;
    _mm512_mask_storeu_epi8(dst, m, _mm512_xor_si512(_mm512_shuffle_epi8(w, ctl), flip));
  }
}

const ap_dw_kit ap_fast_avx512_dw = {packed_bytes, pack, run,     ap_fast_avx512_fill,
                                     pack_blocks,  64,   fill_rep};
#else
typedef int ap_fast_dw_avx512_unused; /* x86-64 only */
#endif
