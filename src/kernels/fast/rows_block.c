/* Row ranges of the fast kernels that read a block of input rows (float DEPTHWISE_CONV_2D, the
 * int8/uint8/int16 and float pools) over rings (rows.h): each run of output rows contiguous in
 * the output ring goes to the level's kernel as a sub-map of the input rows its windows reach,
 * TFLite's padding shifted to match (so the taps outside the block are exactly those outside
 * the map, and a pool's average counts the same taps). A block wrapping around its ring is cut
 * to the rows before the wrap, or to one output row, whose window is copied to the staging
 * area: at most one window of rows. */
#include "kernels/fast/fastops.h"
#include "kernels/fast/rows.h"

#include <string.h>

static int32_t slot(int32_t y, int32_t ring) {
  return RING_SLOT(y, ring ? ring : INT32_MAX);
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

typedef struct geom {
  int32_t stride, pad, eff, in_h;
  size_t in_row, out_row; /* bytes */
} geom;

/* Staging bytes for an input ring of `ring` rows (0: whole). */
static bool staging(const geom *g, int32_t ring, size_t *bytes) {
  int32_t rows = g->eff < g->in_h ? g->eff : g->in_h;
  if (ring < 0 || ring > g->in_h) return false;
  return ap_mul_size(ring ? (size_t)rows : 0, g->in_row, bytes);
}

typedef void (*block_fn)(const void *ctx, const void *in, int32_t in_h, int32_t pad_h, void *out,
                         int32_t out_h);

/* Runs fn over the blocks of output rows [r->r0, r->r1). */
static ap_status blocks(const geom *g, const ap_krows *r, const void *in, void *out, uint8_t *stage,
                        block_fn fn, const void *ctx) {
  int32_t lo, hi;
  for (int32_t y0 = r->r0, y1; y0 < r->r1; y0 = y1) {
    y1 = r->r1;
    if (r->out_ring && y1 > y0 - y0 % r->out_ring + r->out_ring)
      y1 = y0 - y0 % r->out_ring + r->out_ring;
    for (;; y1--) { /* inside the input ring, without wrapping if more than a row */
      window(y0, y1, g->stride, g->pad, g->eff, g->in_h, &lo, &hi);
      if (!r->in_ring) break;
      if (hi - lo <= r->in_ring && (slot(lo, r->in_ring) + (hi - lo) <= r->in_ring || y1 == y0 + 1))
        break;
      if (y1 == y0 + 1) return AP_ERR_ARG; /* one row's window does not fit the ring */
    }
    const uint8_t *b = (const uint8_t *)in + (size_t)slot(lo, r->in_ring) * g->in_row;
    if (r->in_ring && slot(lo, r->in_ring) + (hi - lo) > r->in_ring) {
      size_t first = (size_t)(r->in_ring - slot(lo, r->in_ring)) * g->in_row;
      memcpy(stage, b, first);
      memcpy(stage + first, in, (size_t)(hi - lo) * g->in_row - first);
      b = stage;
    }
    fn(ctx, b, hi - lo, g->pad + lo - y0 * g->stride,
       (uint8_t *)out + (size_t)slot(y0, r->out_ring) * g->out_row, y1 - y0);
  }
  return AP_OK;
}

static bool fits(const ap_ktensor *in, const ap_ktensor *out, const ap_krows *rows) {
  return in && out && rows && in->data && out->data && in->rank == 4 && out->rank == 4 &&
         in->dims[0] == 1 && ap_krows_fit(rows, in, out);
}

/* ---- DEPTHWISE_CONV_2D float ---- */

static bool fdw_geom(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                     const ap_ktensor *f, geom *g) {
  if (!x || !x->level || !x->level->fdw || !p || p->kind != AP_KCONV_FLOAT || !in || !f ||
      in->rank != 4 || f->rank != 4 || p->out_shape.rank != 4 || in->dims[0] != 1 ||
      p->depth_multiplier <= 0 || f->dims[1] <= 0 || p->dilation_h <= 0 ||
      (int64_t)in->dims[3] * p->depth_multiplier != p->out_shape.dims[3] ||
      f->dims[3] != p->out_shape.dims[3])
    return false;
  int64_t eff = (int64_t)(f->dims[1] - 1) * p->dilation_h + 1;
  if (eff > INT32_MAX) return false;
  *g = (geom){p->stride_h,
              p->pad.pad_h,
              (int32_t)eff,
              in->dims[1],
              (size_t)in->dims[2] * (size_t)in->dims[3] * 4,
              (size_t)p->out_shape.dims[2] * (size_t)p->out_shape.dims[3] * 4};
  return true;
}

bool ap_fast_fdw_rows_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                              const ap_ktensor *f, int32_t in_ring, size_t *temp) {
  geom g;
  return fdw_geom(x, p, in, f, &g) && staging(&g, in_ring, temp);
}

