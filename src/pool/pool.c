/* The pool's life: create and destroy, registering models and measuring their cost, the
 * per-thread message, statistics. Acquire and release are in acquire.c. */
#include "pool_internal.h"
#include "port/port.h"

#include <stdalign.h>
#include <stdio.h>
#include <string.h>

#define POOL_NAME_MAX 255

/* Per thread: two threads failing on one pool at once must not overwrite each other's
 * message while it is read. */
static _Thread_local struct {
  const ap_pool *pool;
  ap_errbuf err;
} tls_err;

ap_status pool_fail(const ap_pool *p, ap_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tls_err.pool = p;
  ap_vfail(&tls_err.err, s, fmt, ap);
  va_end(ap);
  return s;
}

const char *ap_pool_error(const ap_pool *p) {
  if (!p) return "no pool (NULL)";
  return tls_err.pool == p ? tls_err.err.msg : "";
}

ap_pool_options ap_pool_defaults(void) {
  return (ap_pool_options){.idle_ms = 60000, .max_interpreters = 4};
}

ap_status ap_pool_create(const ap_pool_options *opt, ap_pool **out) {
  if (!out) return AP_ERR_ARG;
  const ap_allocator *a = ap_alloc_or_default(opt ? opt->allocator : NULL);
  ap_pool *p = ap_calloc(a, 1, sizeof *p);
  *out = p;
  if (!p) return AP_ERR_NOMEM;
  p->alloc = *a;
  if (tls_err.pool == p) tls_err.pool = NULL; /* a message of an earlier pool at this address */
  if (!opt) return pool_fail(p, AP_ERR_ARG, "ap_pool_create: NULL options");
  p->opt = *opt;
  p->opt.allocator = &p->alloc;
  if (p->opt.max_interpreters == 0) p->opt.max_interpreters = 1;
  p->st.budget_bytes = opt->budget_bytes;
  if (opt->budget_bytes == 0)
    return pool_fail(p, AP_ERR_ARG, "a pool needs a budget: budget_bytes is 0");
  if (p->opt.max_interpreters > 4096)
    return pool_fail(p, AP_ERR_ARG, "max_interpreters %zu: at most 4096 per model",
                     p->opt.max_interpreters);
  pthread_condattr_t ca;
  if (pthread_condattr_init(&ca) != 0) return pool_fail(p, AP_ERR_NOMEM, "no condition variable");
  /* Acquire timeouts are real time, immune to wall-clock steps. */
  bool ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
            pthread_cond_init(&p->changed, &ca) == 0;
  pthread_condattr_destroy(&ca);
  if (!ok) return pool_fail(p, AP_ERR_NOMEM, "no condition variable");
  if (pthread_mutex_init(&p->mu, NULL) != 0) {
    pthread_cond_destroy(&p->changed);
    return pool_fail(p, AP_ERR_NOMEM, "no mutex");
  }
  p->sync_ok = true;
  return AP_OK;
}

void ap_pool_destroy(ap_pool *p) {
  if (!p) return;
  if (p->sync_ok) {
    /* The last events, then one "shutdown" per model still loaded (no lock is needed: no
     * other thread may use the pool any more). */
    pthread_mutex_lock(&p->mu);
    for (size_t i = 0; i < p->count; i++) {
      pool_model *m = p->models[i];
      if (m->state == MODEL_LOADED && m->acquired == 0 && m->creating == 0)
        pool_unload(p, m, AP_POOL_REASON_SHUTDOWN);
    }
    pool_unlock(p);
  }
  for (size_t i = 0; i < p->count; i++) {
    pool_model *m = p->models[i];
    /* Acquired ones too: the contract says none is left, and leaking would be worse. */
    for (size_t k = 0; k < m->max_it; k++) {
      ap_interpreter_destroy(m->slots[k].it);
      ap_free(&p->alloc, m->slots[k].buf);
    }
    ap_model_destroy(m->model);
    ap_free(&p->alloc, m);
  }
  ap_free(&p->alloc, p->models);
  ap_free(&p->alloc, p->events);
  if (p->sync_ok) {
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->changed);
  }
  if (tls_err.pool == p) tls_err.pool = NULL;
  ap_free(&p->alloc, p);
}

