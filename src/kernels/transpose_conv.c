/* TRANSPOSE_CONV (TFLite's reference transpose_conv.h and reference_integer_ops'): every input
 * pixel scatters input * filter into the output window it maps to, in the order batch, in_y,
 * in_x, in_channel, filter_y, filter_x, out_channel (which fixes the float summation order),
 * then the bias is added. Inputs: output_shape (constant INT32 [4]), filter [out_c, fh, fw,
 * in_c], input NHWC, optional bias [out_c]. Padding is computed as for a convolution of
 * the output with the filter (ComputePaddingHeightWidth on the output size).
 *
 * float32: TFLite's reference leaves the fused activation to its callers; TFLite Micro clamps
 * after the bias, so a fused activation other than NONE clamps here (NONE does not clamp at
 * all, keeping infinities as TFLite does).
 * int8: int32 sums of (input - zero point) * filter in scratch, an int32 bias, per-channel
 * requantization, the output zero point, the activation range.
 * 16x8 (int16 input and output, int8 filter): int64 sums without zero points, an int64 bias
 * (or an int16 one widened, as TFLM does), the int64 requantization. */
#include "kernels/kops.h"
#include "kernels/kops_conv16.h"
#include "kernels/quant.h"

#include <string.h>

/* p->kind */
enum { TC_FLOAT = 0, TC_FLOAT_CLAMP, TC_INT8, TC_INT16 };

/* Scratch: per-channel multipliers and shifts, then one accumulator per output element. */
static bool tc_scratch(int kind, size_t oc, size_t n, size_t *accs_at, size_t *total) {
  size_t t;
  if (kind != TC_INT8 && kind != TC_INT16) {
    *accs_at = *total = 0;
    return true;
  }
  if (!ap_mul_size(oc, 2 * sizeof(int32_t), &t) || t > SIZE_MAX - AP_KSCRATCH_ALIGN) return false;
  *accs_at = ap_kscratch_round(t);
  return ap_mul_size(n, kind == TC_INT8 ? sizeof(int32_t) : sizeof(int64_t), &t) &&
         ap_add_size(*accs_at, t, total);
}

/* Type checks and quantization parameters; sets p->kind. */
static ap_status tc_types(ap_kctx *c, ap_kx_params *p, const ap_ktensor *in,
                          const ap_ktensor *filter, const ap_ktensor *bias, const ap_ktensor *out) {
  const ap_conv_options *o = &c->options->conv;
  int it = in->type, ft = filter->type, ot = out->type, want_bias;
  if (it == AP_FLOAT32 && ft == AP_FLOAT32 && ot == AP_FLOAT32) {
    p->kind = o->activation != AP_KACT_NONE ? TC_FLOAT_CLAMP : TC_FLOAT;
    want_bias = AP_FLOAT32;
  } else if (it == AP_INT8 && ft == AP_INT8 && ot == AP_INT8) {
    p->kind = TC_INT8;
    want_bias = AP_INT32;
  } else if (it == AP_INT16 && ft == AP_INT8 && ot == AP_INT16) {
    p->kind = TC_INT16;
    want_bias = bias && bias->type == AP_INT16 ? AP_INT16 : AP_INT64;
  } else {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "TRANSPOSE_CONV: unsupported types %s, %s -> %s",
                   ap_ktype_name(it), ap_ktype_name(ft), ap_ktype_name(ot));
  }
  if (bias && bias->type != want_bias) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "TRANSPOSE_CONV: bias is %s, expected %s",
                   ap_ktype_name(bias->type), ap_ktype_name(want_bias));
  }
  p->axis = want_bias;
  if (p->kind == TC_FLOAT || p->kind == TC_FLOAT_CLAMP) {
    if (!ap_kq_act_range_float(o->activation, &p->fmin, &p->fmax)) {
      return ap_fail(c->err, AP_ERR_UNSUPPORTED, "TRANSPOSE_CONV: unsupported fused activation %d",
                     o->activation);
    }
    return AP_OK;
  }
  int32_t oc = filter->dims[0];
  if (!ap_kq_scale_ok(in->scale) || !ap_kq_scale_ok(out->scale) ||
      !ap_kq_channel_scales_ok(filter) || !ap_kq_zero_point_ok(in) || !ap_kq_zero_point_ok(out)) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "TRANSPOSE_CONV: quantized tensors need positive scales and in-range zero "
                   "points");
  }
  if (filter->channel_scales && filter->n_channels > 1 && filter->n_channels != oc) {
    return ap_fail(c->err, AP_ERR_FORMAT, "TRANSPOSE_CONV: filter has %d scales for %d channels",
                   filter->n_channels, (int)oc);
  }
  if (p->kind == TC_INT16) {
    ap_status s = ap_kconv_check_mul64("TRANSPOSE_CONV", in->scale, filter, out->scale, oc, c->err);
    if (s != AP_OK) return s;
  } else {
    p->q_offset[0] = -in->zero_point;
    p->q_offset[2] = out->zero_point;
  }
  if (!ap_kq_act_range_quant(o->activation, ot, out->scale, out->zero_point, &p->imin, &p->imax)) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "TRANSPOSE_CONV: unsupported fused activation %d",
                   o->activation);
  }
  return AP_OK;
}

