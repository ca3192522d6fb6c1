/* Resizing inputs: a resize makes the plan stale (invoke refuses, naming the input) until the
 * next allocate; after it, a batch of 4 gives, row by row, the batch-1 results bit for bit.
 * With max_input_dims, resizes within them need no new plan. */
#include "rt_test.h"

#include <stdlib.h>

static ap_interpreter *make(ap_model *m, const ap_interpreter_options *o) {
  ap_interpreter *it = NULL;
  ap_status s = ap_interpreter_create(m, o, &it);
  CHECK_MSG(s == AP_OK, "create: %s", ap_interpreter_error(it));
  return it;
}

/* Batch-1 outputs (output 0) for `rows` random inputs, concatenated. */
static uint8_t *batch1(ap_model *m, size_t rows, uint8_t **inputs, size_t *in_row,
                       size_t *out_row) {
  ap_interpreter *it = make(m, NULL);
  CHECK(ap_interpreter_allocate(it) == AP_OK);
  ap_tensor in, out;
  ap_interpreter_input(it, 0, &in);
  ap_interpreter_output(it, 0, &out);
  *in_row = in.bytes;
  *out_row = out.bytes;
  *inputs = malloc(rows * in.bytes);
  uint8_t *outs = malloc(rows * out.bytes);
  uint64_t st = 42;
  for (size_t i = 0; i < rows * in.bytes / 4; i++)
    ((float *)*inputs)[i] = (float)(ap_test_rand(&st) % 20000) / 10000.0f - 1.0f;
  for (size_t r = 0; r < rows; r++) {
    memcpy(in.data, *inputs + r * in.bytes, in.bytes);
    CHECK(ap_interpreter_invoke(it) == AP_OK);
    memcpy(outs + r * out.bytes, out.data, out.bytes);
  }
  ap_interpreter_destroy(it);
  return outs;
}

/* Runs `rows` rows at once and compares each output row with the batch-1 result. */
static void check_rows(ap_interpreter *it, size_t rows, const uint8_t *inputs, size_t in_row,
                       const uint8_t *want, size_t out_row, const char *what) {
  ap_tensor in, out;
  CHECK(ap_interpreter_input(it, 0, &in) == AP_OK);
  CHECK_EQ(in.dims[0], rows);
  CHECK_EQ(in.bytes, rows * in_row);
  memcpy(in.data, inputs, rows * in_row);
  ap_status s = ap_interpreter_invoke(it);
  CHECK_MSG(s == AP_OK, "%s: %s", what, ap_interpreter_error(it));
  CHECK(ap_interpreter_output(it, 0, &out) == AP_OK);
  CHECK_EQ(out.dims[0], rows);
  CHECK_EQ(out.bytes, rows * out_row);
  if (s != AP_OK || out.bytes != rows * out_row) return;
  for (size_t r = 0; r < rows; r++)
    CHECK_MSG(memcmp((uint8_t *)out.data + r * out_row, want + r * out_row, out_row) == 0,
              "%s: row %zu differs from its batch-1 result", what, r);
}

