/* TFLite's C API: the interpreter over an ap_interpreter (create, allocate, resize, invoke,
 * inputs and outputs), and arenaplan's interpreter extensions. */
#include "c_api_internal.h"

#include <string.h>

TfLiteStatus capi_status(const TfLiteInterpreter *in, ap_status s, const char *what) {
  if (s == AP_OK) return kTfLiteOk;
  capi_ireport(in, "%s: %s", what,
               s == AP_ERR_BUSY ? "the interpreter is busy in another thread"
                                : ap_interpreter_error(in->it));
  return kTfLiteError;
}

/* Whether the caller's custom ops (arenaplan_options_add_custom_op) provide op's kernel. */
static bool custom_provided(const TfLiteInterpreterOptions *o, const ap_op_info *op) {
  for (size_t i = 0; i < o->custom_count; i++) {
    const ap_custom_op *c = &o->custom[i];
    if (op->custom ? c->name && strcmp(c->name, op->custom) == 0
                   : !c->name && c->builtin == op->builtin)
      return true;
  }
  return false;
}

/* TFLite resolves every op when it builds the interpreter: an op this build cannot run fails
 * TfLiteInterpreterCreate (TFLite's "Didn't find op ..."), not a later allocate. */
static bool ops_resolved(const TfLiteInterpreter *in) {
  const ap_model *m = in->model->m;
  for (size_t sg = 0; sg < in->subgraphs; sg++)
    for (size_t k = 0; k < ap_model_op_count(m, sg); k++) {
      ap_op_info op;
      char why[256];
      if (ap_model_op(m, sg, k, &op) == AP_OK && custom_provided(&in->opt, &op)) continue;
      if (ap_op_supported(m, sg, k, why, sizeof why) != AP_OK) {
        capi_ireport(in, "TfLiteInterpreterCreate: subgraph %zu op %zu: %s", sg, k, why);
        return false;
      }
    }
  return true;
}

/* The tensor handles of every subgraph, and subgraph 0's inputs and outputs as ints. */
static bool make_tables(TfLiteInterpreter *in) {
  const ap_allocator *a = ap_default_allocator();
  const ap_model *m = in->model->m;
  size_t total = 0;
  in->first = ap_calloc(a, in->subgraphs ? in->subgraphs : 1, sizeof *in->first);
  if (!in->first) return false;
  for (size_t sg = 0; sg < in->subgraphs; sg++) {
    in->first[sg] = total;
    if (!ap_add_size(total, ap_model_tensor_count(m, sg), &total)) return false;
  }
  in->tensors = ap_calloc(a, total ? total : 1, sizeof *in->tensors);
  if (!in->tensors) return false;
  for (size_t sg = 0; sg < in->subgraphs; sg++)
    for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++)
      in->tensors[in->first[sg] + t] =
          (TfLiteTensor){.owner = in, .subgraph = (uint32_t)sg, .index = (uint32_t)t};
  ap_ivec i = ap_model_subgraph_inputs(m, 0), o = ap_model_subgraph_outputs(m, 0);
  in->inputs = ap_calloc(a, i.n ? i.n : 1, sizeof *in->inputs);
  in->outputs = ap_calloc(a, o.n ? o.n : 1, sizeof *in->outputs);
  if (!in->inputs || !in->outputs || i.n > INT32_MAX || o.n > INT32_MAX) return false;
  for (size_t k = 0; k < i.n; k++)
    in->inputs[k] = i.v[k];
  for (size_t k = 0; k < o.n; k++)
    in->outputs[k] = o.v[k];
  in->input_count = (int32_t)i.n;
  in->output_count = (int32_t)o.n;
  return true;
}

