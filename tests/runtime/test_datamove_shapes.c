/* The data-movement ops through the interpreter: SQUEEZE and EXPAND_DIMS as in-place views;
 * the ops whose output shapes come from values:
 * folded in allocate when the values follow from constants (BROADCAST_ARGS of two constant
 * shapes feeding BROADCAST_TO: no dynamic tensor), dynamic when they follow from an input (FILL
 * with its dims a graph input; BROADCAST_ARGS of an input shape feeding BROADCAST_TO), and a
 * SPLIT whose count does not divide refused by allocate with a one-line message. */
#include "rt_test.h"

#include <string.h>

static int32_t int_tensor(ap_writer *w, const char *name, const int32_t *vals, int32_t n) {
  uint32_t b = 0;
  if (vals) ap_writer_add_buffer(w, vals, (size_t)n * 4, &b);
  int32_t t;
  ap_writer_add_tensor(
      w, 0,
      &(ap_writer_tensor){.name = name, .type = AP_INT32, .shape = &n, .rank = 1, .buffer = b}, &t);
  return t;
}

static void add_op(ap_writer *w, uint32_t opcode, const int32_t *in, size_t n_in, int32_t out) {
  ap_writer_add_op(
      w, 0,
      &(ap_writer_op){
          .opcode = opcode, .inputs = in, .input_count = n_in, .outputs = &out, .output_count = 1},
      NULL);
}

/* s = BROADCAST_ARGS(a, b); y = BROADCAST_TO(x [2,1] float, s). With `a_input`, a is a graph
 * input (values at invoke); else a = [2, 1] constant and b = [3]. y is declared [1, 1]. */
static ap_model *bcast_model(bool a_input, uint8_t **bytes) {
  ap_writer *w;
  if (ap_writer_create(NULL, &w) != AP_OK) return NULL;
  uint32_t op_args, op_to;
  ap_writer_add_opcode(w, 145, 1, &op_args);
  ap_writer_add_opcode(w, 130, 1, &op_to);
  static const int32_t av[] = {2, 1}, bv[] = {3}, xs[] = {2, 1}, ys[] = {1, 1};
  int32_t a = int_tensor(w, "a", a_input ? NULL : av, 2), b = int_tensor(w, "b", bv, 1);
  int32_t s = int_tensor(w, "s", NULL, 2);
  int32_t x = rt_float_tensor(w, "x", xs, 2), y = rt_float_tensor(w, "y", ys, 2);
  add_op(w, op_args, (int32_t[]){a, b}, 2, s);
  add_op(w, op_to, (int32_t[]){x, s}, 2, y);
  int32_t ins[2] = {x, a};
  ap_writer_set_subgraph_io(w, 0, ins, a_input ? 2 : 1, &y, 1);
  ap_model *m = rt_finish(w, bytes);
  ap_writer_destroy(w);
  return m;
}

static void check_bcast(ap_interpreter *it, int rows) {
  ap_tensor x, y;
  CHECK(ap_interpreter_input(it, 0, &x) == AP_OK);
  ((float *)x.data)[0] = 1.5f, ((float *)x.data)[1] = -2.0f;
  CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
  CHECK(ap_interpreter_output(it, 0, &y) == AP_OK);
  CHECK(y.rank == 2 && y.dims[0] == rows && y.dims[1] == 3);
  int bad = 0;
  for (int i = 0; i < rows * 3; i++)
    bad += ((float *)y.data)[i] != (i / 3 % 2 ? -2.0f : 1.5f);
  CHECK_EQ(bad, 0);
}

static void bcast(void) {
  uint8_t *bytes;
  ap_model *m = bcast_model(false, &bytes);
  CHECK(m != NULL);
  if (!m) return;
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  CHECK_EQ(ap_interpreter_dynamic_count(it), 0); /* folded: [2, 3] known in allocate */
  check_bcast(it, 2);
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  free(bytes);

  /* a from the caller: s and y are known only at invoke. x is [2, 1], so a = [2, 1] gives
   * [2, 3], a = [4, 1] fails in BROADCAST_TO and [5, 2] already in BROADCAST_ARGS. */
  m = bcast_model(true, &bytes);
  CHECK(m != NULL);
  if (!m) return;
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  CHECK(ap_interpreter_dynamic_count(it) >= 1);
  ap_tensor a;
  CHECK(ap_interpreter_input(it, 1, &a) == AP_OK);
  ((int32_t *)a.data)[0] = 2, ((int32_t *)a.data)[1] = 1;
  check_bcast(it, 2);
  ((int32_t *)a.data)[0] = 4;
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_FORMAT);
  CHECK_STR(ap_interpreter_error(it), "subgraph 0 op 1 (BROADCAST_TO): BROADCAST_TO: dim 0 of 2 "
                                      "cannot broadcast to 4");
  ((int32_t *)a.data)[0] = 5, ((int32_t *)a.data)[1] = 2; /* [5, 2] and [3] */
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_FORMAT);
  CHECK_STR(ap_interpreter_error(it), "subgraph 0 op 0 (BROADCAST_ARGS): BROADCAST_ARGS: dims 2 "
                                      "and 3 (0 from the end) do not broadcast");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  free(bytes);
}

