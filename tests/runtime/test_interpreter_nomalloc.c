/* No malloc at all: this executable replaces malloc and friends with counting wrappers around
 * glibc's, so calls made by anything (not only through an ap_allocator) are seen. Invoke makes
 * none; with a caller buffer that has room for planning, neither does the whole life of an
 * interpreter. Sanitizer builds intercept malloc themselves: there the test is skipped. */
#include "rt_test.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RT_SKIP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RT_SKIP 1
#endif
#endif

#ifndef RT_SKIP
static atomic_int counting;
static atomic_long calls;

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static void seen(void) {
  if (atomic_load(&counting)) atomic_fetch_add(&calls, 1);
}
void *malloc(size_t n) {
  seen();
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t s) {
  seen();
  return __libc_calloc(n, s);
}
void *realloc(void *p, size_t n) {
  seen();
  return __libc_realloc(p, n);
}
void *aligned_alloc(size_t a, size_t n) {
  seen();
  return __libc_memalign(a, n);
}
int posix_memalign(void **p, size_t a, size_t n) {
  seen();
  *p = __libc_memalign(a, n);
  return *p ? 0 : 12;
}
void free(void *p) {
  if (p) seen();
  __libc_free(p);
}

static void model(const char *name) {
  ap_model *m = rt_load(name);
  CHECK(m != NULL);
  if (!m) return;
  /* The default allocator (malloc): ten invokes, no malloc. */
  ap_interpreter *it;
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  CHECK(ap_interpreter_allocate(it) == AP_OK);
  CHECK(rt_feed_oracle(it, name, 1));
  atomic_store(&calls, 0);
  atomic_store(&counting, 1);
  int ok = 0;
  for (int i = 0; i < 10; i++)
    ok += ap_interpreter_invoke(it) == AP_OK;
  atomic_store(&counting, 0);
  CHECK_EQ(ok, 10);
  CHECK_MSG(atomic_load(&calls) == 0, "%s: %ld malloc-family calls in 10 invokes", name,
            atomic_load(&calls));
  /* Inputs are planned like any tensor: the arena may reuse their bytes, so feed again; the
   * oracle is the first invoke from the initial state (LSTM, SVDF and resource variables keep
   * state: reset them). */
  CHECK(rt_feed_oracle(it, name, 1));
  CHECK(ap_interpreter_reset_variables(it) == AP_OK);
  CHECK(ap_interpreter_invoke(it) == AP_OK);
  CHECK(rt_matches_oracle(it, name, 1, 0));
  ap_memory_usage u;
  CHECK(ap_interpreter_memory(it, &u) == AP_OK);
  ap_interpreter_destroy(it);

  /* A caller buffer with room for planning: create, allocate, invoke, destroy, no malloc. */
  size_t size = u.total + (4u << 20);
  uint8_t *buf = __libc_memalign(16, size);
  ap_interpreter_options o = ap_interpreter_defaults();
  o.arena = buf;
  o.arena_size = size;
  atomic_store(&calls, 0);
  atomic_store(&counting, 1);
  ap_status s = ap_interpreter_create(m, &o, &it);
  if (s == AP_OK) s = ap_interpreter_allocate(it);
  long during = atomic_load(&calls);
  atomic_store(&counting, 0);
  CHECK_MSG(s == AP_OK, "%s: %s", name, ap_interpreter_error(it));
  CHECK_MSG(during == 0, "%s: %ld malloc-family calls in create and allocate", name, during);
  CHECK(rt_feed_oracle(it, name, 1));
  atomic_store(&counting, 1);
  s = ap_interpreter_invoke(it);
  ap_interpreter_destroy(it);
  atomic_store(&counting, 0);
  CHECK(s == AP_OK);
  CHECK_EQ(atomic_load(&calls), 0);
  __libc_free(buf);
  ap_model_destroy(m);
}
#endif

int main(void) {
#ifdef RT_SKIP
  printf("skipped: the sanitizer owns malloc in this build\n");
  return 77;
#else
  ap_test_require_shared();
  model("hello_world_float");
  model("person_detect_int8");
  model("mlperf_kws_dscnn_int8");
  model("mlperf_ic_resnet_int8");
  model("mlperf_vww_int8");
  model("mnist_lstm_float");
  model("mnist_lstm_int8");
  model("dtln_noise_suppression_int8");
  model("keyword_scrambled_svdf");
  /* Control flow runs subgraphs recursively; resource variables copy in and out. (Not
   * nested_while: invokes after the first read an input whose bytes the plan reused, and on
   * some values, 0 and 1, its loop never ends.) */
  model("while_multi_subgraph");
  model("call_once_mul");
  model("resource_vars_fc");
  return ap_test_done();
#endif
}
