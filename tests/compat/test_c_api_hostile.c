/* TFLite's C API against hostile input: NULL and zero arguments to every function, indices out
 * of range, wrong sizes, calls out of order, and models truncated or bit-flipped. Each gives
 * NULL or an error status and a message through the error reporter, never a crash (the ASan
 * build runs it too). Also: the enum values and struct layout that TFLite's ABI fixes. */
#include "capi_test.h"
#include "tensorflow/lite/c/c_api_experimental.h"

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__)
#define FLIPS 40
#else
#define FLIPS 300
#endif

/* TFLite's numbering and layout: a program compiled against TFLite's header passes and reads
 * these values. */
_Static_assert(kTfLiteOk == 0 && kTfLiteError == 1 && kTfLiteDelegateError == 2 &&
                   kTfLiteApplicationError == 3 && kTfLiteUnresolvedOps == 7 &&
                   kTfLiteCancelled == 8,
               "TfLiteStatus");
_Static_assert(kTfLiteNoType == 0 && kTfLiteFloat32 == 1 && kTfLiteInt32 == 2 &&
                   kTfLiteUInt8 == 3 && kTfLiteInt64 == 4 && kTfLiteString == 5 &&
                   kTfLiteBool == 6 && kTfLiteInt16 == 7 && kTfLiteComplex64 == 8 &&
                   kTfLiteInt8 == 9 && kTfLiteFloat16 == 10 && kTfLiteFloat64 == 11 &&
                   kTfLiteComplex128 == 12 && kTfLiteUInt64 == 13 && kTfLiteResource == 14 &&
                   kTfLiteVariant == 15 && kTfLiteUInt32 == 16 && kTfLiteUInt16 == 17 &&
                   kTfLiteInt4 == 18 && kTfLiteBFloat16 == 19,
               "TfLiteType");
_Static_assert(sizeof(TfLiteQuantizationParams) == 8 &&
                   offsetof(TfLiteQuantizationParams, scale) == 0 &&
                   offsetof(TfLiteQuantizationParams, zero_point) == 4,
               "TfLiteQuantizationParams");

