/* The pool in one thread: costs equal what an interpreter measures and what the allocator
 * hands out; LRU eviction, idle unloading on a virtual clock, waiting for a release; bad
 * input. Three small models: micro_speech_int8, magic_wand_float, tflm_test_conv. */
#include "model/model_internal.h"
#include "runtime/rt_test.h"

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

static char path_micro[512], path_magic[512], path_conv[512];
static uint64_t virtual_ms;

static uint64_t virtual_clock(void *ctx) {
  (void)ctx;
  return virtual_ms;
}

static uint64_t file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* The cost another way: the file's size from stat, the handle from the model's own layout
 * (one allocation: the struct, then the path), the regions from a plain interpreter, and the
 * arena from the plan-time estimate given that interpreter's tensor sizes and scratch. */
static void check_cost(ap_pool *p, const char *name, const char *path) {
  ap_pool_cost c;
  CHECK_EQ(ap_pool_cost_of(p, name, &c), AP_OK);
  CHECK_EQ(c.weights, file_size(path));
  CHECK_EQ(c.handle, sizeof(ap_model) + strlen(path) + 1);
  ap_model *m = NULL;
  CHECK_EQ(ap_model_open(path, NULL, &m), AP_OK);
  ap_interpreter *it = NULL;
  ap_memory_usage mu = {0};
  ap_interpreter_options io = ap_interpreter_defaults();
  io.kernels = AP_KERNELS_REFERENCE; /* as make_pool's */
  CHECK_EQ(ap_interpreter_create(m, &io, &it), AP_OK);
  CHECK_EQ(ap_interpreter_allocate(it), AP_OK);
  CHECK_EQ(ap_interpreter_memory(it, &mu), AP_OK);
  CHECK_EQ(c.arena, mu.arena);
  CHECK_EQ(c.persistent, mu.persistent);
  CHECK_EQ(c.tables, mu.tables);
  CHECK_EQ(c.interpreter, mu.total);
  CHECK_EQ(c.resident, c.weights + c.handle + c.interpreter);

  size_t n = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    n += ap_model_tensor_count(m, sg);
  uint64_t *bytes = calloc(n ? n : 1, sizeof *bytes);
  size_t k = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++, k++) {
      ap_tensor tt;
      if (ap_interpreter_tensor(it, sg, t, &tt) == AP_OK) bytes[k] = tt.bytes;
    }
  size_t sc = ap_interpreter_scratch_count(it);
  ap_scratch_info *scratch = calloc(sc ? sc : 1, sizeof *scratch);
  for (size_t i = 0; i < sc; i++)
    ap_interpreter_scratch(it, i, &scratch[i]);
  ap_model_plan_options po = ap_model_plan_defaults();
  po.tensor_bytes = bytes;
  po.tensor_bytes_count = n;
  po.scratch = scratch;
  po.scratch_count = sc;
  ap_model_plan *mp = NULL;
  CHECK_EQ(ap_model_plan_create(m, &po, NULL, &mp), AP_OK);
  CHECK_EQ(ap_model_plan_arena(mp), c.arena);
  ap_model_plan_destroy(mp);
  free(bytes);
  free(scratch);
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
}

static ap_pool *make_pool(uint64_t budget, uint64_t idle, size_t max_it, const ap_allocator *a) {
  ap_pool_options o = ap_pool_defaults();
  o.budget_bytes = budget;
  o.idle_ms = idle;
  o.max_interpreters = max_it;
  o.allocator = a;
  o.clock = virtual_clock;
  /* The budgets below rely on the reference kernels' sizes (conv no larger than magic + 1000
   * bytes); the fast kernels plan more scratch for conv. */
  o.kernels = AP_KERNELS_REFERENCE;
  ap_pool *p = NULL;
  CHECK_EQ(ap_pool_create(&o, &p), AP_OK);
  return p;
}

static void add3(ap_pool *p) {
  CHECK_EQ(ap_pool_add(p, "micro", path_micro), AP_OK);
  CHECK_EQ(ap_pool_add(p, "magic", path_magic), AP_OK);
  CHECK_EQ(ap_pool_add(p, "conv", path_conv), AP_OK);
}

