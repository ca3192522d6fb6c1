/* CONV_2D and DEPTHWISE_CONV_2D int8 through a level's direct kernels (conv_win.h): work in
 * units of one output row of one column chunk; each task keeps a ring of f_h converted input
 * rows, so consecutive output rows convert only the rows they add (rows too wide for one
 * window are cut into chunks, each converting its own rows). A 1x1 convolution
 * with stride 1 and no padding is one long row (pixels of every batch in a line), cut into
 * chunks. A depthwise window holds the output channels: each input channel repeated
 * depth-multiplier times. */
#include "kernels/fast/conv_win.h"

#include <string.h>

enum {
  MAX_FH = 16,
  MAX_TAPS = 256,
  WIN_BUDGET = 8192,
  WIN_BUDGET_1 = 512,
  WIN_BUDGET_DW = 2048,
  PAD_ROW = INT32_MIN,
  EMPTY = INT32_MAX
};

typedef void (*run_fn)(const ap_qconv *q, const uint8_t *win, const ptrdiff_t *toff, int32_t count,
                       size_t step, int8_t *out);

typedef void (*fill_fn)(uint8_t *dst, const int8_t *src, int32_t pixels, int32_t c, int32_t cp);

typedef struct win_plan {
  const ap_conv_kit *kit; /* CONV_2D */
  const ap_dw_kit *dwk;   /* DEPTHWISE_CONV_2D */
  run_fn run;
  fill_fn fill; /* the kit's conversion of input pixels into window bytes; NULL: ours */
  int32_t rep;  /* depthwise: the depth multiplier; else 1 */
  int32_t n, c, cq, cp, taps, fh, fw, sh, sw, dh, dw, ph, pw;
  int32_t b, ih, iw, oh, ow; /* geometry, flattened for a pointwise convolution */
  int32_t cw, chunks, tasks, pieces, slots;
  int64_t units;
  size_t slot, mult, shift, bias, packed, win, win_task, total;
} win_plan;

static bool carve(size_t *at, size_t bytes, size_t *off) {
  if (bytes > SIZE_MAX / 2 || *at > SIZE_MAX / 2) return false;
  *off = *at;
  *at += ap_kscratch_round(bytes);
  return true;
}

