/* CONV_2D int8 (and uint8, TFLite's legacy per-tensor kernel: its filter offset added to the
 * weights as they are widened) with few taps per output (k = f_h x f_w x in_d <= 32: a first
 * layer's 3x3 over RGB, a 1x1 over 8 or 16 channels) and 8 or 16 output channels, on the AVX2
 * level. The general
 * products spend such a convolution on their overheads: a row of int16 built per pixel and
 * padded to 16 taps, four rows tiled against 16 channels whatever n is, a call per tile; a
 * product of 8 taps is smaller than the exact requantization that follows it. Here output
 * channels sit in lanes, 8 to a vector, the weights widened once per task into (tap pair, 8
 * channels) vectors on the stack (1 KiB), the pixels taken two at a time, each pair of
 * (input + offset) taps broadcast against the vectors, the sums started at the bias and
 * requantized together (one 16-byte result: 8 channels of both pixels). Sums of
 * (input + offset) x weight in int32 lanes (vpmaddwd: exact, wrapping as the reference's);
 * taps outside the input are 0, as the reference's skipped ones. Scratch: the per-channel
 * multipliers (int8; uint8 none), as the reference's, so that the smallest plan keeps it too. From
 * 32 channels on, the tiled products win (each 8 channels more take the broadcasts again). */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/int8_x86.h"
#include "kernels/fast/lean.h"

enum {
  SK_MAX_K = 32, /* taps per output */
  SK_PAIRS = SK_MAX_K / 2,
  SK_MAX_N = 16, /* output channels (vww's 1x1 from 16 to 32 channels: 8.5 us tiled, 10.3 here) */
  SK_BLOCKS = SK_MAX_N / 8
};

typedef struct sk_plan {
  int32_t n, k, m, chunks;
  int64_t pairs; /* of output pixels (the last may be one) */
  /* A patch's taps as nseg runs of `run` adjacent input bytes (a filter row's, or one tap's
   * channels when dilated across), run i at soff[i] from the pixel's first tap; in the int16
   * patch each run starts at an even lane (run2 = run rounded up to even, its extra lane's
   * weight 0), so that no tap pair straddles two runs: k2 pairs in all. */
  int32_t nseg, run, run2, k2;
  ptrdiff_t soff[SK_MAX_K];
  ptrdiff_t reach; /* bytes from the first tap past which the runs' 16-byte loads read */
  bool u8;         /* uint8 (TFLite's legacy per-tensor kernel): a filter offset */
  size_t total;
} sk_plan;

static bool plan(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                 const ap_ktensor *f, sk_plan *pl) {
  if (!x || !x->level || x->level->level != AP_SIMD_AVX2 || !p || !in || !f ||
      !(p->kind == AP_KCONV_INT8
            ? p->filter_offset == 0 && p->input_offset >= -127 && p->input_offset <= 128
            : p->kind == AP_KCONV_UINT8 && p->filter_offset >= -255 && p->filter_offset <= 0 &&
                  p->input_offset >= -255 && p->input_offset <= 0) ||
      in->rank != 4 || f->rank != 4 || p->out_shape.rank != 4 || f->dims[3] != in->dims[3] ||
      p->stride_h < 1 || p->stride_w < 1 || p->dilation_h < 1 || p->dilation_w < 1)
    return false;
  int64_t d = in->dims[3], fh = f->dims[1], fw = f->dims[2], n = f->dims[0];
  if (d <= 0 || fh <= 0 || fw <= 0 || n <= 0 || n > SK_MAX_N || n % 8 != 0 ||
      p->out_shape.dims[3] != n || fh * fw * d > SK_MAX_K)
    return false;
  int64_t m = (int64_t)p->out_shape.dims[0] * p->out_shape.dims[1] * p->out_shape.dims[2];
  if (m <= 0 || m > INT32_MAX - 2) return false;
  pl->nseg = (int32_t)(p->dilation_w == 1 ? fh : fh * fw);
  pl->run = (int32_t)(p->dilation_w == 1 ? fw * d : d);
  pl->run2 = pl->run + (pl->run & 1);
  if ((int64_t)pl->nseg * pl->run2 > SK_MAX_K) return false;
  int64_t row = (int64_t)in->dims[2] * d * p->dilation_h;
  for (int32_t i = 0; i < pl->nseg; i++)
    pl->soff[i] =
        (ptrdiff_t)(p->dilation_w == 1 ? i * row : i / fw * row + i % fw * p->dilation_w * d);
  pl->reach = pl->soff[pl->nseg - 1] + (pl->run > 16 ? 32 : 16);
  pl->n = (int32_t)n;
  pl->k = (int32_t)(fh * fw * d);
  pl->k2 = pl->nseg * pl->run2 / 2;
  pl->m = (int32_t)m;
  pl->pairs = (m + 1) / 2;
  int tasks = ap_fast_tasks(x, (uint64_t)m * (uint64_t)n * (uint64_t)pl->k, pl->pairs);
  pl->chunks = ap_fast_chunks(tasks, 4, pl->pairs);
  /* int8: the per-channel multipliers, then the shifts (uint8: one, in the parameters) */
  pl->u8 = p->kind == AP_KCONV_UINT8;
  pl->total = pl->u8 ? 0 : (size_t)n * 8;
  return true;
}

