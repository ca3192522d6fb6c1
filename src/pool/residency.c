/* What stays resident: idle timeouts, eviction to make room, unloading, and the events they
 * report. All with mu held, except the delivery of events. */
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
    if (!p->models[i]->removed && strcmp(p->models[i]->name, name) == 0) return p->models[i];
  return NULL;
}

void pool_event(ap_pool *p, ap_pool_event_kind kind, ap_pool_reason why, const pool_model *m,
                uint64_t bytes, uint64_t elapsed_us) {
  if (!p->opt.on_event) return;
  if (p->nevents == p->events_cap) {
    size_t cap = p->events_cap ? p->events_cap * 2 : 16, size;
    ap_pool_event *grown = NULL;
    if (ap_mul_size(cap, sizeof *grown, &size)) grown = ap_alloc(&p->alloc, size);
    if (!grown) return; /* documented: dropped when the allocator fails */
    if (p->nevents) memcpy(grown, p->events, p->nevents * sizeof *grown);
    ap_free(&p->alloc, p->events);
    p->events = grown;
    p->events_cap = cap;
  }
  p->events[p->nevents++] = (ap_pool_event){.kind = kind,
                                            .reason = why,
                                            .model = m->name,
                                            .bytes = bytes,
                                            .resident_bytes = p->st.resident_bytes,
                                            .elapsed_us = elapsed_us};
}

bool pool_flush_events(ap_pool *p) {
  if (p->nevents == 0) return false;
  while (p->nevents) {
    /* A batch at a time: the queue may grow while mu is released. */
    ap_pool_event batch[16];
    size_t n = p->nevents < 16 ? p->nevents : 16;
    memcpy(batch, p->events, n * sizeof *batch);
    memmove(p->events, p->events + n, (p->nevents - n) * sizeof *batch);
    p->nevents -= n;
    pthread_mutex_unlock(&p->mu);
    for (size_t i = 0; i < n; i++)
      p->opt.on_event(p->opt.event_ctx, &batch[i]);
    pthread_mutex_lock(&p->mu);
  }
  return true;
}

void pool_unlock(ap_pool *p) {
  pool_flush_events(p);
  pthread_mutex_unlock(&p->mu);
}

/* Costs were checked at registration: weights + handle + max_it * interpreter fits 64 bits
 * (pool_add), so these sums cannot wrap. */
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

void pool_unload(ap_pool *p, pool_model *m, ap_pool_reason why) {
  uint64_t held = pool_model_resident(m);
  for (size_t i = 0; i < m->max_it; i++)
    if (m->slots[i].state == SLOT_IDLE) pool_free_slot(p, m, &m->slots[i]);
  ap_model_destroy(m->model);
  m->model = NULL;
  m->state = MODEL_UNLOADED;
  m->unload_after = 0;
  p->st.resident_bytes -= m->cost.weights + m->cost.handle;
  p->st.unloads++;
  m->unloads++;
  if (why == AP_POOL_REASON_IDLE) {
    p->st.evictions_idle++;
    m->evictions_idle++;
  } else if (why == AP_POOL_REASON_ROOM) {
    p->st.evictions_room++;
    m->evictions_room++;
  } else if (why == AP_POOL_REASON_EXPLICIT) {
    p->st.unloads_explicit++;
    m->unloads_explicit++;
  }
  pool_event(p, AP_POOL_EVENT_UNLOAD, why, m, held, 0);
}

static bool aged(uint64_t now, uint64_t since, uint64_t idle) {
  return idle != AP_POOL_NEVER && now >= since && now - since >= idle;
}

/* Idle slots of m that may be freed: all of them, but a pinned model none of whose
 * interpreters is acquired or being created keeps one. */
static size_t spare_slots(const pool_model *m) {
  size_t idle = m->live - m->acquired - m->creating;
  if (m->pinned && idle > 0 && m->acquired == 0 && m->creating == 0) idle--;
  return idle;
}

size_t pool_sweep(ap_pool *p) {
  uint64_t now = pool_now(p);
  size_t unloaded = 0;
  for (size_t i = 0; i < p->count; i++) {
    pool_model *m = p->models[i];
    if (m->state != MODEL_LOADED) continue;
    bool idle_model = m->acquired == 0 && m->creating == 0;
    if (idle_model && m->unload_after) {
      pool_unload(p, m, (ap_pool_reason)m->unload_after);
      unloaded++;
      continue;
    }
    size_t old = 0;
    for (size_t k = 0; k < m->max_it; k++)
      old += m->slots[k].state == SLOT_IDLE && aged(now, m->slots[k].last_used, m->idle_ms);
    if (old == 0) continue;
    if (idle_model && !m->pinned && old == m->live) {
      pool_unload(p, m, AP_POOL_REASON_IDLE); /* whole: its event says all it held */
      unloaded++;
      continue;
    }
    for (size_t k = 0; k < m->max_it && spare_slots(m) > 0; k++)
      if (m->slots[k].state == SLOT_IDLE && aged(now, m->slots[k].last_used, m->idle_ms))
        pool_free_slot(p, m, &m->slots[k]);
  }
  if (unloaded) pthread_cond_broadcast(&p->changed);
  return unloaded;
}

static bool idle_model(const pool_model *m, const pool_model *keep) {
  return m != keep && !m->pinned && m->state == MODEL_LOADED && m->acquired == 0 &&
         m->creating == 0;
}

bool pool_make_room(ap_pool *p, const pool_model *keep, uint64_t need) {
  uint64_t budget = p->opt.budget_bytes, used = p->st.resident_bytes;
  if (need <= budget && used <= budget - need) return true;
  /* First what could be freed at all: evicting without then fitting would only throw away
   * other models' warm state. */
  uint64_t freeable = 0;
  for (size_t i = 0; i < p->count; i++) {
    const pool_model *m = p->models[i];
    if (idle_model(m, keep))
      freeable += pool_model_resident(m);
    else if (m->state == MODEL_LOADED)
      freeable += (uint64_t)spare_slots(m) * m->cost.interpreter;
  }
  uint64_t free_now = budget >= used ? budget - used : 0;
  if (need > budget || freeable < need - free_now) return false;
  while (!(used <= budget && need <= budget - used)) {
    pool_model *lru = NULL;
    for (size_t i = 0; i < p->count; i++)
      if (idle_model(p->models[i], keep) && (!lru || p->models[i]->last_used < lru->last_used))
        lru = p->models[i];
    if (lru) {
      pool_unload(p, lru, AP_POOL_REASON_ROOM);
    } else {
      pool_model *owner = NULL;
      pool_slot *oldest = NULL;
      for (size_t i = 0; i < p->count; i++) {
        pool_model *m = p->models[i];
        if (m->state != MODEL_LOADED || spare_slots(m) == 0) continue;
        for (size_t k = 0; k < m->max_it; k++)
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
