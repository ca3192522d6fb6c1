/* MEAN: TFLite Micro's reduce_common.cc. Float sums in input order and divides; int8 (and int16) go
 * through reference_ops::QuantizedMeanOrSum, which folds 1/count into the multiplier and
 * rounds, even when input and output share their quantization. (Some TFLite Micro versions
 * divide the raw sum instead in that case; mobilenet_v2_torch_int8's MEAN, whose quantization
 * is the same on both sides, matches the oracle on all three seeds only with the multiplier.) */
#include "kernels/kernels.h"
#include "kernels/quant.h"

#include <string.h>

static ap_status mean_prepare(const ap_ktensor *input, const ap_ktensor *axis, bool keep_dims,
                              ap_ktensor *output, ap_mean_params *p, ap_errbuf *err) {
  if (!input || !axis || !output || !p) return ap_fail(err, AP_ERR_ARG, "MEAN: NULL argument");
  memset(p, 0, sizeof *p);
  int rank = input->rank;
  size_t n, na;
  if (!ap_ktensor_count(input, &n) || rank < 0 || rank > AP_KMAXDIMS) {
    return ap_fail(err, AP_ERR_FORMAT, "MEAN: invalid input shape");
  }
  if (!axis->data || axis->type != AP_INT32 || !ap_ktensor_count(axis, &na)) {
    return ap_fail(err, AP_ERR_FORMAT, "MEAN: axis must be a constant INT32 tensor");
  }
  bool reduced[AP_KMAXDIMS] = {false};
  const int32_t *av = axis->data;
  for (size_t i = 0; i < na && rank > 0; i++) {
    int32_t a = av[i] < 0 ? av[i] + rank : av[i];
    if (a < 0 || a >= rank) {
      return ap_fail(err, AP_ERR_FORMAT, "MEAN: axis %d out of range for rank %d", (int)av[i],
                     rank);
    }
    if (!reduced[a]) {
      reduced[a] = true;
      p->axes[p->n_axes++] = a;
    }
  }
  int r = 0;
  for (int d = 0; d < rank; d++) {
    if (!reduced[d]) {
      output->dims[r++] = input->dims[d];
    } else if (keep_dims) {
      output->dims[r++] = 1;
    }
  }
  output->rank = r;
  size_t out_count;
  if (!ap_ktensor_count(output, &out_count)) {
    return ap_fail(err, AP_ERR_FORMAT, "MEAN: invalid output shape");
  }
  int t = input->type;
  if (output->type != t || (t != AP_FLOAT32 && t != AP_INT8 && t != AP_UINT8 && t != AP_INT16)) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "MEAN: unsupported types %s -> %s", ap_ktype_name(t),
                   ap_ktype_name(output->type));
  }
  if (t == AP_FLOAT32) {
    p->kind = AP_KMEAN_FLOAT;
    return AP_OK;
  }
  if (!ap_kq_scale_ok(input->scale) || !ap_kq_scale_ok(output->scale) ||
      !ap_kq_zero_point_ok(input) || !ap_kq_zero_point_ok(output)) {
    return ap_fail(err, AP_ERR_FORMAT,
                   "MEAN: quantized tensors need positive scales and in-range zero points");
  }
  p->input_zero_point = input->zero_point;
  p->output_zero_point = output->zero_point;
  ap_kq_multiplier((double)input->scale / (double)output->scale, &p->multiplier, &p->shift);
  p->kind = AP_KMEAN_INT;
  if (!ap_mul_size(out_count, sizeof(int32_t), &p->scratch_bytes)) {
    return ap_fail(err, AP_ERR_OVERFLOW, "MEAN: scratch size overflows");
  }
  return AP_OK;
}

ap_status ap_mean_prepare(const ap_ktensor *input, const ap_ktensor *axis, bool keep_dims,
                          ap_ktensor *output, ap_mean_params *p, ap_errbuf *err) {
  ap_status s = mean_prepare(input, axis, keep_dims, output, p, err);
  if (s == AP_OK) {
    p->in_shape = ap_kshape_of(input);
    p->out_shape = ap_kshape_of(output);
  }
  return s;
}

