/* ADD, SUB, MUL with numpy broadcasting (TFLite's Broadcast*Slow kernels compute each element
 * the same way as the elementwise ones). Quantized ADD/SUB follow TFLite Micro's
 * add_common.cc/sub_common.cc: both inputs are brought to a common scale with 20 bits of
 * headroom, summed, and rescaled. */
#include "kernels/kernels.h"
#include "kernels/quant.h"

#include <string.h>

static const char *op_name(int op) {
  return op == AP_KBIN_ADD ? "ADD" : op == AP_KBIN_SUB ? "SUB" : "MUL";
}

static ap_status binary_prepare(int op, int activation, const ap_ktensor *a, const ap_ktensor *b,
                                ap_ktensor *output, ap_binary_params *p, ap_errbuf *err) {
  if (!a || !b || !output || !p || op < AP_KBIN_ADD || op > AP_KBIN_MUL) {
    return ap_fail(err, AP_ERR_ARG, "binary op: bad argument");
  }
  const char *name = op_name(op);
  memset(p, 0, sizeof *p);
  p->op = op;
  if (a->rank < 0 || a->rank > AP_KMAXDIMS || b->rank < 0 || b->rank > AP_KMAXDIMS) {
    return ap_fail(err, AP_ERR_FORMAT, "%s: bad input ranks %d and %d", name, a->rank, b->rank);
  }
  int rank = AP_MAX(a->rank, b->rank);
  for (int i = 0; i < rank; i++) {
    int32_t da = ap_ktensor_dim_ext(a, rank, i), db = ap_ktensor_dim_ext(b, rank, i);
    if (da != db && da != 1 && db != 1) {
      return ap_fail(err, AP_ERR_FORMAT, "%s: shapes do not broadcast: dim %d is %d and %d", name,
                     i, (int)da, (int)db);
    }
    output->dims[i] = da == 1 ? db : da;
  }
  output->rank = rank;
  size_t n;
  if (!ap_ktensor_count(output, &n) || !ap_ktensor_count(a, &n) || !ap_ktensor_count(b, &n)) {
    return ap_fail(err, AP_ERR_FORMAT, "%s: invalid shapes", name);
  }
  int t = a->type;
  if (b->type == t && t != AP_FLOAT32 && output->type == AP_FLOAT32) {
    /* TFLite Micro picks the kernel by the output's type: it would read the integer inputs'
     * bytes as floats, past their end, so the result depends on its arena's other bytes. */
    return ap_fail(err, AP_ERR_UNSUPPORTED,
                   "%s: %s inputs with a FLOAT32 output (TFLite Micro reads them as floats, past "
                   "their end: undefined)",
                   name, ap_ktype_name(t));
  }
  if (b->type != t || output->type != t ||
      (t != AP_FLOAT32 && t != AP_INT8 && t != AP_UINT8 && t != AP_INT32 && t != AP_INT16)) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "%s: unsupported types %s, %s -> %s", name,
                   ap_ktype_name(a->type), ap_ktype_name(b->type), ap_ktype_name(output->type));
  }
  if (t == AP_FLOAT32) {
    if (!ap_kq_act_range_float(activation, &p->fact_min, &p->fact_max)) {
      return ap_fail(err, AP_ERR_UNSUPPORTED, "%s: unsupported fused activation %d", name,
                     activation);
    }
    return AP_OK;
  }
  if (t == AP_INT32) {
    /* CalculateActivationRange<int32_t>: the float bounds as integers. */
    switch (activation) {
    case AP_KACT_NONE: p->act_min = INT32_MIN, p->act_max = INT32_MAX; break;
    case AP_KACT_RELU: p->act_min = 0, p->act_max = INT32_MAX; break;
    case AP_KACT_RELU6: p->act_min = 0, p->act_max = 6; break;
    case AP_KACT_RELU_N1_TO_1: p->act_min = -1, p->act_max = 1; break;
    default:
      return ap_fail(err, AP_ERR_UNSUPPORTED, "%s: unsupported fused activation %d", name,
                     activation);
    }
    return AP_OK;
  }
  if (!ap_kq_scale_ok(a->scale) || !ap_kq_scale_ok(b->scale) || !ap_kq_scale_ok(output->scale) ||
      !ap_kq_zero_point_ok(a) || !ap_kq_zero_point_ok(b) || !ap_kq_zero_point_ok(output)) {
    return ap_fail(err, AP_ERR_FORMAT,
                   "%s: quantized tensors need positive scales and in-range zero points", name);
  }
  if (!ap_kq_act_range_quant(activation, t, output->scale, output->zero_point, &p->act_min,
                             &p->act_max)) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "%s: unsupported fused activation %d", name,
                   activation);
  }
  p->input1_offset = -a->zero_point;
  p->input2_offset = -b->zero_point;
  p->output_offset = output->zero_point;
  if (op == AP_KBIN_MUL) {
    if (t == AP_INT16 && (a->zero_point || b->zero_point || output->zero_point)) {
      return ap_fail(err, AP_ERR_UNSUPPORTED,
                     "MUL: int16 tensors need zero points 0 (TFLite Micro's), got %d, %d -> %d",
                     (int)a->zero_point, (int)b->zero_point, (int)output->zero_point);
    }
    double m = (double)a->scale * (double)b->scale / (double)output->scale;
    ap_kq_multiplier(m, &p->output_multiplier, &p->output_shift);
    return AP_OK;
  }
  /* int16 keeps 15 bits of headroom: (65535 << 15) still fits the int32 sum. */
  p->left_shift = t == AP_INT16 ? 15 : 20;
  double twice_max = 2 * (double)AP_MAX(a->scale, b->scale);
  double m1 = (double)a->scale / twice_max, m2 = (double)b->scale / twice_max;
  double mo = twice_max / ((double)(1 << p->left_shift) * (double)output->scale);
  if (op == AP_KBIN_SUB && t != AP_UINT8) {
    /* TFLite Micro's sub_common.cc takes these ratios in float, then widens them (uint8 is
     * TFLite's, in double). */
    float tm = 2 * AP_MAX(a->scale, b->scale);
    m1 = (double)(a->scale / tm), m2 = (double)(b->scale / tm);
    mo = (double)(tm / ((float)(1 << p->left_shift) * output->scale));
  }
  if (!ap_kq_multiplier_lt1(m1, &p->input1_multiplier, &p->input1_shift) ||
      !ap_kq_multiplier_lt1(m2, &p->input2_multiplier, &p->input2_shift) ||
      !ap_kq_multiplier_lt1(mo, &p->output_multiplier, &p->output_shift)) {
    return ap_fail(err, AP_ERR_UNSUPPORTED,
                   "%s: scales %g, %g -> %g need a rescale TFLite cannot represent", name,
                   (double)a->scale, (double)b->scale, (double)output->scale);
  }
  return AP_OK;
}

