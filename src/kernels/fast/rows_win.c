/* Row ranges of int8 CONV_2D and DEPTHWISE_CONV_2D (depth multiplier 1) through a level's
 * direct kits (conv_win.h) over rings: the same kernels as the whole-tensor driver, so a
 * segment runs at its speed. The weights are packed once per segment run (*_begin), and the
 * plan (geometry, chunking, the kit's constants) is kept with them, so a call of a few rows
 * pays for no setup. A call converts the input rows its output rows read into window rows
 * (input + 128) in its scratch, reusing a row converted for the row before; a pointwise
 * convolution converts each run of rows contiguous in both rings as one line of pixels. */
#include "kernels/fast/conv_win.h"
#include "kernels/fast/rows.h"
#include "kernels/kops_stream6.h"

#include <string.h>

#if AP_FAST_DIRECT

enum { MAX_FH = 16, MAX_TAPS = 256, BUDGET = 8192, BUDGET_1 = 1024, BUDGET_DW = 2048 };

typedef void (*run_fn)(const ap_qconv *q, const uint8_t *win, const ptrdiff_t *toff, int32_t count,
                       size_t step, int8_t *out);
typedef void (*fill_fn)(uint8_t *dst, const int8_t *src, int32_t pixels, int32_t c, int32_t cp);

/* Heads the kept scratch from *_begin on. */
typedef struct rwin {
  run_fn run;
  fill_fn fill;
  ap_qconv q;      /* pointers into the kept scratch, set by *_begin */
  bool dw;         /* depthwise */
  bool each;       /* the weights packed at each call, in its scratch */
  bool own;        /* AP_FAST_WIN_OWN: the window rows' tags follow the call's scratch */
  const int8_t *w; /* the weights, bias and input offset (*_begin), for `each` */
  const int32_t *b;
  int32_t in_off;
  bool point;  /* 1x1, stride 1, no padding: rows of pixels in a line */
  int32_t rep; /* depthwise: the depth multiplier (each input byte repeated); else 1 */
  uint8_t pad; /* the zero point + 128 */
  void (*pack_conv)(const int8_t *w, int32_t n, int32_t taps, int32_t c, int32_t cq,
                    const int32_t *bias, int32_t in_off, void *packed, int32_t *col_bias);
  void (*pack_dw)(const int8_t *f, int32_t c, int32_t f_h, int32_t f_w, const int32_t *bias,
                  int32_t in_off, const int32_t *mult, const int32_t *shift, void *packed);
  int32_t n, c, cq, cp, taps, fh, fw, sh, sw, dh, dl, ph, pw, ih, iw, oh, ow, cw, chunks;
  size_t slot;                                  /* bytes of a window row */
  size_t mult, shift, bias, packed, keep, temp; /* offsets in the kept scratch; sizes */
} rwin;

/* With AP_FAST_WIN_OWN, the input row (or PAD_ROW) each window row holds, kept over calls past
 * the call's scratch (rwin stays as large: the kept scratch is planned in the arena). */
_Static_assert(MAX_FH * sizeof(int32_t) <= AP_FAST_WIN_OWN_BYTES, "window tags");
static int32_t *own_tags(const rwin *pl, void *temp) {
  return (int32_t *)((uint8_t *)temp + ap_kscratch_round(pl->temp));
}

/* Own window rows of one chunk and no row dilation (own_ring): input row iy, padding rows
 * included, lives in window row (iy + ph) % fh, so an output row's window rows are found with
 * no search (its fh input rows are consecutive), and their padding columns, written once at
 * *_begin, are never written again. tags: the input row each window row holds. */
static bool own_ring(const rwin *pl) {
  return pl->own && pl->chunks == 1 && pl->dh == 1 && !pl->point;
}

enum { PAD_ROW = INT32_MIN, EMPTY = INT32_MAX };

static bool carve(size_t *at, size_t bytes, size_t *off) {
  if (bytes > SIZE_MAX / 4 || *at > SIZE_MAX / 4) return false;
  *off = *at;
  *at += ap_kscratch_round(bytes);
  return true;
}

