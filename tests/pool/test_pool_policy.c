/* The pool's per-model policy in one thread, on a virtual clock: per-model options and the
 * cost measured with them, pinned models (never evicted for idleness or room, only by an
 * explicit unload), per-model idle times, explicit load/unload/remove, model states, the
 * eviction counters and the events with their bytes, the machine's memory. Three small
 * models: micro_speech_int8, magic_wand_float, tflm_test_conv (reference kernels). */
#include "runtime/rt_test.h"

#include <unistd.h>

static char path_micro[512], path_magic[512], path_conv[512];
static uint64_t virtual_ms;

static uint64_t virtual_clock(void *ctx) {
  (void)ctx;
  return virtual_ms;
}

/* Every event, as the callback saw it, with the pool's stats read from inside the callback
 * (it is called with the lock released: a getter there must not deadlock). */
#define MAX_EVENTS 64
typedef struct seen {
  ap_pool *p;
  size_t n;
  ap_pool_event e[MAX_EVENTS];
  char model[MAX_EVENTS][32];
  uint64_t stats_resident[MAX_EVENTS];
} seen;

static void on_event(void *ctx, const ap_pool_event *e) {
  seen *s = ctx;
  if (s->n == MAX_EVENTS) return;
  s->e[s->n] = *e;
  snprintf(s->model[s->n], sizeof s->model[0], "%s", e->model);
  ap_pool_stats st = {0};
  ap_pool_get_stats(s->p, &st);
  s->stats_resident[s->n] = st.resident_bytes;
  s->n++;
}

static ap_pool *make_pool(uint64_t budget, uint64_t idle, size_t max_it, seen *ev) {
  ap_pool_options o = ap_pool_defaults();
  o.budget_bytes = budget;
  o.idle_ms = idle;
  o.max_interpreters = max_it;
  o.clock = virtual_clock;
  o.kernels = AP_KERNELS_REFERENCE;
  if (ev) {
    o.on_event = on_event;
    o.event_ctx = ev;
  }
  ap_pool *p = NULL;
  CHECK_EQ(ap_pool_create(&o, &p), AP_OK);
  if (ev) {
    memset(ev, 0, sizeof *ev);
    ev->p = p;
  }
  return p;
}

static uint64_t resident_of(ap_pool *p, const char *name) {
  ap_pool_cost c = {0};
  CHECK_EQ(ap_pool_cost_of(p, name, &c), AP_OK);
  return c.resident;
}

static ap_pool_model_info info(ap_pool *p, size_t i) {
  ap_pool_model_info mi;
  memset(&mi, 0, sizeof mi);
  CHECK_EQ(ap_pool_model(p, i, &mi), AP_OK);
  return mi;
}

static ap_pool_stats stats(ap_pool *p) {
  ap_pool_stats st;
  memset(&st, 0, sizeof st);
  CHECK_EQ(ap_pool_get_stats(p, &st), AP_OK);
  return st;
}

static void use(ap_pool *p, const char *name) {
  ap_interpreter *it = NULL;
  CHECK_EQ(ap_pool_acquire(p, name, 0, &it), AP_OK);
  CHECK_EQ(ap_pool_release(p, it), AP_OK);
}

static void check_event(const seen *s, size_t i, ap_pool_event_kind kind, ap_pool_reason why,
                        const char *model, uint64_t bytes, uint64_t resident) {
  CHECK_MSG(i < s->n, "event %zu of %zu", i, s->n);
  if (i >= s->n) return;
  CHECK_EQ(s->e[i].kind, kind);
  CHECK_MSG(s->e[i].reason == why, "event %zu: %s, expected %s", i,
            ap_pool_reason_name(s->e[i].reason), ap_pool_reason_name(why));
  CHECK_STR(s->model[i], model);
  CHECK_EQ(s->e[i].bytes, bytes);
  CHECK_EQ(s->e[i].resident_bytes, resident);
  if (kind == AP_POOL_EVENT_UNLOAD) CHECK_EQ(s->e[i].elapsed_us, 0);
}

/* The cost is measured with the model's own planning options: what a plain interpreter with
 * the same options measures, and what the pool's interpreter then holds. */
