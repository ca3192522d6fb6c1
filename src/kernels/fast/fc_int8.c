/* FULLY_CONNECTED int8 (per-tensor and per-channel): the input rows are widened once to int16
 * with the input offset added; units are split over the tasks. Weights are read in place (with
 * one batch, packing them would cost as much as the product). */
#include "kernels/fast/fast.h"

typedef struct fc_plan {
  int32_t kpad, tasks;
  size_t mult, shift, xs, xsum, acc, total;
} fc_plan;

static bool carve(size_t *at, size_t bytes, size_t *off) {
  if (bytes > SIZE_MAX - AP_KSCRATCH_ALIGN || *at > SIZE_MAX - ap_kscratch_round(bytes))
    return false;
  *off = *at;
  *at += ap_kscratch_round(bytes);
  return true;
}

static bool plan(const ap_kexec *x, const ap_fc_params *p, fc_plan *pl) {
  if (!x || !x->level || (p->kind != AP_KFC_INT8 && p->kind != AP_KFC_INT8_PER_CHANNEL) ||
      p->accum_depth <= 0 || p->accum_depth > INT32_MAX - 16 || p->units <= 0 || p->batches <= 0)
    return false;
  pl->kpad = (p->accum_depth + 15) / 16 * 16;
  uint64_t work = (uint64_t)p->batches * (uint64_t)p->units * (uint64_t)p->accum_depth;
  pl->tasks = ap_fast_tasks(x, work, (p->units + 15) / 16);
  size_t at = 0, u4 = (size_t)p->units * 4, t;
  if (!carve(&at, u4, &pl->mult) || !carve(&at, u4, &pl->shift) ||
      !ap_mul_size((size_t)p->batches, (size_t)pl->kpad * 2, &t) || !carve(&at, t, &pl->xs) ||
      !carve(&at, (size_t)p->batches * 4, &pl->xsum) || !ap_mul_size((size_t)p->batches, u4, &t) ||
      !carve(&at, t, &pl->acc))
    return false;
  pl->total = at;
  return true;
}

bool ap_fast_fc_scratch(const ap_kexec *x, const ap_fc_params *p, size_t *scratch) {
  fc_plan pl;
  if (!plan(x, p, &pl)) return false;
  *scratch = pl.total;
  return true;
}

typedef struct fc_job {
  const ap_qfc *f;
  const ap_fast_level *l;
  int tasks;
} fc_job;

static void fc_task(void *arg, int task) {
  const fc_job *j = arg;
  int32_t units = j->f->units;
  int32_t u0 = (int32_t)((int64_t)units * task / j->tasks);
  int32_t u1 = (int32_t)((int64_t)units * (task + 1) / j->tasks);
  if (u0 < u1) j->l->fc(j->f, u0, u1);
}

bool ap_fast_fc_eval(const ap_kexec *x, const ap_fc_params *p, const ap_ktensor *in,
                     const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, void *scratch,
                     ap_status *s) {
  fc_plan pl;
  if (!p || !in || !f || !out || !plan(x, p, &pl)) return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) || !scratch ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  uint8_t *sc = scratch;
  int32_t *mult = (int32_t *)(sc + pl.mult), *shift = (int32_t *)(sc + pl.shift);
  if (p->kind == AP_KFC_INT8_PER_CHANNEL) {
    ap_fast_channel_multipliers(p->input_scale, f, p->output_scale, p->units, mult, shift);
  } else {
    for (int32_t u = 0; u < p->units; u++) {
      mult[u] = p->output_multiplier;
      shift[u] = p->output_shift;
    }
  }
  int16_t *xs = (int16_t *)(sc + pl.xs);
  int32_t *xsum = (int32_t *)(sc + pl.xsum);
  const int8_t *xin = in->data;
  for (int32_t b = 0; b < p->batches; b++) {
    int16_t *row = xs + (size_t)b * pl.kpad;
    const int8_t *src = xin + (size_t)b * p->accum_depth;
    uint32_t sum = 0;
    for (int32_t d = 0; d < p->accum_depth; d++) {
      row[d] = (int16_t)(src[d] + p->input_offset);
      sum += (uint32_t)(int32_t)row[d];
    }
    for (int32_t d = p->accum_depth; d < pl.kpad; d++)
      row[d] = 0;
    xsum[b] = (int32_t)sum;
  }
  ap_qfc q = {xs,
              xsum,
              f->data,
              bias ? bias->data : NULL,
              out->data,
              p->batches,
              p->accum_depth,
              pl.kpad,
              p->units,
              p->filter_offset,
              p->output_offset,
              p->act_min,
              p->act_max,
              mult,
              shift,
              (int32_t *)(sc + pl.acc)};
  fc_job j = {&q, x->level, pl.tasks};
  ap_fast_parallel(x, fc_task, &j, pl.tasks);
  *s = AP_OK;
  return true;
}
