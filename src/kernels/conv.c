/* CONV_2D: reference_ops::Conv (float), reference_integer_ops::ConvPerChannel (int8, INT4
 * filters unpacked first, and 16x8 with an int64 or int32 accumulator), reference_ops::Conv
 * (uint8, TFLite), reference_ops::HybridConvPerChannel and TFLite's per-tensor hybrid path.
 * Parameters as TFLite Micro's conv_common.cc computes them. */
#include "kernels/kernels.h"
#include "kernels/kops_conv16.h"
#include "kernels/kops_stream.h"
#include "kernels/quant.h"

#include <string.h>

void ap_kconv_channel_multipliers(float input_scale, const ap_ktensor *filter, float output_scale,
                                  int32_t n, int32_t *multiplier, int32_t *shift) {
  for (int32_t c = 0; c < n; c++) {
    int s;
    float fs = ap_ktensor_channel_scale(filter, c);
    if (AP_KQ_SOFT_DOUBLE)
      ap_kq_multiplier_ratio(input_scale, fs, output_scale, &multiplier[c], &s);
    else
      ap_kq_multiplier((double)input_scale * (double)fs / (double)output_scale, &multiplier[c], &s);
    shift[c] = s;
  }
}

static bool scales_differ(const ap_ktensor *t) {
  if (!t->channel_scales) return false;
  for (int i = 1; i < t->n_channels; i++) {
    if (t->channel_scales[i] != t->channel_scales[0]) return true;
  }
  return false;
}

ap_status ap_kconv_window(const char *op, const ap_conv_options *o, const ap_ktensor *input,
                          const ap_ktensor *filter, ap_conv_params *p, ap_errbuf *err) {
  p->stride_w = o->stride_w;
  p->stride_h = o->stride_h;
  p->dilation_w = o->dilation_w > 0 ? o->dilation_w : 1;
  p->dilation_h = o->dilation_h > 0 ? o->dilation_h : 1;
  if (!ap_kcompute_padding(o->padding, input->dims[1], input->dims[2], filter->dims[1],
                           filter->dims[2], o->stride_h, o->stride_w, p->dilation_h, p->dilation_w,
                           &p->pad)) {
    return ap_fail(err, AP_ERR_FORMAT,
                   "%s: no output for input %dx%d, filter %dx%d, stride %dx%d, padding %d", op,
                   (int)input->dims[1], (int)input->dims[2], (int)filter->dims[1],
                   (int)filter->dims[2], (int)o->stride_h, (int)o->stride_w, o->padding);
  }
  return AP_OK;
}

void ap_kconv_output(const ap_ktensor *input, const ap_ktensor *filter, ap_ktensor *output,
                     int32_t out_channels, ap_conv_params *p) {
  output->rank = 4;
  output->dims[0] = input->dims[0];
  output->dims[1] = p->pad.out_h;
  output->dims[2] = p->pad.out_w;
  output->dims[3] = out_channels;
  p->in_shape = ap_kshape_of(input);
  p->in2_shape = ap_kshape_of(filter);
  p->out_shape = ap_kshape_of(output);
}

