/* The lean float CONV_2D on AVX2 (lean.h says what and why): lanes are eight output pixels of
 * a row, not output channels, so the weights are read where they lie (one broadcast a weight
 * and eight products) and nothing is packed in scratch. The input rows an output row reads
 * are first transposed on the stack ([input channel][column], columns split by stride phase
 * so that eight pixels' taps are one load; each input row once, kept in one of fh slots while
 * the next output rows read it), so each output's sum runs over every tap in a register and
 * the row is written once, whole: an output over its input needs no band of rows, and two
 * threads take one piece of rows each (the first rows of the second held back where they would
 * overwrite input the first still reads, as lean_conv_avx2.c's pieces).
 *
 * Exactness. Each lane sums its output's taps in the reference's order (filter row, column,
 * input channel) from 0.0f, a product then an add (this file is built with
 * -ffp-contract=off and uses no FMA), then adds the bias (0.0f when absent) and clamps as
 * ap_kq_clampf. A filter row outside the input is skipped, as the reference skips its taps. A
 * column outside the input reads a transposed 0.0f: with every weight finite the product is
 * +-0, and adding +-0 to a sum that started at +0.0f changes nothing (such a sum is never -0).
 * With a non-finite weight (0 * inf is NaN) those products are masked to +0 instead. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/float_x86.h"
#include "kernels/fast/lean.h"

#include <string.h>

#define FLEAN_PX 8 /* output pixels a vector */
/* The transposed input (and the column masks) on the stack: three filter rows of 64 channels
 * over 10 columns (mlperf_ic_resnet_float's 8x8x64 layer) take 7.5 KiB, its 32x32x16 ones
 * 6.4 KiB; a row too wide for it is taken in ranges of pixels. */
#define FLEAN_STACK_BYTES AP_FAST_LEAN_FSTACK_BYTES
/* The rows an output over its input holds back on the calling thread's stack (split_plan):
 * mlperf_ic_resnet_float's 32x32x16 and 16x16x32 layers on two threads hold 3 rows, 6 KiB. */
#define FLEAN_DEFER_BYTES 8192
#define FLEAN_PIECES 4

typedef struct flean_plan {
  int32_t n, d, fh, fw, sh, sw, dh, dw, ph, pw, in_h, in_w, out_h, out_w;
  int32_t span;   /* output pixels per range of a row (a multiple of FLEAN_PX, or the row) */
  int32_t cols;   /* columns per stride phase in the transposed input */
  int64_t rows;   /* output rows over batches */
  size_t k;       /* taps per output */
  int32_t at[64]; /* filter column fx's first column in a transposed row ([phase][cols]) */
} flean_plan;

/* Columns a phase of the transposed input needs for `span` pixels. */
static int32_t phase_cols(int32_t span, int32_t fw, int32_t sw, int32_t dw) {
  return span + (fw - 1) * dw / sw;
}

/* Floats of the transposed input plus the column masks for `span` pixels. */
static size_t stack_floats(const flean_plan *pl, int32_t span) {
  size_t per = (size_t)pl->sw * (size_t)phase_cols(span, pl->fw, pl->sw, pl->dw);
  return ((size_t)pl->fh * (size_t)pl->d + 1) * per;
}

