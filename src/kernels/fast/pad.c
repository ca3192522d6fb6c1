/* PAD and PADV2 by rows: the dims after the last padded one are copied as one run, padding
 * is written in runs; the same bytes as the reference's element walk. */
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
  size_t out_row = (size_t)output->dims[last] * inner, in_row = (size_t)input->dims[last] * inner;
  size_t before = (size_t)p->before[last] * inner, rows = n / out_row;
  const unsigned char *in = input->data;
  unsigned char *out = output->data;
  int32_t idx[AP_KMAXDIMS] = {0};
  for (size_t r = 0; r < rows; r++) {
    unsigned char *o = out + r * out_row * es;
    bool inside = true;
    size_t ii = 0;
    for (int d = 0; d < last; d++) {
      int32_t c = idx[d] - p->before[d];
      if (c < 0 || c >= input->dims[d]) {
        inside = false;
        break;
      }
      ii = ii * (size_t)input->dims[d] + (size_t)c;
    }
    if (!inside) {
      fill(o, pad, es, out_row);
    } else {
      fill(o, pad, es, before);
      memcpy(o + before * es, in + ii * in_row * es, in_row * es);
      fill(o + (before + in_row) * es, pad, es, out_row - before - in_row);
    }
    for (int d = last - 1; d >= 0; d--) {
      if (++idx[d] < output->dims[d]) break;
      idx[d] = 0;
    }
  }
  *s = AP_OK;
  return true;
}
