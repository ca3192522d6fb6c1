/* String tensors through TFLite's C API, on models this test writes with arenaplan's writer: a
 * GATHER over a constant string table (strings out), a TILE of a string input (strings in and
 * out, resized to the count first), the same through signature runners of two subgraphs, both
 * directions of a static hash table (int64 -> string, string -> int64), and hostile string
 * buffers given to TfLiteTensorCopyFromBuffer, each refused through the error reporter with the
 * runtime's reason and leaving the tensor's value as it was. A string tensor's data is TFLite's
 * buffer (int32 count, int32 offsets[count + 1], bytes); every expected buffer is written here
 * with ap_string_buffer_write and every size worked by hand. */
#include "arenaplan/arenaplan.h"
#include "capi_test.h"

#include <string.h>

enum { OP_GATHER = 36, OP_TILE = 69, OP_HASHTABLE = 136, OP_FIND = 137, OP_IMPORT = 138 };

/* The buffer of n strings into out; returns its size. */
static size_t strings(uint8_t *out, size_t cap, const char *const *s, size_t n) {
  const uint8_t *p[8];
  size_t len[8], need = 0;
  CHECK(n <= 8);
  for (size_t i = 0; i < n && i < 8; i++) {
    p[i] = (const uint8_t *)s[i];
    len[i] = strlen(s[i]);
  }
  CHECK(ap_string_buffer_write(out, cap, p, len, n, &need) == AP_OK);
  return need;
}

static void put32(uint8_t *b, size_t word, int32_t v) {
  memcpy(b + 4 * word, &v, 4);
}

static int32_t tensor(ap_writer *w, uint32_t sg, const char *name, int type, const int32_t *shape,
                      size_t rank, const void *data, size_t bytes) {
  uint32_t buf = 0;
  if (data) CHECK(ap_writer_add_buffer(w, data, bytes, &buf) == AP_OK);
  ap_writer_tensor t = {.name = name, .type = type, .shape = shape, .rank = rank, .buffer = buf};
  int32_t idx = -1;
  CHECK_MSG(ap_writer_add_tensor(w, sg, &t, &idx) == AP_OK, "%s", ap_writer_error(w));
  return idx;
}

static void op(ap_writer *w, uint32_t sg, int32_t builtin, const int32_t *in, size_t nin,
               const int32_t *out, size_t nout, const ap_options *o) {
  uint32_t code;
  CHECK(ap_writer_add_opcode(w, builtin, 1, &code) == AP_OK);
  ap_writer_op x = {.opcode = code,
                    .inputs = in,
                    .input_count = nin,
                    .outputs = out,
                    .output_count = nout,
                    .options = o};
  CHECK_MSG(ap_writer_add_op(w, sg, &x, NULL) == AP_OK, "%s", ap_writer_error(w));
}

/* An interpreter of the writer's model reporting to h. The model is deleted at once, as
 * TFLite's example does; its bytes stay the writer's until the caller destroys it. */
static TfLiteInterpreter *create(ap_writer *w, heard *h) {
  const uint8_t *bytes = NULL;
  size_t size = 0;
  CHECK(ap_writer_finish(w, &bytes, &size) == AP_OK);
  TfLiteModel *m = TfLiteModelCreate(bytes, size);
  CHECK(m != NULL);
  TfLiteInterpreterOptions *o = heard_options(h);
  TfLiteInterpreter *it = m ? TfLiteInterpreterCreate(m, o) : NULL;
  TfLiteInterpreterOptionsDelete(o);
  TfLiteModelDelete(m);
  CHECK_MSG(it != NULL, "create: %s", h->text);
  return it;
}

