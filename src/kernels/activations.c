/* RELU, RELU6, LOGISTIC, TANH. Float: reference_ops; int8: TFLite Micro's activations_common.cc
 * (RELU rescales input to output, RELU6 clamps in the input's quantization),
 * reference_integer_ops::Logistic and ::Tanh with Q4.27 inputs (logistic_common.cc, tanh.cc).
 * uint8 RELU and RELU6 follow the same formulas; uint8 LOGISTIC and TANH are TFLite's reference
 * lookup tables (lut_uint8.c), rebuilt from the tensors' quantization at each eval. */
#include "kernels/kernels.h"
#include "kernels/kops_arm64.h"
#include "kernels/kops_detect.h"
#include "kernels/kops_elem16.h"
#include "kernels/quant.h"

#include <math.h>
#include <string.h>

static const char *op_name(int op) {
  switch (op) {
  case AP_KUN_RELU: return "RELU";
  case AP_KUN_RELU6: return "RELU6";
  case AP_KUN_LOGISTIC: return "LOGISTIC";
  default: return "TANH";
  }
}

enum { INPUT_INTEGER_BITS = 4 };

/* Prepare of LOGISTIC and TANH for int8: the input scale times 2^27 as a Q31 multiplier and a
 * left shift, taken straight from frexp (no renormalisation of a rounded-up 2^31, as TFLM). */
static bool q4_multiplier(float scale, int32_t *multiplier, int *shift) {
  double m = (double)scale * (double)(1 << (31 - INPUT_INTEGER_BITS));
  double q = frexp(m, shift);
  double r = round(q * (double)(1LL << 31));
  if (!(r < 2147483648.0) || *shift > 31) return false;
  *multiplier = (int32_t)r;
  return true;
}

/* int16 RELU and RELU6 (activations_common.cc): RELU rescales by in / out (the ratio taken in
 * float) with zero points 0; RELU6 clamps to [zero point, 6] in the input's quantization (6
 * itself clamped to int16). */
static ap_status int16_relu_prepare(int op, const ap_ktensor *input, const ap_ktensor *output,
                                    ap_unary_params *p, ap_errbuf *err) {
  p->input_zero_point = input->zero_point;
  p->output_zero_point = output->zero_point;
  if (op == AP_KUN_RELU) {
    if (input->zero_point != 0 || output->zero_point != 0) {
      return ap_fail(err, AP_ERR_UNSUPPORTED, "RELU: int16 zero points must be 0, got %d -> %d",
                     (int)input->zero_point, (int)output->zero_point);
    }
    ap_kq_multiplier((double)(input->scale / output->scale), &p->multiplier, &p->shift);
    p->act_min = 0; /* max(INT16_MIN, 0 + round(0 / scale)) */
    p->act_max = INT16_MAX;
    return AP_OK;
  }
  /* FloatToQuantizedType<int16_t>: round(6 / scale) plus the zero point, clamped to int16
   * (as the int8 path, a value past int32 clamps too instead of TFLite's undefined cast). */
  double six = (double)roundf(6.0f / input->scale) + input->zero_point;
  p->act_min = input->zero_point;
  p->act_max = six > INT16_MAX ? INT16_MAX : six < INT16_MIN ? INT16_MIN : (int32_t)six;
  return AP_OK;
}