static bool plan(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                 const ap_ktensor *f, flean_plan *pl) {
  if (!x || !x->lean || !x->level || !p || !in || !f ||
      (x->level->level != AP_SIMD_AVX2 && x->level->level != AP_SIMD_AVX512) ||
      p->kind != AP_KCONV_FLOAT || in->rank != 4 || f->rank != 4 || p->out_shape.rank != 4 ||
      f->dims[3] != in->dims[3] || p->stride_h < 1 || p->stride_w < 1 || p->dilation_h < 1 ||
      p->dilation_w < 1 || p->stride_w > 64 || p->dilation_w > 64)
    return false;
  int64_t n = f->dims[0], fh = f->dims[1], fw = f->dims[2], d = f->dims[3];
  if (n <= 0 || fh <= 0 || fw <= 0 || d <= 0 || fh > 64 || fw > 64 || d > 65536 ||
      p->out_shape.dims[3] != n || p->out_shape.dims[1] <= 0 || p->out_shape.dims[2] <= 0 ||
      p->out_shape.dims[0] <= 0 || in->dims[1] <= 0 || in->dims[2] <= 0)
    return false;
  memset(pl, 0, sizeof *pl);
  pl->n = (int32_t)n;
  pl->d = (int32_t)d;
  pl->fh = (int32_t)fh;
  pl->fw = (int32_t)fw;
  pl->sh = p->stride_h;
  pl->sw = p->stride_w;
  pl->dh = p->dilation_h;
  pl->dw = p->dilation_w;
  pl->ph = p->pad.pad_h;
  pl->pw = p->pad.pad_w;
  pl->in_h = in->dims[1];
  pl->in_w = in->dims[2];
  pl->out_h = p->out_shape.dims[1];
  pl->out_w = p->out_shape.dims[2];
  pl->rows = (int64_t)p->out_shape.dims[0] * pl->out_h;
  pl->k = (size_t)(fh * fw * d);
  if (pl->rows > INT32_MAX) return false;
  /* the whole row (its pixels rounded up to the lanes), else the widest range that fits */
  int32_t span = (pl->out_w + FLEAN_PX - 1) / FLEAN_PX * FLEAN_PX;
  while (span > FLEAN_PX && stack_floats(pl, span) * 4 > FLEAN_STACK_BYTES)
    span -= FLEAN_PX;
  if (stack_floats(pl, span) * 4 > FLEAN_STACK_BYTES) return false;
  pl->span = span;
  pl->cols = phase_cols(span, pl->fw, pl->sw, pl->dw);
  for (int32_t fx = 0; fx < pl->fw; fx++) {
    int32_t off = fx * pl->dw;
    pl->at[fx] = off % pl->sw * pl->cols + off / pl->sw;
  }
  return true;
}

bool ap_fast_lean_fconv_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                                const ap_ktensor *f, size_t *scratch) {
  flean_plan pl;
  if (!plan(x, p, in, f, &pl)) return false;
  *scratch = 0; /* the reference's: none */
  return true;
}

typedef struct flean_job {
  const flean_plan *pl;
  const float *in, *w, *bias;
  float *out; /* output row r at out + (r - out0) * out_w * n */
  int32_t out0;
  float lo, hi;
  bool finite;
} flean_job;

/* Input row g (rows of every batch in turn), columns from cx0, transposed into t ([input
 * channel][phase][cols]). */
static void transpose_row(const flean_job *j, int64_t g, int32_t cx0, float *t) {
  const flean_plan *pl = j->pl;
  int32_t d = pl->d, sw = pl->sw, W = pl->cols;
  const float *src = j->in + (size_t)g * (size_t)pl->in_w * (size_t)d;
  int32_t ncol = W * sw;
  /* the columns inside the input: [c_in0, c_in1) */
  int32_t c_in0 = cx0 < 0 ? -cx0 : 0, c_in1 = pl->in_w - cx0;
  if (c_in1 > ncol) c_in1 = ncol;
  if (c_in1 < c_in0) c_in1 = c_in0;
  int32_t c = 0;
  for (; c < c_in0 && c < ncol; c++)
    for (int32_t ic = 0; ic < d; ic++)
      t[((size_t)ic * (size_t)sw + (size_t)(c % sw)) * (size_t)W + (size_t)(c / sw)] = 0.0f;
  if (sw <= 2) {                         /* eight columns by eight channels at a time */
    if (sw == 2 && c % 2 && c < c_in1) { /* (from an even column: phases split lanes alike) */
      const float *s = src + (size_t)(cx0 + c) * (size_t)d;
      for (int32_t ic = 0; ic < d; ic++)
        t[((size_t)ic * 2 + 1) * (size_t)W + (size_t)(c / 2)] = s[ic];
      c++;
    }
    /* stride 2: a transposed vector's even columns to phase 0, its odd ones to phase 1 */
    const __m256i split = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    int32_t d8 = d / 8 * 8;
    for (; c + 8 <= c_in1; c += 8) {
      const float *s = src + (size_t)(cx0 + c) * (size_t)d;
      for (int32_t ic = 0; ic < d8; ic += 8) {
        __m256 r[8];
#pragma GCC unroll 8
        for (int l = 0; l < 8; l++)
          r[l] = _mm256_loadu_ps(s + (size_t)l * (size_t)d + (size_t)ic);
        ap_transpose8(r);
#pragma GCC unroll 8
        for (int l = 0; l < 8; l++) {
          float *o = t + (size_t)(ic + l) * (size_t)sw * (size_t)W + (size_t)(c / sw);
          if (sw == 1) {
            _mm256_storeu_ps(o, r[l]);
          } else {
            __m256 e = _mm256_permutevar8x32_ps(r[l], split);
            _mm_storeu_ps(o, _mm256_castps256_ps128(e));
            _mm_storeu_ps(o + W, _mm256_extractf128_ps(e, 1));
          }
        }
      }
      for (int32_t ic = d8; ic < d; ic++)
        for (int32_t l = 0; l < 8; l++)
          t[((size_t)ic * (size_t)sw + (size_t)((c + l) % sw)) * (size_t)W +
            (size_t)((c + l) / sw)] = s[(size_t)l * (size_t)d + (size_t)ic];
    }
  }
  for (; c < c_in1; c++) {
    const float *s = src + (size_t)(cx0 + c) * (size_t)d;
    for (int32_t ic = 0; ic < d; ic++)
      t[((size_t)ic * (size_t)sw + (size_t)(c % sw)) * (size_t)W + (size_t)(c / sw)] = s[ic];
  }
  for (; c < ncol; c++)
    for (int32_t ic = 0; ic < d; ic++)
      t[((size_t)ic * (size_t)sw + (size_t)(c % sw)) * (size_t)W + (size_t)(c / sw)] = 0.0f;
}