bool ap_fast_smallk_conv_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                                 const ap_ktensor *f, size_t *scratch) {
  sk_plan pl;
  if (!plan(x, p, in, f, &pl)) return false;
  *scratch = pl.total;
  return true;
}

typedef struct sk_job {
  const sk_plan *pl;
  const int8_t *in, *in_end, *w;
  const int32_t *bias, *qmult, *qshift;
  int8_t *out;
  AP_FAST_GEOM;
  int32_t in_off, f_off, out_off, act_min, act_max;
  size_t batch_bytes;
  int32_t oy_lo, oy_hi, ox_lo, ox_hi; /* the output pixels whose taps are all inside */
  const int16_t (*wt)[SK_PAIRS][16];  /* the weights widened (sk_weights) */
} sk_job;

/* The first output coordinate at or past which o * stride - pad >= 0, and the first past
 * which o * stride - pad + span reaches `size` (span: the filter's extent less one). */
static void sk_inside(int32_t out, int32_t stride, int32_t pad, int64_t span, int32_t size,
                      int32_t *lo, int32_t *hi) {
  int64_t a = ((int64_t)pad + stride - 1) / stride, b = size - span + pad; /* o * stride < b */
  int64_t h = b <= 0 ? 0 : (b + stride - 1) / stride;
  *lo = (int32_t)(a < out ? a : out);
  *hi = (int32_t)(h < out ? h : out);
}

/* An output pixel, walked in order without divisions. */
typedef struct sk_pos {
  int32_t b, oy, ox;
} sk_pos;

/* The offset from the input of the first tap of the pixel at q (negative or past the input
 * where that tap is outside it). */
static inline ptrdiff_t sk_at(const sk_job *j, const sk_pos *q) {
  return (ptrdiff_t)q->b * (ptrdiff_t)j->batch_bytes +
         (((ptrdiff_t)q->oy * j->stride_h - j->pad_h) * j->in_w +
          ((ptrdiff_t)q->ox * j->stride_w - j->pad_w)) *
             j->in_d;
}

static inline __m256i sk_widen(const int8_t *s, __m256i off, bool u8) {
  __m128i v = _mm_loadu_si128((const __m128i *)s);
  return _mm256_add_epi16(u8 ? _mm256_cvtepu8_epi16(v) : _mm256_cvtepi8_epi16(v), off);
}

/* An input byte as a value. */
static inline int32_t sk_value(const int8_t *s, bool u8) {
  return u8 ? *(const uint8_t *)s : *s;
}

/* The pixel at q's taps as int16 (input + offset) in a's runs (plan's layout; a holds 64
 * lanes: a run's 16-lane stores spill past it, into the next run's lanes, written after, or
 * past the patch). Taps outside the input are 0, as the reference's skipped ones. */
