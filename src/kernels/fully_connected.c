/* FULLY_CONNECTED: reference_ops::FullyConnected (float, uint8),
 * reference_integer_ops::FullyConnected / FullyConnectedPerChannel (int8; INT4 weights unpacked
 * first, per-tensor only as in TFLM; 16x8 with int64 or int32 sums; TFLite Micro's
 * fully_connected_common.cc parameters) and TFLite's EvalHybrid. */
#include "kernels/kernels.h"
#include "kernels/kops_conv16.h"
#include "kernels/quant.h"

#include <string.h>

static bool per_channel(const ap_ktensor *t) {
  return t->channel_scales && t->n_channels > 1;
}

static ap_status fc_prepare(const ap_fc_options *o, const ap_ktensor *input,
                            const ap_ktensor *filter, const ap_ktensor *bias, ap_ktensor *output,
                            ap_fc_params *p, ap_errbuf *err) {
  if (!o || !input || !filter || !output || !p) {
    return ap_fail(err, AP_ERR_ARG, "FULLY_CONNECTED: NULL argument");
  }
  memset(p, 0, sizeof *p);
  if (filter->rank != 2 || filter->dims[0] <= 0 || filter->dims[1] <= 0) {
    return ap_fail(err, AP_ERR_FORMAT, "FULLY_CONNECTED: filter must be 2-D and non-empty");
  }
  p->units = filter->dims[0];
  p->accum_depth = filter->dims[1];
  size_t in_count;
  if (!ap_ktensor_count(input, &in_count) || input->rank < 1) {
    return ap_fail(err, AP_ERR_FORMAT, "FULLY_CONNECTED: bad input shape");
  }
  if (in_count % (size_t)p->accum_depth != 0 || in_count / p->accum_depth > INT32_MAX ||
      in_count == 0) {
    return ap_fail(err, AP_ERR_FORMAT,
                   "FULLY_CONNECTED: input has %zu elements, not a multiple of depth %d", in_count,
                   (int)p->accum_depth);
  }
  p->batches = (int32_t)(in_count / (size_t)p->accum_depth);
  if (o->keep_num_dims) {
    if (input->dims[input->rank - 1] != p->accum_depth) {
      return ap_fail(err, AP_ERR_FORMAT,
                     "FULLY_CONNECTED: keep_num_dims needs input depth %d, got %d",
                     (int)p->accum_depth, (int)input->dims[input->rank - 1]);
    }
    output->rank = input->rank;
    memcpy(output->dims, input->dims, sizeof output->dims);
    output->dims[input->rank - 1] = p->units;
  } else {
    output->rank = 2;
    output->dims[0] = p->batches;
    output->dims[1] = p->units;
  }
  size_t out_count;
  if (!ap_ktensor_count(output, &out_count)) {
    return ap_fail(err, AP_ERR_OVERFLOW, "FULLY_CONNECTED: output size overflows");
  }
  int it = input->type, ft = filter->type, ot = output->type;
  int want_bias = AP_INT32;
  if (it == AP_FLOAT32 && ft == AP_FLOAT32 && ot == AP_FLOAT32) {
    p->kind = AP_KFC_FLOAT;
    want_bias = AP_FLOAT32;
  } else if (it == AP_FLOAT32 && ft == AP_INT8 && ot == AP_FLOAT32) {
    p->kind = AP_KFC_HYBRID;
    want_bias = AP_FLOAT32;
  } else if (it == AP_INT8 && ft == AP_INT8 && ot == AP_INT8) {
    p->kind = per_channel(filter) ? AP_KFC_INT8_PER_CHANNEL : AP_KFC_INT8;
  } else if (it == AP_INT8 && ft == AP_INT4 && ot == AP_INT8) {
    if (per_channel(filter)) {
      return ap_fail(err, AP_ERR_UNSUPPORTED,
                     "FULLY_CONNECTED: INT4 weights with per-channel scales (TFLM takes one)");
    }
    p->kind = AP_KFC_INT8_W4;
  } else if (it == AP_INT16 && ft == AP_INT8 && ot == AP_INT16) {
    p->kind = per_channel(filter) ? AP_KFC_INT16_PER_CHANNEL : AP_KFC_INT16;
    /* TFLM's BiasType: the bias's, or without one the converter's quantized_bias_type. */
    p->acc32 = bias ? bias->type == AP_INT32 : o->quantized_bias_type == AP_INT32;
    want_bias = p->acc32 ? AP_INT32 : AP_INT64;
  } else if (it == AP_UINT8 && ft == AP_UINT8 && ot == AP_UINT8) {
    p->kind = AP_KFC_UINT8;
  } else {
    return ap_fail(err, AP_ERR_UNSUPPORTED,
                   "FULLY_CONNECTED: unsupported types input %s, filter %s, output %s",
                   ap_ktype_name(it), ap_ktype_name(ft), ap_ktype_name(ot));
  }
  if (bias) {
    size_t n;
    if (bias->type != want_bias) {
      return ap_fail(err, AP_ERR_UNSUPPORTED, "FULLY_CONNECTED: bias is %s, expected %s",
                     ap_ktype_name(bias->type), ap_ktype_name(want_bias));
    }
    if (!ap_ktensor_count(bias, &n) || n != (size_t)p->units) {
      return ap_fail(err, AP_ERR_FORMAT, "FULLY_CONNECTED: bias does not have %d elements",
                     (int)p->units);
    }
  }
  if (per_channel(filter) && filter->n_channels != p->units) {
    return ap_fail(err, AP_ERR_FORMAT, "FULLY_CONNECTED: filter has %d scales for %d units",
                   filter->n_channels, (int)p->units);
  }
  if (p->kind == AP_KFC_FLOAT || p->kind == AP_KFC_HYBRID) {
    if (!ap_kq_act_range_float(o->activation, &p->fact_min, &p->fact_max)) {
      return ap_fail(err, AP_ERR_UNSUPPORTED, "FULLY_CONNECTED: unsupported fused activation %d",
                     o->activation);
    }
    if (p->kind == AP_KFC_HYBRID) {
      if (!ap_khybrid_linked()) {
        return ap_fail(err, AP_ERR_UNSUPPORTED,
                       "FULLY_CONNECTED: hybrid (float input, int8 weights) is not registered "
                       "(AP_REGISTRY_TYPES)");
      }
      if (!ap_kq_channel_scales_ok(filter)) {
        return ap_fail(err, AP_ERR_FORMAT, "FULLY_CONNECTED: hybrid filter has no scale");
      }
      p->asymmetric = o->asymmetric_quantize_inputs;
      size_t t;
      if (in_count > SIZE_MAX / 2 ||
          !ap_mul_size((size_t)p->batches, sizeof(float) + sizeof(int32_t), &t) ||
          !ap_add_size(ap_kscratch_round(in_count), t, &p->scratch_bytes)) {
        return ap_fail(err, AP_ERR_OVERFLOW, "FULLY_CONNECTED: scratch size overflows");
      }
    }
    return AP_OK;
  }
  if (!ap_kq_scale_ok(input->scale) || !ap_kq_scale_ok(output->scale) ||
      !ap_kq_channel_scales_ok(filter) || !ap_kq_zero_point_ok(input) ||
      !ap_kq_zero_point_ok(output) || !ap_kq_zero_point_ok(filter)) {
    return ap_fail(
        err, AP_ERR_FORMAT,
        "FULLY_CONNECTED: quantized tensors need positive scales and in-range zero points");
  }
  p->input_offset = -input->zero_point;
  p->filter_offset = -filter->zero_point;
  p->output_offset = output->zero_point;
  p->input_scale = input->scale;
  p->output_scale = output->scale;
  if (p->kind == AP_KFC_INT8_PER_CHANNEL || p->kind == AP_KFC_INT16_PER_CHANNEL) {
    p->scratch_bytes = (size_t)p->units * 2 * sizeof(int32_t);
  } else {
    /* The scale product is taken in float (TFLite Micro's), then divided in double. */
    float product = input->scale * ap_ktensor_channel_scale(filter, 0);
    if (AP_KQ_SOFT_DOUBLE)
      ap_kq_multiplier_ratio(product, 1.0f, output->scale, &p->output_multiplier, &p->output_shift);
    else
      ap_kq_multiplier((double)product / (double)output->scale, &p->output_multiplier,
                       &p->output_shift);
  }
  if (p->kind == AP_KFC_INT8_W4 &&
      !ap_kint4_scratch(filter, 0, &p->filter_offset_bytes, &p->scratch_bytes)) {
    return ap_fail(err, AP_ERR_OVERFLOW, "FULLY_CONNECTED: scratch size overflows");
  }
  if ((p->kind == AP_KFC_INT16 || p->kind == AP_KFC_INT16_PER_CHANNEL) && !p->acc32) {
    if (p->kind == AP_KFC_INT16 && p->output_shift > 7) {
      return ap_fail(err, AP_ERR_UNSUPPORTED,
                     "FULLY_CONNECTED: rescale by 2^%d is beyond the 64-bit requantization's 2^7",
                     p->output_shift);
    }
    if (p->kind == AP_KFC_INT16_PER_CHANNEL) {
      ap_status s = ap_kconv_check_mul64("FULLY_CONNECTED", input->scale, filter, output->scale,
                                         p->units, err);
      if (s != AP_OK) return s;
    }
  }
  if (!ap_kq_act_range_quant(o->activation, ot, output->scale, output->zero_point, &p->act_min,
                             &p->act_max)) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "FULLY_CONNECTED: unsupported fused activation %d",
                   o->activation);
  }
  return AP_OK;
}

