/* SVDF as TFLite Micro's reference kernel computes it (svdf_common.cc): int8 input and output
 * with an int16 (or int8) state and time weights, and float32.
 *
 * The state is [batch, filters x memory], each filter's memory oldest first. Per invoke: the
 * whole state shifts left by one element; each filter's newest slot gets the feature matmul
 * input . weights_feature[f] (int8: rescaled to the state's scale and saturated); then per
 * filter the time dot product state[f] . weights_time[f]; per unit the sum of its `rank`
 * filters plus the bias; int8: rescaled to the output and saturated (TFLite Micro applies no
 * fused activation there), float: the fused activation. */
#include "kernels/kops.h"
#include "kernels/kops_arm64.h"
#include "kernels/quant.h"

#include <math.h>
#include <string.h>

#define OP "SVDF"

_Static_assert(sizeof(ap_svdf_params) <= AP_KPARAMS_SIZE, "svdf params");

static bool is2(const ap_ktensor *t, int32_t d0, int32_t d1) {
  return t->rank == 2 && t->dims[0] == d0 && t->dims[1] == d1;
}

static ap_status shapes(ap_kctx *c, ap_svdf_params *p) {
  const ap_ktensor *x = c->inputs[0], *wf = c->inputs[1], *wt = c->inputs[2], *b = c->inputs[3],
                   *st = c->inputs[4];
  if (x->rank != 2 || wf->rank != 2 || wt->rank != 2)
    return ap_fail(c->err, AP_ERR_FORMAT, OP ": input and weights need rank 2");
  p->batch = x->dims[0];
  p->n_input = x->dims[1];
  p->n_filter = wf->dims[0];
  p->n_memory = wt->dims[1];
  p->rank = c->options->svdf_rank;
  if (p->rank <= 0 || p->n_filter <= 0 || p->n_filter % p->rank != 0)
    return ap_fail(c->err, AP_ERR_FORMAT, OP ": rank %d does not divide %d filters", (int)p->rank,
                   (int)p->n_filter);
  p->n_unit = p->n_filter / p->rank;
  int64_t mem = (int64_t)p->n_memory * p->n_filter;
  if (p->batch <= 0 || p->n_input <= 0 || p->n_memory <= 0 || mem > INT32_MAX ||
      !is2(wf, p->n_filter, p->n_input) || !is2(wt, p->n_filter, p->n_memory) ||
      !is2(st, p->batch, (int32_t)mem) || (b && (b->rank != 1 || b->dims[0] != p->n_unit)))
    return ap_fail(c->err, AP_ERR_FORMAT,
                   OP ": shapes do not fit: input [%d,%d], weights_feature [%d,%d], weights_time "
                      "[filters,memory], bias [units], state [batch,memory x filters]",
                   (int)p->batch, (int)p->n_input, (int)p->n_filter, (int)p->n_input);
  if (!st->is_variable)
    return ap_fail(c->err, AP_ERR_FORMAT, OP ": the state (input 4) must be a variable tensor");
  ap_ktensor *out = c->outputs[0];
  out->rank = 2;
  out->dims[0] = p->batch;
  out->dims[1] = p->n_unit;
  p->in_shape = ap_kshape_of(x);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

static ap_status types(ap_kctx *c, ap_svdf_params *p) {
  const ap_ktensor *x = c->inputs[0], *wf = c->inputs[1], *wt = c->inputs[2], *b = c->inputs[3],
                   *st = c->inputs[4], *out = c->outputs[0];
  p->state_type = st->type;
  if (x->type == AP_FLOAT32) {
    p->kind = AP_KSVDF_FLOAT;
    if (wf->type != AP_FLOAT32 || wt->type != AP_FLOAT32 || st->type != AP_FLOAT32 ||
        (b && b->type != AP_FLOAT32) || out->type != AP_FLOAT32)
      return ap_fail(c->err, AP_ERR_UNSUPPORTED, OP ": a FLOAT32 input needs FLOAT32 tensors");
    p->activation = c->options->activation;
    if (p->activation < AP_KACT_NONE || p->activation > AP_KACT_SIGN_BIT)
      return ap_fail(c->err, AP_ERR_UNSUPPORTED, OP ": activation %d", p->activation);
    return AP_OK;
  }
  if (x->type != AP_INT8 || wf->type != AP_INT8 || (wt->type != AP_INT16 && wt->type != AP_INT8) ||
      st->type != wt->type || (b && b->type != AP_INT32) || out->type != AP_INT8)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   OP ": %s input is not supported (FLOAT32, or INT8 with INT8 weights_feature, "
                      "INT16 or INT8 weights_time and state of one type, INT32 bias, INT8 output)",
                   ap_ktype_name(x->type));
  p->kind = AP_KSVDF_INT;
  if (!ap_kq_scale_ok(x->scale) || !ap_kq_scale_ok(wf->scale) || !ap_kq_scale_ok(wt->scale) ||
      !ap_kq_scale_ok(st->scale) || !ap_kq_scale_ok(out->scale) || !ap_kq_zero_point_ok(x) ||
      !ap_kq_zero_point_ok(st) || !ap_kq_zero_point_ok(out))
    return ap_fail(c->err, AP_ERR_FORMAT, OP ": bad quantization");
  /* As PrepareSvdf: the scales' quotients in float, then to double. */
  ap_kq_multiplier((double)(x->scale * wf->scale / st->scale), &p->mult1, &p->shift1);
  ap_kq_multiplier((double)(st->scale * wt->scale / out->scale), &p->mult2, &p->shift2);
  if (b && !(fabs((double)b->scale - (double)(st->scale * wt->scale)) < 1e-5))
    return ap_fail(c->err, AP_ERR_FORMAT,
                   OP ": bias scale %g is not state scale x weights_time scale %g", b->scale,
                   st->scale * wt->scale);
  p->input_zp = x->zero_point;
  p->output_zp = out->zero_point;
  p->state_zp = st->zero_point;
  return AP_OK;
}

