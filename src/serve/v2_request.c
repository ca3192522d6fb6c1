/* Decoding a KServe v2 inference request (JSON with jansson, plus the binary tensor data
 * extension) and matching it to a model's tensors. */
#include "v2_codec.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  int dtype;
  size_t size;
} v2_types[] = {
    {"BOOL", AP_BOOL, 1},     {"UINT8", AP_UINT8, 1}, {"INT8", AP_INT8, 1},
    {"UINT16", AP_UINT16, 2}, {"INT16", AP_INT16, 2}, {"FP16", AP_FLOAT16, 2},
    {"UINT32", AP_UINT32, 4}, {"INT32", AP_INT32, 4}, {"FP32", AP_FLOAT32, 4},
    {"UINT64", AP_UINT64, 8}, {"INT64", AP_INT64, 8}, {"FP64", AP_FLOAT64, 8},
};
#define V2_TYPE_COUNT (sizeof v2_types / sizeof v2_types[0])

const char *v2_datatype_name(int dtype) {
  for (size_t i = 0; i < V2_TYPE_COUNT; i++)
    if (v2_types[i].dtype == dtype) return v2_types[i].name;
  return NULL;
}

int v2_datatype_of(const char *name) {
  for (size_t i = 0; name && i < V2_TYPE_COUNT; i++)
    if (!strcmp(v2_types[i].name, name)) return v2_types[i].dtype;
  return -1;
}

size_t v2_element_size(int dtype) {
  for (size_t i = 0; i < V2_TYPE_COUNT; i++)
    if (v2_types[i].dtype == dtype) return v2_types[i].size;
  return 0;
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

void v2_request_free(v2_request *r) {
  if (!r) return;
  for (size_t i = 0; i < r->input_count; i++) {
    free(r->inputs[i].name);
    free(r->inputs[i].owned);
  }
  for (size_t i = 0; i < r->output_count; i++)
    free(r->outputs[i].name);
  free(r->inputs);
  free(r->outputs);
  free(r->id);
  memset(r, 0, sizeof *r);
}

/* One JSON value into element k of a tensor of type dtype (little-endian). */
static bool put_value(json_t *v, int dtype, uint8_t *dst, char *err, size_t err_size,
                      const char *name, size_t k) {
  if (dtype == AP_BOOL) {
    if (json_is_boolean(v)) {
      dst[0] = json_is_true(v) ? 1 : 0;
      return true;
    }
    if (json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1)) {
      dst[0] = (uint8_t)json_integer_value(v);
      return true;
    }
    return failf(err, err_size, "input '%s': element %zu is not a BOOL (true, false, 0, 1)", name,
                 k);
  }
  if (dtype == AP_FLOAT32 || dtype == AP_FLOAT64) {
    if (!json_is_number(v))
      return failf(err, err_size, "input '%s': element %zu is not a number", name, k);
    double d = json_number_value(v);
    if (dtype == AP_FLOAT64) {
      memcpy(dst, &d, 8);
    } else {
      if (isfinite(d) && fabs(d) > 3.4028234663852886e38)
        return failf(err, err_size, "input '%s': element %zu is out of FP32's range", name, k);
      float f = (float)d;
      memcpy(dst, &f, 4);
    }
    return true;
  }
  if (dtype == AP_FLOAT16)
    return failf(err, err_size, "input '%s': FP16 data only in binary form (binary_data_size)",
                 name);
  if (!json_is_integer(v))
    return failf(err, err_size, "input '%s': element %zu is not an integer", name, k);
  json_int_t x = json_integer_value(v);
  int64_t lo, hi;
  size_t size = v2_element_size(dtype);
  switch (dtype) {
  case AP_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
  case AP_UINT8: lo = 0, hi = UINT8_MAX; break;
  case AP_INT16: lo = INT16_MIN, hi = INT16_MAX; break;
  case AP_UINT16: lo = 0, hi = UINT16_MAX; break;
  case AP_INT32: lo = INT32_MIN, hi = INT32_MAX; break;
  case AP_UINT32: lo = 0, hi = UINT32_MAX; break;
  case AP_INT64: lo = INT64_MIN, hi = INT64_MAX; break;
  default: lo = 0, hi = INT64_MAX; break; /* UINT64: what a JSON integer can hold here */
  }
  if (x < lo || x > hi)
    return failf(err, err_size, "input '%s': element %zu (%lld) is out of %s's range", name, k,
                 (long long)x, v2_datatype_name(dtype));
  uint64_t u = (uint64_t)x;
  for (size_t i = 0; i < size; i++)
    dst[i] = (uint8_t)(u >> (8 * i)); /* little-endian */
  return true;
}