TfLiteInterpreter *TfLiteInterpreterCreate(const TfLiteModel *model,
                                           const TfLiteInterpreterOptions *optional_options) {
  static const TfLiteInterpreterOptions defaults = {.threads = -1};
  const TfLiteInterpreterOptions *opt = optional_options ? optional_options : &defaults;
  if (!model) {
    capi_report(opt->reporter, opt->user_data, "TfLiteInterpreterCreate: the model is NULL");
    return NULL;
  }
  if (opt->refused[0]) {
    capi_report(opt->reporter, opt->user_data, "TfLiteInterpreterCreate: refused: %s",
                opt->refused);
    return NULL;
  }
  const ap_allocator *a = ap_default_allocator();
  TfLiteInterpreter *in = ap_calloc(a, 1, sizeof *in);
  if (!in) {
    capi_report(opt->reporter, opt->user_data, "TfLiteInterpreterCreate: out of memory");
    return NULL;
  }
  in->opt = *opt;
  in->model = (TfLiteModel *)model; /* the count is the handle's, not the model's bytes */
  capi_model_retain(in->model);
  in->subgraphs = ap_model_subgraph_count(model->m);
  if (!make_tables(in)) {
    capi_ireport(in, "TfLiteInterpreterCreate: out of memory");
    TfLiteInterpreterDelete(in);
    return NULL;
  }
  if (!ops_resolved(in)) {
    TfLiteInterpreterDelete(in);
    return NULL;
  }
  ap_interpreter_options o = ap_interpreter_defaults();
  o.threads = in->opt.threads > 0 ? in->opt.threads : 0;
  o.arena = in->opt.arena;
  o.arena_size = in->opt.arena_size;
  o.strategy = in->opt.strategy;
  o.preserve_inputs = !in->opt.reuse_inputs; /* TFLite keeps the inputs across invokes */
  o.custom_ops = in->opt.custom_count ? in->opt.custom : NULL;
  o.custom_op_count = in->opt.custom_count;
  ap_status s = ap_interpreter_create(model->m, &o, &in->it);
  if (s != AP_OK) {
    if (in->it)
      capi_ireport(in, "TfLiteInterpreterCreate: %s", ap_interpreter_error(in->it));
    else if (s == AP_ERR_ARENA_TOO_SMALL)
      capi_ireport(in,
                   "TfLiteInterpreterCreate: arena too small: the buffer of %zu bytes "
                   "(arenaplan_options_set_arena) cannot hold the interpreter itself",
                   in->opt.arena_size);
    else
      capi_ireport(in, "TfLiteInterpreterCreate: out of memory");
    TfLiteInterpreterDelete(in);
    return NULL;
  }
  return in;
}

void TfLiteInterpreterDelete(TfLiteInterpreter *interpreter) {
  if (!interpreter) return;
  const ap_allocator *a = ap_default_allocator();
  ap_interpreter_destroy(interpreter->it);
  TfLiteModelDelete(interpreter->model);
  ap_free(a, interpreter->tensors);
  ap_free(a, interpreter->first);
  ap_free(a, interpreter->inputs);
  ap_free(a, interpreter->outputs);
  ap_free(a, interpreter);
}

TfLiteTensor *capi_tensor(const TfLiteInterpreter *in, size_t sg, int64_t t) {
  if (!in || sg >= in->subgraphs || t < 0 || (uint64_t)t >= ap_model_tensor_count(in->model->m, sg))
    return NULL;
  return &in->tensors[in->first[sg] + (size_t)t];
}

int32_t TfLiteInterpreterGetInputTensorCount(const TfLiteInterpreter *interpreter) {
  return interpreter ? interpreter->input_count : 0;
}

const int *TfLiteInterpreterInputTensorIndices(const TfLiteInterpreter *interpreter) {
  return interpreter ? interpreter->inputs : NULL;
}

TfLiteTensor *TfLiteInterpreterGetInputTensor(const TfLiteInterpreter *interpreter,
                                              int32_t input_index) {
  if (!interpreter || input_index < 0 || input_index >= interpreter->input_count) return NULL;
  return capi_tensor(interpreter, 0, interpreter->inputs[input_index]);
}

int32_t TfLiteInterpreterGetOutputTensorCount(const TfLiteInterpreter *interpreter) {
  return interpreter ? interpreter->output_count : 0;
}

const int *TfLiteInterpreterOutputTensorIndices(const TfLiteInterpreter *interpreter) {
  return interpreter ? interpreter->outputs : NULL;
}

