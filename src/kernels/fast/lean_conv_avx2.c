/* The lean int8 CONV_2D on AVX2 (lean.h says what and why): four output pixels at a time,
 * their patches widened on the stack for the AVX2 level's products (slabs below), or, when
 * longer, each read where it lies, two output channels' weights in place. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/int8_x86.h"
#include "kernels/fast/lean.h"

#define LEAN_R 4     /* output pixels per group */
#define LEAN_SEGS 16 /* runs of taps per pixel at most (else the other paths run) */
#define LEAN_NB 64   /* output channels per block of sums (on the stack) */
/* Patches of at most this many taps are first widened, four rows of (input + offset) as
 * int16 on the stack (5 KiB at most), for the level's own products (slabs below), which hold
 * them, a slab of weights and what else they need in LEAN_STACK_BYTES: no scratch to plan. */
#define LEAN_STACK_K AP_FAST_LEAN_WIDE_K
#define LEAN_STACK_BYTES 24576

typedef struct lean_plan {
  int32_t n, k, m, nseg;
  size_t mult, shift, total;
  /* An interior pixel's runs of taps: input bytes from its first tap, weight offset, length. */
  ptrdiff_t soff[LEAN_SEGS];
  int32_t swoff[LEAN_SEGS], slen[LEAN_SEGS];
} lean_plan;

static bool plan(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                 const ap_ktensor *f, lean_plan *pl) {
  if (!x || !x->lean || !x->level || !p || !in || !f ||
      (x->level->level != AP_SIMD_AVX2 && x->level->level != AP_SIMD_AVX512) ||
      p->kind != AP_KCONV_INT8 || p->filter_offset != 0 || in->rank != 4 || f->rank != 4 ||
      p->out_shape.rank != 4 || f->dims[3] != in->dims[3] || p->stride_h < 1 || p->stride_w < 1 ||
      p->dilation_h < 1 || p->dilation_w < 1)
    return false;
  int64_t d = in->dims[3], fh = f->dims[1], fw = f->dims[2];
  int64_t k = fh * fw * d, n = f->dims[0];
  int64_t oh = p->out_shape.dims[1], ow = p->out_shape.dims[2];
  int64_t m = (int64_t)p->out_shape.dims[0] * oh * ow;
  if (d <= 0 || fh <= 0 || fw <= 0 || n <= 0 || k > INT32_MAX / 4 || m <= 0 || m > INT32_MAX ||
      p->out_shape.dims[3] != n)
    return false;
  memset(pl, 0, sizeof *pl);
  pl->n = (int32_t)n;
  pl->k = (int32_t)k;
  pl->m = (int32_t)m;
  int64_t row = (int64_t)in->dims[2] * d * p->dilation_h;
  if (p->dilation_w == 1) {
    pl->nseg = (int32_t)fh;
    if (pl->nseg > LEAN_SEGS) return false;
    for (int32_t y = 0; y < pl->nseg; y++) {
      pl->soff[y] = (ptrdiff_t)(y * row);
      pl->swoff[y] = (int32_t)(y * fw * d);
      pl->slen[y] = (int32_t)(fw * d);
    }
  } else {
    if (fh * fw > LEAN_SEGS) return false;
    pl->nseg = (int32_t)(fh * fw);
    for (int32_t t = 0; t < pl->nseg; t++) {
      pl->soff[t] = (ptrdiff_t)(t / fw * row + t % fw * p->dilation_w * d);
      pl->swoff[t] = (int32_t)(t * d);
      pl->slen[t] = (int32_t)d;
    }
  }
  /* the multipliers, then the shifts: the reference's own scratch */
  pl->mult = 0;
  pl->shift = (size_t)n * 4;
  pl->total = (size_t)n * 8;
  return true;
}

bool ap_fast_lean_conv_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                               const ap_ktensor *f, size_t *scratch) {
  lean_plan pl;
  if (!plan(x, p, in, f, &pl)) return false;
  *scratch = pl.total;
  return true;
}

