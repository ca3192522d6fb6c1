/* The uint8 kernels on AVX2 (compiled with -mavx2 on x86-64 only; the AVX-512 level uses them
 * too). Both factors are widened to int16 with their offsets added ([-255, 255]) and go
 * through vpmaddwd; requantization is the int8 levels' 8-lane MultiplyByQuantizedMultiplier
 * with one multiplier, then an unsigned pack. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/fastops.h"
#include "kernels/fast/int8_x86.h"

static inline __m256i u8rq(__m256i acc, const ap_u8q *q) {
  __m256i r = mulq8v(acc, _mm256_set1_epi32(q->mult), _mm256_set1_epi32(q->shift));
  r = _mm256_add_epi32(r, _mm256_set1_epi32(q->out_off));
  return _mm256_min_epi32(_mm256_max_epi32(r, _mm256_set1_epi32(q->lo)), _mm256_set1_epi32(q->hi));
}

/* The first n (<= 8) lanes of v, each in [0, 255], as bytes. */
static inline void store8u(uint8_t *dst, __m256i v, int32_t n) {
  __m128i p = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  p = _mm_packus_epi16(p, p);
  if (n >= 8) {
    _mm_storel_epi64((__m128i *)dst, p);
    return;
  }
  uint8_t t[16];
  _mm_storeu_si128((__m128i *)t, p);
  memcpy(dst, t, (size_t)n);
}

/* 16 weights of row w from d plus the offset, as int16; in place when 16 bytes fit before
 * `end` (bytes past k meet the zeros of a). */
static inline __m256i wload(const uint8_t *w, int32_t d, int32_t k, const uint8_t *end,
                            __m256i off) {
  __m128i v;
  if (d + 16 <= k || w + d + 16 <= end) {
    v = _mm_loadu_si128((const __m128i *)(w + d));
  } else {
    uint8_t t[16] = {0};
    memcpy(t, w + d, (size_t)(k - d));
    v = _mm_loadu_si128((const __m128i *)t);
  }
  return _mm256_add_epi16(_mm256_cvtepu8_epi16(v), off);
}

/* One row (a 1x1 convolution over one pixel: mobilenet_v1's classifier, 1001 channels): four
 * channels a step share each 16 values of the row, eight channels' sums gathered for the
 * vector requantization. The four-row product below would repeat the row four times. */
static void u8gemm1(const ap_u8gemm *g, const int16_t *a, uint8_t *out) {
  int32_t n = g->n, k = g->k, kp = g->kp, kf = k / 16 * 16;
  const uint8_t *end = g->w + (size_t)n * (size_t)k;
  const __m256i off = _mm256_set1_epi16((int16_t)g->w_off);
  for (int32_t c0 = 0; c0 < n; c0 += 8) {
    __m128i h[2] = {_mm_setzero_si128(), _mm_setzero_si128()};
    for (int q = 0; q < 2 && c0 + 4 * q < n; q++) {
      const uint8_t *w[4];
      for (int i = 0; i < 4; i++) { /* channels past n repeat the last (never stored) */
        int32_t c = c0 + 4 * q + i;
        w[i] = g->w + (size_t)(c < n ? c : n - 1) * (size_t)k;
      }
      __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
#define AP_U8G1(S, W) S = _mm256_add_epi32(S, _mm256_madd_epi16(x, W))
      for (int32_t d = 0; d < kf; d += 16) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(a + d));
#define AP_U8W(I)                                                                                  \
  _mm256_add_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(w[I] + d))), off)
        AP_U8G1(s0, AP_U8W(0));
        AP_U8G1(s1, AP_U8W(1));
        AP_U8G1(s2, AP_U8W(2));
        AP_U8G1(s3, AP_U8W(3));
#undef AP_U8W
      }
      if (kf < kp) { /* the tail's block: a's zeros past k meet whatever wload reads */
        __m256i x = _mm256_loadu_si256((const __m256i *)(a + kf));
        AP_U8G1(s0, wload(w[0], kf, k, end, off));
        AP_U8G1(s1, wload(w[1], kf, k, end, off));
        AP_U8G1(s2, wload(w[2], kf, k, end, off));
        AP_U8G1(s3, wload(w[3], kf, k, end, off));
      }
