/* arenaplan's extensions to TensorFlow Lite's C API (tflite-compat): what TFLite's API has no
 * call for. Every name starts with arenaplan_; a program using them still builds against
 * c_api.h unchanged otherwise.
 *
 *   static _Alignas(16) unsigned char buf[96 * 1024];
 *   TfLiteInterpreterOptions *o = TfLiteInterpreterOptionsCreate();
 *   arenaplan_options_set_arena(o, buf, sizeof buf);   // everything inside buf
 *   TfLiteInterpreter *it = TfLiteInterpreterCreate(model, o);
 *   TfLiteInterpreterAllocateTensors(it);               // kTfLiteError: too small (reported)
 *   arenaplan_memory m;
 *   arenaplan_interpreter_memory(it, &m);               // m.arena, m.total, ...
 */
#ifndef ARENAPLAN_C_API_H
#define ARENAPLAN_C_API_H

#include "arenaplan/runtime.h"
#include "tensorflow/lite/c/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the interpreter inside a caller-owned buffer: arena, persistent region and tables all
 * go in it (runtime.h, "Memory"); it must outlive every interpreter made with these options.
 * size 0 with buffer NULL goes back to the allocator. kTfLiteError for NULL options, or a
 * buffer without a size (or the reverse). */
TFL_CAPI_EXPORT extern TfLiteStatus arenaplan_options_set_arena(TfLiteInterpreterOptions *options,
                                                                void *buffer, size_t size);
/* The planning strategy ("best", the default; "tflite", "linear"... as the CLI's --strategy).
 * The string must outlive the interpreter. */
TFL_CAPI_EXPORT extern TfLiteStatus
arenaplan_options_set_strategy(TfLiteInterpreterOptions *options, const char *strategy);
/* Whether the inputs keep their bytes across an invoke (true by default, as in TFLite: a
 * second invoke sees the same inputs). false lets the plan reuse an input's bytes once its last
 * reader has run: a smaller arena, but copy the inputs in before every invoke. */
TFL_CAPI_EXPORT extern TfLiteStatus
arenaplan_options_set_preserve_inputs(TfLiteInterpreterOptions *options, bool preserve);
/* A custom op as arenaplan's runtime takes it (runtime.h's ap_custom_op: a custom_code and a
 * prepare/eval pair). The record is copied; at most 64 per options. */
TFL_CAPI_EXPORT extern TfLiteStatus
arenaplan_options_add_custom_op(TfLiteInterpreterOptions *options, const ap_custom_op *op);

/* The interpreter's memory after TfLiteInterpreterAllocateTensors (runtime.h's
 * ap_memory_usage): the arena, persistent and tables regions, their total (the smallest
 * caller buffer that holds them) and the arena's lower bound. kTfLiteError before allocate. */
typedef ap_memory_usage arenaplan_memory;
TFL_CAPI_EXPORT extern TfLiteStatus
arenaplan_interpreter_memory(const TfLiteInterpreter *interpreter, arenaplan_memory *out);
/* The runtime underneath, for any other ap_interpreter_* call (NULL for NULL). */
TFL_CAPI_EXPORT extern ap_interpreter *arenaplan_interpreter(const TfLiteInterpreter *interpreter);

#ifdef __cplusplus
}
#endif
#endif
