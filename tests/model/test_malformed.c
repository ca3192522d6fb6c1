/* Hostile input: every shared model truncated at 64 lengths, 1,000 seeded random byte
 * overwrites and 250 overwrites of a 4-byte word with an edge value (0, -1, 2^31, ...) each,
 * and targeted corruptions with exact messages. Each load must fail with a
 * message or give a model whose every accessor this test walks stays inside the bytes (the
 * ASan+UBSan build proves it: every load reads from an exact-size heap copy).
 *
 * The random overwrites hit the FlatBuffers structure, not the contents of constant buffers
 * (weights): a weight byte changes no offset, size or index, and in the 4 MB models weights are
 * 95% of the bytes, so overwriting them would test almost nothing. */
#include "arenaplan/model.h"
#include "arenaplan/options.h"
#include "model/flatbuf.h"
#include "model/schema_gen.h"
#include "test.h"

#include <stdlib.h>

#define MAX_MODELS 64
#define TRUNCATIONS 64
#define OVERWRITES 1000
#define WORD_OVERWRITES 250

static volatile uint64_t sink; /* keeps the walk's reads from being optimised away */
static size_t walk_errors;

#define WALK_CHECK(cond)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      if (walk_errors++ < 5) fprintf(stderr, "walk: %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
    }                                                                                              \
  } while (0)

static void touch(const void *p, size_t n) {
  if (!p || !n) return;
  const uint8_t *b = p;
  sink += b[0] + b[n - 1];
}

static void touch_str(const char *s) {
  if (s) sink += strlen(s);
}

static void touch_ivec(ap_ivec v) {
  WALK_CHECK(v.n == 0 || v.v != NULL);
  for (size_t i = 0; i < v.n; i++)
    sink += (uint32_t)v.v[i];
}

static void walk_options(const ap_model *m, size_t sg, size_t i) {
  ap_op_options o;
  if (ap_model_op_options(m, sg, i, &o) == AP_OK) {
    if (o.kind == AP_OPTIONS_RESHAPE) touch_ivec(o.reshape.new_shape);
    if (o.kind == AP_OPTIONS_SQUEEZE) touch_ivec(o.squeeze.squeeze_dims);
    if (o.kind == AP_OPTIONS_VAR_HANDLE) {
      touch_str(o.var_handle.container);
      touch_str(o.var_handle.shared_name);
    }
    if (o.kind == AP_OPTIONS_WHILE)
      WALK_CHECK(o.while_op.cond_subgraph >= 0 &&
                 (size_t)o.while_op.cond_subgraph < ap_model_subgraph_count(m) &&
                 o.while_op.body_subgraph >= 0 &&
                 (size_t)o.while_op.body_subgraph < ap_model_subgraph_count(m));
    if (o.kind == AP_OPTIONS_CALL_ONCE)
      WALK_CHECK(o.call_once.init_subgraph >= 0 &&
                 (size_t)o.call_once.init_subgraph < ap_model_subgraph_count(m));
  }
  for (int which = 1; which <= 2; which++) {
    ap_raw_field raw;
    /* No options table has 64 fields; an unknown table type answers UNSUPPORTED to all. */
    for (unsigned field = 0; field < 64; field++) {
      ap_status s = ap_model_op_raw_option(m, sg, i, which, field, &raw);
      if (s == AP_ERR_RANGE || (s == AP_OK && !raw.table_type)) break;
      if (s == AP_OK) touch(raw.data, raw.size);
    }
  }
}

