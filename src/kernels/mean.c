/* MEAN: TFLite Micro's reduce_common.cc. Float sums in input order and divides; int8 and int16 go
 * through reference_ops::QuantizedMeanOrSum, which folds 1/count into the multiplier and
 * rounds, even when input and output share their quantization. (Some TFLite Micro versions
 * divide the raw sum instead in that case; mobilenet_v2_torch_int8's MEAN, whose quantization
 * is the same on both sides, matches the oracle on all three seeds only with the multiplier.) */
#include "kernels/kops_mathlogic.h"
#include "kernels/quant.h"

#include <string.h>

static ap_status mean_prepare(const ap_ktensor *input, const ap_ktensor *axis, bool keep_dims,
                              ap_ktensor *output, ap_mean_params *p, ap_errbuf *err) {
  if (!input || !axis || !output || !p) return ap_fail(err, AP_ERR_ARG, "MEAN: NULL argument");
  memset(p, 0, sizeof *p);
  bool reduced[AP_KMAXDIMS];
  ap_status st = ap_kreduce_axes("MEAN", input, axis, keep_dims, output, reduced, err);
  if (st != AP_OK) return st;
  for (int d = 0; d < input->rank; d++) {
    if (reduced[d]) p->axes[p->n_axes++] = d;
  }
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

void ap_mean_fold_count(const ap_mean_params *p, int64_t count, int32_t *multiplier, int *shift) {
  *multiplier = p->multiplier;
  *shift = p->shift;
  if (count <= 0) return;
  /* 1/count joins the multiplier: as many bits as count has, but at most 32 and no more than
   * keeps the shift at or above -31. */
  int s = 63 - __builtin_clzll((unsigned long long)count);
  s = AP_MIN(s, 32);
  s = AP_MIN(s, 31 + *shift);
  if (s < 0) s = 0;
  *multiplier = (int32_t)(((int64_t)*multiplier << s) / count);
  *shift -= s;
}

ap_status ap_mean_eval(const ap_mean_params *p, const ap_ktensor *input, ap_ktensor *output,
                       void *scratch) {
  if (!p || !input || !output || !input->data || !output->data || (p->scratch_bytes && !scratch)) {
    return AP_ERR_ARG;
  }
  if (!ap_kshape_is(input, &p->in_shape) || !ap_kshape_is(output, &p->out_shape)) {
    return AP_ERR_ARG;
  }
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
    ap_kreduce_sum_float(input, reduced, out, out_count);
    if (in_count > 0 && count > 0) {
      for (size_t i = 0; i < out_count; i++)
        out[i] = out[i] / (float)count;
    }
    return AP_OK;
  }
  int32_t *sum = scratch;
  ap_kreduce_sum_int(input, reduced, sum, out_count);
  if (in_count == 0 || count == 0) {
    memset(output->data, 0, out_count * ap_ktype_size(input->type));
    return AP_OK;
  }
  int32_t multiplier;
  int shift;
  ap_mean_fold_count(p, count, &multiplier, &shift);
  ap_kreduce_requantize(input->type, sum, out_count, count, p->input_zero_point, multiplier, shift,
                        p->output_zero_point, output->data);
  return AP_OK;
}
