/* The writer without flatc: the bytes' framing and alignment, misuse (NULL, out-of-range
 * indices, overflow) with exact messages, memory through the caller's allocator, and every
 * allocation failure handled. flatc checks the contents in test_writer_flatc.c. */
#include "arenaplan/writer.h"
#include "test.h"

#include <stdlib.h>

static uint32_t u32_at(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Where `pat` occurs in bytes; SIZE_MAX if not exactly once. */
static size_t find_once(const uint8_t *bytes, size_t size, const uint8_t *pat, size_t n) {
  size_t at = SIZE_MAX;
  for (size_t i = 0; i + n <= size; i++)
    if (memcmp(bytes + i, pat, n) == 0) {
      if (at != SIZE_MAX) return SIZE_MAX;
      at = i;
    }
  return at;
}

static void test_framing_and_alignment(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  /* Odd sizes, so without padding the data of each would start misaligned. */
  uint8_t a[1] = {0xA1}, b[3], c[17];
  for (int i = 0; i < 3; i++)
    b[i] = (uint8_t)(0xB0 + i);
  for (int i = 0; i < 17; i++)
    c[i] = (uint8_t)(0xC0 + i);
  CHECK(ap_writer_add_buffer(w, a, 1, NULL) == AP_OK);
  CHECK(ap_writer_add_buffer(w, b, 3, NULL) == AP_OK);
  CHECK(ap_writer_add_buffer(w, c, 17, NULL) == AP_OK);
  CHECK(ap_writer_set_description(w, "x") == AP_OK);
  const uint8_t *bytes;
  size_t size;
  CHECK(ap_writer_finish(w, &bytes, &size) == AP_OK);
  CHECK((uintptr_t)bytes % 16 == 0);
  CHECK(size > 8 && memcmp(bytes + 4, "TFL3", 4) == 0);
  uint32_t root = u32_at(bytes);
  CHECK(root % 4 == 0 && root >= 8 && root < size);
  size_t pb = find_once(bytes, size, b, 3), pc = find_once(bytes, size, c, 17);
  CHECK(pb != SIZE_MAX && pb % 16 == 0 && u32_at(bytes + pb - 4) == 3);
  CHECK(pc != SIZE_MAX && pc % 16 == 0 && u32_at(bytes + pc - 4) == 17);
  /* The weights come last: the 17 bytes end the file. */
  CHECK_EQ(pc + 17, size);

  /* Finishing again gives the same bytes; the writer can be extended and finished again. */
  uint8_t *copy = malloc(size);
  memcpy(copy, bytes, size);
  size_t size1 = size;
  CHECK(ap_writer_finish(w, &bytes, &size) == AP_OK);
  CHECK(size == size1 && memcmp(copy, bytes, size) == 0);
  CHECK(ap_writer_add_buffer(w, a, 1, NULL) == AP_OK);
  CHECK(ap_writer_finish(w, &bytes, &size) == AP_OK);
  CHECK(size > size1);
  free(copy);
  ap_writer_destroy(w);
}

static void test_null_and_args(void) {
  CHECK(ap_writer_create(NULL, NULL) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(NULL), "no writer (NULL)");
  uint32_t u;
  int32_t t;
  CHECK(ap_writer_add_buffer(NULL, "x", 1, &u) == AP_ERR_ARG);
  CHECK(ap_writer_add_opcode(NULL, 3, 1, &u) == AP_ERR_ARG);
  CHECK(ap_writer_add_tensor(NULL, 0, &(ap_writer_tensor){0}, &t) == AP_ERR_ARG);
  CHECK(ap_writer_add_op(NULL, 0, &(ap_writer_op){0}, NULL) == AP_ERR_ARG);
  CHECK(ap_writer_save(NULL, "x") == AP_ERR_ARG);
  ap_writer_destroy(NULL);

  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  CHECK_STR(ap_writer_error(w), "");
  CHECK(ap_writer_add_buffer(w, NULL, 5, &u) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "add_buffer: data is NULL but size is 5");
  CHECK(ap_writer_add_buffer(w, "x", (size_t)INT32_MAX + 1, &u) == AP_ERR_OVERFLOW);
  CHECK_STR(ap_writer_error(w),
            "add_buffer: 2147483648 bytes exceed the 2 GiB limit of a FlatBuffer");
  CHECK(ap_writer_add_opcode(w, -1, 1, &u) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "add_opcode: builtin -1 is negative");
  CHECK(ap_writer_add_opcode(w, 32, 1, &u) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w),
            "add_opcode: builtin 32 is CUSTOM; use ap_writer_add_custom_opcode");
  CHECK(ap_writer_add_opcode(w, 3, 0, &u) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "add_opcode: version 0 (operator versions start at 1)");
  CHECK(ap_writer_add_custom_opcode(w, "", 1, &u) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "add_custom_opcode: the custom code name is empty");
  CHECK(ap_writer_add_custom_opcode(w, NULL, 1, &u) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "add_custom_opcode: the custom code name is NULL");
  CHECK(ap_writer_set_subgraph_name(w, 1, "x") == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w), "set_subgraph_name: subgraph 1 out of range (the model has 1)");
  CHECK(ap_writer_finish(w, NULL, NULL) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "finish: bytes or size is NULL");
  CHECK(ap_writer_save(w, NULL) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "save: the path is NULL");
  CHECK(ap_writer_save(w, "/nonexistent-dir/m.tflite") == AP_ERR_IO);
  CHECK_STR(ap_writer_error(w), "/nonexistent-dir/m.tflite: cannot create: No such file or "
                                "directory");
  /* Failed calls added nothing: the next opcode and buffer get the first free indices. */
  CHECK(ap_writer_add_opcode(w, 3, 1, &u) == AP_OK && u == 0);
  CHECK(ap_writer_add_buffer(w, "x", 1, &u) == AP_OK && u == 1);
  ap_writer_destroy(w);
}

