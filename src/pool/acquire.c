/* Acquire and release: reserve bytes under the lock, load and allocate outside it, wait for
 * releases when the budget or max_interpreters is in the way. */
#include "pool_internal.h"
#include "port/port.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The interpreter of a reserved slot, in a buffer of exactly cost.interpreter bytes. Runs
 * without the lock: nobody else reads a SLOT_CREATING slot's fields (readers under the lock
 * check the state before `it` or `buf`). */
static ap_status create_interpreter(ap_pool *p, const pool_model *m, ap_model *model,
                                    pool_slot *slot) {
  size_t bytes = (size_t)m->cost.interpreter;
  void *buf = ap_alloc(&p->alloc, bytes);
  if (!buf) return pool_fail(p, AP_ERR_NOMEM, "out of memory for %zu bytes of %s", bytes, m->name);
  ap_interpreter_options o = m->io;
  o.allocator = &p->alloc;
  o.arena = buf;
  o.arena_size = bytes;
  ap_interpreter *it = NULL;
  ap_memory_usage mu;
  ap_status s = ap_interpreter_create(model, &o, &it);
  if (s == AP_OK) s = ap_interpreter_allocate(it);
  if (s == AP_OK) s = ap_interpreter_memory(it, &mu);
  if (s == AP_OK && (mu.arena != m->cost.arena || mu.persistent != m->cost.persistent ||
                     mu.tables != m->cost.tables))
    s = pool_fail(p, AP_ERR_FORMAT, "%s: allocate measured %llu bytes, %llu when it was added",
                  m->name, (unsigned long long)mu.total, (unsigned long long)m->cost.interpreter);
  else if (s != AP_OK)
    s = pool_fail(p, s, "%s: %s", m->name, it ? ap_interpreter_error(it) : "out of memory");
  if (s != AP_OK) {
    ap_interpreter_destroy(it);
    ap_free(&p->alloc, buf);
    return s;
  }
  slot->it = it;
  slot->buf = buf;
  return AP_OK;
}

/* The model's warm-up invokes on zeroed inputs: the first request should find weights and
 * arena paged in and every kernel run once. Variables are reset afterwards. */
static ap_status warm_up(ap_pool *p, const pool_model *m, ap_interpreter *it) {
  ap_status s = AP_OK;
  for (unsigned r = 0; r < m->warmup && s == AP_OK; r++) {
    for (size_t i = 0; i < ap_interpreter_input_count(it); i++) {
      ap_tensor t;
      if (ap_interpreter_input(it, i, &t) == AP_OK && t.data) memset(t.data, 0, t.bytes);
    }
    s = ap_interpreter_invoke(it);
  }
  if (s == AP_OK) s = ap_interpreter_reset_variables(it);
  return s == AP_OK ? AP_OK : pool_fail(p, s, "%s: warm-up: %s", m->name, ap_interpreter_error(it));
}

/* The model's file again, checked to be the one that was measured. */
static ap_status load_model(ap_pool *p, const pool_model *m, ap_model **out) {
  ap_model *model = NULL;
  ap_status s = ap_model_open(m->path, &(ap_model_options){&p->alloc}, &model);
  size_t size = 0;
  if (s == AP_OK) ap_model_bytes(model, &size);
  if (s != AP_OK)
    s = pool_fail(p, s, "%s", model ? ap_model_error(model) : "out of memory");
  else if (size != m->cost.weights)
    s = pool_fail(p, AP_ERR_FORMAT, "%s: the file changed since it was added: %zu bytes, was %llu",
                  m->path, size, (unsigned long long)m->cost.weights);
  if (s != AP_OK) {
    ap_model_destroy(model);
    return s;
  }
  *out = model;
  return AP_OK;
}

/* "person_detect 331,808 (1 acquired), kws 70,000 (idle)" into buf. */
static void describe_resident(const ap_pool *p, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = 0;
  for (size_t i = 0; i < p->count && n < size; i++) {
    const pool_model *m = p->models[i];
    if (m->state == MODEL_UNLOADED) continue;
    int w =
        snprintf(buf + n, size - n, "%s%s %llu (%zu acquired, %zu idle%s)", n ? ", " : "", m->name,
                 (unsigned long long)pool_model_resident(m), m->acquired,
                 m->live - m->acquired - m->creating, m->state == MODEL_LOADING ? ", loading" : "");
    if (w < 0) break;
    n += (size_t)w;
  }
  if (!buf[0]) snprintf(buf, size, "nothing");
}

