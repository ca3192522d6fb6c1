/* PAD and PADV2: reference_ops::Pad. Quantized tensors pad with the output zero point unless
 * a constant is given (TFLite Micro pad.cc). */
#include "kernels/kernels.h"
#include "kernels/kops_stream.h"
#include "kernels/quant.h"

#include <string.h>

static bool read_int(const ap_ktensor *t, size_t i, int64_t *v) {
  if (t->type == AP_INT32) {
    *v = ((const int32_t *)t->data)[i];
  } else if (t->type == AP_INT64) {
    *v = ((const int64_t *)t->data)[i];
  } else {
    return false;
  }
  return true;
}

static ap_status pad_prepare(const ap_ktensor *input, const ap_ktensor *paddings,
                             const ap_ktensor *constant, ap_ktensor *output, ap_pad_params *p,
                             ap_errbuf *err) {
  if (!input || !paddings || !output || !p) return ap_fail(err, AP_ERR_ARG, "PAD: NULL argument");
  memset(p, 0, sizeof *p);
  int rank = input->rank;
  size_t n;
  if (!ap_ktensor_count(input, &n) || rank < 0 || rank > AP_KMAXDIMS) {
    return ap_fail(err, AP_ERR_FORMAT, "PAD: invalid input shape");
  }
  if (!paddings->data || paddings->rank != 2 || paddings->dims[0] != rank ||
      paddings->dims[1] != 2 || (paddings->type != AP_INT32 && paddings->type != AP_INT64)) {
    return ap_fail(err, AP_ERR_FORMAT, "PAD: paddings must be a constant INT32 [%d, 2] tensor",
                   rank);
  }
  int t = input->type;
  if (output->type != t || ap_ktype_size(t) == 0 || t == AP_BOOL || t == AP_INT64) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "PAD: unsupported types %s -> %s", ap_ktype_name(t),
                   ap_ktype_name(output->type));
  }
  for (int i = 0; i < rank; i++) {
    int64_t before = 0, after = 0;
    read_int(paddings, (size_t)i * 2, &before);
    read_int(paddings, (size_t)i * 2 + 1, &after);
    int64_t d = (int64_t)input->dims[i] + before + after;
    if (before < 0 || after < 0 || d > INT32_MAX) {
      return ap_fail(err, AP_ERR_FORMAT, "PAD: dim %d padding [%lld, %lld] is invalid", i,
                     (long long)before, (long long)after);
    }
    p->before[i] = (int32_t)before;
    output->dims[i] = (int32_t)d;
  }
  output->rank = rank;
  if (!ap_ktensor_count(output, &n)) return ap_fail(err, AP_ERR_OVERFLOW, "PAD: output overflows");
  if (constant) {
    size_t cn;
    if (!constant->data || constant->type != t || !ap_ktensor_count(constant, &cn) || cn != 1) {
      return ap_fail(err, AP_ERR_FORMAT, "PAD: constant must be one constant %s value",
                     ap_ktype_name(t));
    }
    switch (t) {
    case AP_FLOAT32: p->pad_float = *(const float *)constant->data; break;
    case AP_INT8: p->pad_int = *(const int8_t *)constant->data; break;
    case AP_UINT8: p->pad_int = *(const uint8_t *)constant->data; break;
    case AP_INT16: p->pad_int = *(const int16_t *)constant->data; break;
    default: p->pad_int = *(const int32_t *)constant->data; break;
    }
  } else if (t == AP_INT8 || t == AP_UINT8 || t == AP_INT16) {
    if (!ap_kq_zero_point_ok(output)) {
      return ap_fail(err, AP_ERR_FORMAT, "PAD: output zero point %d out of range for %s",
                     (int)output->zero_point, ap_ktype_name(t));
    }
    p->pad_int = output->zero_point;
  }
  return AP_OK;
}

ap_status ap_pad_prepare(const ap_ktensor *input, const ap_ktensor *paddings,
                         const ap_ktensor *constant, ap_ktensor *output, ap_pad_params *p,
                         ap_errbuf *err) {
  ap_status s = pad_prepare(input, paddings, constant, output, p, err);
  if (s == AP_OK) {
    p->in_shape = ap_kshape_of(input);
    p->out_shape = ap_kshape_of(output);
  }
  return s;
}

/* The padding value's bytes in the tensor's type. */
static void pad_value(const ap_pad_params *p, int type, unsigned char pad[8]) {
  int8_t i8 = (int8_t)p->pad_int;
  uint8_t u8 = (uint8_t)p->pad_int;
  int16_t i16 = (int16_t)p->pad_int;
  switch (type) {
  case AP_FLOAT32: memcpy(pad, &p->pad_float, 4); break;
  case AP_INT8: memcpy(pad, &i8, 1); break;
  case AP_UINT8: memcpy(pad, &u8, 1); break;
  case AP_INT16: memcpy(pad, &i16, 2); break;
  default: memcpy(pad, &p->pad_int, 4); break;
  }
}

