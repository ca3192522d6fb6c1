/* Shapes decided by values: folded in prepare when the values follow from constants and known
 * shapes (a crafted SHAPE -> STRIDED_SLICE -> MUL -> RESHAPE / TILE chain: no dynamic tensor,
 * invoke allocates nothing, a resize within max dims folds again), and dynamic when they
 * follow from input values (dynamic_shapes.tflite: its STRIDED_SLICE end is a CAST of input
 * z). Expected values come from the model's graph, worked out by hand in the comments. */
#include "rt_test.h"

#include <math.h>
#include <string.h>

/* x [B,3,4] float; s = SHAPE(x) = [B,3,4]; s2 = s[0:2] = [B,3]; s3 = s2 * [1,4] = [B,12];
 * r = RESHAPE(x, s3) (declared [1,24]: only the folded value gives [B,12]);
 * m = s[1:3] = [3,4]; t = TILE(r, m) = [3B,48] (declared [1,1]). */
static ap_model *fold_model(uint8_t **bytes) {
  ap_writer *w;
  if (ap_writer_create(NULL, &w) != AP_OK) return NULL;
  uint32_t op_shape, op_ss, op_mul, op_reshape, op_tile;
  ap_writer_add_opcode(w, 77, 1, &op_shape);
  ap_writer_add_opcode(w, 45, 1, &op_ss);
  ap_writer_add_opcode(w, 18, 1, &op_mul);
  ap_writer_add_opcode(w, 22, 1, &op_reshape);
  ap_writer_add_opcode(w, 69, 1, &op_tile);
  static const int32_t v0[] = {0}, v1[] = {1}, v2[] = {2}, v3[] = {3}, v14[] = {1, 4};
  const int32_t *vals[] = {v0, v1, v2, v3, v14};
  int32_t c[5];
  for (int i = 0; i < 5; i++) {
    uint32_t b;
    int32_t n = i == 4 ? 2 : 1;
    ap_writer_add_buffer(w, vals[i], (size_t)n * 4, &b);
    ap_writer_add_tensor(
        w, 0, &(ap_writer_tensor){.type = AP_INT32, .shape = &n, .rank = 1, .buffer = b}, &c[i]);
  }
  static const int32_t xs[] = {2, 3, 4}, n3[] = {3}, n2[] = {2}, rs[] = {1, 24}, ts[] = {1, 1};
  int32_t x = rt_float_tensor(w, "x", xs, 3), s, s2, s3, m, r, t;
  ap_writer_add_tensor(
      w, 0, &(ap_writer_tensor){.name = "s", .type = AP_INT32, .shape = n3, .rank = 1}, &s);
  ap_writer_add_tensor(
      w, 0, &(ap_writer_tensor){.name = "s2", .type = AP_INT32, .shape = n2, .rank = 1}, &s2);
  ap_writer_add_tensor(
      w, 0, &(ap_writer_tensor){.name = "s3", .type = AP_INT32, .shape = n2, .rank = 1}, &s3);
  ap_writer_add_tensor(
      w, 0, &(ap_writer_tensor){.name = "m", .type = AP_INT32, .shape = n2, .rank = 1}, &m);
  r = rt_float_tensor(w, "r", rs, 2);
  t = rt_float_tensor(w, "t", ts, 2);
  struct {
    uint32_t op;
    int32_t in[4];
    size_t n;
    int32_t out;
  } ops[] = {{op_shape, {x}, 1, s},
             {op_ss, {s, c[0], c[2], c[1]}, 4, s2},
             {op_mul, {s2, c[4]}, 2, s3},
             {op_reshape, {x, s3}, 2, r},
             {op_ss, {s, c[1], c[3], c[1]}, 4, m},
             {op_tile, {r, m}, 2, t}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    ap_writer_add_op(w, 0,
                     &(ap_writer_op){.opcode = ops[i].op,
                                     .inputs = ops[i].in,
                                     .input_count = ops[i].n,
                                     .outputs = &ops[i].out,
                                     .output_count = 1},
                     NULL);
  ap_writer_set_subgraph_io(w, 0, &x, 1, &t, 1);
  ap_model *model = rt_finish(w, bytes);
  ap_writer_destroy(w);
  return model;
}

/* t[i][j] = x[i % B][j % 12] over x's 12 values per batch: TILE repeats r = x as [B,12]. */
static void check_tile(ap_interpreter *it, int batch) {
  ap_tensor in, out;
  CHECK(ap_interpreter_input(it, 0, &in) == AP_OK);
  for (int i = 0; i < batch * 12; i++)
    ((float *)in.data)[i] = (float)i;
  CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
  CHECK(ap_interpreter_output(it, 0, &out) == AP_OK);
  CHECK_EQ(out.rank, 2);
  CHECK_EQ(out.dims[0], 3 * batch);
  CHECK_EQ(out.dims[1], 48);
  CHECK(!out.is_dynamic);
  int bad = 0;
  for (int i = 0; i < 3 * batch; i++)
    for (int j = 0; j < 48; j++)
      bad += ((float *)out.data)[i * 48 + j] != (float)((i % batch) * 12 + j % 12);
  CHECK_EQ(bad, 0);
}

static void folded(void) {
  uint8_t *bytes;
  ap_model *m = fold_model(&bytes);
  CHECK(m != NULL);
  if (!m) return;
  rt_counter cnt;
  ap_allocator a = rt_counting(&cnt);
  ap_interpreter_options o = ap_interpreter_defaults();
  o.allocator = &a;
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  CHECK_EQ(ap_interpreter_dynamic_count(it), 0);
  ap_tensor r;
  CHECK(ap_interpreter_tensor_by_name(it, "r", &r, NULL, NULL) == AP_OK);
  CHECK_EQ(r.rank, 2);
  CHECK_EQ(r.dims[0], 2);
  CHECK_EQ(r.dims[1], 12);
  long before = atomic_load(&cnt.allocs);
  check_tile(it, 2);
  CHECK_EQ(atomic_load(&cnt.allocs), before); /* no dynamic tensor: invoke allocates nothing */
  CHECK_EQ(ap_interpreter_dynamic_bytes(it), 0);
  ap_interpreter_destroy(it);

  /* Planned at batch 4 (the current dims stay the model's 2 until a resize), resized to 4 and
   * back to 2: the folded values follow without allocate. */
  static const int32_t max[] = {4, 3, 4}, two[] = {2, 3, 4};
  o.max_input_dims = &(ap_dims){max, 3};
  o.max_input_count = 1;
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  before = atomic_load(&cnt.allocs);
  check_tile(it, 2);
  CHECK(ap_interpreter_resize_input(it, 0, max, 3) == AP_OK);
  check_tile(it, 4);
  CHECK(ap_interpreter_resize_input(it, 0, two, 3) == AP_OK);
  check_tile(it, 2);
  CHECK_EQ(atomic_load(&cnt.allocs), before);
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  free(bytes);
  CHECK_EQ(atomic_load(&cnt.live_bytes), 0);
}

/* dynamic_shapes, with n = (int)z (CAST truncates):
 *   19 = y[0] [90,1024]; 25 = 19[0:n] (STRIDED_SLICE, end [n,1024] packed from n; n < 0
 *   counts from the end: 90 + n rows); 26 = RESHAPE [1,n,1024]; 27 = TILE [8,n,1024];
 *   28..32: SHAPE of 27 and the values computed from it; 33 = [8,1024,n]; 34..36 = [8,42,n]
 *   (x @ 33, LEAKY_RELU, L2 over n); 37 = [8,n,42]; 38..40 = [8n,42] (x9, SOFTMAX over 42);
 *   41 = [8,n,42]; 42 = 41 @ x = [8,n,1024].
 * Tensors 0..24 are inputs, constants, or values of z (20..24: CAST, GATHER, STRIDED_SLICE,
 * PACK of z's value, whose shapes are fixed); 25..42 are dynamic: 18 tensors.
 * Values with y[0][r][k] = r + 1 and x[b][i][k] = (b + 1) * (k % 7 + 1): x's rows do not
 * depend on i, so 34 does not either, nor its LEAKY_RELU, L2 and x9: SOFTMAX over the 42
 * equal values gives exp(0) / 42 = 1.0f / 42.0f each, and 42[b][j][k] is 42 products
 * (1/42) * x[b][i][k] summed in order from 0.0f. */
static float expected_out(int b, int k) {
  float v = (float)((b + 1) * (k % 7 + 1)), acc = 0.0f;
  for (int i = 0; i < 42; i++)
    acc += (1.0f / 42.0f) * v;
  return acc;
}

static ap_status run_z(ap_interpreter *it, float z) {
  ap_tensor x, y, zt;
  CHECK(ap_interpreter_input(it, 0, &x) == AP_OK && ap_interpreter_input(it, 1, &y) == AP_OK &&
        ap_interpreter_input(it, 2, &zt) == AP_OK);
  for (int b = 0; b < 8; b++)
    for (int i = 0; i < 42; i++)
      for (int k = 0; k < 1024; k++)
        ((float *)x.data)[(b * 42 + i) * 1024 + k] = (float)((b + 1) * (k % 7 + 1));
  for (int r = 0; r < 90 * 1024; r++)
    ((float *)y.data)[r] = (float)(r / 1024 + 1);
  ((float *)zt.data)[0] = z;
  return ap_interpreter_invoke(it);
}

static void check_rows(ap_interpreter *it, int rows) {
  ap_tensor out, sl;
  CHECK(ap_interpreter_output(it, 0, &out) == AP_OK);
  CHECK(out.is_dynamic);
  CHECK_EQ(out.rank, 3);
  CHECK_EQ(out.dims[0], 8);
  CHECK_EQ(out.dims[1], rows);
  CHECK_EQ(out.dims[2], 1024);
  CHECK_EQ(out.bytes, (size_t)8 * rows * 1024 * 4);
  int bad = 0;
  for (int b = 0; b < 8; b++)
    for (int j = 0; j < rows; j++)
      for (int k = 0; k < 1024; k++)
        bad += ((float *)out.data)[(b * rows + j) * 1024 + k] != expected_out(b, k);
  CHECK_EQ(bad, 0);
  /* The slice took y's first `rows` rows (row r holds r + 1). */
  CHECK(ap_interpreter_tensor(it, 0, 25, &sl) == AP_OK);
  CHECK(sl.is_dynamic && sl.rank == 2 && sl.dims[0] == rows && sl.dims[1] == 1024);
  bad = 0;
  for (int r = 0; r < rows * 1024; r++)
    bad += ((float *)sl.data)[r] != (float)(r / 1024 + 1);
  CHECK_EQ(bad, 0);
}

static void dynamic_shapes(void) {
  ap_model *m = rt_load("dynamic_shapes");
  CHECK(m != NULL);
  if (!m) return;
  rt_counter cnt;
  ap_allocator a = rt_counting(&cnt);
  ap_interpreter_options o = ap_interpreter_defaults();
  o.allocator = &a;
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
  size_t sg, t;
  CHECK_EQ(ap_interpreter_dynamic_tensor(it, 0, &sg, &t), AP_ERR_NOT_ALLOCATED);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  CHECK_EQ(ap_interpreter_dynamic_count(it), 18);
  for (size_t i = 0; i < 18; i++) {
    CHECK(ap_interpreter_dynamic_tensor(it, i, &sg, &t) == AP_OK);
    CHECK(sg == 0 && t == 25 + i);
  }
  CHECK_EQ(ap_interpreter_dynamic_tensor(it, 18, &sg, &t), AP_ERR_RANGE);
  ap_tensor out;
  CHECK(ap_interpreter_output(it, 0, &out) == AP_OK);
  CHECK(out.is_dynamic && out.data == NULL && out.bytes == 0);
  ap_tensor cast;
  CHECK(ap_interpreter_tensor(it, 0, 24, &cast) == AP_OK && !cast.is_dynamic && cast.data);

  /* The dynamic region: one block per dynamic tensor at the first invoke (no kernel of these
   * ops asks for scratch), 16-byte rounded. n = 4: 25, 26: 4*1024*4 = 16,384 each; 27, 33, 42:
   * 8*4*1024*4 = 131,072 each; 28..32: 12, 4, 4, 8, 12 bytes -> 16 each; 34..41: 8*42*4*4 =
   * 5,376 each. 32,768 + 393,216 + 80 + 43,008 = 469,072. */
  long base = atomic_load(&cnt.allocs);
  CHECK_MSG(run_z(it, 4.5f) == AP_OK, "%s", ap_interpreter_error(it));
  check_rows(it, 4);
  CHECK_EQ(atomic_load(&cnt.allocs) - base, 18);
  CHECK_EQ(ap_interpreter_dynamic_bytes(it), 469072);
  /* Same values, then fewer rows: every block is large enough, no allocation. */
  base = atomic_load(&cnt.allocs);
  CHECK(run_z(it, 4.5f) == AP_OK);
  check_rows(it, 4);
  CHECK(run_z(it, 2.0f) == AP_OK);
  check_rows(it, 2);
  CHECK_EQ(atomic_load(&cnt.allocs) - base, 0);
  /* z = -1.5: n = -1, the end counts from the back: 89 rows. The 13 blocks sized by n grow;
   * 28..32 (the shape values) keep theirs. */
  CHECK_MSG(run_z(it, -1.5f) == AP_OK, "%s", ap_interpreter_error(it));
  check_rows(it, 89);
  CHECK_EQ(atomic_load(&cnt.allocs) - base, 13);
  /* z = 0: no rows at all; the zero-sized tensors run through every kernel. */
  CHECK(run_z(it, 0.0f) == AP_OK);
  check_rows(it, 0);
  /* z = 91: the slice stops at 90 rows, but RESHAPE is asked for 91: invoke says so. */
  CHECK_EQ(run_z(it, 91.0f), AP_ERR_FORMAT);
  CHECK_STR(ap_interpreter_error(it),
            "subgraph 0 op 7 (RESHAPE): RESHAPE: 92160 elements cannot take a shape of 93184");
  /* A new allocate frees the region; destroy frees everything. */
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  CHECK_EQ(ap_interpreter_dynamic_bytes(it), 0);
  CHECK(run_z(it, 3.0f) == AP_OK);
  check_rows(it, 3);
  /* An allocate that runs out of memory leaves no record pointing into freed memory: the
   * output reads as the model declares it, without data (ASan checks the reads). */
  cnt.fail_after = atomic_load(&cnt.allocs);
  CHECK_EQ(ap_interpreter_allocate(it), AP_ERR_NOMEM);
  CHECK(ap_interpreter_output(it, 0, &out) == AP_OK);
  CHECK(!out.is_dynamic && out.data == NULL && out.rank == 3 && out.dims[1] == 1);
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  cnt.fail_after = -1;
  ap_interpreter_destroy(it);
  CHECK_EQ(atomic_load(&cnt.live_bytes), 0);

  /* The report lists them, each with the op writing it. */
  ap_report *r;
  CHECK(ap_report_create(m, NULL, NULL, &r) == AP_OK);
  CHECK_EQ(ap_report_dynamic_count(r), 18);
  const ap_report_dynamic *d = ap_report_dynamics(r);
  CHECK(d && d[0].tensor == 25 && d[0].op == 6 && strcmp(d[0].name, "StridedSlice2") == 0);
  CHECK(d && d[17].tensor == 42 && d[17].op == 23 && strcmp(d[17].name, "Identity") == 0);
  for (size_t i = 0; i < ap_report_request_count(r); i++)
    CHECK(ap_report_requests(r)[i].tensor < 25); /* none of them is in the arena */
  ap_report_destroy(r);
  ap_model_destroy(m);
}

int main(void) {
  folded();
  ap_test_require_shared();
  dynamic_shapes();
  return ap_test_done();
}
