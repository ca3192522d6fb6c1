/* The AVX2 level's depthwise kernel for a depth multiplier of 1, int8 (per channel; int8_avx2.c's
 * ap_fast_avx2_dw calls it, the other multipliers stay there) and uint8 (per tensor; u8_dw.c
 * calls it before the uint8 table's kernel). Channels are in lanes, 16 a block: each tap's 16
 * input bytes widen to int16 (vpmovsxbw or vpmovzxbw from memory), two taps' vectors
 * interleave (vpunpcklwd / vpunpckhwd: channels 0-3 and 8-11, 4-7 and 12-15) and vpmaddwd
 * sums each channel's two products into an int32 lane, against the weights (uint8: plus the
 * filter offset) interleaved the same way at the start of the call (in the task's workspace,
 * as many bytes as the 8-channel layout it replaced). An 8-channel block takes the 8-lane form
 * (bytes interleaved, then widened), the last C % 8 channels scalar code.
 *
 * The input offset: added to each widened input (int8 with shifts outside [-31, 0] or more
 * than FOLD_MAX channels), or folded into the bias once per call,
 *   sum (x + in_off) w = sum x w + in_off sum w   (modulo 2^32),
 * and a tap outside the input reads a row of zero points, -in_off, whose product cancels its
 * share of in_off sum w, as the reference's skipped tap adds nothing. Products: int8 within
 * [-255, 255] x [-128, 127] or [-128, 127]^2, uint8 [0, 255] x [-255, 255] (folded) or
 * [-255, 255]^2 (fastops.h): exact int16 pairs, int32 sums wrapping as the reference's.
 * Requantization: int8_x86.h's, or (folded) the same steps with the shifts tabulated. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/dw_taps.h"
#include "kernels/fast/fastops.h"
#include "kernels/fast/int8_x86.h"

/* One call's operands, int8 or uint8 (bytes read as the type says). */
typedef struct dwk {
  const int8_t *in, *f;
  const int32_t *bias; /* NULL: none */
  int8_t *out;
  AP_FAST_GEOM;
  int32_t in_off, f_off, out_off, act_min, act_max;
  const int32_t *qmult, *qshift; /* int8: per channel */
  int32_t mult1, shift1;         /* uint8: per tensor */
} dwk;

static inline __m256i widen_v(__m128i v, bool u8) {
  return u8 ? _mm256_cvtepu8_epi16(v) : _mm256_cvtepi8_epi16(v);
}

static inline __m256i widen16(const int8_t *p, bool u8) {
  return widen_v(_mm_loadu_si128((const __m128i *)p), u8);
}

static inline __m256i widen8x2(__m128i a, __m128i b, bool u8) {
  __m128i v = _mm_unpacklo_epi8(a, b);
  return u8 ? _mm256_cvtepu8_epi16(v) : _mm256_cvtepi8_epi16(v);
}

/* The weights (plus the filter offset) of the 16-channel blocks ([block][pair][2 vectors]) and
 * of the 8-channel block after them ([pair][1 vector]); the second tap of an odd count's last
 * pair is 0. */
static inline __attribute__((always_inline)) void pack_weights(const dwk *d, int32_t taps,
                                                               int16_t *wp, bool u8) {
  int32_t C = d->out_d, pairs = (taps + 1) / 2, b16 = C / 16;
  const __m256i foff = _mm256_set1_epi16((int16_t)d->f_off);
  for (int32_t k = 0; k < b16; k++)
    for (int32_t q = 0; q < pairs; q++) {
      const int8_t *f0 = d->f + (size_t)(2 * q) * C + (size_t)k * 16;
      __m256i a = _mm256_add_epi16(widen16(f0, u8), foff);
      __m256i b =
          2 * q + 1 < taps ? _mm256_add_epi16(widen16(f0 + C, u8), foff) : _mm256_setzero_si256();
      __m256i *dst = (__m256i *)(wp + ((size_t)k * pairs + q) * 32);
      _mm256_storeu_si256(dst, _mm256_unpacklo_epi16(a, b));
      _mm256_storeu_si256(dst + 1, _mm256_unpackhi_epi16(a, b));
    }
  if (C % 16 >= 8) {
    int16_t *w8 = wp + (size_t)b16 * pairs * 32;
    for (int32_t q = 0; q < pairs; q++) {
      const int8_t *f0 = d->f + (size_t)(2 * q) * C + (size_t)b16 * 16;
      __m128i w0 = _mm_loadl_epi64((const __m128i *)f0);
      __m128i w1 = w0;
      if (2 * q + 1 < taps) w1 = _mm_loadl_epi64((const __m128i *)(f0 + C));
      __m256i w = _mm256_add_epi16(widen8x2(w0, w1, u8), foff);
      /* the odd count's missing tap: weight 0 (odd lanes) */
      if (2 * q + 1 >= taps) w = _mm256_blend_epi16(w, _mm256_setzero_si256(), 0xAA);
      _mm256_storeu_si256((__m256i *)(w8 + (size_t)q * 16), w);
    }
  }
}

/* FOLD_MAX: channels up to which the input offset is folded into the bias and the
 * requantization tabulated (tables on the stack: 24 bytes a channel). */
enum { FOLD_MAX = 1024 };

/* requant_tab's tables (mult 8 longer: the odd lanes read one on), in one struct: the kernel's
 * loops address them from one register (as five pointers they spilled, 12 reloads a 16-channel
 * block of a 3x3 window, an eighth of its instructions). */