typedef struct lean_job {
  const lean_plan *pl;
  const ap_conv_params *p;
  const int8_t *in, *w, *w_end;
  const int32_t *bias, *mult, *shift;
  int8_t *out;
  int32_t out0; /* the pixel whose outputs start at out (n bytes a pixel from there) */
  int32_t in_h, in_w, in_d, out_h, out_w, f_h, f_w;
  /* The products over patches widened on the stack (slabs), where they apply; NULL: none. */
  const struct lean_slabs *sl;
  const ap_fast_geom *geom;
  const int8_t *in_end; /* past the input's last byte (patch16 reads up to it) */
} lean_job;

/* Output pixel r's first tap (possibly outside the input) and whether all its taps are in. */
static const int8_t *pixel(const lean_job *j, int32_t r, bool *inside) {
  const ap_conv_params *p = j->p;
  int32_t ox = r % j->out_w, oy = r / j->out_w % j->out_h, b = r / j->out_w / j->out_h;
  int64_t y0 = (int64_t)oy * p->stride_h - p->pad.pad_h,
          x0 = (int64_t)ox * p->stride_w - p->pad.pad_w;
  *inside = y0 >= 0 && x0 >= 0 && y0 + (int64_t)p->dilation_h * (j->f_h - 1) < j->in_h &&
            x0 + (int64_t)p->dilation_w * (j->f_w - 1) < j->in_w;
  if (!*inside) return NULL;
  return j->in + (((size_t)b * (size_t)j->in_h + (size_t)y0) * (size_t)j->in_w + (size_t)x0) *
                     (size_t)j->in_d;
}

static inline __m256i widen(const int8_t *p) {
  return _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)p));
}

/* 16 weights from p, read in place when 16 bytes fit before end (lanes past the run meet
 * zeros of x); else copied. */
static inline __m256i wtail(const int8_t *p, int32_t t, const int8_t *end) {
  if (p + 16 <= end) return widen(p);
  int8_t b[16] = {0};
  memcpy(b, p, (size_t)t);
  return widen(b);
}

/* The sums of four rows' two channels (sRC: row R, channel C) into acc's rows (LEAN_NB
 * apart), each row's pair as one 8-byte store (the second past nb when nb is odd: LEAN_NB is
 * even, so it stays in the row's own slots, unread). */
static inline void store_pairs(int32_t *acc, int32_t rows, __m256i s00, __m256i s01, __m256i s10,
                               __m256i s11, __m256i s20, __m256i s21, __m256i s30, __m256i s31) {
  __m256i u0 = _mm256_hadd_epi32(_mm256_hadd_epi32(s00, s01), _mm256_hadd_epi32(s10, s11));
  __m256i u1 = _mm256_hadd_epi32(_mm256_hadd_epi32(s20, s21), _mm256_hadd_epi32(s30, s31));
  __m256i v = _mm256_add_epi32(_mm256_permute2x128_si256(u0, u1, 0x20),
                               _mm256_permute2x128_si256(u0, u1, 0x31));
  __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
  _mm_storel_epi64((__m128i *)acc, lo);
  if (rows > 1) _mm_storel_epi64((__m128i *)(acc + LEAN_NB), _mm_unpackhi_epi64(lo, lo));
  if (rows > 2) _mm_storel_epi64((__m128i *)(acc + 2 * LEAN_NB), hi);
  if (rows > 3) _mm_storel_epi64((__m128i *)(acc + 3 * LEAN_NB), _mm_unpackhi_epi64(hi, hi));
}