ap_status ap_fast_fdw_rows(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                           const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *temp,
                           const ap_krows *rows) {
  geom g;
  size_t tb;
  ap_fast_block_rows b;
  if (!fdw_geom(x, p, in, f, &g) || !staging(&g, rows ? rows->in_ring : 0, &tb))
    return AP_ERR_UNSUPPORTED;
  if (!ap_fast_fdw_rows_ready(x, p, in, f, bias, out, rows, &b)) return AP_ERR_ARG;
  return ap_fast_block_rows_run(&b, temp, rows);
}

/* ---- AVERAGE_POOL_2D and MAX_POOL_2D ---- */

static bool pool_geom(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in, geom *g,
                      size_t *elem) {
  if (!x || !x->level || !p || !in || in->rank != 4 || in->dims[0] != 1 || p->out_shape.rank != 4 ||
      p->filter_h <= 0 || p->filter_w <= 0 ||
      (p->kind != AP_KPOOL_AVERAGE && p->kind != AP_KPOOL_MAX) ||
      p->out_shape.dims[3] != in->dims[3])
    return false;
  if (in->type == AP_FLOAT32) {
    if (!x->level->fpool) return false;
    *elem = 4;
  } else if (in->type == AP_INT8 || in->type == AP_UINT8 || in->type == AP_INT16) {
    if (!x->level->ops || !x->level->ops->pool) return false;
    *elem = ap_ktype_size(in->type);
  } else {
    return false;
  }
  *g = (geom){p->stride_h,
              p->pad.pad_h,
              p->filter_h,
              in->dims[1],
              (size_t)in->dims[2] * (size_t)in->dims[3] * *elem,
              (size_t)p->out_shape.dims[2] * (size_t)p->out_shape.dims[3] * *elem};
  return true;
}

bool ap_fast_pool_rows_scratch(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                               int32_t in_ring, size_t *temp) {
  geom g;
  size_t elem;
  return pool_geom(x, p, in, &g, &elem) && staging(&g, in_ring, temp);
}

/* AP_ERR_KERNEL where the level refuses (an average over no taps), the reference's status. */
ap_status ap_fast_pool_rows(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                            ap_ktensor *out, void *temp, const ap_krows *rows) {
  geom g;
  size_t elem, tb;
  ap_fast_block_rows b;
  if (!pool_geom(x, p, in, &g, &elem) || !staging(&g, rows ? rows->in_ring : 0, &tb))
    return AP_ERR_UNSUPPORTED;
  if (!ap_fast_pool_rows_ready(x, p, in, out, rows, &b)) return AP_ERR_ARG;
  return ap_fast_block_rows_run(&b, temp, rows);
}

/* ---- DEPTHWISE_CONV_2D uint8 ---- */

