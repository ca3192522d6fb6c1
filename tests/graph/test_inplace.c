/* In-place sharing in the graph layer (ap_graph_options.inplace), on a crafted model where
 * each rule can be worked out by hand, and TFLite's ArenaPlanner numbers on real models. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

static const int32_t vec8[] = {1, 8};
static const int32_t flat8[] = {8};

static int32_t tensor(ap_writer *w, const char *name, const int32_t *shape, size_t rank,
                      uint32_t buffer, int type) {
  int32_t idx = -1;
  ap_writer_tensor t = {.name = name, .type = type, .shape = shape, .rank = rank, .buffer = buffer};
  CHECK_MSG(ap_writer_add_tensor(w, 0, &t, &idx) == AP_OK, "%s", ap_writer_error(w));
  return idx;
}

static void op(ap_writer *w, int32_t builtin, const int32_t *in, size_t nin, int32_t out) {
  uint32_t code;
  CHECK(ap_writer_add_opcode(w, builtin, 1, &code) == AP_OK);
  ap_writer_op x = {
      .opcode = code, .inputs = in, .input_count = nin, .outputs = &out, .output_count = 1};
  CHECK_MSG(ap_writer_add_op(w, 0, &x, NULL) == AP_OK, "%s", ap_writer_error(w));
}

/* step 0  a = ADD(x, c)     x is the graph input: never shared
 * step 1  b = RELU(a)       a is read again at step 4: b may not write over it
 * step 2  r = RESHAPE(b, s) a view: r shares b
 * step 3  m = MUL(r, r)     nothing reads b or r after step 3: m writes over them
 * step 4  y = SUB(m, a)     y is the graph output: never shared
 * All five data tensors are 32 bytes (8 floats). */
enum { X, C, S, A, B, R, M, Y };
static ap_model *crafted(uint8_t **keep) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  static const float zeros[8];
  static const int32_t shape[] = {8};
  uint32_t cbuf, sbuf;
  CHECK(ap_writer_add_buffer(w, zeros, sizeof zeros, &cbuf) == AP_OK);
  CHECK(ap_writer_add_buffer(w, shape, sizeof shape, &sbuf) == AP_OK);
  static const int32_t one[] = {1};
  CHECK_EQ(tensor(w, "x", vec8, 2, 0, AP_FLOAT32), X);
  CHECK_EQ(tensor(w, "c", vec8, 2, cbuf, AP_FLOAT32), C);
  CHECK_EQ(tensor(w, "s", one, 1, sbuf, AP_INT32), S);
  CHECK_EQ(tensor(w, "a", vec8, 2, 0, AP_FLOAT32), A);
  CHECK_EQ(tensor(w, "b", vec8, 2, 0, AP_FLOAT32), B);
  CHECK_EQ(tensor(w, "r", flat8, 1, 0, AP_FLOAT32), R);
  CHECK_EQ(tensor(w, "m", flat8, 1, 0, AP_FLOAT32), M);
  CHECK_EQ(tensor(w, "y", vec8, 2, 0, AP_FLOAT32), Y);
  op(w, 0, (int32_t[]){X, C}, 2, A);
  op(w, 19, (int32_t[]){A}, 1, B);
  op(w, 22, (int32_t[]){B, S}, 2, R);
  op(w, 18, (int32_t[]){R, R}, 2, M);
  op(w, 41, (int32_t[]){M, A}, 2, Y);
  CHECK(ap_writer_set_subgraph_io(w, 0, (int32_t[]){X}, 1, (int32_t[]){Y}, 1) == AP_OK);
  const uint8_t *bytes;
  size_t size;
  CHECK(ap_writer_finish(w, &bytes, &size) == AP_OK);
  *keep = malloc(size);
  memcpy(*keep, bytes, size);
  ap_writer_destroy(w);
  ap_model *m = NULL;
  CHECK_MSG(ap_model_from_buffer(*keep, size, "inplace.tflite", NULL, &m) == AP_OK, "%s",
            ap_model_error(m));
  return m;
}

static void expect_root(const ap_graph *g, uint64_t t, int64_t want) {
  uint64_t root = UINT64_MAX;
  bool shares = ap_graph_shares(g, t, &root);
  CHECK_MSG(shares == (want >= 0), "tensor %llu: shares %d, expected %d", (unsigned long long)t,
            shares, want >= 0);
  if (want >= 0) CHECK_EQ(root, (uint64_t)want);
}

/* The problem's requests as "id:first-last" in order. */
static void expect_requests(const ap_graph *g, const char *want) {
  ap_problem *p;
  CHECK(ap_graph_problem(g, -1, 16, &p) == AP_OK);
  char got[256] = "";
  for (size_t i = 0; p && i < ap_problem_count(p); i++) {
    const ap_request *r = &ap_problem_requests(p)[i];
    CHECK_EQ(r->size, 32);
    snprintf(got + strlen(got), sizeof got - strlen(got), "%s%llu:%d-%d", i ? " " : "",
             (unsigned long long)r->id, r->first, r->last);
  }
  CHECK_STR(got, want);
  ap_problem_destroy(p);
}

