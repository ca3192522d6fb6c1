/* TFLite's C API: the version, type names, models and the error reporter. */
#include "c_api_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *TfLiteVersion(void) {
  return "2.16.0";
}

int TfLiteSchemaVersion(void) {
  return 3;
}

/* TFLite's TfLiteType numbering differs from the schema's TensorType (FLOAT32 is 1, not 0). */
static const TfLiteType type_of_dtype[AP_DTYPE_COUNT] = {
    [AP_FLOAT32] = kTfLiteFloat32,
    [AP_FLOAT16] = kTfLiteFloat16,
    [AP_INT32] = kTfLiteInt32,
    [AP_UINT8] = kTfLiteUInt8,
    [AP_INT64] = kTfLiteInt64,
    [AP_STRING] = kTfLiteString,
    [AP_BOOL] = kTfLiteBool,
    [AP_INT16] = kTfLiteInt16,
    [AP_COMPLEX64] = kTfLiteComplex64,
    [AP_INT8] = kTfLiteInt8,
    [AP_FLOAT64] = kTfLiteFloat64,
    [AP_COMPLEX128] = kTfLiteComplex128,
    [AP_UINT64] = kTfLiteUInt64,
    [AP_RESOURCE] = kTfLiteResource,
    [AP_VARIANT] = kTfLiteVariant,
    [AP_UINT32] = kTfLiteUInt32,
    [AP_UINT16] = kTfLiteUInt16,
    [AP_INT4] = kTfLiteInt4,
    [AP_BFLOAT16] = kTfLiteBFloat16,
    [AP_INT2] = kTfLiteInt2,
    [AP_UINT4] = kTfLiteUInt4,
    [AP_FLOAT8_E4M3FN] = kTfLiteFloat8E4M3FN,
    [AP_FLOAT8_E5M2] = kTfLiteFloat8E5M2,
};

TfLiteType capi_type(int dtype) {
  return dtype >= 0 && dtype < AP_DTYPE_COUNT ? type_of_dtype[dtype] : kTfLiteNoType;
}

const char *TfLiteTypeGetName(TfLiteType type) {
  static const char *const names[] = {"NOTYPE",  "FLOAT32", "INT32",        "UINT8",     "INT64",
                                      "STRING",  "BOOL",    "INT16",        "COMPLEX64", "INT8",
                                      "FLOAT16", "FLOAT64", "COMPLEX128",   "UINT64",    "RESOURCE",
                                      "VARIANT", "UINT32",  "UINT16",       "INT4",      "BFLOAT16",
                                      "INT2",    "UINT4",   "FLOAT8E4M3FN", "FLOAT8E5M2"};
  if ((int)type < 0 || (size_t)type >= sizeof names / sizeof names[0]) return "Unknown type";
  return names[type];
}

static void report_va(capi_reporter reporter, void *user_data, const char *fmt, va_list ap) {
  if (reporter) {
    reporter(user_data, fmt, ap);
  } else {
    /* TFLite's default reporter writes to stderr. */
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
  }
}

void capi_report(capi_reporter reporter, void *user_data, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report_va(reporter, user_data, fmt, ap);
  va_end(ap);
}

static TfLiteModel *model_new(ap_model *m, void *copy) {
  TfLiteModel *model = ap_calloc(ap_default_allocator(), 1, sizeof *model);
  if (!model) return NULL;
  model->m = m;
  model->copy = copy;
  atomic_init(&model->refs, 1);
  return model;
}

/* Wraps an opened model, or reports why it failed and frees it. */
static TfLiteModel *model_wrap(ap_status s, ap_model *m, void *copy, capi_reporter reporter,
                               void *user_data) {
  const ap_allocator *a = ap_default_allocator();
  TfLiteModel *model = s == AP_OK ? model_new(m, copy) : NULL;
  if (!model) {
    capi_report(reporter, user_data, "%s",
                s == AP_OK ? "out of memory"
                : m        ? ap_model_error(m)
                           : "out of memory");
    ap_model_destroy(m);
    ap_free(a, copy);
  }
  return model;
}

TfLiteModel *TfLiteModelCreateWithErrorReporter(const void *model_data, size_t model_size,
                                                capi_reporter reporter, void *user_data) {
  if (!model_data || !model_size) {
    capi_report(reporter, user_data, "TfLiteModelCreate: %s",
                model_data ? "the model is 0 bytes" : "the model data is NULL");
    return NULL;
  }
  void *copy = NULL;
  const void *bytes = model_data;
  /* The model is read in place and hands out int32/int64 vectors: 8-byte alignment. */
  if ((uintptr_t)model_data % 8) {
    copy = ap_calloc(ap_default_allocator(), 1, model_size);
    if (!copy) {
      capi_report(reporter, user_data, "TfLiteModelCreate: out of memory copying %zu bytes",
                  model_size);
      return NULL;
    }
    memcpy(copy, model_data, model_size);
    bytes = copy;
  }
  ap_model *m = NULL;
  ap_status s = ap_model_from_buffer(bytes, model_size, "(buffer)", NULL, &m);
  return model_wrap(s, m, copy, reporter, user_data);
}

TfLiteModel *TfLiteModelCreate(const void *model_data, size_t model_size) {
  return TfLiteModelCreateWithErrorReporter(model_data, model_size, NULL, NULL);
}

TfLiteModel *TfLiteModelCreateFromFileWithErrorReporter(const char *model_path,
                                                        capi_reporter reporter, void *user_data) {
  if (!model_path) {
    capi_report(reporter, user_data, "TfLiteModelCreateFromFile: the path is NULL");
    return NULL;
  }
  ap_model *m = NULL;
  ap_status s = ap_model_open(model_path, NULL, &m);
  return model_wrap(s, m, NULL, reporter, user_data);
}

TfLiteModel *TfLiteModelCreateFromFile(const char *model_path) {
  return TfLiteModelCreateFromFileWithErrorReporter(model_path, NULL, NULL);
}

void capi_model_retain(TfLiteModel *m) {
  atomic_fetch_add(&m->refs, 1);
}

void TfLiteModelDelete(TfLiteModel *model) {
  if (!model || atomic_fetch_sub(&model->refs, 1) != 1) return;
  const ap_allocator *a = ap_default_allocator();
  ap_model_destroy(model->m);
  ap_free(a, model->copy);
  ap_free(a, model);
}
