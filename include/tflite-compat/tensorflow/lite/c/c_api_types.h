/* TensorFlow Lite's C API types, as arenaplan provides them (tflite-compat).
 *
 * Written for arenaplan from TFLite's documented C API: the names, enum values and struct
 * layouts are the contract a program compiled against TFLite's own header relies on, so they
 * are the same (TfLiteType numbering, TfLiteStatus, TfLiteQuantizationParams). The handles are
 * opaque, as in TFLite. docs/c-api.md lists what differs.
 */
#ifndef TENSORFLOW_LITE_C_C_API_TYPES_H_
#define TENSORFLOW_LITE_C_C_API_TYPES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TFL_CAPI_EXPORT
#define TFL_CAPI_EXPORT __attribute__((visibility("default")))
#endif

typedef enum TfLiteStatus {
  kTfLiteOk = 0,
  kTfLiteError = 1,
  kTfLiteDelegateError = 2,
  kTfLiteApplicationError = 3,
  kTfLiteDelegateDataNotFound = 4,
  kTfLiteDelegateDataWriteError = 5,
  kTfLiteDelegateDataReadError = 6,
  kTfLiteUnresolvedOps = 7,
  kTfLiteCancelled = 8,
  kTfLiteOutputShapeNotKnown = 9,
} TfLiteStatus;

/* Note: not the schema's TensorType numbering (FLOAT32 is 1 here, 0 in a .tflite file). */
typedef enum {
  kTfLiteNoType = 0,
  kTfLiteFloat32 = 1,
  kTfLiteInt32 = 2,
  kTfLiteUInt8 = 3,
  kTfLiteInt64 = 4,
  kTfLiteString = 5,
  kTfLiteBool = 6,
  kTfLiteInt16 = 7,
  kTfLiteComplex64 = 8,
  kTfLiteInt8 = 9,
  kTfLiteFloat16 = 10,
  kTfLiteFloat64 = 11,
  kTfLiteComplex128 = 12,
  kTfLiteUInt64 = 13,
  kTfLiteResource = 14,
  kTfLiteVariant = 15,
  kTfLiteUInt32 = 16,
  kTfLiteUInt16 = 17,
  kTfLiteInt4 = 18,
  kTfLiteBFloat16 = 19,
  kTfLiteInt2 = 20,
  kTfLiteUInt4 = 21,
  kTfLiteFloat8E4M3FN = 22,
  kTfLiteFloat8E5M2 = 23,
} TfLiteType;

/* Per-tensor quantization: real = scale * (quantized - zero_point). For a per-channel tensor,
 * channel 0's values (as TFLite fills this legacy field). */
typedef struct TfLiteQuantizationParams {
  float scale;
  int32_t zero_point;
} TfLiteQuantizationParams;

/* Opaque types of the kernel and delegate APIs: declared so that signatures using them
 * compile; arenaplan runs no delegates and does not provide the kernel API (docs/c-api.md). */
typedef struct TfLiteOpaqueContext TfLiteOpaqueContext;
typedef struct TfLiteOpaqueNode TfLiteOpaqueNode;
typedef struct TfLiteOpaqueTensor TfLiteOpaqueTensor;
typedef struct TfLiteOpaqueDelegateStruct TfLiteOpaqueDelegateStruct;
typedef struct TfLiteDelegate TfLiteDelegate;
typedef TfLiteDelegate TfLiteOpaqueDelegate;

#ifdef __cplusplus
}
#endif
#endif