typedef struct dw_tabs {
  int64_t nudge[FOLD_MAX];
  int32_t fbias[FOLD_MAX], right[FOLD_MAX], gt[FOLD_MAX], mult[FOLD_MAX + 8];
} dw_tabs;

typedef struct dw_consts {
  __m256i off, lo, hi, vin16;
  __m256i off16;    /* the output offset, int16 */
  __m128i lo8, hi8; /* the clamp, bytes */
  /* Folded: per channel (int8; requant_tab's order) the bias plus in_off times the sum of the
   * channel's weights, the multiplier (and one past: the odd lanes' read one further on), the
   * right shift e, the 64-bit addend of the products (nudge[8 j, 8 j + 4): channels 8 j + 0, 2,
   * 4, 6, then 8 j + 4..8: 1, 3, 5, 7) and the rounding's compare (gt), from entry t0 on;
   * uint8's in every lane. */
  const dw_tabs *t;
  size_t t0;
  const int16_t *w6; /* sweep3x3's weights (NULL: none) */
  __m256i m1, right1, nudge1, gt1;
} dw_consts;

/* The rounding divide of the requantization folded into the doubling high multiply's nudge:
 * with h = (x m + 2^30) >> 31 and e the right shift, TFLite's (h >> e) + ((h & mask) > (mask >> 1)
 * + (h < 0)) is (t + (t <= 0 ? -1 : 0)) >> e for t = h + 2^(e - 1) (e > 0; e = 0: h), and t is
 * (x m + 2^30 + 2^(e + 30)) >> 31 (adding a multiple of 2^31 before the shift). The call checked
 * that t cannot leave int32 (fits_fold); gt is 1 (e > 0) or INT32_MIN (e = 0: no -1). */
static inline int64_t fold_nudge(int32_t e) {
  return (1ll << 30) + (e > 0 ? 1ll << (e + 30) : 0);
}

/* requant8 of int8_x86.h without the offset and clamp, for shifts in [-31, 0] (multipliers
 * below 1, the common case), from the call's tables. */
static inline __m256i requant_tab(__m256i x, const dw_consts *k, size_t c, bool u8) {
  const dw_tabs *tb = k->t;
  c += k->t0;
  __m256i m = u8 ? k->m1 : _mm256_loadu_si256((const __m256i *)(tb->mult + c));
  __m256i m_odd = u8 ? k->m1 : _mm256_loadu_si256((const __m256i *)(tb->mult + c + 1));
  __m256i n_even = u8 ? k->nudge1 : _mm256_loadu_si256((const __m256i *)(tb->nudge + c));
  __m256i n_odd = u8 ? k->nudge1 : _mm256_loadu_si256((const __m256i *)(tb->nudge + c + 4));
  __m256i right = u8 ? k->right1 : _mm256_loadu_si256((const __m256i *)(tb->right + c));
  __m256i gt = u8 ? k->gt1 : _mm256_loadu_si256((const __m256i *)(tb->gt + c));
  __m256i even = _mm256_add_epi64(_mm256_mul_epi32(x, m), n_even);
  __m256i odd = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), m_odd), n_odd);
  __m256i t = _mm256_blend_epi32(_mm256_srli_epi64(even, 31), _mm256_slli_epi64(odd, 1), 0xAA);
  return _mm256_srav_epi32(_mm256_add_epi32(t, _mm256_cmpgt_epi32(gt, t)), right);
}

/* Requantizes channels [c, c + 8) of one pixel and stores them. fold: the sums lack the input
 * offset's products, which the folded bias holds. */
static inline __attribute__((always_inline)) void
finish8(const dwk *d, const dw_consts *k, __m256i acc, size_t c, int8_t *o, bool fold, bool u8) {
  __m256i r;
  if (fold) {
    acc = _mm256_add_epi32(acc, _mm256_loadu_si256((const __m256i *)(k->t->fbias + k->t0 + c)));
    r = requant_tab(acc, k, c, u8);
    r = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(r, k->off), k->lo), k->hi);
  } else {
    if (d->bias) acc = _mm256_add_epi32(acc, _mm256_loadu_si256((const __m256i *)(d->bias + c)));
    r = requant8(acc, d->qmult + c, d->qshift + c, k->off, k->lo, k->hi);
  }
  if (!u8) {
    store8(o + c, r);
    return;
  }
  __m128i p = _mm_packs_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
  _mm_storel_epi64((__m128i *)(o + c), _mm_packus_epi16(p, p));
}

/* Input bytes of one tap (16 channels) as int16, plus the input offset unless folded. */
static inline __m256i tap16(const int8_t *p, const dw_consts *k, bool fold, bool u8) {
  __m256i x = widen16(p, u8);
  return fold ? x : _mm256_add_epi16(x, k->vin16);
}

/* Sums a, b of one pixel's 16-channel block: tap pairs (x0, x1) against w (32 int16). */
static inline __attribute__((always_inline)) void pair16(__m256i x0, __m256i x1, const int16_t *w,
                                                         __m256i *a, __m256i *b) {
  *a = _mm256_add_epi32(
      *a, _mm256_madd_epi16(_mm256_unpacklo_epi16(x0, x1), _mm256_loadu_si256((const __m256i *)w)));
  *b = _mm256_add_epi32(*b, _mm256_madd_epi16(_mm256_unpackhi_epi16(x0, x1),
                                              _mm256_loadu_si256((const __m256i *)(w + 16))));
}