/* Tensor t holds exactly the strings want (type, rank 1, dim, byte size, data, and a copy). */
static void check_strings(const TfLiteTensor *t, const char *const *want, size_t n) {
  uint8_t expect[256], got[256];
  size_t size = strings(expect, sizeof expect, want, n);
  CHECK(t != NULL);
  if (!t) return;
  CHECK_EQ(TfLiteTensorType(t), kTfLiteString);
  CHECK_EQ(TfLiteTensorNumDims(t), 1);
  CHECK_EQ(TfLiteTensorDim(t, 0), (int32_t)n);
  CHECK_EQ(TfLiteTensorByteSize(t), size);
  CHECK(TfLiteTensorData(t) != NULL && memcmp(TfLiteTensorData(t), expect, size) == 0);
  memset(got, 0xAA, sizeof got);
  CHECK(TfLiteTensorCopyToBuffer(t, got, size) == kTfLiteOk);
  CHECK(memcmp(got, expect, size) == 0);
}

static void gather_table(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  static const char *const words[] = {"zero", "one", "two", "", "four"};
  uint8_t table[128];
  size_t tb = strings(table, sizeof table, words, 5); /* 4 * 7 + 14 */
  CHECK_EQ(tb, 42);
  static const int32_t five[] = {5}, three[] = {3};
  int32_t p = tensor(w, 0, "table", AP_STRING, five, 1, table, tb);
  int32_t i = tensor(w, 0, "indices", AP_INT32, three, 1, NULL, 0);
  int32_t o = tensor(w, 0, "words", AP_STRING, three, 1, NULL, 0);
  op(w, 0, OP_GATHER, (int32_t[]){p, i}, 2, &o, 1, NULL);
  CHECK(ap_writer_set_subgraph_io(w, 0, &i, 1, &o, 1) == AP_OK);
  heard h;
  TfLiteInterpreter *it = create(w, &h);
  if (!it) {
    ap_writer_destroy(w);
    return;
  }
  const TfLiteTensor *out = TfLiteInterpreterGetOutputTensor(it, 0);
  /* Before a value: TFLite's dynamic tensor, no bytes and no data. */
  CHECK_EQ(TfLiteTensorType(out), kTfLiteString);
  CHECK_EQ(TfLiteTensorByteSize(out), 0);
  CHECK(TfLiteTensorData(out) == NULL);
  CHECK(TfLiteInterpreterAllocateTensors(it) == kTfLiteOk);
  TfLiteTensor *in = TfLiteInterpreterGetInputTensor(it, 0);
  CHECK_EQ(TfLiteTensorType(in), kTfLiteInt32);
  CHECK_EQ(TfLiteTensorByteSize(in), 12);
  CHECK(TfLiteTensorCopyFromBuffer(in, (int32_t[]){4, 0, 3}, 12) == kTfLiteOk);
  CHECK_MSG(TfLiteInterpreterInvoke(it) == kTfLiteOk, "%s", h.text);
  check_strings(out, (const char *const[]){"four", "zero", ""}, 3); /* 20 + 8 bytes */
  CHECK_EQ(TfLiteTensorByteSize(out), 28);
  uint8_t small[27];
  heard_reset(&h);
  CHECK(TfLiteTensorCopyToBuffer(out, small, sizeof small) == kTfLiteError);
  CHECK_STR(h.text, "TfLiteTensorCopyToBuffer: tensor \"words\" holds 28 bytes, the buffer 27\n");
  CHECK(TfLiteTensorCopyFromBuffer(in, (int32_t[]){1, 1, 2}, 12) == kTfLiteOk);
  CHECK_MSG(TfLiteInterpreterInvoke(it) == kTfLiteOk, "%s", h.text);
  check_strings(out, (const char *const[]){"one", "one", "two"}, 3);
  CHECK_EQ(TfLiteTensorByteSize(out), 29);
  /* The constant table is the model's buffer, and stays constant. */
  TfLiteTensor *t = TfLiteInterpreterGetTensor(it, p);
  check_strings(t, words, 5);
  heard_reset(&h);
  CHECK(TfLiteTensorCopyFromBuffer(t, table, tb) == kTfLiteError);
  CHECK_STR(h.text, "TfLiteTensorCopyFromBuffer: tensor \"table\" is a constant of the model\n");
  TfLiteInterpreterDelete(it);
  ap_writer_destroy(w);
}

