/* The pool's internals, shared by its files: records, the lock, residency bookkeeping.
 *
 * Every field below is read and written with `mu` held, except what a thread loading a model
 * or creating an interpreter does with the records it reserved (a slot in SLOT_CREATING, a
 * model in MODEL_LOADING): no other thread touches those until they leave that state. */
#ifndef AP_SRC_POOL_INTERNAL_H
#define AP_SRC_POOL_INTERNAL_H

#include "arenaplan/pool.h"
#include "base/base.h"

#include <pthread.h>

enum { SLOT_FREE, SLOT_CREATING, SLOT_IDLE, SLOT_ACQUIRED };
enum { MODEL_UNLOADED, MODEL_LOADING, MODEL_LOADED };

/* One interpreter of a model and the buffer it lives in (exactly cost.interpreter bytes). */
typedef struct pool_slot {
  ap_interpreter *it;
  void *buf;
  uint64_t last_used; /* clock time of its last release */
  int state;
} pool_slot;

typedef struct pool_model {
  char *name, *path; /* inside this record's allocation */
  ap_pool_cost cost;
  ap_model *model; /* NULL unless MODEL_LOADED (or being loaded) */
  int state;
  bool warming;     /* MODEL_LOADING: its first interpreter runs its warm-up */
  bool removed;     /* ap_pool_remove: unknown to pool_find, unloaded when idle */
  int unload_after; /* 0, or the reason it is unloaded at its last release (explicit, removed) */
  /* Its options in effect (the pool's filled in), and the interpreters' options. */
  uint64_t idle_ms;
  bool pinned;
  size_t max_it;
  unsigned warmup;
  ap_interpreter_options io; /* strategy inside this record; allocator and arena per use */
  pool_slot *slots;          /* max_it */
  size_t live;               /* slots not SLOT_FREE */
  size_t acquired;           /* slots SLOT_ACQUIRED */
  size_t creating;           /* slots SLOT_CREATING */
  uint64_t last_used;
  uint64_t loads, unloads, acquires;
  uint64_t evictions_idle, evictions_room, unloads_explicit;
} pool_model;

struct ap_pool {
  ap_allocator alloc;
  ap_pool_options opt; /* opt.allocator points at alloc */
  pthread_mutex_t mu;
  pthread_cond_t changed; /* a release, a load finished or failed, something unloaded */
  bool sync_ok;           /* mu and changed were initialised */
  pool_model **models;    /* pointers: records stay put while the array grows */
  size_t count, cap;      /* removed records included */
  ap_pool_stats st;
  ap_pool_event *events; /* queued for options.on_event, oldest first */
  size_t nevents, events_cap;
};

/* Records the calling thread's message for p and returns s. */
ap_status pool_fail(const ap_pool *p, ap_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Releases mu after delivering the queued events (each batch with mu released). */
void pool_unlock(ap_pool *p);
/* With mu held: delivers the queued events (releasing mu meanwhile); false if there were
 * none (mu was never released). */
bool pool_flush_events(ap_pool *p);
/* With mu held: queues an event for m (bytes: what it holds now, or held before an unload). */
void pool_event(ap_pool *p, ap_pool_event_kind kind, ap_pool_reason why, const pool_model *m,
                uint64_t bytes, uint64_t elapsed_us);

/* With mu held. */
uint64_t pool_now(const ap_pool *p);
/* A registered model that was not removed, or NULL. */
pool_model *pool_find(const ap_pool *p, const char *name);
/* Bytes model m holds now. */
uint64_t pool_model_resident(const pool_model *m);
/* Frees an idle slot's interpreter and buffer. */
void pool_free_slot(ap_pool *p, pool_model *m, pool_slot *s);
/* Unloads a loaded model none of whose interpreters is acquired or being created, counting
 * it under `why` and queueing its event. */
void pool_unload(ap_pool *p, pool_model *m, ap_pool_reason why);
/* Frees idle interpreters and unloads idle models past their timeout (never a pinned model's
 * last interpreter), and unloads idle models with an unload pending; returns models
 * unloaded. */
size_t pool_sweep(ap_pool *p);
/* Frees idle models (LRU), then idle interpreters (LRU), other than `keep` and never a pinned
 * model's last one, until `need` more bytes fit the budget. Frees nothing and returns false
 * when even all of them would not make room. */
bool pool_make_room(ap_pool *p, const pool_model *keep, uint64_t need);

#endif
