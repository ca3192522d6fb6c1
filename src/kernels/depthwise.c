/* DEPTHWISE_CONV_2D: reference_ops::DepthwiseConv (float; uint8 with the away-from-zero
 * rounding TFLite's reference uses, which is MultiplyByQuantizedMultiplier),
 * reference_integer_ops::DepthwiseConvPerChannel (int8, INT4 filters unpacked first; 16x8,
 * whose bias TFLM always reads as int64) and DepthwiseConvHybridPerChannel. */
#include "kernels/kernels.h"
#include "kernels/kops_conv16.h"
#include "kernels/kops_stream.h"
#include "kernels/quant.h"

#include <string.h>

ap_status ap_depthwise_prepare(const ap_conv_options *o, const ap_ktensor *input,
                               const ap_ktensor *filter, const ap_ktensor *bias, ap_ktensor *output,
                               ap_conv_params *p, ap_errbuf *err) {
  if (!o || !input || !filter || !output || !p) {
    return ap_fail(err, AP_ERR_ARG, "DEPTHWISE_CONV_2D: NULL argument");
  }
  memset(p, 0, sizeof *p);
  if (input->rank != 4 || filter->rank != 4) {
    return ap_fail(err, AP_ERR_FORMAT,
                   "DEPTHWISE_CONV_2D: input and filter must be 4-D (got %d and %d)", input->rank,
                   filter->rank);
  }
  int32_t in_depth = input->dims[3], out_channels = filter->dims[3];
  if (filter->dims[0] != 1 || in_depth <= 0 || out_channels <= 0 || input->dims[0] <= 0 ||
      out_channels % in_depth != 0) {
    return ap_fail(err, AP_ERR_FORMAT,
                   "DEPTHWISE_CONV_2D: filter [%d,..,%d] does not fit input depth %d",
                   (int)filter->dims[0], (int)out_channels, (int)in_depth);
  }
  /* TFLite derives the multiplier from the shapes (ComputeDepthMultiplier); an option that
   * disagrees is a malformed model. */
  p->depth_multiplier = out_channels / in_depth;
  if (o->depth_multiplier > 0 && o->depth_multiplier != p->depth_multiplier) {
    return ap_fail(err, AP_ERR_FORMAT,
                   "DEPTHWISE_CONV_2D: depth_multiplier %d, but filter has %d channels for %d "
                   "input channels",
                   (int)o->depth_multiplier, (int)out_channels, (int)in_depth);
  }
  ap_status s = ap_kconv_window("DEPTHWISE_CONV_2D", o, input, filter, p, err);
  if (s != AP_OK) return s;
  s = ap_kconv_setup("DEPTHWISE_CONV_2D", o->activation, input, filter, bias, output, out_channels,
                     p, err);
  if (s != AP_OK) return s;
  if (p->kind == AP_KCONV_INT16X8) {
    if (p->acc32) {
      return ap_fail(err, AP_ERR_UNSUPPORTED,
                     "DEPTHWISE_CONV_2D: bias is INT32, expected INT64 for 16x8");
    }
    s = ap_kconv_check_mul64("DEPTHWISE_CONV_2D", input->scale, filter, output->scale, out_channels,
                             err);
    if (s != AP_OK) return s;
  }
  ap_kconv_output(input, filter, output, out_channels, p);
  size_t in_count, out_count, t;
  if (!ap_ktensor_count(input, &in_count) || !ap_ktensor_count(output, &out_count)) {
    return ap_fail(err, AP_ERR_OVERFLOW, "DEPTHWISE_CONV_2D: tensor sizes overflow");
  }
  if (p->kind == AP_KCONV_INT8 || p->kind == AP_KCONV_INT16X8) {
    p->scratch_bytes = (size_t)out_channels * 2 * sizeof(int32_t);
  } else if (p->kind == AP_KCONV_INT8_W4) {
    if (!ap_kint4_scratch(filter, (size_t)out_channels * 2 * sizeof(int32_t),
                          &p->filter_offset_bytes, &p->scratch_bytes)) {
      return ap_fail(err, AP_ERR_OVERFLOW, "DEPTHWISE_CONV_2D: scratch size overflows");
    }
  } else if (p->kind == AP_KCONV_HYBRID || p->kind == AP_KCONV_HYBRID_PER_CHANNEL) {
    /* TFLite's hybrid depthwise is always the per-channel path (asymmetric input). */
    p->kind = AP_KCONV_HYBRID_PER_CHANNEL;
    if (in_count > SIZE_MAX / 2 ||
        !ap_mul_size((size_t)input->dims[0], sizeof(float) + sizeof(int32_t), &t) ||
        !ap_add_size(ap_kscratch_round(in_count), t, &p->scratch_bytes)) {
      return ap_fail(err, AP_ERR_OVERFLOW, "DEPTHWISE_CONV_2D: scratch size overflows");
    }
  }
  return AP_OK;
}

