/* Row ranges of the fast CONV_2D (int8 and float) and DEPTHWISE_CONV_2D (int8) kernels over
 * rings (rows.h). The int8 convolution builds its patch rows itself, reading each input row
 * from its slot; the depthwise and float levels take a block of input rows, run here on the
 * sub-map of the rows a range's windows reach (TFLite's padding shifted to match, so the taps
 * falling outside the map are exactly those outside the block). */
#include "kernels/fast/rows.h"
#include "kernels/fast/conv_win.h"
#include "kernels/fast/dsp.h"
#include "kernels/kops_stream6.h"

#include <string.h>

/* Adds a block of `bytes` to the layout at *at (aligned), false on overflow. */
static bool carve(size_t *at, size_t bytes, size_t *off) {
  if (bytes > SIZE_MAX - AP_KSCRATCH_ALIGN || *at > SIZE_MAX - ap_kscratch_round(bytes))
    return false;
  *off = *at;
  *at += ap_kscratch_round(bytes);
  return true;
}

static int32_t slot(int32_t y, int32_t ring) {
  return ring ? y % ring : y;
}

static size_t row_bytes(const ap_ktensor *t, size_t elem) {
  return (size_t)t->dims[2] * (size_t)t->dims[3] * elem;
}

/* The staging area for a window wrapping around an input ring of `ring` rows. */
static bool staging_bytes(const ap_ktensor *in, int32_t ring, size_t elem, size_t *bytes) {
  if (ring < 0 || ring > in->dims[1]) return false;
  return ap_mul_size(row_bytes(in, elem), (size_t)ring, bytes);
}

/* The input rows [*lo, *hi) that output rows [y0, y1) read (clamped to the map). */
static void window(int32_t y0, int32_t y1, int32_t stride, int32_t pad, int32_t eff, int32_t in_h,
                   int32_t *lo, int32_t *hi) {
  int64_t a = (int64_t)y0 * stride - pad, b = (int64_t)(y1 - 1) * stride - pad + eff;
  a = a < 0 ? 0 : a > in_h ? in_h : a;
  b = b < a ? a : b > in_h ? in_h : b;
  *lo = (int32_t)a;
  *hi = (int32_t)b;
}

/* The end of the next run of rows from y0 (< y1): rows contiguous in the output ring whose
 * windows together fit the input ring. 0: one row's window does not fit. */
static int32_t run_end(int32_t y0, int32_t y1, const ap_krows *r, int32_t stride, int32_t pad,
                       int32_t eff, int32_t in_h) {
  if (r->out_ring && y1 > y0 - y0 % r->out_ring + r->out_ring)
    y1 = y0 - y0 % r->out_ring + r->out_ring;
  int32_t lo, hi;
  for (;; y1--) {
    window(y0, y1, stride, pad, eff, in_h, &lo, &hi);
    if (!r->in_ring || hi - lo <= r->in_ring) return y1;
    if (y1 == y0 + 1) return 0;
  }
}

/* Input rows [lo, hi) as one block: in place unless they wrap around the ring, else copied. */
static const void *block(const ap_ktensor *in, int32_t ring, size_t row, int32_t lo, int32_t hi,
                         uint8_t *staging) {
  const uint8_t *base = in->data;
  int32_t s = slot(lo, ring);
  if (!ring || s + (hi - lo) <= ring) return base + (size_t)s * row;
  size_t first = (size_t)(ring - s) * row;
  memcpy(staging, base + (size_t)s * row, first);
  memcpy(staging + first, base, (size_t)(hi - lo) * row - first);
  return staging;
}

static bool shapes_ok(const ap_conv_params *p, const ap_ktensor *in, const ap_ktensor *f,
                      const ap_ktensor *bias, const ap_ktensor *out, const void *scratch,
                      const ap_krows *rows) {
  return in && f && out && rows && in->data && f->data && out->data && (!bias || bias->data) &&
         scratch && ap_kshape_is(in, &p->in_shape) && ap_kshape_is(f, &p->in2_shape) &&
         ap_kshape_is(out, &p->out_shape) && ap_krows_fit(rows, in, out) && in->dims[0] == 1;
}