#undef AP_U8G1
      h[q] = hsum4(s0, s1, s2, s3);
    }
    int32_t cn = n - c0 < 8 ? n - c0 : 8;
    __m256i v = _mm256_set_m128i(h[1], h[0]);
    if (g->bias && cn == 8) {
      v = _mm256_add_epi32(v, _mm256_loadu_si256((const __m256i *)(g->bias + c0)));
    } else if (g->bias) {
      int32_t t[8] = {0};
      memcpy(t, g->bias + c0, (size_t)cn * sizeof(int32_t));
      v = _mm256_add_epi32(v, _mm256_loadu_si256((const __m256i *)t));
    }
    store8u(out + c0, u8rq(v, &g->q), cn);
  }
}

/* Rows of a in fours, output channels in pairs (8 accumulators), gathered eight channels at a
 * time for the vector requantization. */
static void u8gemm(const ap_u8gemm *g, const int16_t *a, int32_t rows, uint8_t *out,
                   size_t out_stride) {
  if (rows == 1) {
    u8gemm1(g, a, out);
    return;
  }
  int32_t n = g->n, k = g->k, kp = g->kp;
  const int16_t *r[4];
  for (int i = 0; i < 4; i++)
    r[i] = a + (size_t)(i < rows ? i : 0) * (size_t)kp;
  const uint8_t *end = g->w + (size_t)n * (size_t)k;
  const __m256i off = _mm256_set1_epi16((int16_t)g->w_off);
  const int16_t *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3];
  int32_t kf = k / 16 * 16;
  for (int32_t c0 = 0; c0 < n; c0 += 8) {
    __m128i p01[4], p23[4];
    for (int q = 0; q < 4; q++) /* pairs past n stay 0 (their lanes are never stored) */
      p01[q] = p23[q] = _mm_setzero_si128();
    for (int32_t c = c0; c < c0 + 8 && c < n; c += 2) {
      const uint8_t *w0 = g->w + (size_t)c * k, *w1 = c + 1 < n ? w0 + k : w0;
      __m256i s00 = _mm256_setzero_si256(), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00,
              s30 = s00, s31 = s00;
      /* Whole blocks of 16 weights with no test in the loop (a copy for the tail in the loop
       * spilled every accumulator each step), then the tail's block. */
      for (int32_t d = 0; d < kf; d += 16)
        AP_ROWS_4X2(
            _mm256_add_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(w0 + d))), off),
            _mm256_add_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(w1 + d))), off),
            d);
      if (kf < kp) AP_ROWS_4X2(wload(w0, kf, k, end, off), wload(w1, kf, k, end, off), kf);
      p01[(c - c0) / 2] = hsum4(s00, s01, s10, s11);
      p23[(c - c0) / 2] = hsum4(s20, s21, s30, s31);
    }
    /* p01[q] = (row 0: c0+2q, c0+2q+1; row 1: the same): rows' 64-bit halves side by side,
     * one vector of the 8 channels a row, no trip through memory. */
    __m256i acc[4] = {
        _mm256_set_m128i(_mm_unpacklo_epi64(p01[2], p01[3]), _mm_unpacklo_epi64(p01[0], p01[1])),
        _mm256_set_m128i(_mm_unpackhi_epi64(p01[2], p01[3]), _mm_unpackhi_epi64(p01[0], p01[1])),
        _mm256_set_m128i(_mm_unpacklo_epi64(p23[2], p23[3]), _mm_unpacklo_epi64(p23[0], p23[1])),
        _mm256_set_m128i(_mm_unpackhi_epi64(p23[2], p23[3]), _mm_unpackhi_epi64(p23[0], p23[1]))};
    int32_t cn = n - c0 < 8 ? n - c0 : 8;
    __m256i bias = _mm256_setzero_si256();
    if (g->bias && cn == 8) {
      bias = _mm256_loadu_si256((const __m256i *)(g->bias + c0));
    } else if (g->bias) {
      int32_t t[8] = {0};
      memcpy(t, g->bias + c0, (size_t)cn * sizeof(int32_t));
      bias = _mm256_loadu_si256((const __m256i *)t);
    }
    for (int32_t i = 0; i < rows; i++) {
      __m256i v = _mm256_add_epi32(acc[i], bias);
      store8u(out + (size_t)i * out_stride + (size_t)c0, u8rq(v, &g->q), cn);
    }
  }
}

