/* PRELU on float32 (TFLite's prelu.cc: x >= 0 ? x : x * alpha, alpha broadcast against the
 * input; the output has the broadcast shape), int8 and int16 with an int8 alpha (arith_int8.c,
 * clamped to the output's type). */
#include "kernels/kops_elem16.h"
#include "kernels/quant.h"

#include <string.h>

ap_status ap_kx_prelu_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "PRELU", 2, 2, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0], *alpha = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  bool q8 = (in->type == AP_INT8 || in->type == AP_INT16) && alpha->type == AP_INT8 &&
            out->type == in->type;
  if (!q8 && (in->type != AP_FLOAT32 || alpha->type != AP_FLOAT32 || out->type != AP_FLOAT32)) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "PRELU: unsupported types %s, %s -> %s",
                   ap_ktype_name(in->type), ap_ktype_name(alpha->type), ap_ktype_name(out->type));
  }
  if (q8 && (s = ap_kx_int8_relu_setup(c, p, "PRELU", in, alpha, out)) != AP_OK) return s;
  s = ap_kbcast_shape("PRELU", c->inputs, 2, out, c->err);
  if (s != AP_OK) return s;
  p->in_shape = ap_kshape_of(in);
  p->in2_shape = ap_kshape_of(alpha);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

ap_status ap_kx_prelu_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs != 2 || c->n_outputs < 1) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0], *alpha = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!in || !alpha || !out || !in->data || !alpha->data || !out->data ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(alpha, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape) || !ap_ktensor_count(out, &n)) {
    return AP_ERR_ARG;
  }
  ap_kbcast it;
  ap_kbcast_init(&it, c->inputs, 2, out);
  if (in->type == AP_INT16) {
    const int16_t *q = in->data;
    const int8_t *qa = alpha->data;
    for (size_t i = 0; i < n; i++, ap_kbcast_next(&it)) {
      int32_t r = ap_kx_q_relu(p, q[it.off[0]], &qa[it.off[1]]);
      ((int16_t *)out->data)[i] = (int16_t)ap_kq_clamp(r, INT16_MIN, INT16_MAX);
    }
    return AP_OK;
  }
  if (in->type == AP_INT8) {
    const int8_t *q = in->data, *qa = alpha->data;
    for (size_t i = 0; i < n; i++, ap_kbcast_next(&it))
      ((int8_t *)out->data)[i] = ap_kx_int8_relu(p, q[it.off[0]], &qa[it.off[1]]);
    return AP_OK;
  }
  const float *x = in->data, *a = alpha->data;
  float *y = out->data;
  for (size_t i = 0; i < n; i++, ap_kbcast_next(&it)) {
    float v = x[it.off[0]];
    y[i] = v >= 0.0f ? v : v * a[it.off[1]];
  }
  return AP_OK;
}
