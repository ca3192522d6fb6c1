/* Control flow and resource variables on models crafted with the writer, where every value is
 * known by hand: IF takes each branch, a WHILE counts, and hostile models (a subgraph out of
 * range, recursion, a cond that is no bool, counts that differ, nesting too deep, a variable
 * never given a size) fail with a message that says what is wrong. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <string.h>

enum { OPT_IF = 92, OPT_WHILE = 93, OPT_CALL_ONCE = 103, OPT_VAR_HANDLE = 111 };
enum { OP_ADD = 0, OP_MUL = 18, OP_LESS = 58, OP_IF = 118, OP_WHILE = 119, OP_CALL_ONCE = 129 };
enum { OP_VAR_HANDLE = 142, OP_READ_VARIABLE = 143, OP_ASSIGN_VARIABLE = 144 };

static const int32_t vec4[] = {4};

static int32_t tensor(ap_writer *w, uint32_t sg, int type, const int32_t *shape, size_t rank,
                      uint32_t buffer) {
  int32_t idx = -1;
  ap_writer_tensor t = {.type = type, .shape = shape, .rank = rank, .buffer = buffer};
  CHECK_MSG(ap_writer_add_tensor(w, sg, &t, &idx) == AP_OK, "%s", ap_writer_error(w));
  return idx;
}

static uint32_t constant(ap_writer *w, const void *data, size_t bytes) {
  uint32_t b = 0;
  CHECK(ap_writer_add_buffer(w, data, bytes, &b) == AP_OK);
  return b;
}

static void op(ap_writer *w, uint32_t sg, uint32_t code, const int32_t *in, size_t nin,
               const int32_t *out, size_t nout, const ap_options *o) {
  ap_writer_op x = {.opcode = code,
                    .inputs = in,
                    .input_count = nin,
                    .outputs = out,
                    .output_count = nout,
                    .options = o};
  CHECK_MSG(ap_writer_add_op(w, sg, &x, NULL) == AP_OK, "%s", ap_writer_error(w));
}

static ap_options two_subgraphs(uint8_t type, int32_t a, int32_t b) {
  ap_options o = {.type = type, .count = 2};
  o.fields[0] = (ap_option_field){.id = 0, .kind = AP_OPT_INT32, .i = a};
  o.fields[1] = (ap_option_field){.id = 1, .kind = AP_OPT_INT32, .i = b};
  return o;
}

static uint32_t code(ap_writer *w, int32_t builtin) {
  uint32_t c = 0;
  CHECK(ap_writer_add_opcode(w, builtin, 1, &c) == AP_OK);
  return c;
}

static ap_model *load(ap_writer *w) {
  const uint8_t *bytes;
  size_t size;
  CHECK(ap_writer_finish(w, &bytes, &size) == AP_OK);
  ap_model *m = NULL;
  CHECK_MSG(ap_model_from_buffer(bytes, size, "crafted.tflite", NULL, &m) == AP_OK, "%s",
            ap_model_error(m));
  return m;
}

/* Allocates with `strategy`; on failure returns the status and copies the message. */
static ap_status allocate(const ap_model *m, const char *strategy, ap_interpreter **out, char *msg,
                          size_t msg_size) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.strategy = strategy;
  ap_status s = ap_interpreter_create(m, &o, out);
  if (s == AP_OK) s = ap_interpreter_allocate(*out);
  snprintf(msg, msg_size, "%s", ap_interpreter_error(*out));
  return s;
}