/* Subgraph 0: tiled = TILE(text, [2]), signature "tile". Subgraph 1: picked = GATHER(words,
 * [2, 0]), signature "pick". */
static ap_writer *tile_model(int32_t *text) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  static const int32_t d1[] = {1}, d2[] = {2}, d3[] = {3}, d4[] = {4}, two[] = {2}, pick[] = {2, 0};
  *text = tensor(w, 0, "text", AP_STRING, d2, 1, NULL, 0);
  int32_t mult = tensor(w, 0, "mult", AP_INT32, d1, 1, two, 4);
  int32_t tiled = tensor(w, 0, "tiled", AP_STRING, d4, 1, NULL, 0);
  op(w, 0, OP_TILE, (int32_t[]){*text, mult}, 2, &tiled, 1, NULL);
  CHECK(ap_writer_set_subgraph_io(w, 0, text, 1, &tiled, 1) == AP_OK);
  uint32_t sg1 = 0;
  CHECK(ap_writer_add_subgraph(w, "pick", &sg1) == AP_OK && sg1 == 1);
  int32_t words = tensor(w, 1, "words", AP_STRING, d3, 1, NULL, 0);
  int32_t idx = tensor(w, 1, "idx", AP_INT32, d2, 1, pick, 8);
  int32_t picked = tensor(w, 1, "picked", AP_STRING, d2, 1, NULL, 0);
  op(w, 1, OP_GATHER, (int32_t[]){words, idx}, 2, &picked, 1, NULL);
  CHECK(ap_writer_set_subgraph_io(w, 1, &words, 1, &picked, 1) == AP_OK);
  ap_tensor_map tin = {"text", (uint32_t)*text}, tout = {"tiled", (uint32_t)tiled};
  ap_tensor_map pin = {"words", (uint32_t)words}, pout = {"picked", (uint32_t)picked};
  CHECK(ap_writer_add_signature(w, "tile", 0, &tin, 1, &tout, 1, NULL) == AP_OK);
  CHECK(ap_writer_add_signature(w, "pick", 1, &pin, 1, &pout, 1, NULL) == AP_OK);
  return w;
}

/* A refused CopyFromBuffer: one message, the one wanted, and the value as it was. */
static void refused(TfLiteTensor *in, heard *h, const uint8_t *buf, size_t size, const char *want,
                    const uint8_t *kept, size_t kept_size) {
  heard_reset(h);
  CHECK(TfLiteTensorCopyFromBuffer(in, buf, size) == kTfLiteError);
  CHECK_EQ(h->count, 1);
  CHECK_STR(h->text, want);
  CHECK_EQ(TfLiteTensorByteSize(in), kept_size);
  CHECK(TfLiteTensorData(in) && memcmp(TfLiteTensorData(in), kept, kept_size) == 0);
}

