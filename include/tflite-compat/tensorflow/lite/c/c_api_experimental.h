/* The delegate call of TensorFlow Lite's c_api_experimental.h, as arenaplan provides it
 * (tflite-compat): refused, since arenaplan runs no delegates (docs/c-api.md). */
#ifndef TENSORFLOW_LITE_C_C_API_EXPERIMENTAL_H_
#define TENSORFLOW_LITE_C_C_API_EXPERIMENTAL_H_

#include "tensorflow/lite/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reports the refusal through the interpreter's error reporter; kTfLiteDelegateError. */
TFL_CAPI_EXPORT extern TfLiteStatus
TfLiteInterpreterModifyGraphWithDelegate(const TfLiteInterpreter *interpreter,
                                         TfLiteDelegate *delegate);

#ifdef __cplusplus
}
#endif
#endif