/* y = FILL(d, v): d an INT32 [2] graph input, v a float scalar input; y declared [1, 1]. */
static void fill_dynamic(void) {
  ap_writer *w;
  if (ap_writer_create(NULL, &w) != AP_OK) return;
  uint32_t op_fill;
  ap_writer_add_opcode(w, 94, 1, &op_fill);
  static const int32_t ys[] = {1, 1};
  int32_t d = int_tensor(w, "d", NULL, 2), v, y = rt_float_tensor(w, "y", ys, 2);
  ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = "v", .type = AP_FLOAT32, .rank = 0}, &v);
  add_op(w, op_fill, (int32_t[]){d, v}, 2, y);
  int32_t ins[2] = {d, v};
  ap_writer_set_subgraph_io(w, 0, ins, 2, &y, 1);
  uint8_t *bytes;
  ap_model *m = rt_finish(w, &bytes);
  ap_writer_destroy(w);
  CHECK(m != NULL);
  if (!m) return;
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  CHECK_EQ(ap_interpreter_dynamic_count(it), 1);
  ap_tensor td, tv, out;
  CHECK(ap_interpreter_input(it, 0, &td) == AP_OK && ap_interpreter_input(it, 1, &tv) == AP_OK);
  static const int32_t shapes[3][2] = {{2, 3}, {4, 1}, {0, 5}};
  for (int k = 0; k < 3; k++) {
    memcpy(td.data, shapes[k], 8);
    *(float *)tv.data = 0.25f * (float)(k + 1);
    CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
    CHECK(ap_interpreter_output(it, 0, &out) == AP_OK);
    CHECK(out.is_dynamic && out.rank == 2 && out.dims[0] == shapes[k][0] &&
          out.dims[1] == shapes[k][1]);
    int bad = 0;
    for (int i = 0; i < shapes[k][0] * shapes[k][1]; i++)
      bad += ((float *)out.data)[i] != 0.25f * (float)(k + 1);
    CHECK_EQ(bad, 0);
  }
  ((int32_t *)td.data)[0] = -3;
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_FORMAT);
  CHECK_STR(ap_interpreter_error(it), "subgraph 0 op 0 (FILL): FILL: dims[0] is -3");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  free(bytes);
}

/* SPLIT of x [2, 6] along constant axis 1 into 4 outputs: 6 does not divide by 4. */
static void split_refused(void) {
  ap_writer *w;
  if (ap_writer_create(NULL, &w) != AP_OK) return;
  uint32_t op_split;
  ap_writer_add_opcode(w, 49, 1, &op_split);
  static const int32_t one[] = {1}, xs[] = {2, 6}, os[] = {2, 1};
  int32_t axis = int_tensor(w, "axis", one, 1), x = rt_float_tensor(w, "x", xs, 2), o[4];
  for (int i = 0; i < 4; i++)
    o[i] = rt_float_tensor(w, NULL, os, 2);
  ap_writer_add_op(w, 0,
                   &(ap_writer_op){.opcode = op_split,
                                   .inputs = (int32_t[]){axis, x},
                                   .input_count = 2,
                                   .outputs = o,
                                   .output_count = 4},
                   NULL);
  ap_writer_set_subgraph_io(w, 0, &x, 1, o, 4);
  uint8_t *bytes;
  ap_model *m = rt_finish(w, &bytes);
  ap_writer_destroy(w);
  CHECK(m != NULL);
  if (!m) return;
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  CHECK_EQ(ap_interpreter_allocate(it), AP_ERR_FORMAT);
  CHECK_STR(ap_interpreter_error(it),
            "subgraph 0 op 0 (SPLIT): SPLIT: dim 1 of size 6 does not split into 4");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  free(bytes);
}

/* x [1,4] -> RELU r [1,4] -> SQUEEZE s [4] -> EXPAND_DIMS(s, 0) e [1,4] -> RELU y [1,4]. With
 * in-place sharing s and e are views on r's bytes, and eval has nothing to copy. */