/* Walks `data` (flat, or nested row-major arrays) writing elements in order. */
static bool put_data(json_t *v, int depth, int dtype, uint8_t *dst, size_t count, size_t *k,
                     char *err, size_t err_size, const char *name) {
  if (!json_is_array(v)) {
    if (*k >= count)
      return failf(err, err_size, "input '%s': more elements in data than the shape's %zu", name,
                   count);
    size_t es = v2_element_size(dtype);
    if (!put_value(v, dtype, dst + *k * es, err, err_size, name, *k)) return false;
    (*k)++;
    return true;
  }
  if (depth > AP_MAX_DIMS)
    return failf(err, err_size, "input '%s': data nested deeper than %d", name, AP_MAX_DIMS);
  size_t n = json_array_size(v);
  for (size_t i = 0; i < n; i++)
    if (!put_data(json_array_get(v, i), depth + 1, dtype, dst, count, k, err, err_size, name))
      return false;
  return true;
}

static bool binary_size_param(json_t *t, bool *has, uint64_t *size, char *err, size_t err_size,
                              const char *what, const char *name) {
  *has = false;
  json_t *params = json_object_get(t, "parameters");
  if (!params) return true;
  if (!json_is_object(params))
    return failf(err, err_size, "%s '%s': parameters must be an object", what, name);
  json_t *b = json_object_get(params, "binary_data_size");
  if (!b) return true;
  if (!json_is_integer(b) || json_integer_value(b) < 0)
    return failf(err, err_size, "%s '%s': binary_data_size must be a non-negative integer", what,
                 name);
  *has = true;
  *size = (uint64_t)json_integer_value(b);
  return true;
}