ap_status ap_kx_transpose_conv_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "TRANSPOSE_CONV", 3, 4, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *shape = c->inputs[0], *filter = c->inputs[1], *in = c->inputs[2];
  const ap_ktensor *bias = c->n_inputs > 3 ? c->inputs[3] : NULL;
  ap_ktensor *out = c->outputs[0];
  const ap_conv_options *o = &c->options->conv;
  size_t n;
  if (shape->type != AP_INT32 || shape->rank != 1 || shape->dims[0] != 4) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "TRANSPOSE_CONV: unsupported output_shape: it must be a constant INT32 [4]");
  }
  if (in->rank != 4 || filter->rank != 4 || !ap_ktensor_count(in, &n) ||
      !ap_ktensor_count(filter, &n)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "TRANSPOSE_CONV: input and filter must be 4-D");
  }
  s = tc_types(c, p, in, filter, bias, out);
  if (s != AP_OK) return s;
  /* TFLite Micro never reads output_shape: its output keeps the shape the model declares.
   * TFLite reads it. Both agree on a consistent model; output_shape wins when its values are
   * known and fit the input and filter, the declared 4-D shape otherwise (a graph input that
   * TFLite Micro ignores may hold anything). */
  const int32_t *os = shape->data;
  bool fits = os && os[0] == in->dims[0] && os[3] == filter->dims[0];
  for (int i = 0; fits && i < 4; i++)
    fits = os[i] >= 0;
  bool declared = out->rank == 4;
  for (int i = 0; declared && i < 4; i++)
    declared = out->dims[i] > 0;
  if (fits) {
    for (int i = 0; i < 4; i++)
      out->dims[i] = os[i];
    out->rank = 4;
  } else if (!declared) {
    for (int i = 0; os && i < 4; i++) {
      if (os[i] < 0) return ap_fail(c->err, AP_ERR_FORMAT, "TRANSPOSE_CONV: output dim %d < 0", i);
    }
    if (!os) {
      return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                     "TRANSPOSE_CONV: unsupported output_shape: it must be a constant INT32 [4]");
    }
    for (int i = 0; i < 4; i++)
      out->dims[i] = os[i]; /* refused below: batch or channels disagree */
    out->rank = 4;
  }
  if (!ap_ktensor_count(out, &n)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "TRANSPOSE_CONV: output shape too large");
  }
  if (out->dims[0] != in->dims[0] || filter->dims[3] != in->dims[3] ||
      filter->dims[0] != out->dims[3] ||
      (bias && (bias->rank != 1 || bias->dims[0] != out->dims[3]))) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "TRANSPOSE_CONV: shapes disagree (batch, input channels or output channels)");
  }
  ap_kpadding pad;
  if (out->dims[1] == 0 || out->dims[2] == 0) {
    memset(&pad, 0, sizeof pad);
  } else if (!ap_kcompute_padding(o->padding, out->dims[1], out->dims[2], filter->dims[1],
                                  filter->dims[2], o->stride_h, o->stride_w, 1, 1, &pad)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "TRANSPOSE_CONV: invalid padding, strides or filter");
  }
  size_t accs_at;
  if (!tc_scratch(p->kind, (size_t)out->dims[3], n, &accs_at, scratch)) {
    return ap_fail(c->err, AP_ERR_OVERFLOW, "TRANSPOSE_CONV: scratch size overflows");
  }
  p->begin[0] = pad.pad_h;
  p->begin[1] = pad.pad_w;
  p->stride[0] = o->stride_h;
  p->stride[1] = o->stride_w;
  p->count = bias != NULL;
  p->in_shape = ap_kshape_of(in);
  p->in2_shape = ap_kshape_of(filter);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

