/* Builtin ops prepared once (options.prepare): invoke calls no kernel's prepare, outputs stay
 * TFLite Micro's, and prepare runs again exactly where shapes can change (dynamic ops at every
 * invoke, every op at a resize within the max dims). White-box: reads the interpreter's count
 * of prepare calls. */
#include "rt_test.h"

/* src/runtime/ready.c (internal): builtin kernels' prepare calls so far. */
uint64_t rt_prepare_calls(const ap_interpreter *it);

static ap_interpreter *make(const ap_model *m, int prepare, void *buf, size_t size) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.prepare = prepare;
  o.arena = buf;
  o.arena_size = size;
  ap_interpreter *it = NULL;
  ap_status s = ap_interpreter_create(m, &o, &it);
  if (s == AP_OK) s = ap_interpreter_allocate(it);
  CHECK_MSG(s == AP_OK, "%s", ap_interpreter_error(it));
  return it;
}

/* Three seeds against the oracle; returns the prepare calls the invokes made. */
static uint64_t invoke_seeds(ap_interpreter *it, const char *name) {
  uint64_t before = rt_prepare_calls(it);
  for (int seed = 1; seed <= 3; seed++) {
    CHECK(rt_feed_oracle(it, name, seed));
    CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
    for (size_t k = 0; k < ap_interpreter_output_count(it); k++)
      CHECK_MSG(rt_matches_oracle(it, name, seed, k), "%s seed %d output %zu", name, seed, k);
  }
  return rt_prepare_calls(it) - before;
}

static void static_model(const char *name) {
  ap_model *m = rt_load(name);
  CHECK(m != NULL);
  if (!m) return;
  size_t ops = ap_model_op_count(m, 0);
  ap_interpreter *once = make(m, AP_PREPARE_ONCE, NULL, 0);
  ap_interpreter *each = make(m, AP_PREPARE_EACH_INVOKE, NULL, 0);
  ap_interpreter *dflt = make(m, ap_interpreter_defaults().prepare, NULL, 0);
  if (once && each && dflt) {
    /* Allocate prepares every op once, and again each op whose kernel the default budget
     * chose other than the fast one (its parameters follow its kernel). */
    size_t again = 0;
    for (size_t k = 0; k < ops; k++)
      again += strcmp(ap_interpreter_op_kernel(once, 0, k), "fast") != 0 &&
               strcmp(ap_interpreter_op_kernel(once, 0, k), "-") != 0;
    CHECK_EQ(rt_prepare_calls(once), ops + again);
    CHECK_EQ(invoke_seeds(once, name), 0);
    CHECK_EQ(invoke_seeds(dflt, name), 3 * ops); /* the default: the smallest memory */
    CHECK_EQ(invoke_seeds(each, name), 3 * ops);
    /* The kept blocks are persistent memory, counted; prepared at each invoke keeps none. */
    ap_memory_usage uo, ue;
    CHECK(ap_interpreter_memory(once, &uo) == AP_OK && ap_interpreter_memory(each, &ue) == AP_OK);
    CHECK_EQ(ue.persistent, 0);
    CHECK(uo.persistent > 0);
    CHECK_EQ(uo.arena, ue.arena);
    /* Tables: a pointer per op besides (one subgraph here), in a 16-byte rounded block. */
    CHECK_EQ(ap_model_subgraph_count(m), 1);
    CHECK_EQ(uo.tables, ue.tables + (8 * ops + 15) / 16 * 16);
    /* reset_variables leaves the blocks alone. */
    CHECK(ap_interpreter_reset_variables(once) == AP_OK);
    CHECK_EQ(invoke_seeds(once, name), 0);

    /* A caller-owned buffer (a device): the same memory as from the allocator, exactly. */
    size_t size = (size_t)(uo.total + 64);
    void *buf = malloc(size);
    ap_interpreter *dev = make(m, AP_PREPARE_EACH_INVOKE, buf, size);
    ap_memory_usage u;
    CHECK(dev && ap_interpreter_memory(dev, &u) == AP_OK && u.persistent == 0);
    if (dev) CHECK_EQ(invoke_seeds(dev, name), 3 * ops);
    ap_interpreter_destroy(dev);
    dev = make(m, AP_PREPARE_ONCE, buf, size);
    CHECK(dev && ap_interpreter_memory(dev, &u) == AP_OK && u.persistent == uo.persistent);
    CHECK_EQ(u.total, uo.total);
    if (dev) CHECK_EQ(invoke_seeds(dev, name), 0);
    ap_interpreter_destroy(dev);
    free(buf);
  }
  ap_interpreter_destroy(once);
  ap_interpreter_destroy(each);
  ap_interpreter_destroy(dflt);
  ap_model_destroy(m);
}

