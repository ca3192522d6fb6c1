/* SPACE_TO_DEPTH / DEPTH_TO_SPACE (reference space_to_depth.h, depth_to_space.h): NHWC blocks
 * of block_size x block_size pixels moved to or from the channels, block rows outermost.
 * SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND (space_to_batch_nd.h, batch_to_space_nd.h): rank 3 or
 * 4 (a rank-3 input is [batch, height, channels]), block shape and paddings or crops constant;
 * the padding written is zero bytes, as TFLite Micro's kernel writes (it never sets the
 * zero-point offset TFLite's does). Byte copies of any element type. */
#include "kernels/kops_datamove.h"

#include <string.h>

enum { TO_DEPTH = 1, TO_SPACE, TO_BATCH, FROM_BATCH };

static ap_status block_prepare(ap_kctx *c, size_t *scratch, int kind) {
  const char *op = kind == TO_DEPTH ? "SPACE_TO_DEPTH" : "DEPTH_TO_SPACE";
  ap_status s = ap_kxd_begin(c, scratch, op, 1, 1);
  if (s != AP_OK || (s = ap_kxd_input(c, op, 4, 4)) != AP_OK) return s;
  ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  int64_t b = c->options->block_size, h = in->dims[1], w = in->dims[2], d = in->dims[3];
  if (b < 1 || b > INT32_MAX / 2) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: block_size %lld is invalid", op, (long long)b);
  }
  if (kind == TO_DEPTH) {
    if (h % b || w % b || b * b > INT32_MAX || d * b * b > INT32_MAX) {
      return ap_fail(c->err, AP_ERR_FORMAT, "%s: %lld x %lld does not divide into blocks of %lld",
                     op, (long long)h, (long long)w, (long long)b);
    }
    h /= b, w /= b, d *= b * b;
  } else {
    if (d % (b * b) || h * b > INT32_MAX || w * b > INT32_MAX) {
      return ap_fail(c->err, AP_ERR_FORMAT, "%s: %lld channels do not divide into blocks of %lld",
                     op, (long long)d, (long long)(b * b));
    }
    h *= b, w *= b, d /= b * b;
  }
  out->rank = 4;
  out->dims[0] = in->dims[0];
  out->dims[1] = (int32_t)h;
  out->dims[2] = (int32_t)w;
  out->dims[3] = (int32_t)d;
  p->kind = kind;
  p->count = (int32_t)b;
  return ap_kxd_finish(c, op);
}

ap_status ap_kx_space_to_depth_prepare(ap_kctx *c, size_t *scratch) {
  return block_prepare(c, scratch, TO_DEPTH);
}

ap_status ap_kx_depth_to_space_prepare(ap_kctx *c, size_t *scratch) {
  return block_prepare(c, scratch, TO_SPACE);
}

ap_status ap_kx_space_depth_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  if (!ap_kx_eval_io(c, 1, 1, &in, &out)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  size_t bs = (size_t)p->count, es = ap_ktype_size(in->type);
  /* Walk the space side (the input of SPACE_TO_DEPTH, the output of DEPTH_TO_SPACE) pixel by
   * pixel; each pixel's channels are one run at (block row, block col) of its depth pixel. */
  bool to_depth = p->kind == TO_DEPTH;
  const ap_ktensor *space = to_depth ? in : out, *depth = to_depth ? out : in;
  size_t H = (size_t)space->dims[1], W = (size_t)space->dims[2], C = (size_t)space->dims[3];
  size_t dh = (size_t)depth->dims[1], dw = (size_t)depth->dims[2], dc = (size_t)depth->dims[3];
  size_t run = C * es;
  unsigned char *o = out->data;
  const unsigned char *i = in->data;
  for (size_t b = 0; b < (size_t)space->dims[0]; b++) {
    for (size_t y = 0; y < H; y++) {
      for (size_t x = 0; x < W; x++) {
        size_t at_space = ((b * H + y) * W + x) * run;
        size_t at_depth =
            (((b * dh + y / bs) * dw + x / bs) * dc + ((y % bs) * bs + x % bs) * C) * es;
        if (to_depth) {
          memcpy(o + at_depth, i + at_space, run);
        } else {
          memcpy(o + at_space, i + at_depth, run);
        }
      }
    }
  }
  return AP_OK;
}