/* IF(c, x): then = x + x, else = x * x. */
static void if_both_branches(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  uint32_t cif = code(w, OP_IF), cadd = code(w, OP_ADD), cmul = code(w, OP_MUL), s1, s2;
  ap_writer_add_subgraph(w, "then", &s1);
  ap_writer_add_subgraph(w, "else", &s2);
  int32_t c = tensor(w, 0, AP_BOOL, NULL, 0, 0), x = tensor(w, 0, AP_FLOAT32, vec4, 1, 0),
          y = tensor(w, 0, AP_FLOAT32, vec4, 1, 0), ins[] = {c, x};
  ap_writer_set_subgraph_io(w, 0, ins, 2, &y, 1);
  ap_options io = two_subgraphs(OPT_IF, (int32_t)s1, (int32_t)s2);
  op(w, 0, cif, ins, 2, &y, 1, &io);
  ap_options add = ap_options_add(AP_ACT_NONE), mul = ap_options_mul(AP_ACT_NONE);
  for (uint32_t sg = s1; sg <= s2; sg++) {
    int32_t a = tensor(w, sg, AP_FLOAT32, vec4, 1, 0), b = tensor(w, sg, AP_FLOAT32, vec4, 1, 0),
            aa[] = {a, a};
    ap_writer_set_subgraph_io(w, sg, &a, 1, &b, 1);
    op(w, sg, sg == s1 ? cadd : cmul, aa, 2, &b, 1, sg == s1 ? &add : &mul);
  }
  ap_model *m = load(w);
  ap_interpreter *it = NULL;
  char msg[256];
  CHECK_MSG(allocate(m, NULL, &it, msg, sizeof msg) == AP_OK, "%s", msg);
  ap_tensor tc, tx, ty;
  if (ap_interpreter_input(it, 0, &tc) == AP_OK && ap_interpreter_input(it, 1, &tx) == AP_OK &&
      tc.data && tx.data) {
    static const float in[4] = {1.0f, 2.0f, 3.0f, -4.0f};
    static const float then_want[4] = {2.0f, 4.0f, 6.0f, -8.0f};
    static const float else_want[4] = {1.0f, 4.0f, 9.0f, 16.0f};
    for (int pick = 1; pick >= 0; pick--) {
      memcpy(tx.data, in, sizeof in);
      *(uint8_t *)tc.data = (uint8_t)pick;
      CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
      CHECK(ap_interpreter_output(it, 0, &ty) == AP_OK && ty.bytes == 16);
      CHECK(memcmp(ty.data, pick ? then_want : else_want, 16) == 0);
    }
  }
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

/* WHILE(i, x) with cond i < 3, body (i + 1, (x + x) * x): a body intermediate between two ops.
 * Under every strategy, the same bytes as a hand computation. Without count_out the loop's
 * counter output is read by no one: it still holds the loop's state while the loop runs. */
static void while_counts(bool count_out) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  uint32_t cwhile = code(w, OP_WHILE), cadd = code(w, OP_ADD), cmul = code(w, OP_MUL),
           cless = code(w, OP_LESS), s1, s2;
  ap_writer_add_subgraph(w, "cond", &s1);
  ap_writer_add_subgraph(w, "body", &s2);
  int32_t i = tensor(w, 0, AP_INT32, NULL, 0, 0), x = tensor(w, 0, AP_FLOAT32, vec4, 1, 0),
          i2 = tensor(w, 0, AP_INT32, NULL, 0, 0), x2 = tensor(w, 0, AP_FLOAT32, vec4, 1, 0);
  int32_t ins[] = {i, x}, outs[] = {i2, x2};
  ap_writer_set_subgraph_io(w, 0, ins, 2, count_out ? outs : &x2, count_out ? 2 : 1);
  ap_options wo = two_subgraphs(OPT_WHILE, (int32_t)s1, (int32_t)s2);
  op(w, 0, cwhile, ins, 2, outs, 2, &wo);
  static const int32_t three = 3, one = 1;
  int32_t ci = tensor(w, s1, AP_INT32, NULL, 0, 0), cx = tensor(w, s1, AP_FLOAT32, vec4, 1, 0),
          c3 = tensor(w, s1, AP_INT32, NULL, 0, constant(w, &three, 4)),
          cb = tensor(w, s1, AP_BOOL, NULL, 0, 0), cins[] = {ci, cx}, less_in[] = {ci, c3};
  ap_writer_set_subgraph_io(w, s1, cins, 2, &cb, 1);
  op(w, s1, cless, less_in, 2, &cb, 1, NULL);
  ap_options add = ap_options_add(AP_ACT_NONE), mul = ap_options_mul(AP_ACT_NONE);
  int32_t bi = tensor(w, s2, AP_INT32, NULL, 0, 0), bx = tensor(w, s2, AP_FLOAT32, vec4, 1, 0),
          b1 = tensor(w, s2, AP_INT32, NULL, 0, constant(w, &one, 4)),
          bi2 = tensor(w, s2, AP_INT32, NULL, 0, 0), bt = tensor(w, s2, AP_FLOAT32, vec4, 1, 0),
          bx2 = tensor(w, s2, AP_FLOAT32, vec4, 1, 0);
  int32_t bins[] = {bi, bx}, bouts[] = {bi2, bx2}, inc[] = {bi, b1}, dbl[] = {bx, bx},
          sq[] = {bt, bx};
  ap_writer_set_subgraph_io(w, s2, bins, 2, bouts, 2);
  op(w, s2, cadd, inc, 2, &bi2, 1, &add);
  op(w, s2, cadd, dbl, 2, &bt, 1, &add);
  op(w, s2, cmul, sq, 2, &bx2, 1, &mul);
  ap_model *m = load(w);
  /* x -> 2x*x per iteration: 0.5 -> 0.5 -> 0.5; 1 -> 2 -> 8 -> 128; -1 -> 2 -> 8 -> 128. */
  static const float x0[4] = {0.5f, 1.0f, -1.0f, 0.0f};
  static const float x3[4] = {0.5f, 128.0f, 128.0f, 0.0f};
  for (size_t k = 0; k < ap_strategy_count(); k++) {
    ap_interpreter *it = NULL;
    char msg[256];
    const char *strategy = ap_strategy_name(k);
    CHECK_MSG(allocate(m, strategy, &it, msg, sizeof msg) == AP_OK, "%s: %s", strategy, msg);
    ap_tensor ti, tx, to;
    for (int32_t start = 0; start <= 5; start += 5) {
      if (ap_interpreter_input(it, 0, &ti) != AP_OK || ap_interpreter_input(it, 1, &tx) != AP_OK)
        break;
      memcpy(ti.data, &start, 4);
      memcpy(tx.data, x0, 16);
      CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
      int32_t count = 0;
      if (count_out) {
        CHECK(ap_interpreter_output(it, 0, &to) == AP_OK && to.bytes == 4);
        memcpy(&count, to.data, 4);
        /* From 0: three iterations; from 5: none, the inputs pass through. */
        CHECK_MSG(count == (start ? 5 : 3), "%s: count %d", strategy, (int)count);
      }
      CHECK(ap_interpreter_output(it, count_out ? 1 : 0, &to) == AP_OK && to.bytes == 16);
      CHECK_MSG(memcmp(to.data, start ? x0 : x3, 16) == 0, "%s: x differs", strategy);
    }
    ap_interpreter_destroy(it);
  }
  /* max_loop_iterations: from 0 the body runs 3 times; a cap of 3 lets it, a cap of 2 stops the
   * op on the third run. */
  for (uint64_t cap = 2; count_out && cap <= 3; cap++) {
    ap_interpreter_options o = ap_interpreter_defaults();
    o.max_loop_iterations = cap;
    ap_interpreter *it = NULL;
    CHECK(ap_interpreter_create(m, &o, &it) == AP_OK && ap_interpreter_allocate(it) == AP_OK);
    ap_tensor ti, tx;
    int32_t start = 0;
    CHECK(ap_interpreter_input(it, 0, &ti) == AP_OK && ap_interpreter_input(it, 1, &tx) == AP_OK);
    memcpy(ti.data, &start, 4);
    memcpy(tx.data, x0, 16);
    ap_status st = ap_interpreter_invoke(it);
    CHECK_EQ(st, cap == 3 ? AP_OK : AP_ERR_TIMEOUT);
    if (cap == 2)
      CHECK_CONTAINS(ap_interpreter_error(it),
                     "subgraph 0 op 0 (WHILE): its body ran 2 times and the condition is "
                     "still true (the "
                     "interpreter's max_loop_iterations)");
    ap_interpreter_destroy(it);
  }
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

/* Subgraph 0: WHILE(cond 2, body 1). Subgraph 1: a WHILE(cond 2, body sg1_body), or an ADD when
 * sg1_body < 0. Subgraph 2 (cond): LESS of its first input with its last, an output of
 * cond_type, cond_inputs inputs. Allocation must fail with `want` in the message (NULL: must
 * succeed). */
static void hostile_while(int32_t sg1_body, int cond_type, size_t cond_inputs, const char *want) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  uint32_t cwhile = code(w, OP_WHILE), cless = code(w, OP_LESS), cadd = code(w, OP_ADD), sg;
  for (int k = 0; k < 2; k++)
    ap_writer_add_subgraph(w, NULL, &sg);
  ap_options add = ap_options_add(AP_ACT_NONE);
  for (uint32_t s = 0; s < 3; s++) {
    int32_t a = tensor(w, s, AP_FLOAT32, vec4, 1, 0), b = tensor(w, s, AP_FLOAT32, vec4, 1, 0);
    if (s == 2) {
      int32_t c = tensor(w, s, cond_type, vec4, 1, 0), ab[] = {a, b};
      ap_writer_set_subgraph_io(w, s, ab, cond_inputs, &c, 1);
      int32_t less_in[] = {a, cond_inputs > 1 ? b : a};
      op(w, s, cless, less_in, 2, &c, 1, NULL);
      continue;
    }
    ap_writer_set_subgraph_io(w, s, &a, 1, &b, 1);
    ap_options wo = two_subgraphs(OPT_WHILE, 2, s == 0 ? 1 : sg1_body);
    int32_t aa[] = {a, a};
    if (s == 1 && sg1_body < 0)
      op(w, s, cadd, aa, 2, &b, 1, &add);
    else
      op(w, s, cwhile, &a, 1, &b, 1, &wo);
  }
  ap_model *m = load(w);
  ap_interpreter *it = NULL;
  char msg[256];
  ap_status s = allocate(m, NULL, &it, msg, sizeof msg);
  if (want) {
    CHECK_MSG(s != AP_OK, "allocates: wanted \"%s\"", want);
    CHECK_CONTAINS(msg, want);
    CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  } else {
    CHECK_MSG(s == AP_OK, "%s", msg);
  }
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

static void hostile(void) {
  /* Subgraph 1 is a WHILE whose body is subgraph 1 itself. */
  hostile_while(1, AP_BOOL, 1,
                "subgraph 1 op 0 (WHILE): body subgraph 1 is the op's own subgraph (a recursion)");
  /* Subgraph 1's body is subgraph 0, which calls subgraph 1: a cycle through two subgraphs. */
  hostile_while(0, AP_BOOL, 1, "crafted.tflite: subgraph 0 calls itself through control flow");
  hostile_while(-1, AP_FLOAT32, 1,
                "subgraph 0 op 0 (WHILE): cond subgraph 2's output 0 is FLOAT32 of 16 bytes, not "
                "a bool");
  hostile_while(-1, AP_BOOL, 2,
                "subgraph 0 op 0 (WHILE): subgraph 2 has 2 input(s), the op gives it 1");
  /* The same model with nothing wrong allocates: each failure above has the named cause. */
  hostile_while(-1, AP_BOOL, 1, NULL);
  /* A subgraph index out of range never gets past the model's verifier. */
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  uint32_t cwhile = code(w, OP_WHILE);
  int32_t a = tensor(w, 0, AP_FLOAT32, vec4, 1, 0), b = tensor(w, 0, AP_FLOAT32, vec4, 1, 0);
  ap_writer_set_subgraph_io(w, 0, &a, 1, &b, 1);
  ap_options wo = two_subgraphs(OPT_WHILE, 7, 0);
  op(w, 0, cwhile, &a, 1, &b, 1, &wo);
  const uint8_t *bytes;
  size_t size;
  CHECK(ap_writer_finish(w, &bytes, &size) == AP_OK);
  ap_model *m = NULL;
  CHECK(ap_model_from_buffer(bytes, size, "crafted.tflite", NULL, &m) != AP_OK);
  CHECK_CONTAINS(ap_model_error(m), "cond_subgraph_index 7 out of range (model has 1 subgraphs)");
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

/* 66 subgraphs, each CALL_ONCE-ing the next: deeper than the runtime's 64 levels. */
static void too_deep(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  uint32_t once = code(w, OP_CALL_ONCE), sg;
  for (uint32_t s = 0; s < 66; s++) {
    if (s) ap_writer_add_subgraph(w, NULL, &sg);
    if (s == 65) break;
    ap_options o = {.type = OPT_CALL_ONCE, .count = 1};
    o.fields[0] = (ap_option_field){.id = 0, .kind = AP_OPT_INT32, .i = (int64_t)s + 1};
    op(w, s, once, NULL, 0, NULL, 0, &o);
  }
  ap_model *m = load(w);
  ap_interpreter *it = NULL;
  char msg[256];
  CHECK(allocate(m, NULL, &it, msg, sizeof msg) == AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(msg, "control flow nested deeper than 64");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

/* 24 subgraphs, each an IF whose both branches are the next: 2^24 call paths, each with its own
 * steps. Allocate refuses it quickly instead of building a timeline of gigabytes. */
static void fan_out(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  uint32_t cif = code(w, OP_IF), sg;
  for (uint32_t s = 0; s <= 24; s++) {
    if (s) ap_writer_add_subgraph(w, NULL, &sg);
    if (s == 24) break;
    int32_t c = tensor(w, s, AP_BOOL, NULL, 0, 0);
    if (s == 0) ap_writer_set_subgraph_io(w, 0, &c, 1, NULL, 0);
    ap_options o = two_subgraphs(OPT_IF, (int32_t)s + 1, (int32_t)s + 1);
    op(w, s, cif, &c, 1, NULL, 0, &o);
  }
  ap_model *m = load(w);
  ap_interpreter *it = NULL;
  char msg[256];
  CHECK(allocate(m, NULL, &it, msg, sizeof msg) == AP_ERR_UNSUPPORTED);
  CHECK_STR(msg, "crafted.tflite: control flow expands to more than 4194304 steps (subgraphs "
                 "called from many places)");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

/* VAR_HANDLE + READ_VARIABLE with no ASSIGN_VARIABLE: the variable has no size; and CALL_ONCE
 * with an input. */
static void hostile_variables(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  uint32_t handle = code(w, OP_VAR_HANDLE), read = code(w, OP_READ_VARIABLE);
  int32_t h = tensor(w, 0, AP_RESOURCE, NULL, 0, 0), v = tensor(w, 0, AP_FLOAT32, vec4, 1, 0);
  ap_writer_set_subgraph_io(w, 0, NULL, 0, &v, 1);
  ap_options o = {.type = OPT_VAR_HANDLE, .count = 1};
  o.fields[0] = (ap_option_field){.id = 1, .kind = AP_OPT_STRING, .data = "state"};
  op(w, 0, handle, NULL, 0, &h, 1, &o);
  op(w, 0, read, &h, 1, &v, 1, NULL);
  ap_model *m = load(w);
  ap_interpreter *it = NULL;
  char msg[256];
  CHECK_MSG(allocate(m, NULL, &it, msg, sizeof msg) == AP_OK, "%s", msg);
  CHECK(ap_interpreter_invoke(it) == AP_ERR_FORMAT);
  CHECK_STR(ap_interpreter_error(it),
            "subgraph 0 op 1 (READ_VARIABLE): resource variable 0 (\"state\") has no size: no "
            "ASSIGN_VARIABLE in the subgraph of its VAR_HANDLE gives it one");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

int main(void) {
  if_both_branches();
  while_counts(true);
  while_counts(false);
  hostile();
  too_deep();
  fan_out();
  hostile_variables();
  return ap_test_done();
}