/* rows (1..4) pixels whose runs of taps start at base[i] + soff[s], outputs at out + i * n. */
static void group(const lean_job *j, const int8_t *const base[LEAN_R], int32_t rows,
                  const ptrdiff_t *soff, const int32_t *swoff, const int32_t *slen, int32_t nseg,
                  int8_t *out) {
  const lean_plan *pl = j->pl;
  const int32_t n = pl->n, k = pl->k;
  const __m256i off = _mm256_set1_epi16((int16_t)j->p->input_offset);
  const __m256i iota = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const int8_t *r[LEAN_R];
  for (int32_t i = 0; i < LEAN_R; i++)
    r[i] = base[i < rows ? i : 0];
  /* Each run's last (len % 16) taps, offset, zeros past them: once for every channel. */
  __m256i xt[LEAN_SEGS][LEAN_R];
  for (int32_t s = 0; s < nseg; s++) {
    int32_t t = slen[s] % 16;
    if (!t) continue;
    __m256i mask = _mm256_cmpgt_epi16(_mm256_set1_epi16((int16_t)t), iota);
    for (int32_t i = 0; i < LEAN_R; i++) {
      int8_t b[16] = {0};
      memcpy(b, r[i] + soff[s] + (slen[s] - t), (size_t)t);
      xt[s][i] = _mm256_and_si256(_mm256_add_epi16(widen(b), off), mask);
    }
  }
  int32_t acc[LEAN_R * LEAN_NB];
  for (int32_t c0 = 0; c0 < n; c0 += LEAN_NB) {
    int32_t nb = n - c0 < LEAN_NB ? n - c0 : LEAN_NB;
    for (int32_t c = c0; c < c0 + nb; c += 2) {
      const int8_t *w0 = j->w + (size_t)c * (size_t)k, *w1 = c + 1 < n ? w0 + k : w0;
      __m256i s00 = _mm256_setzero_si256(), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00,
              s30 = s00, s31 = s00;
      for (int32_t s = 0; s < nseg; s++) {
        const int8_t *x0 = r[0] + soff[s], *x1 = r[1] + soff[s], *x2 = r[2] + soff[s],
                     *x3 = r[3] + soff[s];
        const int8_t *v0p = w0 + swoff[s], *v1p = w1 + swoff[s];
        int32_t full = slen[s] & ~15, d = 0;
        for (; d < full; d += 16) {
          __m256i v0 = widen(v0p + d), v1 = widen(v1p + d);
          __m256i a0 = _mm256_add_epi16(widen(x0 + d), off);
          __m256i a1 = _mm256_add_epi16(widen(x1 + d), off);
          __m256i a2 = _mm256_add_epi16(widen(x2 + d), off);
          __m256i a3 = _mm256_add_epi16(widen(x3 + d), off);
          s00 = _mm256_add_epi32(s00, _mm256_madd_epi16(a0, v0));
          s01 = _mm256_add_epi32(s01, _mm256_madd_epi16(a0, v1));
          s10 = _mm256_add_epi32(s10, _mm256_madd_epi16(a1, v0));
          s11 = _mm256_add_epi32(s11, _mm256_madd_epi16(a1, v1));
          s20 = _mm256_add_epi32(s20, _mm256_madd_epi16(a2, v0));
          s21 = _mm256_add_epi32(s21, _mm256_madd_epi16(a2, v1));
          s30 = _mm256_add_epi32(s30, _mm256_madd_epi16(a3, v0));
          s31 = _mm256_add_epi32(s31, _mm256_madd_epi16(a3, v1));
        }
        int32_t t = slen[s] - full;
        if (t) {
          __m256i v0 = wtail(v0p + d, t, j->w_end), v1 = wtail(v1p + d, t, j->w_end);
          s00 = _mm256_add_epi32(s00, _mm256_madd_epi16(xt[s][0], v0));
          s01 = _mm256_add_epi32(s01, _mm256_madd_epi16(xt[s][0], v1));
          s10 = _mm256_add_epi32(s10, _mm256_madd_epi16(xt[s][1], v0));
          s11 = _mm256_add_epi32(s11, _mm256_madd_epi16(xt[s][1], v1));
          s20 = _mm256_add_epi32(s20, _mm256_madd_epi16(xt[s][2], v0));
          s21 = _mm256_add_epi32(s21, _mm256_madd_epi16(xt[s][2], v1));
          s30 = _mm256_add_epi32(s30, _mm256_madd_epi16(xt[s][3], v0));
          s31 = _mm256_add_epi32(s31, _mm256_madd_epi16(xt[s][3], v1));
        }
      }
      store_pairs(acc + (c - c0), rows, s00, s01, s10, s11, s20, s21, s30, s31);
    }
    for (int32_t i = 0; i < rows; i++)
      requant_row(acc + i * LEAN_NB, j->bias ? j->bias + c0 : NULL, nb, j->mult + c0, j->shift + c0,
                  j->p->output_offset, j->p->act_min, j->p->act_max,
                  out + (size_t)i * (size_t)n + c0);
  }
}

