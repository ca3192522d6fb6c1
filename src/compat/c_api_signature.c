/* TFLite's C API: signatures and signature runners. A runner reads and writes its
 * signature's subgraph's tensors in the interpreter's arena and invokes that subgraph. */
#include "c_api_internal.h"

#include <string.h>

int32_t TfLiteInterpreterGetSignatureCount(const TfLiteInterpreter *interpreter) {
  if (!interpreter) return 0;
  size_t n = ap_model_signature_count(interpreter->model->m);
  return n > INT32_MAX ? INT32_MAX : (int32_t)n;
}

const char *TfLiteInterpreterGetSignatureKey(const TfLiteInterpreter *interpreter,
                                             int32_t signature_index) {
  ap_signature_info info;
  if (!interpreter || signature_index < 0 ||
      ap_model_signature(interpreter->model->m, (size_t)signature_index, &info) != AP_OK)
    return NULL;
  return info.key;
}

TfLiteSignatureRunner *TfLiteInterpreterGetSignatureRunner(const TfLiteInterpreter *interpreter,
                                                           const char *signature_key) {
  if (!interpreter) return NULL;
  const ap_model *m = interpreter->model->m;
  size_t n = ap_model_signature_count(m);
  if (!signature_key && n) {
    capi_ireport(interpreter, "TfLiteInterpreterGetSignatureRunner: the signature key is NULL "
                              "and the model has signatures");
    return NULL;
  }
  ap_signature_info info = {0};
  size_t i = 0;
  if (!signature_key) {
    /* As TFLite: a model without signatures has a default one, subgraph 0's inputs and
     * outputs named by their tensors' names. */
    info = (ap_signature_info){.key = CAPI_DEFAULT_SIGNATURE,
                               .subgraph = 0,
                               .input_count = (size_t)interpreter->input_count,
                               .output_count = (size_t)interpreter->output_count};
    i = CAPI_NO_SIGNATURE;
  } else {
    for (i = 0; i < n; i++)
      if (ap_model_signature(m, i, &info) == AP_OK && strcmp(info.key, signature_key) == 0 &&
          info.subgraph < interpreter->subgraphs)
        break;
    if (i == n) {
      capi_ireport(interpreter, "TfLiteInterpreterGetSignatureRunner: no signature \"%s\"",
                   signature_key);
      return NULL;
    }
  }
  TfLiteSignatureRunner *r = ap_calloc(ap_default_allocator(), 1, sizeof *r);
  if (!r) {
    capi_ireport(interpreter, "TfLiteInterpreterGetSignatureRunner: out of memory");
    return NULL;
  }
  *r = (TfLiteSignatureRunner){
      .owner = (TfLiteInterpreter *)interpreter, .signature = i, .info = info};
  return r;
}

void TfLiteSignatureRunnerDelete(TfLiteSignatureRunner *signature_runner) {
  ap_free(ap_default_allocator(), signature_runner);
}

size_t TfLiteSignatureRunnerGetInputCount(const TfLiteSignatureRunner *signature_runner) {
  return signature_runner ? signature_runner->info.input_count : 0;
}

size_t TfLiteSignatureRunnerGetOutputCount(const TfLiteSignatureRunner *signature_runner) {
  return signature_runner ? signature_runner->info.output_count : 0;
}

static bool io_map(const TfLiteSignatureRunner *r, bool input, size_t k, ap_tensor_map *out) {
  const ap_model *m = r->owner->model->m;
  if (r->signature == CAPI_NO_SIGNATURE) {
    const TfLiteInterpreter *in = r->owner;
    ap_tensor_info ti;
    if (k >= (input ? r->info.input_count : r->info.output_count)) return false;
    out->tensor = (uint32_t)(input ? in->inputs[k] : in->outputs[k]);
    if (ap_model_tensor(m, 0, out->tensor, &ti) != AP_OK) return false;
    out->name = ti.name;
    return true;
  }
  return (input ? ap_model_signature_input(m, r->signature, k, out)
                : ap_model_signature_output(m, r->signature, k, out)) == AP_OK;
}

