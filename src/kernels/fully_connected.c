/* FULLY_CONNECTED: reference_ops::FullyConnected (float, uint8),
 * reference_integer_ops::FullyConnected / FullyConnectedPerChannel (int8, TFLite Micro's
 * fully_connected_common.cc parameters) and TFLite's EvalHybrid. */
#include "kernels/kernels.h"
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
  if (p->kind == AP_KFC_INT8_PER_CHANNEL) {
    p->scratch_bytes = (size_t)p->units * 2 * sizeof(int32_t);
  } else {
    double product = (double)(input->scale * ap_ktensor_channel_scale(filter, 0));
    ap_kq_multiplier(product / (double)output->scale, &p->output_multiplier, &p->output_shift);
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

#define FC_INT_LOOP(IN_T, F_T, STORE)                                                              \
  for (int32_t b = 0; b < p->batches; b++)                                                         \
    for (int32_t u = 0; u < p->units; u++) {                                                       \
      const IN_T *xr = (const IN_T *)input->data + (size_t)b * p->accum_depth;                     \
      const F_T *wr = (const F_T *)filter->data + (size_t)u * p->accum_depth;                      \
      int64_t acc64 = 0;                                                                           \
      for (int32_t d = 0; d < p->accum_depth; d++) {                                               \
        acc64 += (int64_t)(wr[d] + p->filter_offset) * (xr[d] + p->input_offset);                  \
      }                                                                                            \
      int32_t acc = wrap32(acc64);                                                                 \
      if (bd) acc = wrap32((int64_t)acc + bd[u]);                                                  \
      STORE;                                                                                       \
    }

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
