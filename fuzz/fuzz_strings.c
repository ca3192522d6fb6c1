/* fuzz_strings: TFLite's string buffer (count, offsets, bytes) from untrusted bytes. The check
 * must accept only buffers every reader can walk: after AP_OK each string lies inside the
 * exact-size read-only copy (ASan sees any read past it) and the offsets end where the check
 * said; a refusal must carry a message. An accepted buffer is then set as the string input of a
 * GATHER over it (indices 0 and the last), whose output must be a valid buffer, and as the keys
 * of a hash table (up to 256 strings), whose lookups must match a brute-force search. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ap_model *gather_model(ap_writer **w) {
  static const int32_t any[] = {1}, two[] = {2};
  ap_model *m = NULL;
  if (ap_writer_create(NULL, w) != AP_OK) return NULL;
  uint32_t code;
  int32_t p, i, o;
  ap_writer_tensor tp = {.name = "p", .type = AP_STRING, .shape = any, .rank = 1};
  ap_writer_tensor ti = {.name = "i", .type = AP_INT32, .shape = two, .rank = 1};
  ap_writer_tensor to = {.name = "o", .type = AP_STRING, .shape = two, .rank = 1};
  const uint8_t *bytes;
  size_t n;
  if (ap_writer_add_opcode(*w, 36, 1, &code) != AP_OK ||
      ap_writer_add_tensor(*w, 0, &tp, &p) != AP_OK ||
      ap_writer_add_tensor(*w, 0, &ti, &i) != AP_OK ||
      ap_writer_add_tensor(*w, 0, &to, &o) != AP_OK)
    return NULL;
  int32_t ins[] = {p, i};
  ap_writer_op op = {
      .opcode = code, .inputs = ins, .input_count = 2, .outputs = &o, .output_count = 1};
  if (ap_writer_add_op(*w, 0, &op, NULL) != AP_OK ||
      ap_writer_set_subgraph_io(*w, 0, ins, 2, &o, 1) != AP_OK ||
      ap_writer_finish(*w, &bytes, &n) != AP_OK ||
      ap_model_from_buffer(bytes, n, "fuzz", NULL, &m) != AP_OK) {
    ap_model_destroy(m);
    return NULL;
  }
  return m;
}

/* HASHTABLE(string -> int64) imported from the strings with values 0..n-1, then FIND of the same
 * strings: each must give the first index holding an equal string (a duplicate keeps its first
 * value), checked by brute force. */