/* ---- CONV_2D int8 ---- */

typedef struct rconv {
  const ap_gemm_kit *kit;
  int32_t n, k, mr;
  bool direct;
  size_t mult, shift, bias, packed, keep; /* kept from begin on */
  size_t a, col, acc, temp;               /* one call's */
} rconv;

static bool rconv_plan(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                       const ap_ktensor *f, rconv *pl) {
  if (!x || !x->level || !p || !in || !f || p->kind != AP_KCONV_INT8 || in->rank != 4 ||
      f->rank != 4 || p->out_shape.rank != 4 || f->dims[3] != in->dims[3] || in->dims[0] != 1)
    return false;
  const ap_fast_level *l = x->level;
  int64_t k = (int64_t)f->dims[1] * f->dims[2] * f->dims[3];
  int64_t m = (int64_t)p->out_shape.dims[1] * p->out_shape.dims[2];
  if (k <= 0 || k > INT32_MAX / 4 || m <= 0 || m > INT32_MAX || f->dims[0] <= 0) return false;
  if (!l->gemm.gemm) return false; /* a firmware's table without the product */
  memset(pl, 0, sizeof *pl);
  pl->n = f->dims[0];
  pl->k = (int32_t)k;
  pl->kit = &l->gemm;
  /* As the whole-tensor driver: the weights are packed once per segment run, for all rows. */
  bool many = m >= l->outer_min_m || (m >= 64 && (int64_t)pl->n * k <= 65536);
  /* Packed weights cost memory while the segment runs: up to a small fixed amount, or an
   * third of the output map (which streaming keeps from existing whole). */
  size_t budget = (size_t)m * (size_t)pl->n / 3;
  if (budget < AP_FAST_ROWS_PACKED_MAX) budget = AP_FAST_ROWS_PACKED_MAX;
  /* Where k is a few quads, the AVX-512 level's pixels-in-lanes product (conv16, weights in
   * place) outruns the outer product's per-pixel rows and requantization. */
  bool lanes16 = AP_FAST_DIRECT && l->level == AP_SIMD_AVX512 && k <= 16;
  if (l->outer && many && !lanes16 && l->outer->packed_bytes(pl->n, pl->k) <= budget)
    pl->kit = l->outer;
  pl->mr = pl->kit->mr;
  pl->direct = f->dims[1] == 1 && f->dims[2] == 1 && p->pad.pad_h == 0 && p->pad.pad_w == 0;
  size_t n4 = (size_t)pl->n * 4, t;
  return carve(&pl->keep, n4, &pl->mult) && carve(&pl->keep, n4, &pl->shift) &&
         carve(&pl->keep, n4, &pl->bias) &&
         carve(&pl->keep, pl->kit->packed_bytes(pl->n, pl->k), &pl->packed) &&
         ap_mul_size((size_t)pl->mr, pl->kit->arow_bytes(pl->k), &t) &&
         carve(&pl->temp, t, &pl->a) &&
         ap_mul_size((size_t)pl->mr, pl->direct ? 0 : ap_kscratch_round((size_t)pl->k), &t) &&
         carve(&pl->temp, t, &pl->col) && ap_mul_size(n4, (size_t)pl->mr, &t) &&
         carve(&pl->temp, t, &pl->acc);
}

typedef struct rconv_job {
  const ap_conv_params *p;
  const int8_t *in;
  int32_t in_ring, in_h, in_w, in_d, out_w, f_h, f_w;
  bool direct;
} rconv_job;