/* v's first q lanes to o (q known when inlined): pieces of 4, 2 and 1 floats, not a masked
 * store, which AMD's cores run as microcode (a sixth of the kernel's time on Zen 3 with 16
 * channels, all of whose groups are narrower than 8). */
static inline __attribute__((always_inline)) void store_q(float *o, __m256 v, const int q) {
  if (q == FLEAN_PX) {
    _mm256_storeu_ps(o, v);
    return;
  }
  __m128 h = _mm256_castps256_ps128(v);
  if (q >= 4) {
    _mm_storeu_ps(o, h);
    h = _mm256_extractf128_ps(v, 1);
    o += 4;
  }
  if (q & 2) {
    _mm_storel_pi((__m64 *)(void *)o, h);
    h = _mm_movehl_ps(h, h);
    o += 2;
  }
  if (q & 1) _mm_store_ss(o, h);
}

/* Q output channels from c0 of the V x 8 pixels from lane s0 of the range whose transposed
 * input rows are rows[fy] (NULL: outside the input); px of them stored from out (pixel s0's
 * outputs). mask: the column masks m ([phase][cols], all ones inside the input) clear products
 * outside it. Two vectors of pixels share each broadcast weight (a third fewer instructions a
 * product); with their 2 x Q sums, two inputs and a broadcast, Q is at most 6 there (16 registers).
 */