/* in_rows/out_rows: rows each buffer holds (a ring: row y at slot y % rows); output rows
 * [oy0, oy1) are computed (kops_stream.h). */
typedef struct geo {
  int32_t batches, in_h, in_w, in_d, out_h, out_w, out_d, f_h, f_w, mult;
  int32_t in_rows, out_rows, oy0, oy1;
} geo;

/* y: a row's slot in its buffer (row_slot below). */
#define IN_AT(g, b, y, x, c) ((((size_t)(b) * (g).in_rows + (y)) * (g).in_w + (x)) * (g).in_d + (c))
#define F_AT(g, y, x, c) (((size_t)(y) * (g).f_w + (x)) * (g).out_d + (c))
#define OUT_AT(g, b, y, x, c)                                                                      \
  ((((size_t)(b) * (g).out_rows + (y)) * (g).out_w + (x)) * (g).out_d + (c))

/* `ringed` (the input is a ring) is a constant in each copy of the loop: a whole input pays
 * for no slot arithmetic per tap; an output ring costs one slot per row. */
#define DW_LOOP(BODY_INIT, ACCUMULATE, STORE)                                                      \
  if (g.in_rows != g.in_h) {                                                                       \
    const bool ringed = true;                                                                      \
    DW_LOOP1(BODY_INIT, ACCUMULATE, STORE)                                                         \
  } else {                                                                                         \
    const bool ringed = false;                                                                     \
    DW_LOOP1(BODY_INIT, ACCUMULATE, STORE)                                                         \
  }
/* Taps outside the map add nothing: a filter row outside it is skipped whole (the sum's order
 * over the remaining taps is unchanged), and slots are computed once per row. */
#define DW_LOOP1(BODY_INIT, ACCUMULATE, STORE)                                                     \
  for (int32_t b = 0; b < g.batches; b++)                                                          \
    for (int32_t oy = g.oy0; oy < g.oy1; oy++) {                                                   \
      const int32_t soy = RING_SLOT(oy, g.out_rows);                                               \
      for (int32_t ox = 0; ox < g.out_w; ox++)                                                     \
        for (int32_t ic = 0; ic < g.in_d; ic++)                                                    \
          for (int32_t m = 0; m < g.mult; m++) {                                                   \
            int32_t oc = m + ic * g.mult;                                                          \
            int32_t y0 = oy * p->stride_h - p->pad.pad_h;                                          \
            int32_t x0 = ox * p->stride_w - p->pad.pad_w;                                          \
            BODY_INIT;                                                                             \
            for (int32_t fy = 0; fy < g.f_h; fy++) {                                               \
              int32_t iy = y0 + p->dilation_h * fy;                                                \
              if (iy < 0 || iy >= g.in_h) continue;                                                \
              const int32_t sy = ringed ? RING_SLOT(iy, g.in_rows) : iy;                           \
              for (int32_t fx = 0; fx < g.f_w; fx++) {                                             \
                int32_t ix = x0 + p->dilation_w * fx;                                              \
                if (ix < 0 || ix >= g.in_w) continue;                                              \
                size_t ii = IN_AT(g, b, sy, ix, ic), fi = F_AT(g, fy, fx, oc);                     \
                ACCUMULATE;                                                                        \
              }                                                                                    \
            }                                                                                      \
            STORE;                                                                                 \
          }                                                                                        \
    }

static int32_t wrap32(int64_t v) {
  return (int32_t)(uint32_t)(uint64_t)v;
}

ap_status ap_depthwise_eval(const ap_conv_params *p, const ap_ktensor *input,
                            const ap_ktensor *filter, const ap_ktensor *bias, ap_ktensor *output,
                            void *scratch) {
  return ap_depthwise_eval_rows(p, input, filter, bias, output, scratch, NULL);
}

