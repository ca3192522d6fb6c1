/* SQRT, RSQRT, EXP, LOG, ABS, NEG, LEAKY_RELU, FLOOR, CEIL, ROUND, SIN, COS and SQUARE on
 * float32 (TFLite's elementwise.cc, exp.cc, neg.h, leaky_relu.h, floor.h, ceil.h, round.h): one
 * float libm call per element, the one TFLite's std:: call on a float resolves to. ROUND is
 * TFLite's RoundToNearest (ties to even, worked from floorf: -0.5 gives +0). LOGICAL_NOT takes
 * bool. RSQRT and LEAKY_RELU also take
 * int8 (arith_int8.c, TFLite Micro's integer paths). ABS and NEG also take int32;
 * TFLite's std::abs and unary minus are undefined at INT32_MIN, so there they saturate. */
#include "kernels/kops_elem16.h"
#include "kernels/kops_mathlogic.h"
#include "kernels/quant.h"

#include <limits.h>
#include <math.h>
#include <string.h>

static const char *name_of(int op) {
  switch (op) {
  case AP_KB_SQRT: return "SQRT";
  case AP_KB_RSQRT: return "RSQRT";
  case AP_KB_EXP: return "EXP";
  case AP_KB_LOG: return "LOG";
  case AP_KB_ABS: return "ABS";
  case AP_KB_NEG: return "NEG";
  case AP_KB_FLOOR: return "FLOOR";
  case AP_KB_CEIL: return "CEIL";
  case AP_KB_ROUND: return "ROUND";
  case AP_KB_SIN: return "SIN";
  case AP_KB_COS: return "COS";
  case AP_KB_SQUARE: return "SQUARE";
  case AP_KB_LOGICAL_NOT: return "LOGICAL_NOT";
  default: return "LEAKY_RELU";
  }
}

ap_status ap_kx_q_abs_setup(ap_kctx *c, ap_kx_params *p, const ap_ktensor *in,
                            const ap_ktensor *out) {
  bool s16 = in->type == AP_INT16;
  p->imin = s16 ? INT16_MIN : INT8_MIN;
  p->imax = s16 ? INT16_MAX : INT8_MAX;
  if (s16 && in->scale == 0.0f) return AP_OK; /* kind 0: no quantization, std::abs */
  if (!ap_kq_scale_ok(in->scale) || !ap_kq_scale_ok(out->scale) || !ap_kq_zero_point_ok(in) ||
      !ap_kq_zero_point_ok(out)) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "ABS: quantized tensors need a positive scale and a zero point of their type");
  }
  if (s16 && (in->zero_point != 0 || out->zero_point != 0)) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "ABS: int16 zero points must be 0, got %d -> %d",
                   (int)in->zero_point, (int)out->zero_point);
  }
  p->q_offset[0] = in->zero_point;
  p->q_offset[2] = out->zero_point;
  p->kind = 1;
  if (in->scale != out->scale) { /* the ratio in float, as elementwise.cc, then widened */
    p->kind = 2;
    ap_kq_multiplier((double)(in->scale / out->scale), &p->q_mult[0], &p->q_shift[0]);
  }
  return AP_OK;
}

int32_t ap_kx_q_abs(const ap_kx_params *p, int32_t x) {
  if (p->kind == 0) return (int16_t)(x < 0 ? -x : x); /* -(-32768) wraps back, as in TFLite */
  int32_t v = x - p->q_offset[0];
  v = v < 0 ? -v : v;
  if (p->kind == 2) v = ap_kq_mul(v, p->q_mult[0], p->q_shift[0]);
  return ap_kq_clamp(v + p->q_offset[2], p->imin, p->imax);
}

ap_status ap_kx_unary_prepare(ap_kctx *c, size_t *scratch, int op) {
  const char *name = name_of(op);
  ap_status s = ap_kx_arity(c, name, 1, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  p->op = op;
  p->alpha = c->options->alpha;
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!ap_ktensor_count(in, &n)) return ap_fail(c->err, AP_ERR_FORMAT, "%s: invalid shape", name);
  if ((op == AP_KB_LOGICAL_NOT) != (in->type == AP_BOOL)) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "%s: unsupported type %s", name,
                   ap_ktype_name(in->type));
  }
  bool raw = ((op == AP_KB_ABS || op == AP_KB_NEG) && in->type == AP_INT32) || in->type == AP_BOOL;
  bool q8 = (op == AP_KB_RSQRT || op == AP_KB_LEAKY_RELU) && in->type == AP_INT8;
  bool q16 = op == AP_KB_LEAKY_RELU && in->type == AP_INT16;
  bool qabs = op == AP_KB_ABS && (in->type == AP_INT8 || in->type == AP_INT16);
  if (!raw && !q8 && !q16 && !qabs && in->type != AP_FLOAT32) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "%s: unsupported type %s", name,
                   ap_ktype_name(in->type));
  }
  if (out->type != in->type) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: output type %s differs from input %s", name,
                   ap_ktype_name(out->type), ap_ktype_name(in->type));
  }
  if (q8 && op == AP_KB_RSQRT && (s = ap_kx_int8_rsqrt_setup(c, p, in, out)) != AP_OK) return s;
  if ((q8 || q16) && op == AP_KB_LEAKY_RELU &&
      (s = ap_kx_int8_relu_setup(c, p, name, in, NULL, out)) != AP_OK)
    return s;
  if (qabs && (s = ap_kx_q_abs_setup(c, p, in, out)) != AP_OK) return s;
  out->rank = in->rank;
  memcpy(out->dims, in->dims, sizeof out->dims);
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