static void test_tensors(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  int32_t t;
  const int32_t good[] = {1, 2}, neg[] = {1, -1}, sig_bad[] = {1, -2};
  CHECK(ap_writer_add_tensor(w, 0, NULL, &t) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "add_tensor: the tensor is NULL");
  CHECK(ap_writer_add_tensor(w, 1, &(ap_writer_tensor){0}, &t) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w), "add_tensor: subgraph 1 out of range (the model has 1)");
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.type = 23}, &t) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "tensor 0: type 23 is not a TensorType (0..22)");
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.type = -1}, &t) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "tensor 0: type -1 is not a TensorType (0..22)");
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.rank = 2}, &t) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "tensor 0: shape is NULL with rank 2");
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.shape = good, .rank = SIZE_MAX}, &t) ==
        AP_ERR_OVERFLOW);
  CHECK_STR(ap_writer_error(w), "tensor 0: a count does not fit a FlatBuffer vector");
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.shape = neg, .rank = 2}, &t) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w),
            "tensor 0: shape[1] is -1 (dynamic dims belong in shape_signature)");
  CHECK(ap_writer_add_tensor(
            w, 0, &(ap_writer_tensor){.shape = good, .rank = 2, .shape_signature = sig_bad}, &t) ==
        AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "tensor 0: shape_signature[1] is -2 (below -1)");
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.buffer = 1}, &t) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w), "tensor 0: buffer 1 out of range (the model has 1)");
  const float scale[] = {1, 2};
  const int64_t zp[] = {0, 0, 0};
  CHECK(ap_writer_add_tensor(w, 0,
                             &(ap_writer_tensor){.shape = good,
                                                 .rank = 2,
                                                 .scale = scale,
                                                 .scale_count = 2,
                                                 .zero_point = zp,
                                                 .zero_point_count = 3},
                             &t) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "tensor 0: 2 scales but 3 zero points");
  CHECK(
      ap_writer_add_tensor(
          w, 0,
          &(ap_writer_tensor){
              .shape = good, .rank = 2, .scale = scale, .scale_count = 2, .quantized_dimension = 2},
          &t) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "tensor 0: quantized_dimension 2 out of range for rank 2");
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.scale_count = 1}, &t) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "tensor 0: quantization scale is NULL with a count");
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.shape = good, .rank = 2}, &t) == AP_OK);
  CHECK_EQ(t, 0);
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.type = AP_FLOAT8_E5M2}, &t) == AP_OK);
  CHECK_EQ(t, 1);

  CHECK(ap_writer_set_subgraph_io(w, 0, (const int32_t[]){2}, 1, NULL, 0) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w),
            "subgraph inputs[0]: tensor 2 out of range (the subgraph has 2 tensors)");
  CHECK(ap_writer_set_subgraph_io(w, 0, NULL, 0, (const int32_t[]){0, -1}, 2) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w),
            "subgraph outputs[1]: tensor -1 out of range (the subgraph has 2 tensors)");
  CHECK(ap_writer_set_subgraph_io(w, 0, NULL, 1, NULL, 0) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "subgraph inputs: NULL with count 1");
  CHECK(ap_writer_set_subgraph_io(w, 3, NULL, 0, NULL, 0) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w), "set_subgraph_io: subgraph 3 out of range (the model has 1)");
  ap_writer_destroy(w);
}