static void resize_then_allocate(const char *name) {
  ap_model *m = rt_load(name);
  if (!m) {
    CHECK(m != NULL);
    return;
  }
  uint8_t *inputs;
  size_t in_row, out_row;
  uint8_t *want = batch1(m, 4, &inputs, &in_row, &out_row);

  ap_interpreter *it = make(m, NULL);
  CHECK(ap_interpreter_allocate(it) == AP_OK);
  ap_tensor in;
  ap_interpreter_input(it, 0, &in);
  int32_t dims[AP_MAX_DIMS];
  memcpy(dims, in.dims, sizeof dims);
  dims[0] = 4;
  CHECK(ap_interpreter_resize_input(it, 0, dims, in.rank) == AP_OK);
  /* Stale: invoke refuses and says which input and what to do. */
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  char msg[512];
  snprintf(msg, sizeof msg,
           "input 0 (\"%s\") was resized: call ap_interpreter_allocate() again before invoke",
           in.name);
  CHECK_STR(ap_interpreter_error(it), msg);
  ap_memory_usage u;
  CHECK_EQ(ap_interpreter_memory(it, &u), AP_ERR_NOT_ALLOCATED);
  /* Still stale on a second try: nothing ran in between. */
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  CHECK(ap_interpreter_allocate(it) == AP_OK);
  check_rows(it, 4, inputs, in_row, want, out_row, name);
  /* Back to one row. */
  dims[0] = 1;
  CHECK(ap_interpreter_resize_input(it, 0, dims, in.rank) == AP_OK);
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  CHECK(ap_interpreter_allocate(it) == AP_OK);
  check_rows(it, 1, inputs + 3 * in_row, in_row, want + 3 * out_row, out_row, name);
  ap_interpreter_destroy(it);

  /* max_input_dims: plan once for 4 rows; 1 to 4 rows then need no allocate. */
  ap_interpreter_options o = ap_interpreter_defaults();
  o.kernels = AP_KERNELS_FAST;
  dims[0] = 4;
  ap_dims max = {dims, in.rank};
  o.max_input_dims = &max;
  o.max_input_count = 1;
  it = make(m, &o);
  CHECK(ap_interpreter_allocate(it) == AP_OK);
  check_rows(it, 1, inputs, in_row, want, out_row, "max dims, 1 row as in the model");
  for (int rows = 4; rows >= 1; rows--) {
    int32_t d[AP_MAX_DIMS];
    memcpy(d, dims, sizeof d);
    d[0] = rows;
    CHECK(ap_interpreter_resize_input(it, 0, d, in.rank) == AP_OK);
    check_rows(it, (size_t)rows, inputs, in_row, want, out_row, "max dims, no new allocate");
  }
  /* What planning for 4 rows costs: the plan made for 4 rows vs one for the current row, each
   * equal to what a plain interpreter at that size plans with the same kernels (the fast ones
   * on every op: a budget's choice would differ between the sizes). */
  uint64_t planned, current;
  CHECK(ap_interpreter_max_dims_cost(it, &planned, &current) == AP_OK);
  ap_interpreter_options fo = ap_interpreter_defaults();
  fo.kernels = AP_KERNELS_FAST;
  ap_interpreter *at4 = make(m, &fo), *at1 = make(m, &fo);
  CHECK(ap_interpreter_resize_input(at4, 0, dims, in.rank) == AP_OK);
  CHECK(ap_interpreter_allocate(at4) == AP_OK && ap_interpreter_allocate(at1) == AP_OK);
  ap_memory_usage u4, u1, um;
  CHECK(ap_interpreter_memory(at4, &u4) == AP_OK && ap_interpreter_memory(at1, &u1) == AP_OK);
  CHECK(ap_interpreter_memory(it, &um) == AP_OK);
  CHECK_EQ(planned, u4.arena);
  CHECK_EQ(current, u1.arena);
  CHECK_EQ(um.arena, u4.arena);
  CHECK(planned > current);
  printf("%s: arena for 4 rows %llu, for 1 row %llu; tables with max dims %llu, without %llu\n",
         name, (unsigned long long)planned, (unsigned long long)current,
         (unsigned long long)um.tables, (unsigned long long)u1.tables);
  ap_interpreter_destroy(at4);
  ap_interpreter_destroy(at1);
  /* Beyond the maximum: stale, with the message, until allocate plans the new size. */
  int32_t big[AP_MAX_DIMS];
  memcpy(big, dims, sizeof big);
  big[0] = 5;
  CHECK(ap_interpreter_resize_input(it, 0, big, in.rank) == AP_OK);
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  CHECK_CONTAINS(ap_interpreter_error(it), "input 0 (\"");
  CHECK_CONTAINS(ap_interpreter_error(it), "was resized: call ap_interpreter_allocate() again");
  /* A different rank is beyond the maximum too. */
  CHECK(ap_interpreter_resize_input(it, 0, dims, in.rank - 1) == AP_OK);
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  /* Allocating again with a resized input within the max plans the max and runs the 2 rows. */
  int32_t two[AP_MAX_DIMS];
  memcpy(two, dims, sizeof two);
  two[0] = 2;
  CHECK(ap_interpreter_resize_input(it, 0, two, in.rank) == AP_OK);
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED); /* stale since the resize to 5 */
  CHECK(ap_interpreter_allocate(it) == AP_OK);
  check_rows(it, 2, inputs, in_row, want, out_row, "max dims after allocate at 2 rows");
  CHECK(ap_interpreter_memory(it, &um) == AP_OK);
  CHECK_EQ(um.arena, u4.arena);
  ap_interpreter_destroy(it);
  free(inputs);
  free(want);
  ap_model_destroy(m);
}

/* Bad resizes are refused and leave a valid plan valid. */
static void bad_resizes(void) {
  ap_model *m = rt_load("hello_world_float");
  if (!m) return;
  ap_interpreter *it = make(m, NULL);
  CHECK(ap_interpreter_allocate(it) == AP_OK);
  int32_t neg[2] = {-1, 1}, ok[2] = {2, 1};
  CHECK_EQ(ap_interpreter_resize_input(it, 0, neg, 2), AP_ERR_ARG);
  CHECK_CONTAINS(ap_interpreter_error(it), "invalid shape of rank 2");
  CHECK_EQ(ap_interpreter_resize_input(it, 1, ok, 2), AP_ERR_RANGE);
  CHECK_STR(ap_interpreter_error(it), "input 1 out of range (the model has 1)");
  CHECK_EQ(ap_interpreter_resize_input(it, 0, ok, AP_MAX_DIMS + 1), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_resize_input(it, 0, NULL, 2), AP_ERR_ARG);
  int32_t huge[4] = {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX};
  CHECK_EQ(ap_interpreter_resize_input(it, 0, huge, 4), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_resize_input(NULL, 0, ok, 2), AP_ERR_ARG);
  CHECK(ap_interpreter_invoke(it) == AP_OK);
  ap_interpreter_destroy(it);

  /* Bad max dims are refused at create. */
  ap_interpreter_options o = ap_interpreter_defaults();
  ap_dims d = {neg, 2};
  o.max_input_dims = &d;
  o.max_input_count = 1;
  CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it), "max_input_dims[0]: dim 0 is -1");
  ap_interpreter_destroy(it);
  o.max_input_count = 2;
  CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it), "max_input_dims has 2 entries, the model 1 inputs");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  resize_then_allocate("hello_world_float");
  resize_then_allocate("mlperf_ic_resnet_float");
  bad_resizes();
  return ap_test_done();
}