static inline __attribute__((always_inline)) void finish16(const dwk *d, const dw_consts *k,
                                                           __m256i a, __m256i b, size_t c,
                                                           int8_t *o, bool fold, bool u8);

/* One pixel's 16-channel block at c: pairs of taps px[2q], px[2q + 1] against w. pairs: a
 * constant for the common filters (the loop unrolled) or counted at run time. */
static inline __attribute__((always_inline)) void block16(const dwk *d, const dw_consts *k,
                                                          const int8_t *const *px, size_t c,
                                                          const int16_t *w, int32_t pairs,
                                                          int8_t *o, bool fold, bool u8) {
  __m256i a = _mm256_setzero_si256(), b = a;
#pragma GCC unroll 13
  for (int32_t q = 0; q < pairs; q++, w += 32)
    pair16(tap16(px[2 * q] + c, k, fold, u8), tap16(px[2 * q + 1] + c, k, fold, u8), w, &a, &b);
  finish16(d, k, a, b, c, o, fold, u8);
}

/* A 3x3 window inside the input's columns (folded): its rows' left pixels r0, r1, r2, taps cs0,
 * cs1, cs2 apart (a row outside the input: the zero points, 0 apart), the 16 channels at c. The
 * odd tap's pair partner is itself (its weight is 0): no zero row read. */
static inline __attribute__((always_inline)) void
block16_3x3(const dwk *d, const dw_consts *k, const int8_t *r0, const int8_t *r1, const int8_t *r2,
            size_t cs0, size_t cs1, size_t cs2, size_t c, const int16_t *w, int8_t *o, bool u8) {
  __m256i a = _mm256_setzero_si256(), b = a;
  r0 += c, r1 += c, r2 += c;
  __m256i x8 = widen16(r2 + 2 * cs2, u8);
  pair16(widen16(r0, u8), widen16(r0 + cs0, u8), w, &a, &b);
  pair16(widen16(r0 + 2 * cs0, u8), widen16(r1, u8), w + 32, &a, &b);
  pair16(widen16(r1 + cs1, u8), widen16(r1 + 2 * cs1, u8), w + 64, &a, &b);
  pair16(widen16(r2, u8), widen16(r2 + cs2, u8), w + 96, &a, &b);
  pair16(x8, x8, w + 128, &a, &b);
  finish16(d, k, a, b, c, o, true, u8);
}

/* Requantizes a block16's sums a (channels 0-3 and 8-11) and b (4-7 and 12-15) and stores the
 * 16 channels at o + c. */
static inline __attribute__((always_inline)) void finish16(const dwk *d, const dw_consts *k,
                                                           __m256i a, __m256i b, size_t c,
                                                           int8_t *o, bool fold, bool u8) {
  /* a: channels 0-3 and 8-11, b: 4-7 and 12-15 */
  if (!fold) {
    finish8(d, k, _mm256_permute2x128_si256(a, b, 0x20), c, o, fold, u8);
    finish8(d, k, _mm256_permute2x128_si256(a, b, 0x31), c + 8, o, fold, u8);
    return;
  }
  /* Folded: the tables hold a 16-channel group in a's and b's order (grouped16), and the packs
   * restore the channels' order: [a 0-3, b 4-7 | a 8-11, b 12-15]. The offset and clamp after
   * the saturating packs: a value the int16 pack or add saturates lies beyond the byte range,
   * as it would have unsaturated, and the clamp is inside that range. */
  const int32_t *fb = k->t->fbias + k->t0 + c;
  a = requant_tab(_mm256_add_epi32(a, _mm256_loadu_si256((const __m256i *)fb)), k, c, u8);
  b = requant_tab(_mm256_add_epi32(b, _mm256_loadu_si256((const __m256i *)(fb + 8))), k, c + 8, u8);
  __m256i p = _mm256_adds_epi16(_mm256_packs_epi32(a, b), k->off16);
  __m128i q = _mm256_castsi256_si128(p), q1 = _mm256_extracti128_si256(p, 1);
  q = u8 ? _mm_min_epu8(_mm_max_epu8(_mm_packus_epi16(q, q1), k->lo8), k->hi8)
         : _mm_min_epi8(_mm_max_epi8(_mm_packs_epi16(q, q1), k->lo8), k->hi8);
  _mm_storeu_si128((__m128i *)(o + c), q);
}

/* The channels past the 16-channel blocks of one pixel: an 8-channel block, then scalar ones. */
static inline __attribute__((always_inline)) void tail(const dwk *d, const dw_consts *k,
                                                       const int8_t *const *px, const int16_t *wp,
                                                       int32_t taps, int32_t pairs, int8_t *o,
                                                       bool fold, bool u8) {
  int32_t C = d->out_d, b16 = C / 16;
  int32_t c = b16 * 16;
  if (C - c >= 8) {
    const int16_t *w = wp + (size_t)b16 * pairs * 32;
    __m256i acc = _mm256_setzero_si256();
#pragma GCC unroll 13
    for (int32_t q = 0; q < pairs; q++, w += 16) {
      __m128i x0 = _mm_loadl_epi64((const __m128i *)(px[2 * q] + c));
      __m128i x1 = _mm_loadl_epi64((const __m128i *)(px[2 * q + 1] + c));
      __m256i x = widen8x2(x0, x1, u8);
      if (!fold) x = _mm256_add_epi16(x, k->vin16);
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(x, _mm256_loadu_si256((const __m256i *)w)));
    }
    finish8(d, k, acc, (size_t)c, o, fold, u8);
    c += 8;
  }
  for (; c < C; c++) {
    uint32_t acc = d->bias ? (uint32_t)d->bias[c] : 0u;
    for (int32_t t = 0; t < taps; t++) {
      int32_t x = u8 ? (int32_t)(uint8_t)px[t][c] : (int32_t)px[t][c];
      int32_t w = u8 ? (int32_t)(uint8_t)d->f[(size_t)t * C + c] : (int32_t)d->f[(size_t)t * C + c];
      acc += (uint32_t)((w + d->f_off) * (x + d->in_off));
    }
    int32_t m = u8 ? d->mult1 : d->qmult[c], sh = u8 ? d->shift1 : d->qshift[c];
    o[c] = (int8_t)ap_kq_clamp(ap_kq_mul((int32_t)acc, m, sh) + d->out_off, d->act_min, d->act_max);
  }
}

