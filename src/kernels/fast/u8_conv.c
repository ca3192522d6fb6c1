/* CONV_2D uint8 (TFLite's legacy per-tensor kernel) as a matrix product over rows of patches:
 * each task widens a few patch rows at a time (input + offset, int16; zeros in padded
 * positions, which the reference skips) into its scratch and the level multiplies them by the
 * filter read in place, or packed into the scratch first where the level has a packed kit
 * and the rows are many. Scratch: the packing (if any), then mr rows of k int16 per task. */
#include "kernels/fast/fastops.h"
#include "kernels/kops_stream.h"

#include <string.h>

/* Splitting by output channels needs threads: a firmware's build links none of it. */
#ifdef AP_PORT_NONE
#define AP_U8_BY_COLS 0
#else
#define AP_U8_BY_COLS 1
#endif

typedef struct u8conv_plan {
  const ap_fastops *ops;
  int32_t n, k, kp, m, mr, tasks, rows_per_task;
  int32_t cblocks; /* > 0: tasks take blocks of 8 output channels over every row, not rows */
  size_t packed, a_at, a_task, total; /* packed: the packed weights' bytes (0: in place) */
} u8conv_plan;

static bool plan(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                 const ap_ktensor *f, u8conv_plan *pl) {
  if (!x || !x->level || !x->level->ops || p->kind != AP_KCONV_UINT8 || in->rank != 4 ||
      f->rank != 4 || p->out_shape.rank != 4 || f->dims[3] != in->dims[3])
    return false;
  const ap_fastops *ops = x->level->ops;
  int64_t k = (int64_t)f->dims[1] * f->dims[2] * f->dims[3];
  int64_t m = (int64_t)p->out_shape.dims[0] * p->out_shape.dims[1] * p->out_shape.dims[2];
  if (k <= 0 || k > INT32_MAX / 4 || m <= 0 || m > INT32_MAX || f->dims[0] <= 0) return false;
  memset(pl, 0, sizeof *pl);
  pl->ops = ops;
  pl->n = f->dims[0];
  pl->k = (int32_t)k;
  pl->kp = (int32_t)((k + ops->kalign - 1) / ops->kalign * ops->kalign);
  pl->m = (int32_t)m;
  pl->mr = ops->mr;
  int64_t blocks = (m + pl->mr - 1) / pl->mr, cblocks = ((int64_t)pl->n + 7) / 8;
  uint64_t work = (uint64_t)m * (uint64_t)pl->n * (uint64_t)k;
  pl->tasks = ap_fast_tasks(x, work, blocks);
  /* Fewer row blocks than threads (mobilenet_v1's classifier: one pixel, 1001 channels): the
   * threads take output channels instead, each reading only its channels' weights. */
  int cols = ap_fast_tasks(x, work, cblocks);
  if (AP_U8_BY_COLS && cols > pl->tasks && blocks < cols) {
    pl->tasks = cols;
    pl->cblocks = (int32_t)cblocks;
  }
  pl->rows_per_task = (int32_t)((blocks + pl->tasks - 1) / pl->tasks * pl->mr);
  pl->a_task = ap_kscratch_round((size_t)pl->mr * (size_t)pl->kp * sizeof(int16_t));
  /* Packed weights pay over many rows (packing costs about a block of rows' work); a level
   * without packing kits (or a copy of one without: AP_KERNELS_SMALL's last try) reads them in
   * place. */
  if (ops->u8gemm_packed && x->level->outer && m >= 128 && !pl->cblocks)
    pl->packed = ap_kscratch_round(ops->u8pack_bytes(pl->n, pl->k));
  pl->a_at = pl->packed;
  size_t rows;
  return ap_mul_size(pl->a_task, (size_t)pl->tasks, &rows) &&
         ap_add_size(pl->a_at, rows, &pl->total);
}

bool ap_fast_u8conv_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                            const ap_ktensor *f, size_t *scratch) {
  u8conv_plan pl;
  if (!plan(x, p, in, f, &pl)) return false;
  *scratch = pl.total;
  return true;
}

/* Fixed-length blocks: compilers vectorise them at -O2 too. */
static inline void widen(int16_t *restrict dst, const uint8_t *restrict src, size_t n,
                         int16_t off) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int q = 0; q < 16; q++)
      dst[i + q] = (int16_t)(src[i + q] + off);
  for (; i + 8 <= n; i += 8)
    for (int q = 0; q < 8; q++)
      dst[i + q] = (int16_t)(src[i + q] + off);
  for (; i < n; i++)
    dst[i] = (int16_t)(src[i] + off);
}

static const uint8_t *in_row(const ap_u8conv_run *j, int32_t b, int32_t iy) {
  size_t y = j->in_ring ? (size_t)RING_SLOT(iy, j->in_ring) : (size_t)b * j->in_h + (size_t)iy;
  return j->in + y * (size_t)j->in_w * (size_t)j->in_d;
}

