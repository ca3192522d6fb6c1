/* TFLite's C API: tensor getters and copies, each read from the runtime when asked (a handle
 * keeps only which tensor it is, so it never goes stale after a resize or allocate). */
#include "c_api_internal.h"

#include <string.h>

static bool view(const TfLiteTensor *t, ap_tensor *out) {
  return t && ap_interpreter_tensor(t->owner->it, t->subgraph, t->index, out) == AP_OK;
}

TfLiteType TfLiteTensorType(const TfLiteTensor *tensor) {
  ap_tensor v;
  return view(tensor, &v) ? capi_type(v.type) : kTfLiteNoType;
}

int32_t TfLiteTensorNumDims(const TfLiteTensor *tensor) {
  ap_tensor v;
  return view(tensor, &v) ? v.rank : 0;
}

int32_t TfLiteTensorDim(const TfLiteTensor *tensor, int32_t dim_index) {
  ap_tensor v;
  if (!view(tensor, &v) || dim_index < 0 || dim_index >= v.rank) return -1;
  return v.dims[dim_index];
}

size_t TfLiteTensorByteSize(const TfLiteTensor *tensor) {
  ap_tensor v;
  return view(tensor, &v) ? v.bytes : 0;
}

void *TfLiteTensorData(const TfLiteTensor *tensor) {
  ap_tensor v;
  return view(tensor, &v) ? v.data : NULL;
}

const char *TfLiteTensorName(const TfLiteTensor *tensor) {
  ap_tensor v;
  return view(tensor, &v) ? v.name : NULL;
}

TfLiteQuantizationParams TfLiteTensorQuantizationParams(const TfLiteTensor *tensor) {
  ap_tensor v;
  TfLiteQuantizationParams q = {0.0f, 0};
  if (view(tensor, &v) && v.quant_count) {
    q.scale = v.scale;
    q.zero_point = v.zero_point;
  }
  return q;
}

/* TFLite's rule: the size must be the tensor's byte size exactly, and the tensor must have
 * its bytes (allocated). Constants are never written (they are the model's own bytes). */
static TfLiteStatus copy_check(const TfLiteTensor *t, const ap_tensor *v, const void *buf,
                               size_t size, const char *what) {
  if (!buf && size) {
    capi_ireport(t->owner, "%s: tensor \"%s\": the buffer is NULL", what, v->name);
    return kTfLiteError;
  }
  if (size != v->bytes) {
    capi_ireport(t->owner, "%s: tensor \"%s\" holds %zu bytes, the buffer %zu", what, v->name,
                 v->bytes, size);
    return kTfLiteError;
  }
  if (!v->data && v->bytes) {
    capi_ireport(t->owner,
                 "%s: tensor \"%s\" has no data: call "
                 "TfLiteInterpreterAllocateTensors first",
                 what, v->name);
    return kTfLiteError;
  }
  return kTfLiteOk;
}

/* A string tensor's value is a whole buffer (count, offsets, bytes: model.h) of any size, as
 * TfLiteTensorByteSize and TfLiteTensorData give it back; TFLite itself accepts only the size
 * the tensor holds already (0 before a first value), so this is a superset of its rule. The
 * buffer's count must be the tensor's element count (resize first), its size exactly where its
 * strings end; the runtime checks the rest (ap_string_buffer_check) and keeps a copy. */
static TfLiteStatus copy_string(TfLiteTensor *t, const ap_tensor *v, const void *buf, size_t size) {
  static const char what[] = "TfLiteTensorCopyFromBuffer";
  if (!buf) {
    capi_ireport(t->owner, "%s: tensor \"%s\": the buffer is NULL", what, v->name);
    return kTfLiteError;
  }
  size_t used = 0;
  if (ap_string_buffer_check(buf, size, SIZE_MAX, &used, NULL, 0) == AP_OK && used != size) {
    capi_ireport(t->owner,
                 "%s: tensor \"%s\": the string buffer is %zu bytes, its strings end at %zu", what,
                 v->name, size, used);
    return kTfLiteError;
  }
  ap_status s =
      ap_interpreter_set_string(t->owner->it, t->subgraph, t->index, buf, size, v->dims, v->rank);
  if (s == AP_ERR_NOT_ALLOCATED) { /* the runtime's message names its own call */
    capi_ireport(t->owner, "%s: tensor \"%s\": call TfLiteInterpreterAllocateTensors first", what,
                 v->name);
    return kTfLiteError;
  }
  return capi_status(t->owner, s, what);
}

TfLiteStatus TfLiteTensorCopyFromBuffer(TfLiteTensor *tensor, const void *input_data,
                                        size_t input_data_size) {
  ap_tensor v;
  if (!view(tensor, &v)) return kTfLiteError;
  if (v.type == AP_STRING && !v.is_constant)
    return copy_string(tensor, &v, input_data, input_data_size);
  if (copy_check(tensor, &v, input_data, input_data_size, "TfLiteTensorCopyFromBuffer") !=
      kTfLiteOk)
    return kTfLiteError;
  if (v.is_constant) {
    capi_ireport(tensor->owner,
                 "TfLiteTensorCopyFromBuffer: tensor \"%s\" is a constant of the model", v.name);
    return kTfLiteError;
  }
  if (v.bytes) memcpy(v.data, input_data, v.bytes);
  return kTfLiteOk;
}

TfLiteStatus TfLiteTensorCopyToBuffer(const TfLiteTensor *output_tensor, void *output_data,
                                      size_t output_data_size) {
  ap_tensor v;
  if (!view(output_tensor, &v)) return kTfLiteError;
  if (copy_check(output_tensor, &v, output_data, output_data_size, "TfLiteTensorCopyToBuffer") !=
      kTfLiteOk)
    return kTfLiteError;
  if (v.bytes) memcpy(output_data, v.data, v.bytes);
  return kTfLiteOk;
}
