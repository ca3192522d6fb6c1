/* Admission with threads: with the budget full of busy models an acquire waits up to its
 * timeout, counted in `waiting` meanwhile, then fails with AP_ERR_BUDGET (a server's 503);
 * a release lets a waiter in. A model warming up is seen "warming" and its waiters get the
 * warm interpreter. Threads hammering a pinned model and two others under a budget that
 * holds two: events arrive (with the lock released) for every load and unload, never above
 * the budget, never an eviction of the pinned model. Run under ThreadSanitizer too. */
#include "runtime/rt_test.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

static char path_micro[512], path_magic[512], path_conv[512], path_mnv2[512];

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static ap_pool_stats stats(ap_pool *p) {
  ap_pool_stats st;
  memset(&st, 0, sizeof st);
  CHECK_EQ(ap_pool_get_stats(p, &st), AP_OK);
  return st;
}

static int state_of(ap_pool *p, size_t i) {
  ap_pool_model_info mi;
  return ap_pool_model(p, i, &mi) == AP_OK ? mi.state : -1;
}

/* Polls until the pool has `n` waiters (a bounded wait for another thread to get there: 20 s
 * is only a guard against a hang, never reached when the pool works). */
static bool wait_for_waiters(ap_pool *p, uint64_t n) {
  for (int i = 0; i < 20000; i++) {
    if (stats(p).waiting == n) return true;
    usleep(1000);
  }
  return false;
}

typedef struct request {
  ap_pool *p;
  const char *name;
  uint64_t timeout_ms;
  ap_status status;
  ap_interpreter *it;
} request;

static void *acquire_thread(void *arg) {
  request *r = arg;
  r->status = ap_pool_acquire(r->p, r->name, r->timeout_ms, &r->it);
  return NULL;
}

static void *load_thread(void *arg) {
  request *r = arg;
  r->status = ap_pool_load(r->p, r->name, r->timeout_ms);
  return NULL;
}

static uint64_t resident_of(ap_pool *p, const char *name) {
  ap_pool_cost c = {0};
  CHECK_EQ(ap_pool_cost_of(p, name, &c), AP_OK);
  return c.resident;
}

static ap_pool *make_pool(uint64_t budget, size_t max_it,
                          void (*on_event)(void *, const ap_pool_event *), void *ctx) {
  ap_pool_options o = ap_pool_defaults();
  o.budget_bytes = budget;
  o.idle_ms = AP_POOL_NEVER;
  o.max_interpreters = max_it;
  o.kernels = AP_KERNELS_REFERENCE;
  o.on_event = on_event;
  o.event_ctx = ctx;
  ap_pool *p = NULL;
  CHECK_EQ(ap_pool_create(&o, &p), AP_OK);
  return p;
}

