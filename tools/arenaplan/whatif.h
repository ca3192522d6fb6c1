/* `--what-if int8` (plan, report, header): what a model would need if its float32 tensors
 * were int8, computed by re-typing the graph's tensors and planning the re-typed sizes with the
 * same lifetimes (ap_model_plan_options.tensor_bytes), not by a rule of thumb.
 *
 * Re-typing: float32 activations int8 (1 byte per element); constant float32 tensors int8
 * (weights; per-channel scales for conv-like ops live in the file's quantization tables, not
 * in the weights' bytes) except biases (input 2 of CONV_2D, DEPTHWISE_CONV_2D,
 * FULLY_CONNECTED, input 3 of TRANSPOSE_CONV, inputs 12-15 of LSTM and
 * UNIDIRECTIONAL_SEQUENCE_LSTM), which become int32; float32 variable tensors int8, an LSTM's
 * cell state (input 19) int16, as TFLite's int8 LSTM keeps them. Other types are unchanged.
 *
 * Two variants of subgraph 0's inputs and outputs:
 *  - int8: they are re-typed like every activation;
 *  - kept float: a converter adds a QUANTIZE after each float input and a DEQUANTIZE before
 *    each float output; those steps hold every float input with its int8 copy (and every
 *    float output with its int8 source) at once, so the arena is the int8 variant's or that
 *    peak, whichever is larger. */
#ifndef AP_WHATIF_H
#define AP_WHATIF_H

#include "cli.h"

typedef struct whatif_variant {
  uint64_t arena, lower_bound;
  uint64_t io_peak; /* kept float: the QUANTIZE/DEQUANTIZE steps' bytes; 0 for int8 */
} whatif_variant;

typedef struct whatif {
  size_t activations, weights, biases, variables; /* float32 tensors re-typed, by role */
  uint64_t weights_before, weights_after;         /* constant data, each buffer once */
  uint64_t persistent_before, persistent_after; /* variables, each rounded up to 16 */
  uint64_t arena_before;                          /* the same plan without re-typing */
  whatif_variant io_int8, io_float;
} whatif;

/* Fills w, planning with base's options (NULL: the defaults; its tensor_bytes are replaced).
 * AP_ERR_UNSUPPORTED with "no float32 tensors to re-type"
 * when nothing is float32; other failures carry the planner's message. */
ap_status whatif_int8(const ap_model *m, const ap_model_plan_options *base, whatif *w, char *err,
                      size_t err_size);

/* Parses the option's value ("int8"); prints the usage error and returns false otherwise. */
bool whatif_parse(const ap_command *cmd, const char *v);

/* The human block and the JSON object ("what_if_int8": {...}) shared by the subcommands.
 * device_extra: tables (and other regions) the caller adds to arena + persistent for a
 * device total; 0 to leave the total out. */
void whatif_print(const whatif *w, uint64_t device_extra);
void whatif_json(const whatif *w, uint64_t device_extra, const char *indent);

#endif
