/* Float AVERAGE_POOL_2D and MAX_POOL_2D through the level's kernel: output rows split over the
 * tasks. */
#include "kernels/fast/fast.h"

typedef struct fpool_job {
  const ap_fpool *p;
  const ap_fast_level *l;
  int32_t rows, tasks;
} fpool_job;

static void fpool_task(void *arg, int task) {
  const fpool_job *j = arg;
  int32_t r0 = (int32_t)((int64_t)j->rows * task / j->tasks);
  int32_t r1 = (int32_t)((int64_t)j->rows * (task + 1) / j->tasks);
  if (r0 < r1) j->l->fpool(j->p, r0, r1);
}

bool ap_fast_fpool_eval(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                        ap_ktensor *out, ap_status *s) {
  if (!x || !x->level || !x->level->fpool || !p || !in || !out || in->type != AP_FLOAT32 ||
      (p->kind != AP_KPOOL_AVERAGE && p->kind != AP_KPOOL_MAX) || in->rank != 4 || out->rank != 4 ||
      p->filter_h <= 0 || p->filter_w <= 0)
    return false;
  if (!in->data || !out->data || !ap_kshape_is(in, &p->in_shape) ||
      !ap_kshape_is(out, &p->out_shape) || in->dims[3] != out->dims[3]) {
    *s = AP_ERR_ARG;
    return true;
  }
  ap_fpool q = {in->data,     out->data,
                in->dims[1],  in->dims[2],
                in->dims[3],  out->dims[1],
                out->dims[2], p->filter_h,
                p->filter_w,  p->stride_h,
                p->stride_w,  p->pad.pad_h,
                p->pad.pad_w, p->kind == AP_KPOOL_MAX,
                p->fact_min,  p->fact_max};
  int32_t rows = out->dims[0] * out->dims[1];
  uint64_t work = (uint64_t)rows * (uint64_t)out->dims[2] * (uint64_t)out->dims[3] *
                  (uint64_t)p->filter_h * (uint64_t)p->filter_w;
  fpool_job j = {&q, x->level, rows, ap_fast_tasks(x, work, rows)};
  ap_fast_parallel(x, fpool_task, &j, j.tasks);
  *s = AP_OK;
  return true;
}