static struct timespec deadline_after(uint64_t ms) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t sec = ms / 1000, ns = (ms % 1000) * 1000000u + (uint64_t)ts.tv_nsec;
  /* Far-off deadlines are clamped: a year is as good as forever here. */
  if (sec > 366u * 86400u) sec = 366u * 86400u;
  ts.tv_sec += (time_t)(sec + ns / 1000000000u);
  ts.tv_nsec = (long)(ns % 1000000000u);
  return ts;
}

static bool past(const struct timespec *d) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > d->tv_sec || (now.tv_sec == d->tv_sec && now.tv_nsec >= d->tv_nsec);
}

/* Hands out an idle interpreter of a loaded model; counted as an acquire and a hit. */
static ap_status take_idle(ap_pool *p, pool_model *m, ap_interpreter **out) {
  for (size_t k = 0; k < m->max_it; k++) {
    if (m->slots[k].state != SLOT_IDLE) continue;
    m->slots[k].state = SLOT_ACQUIRED;
    m->acquired++;
    m->acquires++;
    p->st.acquires++;
    p->st.hits++;
    *out = m->slots[k].it;
    return AP_OK;
  }
  return AP_ERR_RANGE;
}

static pool_slot *free_slot(pool_model *m) {
  for (size_t k = 0; k < m->max_it; k++)
    if (m->slots[k].state == SLOT_FREE) return &m->slots[k];
  return NULL;
}

/* An acquired slot back to idle (then swept as its model's policy says). */
static void give_back(ap_pool *p, pool_model *m, pool_slot *s) {
  s->state = SLOT_IDLE;
  m->acquired--;
  m->last_used = s->last_used = pool_now(p);
  pthread_cond_broadcast(&p->changed);
  pool_sweep(p);
}

/* With the lock held on entry and exit: makes a new interpreter in `slot` (loading the model
 * first when it is not loaded, for reason `why`), its bytes already reserved. `counted`: an
 * acquire for the statistics (not an explicit load). */
static ap_status build(ap_pool *p, pool_model *m, pool_slot *slot, uint64_t need,
                       ap_pool_reason why, bool counted, ap_interpreter **out) {
  bool load = m->state == MODEL_UNLOADED;
  slot->state = SLOT_CREATING;
  m->live++;
  m->creating++;
  if (load) m->state = MODEL_LOADING;
  p->st.resident_bytes += need;
  if (p->st.resident_bytes > p->st.peak_resident_bytes)
    p->st.peak_resident_bytes = p->st.resident_bytes;
  ap_model *model = m->model;
  uint64_t t0 = ap_port_now_ns();
  pool_unlock(p); /* the evictions that made room are reported before the load */

  ap_status s = load ? load_model(p, m, &model) : AP_OK;
  if (s == AP_OK) s = create_interpreter(p, m, model, slot);
  if (s == AP_OK && m->warmup) {
    if (load) {
      pthread_mutex_lock(&p->mu);
      m->warming = true;
      pthread_mutex_unlock(&p->mu);
    }
    s = warm_up(p, m, slot->it);
    if (s != AP_OK) {
      ap_interpreter_destroy(slot->it);
      ap_free(&p->alloc, slot->buf);
      slot->it = NULL;
      slot->buf = NULL;
    }
  }
  uint64_t elapsed_us = (ap_port_now_ns() - t0) / 1000u;

  pthread_mutex_lock(&p->mu);
  m->creating--;
  m->warming = false;
  if (s == AP_OK) {
    if (load) {
      m->model = model;
      m->state = MODEL_LOADED;
      m->loads++;
      p->st.loads++;
      pool_event(p, AP_POOL_EVENT_LOAD, why, m, pool_model_resident(m), elapsed_us);
    }
    slot->state = SLOT_ACQUIRED;
    m->acquired++;
    p->st.interpreters_created++;
    if (counted) {
      m->acquires++;
      p->st.acquires++;
      if (!load) p->st.hits++;
    }
    *out = slot->it;
  } else {
    slot->state = SLOT_FREE;
    m->live--;
    p->st.resident_bytes -= m->cost.interpreter;
    if (load) {
      ap_model_destroy(model);
      m->state = MODEL_UNLOADED;
      m->unload_after = 0;
      p->st.resident_bytes -= m->cost.weights + m->cost.handle;
    } else if (m->live == 0) {
      /* A loaded model keeps at least one interpreter: its others went idle meanwhile. */
      pool_unload(p, m, m->unload_after ? (ap_pool_reason)m->unload_after : AP_POOL_REASON_IDLE);
    }
    if (counted) p->st.failures++;
  }
  pthread_cond_broadcast(&p->changed);
  return s;
}

