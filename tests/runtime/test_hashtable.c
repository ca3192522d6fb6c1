/* TFLite's static hash tables on models crafted with the writer, every value worked by hand:
 * string -> int64 (a duplicate key keeps its first value and counts once; a second HASHTABLE op
 * of the same id shares the table; a later import is ignored) and int64 -> string (missing keys
 * give the default); unsupported key types and a handle naming no table are refused. */
#include "arenaplan/arenaplan.h"
#include "rt_test.h"

#include <string.h>

enum { OP_HASHTABLE = 136, OP_FIND = 137, OP_IMPORT = 138, OP_SIZE = 139 };

static int32_t tensor(ap_writer *w, int type, const int32_t *shape, size_t rank, const void *data,
                      size_t bytes) {
  uint32_t buf = 0;
  if (data) CHECK(ap_writer_add_buffer(w, data, bytes, &buf) == AP_OK);
  ap_writer_tensor t = {.type = type, .shape = shape, .rank = rank, .buffer = buf};
  int32_t idx = -1;
  CHECK_MSG(ap_writer_add_tensor(w, 0, &t, &idx) == AP_OK, "%s", ap_writer_error(w));
  return idx;
}

static void op(ap_writer *w, int32_t builtin, const int32_t *in, size_t nin, const int32_t *out,
               size_t nout, const ap_options *o) {
  uint32_t code;
  CHECK(ap_writer_add_opcode(w, builtin, 1, &code) == AP_OK);
  ap_writer_op x = {.opcode = code,
                    .inputs = in,
                    .input_count = nin,
                    .outputs = out,
                    .output_count = nout,
                    .options = o};
  CHECK_MSG(ap_writer_add_op(w, 0, &x, NULL) == AP_OK, "%s", ap_writer_error(w));
}

static ap_options table_options(int32_t id, int key, int value) {
  ap_options o = {.type = 107, .count = 3}; /* HashtableOptions */
  o.fields[0] = (ap_option_field){.id = 0, .kind = AP_OPT_INT32, .i = id};
  o.fields[1] = (ap_option_field){.id = 1, .kind = AP_OPT_INT8, .i = key};
  o.fields[2] = (ap_option_field){.id = 2, .kind = AP_OPT_INT8, .i = value};
  return o;
}

static ap_interpreter *load(ap_writer *w, ap_model **m) {
  const uint8_t *bytes;
  size_t size;
  CHECK(ap_writer_finish(w, &bytes, &size) == AP_OK);
  CHECK_MSG(ap_model_from_buffer(bytes, size, "table.tflite", NULL, m) == AP_OK, "%s",
            ap_model_error(*m));
  ap_interpreter *it = NULL;
  CHECK(ap_interpreter_create(*m, NULL, &it) == AP_OK);
  return it;
}

