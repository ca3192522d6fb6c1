/* What stays resident: idle timeouts, eviction to make room, unloading. All with mu held. */
#include "pool_internal.h"

#include <string.h>
#include <time.h>

uint64_t pool_now(const ap_pool *p) {
  if (p->opt.clock) return p->opt.clock(p->opt.clock_ctx);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

pool_model *pool_find(const ap_pool *p, const char *name) {
  for (size_t i = 0; i < p->count; i++)
    if (strcmp(p->models[i]->name, name) == 0) return p->models[i];
  return NULL;
}

/* Costs were checked at registration: weights + handle + max_interpreters * interpreter
 * fits 64 bits (pool_add), so these sums cannot wrap. */
uint64_t pool_model_resident(const pool_model *m) {
  uint64_t r = m->state == MODEL_UNLOADED ? 0 : m->cost.weights + m->cost.handle;
  return r + (uint64_t)m->live * m->cost.interpreter;
}

void pool_free_slot(ap_pool *p, pool_model *m, pool_slot *s) {
  ap_interpreter_destroy(s->it);
  ap_free(&p->alloc, s->buf);
  s->it = NULL;
  s->buf = NULL;
  s->state = SLOT_FREE;
  m->live--;
  p->st.resident_bytes -= m->cost.interpreter;
  p->st.interpreters_destroyed++;
}

void pool_unload(ap_pool *p, pool_model *m) {
  for (size_t i = 0; i < p->opt.max_interpreters; i++)
    if (m->slots[i].state == SLOT_IDLE) pool_free_slot(p, m, &m->slots[i]);
  ap_model_destroy(m->model);
  m->model = NULL;
  m->state = MODEL_UNLOADED;
  p->st.resident_bytes -= m->cost.weights + m->cost.handle;
  p->st.unloads++;
  m->unloads++;
}

static bool aged(uint64_t now, uint64_t since, uint64_t idle) {
  return idle != AP_POOL_NEVER && now >= since && now - since >= idle;
}

size_t pool_sweep(ap_pool *p) {
  uint64_t now = pool_now(p), idle = p->opt.idle_ms;
  size_t unloaded = 0;
  for (size_t i = 0; i < p->count; i++) {
    pool_model *m = p->models[i];
    if (m->state != MODEL_LOADED) continue;
    for (size_t k = 0; k < p->opt.max_interpreters; k++)
      if (m->slots[k].state == SLOT_IDLE && aged(now, m->slots[k].last_used, idle))
        pool_free_slot(p, m, &m->slots[k]);
    if (m->live == 0) {
      pool_unload(p, m);
      unloaded++;
    }
  }
  if (unloaded) pthread_cond_broadcast(&p->changed);
  return unloaded;
}

static bool idle_model(const pool_model *m, const pool_model *keep) {
  return m != keep && m->state == MODEL_LOADED && m->acquired == 0 && m->creating == 0;
}

bool pool_make_room(ap_pool *p, const pool_model *keep, uint64_t need) {
  uint64_t budget = p->opt.budget_bytes, used = p->st.resident_bytes;
  if (need <= budget && used <= budget - need) return true;
  /* First what could be freed at all: evicting without then fitting would only throw away
   * other models' warm state. */
  uint64_t freeable = 0;
  for (size_t i = 0; i < p->count; i++) {
    const pool_model *m = p->models[i];
    if (idle_model(m, keep)) {
      freeable += pool_model_resident(m);
    } else if (m->state == MODEL_LOADED) {
      for (size_t k = 0; k < p->opt.max_interpreters; k++)
        if (m->slots[k].state == SLOT_IDLE) freeable += m->cost.interpreter;
    }
  }
  uint64_t free_now = budget >= used ? budget - used : 0;
  if (need > budget || freeable < need - free_now) return false;
  while (!(used <= budget && need <= budget - used)) {
    pool_model *lru = NULL;
    for (size_t i = 0; i < p->count; i++)
      if (idle_model(p->models[i], keep) && (!lru || p->models[i]->last_used < lru->last_used))
        lru = p->models[i];
    if (lru) {
      pool_unload(p, lru);
    } else {
      pool_model *owner = NULL;
      pool_slot *oldest = NULL;
      for (size_t i = 0; i < p->count; i++) {
        pool_model *m = p->models[i];
        if (m->state != MODEL_LOADED) continue;
        for (size_t k = 0; k < p->opt.max_interpreters; k++)
          if (m->slots[k].state == SLOT_IDLE &&
              (!oldest || m->slots[k].last_used < oldest->last_used)) {
            oldest = &m->slots[k];
            owner = m;
          }
      }
      if (!oldest) return false; /* cannot happen: freeable said there was enough */
      pool_free_slot(p, owner, oldest);
    }
    used = p->st.resident_bytes;
  }
  return true;
}