/* Patches of at most LEAN_STACK_K taps: the AVX2 level's own products over 4-row groups of
 * patches widened on the stack (ap_fast_avx2_patch16, as the fast kernel builds them), in pixel
 * order (an output that starts inside its input, an in-place plan, graph/overlap.c, is written
 * pixel after pixel, each after the pixels before it read their windows). The weights:
 * - packed by the outer-product kit (16-channel blocks of int16 pairs, outputs in lanes, no
 *   horizontal sums: the fast kernel's own product and speed) where all of them fit beside
 *   the patches, packed once;
 * - else read in place by the in-place kit (8 channels at a time), in slabs of at most 64
 *   channels, every slab over a group before the next group.
 * The slab's col_bias (and the in-place kit's sums of a tail under 8 channels) sit in the same
 * bytes. (Packing part of the channels at a time, over all the rows, loses the pixel order and
 * builds every patch once per slab: measured slower than the in-place kit beyond one slab.) */
typedef struct lean_slabs {
  const ap_gemm_kit *kit;
  int32_t nb;          /* channels per slab */
  size_t a, bias, acc; /* byte offsets in the stack's buffer (the packing at 0) */
} lean_slabs;

/* The widest slab of nb channels (multiples of `step`, at most `max` and n rounded up to
 * step; all of n for the outer kit) whose bytes fit the stack's; false for none. */
static bool fit_slabs(const ap_gemm_kit *kit, int32_t n, int32_t k, int32_t step, int32_t max,
                      lean_slabs *sl) {
  bool outer = kit == &ap_fast_avx2_outer;
  size_t a = (size_t)LEAN_R * kit->arow_bytes(k);
  int32_t top = (n + step - 1) / step * step;
  for (int32_t nb = (outer || top < max) ? top : max; nb >= step; nb -= step) {
    size_t packed = kit->packed_bytes(nb, k), bias = packed + a,
           acc = bias + (size_t)nb * 4 /* col_bias */,
           end = acc + (outer ? 0 : (size_t)LEAN_R * (size_t)nb * 4);
    if (packed % 32 == 0 && end <= LEAN_STACK_BYTES) {
      *sl = (lean_slabs){kit, nb < n ? nb : n, packed, bias, acc};
      return true;
    }
    if (outer) break;
  }
  return false;
}

/* The slab of channels from c into *g, packed into buf (its col_bias at col_bias). */
static void slab_at(const lean_job *j, const lean_slabs *sl, int32_t c, uint8_t *buf,
                    int32_t *col_bias, ap_qgemm *g) {
  const int32_t n = j->pl->n, k = j->pl->k;
  g->n = n - c < sl->nb ? n - c : sl->nb;
  g->w = j->w + (size_t)c * (size_t)k;
  g->mult = j->mult + c;
  g->shift = j->shift + c;
  sl->kit->pack(g->w, g->n, k, j->bias ? j->bias + c : NULL, j->p->input_offset, buf, col_bias);
}

/* Pixels [r0, r1) (r0 a multiple of LEAN_R) through j's slabs: a thread's piece, its packing
 * and patches on its own stack. */