static void options_and_cost(void) {
  ap_pool *p = make_pool(1 << 20, 1000, 2, NULL);
  ap_pool_model_options o = ap_pool_model_defaults();
  CHECK_EQ(o.kernels, -1);
  CHECK_EQ(o.max_interpreters, 0);
  CHECK(!o.pinned && !o.inplace && !o.stream && o.strategy == NULL);
  CHECK_EQ(ap_pool_add(p, "plain", path_conv), AP_OK);
  o.prepare = AP_PREPARE_ONCE;
  o.inplace = true;
  o.strategy = "tflm";
  o.kernels = AP_KERNELS_FAST;
  o.max_interpreters = 3;
  o.idle_ms = 250;
  o.pinned = true;
  o.warmup = 2;
  char strategy[8] = "tflm";
  o.strategy = strategy;
  CHECK_EQ(ap_pool_add_with(p, "tuned", path_conv, &o), AP_OK);
  strategy[0] = 'X'; /* copied at add */

  ap_model *m = NULL;
  CHECK_EQ(ap_model_open(path_conv, NULL, &m), AP_OK);
  ap_interpreter_options io = ap_interpreter_defaults();
  io.prepare = AP_PREPARE_ONCE;
  io.inplace = true;
  io.strategy = "tflm";
  io.kernels = AP_KERNELS_FAST;
  ap_interpreter *ref = NULL;
  ap_memory_usage mu = {0};
  CHECK_EQ(ap_interpreter_create(m, &io, &ref), AP_OK);
  CHECK_EQ(ap_interpreter_allocate(ref), AP_OK);
  CHECK_EQ(ap_interpreter_memory(ref, &mu), AP_OK);
  ap_pool_cost tuned, plain;
  CHECK_EQ(ap_pool_cost_of(p, "tuned", &tuned), AP_OK);
  CHECK_EQ(ap_pool_cost_of(p, "plain", &plain), AP_OK);
  CHECK_EQ(tuned.interpreter, mu.total);
  CHECK_EQ(tuned.arena, mu.arena);
  CHECK_EQ(tuned.persistent, mu.persistent);
  CHECK_EQ(tuned.weights, plain.weights);
  /* Prepared once: each op keeps its prepared state in the persistent region. */
  CHECK(tuned.persistent > plain.persistent);
  ap_interpreter_destroy(ref);
  ap_model_destroy(m);

  ap_pool_model_info a = info(p, 0), b = info(p, 1);
  CHECK_STR(a.name, "plain");
  CHECK(!a.pinned);
  CHECK_EQ(a.idle_ms, 1000); /* the pool's */
  CHECK_EQ(a.max_interpreters, 2);
  CHECK_EQ(a.state, AP_POOL_UNLOADED);
  CHECK_STR(b.name, "tuned");
  CHECK(b.pinned);
  CHECK_EQ(b.idle_ms, 250);
  CHECK_EQ(b.max_interpreters, 3);

  /* Its interpreters hold exactly that cost and compute the oracle's bytes after 2 warm-up
   * invokes on zeros. Three may be acquired at once, not four. */
  ap_interpreter *it[4] = {0};
  for (int i = 0; i < 3; i++)
    CHECK_EQ(ap_pool_acquire(p, "tuned", 0, &it[i]), AP_OK);
  CHECK_EQ(ap_pool_acquire(p, "tuned", 0, &it[3]), AP_ERR_TIMEOUT);
  CHECK_STR(ap_pool_error(p), "tuned: all 3 of its interpreters are acquired (max_interpreters) "
                              "and none was released within 0 ms");
  CHECK_EQ(ap_interpreter_memory(it[0], &mu), AP_OK);
  CHECK_EQ(mu.total, tuned.interpreter);
  CHECK(rt_feed_oracle(it[1], "tflm_test_conv", 2));
  CHECK_EQ(ap_interpreter_invoke(it[1]), AP_OK);
  CHECK(rt_matches_oracle(it[1], "tflm_test_conv", 2, 0));
  CHECK_EQ(info(p, 1).state, AP_POOL_BUSY);
  CHECK_EQ(info(p, 1).acquired, 3);
  CHECK_EQ(stats(p).resident_bytes, tuned.weights + tuned.handle + 3 * tuned.interpreter);
  for (int i = 0; i < 3; i++)
    CHECK_EQ(ap_pool_release(p, it[i]), AP_OK);
  CHECK_EQ(info(p, 1).state, AP_POOL_READY);

  /* Bad options: the name is in the message; nothing is registered. */
  o = ap_pool_model_defaults();
  o.max_interpreters = 4097;
  CHECK_EQ(ap_pool_add_with(p, "many", path_micro, &o), AP_ERR_ARG);
  CHECK_STR(ap_pool_error(p), "many: max_interpreters 4097: at most 4096 per model");
  o = ap_pool_model_defaults();
  o.kernels = 7;
  CHECK_EQ(ap_pool_add_with(p, "k7", path_micro, &o), AP_ERR_ARG);
  CHECK_CONTAINS(ap_pool_error(p), "kernels 7: expected AP_KERNELS_AUTO");
  o = ap_pool_model_defaults();
  o.prepare = 3;
  CHECK_EQ(ap_pool_add_with(p, "p3", path_micro, &o), AP_ERR_ARG);
  CHECK_CONTAINS(ap_pool_error(p), "prepare 3: expected");
  o = ap_pool_model_defaults();
  o.strategy = "nosuch";
  CHECK(ap_pool_add_with(p, "s", path_micro, &o) != AP_OK);
  CHECK_CONTAINS(ap_pool_error(p), "nosuch");
  CHECK_EQ(ap_pool_model_count(p), 2);
  ap_pool_destroy(p);
}