ap_status ap_kx_svdf_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, OP, 3, 5, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  if (c->n_inputs != 5 || !c->inputs[4])
    return ap_fail(c->err, AP_ERR_FORMAT, OP ": expected 5 inputs (the bias may be absent)");
  ap_svdf_params *p = c->params;
  memset(p, 0, sizeof *p);
  if ((s = shapes(c, p)) != AP_OK || (s = types(c, p)) != AP_OK) return s;
  size_t f, u = 0;
  if (!ap_mul_size((size_t)p->batch * 4, (size_t)p->n_filter, &f) ||
      (p->kind == AP_KSVDF_INT && !ap_mul_size((size_t)p->batch * 4, (size_t)p->n_unit, &u)) ||
      !ap_add_size(ap_kscratch_round(f), ap_kscratch_round(u), scratch))
    return ap_fail(c->err, AP_ERR_OVERFLOW, OP ": too large");
  p->filter_bytes = ap_kscratch_round(f);
  return AP_OK;
}

static float activate(int act, float a) {
  switch (act) {
  case AP_KACT_RELU: return 0.0f > a ? 0.0f : a;
  case AP_KACT_RELU_N1_TO_1: a = a < 1.0f ? a : 1.0f; return -1.0f > a ? -1.0f : a;
  case AP_KACT_RELU6: a = a < 6.0f ? a : 6.0f; return 0.0f > a ? 0.0f : a;
  case AP_KACT_TANH: return ap_ktanhf(a);
  case AP_KACT_SIGN_BIT: return signbit(a) ? 1.0f : 0.0f;
  default: return a;
  }
}

static void eval_float(const ap_svdf_params *p, const ap_ktensor *const *in, float *out,
                       float *scratch) {
  const float *x = in[0]->data, *wf = in[1]->data, *wt = in[2]->data;
  const float *bias = in[3] ? in[3]->data : NULL;
  float *st = in[4]->data;
  size_t total = (size_t)p->batch * (size_t)p->n_filter * (size_t)p->n_memory;
  memmove(st, st + 1, (total - 1) * sizeof *st);
  for (int32_t b = 0; b < p->batch; b++)
    for (int32_t f = 0; f < p->n_filter; f++) {
      float dot = 0.0f;
      for (int32_t k = 0; k < p->n_input; k++)
        dot += wf[(size_t)f * (size_t)p->n_input + (size_t)k] *
               x[(size_t)b * (size_t)p->n_input + (size_t)k];
      st[((size_t)b * (size_t)p->n_filter + (size_t)f + 1) * (size_t)p->n_memory - 1] = dot;
    }
  for (int32_t b = 0; b < p->batch; b++)
    for (int32_t f = 0; f < p->n_filter; f++) {
      const float *w = wt + (size_t)f * (size_t)p->n_memory;
      const float *s = st + ((size_t)b * (size_t)p->n_filter + (size_t)f) * (size_t)p->n_memory;
      float dot = 0.0f;
      for (int32_t j = 0; j < p->n_memory; j++)
        dot += w[j] * s[j];
      scratch[(size_t)b * (size_t)p->n_filter + (size_t)f] = dot;
    }
  for (int32_t b = 0; b < p->batch; b++)
    for (int32_t i = 0; i < p->n_unit; i++) {
      float v = bias ? bias[i] : 0.0f;
      for (int32_t r = 0; r < p->rank; r++)
        v += scratch[(size_t)b * (size_t)p->n_filter + (size_t)i * (size_t)p->rank + (size_t)r];
      out[(size_t)b * (size_t)p->n_unit + (size_t)i] = activate(p->activation, v);
    }
}

