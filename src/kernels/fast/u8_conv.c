/* CONV_2D uint8 (TFLite's legacy per-tensor kernel) as a matrix product over rows of patches:
 * each task widens a few patch rows at a time (input + offset, int16; zeros in padded
 * positions, which the reference skips) into its scratch and the level multiplies them by the
 * filter read in place, or packed into the scratch first where the level has a packed kit
 * and the rows are many. Scratch: the packing (if any), then mr rows of k int16 per task. */
#include "kernels/fast/fastops.h"

#include <string.h>

typedef struct u8conv_plan {
  const ap_fastops *ops;
  int32_t n, k, kp, m, mr, tasks, rows_per_task;
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
  int64_t blocks = (m + pl->mr - 1) / pl->mr;
  pl->tasks = ap_fast_tasks(x, (uint64_t)m * (uint64_t)pl->n * (uint64_t)k, blocks);
  pl->rows_per_task = (int32_t)((blocks + pl->tasks - 1) / pl->tasks * pl->mr);
  pl->a_task = ap_kscratch_round((size_t)pl->mr * (size_t)pl->kp * sizeof(int16_t));
  /* Packed weights pay over many rows (packing costs about a block of rows' work); a level
   * without packing kits (or a copy of one without: AP_KERNELS_SMALL's last try) reads them in
   * place. */
  if (ops->u8gemm_packed && x->level->outer && m >= 128)
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

typedef struct u8conv_job {
  const u8conv_plan *pl;
  const ap_conv_params *p;
  ap_u8gemm g;
  const uint8_t *in;
  uint8_t *out;
  uint8_t *scratch;
  int32_t in_h, in_w, in_d, out_h, out_w, f_h, f_w;
  bool flat; /* 1x1, stride 1, no padding: patch rows are the input's pixels */
} u8conv_job;

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

/* Patch row r (output pixel r in batch, row, column order) as int16 into a: k values (the
 * zeros past k, up to kp, are written once per task). */
static void patch(const u8conv_job *j, int32_t r, int16_t *a) {
  const ap_conv_params *p = j->p;
  if (j->flat) { /* 1x1, stride 1, no padding: row r is input pixel r */
    widen(a, j->in + (size_t)r * (size_t)j->pl->k, (size_t)j->pl->k, (int16_t)p->input_offset);
    return;
  }
  int32_t ox = r % j->out_w, oy = r / j->out_w % j->out_h, b = r / j->out_w / j->out_h;
  int32_t y0 = oy * p->stride_h - p->pad.pad_h, x0 = ox * p->stride_w - p->pad.pad_w;
  size_t d = (size_t)j->in_d, run = (size_t)j->f_w * d;
  int16_t off = (int16_t)p->input_offset;
  bool row_inside = x0 >= 0 && x0 + p->dilation_w * (j->f_w - 1) < j->in_w;
  for (int32_t fy = 0; fy < j->f_h; fy++) {
    int32_t iy = y0 + p->dilation_h * fy;
    int16_t *dst = a + (size_t)fy * run;
    if (iy < 0 || iy >= j->in_h) {
      memset(dst, 0, run * sizeof *dst);
      continue;
    }
    const uint8_t *src = j->in + (((size_t)b * j->in_h + (size_t)iy) * (size_t)j->in_w) * d;
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

static void conv_task(void *arg, int task) {
  const u8conv_job *j = arg;
  const u8conv_plan *pl = j->pl;
  int16_t *a = (int16_t *)(j->scratch + pl->a_at + (size_t)task * pl->a_task);
  int64_t begin = (int64_t)task * pl->rows_per_task, end = begin + pl->rows_per_task;
  memset(a, 0, (size_t)pl->mr * (size_t)pl->kp * sizeof *a);
  if (end > pl->m) end = pl->m;
  for (int64_t r0 = begin; r0 < end; r0 += pl->mr) {
    int32_t rows = (int32_t)(end - r0 < pl->mr ? end - r0 : pl->mr);
    for (int32_t i = 0; i < rows; i++)
      patch(j, (int32_t)r0 + i, a + (size_t)i * (size_t)pl->kp);
    uint8_t *out = j->out + (size_t)r0 * (size_t)pl->n;
    if (pl->packed)
      pl->ops->u8gemm_packed(&j->g, j->scratch, a, rows, out, (size_t)pl->n);
    else
      pl->ops->u8gemm(&j->g, a, rows, out, (size_t)pl->n);
  }
}

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
  u8conv_job j = {
      &pl,
      p,
      {pl.n,
       pl.k,
       pl.kp,
       f->data,
       bias ? bias->data : NULL,
       p->filter_offset,
       {p->output_multiplier, p->output_shift, p->output_offset, p->act_min, p->act_max}},
      in->data,
      out->data,
      scratch,
      in->dims[1],
      in->dims[2],
      in->dims[3],
      out->dims[1],
      out->dims[2],
      f->dims[1],
      f->dims[2],
      f->dims[1] == 1 && f->dims[2] == 1 && p->stride_h == 1 && p->stride_w == 1 &&
          p->pad.pad_h == 0 && p->pad.pad_w == 0 && in->dims[1] == out->dims[1] &&
          in->dims[2] == out->dims[2]};
  if (pl.packed) pl.ops->u8pack(&j.g, scratch);
  ap_fast_parallel(x, conv_task, &j, pl.tasks);
  *s = AP_OK;
  return true;
}
