/* API misuse: NULL handles and pointers, invoke before allocate, allocate twice, accessors out
 * of range, a failing allocator at every call, and the documented destroy order. */
#include "rt_test.h"

#include <stdlib.h>

static void nulls(ap_model *m) {
  ap_interpreter *it = NULL;
  CHECK_EQ(ap_interpreter_create(m, NULL, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_create(NULL, NULL, &it), AP_ERR_ARG);
  CHECK(it != NULL);
  CHECK_STR(ap_interpreter_error(it), "no model");
  CHECK_EQ(ap_interpreter_allocate(it), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it), "the interpreter failed to create: no model");
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_input_count(it), 0);
  ap_interpreter_destroy(it);

  CHECK_EQ(ap_interpreter_allocate(NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_invoke(NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_reset_variables(NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_resize_input(NULL, 0, NULL, 0), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_input_count(NULL), 0);
  CHECK_EQ(ap_interpreter_output_count(NULL), 0);
  ap_tensor t;
  ap_memory_usage u;
  uint64_t a, b;
  CHECK_EQ(ap_interpreter_input(NULL, 0, &t), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_output(NULL, 0, &t), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_tensor(NULL, 0, 0, &t), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_tensor_by_name(NULL, "x", &t, NULL, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_memory(NULL, &u), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_max_dims_cost(NULL, &a, &b), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(NULL), "no interpreter (out of memory, or a NULL argument)");
  ap_interpreter_destroy(NULL);
  /* Custom-op calls with no context do nothing harmful. */
  CHECK_EQ(ap_op_input_count(NULL), 0);
  CHECK(!ap_op_input(NULL, 0, &t));
  CHECK(ap_op_scratch(NULL, 0) == NULL);
  CHECK(ap_op_persistent(NULL, 8) == NULL);
  CHECK(ap_op_state(NULL) == NULL);
  CHECK_EQ(ap_op_set_output_shape(NULL, 0, NULL, 0), AP_ERR_ARG);
  int idx;
  CHECK_EQ(ap_op_request_scratch(NULL, 8, &idx), AP_ERR_ARG);
  CHECK_EQ(ap_op_fail(NULL, AP_ERR_KERNEL, "x"), AP_ERR_KERNEL);

  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  CHECK_EQ(ap_interpreter_input(it, 0, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_tensor(it, 0, 0, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_tensor_by_name(it, NULL, &t, NULL, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_memory(it, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_max_dims_cost(it, NULL, &b), AP_ERR_ARG);
  ap_interpreter_destroy(it);
}

static void order_of_calls(ap_model *m) {
  ap_interpreter_options d = ap_interpreter_defaults();
  CHECK_STR(d.strategy, "best");
  CHECK_EQ(d.alignment, 16);
  CHECK(d.arena == NULL && d.allocator == NULL && d.custom_ops == NULL && !d.preserve_all);

  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  /* Before allocate: invoke refuses, tensors are described but have no bytes yet. */
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  CHECK_STR(ap_interpreter_error(it),
            "not allocated: call ap_interpreter_allocate() before invoke");
  ap_memory_usage u;
  CHECK_EQ(ap_interpreter_memory(it, &u), AP_ERR_NOT_ALLOCATED);
  ap_tensor in, t;
  CHECK(ap_interpreter_input(it, 0, &in) == AP_OK);
  CHECK(in.data == NULL);
  CHECK_EQ(in.type, AP_FLOAT32);
  CHECK_EQ(in.rank, 2);
  CHECK_EQ(in.bytes, 4);
  CHECK(!in.is_constant);
  /* A constant's data is the model's, already. */
  size_t sg, index;
  bool found_constant = false;
  for (size_t k = 0; ap_interpreter_tensor(it, 0, k, &t) == AP_OK; k++)
    if (t.is_constant) {
      found_constant = true;
      CHECK(t.data != NULL);
      size_t mb;
      const uint8_t *bytes = ap_model_bytes(m, &mb);
      CHECK((const uint8_t *)t.data >= bytes && (const uint8_t *)t.data + t.bytes <= bytes + mb);
    }
  CHECK(found_constant);
  /* Out of range everywhere. */
  CHECK_EQ(ap_interpreter_input(it, 1, &t), AP_ERR_RANGE);
  CHECK_EQ(ap_interpreter_output(it, 1, &t), AP_ERR_RANGE);
  CHECK_EQ(ap_interpreter_output(it, SIZE_MAX, &t), AP_ERR_RANGE);
  CHECK_EQ(ap_interpreter_tensor(it, 1, 0, &t), AP_ERR_RANGE);
  CHECK_EQ(ap_interpreter_tensor(it, 0, 1000000, &t), AP_ERR_RANGE);
  CHECK_EQ(ap_interpreter_tensor_by_name(it, "no such tensor", &t, &sg, &index), AP_ERR_RANGE);
  /* By name: the same tensor as by index. */
  CHECK(ap_interpreter_tensor_by_name(it, in.name, &t, &sg, &index) == AP_OK);
  CHECK_EQ(sg, 0);
  CHECK_EQ(index, ap_model_subgraph_inputs(m, 0).v[0]);

  /* Allocate twice: the second plan is the same and the model runs the same. */
  CHECK(ap_interpreter_allocate(it) == AP_OK);
  ap_memory_usage u1, u2;
  CHECK(ap_interpreter_memory(it, &u1) == AP_OK);
  CHECK(rt_feed_oracle(it, "hello_world_float", 2));
  CHECK(ap_interpreter_invoke(it) == AP_OK);
  CHECK(rt_matches_oracle(it, "hello_world_float", 2, 0));
  CHECK(ap_interpreter_allocate(it) == AP_OK);
  CHECK(ap_interpreter_memory(it, &u2) == AP_OK);
  CHECK(memcmp(&u1, &u2, sizeof u1) == 0);
  CHECK(rt_feed_oracle(it, "hello_world_float", 2));
  CHECK(ap_interpreter_invoke(it) == AP_OK);
  CHECK(rt_matches_oracle(it, "hello_world_float", 2, 0));
  CHECK(ap_interpreter_reset_variables(it) == AP_OK);
  ap_interpreter_destroy(it);

  /* An unknown strategy fails allocate with the planner's message; the interpreter stays
   * usable for nothing but destroy and another allocate. */
  ap_interpreter_options o = ap_interpreter_defaults();
  o.strategy = "no-such-strategy";
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
  CHECK(ap_interpreter_allocate(it) != AP_OK);
  CHECK(strlen(ap_interpreter_error(it)) > 0);
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  /* Variables lived in the persistent region the failed allocate freed. */
  CHECK_EQ(ap_interpreter_reset_variables(it), AP_ERR_NOT_ALLOCATED);
  CHECK_STR(ap_interpreter_error(it),
            "not allocated: call ap_interpreter_allocate() before reset_variables");
  ap_interpreter_destroy(it);
  o.strategy = NULL; /* the default */
  o.alignment = 8192;
  CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it), "alignment 8192 is above 4096");
  ap_interpreter_destroy(it);
}

/* Every allocator call failing in turn: create or allocate fails cleanly (NOMEM), nothing
 * leaks, and once memory suffices the model runs. */
static void failing_allocator(ap_model *m) {
  int clean_failures = 0;
  for (long k = 0;; k++) {
    rt_counter cnt;
    ap_allocator a = rt_counting(&cnt);
    cnt.fail_after = k;
    ap_interpreter_options o = ap_interpreter_defaults();
    o.allocator = &a;
    ap_interpreter *it = NULL;
    ap_status s = ap_interpreter_create(m, &o, &it);
    if (s == AP_OK) s = ap_interpreter_allocate(it);
    if (s == AP_OK) {
      CHECK(rt_feed_oracle(it, "hello_world_float", 1));
      CHECK(ap_interpreter_invoke(it) == AP_OK);
      CHECK(rt_matches_oracle(it, "hello_world_float", 1, 0));
      ap_interpreter_destroy(it);
      CHECK_EQ(atomic_load(&cnt.live_bytes), 0);
      break;
    }
    CHECK_MSG(s == AP_ERR_NOMEM, "failing call %ld gave %s (%s)", k, ap_status_name(s),
              ap_interpreter_error(it));
    clean_failures++;
    ap_interpreter_destroy(it);
    CHECK_EQ(atomic_load(&cnt.live_bytes), 0);
    if (k > 10000) break;
  }
  CHECK(clean_failures > 3);
}

int main(void) {
  ap_test_require_shared();
  ap_model *m = rt_load("hello_world_float");
  CHECK(m != NULL);
  if (!m) return ap_test_done();
  nulls(m);
  order_of_calls(m);
  failing_allocator(m);
  /* Destroy order (documented): interpreters first, then the model. */
  ap_model_destroy(m);
  return ap_test_done();
}