/* micro + magic fill the budget, both acquired: conv waits. */
static void busy_budget(void) {
  ap_pool *p0 = make_pool(1 << 20, 1, NULL, NULL);
  CHECK_EQ(ap_pool_add(p0, "micro", path_micro), AP_OK);
  CHECK_EQ(ap_pool_add(p0, "magic", path_magic), AP_OK);
  CHECK_EQ(ap_pool_add(p0, "conv", path_conv), AP_OK);
  uint64_t rmicro = resident_of(p0, "micro"), rmagic = resident_of(p0, "magic");
  uint64_t rconv = resident_of(p0, "conv");
  ap_pool_destroy(p0);
  uint64_t budget = rmicro + rmagic + 1000;
  CHECK(rmagic + rconv > budget && rmicro + rconv <= budget);

  ap_pool *p = make_pool(budget, 1, NULL, NULL);
  CHECK_EQ(ap_pool_add(p, "micro", path_micro), AP_OK);
  CHECK_EQ(ap_pool_add(p, "magic", path_magic), AP_OK);
  CHECK_EQ(ap_pool_add(p, "conv", path_conv), AP_OK);
  ap_interpreter *micro = NULL, *magic = NULL, *conv = NULL;
  CHECK_EQ(ap_pool_acquire(p, "micro", 0, &micro), AP_OK);
  CHECK_EQ(ap_pool_acquire(p, "magic", 0, &magic), AP_OK);

  /* A waiter with a long timeout... */
  request w = {p, "conv", 60000, AP_ERR_ARG, NULL};
  pthread_t t;
  CHECK_EQ(pthread_create(&t, NULL, acquire_thread, &w), 0);
  CHECK(wait_for_waiters(p, 1));
  /* ...and one with a short one, which fails after its wait (at least its timeout). */
  uint64_t t0 = now_ms();
  CHECK_EQ(ap_pool_acquire(p, "conv", 30, &conv), AP_ERR_BUDGET);
  CHECK(now_ms() - t0 >= 30);
  CHECK(conv == NULL);
  CHECK_CONTAINS(ap_pool_error(p), "cannot hold conv");
  CHECK_CONTAINS(ap_pool_error(p), "(waited 30 ms)");
  ap_pool_stats st = stats(p);
  CHECK_EQ(st.budget_failures, 1);
  CHECK_EQ(st.failures, 1);
  CHECK_EQ(st.waiting, 1); /* the first is still there */
  CHECK(st.resident_bytes <= budget);
  CHECK_EQ(state_of(p, 0), AP_POOL_BUSY);
  CHECK_EQ(state_of(p, 1), AP_POOL_BUSY);
  CHECK_EQ(state_of(p, 2), AP_POOL_UNLOADED);
  /* magic's release lets the waiter in: magic is evicted for it. */
  CHECK_EQ(ap_pool_release(p, magic), AP_OK);
  pthread_join(t, NULL);
  CHECK_EQ(w.status, AP_OK);
  CHECK(w.it != NULL);
  st = stats(p);
  CHECK_EQ(st.waiting, 0);
  CHECK_EQ(st.waits, 2);
  CHECK_EQ(st.evictions_room, 1);
  CHECK_EQ(st.budget_failures, 1);
  CHECK_EQ(st.resident_bytes, rmicro + rconv);
  CHECK(st.peak_resident_bytes <= budget);
  CHECK_EQ(ap_pool_release(p, w.it), AP_OK);
  CHECK_EQ(ap_pool_release(p, micro), AP_OK);
  ap_pool_destroy(p);
}

static atomic_int loaded_flag;

static void *load_and_flag(void *arg) {
  load_thread(arg);
  atomic_store(&loaded_flag, 1);
  return NULL;
}

/* A load with many warm-up invokes: the model is seen loading/warming (never ready before
 * its warm-up is over); an acquire meanwhile waits and then gets the warm interpreter. */
