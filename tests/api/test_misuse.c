/* API misuse, header by header (include/arenaplan/ one header at a time): NULL handles and
 * pointers, zero sizes, out-of-range indices, invoke before allocate, allocate twice, destroy
 * orders, caller arenas at every misalignment. Each call returns the status its header documents
 * and, where a mutable object exists, leaves a message in it. Getters on const handles cannot
 * record a message: they return 0, NULL or a status only. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* ADD of two float [1,4] inputs into one [1,4] output: the smallest model the runtime runs. */
static uint8_t *add_model(size_t *size) {
  ap_writer *w;
  if (ap_writer_create(NULL, &w) != AP_OK) return NULL;
  uint32_t add;
  int32_t a, b, out;
  const int32_t shape[] = {1, 4};
  ap_writer_add_opcode(w, 0 /* ADD */, 1, &add);
  ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = "a", .shape = shape, .rank = 2}, &a);
  ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = "b", .shape = shape, .rank = 2}, &b);
  ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = "out", .shape = shape, .rank = 2}, &out);
  int32_t ins[] = {a, b};
  ap_options o = ap_options_add(AP_ACT_NONE);
  ap_writer_add_op(w, 0,
                   &(ap_writer_op){.opcode = add,
                                   .inputs = ins,
                                   .input_count = 2,
                                   .outputs = &out,
                                   .output_count = 1,
                                   .options = &o},
                   NULL);
  ap_writer_set_subgraph_io(w, 0, ins, 2, &out, 1);
  const uint8_t *bytes;
  uint8_t *copy = NULL;
  if (ap_writer_finish(w, &bytes, size) == AP_OK) {
    copy = aligned_alloc(16, (*size + 15) / 16 * 16);
    if (copy) memcpy(copy, bytes, *size);
  }
  ap_writer_destroy(w);
  return copy;
}

static void test_base(void) {
  CHECK_STR(ap_status_name(AP_OK), "AP_OK");
  CHECK_STR(ap_status_name(AP_ERR_KERNEL), "AP_ERR_KERNEL");
  CHECK(ap_status_name((ap_status)-1) != NULL);
  CHECK(ap_status_name((ap_status)1000) != NULL);
  CHECK(ap_default_allocator() != NULL && ap_default_allocator()->alloc != NULL);
  CHECK(ap_version() != NULL && ap_version()[0]);
}

