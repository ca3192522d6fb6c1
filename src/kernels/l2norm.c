/* L2_NORMALIZATION along the last dim (TFLite Micro's l2norm.cc), float32 and int8, no fused
 * activation, rank 1 to 4. float32: x / max(sqrt(sum x^2), 1e-6) with the sum in float, in
 * order. int8: the integer reference (integer_ops/l2normalization.h): the sum of squared
 * offsets in int32, its inverse square root as a fixed-point multiplier, and the output in
 * units of 1/128 (whatever the output tensor's quantization says, as TFLite Micro does). */
#include "kernels/kops.h"
#include "kernels/quant.h"

#include <math.h>
#include <string.h>

ap_status ap_kx_l2norm_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "L2_NORMALIZATION", 1, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!ap_ktensor_count(in, &n) || in->rank < 1 || in->rank > 4) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "L2_NORMALIZATION: rank %d (1 to 4)", in->rank);
  }
  if ((in->type != AP_FLOAT32 && in->type != AP_INT8) || out->type != in->type) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "L2_NORMALIZATION: unsupported types %s -> %s",
                   ap_ktype_name(in->type), ap_ktype_name(out->type));
  }
  if (c->options->activation != AP_KACT_NONE) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "L2_NORMALIZATION: fused activation %d (TFLite Micro takes none)",
                   c->options->activation);
  }
  if (in->type == AP_INT8 && (in->zero_point < -128 || in->zero_point > 127)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "L2_NORMALIZATION: input zero point %d",
                   (int)in->zero_point);
  }
  p->imin = in->type == AP_INT8 ? in->zero_point : 0;
  out->rank = in->rank;
  memcpy(out->dims, in->dims, sizeof out->dims);
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

ap_status ap_kx_l2norm_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  size_t n;
  if (!ap_kx_eval_io(c, 1, 1, &in, &out) || !ap_ktensor_count(in, &n) || in->rank < 1)
    return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  size_t depth = (size_t)in->dims[in->rank - 1];
  if (n == 0 || depth == 0) return AP_OK;
  size_t outer = n / depth;
  if (in->type == AP_FLOAT32) {
    const float *x = in->data;
    float *y = out->data;
    for (size_t i = 0; i < outer; i++, x += depth, y += depth) {
      float sum = 0.0f;
      for (size_t k = 0; k < depth; k++)
        sum += x[k] * x[k];
      float norm = sqrtf(sum);
      norm = norm < 1e-6f ? 1e-6f : norm; /* std::max(norm, epsilon): NaN stays */
      for (size_t k = 0; k < depth; k++)
        y[k] = x[k] / norm;
    }
    return AP_OK;
  }
  const int8_t *x = in->data;
  int8_t *y = out->data;
  int32_t zp = p->imin;
  for (size_t i = 0; i < outer; i++, x += depth, y += depth) {
    /* At most 255^2 per element: int32 holds 2^15 elements' worth; beyond, it wraps as
     * TFLite's int32 accumulator would (unsigned arithmetic keeps that defined here). */
    uint32_t acc = 0;
    for (size_t k = 0; k < depth; k++) {
      int32_t d = x[k] - zp;
      acc += (uint32_t)(d * d);
    }
    int32_t mult;
    int shift;
    ap_kq_inv_sqrt((int32_t)acc, -1, &mult, &shift);
    for (size_t k = 0; k < depth; k++)
      y[k] = (int8_t)ap_kq_clamp(ap_kq_mul(x[k] - zp, mult, shift + 7), -128, 127);
  }
  return AP_OK;
}