/* Reads everything a verified model offers and checks what the verifier promised. */
static void walk(const ap_model *m) {
  size_t size, nbuf = ap_model_buffer_count(m);
  touch_str(ap_model_description(m));
  sink += ap_model_version(m);
  size_t total;
  const uint8_t *bytes = ap_model_bytes(m, &total);
  for (size_t i = 0; i < nbuf; i++) {
    const uint8_t *d = ap_model_buffer(m, i, &size);
    WALK_CHECK(!d || (d >= bytes && size <= total && (size_t)(d - bytes) <= total - size));
    touch(d, size);
  }
  for (size_t i = 0; i < ap_model_opcode_count(m); i++) {
    ap_opcode_info oc;
    WALK_CHECK(ap_model_opcode(m, i, &oc) == AP_OK);
    touch_str(oc.custom);
    touch_str(ap_builtin_name(oc.builtin));
  }
  for (size_t i = 0; i < ap_model_metadata_count(m); i++) {
    ap_metadata_info md;
    WALK_CHECK(ap_model_metadata(m, i, &md) == AP_OK && md.buffer < nbuf);
    touch_str(md.name);
  }
  for (size_t i = 0; i < ap_model_signature_count(m); i++) {
    ap_signature_info s;
    ap_tensor_map tm;
    WALK_CHECK(ap_model_signature(m, i, &s) == AP_OK);
    WALK_CHECK(s.subgraph < ap_model_subgraph_count(m));
    touch_str(s.key);
    for (size_t k = 0; k < s.input_count; k++) {
      WALK_CHECK(ap_model_signature_input(m, i, k, &tm) == AP_OK);
      WALK_CHECK(tm.tensor < ap_model_tensor_count(m, s.subgraph));
      touch_str(tm.name);
    }
    for (size_t k = 0; k < s.output_count; k++) {
      WALK_CHECK(ap_model_signature_output(m, i, k, &tm) == AP_OK);
      WALK_CHECK(tm.tensor < ap_model_tensor_count(m, s.subgraph));
      touch_str(tm.name);
    }
  }
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++) {
    size_t nt = ap_model_tensor_count(m, sg);
    touch_str(ap_model_subgraph_name(m, sg));
    ap_ivec io[2] = {ap_model_subgraph_inputs(m, sg), ap_model_subgraph_outputs(m, sg)};
    for (int k = 0; k < 2; k++) {
      touch_ivec(io[k]);
      for (size_t i = 0; i < io[k].n; i++)
        WALK_CHECK(io[k].v[i] >= 0 && (size_t)io[k].v[i] < nt);
    }
    for (size_t i = 0; i < nt; i++) {
      ap_tensor_info t;
      WALK_CHECK(ap_model_tensor(m, sg, i, &t) == AP_OK);
      touch_str(t.name);
      touch_ivec(t.shape);
      touch_ivec(t.shape_signature);
      WALK_CHECK(t.buffer == 0 || t.buffer < nbuf);
      WALK_CHECK(t.type >= 0 && t.type < AP_DTYPE_COUNT);
      for (size_t k = 0; k < t.shape.n; k++)
        WALK_CHECK(t.shape.v[k] >= 0);
      for (size_t k = 0; k < t.scale_count; k++)
        sink += (uint64_t)(t.scale[k] != 0);
      for (size_t k = 0; k < t.zero_point_count; k++)
        sink += (uint64_t)t.zero_point[k];
      if (t.is_constant && t.bytes) {
        const uint8_t *d = ap_model_buffer(m, t.buffer, &size);
        WALK_CHECK(d != NULL && size >= t.bytes);
        touch(d, t.bytes);
      }
    }
    for (size_t i = 0; i < ap_model_op_count(m, sg); i++) {
      ap_op_info op;
      WALK_CHECK(ap_model_op(m, sg, i, &op) == AP_OK);
      WALK_CHECK(op.opcode_index < ap_model_opcode_count(m));
      touch_ivec(op.inputs);
      touch_ivec(op.outputs);
      touch_ivec(op.intermediates);
      touch(op.custom_options, op.custom_options_size);
      walk_options(m, sg, i);
      for (size_t k = 0; k < op.inputs.n; k++)
        WALK_CHECK(op.inputs.v[k] == -1 || (op.inputs.v[k] >= 0 && (size_t)op.inputs.v[k] < nt));
      for (size_t k = 0; k < op.outputs.n; k++)
        WALK_CHECK(op.outputs.v[k] >= 0 && (size_t)op.outputs.v[k] < nt);
      for (size_t k = 0; k < op.intermediates.n; k++)
        WALK_CHECK(op.intermediates.v[k] >= 0 && (size_t)op.intermediates.v[k] < nt);
    }
  }
}