static void string_in_out(void) {
  int32_t text;
  ap_writer *w = tile_model(&text);
  heard h;
  TfLiteInterpreter *it = create(w, &h);
  if (!it) {
    ap_writer_destroy(w);
    return;
  }
  TfLiteTensor *in = TfLiteInterpreterGetInputTensor(it, 0);
  const TfLiteTensor *out = TfLiteInterpreterGetOutputTensor(it, 0);
  CHECK(in == TfLiteInterpreterGetTensor(it, text));
  CHECK_EQ(TfLiteTensorType(in), kTfLiteString);
  CHECK_EQ(TfLiteTensorNumDims(in), 1);
  CHECK_EQ(TfLiteTensorDim(in, 0), 2);
  CHECK_STR(TfLiteTensorName(in), "text");
  uint8_t ab[64];
  size_t abn = strings(ab, sizeof ab, (const char *const[]){"a", "bc"}, 2);
  CHECK_EQ(abn, 19);
  heard_reset(&h);
  CHECK(TfLiteTensorCopyFromBuffer(in, ab, abn) == kTfLiteError);
  CHECK_STR(
      h.text,
      "TfLiteTensorCopyFromBuffer: tensor \"text\": call TfLiteInterpreterAllocateTensors first\n");
  CHECK(TfLiteInterpreterAllocateTensors(it) == kTfLiteOk);
  CHECK_EQ(TfLiteTensorByteSize(in), 0);
  CHECK(TfLiteTensorData(in) == NULL);
  heard_reset(&h);
  CHECK(TfLiteInterpreterInvoke(it) == kTfLiteError);
  CHECK_CONTAINS(h.text, "input 0 has no value yet");
  CHECK(TfLiteTensorCopyFromBuffer(in, ab, abn) == kTfLiteOk);
  check_strings(in, (const char *const[]){"a", "bc"}, 2);
  CHECK_MSG(TfLiteInterpreterInvoke(it) == kTfLiteOk, "%s", h.text);
  check_strings(out, (const char *const[]){"a", "bc", "a", "bc"}, 4);
  CHECK_EQ(TfLiteTensorByteSize(out), 30);

  /* Resized to three strings: the count must follow. */
  CHECK(TfLiteInterpreterResizeInputTensor(it, 0, (int[]){3}, 1) == kTfLiteOk);
  CHECK(TfLiteInterpreterAllocateTensors(it) == kTfLiteOk);
  CHECK_EQ(TfLiteTensorDim(in, 0), 3);
  /* The allocate after the resize dropped the old value: nothing stale is run. */
  CHECK_EQ(TfLiteTensorByteSize(in), 0);
  CHECK(TfLiteTensorData(in) == NULL);
  heard_reset(&h);
  CHECK(TfLiteInterpreterInvoke(it) == kTfLiteError);
  CHECK_CONTAINS(h.text, "op 0 (TILE): input 0 has no value yet");
  heard_reset(&h);
  CHECK(TfLiteTensorCopyFromBuffer(in, ab, abn) == kTfLiteError);
  CHECK_STR(h.text, "TfLiteTensorCopyFromBuffer: subgraph 0 tensor 0: string buffer holds 2 "
                    "strings, the tensor has 3 elements\n");
  uint8_t good[64];
  size_t gn = strings(good, sizeof good, (const char *const[]){"x", "", "yz"}, 3);
  CHECK_EQ(gn, 23); /* offsets 20, 21, 21, 23 */
  CHECK(TfLiteTensorCopyFromBuffer(in, good, gn) == kTfLiteOk);
  CHECK_MSG(TfLiteInterpreterInvoke(it) == kTfLiteOk, "%s", h.text);
  check_strings(out, (const char *const[]){"x", "", "yz", "x", "", "yz"}, 6);

  /* Hostile buffers: refused with the runtime's reason, the value kept. */
  static const char pre[] = "TfLiteTensorCopyFromBuffer: subgraph 0 tensor 0: string buffer";
  char want[256];
  uint8_t bad[64];
  memcpy(bad, good, gn);
  put32(bad, 2, 22); /* string 0 ends after string 1's end */
  snprintf(want, sizeof want, "%s: string 1 ends at 21, before its start 22\n", pre);
  refused(in, &h, bad, gn, want, good, gn);
  memcpy(bad, good, gn);
  put32(bad, 4, 99);
  snprintf(want, sizeof want, "%s: string 2 ends at 99, past the buffer's end (23)\n", pre);
  refused(in, &h, bad, gn, want, good, gn);
  memcpy(bad, good, gn);
  put32(bad, 0, -1);
  snprintf(want, sizeof want, "%s: count -1 is negative or overflows\n", pre);
  refused(in, &h, bad, gn, want, good, gn);
  put32(bad, 0, INT32_MAX);
  snprintf(want, sizeof want, "%s holds 2147483647 strings, the tensor has 3 elements\n", pre);
  refused(in, &h, bad, gn, want, good, gn);
  memcpy(bad, good, gn);
  put32(bad, 1, 16);
  snprintf(want, sizeof want, "%s: the first string starts at 16, not after the offsets (20)\n",
           pre);
  refused(in, &h, bad, gn, want, good, gn);
  snprintf(want, sizeof want, "%s: 3 strings need 20 bytes of offsets, the buffer has 12\n", pre);
  refused(in, &h, good, 12, want, good, gn);
  snprintf(want, sizeof want, "%s of 3 bytes: shorter than its 4-byte count\n", pre);
  refused(in, &h, good, 3, want, good, gn);
  refused(in, &h, good, gn + 1, /* a byte past where the strings end */
          "TfLiteTensorCopyFromBuffer: tensor \"text\": the string buffer is 24 bytes, its "
          "strings end at 23\n",
          good, gn);
  refused(in, &h, NULL, gn, "TfLiteTensorCopyFromBuffer: tensor \"text\": the buffer is NULL\n",
          good, gn);
  CHECK_MSG(TfLiteInterpreterInvoke(it) == kTfLiteOk, "%s", h.text);
  check_strings(out, (const char *const[]){"x", "", "yz", "x", "", "yz"}, 6);
  CHECK(TfLiteInterpreterResizeInputTensor(it, 0, (int[]){5}, 1) == kTfLiteOk);
  /* Resized and not allocated again: the tensor keeps its dims and value until the allocate,
   * and neither invoke nor a new value goes through. */
  CHECK_EQ(TfLiteTensorDim(in, 0), 3);
  CHECK_EQ(TfLiteTensorByteSize(in), gn);
  heard_reset(&h);
  CHECK(TfLiteInterpreterInvoke(it) == kTfLiteError);
  CHECK_CONTAINS(h.text, "input 0 (\"text\") was resized");
  heard_reset(&h);
  CHECK(TfLiteTensorCopyFromBuffer(in, good, gn) == kTfLiteError);
  CHECK_STR(
      h.text,
      "TfLiteTensorCopyFromBuffer: tensor \"text\": call TfLiteInterpreterAllocateTensors first\n");
  TfLiteInterpreterDelete(it);
  ap_writer_destroy(w);
}