ap_status ap_kconv_setup(const char *op, int activation, const ap_ktensor *input,
                         const ap_ktensor *filter, const ap_ktensor *bias, const ap_ktensor *output,
                         int32_t out_channels, ap_conv_params *p, ap_errbuf *err) {
  int it = input->type, ft = filter->type, ot = output->type;
  int want_bias = AP_INT32;
  if (it == AP_FLOAT32 && ft == AP_FLOAT32 && ot == AP_FLOAT32) {
    p->kind = AP_KCONV_FLOAT;
    want_bias = AP_FLOAT32;
  } else if (it == AP_FLOAT32 && ft == AP_INT8 && ot == AP_FLOAT32) {
    p->kind = scales_differ(filter) ? AP_KCONV_HYBRID_PER_CHANNEL : AP_KCONV_HYBRID;
    want_bias = AP_FLOAT32;
  } else if (it == AP_INT8 && ft == AP_INT8 && ot == AP_INT8) {
    p->kind = AP_KCONV_INT8;
  } else if (it == AP_INT8 && ft == AP_INT4 && ot == AP_INT8) {
    p->kind = AP_KCONV_INT8_W4;
  } else if (it == AP_INT16 && ft == AP_INT8 && ot == AP_INT16) {
    /* TFLM's 16x8 kernels read an int64 bias, or an int32 one (int32 sums) where the op
     * allows it: the caller refuses the int32 case where TFLM does. */
    p->kind = AP_KCONV_INT16X8;
    want_bias = bias && bias->type == AP_INT32 ? AP_INT32 : AP_INT64;
    p->acc32 = want_bias == AP_INT32;
  } else if (it == AP_UINT8 && ft == AP_UINT8 && ot == AP_UINT8) {
    p->kind = AP_KCONV_UINT8;
  } else {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "%s: unsupported types input %s, filter %s, output %s",
                   op, ap_ktype_name(it), ap_ktype_name(ft), ap_ktype_name(ot));
  }
  if (bias && bias->type != want_bias) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "%s: bias is %s, expected %s", op,
                   ap_ktype_name(bias->type), ap_ktype_name(want_bias));
  }
  if (bias) {
    size_t n;
    if (!ap_ktensor_count(bias, &n) || n != (size_t)out_channels) {
      return ap_fail(err, AP_ERR_FORMAT, "%s: bias has %zu elements, expected %d", op,
                     ap_ktensor_count(bias, &n) ? n : (size_t)0, (int)out_channels);
    }
  }
  if (filter->channel_scales && filter->n_channels > 1 && filter->n_channels != out_channels) {
    return ap_fail(err, AP_ERR_FORMAT, "%s: filter has %d scales for %d output channels", op,
                   filter->n_channels, (int)out_channels);
  }
  p->out_channels = out_channels;
  if (p->kind == AP_KCONV_FLOAT || p->kind == AP_KCONV_HYBRID ||
      p->kind == AP_KCONV_HYBRID_PER_CHANNEL) {
    if (!ap_kq_act_range_float(activation, &p->fact_min, &p->fact_max)) {
      return ap_fail(err, AP_ERR_UNSUPPORTED, "%s: unsupported fused activation %d", op,
                     activation);
    }
    if (p->kind != AP_KCONV_FLOAT && !ap_khybrid_linked()) {
      return ap_fail(err, AP_ERR_UNSUPPORTED,
                     "%s: hybrid (float input, int8 weights) is not registered (AP_REGISTRY_TYPES)",
                     op);
    }
    if (p->kind != AP_KCONV_FLOAT && !ap_kq_channel_scales_ok(filter)) {
      return ap_fail(err, AP_ERR_FORMAT, "%s: hybrid filter has no positive scale", op);
    }
    return AP_OK;
  }
  if (!ap_kq_scale_ok(input->scale) || !ap_kq_scale_ok(output->scale) ||
      !ap_kq_channel_scales_ok(filter) || !ap_kq_zero_point_ok(input) ||
      !ap_kq_zero_point_ok(output) || !ap_kq_zero_point_ok(filter)) {
    return ap_fail(err, AP_ERR_FORMAT,
                   "%s: quantized tensors need positive scales and in-range zero points (input %g, "
                   "filter %g, output %g)",
                   op, (double)input->scale, (double)ap_ktensor_channel_scale(filter, 0),
                   (double)output->scale);
  }
  p->input_offset = -input->zero_point;
  p->output_offset = output->zero_point;
  p->input_scale = input->scale;
  p->output_scale = output->scale;
  if (p->kind == AP_KCONV_UINT8) {
    p->filter_offset = -filter->zero_point;
    /* GetQuantizedConvolutionMultipler: the scale product is taken in float. */
    float product = input->scale * filter->scale;
    if (AP_KQ_SOFT_DOUBLE)
      ap_kq_multiplier_ratio(product, 1.0f, output->scale, &p->output_multiplier, &p->output_shift);
    else
      ap_kq_multiplier((double)product / (double)output->scale, &p->output_multiplier,
                       &p->output_shift);
  }
  if (!ap_kq_act_range_quant(activation, ot, output->scale, output->zero_point, &p->act_min,
                             &p->act_max)) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "%s: unsupported fused activation %d", op, activation);
  }
  return AP_OK;
}