static ap_status unary_prepare(int op, const ap_ktensor *input, ap_ktensor *output,
                               ap_unary_params *p, ap_errbuf *err) {
  if (!input || !output || !p || op < AP_KUN_RELU || op > AP_KUN_TANH) {
    return ap_fail(err, AP_ERR_ARG, "activation: bad argument");
  }
  const char *name = op_name(op);
  memset(p, 0, sizeof *p);
  p->op = op;
  size_t n;
  if (!ap_ktensor_count(input, &n)) {
    return ap_fail(err, AP_ERR_FORMAT, "%s: invalid input shape", name);
  }
  output->rank = input->rank;
  memcpy(output->dims, input->dims, sizeof output->dims);
  int t = input->type;
  bool relu = op == AP_KUN_RELU || op == AP_KUN_RELU6;
  bool quant = t == AP_INT8 || t == AP_INT16 || t == AP_UINT8;
  if (output->type != t || (t != AP_FLOAT32 && !quant)) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "%s: unsupported types %s -> %s", name,
                   ap_ktype_name(t), ap_ktype_name(output->type));
  }
  if (t == AP_FLOAT32) return AP_OK;
  if (!ap_kq_scale_ok(input->scale) || !ap_kq_scale_ok(output->scale) ||
      !ap_kq_zero_point_ok(input) || !ap_kq_zero_point_ok(output)) {
    return ap_fail(err, AP_ERR_FORMAT,
                   "%s: quantized tensors need positive scales and in-range zero points", name);
  }
  if (t == AP_INT16 && relu) return int16_relu_prepare(op, input, output, p, err);
  if (t == AP_INT16) return ap_act16_setup(op == AP_KUN_TANH, input, output, p, err);
  int32_t qmin = t == AP_INT8 ? -128 : 0, qmax = t == AP_INT8 ? 127 : 255;
  p->input_zero_point = input->zero_point;
  p->output_zero_point = output->zero_point;
  if (t == AP_UINT8 && (op == AP_KUN_LOGISTIC || op == AP_KUN_TANH)) {
    /* TFLite's reference Prepare: only LOGISTIC constrains the output (scale 1/256). */
    if (op == AP_KUN_LOGISTIC && (double)output->scale != 1. / 256)
      return ap_fail(err, AP_ERR_UNSUPPORTED, "LOGISTIC: uint8 output scale must be 1/256, got %g",
                     (double)output->scale);
    return AP_OK;
  }
  switch (op) {
  case AP_KUN_RELU: {
    /* The ratio in float, then widened, as CalculateReluOpData. */
    ap_kq_multiplier((double)(input->scale / output->scale), &p->multiplier, &p->shift);
    p->act_min = AP_MAX(qmin, output->zero_point + (int32_t)roundf(0.0f / output->scale));
    p->act_max = qmax;
    return AP_OK;
  }
  case AP_KUN_RELU6: {
    /* FloatToQuantizedType(6.0f, input scale, input zero point). */
    double six = round((double)(6.0f / input->scale)) + input->zero_point;
    p->act_max = six > qmax ? qmax : six < qmin ? qmin : (int32_t)six;
    p->act_min = ap_kq_clamp(input->zero_point, qmin, qmax);
    return AP_OK;
  }
  case AP_KUN_LOGISTIC:
    if (output->zero_point != -128) {
      return ap_fail(err, AP_ERR_UNSUPPORTED,
                     "LOGISTIC: int8 output zero point must be -128, "
                     "got %d",
                     (int)output->zero_point);
    }
    /* fallthrough */
  default:
    if (!q4_multiplier(input->scale, &p->multiplier, &p->shift)) {
      return ap_fail(err, AP_ERR_UNSUPPORTED, "%s: input scale %g out of range", name,
                     (double)input->scale);
    }
    p->input_range_radius = ap_kq_input_radius(INPUT_INTEGER_BITS, p->shift);
    return AP_OK;
  }
}

ap_status ap_unary_prepare(int op, const ap_ktensor *input, ap_ktensor *output, ap_unary_params *p,
                           ap_errbuf *err) {
  ap_status s = unary_prepare(op, input, output, p, err);
  if (s == AP_OK) {
    p->in_shape = ap_kshape_of(input);
    p->out_shape = ap_kshape_of(output);
  }
  return s;
}

float ap_klogistic_f(float v) {
  const float cutoff_upper = 16.619047164916992188f, cutoff_lower = -9.0f;
  if (v > cutoff_upper) return 1.0f;
  if (v < cutoff_lower) return expf(v);
  return 1.0f / (1.0f + expf(-v));
}

