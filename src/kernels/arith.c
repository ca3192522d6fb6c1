/* Broadcasting binary ops of TFLite's reference kernels: DIV (div.cc; its int8 path and
 * SQUARED_DIFFERENCE's in arith_int8.c), FLOOR_DIV
 * (floor_div.h: floor of the quotient taken in double), SQUARED_DIFFERENCE, POW
 * (std::pow on float), MAXIMUM and MINIMUM (maximum_minimum.h: raw values, so quantized inputs
 * must share the output's quantization), EQUAL and LESS (comparisons.h, BOOL output; 8-bit
 * inputs compared after rescaling both, arith_int8.c), and the
 * three-input SELECT_V2 (select.h). Issue 15 adds (kops_mathlogic.h) FLOOR_MOD (floor_mod.h:
 * fmodf, then moved to the divisor's sign), the other comparisons GREATER, GREATER_EQUAL,
 * LESS_EQUAL and NOT_EQUAL as EQUAL and LESS, and LOGICAL_AND and LOGICAL_OR on bool; and
 * (kops_elem16.h) the int16 paths. */
#include "kernels/kops_elem16.h"
#include "kernels/kops_mathlogic.h"
#include "kernels/quant.h"

#include <math.h>
#include <string.h>

static const char *name_of(int op) {
  switch (op) {
  case AP_KB_DIV: return "DIV";
  case AP_KB_FLOOR_DIV: return "FLOOR_DIV";
  case AP_KB_SQUARED_DIFFERENCE: return "SQUARED_DIFFERENCE";
  case AP_KB_POW: return "POW";
  case AP_KB_MAXIMUM: return "MAXIMUM";
  case AP_KB_MINIMUM: return "MINIMUM";
  case AP_KB_EQUAL: return "EQUAL";
  case AP_KB_LESS: return "LESS";
  case AP_KB_FLOOR_MOD: return "FLOOR_MOD";
  case AP_KB_GREATER: return "GREATER";
  case AP_KB_GREATER_EQUAL: return "GREATER_EQUAL";
  case AP_KB_LESS_EQUAL: return "LESS_EQUAL";
  case AP_KB_NOT_EQUAL: return "NOT_EQUAL";
  case AP_KB_LOGICAL_AND: return "LOGICAL_AND";
  case AP_KB_LOGICAL_OR: return "LOGICAL_OR";
  default: return "SELECT_V2";
  }
}

static bool is_compare(int op) {
  return op == AP_KB_EQUAL || op == AP_KB_LESS || op == AP_KB_GREATER ||
         op == AP_KB_GREATER_EQUAL || op == AP_KB_LESS_EQUAL || op == AP_KB_NOT_EQUAL;
}

static bool same_quant(const ap_ktensor *a, const ap_ktensor *b) {
  return a->scale == b->scale && a->zero_point == b->zero_point;
}

/* Which element types each op takes (float32 always). */
static bool type_ok(int op, int t) {
  switch (op) {
  case AP_KB_DIV: return t == AP_FLOAT32 || t == AP_INT32 || t == AP_INT8;
  case AP_KB_SQUARED_DIFFERENCE:
    return t == AP_FLOAT32 || t == AP_INT32 || t == AP_INT8 || t == AP_INT16;
  case AP_KB_FLOOR_DIV: return t == AP_FLOAT32 || t == AP_INT32;
  case AP_KB_POW: return t == AP_FLOAT32;
  case AP_KB_MAXIMUM:
  case AP_KB_MINIMUM:
    return t == AP_FLOAT32 || t == AP_INT32 || t == AP_INT64 || t == AP_INT8 || t == AP_UINT8 ||
           t == AP_INT16;
  case AP_KB_EQUAL:
    return t == AP_FLOAT32 || t == AP_INT32 || t == AP_INT64 || t == AP_BOOL || t == AP_INT8 ||
           t == AP_UINT8;
  case AP_KB_LESS:
  case AP_KB_GREATER:
  case AP_KB_GREATER_EQUAL:
  case AP_KB_LESS_EQUAL:
    return t == AP_FLOAT32 || t == AP_INT32 || t == AP_INT64 || t == AP_INT8 || t == AP_UINT8;
  case AP_KB_NOT_EQUAL:
    return t == AP_FLOAT32 || t == AP_INT32 || t == AP_INT64 || t == AP_BOOL || t == AP_INT8 ||
           t == AP_UINT8;
  case AP_KB_FLOOR_MOD: return t == AP_FLOAT32;
  case AP_KB_LOGICAL_AND:
  case AP_KB_LOGICAL_OR: return t == AP_BOOL;
  default: return ap_ktype_size(t) != 0;
  }
}