ap_status ap_kconv_check_mul64(const char *op, float input_scale, const ap_ktensor *filter,
                               float output_scale, int32_t n, ap_errbuf *err) {
  for (int32_t c = 0; c < n; c++) {
    float fs = ap_ktensor_channel_scale(filter, (int)c);
    int32_t m;
    int shift;
    if (AP_KQ_SOFT_DOUBLE)
      ap_kq_multiplier_ratio(input_scale, fs, output_scale, &m, &shift);
    else
      ap_kq_multiplier((double)input_scale * (double)fs / (double)output_scale, &m, &shift);
    if (shift > 7) {
      return ap_fail(err, AP_ERR_UNSUPPORTED,
                     "%s: channel %d rescales by %g, beyond the 64-bit requantization's 2^7", op,
                     (int)c, (double)input_scale * (double)fs / (double)output_scale);
    }
  }
  return AP_OK;
}

/* Scratch for the kinds that need it: per-channel multipliers (INT8, INT16X8; INT8_W4 then
 * the unpacked filter) or the quantized input with its per-batch factors (hybrid). */
static bool conv_scratch(ap_conv_params *p, const ap_ktensor *filter, size_t input_count,
                         int32_t batches, size_t *out) {
  size_t n = 0, t;
  if (p->kind == AP_KCONV_INT8 || p->kind == AP_KCONV_INT16X8 || p->kind == AP_KCONV_INT8_W4) {
    if (!ap_mul_size((size_t)p->out_channels, 2 * sizeof(int32_t), &n)) return false;
    if (p->kind == AP_KCONV_INT8_W4 && !ap_kint4_scratch(filter, n, &p->filter_offset_bytes, &n)) {
      return false;
    }
  } else if (p->kind == AP_KCONV_HYBRID || p->kind == AP_KCONV_HYBRID_PER_CHANNEL) {
    if (input_count > SIZE_MAX - AP_KSCRATCH_ALIGN) return false;
    n = ap_kscratch_round(input_count);
    if (!ap_mul_size((size_t)batches, sizeof(float) + sizeof(int32_t), &t) ||
        !ap_add_size(n, t, &n)) {
      return false;
    }
  }
  *out = n;
  return true;
}

ap_status ap_conv_prepare(const ap_conv_options *o, const ap_ktensor *input,
                          const ap_ktensor *filter, const ap_ktensor *bias, ap_ktensor *output,
                          ap_conv_params *p, ap_errbuf *err) {
  if (!o || !input || !filter || !output || !p) {
    return ap_fail(err, AP_ERR_ARG, "CONV_2D: NULL argument");
  }
  memset(p, 0, sizeof *p);
  if (input->rank != 4 || filter->rank != 4) {
    return ap_fail(err, AP_ERR_FORMAT, "CONV_2D: input and filter must be 4-D (got %d and %d)",
                   input->rank, filter->rank);
  }
  int32_t in_depth = input->dims[3], out_channels = filter->dims[0];
  int32_t filter_depth = filter->dims[3];
  if (filter_depth <= 0 || out_channels <= 0 || in_depth <= 0 || input->dims[0] <= 0 ||
      in_depth % filter_depth != 0 || out_channels % (in_depth / filter_depth) != 0) {
    return ap_fail(err, AP_ERR_FORMAT,
                   "CONV_2D: input depth %d does not match filter depth %d with %d filters",
                   (int)in_depth, (int)filter_depth, (int)out_channels);
  }
  ap_status s = ap_kconv_window("CONV_2D", o, input, filter, p, err);
  if (s != AP_OK) return s;
  s = ap_kconv_setup("CONV_2D", o->activation, input, filter, bias, output, out_channels, p, err);
  if (s != AP_OK) return s;
  if (p->kind == AP_KCONV_INT16X8) {
    /* Without a bias, the converter's quantized_bias_type says which sums TFLM uses. */
    if (!bias) p->acc32 = o->quantized_bias_type == AP_INT32;
    if (!p->acc32) {
      s = ap_kconv_check_mul64("CONV_2D", input->scale, filter, output->scale, out_channels, err);
      if (s != AP_OK) return s;
    }
  }
  ap_kconv_output(input, filter, output, out_channels, p);
  size_t in_count, out_count, f_count;
  if (!ap_ktensor_count(input, &in_count) || !ap_ktensor_count(output, &out_count) ||
      !ap_ktensor_count(filter, &f_count) ||
      !conv_scratch(p, filter, in_count, input->dims[0], &p->scratch_bytes)) {
    return ap_fail(err, AP_ERR_OVERFLOW, "CONV_2D: tensor sizes overflow");
  }
  return AP_OK;
}