const TfLiteTensor *TfLiteInterpreterGetOutputTensor(const TfLiteInterpreter *interpreter,
                                                     int32_t output_index) {
  if (!interpreter || output_index < 0 || output_index >= interpreter->output_count) return NULL;
  return capi_tensor(interpreter, 0, interpreter->outputs[output_index]);
}

TfLiteTensor *TfLiteInterpreterGetTensor(const TfLiteInterpreter *interpreter, int index) {
  return capi_tensor(interpreter, 0, index);
}

bool capi_dims(const TfLiteInterpreter *in, const char *what, const int *input_dims,
               int32_t input_dims_size, int32_t dims[AP_MAX_DIMS]) {
  if (input_dims_size < 0 || input_dims_size > AP_MAX_DIMS || (input_dims_size && !input_dims)) {
    capi_ireport(in, "%s: %d dims%s: expected 0 to %d dims", what, (int)input_dims_size,
                 input_dims_size && !input_dims ? " (NULL)" : "", AP_MAX_DIMS);
    return false;
  }
  for (int32_t d = 0; d < input_dims_size; d++)
    dims[d] = input_dims[d];
  return true;
}

TfLiteStatus TfLiteInterpreterResizeInputTensor(TfLiteInterpreter *interpreter, int32_t input_index,
                                                const int *input_dims, int32_t input_dims_size) {
  if (!interpreter) return kTfLiteError;
  if (input_index < 0 || input_index >= interpreter->input_count) {
    capi_ireport(interpreter, "TfLiteInterpreterResizeInputTensor: input %d: the model has %d",
                 (int)input_index, (int)interpreter->input_count);
    return kTfLiteError;
  }
  int32_t dims[AP_MAX_DIMS];
  if (!capi_dims(interpreter, "TfLiteInterpreterResizeInputTensor", input_dims, input_dims_size,
                 dims))
    return kTfLiteError;
  return capi_status(
      interpreter,
      ap_interpreter_resize_input(interpreter->it, (size_t)input_index, dims, input_dims_size),
      "TfLiteInterpreterResizeInputTensor");
}

TfLiteStatus TfLiteInterpreterAllocateTensors(TfLiteInterpreter *interpreter) {
  if (!interpreter) return kTfLiteError;
  return capi_status(interpreter, ap_interpreter_allocate(interpreter->it),
                     "TfLiteInterpreterAllocateTensors");
}

TfLiteStatus TfLiteInterpreterInvoke(TfLiteInterpreter *interpreter) {
  if (!interpreter) return kTfLiteError;
  return capi_status(interpreter, ap_interpreter_invoke(interpreter->it),
                     "TfLiteInterpreterInvoke");
}

TfLiteStatus TfLiteInterpreterCancel(const TfLiteInterpreter *interpreter) {
  if (interpreter)
    capi_ireport(interpreter, "TfLiteInterpreterCancel: arenaplan's invoke cannot be cancelled");
  return kTfLiteError;
}

TfLiteStatus TfLiteInterpreterModifyGraphWithDelegate(const TfLiteInterpreter *interpreter,
                                                      TfLiteDelegate *delegate) {
  (void)delegate;
  if (interpreter)
    capi_ireport(interpreter, "TfLiteInterpreterModifyGraphWithDelegate: arenaplan runs no "
                              "delegates: the model runs on arenaplan's own kernels");
  return kTfLiteDelegateError;
}

TfLiteStatus arenaplan_interpreter_memory(const TfLiteInterpreter *interpreter,
                                          arenaplan_memory *out) {
  if (!interpreter || !out) return kTfLiteError;
  ap_status s = ap_interpreter_memory(interpreter->it, out);
  if (s == AP_ERR_NOT_ALLOCATED) {
    capi_ireport(interpreter, "arenaplan_interpreter_memory: not allocated: call "
                              "TfLiteInterpreterAllocateTensors first");
    return kTfLiteError;
  }
  return capi_status(interpreter, s, "arenaplan_interpreter_memory");
}

ap_interpreter *arenaplan_interpreter(const TfLiteInterpreter *interpreter) {
  return interpreter ? interpreter->it : NULL;
}