static void test_model_null(void) {
  ap_model *m = (ap_model *)&m; /* a non-NULL value that must be overwritten */
  CHECK_EQ(ap_model_open("x.tflite", NULL, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_from_buffer("", 0, "x", NULL, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_open(NULL, NULL, &m), AP_ERR_ARG);
  CHECK(m != NULL);
  CHECK_STR(ap_model_error(m), "ap_model_open: NULL path");
  ap_model_destroy(m);
  CHECK_EQ(ap_model_from_buffer(NULL, 16, "buf", NULL, &m), AP_ERR_ARG);
  CHECK_STR(ap_model_error(m), "buf: NULL data with size 16");
  ap_model_destroy(m);
  /* Zero size: no file identifier can be there. */
  static _Alignas(8) const uint8_t empty[8];
  CHECK_EQ(ap_model_from_buffer(empty, 0, NULL, NULL, &m), AP_ERR_FORMAT);
  CHECK(ap_model_error(m)[0] != '\0');
  CHECK_CONTAINS(ap_model_error(m), "(buffer)");
  CHECK_EQ(ap_model_subgraph_count(m), 0);
  ap_model_destroy(m);
  /* Paths that are no regular file: a directory, and a FIFO with no writer (opening it for
   * reading would wait forever without O_NONBLOCK). */
  CHECK_EQ(ap_model_open("/", NULL, &m), AP_ERR_IO);
  CHECK_STR(ap_model_error(m), "/: is a directory, not a model file");
  ap_model_destroy(m);
  char fifo[64];
  snprintf(fifo, sizeof fifo, "/tmp/ap_misuse_fifo_%d", (int)getpid());
  unlink(fifo);
  CHECK_EQ(mkfifo(fifo, 0600), 0);
  CHECK_EQ(ap_model_open(fifo, NULL, &m), AP_ERR_IO);
  char want[128];
  snprintf(want, sizeof want, "%s: not a regular file", fifo);
  CHECK_STR(ap_model_error(m), want);
  ap_model_destroy(m);
  unlink(fifo);
  ap_model_destroy(NULL);
  CHECK(ap_model_error(NULL) != NULL && ap_model_error(NULL)[0]);

  /* Every getter on a NULL model: zero, NULL or AP_ERR_ARG, never a crash. */
  size_t size = 7;
  CHECK(ap_model_path(NULL) == NULL);
  CHECK(ap_model_bytes(NULL, &size) == NULL);
  CHECK_EQ(size, 0);
  CHECK_EQ(ap_model_version(NULL), 0);
  CHECK(ap_model_description(NULL) == NULL);
  CHECK_EQ(ap_model_subgraph_count(NULL), 0);
  CHECK_EQ(ap_model_buffer_count(NULL), 0);
  CHECK_EQ(ap_model_opcode_count(NULL), 0);
  CHECK_EQ(ap_model_metadata_count(NULL), 0);
  CHECK_EQ(ap_model_signature_count(NULL), 0);
  size = 7;
  CHECK(ap_model_buffer(NULL, 0, &size) == NULL);
  CHECK_EQ(size, 0);
  ap_opcode_info oc;
  ap_metadata_info md;
  ap_signature_info si;
  ap_tensor_map tm;
  ap_tensor_info ti;
  ap_op_info oi;
  ap_op_options oo;
  ap_raw_field rf;
  CHECK_EQ(ap_model_opcode(NULL, 0, &oc), AP_ERR_ARG);
  CHECK_EQ(ap_model_metadata(NULL, 0, &md), AP_ERR_ARG);
  CHECK_EQ(ap_model_signature(NULL, 0, &si), AP_ERR_ARG);
  CHECK_EQ(ap_model_signature_input(NULL, 0, 0, &tm), AP_ERR_ARG);
  CHECK_EQ(ap_model_signature_output(NULL, 0, 0, &tm), AP_ERR_ARG);
  CHECK_STR(ap_model_subgraph_name(NULL, 0), "");
  CHECK_EQ(ap_model_tensor_count(NULL, 0), 0);
  CHECK_EQ(ap_model_op_count(NULL, 0), 0);
  CHECK(ap_model_subgraph_inputs(NULL, 0).v == NULL && ap_model_subgraph_inputs(NULL, 0).n == 0);
  CHECK(ap_model_subgraph_outputs(NULL, 0).v == NULL);
  CHECK_EQ(ap_model_tensor(NULL, 0, 0, &ti), AP_ERR_ARG);
  CHECK_EQ(ap_model_op(NULL, 0, 0, &oi), AP_ERR_ARG);
  CHECK_EQ(ap_model_op_options(NULL, 0, 0, &oo), AP_ERR_ARG);
  CHECK_EQ(ap_model_op_raw_option(NULL, 0, 0, 1, 0, &rf), AP_ERR_ARG);
  CHECK_STR(ap_dtype_name(-1), "UNKNOWN");
  CHECK_STR(ap_dtype_name(AP_DTYPE_COUNT), "UNKNOWN");
  CHECK_EQ(ap_dtype_bits(-1), 0);
  CHECK_EQ(ap_dtype_bits(1000), 0);
  CHECK_STR(ap_builtin_name(-1), "UNKNOWN");
  CHECK_STR(ap_builtin_name(100000), "UNKNOWN");
  CHECK_EQ(ap_model_weight_bytes(NULL, &size), 0);
  CHECK_EQ(size, 0);
  CHECK_EQ(ap_model_input_bytes(NULL, 0), 0);
  CHECK_EQ(ap_model_output_bytes(NULL, 0), 0);
}

static void test_model_args(const ap_model *m) {
  /* NULL out pointers and indices past the end on a good model. */
  ap_opcode_info oc;
  ap_tensor_info ti;
  ap_op_info oi;
  ap_op_options oo;
  ap_raw_field rf;
  ap_signature_info si;
  ap_metadata_info md;
  ap_tensor_map tm;
  CHECK_EQ(ap_model_opcode(m, 0, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_opcode(m, 1, &oc), AP_ERR_RANGE);
  CHECK_EQ(ap_model_metadata(m, 0, &md), AP_ERR_RANGE);
  CHECK_EQ(ap_model_signature(m, 0, &si), AP_ERR_RANGE);
  CHECK_EQ(ap_model_signature_input(m, 0, 0, &tm), AP_ERR_RANGE);
  CHECK_EQ(ap_model_signature_output(m, 0, 0, &tm), AP_ERR_RANGE);
  CHECK_EQ(ap_model_tensor(m, 0, 0, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_tensor(m, 0, 3, &ti), AP_ERR_RANGE);
  CHECK_EQ(ap_model_tensor(m, 1, 0, &ti), AP_ERR_RANGE);
  CHECK_EQ(ap_model_tensor(m, SIZE_MAX, SIZE_MAX, &ti), AP_ERR_RANGE);
  CHECK_EQ(ap_model_op(m, 0, 0, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_op(m, 0, 1, &oi), AP_ERR_RANGE);
  CHECK_EQ(ap_model_op_options(m, 0, 0, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_op_options(m, 0, 1, &oo), AP_ERR_RANGE);
  CHECK_EQ(ap_model_op_raw_option(m, 0, 0, 1, 0, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_op_raw_option(m, 0, 0, 0, 0, &rf), AP_ERR_ARG);
  CHECK_EQ(ap_model_op_raw_option(m, 0, 0, 3, 0, &rf), AP_ERR_ARG);
  CHECK_EQ(ap_model_op_raw_option(m, 0, 1, 1, 0, &rf), AP_ERR_RANGE);
  size_t size = 7;
  CHECK(ap_model_buffer(m, ap_model_buffer_count(m), &size) == NULL && size == 0);
  CHECK(ap_model_buffer(m, 0, NULL) == NULL); /* buffer 0 holds no data; size may be NULL */
  CHECK(ap_model_bytes(m, NULL) != NULL);
  CHECK_STR(ap_model_subgraph_name(m, 5), "");
  CHECK_EQ(ap_model_tensor_count(m, 1), 0);
  CHECK_EQ(ap_model_op_count(m, SIZE_MAX), 0);
  CHECK_EQ(ap_model_weight_bytes(m, NULL), 0);
  CHECK_EQ(ap_model_input_bytes(m, 0), 32);
  CHECK_EQ(ap_model_output_bytes(m, 0), 16);
  CHECK_EQ(ap_model_input_bytes(m, 1), 0);
}

static void test_misaligned_buffer(const uint8_t *bytes, size_t size) {
  uint8_t *raw = malloc(size + 16);
  for (size_t k = 1; k < 8; k++) {
    uint8_t *p = raw + (8 - (uintptr_t)raw % 8) % 8 + k;
    memcpy(p, bytes, size);
    ap_model *m;
    CHECK_EQ(ap_model_from_buffer(p, size, "mis", NULL, &m), AP_ERR_ARG);
    char want[128];
    snprintf(want, sizeof want,
             "mis: buffer address %p is not 8-byte aligned (the model is read in place)",
             (void *)p);
    CHECK_STR(ap_model_error(m), want);
    ap_model_destroy(m);
  }
  free(raw);
}

static void test_plan_layer(void) {
  ap_problem *p = (ap_problem *)&p;
  CHECK_EQ(ap_problem_create(NULL, NULL), AP_ERR_ARG);
  ap_problem_destroy(NULL);
  CHECK(ap_problem_error(NULL) != NULL);
  CHECK_EQ(ap_problem_set_alignment(NULL, 16), AP_ERR_ARG);
  CHECK_EQ(ap_problem_alignment(NULL), 0);
  CHECK_EQ(ap_problem_add(NULL, &(ap_request){.size = 1}), AP_ERR_ARG);
  CHECK_EQ(ap_problem_count(NULL), 0);
  CHECK(ap_problem_requests(NULL) == NULL);
  CHECK_EQ(ap_problem_parse_csv(NULL, "", 0), AP_ERR_ARG);
  CHECK_EQ(ap_problem_lower_bound(NULL), 0);

  CHECK_EQ(ap_problem_create(NULL, &p), AP_OK);
  CHECK_EQ(ap_problem_set_alignment(p, 0), AP_ERR_ARG);
  CHECK_STR(ap_problem_error(p), "alignment 0: must be at least 1");
  CHECK_EQ(ap_problem_alignment(p), 1);
  CHECK_EQ(ap_problem_add(p, NULL), AP_ERR_ARG);
  CHECK_STR(ap_problem_error(p), "request is NULL");
  CHECK_EQ(ap_problem_add(p, &(ap_request){.id = 3, .size = 0, .first = 0, .last = 0}), AP_ERR_ARG);
  CHECK_CONTAINS(ap_problem_error(p), "3");
  CHECK_EQ(ap_problem_add(p, &(ap_request){.id = 4, .size = 8, .first = 2, .last = 1}), AP_ERR_ARG);
  CHECK_CONTAINS(ap_problem_error(p), "4");
  CHECK_EQ(ap_problem_count(p), 0);
  CHECK_EQ(ap_problem_parse_csv(p, NULL, 5), AP_ERR_ARG);
  CHECK(ap_problem_error(p)[0] != '\0');
  /* Empty text: a valid problem of no requests; its plan has arena 0. */
  CHECK_EQ(ap_problem_parse_csv(p, "", 0), AP_OK);
  CHECK_EQ(ap_problem_lower_bound(p), 0);

  ap_plan *plan = (ap_plan *)&plan;
  CHECK_EQ(ap_plan_create(p, NULL, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_plan_create(NULL, NULL, &plan), AP_ERR_ARG);
  CHECK_STR(ap_plan_error(plan), "problem is NULL");
  ap_plan_destroy(plan);
  CHECK_EQ(ap_plan_create(p, &(ap_plan_options){.strategy = "nope"}, &plan), AP_ERR_ARG);
  CHECK_CONTAINS(ap_plan_error(plan), "unknown strategy \"nope\" (valid: naive, linear,");
  ap_plan_destroy(plan);
  CHECK_EQ(ap_plan_create(p, NULL, &plan), AP_OK);
  CHECK_EQ(ap_plan_arena(plan), 0);
  CHECK_EQ(ap_plan_count(plan), 0);
  CHECK_EQ(ap_plan_check(p, ap_plan_offsets(plan), 0, NULL, 0), AP_OK);
  ap_plan_destroy(plan);
  ap_plan_destroy(NULL);
  CHECK(ap_plan_error(NULL) != NULL);
  CHECK_STR(ap_plan_strategy(NULL), "");
  CHECK_EQ(ap_plan_arena(NULL), 0);
  CHECK(ap_plan_offsets(NULL) == NULL);
  CHECK_EQ(ap_plan_count(NULL), 0);
  CHECK_EQ(ap_plan_lower_bound(NULL), 0);
  CHECK(ap_plan_time_ms(NULL) == 0.0);
  CHECK(!ap_plan_optimal(NULL));
  CHECK_EQ(ap_plan_reused(NULL, NULL), 0);

  /* The checker with NULL everywhere; a message buffer of size 0 or 1 is never overrun. */
  char msg[4] = "xyz";
  CHECK_EQ(ap_plan_check(NULL, NULL, 0, msg, sizeof msg), AP_ERR_ARG);
  CHECK_EQ(ap_problem_add(p, &(ap_request){.id = 1, .size = 8, .first = 0, .last = 1}), AP_OK);
  CHECK_EQ(ap_problem_add(p, &(ap_request){.id = 2, .size = 8, .first = 1, .last = 2}), AP_OK);
  CHECK_EQ(ap_plan_check(p, NULL, 16, msg, sizeof msg), AP_ERR_ARG);
  uint64_t overlap[2] = {0, 4};
  memcpy(msg, "xyz", 4);
  CHECK_EQ(ap_plan_check(p, overlap, 12, msg, 1), AP_ERR_INVALID_PLAN);
  CHECK_EQ(msg[0], '\0');
  CHECK_EQ(msg[1], 'y');
  CHECK_EQ(ap_plan_check(p, overlap, 12, msg, 0), AP_ERR_INVALID_PLAN);
  CHECK_EQ(ap_plan_check(p, overlap, 12, NULL, 0), AP_ERR_INVALID_PLAN);
  CHECK(ap_strategy_name(ap_strategy_count()) == NULL);
  CHECK(ap_strategy_summary(SIZE_MAX) == NULL);
  ap_problem_destroy(p);
}

static void test_writer_null(void) {
  uint32_t u;
  int32_t i;
  const uint8_t *bytes;
  size_t size;
  CHECK_EQ(ap_writer_create(NULL, NULL), AP_ERR_ARG);
  ap_writer_destroy(NULL);
  CHECK(ap_writer_error(NULL) != NULL);
  CHECK_EQ(ap_writer_set_version(NULL, 3), AP_ERR_ARG);
  CHECK_EQ(ap_writer_set_description(NULL, "x"), AP_ERR_ARG);
  CHECK_EQ(ap_writer_add_buffer(NULL, "x", 1, &u), AP_ERR_ARG);
  CHECK_EQ(ap_writer_add_opcode(NULL, 0, 1, &u), AP_ERR_ARG);
  CHECK_EQ(ap_writer_add_custom_opcode(NULL, "x", 1, &u), AP_ERR_ARG);
  CHECK_EQ(ap_writer_add_opcode_raw(NULL, 0, 0, NULL, 1, &u), AP_ERR_ARG);
  CHECK_EQ(ap_writer_add_subgraph(NULL, "x", &u), AP_ERR_ARG);
  CHECK_EQ(ap_writer_set_subgraph_name(NULL, 0, "x"), AP_ERR_ARG);
  CHECK_EQ(ap_writer_set_subgraph_io(NULL, 0, NULL, 0, NULL, 0), AP_ERR_ARG);
  CHECK_EQ(ap_writer_add_tensor(NULL, 0, &(ap_writer_tensor){0}, &i), AP_ERR_ARG);
  CHECK_EQ(ap_writer_add_op(NULL, 0, &(ap_writer_op){0}, &u), AP_ERR_ARG);
  CHECK_EQ(ap_writer_add_metadata(NULL, "x", 0), AP_ERR_ARG);
  CHECK_EQ(ap_writer_add_metadata_bytes(NULL, "x", "y", 1, &u), AP_ERR_ARG);
  CHECK_EQ(ap_writer_add_signature(NULL, "k", 0, NULL, 0, NULL, 0, &u), AP_ERR_ARG);
  CHECK_EQ(ap_writer_finish(NULL, &bytes, &size), AP_ERR_ARG);
  CHECK_EQ(ap_writer_save(NULL, "/tmp/x.tflite"), AP_ERR_ARG);

  ap_writer *w;
  CHECK_EQ(ap_writer_create(NULL, &w), AP_OK);
  CHECK_EQ(ap_writer_add_tensor(w, 0, NULL, &i), AP_ERR_ARG);
  CHECK(ap_writer_error(w)[0] != '\0');
  CHECK_EQ(ap_writer_add_op(w, 0, NULL, &u), AP_ERR_ARG);
  CHECK(ap_writer_error(w)[0] != '\0');
  CHECK_EQ(ap_writer_add_buffer(w, NULL, 4, &u), AP_ERR_ARG);
  CHECK(ap_writer_error(w)[0] != '\0');
  CHECK_EQ(ap_writer_finish(w, NULL, &size), AP_ERR_ARG);
  CHECK(ap_writer_error(w)[0] != '\0');
  CHECK_EQ(ap_writer_save(w, NULL), AP_ERR_ARG);
  CHECK(ap_writer_error(w)[0] != '\0');
  ap_writer_destroy(w);
}

static void test_graph_and_report(const ap_model *m) {
  ap_graph *g = (ap_graph *)&g;
  CHECK_EQ(ap_graph_create(m, NULL, NULL, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_graph_create(NULL, NULL, NULL, &g), AP_ERR_ARG);
  CHECK(g == NULL);
  CHECK_EQ(ap_graph_create(m, &(ap_graph_options){.rules = (ap_rules)7}, NULL, &g), AP_ERR_ARG);
  CHECK_STR(ap_graph_error(g), "unknown lifetime rules 7");
  ap_graph_destroy(g);
  ap_graph_destroy(NULL);
  CHECK(ap_graph_error(NULL) != NULL);
  CHECK_EQ(ap_graph_step_count(NULL), 0);
  CHECK_EQ(ap_graph_step(NULL, 0, NULL, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_graph_op_step(NULL, 0, 0), -1);
  ap_lifetime lt;
  CHECK_EQ(ap_graph_tensor(NULL, 0, 0, &lt), AP_ERR_ARG);
  CHECK_EQ(ap_graph_add_scratch(NULL, 0, 0, 16, NULL), AP_ERR_ARG);
  ap_problem *p = (ap_problem *)&p;
  CHECK_EQ(ap_graph_problem(NULL, -1, 16, &p), AP_ERR_ARG);
  CHECK(p == NULL);
  CHECK(!ap_graph_id_tensor(NULL, 0, NULL, NULL));
  CHECK_STR(ap_rules_name((ap_rules)99), "unknown");
  CHECK_STR(ap_kind_name((ap_tensor_kind)99), "unknown");

  CHECK_EQ(ap_graph_create(m, NULL, NULL, &g), AP_OK);
  CHECK_EQ(ap_graph_step_count(g), 1);
  CHECK_EQ(ap_graph_step(g, 1, NULL, NULL), AP_ERR_RANGE);
  CHECK_EQ(ap_graph_step(g, 0, NULL, NULL), AP_OK); /* NULL outputs: nothing written */
  CHECK_EQ(ap_graph_tensor(g, 0, 0, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_graph_tensor(g, 0, 3, &lt), AP_ERR_RANGE);
  CHECK_EQ(ap_graph_add_scratch(g, 0, 0, 0, NULL), AP_ERR_ARG);
  CHECK_STR(ap_graph_error(g), "scratch for subgraph 0 op 0: 0 bytes (must be at least 1)");
  CHECK_EQ(ap_graph_add_scratch(g, 0, 1, 16, NULL), AP_ERR_RANGE);
  CHECK_STR(ap_graph_error(g), "scratch for subgraph 0 op 1: no such op");
  CHECK_EQ(ap_graph_add_scratch(g, 0, 0, 16, NULL), AP_OK); /* the id is optional */
  CHECK_EQ(ap_graph_problem(g, -1, 16, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_graph_problem(g, 1, 16, &p), AP_ERR_RANGE);
  CHECK_STR(ap_graph_error(g), "subgraph 1 out of range (model has 1)");
  CHECK_EQ(ap_graph_problem(g, -1, 0, &p), AP_ERR_ARG);
  CHECK(ap_graph_error(g)[0] != '\0');
  ap_problem_destroy(p);
  CHECK_EQ(ap_graph_problem(g, -1, 16, &p), AP_OK);
  CHECK_EQ(ap_problem_count(p), 4); /* three tensors and the scratch */
  ap_problem_destroy(p);
  CHECK(!ap_graph_id_tensor(g, 3, NULL, NULL)); /* the scratch id */
  CHECK(ap_graph_id_tensor(g, 2, NULL, NULL));
  ap_graph_destroy(g);

  ap_model_plan *mp = (ap_model_plan *)&mp;
  CHECK_EQ(ap_model_plan_create(m, NULL, NULL, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_plan_create(NULL, NULL, NULL, &mp), AP_ERR_ARG);
  CHECK(mp == NULL || ap_model_plan_error(mp)[0] != '\0');
  ap_model_plan_destroy(mp);
  ap_model_plan_options o = ap_model_plan_defaults();
  o.strategy = "nope";
  CHECK(ap_model_plan_create(m, &o, NULL, &mp) == AP_ERR_ARG);
  CHECK_CONTAINS(ap_model_plan_error(mp), "unknown strategy \"nope\"");
  ap_model_plan_destroy(mp);
  o = ap_model_plan_defaults();
  o.subgraph = 1;
  CHECK(ap_model_plan_create(m, &o, NULL, &mp) == AP_ERR_RANGE);
  CHECK_STR(ap_model_plan_error(mp), "add: subgraph 1 out of range (model has 1)");
  ap_model_plan_destroy(mp);
  ap_model_plan_destroy(NULL);
  CHECK(ap_model_plan_error(NULL) != NULL);
  CHECK(ap_model_plan_graph(NULL) == NULL);
  CHECK_EQ(ap_model_plan_parts(NULL), 0);
  CHECK(ap_model_plan_problem(NULL, 0) == NULL);
  CHECK(ap_model_plan_plan(NULL, 0) == NULL);
  CHECK_EQ(ap_model_plan_arena(NULL), 0);
  CHECK_EQ(ap_model_plan_lower_bound(NULL), 0);
  CHECK(ap_model_plan_time_ms(NULL) == 0.0);
  CHECK_EQ(ap_model_plan_requests(NULL), 0);
  CHECK_EQ(ap_model_plan_reused(NULL), 0);
  CHECK(!ap_model_plan_optimal(NULL));
  uint64_t off;
  CHECK(!ap_model_plan_tensor_offset(NULL, 0, 0, &off));
  CHECK_EQ(ap_model_plan_create(m, NULL, NULL, &mp), AP_OK);
  CHECK(ap_model_plan_problem(mp, 1) == NULL);
  CHECK(ap_model_plan_plan(mp, 1) == NULL);
  CHECK(ap_model_plan_tensor_offset(mp, 0, 0, NULL)); /* the offset is optional */
  CHECK(!ap_model_plan_tensor_offset(mp, 0, 99, &off));
  CHECK(!ap_model_plan_tensor_offset(mp, 5, 0, &off));
  ap_model_plan_destroy(mp);
}

/* Runs the ADD model through an interpreter and checks out = a + b. */
static void check_add(ap_interpreter *it) {
  ap_tensor av, bv, *a = &av, *b = &bv;
  CHECK(ap_interpreter_input(it, 0, a) == AP_OK && ap_interpreter_input(it, 1, b) == AP_OK);
  CHECK(a->data && b->data && a->bytes == 16 && b->bytes == 16);
  if (!a->data || !b->data) return;
  for (int k = 0; k < 4; k++) {
    ((float *)a->data)[k] = (float)k;
    ((float *)b->data)[k] = 0.5f;
  }
  CHECK_EQ(ap_interpreter_invoke(it), AP_OK);
  ap_tensor ov, *out = &ov;
  CHECK(ap_interpreter_output(it, 0, out) == AP_OK && out->data);
  if (out->data)
    for (int k = 0; k < 4; k++)
      CHECK(((const float *)out->data)[k] == (float)k + 0.5f);
}

static void test_runtime_null(const ap_model *m) {
  ap_interpreter *it = (ap_interpreter *)&it;
  ap_interpreter_options o = ap_interpreter_defaults();
  CHECK_EQ(ap_interpreter_create(m, &o, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_create(NULL, &o, &it), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it), "no model");
  /* Every call on a failed interpreter: a status and the message, never a crash. */
  CHECK_EQ(ap_interpreter_allocate(it), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it), "the interpreter failed to create: no model");
  CHECK_EQ(ap_interpreter_allocate(it), AP_ERR_ARG); /* the message does not nest */
  CHECK_STR(ap_interpreter_error(it), "the interpreter failed to create: no model");
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_reset_variables(it), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_resize_input(it, 0, NULL, 0), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_input_count(it), 0);
  ap_tensor t;
  CHECK(ap_interpreter_input(it, 0, &t) != AP_OK);
  CHECK(ap_interpreter_tensor_by_name(it, "a", &t, NULL, NULL) != AP_OK);
  ap_memory_usage mu;
  CHECK_EQ(ap_interpreter_memory(it, &mu), AP_ERR_NOT_ALLOCATED);
  ap_interpreter_destroy(it);

  ap_interpreter_destroy(NULL);
  CHECK(ap_interpreter_error(NULL) != NULL && ap_interpreter_error(NULL)[0]);
  CHECK_EQ(ap_interpreter_allocate(NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_invoke(NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_reset_variables(NULL), AP_ERR_ARG);
  int32_t dims[2] = {1, 4};
  CHECK_EQ(ap_interpreter_resize_input(NULL, 0, dims, 2), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_input_count(NULL), 0);
  CHECK_EQ(ap_interpreter_output_count(NULL), 0);
  CHECK_EQ(ap_interpreter_input(NULL, 0, &t), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_output(NULL, 0, &t), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_tensor(NULL, 0, 0, &t), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_tensor_by_name(NULL, "a", &t, NULL, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_memory(NULL, &mu), AP_ERR_ARG);
  size_t sg = 9, tensor = 9;
  CHECK_EQ(ap_interpreter_dynamic_count(NULL), 0);
  CHECK_EQ(ap_interpreter_dynamic_bytes(NULL), 0);
  CHECK_EQ(ap_interpreter_dynamic_tensor(NULL, 0, &sg, &tensor), AP_ERR_ARG);
  CHECK(sg == 9 && tensor == 9);
  CHECK_EQ(ap_report_dynamic_count(NULL), 0);
  CHECK(ap_report_dynamics(NULL) == NULL);

  /* The kernel-facing calls with a NULL context. */
  CHECK_EQ(ap_op_input_count(NULL), 0);
  CHECK_EQ(ap_op_output_count(NULL), 0);
  CHECK(!ap_op_input(NULL, 0, &t));
  CHECK(!ap_op_output(NULL, 0, &t));
  CHECK(ap_op_model(NULL) == NULL);
  CHECK_EQ(ap_op_subgraph(NULL), 0);
  CHECK_EQ(ap_op_index(NULL), 0);
  CHECK(ap_op_info_of(NULL) == NULL);
  CHECK_EQ(ap_op_set_output_shape(NULL, 0, dims, 2), AP_ERR_ARG);
  int index;
  CHECK_EQ(ap_op_request_scratch(NULL, 16, &index), AP_ERR_ARG);
  CHECK(ap_op_scratch(NULL, 0) == NULL);
  CHECK(ap_op_persistent(NULL, 16) == NULL);
  ap_op_set_state(NULL, NULL);
  CHECK(ap_op_state(NULL) == NULL);
  CHECK_EQ(ap_op_fail(NULL, AP_ERR_KERNEL, "x %d", 1), AP_ERR_KERNEL);

  /* Inconsistent options. */
  o.custom_op_count = 2;
  CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it), "custom_op_count is 2 but custom_ops is NULL");
  ap_interpreter_destroy(it);
  o = ap_interpreter_defaults();
  o.arena_size = 4096; /* a size without a buffer */
  CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it), "a caller-owned arena needs both a pointer and a size");
  ap_interpreter_destroy(it);
  o = ap_interpreter_defaults();
  o.strategy = "nope";
  CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_OK);
  CHECK_EQ(ap_interpreter_allocate(it), AP_ERR_ARG);
  CHECK_CONTAINS(ap_interpreter_error(it), "unknown strategy \"nope\"");
  ap_interpreter_destroy(it);
}

static void test_runtime_order(const ap_model *m) {
  ap_interpreter *it;
  CHECK_EQ(ap_interpreter_create(m, NULL, &it), AP_OK); /* NULL options: the defaults */
  ap_memory_usage mu;
  CHECK_EQ(ap_interpreter_memory(it, &mu), AP_ERR_NOT_ALLOCATED);
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  CHECK_STR(ap_interpreter_error(it),
            "not allocated: call ap_interpreter_allocate() before invoke");
  ap_tensor t, t2;
  CHECK(ap_interpreter_input(it, 0, &t) == AP_OK && t.data == NULL);
  CHECK_EQ(ap_interpreter_input(it, 2, &t), AP_ERR_RANGE);
  CHECK_EQ(ap_interpreter_output(it, 1, &t), AP_ERR_RANGE);
  CHECK_EQ(ap_interpreter_tensor(it, 1, 0, &t), AP_ERR_RANGE);
  CHECK_EQ(ap_interpreter_tensor(it, 0, 3, &t), AP_ERR_RANGE);
  CHECK(ap_interpreter_tensor_by_name(it, NULL, &t, NULL, NULL) != AP_OK);
  CHECK(ap_interpreter_tensor_by_name(it, "missing", &t, NULL, NULL) != AP_OK);
  size_t sg_of = 9, t_of = 9;
  CHECK(ap_interpreter_tensor_by_name(it, "out", &t, &sg_of, &t_of) == AP_OK && sg_of == 0 &&
        t_of == 2 && ap_interpreter_tensor(it, 0, 2, &t2) == AP_OK);

  /* Dynamic tensors: none before allocate (and asked so: not allocated), none in this model. */
  size_t sg = 9, tensor = 9;
  CHECK_EQ(ap_interpreter_dynamic_count(it), 0);
  CHECK_EQ(ap_interpreter_dynamic_tensor(it, 0, &sg, &tensor), AP_ERR_NOT_ALLOCATED);

  /* Allocate twice: the second replaces the first (no leak under ASan) and both run. */
  CHECK_EQ(ap_interpreter_allocate(it), AP_OK);
  check_add(it);
  CHECK_EQ(ap_interpreter_dynamic_count(it), 0);
  CHECK_EQ(ap_interpreter_dynamic_bytes(it), 0);
  CHECK_EQ(ap_interpreter_dynamic_tensor(it, 0, &sg, &tensor), AP_ERR_RANGE);
  CHECK_EQ(ap_interpreter_dynamic_tensor(it, 0, NULL, &tensor), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_memory(it, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_memory(it, &mu), AP_OK);
  CHECK_EQ(mu.arena, 48); /* a, b and out all live at step 0: 3 x 16 bytes */
  CHECK_EQ(ap_interpreter_allocate(it), AP_OK);
  check_add(it);
  CHECK_EQ(ap_interpreter_memory(it, &mu), AP_OK);
  CHECK_EQ(mu.arena, 48);

  /* Bad resizes change nothing; a good one makes the plan stale until the next allocate. */
  int32_t dims[AP_MAX_DIMS + 1] = {1, 4};
  CHECK_EQ(ap_interpreter_resize_input(it, 0, NULL, 2), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_resize_input(it, 2, dims, 2), AP_ERR_RANGE);
  CHECK_STR(ap_interpreter_error(it), "input 2 out of range (the model has 2)");
  CHECK_EQ(ap_interpreter_resize_input(it, 0, dims, -1), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it), "input 0: rank -1 out of range (0 to 8, with dims)");
  CHECK_EQ(ap_interpreter_resize_input(it, 0, dims, AP_MAX_DIMS + 1), AP_ERR_ARG);
  int32_t neg[2] = {1, -4};
  CHECK_EQ(ap_interpreter_resize_input(it, 0, neg, 2), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it),
            "invalid shape of rank 2 (at most 8 dims, each >= 0, whose product fits in memory)");
  check_add(it); /* still allocated */
  CHECK_EQ(ap_interpreter_resize_input(it, 0, dims, 2), AP_OK);
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  CHECK_EQ(ap_interpreter_allocate(it), AP_OK);
  check_add(it);
  CHECK_EQ(ap_interpreter_reset_variables(it), AP_OK); /* no variables: nothing to do */

  /* Two interpreters on one model, destroyed before the model (the documented order). */
  ap_interpreter *it2;
  CHECK_EQ(ap_interpreter_create(m, NULL, &it2), AP_OK);
  CHECK_EQ(ap_interpreter_allocate(it2), AP_OK);
  check_add(it2);
  check_add(it);
  ap_interpreter_destroy(it2);
  check_add(it); /* destroying one leaves the other intact */
  ap_interpreter_destroy(it);
}

/* malloc, refusing blocks over 1 GiB: a huge request is then a NULL the library must handle
 * (ASan would abort on it instead of returning NULL). */
static void *capped_alloc(void *ctx, size_t size) {
  (void)ctx;
  return size > ((size_t)1 << 30) ? NULL : malloc(size);
}
static void capped_free(void *ctx, void *p) {
  (void)ctx;
  free(p);
}

/* Odd and huge plan alignments: the tensors still land where their type can be read, or the
 * interpreter says why not. */
static void test_alignment_option(const ap_model *m) {
  static const uint64_t aligns[] = {1,         2, 3, 4, 5, 8, 24, 48, 4096, 4104, (uint64_t)1 << 40,
                                    UINT64_MAX};
  for (size_t i = 0; i < sizeof aligns / sizeof aligns[0]; i++) {
    ap_interpreter_options o = ap_interpreter_defaults();
    o.alignment = aligns[i];
    o.allocator = &(ap_allocator){capped_alloc, capped_free, NULL};
    ap_interpreter *it;
    ap_status s = ap_interpreter_create(m, &o, &it);
    if (aligns[i] > 4096) {
      CHECK_EQ(s, AP_ERR_ARG);
      char want[128];
      snprintf(want, sizeof want, "alignment %llu is above 4096", (unsigned long long)aligns[i]);
      CHECK_STR(ap_interpreter_error(it), want);
      ap_interpreter_destroy(it);
      continue;
    }
    if (aligns[i] % 8 != 0) {
      CHECK_EQ(s, AP_ERR_ARG);
      char want[128];
      snprintf(want, sizeof want,
               "alignment %llu: must be a multiple of 8 (the widest element), or 0 for 16",
               (unsigned long long)aligns[i]);
      CHECK_STR(ap_interpreter_error(it), want);
      ap_interpreter_destroy(it);
      continue;
    }
    CHECK_EQ(s, AP_OK);
    s = ap_interpreter_allocate(it);
    if (s == AP_OK) {
      for (size_t k = 0; k < 3; k++) {
        ap_tensor tv, *t = ap_interpreter_tensor(it, 0, k, &tv) == AP_OK ? &tv : NULL;
        CHECK_MSG(t && (uintptr_t)t->data % 4 == 0, "alignment %llu: tensor %zu at %p",
                  (unsigned long long)aligns[i], k, t ? t->data : NULL);
      }
      check_add(it);
    } else {
      CHECK_MSG(false, "alignment %llu: %s", (unsigned long long)aligns[i],
                ap_interpreter_error(it));
    }
    ap_interpreter_destroy(it);
  }
}

/* A caller-owned arena at every misalignment 0..15: each works (the interpreter aligns what it
 * places) or fails with AP_ERR_ARENA_TOO_SMALL and the exact need. */
static void test_caller_arena(const ap_model *m) {
  enum { BIG = 64 * 1024 };
  uint8_t *raw = aligned_alloc(16, BIG + 16);
  for (size_t mis = 0; mis < 16; mis++) {
    ap_interpreter_options o = ap_interpreter_defaults();
    o.arena = raw + mis;
    o.arena_size = BIG;
    ap_interpreter *it;
    CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_OK);
    CHECK_EQ(ap_interpreter_allocate(it), AP_OK);
    check_add(it);
    for (size_t i = 0; i < 2; i++) {
      ap_tensor tv, *t = ap_interpreter_input(it, i, &tv) == AP_OK ? &tv : NULL;
      CHECK(t && (uintptr_t)t->data % 16 == 0);
      CHECK(t && (uint8_t *)t->data >= raw + mis && (uint8_t *)t->data + 16 <= raw + mis + BIG);
    }
    ap_memory_usage mu;
    CHECK_EQ(ap_interpreter_memory(it, &mu), AP_OK);
    ap_interpreter_destroy(it);

    /* Exactly what memory() reported is enough at this address; 16 bytes less is not. */
    uint64_t need = mu.total + (16 - (uintptr_t)(raw + mis) % 16) % 16;
    o.arena_size = (size_t)need;
    ap_status s = ap_interpreter_create(m, &o, &it);
    if (s == AP_OK) s = ap_interpreter_allocate(it);
    CHECK_MSG(s == AP_OK, "misaligned by %zu with %llu bytes: %s", mis, (unsigned long long)need,
              ap_interpreter_error(it));
    if (s == AP_OK) check_add(it);
    ap_interpreter_destroy(it);
    o.arena_size = (size_t)need - 16;
    s = ap_interpreter_create(m, &o, &it);
    if (s == AP_OK) s = ap_interpreter_allocate(it);
    CHECK_EQ(s, AP_ERR_ARENA_TOO_SMALL);
    if (it) CHECK_CONTAINS(ap_interpreter_error(it), "arena too small: needs ");
    ap_interpreter_destroy(it);
  }
  /* Too small even for the interpreter's own record: no handle, the status says why. */
  ap_interpreter_options o = ap_interpreter_defaults();
  o.arena = raw + 3;
  o.arena_size = 8;
  ap_interpreter *it = (ap_interpreter *)&it;
  CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_ERR_ARENA_TOO_SMALL);
  CHECK(it == NULL);
  free(raw);
}

int main(void) {
  alarm(60); /* a call that blocks (a FIFO opened for reading) fails the test, not CI */
  test_base();
  test_model_null();
  test_plan_layer();
  test_writer_null();
  size_t size;
  uint8_t *bytes = add_model(&size);
  CHECK(bytes != NULL);
  if (bytes) {
    ap_model *m;
    CHECK_EQ(ap_model_from_buffer(bytes, size, "add", NULL, &m), AP_OK);
    test_model_args(m);
    test_misaligned_buffer(bytes, size);
    test_graph_and_report(m);
    test_runtime_null(m);
    test_runtime_order(m);
    test_caller_arena(m);
    test_alignment_option(m);
    ap_model_destroy(m);
    free(bytes);
  }
  return ap_test_done();
}
