/* Tensors with a 0 dim get no bytes in the plan; ops over them still run (they read and write
 * nothing), as in TFLite Micro: x [0,3] -> ABS -> HARD_SWISH -> y [0,3], and the ADD of an
 * empty and a one-element tensor (test_min_runtime's shape). */
#include "rt_test.h"

#include <string.h>

static ap_model *empty_model(uint8_t **bytes) {
  ap_writer *w;
  if (ap_writer_create(NULL, &w) != AP_OK) return NULL;
  uint32_t op_abs, op_hs, op_add;
  ap_writer_add_opcode(w, 101, 1, &op_abs);
  ap_writer_add_opcode(w, 117, 1, &op_hs);
  ap_writer_add_opcode(w, 0, 1, &op_add);
  static const int32_t e[] = {0, 3}, one[] = {1};
  int32_t x = rt_float_tensor(w, "x", e, 2), a = rt_float_tensor(w, "a", e, 2);
  int32_t h = rt_float_tensor(w, "h", e, 2), b = rt_float_tensor(w, "b", one, 1);
  int32_t y = rt_float_tensor(w, "y", e, 2);
  int32_t in_add[2] = {h, b};
  ap_writer_add_op(w, 0, &(ap_writer_op){op_abs, &x, 1, &a, 1, NULL, 0, NULL, NULL, NULL, 0}, NULL);
  ap_writer_add_op(w, 0, &(ap_writer_op){op_hs, &a, 1, &h, 1, NULL, 0, NULL, NULL, NULL, 0}, NULL);
  ap_options add = ap_options_add(AP_ACT_NONE);
  ap_writer_add_op(w, 0, &(ap_writer_op){op_add, in_add, 2, &y, 1, NULL, 0, &add, NULL, NULL, 0},
                   NULL);
  int32_t ins[2] = {x, b};
  ap_writer_set_subgraph_io(w, 0, ins, 2, &y, 1);
  ap_model *m = rt_finish(w, bytes);
  ap_writer_destroy(w);
  return m;
}

int main(void) {
  uint8_t *bytes = NULL;
  ap_model *m = empty_model(&bytes);
  CHECK(m != NULL);
  if (m) {
    ap_interpreter_options o = ap_interpreter_defaults();
    ap_interpreter *it;
    CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
    CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
    CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
    ap_tensor out;
    CHECK(ap_interpreter_output(it, 0, &out) == AP_OK);
    CHECK(out.bytes == 0 && out.rank == 2 && out.dims[0] == 0 && out.dims[1] == 3);
    ap_interpreter_destroy(it);
    ap_model_destroy(m);
  }
  free(bytes);
  return ap_test_done();
}