static inline __attribute__((always_inline)) void pixel(const dwk *d, const dw_consts *k,
                                                        const int8_t *const *px, const int16_t *wp,
                                                        int32_t taps, int32_t pairs, int8_t *o,
                                                        bool fold, bool u8) {
  int32_t C = d->out_d, b16 = C / 16;
  for (int32_t bk = 0; bk < b16; bk++)
    block16(d, k, px, (size_t)bk * 16, wp + (size_t)bk * pairs * 32, pairs, o, fold, u8);
  if (C % 16) tail(d, k, px, wp, taps, pairs, o, fold, u8);
}

/* Stride 1 across, 16-channel blocks, one block at a time over the pixels [0, n) of a row whose
 * windows lie inside the input (folded): a filter row's three taps of pixel x are the column
 * pairs P(x) = (x, x + 1) against (w0, w1) and P(x + 1) = (x + 1, x + 2) against (0, w2), and
 * P(x + 1) is also pixel x + 1's first pair: each input column is widened and interleaved once
 * per filter row instead of three times (3 widenings and 6 interleaves a block instead of 9 and
 * 10, for 2 more multiply-adds), pixel x + 1's first sums carried. p: the window's top-left
 * pixel of pixel 0, rs: the input's row in bytes. The block's weights are laid out here, once
 * per row and block. */
static inline __attribute__((always_inline)) void sweep3x3(const dwk *dp, const dw_consts *kp,
                                                           const int8_t *p, size_t rs, int32_t n,
                                                           int8_t *o, bool u8) {
  /* (called out of line, below: inlined into rows, its state spills; local copies: the
   * output's byte stores may alias anything) */
  const dwk dl = *dp;
  const dw_consts kl = *kp;
  const dwk *d = &dl;
  const dw_consts *k = &kl;
  size_t C = (size_t)d->out_d;
  for (size_t c = 0; c + 16 <= C; c += 16) {
    const __m256i *w = (const __m256i *)(const void *)(k->w6 + c / 16 * 192);
    const int8_t *q = p + c; /* column x of the top row */
    __m256i l0 = widen16(q, u8), l1 = widen16(q + rs, u8), l2 = widen16(q + 2 * rs, u8);
    /* pixel 0's first pairs: P(0) against (w0, w1) */
    q += C;
    __m256i n0 = widen16(q, u8), n1 = widen16(q + rs, u8), n2 = widen16(q + 2 * rs, u8);
    __m256i ca =
        _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(l0, n0), w[0]),
                                          _mm256_madd_epi16(_mm256_unpacklo_epi16(l1, n1), w[4])),
                         _mm256_madd_epi16(_mm256_unpacklo_epi16(l2, n2), w[8]));
    __m256i cb =
        _mm256_add_epi32(_mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(l0, n0), w[1]),
                                          _mm256_madd_epi16(_mm256_unpackhi_epi16(l1, n1), w[5])),
                         _mm256_madd_epi16(_mm256_unpackhi_epi16(l2, n2), w[9]));
    l0 = n0, l1 = n1, l2 = n2;
    int8_t *oo = o;
    for (int32_t i = 0; i < n; i++, oo += C) {
      q += C;
      /* row by row, P(x + 1): pixel x's last taps (sa, sb), pixel x + 1's first (ca, cb) */
      __m256i sa = ca, sb = cb;
      n0 = widen16(q, u8);
      __m256i pa = _mm256_unpacklo_epi16(l0, n0), pb = _mm256_unpackhi_epi16(l0, n0);
      sa = _mm256_add_epi32(sa, _mm256_madd_epi16(pa, w[2]));
      sb = _mm256_add_epi32(sb, _mm256_madd_epi16(pb, w[3]));
      ca = _mm256_madd_epi16(pa, w[0]), cb = _mm256_madd_epi16(pb, w[1]);
      l0 = n0;
      n1 = widen16(q + rs, u8);
      pa = _mm256_unpacklo_epi16(l1, n1), pb = _mm256_unpackhi_epi16(l1, n1);
      sa = _mm256_add_epi32(sa, _mm256_madd_epi16(pa, w[6]));
      sb = _mm256_add_epi32(sb, _mm256_madd_epi16(pb, w[7]));
      ca = _mm256_add_epi32(ca, _mm256_madd_epi16(pa, w[4]));
      cb = _mm256_add_epi32(cb, _mm256_madd_epi16(pb, w[5]));
      l1 = n1;
      n2 = widen16(q + 2 * rs, u8);
      pa = _mm256_unpacklo_epi16(l2, n2), pb = _mm256_unpackhi_epi16(l2, n2);
      sa = _mm256_add_epi32(sa, _mm256_madd_epi16(pa, w[10]));
      sb = _mm256_add_epi32(sb, _mm256_madd_epi16(pb, w[11]));
      ca = _mm256_add_epi32(ca, _mm256_madd_epi16(pa, w[8]));
      cb = _mm256_add_epi32(cb, _mm256_madd_epi16(pb, w[9]));
      l2 = n2;
      finish16(d, k, sa, sb, c, oo, true, u8);
    }
  }
}

