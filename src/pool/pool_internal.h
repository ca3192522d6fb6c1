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
  pool_slot *slots; /* max_interpreters */
  size_t live;      /* slots not SLOT_FREE */
  size_t acquired;  /* slots SLOT_ACQUIRED */
  size_t creating;  /* slots SLOT_CREATING */
  uint64_t last_used;
  uint64_t loads, unloads, acquires;
} pool_model;

struct ap_pool {
  ap_allocator alloc;
  ap_pool_options opt; /* opt.allocator points at alloc */
  pthread_mutex_t mu;
  pthread_cond_t changed; /* a release, a load finished or failed, something unloaded */
  bool sync_ok;           /* mu and changed were initialised */
  pool_model **models;    /* pointers: records stay put while the array grows */
  size_t count, cap;
  ap_pool_stats st;
};

/* Records the calling thread's message for p and returns s. */
ap_status pool_fail(const ap_pool *p, ap_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* With mu held. */
uint64_t pool_now(const ap_pool *p);
pool_model *pool_find(const ap_pool *p, const char *name);
/* Bytes model m holds now. */
uint64_t pool_model_resident(const pool_model *m);
/* Frees an idle slot's interpreter and buffer. */
void pool_free_slot(ap_pool *p, pool_model *m, pool_slot *s);
/* Unloads a loaded model none of whose interpreters is acquired or being created. */
void pool_unload(ap_pool *p, pool_model *m);
/* Frees idle interpreters and unloads idle models past the timeout; returns models unloaded. */
size_t pool_sweep(ap_pool *p);
/* Frees idle models (LRU), then idle interpreters (LRU), other than `keep`, until `need`
 * more bytes fit the budget. Frees nothing and returns false when even all of them would
 * not make room. */
bool pool_make_room(ap_pool *p, const pool_model *keep, uint64_t need);

#endif
