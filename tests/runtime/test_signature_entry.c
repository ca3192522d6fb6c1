/* ap_interpreter_invoke_subgraph: a signature's subgraph runs as the entry (TFLite's
 * SignatureRunner), on a model crafted with the writer: subgraph 0 adds, subgraph 1 ("twice",
 * a signature) multiplies by 2 and subgraph 2 ("square", a signature) squares; a subgraph
 * that is no signature's, one out of range and a call before allocate are refused with a
 * message. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <string.h>

enum { OP_ADD = 0, OP_MUL = 18 };

static const int32_t vec3[] = {3};

static int32_t tensor(ap_writer *w, uint32_t sg, const char *name, uint32_t buffer) {
  int32_t idx = -1;
  ap_writer_tensor t = {
      .name = name, .type = AP_FLOAT32, .shape = vec3, .rank = 1, .buffer = buffer};
  CHECK_MSG(ap_writer_add_tensor(w, sg, &t, &idx) == AP_OK, "%s", ap_writer_error(w));
  return idx;
}

static void op(ap_writer *w, uint32_t sg, uint32_t code, int32_t a, int32_t b, int32_t out) {
  int32_t in[2] = {a, b};
  ap_options o = ap_options_add(AP_ACT_NONE);
  ap_writer_op x = {.opcode = code,
                    .inputs = in,
                    .input_count = 2,
                    .outputs = &out,
                    .output_count = 1,
                    .options = &o};
  CHECK_MSG(ap_writer_add_op(w, sg, &x, NULL) == AP_OK, "%s", ap_writer_error(w));
}

/* Subgraph sg: y = x OP x (or x + c for subgraph 0), with a signature `key` unless NULL. */
static void entry(ap_writer *w, uint32_t sg, uint32_t code, const char *key) {
  int32_t x = tensor(w, sg, "x", 0), y = tensor(w, sg, "y", 0);
  op(w, sg, code, x, x, y);
  CHECK(ap_writer_set_subgraph_io(w, sg, &x, 1, &y, 1) == AP_OK);
  if (key) {
    ap_tensor_map in = {"x", (uint32_t)x}, out = {"y", (uint32_t)y};
    CHECK_MSG(ap_writer_add_signature(w, key, sg, &in, 1, &out, 1, NULL) == AP_OK, "%s",
              ap_writer_error(w));
  }
}

static void set(ap_interpreter *it, size_t sg, const float *v) {
  ap_tensor t;
  CHECK(ap_interpreter_tensor(it, sg, 0, &t) == AP_OK);
  CHECK(t.data != NULL && t.bytes == 12);
  memcpy(t.data, v, 12);
}

static void expect(ap_interpreter *it, size_t sg, float a, float b, float c) {
  ap_tensor t;
  CHECK(ap_interpreter_tensor(it, sg, 1, &t) == AP_OK);
  const float *y = t.data;
  CHECK(y != NULL && t.bytes == 12);
  CHECK(y[0] == a && y[1] == b && y[2] == c);
}