/* Packed weights: per block of 8 output channels and pair of depths, the 8 channels' two
 * (weight + offset) values interleaved (16 int16, one vector), zeros past n and k. */
static size_t u8pack_bytes(int32_t n, int32_t k) {
  return (size_t)((n + 15) / 16 * 2) * (size_t)((k + 1) / 2) * 32;
}

/* Eight channels' rows r[0..7] (8 int32 pairs each) turned so that r[q] holds pair q of the
 * eight channels in channel order (an 8x8 transpose of int32). */
static inline void u8turn8(__m256i r[8]) {
  __m256i t[8], u[8];
  for (int i = 0; i < 4; i++) {
    t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  for (int h = 0; h < 2; h++) { /* channels 0-3 (h = 0) and 4-7 */
    u[4 * h] = _mm256_unpacklo_epi64(t[4 * h], t[4 * h + 2]);
    u[4 * h + 1] = _mm256_unpackhi_epi64(t[4 * h], t[4 * h + 2]);
    u[4 * h + 2] = _mm256_unpacklo_epi64(t[4 * h + 1], t[4 * h + 3]);
    u[4 * h + 3] = _mm256_unpackhi_epi64(t[4 * h + 1], t[4 * h + 3]);
  }
  for (int q = 0; q < 4; q++) { /* u[q]'s halves hold pairs q and q + 4 */
    r[q] = _mm256_permute2x128_si256(u[q], u[q + 4], 0x20);
    r[q + 4] = _mm256_permute2x128_si256(u[q], u[q + 4], 0x31);
  }
}

/* Channel by channel along its row (a segment may pack at each call of a few rows: no
 * per-value tests), the zeros past n and k first. Whole blocks of 8 channels take 8 pairs at a
 * time first: each channel's 16 bytes widened, then turned (u8turn8) into 8 packed vectors
 * (0.5 instructions a weight; one at a time, 5.4: mobilenet_v1_025's 1x1 convolutions over
 * 16x16 and 32x32 maps spent 49 k instructions packing on the caller before their regions). */
static void u8pack(const ap_u8gemm *g, void *packed) {
  int16_t *p = packed;
  int32_t blocks = (g->n + 15) / 16 * 2, pairs = (g->k + 1) / 2;
  if (g->k % 2)
    for (int32_t cb = 0; cb < blocks; cb++)
      for (int32_t c = 0; c < 8; c++)
        p[((size_t)cb * pairs + (size_t)pairs - 1) * 16 + 2 * c + 1] = 0;
  if (g->n < blocks * 8)
    memset(p + (size_t)(g->n / 8) * pairs * 16, 0,
           (size_t)(blocks - g->n / 8) * pairs * 16 * sizeof *p);
  int16_t off = (int16_t)g->w_off;
  const __m256i voff = _mm256_set1_epi16(off);
  const int32_t whole = g->n / 8, vpairs = g->k >= 16 ? (g->k - 16) / 16 * 8 + 8 : 0;
  for (int32_t cb = 0; cb < whole; cb++)
    for (int32_t kk = 0; kk < vpairs; kk += 8) { /* bytes [2 kk, 2 kk + 16) of each row */
      __m256i r[8];
      for (int32_t c = 0; c < 8; c++) {
        const uint8_t *w = g->w + (size_t)(cb * 8 + c) * g->k + 2 * (size_t)kk;
        r[c] = _mm256_add_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)w)), voff);
      }
      u8turn8(r);
      for (int32_t q = 0; q < 8; q++)
        _mm256_storeu_si256((__m256i *)(p + ((size_t)cb * pairs + (size_t)(kk + q)) * 16), r[q]);
    }
  /* the rest: the pairs past vpairs of whole blocks (none where they took every byte), then the
   * channels of a last partial block */
  for (int32_t ch = 2 * vpairs == g->k ? whole * 8 : 0; ch < g->n; ch++) {
    int32_t kk = ch / 8 < whole ? vpairs : 0;
    const uint8_t *w = g->w + (size_t)ch * g->k + 2 * (size_t)kk;
    int16_t *v = p + ((size_t)(ch / 8) * pairs + (size_t)kk) * 16 + 2 * (ch % 8);
    for (; kk < g->k / 2; kk++, v += 16, w += 2) {
      v[0] = (int16_t)(w[0] + off);
      v[1] = (int16_t)(w[1] + off);
    }
    if (g->k % 2) v[0] = (int16_t)(w[0] + off);
  }
}

