/* RESIZE_NEAREST_NEIGHBOR (reference resize_nearest_neighbor.h), NHWC, size a constant INT32
 * [2]: each output pixel copies the input pixel its scaled coordinate falls in, computed in
 * float as TFLite does (floor, or round half away from zero with align_corners; half-pixel
 * centres add 0.5 first). A byte copy, so any element type and no requantization. */
#include "kernels/kops_datamove.h"
#include "kernels/quant.h"

#include <math.h>
#include <string.h>

enum { ALIGN = 1, HALF = 2 };

ap_status ap_kx_resize_nearest_prepare(ap_kctx *c, size_t *scratch) {
  const char *op = "RESIZE_NEAREST_NEIGHBOR";
  ap_status s = ap_kxd_begin(c, scratch, op, 2, 2);
  if (s != AP_OK || (s = ap_kxd_input(c, op, 4, 4)) != AP_OK) return s;
  ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  int64_t hw[2];
  int k;
  if ((s = ap_kxd_shape_values(c, op, "size", c->inputs[1], 1, 2, hw, &k)) != AP_OK) return s;
  if (k != 2 || c->inputs[1]->type != AP_INT32) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: size must be an INT32 [2]", op);
  }
  for (int i = 0; i < 2; i++) {
    if (hw[i] < 0 || hw[i] > INT32_MAX || (hw[i] > 0 && in->dims[1 + i] == 0)) {
      return ap_fail(c->err, AP_ERR_FORMAT, "%s: size %lld x %lld from %d x %d is invalid", op,
                     (long long)hw[0], (long long)hw[1], (int)in->dims[1], (int)in->dims[2]);
    }
  }
  out->rank = 4;
  out->dims[0] = in->dims[0];
  out->dims[1] = (int32_t)hw[0];
  out->dims[2] = (int32_t)hw[1];
  out->dims[3] = in->dims[3];
  p->kind = (c->options->align_corners ? ALIGN : 0) | (c->options->half_pixel_centers ? HALF : 0);
  return ap_kxd_finish(c, op);
}

/* GetNearestNeighbor: the input index for output index v, clamped into [0, in_size). */
static int32_t nearest(int32_t v, int32_t in_size, int32_t out_size, int kind) {
  bool align = kind & ALIGN, half = kind & HALF;
  float scale = align && out_size > 1 ? (float)(in_size - 1) / (float)(out_size - 1)
                                      : (float)in_size / (float)out_size;
  float x = ((float)v + (half ? 0.5f : 0.0f)) * scale;
  int32_t r = align ? (int32_t)ap_kq_roundf(x) : (int32_t)floorf(x);
  if (r > in_size - 1) r = in_size - 1;
  return half && r < 0 ? 0 : r;
}

ap_status ap_kx_resize_nearest_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  if (!ap_kx_eval_io(c, 2, 2, &in, &out)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  size_t es = ap_ktype_size(in->type), run = (size_t)in->dims[3] * es;
  int32_t ih = in->dims[1], iw = in->dims[2], oh = out->dims[1], ow = out->dims[2];
  unsigned char *o = out->data;
  for (int32_t b = 0; b < in->dims[0]; b++) {
    const unsigned char *base = (const unsigned char *)in->data + (size_t)b * (size_t)ih * iw * run;
    for (int32_t y = 0; y < oh; y++) {
      const unsigned char *row = base + (size_t)nearest(y, ih, oh, p->kind) * (size_t)iw * run;
      for (int32_t x = 0; x < ow; x++, o += run)
        memcpy(o, row + (size_t)nearest(x, iw, ow, p->kind) * run, run);
    }
  }
  return AP_OK;
}