/* Counts what the model handle takes: it allocates only while opening, so the sum of those
 * allocations is its size. */
typedef struct counting {
  const ap_allocator *inner;
  uint64_t bytes;
} counting;
static void *count_alloc(void *ctx, size_t size) {
  counting *c = ctx;
  void *q = ap_alloc(c->inner, size);
  if (q) c->bytes += size;
  return q;
}
static void count_free(void *ctx, void *q) {
  counting *c = ctx;
  ap_free(c->inner, q);
}

/* Opens the model and allocates a probe interpreter the way a load will (the model's options
 * `io`): what it measures is what every load then holds. */
static ap_status measure(ap_pool *p, const char *path, const ap_interpreter_options *io,
                         ap_pool_cost *c) {
  counting cnt = {&p->alloc, 0};
  ap_allocator ca = {count_alloc, count_free, &cnt};
  ap_model *m = NULL;
  ap_status s = ap_model_open(path, &(ap_model_options){&ca}, &m);
  if (s != AP_OK) {
    s = pool_fail(p, s, "%s", m ? ap_model_error(m) : "out of memory");
    ap_model_destroy(m);
    return s;
  }
  size_t size = 0;
  ap_model_bytes(m, &size);
  c->weights = size;
  c->handle = cnt.bytes;
  ap_interpreter_options o = *io;
  o.allocator = &p->alloc;
  ap_interpreter *it = NULL;
  ap_memory_usage mu;
  s = ap_interpreter_create(m, &o, &it);
  if (s == AP_OK) s = ap_interpreter_allocate(it);
  if (s == AP_OK) s = ap_interpreter_memory(it, &mu);
  if (s != AP_OK) {
    s = pool_fail(p, s, "%s: %s", path, it ? ap_interpreter_error(it) : "out of memory");
  } else {
    c->arena = mu.arena;
    c->persistent = mu.persistent;
    c->tables = mu.tables;
    /* The allocator promises max_align_t alignment; the interpreter wants 16 and would find
     * it inside a buffer up to 15 bytes longer. */
    uint64_t slack = alignof(max_align_t) >= 16 ? 0 : 15;
    if (!ap_add_u64(mu.total, slack, &c->interpreter) ||
        !ap_add_u64(c->weights, c->handle, &c->resident) ||
        !ap_add_u64(c->resident, c->interpreter, &c->resident) || c->interpreter > SIZE_MAX)
      s = pool_fail(p, AP_ERR_OVERFLOW, "%s: its cost overflows", path);
  }
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  return s;
}

static pool_model *new_record(ap_pool *p, const char *name, const char *path, size_t max_it,
                              const char *strategy) {
  size_t nl = strlen(name) + 1, pl = strlen(path) + 1, sl = strategy ? strlen(strategy) + 1 : 0;
  size_t slots, total = sizeof(pool_model);
  if (!ap_mul_size(max_it, sizeof(pool_slot), &slots) || !ap_add_size(total, slots, &total) ||
      !ap_add_size(total, nl, &total) || !ap_add_size(total, pl, &total) ||
      !ap_add_size(total, sl, &total))
    return NULL;
  pool_model *m = ap_calloc(&p->alloc, 1, total);
  if (!m) return NULL;
  m->max_it = max_it;
  m->slots = (pool_slot *)(m + 1);
  m->name = (char *)(m->slots + max_it);
  m->path = m->name + nl;
  memcpy(m->name, name, nl);
  memcpy(m->path, path, pl);
  if (strategy) memcpy(m->path + pl, strategy, sl);
  m->io.strategy = strategy ? m->path + pl : NULL;
  return m;
}

ap_pool_model_options ap_pool_model_defaults(void) {
  return (ap_pool_model_options){.kernels = -1};
}

/* The interpreters' options of a model with options `o`: the pool's where o leaves them. */
static ap_interpreter_options model_io(const ap_pool *p, const ap_pool_model_options *o) {
  ap_interpreter_options io = ap_interpreter_defaults();
  io.strategy = o->strategy ? o->strategy : p->opt.strategy;
  io.kernels = o->kernels == -1 ? p->opt.kernels : o->kernels;
  io.small_scratch = o->small_scratch ? o->small_scratch : p->opt.small_scratch;
  io.inplace = o->inplace;
  io.stream = o->stream;
  io.prepare = o->prepare;
  return io;
}