static ap_status activation_range(ap_kctx *c, ap_kx_params *p, int type) {
  int act = c->options->activation;
  if (type == AP_FLOAT32) {
    if (!ap_kq_act_range_float(act, &p->fmin, &p->fmax)) goto bad;
    return AP_OK;
  }
  switch (act) {
  case AP_KACT_NONE: p->imin = INT32_MIN, p->imax = INT32_MAX; return AP_OK;
  case AP_KACT_RELU: p->imin = 0, p->imax = INT32_MAX; return AP_OK;
  case AP_KACT_RELU6: p->imin = 0, p->imax = 6; return AP_OK;
  case AP_KACT_RELU_N1_TO_1: p->imin = -1, p->imax = 1; return AP_OK;
  default: break;
  }
bad:
  return ap_fail(c->err, AP_ERR_UNSUPPORTED, "DIV: unsupported fused activation %d", act);
}

ap_status ap_kx_binary_prepare(ap_kctx *c, size_t *scratch, int op) {
  const char *name = name_of(op);
  int n_in = op == AP_KB_SELECT_V2 ? 3 : 2;
  ap_status s = ap_kx_arity(c, name, n_in, n_in, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  p->op = op;
  const ap_ktensor *const *in = c->inputs;
  ap_ktensor *out = c->outputs[0];
  /* SELECT_V2's values are inputs 1 and 2; the others' are 0 and 1. */
  const ap_ktensor *a = in[n_in - 2], *b = in[n_in - 1];
  int t = a->type;
  if (op == AP_KB_GREATER && t == AP_INT16 && b->type == t) {
    /* TFLite Micro's GREATER takes int16 but prepares rescaling only for int8: every
     * multiplier is 0, so it answers false everywhere. Neither that nor another answer would
     * be TFLite Micro's arithmetic with meaning, so it is refused. */
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "GREATER: INT16 is unsupported (TFLite Micro's kernel has no int16 rescaling "
                   "and outputs false everywhere)");
  }
  if (b->type != t || !type_ok(op, t)) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "%s: unsupported input types %s and %s", name,
                   ap_ktype_name(a->type), ap_ktype_name(b->type));
  }
  int want_out = is_compare(op) ? AP_BOOL : t;
  if (out->type != want_out) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: output type %s, expected %s", name,
                   ap_ktype_name(out->type), ap_ktype_name(want_out));
  }
  if (op == AP_KB_SELECT_V2 && in[0]->type != AP_BOOL) {
    return ap_fail(c->err, AP_ERR_FORMAT, "SELECT_V2: condition is %s, expected BOOL",
                   ap_ktype_name(in[0]->type));
  }
  if ((op == AP_KB_MAXIMUM || op == AP_KB_MINIMUM) &&
      (t == AP_INT8 || t == AP_UINT8 || t == AP_INT16) &&
      (!same_quant(a, out) || !same_quant(b, out))) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "%s: quantized inputs must share the output's scale and zero point", name);
  }
  bool int8_math = t == AP_INT8 && (op == AP_KB_DIV || op == AP_KB_SQUARED_DIFFERENCE);
  if (is_compare(op) && (t == AP_INT8 || t == AP_UINT8)) {
    s = ap_kx_q8_compare_setup(c, p, name, a, b);
    if (s != AP_OK) return s;
  } else if (op == AP_KB_SQUARED_DIFFERENCE && t == AP_INT16) {
    s = ap_kx_int16_sqdiff_setup(c, p, a, b, out);
    if (s != AP_OK) return s;
  } else if (int8_math) {
    s = ap_kx_int8_binary_setup(c, p, name, a, b, out);
    if (s != AP_OK) return s;
  } else if (op == AP_KB_DIV) {
    s = activation_range(c, p, t);
    if (s != AP_OK) return s;
  }
  s = ap_kbcast_shape(name, in, n_in, out, c->err);
  if (s != AP_OK) return s;
  p->in_shape = ap_kshape_of(a);
  p->in2_shape = ap_kshape_of(b);
  p->out_shape = ap_kshape_of(out);
  if (op == AP_KB_SELECT_V2) {
    /* The condition's shape goes in begin[] (unused otherwise) so eval can check it too. */
    p->count = in[0]->rank;
    memcpy(p->begin, in[0]->dims, sizeof p->begin);
  }
  return AP_OK;
}

