/* PAD and PADV2 by rows: the dims after the last padded one are copied as one run, padding
 * is written in runs; the same bytes as the reference's element walk. Large pads split their
 * rows over the threads. */
#include "kernels/fast/fast.h"

#include <string.h>

static void fill(unsigned char *dst, const unsigned char *pad, size_t es, size_t count) {
  if (es == 1) {
    memset(dst, pad[0], count);
    return;
  }
  for (size_t i = 0; i < count; i++)
    memcpy(dst + i * es, pad, es);
}

typedef struct pad_job {
  const ap_pad_params *p;
  const ap_ktensor *in, *out;
  const unsigned char *pad;
  size_t es;
  int last;
  size_t out_row, in_row, before, rows;
  int tasks;
} pad_job;

/* Output rows (positions of the dims up to the last padded one) [r0, r1) of a task's share. */
static void pad_task(void *arg, int task) {
  const pad_job *j = arg;
  const ap_pad_params *p = j->p;
  size_t r0 = j->rows * (size_t)task / (size_t)j->tasks;
  size_t r1 = j->rows * ((size_t)task + 1) / (size_t)j->tasks;
  int32_t idx[AP_KMAXDIMS] = {0};
  size_t q = r0;
  for (int d = j->last - 1; d >= 0; d--) {
    idx[d] = (int32_t)(q % (size_t)j->out->dims[d]);
    q /= (size_t)j->out->dims[d];
  }
  const unsigned char *in = j->in->data;
  unsigned char *out = j->out->data;
  size_t es = j->es;
  for (size_t r = r0; r < r1; r++) {
    unsigned char *o = out + r * j->out_row * es;
    bool inside = true;
    size_t ii = 0;
    for (int d = 0; d < j->last; d++) {
      int32_t c = idx[d] - p->before[d];
      if (c < 0 || c >= j->in->dims[d]) {
        inside = false;
        break;
      }
      ii = ii * (size_t)j->in->dims[d] + (size_t)c;
    }
    if (!inside) {
      fill(o, j->pad, es, j->out_row);
    } else {
      fill(o, j->pad, es, j->before);
      memcpy(o + j->before * es, in + ii * j->in_row * es, j->in_row * es);
      fill(o + (j->before + j->in_row) * es, j->pad, es, j->out_row - j->before - j->in_row);
    }
    for (int d = j->last - 1; d >= 0; d--) {
      if (++idx[d] < j->out->dims[d]) break;
      idx[d] = 0;
    }
  }
}

bool ap_fast_pad_eval(const ap_kexec *x, const ap_pad_params *p, const ap_ktensor *input,
                      ap_ktensor *output, ap_status *s) {
  if (!x || !x->level || !p || !input || !output || !input->data || !output->data ||
      !ap_kshape_is(input, &p->in_shape) || !ap_kshape_is(output, &p->out_shape))
    return false;
  size_t es = ap_ktype_size(input->type), n;
  int rank = output->rank;
  if (es == 0 || es > 8 || rank < 1 || !ap_ktensor_count(output, &n) || n == 0) return false;
  unsigned char pad[8];
  int8_t i8 = (int8_t)p->pad_int;
  int16_t i16 = (int16_t)p->pad_int;
  switch (input->type) {
  case AP_FLOAT32: memcpy(pad, &p->pad_float, 4); break;
  case AP_INT8:
  case AP_UINT8: memcpy(pad, &i8, 1); break;
  case AP_INT16: memcpy(pad, &i16, 2); break;
  default:
    if (es != 4) return false;
    memcpy(pad, &p->pad_int, 4);
    break;
  }
  /* The last padded dim, and the element run each of its positions holds. */
  int last = 0;
  for (int d = 0; d < rank; d++)
    if (output->dims[d] != input->dims[d] || p->before[d] != 0) last = d;
  size_t inner = 1;
  for (int d = last + 1; d < rank; d++)
    inner *= (size_t)output->dims[d];
  pad_job j = {p, input, output, pad, es, last, 0, 0, 0, 0, 1};
  j.out_row = (size_t)output->dims[last] * inner;
  j.in_row = (size_t)input->dims[last] * inner;
  j.before = (size_t)p->before[last] * inner;
  j.rows = n / j.out_row;
  /* A byte written costs about 3 multiply-adds of a convolution; with nothing serial before
   * the split (unlike a convolution), from about half the work it pays. But a pad sits between
   * split ops over the same rows: on one thread it pulls the half of its input the other core
   * wrote, and the next op's other half goes back (on a virtual machine, 6 us per 75 KB against
   * the 2 us the pad itself takes), so from about 40 KB it splits: counted 25 per byte. */
  j.tasks =
      ap_fast_chunks(ap_fast_tasks(x, (uint64_t)n * es * 25, (int64_t)j.rows), 4, (int64_t)j.rows);
  ap_fast_parallel(x, pad_task, &j, j.tasks);
  *s = AP_OK;
  return true;
}