/* sweep3x3's weights (plus the filter offset) of the C / 16 blocks: per block and filter row
 * r, [4 r] (w0, w1) low, [4 r + 1] high, [4 r + 2] (0, w2) low, [4 r + 3] high (vectors). */
static inline __attribute__((always_inline)) void pack_sweep(const dwk *d, int16_t *w6, bool u8) {
  size_t C = (size_t)d->out_d;
  const __m256i foff = _mm256_set1_epi16((int16_t)d->f_off), z = _mm256_setzero_si256();
  for (size_t c = 0; c + 16 <= C; c += 16) {
    __m256i *w = (__m256i *)(void *)(w6 + c / 16 * 192);
    for (int r = 0; r < 3; r++) {
      const int8_t *f = d->f + (size_t)(3 * r) * C + c;
      __m256i w0 = _mm256_add_epi16(widen16(f, u8), foff);
      __m256i w1 = _mm256_add_epi16(widen16(f + C, u8), foff);
      __m256i w2 = _mm256_add_epi16(widen16(f + 2 * C, u8), foff);
      _mm256_store_si256(w + 4 * r, _mm256_unpacklo_epi16(w0, w1));
      _mm256_store_si256(w + 4 * r + 1, _mm256_unpackhi_epi16(w0, w1));
      _mm256_store_si256(w + 4 * r + 2, _mm256_unpacklo_epi16(z, w2));
      _mm256_store_si256(w + 4 * r + 3, _mm256_unpackhi_epi16(z, w2));
    }
  }
}

static __attribute__((noinline)) void sweep3x3_s8(const dwk *d, const dw_consts *k, const int8_t *p,
                                                  size_t rs, int32_t n, int8_t *o) {
  sweep3x3(d, k, p, rs, n, o, false);
}

static __attribute__((noinline)) void sweep3x3_u8(const dwk *d, const dw_consts *k, const int8_t *p,
                                                  size_t rs, int32_t n, int8_t *o) {
  sweep3x3(d, k, p, rs, n, o, true);
}

/* Output pixels [ox0, ox1) of one row whose 3x3 windows lie inside the input's columns (folded,
 * no dilation across): block16_3x3's rows and steps, advancing by the stride (a row of zero
 * points stays). k2, wp2: as rows' (8 channels, pixels in twos). */
static inline __attribute__((always_inline)) void
inside3x3(const dwk *d, const dw_consts *k, const dw_consts *k2, const int16_t *wp2,
          const int8_t *r0, const int8_t *r1, const int8_t *r2, size_t cs0, size_t cs1, size_t cs2,
          const int16_t *wp, const int8_t *zp, int32_t ox0, int32_t ox1, int8_t *o, bool u8) {
  size_t C = (size_t)d->out_d, sw = (size_t)d->stride_w;
  int32_t ox = ox0;
  if (k2) /* C == 8 */
    for (; ox + 1 < ox1;
         ox += 2, r0 += 2 * sw * cs0, r1 += 2 * sw * cs1, r2 += 2 * sw * cs2, o += 16)
      block16_3x3(d, k2, r0, r1, r2, cs0, cs1, cs2, 0, wp2, o, u8);
  for (; ox < ox1; ox++, r0 += sw * cs0, r1 += sw * cs1, r2 += sw * cs2, o += C) {
    size_t b16 = C / 16;
    for (size_t bk = 0; bk < b16; bk++)
      block16_3x3(d, k, r0, r1, r2, cs0, cs1, cs2, bk * 16, wp + bk * 5 * 32, o, u8);
    if (C % 16) {
      const int8_t *px[10] = {r0,           r0 + cs0, r0 + 2 * cs0, r1,           r1 + cs1,
                              r1 + 2 * cs1, r2,       r2 + cs2,     r2 + 2 * cs2, zp};
      tail(d, k, px, wp, 9, 5, o, true, u8);
    }
  }
}

/* Output rows [oy0, oy1) of batch b with `pairs` (PAIRS when a constant) of taps. k2, wp2 (8
 * channels, stride 1 across; else NULL): two neighbouring pixels inside are one 16-lane block
 * (a tap's 16 bytes are both pixels' 8 channels) against the weights and tables repeated. Tap
 * pointers: each output row's filter rows once (NULL outside the input); pixels whose window
 * lies inside the input's columns (a range of ox) advance the previous pixel's pointers by
 * the stride, the others take each tap's column or the zero points. */