static void null_arguments(void) {
  heard h;
  heard_reset(&h);
  CHECK(TfLiteModelCreate(NULL, 0) == NULL);
  CHECK(TfLiteModelCreate("x", 0) == NULL);
  CHECK(TfLiteModelCreateFromFile(NULL) == NULL);
  CHECK(TfLiteModelCreateWithErrorReporter(NULL, 10, heard_reporter, &h) == NULL);
  CHECK_CONTAINS(h.text, "TfLiteModelCreate: the model data is NULL");
  heard_reset(&h);
  CHECK(TfLiteModelCreateFromFileWithErrorReporter(NULL, heard_reporter, &h) == NULL);
  CHECK_CONTAINS(h.text, "TfLiteModelCreateFromFile: the path is NULL");
  heard_reset(&h);
  CHECK(TfLiteModelCreateFromFileWithErrorReporter("/nonexistent/m.tflite", heard_reporter, &h) ==
        NULL);
  CHECK_CONTAINS(h.text, "/nonexistent/m.tflite");
  TfLiteModelDelete(NULL);

  TfLiteInterpreterOptionsDelete(NULL);
  TfLiteInterpreterOptionsSetNumThreads(NULL, 2);
  TfLiteInterpreterOptionsSetErrorReporter(NULL, heard_reporter, &h);
  TfLiteInterpreterOptionsAddDelegate(NULL, NULL);
  TfLiteInterpreterOptionsAddRegistrationExternal(NULL, NULL);
  TfLiteInterpreterOptionsAddOperator(NULL, NULL);
  CHECK(TfLiteInterpreterOptionsEnableCancellation(NULL, true) == kTfLiteError);
  CHECK(TfLiteInterpreterOptionsCopy(NULL) == NULL);
  CHECK(arenaplan_options_set_arena(NULL, NULL, 0) == kTfLiteError);
  CHECK(arenaplan_options_set_strategy(NULL, "best") == kTfLiteError);
  CHECK(arenaplan_options_add_custom_op(NULL, NULL) == kTfLiteError);

  CHECK(TfLiteInterpreterCreate(NULL, NULL) == NULL);
  TfLiteInterpreterOptions *o = heard_options(&h);
  heard_reset(&h);
  CHECK(TfLiteInterpreterCreate(NULL, o) == NULL);
  CHECK_CONTAINS(h.text, "TfLiteInterpreterCreate: the model is NULL");
  heard_reset(&h);
  CHECK(arenaplan_options_set_arena(o, NULL, 100) == kTfLiteError);
  CHECK_CONTAINS(h.text, "a buffer and its size go together");
  CHECK(arenaplan_options_add_custom_op(o, NULL) == kTfLiteError);
  TfLiteInterpreterOptionsDelete(o);

  TfLiteInterpreterDelete(NULL);
  CHECK_EQ(TfLiteInterpreterGetInputTensorCount(NULL), 0);
  CHECK_EQ(TfLiteInterpreterGetOutputTensorCount(NULL), 0);
  CHECK(TfLiteInterpreterInputTensorIndices(NULL) == NULL);
  CHECK(TfLiteInterpreterOutputTensorIndices(NULL) == NULL);
  CHECK(TfLiteInterpreterGetInputTensor(NULL, 0) == NULL);
  CHECK(TfLiteInterpreterGetOutputTensor(NULL, 0) == NULL);
  CHECK(TfLiteInterpreterGetTensor(NULL, 0) == NULL);
  CHECK(TfLiteInterpreterResizeInputTensor(NULL, 0, (int[]){1}, 1) == kTfLiteError);
  CHECK(TfLiteInterpreterAllocateTensors(NULL) == kTfLiteError);
  CHECK(TfLiteInterpreterInvoke(NULL) == kTfLiteError);
  CHECK(TfLiteInterpreterCancel(NULL) == kTfLiteError);
  CHECK(TfLiteInterpreterModifyGraphWithDelegate(NULL, NULL) == kTfLiteDelegateError);
  CHECK_EQ(TfLiteInterpreterGetSignatureCount(NULL), 0);
  CHECK(TfLiteInterpreterGetSignatureKey(NULL, 0) == NULL);
  CHECK(TfLiteInterpreterGetSignatureRunner(NULL, "add") == NULL);
  CHECK(arenaplan_interpreter(NULL) == NULL);
  CHECK(arenaplan_interpreter_memory(NULL, NULL) == kTfLiteError);

  CHECK_EQ(TfLiteSignatureRunnerGetInputCount(NULL), 0);
  CHECK_EQ(TfLiteSignatureRunnerGetOutputCount(NULL), 0);
  CHECK(TfLiteSignatureRunnerGetInputName(NULL, 0) == NULL);
  CHECK(TfLiteSignatureRunnerGetOutputName(NULL, 0) == NULL);
  CHECK(TfLiteSignatureRunnerGetInputTensor(NULL, "x") == NULL);
  CHECK(TfLiteSignatureRunnerGetOutputTensor(NULL, "x") == NULL);
  CHECK(TfLiteSignatureRunnerResizeInputTensor(NULL, "x", (int[]){1}, 1) == kTfLiteError);
  CHECK(TfLiteSignatureRunnerAllocateTensors(NULL) == kTfLiteError);
  CHECK(TfLiteSignatureRunnerInvoke(NULL) == kTfLiteError);
  TfLiteSignatureRunnerDelete(NULL);

  CHECK(TfLiteTensorType(NULL) == kTfLiteNoType);
  CHECK_EQ(TfLiteTensorNumDims(NULL), 0);
  CHECK_EQ(TfLiteTensorDim(NULL, 0), -1);
  CHECK_EQ(TfLiteTensorByteSize(NULL), 0);
  CHECK(TfLiteTensorData(NULL) == NULL);
  CHECK(TfLiteTensorName(NULL) == NULL);
  TfLiteQuantizationParams q = TfLiteTensorQuantizationParams(NULL);
  CHECK(q.scale == 0.0f && q.zero_point == 0);
  char buf[4];
  CHECK(TfLiteTensorCopyFromBuffer(NULL, buf, 4) == kTfLiteError);
  CHECK(TfLiteTensorCopyToBuffer(NULL, buf, 4) == kTfLiteError);

  CHECK_STR(TfLiteTypeGetName(kTfLiteNoType), "NOTYPE");
  CHECK_STR(TfLiteTypeGetName(kTfLiteFloat32), "FLOAT32");
  CHECK_STR(TfLiteTypeGetName(kTfLiteInt8), "INT8");
  CHECK_STR(TfLiteTypeGetName(kTfLiteFloat16), "FLOAT16");
  CHECK_STR(TfLiteTypeGetName(kTfLiteBFloat16), "BFLOAT16");
  CHECK_STR(TfLiteTypeGetName((TfLiteType)-1), "Unknown type");
  CHECK_STR(TfLiteTypeGetName((TfLiteType)1000), "Unknown type");
  CHECK_STR(TfLiteVersion(), "2.16.0");
}

/* Out-of-range indices, wrong sizes, calls out of order, on hello_world_float ([1,1] float in,
 * [1,1] float out). */