static void test_ops_and_options(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  uint32_t oc, op;
  CHECK(ap_writer_add_opcode(w, 0, 1, &oc) == AP_OK);
  for (int i = 0; i < 3; i++)
    CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){0}, NULL) == AP_OK);
  const int32_t in2[] = {0, -1}, out1[] = {2}, bad_in[] = {0, 3}, neg_out[] = {-1};
  ap_writer_op o = {
      .opcode = 1, .inputs = in2, .input_count = 2, .outputs = out1, .output_count = 1};
  CHECK(ap_writer_add_op(w, 0, NULL, &op) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "add_op: the op is NULL");
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w), "op 0: opcode 1 out of range (the model has 1)");
  o.opcode = 0;
  o.inputs = bad_in;
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w), "op 0: inputs[1]: tensor 3 out of range (the subgraph has 3 "
                                "tensors)");
  o.inputs = in2;
  o.outputs = neg_out;
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w), "op 0: outputs[0]: tensor -1 out of range (the subgraph has 3 "
                                "tensors)");
  o.outputs = out1;
  o.intermediate_count = 1;
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "op 0: intermediates: NULL with count 1");
  o.intermediate_count = 0;
  o.custom_options_size = 4;
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "op 0: custom_options is NULL with size 4");
  o.custom_options_size = 0;

  ap_options opt = ap_options_add(AP_ACT_NONE);
  o.options = &opt;
  opt.count = AP_OPTIONS_MAX_FIELDS + 1;
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w), "op 0: builtin_options: 25 fields, at most 24");
  opt = ap_options_add(AP_ACT_NONE);
  opt.type = 0;
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "op 0: builtin_options: 1 fields but union type 0 (NONE)");
  opt = ap_options_add(AP_ACT_NONE);
  opt.fields[0].i = 200;
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w),
            "op 0: builtin_options: field 0: value 200 does not fit its kind (-128..127)");
  opt = ap_options_conv2d(AP_PADDING_SAME, 1, 1, AP_ACT_NONE, 1, 1);
  opt.fields[5].id = 1;
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "op 0: builtin_options: field 1 given twice");
  opt.fields[5].id = 300;
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w), "op 0: builtin_options: field id 300 above the limit 255");
  opt = ap_options_softmax(1.0f);
  opt.fields[0].f = 1e39;
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w), "op 0: builtin_options: field 0: value 1e+39 does not fit a "
                                "float");
  opt = ap_options_reshape(NULL, 2);
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "op 0: builtin_options: field 0: vector is NULL with 2 elements");
  opt = (ap_options){.type = 21, .count = 1};
  opt.fields[0] = (ap_option_field){.id = 0, .kind = AP_OPT_STRING};
  o.options = NULL;
  o.options2 = &opt;
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "op 0: builtin_options_2: field 0: string is NULL");
  opt.fields[0].kind = (ap_option_kind)99;
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "op 0: builtin_options_2: field 0: unknown kind 99");
  opt.fields[0] = (ap_option_field){.id = 0, .kind = AP_OPT_UINT32, .i = -1};
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w), "op 0: builtin_options_2: field 0: value -1 does not fit its "
                                "kind (0..4294967295)");
  o.options2 = NULL;
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_OK);
  CHECK_EQ(op, 0);
  CHECK(ap_writer_add_op(w, 0, &o, &op) == AP_OK);
  CHECK_EQ(op, 1);
  ap_writer_destroy(w);
}

static void test_metadata_and_signatures(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  CHECK(ap_writer_add_metadata(w, "m", 1) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w), "metadata \"m\": buffer 1 out of range (the model has 1)");
  CHECK(ap_writer_add_metadata(w, NULL, 0) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "add_metadata: the name is NULL");
  CHECK(ap_writer_add_metadata_bytes(w, "m", NULL, 3, NULL) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "add_buffer: data is NULL but size is 3");
  uint32_t b;
  CHECK(ap_writer_add_metadata_bytes(w, "m", "abc", 3, &b) == AP_OK);
  CHECK_EQ(b, 1);

  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){0}, NULL) == AP_OK);
  const ap_tensor_map ok[] = {{"x", 0}}, bad[] = {{"x", 0}, {"y", 1}}, noname[] = {{NULL, 0}};
  CHECK(ap_writer_add_signature(w, NULL, 0, ok, 1, ok, 1, NULL) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "add_signature: the key is NULL");
  CHECK(ap_writer_add_signature(w, "s", 2, ok, 1, ok, 1, NULL) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w), "signature \"s\": subgraph 2 out of range (the model has 1)");
  CHECK(ap_writer_add_signature(w, "s", 0, ok, 1, bad, 2, NULL) == AP_ERR_RANGE);
  CHECK_STR(ap_writer_error(w), "signature \"s\": outputs[1] \"y\": tensor 1 out of range (the "
                                "subgraph has 1 tensors)");
  CHECK(ap_writer_add_signature(w, "s", 0, noname, 1, ok, 1, NULL) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "signature \"s\": inputs[0] has a NULL name");
  CHECK(ap_writer_add_signature(w, "s", 0, NULL, 1, ok, 1, NULL) == AP_ERR_ARG);
  CHECK_STR(ap_writer_error(w), "signature \"s\": inputs NULL with count 1");
  uint32_t s;
  CHECK(ap_writer_add_signature(w, "s", 0, ok, 1, ok, 1, &s) == AP_OK);
  CHECK_EQ(s, 0);
  ap_writer_destroy(w);
}