static inline __attribute__((always_inline)) void
rows(const dwk *dp, int32_t b, int32_t oy0, int32_t oy1, const int16_t *wp, const int8_t *zp,
     const dw_consts *kp, const dw_consts *k2p, const int16_t *wp2, int32_t fh, int32_t fw,
     int32_t pairs, bool fold, bool u8) {
  /* Local copies: the output's byte stores may alias anything, and would make the compiler
   * read the constants and table pointers again after each. */
  const dwk dl = *dp;
  const dw_consts kl = *kp, k2l = k2p ? *k2p : *kp;
  const dwk *d = &dl;
  const dw_consts *k = &kl, *k2 = k2p ? &k2l : NULL;
  int32_t C = d->out_d, taps = fh * fw;
  const int8_t *px[66] = {0}, *row[64]; /* zeroed: -O3 cannot see that ox == lo sets them first */
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
    /* 3x3 inside the input's rows: the pixels inside its columns address their taps from
     * the window's corner; the others (ox < lo, ox >= hi) take the loop below. */
    int32_t inside0 = 0, inside1 = 0;
    if (fh == 3 && fw == 3 && fold && d->dil_w == 1 && lo < hi) {
      size_t x0 = (size_t)(lo * d->stride_w - d->pad_w) * C, cs = C;
      inside0 = lo, inside1 = hi;
      if (rows_in && k->w6)
        (u8 ? sweep3x3_u8 : sweep3x3_s8)(d, k, row[0] + x0, (size_t)d->in_w * C, hi - lo,
                                         o + (size_t)lo * C);
      else if (rows_in) /* one step for every row */
        inside3x3(d, k, k2, wp2, row[0] + x0, row[1] + x0, row[2] + x0, cs, cs, cs, wp, zp, lo, hi,
                  o + (size_t)lo * C, u8);
      else
        inside3x3(d, k, k2, wp2, row[0] ? row[0] + x0 : zp, row[1] ? row[1] + x0 : zp,
                  row[2] ? row[2] + x0 : zp, row[0] ? cs : 0, row[1] ? cs : 0, row[2] ? cs : 0, wp,
                  zp, lo, hi, o + (size_t)lo * C, u8);
    }
    for (int32_t ox = 0; ox < d->out_w; ox++, o += C) {
      if (ox == inside0 && inside0 < inside1) {
        ox = inside1 - 1, o += (size_t)(inside1 - 1 - inside0) * C;
        continue;
      }
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
      if (k2 && rows_in && ox >= lo && ox + 1 < hi) { /* this pixel and the next, inside */
        block16(d, k2, px, 0, wp2, pairs, o, fold, u8);
#pragma GCC unroll 25
        for (int32_t t = 0; t < taps; t++)
          px[t] += step;
        ox++, o += C;
        continue;
      }
      pixel(d, k, px, wp, taps, pairs, o, fold, u8);
    }
  }
}

/* fbias = bias + in_off * (sum of the weights + taps * f_off), 8 channels a step, and whether
 * requant_tab's t stays in int32 for every vector channel: |bias| + (|in_off| + the largest
 * input) * (sum of |weight + f_off|) + 2^(e - 1) <= INT32_MAX bounds |x| + 2^(e - 1) >= |t| (the
 * sum of products, wrapping nowhere, and |h| <= |x|). (The channels past the 8-channel blocks
 * take the reference's arithmetic.) */
static inline __attribute__((always_inline)) bool
fold_bias(const dwk *d, int32_t taps, const int32_t *right, int32_t r1, int32_t *fbias, bool u8) {
  int32_t C = d->out_d, in_abs = d->in_off < 0 ? -d->in_off : d->in_off;
  const __m256i ioff = _mm256_set1_epi32(d->in_off), foff = _mm256_set1_epi32(d->f_off),
                wsum0 = _mm256_set1_epi32(taps * d->f_off), one = _mm256_set1_epi32(1),
                top = _mm256_set1_epi32(INT32_MAX),
                span = _mm256_set1_epi32(in_abs + (u8 ? 255 : 128));
  __m256i bad = _mm256_setzero_si256();
  int32_t c = 0;
  for (; c + 8 <= C; c += 8) {
    __m256i sw = wsum0, sa = _mm256_setzero_si256();
    for (int32_t t = 0; t < taps; t++) {
      __m128i v = _mm_loadl_epi64((const __m128i *)(d->f + (size_t)t * C + (size_t)c));
      __m256i w = u8 ? _mm256_cvtepu8_epi32(v) : _mm256_cvtepi8_epi32(v);
      sw = _mm256_add_epi32(sw, w);
      sa = _mm256_add_epi32(sa, _mm256_abs_epi32(_mm256_add_epi32(w, foff)));
    }
    __m256i bv =
        d->bias ? _mm256_loadu_si256((const __m256i *)(d->bias + c)) : _mm256_setzero_si256();
    _mm256_storeu_si256((__m256i *)(fbias + c), _mm256_add_epi32(bv, _mm256_mullo_epi32(ioff, sw)));
    __m256i e = u8 ? _mm256_set1_epi32(r1) : _mm256_loadu_si256((const __m256i *)(right + c));
    __m256i lim = _mm256_sub_epi32(_mm256_sub_epi32(top, _mm256_mullo_epi32(span, sa)),
                                   _mm256_srli_epi32(_mm256_sllv_epi32(one, e), 1));
    __m256i ab = _mm256_abs_epi32(bv); /* INT32_MIN stays negative */
    bad = _mm256_or_si256(bad, _mm256_or_si256(_mm256_cmpgt_epi32(ab, lim),
                                               _mm256_cmpgt_epi32(_mm256_setzero_si256(), ab)));
  }
  for (; c < C; c++) {
    uint32_t sw = (uint32_t)taps * (uint32_t)d->f_off;
    for (int32_t t = 0; t < taps; t++) {
      int8_t w = d->f[(size_t)t * C + c];
      sw += (uint32_t)(u8 ? (int32_t)(uint8_t)w : (int32_t)w);
    }
    fbias[c] = (int32_t)((d->bias ? (uint32_t)d->bias[c] : 0u) + (uint32_t)d->in_off * sw);
  }
  return _mm256_testz_si256(bad, bad);
}