/* One multiplier's rq8 terms (every lane the same) with the bias of channels [c, c + cn),
 * zeros past them. */
static inline rq8 u8rq8(const ap_u8gemm *g, int32_t c, int32_t cn) {
  int32_t m[8], sh[8], bias[8] = {0};
  for (int i = 0; i < 8; i++)
    m[i] = g->q.mult, sh[i] = g->q.shift;
  if (g->bias) memcpy(bias, g->bias + c, (size_t)(cn < 8 ? cn : 8) * sizeof(int32_t));
  return rq8_load(m, sh, bias);
}

/* The broadcast pair j of a row (its two int16 as one int32). */
static inline __m256i u8pair(const int16_t *r, int32_t j) {
  int32_t p;
  memcpy(&p, r + 2 * j, 4);
  return _mm256_set1_epi32(p);
}

/* Rows in fours, 16 output channels at a time in two vectors per row: each pair of a row's
 * values (broadcast) times the packed pair of 8 channels through vpmaddwd; no horizontal sums.
 * A whole 16 goes out as one store a row: packed with saturation to int16, the offset added
 * with saturation (a value saturated at either end stays outside [0, 255], as its exact sum
 * is), packed to uint8 with saturation and clamped there. */
static void u8gemm_packed(const ap_u8gemm *g, const void *packed, const int16_t *a, int32_t rows,
                          uint8_t *out, size_t out_stride) {
  int32_t n = g->n, pairs = (g->k + 1) / 2;
  const int16_t *r0 = a, *r1 = a + (size_t)(rows > 1) * (size_t)g->kp,
                *r2 = a + (size_t)(rows > 2 ? 2 : 0) * (size_t)g->kp,
                *r3 = a + (size_t)(rows > 3 ? 3 : 0) * (size_t)g->kp;
  const int16_t *pk = packed;
  const __m256i off16 = _mm256_set1_epi16((int16_t)g->q.out_off);
  const __m128i lo8 = _mm_set1_epi8((char)g->q.lo), hi8 = _mm_set1_epi8((char)g->q.hi);
  for (int32_t c0 = 0; c0 < n; c0 += 16) {
    const int16_t *w0 = pk + (size_t)(c0 / 8) * pairs * 16, *w1 = w0 + (size_t)pairs * 16;
    __m256i s00 = _mm256_setzero_si256(), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00,
            s30 = s00, s31 = s00;
    if (n - c0 <= 8) { /* the last 8 channels or fewer: the second half is never stored */
      for (int32_t kk = 0; kk < pairs; kk++) {
        __m256i v0 = _mm256_loadu_si256((const __m256i *)(w0 + (size_t)kk * 16));
        s00 = _mm256_add_epi32(s00, _mm256_madd_epi16(u8pair(r0, kk), v0));
        s10 = _mm256_add_epi32(s10, _mm256_madd_epi16(u8pair(r1, kk), v0));
        s20 = _mm256_add_epi32(s20, _mm256_madd_epi16(u8pair(r2, kk), v0));
        s30 = _mm256_add_epi32(s30, _mm256_madd_epi16(u8pair(r3, kk), v0));
      }
    } else {
#define AP_U8P_STEP(KK)                                                                            \
  do {                                                                                             \
    __m256i v0 = _mm256_loadu_si256((const __m256i *)(w0 + (size_t)(KK)*16));                      \
    __m256i v1 = _mm256_loadu_si256((const __m256i *)(w1 + (size_t)(KK)*16));                      \
    __m256i x0 = u8pair(r0, KK), x1 = u8pair(r1, KK), x2 = u8pair(r2, KK), x3 = u8pair(r3, KK);    \
    AP_MADD_4X2(x0, x1, x2, x3, v0, v1);                                                           \
  } while (0)
      int32_t kk = 0; /* two pairs a step (half the loop's own instructions), then the odd one */
      for (; kk + 2 <= pairs; kk += 2) {
        AP_U8P_STEP(kk);
        AP_U8P_STEP(kk + 1);
      }
      if (kk < pairs) AP_U8P_STEP(kk);
#undef AP_U8P_STEP
    }
    __m256i s[4][2] = {{s00, s01}, {s10, s11}, {s20, s21}, {s30, s31}};
    if (n - c0 >= 16) {
      rq8 q0 = u8rq8(g, c0, 8), q1 = u8rq8(g, c0 + 8, 8);
      for (int32_t i = 0; i < rows; i++) {
        __m256i p = _mm256_permute4x64_epi64(
            _mm256_packs_epi32(rq8_mul(s[i][0], &q0), rq8_mul(s[i][1], &q1)), 0xD8);
        p = _mm256_adds_epi16(p, off16);
        __m128i v = _mm_packus_epi16(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
        _mm_storeu_si128((__m128i *)(out + (size_t)i * out_stride + (size_t)c0),
                         _mm_min_epu8(_mm_max_epu8(v, lo8), hi8));
      }
      continue;
    }
    for (int h = 0; h < 2; h++) {
      int32_t c = c0 + 8 * h, cn = n - c < 8 ? n - c : 8;
      if (cn <= 0) break;
      __m256i bias = _mm256_setzero_si256();
      if (g->bias && cn == 8) {
        bias = _mm256_loadu_si256((const __m256i *)(g->bias + c));
      } else if (g->bias) {
        int32_t t[8] = {0};
        memcpy(t, g->bias + c, (size_t)cn * sizeof(int32_t));
        bias = _mm256_loadu_si256((const __m256i *)t);
      }
      for (int32_t i = 0; i < rows; i++)
        store8u(out + (size_t)i * out_stride + (size_t)c,
                u8rq(_mm256_add_epi32(s[i][h], bias), &g->q), cn);
    }
  }
}

/* Depthwise with multiplier 1: taps in pairs through vpmaddwd, 8 channels of two taps'
 * (input + offset) interleaved against the (weight + offset) pairs built in ws; a tap outside
 * the input reads a row of zero points, whose offset input is 0, as the reference's skipped
 * tap. Other shapes run the generic kernel. */
static void u8dw(const ap_u8dw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws) {
  int32_t C = d->out_d, taps = d->f_h * d->f_w;
  if (taps > 64 || d->mult != 1 || C < 8) {
    ap_fastops_generic_u8dw(d, b, oy0, oy1, ws);
    return;
  }
  int32_t pairs = (taps + 1) / 2, blocks = C / 8;
  int16_t *wp = ws;
  uint8_t *zp = (uint8_t *)ws + (size_t)pairs * blocks * 32;
  memset(zp, -d->in_off, (size_t)C + 16);
  const __m256i foff = _mm256_set1_epi16((int16_t)d->f_off);
  for (int32_t q = 0; q < pairs; q++)
    for (int32_t k = 0; k < blocks; k++) {
      const uint8_t *f0 = d->f + (size_t)(2 * q) * C + (size_t)k * 8;
      __m128i w0 = _mm_loadl_epi64((const __m128i *)f0);
      __m128i w1 = 2 * q + 1 < taps ? _mm_loadl_epi64((const __m128i *)(f0 + C)) : w0;
      __m256i w = _mm256_add_epi16(_mm256_cvtepu8_epi16(_mm_unpacklo_epi8(w0, w1)), foff);
      _mm256_storeu_si256((__m256i *)(wp + ((size_t)q * blocks + k) * 16), w);
    }
  const __m256i xoff = _mm256_set1_epi16((int16_t)d->in_off);
  ptrdiff_t inner[64];
  for (int32_t fy = 0, t = 0; fy < d->f_h; fy++)
    for (int32_t fx = 0; fx < d->f_w; fx++, t++)
      inner[t] = ((ptrdiff_t)fy * d->dil_h * d->in_w + (ptrdiff_t)fx * d->dil_w) * C;
  const uint8_t *px[66];
  const uint8_t *in_b = d->in + (size_t)b * d->in_h * d->in_w * C;
  for (int32_t oy = oy0; oy < oy1; oy++)
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int32_t y0 = oy * d->stride_h - d->pad_h, x0 = ox * d->stride_w - d->pad_w;
      uint8_t *o = d->out + (((size_t)b * d->out_h + oy) * d->out_w + ox) * C;
      if (y0 >= 0 && x0 >= 0 && y0 + d->dil_h * (d->f_h - 1) < d->in_h &&
          x0 + d->dil_w * (d->f_w - 1) < d->in_w) {
        const uint8_t *base = in_b + ((size_t)y0 * d->in_w + x0) * C;
        for (int32_t t = 0; t < taps; t++)
          px[t] = base + inner[t];
      } else {
        for (int32_t fy = 0, t = 0; fy < d->f_h; fy++) {
          int32_t iy = y0 + d->dil_h * fy;
          for (int32_t fx = 0; fx < d->f_w; fx++, t++) {
            int32_t ix = x0 + d->dil_w * fx;
            bool in = iy >= 0 && iy < d->in_h && ix >= 0 && ix < d->in_w;
            px[t] = in ? in_b + ((size_t)iy * d->in_w + ix) * C : zp;
          }
        }
      }
      px[taps] = zp; /* the odd tap's partner */
      int32_t k = 0;
      for (; k + 2 <= blocks; k += 2) { /* 16 channels: both halves of 16 bytes per tap */
        size_t c = (size_t)k * 8;
        __m256i acc0 =
            d->bias ? _mm256_loadu_si256((const __m256i *)(d->bias + c)) : _mm256_setzero_si256();
        __m256i acc1 = d->bias ? _mm256_loadu_si256((const __m256i *)(d->bias + c + 8))
                               : _mm256_setzero_si256();
        for (int32_t q = 0; q < pairs; q++) {
          __m128i a0 = _mm_loadu_si128((const __m128i *)(px[2 * q] + c));
          __m128i a1 = _mm_loadu_si128((const __m128i *)(px[2 * q + 1] + c));
          __m256i x0 = _mm256_add_epi16(_mm256_cvtepu8_epi16(_mm_unpacklo_epi8(a0, a1)), xoff);
          __m256i x1 = _mm256_add_epi16(_mm256_cvtepu8_epi16(_mm_unpackhi_epi8(a0, a1)), xoff);
          const int16_t *w = wp + ((size_t)q * blocks + k) * 16;
          acc0 =
              _mm256_add_epi32(acc0, _mm256_madd_epi16(x0, _mm256_loadu_si256((const __m256i *)w)));
          acc1 = _mm256_add_epi32(
              acc1, _mm256_madd_epi16(x1, _mm256_loadu_si256((const __m256i *)(w + 16))));
        }
        store8u(o + c, u8rq(acc0, &d->q), 8);
        store8u(o + c + 8, u8rq(acc1, &d->q), 8);
      }
      for (; k < blocks; k++) {
        size_t c = (size_t)k * 8;
        __m256i acc =
            d->bias ? _mm256_loadu_si256((const __m256i *)(d->bias + c)) : _mm256_setzero_si256();
        for (int32_t q = 0; q < pairs; q++) {
          __m128i a0 = _mm_loadl_epi64((const __m128i *)(px[2 * q] + c));
          __m128i a1 = _mm_loadl_epi64((const __m128i *)(px[2 * q + 1] + c));
          __m256i x = _mm256_add_epi16(_mm256_cvtepu8_epi16(_mm_unpacklo_epi8(a0, a1)), xoff);
          __m256i w = _mm256_loadu_si256((const __m256i *)(wp + ((size_t)q * blocks + k) * 16));
          acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, w));
        }
        store8u(o + c, u8rq(acc, &d->q), 8);
      }
      for (int32_t c = blocks * 8; c < C; c++) {
        uint32_t acc = d->bias ? (uint32_t)d->bias[c] : 0;
        for (int32_t t = 0; t < taps; t++)
          acc += (uint32_t)((d->f[(size_t)t * C + c] + d->f_off) * (px[t][c] + d->in_off));
        o[c] = ap_fast_u8requant((int32_t)acc, &d->q);
      }
    }
}

