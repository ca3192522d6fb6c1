/* Hand-built FlatBuffers for what the shared models do not contain: data stored after the
 * flatbuffer (Buffer.offset/size), no subgraphs, bad signature/metadata/subgraph indices in
 * options, and offsets shared so often that a naive verifier would run for hours.
 *
 * The tiny builder lays everything out front to back (every uoffset points forward): a
 * table's vtable, then the table with one 8-byte slot per field. */
#include "arenaplan/model.h"
#include "model/schema_gen.h"
#include "model/verify_fb.h"
#include "test.h"

#include <stdlib.h>
#include <time.h>

typedef struct fbb {
  uint8_t *b;
  size_t n, cap;
} fbb;

static void grow(fbb *w, size_t extra) {
  while (w->n + extra > w->cap) {
    w->cap = w->cap ? 2 * w->cap : 4096;
    w->b = realloc(w->b, w->cap);
  }
}

static size_t put(fbb *w, const void *p, size_t size) {
  grow(w, size);
  size_t at = w->n;
  if (p)
    memcpy(w->b + at, p, size);
  else
    memset(w->b + at, 0, size);
  w->n += size;
  return at;
}

static void pad(fbb *w, size_t align) {
  while (w->n % align)
    put(w, NULL, 1);
}

static void set32(fbb *w, size_t at, uint32_t v) {
  memcpy(w->b + at, &v, 4);
}
static void set64(fbb *w, size_t at, uint64_t v) {
  memcpy(w->b + at, &v, 8);
}
/* Stores at `at` the uoffset to `target` (which lies after it). */
static void ref(fbb *w, size_t at, size_t target) {
  set32(w, at, (uint32_t)(target - at));
}

/* A table with `nf` field slots, present where mask bit i is set. Returns its position; the
 * field for slot i is at table + 8 + 8 * i. */
static size_t table(fbb *w, unsigned nf, uint64_t mask) {
  pad(w, 2);
  size_t vt = w->n;
  uint16_t vsize = (uint16_t)(4 + 2 * nf), tsize = (uint16_t)(8 + 8 * nf);
  put(w, &vsize, 2);
  put(w, &tsize, 2);
  for (unsigned i = 0; i < nf; i++) {
    uint16_t fo = (mask >> i & 1) ? (uint16_t)(8 + 8 * i) : 0;
    put(w, &fo, 2);
  }
  pad(w, 8);
  size_t t = put(w, NULL, tsize);
  set32(w, t, (uint32_t)(t - vt));
  return t;
}

static size_t field(size_t t, unsigned slot) {
  return t + 8 + 8 * slot;
}

static size_t vec32(fbb *w, const uint32_t *v, uint32_t n) {
  pad(w, 4);
  size_t at = put(w, &n, 4);
  for (uint32_t i = 0; i < n; i++)
    put(w, v ? &v[i] : NULL, 4);
  return at;
}

static size_t string(fbb *w, const char *s) {
  uint32_t n = (uint32_t)strlen(s);
  pad(w, 4);
  size_t at = put(w, &n, 4);
  put(w, s, n + 1);
  return at;
}

#define BIT(slot) (1ull << (slot))

typedef struct spec {
  bool no_subgraphs;
  uint64_t ext_offset, ext_size; /* Buffer 1: its data after the flatbuffer (0: the real spot) */
  uint32_t external;             /* tensor 2's Tensor.external_buffer */
  uint32_t sig_subgraph, sig_tensor;
  uint32_t meta_buffer;
  bool with_while; /* op 0 carries WhileOptions{cond 0, body while_body} */
  int32_t while_body;
} spec;

static uint8_t while_type(void) {
  const fb_union_desc *u = &fb_unions[FBU_BuiltinOptions];
  for (uint8_t t = 1; t < u->count; t++)
    if (u->members[t] == FBT_WhileOptions) return t;
  return 0;
}

/* Model: 1 opcode (ADD), 1 subgraph with 3 FLOAT32 [4] tensors (tensor 1 constant in buffer
 * 1, stored after the flatbuffer), op 0: ADD [0,1] -> [2], a signature, a metadata entry. */
