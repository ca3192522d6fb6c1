/* Encoding KServe v2 responses (jansson), with the binary tensor data extension. */
#include "v2_codec.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool v2_buf_append(v2_buf *b, const void *p, size_t n) {
  if (n == 0) return true;
  if (n > SIZE_MAX - b->len) return false;
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n) {
      if (cap > SIZE_MAX / 2) return false;
      cap *= 2;
    }
    uint8_t *d = realloc(b->data, cap);
    if (!d) return false;
    b->data = d;
    b->cap = cap;
  }
  memcpy(b->data + b->len, p, n);
  b->len += n;
  return true;
}

void v2_buf_free(v2_buf *b) {
  if (!b) return;
  free(b->data);
  memset(b, 0, sizeof *b);
}

static bool failf(char *err, size_t err_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool failf(char *err, size_t err_size, const char *fmt, ...) {
  if (err && err_size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_size, fmt, ap);
    va_end(ap);
  }
  return false;
}

/* Doubles are written with 17 significant digits: they parse back to the same double, and a
 * float widened to double then parses back to that float's exact value. */
#define V2_DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(17))

static bool dump_into(json_t *root, v2_buf *out) {
  char *text = json_dumps(root, V2_DUMP_FLAGS);
  if (!text) return false;
  bool ok = v2_buf_append(out, text, strlen(text));
  free(text);
  return ok;
}

static json_t *element(const uint8_t *p, int dtype) {
  uint64_t u = 0;
  size_t size = v2_element_size(dtype);
  for (size_t i = 0; i < size; i++)
    u |= (uint64_t)p[i] << (8 * i);
  switch (dtype) {
  case AP_BOOL: return json_boolean(u != 0);
  case AP_UINT8:
  case AP_UINT16:
  case AP_UINT32: return json_integer((json_int_t)u);
  case AP_INT8: return json_integer((int8_t)u);
  case AP_INT16: return json_integer((int16_t)u);
  case AP_INT32: return json_integer((int32_t)u);
  case AP_INT64: return json_integer((json_int_t)(int64_t)u);
  case AP_UINT64: return u <= INT64_MAX ? json_integer((json_int_t)u) : NULL;
  case AP_FLOAT32: {
    float f;
    uint32_t w = (uint32_t)u;
    memcpy(&f, &w, 4);
    return isfinite(f) ? json_real((double)f) : NULL;
  }
  case AP_FLOAT64: {
    double d;
    memcpy(&d, &u, 8);
    return isfinite(d) ? json_real(d) : NULL;
  }
  default: return NULL;
  }
}

static json_t *shape_array(const int32_t *dims, int rank) {
  json_t *a = json_array();
  for (int i = 0; a && i < rank; i++)
    if (json_array_append_new(a, json_integer(dims[i]))) {
      json_decref(a);
      return NULL;
    }
  return a;
}

static bool encode_output(json_t *outs, const v2_tensor_out *o, char *err, size_t err_size) {
  const char *type = v2_datatype_name(o->dtype);
  if (!type) return failf(err, err_size, "output '%s': its type has no protocol datatype", o->name);
  json_t *t = json_object();
  if (!t || json_array_append_new(outs, t)) return failf(err, err_size, "out of memory");
  if (json_object_set_new(t, "name", json_string(o->name)) ||
      json_object_set_new(t, "datatype", json_string(type)) ||
      json_object_set_new(t, "shape", shape_array(o->dims, o->rank)))
    return failf(err, err_size, "out of memory");
  if (o->binary) {
    json_t *p = json_object();
    if (!p || json_object_set_new(t, "parameters", p) ||
        json_object_set_new(p, "binary_data_size", json_integer((json_int_t)o->bytes)))
      return failf(err, err_size, "out of memory");
    return true;
  }
  if (o->dtype == AP_FLOAT16)
    return failf(err, err_size, "output '%s': FP16 only in binary form (binary_data: true)",
                 o->name);
  json_t *data = json_array();
  if (!data || json_object_set_new(t, "data", data)) return failf(err, err_size, "out of memory");
  size_t es = v2_element_size(o->dtype), n = es ? o->bytes / es : 0;
  const uint8_t *p = o->data;
  for (size_t i = 0; i < n; i++) {
    json_t *v = element(p + i * es, o->dtype);
    if (!v)
      return failf(err, err_size,
                   "output '%s': element %zu has no JSON number (NaN, infinity or beyond "
                   "INT64): ask for it with binary_data: true",
                   o->name, i);
    if (json_array_append_new(data, v)) return failf(err, err_size, "out of memory");
  }
  return true;
}

bool v2_encode_response(const char *model, const char *id, const v2_tensor_out *outs, size_t n,
                        v2_buf *out, size_t *header_len, char *err, size_t err_size) {
  *header_len = 0;
  json_t *root = json_object(), *arr = json_array();
  bool ok = root && arr && !json_object_set_new(root, "model_name", json_string(model)) &&
            !json_object_set_new(root, "model_version", json_string("1")) &&
            (!id || !json_object_set_new(root, "id", json_string(id)));
  if (!ok || json_object_set_new(root, "outputs", arr)) {
    json_decref(root);
    return failf(err, err_size, "out of memory");
  }
  bool binary = false;
  for (size_t i = 0; i < n && ok; i++) {
    ok = encode_output(arr, &outs[i], err, err_size);
    binary |= outs[i].binary;
  }
  if (ok && !dump_into(root, out)) ok = failf(err, err_size, "out of memory");
  json_decref(root);
  if (!ok) return false;
  if (binary) {
    *header_len = out->len;
    for (size_t i = 0; i < n; i++)
      if (outs[i].binary && !v2_buf_append(out, outs[i].data, outs[i].bytes))
        return failf(err, err_size, "out of memory");
  }
  return true;
}

bool v2_encode_error(const char *message, v2_buf *out) {
  json_t *root = json_object();
  bool ok = root && !json_object_set_new(root, "error", json_string(message ? message : "")) &&
            dump_into(root, out);
  json_decref(root);
  return ok;
}

static json_t *sig_array(const v2_tensor_sig *s, size_t n) {
  json_t *a = json_array();
  for (size_t i = 0; a && i < n; i++) {
    json_t *t = json_object();
    const char *type = v2_datatype_name(s[i].dtype);
    if (!t || json_array_append_new(a, t) ||
        json_object_set_new(t, "name", json_string(s[i].name)) ||
        json_object_set_new(t, "datatype", json_string(type ? type : "BYTES")) ||
        json_object_set_new(t, "shape", shape_array(s[i].dims, s[i].rank))) {
      json_decref(a);
      return NULL;
    }
  }
  return a;
}

bool v2_encode_metadata(const char *model, const v2_tensor_sig *inputs, size_t input_count,
                        const v2_tensor_sig *outputs, size_t output_count, v2_buf *out) {
  json_t *root = json_object(), *versions = json_array();
  bool ok = root && versions && !json_object_set_new(root, "name", json_string(model)) &&
            !json_array_append_new(versions, json_string("1")) &&
            !json_object_set_new(root, "versions", versions) &&
            !json_object_set_new(root, "platform", json_string("tflite")) &&
            !json_object_set_new(root, "inputs", sig_array(inputs, input_count)) &&
            !json_object_set_new(root, "outputs", sig_array(outputs, output_count)) &&
            dump_into(root, out);
  if (!root) json_decref(versions);
  json_decref(root);
  return ok;
}
