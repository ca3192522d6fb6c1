/* Threads: while an invoke runs, invoke, allocate, resize and reset_variables from another
 * thread return AP_ERR_BUSY (a custom op holds the first invoke open, so the overlap is
 * certain, not a matter of timing); and interpreters sharing one model run at the same time
 * with the single-threaded results. */
#include "rt_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

static atomic_int entered, release_op;

static ap_status block_prepare(ap_op_context *c) {
  ap_tensor in;
  if (!ap_op_input(c, 0, &in)) return AP_ERR_ARG;
  return ap_op_set_output_shape(c, 0, in.dims, in.rank);
}
static ap_status block_eval(ap_op_context *c) {
  atomic_store(&entered, 1);
  while (!atomic_load(&release_op))
    sched_yield();
  ap_tensor in, out;
  if (!ap_op_input(c, 0, &in) || !ap_op_output(c, 0, &out)) return AP_ERR_ARG;
  memcpy(out.data, in.data, in.bytes);
  return AP_OK;
}

static ap_model *block_model(uint8_t **bytes) {
  ap_writer *w;
  ap_writer_create(NULL, &w);
  uint32_t op;
  ap_writer_add_custom_opcode(w, "BLOCK", 1, &op);
  int32_t s14[2] = {1, 4};
  int32_t x = rt_float_tensor(w, "x", s14, 2), y = rt_float_tensor(w, "y", s14, 2);
  ap_writer_add_op(
      w, 0,
      &(ap_writer_op){
          .opcode = op, .inputs = &x, .input_count = 1, .outputs = &y, .output_count = 1},
      NULL);
  ap_writer_set_subgraph_io(w, 0, &x, 1, &y, 1);
  ap_model *m = rt_finish(w, bytes);
  ap_writer_destroy(w);
  return m;
}

static void *invoke_thread(void *arg) {
  return (void *)(intptr_t)ap_interpreter_invoke(arg);
}

static void busy(void) {
  uint8_t *bytes;
  ap_model *m = block_model(&bytes);
  CHECK(m != NULL);
  if (!m) return;
  static const ap_custom_op op = {"BLOCK", 0, {block_prepare, block_eval}};
  ap_interpreter_options o = ap_interpreter_defaults();
  o.custom_ops = &op;
  o.custom_op_count = 1;
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
  CHECK(ap_interpreter_allocate(it) == AP_OK);
  ap_tensor x, y;
  CHECK(ap_interpreter_input(it, 0, &x) == AP_OK);
  float in[4] = {1, 2, 3, 4};
  memcpy(x.data, in, sizeof in);
  for (int round = 0; round < 3; round++) {
    atomic_store(&entered, 0);
    atomic_store(&release_op, 0);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, invoke_thread, it) == 0);
    while (!atomic_load(&entered))
      sched_yield();
    /* The first invoke is inside its op now. */
    CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_BUSY);
    CHECK_EQ(ap_interpreter_allocate(it), AP_ERR_BUSY);
    int32_t d[2] = {2, 4};
    CHECK_EQ(ap_interpreter_resize_input(it, 0, d, 2), AP_ERR_BUSY);
    CHECK_EQ(ap_interpreter_reset_variables(it), AP_ERR_BUSY);
    uint64_t a, b;
    CHECK_EQ(ap_interpreter_max_dims_cost(it, &a, &b), AP_OK); /* no max dims: nothing to do */
    atomic_store(&release_op, 1);
    void *ret;
    pthread_join(t, &ret);
    CHECK_EQ((intptr_t)ret, AP_OK);
    CHECK(ap_interpreter_output(it, 0, &y) == AP_OK);
    CHECK(memcmp(y.data, in, sizeof in) == 0);
  }
  /* Free again: everything works. */
  atomic_store(&release_op, 1);
  CHECK_EQ(ap_interpreter_invoke(it), AP_OK);
  CHECK_EQ(ap_interpreter_allocate(it), AP_OK);
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  free(bytes);
}

typedef struct job {
  ap_model *m;
  const char *name;
  int seed;
  int failures;
} job;

static void *run_job(void *arg) {
  job *j = arg;
  ap_interpreter *it;
  if (ap_interpreter_create(j->m, NULL, &it) != AP_OK || ap_interpreter_allocate(it) != AP_OK) {
    j->failures++;
  } else {
    for (int i = 0; i < 4; i++) {
      if (!rt_feed_oracle(it, j->name, j->seed) || ap_interpreter_invoke(it) != AP_OK ||
          !rt_matches_oracle(it, j->name, j->seed, 0))
        j->failures++;
    }
  }
  ap_interpreter_destroy(it);
  return NULL;
}

static void shared_model(const char *name) {
  ap_model *m = rt_load(name);
  CHECK(m != NULL);
  if (!m) return;
  enum { N = 4 };
  pthread_t t[N];
  job jobs[N];
  for (int i = 0; i < N; i++) {
    jobs[i] = (job){m, name, 1 + i % 3, 0};
    CHECK(pthread_create(&t[i], NULL, run_job, &jobs[i]) == 0);
  }
  for (int i = 0; i < N; i++) {
    pthread_join(t[i], NULL);
    CHECK_MSG(jobs[i].failures == 0, "%s thread %d: %d failures", name, i, jobs[i].failures);
  }
  ap_model_destroy(m);
}

int main(void) {
  busy();
  ap_test_require_shared();
  shared_model("person_detect_int8");
  shared_model("mlperf_kws_dscnn_int8");
  return ap_test_done();
}
