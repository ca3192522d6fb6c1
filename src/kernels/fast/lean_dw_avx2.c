/* The lean int8 DEPTHWISE_CONV_2D on AVX2 (lean.h): the level's depthwise kernel, its
 * workspace on the stack when small (most models' depthwise layers), else each output pixel's
 * channels eight to a vector, over the taps inside the input (one outside adds nothing, as the
 * reference skips it), inputs and weights read where they lie: no padded copy, no interleaved
 * weights. A depth multiplier of 1 reads eight input channels per tap; a multiple of 8 broadcasts
 * one input channel to its eight outputs. Products (input + offset) x weight in int32 lanes, summed
 * in tap order (wrapping, as the reference's); the reference's requantization on 8 lanes. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/int8_x86.h"
#include "kernels/fast/lean.h"

/* The most stack the level's depthwise workspace may take here (ap_fast_dw_ws: its weights
 * interleaved in tap pairs, a row of zero points): 4 KiB, as the lean convolution's. Above,
 * this file's kernel runs, with none. */
#define LEAN_DW_STACK 4096

typedef struct lean_dw {
  int32_t in_h, in_w, in_d, out_h, out_w, n, f_h, f_w, mult;
} lean_dw;

static bool plan(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                 const ap_ktensor *f, lean_dw *g) {
  if (!x || !x->lean || !x->level || !p || !in || !f ||
      (x->level->level != AP_SIMD_AVX2 && x->level->level != AP_SIMD_AVX512) ||
      p->kind != AP_KCONV_INT8 || p->filter_offset != 0 || in->rank != 4 || f->rank != 4 ||
      p->out_shape.rank != 4 || p->stride_h < 1 || p->stride_w < 1 || p->dilation_h < 1 ||
      p->dilation_w < 1)
    return false;
  int32_t n = p->out_shape.dims[3], d = in->dims[3];
  if (n <= 0 || d <= 0 || f->dims[0] != 1 || f->dims[3] != n || n % d != 0 || n > INT32_MAX / 8 ||
      f->dims[1] <= 0 || f->dims[2] <= 0)
    return false;
  int32_t mult = n / d;
  if (mult != 1 && mult % 8 != 0) return false; /* the other paths run */
  *g = (lean_dw){in->dims[1], in->dims[2], d,   p->out_shape.dims[1], p->out_shape.dims[2], n,
                 f->dims[1],  f->dims[2],  mult};
  return true;
}

bool ap_fast_lean_dw_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                             const ap_ktensor *f, size_t *scratch) {
  lean_dw g;
  if (!plan(x, p, in, f, &g)) return false;
  *scratch = (size_t)g.n * 8; /* the multipliers and shifts: the reference's scratch */
  return true;
}

typedef struct lean_dw_job {
  const lean_dw *g;
  const ap_conv_params *p;
  const int32_t *qm, *qs;
  const int8_t *in, *w;
  const int32_t *bias;
  int8_t *out;
  const ap_fast_level *l;
  bool level;          /* the level's kernel, its workspace on the stack */
  ap_qdw d;            /* (its descriptor) */
  int64_t first, rows; /* the span of output rows (over batches) */
  int pieces;
} lean_dw_job;

