/* ADD_N and CUMSUM (TFLite Micro's add_n.cc and cumsum.cc over reference add_n.h and
 * cumsum.h): running sums, float32 in float from 0.0f, and int8 in a shared fixed point: each
 * input value less its zero point, shifted left by 20 and halved (the input multiplier is
 * scale / (2 * scale)), summed in int32, then rescaled by 2 * input scale / (2^20 * output scale)
 * and offset by the output zero point. Like TFLite's, the int8 sum does not start at 0 but at
 * the scaled input offset (-zero point): with a nonzero input zero point every int8 result
 * carries that one extra term, exactly as TFLite's reference kernels compute it. The int32 sum
 * wraps on overflow as TFLite's does on its targets. */
#include "kernels/kops_mathlogic.h"
#include "kernels/quant.h"

#include <string.h>

/* q_offset[0] / q_mult[0] / q_shift[0]: the input's; index 2: the output's. */
static ap_status int8_setup(ap_kctx *c, ap_kx_params *p, const char *name, const ap_ktensor *in,
                            const ap_ktensor *out) {
  if (!ap_kq_scale_ok(in->scale) || !ap_kq_scale_ok(out->scale) || !ap_kq_zero_point_ok(in) ||
      !ap_kq_zero_point_ok(out)) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "%s: int8 tensors need positive scales and in-range zero points", name);
  }
  double twice = 2 * (double)in->scale;
  if (!ap_kq_multiplier_lt1((double)in->scale / twice, &p->q_mult[0], &p->q_shift[0]) ||
      !ap_kq_multiplier_lt1(twice / ((1 << 20) * (double)out->scale), &p->q_mult[2],
                            &p->q_shift[2])) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "%s: output scale %g is too small for input scale %g (rescale must be < 1)",
                   name, (double)out->scale, (double)in->scale);
  }
  p->q_offset[0] = -in->zero_point;
  p->q_offset[2] = out->zero_point;
  return AP_OK;
}

static int32_t scale_in(const ap_kx_params *p, int32_t q) {
  return ap_kq_mul_lt1((p->q_offset[0] + q) * (1 << 20), p->q_mult[0], p->q_shift[0]);
}

static int8_t scale_out(const ap_kx_params *p, int32_t acc) {
  int32_t r =
      ap_kq_wrap32((int64_t)ap_kq_mul_lt1(acc, p->q_mult[2], p->q_shift[2]) + p->q_offset[2]);
  return (int8_t)ap_kq_clamp(r, INT8_MIN, INT8_MAX);
}

ap_status ap_kml_ADD_N_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "ADD_N", 2, 1 << 16, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!ap_ktensor_count(in, &n)) return ap_fail(c->err, AP_ERR_FORMAT, "ADD_N: invalid shape");
  if ((in->type != AP_FLOAT32 && in->type != AP_INT8) || out->type != in->type) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "ADD_N: unsupported types %s -> %s",
                   ap_ktype_name(in->type), ap_ktype_name(out->type));
  }
  for (int i = 1; i < c->n_inputs; i++) {
    const ap_ktensor *x = c->inputs[i];
    if (x->type != in->type || !ap_kshape_equal(x, in)) {
      return ap_fail(c->err, AP_ERR_FORMAT, "ADD_N: input %d differs from input 0 in type or shape",
                     i);
    }
    if (in->type == AP_INT8 && (x->scale != in->scale || x->zero_point != in->zero_point)) {
      return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                     "ADD_N: int8 input %d has another scale or zero point than input 0", i);
    }
  }
  if (in->type == AP_INT8 && (s = int8_setup(c, p, "ADD_N", in, out)) != AP_OK) return s;
  out->rank = in->rank;
  memcpy(out->dims, in->dims, sizeof out->dims);
  p->count = c->n_inputs;
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

