/* TensorFlow Lite's C API (tensorflow/lite/c/c_api.h), as arenaplan provides it
 * (tflite-compat): a program written against TFLite's header builds against this one
 * unchanged and runs on arenaplan's runtime (the model's tensors in one planned arena).
 *
 *   cc app.c $(pkg-config --cflags --libs tensorflowlite_c)
 *   (or -I PREFIX/include/arenaplan/compat -ltensorflowlite_c)
 *
 * Written for arenaplan from TFLite's documented API: same names, arguments, enum values and
 * struct layouts. docs/c-api.md lists what differs; in short:
 *  - delegates are refused (TfLiteInterpreterOptionsAddDelegate reports through the error
 *    reporter and TfLiteInterpreterCreate then returns NULL);
 *  - TFLite's custom-op registration (TfLiteRegistrationExternal / TfLiteOperator) is refused
 *    the same way; arenaplan's own kernels go in through arenaplan_options_add_custom_op()
 *    (arenaplan_c_api.h);
 *  - the kernel API's structs (TfLiteTensor's fields, TfLiteContext...) are not provided:
 *    tensors are opaque handles.
 * Errors go to the error reporter of the options (TfLiteInterpreterOptionsSetErrorReporter),
 * or of TfLiteModelCreateWithErrorReporter; without one, to stderr, as TFLite does.
 * The arenaplan extras (the arena's size, running in a caller-owned buffer) are in
 * arenaplan_c_api.h.
 */
#ifndef TENSORFLOW_LITE_C_C_API_H_
#define TENSORFLOW_LITE_C_C_API_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tensorflow/lite/c/c_api_types.h"
#include "tensorflow/lite/c/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TfLiteModel TfLiteModel;
typedef struct TfLiteInterpreterOptions TfLiteInterpreterOptions;
typedef struct TfLiteInterpreter TfLiteInterpreter;
typedef struct TfLiteSignatureRunner TfLiteSignatureRunner;
/* TFLite's custom-op records: declared only (registering one is refused, see above). */
typedef struct TfLiteRegistrationExternal TfLiteRegistrationExternal;
typedef struct TfLiteOperator TfLiteOperator;

/* The TFLite release whose C API this mirrors ("2.16.0"); arenaplan's own version is
 * ap_version(). */
TFL_CAPI_EXPORT extern const char *TfLiteVersion(void);
/* The TFLite schema version arenaplan reads (3). */
TFL_CAPI_EXPORT extern int TfLiteSchemaVersion(void);

/* A model over bytes the caller keeps alive and unchanged while the model or any interpreter
 * made from it lives (they are read in place; an unaligned buffer is copied). NULL on
 * failure, after a message to stderr (or the reporter). */
TFL_CAPI_EXPORT extern TfLiteModel *TfLiteModelCreate(const void *model_data, size_t model_size);
TFL_CAPI_EXPORT extern TfLiteModel *TfLiteModelCreateWithErrorReporter(
    const void *model_data, size_t model_size,
    void (*reporter)(void *user_data, const char *format, va_list args), void *user_data);
TFL_CAPI_EXPORT extern TfLiteModel *TfLiteModelCreateFromFile(const char *model_path);
TFL_CAPI_EXPORT extern TfLiteModel *TfLiteModelCreateFromFileWithErrorReporter(
    const char *model_path, void (*reporter)(void *user_data, const char *format, va_list args),
    void *user_data);
/* May be called right after TfLiteInterpreterCreate: interpreters keep the model alive. */
TFL_CAPI_EXPORT extern void TfLiteModelDelete(TfLiteModel *model);

TFL_CAPI_EXPORT extern TfLiteInterpreterOptions *TfLiteInterpreterOptionsCreate(void);
TFL_CAPI_EXPORT extern TfLiteInterpreterOptions *
TfLiteInterpreterOptionsCopy(const TfLiteInterpreterOptions *from);
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsDelete(TfLiteInterpreterOptions *options);
/* Threads for the large ops (-1: the default, one thread; at most 64). */
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsSetNumThreads(TfLiteInterpreterOptions *options,
                                                                  int32_t num_threads);
/* Refused: arenaplan runs no delegates. Reports why; TfLiteInterpreterCreate with these
 * options then returns NULL. */
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsAddDelegate(TfLiteInterpreterOptions *options,
                                                                TfLiteOpaqueDelegate *delegate);
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsSetErrorReporter(
    TfLiteInterpreterOptions *options,
    void (*reporter)(void *user_data, const char *format, va_list args), void *user_data);
/* Refused like delegates (see above). */
TFL_CAPI_EXPORT extern void
TfLiteInterpreterOptionsAddRegistrationExternal(TfLiteInterpreterOptions *options,
                                                TfLiteRegistrationExternal *registration);
TFL_CAPI_EXPORT extern void TfLiteInterpreterOptionsAddOperator(TfLiteInterpreterOptions *options,
                                                                TfLiteOperator *registration);
/* Accepted; invokes cannot be cancelled (TfLiteInterpreterCancel returns kTfLiteError). */
TFL_CAPI_EXPORT extern TfLiteStatus
TfLiteInterpreterOptionsEnableCancellation(TfLiteInterpreterOptions *options, bool enable);

/* NULL on failure (a NULL or failed model, a refused option, an op this build cannot run),
 * after a message through the options' reporter. The options may be deleted afterwards. */
TFL_CAPI_EXPORT extern TfLiteInterpreter *
TfLiteInterpreterCreate(const TfLiteModel *model, const TfLiteInterpreterOptions *optional_options);
TFL_CAPI_EXPORT extern void TfLiteInterpreterDelete(TfLiteInterpreter *interpreter);