static bool u8dw_geom(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                      const ap_ktensor *f, geom *g, size_t *ws) {
  if (!x || !x->level || !x->level->ops || !x->level->ops->u8dw || !p ||
      p->kind != AP_KCONV_UINT8 || !in || !f || in->rank != 4 || f->rank != 4 ||
      p->out_shape.rank != 4 || in->dims[0] != 1 || p->out_channels <= 0 || f->dims[1] <= 0 ||
      f->dims[1] > 64 || f->dims[2] > 64 || p->dilation_h <= 0 ||
      p->out_shape.dims[3] != p->out_channels)
    return false;
  *g = (geom){p->stride_h,
              p->pad.pad_h,
              (f->dims[1] - 1) * p->dilation_h + 1,
              in->dims[1],
              (size_t)in->dims[2] * (size_t)in->dims[3],
              (size_t)p->out_shape.dims[2] * (size_t)p->out_shape.dims[3]};
  *ws = ap_fast_u8dw_ws(f->dims[1] * f->dims[2], p->out_channels);
  return true;
}

bool ap_fast_u8dw_rows_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                               const ap_ktensor *f, int32_t in_ring, size_t *temp) {
  geom g;
  size_t ws, st;
  return u8dw_geom(x, p, in, f, &g, &ws) && staging(&g, in_ring, &st) &&
         ap_add_size(ws, ap_kscratch_round(st), temp);
}

typedef struct u8dw_ctx {
  ap_u8dw d;
  const ap_fastops *ops;
  void *ws;
} u8dw_ctx;

static void u8dw_block(const void *ctx, const void *in, int32_t in_h, int32_t pad_h, void *out,
                       int32_t out_h) {
  const u8dw_ctx *c = ctx;
  ap_u8dw d = c->d;
  d.in = in;
  d.in_h = in_h;
  d.pad_h = pad_h;
  d.out = out;
  d.out_h = out_h;
  c->ops->u8dw(&d, 0, 0, out_h, c->ws);
}

ap_status ap_fast_u8dw_rows(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                            const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                            void *temp, const ap_krows *rows) {
  geom g;
  size_t ws, st;
  if (!u8dw_geom(x, p, in, f, &g, &ws) || !staging(&g, rows ? rows->in_ring : 0, &st))
    return AP_ERR_UNSUPPORTED;
  if (!fits(in, out, rows) || !f->data || (bias && !bias->data) || !temp ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape))
    return AP_ERR_ARG;
  /* in, in_h, pad_h, out, out_h: u8dw_block's, per run of rows */
  u8dw_ctx c = {
      {.f = f->data,
       .bias = bias ? bias->data : NULL,
       .geom = ap_fast_geom_of(p, in, f, out),
       .in_off = p->input_offset,
       .f_off = p->filter_offset,
       .q = {p->output_multiplier, p->output_shift, p->output_offset, p->act_min, p->act_max}},
      x->level->ops,
      temp};
  return blocks(&g, rows, in->data, out->data, (uint8_t *)temp + ws, u8dw_block, &c);
}

/* ---- the same rows, checked and laid out once per segment run (rows.h) ---- */

enum { BR_FDW = 1, BR_FCONV, BR_FPOOL, BR_QPOOL };

/* Slot of row y >= 0 in a ring of d rows (0: whole) without a divide, which a segment's calls of
 * a row or two would pay several times each: Lemire's remainder by multiplication, exact for
 * every 32-bit y and d (m = 2^64 / d rounded up, wrapping to 0 for d = 1). */
static uint64_t mod_magic(int32_t d) {
  return d > 0 ? UINT64_MAX / (uint64_t)d + 1 : 0;
}
static int32_t ring_slot(int32_t y, int32_t d, uint64_t m) {
  if (!d || y < d) return y;
#ifdef __SIZEOF_INT128__
  return (int32_t)(((unsigned __int128)(m * (uint32_t)y) * (uint32_t)d) >> 64);
#else
  (void)m;
  return y % d;
#endif
}

