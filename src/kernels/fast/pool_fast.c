/* AVERAGE_POOL_2D and MAX_POOL_2D, int8, uint8 and int16: split by output rows over the tasks;
 * no scratch. */
#include "kernels/fast/fastops.h"

typedef struct pool_job {
  const ap_qpool *q;
  const ap_fastops *ops;
  int32_t batches, tasks;
  bool ok[AP_FAST_MAX_TASKS];
} pool_job;

static void pool_task(void *arg, int task) {
  pool_job *j = arg;
  int64_t rows = (int64_t)j->batches * j->q->out_h;
  int64_t begin = rows * task / j->tasks, end = rows * (task + 1) / j->tasks;
  bool ok = true;
  while (begin < end) {
    int32_t b = (int32_t)(begin / j->q->out_h), oy = (int32_t)(begin % j->q->out_h);
    int64_t stop = (int64_t)(b + 1) * j->q->out_h;
    if (stop > end) stop = end;
    ok = j->ops->pool(j->q, b, oy, oy + (int32_t)(stop - begin)) && ok;
    begin = stop;
  }
  j->ok[task] = ok;
}

bool ap_fast_qpool_of(const ap_pool_params *p, const ap_ktensor *in, ap_ktensor *out, ap_qpool *q) {
  if (!in->data || !out->data || !ap_kshape_is(in, &p->in_shape) ||
      !ap_kshape_is(out, &p->out_shape))
    return false;
  *q = (ap_qpool){in->data,    out->data,    in->type,     p->kind,     in->dims[1], in->dims[2],
                  in->dims[3], out->dims[1], out->dims[2], p->filter_h, p->filter_w, p->stride_h,
                  p->stride_w, p->pad.pad_h, p->pad.pad_w, p->act_min,  p->act_max};
  return true;
}

bool ap_fast_pool_eval(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                       ap_ktensor *out, ap_status *s) {
  if (!x || !x->level || !x->level->ops || !x->level->ops->pool || !p || !in || !out ||
      (p->kind != AP_KPOOL_AVERAGE && p->kind != AP_KPOOL_MAX) ||
      (in->type != AP_INT8 && in->type != AP_UINT8 && in->type != AP_INT16) ||
      out->type != in->type || in->rank != 4)
    return false;
  ap_qpool q;
  if (!ap_fast_qpool_of(p, in, out, &q)) {
    *s = AP_ERR_ARG;
    return true;
  }
  const int32_t *o = p->out_shape.dims;
  uint64_t work = (uint64_t)o[0] * (uint64_t)o[1] * (uint64_t)o[2] * (uint64_t)o[3] *
                  (uint64_t)p->filter_h * (uint64_t)p->filter_w;
  pool_job j = {&q, x->level->ops, in->dims[0], 1, {false}};
  j.tasks = ap_fast_tasks(x, work, (int64_t)o[0] * o[1]);
  if (j.tasks > AP_FAST_MAX_TASKS) j.tasks = AP_FAST_MAX_TASKS;
  ap_fast_parallel(x, pool_task, &j, j.tasks);
  *s = AP_OK;
  for (int t = 0; t < j.tasks; t++)
    if (!j.ok[t]) *s = AP_ERR_KERNEL;
  return true;
}