static uint64_t resident_of(ap_pool *p, const char *name) {
  ap_pool_cost c = {0};
  ap_pool_cost_of(p, name, &c);
  return c.resident;
}

static bool loaded(ap_pool *p, size_t i) {
  ap_pool_model_info mi = {0};
  return ap_pool_model(p, i, &mi) == AP_OK && mi.loaded;
}

static void costs(void) {
  ap_pool *p = make_pool(1 << 20, AP_POOL_NEVER, 2, NULL);
  add3(p);
  check_cost(p, "micro", path_micro);
  check_cost(p, "magic", path_magic);
  check_cost(p, "conv", path_conv);
  ap_pool_destroy(p);
}

/* What the allocator holds for a loaded model is exactly the counted handle and one
 * interpreter buffer per interpreter (the weights are the mapped file). */
static void honest_bytes(void) {
  rt_counter cnt;
  ap_allocator a = rt_counting(&cnt);
  ap_pool *p = make_pool(1 << 20, AP_POOL_NEVER, 2, &a);
  add3(p);
  long base = atomic_load(&cnt.live_bytes);
  ap_pool_cost c;
  ap_pool_cost_of(p, "micro", &c);
  ap_interpreter *a1 = NULL, *a2 = NULL;
  CHECK_EQ(ap_pool_acquire(p, "micro", 0, &a1), AP_OK);
  CHECK_EQ(atomic_load(&cnt.live_bytes) - base, c.handle + c.interpreter);
  ap_memory_usage mu;
  CHECK_EQ(ap_interpreter_memory(a1, &mu), AP_OK);
  CHECK_EQ(mu.total, c.interpreter);
  CHECK_EQ(ap_pool_acquire(p, "micro", 0, &a2), AP_OK);
  CHECK(a1 != a2);
  CHECK_EQ(atomic_load(&cnt.live_bytes) - base, c.handle + 2 * c.interpreter);
  ap_pool_stats st;
  CHECK_EQ(ap_pool_get_stats(p, &st), AP_OK);
  CHECK_EQ(st.resident_bytes, c.weights + c.handle + 2 * c.interpreter);
  CHECK_EQ(st.loads, 1);
  CHECK_EQ(st.hits, 1); /* the second found the model loaded */
  CHECK_EQ(st.interpreters_created, 2);
  /* Both run, each in its own arena, with the TFLite Micro oracle's results. */
  CHECK(rt_feed_oracle(a1, "micro_speech_int8", 1) && rt_feed_oracle(a2, "micro_speech_int8", 2));
  CHECK_EQ(ap_interpreter_invoke(a1), AP_OK);
  CHECK_EQ(ap_interpreter_invoke(a2), AP_OK);
  CHECK(rt_matches_oracle(a1, "micro_speech_int8", 1, 0));
  CHECK(rt_matches_oracle(a2, "micro_speech_int8", 2, 0));
  CHECK_EQ(ap_pool_release(p, a1), AP_OK);
  CHECK_EQ(ap_pool_release(p, a2), AP_OK);
  CHECK_EQ(ap_pool_release(p, a2), AP_ERR_ARG); /* not acquired any more */
  ap_pool_destroy(p);
  CHECK_EQ(atomic_load(&cnt.live_bytes), 0);
}

