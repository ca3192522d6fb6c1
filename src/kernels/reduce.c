/* SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_ALL (TFLite Micro's reduce_common.cc over
 * reference_ops::ReduceGeneric and QuantizedMeanOrSum), and the axis resolution, walk and
 * requantization MEAN (mean.c) shares with them.
 *
 * Every output starts at the reducer's initial value (0 for SUM, the type's lowest value for
 * REDUCE_MAX, its highest for REDUCE_MIN, true for REDUCE_ALL) and an empty input leaves it
 * there: the quantized SUM of nothing is a raw 0, not the output zero point, as in TFLite.
 * Maxima and minima keep the current value unless the new one compares greater (less), so a NaN
 * never enters a float maximum. int8 SUM and int16 SUM rescale by input scale / output scale
 * after subtracting count input zero points from the int32 sum. */
#include "kernels/kops_mathlogic.h"
#include "kernels/quant.h"

#include <float.h>
#include <string.h>

_Static_assert(sizeof(ap_kreduce_params) <= AP_KPARAMS_SIZE, "reduce params");

ap_status ap_kreduce_axes(const char *op, const ap_ktensor *input, const ap_ktensor *axis,
                          bool keep_dims, ap_ktensor *output, bool *reduced, ap_errbuf *err) {
  int rank = input->rank;
  size_t n, na;
  if (!ap_ktensor_count(input, &n) || rank < 0 || rank > AP_KMAXDIMS) {
    return ap_fail(err, AP_ERR_FORMAT, "%s: invalid input shape", op);
  }
  if (!axis->data || axis->type != AP_INT32 || !ap_ktensor_count(axis, &na)) {
    return ap_fail(err, AP_ERR_FORMAT, "%s: axis must be a constant INT32 tensor", op);
  }
  memset(reduced, 0, AP_KMAXDIMS * sizeof *reduced);
  const int32_t *av = axis->data;
  for (size_t i = 0; i < na && rank > 0; i++) {
    int64_t a = av[i] < 0 ? (int64_t)av[i] + rank : av[i];
    if (a < 0 || a >= rank) {
      return ap_fail(err, AP_ERR_FORMAT, "%s: axis %d out of range for rank %d", op, (int)av[i],
                     rank);
    }
    reduced[a] = true;
  }
  int r = 0;
  for (int d = 0; d < rank; d++) {
    if (!reduced[d]) {
      output->dims[r++] = input->dims[d];
    } else if (keep_dims) {
      output->dims[r++] = 1;
    }
  }
  output->rank = r;
  if (!ap_ktensor_count(output, &n)) {
    return ap_fail(err, AP_ERR_FORMAT, "%s: invalid output shape", op);
  }
  return AP_OK;
}

void ap_kreduce_walk_init(ap_kbcast *it, const ap_ktensor *input, const bool *reduced) {
  ap_ktensor kept = *input;
  for (int d = 0; d < input->rank; d++) {
    if (reduced[d]) kept.dims[d] = 1;
  }
  const ap_ktensor *ins[1] = {&kept};
  ap_kbcast_init(it, ins, 1, input);
}

void ap_kreduce_sum_float(const ap_ktensor *input, const bool *reduced, float *out, size_t n_out) {
  for (size_t i = 0; i < n_out; i++)
    out[i] = 0.0f;
  size_t n;
  if (!ap_ktensor_count(input, &n)) return;
  const float *in = input->data;
  ap_kbcast it;
  ap_kreduce_walk_init(&it, input, reduced);
  for (size_t i = 0; i < n; i++, ap_kbcast_next(&it))
    out[it.off[0]] += in[i];
}

static int32_t load_q(int type, const void *d, size_t i) {
  switch (type) {
  case AP_INT8: return ((const int8_t *)d)[i];
  case AP_INT16: return ((const int16_t *)d)[i];
  default: return ((const uint8_t *)d)[i];
  }
}

void ap_kreduce_sum_int(const ap_ktensor *input, const bool *reduced, int32_t *sum, size_t n_out) {
  for (size_t i = 0; i < n_out; i++)
    sum[i] = 0;
  size_t n;
  if (!ap_ktensor_count(input, &n)) return;
  ap_kbcast it;
  ap_kreduce_walk_init(&it, input, reduced);
  for (size_t i = 0; i < n; i++, ap_kbcast_next(&it))
    sum[it.off[0]] = ap_kq_wrap32((int64_t)sum[it.off[0]] + load_q(input->type, input->data, i));
}

void ap_kreduce_requantize(int type, const int32_t *sum, size_t n, int64_t count,
                           int32_t input_zero_point, int32_t multiplier, int shift,
                           int32_t output_zero_point, void *out) {
  int32_t lo = type == AP_INT8 ? INT8_MIN : type == AP_INT16 ? INT16_MIN : 0;
  int32_t hi = type == AP_INT8 ? INT8_MAX : type == AP_INT16 ? INT16_MAX : UINT8_MAX;
  for (size_t i = 0; i < n; i++) {
    /* int32 - int32 * int64 in TFLite: the product is taken in 64 bits, the difference kept in
     * 32 (wrapping). */
    int32_t shifted = ap_kq_wrap32((int64_t)sum[i] - (int64_t)input_zero_point * count);
    int32_t r = ap_kq_wrap32((int64_t)ap_kq_mul(shifted, multiplier, shift) + output_zero_point);
    r = ap_kq_clamp(r, lo, hi);
    switch (type) {
    case AP_INT8: ((int8_t *)out)[i] = (int8_t)r; break;
    case AP_INT16: ((int16_t *)out)[i] = (int16_t)r; break;
    default: ((uint8_t *)out)[i] = (uint8_t)r; break;
    }
  }
}

