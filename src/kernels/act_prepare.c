/* What HARD_SWISH, ELU and LOG_SOFTMAX prepare alike: one input and one output of the same
 * shape, float32 or int8 (then with a usable scale and an int8 zero point each); and the
 * element-by-element eval of the first two. */
#include "kernels/kops_elem16.h"
#include "kernels/quant.h"

#include <limits.h>
#include <string.h>

ap_status ap_kx_act_prepare(ap_kctx *c, size_t *scratch, const char *name) {
  ap_status s = ap_kx_arity(c, name, 1, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!ap_ktensor_count(in, &n)) return ap_fail(c->err, AP_ERR_FORMAT, "%s: invalid shape", name);
  if ((in->type != AP_FLOAT32 && in->type != AP_INT8) || out->type != in->type) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "%s: unsupported types %s -> %s", name,
                   ap_ktype_name(in->type), ap_ktype_name(out->type));
  }
  if (in->type == AP_INT8 && (!ap_kq_scale_ok(in->scale) || !ap_kq_scale_ok(out->scale) ||
                              !ap_kq_zero_point_ok(in) || !ap_kq_zero_point_ok(out))) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "%s: int8 tensors need a positive scale and a zero point in [-128, 127]", name);
  }
  p->q_offset[0] = in->zero_point;
  p->q_offset[2] = out->zero_point;
  out->rank = in->rank;
  memcpy(out->dims, in->dims, sizeof out->dims);
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

ap_status ap_kx_act_eval(ap_kctx *c, int8_t (*q)(const ap_kx_params *p, int8_t x),
                         float (*f)(float x)) {
  const ap_ktensor *in;
  ap_ktensor *out;
  size_t n;
  if (!ap_kx_eval_io(c, 1, INT_MAX, &in, &out) || !ap_ktensor_count(in, &n)) return AP_ERR_ARG;
  if (in->type == AP_INT8) {
    for (size_t i = 0; i < n; i++)
      ((int8_t *)out->data)[i] = q(c->params, ((const int8_t *)in->data)[i]);
  } else {
    for (size_t i = 0; i < n; i++)
      ((float *)out->data)[i] = f(((const float *)in->data)[i]);
  }
  return AP_OK;
}
