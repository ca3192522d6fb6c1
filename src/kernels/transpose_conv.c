/* TRANSPOSE_CONV on float32 (TFLite's reference transpose_conv.h): every input pixel scatters
 * input * filter into the output window it maps to, in the order batch, in_y, in_x,
 * in_channel, filter_y, filter_x, out_channel (which fixes the float summation order), then
 * adds the bias. TFLite's reference leaves the fused activation to its callers; TFLite Micro
 * clamps after the bias, so a fused activation other than NONE clamps here (NONE does not
 * clamp at all, keeping infinities as TFLite does). Inputs: output_shape (constant INT32 [4]),
 * filter [out_c, fh, fw, in_c], input NHWC, optional bias [out_c]. Padding is computed as for a
 * convolution of the output with the filter (ComputePaddingHeightWidth on the output size). */
#include "kernels/kops.h"
#include "kernels/quant.h"

#include <string.h>

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
  if (in->type != AP_FLOAT32 || filter->type != AP_FLOAT32 || out->type != AP_FLOAT32 ||
      (bias && bias->type != AP_FLOAT32)) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "TRANSPOSE_CONV: unsupported types %s, %s -> %s",
                   ap_ktype_name(in->type), ap_ktype_name(filter->type), ap_ktype_name(out->type));
  }
  size_t n;
  if (!shape->data || shape->type != AP_INT32 || shape->rank != 1 || shape->dims[0] != 4) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "TRANSPOSE_CONV: unsupported output_shape: it must be a constant INT32 [4]");
  }
  if (in->rank != 4 || filter->rank != 4 || !ap_ktensor_count(in, &n) ||
      !ap_ktensor_count(filter, &n)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "TRANSPOSE_CONV: input and filter must be 4-D");
  }
  const int32_t *os = shape->data;
  for (int i = 0; i < 4; i++) {
    if (os[i] < 0) return ap_fail(c->err, AP_ERR_FORMAT, "TRANSPOSE_CONV: output dim %d < 0", i);
    out->dims[i] = os[i];
  }
  out->rank = 4;
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
  if (!ap_kq_act_range_float(o->activation, &p->fmin, &p->fmax)) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "TRANSPOSE_CONV: unsupported fused activation %d",
                   o->activation);
  }
  p->kind = o->activation != AP_KACT_NONE;
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

ap_status ap_kx_transpose_conv_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs < 3 || c->n_outputs < 1) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  const ap_ktensor *filter = c->inputs[1], *in = c->inputs[2];
  const ap_ktensor *bias = p->count && c->n_inputs > 3 ? c->inputs[3] : NULL;
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!filter || !in || !out || !filter->data || !in->data || !out->data ||
      (p->count && (!bias || !bias->data)) || !ap_kshape_is(in, &p->in_shape) ||
      !ap_kshape_is(filter, &p->in2_shape) || !ap_kshape_is(out, &p->out_shape) ||
      !ap_ktensor_count(out, &n)) {
    return AP_ERR_ARG;
  }
  const float *x = in->data, *w = filter->data;
  float *y = out->data;
  memset(y, 0, n * sizeof *y);
  int32_t batches = in->dims[0], ih = in->dims[1], iw = in->dims[2], ic = in->dims[3];
  int32_t fh = filter->dims[1], fw = filter->dims[2];
  int32_t oh = out->dims[1], ow = out->dims[2], oc = out->dims[3];
  for (int32_t b = 0; b < batches; b++) {
    for (int32_t iy = 0; iy < ih; iy++) {
      for (int32_t ix = 0; ix < iw; ix++) {
        for (int32_t ci = 0; ci < ic; ci++) {
          int64_t oy0 = (int64_t)iy * p->stride[0] - p->begin[0];
          int64_t ox0 = (int64_t)ix * p->stride[1] - p->begin[1];
          float v = x[(((size_t)b * ih + iy) * iw + ix) * ic + ci];
          for (int32_t ky = 0; ky < fh; ky++) {
            for (int32_t kx = 0; kx < fw; kx++) {
              int64_t oy = oy0 + ky, ox = ox0 + kx;
              if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
              float *dst = &y[(((size_t)b * oh + (size_t)oy) * ow + (size_t)ox) * oc];
              for (int32_t co = 0; co < oc; co++) {
                dst[co] += v * w[(((size_t)co * fh + ky) * fw + kx) * ic + ci];
              }
            }
          }
        }
      }
    }
  }
  /* No bias: nothing is added (adding 0.0f would turn -0.0f into +0.0f). */
  if (bias) {
    const float *bv = bias->data;
    for (size_t i = 0; i < n; i++)
      y[i] += bv[i % (size_t)oc];
  }
  if (p->kind) {
    for (size_t i = 0; i < n; i++)
      y[i] = ap_kq_clampf(y[i], p->fmin, p->fmax);
  }
  return AP_OK;
}