static bool plan(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                 const ap_ktensor *f, unsigned how, rwin *pl) {
  bool dw = how & AP_FAST_WIN_DW;
  if (!x || !x->level || !p || !in || !f || p->kind != AP_KCONV_INT8 || in->rank != 4 ||
      f->rank != 4 || p->out_shape.rank != 4 || in->dims[0] != 1 || p->out_shape.dims[0] != 1 ||
      p->input_offset < -127 || p->input_offset > 128) /* the window's bytes hold x + 128 */
    return false;
  const ap_conv_kit *kit = x->level->conv;
  const ap_dw_kit *dwk = x->level->dwin;
  memset(pl, 0, sizeof *pl);
  pl->dw = dw;
  pl->each = how & AP_FAST_WIN_EACH;
  pl->rep = 1;
  pl->c = in->dims[3];
  pl->n = p->out_shape.dims[3];
  if (dw) {
    if (!dwk || !dwk->fill || f->dims[0] != 1 || f->dims[3] != pl->n || pl->n % pl->c != 0)
      return false;
    pl->rep = pl->n / pl->c;
    pl->run = dwk->run;
    pl->fill = pl->rep > 1 ? dwk->fill_rep : dwk->fill; /* fill_rep NULL: fill_row's loop */
  } else {
    if (!kit || !kit->fill || f->dims[3] != pl->c || f->dims[0] != pl->n) return false;
    pl->run = kit->run;
    pl->fill = kit->fill;
  }
  pl->fh = f->dims[1], pl->fw = f->dims[2];
  pl->sh = p->stride_h, pl->sw = p->stride_w, pl->dh = p->dilation_h, pl->dl = p->dilation_w;
  pl->ph = p->pad.pad_h, pl->pw = p->pad.pad_w;
  pl->ih = in->dims[1], pl->iw = in->dims[2];
  pl->oh = p->out_shape.dims[1], pl->ow = p->out_shape.dims[2];
  if (pl->n <= 0 || pl->c <= 0 || pl->c > (1 << 20) || pl->fh <= 0 || pl->fw <= 0 ||
      pl->fh > MAX_FH || (int64_t)pl->fh * pl->fw > MAX_TAPS || pl->sh <= 0 || pl->sw <= 0 ||
      pl->dh <= 0 || pl->dl <= 0 || pl->ph < 0 || pl->pw < 0 || pl->ih <= 0 || pl->iw <= 0 ||
      pl->oh <= 0 || pl->ow <= 0 ||
      (int64_t)(pl->oh - 1) * pl->sh + (int64_t)(pl->fh - 1) * pl->dh > INT32_MAX / 2)
    return false;
  pl->taps = pl->fh * pl->fw;
  pl->cq = dw ? pl->fw : (pl->c + 3) / 4;
  pl->cp = dw ? pl->n : pl->cq * 4;
  int64_t n64 = ((int64_t)pl->n + 63) / 64 * 64;
  if (n64 * pl->taps * (dw ? 1 : pl->cp) > INT32_MAX / 4) return false;
  int64_t pixels = (int64_t)pl->oh * pl->ow, weights = (int64_t)pl->n * pl->taps * pl->c;
  /* The whole-tensor driver's rule: packing pays off over many pixels or small weights. */
  if (!dw && pixels < 128 && (pixels < 64 || weights > 65536) && (pixels < 32 || weights > 16384))
    return false;
  size_t packed =
      dw ? dwk->packed_bytes(pl->n, pl->fh, pl->fw) : kit->packed_bytes(pl->n, pl->taps, pl->cq);
  /* Packed weights live while the segment runs: up to a small amount or a third of the output
   * map (which the segment keeps from existing whole), as the outer-product kit's. */
  size_t budget = (size_t)pixels * (size_t)pl->n / 3;
  if (budget < AP_FAST_ROWS_PACKED_MAX) budget = AP_FAST_ROWS_PACKED_MAX;
  if (packed > budget && (how & AP_FAST_WIN_BUDGET)) return false;
  pl->point = !dw && pl->fh == 1 && pl->fw == 1 && pl->sh == 1 && pl->sw == 1 && pl->ph == 0 &&
              pl->pw == 0 && pl->oh == pl->ih && pl->ow == pl->iw;
  int64_t cw;
  if (pl->point) {
    cw = BUDGET_1 / pl->cp;
    if (cw < 8) cw = 8;
  } else {
    int64_t span = (int64_t)(pl->ow - 1) * pl->sw + (int64_t)(pl->fw - 1) * pl->dl + 1;
    if (span > INT32_MAX / 2 || span * pl->cp > INT32_MAX / 2) return false;
    int64_t b = dw ? BUDGET_DW : BUDGET, least = dw ? 4 : 16;
    cw = pl->ow;
    if (pl->fh * span * pl->cp > b) {
      int64_t fit = b / ((int64_t)pl->fh * pl->cp) - (int64_t)(pl->fw - 1) * pl->dl - 1;
      cw = fit > 0 ? fit / pl->sw + 1 : 1;
      cw = cw < least ? least : cw / least * least;
      if (cw > pl->ow) cw = pl->ow;
    }
  }
  pl->cw = (int32_t)cw;
  pl->chunks = pl->point ? 1 : (int32_t)((pl->ow + cw - 1) / cw);
  int64_t wp = pl->point ? cw : (cw - 1) * pl->sw + (int64_t)(pl->fw - 1) * pl->dl + 1;
  pl->slot = ap_kscratch_round((size_t)(wp * pl->cp));
  pl->pad = (uint8_t)(128 - p->input_offset);
  /* The depthwise kit packs the bias and multipliers with the weights: packed once, those are
   * computed in the call's scratch at *_begin, before any rows use it; packed at each call,
   * they are kept. The packing at each call follows the window rows in the call's scratch. */
  size_t n4 = (size_t)pl->n * 4, at = 0, off, tmp = 0, win;
  bool once = dw && !pl->each;
  if (!ap_mul_size(pl->slot, (size_t)(pl->point ? 1 : pl->fh), &win) ||
      !carve(&at, sizeof(rwin), &off) || !carve(once ? &tmp : &at, n4, &pl->mult) ||
      !carve(once ? &tmp : &at, n4, &pl->shift) || (!dw && !carve(&at, n4, &pl->bias)))
    return false;
  if (pl->each) {
    tmp = ap_kscratch_round(win);
    if (!carve(&tmp, packed, &pl->packed)) return false;
  } else if (!carve(&at, packed, &pl->packed)) {
    return false;
  }
  pl->keep = at;
  pl->temp = win > tmp ? win : tmp;
  return true;
}

