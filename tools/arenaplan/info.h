/* What `arenaplan info` computes once and prints as text (cmd_info.c) or JSON (info_json.c). */
#ifndef AP_CLI_INFO_H
#define AP_CLI_INFO_H

#include "cli.h"

/* Tensor kinds, each tensor counted once, the first that applies in this order. */
enum { KIND_CONSTANT, KIND_VARIABLE, KIND_INPUT, KIND_OUTPUT, KIND_INTERMEDIATE, KIND_COUNT };
extern const char *const info_kind_names[KIND_COUNT];

int info_tensor_kind(const ap_model *m, size_t sg, size_t t, const ap_tensor_info *ti);
void info_kinds(const ap_model *m, size_t sg, size_t counts[KIND_COUNT]);

typedef struct info_hist {
  int32_t builtin;
  const char *custom; /* for CUSTOM ops: the custom_code */
  size_t count;
} info_hist;
/* The op histogram of one subgraph (sg < count) or all (sg == SIZE_MAX), most frequent
 * first. Returns a malloc'd array (NULL on failure) and its length in *n. */
info_hist *info_histogram(const ap_model *m, size_t sg, size_t *n);
/* "CONV_2D" or "CUSTOM(name)" into buf. */
const char *info_op_name(char *buf, size_t size, int32_t builtin, const char *custom);



/* An op's typed options as JSON ("null" for ops whose options are not typed). */
void info_options_json(FILE *f, const ap_model *m, size_t sg, size_t op);

/* Writes the JSON document; returns the exit status. */
int info_json(const ap_model *m, bool tensors, bool ops);

#endif