/* The patch of output pixel (oy, ox): k bytes, in place (direct) or built in col. */
static const int8_t *patch(const rconv_job *j, int32_t oy, int32_t ox, int8_t *col) {
  const ap_conv_params *p = j->p;
  int32_t y0 = oy * p->stride_h - p->pad.pad_h, x0 = ox * p->stride_w - p->pad.pad_w;
  size_t d = (size_t)j->in_d, rowb = (size_t)j->in_w * d;
  if (j->direct) return j->in + (size_t)slot(y0, j->in_ring) * rowb + (size_t)x0 * d;
  int8_t zp = (int8_t)-p->input_offset;
  size_t run = (size_t)j->f_w * d;
  bool row_inside = x0 >= 0 && x0 + p->dilation_w * (j->f_w - 1) < j->in_w;
  for (int32_t fy = 0; fy < j->f_h; fy++) {
    int32_t iy = y0 + p->dilation_h * fy;
    int8_t *dst = col + (size_t)fy * run;
    if (iy < 0 || iy >= j->in_h) {
      memset(dst, zp, run);
      continue;
    }
    const int8_t *src = j->in + (size_t)slot(iy, j->in_ring) * rowb;
    if (row_inside && p->dilation_w == 1) {
      memcpy(dst, src + (size_t)x0 * d, run);
      continue;
    }
    for (int32_t fx = 0; fx < j->f_w; fx++, dst += d) {
      int32_t ix = x0 + p->dilation_w * fx;
      if (ix < 0 || ix >= j->in_w)
        memset(dst, zp, d);
      else
        memcpy(dst, src + (size_t)ix * d, d);
    }
  }
  return col;
}

#if AP_FAST_DIRECT
/* Output pixels q0 + i of the run of rows from y0, for the pixels-in-lanes product. */
typedef struct rconv_tile {
  const rconv_job *j;
  int32_t y0;
  int64_t q0;
} rconv_tile;

static const int8_t *tile_patch(void *ctx, int32_t i, int8_t *buf) {
  const rconv_tile *t = ctx;
  int64_t q = t->q0 + i;
  return patch(t->j, t->y0 + (int32_t)(q / t->j->out_w), (int32_t)(q % t->j->out_w), buf);
}

/* Whether the level's in-place product has the pixels-in-lanes kernel for these weights. */
static bool tiles16(const ap_kexec *x, const rconv *pl) {
  return x->level->level == AP_SIMD_AVX512 && pl->kit == &x->level->gemm &&
         pl->k <= AP_FAST_CONV16_MAX_K;
}
#endif

/* ---- CONV_2D float ---- */

/* Output channels per panel of the level's float conv (ap_fconv.wp). */
static int32_t fconv_lanes(const ap_kexec *x) {
  return x->level->fconv_lanes > 0 ? x->level->fconv_lanes : 8;
}

static bool fconv_applies(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                          const ap_ktensor *f, size_t *packed) {
  if (AP_FAST_DSP_ONLY) return false; /* no float conv there: no float rows linked */
  if (!x || !x->level || !x->level->fconv || !p || !in || !f || p->kind != AP_KCONV_FLOAT ||
      in->rank != 4 || f->rank != 4 || p->out_shape.rank != 4 || f->dims[3] != in->dims[3] ||
      in->dims[0] != 1 || f->dims[0] <= 0)
    return false;
  size_t L = (size_t)fconv_lanes(x), panels = ((size_t)f->dims[0] + L - 1) / L, k;
  return ap_mul_size((size_t)f->dims[1] * (size_t)f->dims[2], (size_t)f->dims[3], &k) &&
         ap_mul_size(k, panels * L * sizeof(float), packed);
}

/* Kept: the packed weights; one call's: the staging area. */
static bool fconv_layout(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                         const ap_ktensor *f, int32_t in_ring, size_t *keep, size_t *temp) {
  return fconv_applies(x, p, in, f, keep) && staging_bytes(in, in_ring, 4, temp);
}