ap_status ap_fc_prepare(const ap_fc_options *o, const ap_ktensor *input, const ap_ktensor *filter,
                        const ap_ktensor *bias, ap_ktensor *output, ap_fc_params *p,
                        ap_errbuf *err) {
  ap_status s = fc_prepare(o, input, filter, bias, output, p, err);
  if (s == AP_OK) {
    p->in_shape = ap_kshape_of(input);
    p->in2_shape = ap_kshape_of(filter);
    p->out_shape = ap_kshape_of(output);
  }
  return s;
}

static int32_t wrap32(int64_t v) {
  return (int32_t)(uint32_t)(uint64_t)v;
}

/* Sums in int64 (the 16x8 kinds' accumulator); FILTER_OFFSET is 0 where TFLM's per-channel
 * kernels leave it out. ACC32 wraps them to TFLM's int32 accumulator and adds an int32 bias;
 * otherwise STORE adds the bias itself. */
#define FC_INT_LOOP_SUM(IN_T, F_T, FILTER_OFFSET, ACC32, STORE)                                    \
  for (int32_t b = 0; b < p->batches; b++)                                                         \
    for (int32_t u = 0; u < p->units; u++) {                                                       \
      const IN_T *xr = (const IN_T *)input->data + (size_t)b * p->accum_depth;                     \
      const F_T *wr = (const F_T *)wdata + (size_t)u * p->accum_depth;                             \
      int64_t acc64 = 0;                                                                           \
      for (int32_t d = 0; d < p->accum_depth; d++) {                                               \
        acc64 += (int64_t)(wr[d] + (FILTER_OFFSET)) * (xr[d] + p->input_offset);                   \
      }                                                                                            \
      int32_t acc = 0;                                                                             \
      if (ACC32) {                                                                                 \
        acc = wrap32(acc64);                                                                       \
        if (bd) acc = wrap32((int64_t)acc + ((const int32_t *)bd)[u]);                             \
      }                                                                                            \
      STORE;                                                                                       \
    }