bool ap_fast_win_rows_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                              const ap_ktensor *f, unsigned how, size_t *keep, size_t *temp) {
  rwin pl;
  if (!plan(x, p, in, f, how, &pl)) return false;
  *keep = pl.keep;
  *temp = pl.temp;
  return true;
}

ap_status ap_fast_win_rows_begin(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                                 const ap_ktensor *f, const ap_ktensor *bias, unsigned how,
                                 void *keep, void *temp) {
  rwin pl;
  if (!plan(x, p, in, f, how, &pl)) return AP_ERR_UNSUPPORTED;
  bool dw = pl.dw;
  if (!keep || !f->data || (bias && !bias->data) || (dw && !temp)) return AP_ERR_ARG;
  uint8_t *sc = keep, *at = dw && !pl.each ? temp : keep;
  int32_t *mult = (int32_t *)(at + pl.mult), *shift = (int32_t *)(at + pl.shift);
  int32_t *col_bias = dw ? NULL : (int32_t *)(sc + pl.bias);
  const int32_t *b = bias ? bias->data : NULL;
  ap_fast_channel_multipliers(p->input_scale, f, p->output_scale, pl.n, mult, shift);
  pl.w = f->data;
  pl.b = b;
  pl.in_off = p->input_offset;
  pl.own = how & AP_FAST_WIN_OWN;
  if (pl.own && !temp) return AP_ERR_ARG;
  for (int32_t i = 0; pl.own && i < MAX_FH; i++)
    own_tags(&pl, temp)[i] = EMPTY;
  uint8_t *packed = NULL; /* packed at each call */
  if (pl.each && pl.own) {
    /* The call's scratch is this member's alone over the run: packed once into it, after the
     * window rows, where each call would pack them. */
    if (!temp) return AP_ERR_ARG;
    packed = (uint8_t *)temp + pl.packed;
    pl.each = false;
  } else if (!pl.each) {
    packed = sc + pl.packed;
  }
  if (packed && dw) {
    x->level->dwin->pack(f->data, pl.n, pl.fh, pl.fw, b, p->input_offset, mult, shift, packed);
    mult = shift = NULL; /* packed; the scratch they were in may be the rows' */
  } else if (packed) {
    x->level->conv->pack(f->data, pl.n, pl.taps, pl.c, pl.cq, b, p->input_offset, packed, col_bias);
  }
  pl.q = (ap_qconv){pl.n,  pl.taps,          pl.cq,      packed,    col_bias, mult,
                    shift, p->output_offset, p->act_min, p->act_max};
  pl.pack_dw = x->level->dwin ? x->level->dwin->pack : NULL;
  pl.pack_conv = x->level->conv ? x->level->conv->pack : NULL;
  /* after the packing, which may have read the multipliers from there */
  if (own_ring(&pl)) memset(temp, pl.pad, pl.slot * (size_t)pl.fh);
  memcpy(keep, &pl, sizeof pl);
  return AP_OK;
}