ap_status ap_pool_add(ap_pool *p, const char *name, const char *path) {
  return ap_pool_add_with(p, name, path, NULL);
}

ap_status ap_pool_add_with(ap_pool *p, const char *name, const char *path,
                           const ap_pool_model_options *mo) {
  if (!p) return AP_ERR_ARG;
  if (!p->sync_ok) return pool_fail(p, AP_ERR_ARG, "ap_pool_add: the pool failed to create");
  if (!name || !*name || strlen(name) > POOL_NAME_MAX)
    return pool_fail(p, AP_ERR_ARG, "ap_pool_add: a model name must have 1 to %d bytes",
                     POOL_NAME_MAX);
  if (!path || !*path) return pool_fail(p, AP_ERR_ARG, "ap_pool_add: %s: no path", name);
  ap_pool_model_options o = mo ? *mo : ap_pool_model_defaults();
  size_t max_it = o.max_interpreters ? o.max_interpreters : p->opt.max_interpreters;
  if (max_it > 4096)
    return pool_fail(p, AP_ERR_ARG, "%s: max_interpreters %zu: at most 4096 per model", name,
                     max_it);
  if (o.strategy && strlen(o.strategy) > POOL_NAME_MAX)
    return pool_fail(p, AP_ERR_ARG, "%s: a strategy name of %zu bytes", name, strlen(o.strategy));
  pthread_mutex_lock(&p->mu);
  bool dup = pool_find(p, name) != NULL;
  pthread_mutex_unlock(&p->mu);
  if (dup) return pool_fail(p, AP_ERR_ARG, "model name \"%s\" is already registered", name);
  ap_interpreter_options io = model_io(p, &o);
  ap_pool_cost c;
  ap_status s = measure(p, path, &io, &c);
  if (s != AP_OK) return s;
  uint64_t all, budget = p->opt.budget_bytes;
  if (!ap_mul_u64(c.interpreter, max_it, &all) || !ap_add_u64(all, c.weights + c.handle, &all))
    return pool_fail(p, AP_ERR_OVERFLOW, "%s: its cost overflows", path);
  if (c.resident > budget)
    return pool_fail(p, AP_ERR_BUDGET,
                     "model %s (%s) alone needs %llu bytes (weights %llu + handle %llu + "
                     "interpreter %llu), more than the budget of %llu bytes",
                     name, path, (unsigned long long)c.resident, (unsigned long long)c.weights,
                     (unsigned long long)c.handle, (unsigned long long)c.interpreter,
                     (unsigned long long)budget);
  pool_model *m = new_record(p, name, path, max_it, io.strategy);
  if (!m) return pool_fail(p, AP_ERR_NOMEM, "out of memory registering %s", name);
  const char *strategy = m->io.strategy;
  m->io = io;
  m->io.strategy = strategy;
  m->cost = c;
  m->idle_ms = o.idle_ms ? o.idle_ms : p->opt.idle_ms;
  m->pinned = o.pinned;
  m->warmup = o.warmup ? o.warmup : p->opt.warm_up ? 1 : 0;
  pthread_mutex_lock(&p->mu);
  s = AP_OK;
  if (pool_find(p, name)) {
    s = pool_fail(p, AP_ERR_ARG, "model name \"%s\" is already registered", name);
  } else if (p->count == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 8, bytes;
    pool_model **grown = NULL;
    if (ap_mul_size(cap, sizeof *grown, &bytes)) grown = ap_alloc(&p->alloc, bytes);
    if (!grown) {
      s = pool_fail(p, AP_ERR_NOMEM, "out of memory registering %s", name);
    } else {
      if (p->count) memcpy(grown, p->models, p->count * sizeof *grown);
      ap_free(&p->alloc, p->models);
      p->models = grown;
      p->cap = cap;
    }
  }
  if (s == AP_OK) p->models[p->count++] = m;
  pthread_mutex_unlock(&p->mu);
  if (s != AP_OK) ap_free(&p->alloc, m);
  return s;
}