/* n elements of es bytes each holding the padding value. */
static void fill(unsigned char *o, size_t n, const unsigned char *pad, size_t es) {
  bool same = true;
  for (size_t i = 1; i < es; i++)
    same &= pad[i] == pad[0];
  if (same) {
    memset(o, pad[0], n * es);
    return;
  }
  for (size_t i = 0; i < n; i++)
    memcpy(o + i * es, pad, es);
}

ap_status ap_pad_eval_rows(const ap_pad_params *p, const ap_ktensor *input, ap_ktensor *output,
                           const ap_krows *rows) {
  if (!p || !input || !output || !input->data || !output->data || !rows) return AP_ERR_ARG;
  if (!ap_kshape_is(input, &p->in_shape) || !ap_kshape_is(output, &p->out_shape) ||
      input->rank != 4 || !ap_krows_fit(rows, input, output) || p->before[0] != 0 ||
      input->dims[0] != output->dims[0]) {
    return AP_ERR_ARG;
  }
  size_t es = ap_ktype_size(input->type);
  if (es == 0) return AP_ERR_ARG;
  unsigned char pad[8];
  pad_value(p, input->type, pad);
  const int32_t h = input->dims[1], w = input->dims[2], c = input->dims[3];
  const int32_t ow = output->dims[2], oc = output->dims[3];
  const int32_t in_rows = rows->in_ring ? rows->in_ring : h;
  const int32_t out_rows = rows->out_ring ? rows->out_ring : output->dims[1];
  const unsigned char *in = input->data;
  unsigned char *out = output->data;
  /* Row y of the output: input row y - top, or all padding; within it, as ap_pad_eval. */
  for (int32_t b = 0; b < output->dims[0]; b++)
    for (int32_t y = rows->r0; y < rows->r1; y++) {
      int32_t iy = y - p->before[1];
      unsigned char *o =
          out + ((size_t)b * out_rows + (size_t)RING_SLOT(y, out_rows)) * ow * oc * es;
      const unsigned char *row =
          iy >= 0 && iy < h
              ? in + ((size_t)b * in_rows + (size_t)RING_SLOT(iy, in_rows)) * w * c * es
              : NULL;
      if (row && p->before[3] == 0 && oc == c) {
        /* Channels unpadded: the row's inside is one block between padding columns. */
        int32_t x0 = p->before[2] < 0 ? 0 : p->before[2] > ow ? ow : p->before[2];
        int32_t x1 = p->before[2] + w > ow ? ow : p->before[2] + w;
        if (x1 < x0) x1 = x0;
        size_t px = (size_t)c * es;
        fill(o, (size_t)x0 * c, pad, es);
        memcpy(o + (size_t)x0 * px, row + (size_t)(x0 - p->before[2]) * px, (size_t)(x1 - x0) * px);
        fill(o + (size_t)x1 * px, (size_t)(ow - x1) * c, pad, es);
        continue;
      }
      if (!row) {
        fill(o, (size_t)ow * oc, pad, es);
        continue;
      }
      for (int32_t x = 0; x < ow; x++)
        for (int32_t k = 0; k < oc; k++, o += es) {
          int32_t ix = x - p->before[2], ik = k - p->before[3];
          bool inside = ix >= 0 && ix < w && ik >= 0 && ik < c;
          memcpy(o, inside ? row + ((size_t)ix * c + (size_t)ik) * es : pad, es);
        }
    }
  return AP_OK;
}

ap_status ap_pad_eval(const ap_pad_params *p, const ap_ktensor *input, ap_ktensor *output) {
  if (!p || !input || !output || !input->data || !output->data) return AP_ERR_ARG;
  if (!ap_kshape_is(input, &p->in_shape) || !ap_kshape_is(output, &p->out_shape)) {
    return AP_ERR_ARG;
  }
  size_t es = ap_ktype_size(input->type), n;
  if (es == 0 || !ap_ktensor_count(output, &n)) return AP_ERR_ARG;
  unsigned char pad[8];
  pad_value(p, input->type, pad);
  int rank = output->rank;
  int32_t idx[AP_KMAXDIMS] = {0};
  const unsigned char *in = input->data;
  unsigned char *out = output->data;
  for (size_t o = 0; o < n; o++) {
    bool inside = true;
    size_t ii = 0;
    for (int d = 0; d < rank; d++) {
      int32_t c = idx[d] - p->before[d];
      if (c < 0 || c >= input->dims[d]) {
        inside = false;
        break;
      }
      ii = ii * (size_t)input->dims[d] + (size_t)c;
    }
    memcpy(out + o * es, inside ? in + ii * es : pad, es);
    for (int d = rank - 1; d >= 0; d--) {
      if (++idx[d] < output->dims[d]) break;
      idx[d] = 0;
    }
  }
  return AP_OK;
}