/* The same through signature runners: "tile" (subgraph 0) and "pick" (subgraph 1). */
static void signatures(void) {
  int32_t text;
  ap_writer *w = tile_model(&text);
  heard h;
  TfLiteInterpreter *it = create(w, &h);
  if (!it) {
    ap_writer_destroy(w);
    return;
  }
  CHECK_EQ(TfLiteInterpreterGetSignatureCount(it), 2);
  TfLiteSignatureRunner *tile = TfLiteInterpreterGetSignatureRunner(it, "tile");
  TfLiteSignatureRunner *pick = TfLiteInterpreterGetSignatureRunner(it, "pick");
  CHECK(tile != NULL && pick != NULL);
  if (!tile || !pick) {
    TfLiteSignatureRunnerDelete(tile);
    TfLiteSignatureRunnerDelete(pick);
    TfLiteInterpreterDelete(it);
    ap_writer_destroy(w);
    return;
  }
  CHECK(TfLiteSignatureRunnerResizeInputTensor(tile, "text", (int[]){1}, 1) == kTfLiteOk);
  CHECK(TfLiteSignatureRunnerAllocateTensors(tile) == kTfLiteOk);
  TfLiteTensor *in = TfLiteSignatureRunnerGetInputTensor(tile, "text");
  uint8_t b[64];
  size_t n = strings(b, sizeof b, (const char *const[]){"hello"}, 1);
  CHECK(TfLiteTensorCopyFromBuffer(in, b, n) == kTfLiteOk);
  CHECK_MSG(TfLiteSignatureRunnerInvoke(tile) == kTfLiteOk, "%s", h.text);
  check_strings(TfLiteSignatureRunnerGetOutputTensor(tile, "tiled"),
                (const char *const[]){"hello", "hello"}, 2);

  CHECK(TfLiteSignatureRunnerAllocateTensors(pick) == kTfLiteOk);
  TfLiteTensor *words = TfLiteSignatureRunnerGetInputTensor(pick, "words");
  CHECK_EQ(TfLiteTensorType(words), kTfLiteString);
  CHECK_EQ(TfLiteTensorDim(words, 0), 3);
  n = strings(b, sizeof b, (const char *const[]){"red", "green", "blue"}, 3);
  uint8_t bad[64];
  memcpy(bad, b, n);
  put32(bad, 4, (int32_t)n + 1);
  heard_reset(&h);
  CHECK(TfLiteTensorCopyFromBuffer(words, bad, n) == kTfLiteError);
  char want[200];
  snprintf(want, sizeof want,
           "TfLiteTensorCopyFromBuffer: subgraph 1 tensor 0: string buffer: string 2 ends at "
           "%zu, past the buffer's end (%zu)\n",
           n + 1, n);
  CHECK_STR(h.text, want);
  CHECK(TfLiteTensorCopyFromBuffer(words, b, n) == kTfLiteOk);
  CHECK_MSG(TfLiteSignatureRunnerInvoke(pick) == kTfLiteOk, "%s", h.text);
  check_strings(TfLiteSignatureRunnerGetOutputTensor(pick, "picked"),
                (const char *const[]){"blue", "red"}, 2);
  TfLiteSignatureRunnerDelete(tile);
  TfLiteSignatureRunnerDelete(pick);
  TfLiteInterpreterDelete(it);
  ap_writer_destroy(w);
}