/* Geometry shared by the loops. */
/* in_rows/out_rows: rows each tensor's buffer holds (a ring in a streamed segment: row y at
 * slot y % rows; the whole height otherwise); output rows [oy0, oy1) are computed. */
typedef struct geo {
  int32_t batches, in_h, in_w, in_d, out_h, out_w, out_d, f_h, f_w, f_d, per_group;
  int32_t in_rows, out_rows, oy0, oy1;
} geo;

static geo conv_geo(const ap_ktensor *in, const ap_ktensor *f, const ap_ktensor *out) {
  geo g = {
      in->dims[0], in->dims[1], in->dims[2], in->dims[3], out->dims[1], out->dims[2], out->dims[3],
      f->dims[1],  f->dims[2],  f->dims[3],  0,           in->dims[1],  out->dims[1], 0,
      out->dims[1]};
  g.per_group = g.out_d / (g.in_d / g.f_d);
  return g;
}

#define IN_AT(g, b, y, x, c) ((((size_t)(b) * (g).in_rows + (y)) * (g).in_w + (x)) * (g).in_d + (c))
#define F_AT(g, o, y, x, c) ((((size_t)(o) * (g).f_h + (y)) * (g).f_w + (x)) * (g).f_d + (c))
#define OUT_AT(g, b, y, x, c)                                                                      \
  ((((size_t)(b) * (g).out_rows + (y)) * (g).out_w + (x)) * (g).out_d + (c))

/* The slot of input row y (any y: rows outside the map are skipped by the callers). */
/* `ringed` is a constant in each copy of the loops: whole maps pay for no slot arithmetic. */
#define ROW_SLOT(g, y) (ringed ? ((y) >= 0 && (y) < (g).in_h ? RING_SLOT(y, (g).in_rows) : 0) : (y))
#define OUT_SLOT(g, y) (ringed ? RING_SLOT(y, (g).out_rows) : (y))
#define RINGED(g) ((g).in_rows != (g).in_h || (g).out_rows != (g).out_h)
/* Once per output row: its slot (soy) and its filter rows' input slots (the first
 * SLOT_CACHE; a taller filter computes the rest per tap), so a ring costs no division per
 * output element. */
#define SLOT_CACHE 16
#define ROW_SLOTS(g, oy)                                                                           \
  const int32_t soy = OUT_SLOT(g, oy);                                                             \
  int32_t row_slot[SLOT_CACHE];                                                                    \
  for (int32_t fy = 0; ringed && fy < (g).f_h && fy < SLOT_CACHE; fy++)                            \
  row_slot[fy] = ROW_SLOT(g, (oy)*p->stride_h - p->pad.pad_h + p->dilation_h * fy)
#define SLOT_OF(g, fy, iy) (ringed && (fy) < SLOT_CACHE ? row_slot[fy] : ROW_SLOT(g, iy))