/* A depthwise member whose window kit is off (the arena has no room for its packing): the kit's
 * packing at each call and its window rows on the stack instead (at most STACK bytes; x86-64
 * hosts only), the multipliers the caller's (mult, shift: n each, kept by the rows path). */
enum { STACK = 16384 };
bool ap_fast_win_dw_stack(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                          const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                          const int32_t *mult, const int32_t *shift, const ap_krows *rows,
                          ap_status *s) {
  rwin pl;
  if (!mult || !shift || !f || !f->data || (bias && !bias->data) ||
      !plan(x, p, in, f, AP_FAST_WIN_DW | AP_FAST_WIN_EACH, &pl) || pl.temp > STACK)
    return false;
  _Alignas(64) uint8_t temp[STACK];
  pl.w = f->data;
  pl.b = bias ? bias->data : NULL;
  pl.in_off = p->input_offset;
  pl.q = (ap_qconv){pl.n,  pl.taps,          pl.cq,      NULL,      NULL, mult,
                    shift, p->output_offset, p->act_min, p->act_max};
  pl.pack_dw = x->level->dwin->pack;
  return ap_fast_win_rows(p, in, f, out, &pl, temp, rows, s);
}

static int32_t slot(int32_t y, int32_t ring) {
  return RING_SLOT(y, ring ? ring : INT32_MAX);
}

/* The columns [a, e) of a window row from input row iy (in range), the row's from x0. */
static void fill_cols(const rwin *pl, uint8_t *dst, const int8_t *in, int32_t in_ring, int32_t iy,
                      int32_t x0, int32_t a, int32_t e) {
  size_t cp = (size_t)pl->cp;
  const int8_t *src =
      in + ((size_t)slot(iy, in_ring) * (size_t)pl->iw + (size_t)(x0 + a)) * (size_t)pl->c;
  if (pl->fill) {
    pl->fill(dst + (size_t)a * cp, src, e - a, pl->c, pl->cp);
    return;
  }
  /* Depthwise with a depth multiplier: output channel k reads input channel k / rep. */
  uint8_t *d = dst + (size_t)a * cp;
  for (int32_t i = a; i < e; i++)
    for (int32_t k = 0; k < pl->c; k++, src++) {
      uint8_t v = (uint8_t)(*src ^ 0x80);
      int32_t r = 0;
      for (uint64_t pat = v * 0x0101010101010101ull; r + 8 <= pl->rep; r += 8, d += 8)
        memcpy(d, &pat, 8);
      for (; r < pl->rep; r++)
        *d++ = v;
    }
}

/* The window columns [*a, *e) inside the input, of a window of wp columns from x0. */
static void inside(const rwin *pl, int32_t x0, int32_t wp, int32_t *a, int32_t *e) {
  *a = x0 < 0 ? -x0 : 0;
  *e = pl->iw - x0 < wp ? pl->iw - x0 : wp;
  if (*e < *a) *e = *a;
}

/* Window row from input row iy (in range), columns [x0, x0 + wp). */
static void fill_row(const rwin *pl, uint8_t *dst, const int8_t *in, int32_t in_ring, int32_t iy,
                     int32_t x0, int32_t wp) {
  size_t cp = (size_t)pl->cp;
  int32_t a, e;
  inside(pl, x0, wp, &a, &e);
  memset(dst, pl->pad, (size_t)a * cp);
  memset(dst + (size_t)e * cp, pl->pad, (size_t)(wp - e) * cp);
  fill_cols(pl, dst, in, in_ring, iy, x0, a, e);
}