/* With the lock held on entry and exit: an interpreter of m for the caller (see
 * ap_pool_acquire), or with `load_only` the model loaded with one idle interpreter (*out
 * stays NULL). */
static ap_status obtain(ap_pool *p, pool_model *m, uint64_t timeout_ms, bool load_only,
                        ap_interpreter **out) {
  struct timespec deadline = deadline_after(timeout_ms);
  bool waited = false, counted = !load_only;
  ap_pool_reason why = load_only ? AP_POOL_REASON_EXPLICIT : AP_POOL_REASON_DEMAND;
  const char *name = m->name;
  ap_status s;
  for (;;) {
    if (m->removed) {
      s = pool_fail(p, AP_ERR_ARG, "model \"%s\" was removed from the pool", name);
      if (counted) p->st.failures++;
      break;
    }
    pool_sweep(p);
    if (load_only && m->state == MODEL_LOADED) {
      m->last_used = pool_now(p);
      s = AP_OK;
      break;
    }
    if (m->state == MODEL_LOADED && take_idle(p, m, out) == AP_OK) {
      m->last_used = pool_now(p);
      s = AP_OK;
      break;
    }
    if (m->state == MODEL_LOADING) {
      /* Another thread is loading it: that ends soon, whatever the timeout. */
      p->st.waiting++;
      pthread_cond_wait(&p->changed, &p->mu);
      p->st.waiting--;
      continue;
    }
    pool_slot *slot = free_slot(m);
    uint64_t need = m->cost.interpreter;
    if (m->state == MODEL_UNLOADED) need += m->cost.weights + m->cost.handle;
    if (slot && pool_make_room(p, m, need)) {
      ap_interpreter *it = NULL;
      s = build(p, m, slot, need, why, counted, &it);
      if (s == AP_OK) m->last_used = pool_now(p);
      if (s == AP_OK && load_only)
        give_back(p, m, slot);
      else
        *out = it;
      break;
    }
    if (timeout_ms == 0 || past(&deadline)) {
      if (!slot) {
        s = pool_fail(p, AP_ERR_TIMEOUT,
                      "%s: all %zu of its interpreters are acquired (max_interpreters) and none "
                      "was released within %llu ms",
                      name, m->max_it, (unsigned long long)timeout_ms);
      } else {
        char res[384];
        describe_resident(p, res, sizeof res);
        s = pool_fail(p, AP_ERR_BUDGET,
                      "budget of %llu bytes cannot hold %s: needs %llu more, %llu resident "
                      "(waited %llu ms): %s",
                      (unsigned long long)p->opt.budget_bytes, name, (unsigned long long)need,
                      (unsigned long long)p->st.resident_bytes, (unsigned long long)timeout_ms,
                      res);
        if (counted) p->st.budget_failures++;
      }
      if (counted) p->st.failures++;
      break;
    }
    /* Unloads the sweep just made are reported before sleeping (mu released meanwhile:
     * look again). */
    if (pool_flush_events(p)) continue;
    if (!waited && counted) p->st.waits++;
    waited = true;
    p->st.waiting++;
    int rc = pthread_cond_timedwait(&p->changed, &p->mu, &deadline);
    p->st.waiting--;
    if (rc != 0 && rc != ETIMEDOUT) {
      if (counted) p->st.failures++;
      s = pool_fail(p, AP_ERR_ARG, "%s: waiting failed: %s", name, strerror(rc));
      break;
    }
  }
  return s;
}

ap_status ap_pool_acquire(ap_pool *p, const char *name, uint64_t timeout_ms, ap_interpreter **out) {
  if (out) *out = NULL;
  if (!p) return AP_ERR_ARG;
  if (!name || !out)
    return pool_fail(p, AP_ERR_ARG, "ap_pool_acquire: NULL %s", name ? "out" : "name");
  if (!p->sync_ok) return pool_fail(p, AP_ERR_ARG, "ap_pool_acquire: the pool failed to create");
  pthread_mutex_lock(&p->mu);
  pool_model *m = pool_find(p, name);
  ap_status s = m ? obtain(p, m, timeout_ms, false, out)
                  : pool_fail(p, AP_ERR_ARG, "unknown model \"%s\" (not added to the pool)", name);
  pool_unlock(p);
  return s;
}

