/* Names and sizes of the schema's enums. The name tables are generated (schema_gen.c). */
#include "model/model_internal.h"

_Static_assert(FB_DTYPE_NAMES_COUNT == AP_DTYPE_COUNT, "ap_dtype and the schema disagree");
_Static_assert(AP_BUILTIN_CUSTOM < FB_BUILTIN_NAMES_COUNT, "CUSTOM is a builtin code");

const char *ap_dtype_name(int dtype) {
  return dtype >= 0 && dtype < AP_DTYPE_COUNT ? fb_dtype_names[dtype] : "UNKNOWN";
}

unsigned ap_dtype_bits(int dtype) {
  switch (dtype) {
  case AP_BOOL:
  case AP_UINT8:
  case AP_INT8:
  case AP_FLOAT8_E4M3FN:
  case AP_FLOAT8_E5M2: return 8;
  case AP_FLOAT16:
  case AP_BFLOAT16:
  case AP_INT16:
  case AP_UINT16: return 16;
  case AP_FLOAT32:
  case AP_INT32:
  case AP_UINT32: return 32;
  case AP_INT64:
  case AP_UINT64:
  case AP_FLOAT64:
  case AP_COMPLEX64: return 64;
  case AP_COMPLEX128: return 128;
  case AP_INT4:
  case AP_UINT4: return 4;
  case AP_INT2: return 2;
  default: return 0; /* STRING, RESOURCE, VARIANT, unknown */
  }
}

bool ap_dtype_bytes(int dtype, size_t n, size_t *out) {
  unsigned bits = ap_dtype_bits(dtype);
  if (!bits) return false;
  if (bits >= 8) return ap_mul_size(n, bits / 8, out);
  /* Sub-byte types are packed, the last byte partly used. */
  size_t per = 8 / bits;
  *out = n / per + (n % per != 0);
  return true;
}

const char *ap_builtin_name(int32_t code) {
  return code >= 0 && code < FB_BUILTIN_NAMES_COUNT ? fb_builtin_names[code] : "UNKNOWN";
}