static inline __attribute__((always_inline)) void
block(const flean_job *j, const float *const *rows, const int32_t *m, int32_t s0, int32_t c0,
      int32_t px, float *out, const int V, const int Q, const bool mask) {
  const flean_plan *pl = j->pl;
  const int32_t d = pl->d, sw = pl->sw, W = pl->cols, fw = pl->fw;
  const size_t step = (size_t)sw * (size_t)W;
  const float *wq[FLEAN_PX];
#pragma GCC unroll 8
  for (int o = 0; o < Q; o++)
    wq[o] = j->w + (size_t)(c0 + o) * pl->k;
  __m256 acc[2][FLEAN_PX];
#pragma GCC unroll 2
  for (int v = 0; v < V; v++)
#pragma GCC unroll 8
    for (int o = 0; o < Q; o++)
      acc[v][o] = _mm256_setzero_ps();
  for (int32_t fy = 0; fy < pl->fh; fy++) {
    if (!rows[fy]) continue;
    for (int32_t fx = 0; fx < fw; fx++) {
      size_t at = (size_t)(pl->at[fx] + s0);
      const float *tp = rows[fy] + at;
      size_t wo = ((size_t)fy * (size_t)fw + (size_t)fx) * (size_t)d;
      __m256 keep[2];
#pragma GCC unroll 2
      for (int v = 0; v < V; v++)
        keep[v] = mask ? _mm256_loadu_ps((const float *)(m + at + (size_t)v * FLEAN_PX))
                       : _mm256_setzero_ps();
#pragma GCC unroll 2
      for (int32_t ic = 0; ic < d; ic++) {
        __m256 x[2];
#pragma GCC unroll 2
        for (int v = 0; v < V; v++)
          x[v] = _mm256_loadu_ps(tp + (size_t)ic * step + (size_t)v * FLEAN_PX);
#pragma GCC unroll 8
        for (int o = 0; o < Q; o++) {
          __m256 w = _mm256_broadcast_ss(wq[o] + wo + (size_t)ic);
#pragma GCC unroll 2
          for (int v = 0; v < V; v++) {
            __m256 prod = _mm256_mul_ps(x[v], w);
            if (mask) prod = _mm256_and_ps(prod, keep[v]);
            acc[v][o] = _mm256_add_ps(acc[v][o], prod);
          }
        }
      }
    }
  }
  const int32_t n = pl->n;
#pragma GCC unroll 2
  for (int v = 0; v < V; v++) {
    __m256 r[FLEAN_PX]; /* (a copy: acc, its address never taken, stays in registers) */
#pragma GCC unroll 8
    for (int o = 0; o < FLEAN_PX; o++) {
      __m256 b = _mm256_set1_ps(o < Q && j->bias ? j->bias[c0 + o] : 0.0f);
      r[o] = o < Q ? ap_clampf8(_mm256_add_ps(acc[v][o], b), j->lo, j->hi) : b;
    }
    ap_transpose8(r); /* r[p]: pixel p's channels c0.. */
    int32_t p0 = v * FLEAN_PX, p1 = px < p0 + FLEAN_PX ? px : p0 + FLEAN_PX;
    float *o = out + (size_t)p0 * (size_t)n + (size_t)c0;
    for (int32_t p = p0; p < p1; p++, o += n)
      store_q(o, r[p - p0], Q);
  }
}

static void block_q(const flean_job *j, const float *const *rows, const int32_t *m, int32_t s0,
                    int32_t c0, int32_t px, float *out, int v, int q, bool mask) {
#define FLEAN_Q(V, Q)                                                                              \
  case V * 16 + Q:                                                                                 \
    if (mask)                                                                                      \
      block(j, rows, m, s0, c0, px, out, V, Q, true);                                              \
    else                                                                                           \
      block(j, rows, m, s0, c0, px, out, V, Q, false);                                             \
    break
  switch (v * 16 + q) {
    FLEAN_Q(1, 1);
    FLEAN_Q(1, 2);
    FLEAN_Q(1, 3);
    FLEAN_Q(1, 4);
    FLEAN_Q(1, 5);
    FLEAN_Q(1, 6);
    FLEAN_Q(1, 7);
    FLEAN_Q(1, 8);
    FLEAN_Q(2, 1);
    FLEAN_Q(2, 2);
    FLEAN_Q(2, 3);
    FLEAN_Q(2, 4);
    FLEAN_Q(2, 5);
    FLEAN_Q(2, 6);
  default: break;
  }
#undef FLEAN_Q
}

/* The transposed input rows output row (b, oy) reads, in rows[fy] (NULL: outside the input):
 * the fh slots of t are a cache of input rows (held[s]: slot s's row over batches, -1 none),
 * so that a row read by the next output rows too (stride below the filter's height) is
 * transposed once, not once for each filter row that reads it. A row in a slot is the input
 * as it was before the output rows since were written; the rows an output over its input
 * writes never hold input a later output row reads (split_plan), so it is the input still. */
static void input_rows(const flean_job *j, int32_t b, int32_t oy, int32_t cx0, float *t,
                       int64_t *held, const float **rows) {
  const flean_plan *pl = j->pl;
  const size_t plane = (size_t)pl->d * (size_t)pl->sw * (size_t)pl->cols;
  int64_t want[64];
  bool used[64] = {false};
  for (int32_t fy = 0; fy < pl->fh; fy++) {
    int32_t iy = oy * pl->sh - pl->ph + fy * pl->dh;
    want[fy] = iy >= 0 && iy < pl->in_h ? (int64_t)b * pl->in_h + iy : -1;
    rows[fy] = NULL;
    for (int32_t s = 0; want[fy] >= 0 && s < pl->fh; s++)
      if (held[s] == want[fy]) {
        rows[fy] = t + (size_t)s * plane;
        used[s] = true;
      }
  }
  for (int32_t fy = 0, s = 0; fy < pl->fh; fy++) {
    if (want[fy] < 0 || rows[fy]) continue;
    while (used[s]) /* (fh rows wanted, fh slots: a free one remains) */
      s++;
    used[s] = true;
    held[s] = want[fy];
    rows[fy] = t + (size_t)s * plane;
    transpose_row(j, want[fy], cx0, t + (size_t)s * plane);
  }
}