static ap_options table_options(int32_t id, int key, int value) {
  ap_options o = {.type = 107, .count = 3}; /* HashtableOptions */
  o.fields[0] = (ap_option_field){.id = 0, .kind = AP_OPT_INT32, .i = id};
  o.fields[1] = (ap_option_field){.id = 1, .kind = AP_OPT_INT8, .i = key};
  o.fields[2] = (ap_option_field){.id = 2, .kind = AP_OPT_INT8, .i = value};
  return o;
}

/* int64 -> string: {10: "ten", -5: "minus five", 3: "three"}, default "?". */
static void int_to_string(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  static const int32_t one[] = {1}, three[] = {3}, four[] = {4};
  static const int64_t keys[] = {10, -5, 3};
  uint8_t vb[64], db[16];
  size_t vn = strings(vb, sizeof vb, (const char *const[]){"ten", "minus five", "three"}, 3);
  size_t dn = strings(db, sizeof db, (const char *const[]){"?"}, 1);
  int32_t hd = tensor(w, 0, "table", AP_RESOURCE, one, 1, NULL, 0);
  int32_t k = tensor(w, 0, "keys", AP_INT64, three, 1, keys, 24);
  int32_t v = tensor(w, 0, "values", AP_STRING, three, 1, vb, vn);
  int32_t d = tensor(w, 0, "default", AP_STRING, NULL, 0, db, dn);
  int32_t q = tensor(w, 0, "query", AP_INT64, four, 1, NULL, 0);
  int32_t out = tensor(w, 0, "found", AP_STRING, four, 1, NULL, 0);
  ap_options o = table_options(1, AP_INT64, AP_STRING);
  op(w, 0, OP_HASHTABLE, NULL, 0, &hd, 1, &o);
  op(w, 0, OP_IMPORT, (int32_t[]){hd, k, v}, 3, NULL, 0, NULL);
  op(w, 0, OP_FIND, (int32_t[]){hd, q, d}, 3, &out, 1, NULL);
  CHECK(ap_writer_set_subgraph_io(w, 0, &q, 1, &out, 1) == AP_OK);
  heard h;
  TfLiteInterpreter *it = create(w, &h);
  if (!it) {
    ap_writer_destroy(w);
    return;
  }
  CHECK_MSG(TfLiteInterpreterAllocateTensors(it) == kTfLiteOk, "%s", h.text);
  TfLiteTensor *in = TfLiteInterpreterGetInputTensor(it, 0);
  CHECK_EQ(TfLiteTensorType(in), kTfLiteInt64);
  CHECK(TfLiteTensorCopyFromBuffer(in, (int64_t[]){3, 4, 10, -5}, 32) == kTfLiteOk);
  CHECK_MSG(TfLiteInterpreterInvoke(it) == kTfLiteOk, "%s", h.text);
  const TfLiteTensor *found = TfLiteInterpreterGetOutputTensor(it, 0);
  check_strings(found, (const char *const[]){"three", "?", "ten", "minus five"}, 4);
  CHECK_EQ(TfLiteTensorByteSize(found), 43); /* 4 * 6 + 5 + 1 + 3 + 10 */
  TfLiteInterpreterDelete(it);
  ap_writer_destroy(w);
}