static void slabs(const lean_job *j, int32_t r0, int32_t r1) {
  const lean_slabs *sl = j->sl;
  const int32_t n = j->pl->n, k = j->pl->k, kp = (int32_t)(sl->kit->arow_bytes(k) / 2),
                in_off = j->p->input_offset;
  _Alignas(32) uint8_t buf[LEAN_STACK_BYTES];
  int16_t *a = (int16_t *)(buf + sl->a);
  int32_t *col_bias = (int32_t *)(buf + sl->bias), *acc = (int32_t *)(buf + sl->acc);
  ap_qgemm g = {.k = k,
                .packed = buf,
                .col_bias = col_bias,
                .out_off = j->p->output_offset,
                .act_min = j->p->act_min,
                .act_max = j->p->act_max};
  const bool one = sl->nb == n; /* one slab: packed once */
  if (one) slab_at(j, sl, 0, buf, col_bias, &g);
  /* The outer kit over the input's rows widened once (win16_avx2.c; no patches). A row is
   * widened when a pixel first reads it, whole: its bytes are read no later than the patch
   * would read them, so an output over its input still sees the input. */
  if (one && sl->kit == &ap_fast_avx2_outer &&
      ap_fast_win16_fits(j->geom, j->pl->m / (j->out_h * j->out_w))) {
    _Alignas(32) int16_t ring[AP_WIN16_STACK / sizeof(int16_t)];
    ap_fast_win16 w;
    const int16_t *x[4 * AP_WIN16_SEGS];
    ap_fast_win16_init(&w, j->geom, j->in, in_off, ring);
    for (int32_t r = r0; r < r1; r += LEAN_R) {
      int32_t rows = r1 - r < LEAN_R ? r1 - r : LEAN_R;
      ap_fast_win16_runs(&w, r, rows, x);
      ap_fast_avx2_outer_runs(&g, x, j->f_h, j->f_w * j->in_d / 2, rows,
                              j->out + (size_t)(r - j->out0) * (size_t)n, (size_t)n);
    }
    return;
  }
  for (int32_t r = r0; r < r1; r += LEAN_R) {
    int32_t rows = r1 - r < LEAN_R ? r1 - r : LEAN_R;
    ap_fast_avx2_patch16(j->geom, j->in, j->in_end, in_off, r, rows, k, kp, a);
    for (int32_t c = 0; c < n; c += sl->nb) {
      if (!one) slab_at(j, sl, c, buf, col_bias, &g);
      sl->kit->gemm(&g, a, rows, acc, j->out + (size_t)(r - j->out0) * (size_t)n + c, (size_t)n);
    }
  }
}

/* One pixel over nseg runs of taps (base + soff[s], weights at swoff[s], slen[s] bytes), four
 * channels at a time, outputs at out. */
static void single(const lean_job *j, const int8_t *base, const ptrdiff_t *soff,
                   const int32_t *swoff, const int32_t *slen, int32_t nseg, int8_t *out) {
  const int32_t n = j->pl->n, k = j->pl->k;
  const __m256i off = _mm256_set1_epi16((int16_t)j->p->input_offset);
  const __m256i iota = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  __m256i xt[LEAN_SEGS];
  for (int32_t s = 0; s < nseg; s++) {
    int32_t t = slen[s] % 16;
    if (!t) continue;
    int8_t b[16] = {0};
    memcpy(b, base + soff[s] + (slen[s] - t), (size_t)t);
    xt[s] = _mm256_and_si256(_mm256_add_epi16(widen(b), off),
                             _mm256_cmpgt_epi16(_mm256_set1_epi16((int16_t)t), iota));
  }
  int32_t acc[LEAN_NB];
  for (int32_t c0 = 0; c0 < n; c0 += LEAN_NB) {
    int32_t nb = n - c0 < LEAN_NB ? n - c0 : LEAN_NB;
    for (int32_t c = c0; c < c0 + nb; c += 4) {
      const int8_t *w[4];
      for (int32_t q = 0; q < 4; q++)
        w[q] = j->w + (size_t)(c + q < n ? c + q : c) * (size_t)k;
      __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
      for (int32_t s = 0; s < nseg; s++) {
        const int8_t *xp = base + soff[s];
        int32_t full = slen[s] & ~15, d = 0, wo = swoff[s];
        for (; d < full; d += 16) {
          __m256i a = _mm256_add_epi16(widen(xp + d), off);
          s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(a, widen(w[0] + wo + d)));
          s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(a, widen(w[1] + wo + d)));
          s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(a, widen(w[2] + wo + d)));
          s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(a, widen(w[3] + wo + d)));
        }
        int32_t t = slen[s] - full;
        if (t) {
          __m256i a = xt[s];
          s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(a, wtail(w[0] + wo + d, t, j->w_end)));
          s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(a, wtail(w[1] + wo + d, t, j->w_end)));
          s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(a, wtail(w[2] + wo + d, t, j->w_end)));
          s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(a, wtail(w[3] + wo + d, t, j->w_end)));
        }
      }
      int32_t t4[4];
      _mm_storeu_si128((__m128i *)t4, hsum4(s0, s1, s2, s3));
      for (int32_t q = 0; q < 4 && c + q < c0 + nb; q++)
        acc[c - c0 + q] = t4[q];
    }
    requant_row(acc, j->bias ? j->bias + c0 : NULL, nb, j->mult + c0, j->shift + c0,
                j->p->output_offset, j->p->act_min, j->p->act_max, out + c0);
  }
}