#define FC_INT_LOOP(IN_T, F_T, STORE) FC_INT_LOOP_SUM(IN_T, F_T, p->filter_offset, true, STORE)

static void fc_hybrid(const ap_fc_params *p, const ap_ktensor *input, const ap_ktensor *filter,
                      const float *bd, float *out, void *scratch) {
  const float *x = input->data;
  const int8_t *w = filter->data;
  size_t count = (size_t)p->batches * p->accum_depth;
  for (size_t i = 0; i < (size_t)p->batches * p->units; i++)
    out[i] = bd ? bd[i % p->units] : 0.0f;
  bool all_zero = true;
  for (size_t i = 0; i < count && all_zero; i++)
    all_zero = x[i] == 0.0f;
  if (!all_zero) {
    int8_t *q = scratch;
    float *sf = (float *)((char *)scratch + ap_kscratch_round(count));
    int32_t *offset = (int32_t *)(sf + p->batches);
    bool pc = per_channel(filter);
    for (int32_t b = 0; b < p->batches; b++) {
      size_t o = (size_t)b * p->accum_depth;
      if (p->asymmetric) {
        ap_kquantize_asymmetric(x + o, p->accum_depth, q + o, &sf[b], &offset[b]);
      } else {
        ap_kquantize_symmetric(x + o, p->accum_depth, q + o, &sf[b]);
        offset[b] = 0;
      }
      if (!pc) sf[b] *= ap_ktensor_channel_scale(filter, 0);
    }
    for (int32_t b = 0; b < p->batches; b++) {
      const int8_t *qr = q + (size_t)b * p->accum_depth;
      for (int32_t u = 0; u < p->units; u++) {
        const int8_t *wr = w + (size_t)u * p->accum_depth;
        int64_t dot = 0;
        for (int32_t d = 0; d < p->accum_depth; d++)
          dot += (int64_t)wr[d] * (qr[d] - offset[b]);
        float scale = sf[b];
        if (pc) scale *= filter->channel_scales[u];
        out[(size_t)b * p->units + u] += (float)wrap32(dot) * scale;
      }
    }
  }
  for (size_t i = 0; i < (size_t)p->batches * p->units; i++) {
    out[i] = ap_kq_clampf(out[i], p->fact_min, p->fact_max);
  }
}

