/* Custom ops, on models crafted with the writer: one found by its custom_code whose prepare
 * sets its output's shape (a builtin after it follows that shape), asks for scratch and keeps
 * persistent state; builtins overridden (an unsupported one and a supported one); and the
 * messages for ops nobody implements. */
#include "rt_test.h"

#include <stdlib.h>

typedef struct scale_state {
  int scratch;
  int calls;
  float factor;
} scale_state;

static int prepares;
static bool reuse_state = true;

/* y = x * factor + (number of this eval), computed through scratch. */
static ap_status scale_prepare(ap_op_context *c) {
  prepares++;
  ap_tensor in;
  if (!ap_op_input(c, 0, &in)) return ap_op_fail(c, AP_ERR_ARG, "no input");
  const ap_op_info *info = ap_op_info_of(c);
  if (!info->custom_options || info->custom_options_size < 1)
    return ap_op_fail(c, AP_ERR_FORMAT, "no factor");
  if (info->custom_options[0] == 0) return ap_op_fail(c, AP_ERR_UNSUPPORTED, "factor 0");
  if (in.data != NULL) return ap_op_fail(c, AP_ERR_ARG, "prepare saw data");
  /* After a resize within max_input_dims prepare runs again: the state from allocate is kept
   * (and persistent memory is not to be had then). */
  scale_state *st = reuse_state ? ap_op_state(c) : NULL;
  if (!st) st = ap_op_persistent(c, sizeof *st);
  if (!st) return AP_ERR_NOMEM;
  st->factor = info->custom_options[0];
  ap_status s = ap_op_request_scratch(c, in.bytes, &st->scratch);
  if (s != AP_OK) return s;
  ap_op_set_state(c, st);
  /* Shapes, scratch and persistent memory are prepare's alone. */
  return ap_op_set_output_shape(c, 0, in.dims, in.rank);
}

static ap_status scale_eval(ap_op_context *c) {
  scale_state *st = ap_op_state(c);
  ap_tensor in, out;
  if (!st || !ap_op_input(c, 0, &in) || !ap_op_output(c, 0, &out)) return AP_ERR_ARG;
  float *tmp = ap_op_scratch(c, st->scratch);
  if (!tmp || ((uintptr_t)tmp & 15)) return ap_op_fail(c, AP_ERR_KERNEL, "bad scratch");
  if (ap_op_persistent(c, 16) != NULL) return AP_ERR_KERNEL; /* refused in eval */
  int dummy;
  if (ap_op_request_scratch(c, 4, &dummy) == AP_OK) return AP_ERR_KERNEL;
  st->calls++;
  memcpy(tmp, in.data, in.bytes);
  for (size_t i = 0; i < in.bytes / 4; i++)
    ((float *)out.data)[i] = tmp[i] * st->factor + st->calls;
  return AP_OK;
}

static const ap_custom_op scale_op = {"SCALE_ACC", 0, {scale_prepare, scale_eval}};

/* x [1,4] -> SCALE_ACC (output declared [1]) -> y -> ADD(y, y) -> z [1,4]. */
static ap_model *scale_model(uint8_t factor, uint8_t **bytes) {
  ap_writer *w;
  ap_writer_create(NULL, &w);
  uint32_t custom, add;
  ap_writer_add_custom_opcode(w, "SCALE_ACC", 1, &custom);
  ap_writer_add_opcode(w, 0, 1, &add);
  int32_t s14[2] = {1, 4}, s1[1] = {1};
  int32_t x = rt_float_tensor(w, "x", s14, 2), y = rt_float_tensor(w, "y", s1, 1),
          z = rt_float_tensor(w, "z", s14, 2);
  ap_writer_add_op(w, 0,
                   &(ap_writer_op){.opcode = custom,
                                   .inputs = &x,
                                   .input_count = 1,
                                   .outputs = &y,
                                   .output_count = 1,
                                   .custom_options = &factor,
                                   .custom_options_size = 1},
                   NULL);
  int32_t yy[2] = {y, y};
  ap_options o = ap_options_add(AP_ACT_NONE);
  ap_writer_add_op(w, 0,
                   &(ap_writer_op){.opcode = add,
                                   .inputs = yy,
                                   .input_count = 2,
                                   .outputs = &z,
                                   .output_count = 1,
                                   .options = &o},
                   NULL);
  ap_writer_set_subgraph_io(w, 0, &x, 1, &z, 1);
  ap_model *m = rt_finish(w, bytes);
  ap_writer_destroy(w);
  return m;
}