/* Output row oy of batch b by this file's kernel. */
static void lean_dw_row(const lean_dw_job *j, int32_t b, int32_t oy) {
  const lean_dw g = *j->g;
  const ap_conv_params *p = j->p;
  const int32_t n = g.n, *qm = j->qm, *qs = j->qs, *b32 = j->bias;
  const int8_t *src = j->in, *w = j->w;
  int8_t *dst = j->out;
  const int32_t in_off = p->input_offset;
  const __m256i off = _mm256_set1_epi32(in_off), voff = _mm256_set1_epi32(p->output_offset),
                lo = _mm256_set1_epi32(p->act_min), hi = _mm256_set1_epi32(p->act_max);
  const int32_t n8 = n / 8 * 8;
  const size_t row = (size_t)g.in_w * (size_t)g.in_d;
  for (int32_t ox = 0; ox < g.out_w; ox++) {
    int64_t y0 = (int64_t)oy * p->stride_h - p->pad.pad_h;
    int64_t x0 = (int64_t)ox * p->stride_w - p->pad.pad_w;
    /* the taps inside: fy in [fy0, fy1), fx in [fx0, fx1) */
    int32_t fy0 = 0, fy1 = g.f_h, fx0 = 0, fx1 = g.f_w;
    while (fy0 < fy1 && y0 + (int64_t)p->dilation_h * fy0 < 0)
      fy0++;
    while (fy1 > fy0 && y0 + (int64_t)p->dilation_h * (fy1 - 1) >= g.in_h)
      fy1--;
    while (fx0 < fx1 && x0 + (int64_t)p->dilation_w * fx0 < 0)
      fx0++;
    while (fx1 > fx0 && x0 + (int64_t)p->dilation_w * (fx1 - 1) >= g.in_w)
      fx1--;
    const int8_t *base = src + (size_t)b * (size_t)g.in_h * row;
    int8_t *o = dst + (((size_t)b * (size_t)g.out_h + (size_t)oy) * (size_t)g.out_w + (size_t)ox) *
                          (size_t)n;
    for (int32_t c = 0; c < n8; c += 8) {
      __m256i acc = _mm256_setzero_si256();
      for (int32_t fy = fy0; fy < fy1; fy++) {
        size_t iy = (size_t)(y0 + (int64_t)p->dilation_h * fy);
        for (int32_t fx = fx0; fx < fx1; fx++) {
          size_t ix = (size_t)(x0 + (int64_t)p->dilation_w * fx);
          const int8_t *xp = base + iy * row + ix * (size_t)g.in_d;
          __m256i xv;
          if (g.mult == 1) {
            int64_t v;
            memcpy(&v, xp + c, 8);
            xv = _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(v));
          } else {
            xv = _mm256_set1_epi32(xp[c / g.mult]);
          }
          int64_t wv;
          memcpy(&wv, w + ((size_t)fy * (size_t)g.f_w + (size_t)fx) * (size_t)n + (size_t)c, 8);
          acc = _mm256_add_epi32(acc,
                                 _mm256_mullo_epi32(_mm256_add_epi32(xv, off),
                                                    _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(wv))));
        }
      }
      if (b32) acc = _mm256_add_epi32(acc, _mm256_loadu_si256((const __m256i *)(b32 + c)));
      store8(o + c, requant8(acc, qm + c, qs + c, voff, lo, hi));
    }
    for (int32_t c = n8; c < n; c++) { /* (multiplier 1: channels past the last eight) */
      uint32_t acc = 0;
      for (int32_t fy = fy0; fy < fy1; fy++) {
        size_t iy = (size_t)(y0 + (int64_t)p->dilation_h * fy);
        for (int32_t fx = fx0; fx < fx1; fx++) {
          size_t ix = (size_t)(x0 + (int64_t)p->dilation_w * fx);
          int32_t xv = base[iy * row + ix * (size_t)g.in_d + (size_t)(c / g.mult)] + in_off;
          acc +=
              (uint32_t)(xv * w[((size_t)fy * (size_t)g.f_w + (size_t)fx) * (size_t)n + (size_t)c]);
        }
      }
      if (b32) acc += (uint32_t)b32[c];
      o[c] = ap_fast_requant((int32_t)acc, qm[c], qs[c], p->output_offset, p->act_min, p->act_max);
    }
  }
}

/* Piece i of the span's output rows (rows over batches). */
static void lean_dw_task(void *arg, int i) {
  const lean_dw_job *j = arg;
  int64_t begin = j->first + j->rows * i / j->pieces,
          end = j->first + j->rows * (i + 1) / j->pieces;
  int32_t out_h = j->g->out_h;
  while (begin < end) {
    int32_t b = (int32_t)(begin / out_h), oy = (int32_t)(begin % out_h);
    int64_t stop = (int64_t)(b + 1) * out_h < end ? (int64_t)(b + 1) * out_h : end;
    if (j->level) {
      _Alignas(64) uint8_t ws[LEAN_DW_STACK];
      j->l->dw(&j->d, b, oy, (int32_t)(oy + stop - begin), ws);
    } else {
      for (int32_t y = oy; y < oy + (int32_t)(stop - begin); y++)
        lean_dw_row(j, b, y);
    }
    begin = stop;
  }
}