/* Budget: micro + magic fit with 1000 bytes to spare, magic + conv do not; micro is pinned.
 * Room is made by evicting the others, never micro, whatever its age; idleness takes the
 * others, never micro; an explicit unload does. */
static void pinned(void) {
  ap_pool *p0 = make_pool(1 << 20, 100, 2, NULL);
  CHECK_EQ(ap_pool_add(p0, "micro", path_micro), AP_OK);
  CHECK_EQ(ap_pool_add(p0, "magic", path_magic), AP_OK);
  CHECK_EQ(ap_pool_add(p0, "conv", path_conv), AP_OK);
  uint64_t rmicro = resident_of(p0, "micro"), rmagic = resident_of(p0, "magic");
  uint64_t rconv = resident_of(p0, "conv");
  ap_pool_cost cm;
  CHECK_EQ(ap_pool_cost_of(p0, "micro", &cm), AP_OK);
  ap_pool_destroy(p0);
  uint64_t budget = rmicro + rmagic + 1000;
  CHECK(rmicro + rconv <= budget && rmagic + rconv > budget);

  seen ev;
  ap_pool *p = make_pool(budget, 100, 2, &ev);
  ap_pool_model_options o = ap_pool_model_defaults();
  o.pinned = true;
  CHECK_EQ(ap_pool_add_with(p, "micro", path_micro, &o), AP_OK);
  CHECK_EQ(ap_pool_add(p, "magic", path_magic), AP_OK);
  CHECK_EQ(ap_pool_add(p, "conv", path_conv), AP_OK);
  virtual_ms = 0;
  use(p, "micro"); /* the least recently used from now on */
  virtual_ms = 10;
  use(p, "magic");
  virtual_ms = 20;
  use(p, "conv"); /* evicts magic although micro is older */
  virtual_ms = 30;
  use(p, "magic"); /* evicts conv */
  ap_pool_stats st = stats(p);
  CHECK_EQ(st.loads, 4);
  CHECK_EQ(st.evictions_room, 2);
  CHECK_EQ(st.evictions_idle, 0);
  CHECK_EQ(st.unloads, 2);
  CHECK(st.peak_resident_bytes <= budget);
  CHECK_EQ(st.resident_bytes, rmicro + rmagic);
  check_event(&ev, 0, AP_POOL_EVENT_LOAD, AP_POOL_REASON_DEMAND, "micro", rmicro, rmicro);
  check_event(&ev, 1, AP_POOL_EVENT_LOAD, AP_POOL_REASON_DEMAND, "magic", rmagic, rmicro + rmagic);
  check_event(&ev, 2, AP_POOL_EVENT_UNLOAD, AP_POOL_REASON_ROOM, "magic", rmagic, rmicro);
  check_event(&ev, 3, AP_POOL_EVENT_LOAD, AP_POOL_REASON_DEMAND, "conv", rconv, rmicro + rconv);
  check_event(&ev, 4, AP_POOL_EVENT_UNLOAD, AP_POOL_REASON_ROOM, "conv", rconv, rmicro);
  check_event(&ev, 5, AP_POOL_EVENT_LOAD, AP_POOL_REASON_DEMAND, "magic", rmagic, rmicro + rmagic);
  CHECK_EQ(ev.n, 6);
  /* Seen from the callback: an eviction is reported after the load it made room for has
   * reserved its bytes (and before the load itself). */
  CHECK_EQ(ev.stats_resident[0], rmicro);
  CHECK_EQ(ev.stats_resident[1], rmicro + rmagic);
  CHECK_EQ(ev.stats_resident[2], rmicro + rconv);
  CHECK_EQ(ev.stats_resident[3], rmicro + rconv);
  CHECK_EQ(ev.stats_resident[4], rmicro + rmagic);
  CHECK_EQ(ev.stats_resident[5], rmicro + rmagic);
  ap_pool_model_info mi = info(p, 2);
  CHECK_EQ(mi.evictions_room, 1);
  CHECK_EQ(mi.loads, 1);
  CHECK_EQ(info(p, 1).evictions_room, 1);
  CHECK_EQ(info(p, 1).loads, 2);
  CHECK_EQ(info(p, 0).evictions_room, 0);
  CHECK_EQ(info(p, 0).last_used_ms, 0);
  CHECK_EQ(info(p, 1).last_used_ms, 30);

  /* A second interpreter of micro makes room by evicting magic; when magic comes back, it
   * takes the room of micro's second interpreter (idle), never of its last one. */
  ap_interpreter *a = NULL, *b = NULL;
  virtual_ms = 40;
  CHECK_EQ(ap_pool_acquire(p, "micro", 0, &a), AP_OK);
  CHECK_EQ(ap_pool_acquire(p, "micro", 0, &b), AP_OK);
  CHECK_EQ(info(p, 0).interpreters, 2);
  CHECK_EQ(info(p, 1).state, AP_POOL_UNLOADED);
  CHECK_EQ(stats(p).evictions_room, 3);
  CHECK_EQ(ap_pool_release(p, a), AP_OK);
  CHECK_EQ(ap_pool_release(p, b), AP_OK);
  virtual_ms = 50;
  use(p, "magic");
  CHECK_EQ(info(p, 0).interpreters, 1);
  CHECK_EQ(stats(p).resident_bytes, rmicro + rmagic);
  /* Then idle: magic goes at its 100 ms, micro stays whatever the time. */
  virtual_ms = 149;
  CHECK_EQ(ap_pool_collect(p), 0);
  virtual_ms = 150;
  CHECK_EQ(ap_pool_collect(p), 1);
  CHECK_EQ(info(p, 1).state, AP_POOL_UNLOADED);
  CHECK_EQ(info(p, 1).evictions_idle, 1);
  CHECK_EQ(info(p, 1).evictions_room, 2);
  virtual_ms = 1000000;
  CHECK_EQ(ap_pool_collect(p), 0);
  mi = info(p, 0);
  CHECK(mi.loaded && mi.state == AP_POOL_READY);
  CHECK_EQ(mi.interpreters, 1);
  CHECK_EQ(mi.unloads, 0);
  st = stats(p);
  CHECK_EQ(st.resident_bytes, rmicro);
  CHECK_EQ(st.loads, 5);
  CHECK_EQ(st.evictions_idle, 1);
  CHECK_EQ(st.evictions_room, 3);
  CHECK_EQ(st.unloads, 4);
  CHECK_EQ(st.interpreters_created, 6);
  CHECK_EQ(st.interpreters_destroyed, 5); /* magic's 3, conv's, micro's second */
  CHECK(st.peak_resident_bytes <= budget);

  /* Room for magic and conv together cannot be made while micro is pinned... */
  ap_interpreter *magic = NULL, *conv = NULL;
  CHECK_EQ(ap_pool_acquire(p, "magic", 0, &magic), AP_OK);
  CHECK_EQ(ap_pool_acquire(p, "conv", 0, &conv), AP_ERR_BUDGET);
  CHECK_EQ(stats(p).budget_failures, 1);
  CHECK_EQ(ap_pool_release(p, magic), AP_OK);
  /* ...nor is micro evicted for conv: magic goes. */
  CHECK_EQ(ap_pool_acquire(p, "conv", 0, &conv), AP_OK);
  CHECK_EQ(info(p, 0).state, AP_POOL_READY);
  CHECK_EQ(info(p, 1).state, AP_POOL_UNLOADED);
  CHECK_EQ(ap_pool_release(p, conv), AP_OK);
  /* An explicit unload is the one way out. */
  size_t before = ev.n;
  CHECK_EQ(ap_pool_unload(p, "micro"), AP_OK);
  CHECK_EQ(info(p, 0).state, AP_POOL_UNLOADED);
  CHECK_EQ(info(p, 0).unloads_explicit, 1);
  st = stats(p);
  CHECK_EQ(st.unloads_explicit, 1);
  CHECK_EQ(st.resident_bytes, rconv);
  check_event(&ev, before, AP_POOL_EVENT_UNLOAD, AP_POOL_REASON_EXPLICIT, "micro", rmicro, rconv);
  /* Loaded again on demand, pinned again. */
  virtual_ms += 10;
  use(p, "micro");
  virtual_ms += 1000000;
  ap_pool_collect(p);
  CHECK_EQ(info(p, 0).state, AP_POOL_READY);
  CHECK_EQ(info(p, 2).state, AP_POOL_UNLOADED);
  /* Destroy reports what it unloads. */
  before = ev.n;
  ap_pool_destroy(p);
  check_event(&ev, before, AP_POOL_EVENT_UNLOAD, AP_POOL_REASON_SHUTDOWN, "micro", rmicro, 0);
  CHECK_EQ(ev.n, before + 1);
}