static inline __attribute__((always_inline)) void sk_patch(const sk_job *j, const sk_plan *pl,
                                                           const sk_pos *q, int16_t *a) {
  const int32_t d = j->in_d, run = pl->run, run2 = pl->run2;
  const int64_t y0 = (int64_t)q->oy * j->stride_h - j->pad_h,
                x0 = (int64_t)q->ox * j->stride_w - j->pad_w;
  const int8_t *in_b = j->in + (size_t)q->b * j->batch_bytes;
  const __m256i off = _mm256_set1_epi16((int16_t)j->in_off);
  if (q->ox >= j->ox_lo && q->ox < j->ox_hi && q->oy >= j->oy_lo && q->oy < j->oy_hi) {
    const int8_t *first = in_b + ((size_t)y0 * (size_t)j->in_w + (size_t)x0) * (size_t)d;
    if (j->in_end - first >= pl->reach) { /* every run's 16 or 32 bytes inside the input */
      for (int32_t i = 0; i < pl->nseg; i++) {
        const int8_t *s = first + pl->soff[i];
        _mm256_storeu_si256((__m256i *)(a + i * run2), sk_widen(s, off, pl->u8));
        if (run > 16)
          _mm256_storeu_si256((__m256i *)(a + i * run2 + 16), sk_widen(s + 16, off, pl->u8));
      }
      return;
    }
    for (int32_t i = 0; i < pl->nseg; i++) { /* the input's last bytes */
      const int8_t *s = first + pl->soff[i];
      int16_t *dst = a + i * run2;
      for (int32_t t = 0; t < run; t++)
        dst[t] = (int16_t)(sk_value(s + t, pl->u8) + j->in_off);
      if (run2 > run) dst[run] = 0;
    }
    return;
  }
  if (j->dil_w == 1) {
    /* A border pixel (a first layer's map's edges): per filter row, a run all outside (above or
     * below the input) is zeros, one all inside widened as an inner pixel's (a first layer's
     * bottom row: two rows in, one out), one cut at the left or right edge taken tap by tap
     * between 0s. Stores of 16 lanes spill into the next run's lanes, written after. */
    int64_t fx0 = x0 < 0 ? -x0 : 0, fx1 = j->in_w - x0 < j->f_w ? j->in_w - x0 : j->f_w;
    fx1 = fx1 < fx0 ? fx0 : fx1;
    const int32_t lo = (int32_t)(fx0 * d), hi = (int32_t)(fx1 * d);
    const ptrdiff_t at = (ptrdiff_t)x0 * d, wide = run > 16 ? 32 : 16;
    for (int32_t fy = 0; fy < j->f_h; fy++) {
      int64_t iy = y0 + (int64_t)j->dil_h * fy;
      int16_t *dst = a + fy * run2;
      if (iy < 0 || iy >= j->in_h) {
        _mm256_storeu_si256((__m256i *)dst, _mm256_setzero_si256());
        if (run2 > 16) _mm256_storeu_si256((__m256i *)(dst + 16), _mm256_setzero_si256());
        continue;
      }
      /* tap t's byte: row[at + t], an index >= 0 from lo on */
      const int8_t *row = in_b + (size_t)iy * (size_t)j->in_w * (size_t)d;
      if (lo == 0 && hi == run && j->in_end - (row + at) >= wide) {
        _mm256_storeu_si256((__m256i *)dst, sk_widen(row + at, off, pl->u8));
        if (run > 16)
          _mm256_storeu_si256((__m256i *)(dst + 16), sk_widen(row + at + 16, off, pl->u8));
        continue;
      }
      int32_t t = 0;
      for (; t < lo; t++)
        dst[t] = 0;
      for (; t < hi; t++)
        dst[t] = (int16_t)(sk_value(row + (at + t), pl->u8) + j->in_off);
      for (; t < run2; t++)
        dst[t] = 0;
    }
    return;
  }
  for (int32_t fy = 0; fy < j->f_h; fy++) {
    int64_t iy = y0 + (int64_t)j->dil_h * fy;
    for (int32_t fx = 0; fx < j->f_w; fx++) {
      int64_t ix = x0 + (int64_t)j->dil_w * fx;
      int16_t *dst = a + (fy * j->f_w + fx) * run2;
      if (iy < 0 || iy >= j->in_h || ix < 0 || ix >= j->in_w) {
        for (int32_t c = 0; c < d; c++)
          dst[c] = 0;
        continue;
      }
      const int8_t *s = in_b + ((size_t)iy * (size_t)j->in_w + (size_t)ix) * (size_t)d;
      for (int32_t c = 0; c < d; c++)
        dst[c] = (int16_t)(sk_value(s + c, pl->u8) + j->in_off);
    }
  }
  if (run2 > run)
    for (int32_t i = 0; i < pl->nseg; i++)
      a[i * run2 + run] = 0;
}