TFL_CAPI_EXPORT extern int32_t
TfLiteInterpreterGetInputTensorCount(const TfLiteInterpreter *interpreter);
TFL_CAPI_EXPORT extern const int *
TfLiteInterpreterInputTensorIndices(const TfLiteInterpreter *interpreter);
TFL_CAPI_EXPORT extern TfLiteTensor *
TfLiteInterpreterGetInputTensor(const TfLiteInterpreter *interpreter, int32_t input_index);
/* Takes effect at the next TfLiteInterpreterAllocateTensors. */
TFL_CAPI_EXPORT extern TfLiteStatus
TfLiteInterpreterResizeInputTensor(TfLiteInterpreter *interpreter, int32_t input_index,
                                   const int *input_dims, int32_t input_dims_size);
TFL_CAPI_EXPORT extern TfLiteStatus
TfLiteInterpreterAllocateTensors(TfLiteInterpreter *interpreter);
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteInterpreterInvoke(TfLiteInterpreter *interpreter);
TFL_CAPI_EXPORT extern int32_t
TfLiteInterpreterGetOutputTensorCount(const TfLiteInterpreter *interpreter);
TFL_CAPI_EXPORT extern const int *
TfLiteInterpreterOutputTensorIndices(const TfLiteInterpreter *interpreter);
TFL_CAPI_EXPORT extern const TfLiteTensor *
TfLiteInterpreterGetOutputTensor(const TfLiteInterpreter *interpreter, int32_t output_index);
/* Tensor `index` of subgraph 0 (NULL out of range). */
TFL_CAPI_EXPORT extern TfLiteTensor *
TfLiteInterpreterGetTensor(const TfLiteInterpreter *interpreter, int index);
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteInterpreterCancel(const TfLiteInterpreter *interpreter);

/* Signatures (SignatureDefs), in model order. A runner is new at each call: delete it with
 * TfLiteSignatureRunnerDelete before its interpreter. */
TFL_CAPI_EXPORT extern int32_t
TfLiteInterpreterGetSignatureCount(const TfLiteInterpreter *interpreter);
TFL_CAPI_EXPORT extern const char *
TfLiteInterpreterGetSignatureKey(const TfLiteInterpreter *interpreter, int32_t signature_index);
TFL_CAPI_EXPORT extern TfLiteSignatureRunner *
TfLiteInterpreterGetSignatureRunner(const TfLiteInterpreter *interpreter,
                                    const char *signature_key);
TFL_CAPI_EXPORT extern size_t
TfLiteSignatureRunnerGetInputCount(const TfLiteSignatureRunner *signature_runner);
TFL_CAPI_EXPORT extern const char *
TfLiteSignatureRunnerGetInputName(const TfLiteSignatureRunner *signature_runner,
                                  int32_t input_index);
TFL_CAPI_EXPORT extern TfLiteStatus
TfLiteSignatureRunnerResizeInputTensor(TfLiteSignatureRunner *signature_runner,
                                       const char *input_name, const int *input_dims,
                                       int32_t input_dims_size);
TFL_CAPI_EXPORT extern TfLiteStatus
TfLiteSignatureRunnerAllocateTensors(TfLiteSignatureRunner *signature_runner);
TFL_CAPI_EXPORT extern TfLiteTensor *
TfLiteSignatureRunnerGetInputTensor(TfLiteSignatureRunner *signature_runner,
                                    const char *input_name);
TFL_CAPI_EXPORT extern TfLiteStatus
TfLiteSignatureRunnerInvoke(TfLiteSignatureRunner *signature_runner);
TFL_CAPI_EXPORT extern size_t
TfLiteSignatureRunnerGetOutputCount(const TfLiteSignatureRunner *signature_runner);
TFL_CAPI_EXPORT extern const char *
TfLiteSignatureRunnerGetOutputName(const TfLiteSignatureRunner *signature_runner,
                                   int32_t output_index);
TFL_CAPI_EXPORT extern const TfLiteTensor *
TfLiteSignatureRunnerGetOutputTensor(const TfLiteSignatureRunner *signature_runner,
                                     const char *output_name);
TFL_CAPI_EXPORT extern void TfLiteSignatureRunnerDelete(TfLiteSignatureRunner *signature_runner);

/* Tensors. Their handles live as long as the interpreter; their data until the next
 * allocate or resize. Getters of a NULL tensor return kTfLiteNoType, 0, NULL. */
TFL_CAPI_EXPORT extern TfLiteType TfLiteTensorType(const TfLiteTensor *tensor);
TFL_CAPI_EXPORT extern int32_t TfLiteTensorNumDims(const TfLiteTensor *tensor);
/* -1 out of range. */
TFL_CAPI_EXPORT extern int32_t TfLiteTensorDim(const TfLiteTensor *tensor, int32_t dim_index);
TFL_CAPI_EXPORT extern size_t TfLiteTensorByteSize(const TfLiteTensor *tensor);
TFL_CAPI_EXPORT extern void *TfLiteTensorData(const TfLiteTensor *tensor);
TFL_CAPI_EXPORT extern const char *TfLiteTensorName(const TfLiteTensor *tensor);
TFL_CAPI_EXPORT extern TfLiteQuantizationParams
TfLiteTensorQuantizationParams(const TfLiteTensor *tensor);
/* kTfLiteError unless input_data_size is the tensor's byte size exactly. */
TFL_CAPI_EXPORT extern TfLiteStatus
TfLiteTensorCopyFromBuffer(TfLiteTensor *tensor, const void *input_data, size_t input_data_size);
TFL_CAPI_EXPORT extern TfLiteStatus TfLiteTensorCopyToBuffer(const TfLiteTensor *output_tensor,
                                                             void *output_data,
                                                             size_t output_data_size);

#ifdef __cplusplus
}
#endif
#endif