/* Loads b[0..n) from an exact-size copy; returns AP_OK or the failure (message checked). */
static ap_status load_copy(const uint8_t *b, size_t n, const char *name, size_t *ok, size_t *failed,
                           char *msg, size_t msg_size) {
  uint8_t *copy = malloc(n ? n : 1);
  if (!copy) return AP_ERR_NOMEM;
  memcpy(copy, b, n);
  ap_model *m = NULL;
  ap_status s = ap_model_from_buffer(copy, n, name, NULL, &m);
  if (s == AP_OK) {
    walk(m);
    (*ok)++;
  } else {
    (*failed)++;
    if (m && ap_model_error(m)[0] == '\0') walk_errors++;
  }
  if (msg) snprintf(msg, msg_size, "%s", m ? ap_model_error(m) : "");
  ap_model_destroy(m);
  free(copy);
  return s;
}

static void load_in_place(const uint8_t *b, size_t size, const char *name, size_t *ok,
                          size_t *failed) {
  ap_model *m = NULL;
  if (ap_model_from_buffer(b, size, name, NULL, &m) == AP_OK) {
    walk(m);
    (*ok)++;
  } else {
    (*failed)++;
    if (ap_model_error(m)[0] == '\0') walk_errors++;
  }
  ap_model_destroy(m);
}

/* Marks the bytes that belong to constant-buffer contents. */
static void mark_weights(const uint8_t *b, size_t size, uint8_t *is_weight) {
  ap_model *m;
  memset(is_weight, 0, size);
  CHECK(ap_model_from_buffer(b, size, "weights", NULL, &m) == AP_OK);
  for (size_t i = 0; i < ap_model_buffer_count(m); i++) {
    size_t n;
    const uint8_t *d = ap_model_buffer(m, i, &n);
    if (d) memset(is_weight + (d - b), 1, n);
  }
  ap_model_destroy(m);
}