/* Output pixel r, some of whose taps lie outside the input: the runs of those inside. */
static void clipped(const lean_job *j, int32_t r, int8_t *out) {
  const ap_conv_params *p = j->p;
  int32_t ox = r % j->out_w, oy = r / j->out_w % j->out_h, b = r / j->out_w / j->out_h;
  int64_t y0 = (int64_t)oy * p->stride_h - p->pad.pad_h,
          x0 = (int64_t)ox * p->stride_w - p->pad.pad_w;
  int64_t d = j->in_d;
  ptrdiff_t soff[LEAN_SEGS];
  int32_t swoff[LEAN_SEGS], slen[LEAN_SEGS], nseg = 0;
  const int8_t *base = j->in + (size_t)b * (size_t)j->in_h * (size_t)j->in_w * (size_t)d;
  for (int32_t fy = 0; fy < j->f_h; fy++) {
    int64_t iy = y0 + (int64_t)p->dilation_h * fy;
    if (iy < 0 || iy >= j->in_h) continue;
    int32_t fx = 0;
    while (fx < j->f_w) {
      int64_t ix = x0 + (int64_t)p->dilation_w * fx;
      if (ix < 0 || ix >= j->in_w) {
        fx++;
        continue;
      }
      /* taps fx.. adjacent in the input (no dilation): one run while they stay inside */
      int32_t e = fx + 1;
      while (p->dilation_w == 1 && e < j->f_w && x0 + e < j->in_w)
        e++;
      soff[nseg] = (ptrdiff_t)((iy * j->in_w + ix) * d);
      swoff[nseg] = (int32_t)((fy * j->f_w + fx) * d);
      slen[nseg] = (int32_t)((e - fx) * d);
      nseg++;
      fx = e;
    }
  }
  /* (at most the interior's runs: a row's taps make one run, or one each when dilated) */
  single(j, base, soff, swoff, slen, nseg, out);
}

/* Pixels [r0, r1) (r0 a multiple of LEAN_R). */
static void lean_rows(const lean_job *j, int32_t r0, int32_t r1) {
  const lean_plan *pl = j->pl;
  if (j->sl) {
    slabs(j, r0, r1);
    return;
  }
  for (int32_t r = r0; r < r1; r += LEAN_R) {
    int32_t rows = r1 - r < LEAN_R ? r1 - r : LEAN_R;
    const int8_t *base[LEAN_R];
    bool all = true;
    for (int32_t i = 0; i < rows; i++) {
      bool inside;
      base[i] = pixel(j, r + i, &inside);
      all = all && inside;
    }
    int8_t *o = j->out + (size_t)(r - j->out0) * (size_t)pl->n;
    if (all) {
      group(j, base, rows, pl->soff, pl->swoff, pl->slen, pl->nseg, o);
      continue;
    }
    /* A tap outside: each pixel alone, over the runs of its taps inside (a tap outside adds
     * nothing, as the reference skips it). */
    for (int32_t i = 0; i < rows; i++)
      clipped(j, r + i, o + (size_t)i * (size_t)pl->n);
  }
}

typedef struct lean_task_arg {
  const lean_job *j;
  int32_t first; /* the span's first pixel */
  int64_t count, groups;
  int pieces;
} lean_task_arg;

/* Piece i of the span's pixel groups. */
static void lean_task(void *arg, int i) {
  const lean_task_arg *a = arg;
  int64_t g0 = a->groups * i / a->pieces, g1 = a->groups * (i + 1) / a->pieces;
  int64_t r1 = g1 * LEAN_R < a->count ? g1 * LEAN_R : a->count;
  if (g0 < g1) lean_rows(a->j, a->first + (int32_t)(g0 * LEAN_R), a->first + (int32_t)r1);
}