static void custom_by_name(void) {
  uint8_t *bytes;
  ap_model *m = scale_model(3, &bytes);
  CHECK(m != NULL);
  if (!m) return;
  ap_interpreter_options o = ap_interpreter_defaults();
  o.custom_ops = &scale_op;
  o.custom_op_count = 1;
  o.prepare = AP_PREPARE_EACH_INVOKE; /* persistent: the custom state alone */
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
  prepares = 0;
  ap_status s = ap_interpreter_allocate(it);
  CHECK_MSG(s == AP_OK, "%s", ap_interpreter_error(it));
  CHECK_EQ(prepares, 1);
  ap_tensor y, z, x;
  CHECK(ap_interpreter_tensor_by_name(it, "y", &y, NULL, NULL) == AP_OK);
  CHECK_EQ(y.rank, 2); /* prepare's shape, not the model's [1] */
  CHECK_EQ(y.dims[1], 4);
  CHECK_EQ(y.bytes, 16);
  ap_memory_usage u;
  CHECK(ap_interpreter_memory(it, &u) == AP_OK);
  CHECK_EQ(u.persistent, 16); /* the state, rounded to 16 */
  /* x 16 B, scratch 16 B and y 16 B live together at op 0, then y and z: 48 bytes. */
  CHECK_EQ(u.arena, 48);
  CHECK(ap_interpreter_input(it, 0, &x) == AP_OK);
  float in[4] = {1.0f, -2.0f, 0.5f, 10.0f};
  for (int call = 1; call <= 3; call++) {
    memcpy(x.data, in, sizeof in);
    s = ap_interpreter_invoke(it);
    CHECK_MSG(s == AP_OK, "%s", ap_interpreter_error(it));
    CHECK(ap_interpreter_output(it, 0, &z) == AP_OK);
    for (int i = 0; i < 4; i++)
      CHECK(((float *)z.data)[i] == 2.0f * (in[i] * 3.0f + (float)call)); /* exact in float */
  }
  /* A second allocate prepares again with fresh state. */
  CHECK(ap_interpreter_allocate(it) == AP_OK);
  CHECK_EQ(prepares, 2);
  CHECK(ap_interpreter_input(it, 0, &x) == AP_OK); /* the arena moved */
  memcpy(x.data, in, sizeof in);
  CHECK(ap_interpreter_invoke(it) == AP_OK);
  CHECK(ap_interpreter_output(it, 0, &z) == AP_OK);
  CHECK(((float *)z.data)[0] == 2.0f * (1.0f * 3.0f + 1.0f));
  ap_interpreter_destroy(it);

  /* Without registering it: the message says how to. */
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  CHECK_EQ(ap_interpreter_allocate(it), AP_ERR_UNSUPPORTED);
  CHECK_STR(ap_interpreter_error(it),
            "unsupported custom op \"SCALE_ACC\" at subgraph 0 op 0: register it with "
            "ap_interpreter_options.custom_ops (an ap_custom_op named \"SCALE_ACC\")");
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  free(bytes);

  /* A prepare that fails: its message, naming the op. */
  m = scale_model(0, &bytes);
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
  CHECK_EQ(ap_interpreter_allocate(it), AP_ERR_UNSUPPORTED);
  CHECK_STR(ap_interpreter_error(it), "subgraph 0 op 0 (SCALE_ACC): factor 0");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  free(bytes);
}

/* CUMSUM along the last axis (the builtin arenaplan does not implement). */
static ap_status cumsum_prepare(ap_op_context *c) {
  ap_tensor in;
  if (!ap_op_input(c, 0, &in)) return AP_ERR_ARG;
  return ap_op_set_output_shape(c, 0, in.dims, in.rank);
}
static ap_status cumsum_eval(ap_op_context *c) {
  ap_tensor in, out;
  if (!ap_op_input(c, 0, &in) || !ap_op_output(c, 0, &out)) return AP_ERR_ARG;
  float acc = 0;
  for (size_t i = 0; i < in.bytes / 4; i++)
    ((float *)out.data)[i] = acc += ((float *)in.data)[i];
  return AP_OK;
}
/* RELU replaced by the identity. */
static ap_status identity_eval(ap_op_context *c) {
  ap_tensor in, out;
  if (!ap_op_input(c, 0, &in) || !ap_op_output(c, 0, &out)) return AP_ERR_ARG;
  memcpy(out.data, in.data, in.bytes);
  return AP_OK;
}