/* Output rows [r0, r1), each range of its pixels after transposing the input it reads. */
static void flean_rows(const flean_job *j, int32_t r0, int32_t r1) {
  const flean_plan *pl = j->pl;
  _Alignas(32) float t[FLEAN_STACK_BYTES / 4];
  const float *rows[64];
  int64_t held[64];
  size_t plane = (size_t)pl->d * (size_t)pl->sw * (size_t)pl->cols;
  int32_t *m = (int32_t *)(t + (size_t)pl->fh * plane);
  const size_t row = (size_t)pl->out_w * (size_t)pl->n;
  for (int32_t s = 0; s < pl->fh; s++)
    held[s] = -1;
  for (int32_t r = r0; r < r1; r++) {
    int32_t b = r / pl->out_h, oy = r % pl->out_h;
    float *orow = j->out + (size_t)(r - j->out0) * row;
    for (int32_t x0 = 0; x0 < pl->out_w; x0 += pl->span) {
      int32_t cx0 = x0 * pl->sw - pl->pw,
              npx = pl->out_w - x0 < pl->span ? pl->out_w - x0 : pl->span;
      if (pl->span < pl->out_w) /* the slots hold another range's columns */
        for (int32_t s = 0; s < pl->fh; s++)
          held[s] = -1;
      input_rows(j, b, oy, cx0, t, held, rows);
      if (!j->finite)
        for (int32_t c = 0; c < pl->sw * pl->cols; c++)
          m[(size_t)(c % pl->sw) * (size_t)pl->cols + (size_t)(c / pl->sw)] =
              cx0 + c >= 0 && cx0 + c < pl->in_w ? -1 : 0;
      /* two vectors of pixels where more than one remains, their channels in groups of at
       * most 6 as even as may be (16: 6 5 5); else one, 8 channels a group */
      for (int32_t s0 = 0, px; s0 < npx; s0 += px) {
        int v = npx - s0 > FLEAN_PX ? 2 : 1, most = v == 2 ? 6 : FLEAN_PX;
        px = npx - s0 < v * FLEAN_PX ? npx - s0 : v * FLEAN_PX;
        float *o = orow + (size_t)(x0 + s0) * (size_t)pl->n;
        int32_t groups = (pl->n + most - 1) / most;
        for (int32_t g = 0, c0 = 0; g < groups; g++) {
          int32_t c1 = (int32_t)((int64_t)pl->n * (g + 1) / groups);
          block_q(j, rows, m, s0, c0, px, o, v, c1 - c0, !j->finite);
          c0 = c1;
        }
      }
    }
  }
}

typedef struct flean_task_arg {
  const flean_job *j;
  int64_t rows;
  int pieces;
} flean_task_arg;

static void flean_task(void *arg, int i) {
  const flean_task_arg *a = arg;
  int32_t r0 = (int32_t)(a->rows * i / a->pieces), r1 = (int32_t)(a->rows * (i + 1) / a->pieces);
  if (r0 < r1) flean_rows(a->j, r0, r1);
}

/* An output over its input split into one piece of output rows a thread (lean_conv_avx2.c's
 * split_plan, in rows of floats): piece i's first defer[i] rows, whose bytes hold input rows
 * the pieces before it still read, go to buf and into place once every piece is done; its
 * other rows lie past every input row the pieces before it read, and the rows before it end
 * at or before the first input row it reads. */
typedef struct flean_split {
  const flean_job *j;
  int32_t row[FLEAN_PIECES + 1];
  int32_t defer[FLEAN_PIECES];
  size_t at[FLEAN_PIECES]; /* piece i's deferred rows' offset in buf (floats) */
  float *buf;
  int pieces;
} flean_split;