ap_status ap_pool_cost_of(ap_pool *p, const char *name, ap_pool_cost *out) {
  if (!p || !name || !out)
    return p ? pool_fail(p, AP_ERR_ARG, "ap_pool_cost_of: NULL") : AP_ERR_ARG;
  if (!p->sync_ok) return pool_fail(p, AP_ERR_ARG, "ap_pool_cost_of: the pool failed to create");
  pthread_mutex_lock(&p->mu);
  pool_model *m = pool_find(p, name);
  if (m) *out = m->cost;
  pthread_mutex_unlock(&p->mu);
  return m ? AP_OK : pool_fail(p, AP_ERR_ARG, "unknown model \"%s\"", name);
}

ap_status ap_pool_get_stats(ap_pool *p, ap_pool_stats *out) {
  if (!p || !out) return p ? pool_fail(p, AP_ERR_ARG, "ap_pool_get_stats: NULL") : AP_ERR_ARG;
  if (!p->sync_ok) {
    *out = p->st;
    return AP_OK;
  }
  pthread_mutex_lock(&p->mu);
  *out = p->st;
  pthread_mutex_unlock(&p->mu);
  return AP_OK;
}

size_t ap_pool_model_count(ap_pool *p) {
  if (!p || !p->sync_ok) return 0;
  pthread_mutex_lock(&p->mu);
  size_t n = 0;
  for (size_t i = 0; i < p->count; i++)
    n += !p->models[i]->removed;
  pthread_mutex_unlock(&p->mu);
  return n;
}

static int state_of(const pool_model *m) {
  if (m->state == MODEL_UNLOADED) return AP_POOL_UNLOADED;
  if (m->state == MODEL_LOADING) return m->warming ? AP_POOL_WARMING : AP_POOL_LOADING;
  return m->acquired ? AP_POOL_BUSY : AP_POOL_READY;
}

ap_status ap_pool_model(ap_pool *p, size_t i, ap_pool_model_info *out) {
  if (!p || !out) return p ? pool_fail(p, AP_ERR_ARG, "ap_pool_model: NULL") : AP_ERR_ARG;
  if (!p->sync_ok) return pool_fail(p, AP_ERR_ARG, "ap_pool_model: the pool failed to create");
  pthread_mutex_lock(&p->mu);
  const pool_model *m = NULL;
  size_t n = 0;
  for (size_t k = 0; k < p->count && !m; k++)
    if (!p->models[k]->removed && n++ == i) m = p->models[k];
  ap_status s = AP_OK;
  if (!m) {
    s = pool_fail(p, AP_ERR_RANGE, "model %zu: the pool has %zu", i, n);
  } else {
    *out = (ap_pool_model_info){.name = m->name,
                                .path = m->path,
                                .cost = m->cost,
                                .loaded = m->state == MODEL_LOADED,
                                .interpreters = m->live - m->creating,
                                .acquired = m->acquired,
                                .resident_bytes = pool_model_resident(m),
                                .loads = m->loads,
                                .unloads = m->unloads,
                                .acquires = m->acquires,
                                .state = state_of(m),
                                .pinned = m->pinned,
                                .idle_ms = m->idle_ms,
                                .max_interpreters = m->max_it,
                                .evictions_idle = m->evictions_idle,
                                .evictions_room = m->evictions_room,
                                .unloads_explicit = m->unloads_explicit,
                                .last_used_ms = m->last_used};
  }
  pthread_mutex_unlock(&p->mu);
  return s;
}

const char *ap_pool_state_name(int state) {
  static const char *const names[] = {"unloaded", "loading", "warming", "ready", "busy"};
  return state >= 0 && state < 5 ? names[state] : "?";
}

const char *ap_pool_reason_name(ap_pool_reason r) {
  static const char *const names[] = {"demand", "explicit", "idle", "room", "removed", "shutdown"};
  return (int)r >= 0 && (int)r < 6 ? names[r] : "?";
}

ap_status ap_pool_machine_memory(uint64_t *physical, uint64_t *cgroup_limit) {
  if (!physical || !cgroup_limit) return AP_ERR_ARG;
  *physical = ap_port_physical_memory();
  *cgroup_limit = ap_port_cgroup_memory_limit("/proc/self/cgroup", "/sys/fs/cgroup");
  return AP_OK;
}