static void ready_geom(ap_fast_block_rows *b, const geom *g, const ap_ktensor *in,
                       const ap_ktensor *out, const ap_krows *rings, const ap_kexec *x) {
  b->stride = g->stride;
  b->pad = g->pad;
  b->eff = g->eff;
  b->in_h = g->in_h;
  b->out_h = out->dims[1];
  b->in_ring = rings->in_ring;
  b->out_ring = rings->out_ring;
  b->in_mod = mod_magic(rings->in_ring);
  b->out_mod = mod_magic(rings->out_ring);
  b->in_row = g->in_row;
  b->out_row = g->out_row;
  b->in = in->data;
  b->out = out->data;
  b->l = x->level;
}

bool ap_fast_fdw_rows_ready(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                            const ap_ktensor *f, const ap_ktensor *bias, const ap_ktensor *out,
                            const ap_krows *rings, ap_fast_block_rows *b) {
  geom g;
  size_t tb;
  if (!b || !rings || !fdw_geom(x, p, in, f, &g) || !staging(&g, rings->in_ring, &tb) ||
      !fits(in, out, &(ap_krows){0, 0, rings->in_ring, rings->out_ring}) || !f->data ||
      (bias && !bias->data) || !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape))
    return false;
  memset(b, 0, sizeof *b);
  ready_geom(b, &g, in, out, rings, x);
  b->kind = BR_FDW;
  /* in, in_h, pad_h, out, out_h: ap_fast_block_rows_run's, per run of rows */
  b->c.dw = (ap_fdw){.f = f->data,
                     .bias = bias ? bias->data : NULL,
                     .geom = ap_fast_geom_of(p, in, f, out),
                     .lo = p->fact_min,
                     .hi = p->fact_max};
  return true;
}

bool ap_fast_pool_rows_ready(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                             const ap_ktensor *out, const ap_krows *rings, ap_fast_block_rows *b) {
  geom g;
  size_t elem, tb;
  if (!b || !rings || !pool_geom(x, p, in, &g, &elem) || !staging(&g, rings->in_ring, &tb) ||
      !fits(in, out, &(ap_krows){0, 0, rings->in_ring, rings->out_ring}) || out->type != in->type ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(out, &p->out_shape))
    return false;
  memset(b, 0, sizeof *b);
  ready_geom(b, &g, in, out, rings, x);
  if (in->type == AP_FLOAT32) {
    b->kind = BR_FPOOL;
    b->c.fpool = (ap_fpool){NULL,
                            NULL,
                            0,
                            in->dims[2],
                            in->dims[3],
                            0,
                            out->dims[2],
                            p->filter_h,
                            p->filter_w,
                            p->stride_h,
                            p->stride_w,
                            0,
                            p->pad.pad_w,
                            p->kind == AP_KPOOL_MAX,
                            p->fact_min,
                            p->fact_max};
  } else {
    b->kind = BR_QPOOL;
    b->c.qpool = (ap_qpool){NULL,        NULL, in->type,     p->kind,     0,           in->dims[2],
                            in->dims[3], 0,    out->dims[2], p->filter_h, p->filter_w, p->stride_h,
                            p->stride_w, 0,    p->pad.pad_w, p->act_min,  p->act_max};
  }
  return true;
}

