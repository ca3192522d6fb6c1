/* TFLite's C API: interpreter options, the calls arenaplan refuses (delegates, TFLite's
 * custom-op registrations) and arenaplan's own option extensions. */
#include "c_api_internal.h"

#include <stdio.h>
#include <string.h>

TfLiteInterpreterOptions *TfLiteInterpreterOptionsCreate(void) {
  TfLiteInterpreterOptions *o = ap_calloc(ap_default_allocator(), 1, sizeof *o);
  if (o) o->threads = -1;
  return o;
}

TfLiteInterpreterOptions *TfLiteInterpreterOptionsCopy(const TfLiteInterpreterOptions *from) {
  if (!from) return NULL;
  TfLiteInterpreterOptions *o = ap_calloc(ap_default_allocator(), 1, sizeof *o);
  if (o) *o = *from;
  return o;
}

void TfLiteInterpreterOptionsDelete(TfLiteInterpreterOptions *options) {
  ap_free(ap_default_allocator(), options);
}

void TfLiteInterpreterOptionsSetNumThreads(TfLiteInterpreterOptions *options, int32_t num_threads) {
  if (!options) return;
  if (num_threads < -1 || num_threads > AP_MAX_THREADS) {
    /* TFLite takes any count; the runtime has a cap. Said now, applied as the cap. */
    capi_report(options->reporter, options->user_data,
                "TfLiteInterpreterOptionsSetNumThreads: %d threads: expected -1 to %d; using %d",
                (int)num_threads, AP_MAX_THREADS, num_threads < 0 ? 1 : AP_MAX_THREADS);
    num_threads = num_threads < 0 ? -1 : AP_MAX_THREADS;
  }
  options->threads = num_threads;
}

void TfLiteInterpreterOptionsSetErrorReporter(TfLiteInterpreterOptions *options,
                                              capi_reporter reporter, void *user_data) {
  if (!options) return;
  options->reporter = reporter;
  options->user_data = user_data;
}

/* Reports a refused call and remembers it: TfLiteInterpreterCreate with these options fails,
 * as TFLite's does when a delegate cannot be applied. */
static void refuse(TfLiteInterpreterOptions *options, const char *what) {
  if (!options) return;
  if (!options->refused[0]) snprintf(options->refused, sizeof options->refused, "%s", what);
  capi_report(options->reporter, options->user_data, "%s", what);
}

void TfLiteInterpreterOptionsAddDelegate(TfLiteInterpreterOptions *options,
                                         TfLiteOpaqueDelegate *delegate) {
  (void)delegate;
  refuse(options, "TfLiteInterpreterOptionsAddDelegate: arenaplan runs no delegates: the model "
                  "runs on arenaplan's own kernels");
}

void TfLiteInterpreterOptionsAddRegistrationExternal(TfLiteInterpreterOptions *options,
                                                     TfLiteRegistrationExternal *registration) {
  (void)registration;
  refuse(options, "TfLiteInterpreterOptionsAddRegistrationExternal: TFLite custom op "
                  "registrations are not supported: use arenaplan_options_add_custom_op");
}

void TfLiteInterpreterOptionsAddOperator(TfLiteInterpreterOptions *options,
                                         TfLiteOperator *registration) {
  (void)registration;
  refuse(options, "TfLiteInterpreterOptionsAddOperator: TFLite custom op registrations are not "
                  "supported: use arenaplan_options_add_custom_op");
}

TfLiteStatus TfLiteInterpreterOptionsEnableCancellation(TfLiteInterpreterOptions *options,
                                                        bool enable) {
  (void)enable;
  return options ? kTfLiteOk : kTfLiteError;
}

TfLiteStatus arenaplan_options_set_arena(TfLiteInterpreterOptions *options, void *buffer,
                                         size_t size) {
  if (!options) return kTfLiteError;
  if (!buffer != !size) {
    capi_report(options->reporter, options->user_data,
                "arenaplan_options_set_arena: a buffer and its size go together (got %s, %zu)",
                buffer ? "a buffer" : "NULL", size);
    return kTfLiteError;
  }
  options->arena = buffer;
  options->arena_size = size;
  return kTfLiteOk;
}

TfLiteStatus arenaplan_options_set_strategy(TfLiteInterpreterOptions *options,
                                            const char *strategy) {
  if (!options) return kTfLiteError;
  options->strategy = strategy;
  return kTfLiteOk;
}

TfLiteStatus arenaplan_options_set_preserve_inputs(TfLiteInterpreterOptions *options,
                                                   bool preserve) {
  if (!options) return kTfLiteError;
  options->reuse_inputs = !preserve;
  return kTfLiteOk;
}

TfLiteStatus arenaplan_options_add_custom_op(TfLiteInterpreterOptions *options,
                                             const ap_custom_op *op) {
  if (!options) return kTfLiteError;
  if (!op || options->custom_count == CAPI_MAX_CUSTOM_OPS) {
    capi_report(options->reporter, options->user_data, "arenaplan_options_add_custom_op: %s",
                op ? "at most 64 custom ops per options" : "the op is NULL");
    return kTfLiteError;
  }
  options->custom[options->custom_count++] = *op;
  return kTfLiteOk;
}
