/* MEAN of int8, uint8 and int16 over consecutive axes (a pooled map's H and W, as in every
 * classifier's head): the input is [outer][reduced][inner], summed into the op's int32 scratch
 * a block of inner positions at a time (vectorised over the block), then requantized as the
 * reference does; blocks split over the threads. Sums wrap modulo 2^32 like the reference's
 * int32 steps, so any order gives its bytes. MobileNet-v2's 7x7x1280 mean took 130 us on the
 * reference's index walk, after the last split convolution. */
#include "kernels/kops_mathlogic.h"
#include "kernels/kops_threads4.h"

#include <string.h>

enum { BLOCK = 64 };

typedef struct mean_job {
  const ap_mean_params *p;
  const void *in;
  void *out;
  int32_t *sum;
  int type;
  size_t es, outer, red, inner, blocks, units;
  int64_t count;
  int32_t mult;
  int shift, chunks;
} mean_job;

#define AP_MEAN_SUM(T)                                                                             \
  do {                                                                                             \
    const T *s = (const T *)j->in + o * j->red * j->inner + c0;                                    \
    for (size_t r = 0; r < j->red; r++, s += j->inner) {                                           \
      if (nc == BLOCK) {                                                                           \
        for (size_t k = 0; k < BLOCK; k++)                                                         \
          acc[k] += (uint32_t)(int32_t)s[k];                                                       \
      } else {                                                                                     \
        for (size_t k = 0; k < nc; k++)                                                            \
          acc[k] += (uint32_t)(int32_t)s[k];                                                       \
      }                                                                                            \
    }                                                                                              \
  } while (0)

static void mean_task(void *arg, int chunk) {
  const mean_job *j = arg;
  size_t u0 = j->units * (size_t)chunk / (size_t)j->chunks;
  size_t u1 = j->units * ((size_t)chunk + 1) / (size_t)j->chunks;
  for (size_t u = u0; u < u1; u++) {
    size_t o = u / j->blocks, c0 = u % j->blocks * BLOCK;
    size_t nc = j->inner - c0 < BLOCK ? j->inner - c0 : BLOCK;
    uint32_t acc[BLOCK] = {0};
    switch (j->type) {
    case AP_INT8: AP_MEAN_SUM(int8_t); break;
    case AP_UINT8: AP_MEAN_SUM(uint8_t); break;
    default: AP_MEAN_SUM(int16_t); break;
    }
    size_t at = o * j->inner + c0;
    for (size_t k = 0; k < nc; k++)
      j->sum[at + k] = (int32_t)acc[k];
    ap_kreduce_requantize(j->type, j->sum + at, nc, j->count, j->p->input_zero_point, j->mult,
                          j->shift, j->p->output_zero_point, (unsigned char *)j->out + at * j->es);
  }
}

bool ap_fast_mean_eval(const ap_kexec *x, const ap_mean_params *p, const ap_ktensor *input,
                       ap_ktensor *output, void *scratch, ap_status *s) {
  if (!x || !x->level || !p || p->kind != AP_KMEAN_INT || !input || !output || !input->data ||
      !output->data || !scratch || p->n_axes < 1 || !ap_kshape_is(input, &p->in_shape) ||
      !ap_kshape_is(output, &p->out_shape) || ap_fast_overlapping(input, output))
    return false;
  int t = input->type;
  if ((t != AP_INT8 && t != AP_UINT8 && t != AP_INT16) || output->type != t) return false;
  /* Consecutive axes only (prepare lists them in order). */
  int a0 = p->axes[0], a1 = p->axes[p->n_axes - 1];
  if (a0 < 0 || a1 >= input->rank || a1 - a0 + 1 != p->n_axes) return false;
  for (int i = 1; i < p->n_axes; i++)
    if (p->axes[i] != a0 + i) return false;
  size_t outer = 1, red = 1, inner = 1, n_out;
  for (int d = 0; d < input->rank; d++) {
    size_t v = (size_t)input->dims[d];
    if (d < a0)
      outer *= v;
    else if (d <= a1)
      red *= v;
    else
      inner *= v;
  }
  if (outer == 0 || red == 0 || inner == 0 || !ap_ktensor_count(output, &n_out) ||
      n_out != outer * inner || red > (size_t)INT64_MAX / 2)
    return false; /* empty: the reference writes its zeros */
  mean_job j = {p,
                input->data,
                output->data,
                scratch,
                t,
                ap_ktype_size(t),
                outer,
                red,
                inner,
                (inner + BLOCK - 1) / BLOCK,
                0,
                (int64_t)red,
                0,
                0,
                1};
  j.units = outer * j.blocks;
  ap_mean_fold_count(p, j.count, &j.mult, &j.shift);
  /* Summing a byte costs about what PAD's copy does, and as for PAD the input's halves were
   * written by the two cores (the convolution before a classifier's mean splits by channel
   * blocks, as this does): counted 25 per byte, as PAD. */
  uint64_t work = (uint64_t)outer * red * inner * j.es * 25;
  j.chunks = ap_fast_chunks(ap_fast_tasks(x, work, (int64_t)j.units), 2, (int64_t)j.units);
  ap_fast_parallel(x, mean_task, &j, j.chunks);
  *s = AP_OK;
  return true;
}
