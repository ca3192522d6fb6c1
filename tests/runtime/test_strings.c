/* String tensors: TFLite's buffer format (count, offsets, bytes) checked against hostile
 * buffers, a GATHER over a string table (the dynamic region grows only when a value needs more),
 * a chain of every string op on a value set with ap_interpreter_set_string, and a model whose
 * constant string table is malformed. Every expected value is worked by hand. */
#include "arenaplan/arenaplan.h"
#include "rt_test.h"

#include <stdio.h>
#include <string.h>

enum {
  OP_CONCATENATION = 2,
  OP_RESHAPE = 22,
  OP_GATHER = 36,
  OP_SQUEEZE = 43,
  OP_SLICE = 65,
  OP_TILE = 69,
  OP_EQUAL = 71,
  OP_NOT_EQUAL = 72,
  OP_EXPAND_DIMS = 70,
  OP_FILL = 94,
  OP_GATHER_ND = 107
};

static void put32(uint8_t *b, size_t word, int32_t v) {
  memcpy(b + 4 * word, &v, 4);
}

static void check_buffer(const uint8_t *b, size_t size, size_t count, const char *want) {
  char why[200];
  CHECK_EQ(ap_string_buffer_check(b, size, count, NULL, why, sizeof why), AP_ERR_FORMAT);
  CHECK_STR(why, want);
}

static void hostile_buffers(void) {
  uint8_t b[64];
  static const char *const abc[] = {"a", "bc", ""};
  size_t n = rt_strings(b, sizeof b, abc, 3); /* 20 bytes of header + 3 */
  CHECK_EQ(n, 23);
  size_t used = 0;
  CHECK_EQ(ap_string_buffer_check(b, n, 3, &used, NULL, 0), AP_OK);
  CHECK_EQ(used, 23);
  CHECK_EQ(ap_string_buffer_check(b, n, SIZE_MAX, NULL, NULL, 0), AP_OK);
  const uint8_t *s;
  size_t len;
  CHECK(ap_string_at(b, 1, &s, &len) && len == 2 && memcmp(s, "bc", 2) == 0);
  CHECK(ap_string_at(b, 2, &s, &len) && len == 0);
  CHECK(!ap_string_at(b, 3, &s, &len));
  CHECK_EQ(ap_string_count(b), 3);
  CHECK_EQ(ap_string_buffer_size(b), 23);

  check_buffer(b, 3, 3, "string buffer of 3 bytes: shorter than its 4-byte count");
  check_buffer(b, n, 4, "string buffer holds 3 strings, the tensor has 4 elements");
  check_buffer(b, 12, 3, "string buffer: 3 strings need 20 bytes of offsets, the buffer has 12");
  uint8_t h[64];
  memcpy(h, b, n);
  put32(h, 0, -1);
  check_buffer(h, n, SIZE_MAX, "string buffer: count -1 is negative or overflows");
  put32(h, 0, INT32_MAX); /* its offsets alone would need 8 GiB */
  check_buffer(h, n, SIZE_MAX,
               "string buffer: 2147483647 strings need 8589934596 bytes of offsets, the buffer "
               "has 23");
  memcpy(h, b, n);
  put32(h, 1, 16);
  check_buffer(h, n, 3, "string buffer: the first string starts at 16, not after the offsets (20)");
  memcpy(h, b, n);
  put32(h, 2, 22);
  put32(h, 3, 21); /* string 1 ends before it starts */
  check_buffer(h, n, 3, "string buffer: string 1 ends at 21, before its start 22");
  memcpy(h, b, n);
  put32(h, 4, 99);
  check_buffer(h, n, 3, "string buffer: string 2 ends at 99, past the buffer's end (23)");
  CHECK_EQ(ap_string_buffer_check(NULL, 4, 0, NULL, NULL, 0), AP_ERR_ARG);
  /* No strings: a count and one offset. */
  CHECK_EQ(rt_strings(h, sizeof h, NULL, 0), 8);
  CHECK_EQ(ap_string_buffer_check(h, 8, 0, &used, NULL, 0), AP_OK);
  CHECK_EQ(used, 8);
}