static void views_in_place(void) {
  ap_writer *w;
  if (ap_writer_create(NULL, &w) != AP_OK) return;
  uint32_t op_relu, op_squeeze, op_expand;
  ap_writer_add_opcode(w, 19, 1, &op_relu);
  ap_writer_add_opcode(w, 43, 1, &op_squeeze);
  ap_writer_add_opcode(w, 70, 1, &op_expand);
  static const int32_t s14[] = {1, 4}, s4[] = {4}, zero[] = {0};
  int32_t x = rt_float_tensor(w, "x", s14, 2), r = rt_float_tensor(w, "r", s14, 2);
  int32_t sq = rt_float_tensor(w, "s", s4, 1), e = rt_float_tensor(w, "e", s14, 2);
  int32_t y = rt_float_tensor(w, "y", s14, 2), axis = int_tensor(w, "axis", zero, 1);
  add_op(w, op_relu, &x, 1, r);
  add_op(w, op_squeeze, &r, 1, sq);
  add_op(w, op_expand, (int32_t[]){sq, axis}, 2, e);
  add_op(w, op_relu, &e, 1, y);
  ap_writer_set_subgraph_io(w, 0, &x, 1, &y, 1);
  uint8_t *bytes;
  ap_model *m = rt_finish(w, &bytes);
  ap_writer_destroy(w);
  CHECK(m != NULL);
  if (!m) return;
  for (int inplace = 0; inplace < 2; inplace++) {
    ap_interpreter_options o = ap_interpreter_defaults();
    o.inplace = inplace;
    ap_interpreter *it;
    CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
    CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
    ap_tensor tx, ty, tr, ts, te;
    CHECK(ap_interpreter_input(it, 0, &tx) == AP_OK);
    static const float in[4] = {-1.0f, 2.0f, -0.0f, 3.5f}, want[4] = {0.0f, 2.0f, -0.0f, 3.5f};
    memcpy(tx.data, in, sizeof in); /* RELU keeps -0.0 (TFLite's max(x, 0)) */
    CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
    CHECK(ap_interpreter_output(it, 0, &ty) == AP_OK);
    CHECK(ty.rank == 2 && memcmp(ty.data, want, sizeof want) == 0);
    CHECK(ap_interpreter_tensor_by_name(it, "r", &tr, NULL, NULL) == AP_OK);
    CHECK(ap_interpreter_tensor_by_name(it, "s", &ts, NULL, NULL) == AP_OK);
    CHECK(ap_interpreter_tensor_by_name(it, "e", &te, NULL, NULL) == AP_OK);
    CHECK(ts.rank == 1 && ts.dims[0] == 4 && te.rank == 2 && te.dims[0] == 1);
    CHECK_EQ(ts.data == tr.data && te.data == tr.data, inplace);
    ap_interpreter_destroy(it);
  }
  ap_model_destroy(m);
  free(bytes);
}

/* x [4] -> RELU r -> DYNAMIC_UPDATE_SLICE(r, u = [7, 8], start [1]) d -> RELU y. In place, d
 * takes r's bytes (r dies there) and only the update is written. */
static void update_in_place(void) {
  ap_writer *w;
  if (ap_writer_create(NULL, &w) != AP_OK) return;
  uint32_t op_relu, op_dus, ub;
  ap_writer_add_opcode(w, 19, 1, &op_relu);
  ap_writer_add_opcode(w, 151, 1, &op_dus);
  static const int32_t s4[] = {4}, s2[] = {2}, one[] = {1};
  static const float uv[2] = {7.0f, 8.0f};
  ap_writer_add_buffer(w, uv, sizeof uv, &ub);
  int32_t x = rt_float_tensor(w, "x", s4, 1), r = rt_float_tensor(w, "r", s4, 1), u;
  ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.shape = s2, .rank = 1, .buffer = ub}, &u);
  int32_t d = rt_float_tensor(w, "d", s4, 1), y = rt_float_tensor(w, "y", s4, 1);
  int32_t start = int_tensor(w, "start", one, 1);
  add_op(w, op_relu, &x, 1, r);
  add_op(w, op_dus, (int32_t[]){r, u, start}, 3, d);
  add_op(w, op_relu, &d, 1, y);
  ap_writer_set_subgraph_io(w, 0, &x, 1, &y, 1);
  uint8_t *bytes;
  ap_model *m = rt_finish(w, &bytes);
  ap_writer_destroy(w);
  CHECK(m != NULL);
  if (!m) return;
  for (int inplace = 0; inplace < 2; inplace++) {
    ap_interpreter_options o = ap_interpreter_defaults();
    o.inplace = inplace;
    ap_interpreter *it;
    CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
    CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
    ap_tensor tx, ty, tr, td;
    CHECK(ap_interpreter_input(it, 0, &tx) == AP_OK);
    static const float in[4] = {1.0f, -2.0f, 3.0f, 4.0f}, want[4] = {1.0f, 7.0f, 8.0f, 4.0f};
    memcpy(tx.data, in, sizeof in);
    CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
    CHECK(ap_interpreter_output(it, 0, &ty) == AP_OK);
    CHECK(memcmp(ty.data, want, sizeof want) == 0);
    CHECK(ap_interpreter_tensor_by_name(it, "r", &tr, NULL, NULL) == AP_OK);
    CHECK(ap_interpreter_tensor_by_name(it, "d", &td, NULL, NULL) == AP_OK);
    CHECK_EQ(td.data == tr.data, inplace);
    ap_interpreter_destroy(it);
  }
  ap_model_destroy(m);
  free(bytes);
}

int main(void) {
  views_in_place();
  update_in_place();
  bcast();
  fill_dynamic();
  split_refused();
  return ap_test_done();
}
