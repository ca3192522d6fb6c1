/* The int16 element-wise kernels and HARD_SWISH, ELU, LOG_SOFTMAX read each element before
 * writing the same one, so an in-place plan (outputs over dying inputs) gives the bytes of
 * the plain one: an int16 chain ABS -> LOGISTIC -> TANH -> SOFTMAX -> ADD(x) and a float chain
 * HARD_SWISH -> ELU -> LOG_SOFTMAX -> PRELU -> ADD(x), run with and without in-place sharing. */
#include "rt_test.h"

#include <string.h>

static int32_t q16(ap_writer *w, const char *name, const int32_t *shape, float scale) {
  int32_t t = -1;
  const int64_t zp = 0;
  ap_writer_add_tensor(w, 0,
                       &(ap_writer_tensor){.name = name,
                                           .type = AP_INT16,
                                           .shape = shape,
                                           .rank = 2,
                                           .scale = &scale,
                                           .scale_count = 1,
                                           .zero_point = &zp,
                                           .zero_point_count = 1},
                       &t);
  return t;
}

static void op(ap_writer *w, uint32_t code, const int32_t *in, size_t n_in, int32_t out,
               const ap_options *o) {
  ap_writer_add_op(w, 0,
                   &(ap_writer_op){.opcode = code,
                                   .inputs = in,
                                   .input_count = n_in,
                                   .outputs = &out,
                                   .output_count = 1,
                                   .options = o},
                   NULL);
}

static ap_model *int16_chain(uint8_t **bytes) {
  ap_writer *w;
  if (ap_writer_create(NULL, &w) != AP_OK) return NULL;
  uint32_t c_abs, c_log, c_tanh, c_soft, c_add;
  ap_writer_add_opcode(w, 101, 1, &c_abs);
  ap_writer_add_opcode(w, 14, 1, &c_log);
  ap_writer_add_opcode(w, 28, 1, &c_tanh);
  ap_writer_add_opcode(w, 25, 1, &c_soft);
  ap_writer_add_opcode(w, 0, 1, &c_add);
  static const int32_t s[] = {4, 16};
  const float q15 = 1.0f / 32768;
  int32_t x = q16(w, "x", s, 1.0f / 4096), a = q16(w, "a", s, 1.0f / 4096);
  int32_t l = q16(w, "l", s, q15), t = q16(w, "t", s, q15), m = q16(w, "m", s, q15);
  int32_t y = q16(w, "y", s, 1.0f / 2048);
  op(w, c_abs, &x, 1, a, NULL);
  op(w, c_log, &a, 1, l, NULL);
  op(w, c_tanh, &l, 1, t, NULL);
  ap_options soft = ap_options_softmax(1.0f);
  op(w, c_soft, &t, 1, m, &soft);
  int32_t add_in[2] = {m, x};
  ap_options add = ap_options_add(AP_ACT_NONE);
  op(w, c_add, add_in, 2, y, &add);
  ap_writer_set_subgraph_io(w, 0, &x, 1, &y, 1);
  ap_model *model = rt_finish(w, bytes);
  ap_writer_destroy(w);
  return model;
}

static ap_model *float_chain(uint8_t **bytes) {
  ap_writer *w;
  if (ap_writer_create(NULL, &w) != AP_OK) return NULL;
  uint32_t c_hs, c_elu, c_ls, c_prelu, c_add;
  ap_writer_add_opcode(w, 117, 1, &c_hs);
  ap_writer_add_opcode(w, 111, 1, &c_elu);
  ap_writer_add_opcode(w, 50, 1, &c_ls);
  ap_writer_add_opcode(w, 54, 1, &c_prelu);
  ap_writer_add_opcode(w, 0, 1, &c_add);
  static const int32_t s[] = {4, 16}, s1[] = {16};
  static const float slope[16] = {0.5f, 0.25f, -1.0f, 2.0f, 0.5f, 0.25f, -1.0f, 2.0f,
                                  0.5f, 0.25f, -1.0f, 2.0f, 0.5f, 0.25f, -1.0f, 2.0f};
  uint32_t buf;
  ap_writer_add_buffer(w, slope, sizeof slope, &buf);
  int32_t x = rt_float_tensor(w, "x", s, 2), h = rt_float_tensor(w, "h", s, 2);
  int32_t e = rt_float_tensor(w, "e", s, 2), l = rt_float_tensor(w, "l", s, 2);
  int32_t p = rt_float_tensor(w, "p", s, 2), y = rt_float_tensor(w, "y", s, 2), alpha = -1;
  ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.shape = s1, .rank = 1, .buffer = buf}, &alpha);
  op(w, c_hs, &x, 1, h, NULL);
  op(w, c_elu, &h, 1, e, NULL);
  op(w, c_ls, &e, 1, l, NULL);
  int32_t prelu_in[2] = {l, alpha}, add_in[2] = {p, x};
  op(w, c_prelu, prelu_in, 2, p, NULL);
  ap_options add = ap_options_add(AP_ACT_NONE);
  op(w, c_add, add_in, 2, y, &add); /* keeps x alive: the chain's sharing shows in the arena */
  ap_writer_set_subgraph_io(w, 0, &x, 1, &y, 1);
  ap_model *model = rt_finish(w, bytes);
  ap_writer_destroy(w);
  return model;
}