/* Budget: micro + magic fit (with 1000 bytes to spare), magic + conv do not. */
static void lru_and_idle(void) {
  uint64_t rmicro, rmagic, rconv;
  ap_pool *p0 = make_pool(1 << 20, 100, 1, NULL);
  add3(p0);
  rmicro = resident_of(p0, "micro");
  rmagic = resident_of(p0, "magic");
  rconv = resident_of(p0, "conv");
  ap_pool_destroy(p0);
  uint64_t budget = rmicro + rmagic + 1000;
  CHECK(rmicro + rconv <= budget && rmagic + rconv > budget);

  ap_pool *p = make_pool(budget, 100, 1, NULL);
  add3(p);
  ap_interpreter *it;
  virtual_ms = 0;
  CHECK_EQ(ap_pool_acquire(p, "micro", 0, &it), AP_OK);
  CHECK_EQ(ap_pool_release(p, it), AP_OK);
  virtual_ms = 10;
  CHECK_EQ(ap_pool_acquire(p, "magic", 0, &it), AP_OK);
  CHECK_EQ(ap_pool_release(p, it), AP_OK);
  virtual_ms = 15;
  CHECK_EQ(ap_pool_acquire(p, "micro", 0, &it), AP_OK); /* a hit: micro is now newer */
  CHECK_EQ(ap_pool_release(p, it), AP_OK);
  virtual_ms = 20;
  CHECK_EQ(ap_pool_acquire(p, "conv", 0, &it), AP_OK); /* evicts magic, the least recent */
  CHECK_EQ(ap_pool_release(p, it), AP_OK);
  CHECK(loaded(p, 0) && !loaded(p, 1) && loaded(p, 2));
  ap_pool_stats st;
  ap_pool_get_stats(p, &st);
  CHECK_EQ(st.loads, 3);
  CHECK_EQ(st.unloads, 1);
  CHECK_EQ(st.hits, 1);
  CHECK_EQ(st.acquires, 4);
  CHECK_EQ(st.peak_resident_bytes, rmicro + rmagic);
  CHECK_EQ(st.resident_bytes, rmicro + rconv);
  /* Idle 100 ms: micro was released at 15, conv at 20. */
  virtual_ms = 114;
  CHECK_EQ(ap_pool_collect(p), 0);
  virtual_ms = 115;
  CHECK_EQ(ap_pool_collect(p), 1);
  CHECK(!loaded(p, 0) && loaded(p, 2));
  virtual_ms = 120;
  CHECK_EQ(ap_pool_collect(p), 1);
  ap_pool_get_stats(p, &st);
  CHECK_EQ(st.unloads, 3);
  CHECK_EQ(st.resident_bytes, 0);
  ap_pool_model_info mi;
  CHECK_EQ(ap_pool_model(p, 0, &mi), AP_OK);
  CHECK_STR(mi.name, "micro");
  CHECK_EQ(mi.loads, 1); /* loaded at 0, a hit at 15, unloaded at 115 */
  CHECK_EQ(mi.unloads, 1);
  CHECK_EQ(mi.acquires, 2);
  CHECK_EQ(mi.resident_bytes, 0);
  ap_pool_destroy(p);
}

typedef struct later {
  ap_pool *p;
  ap_interpreter *it;
} later;

static void *release_later(void *arg) {
  later *l = arg;
  usleep(50 * 1000);
  ap_pool_release(l->p, l->it);
  return NULL;
}

/* Both models held: a third cannot come in at once (the message names what is resident),
 * but does once one is released within the timeout. */
static void budget_wait(void) {
  ap_pool *p0 = make_pool(1 << 20, AP_POOL_NEVER, 1, NULL);
  add3(p0);
  uint64_t rmicro = resident_of(p0, "micro"), rmagic = resident_of(p0, "magic");
  uint64_t rconv = resident_of(p0, "conv");
  ap_pool_destroy(p0);
  uint64_t budget = rmicro + rmagic + 1000;
  ap_pool *p = make_pool(budget, AP_POOL_NEVER, 1, NULL);
  add3(p);
  ap_interpreter *micro, *magic, *conv = NULL;
  CHECK_EQ(ap_pool_acquire(p, "micro", 0, &micro), AP_OK);
  CHECK_EQ(ap_pool_acquire(p, "magic", 0, &magic), AP_OK);
  CHECK_EQ(ap_pool_acquire(p, "conv", 0, &conv), AP_ERR_BUDGET);
  CHECK(conv == NULL);
  char want[512];
  snprintf(want, sizeof want,
           "budget of %llu bytes cannot hold conv: needs %llu more, %llu resident (waited 0 ms): "
           "micro %llu (1 acquired, 0 idle), magic %llu (1 acquired, 0 idle)",
           (unsigned long long)budget, (unsigned long long)rconv,
           (unsigned long long)(rmicro + rmagic), (unsigned long long)rmicro,
           (unsigned long long)rmagic);
  CHECK_STR(ap_pool_error(p), want);
  /* max_interpreters 1: a second micro waits for the first, then gives up. */
  ap_interpreter *again = NULL;
  CHECK_EQ(ap_pool_acquire(p, "micro", 20, &again), AP_ERR_TIMEOUT);
  CHECK_STR(ap_pool_error(p), "micro: all 1 of its interpreters are acquired (max_interpreters) "
                              "and none was released within 20 ms");
  later l = {p, magic};
  pthread_t t;
  CHECK_EQ(pthread_create(&t, NULL, release_later, &l), 0);
  CHECK_EQ(ap_pool_acquire(p, "conv", 10000, &conv), AP_OK);
  pthread_join(t, NULL);
  ap_pool_stats st;
  ap_pool_get_stats(p, &st);
  CHECK_EQ(st.waits, 2);
  CHECK_EQ(st.failures, 2);
  CHECK_EQ(st.unloads, 1);
  CHECK_EQ(st.resident_bytes, rmicro + rconv);
  CHECK(st.peak_resident_bytes <= budget);
  CHECK_EQ(ap_pool_release(p, conv), AP_OK);
  CHECK_EQ(ap_pool_release(p, micro), AP_OK);
  ap_pool_destroy(p);
}