/* block_shape [M] and paddings/crops [M, 2] for M = rank - 2 spatial dims. */
static ap_status batch_prepare(ap_kctx *c, size_t *scratch, int kind) {
  const char *op = kind == TO_BATCH ? "SPACE_TO_BATCH_ND" : "BATCH_TO_SPACE_ND";
  const char *what = kind == TO_BATCH ? "paddings" : "crops";
  ap_status s = ap_kxd_begin(c, scratch, op, 3, 3);
  if (s != AP_OK || (s = ap_kxd_input(c, op, 3, 4)) != AP_OK) return s;
  ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0], *pads = c->inputs[2];
  ap_ktensor *out = c->outputs[0];
  int m = in->rank - 2, nb, np;
  int64_t block[2], pad[4];
  if ((s = ap_kxd_shape_values(c, op, "block_shape", c->inputs[1], 1, 2, block, &nb)) != AP_OK)
    return s;
  if ((s = ap_kxd_shape_values(c, op, what, pads, 2, 4, pad, &np)) != AP_OK) return s;
  if (nb != m || c->inputs[1]->rank != 1 || np != 2 * m || pads->rank != 2 || pads->dims[1] != 2) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: block_shape must be [%d] and %s [%d, 2]", op, m,
                   what, m);
  }
  int64_t batch = in->dims[0];
  out->rank = in->rank;
  for (int i = 0; i < m; i++) {
    int64_t b = block[i], d = in->dims[1 + i], lo = pad[2 * i], hi = pad[2 * i + 1], r;
    if (b < 1 || b > INT32_MAX || lo < 0 || hi < 0 || lo > INT32_MAX || hi > INT32_MAX) {
      return ap_fail(c->err, AP_ERR_FORMAT, "%s: dim %d: block %lld, %s [%lld, %lld] are invalid",
                     op, 1 + i, (long long)b, what, (long long)lo, (long long)hi);
    }
    if (kind == TO_BATCH) {
      r = d + lo + hi;
      if (r % b) {
        return ap_fail(c->err, AP_ERR_FORMAT, "%s: dim %d: %lld padded does not divide by %lld", op,
                       1 + i, (long long)r, (long long)b);
      }
      r /= b;
      batch *= b;
    } else {
      r = d * b - lo - hi;
      if (r < 0 || d * b > INT32_MAX || batch % b) {
        return ap_fail(c->err, AP_ERR_FORMAT,
                       "%s: dim %d: %lld x %lld cropped [%lld, %lld], or "
                       "batch %lld not divisible by the block",
                       op, 1 + i, (long long)d, (long long)b, (long long)lo, (long long)hi,
                       (long long)batch);
      }
      batch /= b;
    }
    if (batch > INT32_MAX || r > INT32_MAX) {
      return ap_fail(c->err, AP_ERR_OVERFLOW, "%s: output too large", op);
    }
    out->dims[1 + i] = (int32_t)r;
    p->stride[i] = (int32_t)b;
    p->begin[i] = (int32_t)lo;
  }
  out->dims[0] = (int32_t)batch;
  out->dims[in->rank - 1] = in->dims[in->rank - 1];
  if (m == 1) p->stride[1] = 1;
  p->kind = kind;
  return ap_kxd_finish(c, op);
}

ap_status ap_kx_space_to_batch_prepare(ap_kctx *c, size_t *scratch) {
  return batch_prepare(c, scratch, TO_BATCH);
}

ap_status ap_kx_batch_to_space_prepare(ap_kctx *c, size_t *scratch) {
  return batch_prepare(c, scratch, FROM_BATCH);
}

/* [batch, h, w, depth] of t, a rank-3 t read as [batch, h, 1, depth]. */
static void dims4(const ap_ktensor *t, size_t *d) {
  d[0] = (size_t)t->dims[0];
  d[1] = (size_t)t->dims[1];
  d[2] = t->rank == 4 ? (size_t)t->dims[2] : 1;
  d[3] = (size_t)t->dims[t->rank - 1];
}

ap_status ap_kx_space_batch_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  if (!ap_kx_eval_io(c, 3, 3, &in, &out)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  size_t es = ap_ktype_size(in->type);
  bool to_batch = p->kind == TO_BATCH;
  /* The batched side (the output of SPACE_TO_BATCH_ND, the input of BATCH_TO_SPACE_ND) pixel
   * (b, y, x) comes from space pixel (b % batch, y * bh + shift_h - top, x * bw + shift_w - left)
   * with the shifts from b / batch: outside the space, padding or cropped away. */
  const ap_ktensor *batched = to_batch ? out : in, *space = to_batch ? in : out;
  size_t bd[4], sd[4];
  dims4(batched, bd);
  dims4(space, sd);
  size_t run = bd[3] * es;
  int64_t bh = p->stride[0], bw = p->stride[1], top = p->begin[0], left = p->begin[1];
  if (sd[0] == 0) return AP_OK;
  for (size_t b = 0; b < bd[0]; b++) {
    size_t sb = b % sd[0], shift = b / sd[0];
    int64_t sh = (int64_t)shift / bw, sw = (int64_t)shift % bw;
    for (size_t y = 0; y < bd[1]; y++) {
      int64_t ys = (int64_t)y * bh + sh - top;
      for (size_t x = 0; x < bd[2]; x++) {
        int64_t xs = (int64_t)x * bw + sw - left;
        unsigned char *bp = (unsigned char *)batched->data + ((b * bd[1] + y) * bd[2] + x) * run;
        bool inside = ys >= 0 && ys < (int64_t)sd[1] && xs >= 0 && xs < (int64_t)sd[2];
        unsigned char *sp = inside ? (unsigned char *)space->data +
                                         ((sb * sd[1] + (size_t)ys) * sd[2] + (size_t)xs) * run
                                   : NULL;
        if (to_batch) {
          if (sp) {
            memcpy(bp, sp, run);
          } else {
            memset(bp, 0, run);
          }
        } else if (sp) {
          memcpy(sp, bp, run);
        }
      }
    }
  }
  return AP_OK;
}