static int32_t int8_fixed(const ap_unary_params *p, int32_t v) {
  int32_t x = v - p->input_zero_point;
  if (x <= -p->input_range_radius) return -128;
  if (x >= p->input_range_radius) return 127;
  int32_t q4 = ap_kq_mul(x, p->multiplier, p->shift);
  if (p->op == AP_KUN_LOGISTIC) {
    int32_t q23 = ap_kq_rdbpot(ap_kfp_logistic(q4, INPUT_INTEGER_BITS), 31 - 8);
    return ap_kq_clamp(q23 - 128, -128, 127);
  }
  int32_t q24 = ap_kq_rdbpot(ap_kfp_tanh(q4, INPUT_INTEGER_BITS), 31 - 7);
  return ap_kq_clamp(q24, -128, 127);
}

ap_status ap_unary_eval(const ap_unary_params *p, const ap_ktensor *input, ap_ktensor *output) {
  return ap_unary_eval_scratch(p, input, output, NULL);
}

ap_status ap_unary_eval_scratch(const ap_unary_params *p, const ap_ktensor *input,
                                ap_ktensor *output, void *scratch) {
  if (!p || !input || !output || !input->data || !output->data) return AP_ERR_ARG;
  if (p->scratch_bytes && !scratch) return AP_ERR_ARG;
  if (!ap_kshape_is(input, &p->in_shape) || !ap_kshape_is(output, &p->out_shape)) {
    return AP_ERR_ARG;
  }
  size_t n;
  if (!ap_ktensor_count(input, &n)) return AP_ERR_ARG;
  if (input->type == AP_FLOAT32) {
    const float *x = input->data;
    float *y = output->data;
    for (size_t i = 0; i < n; i++) {
      float v = x[i];
      switch (p->op) {
      case AP_KUN_RELU: y[i] = v < 0.0f ? 0.0f : v; break;
      case AP_KUN_RELU6: y[i] = v > 6.0f ? 6.0f : v < 0.0f ? 0.0f : v; break;
      case AP_KUN_LOGISTIC: y[i] = ap_klogistic_f(v); break;
      default: y[i] = ap_ktanhf(v); break;
      }
    }
    return AP_OK;
  }
  if (input->type == AP_INT16 && (p->op == AP_KUN_LOGISTIC || p->op == AP_KUN_TANH)) {
    ap_act16_eval(p, p->op == AP_KUN_TANH, input->data, output->data, n, scratch);
    return AP_OK;
  }
  bool s8 = input->type == AP_INT8, s16 = input->type == AP_INT16;
  if (!s8 && !s16 && (p->op == AP_KUN_LOGISTIC || p->op == AP_KUN_TANH)) {
    uint8_t lut[256];
    ap_kdetect_lut8(AP_UINT8, p->op, input->scale, input->zero_point, output->scale,
                    output->zero_point, lut);
    const uint8_t *x = input->data;
    uint8_t *y = output->data;
    for (size_t i = 0; i < n; i++)
      y[i] = lut[x[i]];
    return AP_OK;
  }
  for (size_t i = 0; i < n; i++) {
    int32_t v = s8    ? ((const int8_t *)input->data)[i]
                : s16 ? ((const int16_t *)input->data)[i]
                      : ((const uint8_t *)input->data)[i];
    int32_t r;
    switch (p->op) {
    case AP_KUN_RELU:
      r = p->output_zero_point + ap_kq_mul(v - p->input_zero_point, p->multiplier, p->shift);
      r = ap_kq_clamp(r, p->act_min, p->act_max);
      break;
    case AP_KUN_RELU6: r = v > p->act_max ? p->act_max : v < p->act_min ? p->act_min : v; break;
    default: r = int8_fixed(p, v); break;
    }
    if (s16) {
      ((int16_t *)output->data)[i] = (int16_t)r;
    } else if (s8) {
      ((int8_t *)output->data)[i] = (int8_t)r;
    } else {
      ((uint8_t *)output->data)[i] = (uint8_t)r;
    }
  }
  return AP_OK;
}
