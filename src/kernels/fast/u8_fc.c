/* FULLY_CONNECTED uint8 (TFLite's legacy per-tensor kernel): units split over the tasks,
 * weights read in place, offsets added on the fly: no scratch. */
#include "kernels/fast/fastops.h"

typedef struct u8fc_job {
  const ap_u8fc *f;
  const ap_fastops *ops;
  int tasks;
} u8fc_job;

static void fc_task(void *arg, int task) {
  const u8fc_job *j = arg;
  int32_t units = j->f->units;
  int32_t u0 = (int32_t)((int64_t)units * task / j->tasks);
  int32_t u1 = (int32_t)((int64_t)units * (task + 1) / j->tasks);
  if (u0 < u1) j->ops->u8fc(j->f, u0, u1);
}

bool ap_fast_u8fc_eval(const ap_kexec *x, const ap_fc_params *p, const ap_ktensor *in,
                       const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, ap_status *s) {
  if (!x || !x->level || !x->level->ops || !p || !in || !f || !out || p->kind != AP_KFC_UINT8 ||
      p->accum_depth <= 0 || p->units <= 0 || p->batches <= 0)
    return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  ap_u8fc q = {in->data,
               f->data,
               bias ? bias->data : NULL,
               out->data,
               p->batches,
               p->accum_depth,
               p->units,
               p->input_offset,
               p->filter_offset,
               {p->output_multiplier, p->output_shift, p->output_offset, p->act_min, p->act_max}};
  const ap_fastops *ops = x->level->ops;
  uint64_t work = (uint64_t)p->batches * (uint64_t)p->units * (uint64_t)p->accum_depth;
  u8fc_job j = {&q, ops, ap_fast_tasks(x, work, (p->units + 15) / 16)};
  ap_fast_parallel(x, fc_task, &j, j.tasks);
  *s = AP_OK;
  return true;
}
