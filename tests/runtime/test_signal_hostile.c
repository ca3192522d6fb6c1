/* Hostile options for the Signal ops, through the whole runtime: every byte of every Signal op's
 * FlexBuffers options in audio_preprocessor_int8 set to a few other values, then allocate and
 * invoke. Each run either works or fails with a one-line message naming the op; none reads
 * outside the model or the arena (the ASan build runs this too). */
#include "oracle.h"

static bool one_line(const char *msg) {
  return msg && msg[0] && !strchr(msg, '\n');
}

int main(void) {
  ap_test_require_shared();
  char path[4096];
  size_t size = 0;
  uint8_t *orig = ap_test_read_file(
      ap_test_path(path, sizeof path, "models/audio_preprocessor_int8.tflite"), &size);
  CHECK(orig != NULL);
  if (!orig) return ap_test_done();
  uint8_t *copy = malloc(size);
  ap_model *m = NULL;
  CHECK_EQ(ap_model_from_buffer(orig, size, "audio", NULL, &m), AP_OK);
  size_t runs = 0, refused = 0, ran = 0;
  for (size_t k = 0; m && k < ap_model_op_count(m, 0); k++) {
    ap_op_info op;
    if (ap_model_op(m, 0, k, &op) != AP_OK || !op.custom || !op.custom_options_size) continue;
    size_t at = (size_t)((const uint8_t *)op.custom_options - orig);
    for (size_t b = 0; b < op.custom_options_size; b++) {
      const uint8_t values[] = {0x00, 0xff, (uint8_t)(orig[at + b] ^ 1), 0x7f, 0x80};
      for (size_t v = 0; v < sizeof values; v++) {
        if (values[v] == orig[at + b]) continue;
        memcpy(copy, orig, size);
        copy[at + b] = values[v];
        ap_model *mm = NULL;
        if (ap_model_from_buffer(copy, size, "audio", NULL, &mm) != AP_OK) {
          ap_model_destroy(mm);
          continue;
        }
        ap_interpreter *it = NULL;
        ap_status s = ap_interpreter_create(mm, NULL, &it);
        if (s == AP_OK) s = ap_interpreter_allocate(it);
        if (s == AP_OK) {
          ap_tensor in;
          oracle_fill(oracle_input(it, 0, &in), 1, 0);
          s = ap_interpreter_invoke(it);
        }
        runs++;
        if (s == AP_OK) {
          ran++;
        } else {
          refused++;
          const char *msg = ap_interpreter_error(it);
          CHECK_MSG(one_line(msg), "op %zu byte %zu = 0x%02x: \"%s\"", k, b, values[v], msg);
        }
        ap_interpreter_destroy(it);
        ap_model_destroy(mm);
      }
    }
  }
  printf("signal options: %zu corrupted models, %zu refused, %zu ran\n", runs, refused, ran);
  CHECK(runs > 1000);
  CHECK(refused > 100);
  ap_model_destroy(m);
  free(copy);
  free(orig);
  return ap_test_done();
}