bool ap_fast_fconv_rows_ready(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                              const ap_ktensor *f, const ap_ktensor *bias, const ap_ktensor *out,
                              const void *keep, const ap_krows *rings, ap_fast_block_rows *b) {
  size_t kb, tb;
  /* rows.c's float path: its layout, and the checks its calls make */
  if (!b || !rings || !p || p->kind != AP_KCONV_FLOAT || !x || !x->level || !x->level->fconv ||
      !ap_fast_conv_rows_scratch(x, p, in, f, rings->in_ring, &kb, &tb) ||
      !fits(in, out, &(ap_krows){0, 0, rings->in_ring, rings->out_ring}) || !f->data ||
      (bias && !bias->data) || !keep || !ap_kshape_is(in, &p->in_shape) ||
      !ap_kshape_is(f, &p->in2_shape) || !ap_kshape_is(out, &p->out_shape))
    return false;
  memset(b, 0, sizeof *b);
  geom g = {p->stride_h,
            p->pad.pad_h,
            (f->dims[1] - 1) * p->dilation_h + 1,
            in->dims[1],
            (size_t)in->dims[2] * (size_t)in->dims[3] * 4,
            (size_t)out->dims[2] * (size_t)out->dims[3] * 4};
  ready_geom(b, &g, in, out, rings, x);
  b->kind = BR_FCONV;
  b->any_wrap = true;
  /* as b->c.dw; out_d: f->dims[0], as prepared; not finite: taps outside the input are skipped */
  b->c.conv = (ap_fconv){.wp = keep,
                         .bias = bias ? bias->data : NULL,
                         .geom = ap_fast_geom_of(p, in, f, out),
                         .lo = p->fact_min,
                         .hi = p->fact_max,
                         .finite = false};
  return true;
}

ap_status ap_fast_block_rows_run(const ap_fast_block_rows *b, void *temp, const ap_krows *r) {
  if (!b || !r || !b->kind || r->r0 < 0 || r->r1 < r->r0 || r->r1 > b->out_h ||
      r->in_ring != b->in_ring || r->out_ring != b->out_ring || (r->in_ring && !temp))
    return AP_ERR_ARG;
  int32_t ring = b->in_ring, lo, hi;
  uint8_t *stage = temp;
  for (int32_t y0 = r->r0, y1; y0 < r->r1; y0 = y1) {
    int32_t so = ring_slot(y0, b->out_ring, b->out_mod), si;
    y1 = r->r1;
    if (b->out_ring && y1 > y0 - so + b->out_ring) y1 = y0 - so + b->out_ring;
    for (;; y1--) { /* as blocks() and rows.c's run_end */
      window(y0, y1, b->stride, b->pad, b->eff, b->in_h, &lo, &hi);
      si = ring_slot(lo, ring, b->in_mod);
      if (!ring) break;
      if (hi - lo <= ring && (b->any_wrap || si + (hi - lo) <= ring || y1 == y0 + 1)) break;
      if (y1 == y0 + 1) return AP_ERR_ARG;
    }
    const uint8_t *in = b->in + (size_t)si * b->in_row;
    if (ring && si + (hi - lo) > ring) {
      size_t first = (size_t)(ring - si) * b->in_row;
      memcpy(stage, in, first);
      memcpy(stage + first, b->in, (size_t)(hi - lo) * b->in_row - first);
      in = stage;
    }
    uint8_t *out = b->out + (size_t)so * b->out_row;
    int32_t pad_h = b->pad + lo - y0 * b->stride, n = y1 - y0;
    switch (b->kind) {
    case BR_FDW: {
      ap_fdw d = b->c.dw;
      d.in = (const float *)in, d.in_h = hi - lo, d.pad_h = pad_h, d.out = (float *)out;
      d.out_h = n;
      b->l->fdw(&d, 0, n);
      break;
    }
    case BR_FCONV: {
      ap_fconv c = b->c.conv;
      c.in = (const float *)in, c.in_h = hi - lo, c.pad_h = pad_h, c.out = (float *)out;
      c.out_h = n;
      b->l->fconv(&c, 0, n);
      break;
    }
    case BR_FPOOL: {
      ap_fpool q = b->c.fpool;
      q.in = (const float *)in, q.in_h = hi - lo, q.pad_h = pad_h, q.out = (float *)out;
      q.out_h = n;
      b->l->fpool(&q, 0, n);
      break;
    }
    default: {
      ap_qpool q = b->c.qpool;
      q.in = in, q.in_h = hi - lo, q.pad_h = pad_h, q.out = out, q.out_h = n;
      if (!b->l->ops->pool(&q, 0, 0, n)) return AP_ERR_KERNEL;
    }
    }
  }
  return AP_OK;
}