/* The broadcast tap pair p of a patch (its two int16 as one int32). */
static inline __m256i sk_pair(const int16_t *a, int32_t p) {
  int32_t v;
  memcpy(&v, a + 2 * p, 4);
  return _mm256_set1_epi32(v);
}

/* rq16_bytes for uint8: packed to uint8 with saturation, clamped there (its bounds lie in
 * uint8, so the saturations change nothing the clamp keeps). */
static inline __m128i rq16_ubytes(__m256i a, __m256i b, __m256i off16, __m128i lo8, __m128i hi8) {
  __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8);
  p = _mm256_adds_epi16(p, off16);
  __m128i v = _mm_packus_epi16(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
  return _mm_min_epu8(_mm_max_epu8(v, lo8), hi8);
}

/* Pixels [r0, r1) with K2 tap pairs (a constant where inlined: the pair loop unrolled). */
static inline __attribute__((always_inline)) void sk_rows(const sk_job *j, int32_t r0, int32_t r1,
                                                          const int32_t K2,
                                                          const int16_t (*w)[SK_PAIRS][16],
                                                          const rq8 *q) {
  /* Local copies: the patches' vector stores may alias anything, so fields read through
   * pointers would be loaded again after each. */
  const sk_job jc = *j;
  const sk_plan pc = *j->pl;
  j = &jc;
  const int32_t n = pc.n, nb = n / 8;
  const __m256i off16 = _mm256_set1_epi16((int16_t)j->out_off);
  const __m128i lo8 = _mm_set1_epi8((char)j->act_min), hi8 = _mm_set1_epi8((char)j->act_max);
  const __m256i lo32 = _mm256_set1_epi8((char)j->act_min),
                hi32 = _mm256_set1_epi8((char)j->act_max);
  /* every left shift 0 (multipliers below one): rq8_mul0, one operation fewer a vector */
  bool right0 = true;
  for (int32_t b = 0; b < nb; b++)
    right0 = right0 && rq8_left0(&q[b]);
  _Alignas(32) int16_t a0[2 * SK_MAX_K] = {0}, a1[2 * SK_MAX_K] = {0};
  /* The walk over the pixels in scalars (registers): the offset of each one's first tap from
   * the input (outside it at the borders), whether its row's taps are all inside; a pixel all
   * inside widens its runs straight from there, the others through sk_patch. */
  const int8_t *const in = j->in, *const in_end = j->in_end;
  const int32_t out_w = j->out_w, out_h = j->out_h, ox_lo = j->ox_lo, ox_hi = j->ox_hi,
                oy_lo = j->oy_lo, oy_hi = j->oy_hi, nseg = pc.nseg, run = pc.run, run2 = pc.run2;
  const ptrdiff_t xstep = (ptrdiff_t)j->stride_w * j->in_d, reach = pc.reach;
  const bool u8 = pc.u8;
  /* The common runs' counts with 16 taps or fewer each, stored without a loop: a first layer's
   * three filter rows, a 1x1's one run. */
  const bool three = nseg == 3 && run <= 16, one = nseg == 1 && run <= 16;
  const ptrdiff_t so1 = nseg > 1 ? pc.soff[1] : 0, so2 = nseg > 2 ? pc.soff[2] : 0;
  const __m256i ioff = _mm256_set1_epi16((int16_t)j->in_off);
  sk_pos pos = {r0 / out_w / out_h, r0 / out_w % out_h, r0 % out_w};
  ptrdiff_t at = sk_at(j, &pos);
  bool row_in = pos.oy >= oy_lo && pos.oy < oy_hi;
#define SK_PIXEL(A)                                                                                \
  do {                                                                                             \
    if (row_in && pos.ox >= ox_lo && pos.ox < ox_hi && in_end - (in + at) >= reach) {              \
      const int8_t *f_ = in + at;                                                                  \
      if (three && u8) {                                                                           \
        _mm256_storeu_si256((__m256i *)(A), sk_widen(f_, ioff, true));                             \
        _mm256_storeu_si256((__m256i *)((A) + run2), sk_widen(f_ + so1, ioff, true));              \
        _mm256_storeu_si256((__m256i *)((A) + 2 * run2), sk_widen(f_ + so2, ioff, true));          \
      } else if (three) {                                                                          \
        _mm256_storeu_si256((__m256i *)(A), sk_widen(f_, ioff, false));                            \
        _mm256_storeu_si256((__m256i *)((A) + run2), sk_widen(f_ + so1, ioff, false));             \
        _mm256_storeu_si256((__m256i *)((A) + 2 * run2), sk_widen(f_ + so2, ioff, false));         \
      } else if (one) {                                                                            \
        _mm256_storeu_si256((__m256i *)(A), sk_widen(f_, ioff, u8));                               \
      } else                                                                                       \
        for (int32_t i = 0; i < nseg; i++) {                                                       \
          const int8_t *s_ = in + at + pc.soff[i];                                                 \
          _mm256_storeu_si256((__m256i *)((A) + i * run2), sk_widen(s_, ioff, u8));                \
          if (run > 16)                                                                            \
            _mm256_storeu_si256((__m256i *)((A) + i * run2 + 16), sk_widen(s_ + 16, ioff, u8));    \
        }                                                                                          \
    } else {                                                                                       \
      sk_patch(j, &pc, &pos, A);                                                                   \
    }                                                                                              \
    if (++pos.ox == out_w) {                                                                       \
      pos.ox = 0;                                                                                  \
      if (++pos.oy == out_h) pos.oy = 0, pos.b++;                                                  \
      at = sk_at(j, &pos);                                                                         \
      row_in = pos.oy >= oy_lo && pos.oy < oy_hi;                                                  \
    } else {                                                                                       \
      at += xstep;                                                                                 \
    }                                                                                              \
  } while (0)
  for (int32_t r = r0; r < r1; r += 2) {
    bool two = r + 1 < r1;
    SK_PIXEL(a0);
    if (two) SK_PIXEL(a1);
    int8_t *o0 = j->out + (size_t)r * (size_t)n, *o1 = o0 + n;
    if (nb == 2) { /* 16 channels: each pair broadcast once for both blocks */
      __m256i s00 = q[0].bias, s10 = s00, s01 = q[1].bias, s11 = s01;
#pragma GCC unroll 8
      for (int32_t p = 0; p < K2; p++) {
        __m256i w0 = _mm256_load_si256((const __m256i *)w[0][p]),
                w1 = _mm256_load_si256((const __m256i *)w[1][p]);
        __m256i x0 = sk_pair(a0, p), x1 = sk_pair(a1, p);
        s00 = _mm256_add_epi32(s00, _mm256_madd_epi16(x0, w0));
        s10 = _mm256_add_epi32(s10, _mm256_madd_epi16(x1, w0));
        s01 = _mm256_add_epi32(s01, _mm256_madd_epi16(x0, w1));
        s11 = _mm256_add_epi32(s11, _mm256_madd_epi16(x1, w1));
      }
      if (right0 && !pc.u8) { /* both pixels' 32 bytes, one after the other, in one vector */
        __m256i v = rq32_bytes(rq8_mul0(s00, &q[0]), rq8_mul0(s01, &q[1]), rq8_mul0(s10, &q[0]),
                               rq8_mul0(s11, &q[1]), off16, lo32, hi32);
        if (two)
          _mm256_storeu_si256((__m256i *)o0, v);
        else
          _mm_storeu_si128((__m128i *)o0, _mm256_castsi256_si128(v));
        continue;
      }
      __m128i v0 =
          pc.u8 ? rq16_ubytes(rq8_mul_sum(s00, &q[0]), rq8_mul_sum(s10, &q[0]), off16, lo8, hi8)
                : rq16_bytes(rq8_mul_sum(s00, &q[0]), rq8_mul_sum(s10, &q[0]), off16, lo8, hi8);
      __m128i v1 =
          pc.u8 ? rq16_ubytes(rq8_mul_sum(s01, &q[1]), rq8_mul_sum(s11, &q[1]), off16, lo8, hi8)
                : rq16_bytes(rq8_mul_sum(s01, &q[1]), rq8_mul_sum(s11, &q[1]), off16, lo8, hi8);
      _mm_storeu_si128((__m128i *)o0, _mm_unpacklo_epi64(v0, v1));
      if (two) _mm_storeu_si128((__m128i *)o1, _mm_unpackhi_epi64(v0, v1));
      continue;
    }
    for (int32_t b = 0; b < nb; b++) {
      __m256i s0 = q[b].bias, s1 = s0; /* the sums start at the bias */
      /* Unrolled by 8 (vww's 1x1 over 8 channels, 4 pairs: 16.5 us from 19.5 as a loop; its
       * first layer, 15 pairs: 22-22.5 us, 24.3 as a loop, 32 unrolled whole). */
#pragma GCC unroll 8
      for (int32_t p = 0; p < K2; p++) {
        __m256i wv = _mm256_load_si256((const __m256i *)w[b][p]);
        s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(sk_pair(a0, p), wv));
        s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(sk_pair(a1, p), wv));
      }
      __m256i u0 = right0 ? rq8_mul0(s0, &q[b]) : rq8_mul_sum(s0, &q[b]),
              u1 = right0 ? rq8_mul0(s1, &q[b]) : rq8_mul_sum(s1, &q[b]);
      __m128i v =
          pc.u8 ? rq16_ubytes(u0, u1, off16, lo8, hi8) : rq16_bytes(u0, u1, off16, lo8, hi8);
      _mm_storel_epi64((__m128i *)(o0 + 8 * b), v);
      if (two) _mm_storeh_pd((double *)(o1 + 8 * b), _mm_castsi128_pd(v));
    }
  }