/* Fully connected: four units at a time share each widened input vector. */
static void u8fc(const ap_u8fc *f, int32_t u0, int32_t u1) {
  int32_t D = f->depth, d16 = D / 16 * 16;
  const __m256i xoff = _mm256_set1_epi16((int16_t)f->in_off),
                woff = _mm256_set1_epi16((int16_t)f->w_off);
  for (int32_t b = 0; b < f->batches; b++) {
    const uint8_t *x = f->x + (size_t)b * (size_t)D;
    for (int32_t u = u0; u < u1; u += 4) {
      int32_t nu = u1 - u < 4 ? u1 - u : 4;
      const uint8_t *w[4];
      for (int j = 0; j < 4; j++)
        w[j] = f->w + (size_t)(u + (j < nu ? j : 0)) * (size_t)D;
      __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
      for (int32_t d = 0; d < d16; d += 16) {
        __m256i xv =
            _mm256_add_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(x + d))), xoff);
#define U8FC_W(j)                                                                                  \
  _mm256_add_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(w[j] + d))), woff)
        s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(xv, U8FC_W(0)));
        s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(xv, U8FC_W(1)));
        s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(xv, U8FC_W(2)));
        s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(xv, U8FC_W(3)));
#undef U8FC_W
      }
      int32_t t[4];
      _mm_storeu_si128((__m128i *)t, hsum4(s0, s1, s2, s3));
      for (int32_t j = 0; j < nu; j++) {
        uint32_t acc = (uint32_t)t[j] + (f->bias ? (uint32_t)f->bias[u + j] : 0);
        for (int32_t d = d16; d < D; d++)
          acc += (uint32_t)((x[d] + f->in_off) * (w[j][d] + f->w_off));
        f->out[(size_t)b * (size_t)f->units + (size_t)(u + j)] =
            ap_fast_u8requant((int32_t)acc, &f->q);
      }
    }
  }
}