/* string -> int64: {"b": 2, "a": 1, "c": 3}, default -1; the query a string input. */
static void string_to_int(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  static const int32_t one[] = {1}, three[] = {3};
  static const int64_t values[] = {2, 1, 3}, dflt[] = {-1};
  uint8_t kb[64];
  size_t kn = strings(kb, sizeof kb, (const char *const[]){"b", "a", "c"}, 3);
  int32_t hd = tensor(w, 0, "table", AP_RESOURCE, one, 1, NULL, 0);
  int32_t k = tensor(w, 0, "keys", AP_STRING, three, 1, kb, kn);
  int32_t v = tensor(w, 0, "values", AP_INT64, three, 1, values, 24);
  int32_t d = tensor(w, 0, "default", AP_INT64, one, 1, dflt, 8);
  int32_t q = tensor(w, 0, "query", AP_STRING, three, 1, NULL, 0);
  int32_t out = tensor(w, 0, "found", AP_INT64, three, 1, NULL, 0);
  ap_options o = table_options(7, AP_STRING, AP_INT64);
  op(w, 0, OP_HASHTABLE, NULL, 0, &hd, 1, &o);
  op(w, 0, OP_IMPORT, (int32_t[]){hd, k, v}, 3, NULL, 0, NULL);
  op(w, 0, OP_FIND, (int32_t[]){hd, q, d}, 3, &out, 1, NULL);
  CHECK(ap_writer_set_subgraph_io(w, 0, &q, 1, &out, 1) == AP_OK);
  heard h;
  TfLiteInterpreter *it = create(w, &h);
  if (!it) {
    ap_writer_destroy(w);
    return;
  }
  CHECK_MSG(TfLiteInterpreterAllocateTensors(it) == kTfLiteOk, "%s", h.text);
  TfLiteTensor *in = TfLiteInterpreterGetInputTensor(it, 0);
  uint8_t qb[64];
  size_t qn = strings(qb, sizeof qb, (const char *const[]){"a", "zz", "c"}, 3);
  CHECK(TfLiteTensorCopyFromBuffer(in, qb, qn) == kTfLiteOk);
  CHECK_MSG(TfLiteInterpreterInvoke(it) == kTfLiteOk, "%s", h.text);
  const TfLiteTensor *found = TfLiteInterpreterGetOutputTensor(it, 0);
  CHECK_EQ(TfLiteTensorType(found), kTfLiteInt64);
  int64_t got[3] = {0};
  CHECK(TfLiteTensorCopyToBuffer(found, got, sizeof got) == kTfLiteOk);
  CHECK(memcmp(got, (int64_t[]){1, -1, 3}, 24) == 0);
  TfLiteInterpreterDelete(it);
  ap_writer_destroy(w);
}

int main(void) {
  gather_table();
  string_in_out();
  signatures();
  int_to_string();
  string_to_int();
  return ap_test_done();
}