#undef SK_PIXEL
}

/* The weights as (pair, 8 channels) int16 vectors in the patch's lanes, 0 at a run's extra
 * lane: once an eval, on the caller's stack (1 KiB), which every piece reads. Widened per piece
 * as before, they cost 10 k instructions a piece (a division per lane), a third of a first
 * layer's work split into 8 pieces (mlperf_ic_resnet_int8's op 0: 295 k instructions on one
 * thread, 399 k over 8 pieces). */
static void sk_weights(const sk_plan *pl, const int8_t *w, int32_t f_off,
                       int16_t (*wt)[SK_PAIRS][16]) {
  const int32_t n = pl->n, k = pl->k, nseg = pl->nseg, run = pl->run, run2 = pl->run2, k2 = pl->k2;
  const bool u8 = pl->u8;
  const __m256i off = _mm256_set1_epi16((int16_t)f_off);
  for (int32_t c = 0; c < n; c++) {
    const int8_t *wc = w + (size_t)c * (size_t)k;
    /* the channel's lanes (stores of 16 spill past a run: 64 lanes), then stored a pair (int32)
     * at a time; a run's bytes copied first, so no load reads past the filter */
    _Alignas(32) int16_t v[2 * SK_MAX_K];
    for (int32_t i = 0; i < nseg; i++, wc += run) {
      int8_t b[32] = {0};
      memcpy(b, wc, (size_t)run);
      _mm256_storeu_si256((__m256i *)(v + i * run2), sk_widen(b, off, u8));
      if (run > 16) _mm256_storeu_si256((__m256i *)(v + i * run2 + 16), sk_widen(b + 16, off, u8));
      if (run2 > run) v[i * run2 + run] = 0; /* the extra lane's weight: 0 (not the offset) */
    }
    for (int32_t q = 0; q < k2; q++)
      memcpy(&wt[c / 8][q][c % 8 * 2], v + 2 * q, 4);
  }
}