/* Patch row of output pixel (b, oy, ox) as int16 into a: k values (the zeros past k, up to
 * kp, are the caller's). */
static void patch(const ap_u8conv_run *j, int32_t b, int32_t oy, int32_t ox, int16_t *a) {
  const ap_conv_params *p = j->p;
  size_t d = (size_t)j->in_d, run = (size_t)j->f_w * d;
  int16_t off = (int16_t)p->input_offset;
  if (j->flat) { /* 1x1, stride 1, no padding: the input pixel itself */
    widen(a, in_row(j, b, oy) + (size_t)ox * d, d, off);
    return;
  }
  int32_t y0 = oy * p->stride_h - p->pad.pad_h, x0 = ox * p->stride_w - p->pad.pad_w;
  bool row_inside = x0 >= 0 && x0 + p->dilation_w * (j->f_w - 1) < j->in_w;
  for (int32_t fy = 0; fy < j->f_h; fy++) {
    int32_t iy = y0 + p->dilation_h * fy;
    int16_t *dst = a + (size_t)fy * run;
    if (iy < 0 || iy >= j->in_h) {
      memset(dst, 0, run * sizeof *dst);
      continue;
    }
    const uint8_t *src = in_row(j, b, iy);
    if (row_inside && p->dilation_w == 1) { /* the row's taps are adjacent in the input */
      widen(dst, src + (size_t)x0 * d, run, off);
      continue;
    }
    for (int32_t fx = 0; fx < j->f_w; fx++, dst += d) {
      int32_t ix = x0 + p->dilation_w * fx;
      if (ix < 0 || ix >= j->in_w)
        memset(dst, 0, d * sizeof *dst);
      else
        widen(dst, src + (size_t)ix * d, d, off);
    }
  }
}

void ap_fast_u8conv_init(ap_u8conv_run *j, const ap_fastops *ops, const ap_conv_params *p,
                         const ap_ktensor *in, const ap_ktensor *f, const ap_ktensor *bias,
                         ap_ktensor *out) {
  int32_t k = f->dims[1] * f->dims[2] * f->dims[3];
  *j = (ap_u8conv_run){
      .p = p,
      .ops = ops,
      .g = {f->dims[0],
            k,
            (k + ops->kalign - 1) / ops->kalign * ops->kalign,
            f->data,
            bias ? bias->data : NULL,
            p->filter_offset,
            {p->output_multiplier, p->output_shift, p->output_offset, p->act_min, p->act_max}},
      .in = in->data,
      .out = out->data,
      .geom = ap_fast_geom_of(p, in, f, out),
      .flat = f->dims[1] == 1 && f->dims[2] == 1 && p->stride_h == 1 && p->stride_w == 1 &&
              p->pad.pad_h == 0 && p->pad.pad_w == 0 && in->dims[1] == out->dims[1] &&
              in->dims[2] == out->dims[2]};
}

void ap_fast_u8conv_pixels(const ap_u8conv_run *j, int16_t *a, int64_t begin, int64_t end) {
  int32_t mr = j->ops->mr, n = j->g.n, kp = j->g.kp, ow = j->out_w;
  for (int64_t r0 = begin; r0 < end;) {
    int64_t row = r0 / ow;
    int32_t ox = (int32_t)(r0 - row * ow), oy = (int32_t)(row % j->out_h);
    int32_t b = (int32_t)(row / j->out_h);
    /* The block's outputs are one run of bytes: in a ring, up to its last slot. */
    size_t at = (size_t)r0;
    int64_t left = end - r0;
    if (j->out_ring) {
      int32_t slot = RING_SLOT(oy, j->out_ring);
      at = (size_t)slot * (size_t)ow + (size_t)ox;
      if ((int64_t)(j->out_ring - slot) * ow - ox < left)
        left = (int64_t)(j->out_ring - slot) * ow - ox;
    }
    int32_t rows = left < mr ? (int32_t)left : mr;
    if (j->ops->u8patch && !j->in_ring && !j->flat) /* the level's, over whole maps */
      j->ops->u8patch(&j->geom, j->in, (int16_t)j->p->input_offset, b, oy, ox, rows, kp, a);
    else
      for (int32_t i = 0, x = ox, y = oy; i < rows; i++) {
        patch(j, b, y, x, a + (size_t)i * (size_t)kp);
        if (++x == ow) {
          x = 0;
          if (++y == j->out_h) y = 0, b++;
        }
      }
    size_t stride = j->out_stride ? j->out_stride : (size_t)n;
    uint8_t *out = j->out + at * stride;
    if (j->packed)
      j->ops->u8gemm_packed(&j->g, j->packed, a, rows, out, stride);
    else
      j->ops->u8gemm(&j->g, a, rows, out, stride);
    r0 += rows;
  }
}

typedef struct u8conv_job {
  const u8conv_plan *pl;
  ap_u8conv_run run;
  uint8_t *scratch;
} u8conv_job;