int main(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  uint32_t add, mul, s;
  CHECK(ap_writer_add_opcode(w, OP_ADD, 1, &add) == AP_OK);
  CHECK(ap_writer_add_opcode(w, OP_MUL, 1, &mul) == AP_OK);
  entry(w, 0, add, NULL);
  CHECK(ap_writer_add_subgraph(w, "twice", &s) == AP_OK && s == 1);
  entry(w, 1, add, "twice");
  CHECK(ap_writer_add_subgraph(w, "square", &s) == AP_OK && s == 2);
  entry(w, 2, mul, "square");
  CHECK(ap_writer_add_subgraph(w, "loose", &s) == AP_OK && s == 3);
  entry(w, 3, mul, NULL);
  const uint8_t *bytes;
  size_t size;
  CHECK(ap_writer_finish(w, &bytes, &size) == AP_OK);
  ap_model *m = NULL;
  CHECK_MSG(ap_model_from_buffer(bytes, size, "entries.tflite", NULL, &m) == AP_OK, "%s",
            ap_model_error(m));

  ap_interpreter *it = NULL;
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  CHECK_EQ(ap_interpreter_invoke_subgraph(it, 1), AP_ERR_NOT_ALLOCATED);
  CHECK_STR(ap_interpreter_error(it),
            "not allocated: call ap_interpreter_allocate() before invoke");
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));

  static const float a[3] = {1, 2, 3}, b[3] = {-1, 0.5f, 4};
  set(it, 1, a);
  CHECK_EQ(ap_interpreter_invoke_subgraph(it, 1), AP_OK);
  expect(it, 1, 2, 4, 6);
  set(it, 2, b);
  CHECK_EQ(ap_interpreter_invoke_subgraph(it, 2), AP_OK);
  expect(it, 2, 1, 0.25f, 16);
  set(it, 0, b);
  CHECK_EQ(ap_interpreter_invoke_subgraph(it, 0), AP_OK); /* the same as invoke */
  expect(it, 0, -2, 1, 8);

  CHECK_EQ(ap_interpreter_invoke_subgraph(it, 3), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it), "subgraph 3 is not an entry (subgraph 0 or a signature's "
                                      "subgraph; the model has 4 subgraphs)");
  CHECK_EQ(ap_interpreter_invoke_subgraph(it, 4), AP_ERR_RANGE);
  CHECK_STR(ap_interpreter_error(it), "subgraph 4 is not an entry (subgraph 0 or a signature's "
                                      "subgraph; the model has 4 subgraphs)");
  CHECK_EQ(ap_interpreter_invoke_subgraph(NULL, 0), AP_ERR_ARG);
  /* The interpreter still runs after the refusals. */
  set(it, 1, b);
  CHECK_EQ(ap_interpreter_invoke_subgraph(it, 1), AP_OK);
  expect(it, 1, -2, 1, 8);

  /* A signature's input resized: stale until allocate, then the subgraph runs at the new dims. */
  static const int32_t five[] = {5};
  CHECK_EQ(ap_interpreter_resize_tensor(it, 1, 0, five, 1), AP_OK);
  CHECK_STR(ap_interpreter_error(it), "subgraph 1 tensor 0 was resized: call "
                                      "ap_interpreter_allocate() again before invoke");
  CHECK_EQ(ap_interpreter_invoke_subgraph(it, 1), AP_ERR_NOT_ALLOCATED);
  CHECK_STR(ap_interpreter_error(it),
            "not allocated: call ap_interpreter_allocate() before invoke");
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  ap_tensor t;
  CHECK(ap_interpreter_tensor(it, 1, 0, &t) == AP_OK && t.rank == 1 && t.dims[0] == 5);
  CHECK(t.bytes == 20);
  memcpy(t.data, (float[]){1, 2, 3, 4, 5}, 20);
  CHECK_EQ(ap_interpreter_invoke_subgraph(it, 1), AP_OK);
  CHECK(ap_interpreter_tensor(it, 1, 1, &t) == AP_OK && t.rank == 1 && t.dims[0] == 5);
  CHECK(memcmp(t.data, (float[]){2, 4, 6, 8, 10}, 20) == 0);
  /* The other entries keep their dims. */
  set(it, 2, a);
  CHECK_EQ(ap_interpreter_invoke_subgraph(it, 2), AP_OK);
  expect(it, 2, 1, 4, 9);
  /* Subgraph 0's inputs go either way; anything else is refused. */
  CHECK_EQ(ap_interpreter_resize_tensor(it, 0, 0, vec3, 1), AP_OK);
  CHECK_EQ(ap_interpreter_resize_tensor(it, 3, 0, five, 1), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it),
            "subgraph 3 tensor 0 is no input of subgraph 0 or of a signature's subgraph");
  CHECK_EQ(ap_interpreter_resize_tensor(it, 1, 1, five, 1), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_resize_tensor(it, 1, 0, five, -1), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it),
            "subgraph 1 tensor 0: rank -1 out of range (0 to 8, with dims)");
  CHECK_EQ(ap_interpreter_resize_tensor(NULL, 1, 0, five, 1), AP_ERR_ARG);

  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  ap_writer_destroy(w);
  return ap_test_done();
}
