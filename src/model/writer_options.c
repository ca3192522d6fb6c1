/* Builtin options: the helpers that fill an ap_options for common ops, and the check and copy
 * of any ap_options when an op is added. Field ids follow tflite/schema.fbs. */
#include "model/writer_internal.h"

#include <math.h>
#include <string.h>

static void put_int(ap_options *o, uint16_t id, ap_option_kind kind, int64_t v) {
  ap_option_field *f = &o->fields[o->count++];
  f->id = id;
  f->kind = kind;
  f->i = v;
}

static ap_options make(uint8_t type) {
  ap_options o;
  memset(&o, 0, sizeof o);
  o.type = type;
  return o;
}

ap_options ap_options_conv2d(ap_padding padding, int32_t stride_w, int32_t stride_h,
                             ap_activation act, int32_t dilation_w, int32_t dilation_h) {
  ap_options o = make(AP_BUILTIN_OPTIONS_CONV2D);
  put_int(&o, 0, AP_OPT_INT8, padding);
  put_int(&o, 1, AP_OPT_INT32, stride_w);
  put_int(&o, 2, AP_OPT_INT32, stride_h);
  put_int(&o, 3, AP_OPT_INT8, act);
  put_int(&o, 4, AP_OPT_INT32, dilation_w);
  put_int(&o, 5, AP_OPT_INT32, dilation_h);
  return o;
}

ap_options ap_options_depthwise_conv2d(ap_padding padding, int32_t stride_w, int32_t stride_h,
                                       int32_t depth_multiplier, ap_activation act,
                                       int32_t dilation_w, int32_t dilation_h) {
  ap_options o = make(AP_BUILTIN_OPTIONS_DEPTHWISE_CONV2D);
  put_int(&o, 0, AP_OPT_INT8, padding);
  put_int(&o, 1, AP_OPT_INT32, stride_w);
  put_int(&o, 2, AP_OPT_INT32, stride_h);
  put_int(&o, 3, AP_OPT_INT32, depth_multiplier);
  put_int(&o, 4, AP_OPT_INT8, act);
  put_int(&o, 5, AP_OPT_INT32, dilation_w);
  put_int(&o, 6, AP_OPT_INT32, dilation_h);
  return o;
}

ap_options ap_options_pool2d(ap_padding padding, int32_t stride_w, int32_t stride_h,
                             int32_t filter_w, int32_t filter_h, ap_activation act) {
  ap_options o = make(AP_BUILTIN_OPTIONS_POOL2D);
  put_int(&o, 0, AP_OPT_INT8, padding);
  put_int(&o, 1, AP_OPT_INT32, stride_w);
  put_int(&o, 2, AP_OPT_INT32, stride_h);
  put_int(&o, 3, AP_OPT_INT32, filter_w);
  put_int(&o, 4, AP_OPT_INT32, filter_h);
  put_int(&o, 5, AP_OPT_INT8, act);
  return o;
}

ap_options ap_options_fully_connected(ap_activation act, bool keep_num_dims) {
  ap_options o = make(AP_BUILTIN_OPTIONS_FULLY_CONNECTED);
  put_int(&o, 0, AP_OPT_INT8, act);
  put_int(&o, 1, AP_OPT_INT8, 0); /* weights_format DEFAULT */
  put_int(&o, 2, AP_OPT_BOOL, keep_num_dims);
  return o;
}

ap_options ap_options_softmax(float beta) {
  ap_options o = make(AP_BUILTIN_OPTIONS_SOFTMAX);
  o.fields[0] = (ap_option_field){.id = 0, .kind = AP_OPT_FLOAT32, .f = beta};
  o.count = 1;
  return o;
}

ap_options ap_options_add(ap_activation act) {
  ap_options o = make(AP_BUILTIN_OPTIONS_ADD);
  put_int(&o, 0, AP_OPT_INT8, act);
  return o;
}

ap_options ap_options_mul(ap_activation act) {
  ap_options o = make(AP_BUILTIN_OPTIONS_MUL);
  put_int(&o, 0, AP_OPT_INT8, act);
  return o;
}

ap_options ap_options_reshape(const int32_t *new_shape, size_t n) {
  ap_options o = make(AP_BUILTIN_OPTIONS_RESHAPE);
  o.fields[0] = (ap_option_field){.id = 0, .kind = AP_OPT_INT32_VECTOR, .data = new_shape, .n = n};
  o.count = 1;
  return o;
}

ap_options ap_options_concatenation(int32_t axis, ap_activation act) {
  ap_options o = make(AP_BUILTIN_OPTIONS_CONCATENATION);
  put_int(&o, 0, AP_OPT_INT32, axis);
  put_int(&o, 1, AP_OPT_INT8, act);
  return o;
}