/* RoundToNearest (round.h). A tie needs |x| < 2^23, so the int conversion is always defined. */
static float round_half_even(float x) {
  float f = floorf(x), diff = x - f;
  if (diff < 0.5f || (diff == 0.5f && (int)f % 2 == 0)) return f;
  return f + 1.0f;
}

static float apply(int op, float x, float alpha) {
  switch (op) {
  case AP_KB_SQRT: return sqrtf(x);
  case AP_KB_RSQRT: return 1.0f / sqrtf(x);
  case AP_KB_EXP: return expf(x);
  case AP_KB_LOG: return logf(x);
  case AP_KB_ABS: return fabsf(x);
  case AP_KB_NEG: return -x;
  case AP_KB_FLOOR: return floorf(x);
  case AP_KB_CEIL: return ceilf(x);
  case AP_KB_ROUND: return round_half_even(x);
  case AP_KB_SIN: return sinf(x);
  case AP_KB_COS: return cosf(x);
  case AP_KB_SQUARE: return x * x;
  default: return x > 0 ? x : x * alpha;
  }
}

ap_status ap_kx_unary_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  size_t n;
  if (!ap_kx_eval_io(c, 1, INT_MAX, &in, &out) || !ap_ktensor_count(in, &n)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  if (p->op == AP_KB_ABS && in->type == AP_INT8) {
    for (size_t i = 0; i < n; i++)
      ((int8_t *)out->data)[i] = (int8_t)ap_kx_q_abs(p, ((const int8_t *)in->data)[i]);
    return AP_OK;
  }
  if (p->op == AP_KB_ABS && in->type == AP_INT16) {
    for (size_t i = 0; i < n; i++)
      ((int16_t *)out->data)[i] = (int16_t)ap_kx_q_abs(p, ((const int16_t *)in->data)[i]);
    return AP_OK;
  }
  if (in->type == AP_INT16) { /* LEAKY_RELU */
    for (size_t i = 0; i < n; i++) {
      int32_t r = ap_kx_q_relu(p, ((const int16_t *)in->data)[i], NULL);
      ((int16_t *)out->data)[i] = (int16_t)ap_kq_clamp(r, INT16_MIN, INT16_MAX);
    }
    return AP_OK;
  }
  if (in->type == AP_INT8 && p->op == AP_KB_LEAKY_RELU) {
    for (size_t i = 0; i < n; i++)
      ((int8_t *)out->data)[i] = ap_kx_int8_relu(p, ((const int8_t *)in->data)[i], NULL);
    return AP_OK;
  }
  if (in->type == AP_INT8) {
    for (size_t i = 0; i < n; i++)
      if (ap_kx_int8_rsqrt(p, ((const int8_t *)in->data)[i], &((int8_t *)out->data)[i]) != AP_OK)
        return ap_fail(c->err, AP_ERR_KERNEL,
                       "RSQRT: element %zu is below its zero point (a negative value)", i);
    return AP_OK;
  }
  if (in->type == AP_BOOL) {
    for (size_t i = 0; i < n; i++)
      ((uint8_t *)out->data)[i] = ((const uint8_t *)in->data)[i] == 0;
    return AP_OK;
  }
  if (in->type == AP_INT32) {
    const int32_t *x = in->data;
    int32_t *y = out->data;
    for (size_t i = 0; i < n; i++) {
      int32_t v = x[i] == INT32_MIN ? INT32_MIN + 1 : x[i];
      y[i] = p->op == AP_KB_NEG ? -v : v < 0 ? -v : v;
    }
    return AP_OK;
  }
  const float *x = in->data;
  float *y = out->data;
  for (size_t i = 0; i < n; i++)
    y[i] = apply(p->op, x[i], p->alpha);
  return AP_OK;
}

#define DEFINE_PREPARE(NAME)                                                                       \
  ap_status ap_kml_##NAME##_prepare(ap_kctx *c, size_t *scratch) {                                 \
    return ap_kx_unary_prepare(c, scratch, AP_KB_##NAME);                                          \
  }
AP_KML_UNARY_OPS(DEFINE_PREPARE)
