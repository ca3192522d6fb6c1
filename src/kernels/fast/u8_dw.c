/* DEPTHWISE_CONV_2D uint8 (TFLite's legacy per-tensor kernel): split by output rows; the
 * level's kernel runs a range of rows of one batch (on x86-64 with the AVX2 table, dw_avx2.c's
 * first, for the shapes it takes). Scratch: each task's workspace. */
#include "kernels/fast/fastops.h"

static bool applies(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                    const ap_ktensor *f) {
  return x && x->level && x->level->ops && p->kind == AP_KCONV_UINT8 && in->rank == 4 &&
         f->rank == 4 && p->out_shape.rank == 4 && p->out_channels > 0 && f->dims[1] <= 64 &&
         f->dims[2] <= 64;
}

static int tasks(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *f) {
  const int32_t *o = p->out_shape.dims;
  uint64_t work = (uint64_t)o[0] * (uint64_t)o[1] * (uint64_t)o[2] * (uint64_t)o[3] *
                  (uint64_t)f->dims[1] * (uint64_t)f->dims[2];
  return ap_fast_tasks(x, work, (int64_t)o[0] * o[1]);
}

static bool layout(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *f, size_t *ws,
                   size_t *total) {
  *ws = ap_fast_u8dw_ws(f->dims[1] * f->dims[2], p->out_channels);
  return ap_mul_size(*ws, (size_t)tasks(x, p, f), total);
}

bool ap_fast_u8dw_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                          const ap_ktensor *f, size_t *scratch) {
  size_t ws;
  return applies(x, p, in, f) && layout(x, p, f, &ws, scratch);
}

typedef struct u8dw_job {
  const ap_u8dw *d;
  const ap_fastops *ops;
  int32_t batches, tasks;
  uint8_t *ws;
  size_t ws_task;
} u8dw_job;

static void dw_task(void *arg, int task) {
  const u8dw_job *j = arg;
  int64_t rows = (int64_t)j->batches * j->d->out_h;
  int64_t begin = rows * task / j->tasks, end = rows * (task + 1) / j->tasks;
  while (begin < end) {
    int32_t b = (int32_t)(begin / j->d->out_h), oy = (int32_t)(begin % j->d->out_h);
    int64_t stop = (int64_t)(b + 1) * j->d->out_h;
    if (stop > end) stop = end;
    void *ws = j->ws + (size_t)task * j->ws_task;
#ifdef AP_FAST_X86
    if (j->ops == &ap_fastops_avx2 &&
        ap_fast_avx2_u8dw1(j->d, b, oy, oy + (int32_t)(stop - begin), ws)) {
      begin = stop;
      continue;
    }
#endif
    j->ops->u8dw(j->d, b, oy, oy + (int32_t)(stop - begin), ws);
    begin = stop;
  }
}

bool ap_fast_u8dw_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                       const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                       ap_status *s) {
  size_t ws, total;
  if (!p || !in || !f || !out || !applies(x, p, in, f) || !layout(x, p, f, &ws, &total))
    return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) || !scratch ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape) || out->dims[3] != p->out_channels) {
    *s = AP_ERR_ARG;
    return true;
  }
  ap_u8dw d = {
      .in = in->data,
      .f = f->data,
      .bias = bias ? bias->data : NULL,
      .out = out->data,
      .geom = ap_fast_geom_of(p, in, f, out),
      .in_off = p->input_offset,
      .f_off = p->filter_offset,
      .q = {p->output_multiplier, p->output_shift, p->output_offset, p->act_min, p->act_max}};
  u8dw_job j = {&d, x->level->ops, in->dims[0], tasks(x, p, f), scratch, ws};
  ap_fast_parallel(x, dw_task, &j, j.tasks);
  *s = AP_OK;
  return true;
}