static bool decode_input(json_t *t, v2_input *in, const uint8_t *bin, size_t bin_len,
                         size_t *bin_used, char *err, size_t err_size) {
  if (!json_is_object(t)) return failf(err, err_size, "inputs: each input must be an object");
  json_t *jn = json_object_get(t, "name"), *jt = json_object_get(t, "datatype"),
         *js = json_object_get(t, "shape");
  if (!json_is_string(jn) || !json_string_length(jn))
    return failf(err, err_size, "inputs: an input without a name");
  const char *name = json_string_value(jn);
  if (strlen(name) != json_string_length(jn))
    return failf(err, err_size, "inputs: NUL byte in an input's name");
  if (!(in->name = strdup(name))) return failf(err, err_size, "out of memory");
  if (!json_is_string(jt)) return failf(err, err_size, "input '%s': no datatype", name);
  in->dtype = v2_datatype_of(json_string_value(jt));
  if (in->dtype < 0)
    return failf(err, err_size, "input '%s': unknown datatype \"%.32s\"", name,
                 json_string_value(jt));
  if (!json_is_array(js)) return failf(err, err_size, "input '%s': no shape", name);
  size_t rank = json_array_size(js);
  if (rank > AP_MAX_DIMS)
    return failf(err, err_size, "input '%s': rank %zu is more than %d", name, rank, AP_MAX_DIMS);
  in->rank = (int)rank;
  uint64_t count = 1;
  for (size_t i = 0; i < rank; i++) {
    json_t *d = json_array_get(js, i);
    if (!json_is_integer(d) || json_integer_value(d) < 0 || json_integer_value(d) > INT32_MAX)
      return failf(err, err_size, "input '%s': shape[%zu] is not a dimension from 0 to %d", name, i,
                   INT32_MAX);
    in->shape[i] = json_integer_value(d);
    if (__builtin_mul_overflow(count, (uint64_t)in->shape[i], &count))
      return failf(err, err_size, "input '%s': the shape's element count overflows", name);
  }
  size_t es = v2_element_size(in->dtype);
  uint64_t bytes;
  if (__builtin_mul_overflow(count, (uint64_t)es, &bytes) || bytes > SIZE_MAX / 2)
    return failf(err, err_size, "input '%s': the shape's byte count overflows", name);
  bool has_bin;
  uint64_t bin_size = 0;
  if (!binary_size_param(t, &has_bin, &bin_size, err, err_size, "input", name)) return false;
  json_t *data = json_object_get(t, "data");
  if (has_bin) {
    if (data) return failf(err, err_size, "input '%s': both data and binary_data_size", name);
    if (bin_size != bytes)
      return failf(err, err_size,
                   "input '%s': binary_data_size %llu but shape and datatype make %llu bytes", name,
                   (unsigned long long)bin_size, (unsigned long long)bytes);
    if (bin_size > bin_len - *bin_used)
      return failf(err, err_size,
                   "input '%s': binary_data_size %llu but only %zu binary bytes remain", name,
                   (unsigned long long)bin_size, bin_len - *bin_used);
    in->data = bin + *bin_used;
    in->bytes = (size_t)bytes;
    *bin_used += (size_t)bytes;
    return true;
  }
  if (!data) return failf(err, err_size, "input '%s': no data (nor binary_data_size)", name);
  /* No more elements than the JSON holds values: a huge shape cannot make a huge buffer. */
  in->owned = malloc(bytes ? (size_t)bytes : 1);
  if (!in->owned)
    return failf(err, err_size, "input '%s': %llu bytes: out of memory", name,
                 (unsigned long long)bytes);
  size_t k = 0;
  if (!put_data(data, 0, in->dtype, in->owned, (size_t)count, &k, err, err_size, name))
    return false;
  if (k != count)
    return failf(err, err_size, "input '%s': data has %zu elements, the shape %llu", name, k,
                 (unsigned long long)count);
  in->data = in->owned;
  in->bytes = (size_t)bytes;
  return true;
}

/* A JSON array's values, nested, may not be fewer than the shape says: counted before the
 * buffer is made, so a shape of 2^31 x 2^31 with three values fails fast. */
static size_t count_leaves(json_t *v, int depth) {
  if (!json_is_array(v)) return 1;
  if (depth > AP_MAX_DIMS) return 0;
  size_t n = 0;
  for (size_t i = 0; i < json_array_size(v); i++)
    n += count_leaves(json_array_get(v, i), depth + 1);
  return n;
}

static bool decode_outputs(json_t *outs, v2_request *r, char *err, size_t err_size) {
  if (!json_is_array(outs)) return failf(err, err_size, "outputs must be an array");
  size_t n = json_array_size(outs);
  if (n > V2_MAX_TENSORS) return failf(err, err_size, "outputs: more than %d", V2_MAX_TENSORS);
  if (!n) return true;
  if (!(r->outputs = calloc(n, sizeof *r->outputs))) return failf(err, err_size, "out of memory");
  for (size_t i = 0; i < n; i++) {
    json_t *o = json_array_get(outs, i), *jn = json_object_get(o, "name");
    if (!json_is_object(o) || !json_is_string(jn) || !json_string_length(jn))
      return failf(err, err_size, "outputs: each output must be an object with a name");
    const char *name = json_string_value(jn);
    if (strlen(name) != json_string_length(jn))
      return failf(err, err_size, "outputs: NUL byte in an output's name");
    for (size_t j = 0; j < i; j++)
      if (!strcmp(r->outputs[j].name, name))
        return failf(err, err_size, "outputs: '%s' asked for twice", name);
    if (!(r->outputs[i].name = strdup(name))) return failf(err, err_size, "out of memory");
    r->output_count = i + 1;
    r->outputs[i].binary = r->binary_output;
    json_t *params = json_object_get(o, "parameters");
    if (params) {
      if (!json_is_object(params))
        return failf(err, err_size, "output '%s': parameters must be an object", name);
      json_t *b = json_object_get(params, "binary_data");
      if (b && !json_is_boolean(b))
        return failf(err, err_size, "output '%s': binary_data must be true or false", name);
      if (b) r->outputs[i].binary = json_is_true(b);
    }
  }
  return true;
}

