/* The parts of TensorFlow Lite's common.h that the C API exposes, as arenaplan provides them
 * (tflite-compat): the types of c_api_types.h, the tensor handle and TfLiteTypeGetName.
 *
 * TFLite's common.h also defines the kernel API's structs (TfLiteTensor's fields,
 * TfLiteContext, TfLiteNode, TfLiteRegistration, TfLiteDelegate's fields). arenaplan does not
 * provide them: a tensor is an opaque handle read through the TfLiteTensor* functions of
 * c_api.h (docs/c-api.md).
 */
#ifndef TENSORFLOW_LITE_C_COMMON_H_
#define TENSORFLOW_LITE_C_COMMON_H_

#include "tensorflow/lite/c/c_api_types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TfLiteTensor TfLiteTensor;

/* "FLOAT32", "INT8", ... ("NOTYPE" for kTfLiteNoType, "Unknown type" out of range). */
TFL_CAPI_EXPORT extern const char *TfLiteTypeGetName(TfLiteType type);

#ifdef __cplusplus
}
#endif
#endif