static inline __attribute__((always_inline)) void conv_float(const ap_conv_params *p, geo g,
                                                             const float *in, const float *f,
                                                             const float *bias, float *out,
                                                             const bool ringed) {
  for (int32_t b = 0; b < g.batches; b++)
    for (int32_t oy = g.oy0; oy < g.oy1; oy++) {
      ROW_SLOTS(g, oy);
      for (int32_t ox = 0; ox < g.out_w; ox++)
        for (int32_t oc = 0; oc < g.out_d; oc++) {
          int32_t y0 = oy * p->stride_h - p->pad.pad_h, x0 = ox * p->stride_w - p->pad.pad_w;
          int32_t group_base = (oc / g.per_group) * g.f_d;
          float total = 0.0f;
          for (int32_t fy = 0; fy < g.f_h; fy++) {
            int32_t iy = y0 + p->dilation_h * fy, sy = SLOT_OF(g, fy, iy);
            for (int32_t fx = 0; fx < g.f_w; fx++) {
              int32_t ix = x0 + p->dilation_w * fx;
              if (ix < 0 || ix >= g.in_w || iy < 0 || iy >= g.in_h) continue;
              for (int32_t ic = 0; ic < g.f_d; ic++) {
                total += in[IN_AT(g, b, sy, ix, ic + group_base)] * f[F_AT(g, oc, fy, fx, ic)];
              }
            }
          }
          float bias_value = bias ? bias[oc] : 0.0f;
          out[OUT_AT(g, b, soy, ox, oc)] =
              ap_kq_clampf(total + bias_value, p->fact_min, p->fact_max);
        }
    }
}

/* The integer kinds share one loop: int8 per-channel (filter offset 0), uint8 per-tensor, and
 * the hybrids (input offset per batch, float rescale). */
#define CONV_INT_LOOP(IN_T, F_T, INPUT_OFFSET, FILTER_OFFSET, STORE)                               \
  if (RINGED(g)) {                                                                                 \
    const bool ringed = true;                                                                      \
    CONV_INT_LOOP1(IN_T, F_T, INPUT_OFFSET, FILTER_OFFSET, STORE)                                  \
  } else {                                                                                         \
    const bool ringed = false;                                                                     \
    CONV_INT_LOOP1(IN_T, F_T, INPUT_OFFSET, FILTER_OFFSET, STORE)                                  \
  }
#define CONV_INT_LOOP1(IN_T, F_T, INPUT_OFFSET, FILTER_OFFSET, STORE)                              \
  for (int32_t b = 0; b < g.batches; b++)                                                          \
    for (int32_t oy = g.oy0; oy < g.oy1; oy++) {                                                   \
      ROW_SLOTS(g, oy);                                                                            \
      for (int32_t ox = 0; ox < g.out_w; ox++)                                                     \
        for (int32_t oc = 0; oc < g.out_d; oc++) {                                                 \
          int32_t y0 = oy * p->stride_h - p->pad.pad_h, x0 = ox * p->stride_w - p->pad.pad_w;      \
          int32_t group_base = (oc / g.per_group) * g.f_d;                                         \
          int64_t acc64 = 0;                                                                       \
          for (int32_t fy = 0; fy < g.f_h; fy++) {                                                 \
            int32_t iy = y0 + p->dilation_h * fy, sy = SLOT_OF(g, fy, iy);                         \
            for (int32_t fx = 0; fx < g.f_w; fx++) {                                               \
              int32_t ix = x0 + p->dilation_w * fx;                                                \
              if (ix < 0 || ix >= g.in_w || iy < 0 || iy >= g.in_h) continue;                      \
              for (int32_t ic = 0; ic < g.f_d; ic++) {                                             \
                int32_t iv = ((const IN_T *)in)[IN_AT(g, b, sy, ix, ic + group_base)];             \
                int32_t fv = ((const F_T *)f)[F_AT(g, oc, fy, fx, ic)];                            \
                acc64 += (int64_t)(fv + (FILTER_OFFSET)) * (iv + (INPUT_OFFSET));                  \
              }                                                                                    \
            }                                                                                      \
          }                                                                                        \
          /* int32 accumulation as TFLite's, wrapping where it would */                            \
          int32_t acc = (int32_t)(uint32_t)(uint64_t)acc64;                                        \
          STORE;                                                                                   \
        }                                                                                          \
    }