/* Each model's own idle time: micro 50 ms, magic never, conv the pool's 100 ms. */
static void idle_per_model(void) {
  seen ev;
  ap_pool *p = make_pool(1 << 20, 100, 1, &ev);
  ap_pool_model_options o = ap_pool_model_defaults();
  o.idle_ms = 50;
  CHECK_EQ(ap_pool_add_with(p, "micro", path_micro, &o), AP_OK);
  o.idle_ms = AP_POOL_NEVER;
  CHECK_EQ(ap_pool_add_with(p, "magic", path_magic, &o), AP_OK);
  CHECK_EQ(ap_pool_add(p, "conv", path_conv), AP_OK);
  uint64_t rmicro = resident_of(p, "micro"), rmagic = resident_of(p, "magic");
  uint64_t rconv = resident_of(p, "conv");
  CHECK_EQ(info(p, 1).idle_ms, AP_POOL_NEVER);
  CHECK_EQ(info(p, 2).idle_ms, 100);
  virtual_ms = 1000;
  use(p, "micro");
  use(p, "magic");
  use(p, "conv");
  virtual_ms = 1049;
  CHECK_EQ(ap_pool_collect(p), 0);
  virtual_ms = 1050;
  CHECK_EQ(ap_pool_collect(p), 1);
  CHECK_EQ(info(p, 0).state, AP_POOL_UNLOADED);
  virtual_ms = 1099;
  CHECK_EQ(ap_pool_collect(p), 0);
  virtual_ms = 1100;
  CHECK_EQ(ap_pool_collect(p), 1);
  CHECK_EQ(info(p, 2).state, AP_POOL_UNLOADED);
  virtual_ms = UINT64_MAX / 2;
  CHECK_EQ(ap_pool_collect(p), 0);
  CHECK_EQ(info(p, 1).state, AP_POOL_READY);
  ap_pool_stats st = stats(p);
  CHECK_EQ(st.evictions_idle, 2);
  CHECK_EQ(st.evictions_room, 0);
  CHECK_EQ(st.unloads, 2);
  CHECK_EQ(st.resident_bytes, rmagic);
  CHECK_EQ(ev.n, 5);
  check_event(&ev, 3, AP_POOL_EVENT_UNLOAD, AP_POOL_REASON_IDLE, "micro", rmicro, rmagic + rconv);
  check_event(&ev, 4, AP_POOL_EVENT_UNLOAD, AP_POOL_REASON_IDLE, "conv", rconv, rmagic);
  ap_pool_destroy(p);
}

