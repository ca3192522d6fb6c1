/* CUMSUM and ADD_N (reference cumsum.h, add_n.h), float32 and int8; ADD_N also int32 (wrapping
 * as TFLite's int adds). The int8 paths are TFLite's: every value (input offset added) is
 * shifted left 20 bits and halved by a multiplier, the sum rescaled to the output; the sum
 * starts from the scaled input offset (TFLite's "x = 0", which is the offset, not zero), so
 * the bytes match TFLite Micro's even where that start is not a real zero. */
#include "kernels/kops_datamove.h"
#include "kernels/quant.h"

#include <string.h>

enum { LEFT_SHIFT = 20, EXCLUSIVE = 1, REVERSE = 2 };

/* The int8 rescaling both ops share, into q_offset/q_mult/q_shift [0] (input) and [2] (output)
 * and imin/imax. */
static ap_status int8_setup(ap_kctx *c, const char *op, const ap_ktensor *in,
                            const ap_ktensor *out) {
  ap_kx_params *p = c->params;
  if (!ap_kq_scale_ok(in->scale) || !ap_kq_scale_ok(out->scale) || !ap_kq_zero_point_ok(in) ||
      !ap_kq_zero_point_ok(out)) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "%s: int8 tensors need a positive scale and a zero point "
                   "in range",
                   op);
  }
  double twice = 2.0 * (double)in->scale;
  double out_m = twice / ((double)(1 << LEFT_SHIFT) * (double)out->scale);
  if (!ap_kq_multiplier_lt1((double)in->scale / twice, &p->q_mult[0], &p->q_shift[0]) ||
      !ap_kq_multiplier_lt1(out_m, &p->q_mult[2], &p->q_shift[2])) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "%s: output scale %g is too small for input scale %g (rescale %g >= 1)", op,
                   (double)out->scale, (double)in->scale, out_m);
  }
  p->q_offset[0] = -in->zero_point;
  p->q_offset[2] = out->zero_point;
  if (!ap_kq_act_range_quant(AP_KACT_NONE, AP_INT8, out->scale, out->zero_point, &p->imin,
                             &p->imax)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: no activation range", op);
  }
  return AP_OK;
}

static int32_t scaled(const ap_kx_params *p, int32_t q) {
  int32_t y = p->q_offset[0] + q;
  return ap_kq_mul_lt1((int32_t)((uint32_t)y << LEFT_SHIFT), p->q_mult[0], p->q_shift[0]);
}

static int8_t requantize(const ap_kx_params *p, int32_t sum) {
  int32_t r = ap_kq_mul_lt1(sum, p->q_mult[2], p->q_shift[2]) + p->q_offset[2];
  return (int8_t)ap_kq_clamp(r, p->imin, p->imax);
}

ap_status ap_kx_cumsum_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kxd_begin(c, scratch, "CUMSUM", 2, 2);
  if (s != AP_OK) return s;
  ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0], *axis = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if ((in->type != AP_FLOAT32 && in->type != AP_INT8) || out->type != in->type) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "CUMSUM: unsupported types %s -> %s",
                   ap_ktype_name(in->type), ap_ktype_name(out->type));
  }
  if (in->rank < 1 || !ap_ktensor_count(in, &n)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "CUMSUM: input needs rank at least 1");
  }
  if (axis->type != AP_INT32 || !ap_ktensor_count(axis, &n) || n != 1) {
    return ap_fail(c->err, AP_ERR_FORMAT, "CUMSUM: axis must be one INT32");
  }
  /* TFLite Micro reads the axis while running; so does eval. Known now: checked now. */
  int32_t a = axis->data ? *(const int32_t *)axis->data : 0;
  if (axis->data && (a < -in->rank || a >= in->rank)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "CUMSUM: axis %d out of range for rank %d", (int)a,
                   in->rank);
  }
  if (in->type == AP_INT8 && (s = int8_setup(c, "CUMSUM", in, out)) != AP_OK) return s;
  ap_kxd_shape_like(out, in);
  p->kind = (c->options->exclusive ? EXCLUSIVE : 0) | (c->options->reverse ? REVERSE : 0);
  return ap_kxd_finish(c, "CUMSUM");
}

