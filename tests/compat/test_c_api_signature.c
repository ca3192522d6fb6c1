/* TFLite's signature runners through the C API, on multi_signatures.tflite: two signatures,
 * "add" in subgraph 0 and "sub" in subgraph 1, each y = x (+|-) a constant of its subgraph,
 * input "x" and output "output_0" of dims [1] (the model's stored shape; -1 in its
 * signature). Expected outputs are computed here from the constants read out of the model. */
#include "arenaplan/arenaplan.h"
#include "capi_test.h"

/* The float constant of subgraph sg (the op's second input), read with arenaplan's model API. */
static float constant_of(const char *path, size_t sg) {
  ap_model *m = NULL;
  float v = 0;
  if (ap_model_open(path, NULL, &m) == AP_OK) {
    ap_op_info op;
    ap_tensor_info ti;
    size_t size = 0;
    if (ap_model_op(m, sg, 0, &op) == AP_OK && op.inputs.n == 2) {
      for (size_t i = 0; i < 2; i++)
        if (ap_model_tensor(m, sg, (size_t)op.inputs.v[i], &ti) == AP_OK && ti.is_constant) {
          const uint8_t *b = ap_model_buffer(m, ti.buffer, &size);
          if (b && size == 4) memcpy(&v, b, 4);
        }
    }
  }
  ap_model_destroy(m);
  return v;
}

static float run(TfLiteSignatureRunner *r, float x, heard *h) {
  TfLiteTensor *in = TfLiteSignatureRunnerGetInputTensor(r, "x");
  CHECK(in != NULL);
  CHECK(TfLiteTensorCopyFromBuffer(in, &x, sizeof x) == kTfLiteOk);
  TfLiteStatus s = TfLiteSignatureRunnerInvoke(r);
  CHECK_MSG(s == kTfLiteOk, "invoke: %s", h->text);
  const TfLiteTensor *out = TfLiteSignatureRunnerGetOutputTensor(r, "output_0");
  float y = -12345;
  CHECK(out != NULL && TfLiteTensorCopyToBuffer(out, &y, sizeof y) == kTfLiteOk);
  return y;
}

/* A model without signatures has TFLite's default one: subgraph 0, its tensors' names. */
static void default_signature(void) {
  heard h;
  TfLiteInterpreter *it = capi_interpreter("person_detect_int8", &h);
  if (!it) return;
  CHECK_EQ(TfLiteInterpreterGetSignatureCount(it), 0);
  heard_reset(&h);
  CHECK(TfLiteInterpreterGetSignatureRunner(it, "serving_default") == NULL);
  CHECK_CONTAINS(h.text, "no signature \"serving_default\"");
  TfLiteSignatureRunner *r = TfLiteInterpreterGetSignatureRunner(it, NULL);
  CHECK(r != NULL);
  if (!r) return;
  CHECK_EQ(TfLiteSignatureRunnerGetInputCount(r), 1);
  CHECK_EQ(TfLiteSignatureRunnerGetOutputCount(r), 1);
  CHECK_STR(TfLiteSignatureRunnerGetInputName(r, 0), "input");
  CHECK_STR(TfLiteSignatureRunnerGetOutputName(r, 0), "MobilenetV1/Predictions/Reshape_1");
  CHECK(TfLiteSignatureRunnerGetInputName(r, 1) == NULL);
  CHECK(TfLiteSignatureRunnerAllocateTensors(r) == kTfLiteOk);
  TfLiteTensor *in = TfLiteSignatureRunnerGetInputTensor(r, "input");
  CHECK(in == TfLiteInterpreterGetInputTensor(it, 0));
  CHECK_EQ(TfLiteTensorByteSize(in), 96 * 96);
  uint8_t *x = TfLiteTensorData(in);
  for (size_t i = 0; x && i < 96 * 96; i++)
    x[i] = (uint8_t)(i * 13);
  int8_t a[2] = {0}, b[2] = {1, 1};
  CHECK(TfLiteSignatureRunnerInvoke(r) == kTfLiteOk);
  CHECK(TfLiteTensorCopyToBuffer(
            TfLiteSignatureRunnerGetOutputTensor(r, TfLiteSignatureRunnerGetOutputName(r, 0)), a,
            2) == kTfLiteOk);
  /* The input is kept across the runner's invoke, as in TFLite: no copy again. */
  CHECK(TfLiteInterpreterInvoke(it) == kTfLiteOk);
  CHECK(TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(it, 0), b, 2) == kTfLiteOk);
  CHECK(memcmp(a, b, 2) == 0);
  TfLiteSignatureRunnerDelete(r);
  TfLiteInterpreterDelete(it);
}