static int32_t tensor(ap_writer *w, const char *name, int type, const int32_t *shape, size_t rank,
                      const void *data, size_t bytes) {
  uint32_t buf = 0;
  if (data) CHECK(ap_writer_add_buffer(w, data, bytes, &buf) == AP_OK);
  ap_writer_tensor t = {.name = name, .type = type, .shape = shape, .rank = rank, .buffer = buf};
  int32_t idx = -1;
  CHECK_MSG(ap_writer_add_tensor(w, 0, &t, &idx) == AP_OK, "%s", ap_writer_error(w));
  return idx;
}

static void op(ap_writer *w, int32_t builtin, const int32_t *in, size_t nin, int32_t out,
               const ap_options *o) {
  uint32_t code;
  CHECK(ap_writer_add_opcode(w, builtin, 1, &code) == AP_OK);
  ap_writer_op x = {.opcode = code,
                    .inputs = in,
                    .input_count = nin,
                    .outputs = &out,
                    .output_count = 1,
                    .options = o};
  CHECK_MSG(ap_writer_add_op(w, 0, &x, NULL) == AP_OK, "%s", ap_writer_error(w));
}

static ap_model *finish(ap_writer *w, ap_status want, const char *msg) {
  const uint8_t *bytes;
  size_t size;
  CHECK(ap_writer_finish(w, &bytes, &size) == AP_OK);
  ap_model *m = NULL;
  ap_status s = ap_model_from_buffer(bytes, size, "strings.tflite", NULL, &m);
  CHECK_MSG(s == want, "%s", ap_model_error(m));
  if (msg) CHECK_STR(ap_model_error(m), msg);
  return m;
}

/* Tensor t's strings joined with '|'. */
static void joined(ap_interpreter *it, size_t t, char *out, size_t cap) {
  ap_tensor x;
  CHECK(ap_interpreter_tensor(it, 0, t, &x) == AP_OK);
  CHECK(x.type == AP_STRING && x.data);
  CHECK_EQ(ap_string_buffer_check(x.data, x.bytes, SIZE_MAX, NULL, NULL, 0), AP_OK);
  size_t at = 0;
  out[0] = 0;
  for (size_t i = 0; i < ap_string_count(x.data); i++) {
    const uint8_t *s;
    size_t len;
    CHECK(ap_string_at(x.data, i, &s, &len));
    at += (size_t)snprintf(out + at, cap - at, "%s%.*s", i ? "|" : "", (int)len, (const char *)s);
  }
}

static void gather_table(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  static const char *const words[] = {"zero", "one", "two", "", "four"};
  uint8_t table[128];
  size_t tb = rt_strings(table, sizeof table, words, 5);
  static const int32_t five[] = {5}, three[] = {3};
  int32_t p = tensor(w, "table", AP_STRING, five, 1, table, tb);
  int32_t i = tensor(w, "indices", AP_INT32, three, 1, NULL, 0);
  int32_t o = tensor(w, "words", AP_STRING, three, 1, NULL, 0);
  op(w, OP_GATHER, (int32_t[]){p, i}, 2, o, NULL);
  CHECK(ap_writer_set_subgraph_io(w, 0, &i, 1, &o, 1) == AP_OK);
  ap_model *m = finish(w, AP_OK, NULL);
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  CHECK_EQ(ap_interpreter_dynamic_count(it), 1); /* the output; the table is a constant */
  ap_tensor in;
  CHECK(ap_interpreter_input(it, 0, &in) == AP_OK && in.bytes == 12);
  memcpy(in.data, (int32_t[]){4, 0, 3}, 12);
  CHECK_EQ(ap_interpreter_invoke(it), AP_OK);
  char got[128];
  joined(it, (size_t)o, got, sizeof got);
  CHECK_STR(got, "four|zero|");
  uint64_t grown = ap_interpreter_dynamic_bytes(it);
  CHECK_EQ(grown, 32);                       /* 20 + 8 bytes, in 16-byte steps */
  memcpy(in.data, (int32_t[]){1, 1, 2}, 12); /* 20 + 9: the same block */
  CHECK_EQ(ap_interpreter_invoke(it), AP_OK);
  joined(it, (size_t)o, got, sizeof got);
  CHECK_STR(got, "one|one|two");
  CHECK_EQ(ap_interpreter_dynamic_bytes(it), grown);
  memcpy(in.data, (int32_t[]){0, 5, 1}, 12);
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_RANGE);
  CHECK_STR(ap_interpreter_error(it),
            "subgraph 0 op 0 (GATHER): index 5 out of range (the dimension has 5)");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);

  /* The same table with its second offset moved past the end: refused at load. */
  put32(table, 2, 200);
  ap_writer_destroy(w);
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  p = tensor(w, "table", AP_STRING, five, 1, table, tb);
  CHECK(ap_writer_set_subgraph_io(w, 0, &p, 1, &p, 1) == AP_OK);
  m = finish(w, AP_ERR_FORMAT,
             "strings.tflite: subgraph 0 tensor 0: constant buffer 1: string buffer: string 0 "
             "ends at 200, past the buffer's end (42)");
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