/* 16 products a step through vpmaddwd (each int32 lane gains at most 2 * 32768 * 128 = 2^23),
 * 128 steps into int32 lanes (at most 2^30), then widened into int64 lanes. */
static int64_t dot16x8(const int16_t *x, const int8_t *w, int32_t k) {
  __m256i wide = _mm256_setzero_si256();
  int32_t i = 0;
  while (i + 16 <= k) {
    int32_t stop = k - (k - i) % 16, lim = i + 128 * 16;
    if (stop > lim) stop = lim;
    __m256i s = _mm256_setzero_si256();
    for (; i < stop; i += 16) {
      __m256i xv = _mm256_loadu_si256((const __m256i *)(x + i));
      __m256i wv = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(w + i)));
      s = _mm256_add_epi32(s, _mm256_madd_epi16(xv, wv));
    }
    wide = _mm256_add_epi64(wide, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(s)));
    wide = _mm256_add_epi64(wide, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(s, 1)));
  }
  int64_t t[4];
  _mm256_storeu_si256((__m256i *)t, wide);
  int64_t acc = t[0] + t[1] + t[2] + t[3];
  for (; i < k; i++)
    acc += (int32_t)x[i] * w[i];
  return acc;
}

/* Pairs of products of values in [-255, 255] fit vpmaddwd's int32 lanes; lanes wrap as the
 * reference's int32 sum. kp is a multiple of 16. */