static void misuse(void) {
  heard h;
  TfLiteInterpreter *it = capi_interpreter("hello_world_float", &h);
  if (!it) return;
  CHECK_EQ(TfLiteInterpreterGetInputTensorCount(it), 1);
  CHECK(TfLiteInterpreterGetInputTensor(it, -1) == NULL);
  CHECK(TfLiteInterpreterGetInputTensor(it, 1) == NULL);
  CHECK(TfLiteInterpreterGetOutputTensor(it, 1) == NULL);
  CHECK(TfLiteInterpreterGetTensor(it, -1) == NULL);
  CHECK(TfLiteInterpreterGetTensor(it, 1 << 30) == NULL);
  CHECK(TfLiteInterpreterGetSignatureKey(it, -1) == NULL);
  CHECK(TfLiteInterpreterGetSignatureKey(it, 1000) == NULL);
  heard_reset(&h);
  CHECK(TfLiteInterpreterGetSignatureRunner(it, NULL) == NULL);
  CHECK_CONTAINS(h.text, "the signature key is NULL and the model has signatures");
  heard_reset(&h);
  CHECK(TfLiteInterpreterGetSignatureRunner(it, "nope") == NULL);
  CHECK_CONTAINS(h.text, "no signature \"nope\"");

  /* Before allocate: the model's shape, no data. */
  TfLiteTensor *in = TfLiteInterpreterGetInputTensor(it, 0);
  CHECK_EQ(TfLiteTensorNumDims(in), 2);
  CHECK_EQ(TfLiteTensorDim(in, 1), 1);
  CHECK_EQ(TfLiteTensorDim(in, 2), -1);
  CHECK_EQ(TfLiteTensorDim(in, -1), -1);
  CHECK_EQ(TfLiteTensorByteSize(in), 4);
  CHECK(TfLiteTensorType(in) == kTfLiteFloat32);
  float x = 0.5f, y = 0;
  heard_reset(&h);
  CHECK(TfLiteTensorCopyFromBuffer(in, &x, 4) == kTfLiteError);
  CHECK_CONTAINS(h.text, "has no data: call TfLiteInterpreterAllocateTensors first");
  heard_reset(&h);
  CHECK(TfLiteInterpreterInvoke(it) == kTfLiteError);
  CHECK_CONTAINS(h.text, "TfLiteInterpreterInvoke: not allocated");
  heard_reset(&h);
  CHECK(arenaplan_interpreter_memory(it, &(arenaplan_memory){0}) == kTfLiteError);
  CHECK_CONTAINS(h.text, "not allocated");

  CHECK(TfLiteInterpreterAllocateTensors(it) == kTfLiteOk);
  heard_reset(&h);
  CHECK(TfLiteTensorCopyFromBuffer(in, &x, 3) == kTfLiteError);
  CHECK_CONTAINS(h.text, "holds 4 bytes, the buffer 3");
  heard_reset(&h);
  CHECK(TfLiteTensorCopyFromBuffer(in, NULL, 4) == kTfLiteError);
  CHECK_CONTAINS(h.text, "the buffer is NULL");
  CHECK(TfLiteTensorCopyFromBuffer(in, &x, 4) == kTfLiteOk);
  CHECK(TfLiteInterpreterInvoke(it) == kTfLiteOk);
  const TfLiteTensor *out = TfLiteInterpreterGetOutputTensor(it, 0);
  heard_reset(&h);
  CHECK(TfLiteTensorCopyToBuffer(out, &y, 8) == kTfLiteError);
  CHECK_CONTAINS(h.text, "holds 4 bytes, the buffer 8");
  CHECK(TfLiteTensorCopyToBuffer(out, &y, 4) == kTfLiteOk);
  CHECK(y != 0.0f && y > -1.5f && y < 1.5f); /* sin(0.5) as the model approximates it */

  /* A constant (a weight) is the model's own bytes: never written. */
  int constants = 0;
  for (int t = 0; TfLiteInterpreterGetTensor(it, t); t++) {
    TfLiteTensor *c = TfLiteInterpreterGetTensor(it, t);
    if (t == TfLiteInterpreterInputTensorIndices(it)[0] || !TfLiteTensorData(c)) continue;
    size_t n = TfLiteTensorByteSize(c);
    void *tmp = malloc(n ? n : 1);
    heard_reset(&h);
    TfLiteStatus s = TfLiteTensorCopyFromBuffer(c, tmp, n);
    if (strstr(h.text, "is a constant of the model")) {
      constants++;
      CHECK(s == kTfLiteError);
    }
    free(tmp);
  }
  CHECK(constants >= 2);

  /* Resize: bad arguments, then a real one. */
  heard_reset(&h);
  CHECK(TfLiteInterpreterResizeInputTensor(it, 1, (int[]){1}, 1) == kTfLiteError);
  CHECK_CONTAINS(h.text, "input 1: the model has 1");
  heard_reset(&h);
  CHECK(TfLiteInterpreterResizeInputTensor(it, 0, NULL, 2) == kTfLiteError);
  CHECK_CONTAINS(h.text, "2 dims (NULL)");
  CHECK(TfLiteInterpreterResizeInputTensor(it, 0, (int[]){1, 1}, -1) == kTfLiteError);
  CHECK(TfLiteInterpreterResizeInputTensor(it, 0, (int[9]){1}, 9) == kTfLiteError);
  heard_reset(&h);
  CHECK(TfLiteInterpreterResizeInputTensor(it, 0, (int[]){-3, 1}, 2) == kTfLiteError);
  CHECK(h.count == 1);
  CHECK(TfLiteInterpreterResizeInputTensor(it, 0, (int[]){1, 1}, 2) == kTfLiteOk);
  CHECK(TfLiteInterpreterAllocateTensors(it) == kTfLiteOk);
  CHECK(TfLiteInterpreterInvoke(it) == kTfLiteOk);
  TfLiteInterpreterDelete(it);
}