static bool plan(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                 const ap_ktensor *f, bool dw, size_t other, win_plan *pl) {
  if (!x || !x->level || (dw ? !x->level->dwin : !x->level->conv) || p->kind != AP_KCONV_INT8 ||
      in->rank != 4 || f->rank != 4 || p->out_shape.rank != 4 ||
      p->out_shape.dims[0] != in->dims[0] || p->input_offset < -127 ||
      p->input_offset > 128) /* the window's bytes hold x + 128 */
    return false;
  memset(pl, 0, sizeof *pl);
  pl->rep = 1;
  if (dw) {
    int32_t c = in->dims[3], n = p->out_shape.dims[3];
    if (f->dims[0] != 1 || f->dims[3] != n || c <= 0 || n % c != 0) return false;
    pl->dwk = x->level->dwin;
    pl->run = pl->dwk->run;
    pl->rep = n / c;
    pl->fill = pl->rep > 1 ? pl->dwk->fill_rep : pl->dwk->fill;
  } else {
    if (f->dims[3] != in->dims[3] || p->out_shape.dims[3] != f->dims[0]) return false;
    pl->kit = x->level->conv;
    pl->run = pl->kit->run;
    pl->fill = pl->kit->fill;
  }
  pl->n = dw ? p->out_shape.dims[3] : f->dims[0];
  pl->fh = f->dims[1];
  pl->fw = f->dims[2];
  pl->c = in->dims[3];
  pl->sh = p->stride_h, pl->sw = p->stride_w, pl->dh = p->dilation_h, pl->dw = p->dilation_w;
  pl->ph = p->pad.pad_h, pl->pw = p->pad.pad_w;
  pl->b = in->dims[0], pl->ih = in->dims[1], pl->iw = in->dims[2];
  pl->oh = p->out_shape.dims[1], pl->ow = p->out_shape.dims[2];
  if (pl->n <= 0 || pl->c <= 0 || pl->fh <= 0 || pl->fw <= 0 || pl->fh > MAX_FH ||
      (int64_t)pl->fh * pl->fw > MAX_TAPS || pl->sh <= 0 || pl->sw <= 0 || pl->dh <= 0 ||
      pl->dw <= 0 || pl->ph < 0 || pl->pw < 0 || pl->b <= 0 || pl->ih <= 0 || pl->iw <= 0 ||
      pl->oh <= 0 || pl->ow <= 0 || pl->c > (1 << 20))
    return false;
  /* Every input row an output row reads, as int32 arithmetic in the tasks. */
  if ((int64_t)(pl->oh - 1) * pl->sh + (int64_t)(pl->fh - 1) * pl->dh > INT32_MAX / 2) return false;
  pl->taps = pl->fh * pl->fw;
  pl->cq = dw ? pl->fw : (pl->c + 3) / 4;
  pl->cp = dw ? pl->n : pl->cq * 4; /* the window's channels */
  int64_t n16 = ((int64_t)pl->n + 63) / 64 * 64;
  if (n16 * pl->taps * (dw ? 1 : pl->cp) > INT32_MAX / 4) return false;
  /* Packed weights cost a pass over them and scratch at each eval: for a convolution, worth it
   * over many pixels or small weights, as for the gemm kits' packing, whose int16 packing took
   * up to 128 KiB from 64 pixels on (late layers of small maps and large weights keep the
   * in-place product, and the arena its size). */
  int64_t pixels = (int64_t)pl->b * pl->oh * pl->ow, weights = (int64_t)pl->n * pl->taps * pl->c;
  if (!dw && pixels < 128 && (pixels < 64 || weights > 65536) && (pixels < 32 || weights > 16384))
    return false;
  if (!dw && pl->fh == 1 && pl->fw == 1 && pl->sh == 1 && pl->sw == 1 && pl->ph == 0 &&
      pl->pw == 0 && pl->oh == pl->ih && pl->ow == pl->iw) {
    int64_t m = (int64_t)pl->b * pl->ih * pl->iw;
    if (m > INT32_MAX) return false;
    pl->b = 1, pl->ih = 1, pl->oh = 1, pl->iw = (int32_t)m, pl->ow = (int32_t)m;
  }
  /* The last output column reads past the input by at most the right padding. */
  int64_t span = (int64_t)(pl->ow - 1) * pl->sw + (int64_t)(pl->fw - 1) * pl->dw + 1;
  if (span > INT32_MAX / 2 || span * pl->cp > INT32_MAX / 2) return false;
  int64_t cw = pl->ow;
  /* A window row of a single-row filter is used once: a short one does as well. */
  /* Depthwise runs pixel by pixel: short chunks cost it little, and its scratch stays near the
   * reference path's where the maps are large. */
  int64_t budget = dw ? WIN_BUDGET_DW : pl->fh == 1 ? WIN_BUDGET_1 : WIN_BUDGET;
  int64_t least = dw ? 4 : 16;
  if (pl->fh * span * pl->cp > budget) {
    int64_t fit = budget / ((int64_t)pl->fh * pl->cp) - (int64_t)(pl->fw - 1) * pl->dw - 1;
    cw = fit > 0 ? fit / pl->sw + 1 : 1;
    cw = cw < least ? least : cw / least * least;
    if (cw > pl->ow) cw = pl->ow;
  }
  pl->cw = (int32_t)cw;
  pl->chunks = (int32_t)((pl->ow + cw - 1) / cw);
  int64_t wp = (cw - 1) * pl->sw + (int64_t)(pl->fw - 1) * pl->dw + 1;
  pl->slot = ap_kscratch_round((size_t)(wp * pl->cp));
  pl->units = (int64_t)pl->b * pl->chunks * pl->oh;
  /* A depthwise multiply-add costs about 5 of a convolution's (no input reuse across channels),
   * as ap_fast_tasks counts it: MobileNet-v2's 14x14 and 7x7 depthwise ops (50 us each on one
   * core) stayed on one thread, and on two threads the maps moved between the cores' caches. */
  uint64_t work = (uint64_t)pl->b * (uint64_t)pl->oh * (uint64_t)pl->ow * (uint64_t)pl->n *
                  (uint64_t)pl->taps * (uint64_t)(dw ? 5 : pl->c);
  pl->tasks = ap_fast_tasks(x, work, pl->units);
  /* A few pieces per thread, each thread's contiguous (port.h): a thread that starts late
   * loses its last pieces to the others instead of holding the op back. */
  pl->pieces = ap_fast_chunks(pl->tasks, 4, pl->units);
  pl->slots = ap_fast_slots(x, pl->tasks);
  size_t n4 = (size_t)pl->n * 4, at = 0;
  pl->win_task = pl->slot * (size_t)pl->fh;
  if (!carve(&at, n4, &pl->mult) || !carve(&at, n4, &pl->shift) || !carve(&at, n4, &pl->bias) ||
      !carve(&at,
             dw ? pl->dwk->packed_bytes(pl->n, pl->fh, pl->fw)
                : pl->kit->packed_bytes(pl->n, pl->taps, pl->cq),
             &pl->packed) ||
      pl->win_task > SIZE_MAX / 64 || !carve(&at, pl->win_task * (size_t)pl->slots, &pl->win))
    return false;
  pl->total = at;
  if (!dw) return true; /* the pixel and weight thresholds above bound it */
  size_t maps = (size_t)in->dims[0] * (size_t)in->dims[1] * (size_t)in->dims[2] * (size_t)pl->c +
                (size_t)p->out_shape.dims[0] * (size_t)p->out_shape.dims[1] *
                    (size_t)p->out_shape.dims[2] * (size_t)pl->n;
  maps /= 4;
  return pl->total <= (other > maps ? other : maps);
}