/* Rows [r0, r1) of an own_ring member. */
static void own_rows(const rwin *pl, const ap_qconv *qp, const int8_t *in, int8_t *out,
                     uint8_t *win, int32_t *tags, const ap_krows *r) {
  ptrdiff_t toff[MAX_TAPS];
  size_t out_row = (size_t)pl->ow * (size_t)pl->n, cp = (size_t)pl->cp;
  size_t step = (size_t)pl->sw * cp;
  int32_t wp = (pl->ow - 1) * pl->sw + (pl->fw - 1) * pl->dl + 1, x0 = -pl->pw, a, e;
  inside(pl, x0, wp, &a, &e);
  for (int32_t oy = r->r0; oy < r->r1; oy++) {
    int32_t iy0 = oy * pl->sh - pl->ph, k = (oy * pl->sh) % pl->fh;
    for (int32_t fy = 0, t = 0; fy < pl->fh; fy++, k = k + 1 == pl->fh ? 0 : k + 1) {
      int32_t iy = iy0 + fy;
      uint8_t *dst = win + (size_t)k * pl->slot;
      if (tags[k] != iy) {
        tags[k] = iy;
        if (iy < 0 || iy >= pl->ih)
          memset(dst + (size_t)a * cp, pl->pad, (size_t)(e - a) * cp);
        else
          fill_cols(pl, dst, in, r->in_ring, iy, x0, a, e);
      }
      for (int32_t fx = 0; fx < pl->fw; fx++, t++)
        toff[t] = (ptrdiff_t)((size_t)k * pl->slot + (size_t)fx * (size_t)pl->dl * cp);
    }
    pl->run(qp, win, toff, pl->ow, step, out + (size_t)slot(oy, r->out_ring) * out_row);
  }
}

/* A pointwise convolution's rows [r0, r1): lines of rows contiguous in both rings. */
static void point_rows(const rwin *pl, const ap_qconv *qc, const int8_t *in, int8_t *out,
                       uint8_t *win, const ap_krows *r) {
  const ptrdiff_t toff[1] = {0};
  for (int32_t y0 = r->r0, y1; y0 < r->r1; y0 = y1) {
    int32_t si = slot(y0, r->in_ring), so = slot(y0, r->out_ring);
    y1 = r->r1;
    if (r->in_ring && y1 - y0 > r->in_ring - si) y1 = y0 + r->in_ring - si;
    if (r->out_ring && y1 - y0 > r->out_ring - so) y1 = y0 + r->out_ring - so;
    int64_t pixels = (int64_t)(y1 - y0) * pl->iw;
    const int8_t *src = in + (size_t)si * (size_t)pl->iw * (size_t)pl->c;
    int8_t *dst = out + (size_t)so * (size_t)pl->ow * (size_t)pl->n;
    for (int64_t q = 0; q < pixels; q += pl->cw) {
      int32_t cnt = (int32_t)(pixels - q < pl->cw ? pixels - q : pl->cw);
      pl->fill(win, src + (size_t)q * (size_t)pl->c, cnt, pl->c, pl->cp);
      pl->run(qc, win, toff, cnt, (size_t)pl->cp, dst + (size_t)q * (size_t)pl->n);
    }
  }
}

