/* AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D: reference_ops / reference_integer_ops pooling.
 * Windows are clipped to the image (padding is never averaged in). L2_POOL_2D (float32 only in
 * TFLite) is sqrtf of the float sum of squares over the float count; an empty window gives
 * sqrtf(0 / 0), NaN, as TFLite's does. */
#include "kernels/kops_mathlogic.h"
#include "kernels/kops_stream.h"
#include "kernels/quant.h"

#include <float.h>
#include <math.h>
#include <string.h>

static ap_status pool_prepare(int kind, const ap_pool_options *o, const ap_ktensor *input,
                              ap_ktensor *output, ap_pool_params *p, ap_errbuf *err) {
  const char *op = kind == AP_KPOOL_MAX  ? "MAX_POOL_2D"
                   : kind == AP_KPOOL_L2 ? "L2_POOL_2D"
                                         : "AVERAGE_POOL_2D";
  if (!o || !input || !output || !p ||
      (kind != AP_KPOOL_AVERAGE && kind != AP_KPOOL_MAX && kind != AP_KPOOL_L2)) {
    return ap_fail(err, AP_ERR_ARG, "pooling: bad argument");
  }
  memset(p, 0, sizeof *p);
  p->kind = kind;
  if (input->rank != 4 || input->dims[0] <= 0 || input->dims[3] <= 0) {
    return ap_fail(err, AP_ERR_FORMAT, "%s: input must be 4-D and non-empty", op);
  }
  if (input->type != output->type ||
      (input->type != AP_FLOAT32 &&
       (kind == AP_KPOOL_L2 ||
        (input->type != AP_INT8 && input->type != AP_UINT8 && input->type != AP_INT16)))) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "%s: unsupported types %s -> %s", op,
                   ap_ktype_name(input->type), ap_ktype_name(output->type));
  }
  p->stride_w = o->stride_w;
  p->stride_h = o->stride_h;
  p->filter_w = o->filter_w;
  p->filter_h = o->filter_h;
  if (!ap_kcompute_padding(o->padding, input->dims[1], input->dims[2], o->filter_h, o->filter_w,
                           o->stride_h, o->stride_w, 1, 1, &p->pad)) {
    return ap_fail(err, AP_ERR_FORMAT,
                   "%s: no output for input %dx%d, filter %dx%d, stride %dx%d, padding %d", op,
                   (int)input->dims[1], (int)input->dims[2], (int)o->filter_h, (int)o->filter_w,
                   (int)o->stride_h, (int)o->stride_w, o->padding);
  }
  if (!ap_kq_zero_point_ok(input) || !ap_kq_zero_point_ok(output)) {
    return ap_fail(err, AP_ERR_FORMAT, "%s: zero point out of range", op);
  }
  bool ok = input->type == AP_FLOAT32
                ? ap_kq_act_range_float(o->activation, &p->fact_min, &p->fact_max)
                : ap_kq_act_range_quant(o->activation, output->type, output->scale,
                                        output->zero_point, &p->act_min, &p->act_max);
  if (!ok) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "%s: unsupported fused activation %d", op,
                   o->activation);
  }
  output->rank = 4;
  output->dims[0] = input->dims[0];
  output->dims[1] = p->pad.out_h;
  output->dims[2] = p->pad.out_w;
  output->dims[3] = input->dims[3];
  size_t n;
  if (!ap_ktensor_count(input, &n) || !ap_ktensor_count(output, &n)) {
    return ap_fail(err, AP_ERR_OVERFLOW, "%s: tensor sizes overflow", op);
  }
  return AP_OK;
}

ap_status ap_pool_prepare(int kind, const ap_pool_options *o, const ap_ktensor *input,
                          ap_ktensor *output, ap_pool_params *p, ap_errbuf *err) {
  ap_status s = pool_prepare(kind, o, input, output, p, err);
  if (s == AP_OK) {
    p->in_shape = ap_kshape_of(input);
    p->out_shape = ap_kshape_of(output);
  }
  return s;
}

