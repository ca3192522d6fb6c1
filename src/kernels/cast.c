/* CAST (TFLite's cast.cc: a static_cast per element; to BOOL: x != 0) and SHAPE (the input's
 * dims as INT32 or INT64). A float that does not fit the integer type is undefined in C++ and
 * TFLite's result then depends on the CPU; here it saturates and NaN becomes 0. Integer
 * narrowing wraps, as static_cast does on two's complement targets. */
#include "kernels/kops.h"

#include <limits.h>
#include <math.h>
#include <string.h>

static bool cast_type(int t) {
  return t == AP_FLOAT32 || t == AP_INT32 || t == AP_INT64 || t == AP_INT16 || t == AP_INT8 ||
         t == AP_UINT8 || t == AP_BOOL || t == AP_UINT32;
}

ap_status ap_kx_cast_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "CAST", 1, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (!ap_ktensor_count(in, &n)) return ap_fail(c->err, AP_ERR_FORMAT, "CAST: invalid shape");
  if (!cast_type(in->type) || !cast_type(out->type)) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "CAST: unsupported types %s -> %s",
                   ap_ktype_name(in->type), ap_ktype_name(out->type));
  }
  out->rank = in->rank;
  memcpy(out->dims, in->dims, sizeof out->dims);
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

static int64_t load_int(int t, const void *d, size_t i) {
  switch (t) {
  case AP_INT32: return ((const int32_t *)d)[i];
  case AP_UINT32: return ((const uint32_t *)d)[i];
  case AP_INT64: return ((const int64_t *)d)[i];
  case AP_INT16: return ((const int16_t *)d)[i];
  case AP_INT8: return ((const int8_t *)d)[i];
  default: return ((const uint8_t *)d)[i]; /* UINT8, BOOL */
  }
}

static void store_int(int t, void *d, size_t i, int64_t v) {
  switch (t) {
  case AP_INT32: ((int32_t *)d)[i] = (int32_t)(uint32_t)(uint64_t)v; return;
  case AP_UINT32: ((uint32_t *)d)[i] = (uint32_t)(uint64_t)v; return;
  case AP_INT64: ((int64_t *)d)[i] = v; return;
  case AP_INT16: ((int16_t *)d)[i] = (int16_t)(uint16_t)(uint64_t)v; return;
  case AP_INT8: ((int8_t *)d)[i] = (int8_t)(uint8_t)(uint64_t)v; return;
  case AP_BOOL: ((uint8_t *)d)[i] = v != 0; return;
  default: ((uint8_t *)d)[i] = (uint8_t)(uint64_t)v; return;
  }
}

/* Truncation toward zero into [lo, hi] of the destination type. */
static int64_t float_to_int(int t, float x) {
  double lo, hi;
  switch (t) {
  case AP_INT32: lo = INT32_MIN, hi = INT32_MAX; break;
  case AP_UINT32: lo = 0, hi = UINT32_MAX; break;
  case AP_INT16: lo = INT16_MIN, hi = INT16_MAX; break;
  case AP_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
  case AP_UINT8: lo = 0, hi = UINT8_MAX; break;
  default: lo = -9223372036854775808.0, hi = 9223372036854775807.0; break;
  }
  if (isnan(x)) return 0;
  double v = trunc((double)x);
  if (v <= lo) return t == AP_INT64 ? INT64_MIN : (int64_t)lo;
  if (v >= hi) return t == AP_INT64 ? INT64_MAX : (int64_t)hi;
  return (int64_t)v;
}

ap_status ap_kx_cast_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  size_t n;
  if (!ap_kx_eval_io(c, 1, INT_MAX, &in, &out) || !ap_ktensor_count(in, &n)) return AP_ERR_ARG;
  int ti = in->type, to = out->type;
  for (size_t i = 0; i < n; i++) {
    if (ti == AP_FLOAT32) {
      float x = ((const float *)in->data)[i];
      if (to == AP_FLOAT32) {
        ((float *)out->data)[i] = x;
      } else if (to == AP_BOOL) {
        ((uint8_t *)out->data)[i] = x != 0;
      } else {
        store_int(to, out->data, i, float_to_int(to, x));
      }
    } else {
      int64_t v = load_int(ti, in->data, i);
      if (ti == AP_BOOL) v = v != 0;
      if (to == AP_FLOAT32) {
        ((float *)out->data)[i] = (float)v;
      } else {
        store_int(to, out->data, i, v);
      }
    }
  }
  return AP_OK;
}

ap_status ap_kx_shape_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "SHAPE", 1, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  if (in->rank < 0 || in->rank > AP_KMAXDIMS) {
    return ap_fail(c->err, AP_ERR_FORMAT, "SHAPE: invalid input rank %d", in->rank);
  }
  if (out->type != AP_INT32 && out->type != AP_INT64) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "SHAPE: output type %s, expected INT32 or INT64",
                   ap_ktype_name(out->type));
  }
  out->rank = 1;
  out->dims[0] = in->rank;
  p->in_shape = ap_kshape_of(in);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

/* Reads only the input's dims: its data may be absent. */
ap_status ap_kx_shape_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs < 1 || c->n_outputs < 1) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  if (!in || !out || !out->data || !ap_kshape_is(in, &p->in_shape) ||
      !ap_kshape_is(out, &p->out_shape)) {
    return AP_ERR_ARG;
  }
  for (int i = 0; i < in->rank; i++) {
    if (out->type == AP_INT32) {
      ((int32_t *)out->data)[i] = in->dims[i];
    } else {
      ((int64_t *)out->data)[i] = in->dims[i];
    }
  }
  return AP_OK;
}