bool ap_fast_win_rows(const ap_conv_params *p, const ap_ktensor *in, const ap_ktensor *f,
                      ap_ktensor *out, void *keep, void *temp, const ap_krows *rows, ap_status *s) {
  rwin *pl = keep;
  if (!pl || !p || !in || !f || !out || !rows || !temp) return false;
  if (!in->data || !out->data || !ap_kshape_is(in, &p->in_shape) ||
      !ap_kshape_is(out, &p->out_shape) || !ap_krows_fit(rows, in, out) || pl->oh != out->dims[1] ||
      pl->ow != out->dims[2] || pl->n != out->dims[3] || pl->ih != in->dims[1] ||
      pl->iw != in->dims[2] || pl->c != in->dims[3]) {
    *s = AP_ERR_ARG;
    return true;
  }
  /* An input ring must hold every row one output row's window reaches. */
  int32_t eff = (pl->fh - 1) * pl->dh + 1;
  if (rows->in_ring && rows->in_ring < (eff < pl->ih ? eff : pl->ih)) {
    *s = AP_ERR_ARG;
    return true;
  }
  uint8_t *win = temp;
  *s = AP_OK;
  /* The kept constants are read in place: copying them costs a call of a row or two more than
   * it saves. */
  const ap_qconv *qp = &pl->q;
  ap_qconv each;
  if (pl->each) { /* the weights into this call's scratch (the kept col_bias again, equal) */
    each = pl->q;
    each.packed = win + pl->packed;
    if (pl->dw)
      pl->pack_dw(pl->w, pl->n, pl->fh, pl->fw, pl->b, pl->in_off, each.mult, each.shift,
                  win + pl->packed);
    else
      pl->pack_conv(pl->w, pl->n, pl->taps, pl->c, pl->cq, pl->b, pl->in_off, win + pl->packed,
                    (int32_t *)each.col_bias);
    qp = &each;
  }
  if (pl->point) {
    point_rows(pl, qp, in->data, out->data, win, rows);
    return true;
  }
  if (own_ring(pl)) {
    own_rows(pl, qp, in->data, out->data, win, own_tags(pl, temp), rows);
    return true;
  }
  /* Window rows stay valid over calls only where the scratch is this member's (own) and one
   * chunk spans the row: an input row's bytes do not change once computed in a run. */
  int32_t local[MAX_FH], at[MAX_FH];
  int32_t *tags = pl->own && pl->chunks == 1 ? own_tags(pl, temp) : local;
  ptrdiff_t toff[MAX_TAPS];
  size_t out_row = (size_t)pl->ow * (size_t)pl->n, step = (size_t)pl->sw * (size_t)pl->cp;
  if (tags == local)
    for (int32_t i = 0; i < pl->fh; i++)
      tags[i] = EMPTY;
  for (int32_t oy = rows->r0; oy < rows->r1; oy++) {
    int8_t *o = (int8_t *)out->data + (size_t)slot(oy, rows->out_ring) * out_row;
    for (int32_t ch = 0; ch < pl->chunks; ch++) {
      if (pl->chunks > 1) /* each chunk's window rows are its own */
        for (int32_t i = 0; i < pl->fh; i++)
          tags[i] = EMPTY;
      int32_t ox0 = ch * pl->cw, cnt = pl->ow - ox0 < pl->cw ? pl->ow - ox0 : pl->cw;
      int32_t wp = (cnt - 1) * pl->sw + (pl->fw - 1) * pl->dl + 1, x0 = ox0 * pl->sw - pl->pw;
      bool used[MAX_FH] = {false};
      int32_t need[MAX_FH];
      for (int32_t fy = 0; fy < pl->fh; fy++) {
        int32_t iy = oy * pl->sh - pl->ph + fy * pl->dh;
        need[fy] = iy < 0 || iy >= pl->ih ? PAD_ROW : iy;
        at[fy] = -1;
        for (int32_t k = 0; k < pl->fh; k++)
          if (tags[k] == need[fy]) at[fy] = k, used[k] = true;
      }
      for (int32_t fy = 0; fy < pl->fh; fy++) {
        if (at[fy] >= 0) continue;
        for (int32_t k = 0; k < pl->fh; k++)
          if (tags[k] == need[fy]) at[fy] = k; /* filled for an earlier fy of this row */
        if (at[fy] >= 0) continue;
        int32_t k = 0;
        while (used[k])
          k++;
        used[k] = true;
        tags[k] = need[fy];
        at[fy] = k;
        uint8_t *dst = win + (size_t)k * pl->slot;
        if (need[fy] == PAD_ROW)
          memset(dst, pl->pad, (size_t)wp * (size_t)pl->cp);
        else
          fill_row(pl, dst, in->data, rows->in_ring, need[fy], x0, wp);
      }
      for (int32_t fy = 0, t = 0; fy < pl->fh; fy++)
        for (int32_t fx = 0; fx < pl->fw; fx++, t++)
          toff[t] = (ptrdiff_t)((size_t)at[fy] * pl->slot) + (ptrdiff_t)fx * pl->dl * pl->cp;
      pl->run(qp, win, toff, cnt, step, o + (size_t)ox0 * (size_t)pl->n);
    }
  }
  (void)f;
  return true;
}

#else /* no direct kits on this target: the other row paths run */

bool ap_fast_win_rows_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                              const ap_ktensor *f, unsigned how, size_t *keep, size_t *temp) {
  (void)x, (void)p, (void)in, (void)f, (void)how, (void)keep, (void)temp;
  return false;
}

ap_status ap_fast_win_rows_begin(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                                 const ap_ktensor *f, const ap_ktensor *bias, unsigned how,
                                 void *keep, void *temp) {
  (void)x, (void)p, (void)in, (void)f, (void)bias, (void)how, (void)keep, (void)temp;
  return AP_ERR_UNSUPPORTED;
}

bool ap_fast_win_rows(const ap_conv_params *p, const ap_ktensor *in, const ap_ktensor *f,
                      ap_ktensor *out, void *keep, void *temp, const ap_krows *rows, ap_status *s) {
  (void)p, (void)in, (void)f, (void)out, (void)keep, (void)temp, (void)rows, (void)s;
  return false;
}

#endif