/* x -> 17 RELUs -> CUMSUM(., axis) at op 17. */
static ap_model *cumsum_model(uint8_t **bytes, int32_t builtin) {
  ap_writer *w;
  ap_writer_create(NULL, &w);
  uint32_t relu, cumsum, axis_buf;
  ap_writer_add_opcode(w, 19, 1, &relu);
  ap_writer_add_opcode(w, builtin, 1, &cumsum);
  int32_t axis_value = 1;
  ap_writer_add_buffer(w, &axis_value, 4, &axis_buf);
  int32_t s14[2] = {1, 4};
  int32_t x = rt_float_tensor(w, "x", s14, 2), prev = x;
  for (int i = 0; i < 17; i++) {
    int32_t t = rt_float_tensor(w, NULL, s14, 2);
    ap_writer_add_op(
        w, 0,
        &(ap_writer_op){
            .opcode = relu, .inputs = &prev, .input_count = 1, .outputs = &t, .output_count = 1},
        NULL);
    prev = t;
  }
  int32_t axis;
  ap_writer_add_tensor(
      w, 0, &(ap_writer_tensor){.name = "axis", .type = AP_INT32, .buffer = axis_buf}, &axis);
  int32_t out = rt_float_tensor(w, "out", s14, 2), ins[2] = {prev, axis};
  ap_writer_add_op(
      w, 0,
      &(ap_writer_op){
          .opcode = cumsum, .inputs = ins, .input_count = 2, .outputs = &out, .output_count = 1},
      NULL);
  ap_writer_set_subgraph_io(w, 0, &x, 1, &out, 1);
  ap_model *m = rt_finish(w, bytes);
  ap_writer_destroy(w);
  return m;
}

static void run_cumsum(ap_model *m, const ap_custom_op *ops, size_t n, const float *want) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.custom_ops = ops;
  o.custom_op_count = n;
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
  ap_status s = ap_interpreter_allocate(it);
  CHECK_MSG(s == AP_OK, "%s", ap_interpreter_error(it));
  ap_tensor x, out;
  float in[4] = {1.0f, -2.0f, 0.5f, 4.0f};
  CHECK(ap_interpreter_input(it, 0, &x) == AP_OK);
  if (s == AP_OK) {
    memcpy(x.data, in, sizeof in);
    CHECK(ap_interpreter_invoke(it) == AP_OK);
    CHECK(ap_interpreter_output(it, 0, &out) == AP_OK);
    CHECK(memcmp(out.data, want, 16) == 0);
  }
  ap_interpreter_destroy(it);
}

static void overrides(void) {
  uint8_t *bytes;
  /* The same graph with its last op a builtin no kernel implements: refused by allocate. */
  ap_model *m = cumsum_model(&bytes, 33);
  CHECK(m != NULL);
  if (!m) return;
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  CHECK_EQ(ap_interpreter_allocate(it), AP_ERR_UNSUPPORTED);
  CHECK_STR(ap_interpreter_error(it),
            "unsupported op EMBEDDING_LOOKUP_SPARSE (builtin 33) at subgraph 0 op 17");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  free(bytes);

  m = cumsum_model(&bytes, 128);
  CHECK(m != NULL);
  if (!m) return;
  /* CUMSUM built in (kernels/cumsum.c): cumsum of relu(x). */
  float relu_then_sum[4] = {1.0f, 1.0f, 1.5f, 5.5f};
  run_cumsum(m, NULL, 0, relu_then_sum);

  ap_custom_op ops[2] = {{NULL, 128, {cumsum_prepare, cumsum_eval}},
                         {NULL, 19, {cumsum_prepare, identity_eval}}};
  /* CUMSUM registered over the builtin: the same sums, by the caller's kernel. */
  run_cumsum(m, ops, 1, relu_then_sum);
  /* RELU overridden as well: the caller's kernel wins over the builtin. */
  float sum[4] = {1.0f, -1.0f, -0.5f, 3.5f};
  run_cumsum(m, ops, 2, sum);
  ap_model_destroy(m);
  free(bytes);

  /* A custom op entry without a name that claims CUSTOM is refused. */
  ap_interpreter_options o = ap_interpreter_defaults();
  ap_custom_op bad = {NULL, AP_BUILTIN_CUSTOM, {NULL, NULL}};
  o.custom_ops = &bad;
  o.custom_op_count = 1;
  m = scale_model(3, &bytes);
  CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it), "custom op 0 has no name");
  ap_interpreter_destroy(it);
  o.custom_ops = NULL;
  CHECK_EQ(ap_interpreter_create(m, &o, &it), AP_ERR_ARG);
  CHECK_STR(ap_interpreter_error(it), "custom_op_count is 1 but custom_ops is NULL");
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  free(bytes);
}