static ap_status fconv_rows(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                            const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                            void *keep, void *temp, const ap_krows *rows) {
  size_t kb, tb;
  if (!fconv_layout(x, p, in, f, rows ? rows->in_ring : 0, &kb, &tb)) return AP_ERR_UNSUPPORTED;
  if (!shapes_ok(p, in, f, bias, out, keep, rows) || (tb && !temp)) return AP_ERR_ARG;
  uint8_t *staging = temp;
  int32_t eff = (f->dims[1] - 1) * p->dilation_h + 1, in_h = in->dims[1];
  size_t in_row = row_bytes(in, 4), out_row = row_bytes(out, 4);
  for (int32_t y0 = rows->r0, y1; y0 < rows->r1; y0 = y1) {
    y1 = run_end(y0, rows->r1, rows, p->stride_h, p->pad.pad_h, eff, in_h);
    if (!y1) return AP_ERR_ARG;
    int32_t lo, hi;
    window(y0, y1, p->stride_h, p->pad.pad_h, eff, in_h, &lo, &hi);
    ap_fconv c = {
        .in = block(in, rows->in_ring, in_row, lo, hi, staging),
        .wp = keep,
        .bias = bias ? bias->data : NULL,
        .out = (float *)((uint8_t *)out->data + (size_t)slot(y0, rows->out_ring) * out_row),
        .geom = ap_fast_geom_of(p, in, f, out), /* out_d: f->dims[0], as prepared */
        .lo = p->fact_min,
        .hi = p->fact_max,
        .zeros = NULL,
        .finite = false}; /* not finite: taps outside the input are skipped, no zeros read */
    c.in_h = hi - lo, c.out_h = y1 - y0, c.pad_h = p->pad.pad_h + lo - y0 * p->stride_h;
    x->level->fconv(&c, 0, y1 - y0);
  }
  return AP_OK;
}

bool ap_fast_conv_rows_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                               const ap_ktensor *f, int32_t in_ring, size_t *keep, size_t *temp) {
  rconv pl;
  if (rconv_plan(x, p, in, f, &pl)) {
    *keep = pl.keep;
    *temp = pl.temp;
    return true;
  }
  return fconv_layout(x, p, in, f, in_ring, keep, temp);
}

ap_status ap_fast_conv_rows_begin(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                                  const ap_ktensor *f, const ap_ktensor *bias, int32_t in_ring,
                                  void *keep) {
  rconv pl;
  size_t packed, temp;
  if (!keep || !f || !f->data || (bias && !bias->data)) return AP_ERR_ARG;
  if (rconv_plan(x, p, in, f, &pl)) {
    uint8_t *sc = keep;
    int32_t *mult = (int32_t *)(sc + pl.mult), *shift = (int32_t *)(sc + pl.shift);
    ap_fast_channel_multipliers(p->input_scale, f, p->output_scale, pl.n, mult, shift);
    pl.kit->pack(f->data, pl.n, pl.k, bias ? bias->data : NULL, p->input_offset, sc + pl.packed,
                 (int32_t *)(sc + pl.bias));
    return AP_OK;
  }
  if (!fconv_layout(x, p, in, f, in_ring, &packed, &temp)) return AP_ERR_UNSUPPORTED;
  int32_t n = f->dims[0], L = fconv_lanes(x);
  size_t k = packed / (((size_t)n + (size_t)L - 1) / (size_t)L * (size_t)L * sizeof(float));
  (x->level->fconv_pack ? x->level->fconv_pack : ap_fast_fconv_pack)(f->data, n, k, L, keep);
  return AP_OK;
}