static void sk_task(void *arg, int chunk) {
  const sk_job *j = arg;
  const sk_plan *pl = j->pl;
  int32_t r0 = (int32_t)(chunk * pl->pairs / pl->chunks * 2);
  int32_t r1 = (int32_t)((chunk + 1) * pl->pairs / pl->chunks * 2);
  if (r1 > pl->m) r1 = pl->m;
  const int16_t(*wt)[SK_PAIRS][16] = j->wt;
  rq8 q[SK_BLOCKS];
  for (int32_t b = 0; b < pl->n / 8; b++)
    q[b] = rq8_load(j->qmult + 8 * b, j->qshift + 8 * b, j->bias ? j->bias + 8 * b : NULL);
  switch (pl->k2) {
#define SK_CASE(K2)                                                                                \
  case K2: sk_rows(j, r0, r1, K2, wt, q); break;
    SK_CASE(1)
    SK_CASE(2)
    SK_CASE(3)
    SK_CASE(4)
    SK_CASE(5)
    SK_CASE(6)
    SK_CASE(7)
    SK_CASE(8)
    SK_CASE(9)
    SK_CASE(10)
    SK_CASE(11)
    SK_CASE(12)
    SK_CASE(13)
    SK_CASE(14)
    SK_CASE(15)
    SK_CASE(16)
#undef SK_CASE
  default: break; /* (plan bounds k2 by SK_PAIRS) */
  }
}