bool ap_fast_convw_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                           const ap_ktensor *f, size_t other, size_t *scratch) {
  win_plan pl;
  if (!p || !in || !f || !plan(x, p, in, f, false, other, &pl)) return false;
  *scratch = pl.total;
  return true;
}

bool ap_fast_dwin_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                          const ap_ktensor *f, size_t other, size_t *scratch) {
  win_plan pl;
  if (!p || !in || !f || !plan(x, p, in, f, true, other, &pl)) return false;
  *scratch = pl.total;
  return true;
}

typedef struct win_job {
  const win_plan *pl;
  ap_qconv q;
  const int8_t *in;
  int8_t *out;
  uint8_t *sc;
  uint8_t pad; /* the zero point + 128 */
} win_job;

/* Input + 128, eight bytes at a time where it can. */
static void flip(uint8_t *dst, const int8_t *src, size_t bytes) {
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t v;
    memcpy(&v, src + i, 8);
    v ^= 0x8080808080808080ull;
    memcpy(dst + i, &v, 8);
  }
  for (; i < bytes; i++)
    dst[i] = (uint8_t)(src[i] ^ 0x80);
}

/* Window row: input row iy (PAD_ROW: outside) of batch b, columns [x0, x0 + wp). */
static void fill(const win_job *j, uint8_t *dst, int32_t iy, int32_t b, int32_t x0, int32_t wp) {
  const win_plan *pl = j->pl;
  size_t cp = (size_t)pl->cp;
  if (iy == PAD_ROW) {
    memset(dst, j->pad, (size_t)wp * cp);
    return;
  }
  int32_t a = x0 < 0 ? -x0 : 0, e = pl->iw - x0 < wp ? pl->iw - x0 : wp;
  if (e < a) e = a;
  memset(dst, j->pad, (size_t)a * cp);
  memset(dst + (size_t)e * cp, j->pad, (size_t)(wp - e) * cp);
  const int8_t *src =
      j->in + (((size_t)b * pl->ih + (size_t)iy) * pl->iw + (size_t)(x0 + a)) * (size_t)pl->c;
  if (pl->fill) { /* the kit's, repeating each byte for a depth multiplier */
    pl->fill(dst + (size_t)a * cp, src, e - a, pl->c, pl->cp);
    return;
  }
  if (pl->c == pl->cp) {
    flip(dst + (size_t)a * cp, src, (size_t)(e - a) * cp);
    return;
  }
  if (pl->rep > 1) { /* depthwise: output channel k reads input channel k / rep */
    int32_t c = pl->c, rep = pl->rep;
    for (int32_t i = a; i < e; i++, src += c) {
      uint8_t *d = dst + (size_t)i * cp;
      for (int32_t k = 0; k < c; k++, d += rep) {
        uint8_t v = (uint8_t)(src[k] ^ 0x80);
        int32_t r = 0;
        for (uint64_t pat = v * 0x0101010101010101ull; r + 8 <= rep; r += 8)
          memcpy(d + r, &pat, 8);
        for (; r < rep; r++)
          d[r] = v;
      }
    }
    return;
  }
  /* Channels padded to a multiple of 4 (their weights are 0, their bytes anything defined). */
  for (int32_t i = a; i < e; i++, src += pl->c) {
    uint8_t *d = dst + (size_t)i * cp;
    int32_t k = 0;
    for (; k < pl->c; k++)
      d[k] = (uint8_t)(src[k] ^ 0x80);
    for (; k < pl->cp; k++)
      d[k] = 0;
  }
}