/* ACCUM(x, a, b) -> y: a += x, b += 1, y = a + b (a and b are variables). */
static ap_status accum_prepare(ap_op_context *c) {
  ap_tensor x, a, b;
  if (!ap_op_input(c, 0, &x) || !ap_op_input(c, 1, &a) || !ap_op_input(c, 2, &b)) return AP_ERR_ARG;
  if (!a.is_variable || !b.is_variable || a.is_constant || a.data || b.data)
    return ap_op_fail(c, AP_ERR_ARG, "variables are not what they should be");
  return ap_op_set_output_shape(c, 0, x.dims, x.rank);
}
static ap_status accum_eval(ap_op_context *c) {
  ap_tensor x, a, b, y;
  if (!ap_op_input(c, 0, &x) || !ap_op_input(c, 1, &a) || !ap_op_input(c, 2, &b) ||
      !ap_op_output(c, 0, &y))
    return AP_ERR_ARG;
  for (int i = 0; i < 4; i++) {
    ((float *)a.data)[i] += ((float *)x.data)[i];
    ((float *)b.data)[i] += 1.0f;
    ((float *)y.data)[i] = ((float *)a.data)[i] + ((float *)b.data)[i];
  }
  return AP_OK;
}

static void variables(void) {
  ap_writer *w;
  ap_writer_create(NULL, &w);
  uint32_t op, init_buf;
  ap_writer_add_custom_opcode(w, "ACCUM", 1, &op);
  float init[4] = {10, 20, 30, 40};
  ap_writer_add_buffer(w, init, sizeof init, &init_buf);
  int32_t s14[2] = {1, 4}, a, b;
  int32_t x = rt_float_tensor(w, "x", s14, 2), y = rt_float_tensor(w, "y", s14, 2);
  ap_writer_add_tensor(
      w, 0,
      &(ap_writer_tensor){
          .name = "a", .shape = s14, .rank = 2, .buffer = init_buf, .is_variable = true},
      &a);
  ap_writer_add_tensor(
      w, 0, &(ap_writer_tensor){.name = "b", .shape = s14, .rank = 2, .is_variable = true}, &b);
  int32_t ins[3] = {x, a, b};
  ap_writer_add_op(
      w, 0,
      &(ap_writer_op){
          .opcode = op, .inputs = ins, .input_count = 3, .outputs = &y, .output_count = 1},
      NULL);
  ap_writer_set_subgraph_io(w, 0, &x, 1, &y, 1);
  uint8_t *bytes;
  ap_model *m = rt_finish(w, &bytes);
  ap_writer_destroy(w);
  CHECK(m != NULL);
  if (!m) return;
  static const ap_custom_op accum = {"ACCUM", 0, {accum_prepare, accum_eval}};
  ap_interpreter_options o = ap_interpreter_defaults();
  o.custom_ops = &accum;
  o.custom_op_count = 1;
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
  ap_status s = ap_interpreter_allocate(it);
  CHECK_MSG(s == AP_OK, "%s", ap_interpreter_error(it));
  ap_memory_usage u;
  CHECK(ap_interpreter_memory(it, &u) == AP_OK);
  CHECK_EQ(u.persistent, 32); /* two 16-byte variables */
  ap_tensor ta, tx, ty;
  CHECK(ap_interpreter_tensor_by_name(it, "a", &ta, NULL, NULL) == AP_OK);
  CHECK(ta.is_variable && !ta.is_constant);
  CHECK(memcmp(ta.data, init, sizeof init) == 0); /* a copy of the model's initial value */
  CHECK(ta.data != (void *)ap_model_buffer(m, init_buf, &(size_t){0}));
  float xin[4] = {1, 2, 3, 4};
  float want[3][4] = {{12, 23, 34, 45}, {14, 26, 38, 50}, {12, 23, 34, 45}};
  for (int k = 0; k < 3; k++) {
    if (k == 2) CHECK(ap_interpreter_reset_variables(it) == AP_OK);
    CHECK(ap_interpreter_input(it, 0, &tx) == AP_OK);
    memcpy(tx.data, xin, sizeof xin);
    CHECK(ap_interpreter_invoke(it) == AP_OK);
    CHECK(ap_interpreter_output(it, 0, &ty) == AP_OK);
    CHECK_MSG(memcmp(ty.data, want[k], 16) == 0, "invoke %d: %g %g %g %g", k, ((float *)ty.data)[0],
              ((float *)ty.data)[1], ((float *)ty.data)[2], ((float *)ty.data)[3]);
  }
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  free(bytes);
}