static ap_status float_op(const ap_kx_params *p, float x, float y, float *r) {
  switch (p->op) {
  case AP_KB_DIV: *r = ap_kq_clampf(x / y, p->fmin, p->fmax); return AP_OK;
  case AP_KB_FLOOR_DIV:
    if (y == 0) return AP_ERR_KERNEL;
    *r = (float)floor((double)x / (double)y);
    return AP_OK;
  case AP_KB_SQUARED_DIFFERENCE: *r = (x - y) * (x - y); return AP_OK;
  case AP_KB_POW: *r = powf(x, y); return AP_OK;
  case AP_KB_MAXIMUM: *r = x > y ? x : y; return AP_OK;
  case AP_KB_FLOOR_MOD: {
    float m = fmodf(x, y);
    *r = m != 0 && (y < 0) != (m < 0) ? m + y : m;
    return AP_OK;
  }
  default: *r = x < y ? x : y; return AP_OK;
  }
}

static ap_status int_op(const ap_kx_params *p, int64_t x, int64_t y, int64_t *r) {
  switch (p->op) {
  case AP_KB_DIV:
  case AP_KB_FLOOR_DIV:
    /* int32 only. x / 0 and INT32_MIN / -1 are undefined in C and C++: they fail here. */
    if (y == 0 || (x == INT32_MIN && y == -1)) return AP_ERR_KERNEL;
    if (p->op == AP_KB_DIV) {
      *r = ap_kq_clamp((int32_t)(x / y), p->imin, p->imax);
    } else {
      *r = (int64_t)floor((double)x / (double)y);
    }
    return AP_OK;
  case AP_KB_SQUARED_DIFFERENCE: {
    /* int32 wraps, as TFLite's int32 arithmetic does on its targets. */
    uint32_t d = (uint32_t)(int32_t)x - (uint32_t)(int32_t)y;
    *r = (int32_t)(d * d);
    return AP_OK;
  }
  case AP_KB_MAXIMUM: *r = x > y ? x : y; return AP_OK;
  default: *r = x < y ? x : y; return AP_OK;
  }
}

static int64_t load_int(int t, const void *d, size_t i) {
  switch (t) {
  case AP_INT32: return ((const int32_t *)d)[i];
  case AP_INT64: return ((const int64_t *)d)[i];
  case AP_INT16: return ((const int16_t *)d)[i];
  case AP_INT8: return ((const int8_t *)d)[i];
  default: return ((const uint8_t *)d)[i];
  }
}

static void store_int(int t, void *d, size_t i, int64_t v) {
  switch (t) {
  case AP_INT32: ((int32_t *)d)[i] = (int32_t)v; return;
  case AP_INT64: ((int64_t *)d)[i] = v; return;
  case AP_INT16: ((int16_t *)d)[i] = (int16_t)v; return;
  case AP_INT8: ((int8_t *)d)[i] = (int8_t)v; return;
  default: ((uint8_t *)d)[i] = (uint8_t)v; return;
  }
}

#define COMPARE(OP, X, Y)                                                                          \
  ((OP) == AP_KB_EQUAL        ? (X) == (Y)                                                         \
   : (OP) == AP_KB_NOT_EQUAL  ? (X) != (Y)                                                         \
   : (OP) == AP_KB_LESS       ? (X) < (Y)                                                          \
   : (OP) == AP_KB_LESS_EQUAL ? (X) <= (Y)                                                         \
   : (OP) == AP_KB_GREATER    ? (X) > (Y)                                                          \
                              : (X) >= (Y))

static bool compare(const ap_kx_params *p, int t, const void *a, size_t ia, const void *b,
                    size_t ib) {
  if (t == AP_FLOAT32) {
    float x = ((const float *)a)[ia], y = ((const float *)b)[ib];
    return COMPARE(p->op, x, y);
  }
  if (t == AP_BOOL) {
    uint8_t x = ((const uint8_t *)a)[ia], y = ((const uint8_t *)b)[ib];
    return COMPARE(p->op, x, y);
  }
  int64_t x = load_int(t, a, ia), y = load_int(t, b, ib);
  if (t == AP_INT8 || t == AP_UINT8) ap_kx_q8_compare_scale(p, (int32_t)x, (int32_t)y, &x, &y);
  return COMPARE(p->op, x, y);
}