static uint8_t *build(const spec *s, size_t *size, size_t *data_at) {
  fbb w = {0};
  put(&w, NULL, 4);
  put(&w, "TFL3", 4);
  uint64_t mask = BIT(FB_Model_version) | BIT(FB_Model_operator_codes) | BIT(FB_Model_buffers) |
                  BIT(FB_Model_signature_defs) | BIT(FB_Model_metadata);
  if (!s->no_subgraphs) mask |= BIT(FB_Model_subgraphs);
  size_t model = table(&w, FB_Model_external_buffers + 1, mask);
  set32(&w, 0, (uint32_t)model);
  set32(&w, field(model, FB_Model_version), 3);

  size_t codes = vec32(&w, NULL, 1);
  ref(&w, field(model, FB_Model_operator_codes), codes);
  size_t oc = table(&w, FB_OperatorCode_builtin_code + 1, BIT(FB_OperatorCode_version));
  ref(&w, codes + 4, oc);
  set32(&w, field(oc, FB_OperatorCode_version), 1);

  size_t bufs = vec32(&w, NULL, 2);
  ref(&w, field(model, FB_Model_buffers), bufs);
  ref(&w, bufs + 4, table(&w, FB_Buffer_size + 1, 0));
  size_t b1 = table(&w, FB_Buffer_size + 1, BIT(FB_Buffer_offset) | BIT(FB_Buffer_size));
  ref(&w, bufs + 8, b1);

  if (!s->no_subgraphs) {
    size_t sgs = vec32(&w, NULL, 1);
    ref(&w, field(model, FB_Model_subgraphs), sgs);
    size_t sg = table(&w, FB_SubGraph_name + 1,
                      BIT(FB_SubGraph_tensors) | BIT(FB_SubGraph_inputs) |
                          BIT(FB_SubGraph_outputs) | BIT(FB_SubGraph_operators));
    ref(&w, sgs + 4, sg);
    size_t tv = vec32(&w, NULL, 3);
    ref(&w, field(sg, FB_SubGraph_tensors), tv);
    for (uint32_t i = 0; i < 3; i++) {
      size_t t = table(&w, FB_Tensor_external_buffer + 1,
                       BIT(FB_Tensor_shape) | BIT(FB_Tensor_type) | BIT(FB_Tensor_buffer) |
                           BIT(FB_Tensor_external_buffer));
      set32(&w, field(t, FB_Tensor_external_buffer), i == 2 ? s->external : 0);
      ref(&w, tv + 4 + 4 * i, t);
      set32(&w, field(t, FB_Tensor_buffer), i == 1);
      uint32_t four = 4;
      ref(&w, field(t, FB_Tensor_shape), vec32(&w, &four, 1));
    }
    uint32_t in[2] = {0, 1}, out[1] = {2};
    ref(&w, field(sg, FB_SubGraph_inputs), vec32(&w, in, 2));
    ref(&w, field(sg, FB_SubGraph_outputs), vec32(&w, out, 1));
    size_t ov = vec32(&w, NULL, 1);
    ref(&w, field(sg, FB_SubGraph_operators), ov);
    uint64_t omask = BIT(FB_Operator_inputs) | BIT(FB_Operator_outputs);
    if (s->with_while)
      omask |= BIT(FB_Operator_builtin_options_type) | BIT(FB_Operator_builtin_options);
    size_t op = table(&w, FB_Operator_builtin_options + 1, omask);
    ref(&w, ov + 4, op);
    ref(&w, field(op, FB_Operator_inputs), vec32(&w, in, 2));
    ref(&w, field(op, FB_Operator_outputs), vec32(&w, out, 1));
    if (s->with_while) {
      w.b[field(op, FB_Operator_builtin_options_type)] = while_type();
      size_t wt = table(&w, 2, 3);
      ref(&w, field(op, FB_Operator_builtin_options), wt);
      set32(&w, field(wt, FB_WhileOptions_body_subgraph_index), (uint32_t)s->while_body);
    }
  }

  size_t sigs = vec32(&w, NULL, 1);
  ref(&w, field(model, FB_Model_signature_defs), sigs);
  size_t sd = table(&w, FB_SignatureDef_subgraph_index + 1,
                    BIT(FB_SignatureDef_inputs) | BIT(FB_SignatureDef_signature_key) |
                        BIT(FB_SignatureDef_subgraph_index));
  ref(&w, sigs + 4, sd);
  set32(&w, field(sd, FB_SignatureDef_subgraph_index), s->sig_subgraph);
  size_t maps = vec32(&w, NULL, 1);
  ref(&w, field(sd, FB_SignatureDef_inputs), maps);
  size_t tm = table(&w, 2, 3);
  ref(&w, maps + 4, tm);
  set32(&w, field(tm, FB_TensorMap_tensor_index), s->sig_tensor);
  ref(&w, field(tm, FB_TensorMap_name), string(&w, "x"));
  ref(&w, field(sd, FB_SignatureDef_signature_key), string(&w, "serving_default"));

  size_t mv = vec32(&w, NULL, 1);
  ref(&w, field(model, FB_Model_metadata), mv);
  size_t md = table(&w, 2, 3);
  ref(&w, mv + 4, md);
  set32(&w, field(md, FB_Metadata_buffer), s->meta_buffer);
  ref(&w, field(md, FB_Metadata_name), string(&w, "meta"));

  /* The constant's 16 bytes after the flatbuffer, as models over 2 GB store them. */
  pad(&w, 16);
  size_t data = put(&w, NULL, 16);
  for (int i = 0; i < 16; i++)
    w.b[data + (size_t)i] = (uint8_t)(i + 1);
  set64(&w, field(b1, FB_Buffer_offset), s->ext_offset ? s->ext_offset : data);
  set64(&w, field(b1, FB_Buffer_size), s->ext_size ? s->ext_size : 16);
  *size = w.n;
  *data_at = data;
  return w.b;
}