/* max_input_dims with a custom op: a resize within them re-runs its prepare (new output
 * shape, scratch within what was planned, state kept) and invoke works at once. */
static void custom_resize(void) {
  uint8_t *bytes;
  ap_model *m = scale_model(3, &bytes);
  if (!m) return;
  int32_t max[2] = {4, 4}, three[2] = {3, 4}, five[2] = {5, 4};
  ap_dims d = {max, 2};
  ap_interpreter_options o = ap_interpreter_defaults();
  o.custom_ops = &scale_op;
  o.custom_op_count = 1;
  o.prepare = AP_PREPARE_EACH_INVOKE; /* persistent: the custom state alone */
  o.max_input_dims = &d;
  o.max_input_count = 1;
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
  prepares = 0;
  ap_status s = ap_interpreter_allocate(it);
  CHECK_MSG(s == AP_OK, "%s", ap_interpreter_error(it));
  CHECK_EQ(prepares, 2); /* at the maximum, then at the model's [1, 4] */
  ap_memory_usage u;
  CHECK(ap_interpreter_memory(it, &u) == AP_OK);
  CHECK_EQ(u.arena, 3 * 64); /* x, scratch and y at 4 rows */
  CHECK_EQ(u.persistent, 16);
  CHECK(ap_interpreter_resize_input(it, 0, three, 2) == AP_OK);
  CHECK_EQ(prepares, 3);
  ap_tensor x, y, z;
  CHECK(ap_interpreter_tensor_by_name(it, "y", &y, NULL, NULL) == AP_OK);
  CHECK_EQ(y.dims[0], 3);
  CHECK(ap_interpreter_input(it, 0, &x) == AP_OK);
  CHECK_EQ(x.bytes, 48);
  for (int i = 0; i < 12; i++)
    ((float *)x.data)[i] = (float)i;
  s = ap_interpreter_invoke(it);
  CHECK_MSG(s == AP_OK, "%s", ap_interpreter_error(it));
  CHECK(ap_interpreter_output(it, 0, &z) == AP_OK);
  CHECK_EQ(z.dims[0], 3);
  for (int i = 0; i < 12; i++)
    CHECK(((float *)z.data)[i] == 2.0f * ((float)i * 3.0f + 1.0f));
  /* Beyond the maximum: stale. */
  CHECK(ap_interpreter_resize_input(it, 0, five, 2) == AP_OK);
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  ap_interpreter_destroy(it);

  /* A prepare that takes persistent memory every time cannot follow a resize: the plan goes
   * stale, and the message says why until invoke says what to do. */
  reuse_state = false;
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
  CHECK(ap_interpreter_allocate(it) != AP_OK); /* allocate itself re-prepares at [1, 4] */
  CHECK_STR(ap_interpreter_error(it),
            "subgraph 0 op 0 (SCALE_ACC): persistent memory is taken in the prepare of allocate "
            "only (this is a prepare re-run by a resize)");
  CHECK(ap_interpreter_resize_input(it, 0, max, 2) == AP_OK);
  CHECK(ap_interpreter_allocate(it) == AP_OK); /* at the maximum: no re-run */
  CHECK(ap_interpreter_resize_input(it, 0, three, 2) == AP_OK);
  CHECK_CONTAINS(ap_interpreter_error(it), "persistent memory is taken in the prepare");
  CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
  reuse_state = true;
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  free(bytes);
}

int main(void) {
  custom_by_name();
  custom_resize();
  overrides();
  variables();
  return ap_test_done();
}