/* dynamic_shapes: its dynamic ops (shapes from an input's value) are prepared at every
 * invoke, the others never; outputs follow the value (test_dynamic checks them in full). */
static void dynamic_model(void) {
  ap_model *m = rt_load("dynamic_shapes");
  CHECK(m != NULL);
  if (!m) return;
  ap_interpreter *it = make(m, AP_PREPARE_ONCE, NULL, 0);
  if (it) {
    size_t ops = ap_model_op_count(m, 0);
    uint64_t per[2];
    const float z[2] = {4.5f, 2.0f};
    for (int i = 0; i < 2; i++) {
      ap_tensor zt, out;
      CHECK(ap_interpreter_input(it, 2, &zt) == AP_OK);
      ((float *)zt.data)[0] = z[i];
      uint64_t before = rt_prepare_calls(it);
      CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
      per[i] = rt_prepare_calls(it) - before;
      CHECK(ap_interpreter_output(it, 0, &out) == AP_OK);
      CHECK(out.rank == 3 && out.dims[1] == (int32_t)z[i]);
    }
    CHECK(per[0] > 0 && per[0] < ops);
    CHECK_EQ(per[0], per[1]);
  }
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
}

/* A resize within the max dims prepares every op again, into the same blocks; invoke then
 * prepares nothing and runs at the new shapes. */
static void resized(void) {
  ap_model *m = rt_load("hello_world_float");
  CHECK(m != NULL);
  if (!m) return;
  int32_t max[2] = {4, 1}, three[2] = {3, 1};
  ap_dims d = {max, 2};
  ap_interpreter_options o = ap_interpreter_defaults();
  o.prepare = AP_PREPARE_ONCE;
  o.max_input_dims = &d;
  o.max_input_count = 1;
  ap_interpreter *it = NULL;
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK && ap_interpreter_allocate(it) == AP_OK);
  ap_memory_usage u0, u1;
  CHECK(ap_interpreter_memory(it, &u0) == AP_OK);
  uint64_t before = rt_prepare_calls(it);
  CHECK(ap_interpreter_resize_input(it, 0, three, 2) == AP_OK);
  CHECK_EQ(rt_prepare_calls(it) - before, ap_model_op_count(m, 0));
  ap_tensor in, out;
  CHECK(ap_interpreter_input(it, 0, &in) == AP_OK && in.dims[0] == 3);
  for (int i = 0; i < 3; i++)
    ((float *)in.data)[i] = (float)i;
  before = rt_prepare_calls(it);
  CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s", ap_interpreter_error(it));
  CHECK_EQ(rt_prepare_calls(it), before);
  CHECK(ap_interpreter_output(it, 0, &out) == AP_OK && out.dims[0] == 3 && out.bytes == 12);
  float rows[3];
  memcpy(rows, out.data, sizeof rows);
  CHECK(ap_interpreter_memory(it, &u1) == AP_OK);
  CHECK_EQ(u1.persistent, u0.persistent); /* rewritten in place */
  /* Each row equals a batch-1 run of the same value. */
  ap_interpreter *one = make(m, AP_PREPARE_EACH_INVOKE, NULL, 0);
  for (int i = 0; one && i < 3; i++) {
    CHECK(ap_interpreter_input(one, 0, &in) == AP_OK);
    ((float *)in.data)[0] = (float)i;
    CHECK(ap_interpreter_invoke(one) == AP_OK && ap_interpreter_output(one, 0, &out) == AP_OK);
    CHECK_MSG(memcmp(out.data, &rows[i], 4) == 0, "row %d", i);
  }
  ap_interpreter_destroy(one);
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
}

