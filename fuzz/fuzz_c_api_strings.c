/* fuzz_c_api_strings: untrusted bytes given as a string input's value through TFLite's C API
 * (TfLiteTensorCopyFromBuffer), on a model written here: tiled = TILE(text, [2]). The input is
 * resized to the count the bytes claim (when 0 to 64; else it keeps one string, so the count
 * check is reached too) and first holds a valid value of empty strings. Accepted bytes must be
 * the tensor's exactly (size and data), a valid buffer of its count, and the invoke's output the
 * input twice; refused bytes must come with exactly one message and leave the value as it was.
 * The bytes sit in an exact-size read-only copy: ASan sees any read past them, any write. */
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

/* The model's bytes, written once and kept (TfLiteModelCreate refers to them). */
static const uint8_t *model(size_t *size) {
  static ap_writer *w;
  static const uint8_t *bytes;
  static size_t n;
  if (bytes) {
    *size = n;
    return bytes;
  }
  static const int32_t d1[] = {1}, d2[] = {2}, two[] = {2};
  uint32_t code = 0, buf = 0;
  int32_t text = -1, mult = -1, tiled = -1;
  ap_writer_tensor tt = {.name = "text", .type = AP_STRING, .shape = d1, .rank = 1};
  ap_writer_tensor tm = {.name = "mult", .type = AP_INT32, .shape = d1, .rank = 1};
  ap_writer_tensor to = {.name = "tiled", .type = AP_STRING, .shape = d2, .rank = 1};
  if (ap_writer_create(NULL, &w) != AP_OK || ap_writer_add_opcode(w, 69, 1, &code) != AP_OK ||
      ap_writer_add_buffer(w, two, 4, &buf) != AP_OK)
    fuzz_die("writer", "setup");
  tm.buffer = buf;
  if (ap_writer_add_tensor(w, 0, &tt, &text) != AP_OK ||
      ap_writer_add_tensor(w, 0, &tm, &mult) != AP_OK ||
      ap_writer_add_tensor(w, 0, &to, &tiled) != AP_OK)
    fuzz_die("writer", ap_writer_error(w));
  int32_t ins[] = {text, mult};
  ap_writer_op op = {
      .opcode = code, .inputs = ins, .input_count = 2, .outputs = &tiled, .output_count = 1};
  if (ap_writer_add_op(w, 0, &op, NULL) != AP_OK ||
      ap_writer_set_subgraph_io(w, 0, &text, 1, &tiled, 1) != AP_OK ||
      ap_writer_finish(w, &bytes, &n) != AP_OK)
    fuzz_die("writer", ap_writer_error(w));
  *size = n;
  return bytes;
}

static void same_strings(const void *a, size_t i, const void *b, size_t j) {
  const uint8_t *s, *t;
  size_t ls, lt;
  if (!ap_string_at(a, i, &s, &ls) || !ap_string_at(b, j, &t, &lt) || ls != lt ||
      (ls && memcmp(s, t, ls) != 0))
    fuzz_die("TILE", "an output string differs from its input");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t model_size;
  const uint8_t *bytes = model(&model_size);
  TfLiteModel *m = TfLiteModelCreate(bytes, model_size);
  TfLiteInterpreterOptions *o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetErrorReporter(o, reporter, NULL);
  TfLiteInterpreter *it = m ? TfLiteInterpreterCreate(m, o) : NULL;
  TfLiteInterpreterOptionsDelete(o);
  TfLiteModelDelete(m);
  if (!it) fuzz_die("TfLiteInterpreterCreate", "the model is refused");
  int32_t claim = 1;
  if (size >= 4) memcpy(&claim, data, 4);
  int n = claim >= 0 && claim <= 64 ? claim : 1;
  TfLiteTensor *in = TfLiteInterpreterGetInputTensor(it, 0);
  if (TfLiteInterpreterResizeInputTensor(it, 0, &n, 1) != kTfLiteOk ||
      TfLiteInterpreterAllocateTensors(it) != kTfLiteOk)
    fuzz_die("TfLiteInterpreterAllocateTensors", "the resized model");
  /* The value before: n empty strings (count, then n + 1 offsets all at the header's end). */
  int32_t before[66];
  size_t before_size = 4 * ((size_t)n + 2);
  before[0] = n;
  for (int k = 0; k <= n; k++)
    before[1 + k] = (int32_t)before_size;
  if (TfLiteTensorCopyFromBuffer(in, before, before_size) != kTfLiteOk)
    fuzz_die("TfLiteTensorCopyFromBuffer", "a valid buffer refused");
  size_t map_size;
  uint8_t *copy = fuzz_readonly_copy(data, size, &map_size);
  if (!copy) fuzz_die("mmap", "no copy");
  messages = 0;
  if (TfLiteTensorCopyFromBuffer(in, copy, size) == kTfLiteOk) {
    if (messages) fuzz_die("TfLiteTensorCopyFromBuffer", "a message with kTfLiteOk");
    if (TfLiteTensorByteSize(in) != size || memcmp(TfLiteTensorData(in), data, size) != 0)
      fuzz_die("TfLiteTensorCopyFromBuffer", "the tensor does not hold the bytes given");
    if (ap_string_buffer_check(data, size, (size_t)n, NULL, NULL, 0) != AP_OK)
      fuzz_die("TfLiteTensorCopyFromBuffer", "an invalid buffer accepted");
    if (TfLiteInterpreterInvoke(it) != kTfLiteOk) fuzz_die("TfLiteInterpreterInvoke", "failed");
    const TfLiteTensor *out = TfLiteInterpreterGetOutputTensor(it, 0);
    const void *od = TfLiteTensorData(out);
    if (!od || ap_string_buffer_check(od, TfLiteTensorByteSize(out), 2 * (size_t)n, NULL, NULL,
                                      0) != AP_OK)
      fuzz_die("TILE", "an invalid output buffer");
    for (size_t i = 0; i < 2 * (size_t)n; i++)
      same_strings(od, i, data, i % (size_t)n);
  } else {
    if (messages != 1) fuzz_die("TfLiteTensorCopyFromBuffer", "refused without one message");
    if (TfLiteTensorByteSize(in) != before_size ||
        memcmp(TfLiteTensorData(in), before, before_size) != 0)
      fuzz_die("TfLiteTensorCopyFromBuffer", "a refused buffer changed the value");
  }
  fuzz_readonly_free(copy, map_size);
  TfLiteInterpreterDelete(it);
  return 0;
}
