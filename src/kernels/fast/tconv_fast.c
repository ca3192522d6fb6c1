/* TRANSPOSE_CONV's fast path, the registry's adapters around the reference kernel
 * (transpose_conv.c), which runs whatever this does not cover. int8 and 16x8: for each input
 * pixel and filter tap inside the output, every output channel gains the level's dot product
 * of the pixel's channels (int16: input + offset for int8) with the filter's run of input
 * channels, which [co][ky][kx][ci] keeps contiguous; sums are order-free (int32 wrapping,
 * exact int64), so the reference's scratch layout (multipliers, then one accumulator per
 * output) plus one pixel row serves. float32: float_tconv.c over the filter transposed into
 * scratch, in the reference's order. */
#include "kernels/fast/fastops.h"
#include "kernels/kops.h"
#include "kernels/kops_conv16.h"
#include "kernels/registry.h"

#include <string.h>

/* transpose_conv.c's p->kind for float32 with a fused activation (clamped after the bias). */
enum { TC_FLOAT_CLAMP = 1 };

typedef struct tc_geo {
  int type;
  int32_t batches, ih, iw, ic, fh, fw, oh, ow, oc;
  int tasks; /* output channel ranges, one per task */
  size_t n, accs_at, row_at, row_bytes, total;
} tc_geo;

static bool geo(const ap_kexec *x, const ap_kctx *c, tc_geo *g) {
  if (!x || !x->level || !x->level->ops || !x->level->ops->dot16x8 || !c || !c->params ||
      c->n_inputs < 3 || c->n_outputs < 1 || !c->inputs || !c->inputs[1] || !c->inputs[2] ||
      !c->outputs || !c->outputs[0])
    return false;
  const ap_ktensor *f = c->inputs[1], *in = c->inputs[2], *out = c->outputs[0];
  if (in->rank != 4 || f->rank != 4 || out->rank != 4) return false;
  memset(g, 0, sizeof *g);
  g->type = in->type;
  if (g->type != AP_FLOAT32 && g->type != AP_INT8 && g->type != AP_INT16) return false;
  g->batches = in->dims[0], g->ih = in->dims[1], g->iw = in->dims[2], g->ic = in->dims[3];
  g->fh = f->dims[1], g->fw = f->dims[2];
  g->oh = out->dims[1], g->ow = out->dims[2], g->oc = out->dims[3];
  if (!ap_ktensor_count(out, &g->n) || g->oc <= 0 || g->ic <= 0) return false;
  uint64_t work = (uint64_t)g->batches * (uint64_t)g->ih * (uint64_t)g->iw * (uint64_t)g->fh *
                  (uint64_t)g->fw * (uint64_t)g->ic * (uint64_t)g->oc;
  g->tasks = ap_fast_tasks(x, work, g->oc);
  size_t t;
  if (g->type == AP_FLOAT32) {
    size_t w;
    if (!ap_ktensor_count(f, &w) || !ap_mul_size(w, sizeof(float), &t) || t == 0 ||
        t > SIZE_MAX - AP_KSCRATCH_ALIGN)
      return false;
    if (ap_fast_level_flat(x->level)) /* a chunk of output channels at a time (float_tconv.c) */
      t = ap_fast_tconv_float_chunk_bytes(g->fh, g->fw, g->ic, g->oc);
    g->total = ap_kscratch_round(t);
    return true;
  }
  size_t es = g->type == AP_INT8 ? sizeof(int32_t) : sizeof(int64_t), head;
  if (!ap_mul_size((size_t)g->oc, 2 * sizeof(int32_t), &head) ||
      head > SIZE_MAX - AP_KSCRATCH_ALIGN)
    return false;
  g->accs_at = ap_kscratch_round(head);
  if (!ap_mul_size(g->n, es, &t) || !ap_add_size(g->accs_at, t, &t) ||
      t > SIZE_MAX - 2 * AP_KSCRATCH_ALIGN - (size_t)g->ic * 2)
    return false;
  g->row_at = ap_kscratch_round(t);
  g->row_bytes = ap_kscratch_round((size_t)g->ic * sizeof(int16_t));
  size_t rows;
  return ap_mul_size(g->row_bytes, (size_t)g->tasks, &rows) &&
         ap_add_size(g->row_at, rows, &g->total);
}