static void win_task(void *arg, int piece, int slot) {
  const win_job *j = arg;
  const win_plan *pl = j->pl;
  uint8_t *win = j->sc + pl->win + (size_t)slot * pl->win_task;
  int64_t u0 = pl->units * piece / pl->pieces, u1 = pl->units * (piece + 1) / pl->pieces;
  int32_t tags[MAX_FH], need[MAX_FH], slot_of[MAX_FH];
  ptrdiff_t toff[MAX_TAPS];
  int64_t key = -1;
  for (int64_t u = u0; u < u1; u++) {
    /* Output rows in order, a row's chunks in order: in-place plans (graph/overlap.c) write
     * output row r over input rows that only rows before r read. */
    int32_t chunk = (int32_t)(u % pl->chunks), oy = (int32_t)(u / pl->chunks % pl->oh);
    int32_t b = (int32_t)(u / pl->chunks / pl->oh);
    int64_t rest = (int64_t)b * pl->chunks + chunk;
    if (rest != key) { /* another chunk: the ring holds nothing of it */
      key = rest;
      for (int32_t s = 0; s < pl->fh; s++)
        tags[s] = EMPTY;
    }
    int32_t ox0 = chunk * pl->cw, cnt = pl->ow - ox0 < pl->cw ? pl->ow - ox0 : pl->cw;
    int32_t wp = (cnt - 1) * pl->sw + (pl->fw - 1) * pl->dw + 1, x0 = ox0 * pl->sw - pl->pw;
    bool used[MAX_FH] = {false};
    for (int32_t fy = 0; fy < pl->fh; fy++) {
      int32_t iy = oy * pl->sh - pl->ph + fy * pl->dh;
      need[fy] = iy < 0 || iy >= pl->ih ? PAD_ROW : iy;
      slot_of[fy] = -1;
      for (int32_t s = 0; s < pl->fh; s++)
        if (tags[s] == need[fy]) slot_of[fy] = s, used[s] = true;
    }
    for (int32_t fy = 0; fy < pl->fh; fy++) {
      if (slot_of[fy] >= 0) continue;
      int32_t s = 0;
      for (int32_t t = 0; t < pl->fh; t++)
        if (tags[t] == need[fy]) slot_of[fy] = t; /* filled for an earlier fy of this row */
      if (slot_of[fy] >= 0) continue;
      while (used[s])
        s++;
      used[s] = true;
      tags[s] = need[fy];
      slot_of[fy] = s;
      fill(j, win + (size_t)s * pl->slot, need[fy], b, x0, wp);
    }
    for (int32_t fy = 0, t = 0; fy < pl->fh; fy++)
      for (int32_t fx = 0; fx < pl->fw; fx++, t++)
        toff[t] = (ptrdiff_t)((size_t)slot_of[fy] * pl->slot) + (ptrdiff_t)fx * pl->dw * pl->cp;
    int8_t *o = j->out + (((size_t)b * pl->oh + (size_t)oy) * pl->ow + (size_t)ox0) * pl->n;
    pl->run(&j->q, win, toff, cnt, (size_t)pl->sw * pl->cp, o);
  }
}

/* A convolution's multipliers and weight packing, split by blocks of output channels over the
 * threads: on one thread they were about 3% of MobileNet-v2's invoke, all of it in front of
 * the split rows. */
typedef struct pack_job {
  const win_plan *pl;
  const ap_conv_params *p;
  const ap_ktensor *f;
  const int32_t *bias;
  uint8_t *sc;
  int32_t pieces;
} pack_job;

/* From this many weight bytes the packing splits (a region costs the caller about a
 * microsecond; packing 16 KB takes a few). */
enum { PACK_SPLIT_BYTES = 16384 };