ap_status ap_kx_binary_eval(ap_kctx *c) {
  if (!c || !c->params || !c->inputs || !c->outputs || c->n_outputs < 1) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  int n_in = p->op == AP_KB_SELECT_V2 ? 3 : 2;
  if (c->n_inputs != n_in) return AP_ERR_ARG;
  for (int k = 0; k < n_in; k++) {
    if (!c->inputs[k] || !c->inputs[k]->data) return AP_ERR_ARG;
  }
  const ap_ktensor *a = c->inputs[n_in - 2], *b = c->inputs[n_in - 1];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!out || !out->data || !ap_kshape_is(a, &p->in_shape) || !ap_kshape_is(b, &p->in2_shape) ||
      !ap_kshape_is(out, &p->out_shape) || !ap_ktensor_count(out, &n)) {
    return AP_ERR_ARG;
  }
  if (n_in == 3) {
    ap_kshape cs = {{0}, p->count};
    memcpy(cs.dims, p->begin, sizeof cs.dims);
    if (!ap_kshape_is(c->inputs[0], &cs)) return AP_ERR_ARG;
  }
  ap_kbcast it;
  ap_kbcast_init(&it, c->inputs, n_in, out);
  int t = a->type;
  size_t es = ap_ktype_size(t);
  for (size_t io = 0; io < n; io++, ap_kbcast_next(&it)) {
    size_t ia = it.off[n_in - 2], ib = it.off[n_in - 1];
    ap_status s = AP_OK;
    if (p->op == AP_KB_SELECT_V2) {
      bool cond = ((const uint8_t *)c->inputs[0]->data)[it.off[0]] != 0;
      const unsigned char *src = cond ? (const unsigned char *)a->data + ia * es
                                      : (const unsigned char *)b->data + ib * es;
      memcpy((unsigned char *)out->data + io * es, src, es);
    } else if (is_compare(p->op)) {
      ((uint8_t *)out->data)[io] = compare(p, t, a->data, ia, b->data, ib);
    } else if (p->op == AP_KB_LOGICAL_AND || p->op == AP_KB_LOGICAL_OR) {
      bool x = ((const uint8_t *)a->data)[ia] != 0, y = ((const uint8_t *)b->data)[ib] != 0;
      ((uint8_t *)out->data)[io] = p->op == AP_KB_LOGICAL_AND ? x && y : x || y;
    } else if (t == AP_INT8 && (p->op == AP_KB_DIV || p->op == AP_KB_SQUARED_DIFFERENCE)) {
      s = ap_kx_int8_binary(p, ((const int8_t *)a->data)[ia], ((const int8_t *)b->data)[ib],
                            &((int8_t *)out->data)[io]);
    } else if (t == AP_INT16 && p->op == AP_KB_SQUARED_DIFFERENCE) {
      ((int16_t *)out->data)[io] =
          ap_kx_int16_sqdiff(p, ((const int16_t *)a->data)[ia], ((const int16_t *)b->data)[ib]);
    } else if (t == AP_FLOAT32) {
      s = float_op(p, ((const float *)a->data)[ia], ((const float *)b->data)[ib],
                   &((float *)out->data)[io]);
    } else {
      int64_t r;
      s = int_op(p, load_int(t, a->data, ia), load_int(t, b->data, ib), &r);
      if (s == AP_OK) store_int(t, out->data, io, r);
    }
    if (s != AP_OK) {
      const char *what = t == AP_INT8 ? "division by 0 (the divisor is its zero point)"
                         : t == AP_INT32 && ((const int32_t *)b->data)[ib] != 0
                             ? "INT32_MIN / -1 overflows"
                             : "division by 0";
      return ap_fail(c->err, AP_ERR_KERNEL, "%s: %s at output element %zu", name_of(p->op), what,
                     io);
    }
  }
  return AP_OK;
}

#define DEFINE_PREPARE(NAME)                                                                       \
  ap_status ap_kml_##NAME##_prepare(ap_kctx *c, size_t *scratch) {                                 \
    return ap_kx_binary_prepare(c, scratch, AP_KB_##NAME);                                         \
  }
AP_KML_BINARY_OPS(DEFINE_PREPARE)