/* The scatter every type shares: ACC(out index, input index, filter index) for each pair. */
#define TC_SCATTER(ACC)                                                                            \
  for (int32_t b = 0; b < batches; b++) {                                                          \
    for (int32_t iy = 0; iy < ih; iy++) {                                                          \
      for (int32_t ix = 0; ix < iw; ix++) {                                                        \
        for (int32_t ci = 0; ci < ic; ci++) {                                                      \
          int64_t oy0 = (int64_t)iy * p->stride[0] - p->begin[0];                                  \
          int64_t ox0 = (int64_t)ix * p->stride[1] - p->begin[1];                                  \
          size_t xi = (((size_t)b * ih + iy) * iw + ix) * ic + ci;                                 \
          for (int32_t ky = 0; ky < fh; ky++) {                                                    \
            for (int32_t kx = 0; kx < fw; kx++) {                                                  \
              int64_t oy = oy0 + ky, ox = ox0 + kx;                                                \
              if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;                              \
              size_t yi = (((size_t)b * oh + (size_t)oy) * ow + (size_t)ox) * oc;                  \
              for (int32_t co = 0; co < oc; co++) {                                                \
                size_t wi = (((size_t)co * fh + ky) * fw + kx) * ic + ci;                          \
                ACC(yi + (size_t)co, xi, wi);                                                      \
              }                                                                                    \
            }                                                                                      \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    }                                                                                              \
  }

ap_status ap_kx_transpose_conv_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs < 3 || c->n_outputs < 1) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  const ap_ktensor *filter = c->inputs[1], *in = c->inputs[2];
  const ap_ktensor *bias = p->count && c->n_inputs > 3 ? c->inputs[3] : NULL;
  ap_ktensor *out = c->outputs[0];
  size_t n, accs_at, scratch_bytes;
  if (!filter || !in || !out || !filter->data || !in->data || !out->data ||
      (p->count && (!bias || !bias->data)) || !ap_kshape_is(in, &p->in_shape) ||
      !ap_kshape_is(filter, &p->in2_shape) || !ap_kshape_is(out, &p->out_shape) ||
      !ap_ktensor_count(out, &n) ||
      !tc_scratch(p->kind, (size_t)out->dims[3], n, &accs_at, &scratch_bytes) ||
      (scratch_bytes && !c->scratch)) {
    return AP_ERR_ARG;
  }
  int32_t batches = in->dims[0], ih = in->dims[1], iw = in->dims[2], ic = in->dims[3];
  int32_t fh = filter->dims[1], fw = filter->dims[2];
  int32_t oh = out->dims[1], ow = out->dims[2], oc = out->dims[3];
  if (p->kind == TC_FLOAT || p->kind == TC_FLOAT_CLAMP) {
    const float *x = in->data, *w = filter->data;
    float *y = out->data;
    memset(y, 0, n * sizeof *y);
#define TC_ACC_F(YI, XI, WI) y[YI] += x[XI] * w[WI]
    TC_SCATTER(TC_ACC_F)
#undef TC_ACC_F
    /* No bias: nothing is added (adding 0.0f would turn -0.0f into +0.0f). */
    if (bias) {
      const float *bv = bias->data;
      for (size_t i = 0; i < n; i++)
        y[i] += bv[i % (size_t)oc];
    }
    if (p->kind == TC_FLOAT_CLAMP) {
      for (size_t i = 0; i < n; i++)
        y[i] = ap_kq_clampf(y[i], p->fmin, p->fmax);
    }
    return AP_OK;
  }
  int32_t *mult = c->scratch, *shift = mult + oc;
  ap_kconv_channel_multipliers(in->scale, filter, out->scale, oc, mult, shift);
  const int8_t *w = filter->data;
  if (p->kind == TC_INT8) {
    const int8_t *x = in->data;
    uint32_t *acc = (uint32_t *)((char *)c->scratch + accs_at);
    memset(acc, 0, n * sizeof *acc);
    /* int32 sums wrap as TFLite's do; unsigned arithmetic keeps that defined. */
#define TC_ACC_8(YI, XI, WI) acc[YI] += (uint32_t)((x[XI] + p->q_offset[0]) * w[WI])
    TC_SCATTER(TC_ACC_8)
#undef TC_ACC_8
    const int32_t *bv = bias ? bias->data : NULL;
    int8_t *y = out->data;
    for (size_t i = 0; i < n; i++) {
      size_t co = i % (size_t)oc;
      int32_t a = (int32_t)(acc[i] + (bv ? (uint32_t)bv[co] : 0u));
      a = ap_kq_mul(a, mult[co], shift[co]);
      a = (int32_t)((uint32_t)a + (uint32_t)p->q_offset[2]);
      y[i] = (int8_t)ap_kq_clamp(a, p->imin, p->imax);
    }
    return AP_OK;
  }
  const int16_t *x = in->data;
  uint64_t *acc = (uint64_t *)((char *)c->scratch + accs_at);
  memset(acc, 0, n * sizeof *acc);
#define TC_ACC_16(YI, XI, WI) acc[YI] += (uint64_t)(int64_t)((int32_t)x[XI] * w[WI])
  TC_SCATTER(TC_ACC_16)
#undef TC_ACC_16
  int16_t *y = out->data;
  for (size_t i = 0; i < n; i++) {
    size_t co = i % (size_t)oc;
    uint64_t a = acc[i];
    if (bias && p->axis == AP_INT16) a += (uint64_t)(int64_t)((const int16_t *)bias->data)[co];
    if (bias && p->axis == AP_INT64) a += (uint64_t)ap_kload_i64(bias->data, co);
    int32_t r = ap_kq_mul64((int64_t)a, mult[co], shift[co]);
    y[i] = (int16_t)ap_kq_clamp(r, p->imin, p->imax);
  }
  return AP_OK;
}
