/* Lifetimes under each rule set, on models crafted with the writer so every step is known. */
#include "arenaplan/arenaplan.h"
#include "test.h"

static const int32_t vec4[] = {1, 4};
static const int32_t vec8[] = {1, 8};
static const int32_t empty_dim[] = {1, 0};

static int32_t tensor(ap_writer *w, uint32_t sg, const char *name, const int32_t *shape,
                      uint32_t buffer, bool variable) {
  int32_t idx = -1;
  ap_writer_tensor t = {.name = name,
                        .type = AP_FLOAT32,
                        .shape = shape,
                        .rank = 2,
                        .buffer = buffer,
                        .is_variable = variable};
  CHECK_MSG(ap_writer_add_tensor(w, sg, &t, &idx) == AP_OK, "%s", ap_writer_error(w));
  return idx;
}

static void op(ap_writer *w, uint32_t sg, uint32_t code, const int32_t *in, size_t nin,
               const int32_t *out, size_t nout, const ap_options *o, const int32_t *inter,
               size_t ninter) {
  ap_writer_op x = {.opcode = code,
                    .inputs = in,
                    .input_count = nin,
                    .outputs = out,
                    .output_count = nout,
                    .options = o,
                    .intermediates = inter,
                    .intermediate_count = ninter};
  CHECK_MSG(ap_writer_add_op(w, sg, &x, NULL) == AP_OK, "%s", ap_writer_error(w));
}

static ap_model *load(ap_writer *w) {
  const uint8_t *bytes;
  size_t size;
  CHECK(ap_writer_finish(w, &bytes, &size) == AP_OK);
  ap_model *m;
  CHECK_MSG(ap_model_from_buffer(bytes, size, "crafted.tflite", NULL, &m) == AP_OK, "%s",
            ap_model_error(m));
  return m;
}

static void expect(const ap_graph *g, size_t sg, int32_t t, bool planned, int32_t first,
                   int32_t last, const char *what) {
  ap_lifetime l;
  CHECK(ap_graph_tensor(g, sg, (size_t)t, &l) == AP_OK);
  CHECK_MSG(l.planned == planned && (!planned || (l.first == first && l.last == last)),
            "%s: tensor %d planned %d [%d,%d], expected %d [%d,%d]", what, t, l.planned, l.first,
            l.last, planned, first, last);
}

/* in -> op0 -> a; a -> op1 -> b, d; a, b -> op2 -> c; c -> op3 -> out.
 * d is never read; w is a constant, v a variable, z is zero-sized, q an op intermediate. */