ap_status ap_depthwise_eval_rows(const ap_conv_params *p, const ap_ktensor *input,
                                 const ap_ktensor *filter, const ap_ktensor *bias,
                                 ap_ktensor *output, void *scratch, const ap_krows *rows) {
  if (!p || !input || !filter || !output || !input->data || !filter->data || !output->data ||
      (bias && !bias->data) || (p->scratch_bytes && !scratch)) {
    return AP_ERR_ARG;
  }
  if (!ap_kshape_is(input, &p->in_shape) || !ap_kshape_is(filter, &p->in2_shape) ||
      !ap_kshape_is(output, &p->out_shape) || !ap_krows_fit(rows, input, output)) {
    return AP_ERR_ARG;
  }
  geo g = {input->dims[0],
           input->dims[1],
           input->dims[2],
           input->dims[3],
           output->dims[1],
           output->dims[2],
           output->dims[3],
           filter->dims[1],
           filter->dims[2],
           p->depth_multiplier,
           input->dims[1],
           output->dims[1],
           0,
           output->dims[1]};
  if (rows) {
    /* The hybrid quantizes the whole input first: it never runs on rows. */
    if (p->kind == AP_KCONV_HYBRID_PER_CHANNEL) return AP_ERR_UNSUPPORTED;
    g.oy0 = rows->r0;
    g.oy1 = rows->r1;
    if (rows->in_ring) g.in_rows = rows->in_ring;
    if (rows->out_ring) g.out_rows = rows->out_ring;
  }
  switch (p->kind) {
  case AP_KCONV_FLOAT: {
    const float *in = input->data, *f = filter->data, *bd = bias ? bias->data : NULL;
    float *out = output->data;
    DW_LOOP(float total = 0.0f, total += in[ii] * f[fi], {
      float bias_value = bd ? bd[oc] : 0.0f;
      out[OUT_AT(g, b, soy, ox, oc)] = ap_kq_clampf(total + bias_value, p->fact_min, p->fact_max);
    })
    return AP_OK;
  }
  case AP_KCONV_INT8:
  case AP_KCONV_INT8_W4: {
    int32_t *mult = scratch, *shift = mult + g.out_d;
    ap_kconv_channel_multipliers(p->input_scale, filter, p->output_scale, g.out_d, mult, shift);
    const int8_t *in = input->data, *f = filter->data;
    if (p->kind == AP_KCONV_INT8_W4) {
      /* TFLM unpacks the whole filter, then runs the int8 kernel over the copy. */
      int8_t *unpacked = (int8_t *)scratch + p->filter_offset_bytes;
      ap_kint4_unpack(filter->data, (size_t)g.f_h * g.f_w * g.out_d, unpacked);
      f = unpacked;
    }
    const int32_t *bd = bias ? bias->data : NULL;
    int8_t *out = output->data;
    DW_LOOP(int64_t acc = 0, acc += (int64_t)f[fi] * (in[ii] + p->input_offset), {
      int32_t a = wrap32(acc);
      if (bd) a = wrap32((int64_t)a + bd[oc]);
      a = ap_kq_mul(a, mult[oc], shift[oc]) + p->output_offset;
      out[OUT_AT(g, b, soy, ox, oc)] = (int8_t)ap_kq_clamp(a, p->act_min, p->act_max);
    })
    return AP_OK;
  }
  case AP_KCONV_INT16X8: {
    int32_t *mult = scratch, *shift = mult + g.out_d;
    ap_kconv_channel_multipliers(p->input_scale, filter, p->output_scale, g.out_d, mult, shift);
    const int16_t *in = input->data;
    const int8_t *f = filter->data;
    const void *bd = bias ? bias->data : NULL;
    int16_t *out = output->data;
    DW_LOOP(int64_t acc = 0, acc += (int64_t)f[fi] * in[ii], {
      if (bd) acc = (int64_t)((uint64_t)acc + (uint64_t)ap_kload_i64(bd, (size_t)oc));
      int32_t r = ap_kq_mul64(acc, mult[oc], shift[oc]);
      out[OUT_AT(g, b, soy, ox, oc)] = (int16_t)ap_kq_clamp(r, p->act_min, p->act_max);
    })
    return AP_OK;
  }
  case AP_KCONV_UINT8: {
    const uint8_t *in = input->data, *f = filter->data;
    const int32_t *bd = bias ? bias->data : NULL;
    uint8_t *out = output->data;
    DW_LOOP(int64_t acc = 0,
            acc += (int64_t)(f[fi] + p->filter_offset) * (in[ii] + p->input_offset), {
              int32_t a = wrap32(acc);
              if (bd) a = wrap32((int64_t)a + bd[oc]);
              a = ap_kq_mul(a, p->output_multiplier, p->output_shift) + p->output_offset;
              out[OUT_AT(g, b, soy, ox, oc)] = (uint8_t)ap_kq_clamp(a, p->act_min, p->act_max);
            })
    return AP_OK;
  }
  case AP_KCONV_HYBRID_PER_CHANNEL: {
    size_t count = (size_t)g.batches * g.in_h * g.in_w * g.in_d;
    size_t per_batch = count / (size_t)g.batches;
    int8_t *q = scratch;
    float *sf = (float *)((char *)scratch + ap_kscratch_round(count));
    int32_t *offset = (int32_t *)(sf + g.batches);
    const float *x = input->data, *bd = bias ? bias->data : NULL;
    const int8_t *f = filter->data;
    float *out = output->data;
    for (int32_t b = 0; b < g.batches; b++) {
      ap_kquantize_asymmetric(x + b * per_batch, per_batch, q + b * per_batch, &sf[b], &offset[b]);
    }
    DW_LOOP(int64_t acc = 0, acc += (int64_t)f[fi] * (q[ii] - offset[b]), {
      float v = (float)wrap32(acc);
      v *= ap_ktensor_channel_scale(filter, oc) * sf[b];
      if (bd) v += bd[oc];
      out[OUT_AT(g, b, soy, ox, oc)] = ap_kq_clampf(v, p->fact_min, p->fact_max);
    })
    return AP_OK;
  }
  default: return AP_ERR_ARG;
  }
}