/* The state's element `i` read and written as its type (int16 or int8). */
static int32_t st_get(const ap_svdf_params *p, const void *st, size_t i) {
  return p->state_type == AP_INT16 ? ((const int16_t *)st)[i] : ((const int8_t *)st)[i];
}
static void st_set(const ap_svdf_params *p, void *st, size_t i, int32_t v) {
  if (p->state_type == AP_INT16)
    ((int16_t *)st)[i] = (int16_t)v;
  else
    ((int8_t *)st)[i] = (int8_t)v;
}

static void eval_int(const ap_svdf_params *p, const ap_ktensor *const *in, int8_t *out,
                     int32_t *per_filter, int32_t *per_unit) {
  const int8_t *x = in[0]->data, *wf = in[1]->data;
  const int32_t *bias = in[3] ? in[3]->data : NULL;
  void *st = in[4]->data;
  size_t total = (size_t)p->batch * (size_t)p->n_filter * (size_t)p->n_memory;
  size_t esize = p->state_type == AP_INT16 ? 2 : 1;
  memmove(st, (uint8_t *)st + esize, (total - 1) * esize);
  int32_t lo = p->state_type == AP_INT16 ? INT16_MIN : INT8_MIN;
  int32_t hi = p->state_type == AP_INT16 ? INT16_MAX : INT8_MAX;
  for (int32_t b = 0; b < p->batch; b++)
    for (int32_t f = 0; f < p->n_filter; f++) {
      const int8_t *w = wf + (size_t)f * (size_t)p->n_input,
                   *xb = x + (size_t)b * (size_t)p->n_input;
      int64_t dot = 0;
      for (int32_t k = 0; k < p->n_input; k++)
        dot += w[k] * (xb[k] - p->input_zp);
      int32_t v = ap_kq_clamp(ap_kq_mul(ap_kq_wrap32(dot), p->mult1, p->shift1), lo, hi);
      st_set(p, st, ((size_t)b * (size_t)p->n_filter + (size_t)f + 1) * (size_t)p->n_memory - 1,
             p->state_zp + v);
    }
  const void *wt = in[2]->data;
  for (int32_t b = 0; b < p->batch; b++)
    for (int32_t f = 0; f < p->n_filter; f++) {
      size_t w0 = (size_t)f * (size_t)p->n_memory;
      size_t s0 = ((size_t)b * (size_t)p->n_filter + (size_t)f) * (size_t)p->n_memory;
      int64_t dot = 0;
      for (int32_t j = 0; j < p->n_memory; j++)
        dot +=
            (int64_t)st_get(p, wt, w0 + (size_t)j) * (st_get(p, st, s0 + (size_t)j) - p->state_zp);
      per_filter[(size_t)b * (size_t)p->n_filter + (size_t)f] = ap_kq_wrap32(dot);
    }
  for (int32_t b = 0; b < p->batch; b++)
    for (int32_t i = 0; i < p->n_unit; i++) {
      int64_t v = bias ? bias[i] : 0;
      for (int32_t r = 0; r < p->rank; r++)
        v += per_filter[(size_t)b * (size_t)p->n_filter + (size_t)i * (size_t)p->rank + (size_t)r];
      per_unit[(size_t)b * (size_t)p->n_unit + (size_t)i] = ap_kq_wrap32(v);
    }
  for (size_t i = 0; i < (size_t)p->batch * (size_t)p->n_unit; i++)
    out[i] = (int8_t)ap_kq_clamp(ap_kq_mul(per_unit[i], p->mult2, p->shift2) + p->output_zp,
                                 INT8_MIN, INT8_MAX);
}

ap_status ap_kx_svdf_eval(ap_kctx *c) {
  if (!c || !c->params || !c->inputs || !c->outputs || c->n_inputs != 5 || c->n_outputs < 1 ||
      !c->outputs[0] || !c->scratch)
    return AP_ERR_ARG;
  const ap_svdf_params *p = c->params;
  const ap_ktensor *const *in = c->inputs;
  ap_ktensor *out = c->outputs[0];
  for (int i = 0; i < 5; i++)
    if (i != 3 && (!in[i] || !in[i]->data)) return AP_ERR_ARG;
  if ((in[3] && !in[3]->data) || !out->data || !ap_kshape_is(in[0], &p->in_shape) ||
      !ap_kshape_is(out, &p->out_shape))
    return AP_ERR_ARG;
  if (p->kind == AP_KSVDF_FLOAT)
    eval_float(p, in, out->data, c->scratch);
  else
    eval_int(p, in, out->data, c->scratch, (int32_t *)((uint8_t *)c->scratch + p->filter_bytes));
  return AP_OK;
}