ap_status ap_fc_eval(const ap_fc_params *p, const ap_ktensor *input, const ap_ktensor *filter,
                     const ap_ktensor *bias, ap_ktensor *output, void *scratch) {
  if (!p || !input || !filter || !output || !input->data || !filter->data || !output->data ||
      (bias && !bias->data) || (p->scratch_bytes && !scratch)) {
    return AP_ERR_ARG;
  }
  if (!ap_kshape_is(input, &p->in_shape) || !ap_kshape_is(filter, &p->in2_shape) ||
      !ap_kshape_is(output, &p->out_shape)) {
    return AP_ERR_ARG;
  }
  const void *wdata = filter->data;
  switch (p->kind) {
  case AP_KFC_FLOAT: {
    const float *bd = bias ? bias->data : NULL;
    float *out = output->data;
    for (int32_t b = 0; b < p->batches; b++)
      for (int32_t u = 0; u < p->units; u++) {
        const float *xr = (const float *)input->data + (size_t)b * p->accum_depth;
        const float *wr = (const float *)filter->data + (size_t)u * p->accum_depth;
        float total = 0.0f;
        for (int32_t d = 0; d < p->accum_depth; d++)
          total += xr[d] * wr[d];
        float bias_value = bd ? bd[u] : 0.0f;
        out[(size_t)b * p->units + u] = ap_kq_clampf(total + bias_value, p->fact_min, p->fact_max);
      }
    return AP_OK;
  }
  case AP_KFC_INT8_W4: {
    /* TFLM unpacks the weights, then runs its per-tensor int8 kernel over the copy. */
    int8_t *unpacked = (int8_t *)scratch + p->filter_offset_bytes;
    ap_kint4_unpack(filter->data, (size_t)p->units * p->accum_depth, unpacked);
    wdata = unpacked;
  }
    /* fallthrough */
  case AP_KFC_INT8: {
    const int32_t *bd = bias ? bias->data : NULL;
    int8_t *out = output->data;
    FC_INT_LOOP(int8_t, int8_t, {
      acc = ap_kq_mul(acc, p->output_multiplier, p->output_shift) + p->output_offset;
      out[(size_t)b * p->units + u] = (int8_t)ap_kq_clamp(acc, p->act_min, p->act_max);
    })
    return AP_OK;
  }
  case AP_KFC_INT8_PER_CHANNEL: {
    int32_t *mult = scratch, *shift = mult + p->units;
    ap_kconv_channel_multipliers(p->input_scale, filter, p->output_scale, p->units, mult, shift);
    const int32_t *bd = bias ? bias->data : NULL;
    int8_t *out = output->data;
    FC_INT_LOOP(int8_t, int8_t, {
      acc = ap_kq_mul(acc, mult[u], shift[u]) + p->output_offset;
      out[(size_t)b * p->units + u] = (int8_t)ap_kq_clamp(acc, p->act_min, p->act_max);
    })
    return AP_OK;
  }
  case AP_KFC_INT16:
  case AP_KFC_INT16_PER_CHANNEL: {
    bool pc = p->kind == AP_KFC_INT16_PER_CHANNEL;
    int32_t *mult = scratch, *shift = mult + p->units;
    if (pc) {
      ap_kconv_channel_multipliers(p->input_scale, filter, p->output_scale, p->units, mult, shift);
    }
    const void *bd = bias ? bias->data : NULL;
    int16_t *out = output->data;
    FC_INT_LOOP_SUM(int16_t, int8_t, pc ? 0 : p->filter_offset, p->acc32, {
      int32_t m = pc ? mult[u] : p->output_multiplier;
      int sh = pc ? (int)shift[u] : p->output_shift;
      if (p->acc32) {
        acc = ap_kq_mul(acc, m, sh);
      } else {
        if (bd) acc64 = (int64_t)((uint64_t)acc64 + (uint64_t)ap_kload_i64(bd, (size_t)u));
        acc = ap_kq_mul64(acc64, m, sh);
      }
      acc = (int32_t)((uint32_t)acc + (uint32_t)p->output_offset);
      out[(size_t)b * p->units + u] = (int16_t)ap_kq_clamp(acc, p->act_min, p->act_max);
    })
    return AP_OK;
  }
  case AP_KFC_UINT8: {
    const int32_t *bd = bias ? bias->data : NULL;
    uint8_t *out = output->data;
    FC_INT_LOOP(uint8_t, uint8_t, {
      acc = ap_kq_mul(acc, p->output_multiplier, p->output_shift) + p->output_offset;
      out[(size_t)b * p->units + u] = (uint8_t)ap_kq_clamp(acc, p->act_min, p->act_max);
    })
    return AP_OK;
  }
  case AP_KFC_HYBRID:
    fc_hybrid(p, input, filter, bias ? bias->data : NULL, output->data, scratch);
    return AP_OK;
  default: return AP_ERR_ARG;
  }
}