ap_status ap_fast_conv_rows(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                            const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                            void *keep, void *temp, const ap_krows *rows) {
  rconv pl;
  if (!rconv_plan(x, p, in, f, &pl)) return fconv_rows(x, p, in, f, bias, out, keep, temp, rows);
  if (!shapes_ok(p, in, f, bias, out, keep, rows) || !temp) return AP_ERR_ARG;
  const uint8_t *kp = keep;
  uint8_t *sc = temp;
  ap_qgemm g = {pl.n,
                pl.k,
                f->data,
                kp + pl.packed,
                (const int32_t *)(kp + pl.bias),
                (const int32_t *)(kp + pl.mult),
                (const int32_t *)(kp + pl.shift),
                p->output_offset,
                p->act_min,
                p->act_max};
  rconv_job j = {p,           in->data,     rows->in_ring, in->dims[1], in->dims[2],
                 in->dims[3], out->dims[2], f->dims[1],    f->dims[2],  pl.direct};
  /* An input ring must hold every row a window reaches. */
  int32_t eff = (f->dims[1] - 1) * p->dilation_h + 1;
  size_t arow = pl.kit->arow_bytes(pl.k), colrow = ap_kscratch_round((size_t)pl.k);
  size_t out_row = (size_t)out->dims[2] * (size_t)pl.n;
  for (int32_t y0 = rows->r0, y1; y0 < rows->r1; y0 = y1) {
    y1 = run_end(y0, rows->r1, rows, p->stride_h, p->pad.pad_h, eff, in->dims[1]);
    if (!y1) return AP_ERR_ARG;
    int8_t *o = (int8_t *)out->data + (size_t)slot(y0, rows->out_ring) * out_row;
    int64_t pixels = (int64_t)(y1 - y0) * j.out_w;
#if AP_FAST_DIRECT
    if (tiles16(x, &pl) && !pl.direct && p->dilation_w == 1 && j.out_w > 8 &&
        f->dims[1] <= AP_FAST_CONV16_MAX_FH) {
      /* Tiles within each output row, their patches built by the kernel from the rows (rows of
       * 8 pixels or fewer take tiles across rows below: 16 pixels per tile). */
      size_t rowb = (size_t)j.in_w * (size_t)j.in_d;
      /* Only the f_h row pointers set below are read: an initializer would clear all 16 at
       * each call (a `rep stos`, about a fifth of this function on tflm_test_conv's rows). */
      ap_fast_conv16_rows r;
      r.f_h = j.f_h;
      r.f_w = j.f_w;
      r.c = j.in_d;
      r.in_w = j.in_w;
      r.x0 = 0;
      r.stride = p->stride_w;
      r.pad = (int8_t)-p->input_offset;
      for (int32_t oy = y0; oy < y1; oy++) {
        for (int32_t fy = 0; fy < j.f_h; fy++) {
          int32_t iy = oy * p->stride_h - p->pad.pad_h + fy * p->dilation_h;
          r.row[fy] = iy < 0 || iy >= j.in_h ? NULL : j.in + (size_t)slot(iy, j.in_ring) * rowb;
        }
        int8_t *orow = o + (size_t)(oy - y0) * out_row;
        for (int32_t ox = 0; ox < j.out_w; ox += 16) {
          r.x0 = ox * p->stride_w - p->pad.pad_w;
          ap_fast_avx512_conv16_rows(&g, &r, j.out_w - ox < 16 ? j.out_w - ox : 16,
                                     orow + (size_t)ox * (size_t)pl.n, (size_t)pl.n);
        }
      }
      continue;
    }
    if (tiles16(x, &pl)) {
      for (int64_t q0 = 0; q0 < pixels; q0 += 16) {
        rconv_tile t = {&j, y0, q0};
        ap_fast_avx512_conv16(&g, tile_patch, &t, (int32_t)(pixels - q0 < 16 ? pixels - q0 : 16),
                              o + (size_t)q0 * (size_t)pl.n, (size_t)pl.n);
      }
      continue;
    }
#endif
    for (int64_t q0 = 0; q0 < pixels; q0 += pl.mr) {
      int32_t n = (int32_t)(pixels - q0 < pl.mr ? pixels - q0 : pl.mr);
      for (int32_t i = 0; i < n; i++) {
        int64_t q = q0 + i;
        const int8_t *src = patch(&j, y0 + (int32_t)(q / j.out_w), (int32_t)(q % j.out_w),
                                  (int8_t *)sc + pl.col + (size_t)i * colrow);
        pl.kit->arow(src, pl.k, p->input_offset, sc + pl.a + (size_t)i * arow);
      }
      pl.kit->gemm(&g, sc + pl.a, n, (int32_t *)(sc + pl.acc), o + (size_t)q0 * (size_t)pl.n,
                   (size_t)pl.n);
    }
  }
  return AP_OK;
}

/* ---- DEPTHWISE_CONV_2D int8 ---- */

/* Kept: the multipliers; one call's: the level's workspace and the staging area. */
typedef struct rdw {
  size_t keep, ws, stage, temp;
} rdw;