static void pack_task(void *arg, int piece) {
  const pack_job *j = arg;
  const win_plan *pl = j->pl;
  int32_t per = pl->dwk ? pl->dwk->pack_block : pl->kit->pack_block;
  int32_t blocks = (pl->n + per - 1) / per;
  int32_t b0 = (int32_t)((int64_t)blocks * piece / j->pieces);
  int32_t b1 = (int32_t)((int64_t)blocks * (piece + 1) / j->pieces);
  int32_t c0 = b0 * per, c1 = b1 * per < pl->n ? b1 * per : pl->n;
  if (c0 >= c1) return;
  ap_ktensor f = *j->f; /* channels [c0, c1)'s scales */
  if (f.channel_scales && f.n_channels > 1) f.channel_scales += c0;
  int32_t *mult = (int32_t *)(j->sc + pl->mult), *shift = (int32_t *)(j->sc + pl->shift);
  int32_t *col_bias = (int32_t *)(j->sc + pl->bias);
  ap_fast_channel_multipliers(j->p->input_scale, &f, j->p->output_scale, c1 - c0, mult + c0,
                              shift + c0);
  if (pl->dwk) {
    pl->dwk->pack_blocks(j->f->data, pl->n, pl->fh, pl->fw, j->bias, j->p->input_offset, mult,
                         shift, j->sc + pl->packed, b0, b1);
    return;
  }
  size_t k = (size_t)pl->taps * (size_t)pl->c;
  pl->kit->pack((const int8_t *)j->f->data + (size_t)c0 * k, c1 - c0, pl->taps, pl->c, pl->cq,
                j->bias ? j->bias + c0 : NULL, j->p->input_offset,
                j->sc + pl->packed + pl->kit->packed_bytes(c0, pl->taps, pl->cq), col_bias + c0);
}

static bool eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                 const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                 size_t other, ap_status *s, bool dw) {
  win_plan pl;
  if (!p || !in || !f || !out || !plan(x, p, in, f, dw, other, &pl)) return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) || !scratch ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  uint8_t *sc = scratch;
  int32_t *mult = (int32_t *)(sc + pl.mult), *shift = (int32_t *)(sc + pl.shift);
  int32_t *col_bias = (int32_t *)(sc + pl.bias);
  const int32_t *b = bias ? bias->data : NULL;
  int32_t per = dw ? (pl.dwk->pack_blocks ? pl.dwk->pack_block : 0) : pl.kit->pack_block;
  int32_t blocks = per > 0 ? (pl.n + per - 1) / per : 1;
  /* Depthwise weights are few (a 3x3 filter per channel): what costs there is per block of
   * channels, so it splits from 4 blocks. */
  bool split = pl.slots > 1 && (dw ? blocks >= 4
                                   : blocks >= 2 && (size_t)pl.n * (size_t)pl.taps * (size_t)pl.c >=
                                                        PACK_SPLIT_BYTES);
  if (split) {
    pack_job pj = {&pl, p, f, b, sc, blocks < 2 * pl.slots ? blocks : 2 * pl.slots};
    ap_fast_parallel(x, pack_task, &pj, pj.pieces);
  } else {
    ap_fast_channel_multipliers(p->input_scale, f, p->output_scale, pl.n, mult, shift);
    if (dw)
      pl.dwk->pack(f->data, pl.n, pl.fh, pl.fw, b, p->input_offset, mult, shift, sc + pl.packed);
    else
      pl.kit->pack(f->data, pl.n, pl.taps, pl.c, pl.cq, b, p->input_offset, sc + pl.packed,
                   col_bias);
  }
  win_job j = {&pl,
               {pl.n, pl.taps, pl.cq, sc + pl.packed, col_bias, mult, shift, p->output_offset,
                p->act_min, p->act_max},
               in->data,
               out->data,
               sc,
               (uint8_t)(128 - p->input_offset)};
  /* In place (output over input rows already read) the registry passes one thread
   * (ap_fast_in_order), and the units run in output-row order. */
  ap_fast_parallel_slots(x, win_task, &j, pl.pieces);
  *s = AP_OK;
  return true;
}

bool ap_fast_convw_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                        const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                        size_t other, ap_status *s) {
  return eval(x, p, in, f, bias, out, scratch, other, s, false);
}

bool ap_fast_dwin_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                       const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                       size_t other, ap_status *s) {
  return eval(x, p, in, f, bias, out, scratch, other, s, true);
}