/* Walks the input in storage order, calling add(output index, input index). */
#define REDUCE_WALK(ADD)                                                                           \
  do {                                                                                             \
    int32_t idx[AP_KMAXDIMS] = {0};                                                                \
    for (size_t ii = 0; ii < in_count; ii++) {                                                     \
      size_t oi = 0;                                                                               \
      for (int d = 0; d < rank; d++) {                                                             \
        if (!reduced[d]) oi = oi * (size_t)input->dims[d] + (size_t)idx[d];                        \
      }                                                                                            \
      ADD;                                                                                         \
      for (int d = rank - 1; d >= 0; d--) {                                                        \
        if (++idx[d] < input->dims[d]) break;                                                      \
        idx[d] = 0;                                                                                \
      }                                                                                            \
    }                                                                                              \
  } while (0)

ap_status ap_mean_eval(const ap_mean_params *p, const ap_ktensor *input, ap_ktensor *output,
                       void *scratch) {
  if (!p || !input || !output || !input->data || !output->data || (p->scratch_bytes && !scratch)) {
    return AP_ERR_ARG;
  }
  if (!ap_kshape_is(input, &p->in_shape) || !ap_kshape_is(output, &p->out_shape)) {
    return AP_ERR_ARG;
  }
  int rank = input->rank;
  bool reduced[AP_KMAXDIMS] = {false};
  int64_t count = 1;
  for (int i = 0; i < p->n_axes; i++) {
    reduced[p->axes[i]] = true;
    count *= input->dims[p->axes[i]];
  }
  size_t in_count, out_count;
  if (!ap_ktensor_count(input, &in_count) || !ap_ktensor_count(output, &out_count)) {
    return AP_ERR_ARG;
  }
  if (p->kind == AP_KMEAN_FLOAT) {
    float *out = output->data;
    const float *in = input->data;
    for (size_t i = 0; i < out_count; i++)
      out[i] = 0.0f;
    if (in_count == 0) return AP_OK;
    REDUCE_WALK(out[oi] += in[ii]);
    if (count > 0) {
      for (size_t i = 0; i < out_count; i++)
        out[i] = out[i] / (float)count;
    }
    return AP_OK;
  }
  int t = input->type;
  int32_t qmin = t == AP_INT8 ? -128 : t == AP_INT16 ? -32768 : 0;
  int32_t qmax = t == AP_INT8 ? 127 : t == AP_INT16 ? 32767 : 255;
  int32_t *sum = scratch;
  for (size_t i = 0; i < out_count; i++)
    sum[i] = 0;
  memset(output->data, 0, out_count * ap_ktype_size(t));
  if (in_count == 0 || count == 0) return AP_OK;
  REDUCE_WALK({
    int32_t v = t == AP_INT8    ? ((const int8_t *)input->data)[ii]
                : t == AP_INT16 ? ((const int16_t *)input->data)[ii]
                                : ((const uint8_t *)input->data)[ii];
    sum[oi] = (int32_t)((uint32_t)sum[oi] + (uint32_t)v);
  });
  int32_t multiplier = p->multiplier;
  int shift = p->shift;
  /* 1/count joins the multiplier: as many bits as count has, but at most 32 and no more than
   * keeps the shift at or above -31. */
  int s = 63 - __builtin_clzll((unsigned long long)count);
  s = AP_MIN(s, 32);
  s = AP_MIN(s, 31 + shift);
  if (s < 0) s = 0;
  multiplier = (int32_t)(((int64_t)multiplier << s) / count);
  shift -= s;
  for (size_t i = 0; i < out_count; i++) {
    int32_t shifted =
        (int32_t)(uint32_t)(uint64_t)((int64_t)sum[i] - (int64_t)p->input_zero_point * count);
    int32_t r =
        ap_kq_clamp(ap_kq_mul(shifted, multiplier, shift) + p->output_zero_point, qmin, qmax);
    if (t == AP_INT8) {
      ((int8_t *)output->data)[i] = (int8_t)r;
    } else if (t == AP_INT16) {
      ((int16_t *)output->data)[i] = (int16_t)r;
    } else {
      ((uint8_t *)output->data)[i] = (uint8_t)r;
    }
  }
  return AP_OK;
}
