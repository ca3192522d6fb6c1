/* RESIZE_BILINEAR (TFLite's reference resize_bilinear.h), NHWC, size a constant INT32 [2].
 * float32: source coordinates and weights in float, the four products summed in TFLite's
 * order. int8: the integer path with 10-bit fixed-point coordinates, rounding half away from
 * zero at the 20-bit product; raw values, so input and output share quantization. uint8
 * (TFLite only): the float path on the raw bytes plus 0.5, truncated (ResizeBilinear<uint8_t>),
 * with the output's quantization ignored as TFLite ignores it. */
#include "kernels/kops.h"

#include <math.h>
#include <string.h>

ap_status ap_kx_resize_bilinear_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "RESIZE_BILINEAR", 2, 2, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0], *size = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  if ((in->type != AP_FLOAT32 && in->type != AP_INT8 && in->type != AP_UINT8) ||
      out->type != in->type) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "RESIZE_BILINEAR: unsupported types %s -> %s",
                   ap_ktype_name(in->type), ap_ktype_name(out->type));
  }
  if (in->type == AP_INT8 && (in->scale != out->scale || in->zero_point != out->zero_point)) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "RESIZE_BILINEAR: int8 input and output must share quantization");
  }
  size_t n;
  if (in->rank != 4 || !ap_ktensor_count(in, &n)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "RESIZE_BILINEAR: input must be 4-D");
  }
  if (!size->data || size->type != AP_INT32 || size->rank != 1 || size->dims[0] != 2) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "RESIZE_BILINEAR: unsupported size: it must be a constant INT32 [2]");
  }
  const int32_t *hw = size->data;
  bool align = c->options->align_corners, half = c->options->half_pixel_centers;
  if (hw[0] <= 0 || hw[1] <= 0 || in->dims[1] <= 0 || in->dims[2] <= 0 ||
      (int64_t)in->dims[1] * 1024 > INT32_MAX / 2 || (int64_t)in->dims[2] * 1024 > INT32_MAX / 2 ||
      (int64_t)hw[0] * (in->dims[1] + 1) * 1024 > INT32_MAX ||
      (int64_t)hw[1] * (in->dims[2] + 1) * 1024 > INT32_MAX) {
    return ap_fail(c->err, AP_ERR_FORMAT, "RESIZE_BILINEAR: sizes %d x %d from %d x %d invalid",
                   (int)hw[0], (int)hw[1], (int)in->dims[1], (int)in->dims[2]);
  }
  if (align && half) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "RESIZE_BILINEAR: align_corners and half_pixel_centers exclude each other");
  }
  out->rank = 4;
  out->dims[0] = in->dims[0];
  out->dims[1] = hw[0];
  out->dims[2] = hw[1];
  out->dims[3] = in->dims[3];
  if (!ap_ktensor_count(out, &n)) return ap_fail(c->err, AP_ERR_FORMAT, "RESIZE_BILINEAR: too big");
  p->kind = (align ? 1 : 0) | (half ? 2 : 0);
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

static void coord_f(int32_t v, float scale, bool half, int32_t size, float *s, int32_t *lo,
                    int32_t *hi) {
  *s = half ? ((float)v + 0.5f) * scale - 0.5f : (float)v * scale;
  int32_t f = (int32_t)floorf(*s), cl = (int32_t)ceilf(*s);
  *lo = f > 0 ? f : 0;
  *hi = cl < size - 1 ? cl : size - 1;
}

static void coord_i(int32_t v, int32_t scale10, bool half, int32_t size, int32_t *s, int32_t *lo,
                    int32_t *hi) {
  *s = half ? v * scale10 + scale10 / 2 - (1 << 9) : v * scale10;
  int32_t f = *s / (1 << 10), cl = (*s + (1 << 10) - 1) / (1 << 10);
  *lo = f > 0 ? f : 0;
  *hi = cl < size - 1 ? cl : size - 1;
}