static bool tc_need(const ap_kexec *x, ap_kctx *c, size_t *scratch) {
  tc_geo g;
  if (!geo(x, c, &g)) return false;
  *scratch = g.total;
  return true;
}

ap_status ap_fast_tconv_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_transpose_conv_prepare(c, scratch);
  ap_fast_small tmp;
  if (s == AP_OK) ap_fast_bounded(c, tc_need, *scratch, false, &tmp, scratch);
  return s;
}

/* Task t's output channels of the float scatter (each output's order is its own). */
typedef struct ftc_job {
  const ap_ftconv *t;
  int tasks;
} ftc_job;

static void ftc_task(void *arg, int task) {
  const ftc_job *j = arg;
  ap_ftconv t = *j->t;
  t.co0 = (int32_t)((int64_t)j->t->oc * task / j->tasks);
  t.co1 = (int32_t)((int64_t)j->t->oc * (task + 1) / j->tasks);
  if (t.co0 < t.co1) ap_fast_tconv_float(&t);
}

static void floats(const ap_kexec *x, const ap_kx_params *p, const tc_geo *g, const ap_ktensor *f,
                   const ap_ktensor *in, const ap_ktensor *bias, ap_ktensor *out, float *wt) {
  const float *w = f->data;
  for (int32_t co = 0; co < g->oc && !ap_fast_level_flat(x->level); co++)
    for (int32_t ky = 0; ky < g->fh; ky++)
      for (int32_t kx = 0; kx < g->fw; kx++)
        for (int32_t ci = 0; ci < g->ic; ci++)
          wt[(((size_t)ky * g->fw + kx) * g->ic + ci) * g->oc + co] =
              w[(((size_t)co * g->fh + ky) * g->fw + kx) * g->ic + ci];
  float *y = out->data;
  memset(y, 0, g->n * sizeof *y);
  ap_ftconv t = {
      in->data, wt,    y,     g->batches, g->ih,        g->iw,        g->ic,       g->fh,
      g->fw,    g->oh, g->ow, g->oc,      p->stride[0], p->stride[1], p->begin[0], p->begin[1],
      0,        g->oc, 0,     0};
  ftc_job j = {&t, g->tasks};
  if (ap_fast_level_flat(x->level))
    ap_fast_tconv_float_chunks(&t, w, wt);
  else
    ap_fast_parallel(x, ftc_task, &j, g->tasks);
  /* As the reference: no bias adds nothing (-0.0f stays), then the clamp. */
  if (bias) {
    const float *bv = bias->data;
    for (size_t i = 0; i < g->n; i++)
      y[i] += bv[i % (size_t)g->oc];
  }
  if (p->kind == TC_FLOAT_CLAMP)
    for (size_t i = 0; i < g->n; i++)
      y[i] = ap_kq_clampf(y[i], p->fmin, p->fmax);
}

/* Task t's output channels [co0, co1) of every output pixel: its own accumulators, its own
 * pixel row. */
typedef struct tc_job {
  const ap_fastops *ops;
  const ap_kx_params *p;
  const tc_geo *g;
  const ap_ktensor *in;
  const int8_t *w;
  uint8_t *sc;
} tc_job;