/* Random input bytes (floats kept small and finite), the same for both interpreters. */
static void fill_inputs(ap_interpreter *it, uint64_t seed) {
  for (size_t k = 0; k < ap_interpreter_input_count(it); k++) {
    ap_tensor in;
    if (ap_interpreter_input(it, k, &in) != AP_OK || !in.data) continue;
    uint64_t st = seed * 977 + k;
    for (size_t b = 0; b < in.bytes; b++)
      ((uint8_t *)in.data)[b] = (uint8_t)ap_test_rand(&st);
    if (in.type == AP_FLOAT32)
      for (size_t b = 0; b < in.bytes / 4; b++)
        ((float *)in.data)[b] = (float)(ap_test_rand(&st) % 33) / 16.0f - 1.0f;
  }
}

/* Every shared model that allocates and has an arena below 1 MiB, with `kernels`: prepared once
 * and at each invoke give the same bytes over several invokes (state, variables and control flow
 * carry from one to the next), and after reset_variables; a model refused is refused alike. */
static void every_model(int kernels) {
  static char names[128][64];
  size_t n = ap_test_models(names, 128);
  int compared = 0;
  for (size_t i = 0; i < n; i++) {
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(names[i]) - strlen(".tflite")), names[i]);
    if (strcmp(name, "nested_while") == 0) continue; /* endless on these inputs (zeros) */
    ap_model *m = rt_load(name);
    if (!m) continue;
    ap_interpreter *it[2] = {NULL, NULL};
    ap_status s[2];
    for (int w = 0; w < 2; w++) {
      ap_interpreter_options o = ap_interpreter_defaults();
      o.prepare = w ? AP_PREPARE_ONCE : AP_PREPARE_EACH_INVOKE;
      o.kernels = kernels;
      o.max_loop_iterations = 100000;
      s[w] = ap_interpreter_create(m, &o, &it[w]);
      if (s[w] == AP_OK) s[w] = ap_interpreter_allocate(it[w]);
    }
    CHECK_MSG(s[0] == s[1], "%s: %d and %d", name, s[0], s[1]);
    ap_memory_usage u;
    if (s[0] == AP_OK && s[1] == AP_OK && ap_interpreter_memory(it[0], &u) == AP_OK &&
        u.arena < (1u << 20)) {
      for (int round = 0; round < 4; round++) {
        if (round == 3) {
          CHECK(ap_interpreter_reset_variables(it[0]) == AP_OK &&
                ap_interpreter_reset_variables(it[1]) == AP_OK);
        }
        for (int w = 0; w < 2; w++) {
          fill_inputs(it[w], (uint64_t)round % 2 + 1);
          s[w] = ap_interpreter_invoke(it[w]);
        }
        CHECK_MSG(s[0] == s[1], "%s round %d: %s / %s", name, round, ap_interpreter_error(it[0]),
                  ap_interpreter_error(it[1]));
        if (s[0] != AP_OK) {
          CHECK_STR(ap_interpreter_error(it[0]), ap_interpreter_error(it[1]));
          break;
        }
        for (size_t k = 0; k < ap_interpreter_output_count(it[0]); k++) {
          ap_tensor a, b;
          CHECK(ap_interpreter_output(it[0], k, &a) == AP_OK &&
                ap_interpreter_output(it[1], k, &b) == AP_OK);
          CHECK_MSG(a.bytes == b.bytes && (!a.bytes || memcmp(a.data, b.data, a.bytes) == 0),
                    "%s round %d output %zu differs", name, round, k);
        }
      }
      compared++;
    }
    ap_interpreter_destroy(it[0]);
    ap_interpreter_destroy(it[1]);
    ap_model_destroy(m);
  }
  CHECK(compared >= 16);
  printf("%d models (kernels %d): the same bytes prepared once and at each invoke\n", compared,
         kernels);
}

static void bad_option(void) {
  ap_model *m = rt_load("hello_world_int8");
  CHECK(m != NULL);
  ap_interpreter_options o = ap_interpreter_defaults();
  o.prepare = 3;
  ap_interpreter *it = NULL;
  CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it),
            "prepare 3: expected AP_PREPARE_EACH_INVOKE or AP_PREPARE_ONCE");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  static_model("mlperf_ad_fc_int8");
  static_model("mlperf_kws_dscnn_int8");
  static_model("micro_speech_int8");
  static_model("magic_wand_float");
  dynamic_model();
  resized();
  every_model(AP_KERNELS_FAST);
  every_model(AP_KERNELS_SMALL);
  every_model(AP_KERNELS_REFERENCE);
  bad_option();
  return ap_test_done();
}