/* ap_pool_load / ap_pool_unload: resident with one warm interpreter, not counted as an
 * acquire; an unload of a busy model waits for its last release; load cancels that. */
static void explicit_residency(void) {
  seen ev;
  ap_pool *p0 = make_pool(1 << 20, AP_POOL_NEVER, 1, NULL);
  CHECK_EQ(ap_pool_add(p0, "micro", path_micro), AP_OK);
  CHECK_EQ(ap_pool_add(p0, "magic", path_magic), AP_OK);
  CHECK_EQ(ap_pool_add(p0, "conv", path_conv), AP_OK);
  uint64_t rmicro = resident_of(p0, "micro"), rmagic = resident_of(p0, "magic");
  uint64_t rconv = resident_of(p0, "conv");
  ap_pool_destroy(p0);
  uint64_t budget = rmicro + rmagic + 1000;
  ap_pool *p = make_pool(budget, AP_POOL_NEVER, 1, &ev);
  ap_pool_model_options o = ap_pool_model_defaults();
  o.warmup = 3;
  CHECK_EQ(ap_pool_add_with(p, "micro", path_micro, &o), AP_OK);
  CHECK_EQ(ap_pool_add(p, "magic", path_magic), AP_OK);
  CHECK_EQ(ap_pool_add(p, "conv", path_conv), AP_OK);

  virtual_ms = 7;
  CHECK_EQ(ap_pool_load(p, "micro", 0), AP_OK);
  ap_pool_model_info mi = info(p, 0);
  CHECK(mi.loaded && mi.state == AP_POOL_READY);
  CHECK_EQ(mi.interpreters, 1);
  CHECK_EQ(mi.acquired, 0);
  CHECK_EQ(mi.acquires, 0);
  CHECK_EQ(mi.last_used_ms, 7);
  ap_pool_stats st = stats(p);
  CHECK_EQ(st.loads, 1);
  CHECK_EQ(st.acquires, 0);
  CHECK_EQ(st.interpreters_created, 1);
  CHECK_EQ(st.resident_bytes, rmicro);
  check_event(&ev, 0, AP_POOL_EVENT_LOAD, AP_POOL_REASON_EXPLICIT, "micro", rmicro, rmicro);
  CHECK_EQ(ap_pool_load(p, "micro", 0), AP_OK); /* loaded already: nothing */
  CHECK_EQ(stats(p).loads, 1);
  CHECK_EQ(ev.n, 1);

  /* The warm interpreter is handed out (a hit) and computes the oracle's bytes. */
  ap_interpreter *it = NULL;
  CHECK_EQ(ap_pool_acquire(p, "micro", 0, &it), AP_OK);
  CHECK_EQ(stats(p).hits, 1);
  CHECK_EQ(info(p, 0).state, AP_POOL_BUSY);
  CHECK(rt_feed_oracle(it, "micro_speech_int8", 1));
  CHECK_EQ(ap_interpreter_invoke(it), AP_OK);
  CHECK(rt_matches_oracle(it, "micro_speech_int8", 1, 0));
  /* Unload while busy: it keeps serving until the release. */
  CHECK_EQ(ap_pool_unload(p, "micro"), AP_OK);
  CHECK_EQ(info(p, 0).state, AP_POOL_BUSY);
  CHECK_EQ(ev.n, 1);
  CHECK_EQ(ap_pool_release(p, it), AP_OK);
  CHECK_EQ(info(p, 0).state, AP_POOL_UNLOADED);
  check_event(&ev, 1, AP_POOL_EVENT_UNLOAD, AP_POOL_REASON_EXPLICIT, "micro", rmicro, 0);
  CHECK_EQ(ap_pool_unload(p, "micro"), AP_OK); /* not loaded: nothing */
  CHECK_EQ(ev.n, 2);
  st = stats(p);
  CHECK_EQ(st.unloads_explicit, 1);
  CHECK_EQ(st.resident_bytes, 0);

  /* A later load cancels a pending unload. */
  CHECK_EQ(ap_pool_acquire(p, "micro", 0, &it), AP_OK);
  CHECK_EQ(ap_pool_unload(p, "micro"), AP_OK);
  CHECK_EQ(ap_pool_load(p, "micro", 0), AP_OK);
  CHECK_EQ(ap_pool_release(p, it), AP_OK);
  CHECK_EQ(info(p, 0).state, AP_POOL_READY);
  CHECK_EQ(stats(p).unloads_explicit, 1);

  /* Budget full of busy models: the load fails with the acquire's message, not counted as
   * an acquire's failure. */
  ap_interpreter *micro = NULL, *magic = NULL;
  CHECK_EQ(ap_pool_acquire(p, "micro", 0, &micro), AP_OK);
  CHECK_EQ(ap_pool_acquire(p, "magic", 0, &magic), AP_OK);
  CHECK_EQ(ap_pool_load(p, "conv", 0), AP_ERR_BUDGET);
  char want[512];
  snprintf(want, sizeof want,
           "budget of %llu bytes cannot hold conv: needs %llu more, %llu resident (waited 0 ms): "
           "micro %llu (1 acquired, 0 idle), magic %llu (1 acquired, 0 idle)",
           (unsigned long long)budget, (unsigned long long)rconv,
           (unsigned long long)(rmicro + rmagic), (unsigned long long)rmicro,
           (unsigned long long)rmagic);
  CHECK_STR(ap_pool_error(p), want);
  st = stats(p);
  CHECK_EQ(st.budget_failures, 0);
  CHECK_EQ(st.failures, 0);
  CHECK_EQ(ap_pool_release(p, magic), AP_OK);
  /* Now magic is idle: the load evicts it. */
  CHECK_EQ(ap_pool_load(p, "conv", 0), AP_OK);
  CHECK_EQ(info(p, 1).evictions_room, 1);
  CHECK_EQ(info(p, 2).state, AP_POOL_READY);
  CHECK_EQ(ap_pool_release(p, micro), AP_OK);

  CHECK_EQ(ap_pool_load(p, "nope", 0), AP_ERR_ARG);
  CHECK_STR(ap_pool_error(p), "unknown model \"nope\" (not added to the pool)");
  CHECK_EQ(ap_pool_unload(p, "nope"), AP_ERR_ARG);
  CHECK_EQ(ap_pool_unload(p, NULL), AP_ERR_ARG);
  CHECK_STR(ap_pool_error(p), "ap_pool_unload: NULL name");
  CHECK_EQ(ap_pool_load(NULL, "micro", 0), AP_ERR_ARG);
  CHECK_EQ(ap_pool_unload(NULL, "micro"), AP_ERR_ARG);
  CHECK_EQ(ap_pool_remove(NULL, "micro"), AP_ERR_ARG);
  ap_pool_destroy(p);
}