static bool rdw_plan(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                     const ap_ktensor *f, int32_t in_ring, rdw *pl) {
  if (!x || !x->level || !x->level->dw || !p || !in || !f || p->kind != AP_KCONV_INT8 ||
      in->rank != 4 || f->rank != 4 || p->out_shape.rank != 4 || in->dims[0] != 1 ||
      f->dims[1] > 64 || f->dims[2] > 64 || p->out_channels <= 0)
    return false;
  size_t stage;
  memset(pl, 0, sizeof *pl);
  pl->keep = ap_kscratch_round((size_t)p->out_channels * 2 * sizeof(int32_t));
  return carve(&pl->temp, ap_fast_dw_ws(f->dims[1] * f->dims[2], p->out_channels), &pl->ws) &&
         staging_bytes(in, in_ring, 1, &stage) && carve(&pl->temp, stage, &pl->stage);
}

bool ap_fast_dw_rows_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                             const ap_ktensor *f, int32_t in_ring, size_t *keep, size_t *temp) {
  rdw pl;
  if (!rdw_plan(x, p, in, f, in_ring, &pl)) return false;
  *keep = pl.keep;
  *temp = pl.temp;
  return true;
}

ap_status ap_fast_dw_rows_begin(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                                const ap_ktensor *f, int32_t in_ring, void *keep) {
  rdw pl;
  if (!rdw_plan(x, p, in, f, in_ring, &pl)) return AP_ERR_UNSUPPORTED;
  if (!keep || !f->data) return AP_ERR_ARG;
  int32_t *mult = keep;
  ap_fast_channel_multipliers(p->input_scale, f, p->output_scale, p->out_channels, mult,
                              mult + p->out_channels);
  return AP_OK;
}

ap_status ap_fast_dw_rows(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                          const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *keep,
                          void *temp, const ap_krows *rows) {
  rdw pl;
  if (!rdw_plan(x, p, in, f, rows ? rows->in_ring : 0, &pl)) return AP_ERR_UNSUPPORTED;
  if (!shapes_ok(p, in, f, bias, out, keep, rows) || !temp || out->dims[3] != p->out_channels)
    return AP_ERR_ARG;
  uint8_t *sc = temp;
  const int32_t *mult = keep;
#if AP_FAST_DIRECT
  ap_status st;
  /* Packing at each call pays over 16 pixels or more (not on mlperf_kws_dscnn_int8's 5-pixel
   * rows, one per call, where it was slower than this path). */
  if (x->level->level == AP_SIMD_AVX512 && (int64_t)(rows->r1 - rows->r0) * out->dims[2] >= 16 &&
      ap_fast_win_dw_stack(x, p, in, f, bias, out, mult, mult + p->out_channels, rows, &st))
    return st;
#endif
  int32_t n = p->out_channels, eff = (f->dims[1] - 1) * p->dilation_h + 1, in_h = in->dims[1];
  size_t in_row = row_bytes(in, 1), out_row = row_bytes(out, 1);
  for (int32_t y0 = rows->r0, y1; y0 < rows->r1; y0 = y1) {
    y1 = run_end(y0, rows->r1, rows, p->stride_h, p->pad.pad_h, eff, in_h);
    if (!y1) return AP_ERR_ARG;
    int32_t lo, hi;
    window(y0, y1, p->stride_h, p->pad.pad_h, eff, in_h, &lo, &hi);
    ap_qdw d = {.in = block(in, rows->in_ring, in_row, lo, hi, sc + pl.stage),
                .f = f->data,
                .bias = bias ? bias->data : NULL,
                .out = (int8_t *)out->data + (size_t)slot(y0, rows->out_ring) * out_row,
                .geom = ap_fast_geom_of(p, in, f, out), /* out_d: n, checked above */
                .in_off = p->input_offset,
                .out_off = p->output_offset,
                .act_min = p->act_min,
                .act_max = p->act_max,
                .qmult = mult,
                .qshift = mult + n};
    d.in_h = hi - lo, d.out_h = y1 - y0, d.pad_h = p->pad.pad_h + lo - y0 * p->stride_h;
    x->level->dw(&d, 0, 0, y1 - y0, sc + pl.ws);
  }
  return AP_OK;
}
