/* SOFTMAX over the last dimension: reference_ops::Softmax, float with beta and the quantized
 * template (int8 -> int8 or int16, uint8 -> uint8) with gemmlowp's exp and reciprocal.
 * Parameters as TFLite Micro's softmax_common.cc. */
#include "kernels/kops_elem16.h"
#include "kernels/quant.h"

#include <float.h>
#include <math.h>
#include <string.h>

enum { SCALED_DIFF_INTEGER_BITS = 5, ACCUMULATION_INTEGER_BITS = 12 };

/* setup16, eval16: the int16 kind's (softmax16.c); NULL: the 8-bit kinds only, int16 and float
 * refused (ap_softmax_prepare_8bit: an int8 firmware links neither softmax16.c nor expf). */
typedef ap_status (*setup16_fn)(float beta, const ap_ktensor *in, const ap_ktensor *out,
                                ap_softmax_params *p, ap_errbuf *err);
typedef void (*eval16_fn)(const ap_softmax_params *p, const int16_t *x, int16_t *y, size_t outer,
                          size_t depth, void *scratch);

static ap_status softmax_prepare(float beta, const ap_ktensor *input, ap_ktensor *output,
                                 ap_softmax_params *p, ap_errbuf *err, setup16_fn setup16) {
  if (!input || !output || !p) return ap_fail(err, AP_ERR_ARG, "SOFTMAX: NULL argument");
  memset(p, 0, sizeof *p);
  p->beta = beta;
  if (input->rank < 1) return ap_fail(err, AP_ERR_FORMAT, "SOFTMAX: input must have rank >= 1");
  size_t n;
  if (!ap_ktensor_count(input, &n) || input->dims[input->rank - 1] <= 0) {
    return ap_fail(err, AP_ERR_FORMAT, "SOFTMAX: empty or invalid input shape");
  }
  output->rank = input->rank;
  memcpy(output->dims, input->dims, sizeof output->dims);
  int it = input->type, ot = output->type;
  if (it == AP_FLOAT32 && ot == AP_FLOAT32)
    return setup16 ? AP_OK
                   : ap_fail(err, AP_ERR_UNSUPPORTED,
                             "SOFTMAX: float32 is not registered (AP_REGISTRY_TYPES)");
  if (it == AP_INT16 && ot == AP_INT16)
    return setup16 ? setup16(beta, input, output, p, err)
                   : ap_fail(err, AP_ERR_UNSUPPORTED,
                             "SOFTMAX: int16 is not registered (AP_REGISTRY_TYPES)");
  bool ok =
      (it == AP_INT8 && ot == AP_INT8 && output->zero_point == -128 &&
       output->scale == 1.0f / 256) ||
      (it == AP_INT8 && ot == AP_INT16 && output->zero_point == -32768 &&
       fabsf(output->scale - 1.0f / 65536) <= 0.001f * 1.0f / 65536) ||
      (it == AP_UINT8 && ot == AP_UINT8 && output->zero_point == 0 && output->scale == 1.0f / 256);
  if (!ok) {
    return ap_fail(err, AP_ERR_UNSUPPORTED,
                   "SOFTMAX: unsupported %s -> %s with output scale %g, zero point %d",
                   ap_ktype_name(it), ap_ktype_name(ot), (double)output->scale,
                   (int)output->zero_point);
  }
  if (!ap_kq_scale_ok(input->scale) ||
      !(AP_KQ_SOFT_DOUBLE
            ? ap_kq_softmax_scaling_f(beta, input->scale, SCALED_DIFF_INTEGER_BITS,
                                      &p->input_multiplier, &p->input_left_shift)
            : ap_kq_softmax_scaling((double)beta, (double)input->scale, SCALED_DIFF_INTEGER_BITS,
                                    &p->input_multiplier, &p->input_left_shift))) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "SOFTMAX: beta %g with input scale %g is too small",
                   (double)beta, (double)input->scale);
  }
  p->diff_min = -(AP_KQ_SOFT_DOUBLE ? ap_kq_input_radius_int : ap_kq_input_radius)(
      SCALED_DIFF_INTEGER_BITS, p->input_left_shift);
  return AP_OK;
}

static ap_status prepare_with(float beta, const ap_ktensor *input, ap_ktensor *output,
                              ap_softmax_params *p, ap_errbuf *err, setup16_fn setup16) {
  ap_status s = softmax_prepare(beta, input, output, p, err, setup16);
  if (s == AP_OK) {
    p->in_shape = ap_kshape_of(input);
    p->out_shape = ap_kshape_of(output);
  }
  return s;
}

ap_status ap_softmax_prepare(float beta, const ap_ktensor *input, ap_ktensor *output,
                             ap_softmax_params *p, ap_errbuf *err) {
  return prepare_with(beta, input, output, p, err, ap_softmax16_setup);
}

/* int16 left out (a float registration's): softmax16.c's setup computes its multiplier in double,
 * which a single-precision core's firmware would link libgcc's soft double for. */
static ap_status refuse16(float beta, const ap_ktensor *in, const ap_ktensor *out,
                          ap_softmax_params *p, ap_errbuf *err) {
  (void)beta, (void)in, (void)out, (void)p;
  return ap_fail(err, AP_ERR_UNSUPPORTED, "SOFTMAX: int16 is not registered (AP_REGISTRY_TYPES)");
}

ap_status ap_softmax_prepare_float(float beta, const ap_ktensor *input, ap_ktensor *output,
                                   ap_softmax_params *p, ap_errbuf *err) {
  return prepare_with(beta, input, output, p, err, refuse16);
}

ap_status ap_softmax_prepare_8bit(float beta, const ap_ktensor *input, ap_ktensor *output,
                                  ap_softmax_params *p, ap_errbuf *err) {
  return prepare_with(beta, input, output, p, err, NULL);
}