/* Loads a crafted model; returns its message ("" when it loaded) and keeps it in *out. */
static const char *load(const spec *s, ap_model **out, uint8_t **bytes, size_t *size,
                        size_t *data_at) {
  static char msg[600];
  *bytes = build(s, size, data_at);
  ap_model *m = NULL;
  ap_status st = ap_model_from_buffer(*bytes, *size, "m", NULL, &m);
  snprintf(msg, sizeof msg, "%s", st == AP_OK ? "" : ap_model_error(m));
  *out = m;
  return msg;
}

static void check_msg(spec s, const char *want) {
  ap_model *m;
  uint8_t *b;
  size_t size, data_at;
  CHECK_STR(load(&s, &m, &b, &size, &data_at), want);
  ap_model_destroy(m);
  free(b);
}

static const spec base = {0};

static void external_buffers(void) {
  ap_model *m;
  uint8_t *b;
  size_t size, data_at, n;
  spec s = base;
  CHECK_STR(load(&s, &m, &b, &size, &data_at), "");
  ap_tensor_info t;
  CHECK(ap_model_tensor(m, 0, 1, &t) == AP_OK && t.is_constant && t.bytes == 16);
  CHECK(ap_model_buffer(m, 1, &n) == b + data_at && n == 16);
  CHECK(ap_model_buffer(m, 0, &n) == NULL && n == 0);
  CHECK(ap_model_tensor(m, 0, 0, &t) == AP_OK && !t.is_constant && t.buffer == 0);
  ap_signature_info sig;
  CHECK(ap_model_signature(m, 0, &sig) == AP_OK && strcmp(sig.key, "serving_default") == 0);
  ap_metadata_info md;
  CHECK(ap_model_metadata(m, 0, &md) == AP_OK && strcmp(md.name, "meta") == 0);
  ap_model_destroy(m);
  free(b);

  /* The file's size is the same for every spec: measure it once. */
  char want[300];
  s.ext_offset = size - 8;
  snprintf(want, sizeof want,
           "m: buffer 1: data at offset %zu (16 bytes) lies outside the file (%zu bytes)", size - 8,
           size);
  check_msg(s, want);
  s.ext_offset = UINT64_MAX - 4; /* offset + size wraps around */
  snprintf(want, sizeof want,
           "m: buffer 1: data at offset %llu (16 bytes) lies outside the file (%zu bytes)",
           (unsigned long long)(UINT64_MAX - 4), size);
  check_msg(s, want);
  s = base;
  s.ext_size = 8;
  check_msg(s, "m: subgraph 0 tensor 1: constant buffer 1 holds 8 bytes, the tensor needs 16");
  /* Offsets 0 and 1 do not name data (schema: "only valid if > 1"). */
  s = base;
  s.ext_offset = 1;
  CHECK_STR(load(&s, &m, &b, &size, &data_at), "");
  CHECK(ap_model_tensor(m, 0, 1, &t) == AP_OK && !t.is_constant);
  ap_model_destroy(m);
  free(b);
}