int main(void) {
  ap_test_require_shared();
  default_signature();
  char path[4096];
  ap_test_path(path, sizeof path, "models/multi_signatures.tflite");
  float add_c = constant_of(path, 0), sub_c = constant_of(path, 1);
  CHECK(add_c != 0 && sub_c != 0);

  heard h;
  TfLiteInterpreter *it = capi_interpreter("multi_signatures", &h);
  if (!it) return ap_test_done();

  CHECK_EQ(TfLiteInterpreterGetSignatureCount(it), 2);
  CHECK_STR(TfLiteInterpreterGetSignatureKey(it, 0), "add");
  CHECK_STR(TfLiteInterpreterGetSignatureKey(it, 1), "sub");
  CHECK(TfLiteInterpreterGetSignatureKey(it, 2) == NULL);

  TfLiteSignatureRunner *add = TfLiteInterpreterGetSignatureRunner(it, "add");
  TfLiteSignatureRunner *sub = TfLiteInterpreterGetSignatureRunner(it, "sub");
  CHECK(add && sub);
  if (!add || !sub) return ap_test_done();
  for (int k = 0; k < 2; k++) {
    TfLiteSignatureRunner *r = k ? sub : add;
    CHECK_EQ(TfLiteSignatureRunnerGetInputCount(r), 1);
    CHECK_EQ(TfLiteSignatureRunnerGetOutputCount(r), 1);
    CHECK_STR(TfLiteSignatureRunnerGetInputName(r, 0), "x");
    CHECK_STR(TfLiteSignatureRunnerGetOutputName(r, 0), "output_0");
    CHECK(TfLiteSignatureRunnerGetInputName(r, 1) == NULL);
    CHECK(TfLiteSignatureRunnerGetInputName(r, -1) == NULL);
    CHECK(TfLiteSignatureRunnerGetOutputName(r, 1) == NULL);
    heard_reset(&h);
    CHECK(TfLiteSignatureRunnerGetInputTensor(r, "y") == NULL);
    CHECK_CONTAINS(h.text, "has no input \"y\"");
    CHECK(TfLiteSignatureRunnerGetOutputTensor(r, NULL) == NULL);
    CHECK(TfLiteSignatureRunnerGetInputTensor(r, NULL) == NULL);
  }
  /* Before allocate. */
  heard_reset(&h);
  CHECK(TfLiteSignatureRunnerInvoke(sub) == kTfLiteError);
  CHECK_CONTAINS(h.text, "not allocated");

  CHECK(TfLiteSignatureRunnerAllocateTensors(add) == kTfLiteOk);
  CHECK(TfLiteSignatureRunnerAllocateTensors(sub) == kTfLiteOk);
  const TfLiteTensor *in = TfLiteSignatureRunnerGetInputTensor(sub, "x");
  CHECK_STR(TfLiteTensorName(in), "sub_x:0");
  CHECK(TfLiteTensorType(in) == kTfLiteFloat32);
  CHECK_EQ(TfLiteTensorNumDims(in), 1);
  CHECK_EQ(TfLiteTensorByteSize(in), 4);
  for (int i = 0; i < 4; i++) {
    float x = 0.25f * (float)i - 1.5f;
    CHECK(run(add, x, &h) == x + add_c);
    CHECK(run(sub, x, &h) == x - sub_c);
  }
  /* The interpreter's own invoke is subgraph 0's: the "add" signature. */
  float x = 7.0f, y = 0;
  CHECK(TfLiteTensorCopyFromBuffer(TfLiteInterpreterGetInputTensor(it, 0), &x, 4) == kTfLiteOk);
  CHECK(TfLiteInterpreterInvoke(it) == kTfLiteOk);
  CHECK(TfLiteTensorCopyToBuffer(TfLiteInterpreterGetOutputTensor(it, 0), &y, 4) == kTfLiteOk);
  CHECK(y == 7.0f + add_c);

  /* Resizing "add" (subgraph 0): 3 values at once. */
  CHECK(TfLiteSignatureRunnerResizeInputTensor(add, "x", (int[]){3}, 1) == kTfLiteOk);
  CHECK(TfLiteSignatureRunnerAllocateTensors(add) == kTfLiteOk);
  float xs[3] = {1, 2, 3}, ys[3] = {0};
  TfLiteTensor *ax = TfLiteSignatureRunnerGetInputTensor(add, "x");
  CHECK_EQ(TfLiteTensorDim(ax, 0), 3);
  CHECK(TfLiteTensorCopyFromBuffer(ax, xs, sizeof xs) == kTfLiteOk);
  CHECK(TfLiteSignatureRunnerInvoke(add) == kTfLiteOk);
  CHECK(TfLiteTensorCopyToBuffer(TfLiteSignatureRunnerGetOutputTensor(add, "output_0"), ys,
                                 sizeof ys) == kTfLiteOk);
  for (int i = 0; i < 3; i++)
    CHECK(ys[i] == xs[i] + add_c);
  /* "sub" runs subgraph 1: its inputs resize too; invoke refuses the stale plan until the
   * runner's AllocateTensors. */
  CHECK(TfLiteSignatureRunnerResizeInputTensor(sub, "x", (int[]){3}, 1) == kTfLiteOk);
  heard_reset(&h);
  CHECK(TfLiteSignatureRunnerInvoke(sub) == kTfLiteError);
  CHECK_CONTAINS(h.text, "not allocated");
  CHECK(TfLiteSignatureRunnerAllocateTensors(sub) == kTfLiteOk);
  TfLiteTensor *sx = TfLiteSignatureRunnerGetInputTensor(sub, "x");
  CHECK_EQ(TfLiteTensorDim(sx, 0), 3);
  CHECK(TfLiteTensorCopyFromBuffer(sx, xs, sizeof xs) == kTfLiteOk);
  CHECK(TfLiteSignatureRunnerInvoke(sub) == kTfLiteOk);
  CHECK(TfLiteTensorCopyToBuffer(TfLiteSignatureRunnerGetOutputTensor(sub, "output_0"), ys,
                                 sizeof ys) == kTfLiteOk);
  for (int i = 0; i < 3; i++)
    CHECK(ys[i] == xs[i] - sub_c);
  CHECK(TfLiteSignatureRunnerResizeInputTensor(sub, "x", (int[]){1}, 1) == kTfLiteOk);
  CHECK(TfLiteSignatureRunnerAllocateTensors(sub) == kTfLiteOk);
  heard_reset(&h);
  CHECK(TfLiteSignatureRunnerResizeInputTensor(sub, "x", (int[]){3}, -1) == kTfLiteError);
  CHECK_CONTAINS(h.text, "TfLiteSignatureRunnerResizeInputTensor: -1 dims");
  heard_reset(&h);
  CHECK(TfLiteSignatureRunnerResizeInputTensor(add, "nope", (int[]){3}, 1) == kTfLiteError);
  CHECK_CONTAINS(h.text, "has no input \"nope\"");
  CHECK(run(sub, 1.0f, &h) == 1.0f - sub_c);

  TfLiteSignatureRunnerDelete(add);
  TfLiteSignatureRunnerDelete(sub);
  TfLiteInterpreterDelete(it);
  return ap_test_done();
}