static const char *name_of(int op) {
  switch (op) {
  case AP_KB_SUM: return "SUM";
  case AP_KB_REDUCE_MAX: return "REDUCE_MAX";
  case AP_KB_REDUCE_MIN: return "REDUCE_MIN";
  default: return "REDUCE_ALL";
  }
}

static bool type_ok(int op, int t) {
  switch (op) {
  case AP_KB_SUM: return t == AP_FLOAT32 || t == AP_INT8 || t == AP_INT16;
  case AP_KB_REDUCE_MAX:
  case AP_KB_REDUCE_MIN: return t == AP_FLOAT32 || t == AP_INT8;
  default: return t == AP_BOOL;
  }
}

static ap_status reduce_prepare(ap_kctx *c, size_t *scratch, int op) {
  const char *name = name_of(op);
  ap_status s = ap_kx_arity(c, name, 2, 2, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kreduce_params *p = c->params;
  memset(p, 0, sizeof *p);
  p->op = op;
  const ap_ktensor *in = c->inputs[0], *axis = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  int t = in->type;
  p->type = t;
  if (out->type != t || !type_ok(op, t)) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "%s: unsupported types %s -> %s", name,
                   ap_ktype_name(t), ap_ktype_name(out->type));
  }
  s = ap_kreduce_axes(name, in, axis, c->options->keep_dims, out, p->reduced, c->err);
  if (s != AP_OK) return s;
  p->count = 1;
  for (int d = 0; d < in->rank; d++) {
    if (p->reduced[d]) p->count *= in->dims[d];
  }
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
  if (t != AP_INT8 && t != AP_INT16) return AP_OK;
  if (!ap_kq_scale_ok(in->scale) || !ap_kq_scale_ok(out->scale) || !ap_kq_zero_point_ok(in) ||
      !ap_kq_zero_point_ok(out)) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "%s: quantized tensors need positive scales and in-range zero points", name);
  }
  if (op != AP_KB_SUM) {
    /* TFLite Micro compares the scales as doubles and refuses any difference. */
    if (in->scale != out->scale || in->zero_point != out->zero_point) {
      return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                     "%s: int8 input and output must share scale and zero point", name);
    }
    return AP_OK;
  }
  p->input_zero_point = in->zero_point;
  p->output_zero_point = out->zero_point;
  ap_kq_multiplier((double)in->scale / (double)out->scale, &p->multiplier, &p->shift);
  size_t n_out;
  if (!ap_ktensor_count(out, &n_out) || !ap_mul_size(n_out, sizeof(int32_t), &p->scratch_bytes)) {
    return ap_fail(c->err, AP_ERR_OVERFLOW, "%s: scratch size overflows", name);
  }
  *scratch = p->scratch_bytes;
  return AP_OK;
}

#define DEFINE_PREPARE(NAME)                                                                       \
  ap_status ap_kml_##NAME##_prepare(ap_kctx *c, size_t *scratch) {                                 \
    return reduce_prepare(c, scratch, AP_KB_##NAME);                                               \
  }
AP_KML_REDUCE_OPS(DEFINE_PREPARE)

/* REDUCE_MAX, REDUCE_MIN (float32 and int8) and REDUCE_ALL (bool): one ReduceGeneric each. */
#define MINMAX(T, INIT, BETTER)                                                                    \
  do {                                                                                             \
    T *o = out->data;                                                                              \
    const T *x = in->data;                                                                         \
    for (size_t i = 0; i < n_out; i++)                                                             \
      o[i] = (INIT);                                                                               \
    for (size_t i = 0; i < n_in; i++, ap_kbcast_next(&it)) {                                       \
      T v = x[i], cur = o[it.off[0]];                                                              \
      if (BETTER) o[it.off[0]] = v;                                                                \
    }                                                                                              \
  } while (0)

ap_status ap_kx_reduce_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs != 2 || c->n_outputs < 1 || !c->inputs || !c->outputs) {
    return AP_ERR_ARG;
  }
  const ap_kreduce_params *p = c->params;
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  size_t n_in, n_out;
  if (!in || !out || !in->data || !out->data || in->type != p->type || out->type != p->type ||
      !ap_kshape_is(in, &p->in_shape) || !ap_kshape_is(out, &p->out_shape) ||
      !ap_ktensor_count(in, &n_in) || !ap_ktensor_count(out, &n_out) ||
      (p->scratch_bytes && !c->scratch)) {
    return AP_ERR_ARG;
  }
  ap_kbcast it;
  ap_kreduce_walk_init(&it, in, p->reduced);
  bool max = p->op == AP_KB_REDUCE_MAX;
  switch (p->op) {
  case AP_KB_SUM:
    if (p->type == AP_FLOAT32) {
      ap_kreduce_sum_float(in, p->reduced, out->data, n_out);
      return AP_OK;
    }
    ap_kreduce_sum_int(in, p->reduced, c->scratch, n_out);
    if (n_in == 0) {
      memset(out->data, 0, n_out * ap_ktype_size(p->type));
      return AP_OK;
    }
    ap_kreduce_requantize(p->type, c->scratch, n_out, p->count, p->input_zero_point, p->multiplier,
                          p->shift, p->output_zero_point, out->data);
    return AP_OK;
  case AP_KB_REDUCE_ALL: MINMAX(uint8_t, 1, v == 0 && cur != 0); return AP_OK;
  default:
    if (p->type == AP_FLOAT32) {
      MINMAX(float, max ? -FLT_MAX : FLT_MAX, max ? v > cur : v < cur);
    } else {
      MINMAX(int8_t, max ? INT8_MIN : INT8_MAX, max ? v > cur : v < cur);
    }
    return AP_OK;
  }
}