static void conv_task(void *arg, int task) {
  const u8conv_job *j = arg;
  const u8conv_plan *pl = j->pl;
  int16_t *a = (int16_t *)(j->scratch + pl->a_at + (size_t)task * pl->a_task);
  memset(a, 0, (size_t)pl->mr * (size_t)pl->kp * sizeof *a);
  if (AP_U8_BY_COLS && pl->cblocks) { /* channels [c0, c1) of every pixel */
    int32_t c0 = (int32_t)((int64_t)task * pl->cblocks / pl->tasks * 8);
    int32_t c1 = (int32_t)((int64_t)(task + 1) * pl->cblocks / pl->tasks * 8);
    if (c1 > pl->n) c1 = pl->n;
    ap_u8conv_run r = j->run;
    r.g.n = c1 - c0;
    r.g.w += (size_t)c0 * (size_t)pl->k;
    if (r.g.bias) r.g.bias += c0;
    r.out += c0;
    r.out_stride = (size_t)pl->n;
    ap_fast_u8conv_pixels(&r, a, 0, pl->m);
    return;
  }
  int64_t begin = (int64_t)task * pl->rows_per_task, end = begin + pl->rows_per_task;
  if (end > pl->m) end = pl->m;
  ap_fast_u8conv_pixels(&j->run, a, begin, end);
}

#ifndef AP_PORT_NONE
/* A task's patch rows on its own stack where they are small (the first convolutions of
 * MobileNets: a few hundred bytes), so that an op given one workspace (ap_fast_shared) still
 * splits, and one over its input band by band. */
#define U8_STACK 4096

typedef struct u8conv_span {
  const u8conv_job *j;
  int64_t first, count;
  int pieces;
} u8conv_span;

static void stack_task(void *arg, int i) {
  const u8conv_span *a = arg;
  const u8conv_plan *pl = a->j->pl;
  _Alignas(64) int16_t rows[U8_STACK / sizeof(int16_t)];
  memset(rows, 0, (size_t)pl->mr * (size_t)pl->kp * sizeof *rows);
  int64_t begin = a->first + a->count * i / a->pieces;
  int64_t end = a->first + a->count * (i + 1) / a->pieces;
  ap_fast_u8conv_pixels(&a->j->run, rows, begin, end);
}

/* Pixels [p0, p1) in pieces (a few a thread), each on its thread's stack. */
static void stack_span(const ap_kexec *x, const u8conv_job *j, int64_t p0, int64_t p1) {
  const u8conv_plan *pl = j->pl;
  int64_t blocks = (p1 - p0 + pl->mr - 1) / pl->mr;
  u8conv_span a = {j, p0, p1 - p0, 1};
  a.pieces = ap_fast_chunks(
      ap_fast_tasks(x, (uint64_t)(p1 - p0) * (uint64_t)pl->n * (uint64_t)pl->k, blocks), 2, blocks);
  ap_fast_parallel(x, stack_task, &a, a.pieces);
}

/* Whether the op ran with its patch rows on the stack (x with one workspace, rows small). */
static bool on_stack(const ap_kexec *x, const u8conv_job *j, const ap_ktensor *in,
                     ap_ktensor *out) {
  ap_kexec tmp;
  const ap_kexec *xs = ap_fast_shared(x, &tmp);
  const u8conv_plan *pl = j->pl;
  if (xs == x || !xs->workers || (size_t)pl->mr * (size_t)pl->kp * sizeof(int16_t) > U8_STACK)
    return false;
  if (!ap_fast_overlapping(in, out)) {
    stack_span(xs, j, 0, pl->m);
    return true;
  }
  const ap_conv_params *p = j->run.p;
  int32_t rows = out->dims[0] * out->dims[1], w = out->dims[2];
  for (int32_t r0 = 0, r1; r0 < rows; r0 = r1) { /* each band's rows in any order */
    r1 = ap_fast_overlap_band(in, out, p->stride_h, p->pad.pad_h, r0);
    stack_span(xs, j, (int64_t)r0 * w, (int64_t)r1 * w);
  }
  return true;
}
#else
#define on_stack(x, j, in, out) false
#endif

bool ap_fast_u8conv_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                         const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                         void *scratch, ap_status *s) {
  u8conv_plan pl;
  if (!p || !in || !f || !out || !plan(x, p, in, f, &pl)) return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) || !scratch ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  u8conv_job j = {&pl, {0}, scratch};
  ap_fast_u8conv_init(&j.run, pl.ops, p, in, f, bias, out);
  if (pl.packed) {
    pl.ops->u8pack(&j.run.g, scratch);
    j.run.packed = scratch;
  }
  if (on_stack(x, &j, in, out)) {
    *s = AP_OK;
    return true;
  }
  ap_kexec serial; /* an output over its input: rows in order, on one thread */
  x = ap_fast_in_order(x, in, out, &serial);
  ap_fast_parallel(x, conv_task, &j, pl.tasks);
  *s = AP_OK;
  return true;
}