static int32_t dot16x16(const int16_t *x, const int16_t *y, int32_t kp) {
  __m256i s = _mm256_setzero_si256();
  for (int32_t i = 0; i < kp; i += 16)
    s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(x + i)),
                                              _mm256_loadu_si256((const __m256i *)(y + i))));
  __m128i h = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
  h = _mm_hadd_epi32(h, h);
  h = _mm_hadd_epi32(h, h);
  return _mm_cvtsi128_si32(h);
}

/* dst[i] = src[i] + off for i < n (src NULL: 0), reading and writing nothing past n: 16 a
 * step, then 8 through the lower half (runs are often short: 3 channels by 3 taps), then one
 * by one. */
static inline void u8run(int16_t *dst, const uint8_t *src, int32_t n, __m256i off) {
  int32_t i = 0;
  if (!src) {
    for (; i + 16 <= n; i += 16)
      _mm256_storeu_si256((__m256i *)(dst + i), _mm256_setzero_si256());
    for (; i < n; i++)
      dst[i] = 0;
    return;
  }
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(
        (__m256i *)(dst + i),
        _mm256_add_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(src + i))), off));
  if (i + 8 <= n) {
    _mm_storeu_si128((__m128i *)(dst + i),
                     _mm_add_epi16(_mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(src + i))),
                                   _mm256_castsi256_si128(off)));
    i += 8;
  }
  for (; i < n; i++)
    dst[i] = (int16_t)(src[i] + (int16_t)_mm256_extract_epi16(off, 0));
}