/* ap_pool_remove: the name is unknown at once; a busy model is unloaded at its release;
 * the name may be added again meanwhile. */
static void remove_model(void) {
  seen ev;
  ap_pool *p = make_pool(1 << 20, AP_POOL_NEVER, 1, &ev);
  CHECK_EQ(ap_pool_add(p, "a", path_micro), AP_OK);
  CHECK_EQ(ap_pool_add(p, "b", path_magic), AP_OK);
  uint64_t rmicro = resident_of(p, "a"), rmagic = resident_of(p, "b");
  ap_interpreter *old = NULL;
  CHECK_EQ(ap_pool_acquire(p, "a", 0, &old), AP_OK);
  use(p, "b");
  CHECK_EQ(ap_pool_remove(p, "a"), AP_OK);
  CHECK_EQ(ap_pool_model_count(p), 1);
  CHECK_STR(info(p, 0).name, "b");
  ap_interpreter *it = NULL;
  CHECK_EQ(ap_pool_acquire(p, "a", 0, &it), AP_ERR_ARG);
  CHECK_STR(ap_pool_error(p), "unknown model \"a\" (not added to the pool)");
  CHECK_EQ(ap_pool_remove(p, "a"), AP_ERR_ARG);
  ap_pool_cost c;
  CHECK_EQ(ap_pool_cost_of(p, "a", &c), AP_ERR_ARG);
  CHECK_EQ(stats(p).resident_bytes, rmicro + rmagic); /* still held by `old` */
  /* Added again under the same name, another file. */
  CHECK_EQ(ap_pool_add(p, "a", path_conv), AP_OK);
  CHECK_EQ(ap_pool_model_count(p), 2);
  CHECK_STR(info(p, 1).path, path_conv);
  CHECK_EQ(ap_pool_release(p, old), AP_OK);
  check_event(&ev, 2, AP_POOL_EVENT_UNLOAD, AP_POOL_REASON_REMOVED, "a", rmicro, rmagic);
  CHECK_EQ(stats(p).resident_bytes, rmagic);
  CHECK_EQ(ap_pool_remove(p, "b"), AP_OK); /* idle: at once */
  check_event(&ev, 3, AP_POOL_EVENT_UNLOAD, AP_POOL_REASON_REMOVED, "b", rmagic, 0);
  ap_pool_stats st = stats(p);
  CHECK_EQ(st.unloads, 2);
  CHECK_EQ(st.evictions_idle + st.evictions_room + st.unloads_explicit, 0);
  CHECK_EQ(st.resident_bytes, 0);
  use(p, "a");
  CHECK_EQ(info(p, 0).loads, 1);
  CHECK_EQ(info(p, 0).state, AP_POOL_READY);
  ap_pool_destroy(p);
}