static void bad_indices(void) {
  spec s = base;
  s.no_subgraphs = true;
  check_msg(s, "m: model has no subgraphs");
  s = base;
  s.sig_subgraph = 5;
  check_msg(s, "m: signature 0: subgraph index 5 out of range (model has 1 subgraphs)");
  s = base;
  s.sig_tensor = 3;
  check_msg(s, "m: signature 0: input 0 is tensor 3, out of range (subgraph 0 has 3 tensors)");
  s = base;
  s.external = 1;
  check_msg(s, "m: subgraph 0 tensor 2: data in external buffer 1 (another file) is not "
               "supported");
  s = base;
  s.meta_buffer = 2;
  check_msg(s, "m: metadata 0: buffer index 2 out of range (model has 2 buffers)");
  s = base;
  s.with_while = true;
  check_msg(s, "");
  s.while_body = 1;
  check_msg(s, "m: subgraph 0 operator 0: WhileOptions.body_subgraph_index 1 out of range "
               "(model has 1 subgraphs)");
  s.while_body = -7;
  check_msg(s, "m: subgraph 0 operator 0: WhileOptions.body_subgraph_index -7 out of range "
               "(model has 1 subgraphs)");
}

/* 200,000 tensors that are all the same table, whose shape has 2,000 dims: 0.8 MB of file,
 * 4 * 10^8 dims to check if each reference were walked in full. */
static void shared_offsets(void) {
  fbb w = {0};
  put(&w, NULL, 4);
  put(&w, "TFL3", 4);
  size_t model = table(&w, FB_Model_subgraphs + 1, BIT(FB_Model_subgraphs));
  set32(&w, 0, (uint32_t)model);
  size_t sgs = vec32(&w, NULL, 1);
  ref(&w, field(model, FB_Model_subgraphs), sgs);
  size_t sg = table(&w, FB_SubGraph_tensors + 1, BIT(FB_SubGraph_tensors));
  ref(&w, sgs + 4, sg);
  const uint32_t n = 200000;
  size_t tv = vec32(&w, NULL, n);
  ref(&w, field(sg, FB_SubGraph_tensors), tv);
  size_t t = table(&w, FB_Tensor_shape + 1, BIT(FB_Tensor_shape));
  size_t shape = vec32(&w, NULL, 2000);
  for (uint32_t k = 0; k < 2000; k++)
    set32(&w, shape + 4 + 4 * k, 1);
  ref(&w, field(t, FB_Tensor_shape), shape);
  for (uint32_t i = 0; i < n; i++)
    ref(&w, tv + 4 + 4 * i, t);
  ap_model *m;
  clock_t start = clock();
  CHECK_EQ(ap_model_from_buffer(w.b, w.n, "m", NULL, &m), AP_ERR_FORMAT);
  double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
  char want[300];
  snprintf(want, sizeof want,
           "m: the file reuses its tables or vectors too often (verification work over %zu for "
           "%zu bytes): shared or looping offsets",
           w.n / 2 + 65536, w.n);
  CHECK_STR(ap_model_error(m), want);
  CHECK_MSG(seconds < 1.0, "refusing took %.2f s", seconds);
  ap_model_destroy(m);
  free(w.b);
}

/* The schema has no recursive table, so no file nests deeper than 5 tables; the limit is
 * checked by starting the verifier just under it. */
static void depth_limit(void) {
  ap_model *m;
  uint8_t *b;
  size_t size, data_at;
  spec s = base;
  CHECK_STR(load(&s, &m, &b, &size, &data_at), "");
  ap_model_destroy(m);
  fb_verifier v;
  uint32_t root;
  memcpy(&root, b, 4);
  fb_verifier_init(&v, b, size);
  v.depth = FB_MAX_DEPTH - 2; /* Model and SubGraph fit, Tensor does not */
  CHECK(!fb_verify_table(&v, root, FBT_Model));
  CHECK_STR(v.msg, "subgraphs[0].tensors[0]: tables nested deeper than 32");
  fb_verifier_init(&v, b, size);
  CHECK(fb_verify_table(&v, root, FBT_Model));
  free(b);
}

int main(void) {
  external_buffers();
  bad_indices();
  shared_offsets();
  depth_limit();
  return ap_test_done();
}