/* A table of n channels (t) in block16's order: each 16-channel group's channels 4-7 and 8-11
 * swapped (the 8-channel block after the groups keeps its order). */
static inline void grouped16(int32_t *t, int32_t n) {
  for (int32_t g = 0; g + 16 <= n; g += 16) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(t + g)),
            b = _mm256_loadu_si256((const __m256i *)(t + g + 8));
    _mm256_storeu_si256((__m256i *)(t + g), _mm256_permute2x128_si256(a, b, 0x20));
    _mm256_storeu_si256((__m256i *)(t + g + 8), _mm256_permute2x128_si256(a, b, 0x31));
  }
}

/* fold_nudge of 4 shifts, the low halves of e's 64-bit lanes. */
static inline __m256i fold_nudge4(__m256i e) {
  const __m256i low = _mm256_set1_epi64x(0xffffffff), one = _mm256_set1_epi64x(1);
  e = _mm256_and_si256(e, low);
  __m256i v = _mm256_sllv_epi64(one, _mm256_add_epi64(e, _mm256_set1_epi64x(30)));
  v = _mm256_and_si256(v, _mm256_cmpgt_epi64(e, _mm256_setzero_si256()));
  return _mm256_add_epi64(v, _mm256_set1_epi64x(1ll << 30));
}

/* The tables of n channels in requant_tab's order: block16's, the nudges of each 8
 * channels' even lanes then odd ones, the compares (8 channels a step; the channels past them
 * take the reference's arithmetic). */
static void order_tables(int32_t *fbias, int32_t *right, int32_t *mult, int32_t *gt, int64_t *nudge,
                         int32_t n, bool u8) {
  grouped16(fbias, n);
  if (u8) return;
  grouped16(right, n), grouped16(mult, n);
  const __m256i one = _mm256_set1_epi32(1), min = _mm256_set1_epi32(INT32_MIN);
  for (int32_t c = 0; c + 8 <= n; c += 8) {
    __m256i e = _mm256_loadu_si256((const __m256i *)(right + c));
    _mm256_storeu_si256((__m256i *)(nudge + c), fold_nudge4(e));
    _mm256_storeu_si256((__m256i *)(nudge + c + 4), fold_nudge4(_mm256_srli_epi64(e, 32)));
    _mm256_storeu_si256(
        (__m256i *)(gt + c),
        _mm256_blendv_epi8(min, one, _mm256_cmpgt_epi32(e, _mm256_setzero_si256())));
  }
}