/* Runs m with the given sharing on seeded input bytes; the output's bytes into out. */
static size_t run(ap_model *m, bool inplace, uint8_t *out, size_t cap, size_t *arena) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.inplace = inplace;
  ap_interpreter *it = NULL;
  size_t n = 0;
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
  if (!it) return 0;
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  ap_tensor in, y;
  if (ap_interpreter_input(it, 0, &in) == AP_OK && in.data) {
    uint64_t r = 99;
    for (size_t i = 0; i < in.bytes; i++)
      ((uint8_t *)in.data)[i] = (uint8_t)(ap_test_rand(&r) >> 56);
    if (in.type == AP_FLOAT32) {
      for (size_t i = 0; i < in.bytes / 4; i++)
        ((float *)in.data)[i] = (float)((int)(ap_test_rand(&r) % 2001) - 1000) / 200.0f;
    }
  }
  CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
  if (ap_interpreter_output(it, 0, &y) == AP_OK && y.bytes <= cap) {
    memcpy(out, y.data, y.bytes);
    n = y.bytes;
  }
  ap_memory_usage u;
  *arena = ap_interpreter_memory(it, &u) == AP_OK ? (size_t)u.arena : 0;
  ap_interpreter_destroy(it);
  return n;
}

/* The requests of m's problem under arenaplan's rules, with or without sharing. */
static size_t requests(const ap_model *m, bool inplace) {
  ap_graph *g = NULL;
  ap_problem *p = NULL;
  size_t n = 0;
  ap_graph_options o = {.rules = AP_RULES_ARENAPLAN, .inplace = inplace};
  if (ap_graph_create(m, &o, NULL, &g) == AP_OK && ap_graph_problem(g, -1, 16, &p) == AP_OK)
    n = ap_problem_count(p);
  ap_problem_destroy(p);
  ap_graph_destroy(g);
  return n;
}

static void check_chain(ap_model *(*make)(uint8_t **), const char *what) {
  uint8_t *bytes = NULL;
  ap_model *m = make(&bytes);
  CHECK_MSG(m != NULL, "%s: model", what);
  if (m) {
    uint8_t plain[256], shared[256];
    size_t arena_plain, arena_shared;
    size_t n1 = run(m, false, plain, sizeof plain, &arena_plain);
    size_t n2 = run(m, true, shared, sizeof shared, &arena_shared);
    CHECK_MSG(n1 > 0 && n1 == n2 && memcmp(plain, shared, n1) == 0, "%s: in-place output differs",
              what);
    CHECK_MSG(arena_shared <= arena_plain, "%s: arena %zu in place, %zu plain", what, arena_shared,
              arena_plain);
    /* Every op of the chain but the first (its input is the model's) shares: one request
     * for the whole chain beside x and y. */
    CHECK_MSG(requests(m, true) == 3 && requests(m, false) == 6, "%s: %zu requests in place, %zu",
              what, requests(m, true), requests(m, false));
    ap_model_destroy(m);
  }
  free(bytes);
}

int main(void) {
  check_chain(int16_chain, "int16 chain");
  check_chain(float_chain, "float chain");
  return ap_test_done();
}
