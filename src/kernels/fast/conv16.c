/* CONV_2D and FULLY_CONNECTED 16x8 (int16 activations, int8 weights, per-channel or
 * per-tensor, int64 or int32 sums): each output is the level's exact dot product of a patch
 * row and a filter row, then the reference's requantization. Convolution patches are built
 * (zeros where the reference skips padded taps: its zero points are ignored) one row at a time
 * in each task's part of the scratch, after the reference's multipliers. */
#include "kernels/fast/fastops.h"
#include "kernels/kops_conv16.h"

#include <string.h>

typedef struct c16_plan {
  int32_t n, k, m, tasks;
  bool direct;
  size_t head, row, total;
} c16_plan;

static bool plan(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                 const ap_ktensor *f, c16_plan *pl) {
  if (!x || !x->level || !x->level->ops || !x->level->ops->dot16x8 || p->kind != AP_KCONV_INT16X8 ||
      in->rank != 4 || f->rank != 4 || p->out_shape.rank != 4 || f->dims[3] != in->dims[3] ||
      f->dims[0] != p->out_channels)
    return false;
  int64_t k = (int64_t)f->dims[1] * f->dims[2] * f->dims[3];
  int64_t m = (int64_t)p->out_shape.dims[0] * p->out_shape.dims[1] * p->out_shape.dims[2];
  if (k <= 0 || k > INT32_MAX / 4 || m <= 0 || m > INT32_MAX || p->out_channels <= 0) return false;
  memset(pl, 0, sizeof *pl);
  pl->n = p->out_channels;
  pl->k = (int32_t)k;
  pl->m = (int32_t)m;
  pl->direct = f->dims[1] == 1 && f->dims[2] == 1 && p->pad.pad_h == 0 && p->pad.pad_w == 0;
  pl->tasks = ap_fast_tasks(x, (uint64_t)m * (uint64_t)pl->n * (uint64_t)k, m);
  pl->head = ap_kscratch_round((size_t)pl->n * 2 * sizeof(int32_t));
  pl->row = pl->direct ? 0 : ap_kscratch_round((size_t)k * sizeof(int16_t));
  size_t rows;
  return ap_mul_size(pl->row, (size_t)pl->tasks, &rows) && ap_add_size(pl->head, rows, &pl->total);
}

bool ap_fast_conv16_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                            const ap_ktensor *f, size_t *scratch) {
  c16_plan pl;
  if (!plan(x, p, in, f, &pl)) return false;
  *scratch = pl.total;
  return true;
}

typedef struct c16_job {
  const c16_plan *pl;
  const ap_conv_params *p;
  const ap_fastops *ops;
  const int16_t *in;
  const int8_t *f;
  const void *bias;
  int16_t *out;
  uint8_t *scratch;
  const int32_t *qmult, *qshift;
  AP_FAST_GEOM;
} c16_job;

static const int16_t *patch(const c16_job *j, int32_t r, int16_t *row) {
  const ap_conv_params *p = j->p;
  int32_t ox = r % j->out_w, oy = r / j->out_w % j->out_h, b = r / j->out_w / j->out_h;
  int32_t y0 = oy * p->stride_h - p->pad.pad_h, x0 = ox * p->stride_w - p->pad.pad_w;
  size_t d = (size_t)j->in_d;
  if (j->pl->direct) return j->in + (((size_t)b * j->in_h + (size_t)y0) * j->in_w + (size_t)x0) * d;
  int16_t *dst = row;
  for (int32_t fy = 0; fy < j->f_h; fy++) {
    int32_t iy = y0 + p->dilation_h * fy;
    for (int32_t fx = 0; fx < j->f_w; fx++, dst += d) {
      int32_t ix = x0 + p->dilation_w * fx;
      if (iy < 0 || iy >= j->in_h || ix < 0 || ix >= j->in_w)
        memset(dst, 0, d * sizeof *dst);
      else
        memcpy(dst, j->in + (((size_t)b * j->in_h + (size_t)iy) * j->in_w + (size_t)ix) * d,
               d * sizeof *dst);
    }
  }
  return row;
}

static void c16_task(void *arg, int task) {
  const c16_job *j = arg;
  const c16_plan *pl = j->pl;
  int16_t *row = (int16_t *)(j->scratch + pl->head + (size_t)task * pl->row);
  int32_t r0 = (int32_t)((int64_t)pl->m * task / pl->tasks);
  int32_t r1 = (int32_t)((int64_t)pl->m * (task + 1) / pl->tasks);
  const ap_conv_params *p = j->p;
  for (int32_t r = r0; r < r1; r++) {
    const int16_t *a = patch(j, r, row);
    int16_t *o = j->out + (size_t)r * (size_t)pl->n;
    for (int32_t c = 0; c < pl->n; c++) {
      int64_t acc64 = j->ops->dot16x8(a, j->f + (size_t)c * (size_t)pl->k, pl->k);
      int32_t v;
      if (p->acc32) {
        uint32_t acc = (uint32_t)(uint64_t)acc64;
        if (j->bias) acc += (uint32_t)((const int32_t *)j->bias)[c];
        v = ap_kq_mul((int32_t)acc, j->qmult[c], j->qshift[c]);
      } else {
        if (j->bias)
          acc64 = (int64_t)((uint64_t)acc64 + (uint64_t)ap_kload_i64(j->bias, (size_t)c));
        v = ap_kq_mul64(acc64, j->qmult[c], j->qshift[c]);
      }
      o[c] = (int16_t)ap_kq_clamp(v, p->act_min, p->act_max);
    }
  }
}