static void fuzz_model(const char *name) {
  char path[4096];
  size_t size;
  uint8_t *file = ap_test_read_file(ap_test_path(path, sizeof path, "models/%s", name), &size);
  CHECK_MSG(file != NULL, "cannot read %s", name);
  if (!file) return;
  uint8_t *is_weight = malloc(size), *work = malloc(size);
  size_t *spots = malloc(size * sizeof *spots), nspots = 0;
  if (!is_weight || !work || !spots) {
    CHECK(false);
    free(is_weight), free(work), free(spots), free(file);
    return;
  }
  mark_weights(file, size, is_weight);

  /* Truncations: each fails with a message, or loads and walks cleanly (bytes past the last
   * one the model references may be cut: mobilenet_v1 carries a zip of labels there). */
  size_t ok = 0, failed = 0;
  walk_errors = 0;
  for (size_t k = 0; k < TRUNCATIONS; k++)
    load_copy(file, size * k / TRUNCATIONS, name, &ok, &failed, NULL, 0);
  CHECK_EQ(ok + failed, TRUNCATIONS);
  CHECK(failed >= 1);
  size_t tok = ok, tfailed = failed;

  /* Overwrites, in place on one exact-size copy, each undone after its load. */
  for (size_t i = 0; i < size; i++)
    if (!is_weight[i]) spots[nspots++] = i;
  memcpy(work, file, size);
  uint64_t seed = 0x5EED0000u + size;
  size_t rok = 0, rfailed = 0;
  for (int i = 0; i < OVERWRITES; i++) {
    size_t at = spots[ap_test_rand(&seed) % nspots];
    uint8_t old = work[at];
    work[at] = (uint8_t)ap_test_rand(&seed);
    load_in_place(work, size, name, &rok, &rfailed);
    work[at] = old;
  }
  /* Then whole 4-byte words (offsets, lengths, indices, dims) set to edge values. */
  static const uint32_t edges[] = {0,          1,          2,          3,          4,
                                   0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 0x40000000,
                                   0x0000FFFF, 0x00010000, 0x7FFFFFFC};
  size_t wok = 0, wfailed = 0;
  for (int i = 0; i < WORD_OVERWRITES; i++) {
    size_t at = spots[ap_test_rand(&seed) % nspots] & ~(size_t)3;
    if (at + 4 > size) continue;
    uint32_t old, v = edges[ap_test_rand(&seed) % (sizeof edges / sizeof edges[0])];
    memcpy(&old, work + at, 4);
    memcpy(work + at, &v, 4);
    load_in_place(work, size, name, &wok, &wfailed);
    memcpy(work + at, &old, 4);
  }
  CHECK_MSG(walk_errors == 0, "%s: %zu broken promises or empty messages", name, walk_errors);
  CHECK_EQ(rok + rfailed, OVERWRITES);
  printf("%-34s %7zu B %6zu non-weight | cut %2zu ok %2zu no | byte %3zu ok %3zu no | word %3zu "
         "ok %3zu no\n",
         name, size, nspots, tok, tfailed, rok, rfailed, wok, wfailed);
  free(spots);
  free(is_weight);
  free(work);
  free(file);
}

/* --- targeted corruptions of micro_speech_int8.tflite ------------------------------------ */

static uint8_t *model_bytes;
static size_t model_size;

static void put_u32(uint8_t *b, size_t at, uint32_t v) {
  memcpy(b + at, &v, 4);
}

/* Loads a corrupted copy and returns the message ("" when it loaded). */
static const char *try_load(uint8_t *b, size_t size) {
  static char msg[600];
  size_t ok = 0, failed = 0;
  walk_errors = 0;
  ap_status s = load_copy(b, size, "m.tflite", &ok, &failed, msg, sizeof msg);
  CHECK_EQ(walk_errors, 0);
  if (s == AP_OK) msg[0] = '\0';
  return msg;
}

typedef struct pos {
  uint8_t *b;
  size_t root, sg, tensors_vec, ops_vec;
} pos;

static pos fresh(void) {
  static uint8_t *b;
  free(b);
  b = malloc(model_size);
  memcpy(b, model_bytes, model_size);
  pos p = {b, fb_u32(b, 0), 0, 0, 0};
  p.sg = fb_vec_ref(b, fb_vector(b, p.root, FB_Model_subgraphs), 0);
  p.tensors_vec = fb_vector(b, p.sg, FB_SubGraph_tensors).pos;
  p.ops_vec = fb_vector(b, p.sg, FB_SubGraph_operators).pos;
  return p;
}

static size_t tensor(pos p, size_t i) {
  return fb_deref(p.b, p.tensors_vec + 4 + 4 * i);
}
static size_t op(pos p, size_t i) {
  return fb_deref(p.b, p.ops_vec + 4 + 4 * i);
}