static const char *io_name(const TfLiteSignatureRunner *r, bool input, int32_t k) {
  ap_tensor_map map;
  if (!r || k < 0 || !io_map(r, input, (size_t)k, &map)) return NULL;
  return map.name;
}

const char *TfLiteSignatureRunnerGetInputName(const TfLiteSignatureRunner *signature_runner,
                                              int32_t input_index) {
  return io_name(signature_runner, true, input_index);
}

const char *TfLiteSignatureRunnerGetOutputName(const TfLiteSignatureRunner *signature_runner,
                                               int32_t output_index) {
  return io_name(signature_runner, false, output_index);
}

/* The tensor index of the signature's input or output `name`, or -1 after a report. */
static int64_t io_tensor(const TfLiteSignatureRunner *r, bool input, const char *name,
                         const char *what) {
  size_t n = input ? r->info.input_count : r->info.output_count;
  for (size_t k = 0; name && k < n; k++) {
    ap_tensor_map map;
    if (io_map(r, input, k, &map) && strcmp(map.name, name) == 0) return map.tensor;
  }
  capi_ireport(r->owner, "%s: signature \"%s\" has no %s \"%s\"", what, r->info.key,
               input ? "input" : "output", name ? name : "(NULL)");
  return -1;
}

TfLiteTensor *TfLiteSignatureRunnerGetInputTensor(TfLiteSignatureRunner *signature_runner,
                                                  const char *input_name) {
  if (!signature_runner) return NULL;
  int64_t t = io_tensor(signature_runner, true, input_name, "TfLiteSignatureRunnerGetInputTensor");
  return capi_tensor(signature_runner->owner, signature_runner->info.subgraph, t);
}

const TfLiteTensor *
TfLiteSignatureRunnerGetOutputTensor(const TfLiteSignatureRunner *signature_runner,
                                     const char *output_name) {
  if (!signature_runner) return NULL;
  int64_t t =
      io_tensor(signature_runner, false, output_name, "TfLiteSignatureRunnerGetOutputTensor");
  return capi_tensor(signature_runner->owner, signature_runner->info.subgraph, t);
}

TfLiteStatus TfLiteSignatureRunnerResizeInputTensor(TfLiteSignatureRunner *signature_runner,
                                                    const char *input_name, const int *input_dims,
                                                    int32_t input_dims_size) {
  static const char what[] = "TfLiteSignatureRunnerResizeInputTensor";
  if (!signature_runner) return kTfLiteError;
  TfLiteInterpreter *in = signature_runner->owner;
  int64_t t = io_tensor(signature_runner, true, input_name, what);
  if (t < 0) return kTfLiteError;
  int32_t dims[AP_MAX_DIMS];
  if (!capi_dims(in, what, input_dims, input_dims_size, dims)) return kTfLiteError;
  /* Any signature's subgraph: the plan is stale until the runner's AllocateTensors. */
  return capi_status(in,
                     ap_interpreter_resize_tensor(in->it, signature_runner->info.subgraph,
                                                  (size_t)t, dims, input_dims_size),
                     what);
}

TfLiteStatus TfLiteSignatureRunnerAllocateTensors(TfLiteSignatureRunner *signature_runner) {
  if (!signature_runner) return kTfLiteError;
  return TfLiteInterpreterAllocateTensors(signature_runner->owner);
}

TfLiteStatus TfLiteSignatureRunnerInvoke(TfLiteSignatureRunner *signature_runner) {
  if (!signature_runner) return kTfLiteError;
  TfLiteInterpreter *in = signature_runner->owner;
  return capi_status(in, ap_interpreter_invoke_subgraph(in->it, signature_runner->info.subgraph),
                     "TfLiteSignatureRunnerInvoke");
}
