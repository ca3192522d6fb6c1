/* ADD and SUB of two quantized 8-bit tensors of the same shape (no broadcasting), split over
 * the threads in element ranges. */
#include "kernels/fast/fast.h"

typedef struct add_job {
  const ap_binary_params *p;
  const uint8_t *a, *b;
  uint8_t *out;
  size_t n;
  bool is_unsigned;
  int tasks;
  const ap_fast_level *l;
} add_job;

static void add_task(void *arg, int task) {
  const add_job *j = arg;
  size_t begin = j->n * (size_t)task / (size_t)j->tasks / 32 * 32;
  size_t end = task + 1 == j->tasks ? j->n : j->n * (size_t)(task + 1) / (size_t)j->tasks / 32 * 32;
  if (begin < end)
    j->l->add(j->p, j->a + begin, j->b + begin, j->out + begin, end - begin, j->is_unsigned);
}

bool ap_fast_add_eval(const ap_kexec *x, const ap_binary_params *p, const ap_ktensor *a,
                      const ap_ktensor *b, ap_ktensor *out, ap_status *s) {
  size_t n, nb;
  if (!x || !x->level || !x->level->add || !p || !a || !b || !out || !a->data || !b->data ||
      !out->data || (p->op != AP_KBIN_ADD && p->op != AP_KBIN_SUB) || a->type != b->type ||
      (a->type != AP_INT8 && a->type != AP_UINT8) || !ap_kshape_is(a, &p->in_shape) ||
      !ap_kshape_is(b, &p->in2_shape) || !ap_kshape_is(out, &p->out_shape) ||
      !ap_ktensor_count(out, &n) || !ap_ktensor_count(b, &nb) || !ap_kshape_equal(a, b) ||
      !ap_kshape_equal(a, out) || n != nb || n == 0)
    return false;
  add_job j = {p, a->data, b->data, out->data, n, a->type == AP_UINT8, 1, x->level};
  /* An element costs about 40 multiply-adds of a convolution (requantizing both inputs); with
   * no serial part before the split (a convolution computes its multipliers and packs its
   * weights first), half as much work already pays: counted twice. A task takes 2048 elements
   * or more (some 17 k instructions at AVX2, 0.7 us; a region costs the caller 0.2-0.5 us):
   * at 4096, mlperf_ic_resnet_int8's last ADD ([1,8,8,64], 35 k instructions) stayed serial. */
  j.tasks = ap_fast_chunks(ap_fast_tasks(x, (uint64_t)n * 80, (int64_t)(n / 2048)), 4,
                           (int64_t)(n / 1024));
  ap_fast_parallel(x, add_task, &j, j.tasks);
  *s = AP_OK;
  return true;
}
