/* DEPTHWISE_CONV_2D int8 (per-channel): split by output rows; the level's kernel runs a range
 * of rows of one batch. */
#include "kernels/fast/conv_win.h"

static bool applies(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                    const ap_ktensor *f) {
  return x && x->level && x->level->dw && p->kind == AP_KCONV_INT8 && in->rank == 4 &&
         f->rank == 4 && p->out_shape.rank == 4;
}

static int tasks(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *f) {
  const int32_t *o = p->out_shape.dims;
  /* A depthwise multiply-add (no reuse of inputs across channels) costs about 5 of a
   * convolution's. */
  uint64_t work = (uint64_t)o[0] * (uint64_t)o[1] * (uint64_t)o[2] * (uint64_t)o[3] *
                  (uint64_t)f->dims[1] * (uint64_t)f->dims[2] * 5;
  return ap_fast_tasks(x, work, (int64_t)o[0] * o[1]);
}

/* Scratch: the per-channel multipliers and shifts, then each task's workspace. */
static bool layout(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *f, size_t *ws,
                   size_t *total) {
  size_t head = ap_kscratch_round((size_t)p->out_channels * 2 * sizeof(int32_t)), all;
  if (f->dims[1] > 64 || f->dims[2] > 64 || p->out_channels <= 0) return false;
  *ws = ap_fast_dw_ws(f->dims[1] * f->dims[2], p->out_channels);
  int t = ap_fast_slots(x, tasks(x, p, f));
  /* Tasks' workspaces on cache lines of their own (one spare line whatever the alignment). */
  if (t > 1 && !ap_add_size(*ws / 64 * 64, 128, ws)) return false;
  if (!ap_mul_size(*ws, (size_t)t, &all) || !ap_add_size(head, all, total)) return false;
  return true;
}

bool ap_fast_dw_scratch(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                        const ap_ktensor *f, size_t *scratch) {
  size_t ws, total;
  bool ok = p && in && f && applies(x, p, in, f) && layout(x, p, f, &ws, &total);
  if (AP_FAST_DIRECT && ap_fast_dwin_scratch(x, p, in, f, ok ? total : 0, scratch)) return true;
  if (!ok) return false;
  *scratch = total;
  return true;
}

typedef struct dw_job {
  const ap_qdw *d;
  const ap_fast_level *l;
  int32_t batches, chunks;
  uint8_t *ws;
  size_t ws_task;
} dw_job;

static void dw_task(void *arg, int chunk, int slot) {
  const dw_job *j = arg;
  int64_t rows = (int64_t)j->batches * j->d->out_h;
  int64_t begin = rows * chunk / j->chunks, end = rows * (chunk + 1) / j->chunks;
  while (begin < end) {
    int32_t b = (int32_t)(begin / j->d->out_h), oy = (int32_t)(begin % j->d->out_h);
    int64_t stop = (int64_t)(b + 1) * j->d->out_h;
    if (stop > end) stop = end;
    j->l->dw(j->d, b, oy, oy + (int32_t)(stop - begin), j->ws + (size_t)slot * j->ws_task);
    begin = stop;
  }
}

bool ap_fast_dw_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                     const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                     ap_status *s) {
  size_t ws, total;
  bool ok = p && in && f && applies(x, p, in, f) && layout(x, p, f, &ws, &total);
  if (AP_FAST_DIRECT && ap_fast_dwin_eval(x, p, in, f, bias, out, scratch, ok ? total : 0, s))
    return true;
  if (!ok || !out) return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) || !scratch ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  int32_t n = out->dims[3];
  int32_t *mult = scratch, *shift = mult + n;
  ap_qdw d;
  ap_fast_qdw_set(&d, p, in, f, bias, out, mult, shift);
  AP_FAST_MULTIPLIERS(x, p->input_scale, f, p->output_scale, n, mult, shift);
  dw_job j = {&d, x->level, in->dims[0],
              /* 2 pieces per thread: each call lays out its weights again */
              ap_fast_chunks(tasks(x, p, f), 2, (int64_t)in->dims[0] * out->dims[1]),
              (uint8_t *)scratch + ap_kscratch_round((size_t)n * 2 * sizeof(int32_t)), ws};
  ap_fast_parallel_slots(x, dw_task, &j, j.chunks);
  *s = AP_OK;
  return true;
}