ap_status ap_pool_release(ap_pool *p, ap_interpreter *it) {
  if (!p) return AP_ERR_ARG;
  if (!it) return pool_fail(p, AP_ERR_ARG, "ap_pool_release: NULL interpreter");
  if (!p->sync_ok) return pool_fail(p, AP_ERR_ARG, "ap_pool_release: the pool failed to create");
  pthread_mutex_lock(&p->mu);
  bool found = false;
  for (size_t i = 0; i < p->count && !found; i++) {
    pool_model *m = p->models[i];
    for (size_t k = 0; k < m->max_it; k++) {
      pool_slot *s = &m->slots[k];
      /* State first: a SLOT_CREATING slot's `it` is being written outside the lock. */
      if (s->state != SLOT_ACQUIRED || s->it != it) continue;
      give_back(p, m, s);
      found = true;
      break;
    }
  }
  pool_unlock(p);
  return found ? AP_OK
               : pool_fail(p, AP_ERR_ARG,
                           "ap_pool_release: %p is not an acquired interpreter of "
                           "this pool",
                           (void *)it);
}

size_t ap_pool_collect(ap_pool *p) {
  if (!p || !p->sync_ok) return 0;
  pthread_mutex_lock(&p->mu);
  size_t n = pool_sweep(p);
  pool_unlock(p);
  return n;
}

/* The model named, or NULL with the message set (mu held). */
static pool_model *known(ap_pool *p, const char *name, const char *fn) {
  if (!name) {
    pool_fail(p, AP_ERR_ARG, "%s: NULL name", fn);
    return NULL;
  }
  pool_model *m = pool_find(p, name);
  if (!m) pool_fail(p, AP_ERR_ARG, "unknown model \"%s\" (not added to the pool)", name);
  return m;
}

ap_status ap_pool_load(ap_pool *p, const char *name, uint64_t timeout_ms) {
  if (!p) return AP_ERR_ARG;
  if (!p->sync_ok) return pool_fail(p, AP_ERR_ARG, "ap_pool_load: the pool failed to create");
  pthread_mutex_lock(&p->mu);
  pool_model *m = known(p, name, "ap_pool_load");
  ap_status s = AP_ERR_ARG;
  if (m) {
    m->unload_after = 0;
    ap_interpreter *none = NULL;
    s = obtain(p, m, timeout_ms, true, &none);
  }
  pool_unlock(p);
  return s;
}

/* Marks m to go at its last release (`why`), frees its idle interpreters now, and unloads it
 * now when none is acquired. */
static void unload_when_idle(ap_pool *p, pool_model *m, ap_pool_reason why) {
  if (m->state == MODEL_UNLOADED) return;
  m->unload_after = (int)why;
  if (m->state != MODEL_LOADED) return; /* the loader's release unloads it */
  if (m->acquired == 0 && m->creating == 0) {
    pool_unload(p, m, why);
  } else {
    for (size_t k = 0; k < m->max_it; k++)
      if (m->slots[k].state == SLOT_IDLE) pool_free_slot(p, m, &m->slots[k]);
  }
  pthread_cond_broadcast(&p->changed);
}

ap_status ap_pool_unload(ap_pool *p, const char *name) {
  if (!p) return AP_ERR_ARG;
  if (!p->sync_ok) return pool_fail(p, AP_ERR_ARG, "ap_pool_unload: the pool failed to create");
  pthread_mutex_lock(&p->mu);
  pool_model *m = known(p, name, "ap_pool_unload");
  if (m) unload_when_idle(p, m, AP_POOL_REASON_EXPLICIT);
  pool_unlock(p);
  return m ? AP_OK : AP_ERR_ARG;
}

ap_status ap_pool_remove(ap_pool *p, const char *name) {
  if (!p) return AP_ERR_ARG;
  if (!p->sync_ok) return pool_fail(p, AP_ERR_ARG, "ap_pool_remove: the pool failed to create");
  pthread_mutex_lock(&p->mu);
  pool_model *m = known(p, name, "ap_pool_remove");
  if (m) {
    m->removed = true;
    unload_when_idle(p, m, AP_POOL_REASON_REMOVED);
    pthread_cond_broadcast(&p->changed); /* its waiters fail now */
  }
  pool_unlock(p);
  return m ? AP_OK : AP_ERR_ARG;
}