static void targeted(void) {
  char path[4096], want[600];
  model_bytes = ap_test_read_file(
      ap_test_path(path, sizeof path, "models/micro_speech_int8.tflite"), &model_size);
  CHECK(model_bytes != NULL);
  if (!model_bytes) return;
  pos p = fresh();
  CHECK_STR(try_load(p.b, model_size), "");

  /* Header. */
  p = fresh();
  put_u32(p.b, 0, 0xFFFFFFF0u);
  snprintf(want, sizeof want, "m.tflite: truncated: file is %zu bytes, root table offset %u",
           model_size, 0xFFFFFFF0u);
  CHECK_STR(try_load(p.b, model_size), want);
  snprintf(want, sizeof want, "m.tflite: truncated: file is %zu bytes, root table offset %zu",
           p.root, p.root);
  p = fresh();
  CHECK_STR(try_load(p.b, p.root), want);
  p = fresh();
  CHECK_STR(try_load(p.b, 100), "m.tflite: operator_codes: offset at 40 points to 18708, past "
                                "the end of the file (100 bytes)");
  p = fresh();
  memcpy(p.b + 4, "TFL2", 4);
  CHECK_STR(try_load(p.b, model_size),
            "m.tflite: not a TFLite model: file identifier is \"TFL2\", expected \"TFL3\"");
  CHECK_STR(try_load((uint8_t *)"hello, this is plain text\n", 26),
            "m.tflite: not a FlatBuffer: root table offset 1819043176 is outside the file (file "
            "is 26 bytes), file identifier \"o, t\" (a TFLite model has \"TFL3\")");
  CHECK_STR(try_load((uint8_t *)"TFL3", 4),
            "m.tflite: not a TFLite model: file is 4 bytes, smaller than a FlatBuffer header (8 "
            "bytes)");

  /* vtable offsets. */
  p = fresh();
  put_u32(p.b, p.root, 0x80000000u); /* soffset INT32_MIN: vtable far past the end */
  snprintf(want, sizeof want,
           "m.tflite: Model table at offset %zu: vtable at %lld is outside the file (%zu bytes)",
           p.root, (long long)p.root + 0x80000000ll, model_size);
  CHECK_STR(try_load(p.b, model_size), want);
  p = fresh();
  put_u32(p.b, p.root, (uint32_t)fb_i32(p.b, p.root) + 1);
  CHECK_CONTAINS(try_load(p.b, model_size), "is not 2-byte aligned");
  p = fresh();
  { /* Model.subgraphs' vtable entry pointing past the table's end. */
    size_t vt = fb_vtable(p.b, p.root);
    uint16_t far = 0xFFF0;
    memcpy(p.b + vt + 4 + 2 * FB_Model_subgraphs, &far, 2);
    CHECK_CONTAINS(try_load(p.b, model_size),
                   "m.tflite: subgraphs: field at table offset 65520 (4 bytes) runs past the Model "
                   "table's");
  }

  /* Vector lengths near 2^31. */
  p = fresh();
  put_u32(p.b, p.tensors_vec, 0x7FFFFFF0u);
  snprintf(want, sizeof want,
           "m.tflite: subgraphs[0].tensors: vector at offset %zu of 2147483632 items x 4 bytes "
           "runs past the end of the file (%zu bytes)",
           p.tensors_vec, model_size);
  CHECK_STR(try_load(p.b, model_size), want);
  p = fresh();
  size_t shape = fb_vector(p.b, tensor(p, 2), FB_Tensor_shape).pos;
  put_u32(p.b, shape, 0x80000001u);
  snprintf(want, sizeof want,
           "m.tflite: subgraphs[0].tensors[2].shape: vector at offset %zu of 2147483649 items x 4 "
           "bytes runs past the end of the file (%zu bytes)",
           shape, model_size);
  CHECK_STR(try_load(p.b, model_size), want);
  p = fresh();
  size_t name = fb_deref(p.b, fb_field(p.b, tensor(p, 3), FB_Tensor_name));
  uint32_t len = fb_u32(p.b, name);
  p.b[name + 4 + len] = 'x';
  snprintf(want, sizeof want,
           "m.tflite: subgraphs[0].tensors[3].name: string at offset %zu (%u bytes) is not "
           "NUL-terminated",
           name, len);
  CHECK_STR(try_load(p.b, model_size), want);

  /* Indices out of range (micro_speech: 10 tensors, 12 buffers, 4 operator codes). */
  p = fresh();
  put_u32(p.b, fb_field(p.b, tensor(p, 7), FB_Tensor_buffer), 99);
  CHECK_STR(try_load(p.b, model_size),
            "m.tflite: subgraph 0 tensor 7: buffer index 99 out of range (model has 12 buffers)");
  p = fresh();
  put_u32(p.b, fb_field(p.b, op(p, 2), FB_Operator_opcode_index), 77);
  CHECK_STR(try_load(p.b, model_size), "m.tflite: subgraph 0 operator 2: opcode index 77 out of "
                                       "range (model has 4 operator codes)");
  p = fresh();
  size_t inputs = fb_vector(p.b, op(p, 1), FB_Operator_inputs).pos;
  put_u32(p.b, inputs + 4 + 4, 5000);
  CHECK_STR(try_load(p.b, model_size), "m.tflite: subgraph 0 operator 1: input 1 is tensor 5000, "
                                       "out of range (subgraph has 10 tensors)");
  p = fresh();
  put_u32(p.b, inputs + 4 + 8, (uint32_t)-1); /* optional input: valid */
  CHECK_STR(try_load(p.b, model_size), "");
  p = fresh();
  put_u32(p.b, fb_vector(p.b, op(p, 3), FB_Operator_outputs).pos + 4, (uint32_t)-1);
  CHECK_STR(try_load(p.b, model_size), "m.tflite: subgraph 0 operator 3: output 0 is tensor -1, "
                                       "out of range (subgraph has 10 tensors)");
  p = fresh();
  put_u32(p.b, fb_vector(p.b, p.sg, FB_SubGraph_inputs).pos + 4, 10);
  CHECK_STR(try_load(p.b, model_size),
            "m.tflite: subgraph 0: input 0 is tensor 10, out of range (subgraph has 10 tensors)");
  p = fresh();
  p.b[fb_field(p.b, tensor(p, 2), FB_Tensor_type)] = 50;
  CHECK_STR(try_load(p.b, model_size),
            "m.tflite: subgraph 0 tensor 2: unknown type 50 (known types are 0..22)");

  /* Dims: negative, and huge ones whose product overflows. Tensor 2 is INT8 [1,25,20,8]. */
  p = fresh();
  put_u32(p.b, shape + 4 + 4, (uint32_t)-3);
  CHECK_STR(try_load(p.b, model_size), "m.tflite: subgraph 0 tensor 2: shape dim 1 is -3 (must be "
                                       ">= 0; -1 belongs in shape_signature)");
  p = fresh();
  for (int k = 0; k < 4; k++)
    put_u32(p.b, shape + 4 + 4 * (size_t)k, 0x7FFFFFFFu);
  CHECK_STR(try_load(p.b, model_size),
            "m.tflite: subgraph 0 tensor 2: byte size overflows (4 dims, INT8)");
  /* A constant larger than its data: tensor 7 is INT8 [4,4000] in buffer 2 (16000 bytes). */
  p = fresh();
  put_u32(p.b, fb_vector(p.b, tensor(p, 7), FB_Tensor_shape).pos + 4, 5);
  CHECK_STR(try_load(p.b, model_size), "m.tflite: subgraph 0 tensor 7: constant buffer 2 holds "
                                       "16000 bytes, the tensor needs 20000");

  /* Unions: an unknown options type is never read, so it is no error. */
  p = fresh();
  p.b[fb_field(p.b, op(p, 1), FB_Operator_builtin_options_type)] = 250;
  CHECK_STR(try_load(p.b, model_size), "");
  free(p.b);
  free(model_bytes);
}

int main(void) {
  ap_test_require_shared();
  char names[MAX_MODELS][64];
  size_t n = ap_test_models(names, MAX_MODELS);
  CHECK(n > 0);
  targeted();
  for (size_t i = 0; i < n; i++)
    fuzz_model(names[i]);
  printf("sink %llu\n", (unsigned long long)(sink & 1));
  return ap_test_done();
}
