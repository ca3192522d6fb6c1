/* LOG_SOFTMAX over the last dimension (TFLite Micro's log_softmax.cc, reference
 * log_softmax.h). Float: x - max - log(sum exp(x - max)). int8 (output scale 16/256, zero
 * point 127): the sum of exps in Q12 fixed point as SOFTMAX's, its log in Q5 by TFLite's
 * log_x_for_x_greater_than_or_equal_to_1, subtracted from each rescaled difference. */
#include "kernels/kops_elem16.h"
#include "kernels/quant.h"

#include <float.h>
#include <limits.h>
#include <math.h>

enum { IN_BITS = 5, ACC_BITS = 12, OUT_BITS = 4 };

ap_status ap_kx_log_softmax_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_act_prepare(c, scratch, "LOG_SOFTMAX");
  if (s != AP_OK) return s;
  ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0], *out = c->outputs[0];
  if (in->rank < 1 || in->dims[in->rank - 1] <= 0) {
    return ap_fail(c->err, AP_ERR_FORMAT, "LOG_SOFTMAX: input must have rank >= 1 and rows");
  }
  if (in->type != AP_INT8) return AP_OK;
  if (out->scale != 16.0f / 256 || out->zero_point != 127) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "LOG_SOFTMAX: int8 output needs scale 1/16 and zero point 127, got %g, %d",
                   (double)out->scale, (int)out->zero_point);
  }
  int32_t divisor;
  int reverse_shift;
  bool ok = ap_kq_softmax_scaling(1.0, (double)in->scale, IN_BITS, &p->q_mult[0], &p->q_shift[0]) &&
            p->q_shift[0] >= 1 && p->q_shift[0] <= 31;
  /* The inverse of the input scaling, to bring the log back to input units. */
  ok = ok && ap_kq_multiplier_lt1((double)(1LL << (31 - p->q_shift[0])) / (double)p->q_mult[0],
                                  &divisor, &reverse_shift);
  if (!ok) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "LOG_SOFTMAX: input scale %g gives a rescale TFLite Micro cannot apply",
                   (double)in->scale);
  }
  p->q_mult[1] = divisor;
  p->q_shift[1] = reverse_shift;
  p->imin = -ap_kq_input_radius(IN_BITS, p->q_shift[0]); /* diff_min */
  return AP_OK;
}

static void log_softmax_float(const float *x, float *y, size_t outer, size_t depth) {
  for (size_t i = 0; i < outer; i++) {
    const float *xi = x + i * depth;
    float max = -FLT_MAX;
    for (size_t c = 0; c < depth; c++)
      max = max < xi[c] ? xi[c] : max;
    float sum = 0.0f;
    for (size_t c = 0; c < depth; c++)
      sum += expf(xi[c] - max);
    float log_sum = logf(sum);
    for (size_t c = 0; c < depth; c++)
      y[i * depth + c] = xi[c] - max - log_sum;
  }
}

static void log_softmax_int8(const ap_kx_params *p, const int8_t *x, int8_t *y, size_t outer,
                             size_t depth) {
  const int32_t diff_min = p->imin;
  for (size_t i = 0; i < outer; i++) {
    const int8_t *xi = x + i * depth;
    int32_t max = INT8_MIN;
    for (size_t c = 0; c < depth; c++)
      max = xi[c] > max ? xi[c] : max;
    int32_t sum = 0; /* Q12 */
    for (size_t c = 0; c < depth; c++) {
      int32_t diff = xi[c] - max;
      if (diff >= diff_min) {
        int32_t q5 = ap_kq_mul(diff, p->q_mult[0], p->q_shift[0]);
        int32_t e = ap_kfp_exp_on_negative_values(q5, IN_BITS);
        sum = (int32_t)((uint32_t)sum + (uint32_t)ap_kq_rdbpot(e, ACC_BITS));
      }
    }
    int32_t log_sum = ap_kfp_log_x_ge_1(sum, ACC_BITS, IN_BITS); /* Q5 */
    int32_t shifted = (int32_t)((uint32_t)log_sum + (uint32_t)INT32_MIN);
    int32_t scaled = ap_kq_mul(shifted, p->q_mult[1], p->q_shift[1]);
    int32_t adjusted_min = diff_min - 1 > scaled ? diff_min - 1 : scaled;
    for (size_t c = 0; c < depth; c++) {
      int32_t diff = xi[c] - max;
      int32_t v = INT8_MIN;
      if (diff > adjusted_min) {
        int32_t q5 = ap_kq_mul(diff, p->q_mult[0], p->q_shift[0]);
        v = ap_kq_rdbpot(q5 - log_sum, 31 - IN_BITS - OUT_BITS) + INT8_MAX;
        v = ap_kq_clamp(v, INT8_MIN, INT8_MAX);
      }
      y[i * depth + c] = (int8_t)v;
    }
  }
}

ap_status ap_kx_log_softmax_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  size_t n;
  if (!ap_kx_eval_io(c, 1, INT_MAX, &in, &out) || !ap_ktensor_count(in, &n)) return AP_ERR_ARG;
  size_t depth = (size_t)in->dims[in->rank - 1];
  if (in->type == AP_INT8) {
    log_softmax_int8(c->params, in->data, out->data, n / depth, depth);
  } else {
    log_softmax_float(in->data, out->data, n / depth, depth);
  }
  return AP_OK;
}