ap_status ap_binary_prepare(int op, int activation, const ap_ktensor *a, const ap_ktensor *b,
                            ap_ktensor *output, ap_binary_params *p, ap_errbuf *err) {
  ap_status s = binary_prepare(op, activation, a, b, output, p, err);
  if (s == AP_OK) {
    p->in_shape = ap_kshape_of(a);
    p->in2_shape = ap_kshape_of(b);
    p->out_shape = ap_kshape_of(output);
  }
  return s;
}

static int32_t quant_add_sub(const ap_binary_params *p, int32_t x, int32_t y) {
  int32_t xs = (int32_t)((uint32_t)(p->input1_offset + x) << p->left_shift);
  int32_t ys = (int32_t)((uint32_t)(p->input2_offset + y) << p->left_shift);
  int32_t xr = ap_kq_mul_lt1(xs, p->input1_multiplier, p->input1_shift);
  int32_t yr = ap_kq_mul_lt1(ys, p->input2_multiplier, p->input2_shift);
  int32_t raw = p->op == AP_KBIN_ADD ? xr + yr : xr - yr;
  int32_t out = ap_kq_mul_lt1(raw, p->output_multiplier, p->output_shift) + p->output_offset;
  return ap_kq_clamp(out, p->act_min, p->act_max);
}

