/* Float FULLY_CONNECTED through the level's kernel: units are split over the tasks; the
 * weights are read in place. */
#include "kernels/fast/fast.h"

typedef struct ffc_job {
  const ap_ffc *f;
  const ap_fast_level *l;
  int tasks;
} ffc_job;

static void ffc_task(void *arg, int task) {
  const ffc_job *j = arg;
  /* Whole groups of 8 units per task, so the kernels' lanes stay full. */
  int32_t groups = (j->f->units + 7) / 8;
  int32_t u0 = (int32_t)((int64_t)groups * task / j->tasks) * 8;
  int32_t u1 = (int32_t)((int64_t)groups * (task + 1) / j->tasks) * 8;
  if (u1 > j->f->units) u1 = j->f->units;
  if (u0 < u1) j->l->ffc(j->f, u0, u1);
}

bool ap_fast_ffc_eval(const ap_kexec *x, const ap_fc_params *p, const ap_ktensor *in,
                      const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, ap_status *s) {
  if (!x || !x->level || !x->level->ffc || !p || p->kind != AP_KFC_FLOAT || !in || !f || !out ||
      p->accum_depth <= 0 || p->units <= 0 || p->batches <= 0)
    return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    *s = AP_ERR_ARG;
    return true;
  }
  ap_ffc q = {in->data,  f->data,     bias ? bias->data : NULL,
              out->data, p->batches,  p->accum_depth,
              p->units,  p->fact_min, p->fact_max};
  uint64_t work = (uint64_t)p->batches * (uint64_t)p->units * (uint64_t)p->accum_depth;
  ffc_job j = {&q, x->level, ap_fast_tasks(x, work, (p->units + 15) / 16)};
  ap_fast_parallel(x, ffc_task, &j, j.tasks);
  *s = AP_OK;
  return true;
}