static bool decode_json(json_t *root, const uint8_t *bin, size_t bin_len, v2_request *r, char *err,
                        size_t err_size) {
  if (!json_is_object(root)) return failf(err, err_size, "the request must be a JSON object");
  json_t *id = json_object_get(root, "id");
  if (id) {
    if (!json_is_string(id)) return failf(err, err_size, "id must be a string");
    if (strlen(json_string_value(id)) != json_string_length(id))
      return failf(err, err_size, "id: NUL byte");
    if (!(r->id = strdup(json_string_value(id)))) return failf(err, err_size, "out of memory");
  }
  json_t *params = json_object_get(root, "parameters");
  if (params) {
    if (!json_is_object(params)) return failf(err, err_size, "parameters must be an object");
    json_t *b = json_object_get(params, "binary_data_output");
    if (b && !json_is_boolean(b))
      return failf(err, err_size, "binary_data_output must be true or false");
    r->binary_output = b && json_is_true(b);
  }
  json_t *ins = json_object_get(root, "inputs");
  if (!json_is_array(ins) || !json_array_size(ins))
    return failf(err, err_size, "inputs must be a non-empty array");
  size_t n = json_array_size(ins);
  if (n > V2_MAX_TENSORS) return failf(err, err_size, "inputs: more than %d", V2_MAX_TENSORS);
  if (!(r->inputs = calloc(n, sizeof *r->inputs))) return failf(err, err_size, "out of memory");
  size_t used = 0;
  for (size_t i = 0; i < n; i++) {
    json_t *t = json_array_get(ins, i), *data = json_object_get(t, "data");
    r->input_count = i + 1;
    if (data && json_is_object(t)) {
      /* Fewer values than the shape: refused before its buffer is made. */
      json_t *js = json_object_get(t, "shape");
      uint64_t count = 1;
      bool ok = json_is_array(js) && json_array_size(js) <= AP_MAX_DIMS;
      for (size_t d = 0; ok && d < json_array_size(js); d++) {
        json_t *x = json_array_get(js, d);
        ok = json_is_integer(x) && json_integer_value(x) >= 0 &&
             !__builtin_mul_overflow(count, (uint64_t)json_integer_value(x), &count);
      }
      size_t leaves = count_leaves(data, 0);
      if (ok && leaves != count) {
        json_t *jn = json_object_get(t, "name");
        return failf(err, err_size, "input '%s': data has %zu elements, the shape %llu",
                     json_is_string(jn) ? json_string_value(jn) : "?", leaves,
                     (unsigned long long)count);
      }
    }
    if (!decode_input(t, &r->inputs[i], bin, bin_len, &used, err, err_size)) return false;
    for (size_t j = 0; j < i; j++)
      if (!strcmp(r->inputs[j].name, r->inputs[i].name))
        return failf(err, err_size, "input '%s' given twice", r->inputs[i].name);
  }
  if (used != bin_len)
    return failf(err, err_size,
                 "the body has %zu binary bytes after the JSON header, the inputs' "
                 "binary_data_size add up to %zu",
                 bin_len, used);
  json_t *outs = json_object_get(root, "outputs");
  if (outs && !decode_outputs(outs, r, err, err_size)) return false;
  return true;
}

