/* The runtime structs TFLite Micro 90b983c2 puts into the arena, as compiled for x86-64 and
 * for i386 (the 32-bit proxy for Cortex-M). */
#include "tflm/tflm_internal.h"

#include <string.h>

static const tflm_sizes sizes[2] = {
    [AP_TFLM_HOST64] =
        {
            .eval_tensor = {24, 8},
            .tensor = {64, 8},
            .node_and_registration = {64, 8},
            .subgraph_allocations = {16, 8},
            .scratch_handle = {8, 8},
            .scratch_request = {16, 8},
            .affine_quantization = {24, 8},
            .allocation_info = {32, 8},
            .size_t_ = {8, 8},
            .single_arena_allocator = {72, 8},
            .recording_single_arena_allocator = {104, 8},
            .greedy_planner = {72, 8},
            .micro_allocator = {72, 8},
            .recording_micro_allocator = {248, 8},
            .builtin_data_allocator = {16, 8},
            .pointer = 8,
            .resource_variables_object = 16,
            .resource_variable_slot = 40,
            .planner_per_buffer = 40,
        },
    [AP_TFLM_MCU32] =
        {
            .eval_tensor = {12, 4},
            .tensor = {40, 4},
            .node_and_registration = {32, 4},
            .subgraph_allocations = {8, 4},
            .scratch_handle = {4, 4},
            .scratch_request = {12, 4},
            .affine_quantization = {12, 4},
            .allocation_info = {24, 4},
            .size_t_ = {4, 4},
            .single_arena_allocator = {36, 4},
            .recording_single_arena_allocator = {52, 4},
            .greedy_planner = {44, 4},
            .micro_allocator = {36, 4},
            .recording_micro_allocator = {124, 4},
            .builtin_data_allocator = {8, 4},
            .pointer = 4,
            .resource_variables_object = 12,
            .resource_variable_slot = 20,
            .planner_per_buffer = 40,
        },
};

const tflm_sizes *tflm_sizes_for(ap_tflm_target t) {
  return &sizes[t == AP_TFLM_MCU32 ? AP_TFLM_MCU32 : AP_TFLM_HOST64];
}

const char *ap_tflm_target_name(ap_tflm_target t) {
  return t == AP_TFLM_MCU32 ? "mcu32" : t == AP_TFLM_HOST64 ? "host64" : "unknown";
}

bool ap_tflm_parse_target(const char *s, ap_tflm_target *out) {
  if (!s || !out) return false;
  if (strcmp(s, "host64") == 0)
    *out = AP_TFLM_HOST64;
  else if (strcmp(s, "mcu32") == 0)
    *out = AP_TFLM_MCU32;
  else
    return false;
  return true;
}

static const char *const category_names[AP_TFLM_CATEGORY_COUNT][2] = {
    {"eval_tensor", "kTfLiteEvalTensorData"},
    {"persistent_tensor", "kPersistentTfLiteTensorData"},
    {"persistent_tensor_quant", "kPersistentTfLiteTensorQuantizationData"},
    {"persistent_buffer", "kPersistentBufferData"},
    {"variable_buffer", "kTfLiteTensorVariableBufferData"},
    {"node_and_registration", "kNodeAndRegistrationArray"},
    {"op_data", "kOpData"},
    {"allocator_objects", "(unrecorded)"},
    {"model_start", "(unrecorded)"},
    {"builtin_data", "(unrecorded)"},
    {"scratch_handles", "(unrecorded)"},
};

const char *ap_tflm_category_name(ap_tflm_category c) {
  return (unsigned)c < AP_TFLM_CATEGORY_COUNT ? category_names[c][0] : "unknown";
}
const char *ap_tflm_category_tflm_name(ap_tflm_category c) {
  return (unsigned)c < AP_TFLM_CATEGORY_COUNT ? category_names[c][1] : "unknown";
}

const char *ap_tflm_phase_name(ap_tflm_phase p) {
  static const char *const names[] = {"setup", "start", "parse", "init", "prepare", "finish"};
  return (unsigned)p < sizeof names / sizeof names[0] ? names[p] : "unknown";
}