static void warming(void) {
  ap_pool *p = make_pool(64u << 20, 1, NULL, NULL);
  ap_pool_model_options o = ap_pool_model_defaults();
  /* Warm-up long enough to be seen from here: some 200 ms of invokes (some 3 ms each in a
   * plain build, far more under a sanitizer), at least 3. */
  ap_model *m = rt_load("mobilenet_v2_torch_int8");
  ap_interpreter *it = NULL;
  CHECK(m && ap_interpreter_create(m, NULL, &it) == AP_OK && ap_interpreter_allocate(it) == AP_OK);
  uint64_t t0 = now_ms();
  CHECK_EQ(ap_interpreter_invoke(it), AP_OK);
  uint64_t one = now_ms() - t0 + 1;
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  o.warmup = one >= 66 ? 3 : (unsigned)(200 / one);
  o.kernels = AP_KERNELS_FAST;
  CHECK_EQ(ap_pool_add_with(p, "mnv2", path_mnv2, &o), AP_OK);
  CHECK_EQ(state_of(p, 0), AP_POOL_UNLOADED);
  request l = {p, "mnv2", 60000, AP_ERR_ARG, NULL};
  atomic_store(&loaded_flag, 0);
  pthread_t t;
  CHECK_EQ(pthread_create(&t, NULL, load_and_flag, &l), 0);
  bool seen[5] = {false};
  int last = -1;
  while (!atomic_load(&loaded_flag)) {
    int s = state_of(p, 0);
    if (s >= 0 && s < 5) seen[s] = true;
    if (s == AP_POOL_WARMING && last != AP_POOL_WARMING) {
      /* An acquire now waits for the load to end (whatever its timeout). */
      request a = {p, "mnv2", 0, AP_ERR_ARG, NULL};
      pthread_t ta;
      CHECK_EQ(pthread_create(&ta, NULL, acquire_thread, &a), 0);
      pthread_join(ta, NULL);
      CHECK_EQ(a.status, AP_OK);
      CHECK(a.it != NULL);
      if (a.it) {
        CHECK(rt_feed_oracle(a.it, "mobilenet_v2_torch_int8", 1));
        CHECK_EQ(ap_interpreter_invoke(a.it), AP_OK);
        CHECK(rt_matches_oracle(a.it, "mobilenet_v2_torch_int8", 1, 0));
        CHECK_EQ(ap_pool_release(p, a.it), AP_OK);
      }
    }
    last = s;
    usleep(100);
  }
  pthread_join(t, NULL);
  CHECK_EQ(l.status, AP_OK);
  CHECK(seen[AP_POOL_WARMING]);
  CHECK(!seen[AP_POOL_READY] || seen[AP_POOL_WARMING]);
  CHECK_EQ(state_of(p, 0), AP_POOL_READY);
  ap_pool_stats st = stats(p);
  CHECK_EQ(st.loads, 1);
  CHECK_EQ(st.acquires, 1);
  CHECK_EQ(st.hits, 1); /* the load's interpreter */
  CHECK_EQ(st.interpreters_created, 1);
  CHECK_EQ(st.waiting, 0);
  ap_pool_destroy(p);
}

/* Events from many threads. */
#define THREADS 4
#define REQUESTS 40
#define MAX_EVENTS 4096

typedef struct log {
  pthread_mutex_t mu;
  size_t n;
  ap_pool_event e[MAX_EVENTS];
  int model[MAX_EVENTS]; /* 0 micro, 1 magic, 2 conv */
  ap_pool *p;
  int calls_with_stats;
} log_t;

static void log_event(void *ctx, const ap_pool_event *e) {
  log_t *l = ctx;
  /* The lock is released: a getter works from here. */
  ap_pool_stats st;
  bool ok = ap_pool_get_stats(l->p, &st) == AP_OK;
  pthread_mutex_lock(&l->mu);
  if (l->n < MAX_EVENTS) {
    l->e[l->n] = *e;
    l->model[l->n] = strcmp(e->model, "micro") == 0 ? 0 : strcmp(e->model, "magic") == 0 ? 1 : 2;
    l->n++;
  }
  l->calls_with_stats += ok;
  pthread_mutex_unlock(&l->mu);
}

typedef struct worker {
  ap_pool *p;
  uint64_t rng;
  int failures;
} worker;

static void *work(void *arg) {
  static const char *const names[] = {"micro", "magic", "conv"};
  worker *w = arg;
  for (int r = 0; r < REQUESTS; r++) {
    const char *name = names[ap_test_rand(&w->rng) % 3];
    ap_interpreter *it = NULL;
    if (ap_pool_acquire(w->p, name, 60000, &it) != AP_OK) {
      fprintf(stderr, "%s: %s\n", name, ap_pool_error(w->p));
      w->failures++;
      continue;
    }
    if (ap_interpreter_invoke(it) != AP_OK) w->failures++;
    if (ap_pool_release(w->p, it) != AP_OK) w->failures++;
    if (r % 10 == 9 && ap_pool_unload(w->p, "magic") != AP_OK) w->failures++;
  }
  return NULL;
}