static void names_and_memory(void) {
  CHECK_STR(ap_pool_state_name(AP_POOL_UNLOADED), "unloaded");
  CHECK_STR(ap_pool_state_name(AP_POOL_LOADING), "loading");
  CHECK_STR(ap_pool_state_name(AP_POOL_WARMING), "warming");
  CHECK_STR(ap_pool_state_name(AP_POOL_READY), "ready");
  CHECK_STR(ap_pool_state_name(AP_POOL_BUSY), "busy");
  CHECK_STR(ap_pool_state_name(5), "?");
  CHECK_STR(ap_pool_state_name(-1), "?");
  CHECK_STR(ap_pool_reason_name(AP_POOL_REASON_DEMAND), "demand");
  CHECK_STR(ap_pool_reason_name(AP_POOL_REASON_EXPLICIT), "explicit");
  CHECK_STR(ap_pool_reason_name(AP_POOL_REASON_IDLE), "idle");
  CHECK_STR(ap_pool_reason_name(AP_POOL_REASON_ROOM), "room");
  CHECK_STR(ap_pool_reason_name(AP_POOL_REASON_REMOVED), "removed");
  CHECK_STR(ap_pool_reason_name(AP_POOL_REASON_SHUTDOWN), "shutdown");
  CHECK_STR(ap_pool_reason_name((ap_pool_reason)6), "?");
  uint64_t phys = 0, limit = 0;
  CHECK_EQ(ap_pool_machine_memory(&phys, &limit), AP_OK);
  CHECK_EQ(phys, (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE));
  CHECK(limit == 0 || limit >= 4096); /* the parser itself: tests/port/test_port_memory.c */
  CHECK_EQ(ap_pool_machine_memory(NULL, &limit), AP_ERR_ARG);
  CHECK_EQ(ap_pool_machine_memory(&phys, NULL), AP_ERR_ARG);
}

int main(void) {
  ap_test_require_shared();
  ap_test_path(path_micro, sizeof path_micro, "models/micro_speech_int8.tflite");
  ap_test_path(path_magic, sizeof path_magic, "models/magic_wand_float.tflite");
  ap_test_path(path_conv, sizeof path_conv, "models/tflm_test_conv.tflite");
  options_and_cost();
  pinned();
  idle_per_model();
  explicit_residency();
  remove_model();
  names_and_memory();
  return ap_test_done();
}