static void u8patch(const ap_fast_geom *g, const uint8_t *in, int16_t in_off, int32_t b, int32_t oy,
                    int32_t ox, int32_t rows, int32_t kp, int16_t *a) {
  const int32_t out_w = g->out_w, out_h = g->out_h, in_h = g->in_h, in_w = g->in_w, d = g->in_d,
                f_h = g->f_h, f_w = g->f_w, dil_h = g->dil_h, dil_w = g->dil_w;
  const int32_t run = f_w * d; /* one filter row's values */
  const size_t row_bytes = (size_t)in_w * (size_t)d;
  const __m256i off = _mm256_set1_epi16(in_off);
  for (int32_t q = 0; q < rows; q++, a += kp) {
    int32_t y0 = oy * g->stride_h - g->pad_h, x0 = ox * g->stride_w - g->pad_w;
    const uint8_t *in_b = in + (size_t)b * (size_t)in_h * row_bytes;
    bool cols_in = x0 >= 0 && x0 + dil_w * (f_w - 1) < in_w && dil_w == 1;
    for (int32_t fy = 0, at = 0; fy < f_h; fy++) {
      int32_t iy = y0 + dil_h * fy;
      const uint8_t *src = iy >= 0 && iy < in_h ? in_b + (size_t)iy * row_bytes : NULL;
      if (!src || cols_in) { /* the row's taps adjacent in the input, or all padding */
        u8run(a + at, src ? src + (size_t)x0 * d : NULL, run, off);
        at += run;
        continue;
      }
      for (int32_t fx = 0; fx < f_w; fx++, at += d) {
        int32_t ix = x0 + dil_w * fx;
        u8run(a + at, ix >= 0 && ix < in_w ? src + (size_t)ix * d : NULL, d, off);
      }
    }
    if (++ox == out_w) { /* the next output pixel */
      ox = 0;
      if (++oy == out_h) oy = 0, b++;
    }
  }
}

const ap_fastops ap_fastops_avx2 = {
    .mr = 4,
    .kalign = 16,
    .u8gemm = u8gemm,
    .u8pack_bytes = u8pack_bytes,
    .u8pack = u8pack,
    .u8gemm_packed = u8gemm_packed,
    .u8dw = u8dw,
    .u8fc = u8fc,
    .pool = ap_fastops_avx2_pool,
    .dot16x8 = dot16x8,
    .dot16x16 = dot16x16,
    .fmm = ap_fastops_avx2_fmm,
    .u8patch = u8patch,
    .planes3 = ap_fastops_avx2_planes3,
};
#endif
