/* fuzz_model: an untrusted .tflite file loaded, every accessor walked, lifetimes computed under
 * each rule set, and every subgraph's problem planned with every strategy and checked. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Touched so that ASan sees a read of every byte an accessor hands out. */
static volatile uint64_t sink;

static void touch(const void *p, size_t n) {
  const volatile uint8_t *b = p;
  uint64_t s = 0;
  for (size_t i = 0; p && i < n; i++)
    s += b[i];
  sink += s;
}

static void touch_str(const char *s) {
  if (s) touch(s, strlen(s) + 1);
}

static void touch_ivec(ap_ivec v) {
  touch(v.v, v.n * sizeof *v.v);
}

static void walk_op(const ap_model *m, size_t sg, size_t k) {
  ap_op_info op;
  if (ap_model_op(m, sg, k, &op) == AP_OK) {
    touch_str(op.custom);
    touch_ivec(op.inputs);
    touch_ivec(op.outputs);
    touch_ivec(op.intermediates);
    touch(op.custom_options, op.custom_options_size);
  }
  ap_op_options o;
  (void)ap_model_op_options(m, sg, k, &o);
  for (int which = 1; which <= 2; which++)
    for (unsigned f = 0; f < 48; f++) {
      ap_raw_field r;
      if (ap_model_op_raw_option(m, sg, k, which, f, &r) == AP_OK) touch(r.data, r.size);
    }
}

static void walk_model(const ap_model *m) {
  size_t n = 0;
  touch(ap_model_bytes(m, &n), n);
  touch_str(ap_model_path(m));
  touch_str(ap_model_description(m));
  sink += ap_model_version(m);
  for (size_t i = 0; i <= ap_model_buffer_count(m); i++) {
    const uint8_t *b = ap_model_buffer(m, i, &n);
    touch(b, n);
  }
  for (size_t i = 0; i <= ap_model_opcode_count(m); i++) {
    ap_opcode_info oc;
    if (ap_model_opcode(m, i, &oc) == AP_OK) touch_str(oc.custom);
  }
  for (size_t i = 0; i <= ap_model_metadata_count(m); i++) {
    ap_metadata_info md;
    if (ap_model_metadata(m, i, &md) == AP_OK) touch_str(md.name);
  }
  for (size_t i = 0; i <= ap_model_signature_count(m); i++) {
    ap_signature_info s;
    if (ap_model_signature(m, i, &s) != AP_OK) continue;
    touch_str(s.key);
    ap_tensor_map tm;
    for (size_t k = 0; k <= s.input_count; k++)
      if (ap_model_signature_input(m, i, k, &tm) == AP_OK) touch_str(tm.name);
    for (size_t k = 0; k <= s.output_count; k++)
      if (ap_model_signature_output(m, i, k, &tm) == AP_OK) touch_str(tm.name);
  }
  for (size_t sg = 0; sg <= ap_model_subgraph_count(m); sg++) {
    touch_str(ap_model_subgraph_name(m, sg));
    touch_ivec(ap_model_subgraph_inputs(m, sg));
    touch_ivec(ap_model_subgraph_outputs(m, sg));
    sink += ap_model_input_bytes(m, sg) + ap_model_output_bytes(m, sg);
    for (size_t t = 0; t <= ap_model_tensor_count(m, sg); t++) {
      ap_tensor_info ti;
      if (ap_model_tensor(m, sg, t, &ti) != AP_OK) continue;
      touch_str(ti.name);
      touch_ivec(ti.shape);
      touch_ivec(ti.shape_signature);
      touch(ti.scale, ti.scale_count * sizeof *ti.scale);
      touch(ti.zero_point, ti.zero_point_count * sizeof *ti.zero_point);
    }
    for (size_t k = 0; k <= ap_model_op_count(m, sg); k++)
      walk_op(m, sg, k);
  }
  sink += ap_model_weight_bytes(m, &n);
}

/* Lifetimes under one rule set; the whole model's problem (and, for TFLite's rules, each
 * subgraph's) planned with every strategy. */
static void plan_rules(const ap_model *m, ap_rules rules, bool preserve) {
  ap_graph_options go = {.rules = rules, .preserve_inputs = preserve};
  ap_graph *g = NULL;
  ap_status st = ap_graph_create(m, &go, NULL, &g);
  if (!g) return;
  if (st != AP_OK) {
    if (!ap_graph_error(g)[0]) fuzz_die("graph", "failure without a message");
    ap_graph_destroy(g);
    return;
  }
  for (size_t s = 0; s <= ap_graph_step_count(g); s++) {
    uint32_t sg;
    int32_t op;
    (void)ap_graph_step(g, s, &sg, &op);
  }
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++) {
    for (size_t k = 0; k < ap_model_op_count(m, sg); k++)
      sink += (uint64_t)ap_graph_op_step(g, sg, k);
    for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++) {
      ap_lifetime lt;
      if (ap_graph_tensor(g, sg, t, &lt) == AP_OK && lt.planned && lt.first > lt.last) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "%s rules: subgraph %zu tensor %zu planned with first %d > last %d",
                 ap_rules_name(rules), sg, t, lt.first, lt.last);
        fuzz_die("graph", msg);
      }
    }
  }
  if (ap_model_subgraph_count(m) && ap_model_op_count(m, 0)) {
    uint64_t id;
    (void)ap_graph_add_scratch(g, 0, 0, 48, &id);
  }
  int first = rules == AP_RULES_TFLITE ? 0 : -1;
  int last = rules == AP_RULES_TFLITE ? (int)ap_model_subgraph_count(m) - 1 : -1;
  for (int sg = first; sg <= last; sg++) {
    ap_problem *p = NULL;
    st = ap_graph_problem(g, sg, rules == AP_RULES_TFLITE ? 64 : 16, &p);
    if (st == AP_OK) {
      const ap_request *r = ap_problem_requests(p);
      for (size_t i = 0; i < ap_problem_count(p); i++) {
        uint32_t osg, ot;
        (void)ap_graph_id_tensor(g, r[i].id, &osg, &ot);
      }
      fuzz_plan_all(p);
    } else if (!ap_graph_error(g)[0]) {
      fuzz_die("problem", "failure without a message");
    }
    ap_problem_destroy(p);
  }
  ap_graph_destroy(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t map_size;
  uint8_t *copy = fuzz_readonly_copy(data, size, &map_size);
  if (!copy) return 0;
  ap_model *m = NULL;
  ap_status st = ap_model_from_buffer(copy, size, "fuzz.tflite", NULL, &m);
  if (!m) fuzz_die("model", "no model handle");
  if (st != AP_OK) {
    if (!ap_model_error(m)[0]) fuzz_die("model", "failure without a message");
  }
  /* The accessors must be safe on a failed model too (counts are 0). */
  walk_model(m);
  if (st == AP_OK) {
    plan_rules(m, AP_RULES_ARENAPLAN, size % 2 == 1);
    plan_rules(m, AP_RULES_TFLITE, false);
    plan_rules(m, AP_RULES_TFLM, false);
  }
  ap_model_destroy(m);
  fuzz_readonly_free(copy, map_size);
  return 0;
}