static void crafted_rules(void) {
  uint8_t *keep = NULL;
  ap_model *m = crafted(&keep);
  ap_graph *g;
  /* Ours: r joins b (view), m joins b's group (it dies at step 3; MUL reads r twice, which is
   * the same tensor). The group lives from b's step 1 to m's last read at step 4. */
  CHECK(ap_graph_create(m, &(ap_graph_options){.inplace = true}, NULL, &g) == AP_OK);
  expect_root(g, A, -1);
  expect_root(g, B, -1);
  expect_root(g, R, B);
  expect_root(g, M, B);
  expect_root(g, Y, -1);
  expect_requests(g, "0:0-0 3:0-4 4:1-4 7:4-4");
  ap_graph_destroy(g);
  /* Without: one request per tensor. */
  CHECK(ap_graph_create(m, &(ap_graph_options){0}, NULL, &g) == AP_OK);
  expect_root(g, R, -1);
  expect_requests(g, "0:0-0 3:0-4 4:1-2 5:2-3 6:3-4 7:4-4");
  ap_graph_destroy(g);
  /* TFLite: RELU is not among its in-place ops; RESHAPE shares; MUL(r, r) counts r twice
   * (reference count 2 > 1), so m keeps its own bytes. Inputs live to the end there. */
  CHECK(ap_graph_create(m, &(ap_graph_options){.rules = AP_RULES_TFLITE, .inplace = true}, NULL,
                        &g) == AP_OK);
  expect_root(g, R, B);
  expect_root(g, M, -1);
  expect_requests(g, "0:0-4 3:0-4 4:1-3 6:3-4 7:4-4");
  ap_graph_destroy(g);
  /* TFLite Micro has no in-place sharing. */
  CHECK_EQ(
      ap_graph_create(m, &(ap_graph_options){.rules = AP_RULES_TFLM, .inplace = true}, NULL, &g),
      AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(ap_graph_error(g), "TFLite Micro");
  ap_graph_destroy(g);
  ap_model_destroy(m);
  free(keep);
}

static uint64_t tflite_arena(const char *name, bool inplace) {
  char path[4096];
  ap_model *m = NULL;
  ap_test_path(path, sizeof path, "models/%s.tflite", name);
  CHECK(ap_model_open(path, NULL, &m) == AP_OK);
  ap_model_plan_options o = ap_model_plan_tflite();
  o.inplace = inplace;
  ap_model_plan *mp = NULL;
  CHECK(ap_model_plan_create(m, &o, NULL, &mp) == AP_OK);
  uint64_t a = ap_model_plan_arena(mp);
  ap_model_plan_destroy(mp);
  ap_model_destroy(m);
  return a;
}

/* TFLite's ArenaPlanner with its in-place sharing: the numbers, measured with
 * TFLite's own code (39,144,856 -> 23,332,824 for conformer_float). */
static void tflite_numbers(void) {
  CHECK_EQ(tflite_arena("conformer_float", false), 39144856);
  CHECK_EQ(tflite_arena("conformer_float", true), 23332824);
}

/* no_overlap on every op drops exactly the convolutions' and pools' overlaps: views and
 * element-wise ops share as before. */
static void no_overlap(const char *name) {
  char path[4096];
  ap_model *m = NULL;
  ap_test_path(path, sizeof path, "models/%s.tflite", name);
  CHECK(ap_model_open(path, NULL, &m) == AP_OK);
  ap_graph *a, *b;
  CHECK(ap_graph_create(m, &(ap_graph_options){.inplace = true}, NULL, &a) == AP_OK);
  size_t ops = ap_model_op_count(m, 0);
  bool *all = malloc(ops);
  CHECK(all != NULL);
  memset(all, 1, ops);
  CHECK(ap_graph_create(
            m, &(ap_graph_options){.inplace = true, .no_overlap = all, .no_overlap_count = ops},
            NULL, &b) == AP_OK);
  ap_problem *pa, *pb;
  CHECK(ap_graph_problem(a, -1, 16, &pa) == AP_OK);
  CHECK(ap_graph_problem(b, -1, 16, &pb) == AP_OK);
  CHECK_MSG(ap_problem_overlap_count(pa) > 0, "%s: no overlap to drop", name);
  CHECK_EQ(ap_problem_overlap_count(pb), (size_t)0);
  CHECK_EQ(ap_problem_count(pa), ap_problem_count(pb));
  size_t shared = 0;
  for (uint64_t t = 0; t < ap_model_tensor_count(m, 0); t++) {
    uint64_t ra = UINT64_MAX, rb = UINT64_MAX;
    bool sa = ap_graph_shares(a, t, &ra), sb = ap_graph_shares(b, t, &rb);
    CHECK_MSG(sa == sb && ra == rb, "%s tensor %llu: shares %d (%llu) vs %d (%llu)", name,
              (unsigned long long)t, sa, (unsigned long long)ra, sb, (unsigned long long)rb);
    shared += sa;
  }
  CHECK_MSG(shared > 0, "%s: nothing shared in place", name);
  /* Per op: vetoing op k drops its own overlap alone (at most one per op), and every overlap
   * belongs to one op. */
  size_t dropped = 0;
  for (size_t k = 0; k < ops; k++) {
    memset(all, 0, ops);
    all[k] = true;
    ap_graph *c;
    ap_problem *pc;
    CHECK(ap_graph_create(
              m, &(ap_graph_options){.inplace = true, .no_overlap = all, .no_overlap_count = ops},
              NULL, &c) == AP_OK);
    CHECK(ap_graph_problem(c, -1, 16, &pc) == AP_OK);
    size_t d = ap_problem_overlap_count(pa) - ap_problem_overlap_count(pc);
    CHECK_MSG(d <= 1, "%s op %zu: %zu overlaps dropped", name, k, d);
    dropped += d;
    ap_problem_destroy(pc);
    ap_graph_destroy(c);
  }
  CHECK_EQ(dropped, ap_problem_overlap_count(pa));
  ap_problem_destroy(pa);
  ap_problem_destroy(pb);
  ap_graph_destroy(a);
  ap_graph_destroy(b);
  free(all);
  ap_model_destroy(m);
}

int main(void) {
  crafted_rules();
  ap_test_require_shared();
  tflite_numbers();
  no_overlap("mlperf_ic_resnet_int8");
  no_overlap("mobilenet_v1_025_128_uint8");
  return ap_test_done();
}
