/* Float DEPTHWISE_CONV_2D through the level's kernel: output rows split over the tasks. */
#include "kernels/fast/fast.h"

typedef struct fdw_job {
  const ap_fdw *d;
  const ap_fast_level *l;
  int32_t rows, tasks;
} fdw_job;

static void fdw_task(void *arg, int task) {
  const fdw_job *j = arg;
  int32_t r0 = (int32_t)((int64_t)j->rows * task / j->tasks);
  int32_t r1 = (int32_t)((int64_t)j->rows * (task + 1) / j->tasks);
  if (r0 < r1) j->l->fdw(j->d, r0, r1);
}

bool ap_fast_fdw_eval(const ap_kexec *x, const ap_conv_params *p, const ap_ktensor *in,
                      const ap_ktensor *f, const ap_ktensor *bias, ap_ktensor *out, ap_status *s) {
  if (!x || !x->level || !x->level->fdw || !p || p->kind != AP_KCONV_FLOAT || !in || !f || !out ||
      in->rank != 4 || f->rank != 4 || out->rank != 4 || p->depth_multiplier <= 0)
    return false;
  if (!in->data || !f->data || !out->data || (bias && !bias->data) ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(f, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape) ||
      (int64_t)out->dims[3] != (int64_t)in->dims[3] * p->depth_multiplier ||
      f->dims[3] != out->dims[3]) {
    *s = AP_ERR_ARG;
    return true;
  }
  ap_fdw d = {.in = in->data,
              .f = f->data,
              .bias = bias ? bias->data : NULL,
              .out = out->data,
              .geom = ap_fast_geom_of(p, in, f, out),
              .lo = p->fact_min,
              .hi = p->fact_max};
  int32_t rows = out->dims[0] * out->dims[1];
  uint64_t work = (uint64_t)rows * (uint64_t)out->dims[2] * (uint64_t)out->dims[3] *
                  (uint64_t)f->dims[1] * (uint64_t)f->dims[2];
  fdw_job j = {&d, x->level, rows, ap_fast_tasks(x, work, rows)};
  ap_fast_parallel(x, fdw_task, &j, j.tasks);
  *s = AP_OK;
  return true;
}