bool ap_fast_conv16_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                         const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out,
                         void *scratch, ap_status *s) {
  c16_plan pl;
  if (!p || !in || !f || !out || !plan(x, p, in, f, &pl)) return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) || !scratch ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  int32_t *mult = scratch, *shift = mult + pl.n;
  ap_fast_channel_multipliers(p->input_scale, f, p->output_scale, pl.n, mult, shift);
  c16_job j = {.pl = &pl,
               .p = p,
               .ops = x->level->ops,
               .in = in->data,
               .f = f->data,
               .bias = bias ? bias->data : NULL,
               .out = out->data,
               .scratch = scratch,
               .qmult = mult,
               .qshift = shift,
               .geom = ap_fast_geom_of(p, in, f, out)};
  ap_fast_parallel(x, c16_task, &j, pl.tasks);
  *s = AP_OK;
  return true;
}

typedef struct f16_job {
  const ap_fc_params *p;
  const ap_fastops *ops;
  const int16_t *x;
  const int8_t *w;
  const void *bias;
  int16_t *out;
  const int32_t *mult, *shift;
  int tasks;
} f16_job;

static void f16_task(void *arg, int task) {
  const f16_job *j = arg;
  const ap_fc_params *p = j->p;
  int32_t u0 = (int32_t)((int64_t)p->units * task / j->tasks);
  int32_t u1 = (int32_t)((int64_t)p->units * (task + 1) / j->tasks);
  for (int32_t b = 0; b < p->batches; b++)
    for (int32_t u = u0; u < u1; u++) {
      int64_t acc64 = j->ops->dot16x8(j->x + (size_t)b * (size_t)p->accum_depth,
                                      j->w + (size_t)u * (size_t)p->accum_depth, p->accum_depth);
      int32_t m = j->mult ? j->mult[u] : p->output_multiplier;
      int sh = j->mult ? (int)j->shift[u] : p->output_shift;
      int32_t acc;
      if (p->acc32) {
        uint32_t a = (uint32_t)(uint64_t)acc64;
        if (j->bias) a += (uint32_t)((const int32_t *)j->bias)[u];
        acc = ap_kq_mul((int32_t)a, m, sh);
      } else {
        if (j->bias)
          acc64 = (int64_t)((uint64_t)acc64 + (uint64_t)ap_kload_i64(j->bias, (size_t)u));
        acc = ap_kq_mul64(acc64, m, sh);
      }
      acc = (int32_t)((uint32_t)acc + (uint32_t)p->output_offset);
      j->out[(size_t)b * (size_t)p->units + (size_t)u] =
          (int16_t)ap_kq_clamp(acc, p->act_min, p->act_max);
    }
}

bool ap_fast_fc16_eval(const ap_kexec *x, const ap_fc_params *p, const ap_ktensor *in,
                       const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                       ap_status *s) {
  bool pc = p && p->kind == AP_KFC_INT16_PER_CHANNEL;
  /* The products are x * w only without offsets (int16 zero point 0, as the converter
   * writes, and no filter offset). */
  if (!x || !x->level || !x->level->ops || !x->level->ops->dot16x8 || !p || !in || !f || !out ||
      (p->kind != AP_KFC_INT16 && !pc) || p->input_offset != 0 || (!pc && p->filter_offset != 0) ||
      p->accum_depth <= 0 || p->units <= 0 || p->batches <= 0)
    return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) ||
      (p->scratch_bytes && !scratch) || (pc && !scratch) || !ap_kshape_is(in, &p->in_shape) ||
      !ap_kshape_is(f, &p->in2_shape) || !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  int32_t *mult = NULL, *shift = NULL;
  if (pc) {
    mult = scratch;
    shift = mult + p->units;
    ap_fast_channel_multipliers(p->input_scale, f, p->output_scale, p->units, mult, shift);
  }
  uint64_t work = (uint64_t)p->batches * (uint64_t)p->units * (uint64_t)p->accum_depth;
  f16_job j = {p,
               x->level->ops,
               in->data,
               f->data,
               bias ? bias->data : NULL,
               out->data,
               mult,
               shift,
               ap_fast_tasks(x, work, (p->units + 15) / 16)};
  ap_fast_parallel(x, f16_task, &j, j.tasks);
  *s = AP_OK;
  return true;
}