bool v2_decode_request(const uint8_t *body, size_t len, bool has_header, uint64_t header_len,
                       v2_request *out, char *err, size_t err_size) {
  if (err && err_size) err[0] = '\0';
  if (!out) return failf(err, err_size, "no request");
  memset(out, 0, sizeof *out);
  if (!body && len) return failf(err, err_size, "no body");
  size_t json_len = len;
  if (has_header) {
    if (header_len > len)
      return failf(err, err_size,
                   "Inference-Header-Content-Length %llu is more than the body's %zu bytes",
                   (unsigned long long)header_len, len);
    json_len = (size_t)header_len;
  }
  if (json_len == 0) return failf(err, err_size, "empty request body");
  json_error_t je;
  json_t *root = json_loadb((const char *)body, json_len, JSON_REJECT_DUPLICATES, &je);
  if (!root)
    return failf(err, err_size, "malformed JSON at line %d column %d: %s", je.line, je.column,
                 je.text);
  bool ok = decode_json(root, body + json_len, len - json_len, out, err, err_size);
  json_decref(root);
  if (!ok) v2_request_free(out);
  return ok;
}

static const char *shape_text(char *buf, size_t size, const int64_t *d64, const int32_t *d32,
                              int rank) {
  size_t k = 0;
  k += (size_t)snprintf(buf + k, size - k, "[");
  for (int i = 0; i < rank && k < size; i++)
    k += (size_t)snprintf(buf + k, size - k, "%s%lld", i ? "," : "",
                          d64 ? (long long)d64[i] : (long long)d32[i]);
  if (k < size) snprintf(buf + k, size - k, "]");
  return buf;
}

bool v2_match(const v2_request *r, const v2_tensor_sig *inputs, size_t input_count,
              const v2_tensor_sig *outputs, size_t output_count, size_t *input_of, uint8_t *want,
              char *err, size_t err_size) {
  char a[128], b[128];
  for (size_t k = 0; k < input_count; k++)
    input_of[k] = SIZE_MAX;
  for (size_t i = 0; i < r->input_count; i++) {
    const v2_input *in = &r->inputs[i];
    size_t k = 0;
    while (k < input_count && strcmp(inputs[k].name, in->name))
      k++;
    if (k == input_count) return failf(err, err_size, "unknown input '%s'", in->name);
    const v2_tensor_sig *s = &inputs[k];
    if (in->dtype != s->dtype)
      return failf(err, err_size, "input '%s': datatype %s, the model takes %s", in->name,
                   v2_datatype_name(in->dtype), v2_datatype_name(s->dtype));
    bool same = in->rank == s->rank;
    for (int d = 0; same && d < s->rank; d++)
      same = in->shape[d] == s->dims[d];
    if (!same)
      return failf(err, err_size, "input '%s': shape %s, the model takes %s", in->name,
                   shape_text(a, sizeof a, in->shape, NULL, in->rank),
                   shape_text(b, sizeof b, NULL, s->dims, s->rank));
    if (in->bytes != s->bytes)
      return failf(err, err_size, "input '%s': %zu bytes, the model takes %zu", in->name, in->bytes,
                   s->bytes);
    input_of[k] = i;
  }
  for (size_t k = 0; k < input_count; k++)
    if (input_of[k] == SIZE_MAX) return failf(err, err_size, "missing input '%s'", inputs[k].name);
  for (size_t k = 0; k < output_count; k++)
    want[k] = r->output_count ? 0 : (r->binary_output ? 2 : 1);
  for (size_t i = 0; i < r->output_count; i++) {
    size_t k = 0;
    while (k < output_count && strcmp(outputs[k].name, r->outputs[i].name))
      k++;
    if (k == output_count) return failf(err, err_size, "unknown output '%s'", r->outputs[i].name);
    want[k] = r->outputs[i].binary ? 2 : 1;
  }
  return true;
}