static void tc_task(void *arg, int task) {
  const tc_job *j = arg;
  const tc_geo *g = j->g;
  const ap_kx_params *p = j->p;
  bool s8 = g->type == AP_INT8;
  int32_t co0 = (int32_t)((int64_t)g->oc * task / g->tasks);
  int32_t co1 = (int32_t)((int64_t)g->oc * (task + 1) / g->tasks);
  uint32_t *acc32 = (uint32_t *)(j->sc + g->accs_at);
  uint64_t *acc64 = (uint64_t *)(j->sc + g->accs_at);
  int16_t *row = (int16_t *)(j->sc + g->row_at + (size_t)task * g->row_bytes);
  size_t tap = (size_t)g->fh * g->fw * g->ic; /* one output channel's filter */
  for (int32_t b = 0; b < g->batches; b++)
    for (int32_t iy = 0; iy < g->ih; iy++)
      for (int32_t ix = 0; ix < g->iw; ix++) {
        size_t xi = (((size_t)b * g->ih + iy) * g->iw + ix) * g->ic;
        for (int32_t ci = 0; ci < g->ic; ci++)
          row[ci] = s8 ? (int16_t)(((const int8_t *)j->in->data)[xi + ci] + p->q_offset[0])
                       : ((const int16_t *)j->in->data)[xi + ci];
        int64_t oy0 = (int64_t)iy * p->stride[0] - p->begin[0];
        int64_t ox0 = (int64_t)ix * p->stride[1] - p->begin[1];
        for (int32_t ky = 0; ky < g->fh; ky++) {
          int64_t oy = oy0 + ky;
          if (oy < 0 || oy >= g->oh) continue;
          for (int32_t kx = 0; kx < g->fw; kx++) {
            int64_t ox = ox0 + kx;
            if (ox < 0 || ox >= g->ow) continue;
            size_t yi = (((size_t)b * g->oh + (size_t)oy) * g->ow + (size_t)ox) * g->oc;
            const int8_t *wk = j->w + ((size_t)ky * g->fw + kx) * g->ic;
            for (int32_t co = co0; co < co1; co++) {
              int64_t d = j->ops->dot16x8(row, wk + (size_t)co * tap, g->ic);
              if (s8)
                acc32[yi + co] += (uint32_t)(uint64_t)d;
              else
                acc64[yi + co] += (uint64_t)d;
            }
          }
        }
      }
}

static void quantized(const ap_kexec *x, const ap_fastops *ops, const ap_kx_params *p,
                      const tc_geo *g, const ap_ktensor *f, const ap_ktensor *in,
                      const ap_ktensor *bias, ap_ktensor *out, uint8_t *sc) {
  bool s8 = g->type == AP_INT8;
  int32_t *mult = (int32_t *)sc, *shift = mult + g->oc;
  ap_fast_channel_multipliers(in->scale, f, out->scale, g->oc, mult, shift);
  uint32_t *acc32 = (uint32_t *)(sc + g->accs_at);
  uint64_t *acc64 = (uint64_t *)(sc + g->accs_at);
  memset(acc32, 0, g->n * (s8 ? sizeof *acc32 : sizeof *acc64));
  tc_job j = {ops, p, g, in, f->data, sc};
  ap_fast_parallel(x, tc_task, &j, g->tasks);
  for (size_t i = 0; i < g->n; i++) {
    size_t co = i % (size_t)g->oc;
    if (s8) {
      int32_t a = (int32_t)(acc32[i] + (bias ? (uint32_t)((const int32_t *)bias->data)[co] : 0u));
      a = ap_kq_mul(a, mult[co], shift[co]);
      a = (int32_t)((uint32_t)a + (uint32_t)p->q_offset[2]);
      ((int8_t *)out->data)[i] = (int8_t)ap_kq_clamp(a, p->imin, p->imax);
    } else {
      uint64_t a = acc64[i];
      if (bias && p->axis == AP_INT16) a += (uint64_t)(int64_t)((const int16_t *)bias->data)[co];
      if (bias && p->axis == AP_INT64) a += (uint64_t)ap_kload_i64(bias->data, co);
      int32_t r = ap_kq_mul64((int64_t)a, mult[co], shift[co]);
      ((int16_t *)out->data)[i] = (int16_t)ap_kq_clamp(r, p->imin, p->imax);
    }
  }
}

ap_status ap_fast_tconv_eval(ap_kctx *c) {
  ap_fast_small tmp;
  size_t bytes;
  tc_geo g;
  const ap_kexec *x = ap_fast_bounded(c, tc_need, 0, true, &tmp, &bytes);
  if (!x || !geo(x, c, &g)) return ap_kx_transpose_conv_eval(c);
  const ap_kx_params *p = c->params;
  const ap_ktensor *f = c->inputs[1], *in = c->inputs[2];
  const ap_ktensor *bias = p->count && c->n_inputs > 3 ? c->inputs[3] : NULL;
  ap_ktensor *out = c->outputs[0];
  if (!f->data || !in->data || !out->data || (p->count && (!bias || !bias->data)) ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape) || !c->scratch)
    return AP_ERR_ARG;
  if (g.type == AP_FLOAT32)
    floats(x, p, &g, f, in, bias, out, c->scratch);
  else
    quantized(x, x->level->ops, p, &g, f, in, bias, out, c->scratch);
  return AP_OK;
}
