/* fuzz_c_api: an untrusted model through TFLite's C API (src/compat): load, create, and every
 * getter of every tensor of subgraph 0, of the inputs, the outputs and each signature runner,
 * before allocate: a string tensor's data must be a valid string buffer, and a string input's
 * value given before allocate is refused with one message. A NULL model or interpreter must
 * come with exactly one reporter message (load) or at least one (create); nothing may crash.
 * Allocate and invoke are fuzz_run's (with an allocator that caps memory, which the C API has
 * no way to take). */
#include "fuzz_common.h"
#include "tensorflow/lite/c/c_api.h"

#include <stdarg.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int messages;

static void reporter(void *user_data, const char *format, va_list args) {
  char buf[512];
  (void)user_data;
  if (vsnprintf(buf, sizeof buf, format, args) <= 0) fuzz_die("reporter", "an empty message");
  messages++;
}

static void touch(const TfLiteTensor *t) {
  if (!t) return;
  (void)TfLiteTypeGetName(TfLiteTensorType(t));
  const char *name = TfLiteTensorName(t);
  if (!name) fuzz_die("TfLiteTensorName", "NULL for a tensor");
  for (int32_t d = -1; d <= TfLiteTensorNumDims(t); d++)
    (void)TfLiteTensorDim(t, d);
  size_t bytes = TfLiteTensorByteSize(t);
  const void *data = TfLiteTensorData(t);
  (void)TfLiteTensorQuantizationParams(t);
  /* A string tensor's data (a constant's, before allocate) is a buffer every reader can walk. */
  if (TfLiteTensorType(t) == kTfLiteString && data &&
      ap_string_buffer_check(data, bytes, SIZE_MAX, NULL, NULL, 0) != AP_OK)
    fuzz_die("TfLiteTensorData", "a string tensor's buffer that is not valid");
}

/* A string input's value given before allocate, here the model's own bytes: refused, with one
 * message (the buffer checked first, then the allocation). */
static void set_string(TfLiteTensor *t, const uint8_t *bytes, size_t size) {
  if (!t || TfLiteTensorType(t) != kTfLiteString) return;
  messages = 0;
  if (TfLiteTensorCopyFromBuffer(t, bytes, size) != kTfLiteError || messages != 1)
    fuzz_die("TfLiteTensorCopyFromBuffer", "a string before allocate, not refused once");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t map_size;
  uint8_t *copy = fuzz_readonly_copy(data, size, &map_size);
  if (!copy) return 0;
  messages = 0;
  TfLiteModel *m = TfLiteModelCreateWithErrorReporter(copy, size, reporter, NULL);
  if (!m && messages != 1) fuzz_die("TfLiteModelCreate", "NULL without one message");
  TfLiteInterpreterOptions *o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetErrorReporter(o, reporter, NULL);
  messages = 0;
  TfLiteInterpreter *it = m ? TfLiteInterpreterCreate(m, o) : NULL;
  if (m && !it && messages == 0) fuzz_die("TfLiteInterpreterCreate", "NULL without a message");
  TfLiteInterpreterOptionsDelete(o);
  TfLiteModelDelete(m);
  if (it) {
    for (int t = 0; TfLiteInterpreterGetTensor(it, t); t++)
      touch(TfLiteInterpreterGetTensor(it, t));
    for (int32_t k = 0; k < TfLiteInterpreterGetInputTensorCount(it); k++) {
      touch(TfLiteInterpreterGetInputTensor(it, k));
      set_string(TfLiteInterpreterGetInputTensor(it, k), copy, size);
    }
    for (int32_t k = 0; k < TfLiteInterpreterGetOutputTensorCount(it); k++)
      touch(TfLiteInterpreterGetOutputTensor(it, k));
    int32_t n = TfLiteInterpreterGetSignatureCount(it);
    for (int32_t s = -1; s <= n; s++) {
      const char *key = TfLiteInterpreterGetSignatureKey(it, s);
      TfLiteSignatureRunner *r = TfLiteInterpreterGetSignatureRunner(it, key);
      if (s >= 0 && s < n && key && !r && messages == 0)
        fuzz_die("TfLiteInterpreterGetSignatureRunner", "NULL without a message");
      for (int32_t k = 0; r && (size_t)k < TfLiteSignatureRunnerGetInputCount(r); k++)
        touch(TfLiteSignatureRunnerGetInputTensor(r, TfLiteSignatureRunnerGetInputName(r, k)));
      for (int32_t k = 0; r && (size_t)k < TfLiteSignatureRunnerGetOutputCount(r); k++)
        touch(TfLiteSignatureRunnerGetOutputTensor(r, TfLiteSignatureRunnerGetOutputName(r, k)));
      TfLiteSignatureRunnerDelete(r);
    }
    TfLiteInterpreterDelete(it);
  }
  fuzz_readonly_free(copy, map_size);
  return 0;
}