ap_status ap_kml_add_n_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  size_t n;
  if (!ap_kx_eval_io(c, 2, 1 << 16, &in, &out) || !ap_ktensor_count(out, &n)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  if (c->n_inputs != p->count) return AP_ERR_ARG;
  for (int j = 1; j < p->count; j++) {
    if (!c->inputs[j] || !c->inputs[j]->data || !ap_kshape_is(c->inputs[j], &p->in_shape)) {
      return AP_ERR_ARG;
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (in->type == AP_FLOAT32) {
      float x = 0.0f;
      for (int j = 0; j < p->count; j++)
        x += ((const float *)c->inputs[j]->data)[i];
      ((float *)out->data)[i] = x;
    } else {
      int32_t acc = scale_in(p, 0);
      for (int j = 0; j < p->count; j++)
        acc = ap_kq_wrap32((int64_t)acc + scale_in(p, ((const int8_t *)c->inputs[j]->data)[i]));
      ((int8_t *)out->data)[i] = scale_out(p, acc);
    }
  }
  return AP_OK;
}

/* CUMSUM: p->axis resolved; kind bit 0 exclusive, bit 1 reverse. */
ap_status ap_kml_CUMSUM_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "CUMSUM", 2, 2, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0], *axis = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!ap_ktensor_count(in, &n) || in->rank < 1) {
    return ap_fail(c->err, AP_ERR_FORMAT, "CUMSUM: input needs rank at least 1");
  }
  if ((in->type != AP_FLOAT32 && in->type != AP_INT8) || out->type != in->type) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "CUMSUM: unsupported types %s -> %s",
                   ap_ktype_name(in->type), ap_ktype_name(out->type));
  }
  if (!axis->data || axis->type != AP_INT32 || !ap_ktensor_count(axis, &n) || n != 1) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "CUMSUM: axis must be a constant INT32 tensor of one element");
  }
  int32_t a = *(const int32_t *)axis->data;
  int64_t resolved = a < 0 ? (int64_t)a + in->rank : a;
  if (resolved < 0 || resolved >= in->rank) {
    return ap_fail(c->err, AP_ERR_FORMAT, "CUMSUM: axis %d out of range for rank %d", (int)a,
                   in->rank);
  }
  if (in->type == AP_INT8 && (s = int8_setup(c, p, "CUMSUM", in, out)) != AP_OK) return s;
  p->axis = (int32_t)resolved;
  p->kind = (c->options->cumsum_exclusive ? 1 : 0) | (c->options->cumsum_reverse ? 2 : 0);
  out->rank = in->rank;
  memcpy(out->dims, in->dims, sizeof out->dims);
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

ap_status ap_kml_cumsum_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  if (!ap_kx_eval_io(c, 2, 2, &in, &out)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  bool exclusive = p->kind & 1, reverse = p->kind & 2;
  size_t before = 1, after = 1, depth = (size_t)in->dims[p->axis];
  for (int d = 0; d < in->rank; d++) {
    if (d < p->axis) before *= (size_t)in->dims[d];
    if (d > p->axis) after *= (size_t)in->dims[d];
  }
  /* Each line along the axis is summed on its own, so only the order within a line matters. */
  for (size_t o = 0; o < before; o++) {
    for (size_t i = 0; i < after; i++) {
      float facc = 0.0f;
      int32_t acc = in->type == AP_INT8 ? scale_in(p, 0) : 0;
      for (size_t k = 0; k < depth; k++) {
        size_t at = (o * depth + (reverse ? depth - 1 - k : k)) * after + i;
        if (in->type == AP_FLOAT32) {
          float x = ((const float *)in->data)[at];
          if (!exclusive) facc += x;
          ((float *)out->data)[at] = facc;
          if (exclusive) facc += x;
        } else {
          int32_t y = scale_in(p, ((const int8_t *)in->data)[at]);
          if (!exclusive) acc = ap_kq_wrap32((int64_t)acc + y);
          ((int8_t *)out->data)[at] = scale_out(p, acc);
          if (exclusive) acc = ap_kq_wrap32((int64_t)acc + y);
        }
      }
    }
  }
  return AP_OK;
}