/* s[4] -> RESHAPE [2,2] -> SLICE [0,1]+[2,1] -> SQUEEZE -> sq[2]; CONCATENATION(sq, sq);
 * EQUAL(cat, s); TILE(sq, [2]); EXPAND_DIMS(sq, 0); GATHER_ND(r, [[1,0]]); FILL([3], "x");
 * NOT_EQUAL(tile, cat). */
static void every_op(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  static const int32_t d4[] = {4}, d2[] = {2}, d22[] = {2, 2}, d21[] = {2, 1}, d12[] = {1, 2},
                       d1[] = {1}, d3[] = {3};
  static const int32_t shape22[] = {2, 2}, begin[] = {0, 1}, size[] = {2, 1}, two[] = {2}, zero = 0,
                       nd[] = {1, 0}, fill3[] = {3};
  uint8_t xbuf[32];
  static const char *const x[] = {"x"};
  size_t xb = rt_strings(xbuf, sizeof xbuf, x, 1);
  int32_t s = tensor(w, "s", AP_STRING, d4, 1, NULL, 0);
  int32_t r = tensor(w, "r", AP_STRING, d22, 2, NULL, 0);
  int32_t sl = tensor(w, "sl", AP_STRING, d21, 2, NULL, 0);
  int32_t sq = tensor(w, "sq", AP_STRING, d2, 1, NULL, 0);
  int32_t cat = tensor(w, "cat", AP_STRING, d4, 1, NULL, 0);
  int32_t eq = tensor(w, "eq", AP_BOOL, d4, 1, NULL, 0);
  int32_t tl = tensor(w, "tile", AP_STRING, d4, 1, NULL, 0);
  int32_t ex = tensor(w, "ex", AP_STRING, d12, 2, NULL, 0);
  int32_t gn = tensor(w, "gn", AP_STRING, d1, 1, NULL, 0);
  int32_t f = tensor(w, "fill", AP_STRING, d3, 1, NULL, 0);
  int32_t ne = tensor(w, "ne", AP_BOOL, d4, 1, NULL, 0);
  int32_t c_shape = tensor(w, "shape", AP_INT32, d2, 1, shape22, 8);
  int32_t c_begin = tensor(w, "begin", AP_INT32, d2, 1, begin, 8);
  int32_t c_size = tensor(w, "size", AP_INT32, d2, 1, size, 8);
  int32_t c_mult = tensor(w, "mult", AP_INT32, d1, 1, two, 4);
  int32_t c_axis = tensor(w, "axis", AP_INT32, NULL, 0, &zero, 4);
  int32_t c_nd = tensor(w, "nd", AP_INT32, d12, 2, nd, 8);
  int32_t c_dims = tensor(w, "dims", AP_INT32, d1, 1, fill3, 4);
  int32_t c_x = tensor(w, "value", AP_STRING, NULL, 0, xbuf, xb);
  ap_options concat = ap_options_concatenation(0, AP_ACT_NONE);
  op(w, OP_RESHAPE, (int32_t[]){s, c_shape}, 2, r, NULL);
  op(w, OP_SLICE, (int32_t[]){r, c_begin, c_size}, 3, sl, NULL);
  op(w, OP_SQUEEZE, &sl, 1, sq, NULL);
  op(w, OP_CONCATENATION, (int32_t[]){sq, sq}, 2, cat, &concat);
  op(w, OP_EQUAL, (int32_t[]){cat, s}, 2, eq, NULL);
  op(w, OP_TILE, (int32_t[]){sq, c_mult}, 2, tl, NULL);
  op(w, OP_EXPAND_DIMS, (int32_t[]){sq, c_axis}, 2, ex, NULL);
  op(w, OP_GATHER_ND, (int32_t[]){r, c_nd}, 2, gn, NULL);
  op(w, OP_FILL, (int32_t[]){c_dims, c_x}, 2, f, NULL);
  op(w, OP_NOT_EQUAL, (int32_t[]){tl, cat}, 2, ne, NULL);
  int32_t outs[] = {cat, eq, tl, ex, gn, f, ne};
  CHECK(ap_writer_set_subgraph_io(w, 0, &s, 1, outs, 7) == AP_OK);
  ap_model *m = finish(w, AP_OK, NULL);
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  uint8_t v[64];
  static const char *const values[] = {"a", "bb", "", "ccc"};
  size_t vb = rt_strings(v, sizeof v, values, 4);
  CHECK_EQ(ap_interpreter_set_string(it, 0, (size_t)s, v, vb, d4, 1), AP_ERR_NOT_ALLOCATED);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  /* Before any value: the op says what is missing. */
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  CHECK_STR(ap_interpreter_error(it), "subgraph 0 op 0 (RESHAPE): input 0 has no value yet (set "
                                      "string inputs with ap_interpreter_set_string)");
  /* Hostile values are refused with the buffer check's reason. */
  uint8_t h[64];
  memcpy(h, v, vb);
  put32(h, 3, 2);
  CHECK_EQ(ap_interpreter_set_string(it, 0, (size_t)s, h, vb, d4, 1), AP_ERR_FORMAT);
  CHECK_STR(ap_interpreter_error(it),
            "subgraph 0 tensor 0: string buffer: string 1 ends at 2, before its start 25");
  CHECK_EQ(ap_interpreter_set_string(it, 0, (size_t)s, v, vb, d3, 1), AP_ERR_FORMAT);
  CHECK_STR(ap_interpreter_error(it),
            "subgraph 0 tensor 0: string buffer holds 4 strings, the tensor has 3 elements");
  CHECK_EQ(ap_interpreter_set_string(it, 0, (size_t)c_shape, v, vb, d4, 1), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_set_string(it, 0, (size_t)eq, v, vb, d4, 1), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_set_string(it, 0, 99, v, vb, d4, 1), AP_ERR_RANGE);
  CHECK_EQ(ap_interpreter_set_string(it, 0, (size_t)s, v, vb, d4, 1), AP_OK);
  CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
  char got[128];
  joined(it, (size_t)s, got, sizeof got);
  CHECK_STR(got, "a|bb||ccc");
  joined(it, (size_t)cat, got, sizeof got);
  CHECK_STR(got, "bb|ccc|bb|ccc");
  joined(it, (size_t)tl, got, sizeof got);
  CHECK_STR(got, "bb|ccc|bb|ccc");
  joined(it, (size_t)ex, got, sizeof got);
  CHECK_STR(got, "bb|ccc");
  joined(it, (size_t)gn, got, sizeof got);
  CHECK_STR(got, "");
  joined(it, (size_t)f, got, sizeof got);
  CHECK_STR(got, "x|x|x");
  ap_tensor t;
  CHECK(ap_interpreter_tensor(it, 0, (size_t)ex, &t) == AP_OK);
  CHECK(t.rank == 2 && t.dims[0] == 1 && t.dims[1] == 2);
  CHECK(ap_interpreter_tensor(it, 0, (size_t)sq, &t) == AP_OK);
  CHECK(t.rank == 1 && t.dims[0] == 2 && t.is_dynamic);
  CHECK(ap_interpreter_tensor(it, 0, (size_t)eq, &t) == AP_OK);
  CHECK(t.bytes == 4 && memcmp(t.data, (uint8_t[]){0, 0, 0, 1}, 4) == 0);
  CHECK(ap_interpreter_tensor(it, 0, (size_t)ne, &t) == AP_OK);
  CHECK(t.bytes == 4 && memcmp(t.data, (uint8_t[]){0, 0, 0, 0}, 4) == 0);
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

/* RESHAPE(s, shape) -> s: an op fed its own output is refused, not run over freed bytes. */
static void own_output(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  static const int32_t d1[] = {1};
  int32_t s = tensor(w, "s", AP_STRING, d1, 1, NULL, 0);
  int32_t k = tensor(w, "shape", AP_INT32, d1, 1, d1, 4);
  op(w, OP_RESHAPE, (int32_t[]){s, k}, 2, s, NULL);
  CHECK(ap_writer_set_subgraph_io(w, 0, &s, 1, &s, 1) == AP_OK);
  ap_model *m = finish(w, AP_OK, NULL);
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  {
    uint8_t v[32];
    static const char *const one[] = {"abc"};
    size_t vb = rt_strings(v, sizeof v, one, 1);
    CHECK_EQ(ap_interpreter_set_string(it, 0, (size_t)s, v, vb, d1, 1), AP_OK);
    CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_FORMAT);
    CHECK_STR(ap_interpreter_error(it),
              "subgraph 0 op 0 (RESHAPE): input 0 is its own output (tensor 0)");
  }
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

/* TILE and SLICE take their multiples and begin from inputs: values that would overflow are
 * refused with the value. */
static void hostile_values(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  static const int32_t d2[] = {2}, d1[] = {1}, d6[] = {6};
  static const int64_t to_end[] = {-1};
  int32_t s = tensor(w, "s", AP_STRING, d2, 1, NULL, 0);
  int32_t mult = tensor(w, "mult", AP_INT64, d1, 1, NULL, 0);
  int32_t begin = tensor(w, "begin", AP_INT64, d1, 1, NULL, 0);
  int32_t size = tensor(w, "size", AP_INT64, d1, 1, to_end, 8);
  int32_t tl = tensor(w, "tile", AP_STRING, d6, 1, NULL, 0);
  int32_t sl = tensor(w, "slice", AP_STRING, d1, 1, NULL, 0);
  op(w, OP_TILE, (int32_t[]){s, mult}, 2, tl, NULL);
  op(w, OP_SLICE, (int32_t[]){s, begin, size}, 3, sl, NULL);
  CHECK(ap_writer_set_subgraph_io(w, 0, (int32_t[]){s, mult, begin}, 3, (int32_t[]){tl, sl}, 2) ==
        AP_OK);
  ap_model *m = finish(w, AP_OK, NULL);
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  uint8_t v[32];
  static const char *const ab[] = {"a", "b"};
  size_t vb = rt_strings(v, sizeof v, ab, 2);
  CHECK_EQ(ap_interpreter_set_string(it, 0, (size_t)s, v, vb, d2, 1), AP_OK);
  ap_tensor tm, tb;
  CHECK(ap_interpreter_input(it, 1, &tm) == AP_OK && tm.bytes == 8);
  CHECK(ap_interpreter_input(it, 2, &tb) == AP_OK && tb.bytes == 8);
  memcpy(tm.data, (int64_t[]){INT64_MAX}, 8);
  memcpy(tb.data, (int64_t[]){1}, 8);
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_FORMAT);
  CHECK_STR(ap_interpreter_error(it), "subgraph 0 op 0 (TILE): multiple 0 is 9223372036854775807");
  memcpy(tm.data, (int64_t[]){3}, 8);
  memcpy(tb.data, (int64_t[]){INT64_MAX}, 8);
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_FORMAT);
  CHECK_STR(ap_interpreter_error(it),
            "subgraph 0 op 1 (SLICE): dim 0: begin 9223372036854775807 size -1 outside 2");
  memcpy(tb.data, (int64_t[]){1}, 8);
  CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
  char got[64];
  joined(it, (size_t)tl, got, sizeof got);
  CHECK_STR(got, "a|b|a|b|a|b");
  joined(it, (size_t)sl, got, sizeof got);
  CHECK_STR(got, "b");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

int main(void) {
  hostile_values();
  hostile_buffers();
  own_output();
  gather_table();
  every_op();
  return ap_test_done();
}