static inline __attribute__((always_inline)) bool run(const dwk *d, int32_t b, int32_t oy0,
                                                      int32_t oy1, void *ws, bool u8) {
  int32_t C = d->out_d, taps = d->f_h * d->f_w, pairs = (taps + 1) / 2;
  _Alignas(32) dw_tabs tb;
  int32_t *fbias = tb.fbias, *right = tb.right, *gt = tb.gt, *mult = tb.mult;
  int64_t *nudge = tb.nudge;
  /* Folding needs shifts in [-31, 0] (requant_tab), the tables' room and an input offset that
   * keeps fits_fold's bound in int32; int8's right shifts tabulated on the way (8 channels a
   * step). */
  bool fold = C <= FOLD_MAX && d->in_off >= -512 && d->in_off <= 512 &&
              (!u8 || (d->shift1 <= 0 && d->shift1 >= -31));
  if (u8 && !fold) return false; /* the uint8 table's kernel */
  if (!u8 && fold) {
    const __m256i one = _mm256_set1_epi32(1), lo = _mm256_set1_epi32(-32);
    __m256i bad = _mm256_setzero_si256();
    int32_t c = 0;
    for (; c + 8 <= C; c += 8) {
      __m256i sh = _mm256_loadu_si256((const __m256i *)(d->qshift + c));
      bad =
          _mm256_or_si256(bad, _mm256_or_si256(_mm256_cmpgt_epi32(sh, _mm256_setzero_si256()),
                                               _mm256_cmpgt_epi32(lo, _mm256_sub_epi32(sh, one))));
      _mm256_store_si256((__m256i *)(right + c), _mm256_sub_epi32(_mm256_setzero_si256(), sh));
      _mm256_store_si256((__m256i *)(mult + c),
                         _mm256_loadu_si256((const __m256i *)(d->qmult + c)));
    }
    fold = _mm256_testz_si256(bad, bad);
    for (; fold && c < C; c++) {
      fold = d->qshift[c] <= 0 && d->qshift[c] >= -31;
      right[c] = -d->qshift[c];
      mult[c] = d->qmult[c];
    }
    mult[C] = 0; /* (read by the last odd lanes, unused) */
  }
  int16_t *wp = ws;
  int8_t *zp = (int8_t *)ws + (size_t)pairs * (size_t)(C / 8) * 32;
  /* and the 16 past C (ap_fast_dw_ws's), which the two-pixel blocks read */
  memset(zp, -d->in_off, (size_t)C + 16);
  pack_weights(d, taps, wp, u8);
  int32_t r1 = u8 ? -d->shift1 : 0;
  dw_consts k = {.off = _mm256_set1_epi32(d->out_off),
                 .lo = _mm256_set1_epi32(d->act_min),
                 .hi = _mm256_set1_epi32(d->act_max),
                 .vin16 = _mm256_set1_epi16((int16_t)d->in_off),
                 .off16 = _mm256_set1_epi16((int16_t)d->out_off),
                 .lo8 = _mm_set1_epi8((char)d->act_min),
                 .hi8 = _mm_set1_epi8((char)d->act_max),
                 .t = &tb,
                 .t0 = 0,
                 .m1 = _mm256_set1_epi32(d->mult1),
                 .right1 = _mm256_set1_epi32(r1),
                 .nudge1 = _mm256_set1_epi64x(fold_nudge(r1)),
                 .gt1 = _mm256_set1_epi32(r1 > 0 ? 1 : INT32_MIN)};
  if (fold) fold = fold_bias(d, taps, right, r1, fbias, u8);
  if (u8 && !fold) return false;
  /* 8 channels with stride 1 across: pixels in twos (rows' k2), from the tables in order */
  _Alignas(32) int16_t wp2[32 * 32];
  dw_consts k2 = k;
  const dw_consts *two = NULL;
  if (C == 8 && d->stride_w == 1 && fold) {
    /* their tables in tb's entries [16, 32) (C == 8: the pixels' own use [0, 8]) */
    int32_t *fbias2 = fbias + 16, *right2 = right + 16, *gt2 = gt + 16, *mult2 = mult + 16;
    int64_t *nudge2 = nudge + 16;
    const __m256i foff = _mm256_set1_epi16((int16_t)d->f_off);
    for (int32_t q = 0; q < pairs; q++) {
      __m128i wa = _mm_loadl_epi64((const __m128i *)(d->f + (size_t)(2 * q) * C));
      __m128i wb = 2 * q + 1 < taps
                       ? _mm_loadl_epi64((const __m128i *)(d->f + (size_t)(2 * q + 1) * C))
                       : _mm_setzero_si128();
      __m256i a = _mm256_add_epi16(widen_v(_mm_unpacklo_epi64(wa, wa), u8), foff);
      __m256i bb = widen_v(_mm_unpacklo_epi64(wb, wb), u8);
      bb = 2 * q + 1 < taps ? _mm256_add_epi16(bb, foff) : _mm256_setzero_si256();
      _mm256_store_si256((__m256i *)(wp2 + (size_t)q * 32), _mm256_unpacklo_epi16(a, bb));
      _mm256_store_si256((__m256i *)(wp2 + (size_t)q * 32 + 16), _mm256_unpackhi_epi16(a, bb));
    }
    for (int32_t i = 0; i < 16; i++) {
      fbias2[i] = fbias[i % 8];
      right2[i] = right[i % 8];
      mult2[i] = u8 ? 0 : d->qmult[i % 8];
    }
    mult2[16] = 0;
    order_tables(fbias2, right2, mult2, gt2, nudge2, 16, u8);
    k2.t0 = 16;
    two = &k2;
  }
  if (fold) order_tables(fbias, right, mult, gt, nudge, C, u8);
  /* 3x3, stride 1 across, 16 or 32 channels: sweep3x3's weights (24 bytes a channel). Timed
   * against inside3x3 (bench_dw_bench, min and quartile of interleaved evals): 112x112x32 and
   * 24x24x32 8% faster; 12x12x64 and 56x56x144 the same, 16x16x64 uint8 3% slower (wider
   * pixels have less loop overhead to save, short rows pay the sweep's start). */
  _Alignas(32) int16_t w6[2 * 192];
  if (fold && d->f_h == 3 && d->f_w == 3 && d->dil_w == 1 && d->stride_w == 1 &&
      (C == 16 || C == 32)) {
    pack_sweep(d, w6, u8);
    k.w6 = w6;
  }
  /* the common filters with constant extents: every tap loop unrolled */
  if (d->f_h == 3 && d->f_w == 3 && fold)
    rows(d, b, oy0, oy1, wp, zp, &k, two, wp2, 3, 3, 5, true, u8);
  else if (d->f_h == 5 && d->f_w == 5 && fold)
    rows(d, b, oy0, oy1, wp, zp, &k, two, wp2, 5, 5, 13, true, u8);
  else if (fold)
    rows(d, b, oy0, oy1, wp, zp, &k, two, wp2, d->f_h, d->f_w, pairs, true, u8);
  else if (!u8)
    rows(d, b, oy0, oy1, wp, zp, &k, NULL, NULL, d->f_h, d->f_w, pairs, false, false);
  return true;
}

void ap_fast_avx2_dw1(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws) {
  dwk k = {.in = d->in,
           .f = d->f,
           .bias = d->bias,
           .out = d->out,
           .geom = d->geom,
           .in_off = d->in_off,
           .out_off = d->out_off,
           .act_min = d->act_min,
           .act_max = d->act_max,
           .qmult = d->qmult,
           .qshift = d->qshift};
  run(&k, b, oy0, oy1, ws, false);
}

bool ap_fast_avx2_u8dw1(const ap_u8dw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws) {
  if (d->mult != 1 || d->f_h * d->f_w > 64) return false;
  dwk k = {.in = (const int8_t *)d->in,
           .f = (const int8_t *)d->f,
           .bias = d->bias,
           .out = (int8_t *)d->out,
           .geom = d->geom,
           .in_off = d->in_off,
           .f_off = d->f_off,
           .out_off = d->q.out_off,
           .act_min = d->q.lo,
           .act_max = d->q.hi,
           .mult1 = d->q.mult,
           .shift1 = d->q.shift};
  return run(&k, b, oy0, oy1, ws, true);
}
#else
typedef int ap_fast_dw_avx2_unused; /* x86-64 only */
#endif