/* Pixels [p0, p1) in groups of LEAN_R cut into pieces claimed by the threads (each group's
 * temporaries on its own thread's stack: no scratch per thread), per_task pieces a thread (a
 * whole map's border pixels cost more: a few pieces a thread even them out). */
static void lean_span(const ap_kexec *x, const lean_job *j, int32_t p0, int32_t p1, int per_task) {
  int64_t count = p1 - p0, groups = (count + LEAN_R - 1) / LEAN_R;
  lean_task_arg a = {j, p0, count, groups, 1};
  a.pieces = ap_fast_chunks(
      ap_fast_tasks(x, (uint64_t)count * (uint64_t)j->pl->n * (uint64_t)j->pl->k, groups), per_task,
      groups);
  ap_fast_parallel(x, lean_task, &a, a.pieces);
}

/* Whether an output over its input gains from going band by band over the threads: its first
 * band is itself work enough to split (kws's 1x1 convolutions, a 5-pixel band each, packed
 * their slab and forked 25 times an op for 0.35 x one thread's speed). */
static bool band_splits(const ap_kexec *x, const lean_job *j, const ap_ktensor *in,
                        const ap_ktensor *out) {
  int64_t px =
      (int64_t)ap_fast_overlap_band(in, out, j->p->stride_h, j->p->pad.pad_h, 0) * j->out_w;
  return ap_fast_tasks(x, (uint64_t)px * (uint64_t)j->pl->n * (uint64_t)j->pl->k,
                       (px + LEAN_R - 1) / LEAN_R) > 1;
}

/* An output over its input split into one piece of output rows a thread, no waiting between
 * them: piece i's rows are written in pixel order, except its first defer[i], whose bytes hold
 * input rows the pieces before it still read: those go to buf (the caller's stack, at most
 * LEAN_DEFER_BYTES for all pieces) and into place once every piece is done. A piece's other
 * rows lie past every input row the pieces before it read, and the rows before it end at or
 * before the first input row it reads, in whatever order the threads run (split_plan checks
 * both). Op 2 of mlperf_ic_resnet_int8 (32x32x16, its output two rows before its input) went
 * band by band, a fork a row, slower on two threads than on one; as two pieces its first 3
 * rows (1.5 KiB) wait. */
#define LEAN_PIECES 4
#define LEAN_DEFER_BYTES 4096

typedef struct lean_split {
  const lean_job *j;
  int32_t row[LEAN_PIECES + 1]; /* piece i: output rows [row[i], row[i + 1]) */
  int32_t defer[LEAN_PIECES];
  size_t at[LEAN_PIECES]; /* piece i's deferred rows' offset in buf */
  int8_t *buf;
  int pieces;
} lean_split;

/* s's pieces for `pieces` threads over an output over its input (ap_lean_split). */
static bool split_plan(const lean_job *j, const ap_ktensor *in, const ap_ktensor *out, int pieces,
                       lean_split *s) {
  const ap_conv_params *p = j->p;
  ap_lean_rows g = {.rows = (int64_t)out->dims[0] * j->out_h,
                    .out_h = j->out_h,
                    .in_h = j->in_h,
                    .stride = p->stride_h,
                    .pad = p->pad.pad_h,
                    .dilation = p->dilation_h,
                    .f_h = j->f_h,
                    .in_row = (int64_t)j->in_w * j->in_d,
                    .out_row = (int64_t)j->out_w * j->pl->n,
                    .gap = (int64_t)((intptr_t)in->data - (intptr_t)out->data)};
  return ap_lean_split(&g, pieces, LEAN_PIECES, LEAN_DEFER_BYTES, s->row, s->defer, s->at,
                       &s->pieces);
}

/* Index i runs piece i + 1, the last index the first piece: no order is wrong (split_plan), so
 * a pool that runs its indices one after the other (tests/kernels/test_fast_lean.c's) runs a
 * piece before the one before it, and after, where it has several: the orders threads may take. */