static int32_t quant_mul(const ap_binary_params *p, int32_t x, int32_t y) {
  int32_t prod = (p->input1_offset + x) * (p->input2_offset + y);
  int32_t out = p->output_offset + ap_kq_mul(prod, p->output_multiplier, p->output_shift);
  return ap_kq_clamp(out, p->act_min, p->act_max);
}

static void element(const ap_binary_params *p, int type, const void *a, size_t ia, const void *b,
                    size_t ib, void *out, size_t io) {
  switch (type) {
  case AP_FLOAT32: {
    float x = ((const float *)a)[ia], y = ((const float *)b)[ib];
    float r = p->op == AP_KBIN_ADD ? x + y : p->op == AP_KBIN_SUB ? x - y : x * y;
    ((float *)out)[io] = ap_kq_clampf(r, p->fact_min, p->fact_max);
    return;
  }
  case AP_INT32: {
    uint32_t x = (uint32_t)((const int32_t *)a)[ia], y = (uint32_t)((const int32_t *)b)[ib];
    int32_t r = (int32_t)(p->op == AP_KBIN_ADD ? x + y : p->op == AP_KBIN_SUB ? x - y : x * y);
    ((int32_t *)out)[io] = ap_kq_clamp(r, p->act_min, p->act_max);
    return;
  }
  case AP_INT8: {
    int32_t x = ((const int8_t *)a)[ia], y = ((const int8_t *)b)[ib];
    int32_t r = p->op == AP_KBIN_MUL ? quant_mul(p, x, y) : quant_add_sub(p, x, y);
    ((int8_t *)out)[io] = (int8_t)r;
    return;
  }
  case AP_INT16: {
    int32_t x = ((const int16_t *)a)[ia], y = ((const int16_t *)b)[ib];
    int32_t r = p->op == AP_KBIN_MUL ? quant_mul(p, x, y) : quant_add_sub(p, x, y);
    ((int16_t *)out)[io] = (int16_t)r;
    return;
  }
  default: {
    int32_t x = ((const uint8_t *)a)[ia], y = ((const uint8_t *)b)[ib];
    int32_t r = p->op == AP_KBIN_MUL ? quant_mul(p, x, y) : quant_add_sub(p, x, y);
    ((uint8_t *)out)[io] = (uint8_t)r;
    return;
  }
  }
}

ap_status ap_binary_eval(const ap_binary_params *p, const ap_ktensor *a, const ap_ktensor *b,
                         ap_ktensor *output) {
  if (!p || !a || !b || !output) return AP_ERR_ARG;
  if (!ap_kshape_is(a, &p->in_shape) || !ap_kshape_is(b, &p->in2_shape) ||
      !ap_kshape_is(output, &p->out_shape)) {
    return AP_ERR_ARG;
  }
  int rank = output->rank;
  size_t n;
  if (!ap_ktensor_count(output, &n)) return AP_ERR_ARG;
  /* An empty output (an input with a 0 dim) has nothing to read or write: its tensors may
   * have no bytes at all. */
  if (n == 0) return AP_OK;
  if (!a->data || !b->data || !output->data) return AP_ERR_ARG;
  /* Strides of each input in output coordinates; 0 along broadcast dims. */
  size_t sa[AP_KMAXDIMS], sb[AP_KMAXDIMS];
  size_t ta = 1, tb = 1;
  for (int i = rank - 1; i >= 0; i--) {
    int32_t da = ap_ktensor_dim_ext(a, rank, i), db = ap_ktensor_dim_ext(b, rank, i);
    sa[i] = da == 1 ? 0 : ta;
    sb[i] = db == 1 ? 0 : tb;
    ta *= (size_t)da;
    tb *= (size_t)db;
  }
  int32_t idx[AP_KMAXDIMS] = {0};
  size_t ia = 0, ib = 0;
  for (size_t io = 0; io < n; io++) {
    element(p, a->type, a->data, ia, b->data, ib, output->data, io);
    for (int i = rank - 1; i >= 0; i--) {
      if (++idx[i] < output->dims[i]) {
        ia += sa[i];
        ib += sb[i];
        break;
      }
      ia -= sa[i] * (size_t)(output->dims[i] - 1);
      ib -= sb[i] * (size_t)(output->dims[i] - 1);
      idx[i] = 0;
    }
  }
  return AP_OK;
}