ap_status ap_pool_eval(const ap_pool_params *p, const ap_ktensor *input, ap_ktensor *output) {
  return ap_pool_eval_rows(p, input, output, NULL);
}

/* wide: the float32 and int16 kinds too (ap_pool_eval_rows_8bit leaves them out, so that an
 * 8-bit firmware does not link them). Inlined into both entry points, so each keeps only its
 * kinds. */
static inline __attribute__((always_inline)) ap_status pool_rows(const ap_pool_params *p,
                                                                 const ap_ktensor *input,
                                                                 ap_ktensor *output,
                                                                 const ap_krows *rows, bool wide) {
  if (!p || !input || !output || !input->data || !output->data) return AP_ERR_ARG;
  if (!ap_kshape_is(input, &p->in_shape) || !ap_kshape_is(output, &p->out_shape) ||
      !ap_krows_fit(rows, input, output)) {
    return AP_ERR_ARG;
  }
  const int32_t batches = input->dims[0], in_h = input->dims[1], in_w = input->dims[2],
                depth = input->dims[3], out_h = output->dims[1], out_w = output->dims[2];
  /* Rows each buffer holds (kops_stream.h) and the output rows computed. */
  const int32_t in_rows = rows && rows->in_ring ? rows->in_ring : in_h;
  const int32_t out_rows = rows && rows->out_ring ? rows->out_ring : out_h;
  const int32_t oy0 = rows ? rows->r0 : 0, oy1 = rows ? rows->r1 : out_h;
  const int type = input->type;
  for (int32_t b = 0; b < batches; b++)
    for (int32_t oy = oy0; oy < oy1; oy++) {
      /* Slots once per row: filter row fy (>= fy0) reads slot sb + fy, less one ring's rows
       * past its end (the ring holds the window). */
      const int32_t ry0 = oy * p->stride_h - p->pad.pad_h, rfy0 = AP_MAX(0, -ry0);
      const int32_t sb = ry0 + rfy0 < in_h ? RING_SLOT(ry0 + rfy0, in_rows) - rfy0 : 0;
      const size_t so = (size_t)RING_SLOT(oy, out_rows);
      for (int32_t ox = 0; ox < out_w; ox++)
        for (int32_t c = 0; c < depth; c++) {
          int32_t y0 = ry0, x0 = ox * p->stride_w - p->pad.pad_w;
          int32_t fy0 = rfy0, fy1 = AP_MIN(p->filter_h, in_h - y0);
          int32_t fx0 = AP_MAX(0, -x0), fx1 = AP_MIN(p->filter_w, in_w - x0);
          size_t oi = (((size_t)b * out_rows + so) * out_w + ox) * depth + c;
#define IN_AT(y, x)                                                                                \
  ((((size_t)b * in_rows + (size_t)(sb + (y) >= in_rows ? sb + (y)-in_rows : sb + (y))) * in_w +   \
    (x0 + (x))) *                                                                                  \
       depth +                                                                                     \
   c)
          if (!wide && (type == AP_FLOAT32 || type == AP_INT16)) return AP_ERR_UNSUPPORTED;
          if (type == AP_FLOAT32) {
            const float *in = input->data;
            float r;
            if (p->kind == AP_KPOOL_L2) {
              float squares = 0.0f;
              int32_t count = 0;
              for (int32_t fy = fy0; fy < fy1; fy++)
                for (int32_t fx = fx0; fx < fx1; fx++) {
                  float v = in[IN_AT(fy, fx)];
                  squares += v * v;
                  count++;
                }
              r = sqrtf(squares / (float)count);
            } else if (p->kind == AP_KPOOL_AVERAGE) {
              float total = 0.0f, count = 0.0f;
              for (int32_t fy = fy0; fy < fy1; fy++)
                for (int32_t fx = fx0; fx < fx1; fx++) {
                  total += in[IN_AT(fy, fx)];
                  count += 1.0f;
                }
              r = total / count;
            } else {
              r = -FLT_MAX;
              for (int32_t fy = fy0; fy < fy1; fy++)
                for (int32_t fx = fx0; fx < fx1; fx++) {
                  float v = in[IN_AT(fy, fx)];
                  r = r < v ? v : r; /* std::max, NaN included */
                }
            }
            ((float *)output->data)[oi] = ap_kq_clampf(r, p->fact_min, p->fact_max);
          } else if (type == AP_INT16) {
            /* int16: int32 sums (wrapping where TFLite's would overflow) and the same rounding
             * as int8; max from the type's lowest value. */
            const int16_t *in = input->data;
            int32_t acc = p->kind == AP_KPOOL_MAX ? -32768 : 0, count = 0;
            for (int32_t fy = fy0; fy < fy1; fy++)
              for (int32_t fx = fx0; fx < fx1; fx++) {
                int32_t v = in[IN_AT(fy, fx)];
                if (p->kind == AP_KPOOL_MAX) {
                  acc = AP_MAX(acc, v);
                } else {
                  acc = (int32_t)((uint32_t)acc + (uint32_t)v);
                  count++;
                }
              }
            if (p->kind == AP_KPOOL_AVERAGE) {
              if (count == 0) return AP_ERR_KERNEL;
              acc = acc > 0 ? (int32_t)(((int64_t)acc + count / 2) / count)
                            : (int32_t)(((int64_t)acc - count / 2) / count);
            }
            ((int16_t *)output->data)[oi] = (int16_t)ap_kq_clamp(acc, p->act_min, p->act_max);
          } else {
            bool s8 = type == AP_INT8;
            int32_t acc = 0, count = 0;
            if (p->kind == AP_KPOOL_MAX) acc = s8 ? -128 : 0;
            for (int32_t fy = fy0; fy < fy1; fy++)
              for (int32_t fx = fx0; fx < fx1; fx++) {
                size_t ii = IN_AT(fy, fx);
                int32_t v =
                    s8 ? ((const int8_t *)input->data)[ii] : ((const uint8_t *)input->data)[ii];
                if (p->kind == AP_KPOOL_MAX) {
                  acc = AP_MAX(acc, v);
                } else {
                  acc += v;
                  count++;
                }
              }
            if (p->kind == AP_KPOOL_AVERAGE) {
              /* Round half away from zero (int8); uint8 sums are never negative. */
              if (count == 0) return AP_ERR_KERNEL;
              acc = acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
            }
            acc = ap_kq_clamp(acc, p->act_min, p->act_max);
            if (s8) {
              ((int8_t *)output->data)[oi] = (int8_t)acc;
            } else {
              ((uint8_t *)output->data)[oi] = (uint8_t)acc;
            }
          }
#undef IN_AT
        }
    }
  return AP_OK;
}

ap_status ap_pool_eval_rows(const ap_pool_params *p, const ap_ktensor *input, ap_ktensor *output,
                            const ap_krows *rows) {
  return pool_rows(p, input, output, rows, true);
}

ap_status ap_pool_eval_rows_8bit(const ap_pool_params *p, const ap_ktensor *input,
                                 ap_ktensor *output, const ap_krows *rows) {
  return pool_rows(p, input, output, rows, false);
}

ap_status ap_kml_l2_pool_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "L2_POOL_2D", 1, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  return ap_pool_prepare(AP_KPOOL_L2, &c->options->pool, c->inputs[0], c->outputs[0], c->params,
                         c->err);
}

ap_status ap_kml_pool_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs != 1 || !c->inputs || c->n_outputs < 1 || !c->outputs) {
    return AP_ERR_ARG;
  }
  return ap_pool_eval(c->params, c->inputs[0], c->outputs[0]);
}