static void straight_line(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  uint32_t add, buf;
  ap_writer_add_opcode(w, 0, 1, &add);
  float data[8] = {0};
  ap_writer_add_buffer(w, data, sizeof data, &buf);
  int32_t in = tensor(w, 0, "in", vec4, 0, false), a = tensor(w, 0, "a", vec8, 0, false),
          b = tensor(w, 0, "b", vec8, 0, false), d = tensor(w, 0, "d", vec4, 0, false),
          c = tensor(w, 0, "c", vec8, 0, false), out = tensor(w, 0, "out", vec4, 0, false),
          cw = tensor(w, 0, "w", vec8, buf, false), v = tensor(w, 0, "v", vec8, 0, true),
          z = tensor(w, 0, "z", empty_dim, 0, false), q = tensor(w, 0, "q", vec4, 0, false);
  ap_writer_set_subgraph_io(w, 0, &in, 1, &out, 1);
  op(w, 0, add, (int32_t[]){in, cw}, 2, &a, 1, NULL, NULL, 0);
  op(w, 0, add, (int32_t[]){a, v}, 2, (int32_t[]){b, d}, 2, NULL, &q, 1);
  op(w, 0, add, (int32_t[]){a, b, -1}, 3, (int32_t[]){c, z}, 2, NULL, NULL, 0);
  op(w, 0, add, &c, 1, &out, 1, NULL, NULL, 0);
  ap_model *m = load(w);

  ap_graph *g;
  CHECK(ap_graph_create(m, &(ap_graph_options){.rules = AP_RULES_ARENAPLAN}, NULL, &g) == AP_OK);
  CHECK_EQ(ap_graph_step_count(g), 4);
  expect(g, 0, in, true, 0, 0, "input freed after its last reader");
  expect(g, 0, a, true, 0, 2, "from producer to last reader");
  expect(g, 0, b, true, 1, 2, "overlaps its reader's step");
  expect(g, 0, d, true, 1, 1, "never read: only its producer's step");
  expect(g, 0, c, true, 2, 3, "intermediate");
  expect(g, 0, out, true, 3, 3, "output to the end");
  expect(g, 0, cw, false, 0, 0, "constant");
  expect(g, 0, v, false, 0, 0, "variable");
  expect(g, 0, z, false, 0, 0, "zero-sized");
  expect(g, 0, q, false, 0, 0, "op intermediates");
  ap_lifetime l;
  ap_graph_tensor(g, 0, (size_t)cw, &l);
  CHECK_EQ(l.kind, AP_KIND_CONSTANT);
  ap_graph_tensor(g, 0, (size_t)v, &l);
  CHECK_EQ(l.kind, AP_KIND_VARIABLE);
  ap_graph_tensor(g, 0, (size_t)q, &l);
  CHECK_EQ(l.kind, AP_KIND_NONE);
  ap_graph_tensor(g, 0, (size_t)a, &l);
  CHECK(l.kind == AP_KIND_INTERMEDIATE && l.bytes == 32 && l.producer == 0 && l.last_reader == 2);

  /* Scratch lives at its op's step; the problem lists tensors in order, then scratch. */
  uint64_t sid;
  CHECK(ap_graph_add_scratch(g, 0, 2, 100, &sid) == AP_OK);
  CHECK_EQ(sid, 10);
  CHECK(ap_graph_add_scratch(g, 0, 9, 100, NULL) == AP_ERR_RANGE);
  CHECK(ap_graph_add_scratch(g, 0, 2, 0, NULL) == AP_ERR_ARG);
  ap_problem *p;
  CHECK(ap_graph_problem(g, -1, 16, &p) == AP_OK);
  CHECK_EQ(ap_problem_count(p), 7);
  const ap_request *r = ap_problem_requests(p);
  CHECK(r[6].id == 10 && r[6].size == 100 && r[6].first == 2 && r[6].last == 2);
  CHECK(r[0].id == (uint64_t)in && r[0].size == 16);
  /* Peak: step 2 holds a, b, c and the scratch (32+32+32+112 aligned); arena minus the last
   * request's alignment padding. */
  CHECK_EQ(ap_problem_lower_bound(p), 32 + 32 + 32 + 100);
  uint32_t sg, t;
  CHECK(ap_graph_id_tensor(g, 3, &sg, &t) && sg == 0 && t == 3);
  CHECK(!ap_graph_id_tensor(g, 10, &sg, &t));
  ap_problem_destroy(p);
  ap_graph_destroy(g);

  CHECK(ap_graph_create(m, &(ap_graph_options){.preserve_inputs = true}, NULL, &g) == AP_OK);
  expect(g, 0, in, true, 0, 3, "preserved input");
  ap_graph_destroy(g);

  CHECK(ap_graph_create(m, &(ap_graph_options){.rules = AP_RULES_TFLITE}, NULL, &g) == AP_OK);
  expect(g, 0, in, true, 0, 3, "TFLite: inputs live the whole run");
  expect(g, 0, a, true, 0, 2, "TFLite: freed at last reader");
  expect(g, 0, d, true, 1, 3, "TFLite: never-read tensors are never freed");
  expect(g, 0, out, true, 3, 3, "TFLite: output");
  ap_graph_destroy(g);

  CHECK(ap_graph_create(m, &(ap_graph_options){.rules = AP_RULES_TFLM}, NULL, &g) == AP_OK);
  /* Scope 0 enters the subgraph; op k is scope k + 1. */
  CHECK_EQ(ap_graph_step_count(g), 5);
  expect(g, 0, in, true, 0, 1, "TFLM: input from the entry scope to its reader");
  expect(g, 0, a, true, 1, 3, "TFLM");
  expect(g, 0, d, true, 2, 2, "TFLM: never read");
  expect(g, 0, out, true, 4, 4, "TFLM: output re-created by its producer");
  ap_graph_tensor(g, 0, (size_t)in, &l);
  CHECK_EQ(l.bytes, 16);
  CHECK(ap_graph_problem(g, -1, 16, &p) == AP_OK);
  r = ap_problem_requests(p);
  CHECK(r[0].first == 1 && r[0].last == 2); /* shifted by one */
  ap_problem_destroy(p);
  ap_graph_destroy(g);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

static ap_options while_options(int32_t cond, int32_t body) {
  ap_options o = {.type = 93, .count = 2};
  o.fields[0] = (ap_option_field){.id = 0, .kind = AP_OPT_INT32, .i = cond};
  o.fields[1] = (ap_option_field){.id = 1, .kind = AP_OPT_INT32, .i = body};
  return o;
}

/* x -> op0 -> y; WHILE(y) -> zz, unread (cond 1, body 2); zz -> op2 -> out. */
static void control_flow(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  uint32_t add, loop, less, s1, s2;
  ap_writer_add_opcode(w, 0, 1, &add);
  ap_writer_add_opcode(w, 119, 1, &loop);
  ap_writer_add_opcode(w, 58, 1, &less);
  ap_writer_add_subgraph(w, "cond", &s1);
  ap_writer_add_subgraph(w, "body", &s2);
  int32_t x = tensor(w, 0, "x", vec4, 0, false), y = tensor(w, 0, "y", vec4, 0, false),
          zz = tensor(w, 0, "zz", vec4, 0, false), out = tensor(w, 0, "out", vec4, 0, false),
          unread = tensor(w, 0, "unread", vec4, 0, false), loop_out[] = {zz, unread};
  ap_writer_set_subgraph_io(w, 0, &x, 1, &out, 1);
  ap_options wo = while_options((int32_t)s1, (int32_t)s2);
  op(w, 0, add, &x, 1, &y, 1, NULL, NULL, 0);
  op(w, 0, loop, &y, 1, loop_out, 2, &wo, NULL, 0);
  op(w, 0, add, &zz, 1, &out, 1, NULL, NULL, 0);
  int32_t cin = tensor(w, s1, "cin", vec4, 0, false), cout = tensor(w, s1, "cout", vec4, 0, false);
  ap_writer_set_subgraph_io(w, s1, &cin, 1, &cout, 1);
  op(w, s1, less, &cin, 1, &cout, 1, NULL, NULL, 0);
  int32_t bin = tensor(w, s2, "bin", vec4, 0, false), bmid = tensor(w, s2, "bmid", vec8, 0, false),
          bout = tensor(w, s2, "bout", vec4, 0, false);
  ap_writer_set_subgraph_io(w, s2, &bin, 1, &bout, 1);
  op(w, s2, add, &bin, 1, &bmid, 1, NULL, NULL, 0);
  op(w, s2, add, &bmid, 1, &bout, 1, NULL, NULL, 0);
  ap_model *m = load(w);

  ap_graph *g;
  CHECK_MSG(ap_graph_create(m, NULL, NULL, &g) == AP_OK, "%s", ap_graph_error(g));
  /* Steps: 0 op0, 1 WHILE, 2 cond's op, 3-4 body's ops, 5 op2. */
  CHECK_EQ(ap_graph_step_count(g), 6);
  uint32_t sg;
  int32_t o;
  CHECK(ap_graph_step(g, 2, &sg, &o) == AP_OK && sg == s1 && o == 0);
  CHECK(ap_graph_step(g, 4, &sg, &o) == AP_OK && sg == s2 && o == 1);
  CHECK_EQ(ap_graph_op_step(g, 0, 2), 5);
  expect(g, 0, y, true, 0, 1, "read by the loop: copied at its step, then never again");
  expect(g, 0, zz, true, 1, 5, "the loop's output: from the loop's step");
  expect(g, 0, unread, true, 1, 4, "a loop output nobody reads: holds the state to the end");
  expect(g, s1, cin, true, 1, 2, "cond's input: from the loop's step (copied in) over cond's");
  expect(g, s1, cout, true, 1, 2, "cond's output: the same range");
  expect(g, s2, bin, true, 3, 4, "body input: the body's steps (copied in as it starts)");
  expect(g, s2, bmid, true, 3, 4, "a body intermediate: nested in the range");
  expect(g, s2, bout, true, 3, 4, "body output: the body's steps (copied out as it ends)");
  ap_graph_destroy(g);

  /* TFLite Micro: 0 enter sg0, 1 op0, 2 WHILE, 3 enter cond, 4 cond op, 5 enter body,
   * 6-7 body ops, 8 op2. */
  CHECK(ap_graph_create(m, &(ap_graph_options){.rules = AP_RULES_TFLM}, NULL, &g) == AP_OK);
  CHECK_EQ(ap_graph_step_count(g), 9);
  expect(g, 0, y, true, 1, 7, "TFLM: read by the loop after its subgraphs");
  expect(g, s1, cin, true, 3, 4, "TFLM: cond input");
  expect(g, s2, bmid, true, 6, 7, "TFLM: body intermediate");
  expect(g, 0, out, true, 8, 8, "TFLM: output");
  ap_graph_destroy(g);

  /* TFLite plans each subgraph alone. */
  CHECK(ap_graph_create(m, &(ap_graph_options){.rules = AP_RULES_TFLITE}, NULL, &g) == AP_OK);
  ap_problem *p;
  CHECK(ap_graph_problem(g, -1, 64, &p) == AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(ap_graph_error(g), "own arena");
  CHECK(ap_graph_problem(g, 2, 64, &p) == AP_OK);
  CHECK_EQ(ap_problem_count(p), 3);
  ap_problem_destroy(p);
  ap_graph_destroy(g);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

/* A loop whose body is itself: an error, not a stack overflow. */
static void cycle(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  uint32_t loop;
  ap_writer_add_opcode(w, 119, 1, &loop);
  int32_t x = tensor(w, 0, "x", vec4, 0, false), y = tensor(w, 0, "y", vec4, 0, false);
  ap_writer_set_subgraph_io(w, 0, &x, 1, &y, 1);
  ap_options wo = while_options(0, 0);
  op(w, 0, loop, &x, 1, &y, 1, &wo, NULL, 0);
  ap_model *m = load(w);
  for (int rules = 0; rules <= 2; rules += 2) {
    ap_graph *g;
    CHECK(ap_graph_create(m, &(ap_graph_options){.rules = (ap_rules)rules}, NULL, &g) ==
          AP_ERR_FORMAT);
    CHECK_CONTAINS(ap_graph_error(g), "subgraph 0 calls itself");
    ap_graph_destroy(g);
  }
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

int main(void) {
  straight_line();
  control_flow();
  cycle();
  ap_graph *g;
  CHECK(ap_graph_create(NULL, NULL, NULL, &g) == AP_ERR_ARG);
  CHECK(ap_graph_create(NULL, NULL, NULL, NULL) == AP_ERR_ARG);
  CHECK_EQ(ap_graph_step_count(NULL), 0);
  return ap_test_done();
}