ap_status ap_kx_resize_bilinear_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  if (!ap_kx_eval_io(c, 2, 2, &in, &out)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  bool align = p->kind & 1, half = p->kind & 2;
  int32_t nb = in->dims[0], ih = in->dims[1], iw = in->dims[2], d = in->dims[3];
  int32_t oh = out->dims[1], ow = out->dims[2];
#define AT(b, y, x, ch) ((((size_t)(b)*ih + (size_t)(y)) * iw + (size_t)(x)) * d + (size_t)(ch))
  if (in->type == AP_FLOAT32 || in->type == AP_UINT8) {
    float hs = (float)ih / (float)oh, ws = (float)iw / (float)ow;
    if (align && oh > 1) hs = (float)(ih - 1) / (float)(oh - 1);
    if (align && ow > 1) ws = (float)(iw - 1) / (float)(ow - 1);
    const float *x = in->data;
    float *y = out->data;
    const uint8_t *xu = in->data;
    uint8_t *yu = out->data;
    bool u8 = in->type == AP_UINT8;
    size_t o = 0;
    for (int32_t b = 0; b < nb; b++) {
      for (int32_t oy = 0; oy < oh; oy++) {
        float sy;
        int32_t y0, y1;
        coord_f(oy, hs, half, ih, &sy, &y0, &y1);
        for (int32_t ox = 0; ox < ow; ox++) {
          float sx;
          int32_t x0, x1;
          coord_f(ox, ws, half, iw, &sx, &x0, &x1);
          float dy = sy - (float)y0, dx = sx - (float)x0;
          for (int32_t ch = 0; ch < d && !u8; ch++) {
            y[o++] = x[AT(b, y0, x0, ch)] * (1 - dy) * (1 - dx) +
                     x[AT(b, y1, x0, ch)] * dy * (1 - dx) + x[AT(b, y0, x1, ch)] * (1 - dy) * dx +
                     x[AT(b, y1, x1, ch)] * dy * dx;
          }
          for (int32_t ch = 0; ch < d && u8; ch++) {
            float v = (float)xu[AT(b, y0, x0, ch)] * (1 - dy) * (1 - dx) +
                      (float)xu[AT(b, y1, x0, ch)] * dy * (1 - dx) +
                      (float)xu[AT(b, y0, x1, ch)] * (1 - dy) * dx +
                      (float)xu[AT(b, y1, x1, ch)] * dy * dx + 0.5f;
            /* The weights sum to 1: v lies in [0.5, 255.5] up to rounding; the clamp only
             * keeps the conversion defined. */
            yu[o++] = (uint8_t)(v >= 255.0f ? 255.0f : v <= 0.0f ? 0.0f : v);
          }
        }
      }
    }
    return AP_OK;
  }
  int32_t hs = ((1 << 10) * ih + oh / 2) / oh, ws = ((1 << 10) * iw + ow / 2) / ow;
  if (align && oh > 1) hs = ((1 << 10) * (ih - 1) + (oh - 1) / 2) / (oh - 1);
  if (align && ow > 1) ws = ((1 << 10) * (iw - 1) + (ow - 1) / 2) / (ow - 1);
  const int8_t *x = in->data;
  int8_t *y = out->data;
  size_t o = 0;
  for (int32_t b = 0; b < nb; b++) {
    for (int32_t oy = 0; oy < oh; oy++) {
      int32_t sy, y0, y1;
      coord_i(oy, hs, half, ih, &sy, &y0, &y1);
      for (int32_t ox = 0; ox < ow; ox++) {
        int32_t sx, x0, x1;
        coord_i(ox, ws, half, iw, &sx, &x0, &x1);
        int64_t fy = sy - (1 << 10) * y0, fx = sx - (1 << 10) * x0;
        for (int32_t ch = 0; ch < d; ch++) {
          int64_t v = x[AT(b, y0, x0, ch)] * ((1 << 10) - fy) * ((1 << 10) - fx) +
                      x[AT(b, y1, x0, ch)] * fy * ((1 << 10) - fx) +
                      x[AT(b, y0, x1, ch)] * ((1 << 10) - fy) * fx + x[AT(b, y1, x1, ch)] * fy * fx;
          int64_t round = v > 0 ? (1 << 19) : -(1 << 19);
          y[o++] = (int8_t)((v + round) / (1 << 20));
        }
      }
    }
  }
#undef AT
  return AP_OK;
}