/* An allocator that counts, and fails from the `fail_at`th allocation on. */
static size_t n_alloc, n_free, fail_at = SIZE_MAX;
static void *t_alloc(void *ctx, size_t n) {
  (void)ctx;
  if (n_alloc >= fail_at) return NULL;
  n_alloc++;
  return malloc(n);
}
static void t_free(void *ctx, void *p) {
  (void)ctx;
  if (p) n_free++;
  free(p);
}

/* Builds a small model; returns the first failing status. */
static ap_status build_small(ap_writer *w, const uint8_t **bytes, size_t *size) {
  static uint8_t big[40000]; /* above the arena's shared-chunk threshold */
  uint32_t oc, buf;
  ap_status s;
  const int32_t shape[] = {2, 2};
  ap_options o = ap_options_reshape(shape, 2);
  if ((s = ap_writer_add_opcode(w, 22, 1, &oc)) ||
      (s = ap_writer_add_buffer(w, big, sizeof big, &buf)))
    return s;
  for (int i = 0; i < 40; i++)
    if ((s = ap_writer_add_tensor(
             w, 0,
             &(ap_writer_tensor){.name = "t", .shape = shape, .rank = 2, .buffer = i ? 0 : buf},
             NULL)))
      return s;
  for (int i = 0; i + 1 < 40; i++)
    if ((s = ap_writer_add_op(w, 0,
                              &(ap_writer_op){.opcode = oc,
                                              .inputs = (int32_t[]){i},
                                              .input_count = 1,
                                              .outputs = (int32_t[]){i + 1},
                                              .output_count = 1,
                                              .options = &o},
                              NULL)))
      return s;
  if ((s = ap_writer_add_metadata_bytes(w, "m", "abc", 3, NULL)) ||
      (s = ap_writer_add_signature(w, "k", 0, (ap_tensor_map[]){{"x", 0}}, 1,
                                   (ap_tensor_map[]){{"y", 39}}, 1, NULL)))
    return s;
  return ap_writer_finish(w, bytes, size);
}

static void test_allocator(void) {
  ap_allocator a = {t_alloc, t_free, NULL};
  ap_writer_options opt = {.allocator = &a};
  const uint8_t *bytes;
  size_t size, good_size = 0;
  ap_writer *w;
  n_alloc = n_free = 0;
  CHECK(ap_writer_create(&opt, &w) == AP_OK);
  CHECK(build_small(w, &bytes, &size) == AP_OK);
  good_size = size;
  size_t total = n_alloc;
  ap_writer_destroy(w);
  CHECK(total > 3);
  CHECK_EQ(n_alloc, n_free);

  /* Every allocation in turn fails: each run reports out of memory (never crashes, never
   * leaks), and once none fails the model is the same size as before. */
  int nomem = 0;
  for (size_t k = 0; k <= total; k++) {
    n_alloc = n_free = 0;
    fail_at = k;
    ap_status s = ap_writer_create(&opt, &w);
    if (s == AP_OK) {
      s = build_small(w, &bytes, &size);
      if (s == AP_ERR_NOMEM) {
        nomem++;
        CHECK_MSG(strncmp(ap_writer_error(w), "out of memory", 13) == 0, "k=%zu: %s", k,
                  ap_writer_error(w));
      } else {
        CHECK_MSG(s == AP_OK && k == total && size == good_size, "k=%zu: %s", k,
                  ap_writer_error(w));
      }
      ap_writer_destroy(w);
    } else {
      CHECK(s == AP_ERR_NOMEM && w == NULL);
      nomem++;
    }
    CHECK_EQ(n_alloc, n_free);
  }
  CHECK_EQ(nomem, (int)total);
  fail_at = SIZE_MAX;
}

int main(void) {
  test_framing_and_alignment();
  test_null_and_args();
  test_tensors();
  test_ops_and_options();
  test_metadata_and_signatures();
  test_allocator();
  return ap_test_done();
}