/* How far the damaged models got: refused at load, at create, at allocate, at invoke; ran. */
static int reached[5];

/* Runs a model (maybe damaged) as far as it goes: every refusal must come with a message. */
static void run_hostile(const uint8_t *bytes, size_t size, const char *what) {
  heard h;
  heard_reset(&h);
  TfLiteModel *m = TfLiteModelCreateWithErrorReporter(bytes, size, heard_reporter, &h);
  if (!m) {
    CHECK_MSG(h.count == 1 && h.len > 1, "%s: NULL model without one message", what);
    reached[0]++;
    return;
  }
  TfLiteInterpreterOptions *o = heard_options(&h);
  TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
  TfLiteInterpreterOptionsDelete(o);
  TfLiteModelDelete(m);
  if (!it) {
    CHECK_MSG(h.count >= 1, "%s: NULL interpreter without a message", what);
    reached[1]++;
    return;
  }
  int before = h.count;
  if (TfLiteInterpreterAllocateTensors(it) != kTfLiteOk) {
    CHECK_MSG(h.count > before, "%s: allocate failed without a message", what);
    reached[2]++;
  } else {
    for (int32_t k = 0; k < TfLiteInterpreterGetInputTensorCount(it); k++) {
      TfLiteTensor *t = TfLiteInterpreterGetInputTensor(it, k);
      if (TfLiteTensorData(t)) memset(TfLiteTensorData(t), 0, TfLiteTensorByteSize(t));
    }
    before = h.count;
    bool ok = TfLiteInterpreterInvoke(it) == kTfLiteOk;
    if (!ok) CHECK_MSG(h.count > before, "%s: invoke failed without a message", what);
    reached[ok ? 4 : 3]++;
    for (int32_t k = 0; k < TfLiteInterpreterGetOutputTensorCount(it); k++) {
      const TfLiteTensor *t = TfLiteInterpreterGetOutputTensor(it, k);
      (void)TfLiteTensorName(t);
      (void)TfLiteTensorQuantizationParams(t);
    }
  }
  TfLiteInterpreterDelete(it);
}

static void hostile_models(const char *name) {
  char path[4096];
  size_t size = 0;
  uint8_t *bytes =
      ap_test_read_file(ap_test_path(path, sizeof path, "models/%s.tflite", name), &size);
  CHECK(bytes != NULL && size > 64);
  if (!bytes) return;
  uint8_t *copy = malloc(size + 8);
  /* Truncations: the header, the tables, the buffers. */
  for (size_t cut = 0; cut < size; cut += cut < 256 ? 7 : size / 40 + 1) {
    memcpy(copy, bytes, cut);
    run_hostile(copy, cut, "truncated");
  }
  /* Bit flips, seeded. */
  uint64_t state = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < FLIPS; i++) {
    memcpy(copy, bytes, size);
    size_t at = (size_t)(ap_test_rand(&state) % size);
    copy[at] ^= (uint8_t)(1u << (ap_test_rand(&state) % 8));
    run_hostile(copy, size, "bit flip");
  }
  /* An unaligned buffer is copied, and runs. */
  memcpy(copy + 1, bytes, size);
  heard h;
  heard_reset(&h);
  TfLiteModel *m = TfLiteModelCreateWithErrorReporter(copy + 1, size, heard_reporter, &h);
  CHECK_MSG(m != NULL, "%s at an odd address: %s", name, h.text);
  TfLiteModelDelete(m);
  free(copy);
  free(bytes);
}

int main(void) {
  ap_test_require_shared();
  null_arguments();
  misuse();
  hostile_models("hello_world_int8");
  hostile_models("multi_signatures");
  printf("damaged models: %d refused at load, %d at create, %d at allocate, %d at invoke; %d ran\n",
         reached[0], reached[1], reached[2], reached[3], reached[4]);
  /* The damage reaches every stage, not only the loader. */
  CHECK(reached[0] > 0 && reached[4] > 0);
  return ap_test_done();
}