/* The range an integer kind's value must lie in. */
static bool int_range(ap_option_kind k, int64_t *lo, int64_t *hi) {
  switch (k) {
  case AP_OPT_BOOL: *lo = 0, *hi = 1; return true;
  case AP_OPT_INT8: *lo = INT8_MIN, *hi = INT8_MAX; return true;
  case AP_OPT_UINT8: *lo = 0, *hi = UINT8_MAX; return true;
  case AP_OPT_INT16: *lo = INT16_MIN, *hi = INT16_MAX; return true;
  case AP_OPT_UINT16: *lo = 0, *hi = UINT16_MAX; return true;
  case AP_OPT_INT32: *lo = INT32_MIN, *hi = INT32_MAX; return true;
  case AP_OPT_UINT32: *lo = 0, *hi = UINT32_MAX; return true;
  case AP_OPT_INT64:
  case AP_OPT_UINT64: *lo = INT64_MIN, *hi = INT64_MAX; return true;
  default: return false;
  }
}

static size_t vector_elem(ap_option_kind k) {
  switch (k) {
  case AP_OPT_INT32_VECTOR: return 4;
  case AP_OPT_INT64_VECTOR: return 8;
  case AP_OPT_UINT8_VECTOR: return 1;
  default: return 0;
  }
}

static ap_status check_field(ap_writer *w, const char *what, const ap_option_field *f) {
  int64_t lo, hi;
  if (f->id > AP_OPTIONS_MAX_FIELD_ID)
    return ap_fail(&w->err, AP_ERR_RANGE, "%s: field id %u above the limit %d", what,
                   (unsigned)f->id, AP_OPTIONS_MAX_FIELD_ID);
  if (int_range(f->kind, &lo, &hi)) {
    if (f->i < lo || f->i > hi)
      return ap_fail(&w->err, AP_ERR_RANGE,
                     "%s: field %u: value %lld does not fit its kind (%lld..%lld)", what,
                     (unsigned)f->id, (long long)f->i, (long long)lo, (long long)hi);
    return AP_OK;
  }
  if (f->kind == AP_OPT_FLOAT32) {
    /* A finite double beyond float's range would become infinity silently. */
    if (isfinite(f->f) && fabs(f->f) > 3.4028234663852886e38)
      return ap_fail(&w->err, AP_ERR_RANGE, "%s: field %u: value %g does not fit a float", what,
                     (unsigned)f->id, f->f);
    return AP_OK;
  }
  if (f->kind == AP_OPT_FLOAT64) return AP_OK;
  if (f->kind == AP_OPT_STRING) {
    if (!f->data)
      return ap_fail(&w->err, AP_ERR_ARG, "%s: field %u: string is NULL", what, (unsigned)f->id);
    return AP_OK;
  }
  if (vector_elem(f->kind)) {
    if (f->n && !f->data)
      return ap_fail(&w->err, AP_ERR_ARG, "%s: field %u: vector is NULL with %zu elements", what,
                     (unsigned)f->id, f->n);
    if (f->n > UINT32_MAX)
      return ap_fail(&w->err, AP_ERR_OVERFLOW,
                     "%s: field %u: %zu elements do not fit a FlatBuffer vector", what,
                     (unsigned)f->id, f->n);
    return AP_OK;
  }
  return ap_fail(&w->err, AP_ERR_ARG, "%s: field %u: unknown kind %d", what, (unsigned)f->id,
                 (int)f->kind);
}

ap_status wr_copy_options(ap_writer *w, const ap_options *in, wr_options *out, const char *what) {
  memset(out, 0, sizeof *out);
  if (in->count > AP_OPTIONS_MAX_FIELDS)
    return ap_fail(&w->err, AP_ERR_RANGE, "%s: %zu fields, at most %d", what, in->count,
                   AP_OPTIONS_MAX_FIELDS);
  if (in->type == 0 && in->count)
    return ap_fail(&w->err, AP_ERR_ARG, "%s: %zu fields but union type 0 (NONE)", what, in->count);
  for (size_t i = 0; i < in->count; i++) {
    ap_status s = check_field(w, what, &in->fields[i]);
    if (s) return s;
    for (size_t j = 0; j < i; j++)
      if (in->fields[j].id == in->fields[i].id)
        return ap_fail(&w->err, AP_ERR_ARG, "%s: field %u given twice", what,
                       (unsigned)in->fields[i].id);
  }
  out->type = in->type;
  out->count = in->count;
  if (!in->count) return AP_OK;
  ap_option_field *f = wr_memdup(w, in->fields, in->count, sizeof *f);
  if (!f) return w->mem_status;
  for (size_t i = 0; i < in->count; i++) {
    /* The caller's vectors and strings may be gone by the time the model is finished. */
    size_t elem = vector_elem(f[i].kind);
    if (f[i].kind == AP_OPT_STRING) {
      if (!(f[i].data = wr_strdup(w, f[i].data))) return w->mem_status;
    } else if (elem) {
      f[i].data = f[i].n ? wr_memdup(w, f[i].data, f[i].n, elem) : NULL;
      if (f[i].n && !f[i].data) return w->mem_status;
    }
  }
  out->fields = f;
  return AP_OK;
}
