/* QUANTIZE (float -> int: reference_ops::AffineQuantize; int -> int, int32 inputs and outputs
 * included:
 * Requantize with the multiplier of input_scale / output_scale) and DEQUANTIZE
 * (reference_ops::Dequantize, whose scale is a double). Parameters as TFLite Micro's
 * quantize_common.cc / dequantize_common.cc. */
#include "kernels/kernels.h"
#include "kernels/quant.h"

#include <math.h>
#include <string.h>

static bool int_range(int type, int32_t *lo, int32_t *hi) {
  switch (type) {
  case AP_INT8: *lo = -128, *hi = 127; return true;
  case AP_UINT8: *lo = 0, *hi = 255; return true;
  case AP_INT16: *lo = -32768, *hi = 32767; return true;
  default: return false;
  }
}

/* The output range of a requantize: int_range's, or all of int32. */
static void out_range(int type, int32_t *lo, int32_t *hi) {
  if (!int_range(type, lo, hi)) *lo = INT32_MIN, *hi = INT32_MAX;
}

static ap_status same_shape(const char *op, const ap_ktensor *input, ap_ktensor *output,
                            ap_quantize_params *p, ap_errbuf *err) {
  memset(p, 0, sizeof *p);
  size_t n;
  if (!ap_ktensor_count(input, &n)) return ap_fail(err, AP_ERR_FORMAT, "%s: invalid shape", op);
  output->rank = input->rank;
  memcpy(output->dims, input->dims, sizeof output->dims);
  return AP_OK;
}

static ap_status quantize_prepare(const ap_ktensor *input, ap_ktensor *output,
                                  ap_quantize_params *p, ap_errbuf *err) {
  if (!input || !output || !p) return ap_fail(err, AP_ERR_ARG, "QUANTIZE: NULL argument");
  ap_status s = same_shape("QUANTIZE", input, output, p, err);
  if (s != AP_OK) return s;
  int32_t lo, hi;
  /* An int32 output only from an integer input: TFLite Micro's requantize to INT32. */
  bool out_ok =
      int_range(output->type, &lo, &hi) || (output->type == AP_INT32 && input->type != AP_FLOAT32);
  /* An int32 input only to int8 or int16 (quantize_common.cc's pairs). */
  bool in_ok = input->type == AP_FLOAT32 || int_range(input->type, &lo, &hi) ||
               (input->type == AP_INT32 && (output->type == AP_INT8 || output->type == AP_INT16));
  if (!out_ok || !in_ok) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "QUANTIZE: unsupported types %s -> %s",
                   ap_ktype_name(input->type), ap_ktype_name(output->type));
  }
  if (!ap_kq_scale_ok(output->scale) || !ap_kq_zero_point_ok(output) ||
      (input->type != AP_FLOAT32 &&
       (!ap_kq_scale_ok(input->scale) || !ap_kq_zero_point_ok(input)))) {
    return ap_fail(err, AP_ERR_FORMAT,
                   "QUANTIZE: quantized tensors need positive scales and in-range zero points");
  }
  p->output_zero_point = output->zero_point;
  if (input->type == AP_FLOAT32) {
    p->kind = AP_KQ_FLOAT_TO_INT;
    p->scale = output->scale;
    return AP_OK;
  }
  p->kind = AP_KQ_REQUANTIZE;
  p->input_zero_point = input->zero_point;
  ap_kq_multiplier((double)input->scale / (double)output->scale, &p->multiplier, &p->shift);
  return AP_OK;
}

ap_status ap_quantize_prepare(const ap_ktensor *input, ap_ktensor *output, ap_quantize_params *p,
                              ap_errbuf *err) {
  ap_status s = quantize_prepare(input, output, p, err);
  if (s == AP_OK) {
    p->in_shape = ap_kshape_of(input);
    p->out_shape = ap_kshape_of(output);
  }
  return s;
}