bool ap_fast_smallk_conv_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                              const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                              void *scratch, ap_status *s) {
  sk_plan pl;
  if (!out || !plan(x, p, in, f, &pl)) return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) || (pl.total && !scratch) ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  int32_t u8m[SK_MAX_N], u8s[SK_MAX_N], *mult = u8m, *shift = u8s;
  if (pl.u8) {
    for (int32_t c = 0; c < pl.n; c++)
      u8m[c] = p->output_multiplier, u8s[c] = p->output_shift;
  } else {
    mult = scratch, shift = mult + pl.n;
    ap_fast_channel_multipliers(p->input_scale, f, p->output_scale, pl.n, mult, shift);
  }
  _Alignas(32) int16_t wt[SK_BLOCKS][SK_PAIRS][16];
  sk_weights(&pl, f->data, p->filter_offset, wt);
  sk_job j = {.pl = &pl,
              .wt = (const int16_t(*)[SK_PAIRS][16])wt,
              .in = in->data,
              .in_end = (const int8_t *)in->data + (size_t)in->dims[0] * (size_t)in->dims[1] *
                                                       (size_t)in->dims[2] * (size_t)in->dims[3],
              .w = f->data,
              .bias = bias ? bias->data : NULL,
              .qmult = mult,
              .qshift = shift,
              .out = out->data,
              .geom = ap_fast_geom_of(p, in, f, out),
              .in_off = p->input_offset,
              .f_off = p->filter_offset,
              .out_off = p->output_offset,
              .act_min = p->act_min,
              .act_max = p->act_max,
              .batch_bytes = (size_t)in->dims[1] * (size_t)in->dims[2] * (size_t)in->dims[3]};
  sk_inside(j.out_h, j.stride_h, j.pad_h, (int64_t)j.dil_h * (j.f_h - 1), j.in_h, &j.oy_lo,
            &j.oy_hi);
  sk_inside(j.out_w, j.stride_w, j.pad_w, (int64_t)j.dil_w * (j.f_w - 1), j.in_w, &j.ox_lo,
            &j.ox_hi);
  ap_fast_parallel(x, sk_task, &j, pl.chunks);
  *s = AP_OK;
  return true;
}
#else
typedef int ap_fast_smallk_unused; /* x86-64 only */
#endif