static int32_t add_wrap(int32_t a, int32_t b) {
  return (int32_t)((uint32_t)a + (uint32_t)b);
}

bool ap_krows_fit(const ap_krows *rows, const ap_ktensor *input, const ap_ktensor *output) {
  if (!rows) return true;
  int32_t oh = output->dims[1];
  if (rows->r0 < 0 || rows->r1 < rows->r0 || rows->r1 > oh || rows->in_ring < 0 ||
      rows->out_ring < 0 || rows->in_ring > input->dims[1] || rows->out_ring > oh)
    return false;
  /* A ring holds rows of one image. */
  return (rows->in_ring == 0 && rows->out_ring == 0) || input->dims[0] == 1;
}

ap_status ap_conv_eval(const ap_conv_params *p, const ap_ktensor *input, const ap_ktensor *filter,
                       const ap_ktensor *bias, ap_ktensor *output, void *scratch) {
  return ap_conv_eval_rows(p, input, filter, bias, output, scratch, NULL);
}

ap_status ap_conv_eval_rows(const ap_conv_params *p, const ap_ktensor *input,
                            const ap_ktensor *filter, const ap_ktensor *bias, ap_ktensor *output,
                            void *scratch, const ap_krows *rows) {
  if (!p || !input || !filter || !output || !input->data || !filter->data || !output->data ||
      (bias && !bias->data) || (p->scratch_bytes && !scratch)) {
    return AP_ERR_ARG;
  }
  if (!ap_kshape_is(input, &p->in_shape) || !ap_kshape_is(filter, &p->in2_shape) ||
      !ap_kshape_is(output, &p->out_shape) || !ap_krows_fit(rows, input, output)) {
    return AP_ERR_ARG;
  }
  geo g = conv_geo(input, filter, output);
  if (rows) {
    /* The hybrids quantize the whole input first: they never run on rows. */
    if (p->kind == AP_KCONV_HYBRID || p->kind == AP_KCONV_HYBRID_PER_CHANNEL)
      return AP_ERR_UNSUPPORTED;
    g.oy0 = rows->r0;
    g.oy1 = rows->r1;
    if (rows->in_ring) g.in_rows = rows->in_ring;
    if (rows->out_ring) g.out_rows = rows->out_ring;
  }
  const void *in = input->data, *f = filter->data;
  switch (p->kind) {
  case AP_KCONV_FLOAT:
    if (RINGED(g))
      conv_float(p, g, in, f, bias ? bias->data : NULL, output->data, true);
    else
      conv_float(p, g, in, f, bias ? bias->data : NULL, output->data, false);
    return AP_OK;
  case AP_KCONV_INT8_W4: {
    /* TFLM unpacks the whole filter, then runs the int8 kernel over the copy. */
    int8_t *unpacked = (int8_t *)scratch + p->filter_offset_bytes;
    ap_kint4_unpack(filter->data, (size_t)g.out_d * g.f_h * g.f_w * g.f_d, unpacked);
    f = unpacked;
  }
    /* fallthrough */
  case AP_KCONV_INT8: {
    int32_t *mult = scratch, *shift = mult + g.out_d;
    ap_kconv_channel_multipliers(p->input_scale, filter, p->output_scale, g.out_d, mult, shift);
    const int32_t *bd = bias ? bias->data : NULL;
    int8_t *out = output->data;
    CONV_INT_LOOP(int8_t, int8_t, p->input_offset, 0, {
      if (bd) acc = add_wrap(acc, bd[oc]);
      acc = ap_kq_mul(acc, mult[oc], shift[oc]) + p->output_offset;
      out[OUT_AT(g, b, soy, ox, oc)] = (int8_t)ap_kq_clamp(acc, p->act_min, p->act_max);
    })
    return AP_OK;
  }
  case AP_KCONV_INT16X8: {
    int32_t *mult = scratch, *shift = mult + g.out_d;
    ap_kconv_channel_multipliers(p->input_scale, filter, p->output_scale, g.out_d, mult, shift);
    int16_t *out = output->data;
    if (p->acc32) {
      const int32_t *bd = bias ? bias->data : NULL;
      CONV_INT_LOOP(int16_t, int8_t, 0, 0, {
        if (bd) acc = add_wrap(acc, bd[oc]);
        acc = ap_kq_mul(acc, mult[oc], shift[oc]);
        out[OUT_AT(g, b, soy, ox, oc)] = (int16_t)ap_kq_clamp(acc, p->act_min, p->act_max);
      })
    } else {
      const void *bd = bias ? bias->data : NULL;
      CONV_INT_LOOP(int16_t, int8_t, 0, 0, {
        (void)acc;
        if (bd) acc64 = (int64_t)((uint64_t)acc64 + (uint64_t)ap_kload_i64(bd, (size_t)oc));
        int32_t r = ap_kq_mul64(acc64, mult[oc], shift[oc]);
        out[OUT_AT(g, b, soy, ox, oc)] = (int16_t)ap_kq_clamp(r, p->act_min, p->act_max);
      })
    }
    return AP_OK;
  }
  case AP_KCONV_UINT8: {
    const int32_t *bd = bias ? bias->data : NULL;
    uint8_t *out = output->data;
    CONV_INT_LOOP(uint8_t, uint8_t, p->input_offset, p->filter_offset, {
      if (bd) acc = add_wrap(acc, bd[oc]);
      acc = ap_kq_mul(acc, p->output_multiplier, p->output_shift) + p->output_offset;
      out[OUT_AT(g, b, soy, ox, oc)] = (uint8_t)ap_kq_clamp(acc, p->act_min, p->act_max);
    })
    return AP_OK;
  }
  case AP_KCONV_HYBRID:
  case AP_KCONV_HYBRID_PER_CHANNEL: {
    size_t count = (size_t)g.batches * g.in_h * g.in_w * g.in_d;
    size_t per_batch = count / (size_t)g.batches;
    int8_t *q = scratch;
    float *sf = (float *)((char *)scratch + ap_kscratch_round(count));
    int32_t *offset = (int32_t *)(sf + g.batches);
    const float *x = input->data;
    const float *bd = bias ? bias->data : NULL;
    float *out = output->data;
    in = q;
    if (p->kind == AP_KCONV_HYBRID_PER_CHANNEL) {
      for (int32_t b = 0; b < g.batches; b++) {
        ap_kquantize_asymmetric(x + b * per_batch, per_batch, q + b * per_batch, &sf[b],
                                &offset[b]);
      }
      CONV_INT_LOOP(int8_t, int8_t, -offset[b], 0, {
        float v = (float)acc * ap_ktensor_channel_scale(filter, oc) * sf[b];
        if (bd) v += bd[oc];
        out[OUT_AT(g, b, soy, ox, oc)] = ap_kq_clampf(v, p->fact_min, p->fact_max);
      })
    } else {
      /* EvalHybrid: symmetric input, the filter scale folded into the batch factor, the
       * product accumulated onto zero, then the bias. */
      float fscale = ap_ktensor_channel_scale(filter, 0);
      for (int32_t b = 0; b < g.batches; b++) {
        ap_kquantize_symmetric(x + b * per_batch, per_batch, q + b * per_batch, &sf[b]);
        sf[b] *= fscale;
      }
      CONV_INT_LOOP(int8_t, int8_t, 0, 0, {
        float v = 0.0f + (float)acc * sf[b];
        if (bd) v += bd[oc];
        out[OUT_AT(g, b, soy, ox, oc)] = ap_kq_clampf(v, p->fact_min, p->fact_max);
      })
    }
    return AP_OK;
  }
  default: return AP_ERR_ARG;
  }
}
