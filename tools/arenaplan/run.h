/* Pieces of `arenaplan run`: input generation and loading, output summaries, tensor files. */
#ifndef AP_RUN_H
#define AP_RUN_H

#include "cli.h"

/* Fills t->data with the TFLite Micro oracle's input rule (shared/oracle/tflm/README.md):
 * input k gets its own xorshift64* stream seeded with seed + k, one 64-bit draw per element,
 * mapped by type. Types the rule does not name are zeroed. */
void run_fill_random(ap_tensor *t, uint64_t seed, uint64_t k);

/* Reads `path` into t->data; its size must equal t->bytes. On failure prints
 * "arenaplan: PATH: ..." and returns false. */
bool run_read_input(const char *path, ap_tensor *t, size_t k);

/* Creates dir if it does not exist; prints the error and returns false on failure. */
bool run_make_dir(const char *dir);
/* Writes bytes to DIR/PREFIXk.bin; prints the error and returns false on failure. */
bool run_write_tensor(const char *dir, const char *prefix, size_t k, const void *data,
                      size_t bytes);

/* What is printed for one output tensor. Values are dequantized (int8 and uint8 with a
 * scale) so they read as the model's real numbers. */
typedef struct run_summary {
  bool has_stats; /* false for types without a numeric reading (string, resource, ...) */
  double min, max, mean;
  size_t count;
  bool dequantized;
  int top_n; /* classifiers: outputs with exactly one non-batch dim >= 2; otherwise 0 */
  size_t top_class[5];
  double top_value[5];
} run_summary;

void run_summarize(const ap_tensor *t, run_summary *s);
/* "[1,96,96,1]" into buf. */
const char *run_shape(char *buf, size_t size, const ap_tensor *t);

#endif