/* s's pieces for `pieces` threads over an output over its input (ap_lean_split, in floats). */
static bool split_plan(const flean_job *j, const ap_ktensor *in, const ap_ktensor *out, int pieces,
                       flean_split *s) {
  const flean_plan *pl = j->pl;
  int64_t gap = (int64_t)((intptr_t)in->data - (intptr_t)out->data);
  if (gap % 4) return false;
  ap_lean_rows g = {.rows = pl->rows,
                    .out_h = pl->out_h,
                    .in_h = pl->in_h,
                    .stride = pl->sh,
                    .pad = pl->ph,
                    .dilation = pl->dh,
                    .f_h = pl->fh,
                    .in_row = (int64_t)pl->in_w * pl->d,
                    .out_row = (int64_t)pl->out_w * pl->n,
                    .gap = gap / 4};
  return ap_lean_split(&g, pieces, FLEAN_PIECES, FLEAN_DEFER_BYTES / 4, s->row, s->defer, s->at,
                       &s->pieces);
}

/* Index i runs piece i + 1, the last index the first piece (as lean_conv_avx2.c's: no order of
 * the pieces is wrong, and a pool that runs indices in turn tries the reverse one). */
static void split_task(void *arg, int index) {
  const flean_split *s = arg;
  const flean_job *j = s->j;
  int i = (index + 1) % s->pieces;
  int32_t r0 = s->row[i], rd = s->row[i] + s->defer[i], r1 = s->row[i + 1];
  if (rd > r0) {
    flean_job d = *j;
    d.out = s->buf + s->at[i];
    d.out0 = r0;
    flean_rows(&d, r0, rd);
  }
  if (r1 > rd) flean_rows(j, rd, r1);
}

/* Whether every weight is finite (else products of the padding's zeros are masked): the
 * largest magnitude's bits below inf's, two instructions a vector (it runs at every eval). */
static bool all_finite(const float *w, size_t count) {
  const __m256i abs = _mm256_set1_epi32(0x7fffffff);
  __m256i m0 = _mm256_setzero_si256(), m1 = m0;
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    m0 = _mm256_max_epu32(m0, _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(w + i)), abs));
    m1 = _mm256_max_epu32(m1,
                          _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(w + i + 8)), abs));
  }
  m0 = _mm256_max_epu32(m0, m1);
  __m256i bad = _mm256_cmpeq_epi32(_mm256_max_epu32(m0, _mm256_set1_epi32(0x7f800000)), m0);
  bool ok = _mm256_testz_si256(bad, bad);
  for (; i < count; i++) {
    uint32_t bits;
    memcpy(&bits, w + i, 4);
    ok = ok && (bits & 0x7f800000u) != 0x7f800000u;
  }
  return ok;
}

bool ap_fast_lean_fconv_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                             const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                             void *scratch, ap_status *s) {
  (void)scratch;
  flean_plan pl;
  if (!out || !plan(x, p, in, f, &pl)) return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  flean_job j = {.pl = &pl,
                 .in = in->data,
                 .w = f->data,
                 .bias = bias ? bias->data : NULL,
                 .out = out->data,
                 .lo = p->fact_min,
                 .hi = p->fact_max,
                 .finite = all_finite(f->data, (size_t)pl.n * pl.k)};
  ap_kexec tmp;
  x = ap_fast_shared(x, &tmp); /* its temporaries on each thread's stack */
  /* a float multiply-add costs about 4 of an int8 convolution's (ap_fast_tasks) */
  uint64_t work = (uint64_t)pl.rows * (uint64_t)pl.out_w * (uint64_t)pl.n * pl.k * 4;
  int tasks = ap_fast_tasks(x, work, pl.rows);
  _Alignas(32) float defer[FLEAN_DEFER_BYTES / 4];
  flean_split split = {.j = &j, .buf = defer};
  if (!ap_fast_overlapping(in, out)) {
    flean_task_arg a = {&j, pl.rows, ap_fast_chunks(tasks, 2, pl.rows)};
    ap_fast_parallel(x, flean_task, &a, a.pieces);
  } else if (tasks > 1 && split_plan(&j, in, out, tasks, &split)) {
    ap_fast_parallel(x, split_task, &split, split.pieces);
    size_t row = (size_t)pl.out_w * (size_t)pl.n;
    for (int i = 1; i < split.pieces; i++)
      memcpy(j.out + (size_t)split.row[i] * row, split.buf + split.at[i],
             (size_t)split.defer[i] * row * sizeof(float));
  } else {
    flean_rows(&j, 0, (int32_t)pl.rows); /* rows in order, each written whole */
  }
  *s = AP_OK;
  return true;
}
#else
typedef int ap_fast_lean_fconv_unused; /* x86-64 only */
#endif