static void softmax_float(const ap_softmax_params *p, const float *in, float *out, size_t outer,
                          size_t depth) {
  for (size_t i = 0; i < outer; i++) {
    const float *x = in + i * depth;
    float *y = out + i * depth;
    float max = -FLT_MAX;
    for (size_t c = 0; c < depth; c++)
      max = max < x[c] ? x[c] : max;
    float sum = 0.0f;
    for (size_t c = 0; c < depth; c++) {
      float e = expf((x[c] - max) * p->beta);
      y[c] = e;
      sum += e;
    }
    for (size_t c = 0; c < depth; c++)
      y[c] = y[c] / sum;
  }
}

static int32_t load(int type, const void *d, size_t i) {
  return type == AP_INT8 ? ((const int8_t *)d)[i] : ((const uint8_t *)d)[i];
}

static void softmax_quant(const ap_softmax_params *p, const ap_ktensor *input, ap_ktensor *output,
                          size_t outer, size_t depth) {
  const int it = input->type, ot = output->type;
  const int32_t out_min = ot == AP_INT8 ? -128 : ot == AP_INT16 ? -32768 : 0;
  const int32_t out_max = ot == AP_INT8 ? 127 : ot == AP_INT16 ? 32767 : 255;
  const int out_bits = ot == AP_INT16 ? 16 : 8;
  for (size_t i = 0; i < outer; i++) {
    size_t base = i * depth;
    int32_t max_in_row = it == AP_INT8 ? -128 : 0;
    for (size_t c = 0; c < depth; c++)
      max_in_row = AP_MAX(max_in_row, load(it, input->data, base + c));
    int32_t sum_of_exps = 0; /* Q12.19 */
    for (size_t c = 0; c < depth; c++) {
      int32_t diff = load(it, input->data, base + c) - max_in_row;
      if (diff >= p->diff_min) {
        int32_t scaled = ap_kq_mul_gt1(diff, p->input_multiplier, p->input_left_shift);
        int32_t e = ap_kfp_exp_on_negative_values(scaled, SCALED_DIFF_INTEGER_BITS);
        sum_of_exps =
            (int32_t)((uint32_t)sum_of_exps + (uint32_t)ap_kq_rdbpot(e, ACCUMULATION_INTEGER_BITS));
      }
    }
    int num_bits_over_unit;
    int32_t shifted_scale =
        ap_kq_reciprocal(sum_of_exps, ACCUMULATION_INTEGER_BITS, &num_bits_over_unit);
    int exponent = num_bits_over_unit + 31 - out_bits;
    if (exponent < 0) exponent = 0; /* TFLite checks 0..31; the sum includes exp(0) = 1 */
    if (exponent > 31) exponent = 31;
    for (size_t c = 0; c < depth; c++) {
      int32_t diff = load(it, input->data, base + c) - max_in_row;
      int32_t v = out_min;
      if (diff >= p->diff_min) {
        int32_t scaled = ap_kq_mul_gt1(diff, p->input_multiplier, p->input_left_shift);
        int32_t e = ap_kfp_exp_on_negative_values(scaled, SCALED_DIFF_INTEGER_BITS);
        int32_t unsat = ap_kq_rdbpot(ap_kq_srdhm(shifted_scale, e), exponent);
        v = ap_kq_clamp(unsat + out_min, out_min, out_max);
      }
      if (ot == AP_INT8) {
        ((int8_t *)output->data)[base + c] = (int8_t)v;
      } else if (ot == AP_INT16) {
        ((int16_t *)output->data)[base + c] = (int16_t)v;
      } else {
        ((uint8_t *)output->data)[base + c] = (uint8_t)v;
      }
    }
  }
}

ap_status ap_softmax_eval(const ap_softmax_params *p, const ap_ktensor *input, ap_ktensor *output) {
  return ap_softmax_eval_scratch(p, input, output, NULL);
}

typedef void (*floatf_fn)(const ap_softmax_params *p, const float *in, float *out, size_t outer,
                          size_t depth);

/* Not inlined: each entry point then links only the kinds it passes. */
static __attribute__((noinline)) ap_status eval_with(const ap_softmax_params *p,
                                                     const ap_ktensor *input, ap_ktensor *output,
                                                     void *scratch, eval16_fn eval16,
                                                     floatf_fn floatf) {
  if (!p || !input || !output || !input->data || !output->data) return AP_ERR_ARG;
  if (p->scratch_bytes && !scratch) return AP_ERR_ARG;
  if (!ap_kshape_is(input, &p->in_shape) || !ap_kshape_is(output, &p->out_shape)) {
    return AP_ERR_ARG;
  }
  size_t n;
  if (!ap_ktensor_count(input, &n)) return AP_ERR_ARG;
  size_t depth = (size_t)input->dims[input->rank - 1];
  if (input->type == AP_FLOAT32) {
    if (!floatf) return AP_ERR_UNSUPPORTED;
    floatf(p, input->data, output->data, n / depth, depth);
  } else if (input->type == AP_INT16) {
    if (!eval16) return AP_ERR_UNSUPPORTED;
    eval16(p, input->data, output->data, n / depth, depth, scratch);
  } else {
    softmax_quant(p, input, output, n / depth, depth);
  }
  return AP_OK;
}

ap_status ap_softmax_eval_scratch(const ap_softmax_params *p, const ap_ktensor *input,
                                  ap_ktensor *output, void *scratch) {
  return eval_with(p, input, output, scratch, ap_softmax16_eval, softmax_float);
}

ap_status ap_softmax_eval_8bit(const ap_softmax_params *p, const ap_ktensor *input,
                               ap_ktensor *output, void *scratch) {
  return eval_with(p, input, output, scratch, NULL, NULL);
}