static void split_task(void *arg, int index) {
  const lean_split *s = arg;
  const lean_job *j = s->j;
  int i = (index + 1) % s->pieces;
  int32_t r0 = s->row[i] * j->out_w, rd = (s->row[i] + s->defer[i]) * j->out_w,
          r1 = s->row[i + 1] * j->out_w;
  if (rd > r0) {
    lean_job d = *j;
    d.out = s->buf + s->at[i];
    d.out0 = r0;
    lean_rows(&d, r0, rd);
  }
  if (r1 > rd) lean_rows(j, rd, r1);
}

bool ap_fast_lean_conv_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                            const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                            void *scratch, ap_status *s) {
  lean_plan pl;
  if (!out || !plan(x, p, in, f, &pl)) return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) || (pl.total && !scratch) ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  uint8_t *sc = scratch;
  int32_t *mult = (int32_t *)(sc + pl.mult), *shift = (int32_t *)(sc + pl.shift);
  ap_fast_avx2_channel_multipliers(p->input_scale, f, p->output_scale, pl.n, mult, shift);
  lean_job j = {.pl = &pl,
                .p = p,
                .in = in->data,
                .w = f->data,
                .w_end = (const int8_t *)f->data + (size_t)pl.n * (size_t)pl.k,
                .bias = bias ? bias->data : NULL,
                .mult = mult,
                .shift = shift,
                .out = out->data,
                .in_h = in->dims[1],
                .in_w = in->dims[2],
                .in_d = in->dims[3],
                .out_h = out->dims[1],
                .out_w = out->dims[2],
                .f_h = f->dims[1],
                .f_w = f->dims[2]};
  lean_slabs sl;
  ap_fast_geom geom = ap_fast_geom_of(p, in, f, out);
  if (pl.k <= LEAN_STACK_K && (fit_slabs(&ap_fast_avx2_outer, pl.n, pl.k, 16, 64, &sl) ||
                               fit_slabs(&ap_fast_avx2.gemm, pl.n, pl.k, 8, 64, &sl))) {
    j.sl = &sl;
    j.geom = &geom;
    j.in_end = (const int8_t *)in->data + (size_t)in->dims[0] * (size_t)in->dims[1] *
                                              (size_t)in->dims[2] * (size_t)in->dims[3];
  }
  ap_kexec tmp;
  x = ap_fast_shared(x, &tmp);
  _Alignas(32) int8_t defer[LEAN_DEFER_BYTES];
  lean_split split = {.j = &j, .buf = defer};
  int pieces = ap_fast_tasks(x, (uint64_t)pl.m * (uint64_t)pl.n * (uint64_t)pl.k,
                             (int64_t)out->dims[0] * out->dims[1]);
  if (!ap_fast_overlapping(in, out)) {
    lean_span(x, &j, 0, pl.m, 4);
  } else if (pieces > 1 && split_plan(&j, in, out, pieces, &split)) {
    ap_fast_parallel(x, split_task, &split, split.pieces);
    for (int i = 1; i < split.pieces; i++)
      memcpy(j.out + (size_t)split.row[i] * (size_t)j.out_w * (size_t)pl.n, split.buf + split.at[i],
             (size_t)split.defer[i] * (size_t)j.out_w * (size_t)pl.n);
  } else if (!band_splits(x, &j, in, out)) {
    /* one thread: pixel order keeps an output over its input right (a group's patches are
     * built before its outputs are written), with the slab packed once rather than once a
     * band */
    lean_rows(&j, 0, pl.m);
  } else { /* an output over its input: band by band (each band's rows in any order; a band
            * is often one row: a piece a thread) */
    int32_t rows = out->dims[0] * out->dims[1];
    for (int32_t r0 = 0, r1; r0 < rows; r0 = r1) {
      r1 = ap_fast_overlap_band(in, out, p->stride_h, p->pad.pad_h, r0);
      lean_span(x, &j, r0 * j.out_w, r1 * j.out_w, 1);
    }
  }
  *s = AP_OK;
  return true;
}
#else
typedef int ap_fast_lean_conv_unused; /* x86-64 only */
#endif