static void events_from_threads(void) {
  ap_pool *p0 = make_pool(1 << 20, 1, NULL, NULL);
  CHECK_EQ(ap_pool_add(p0, "micro", path_micro), AP_OK);
  CHECK_EQ(ap_pool_add(p0, "magic", path_magic), AP_OK);
  CHECK_EQ(ap_pool_add(p0, "conv", path_conv), AP_OK);
  uint64_t rmicro = resident_of(p0, "micro"), rmagic = resident_of(p0, "magic");
  ap_pool_destroy(p0);
  uint64_t budget = rmicro + rmagic + 1000;

  static log_t l;
  memset(&l, 0, sizeof l);
  pthread_mutex_init(&l.mu, NULL);
  ap_pool *p = make_pool(budget, 2, log_event, &l);
  l.p = p;
  ap_pool_model_options o = ap_pool_model_defaults();
  o.pinned = true;
  CHECK_EQ(ap_pool_add_with(p, "micro", path_micro, &o), AP_OK);
  CHECK_EQ(ap_pool_add(p, "magic", path_magic), AP_OK);
  CHECK_EQ(ap_pool_add(p, "conv", path_conv), AP_OK);
  CHECK_EQ(ap_pool_load(p, "micro", 0), AP_OK);

  worker w[THREADS];
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){p, 0x5DEECE66DULL * (uint64_t)(i + 3), 0};
    CHECK_EQ(pthread_create(&t[i], NULL, work, &w[i]), 0);
  }
  int failures = 0;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(t[i], NULL);
    failures += w[i].failures;
  }
  CHECK_EQ(failures, 0);
  ap_pool_stats st = stats(p);
  CHECK_EQ(st.acquires, THREADS * REQUESTS);
  CHECK(st.peak_resident_bytes <= budget);
  CHECK_EQ(st.waiting, 0);
  CHECK_EQ(st.budget_failures, 0);
  /* Every event before destroy is delivered by the time the threads are done. */
  pthread_mutex_lock(&l.mu);
  size_t loads = 0, unloads = 0;
  int balance[3] = {0, 0, 0};
  for (size_t i = 0; i < l.n; i++) {
    CHECK(l.e[i].resident_bytes <= budget);
    if (l.e[i].kind == AP_POOL_EVENT_LOAD) {
      loads++;
      balance[l.model[i]]++;
    } else {
      unloads++;
      balance[l.model[i]]--;
      CHECK_MSG(l.model[i] != 0, "micro (pinned) unloaded: %s", ap_pool_reason_name(l.e[i].reason));
    }
  }
  CHECK_EQ(loads, st.loads);
  CHECK_EQ(unloads, st.unloads);
  CHECK_EQ(st.unloads, st.evictions_room + st.unloads_explicit);
  CHECK_EQ(balance[0], 1);
  CHECK_EQ(l.calls_with_stats, (int)l.n);
  size_t before = l.n;
  pthread_mutex_unlock(&l.mu);
  printf("events: %zu loads, %zu unloads (%llu room, %llu explicit), peak %llu of %llu\n", loads,
         unloads, (unsigned long long)st.evictions_room, (unsigned long long)st.unloads_explicit,
         (unsigned long long)st.peak_resident_bytes, (unsigned long long)budget);
  ap_pool_destroy(p);
  /* Destroy: one shutdown per model still loaded, after which nothing is resident. */
  for (size_t i = before; i < l.n; i++) {
    CHECK_EQ(l.e[i].kind, AP_POOL_EVENT_UNLOAD);
    CHECK_EQ(l.e[i].reason, AP_POOL_REASON_SHUTDOWN);
    balance[l.model[i]]--;
  }
  CHECK_EQ(balance[0], 0);
  CHECK_EQ(balance[1], 0);
  CHECK_EQ(balance[2], 0);
  CHECK(l.n > before);
  CHECK_EQ(l.e[l.n - 1].resident_bytes, 0);
  pthread_mutex_destroy(&l.mu);
}

int main(void) {
  ap_test_require_shared();
  ap_test_path(path_micro, sizeof path_micro, "models/micro_speech_int8.tflite");
  ap_test_path(path_magic, sizeof path_magic, "models/magic_wand_float.tflite");
  ap_test_path(path_conv, sizeof path_conv, "models/tflm_test_conv.tflite");
  ap_test_path(path_mnv2, sizeof path_mnv2, "models/mobilenet_v2_torch_int8.tflite");
  busy_budget();
  warming();
  events_from_threads();
  return ap_test_done();
}