/* Warm-up runs one invoke per new interpreter; results afterwards are still exact. */
static void warm_up(void) {
  ap_pool_options o = ap_pool_defaults();
  o.budget_bytes = 1 << 20;
  o.warm_up = true;
  ap_pool *p = NULL;
  CHECK_EQ(ap_pool_create(&o, &p), AP_OK);
  CHECK_EQ(ap_pool_add(p, "conv", path_conv), AP_OK);
  ap_interpreter *it = NULL;
  CHECK_EQ(ap_pool_acquire(p, "conv", 0, &it), AP_OK);
  CHECK(it && rt_feed_oracle(it, "tflm_test_conv", 3));
  CHECK_EQ(ap_interpreter_invoke(it), AP_OK);
  CHECK(rt_matches_oracle(it, "tflm_test_conv", 3, 0));
  CHECK_EQ(ap_pool_release(p, it), AP_OK);
  ap_pool_destroy(p);
}

/* idle_ms 0: a model goes as soon as its last interpreter comes back. */
static void idle_zero(void) {
  ap_pool *p = make_pool(1 << 20, 0, 2, NULL);
  CHECK_EQ(ap_pool_add(p, "micro", path_micro), AP_OK);
  ap_interpreter *a = NULL, *b = NULL;
  virtual_ms = 500;
  CHECK_EQ(ap_pool_acquire(p, "micro", 0, &a), AP_OK);
  CHECK_EQ(ap_pool_acquire(p, "micro", 0, &b), AP_OK);
  CHECK_EQ(ap_pool_release(p, a), AP_OK); /* b still acquired: the model stays */
  CHECK(loaded(p, 0));
  CHECK_EQ(ap_pool_release(p, b), AP_OK);
  CHECK(!loaded(p, 0));
  ap_pool_stats st;
  ap_pool_get_stats(p, &st);
  CHECK_EQ(st.loads, 1);
  CHECK_EQ(st.unloads, 1);
  CHECK_EQ(st.interpreters_created, 2);
  CHECK_EQ(st.interpreters_destroyed, 2);
  CHECK_EQ(st.resident_bytes, 0);
  ap_pool_destroy(p);
}