static void string_to_int(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  static const int32_t one[] = {1}, three[] = {3}, four[] = {4};
  static const char *const keys[] = {"b", "a", "c", "a"}, *const other[] = {"a"};
  static const int64_t values[] = {2, 1, 3, 9}, dflt[] = {-1}, other_values[] = {100};
  uint8_t kb[64], ob[32];
  size_t kn = rt_strings(kb, sizeof kb, keys, 4), on = rt_strings(ob, sizeof ob, other, 1);
  int32_t h = tensor(w, AP_RESOURCE, one, 1, NULL, 0), h2 = tensor(w, AP_RESOURCE, one, 1, NULL, 0);
  int32_t k = tensor(w, AP_STRING, four, 1, kb, kn), v = tensor(w, AP_INT64, four, 1, values, 32);
  int32_t k2 = tensor(w, AP_STRING, one, 1, ob, on);
  int32_t v2 = tensor(w, AP_INT64, one, 1, other_values, 8);
  int32_t d = tensor(w, AP_INT64, one, 1, dflt, 8), q = tensor(w, AP_STRING, three, 1, NULL, 0);
  int32_t out = tensor(w, AP_INT64, three, 1, NULL, 0), size = tensor(w, AP_INT64, one, 1, NULL, 0);
  ap_options o = table_options(7, AP_STRING, AP_INT64);
  op(w, OP_HASHTABLE, NULL, 0, &h, 1, &o);
  op(w, OP_HASHTABLE, NULL, 0, &h2, 1, &o);
  op(w, OP_IMPORT, (int32_t[]){h, k, v}, 3, NULL, 0, NULL);
  op(w, OP_IMPORT, (int32_t[]){h2, k2, v2}, 3, NULL, 0, NULL); /* ignored: imported already */
  op(w, OP_FIND, (int32_t[]){h2, q, d}, 3, &out, 1, NULL);
  op(w, OP_SIZE, &h2, 1, &size, 1, NULL);
  CHECK(ap_writer_set_subgraph_io(w, 0, &q, 1, (int32_t[]){out, size}, 2) == AP_OK);
  ap_model *m;
  ap_interpreter *it = load(w, &m);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  static const char *const query[] = {"a", "zz", "c"};
  uint8_t qb[64];
  size_t qn = rt_strings(qb, sizeof qb, query, 3);
  for (int run = 0; run < 2; run++) {
    CHECK_EQ(ap_interpreter_set_string(it, 0, (size_t)q, qb, qn, three, 1), AP_OK);
    CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
    ap_tensor t;
    CHECK(ap_interpreter_tensor(it, 0, (size_t)out, &t) == AP_OK && t.bytes == 24);
    CHECK(memcmp(t.data, (int64_t[]){1, -1, 3}, 24) == 0);
    CHECK(ap_interpreter_tensor(it, 0, (size_t)size, &t) == AP_OK && t.bytes == 8);
    CHECK(memcmp(t.data, (int64_t[]){3}, 8) == 0);
  }
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

static void int_to_string(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  static const int32_t one[] = {1}, three[] = {3}, four[] = {4};
  static const int64_t keys[] = {10, -5, 3};
  static const char *const values[] = {"ten", "minus five", "three"}, *const dflt[] = {"?"};
  uint8_t vb[64], db[16];
  size_t vn = rt_strings(vb, sizeof vb, values, 3), dn = rt_strings(db, sizeof db, dflt, 1);
  int32_t h = tensor(w, AP_RESOURCE, one, 1, NULL, 0);
  int32_t k = tensor(w, AP_INT64, three, 1, keys, 24), v = tensor(w, AP_STRING, three, 1, vb, vn);
  int32_t d = tensor(w, AP_STRING, NULL, 0, db, dn), q = tensor(w, AP_INT64, four, 1, NULL, 0);
  int32_t out = tensor(w, AP_STRING, four, 1, NULL, 0);
  ap_options o = table_options(1, AP_INT64, AP_STRING);
  op(w, OP_HASHTABLE, NULL, 0, &h, 1, &o);
  op(w, OP_IMPORT, (int32_t[]){h, k, v}, 3, NULL, 0, NULL);
  op(w, OP_FIND, (int32_t[]){h, q, d}, 3, &out, 1, NULL);
  CHECK(ap_writer_set_subgraph_io(w, 0, &q, 1, &out, 1) == AP_OK);
  ap_model *m;
  ap_interpreter *it = load(w, &m);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  ap_tensor t;
  CHECK(ap_interpreter_input(it, 0, &t) == AP_OK && t.bytes == 32);
  memcpy(t.data, (int64_t[]){3, 4, 10, -5}, 32);
  CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
  CHECK(ap_interpreter_tensor(it, 0, (size_t)out, &t) == AP_OK);
  CHECK_EQ(ap_string_buffer_check(t.data, t.bytes, 4, NULL, NULL, 0), AP_OK);
  static const char *const want[] = {"three", "?", "ten", "minus five"};
  for (size_t i = 0; i < 4; i++) {
    const uint8_t *s;
    size_t len;
    CHECK(ap_string_at(t.data, i, &s, &len));
    CHECK(len == strlen(want[i]) && memcmp(s, want[i], len) == 0);
  }
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

static void refused(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  static const int32_t one[] = {1};
  int32_t h = tensor(w, AP_RESOURCE, one, 1, NULL, 0);
  ap_options o = table_options(3, AP_FLOAT32, AP_INT64);
  op(w, OP_HASHTABLE, NULL, 0, &h, 1, &o);
  CHECK(ap_writer_set_subgraph_io(w, 0, NULL, 0, &h, 1) == AP_OK);
  ap_model *m;
  ap_interpreter *it = load(w, &m);
  CHECK_EQ(ap_interpreter_allocate(it), AP_ERR_UNSUPPORTED);
  CHECK_STR(ap_interpreter_error(it), "subgraph 0 op 0 (HASHTABLE): table 3: FLOAT32 -> INT64 "
                                      "(int64 -> string or string -> int64)");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  ap_writer_destroy(w);

  /* A SIZE whose handle is an input holding an id no HASHTABLE op makes. */
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  int32_t hi = tensor(w, AP_INT32, one, 1, NULL, 0), size = tensor(w, AP_INT64, one, 1, NULL, 0);
  op(w, OP_SIZE, &hi, 1, &size, 1, NULL);
  CHECK(ap_writer_set_subgraph_io(w, 0, &hi, 1, &size, 1) == AP_OK);
  it = load(w, &m);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  ap_tensor t;
  CHECK(ap_interpreter_input(it, 0, &t) == AP_OK && t.bytes == 4);
  memcpy(t.data, (int32_t[]){42}, 4);
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_FORMAT);
  CHECK_STR(ap_interpreter_error(it), "subgraph 0 op 0 (HASHTABLE_SIZE): no HASHTABLE op makes "
                                      "table 42");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

int main(void) {
  string_to_int();
  int_to_string();
  refused();
  return ap_test_done();
}