/* Output rows [r0, r1) cut into pieces claimed by the threads, each with its workspace on its
 * own stack (no scratch per thread); 2 pieces per thread, as the level's kernel (each call lays
 * out its weights again). A depthwise multiply-add costs about 5 of a convolution's. */
/* The work of `rows` output rows, in the threads' units. */
static uint64_t dw_work(const lean_dw *g, int32_t rows) {
  return (uint64_t)rows * (uint64_t)g->out_w * (uint64_t)g->n * (uint64_t)g->f_h *
         (uint64_t)g->f_w * 5;
}

/* Whether an output over its input gains from going band by band over the threads: its first
 * band is itself work enough to split. */
static bool band_splits(const ap_kexec *x, const lean_dw *g, const ap_ktensor *in,
                        const ap_ktensor *out, const ap_conv_params *p) {
  int32_t band = ap_fast_overlap_band(in, out, p->stride_h, p->pad.pad_h, 0);
  return ap_fast_tasks(x, dw_work(g, band), band) > 1;
}

static void lean_dw_span(const ap_kexec *x, lean_dw_job *j, int32_t r0, int32_t r1) {
  j->first = r0;
  j->rows = r1 - r0;
  uint64_t work = dw_work(j->g, j->rows);
  j->pieces = ap_fast_chunks(ap_fast_tasks(x, work, j->rows), 2, j->rows);
  ap_fast_parallel(x, lean_dw_task, j, j->pieces);
}

bool ap_fast_lean_dw_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                          const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                          void *scratch, ap_status *s) {
  lean_dw g;
  if (!out || !plan(x, p, in, f, &g)) return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) || !scratch ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  const int32_t n = g.n;
  int32_t *qm = scratch, *qs = qm + n;
  ap_fast_avx2_channel_multipliers(p->input_scale, f, p->output_scale, n, qm, qs);
  lean_dw_job j = {.g = &g,
                   .p = p,
                   .qm = qm,
                   .qs = qs,
                   .in = in->data,
                   .w = f->data,
                   .bias = bias ? bias->data : NULL,
                   .out = out->data,
                   .l = x->level};
  /* The level's own kernel where its workspace fits on the stack. */
  size_t ws_bytes = ap_fast_dw_ws(g.f_h * g.f_w, n);
  j.level = x->level->dw && g.f_h <= 64 && g.f_w <= 64 && ws_bytes <= LEAN_DW_STACK;
  if (j.level) ap_fast_qdw_set(&j.d, p, in, f, bias, out, qm, qs);
  ap_kexec tmp;
  x = ap_fast_shared(x, &tmp);
  int32_t rows = p->out_shape.dims[0] * g.out_h;
  if (!ap_fast_overlapping(in, out)) {
    lean_dw_span(x, &j, 0, rows);
  } else if (!band_splits(x, &g, in, out, p)) {
    /* an output over its input whose bands are each too little to split: one call in row
     * order (each band a call of the level's kernel had repeated its per-call tables: sww's
     * depthwise 2.5 x slower) */
    j.first = 0;
    j.rows = rows;
    j.pieces = 1;
    lean_dw_task(&j, 0);
  } else { /* an output over its input: band by band (each band's rows in any order) */
    for (int32_t r0 = 0, r1; r0 < rows; r0 = r1) {
      r1 = ap_fast_overlap_band(in, out, p->stride_h, p->pad.pad_h, r0);
      lean_dw_span(x, &j, r0, r1);
    }
  }
  *s = AP_OK;
  return true;
}
#else
typedef int ap_fast_lean_dw_unused; /* x86-64 only */
#endif