static void bad_input(void) {
  ap_pool_options o = ap_pool_defaults();
  ap_pool *p = NULL;
  o.budget_bytes = 1000;
  o.max_interpreters = 4097;
  CHECK_EQ(ap_pool_create(&o, &p), AP_ERR_ARG);
  CHECK_STR(ap_pool_error(p), "max_interpreters 4097: at most 4096 per model");
  ap_pool_destroy(p);
  o = ap_pool_defaults();
  CHECK_EQ(ap_pool_create(&o, &p), AP_ERR_ARG); /* budget 0 */
  CHECK_STR(ap_pool_error(p), "a pool needs a budget: budget_bytes is 0");
  CHECK_EQ(ap_pool_add(p, "micro", path_micro), AP_ERR_ARG);
  CHECK_EQ(ap_pool_model_count(p), 0);
  ap_pool_destroy(p);
  CHECK_EQ(ap_pool_create(NULL, &p), AP_ERR_ARG);
  ap_pool_destroy(p);
  CHECK_EQ(ap_pool_create(&o, NULL), AP_ERR_ARG);
  CHECK_STR(ap_pool_error(NULL), "no pool (NULL)");

  p = make_pool(30000, AP_POOL_NEVER, 1, NULL);
  CHECK_EQ(ap_pool_add(p, "micro", path_micro), AP_OK);
  ap_pool_cost c;
  ap_pool_cost_of(p, "micro", &c);
  /* magic_wand alone (35,080 bytes with its handle) is more than 30,000. */
  CHECK_EQ(ap_pool_add(p, "magic", path_magic), AP_ERR_BUDGET);
  ap_pool *big = make_pool(1 << 20, AP_POOL_NEVER, 1, NULL);
  ap_pool_add(big, "magic", path_magic);
  ap_pool_cost mc;
  ap_pool_cost_of(big, "magic", &mc);
  ap_pool_destroy(big);
  char want[1024];
  snprintf(want, sizeof want,
           "model magic (%s) alone needs %llu bytes (weights 19616 + handle %llu + interpreter "
           "%llu), more than the budget of 30000 bytes",
           path_magic, (unsigned long long)mc.resident, (unsigned long long)mc.handle,
           (unsigned long long)mc.interpreter);
  CHECK_STR(ap_pool_error(p), want);
  CHECK_EQ(ap_pool_model_count(p), 1);
  CHECK_EQ(ap_pool_add(p, "micro", path_conv), AP_ERR_ARG);
  CHECK_STR(ap_pool_error(p), "model name \"micro\" is already registered");
  CHECK_EQ(ap_pool_add(p, "", path_conv), AP_ERR_ARG);
  CHECK_EQ(ap_pool_add(p, NULL, path_conv), AP_ERR_ARG);
  CHECK_EQ(ap_pool_add(p, "x", NULL), AP_ERR_ARG);
  CHECK_EQ(ap_pool_add(p, "gone", "/nonexistent/m.tflite"), AP_ERR_IO);
  CHECK_CONTAINS(ap_pool_error(p), "/nonexistent/m.tflite: cannot open");
  /* A custom op of another runtime (the Arm Ethos-U NPU's): the cost cannot be measured, so
   * the model is refused at registration. */
  char npu[512];
  ap_test_path(npu, sizeof npu, "models/person_detect_vela.tflite");
  CHECK_EQ(ap_pool_add(p, "npu", npu), AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(ap_pool_error(p), "unsupported custom op \"ethos-u\"");
  ap_interpreter *it = (ap_interpreter *)&c;
  CHECK_EQ(ap_pool_acquire(p, "nope", 0, &it), AP_ERR_ARG);
  CHECK(it == NULL);
  CHECK_STR(ap_pool_error(p), "unknown model \"nope\" (not added to the pool)");
  CHECK_EQ(ap_pool_acquire(p, NULL, 0, &it), AP_ERR_ARG);
  CHECK_EQ(ap_pool_acquire(p, "micro", 0, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_pool_acquire(NULL, "micro", 0, &it), AP_ERR_ARG);
  CHECK_EQ(ap_pool_release(p, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_pool_release(p, (ap_interpreter *)&c), AP_ERR_ARG);
  CHECK_CONTAINS(ap_pool_error(p), "is not an acquired interpreter of this pool");
  CHECK_EQ(ap_pool_cost_of(p, "nope", &c), AP_ERR_ARG);
  ap_pool_model_info mi;
  CHECK_EQ(ap_pool_model(p, 1, &mi), AP_ERR_RANGE);
  CHECK_EQ(ap_pool_get_stats(p, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_pool_collect(NULL), 0);
  ap_pool_destroy(p);
  ap_pool_destroy(NULL);
}

int main(void) {
  ap_test_require_shared();
  ap_test_path(path_micro, sizeof path_micro, "models/micro_speech_int8.tflite");
  ap_test_path(path_magic, sizeof path_magic, "models/magic_wand_float.tflite");
  ap_test_path(path_conv, sizeof path_conv, "models/tflm_test_conv.tflite");
  costs();
  honest_bytes();
  lru_and_idle();
  budget_wait();
  warm_up();
  idle_zero();
  bad_input();
  return ap_test_done();
}