static ap_status dequantize_prepare(const ap_ktensor *input, ap_ktensor *output,
                                    ap_quantize_params *p, ap_errbuf *err) {
  if (!input || !output || !p) return ap_fail(err, AP_ERR_ARG, "DEQUANTIZE: NULL argument");
  ap_status s = same_shape("DEQUANTIZE", input, output, p, err);
  if (s != AP_OK) return s;
  int32_t lo, hi;
  if (output->type != AP_FLOAT32 || !int_range(input->type, &lo, &hi)) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "DEQUANTIZE: unsupported types %s -> %s",
                   ap_ktype_name(input->type), ap_ktype_name(output->type));
  }
  if (!ap_kq_zero_point_ok(input)) {
    return ap_fail(err, AP_ERR_FORMAT, "DEQUANTIZE: zero point %d out of range for %s",
                   (int)input->zero_point, ap_ktype_name(input->type));
  }
  p->kind = AP_KQ_DEQUANTIZE;
  p->scale = input->scale;
  p->input_zero_point = input->zero_point;
  return AP_OK;
}

ap_status ap_dequantize_prepare(const ap_ktensor *input, ap_ktensor *output, ap_quantize_params *p,
                                ap_errbuf *err) {
  ap_status s = dequantize_prepare(input, output, p, err);
  if (s == AP_OK) {
    p->in_shape = ap_kshape_of(input);
    p->out_shape = ap_kshape_of(output);
  }
  return s;
}

static int32_t load(int type, const void *d, size_t i) {
  switch (type) {
  case AP_INT8: return ((const int8_t *)d)[i];
  case AP_UINT8: return ((const uint8_t *)d)[i];
  case AP_INT32: return ((const int32_t *)d)[i];
  default: return ((const int16_t *)d)[i];
  }
}

static void store(int type, void *d, size_t i, int32_t v) {
  switch (type) {
  case AP_INT8: ((int8_t *)d)[i] = (int8_t)v; break;
  case AP_UINT8: ((uint8_t *)d)[i] = (uint8_t)v; break;
  case AP_INT32: ((int32_t *)d)[i] = v; break;
  default: ((int16_t *)d)[i] = (int16_t)v; break;
  }
}

/* static_cast<int32_t>(float) as x86 does it: out-of-range and NaN give INT32_MIN. */
static int32_t float_to_int32(float r) {
  if (!(r >= -2147483648.0f && r < 2147483648.0f)) return INT32_MIN;
  return (int32_t)r;
}

ap_status ap_quantize_eval(const ap_quantize_params *p, const ap_ktensor *input,
                           ap_ktensor *output) {
  if (!p || !input || !output || !input->data || !output->data) return AP_ERR_ARG;
  if (!ap_kshape_is(input, &p->in_shape) || !ap_kshape_is(output, &p->out_shape)) {
    return AP_ERR_ARG;
  }
  size_t n;
  if (!ap_ktensor_count(input, &n)) return AP_ERR_ARG;
  int32_t lo = 0, hi = 0;
  switch (p->kind) {
  case AP_KQ_FLOAT_TO_INT: {
    int_range(output->type, &lo, &hi);
    const float *x = input->data;
    for (size_t i = 0; i < n; i++) {
      int32_t q = float_to_int32(roundf(x[i] / p->scale));
      q = (int32_t)((uint32_t)q + (uint32_t)p->output_zero_point);
      store(output->type, output->data, i, ap_kq_clamp(q, lo, hi));
    }
    return AP_OK;
  }
  case AP_KQ_REQUANTIZE:
    out_range(output->type, &lo, &hi);
    for (size_t i = 0; i < n; i++) {
      /* An int32 input less its zero point wraps, as TFLite's int32 subtraction does. */
      int32_t v = ap_kq_wrap32((int64_t)load(input->type, input->data, i) - p->input_zero_point);
      int32_t q =
          ap_kq_wrap32((int64_t)ap_kq_mul(v, p->multiplier, p->shift) + p->output_zero_point);
      store(output->type, output->data, i, ap_kq_clamp(q, lo, hi));
    }
    return AP_OK;
  case AP_KQ_DEQUANTIZE: {
    float *y = output->data;
    double scale = (double)p->scale;
    for (size_t i = 0; i < n; i++) {
      y[i] = (float)(scale * (double)(load(input->type, input->data, i) - p->input_zero_point));
    }
    return AP_OK;
  }
  default: return AP_ERR_ARG;
  }
}