ap_status ap_kx_cumsum_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  if (!ap_kx_eval_io(c, 2, 2, &in, &out)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  const ap_ktensor *axis_t = c->inputs[1];
  if (!axis_t || !axis_t->data || axis_t->type != AP_INT32) return AP_ERR_ARG;
  int32_t a = *(const int32_t *)axis_t->data;
  if (a < -in->rank || a >= in->rank) {
    return ap_fail(c->err, AP_ERR_FORMAT, "CUMSUM: axis %d out of range for rank %d", (int)a,
                   in->rank);
  }
  int axis = a < 0 ? a + in->rank : a;
  size_t outer = ap_kxd_span(in, 0, axis), depth = (size_t)in->dims[axis];
  size_t inner = ap_kxd_span(in, axis + 1, in->rank);
  bool excl = p->kind & EXCLUSIVE, rev = p->kind & REVERSE;
  for (size_t o = 0; o < outer; o++) {
    for (size_t i = 0; i < inner; i++) {
      float facc = 0.0f;
      int32_t qacc = in->type == AP_INT8 ? scaled(p, 0) : 0;
      for (size_t k = 0; k < depth; k++) {
        size_t at = (o * depth + (rev ? depth - 1 - k : k)) * inner + i;
        if (in->type == AP_FLOAT32) {
          float v = ((const float *)in->data)[at];
          if (!excl) facc += v;
          ((float *)out->data)[at] = facc;
          if (excl) facc += v;
        } else {
          int32_t v = scaled(p, ((const int8_t *)in->data)[at]);
          if (!excl) qacc = ap_kq_wrap32((int64_t)qacc + v);
          ((int8_t *)out->data)[at] = requantize(p, qacc);
          if (excl) qacc = ap_kq_wrap32((int64_t)qacc + v);
        }
      }
    }
  }
  return AP_OK;
}

ap_status ap_kx_add_n_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kxd_begin(c, scratch, "ADD_N", 2, 1 << 16);
  if (s != AP_OK) return s;
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  int t = in->type;
  if ((t != AP_FLOAT32 && t != AP_INT8 && t != AP_INT32) || out->type != t) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "ADD_N: unsupported types %s -> %s",
                   ap_ktype_name(t), ap_ktype_name(out->type));
  }
  if (!ap_ktensor_count(in, &n)) return ap_fail(c->err, AP_ERR_FORMAT, "ADD_N: invalid shape");
  for (int i = 1; i < c->n_inputs; i++) {
    const ap_ktensor *x = c->inputs[i];
    if (!x || x->type != t || !ap_kshape_equal(x, in)) {
      return ap_fail(c->err, AP_ERR_FORMAT, "ADD_N: input %d differs from input 0 in type or shape",
                     i);
    }
    if (t == AP_INT8 && (x->scale != in->scale || x->zero_point != in->zero_point)) {
      return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                     "ADD_N: int8 inputs must share one scale and zero point (input %d differs)",
                     i);
    }
  }
  if (t == AP_INT8 && (s = int8_setup(c, "ADD_N", in, out)) != AP_OK) return s;
  ap_kxd_shape_like(out, in);
  return ap_kxd_finish(c, "ADD_N");
}

ap_status ap_kx_add_n_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  size_t n;
  if (!ap_kx_eval_io(c, 2, 1 << 16, &in, &out) || !ap_ktensor_count(in, &n)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  int k = c->n_inputs;
  for (int j = 1; j < k; j++) {
    const ap_ktensor *x = c->inputs[j];
    if (!x || !x->data || x->type != in->type || !ap_kshape_is(x, &p->in_shape)) return AP_ERR_ARG;
  }
  /* Element by element, inputs in order: the order of TFLite's float adds. */
  for (size_t i = 0; i < n; i++) {
    if (in->type == AP_FLOAT32) {
      float x = 0.0f;
      for (int j = 0; j < k; j++)
        x += ((const float *)c->inputs[j]->data)[i];
      ((float *)out->data)[i] = x;
    } else if (in->type == AP_INT32) {
      int64_t x = 0;
      for (int j = 0; j < k; j++)
        x = ap_kq_wrap32(x + ((const int32_t *)c->inputs[j]->data)[i]);
      ((int32_t *)out->data)[i] = (int32_t)x;
    } else {
      int32_t x = scaled(p, 0);
      for (int j = 0; j < k; j++)
        x = ap_kq_wrap32((int64_t)x + scaled(p, ((const int8_t *)c->inputs[j]->data)[i]));
      ((int8_t *)out->data)[i] = requantize(p, x);
    }
  }
  return AP_OK;
}