static void table_check(const uint8_t *buf, size_t size, size_t n) {
  static const int32_t one[] = {1};
  ap_writer *w = NULL;
  ap_model *m = NULL;
  ap_interpreter *it = NULL;
  uint32_t c_table, c_import, c_find;
  int32_t h, keys, values, dflt, out;
  static const int64_t minus_one = -1;
  ap_options o = {.type = 107, .count = 3}; /* HashtableOptions */
  o.fields[0] = (ap_option_field){.id = 0, .kind = AP_OPT_INT32, .i = 1};
  o.fields[1] = (ap_option_field){.id = 1, .kind = AP_OPT_INT8, .i = AP_STRING};
  o.fields[2] = (ap_option_field){.id = 2, .kind = AP_OPT_INT8, .i = AP_INT64};
  uint32_t b;
  const uint8_t *bytes;
  size_t nb;
  if (ap_writer_create(NULL, &w) != AP_OK) return;
  ap_writer_tensor th = {.type = AP_RESOURCE, .shape = one, .rank = 1};
  ap_writer_tensor tk = {.type = AP_STRING, .shape = one, .rank = 1};
  ap_writer_tensor tv = {.type = AP_INT64, .shape = one, .rank = 1};
  ap_writer_tensor td = {.type = AP_INT64, .shape = one, .rank = 1};
  ap_writer_tensor to = {.type = AP_INT64, .shape = one, .rank = 1};
  int32_t in_import[3], in_find[3];
  ap_writer_op create = {.outputs = &h, .output_count = 1, .options = &o};
  ap_writer_op import = {.inputs = in_import, .input_count = 3};
  ap_writer_op find = {.inputs = in_find, .input_count = 3, .outputs = &out, .output_count = 1};
  if (ap_writer_add_opcode(w, 136, 1, &c_table) != AP_OK ||
      ap_writer_add_opcode(w, 138, 1, &c_import) != AP_OK ||
      ap_writer_add_opcode(w, 137, 1, &c_find) != AP_OK ||
      ap_writer_add_buffer(w, &minus_one, 8, &b) != AP_OK)
    goto done;
  td.buffer = b;
  if (ap_writer_add_tensor(w, 0, &th, &h) != AP_OK ||
      ap_writer_add_tensor(w, 0, &tk, &keys) != AP_OK ||
      ap_writer_add_tensor(w, 0, &tv, &values) != AP_OK ||
      ap_writer_add_tensor(w, 0, &td, &dflt) != AP_OK ||
      ap_writer_add_tensor(w, 0, &to, &out) != AP_OK)
    goto done;
  create.opcode = c_table, import.opcode = c_import, find.opcode = c_find;
  memcpy(in_import, (int32_t[]){h, keys, values}, sizeof in_import);
  memcpy(in_find, (int32_t[]){h, keys, dflt}, sizeof in_find);
  int32_t ins[] = {keys, values};
  if (ap_writer_add_op(w, 0, &create, NULL) != AP_OK ||
      ap_writer_add_op(w, 0, &import, NULL) != AP_OK ||
      ap_writer_add_op(w, 0, &find, NULL) != AP_OK ||
      ap_writer_set_subgraph_io(w, 0, ins, 2, &out, 1) != AP_OK ||
      ap_writer_finish(w, &bytes, &nb) != AP_OK ||
      ap_model_from_buffer(bytes, nb, "fuzz", NULL, &m) != AP_OK ||
      ap_interpreter_create(m, NULL, &it) != AP_OK)
    goto done;
  int32_t dims[] = {(int32_t)n};
  ap_tensor tvals, res;
  if (ap_interpreter_resize_input(it, 1, dims, 1) != AP_OK || ap_interpreter_allocate(it) != AP_OK)
    fuzz_die("strings", "a table model did not allocate");
  if (ap_interpreter_set_string(it, 0, (size_t)keys, buf, size, dims, 1) != AP_OK ||
      ap_interpreter_input(it, 1, &tvals) != AP_OK || tvals.bytes != n * 8)
    fuzz_die("strings", "the table's inputs");
  for (size_t i = 0; i < n; i++)
    memcpy((uint8_t *)tvals.data + 8 * i, &(int64_t){(int64_t)i}, 8);
  if (ap_interpreter_invoke(it) != AP_OK || ap_interpreter_output(it, 0, &res) != AP_OK ||
      res.bytes != n * 8)
    fuzz_die("strings", "the table's find");
  for (size_t i = 0; i < n; i++) {
    const uint8_t *a, *c;
    size_t la, lc, first = i;
    ap_string_at(buf, i, &a, &la);
    for (size_t j = 0; j < i; j++) {
      ap_string_at(buf, j, &c, &lc);
      if (la == lc && (la == 0 || memcmp(a, c, la) == 0)) {
        first = j;
        break;
      }
    }
    int64_t got;
    memcpy(&got, (const uint8_t *)res.data + 8 * i, 8);
    if (got != (int64_t)first) fuzz_die("strings", "a key found the wrong value");
  }
done:
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t map_size;
  uint8_t *buf = fuzz_readonly_copy(data, size, &map_size);
  if (!buf) return 0;
  char why[200] = "";
  size_t used = 0;
  ap_status st = ap_string_buffer_check(buf, size, SIZE_MAX, &used, why, sizeof why);
  if (st != AP_OK && !why[0]) fuzz_die("strings", "refusal without a message");
  size_t count = st == AP_OK ? ap_string_count(buf) : 0;
  if (st == AP_OK) {
    if (used > size) fuzz_die("strings", "used past the end");
    size_t sum = 0;
    for (size_t i = 0; i < count; i++) {
      const uint8_t *s;
      size_t len;
      if (!ap_string_at(buf, i, &s, &len)) fuzz_die("strings", "an accepted string is missing");
      if (s < buf || len > (size_t)(buf + size - s)) fuzz_die("strings", "string outside");
      volatile uint8_t touch = len ? s[len - 1] : 0; /* ASan: inside the copy */
      (void)touch;
      sum += len;
    }
    if (count && sum > used) fuzz_die("strings", "strings longer than the buffer");
  }
  if (st == AP_OK && count && count <= INT32_MAX) {
    ap_writer *w = NULL;
    ap_model *m = gather_model(&w);
    ap_interpreter *it = NULL;
    int32_t dims[] = {(int32_t)count};
    if (m && ap_interpreter_create(m, NULL, &it) == AP_OK && ap_interpreter_allocate(it) == AP_OK &&
        ap_interpreter_set_string(it, 0, 0, buf, size, dims, 1) == AP_OK) {
      ap_tensor in, out;
      if (ap_interpreter_tensor(it, 0, 1, &in) == AP_OK && in.data && in.bytes == 8) {
        int32_t ix[2] = {0, (int32_t)count - 1};
        memcpy(in.data, ix, 8);
        if (ap_interpreter_invoke(it) != AP_OK) fuzz_die("strings", "gather of valid indices");
        if (ap_interpreter_tensor(it, 0, 2, &out) != AP_OK ||
            ap_string_buffer_check(out.data, out.bytes, 2, NULL, NULL, 0) != AP_OK)
          fuzz_die("strings", "gather wrote an invalid buffer");
      }
    }
    ap_interpreter_destroy(it);
    ap_model_destroy(m);
    ap_writer_destroy(w);
  }
  if (st == AP_OK && count && count <= 256) table_check(buf, size, count);
  fuzz_readonly_free(buf, map_size);
  return 0;
}
