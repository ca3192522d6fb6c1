/* arenaplan pool: many models served under one memory budget.
 *
 *   ap_pool_options o = ap_pool_defaults();
 *   o.budget_bytes = 600 * 1024;
 *   ap_pool *p;
 *   if (ap_pool_create(&o, &p) != AP_OK ||
 *       ap_pool_add(p, "kws", "kws.tflite") != AP_OK) {  // cost measured once, not loaded
 *     fprintf(stderr, "%s\n", ap_pool_error(p));
 *     ...
 *   }
 *   // in any thread:
 *   ap_interpreter *it;
 *   if (ap_pool_acquire(p, "kws", 100, &it) == AP_OK) {  // loads it if needed
 *     ... ap_interpreter_input / invoke / output ...
 *     ap_pool_release(p, it);
 *   }
 *   ap_pool_destroy(p);
 *
 * Cost. ap_pool_add() opens the model once and allocates a probe interpreter to measure what
 * one interpreter of it really takes (ap_interpreter_memory's total: arena, persistent,
 * tables); that cost is cached. Loading a model maps its file read-only once (its weights:
 * the file size, plus the model handle's own bytes); every interpreter of it then lives in
 * one buffer of exactly the measured total (a caller-owned arena, runtime.h), so what the
 * pool counts is what it holds: resident bytes = for every loaded model, its weights and
 * handle plus one buffer per interpreter. The only memory not counted: the pool's own
 * records, and planning temporaries an allocate may take from the allocator and frees
 * before it returns.
 *
 * Budget. An acquire that needs a load or a new interpreter reserves its bytes first; when
 * the budget cannot hold them, idle models (no interpreter acquired) are unloaded, least
 * recently used first, then idle interpreters of busy models; if that is not enough the call
 * waits up to its timeout for releases, then fails with AP_ERR_BUDGET and a message naming
 * what is resident and what was needed. Resident bytes never exceed the budget.
 *
 * Idle. A model none of whose interpreters is acquired is unloaded once it has been idle for
 * its idle_ms or longer (an idle interpreter of a busy model is freed the same way). Idle models
 * are looked for in every acquire and release and in ap_pool_collect(): there is no
 * background thread, so a server with no traffic calls ap_pool_collect() from its own timer.
 * Idle times are read from options.clock when given (a trace replay passes a virtual clock
 * so that loads and unloads depend on the trace alone), else from CLOCK_MONOTONIC. Acquire
 * timeouts are always real time.
 *
 * Per model (ap_pool_add_with): its own idle time, max_interpreters, warm-up invokes and
 * planning options (the cost is measured with them), and `pinned`: a pinned model is never
 * unloaded, neither for idleness nor to make room (its extra idle interpreters are, its last
 * one stays); only ap_pool_unload() takes it out. Explicit residency: ap_pool_load(),
 * ap_pool_unload(), ap_pool_remove(). Every load and unload is counted by its reason (idle,
 * room, explicit) and reported to options.on_event, called with the pool's lock released.
 *
 * Threads. Every function may be called from any thread. An acquired interpreter belongs to
 * the caller until it releases it (one thread at a time, as runtime.h says); interpreters of
 * one model share its read-only weights. An interpreter handed out keeps the variable
 * tensors its last user left (ap_interpreter_reset_variables() for a fresh state).
 * ap_pool_error() is the calling thread's message of its last failed call on the pool.
 *
 * Kernel threads. The pool's interpreters run their kernels (AP_KERNELS_AUTO unless options
 * say otherwise: the fastest within 1.02 x the reference kernels' bytes) on one thread each (ap_interpreter_options.threads 0): a pool's parallelism is its callers' threads, one
 * request per interpreter. Kernel threads would multiply with those (N callers x T kernel
 * threads on C cores) and only pay off when callers are fewer than cores; a process serving
 * one model at a time gets them from its own interpreter instead. Workers of an interpreter
 * spin between its ops (runtime.h), so threaded interpreters sharing cores with other busy
 * threads lose more than they gain.
 */
#ifndef ARENAPLAN_POOL_H
#define ARENAPLAN_POOL_H

#include "arenaplan/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* idle_ms value: never unload by idle time (only to make room). */
#define AP_POOL_NEVER UINT64_MAX

struct ap_pool_event;

typedef struct ap_pool_options {
  uint64_t budget_bytes;   /* required: the most bytes resident at any time (> 0) */
  uint64_t idle_ms;        /* default 60000; AP_POOL_NEVER: only evicted to make room */
  size_t max_interpreters; /* per model, default 4 (at least 1) */
  bool warm_up; /* on load and new interpreters: one invoke on zeroed inputs (models whose own
                   warmup is 0) */
  const char *strategy; /* NULL: "best"; must outlive the pool */
  int kernels;          /* AP_KERNELS_AUTO (0), _FAST, _REFERENCE or _SMALL */
  size_t small_scratch; /* AP_KERNELS_SMALL's budget (ap_interpreter_options.small_scratch) */
  const ap_allocator *allocator; /* copied; NULL: malloc/free */
  /* Optional: the time in milliseconds for idle ages (NULL: CLOCK_MONOTONIC). Called with
   * the pool's lock held; it must not call the pool. */
  uint64_t (*clock)(void *ctx);
  void *clock_ctx;
  /* Optional: called once per model load and unload (ap_pool_event), with the pool's lock
   * RELEASED, from the thread that did it (or, when that thread is busy, the next one to
   * leave the pool: events are queued in order and delivered in batches), so the callback may
   * call the pool's getters. ap_pool_destroy() reports the models it unloads (reason
   * "shutdown"). Events are dropped only when the allocator fails. */
  void (*on_event)(void *ctx, const struct ap_pool_event *e);
  void *event_ctx;
} ap_pool_options;

/* budget_bytes 0 (must be set), idle 60 s, 4 interpreters per model, no warm-up, "best". */
ap_pool_options ap_pool_defaults(void);

typedef struct ap_pool ap_pool;

/* AP_ERR_ARG for a budget of 0, no options or a NULL out. On failure *out is still a pool
 * whose message says why (NULL only when memory ran out); destroy it as usual. */
ap_status ap_pool_create(const ap_pool_options *opt, ap_pool **out);
/* Unloads everything. Every acquired interpreter must have been released. NULL is harmless. */
void ap_pool_destroy(ap_pool *p);
/* The calling thread's message of its last failed call on p ("" if none). Never NULL. */
const char *ap_pool_error(const ap_pool *p);

/* What one model costs, in bytes. */
typedef struct ap_pool_cost {
  uint64_t weights; /* the file, mapped read-only and shared by its interpreters */
  uint64_t handle;  /* the model handle's own memory */
  uint64_t arena;   /* per interpreter: ap_memory_usage's arena, persistent, tables */
  uint64_t persistent;
  uint64_t tables;
  uint64_t interpreter; /* per interpreter: the buffer it lives in (ap_memory_usage.total) */
  uint64_t resident;    /* weights + handle + interpreter: the model loaded, one interpreter */
} ap_pool_cost;

/* Registers a model under `name` (unique, 1 to 255 bytes) without loading it: opens it once,
 * measures its cost with a probe interpreter, closes it. AP_ERR_BUDGET when the model alone
 * (one interpreter) exceeds the budget; the model's own status when it cannot be opened or
 * allocated (unsupported op, ...); AP_ERR_ARG for a duplicate or bad name. */
ap_status ap_pool_add(ap_pool *p, const char *name, const char *path);

/* Per-model policy and planning options, given when the model is registered. */
typedef struct ap_pool_model_options {
  uint64_t idle_ms;        /* 0: the pool's idle_ms; AP_POOL_NEVER: never unloaded for idleness */
  bool pinned;             /* never unloaded, for idleness or to make room (explicit unload only) */
  size_t max_interpreters; /* 0: the pool's; how many requests of this model may run at once */
  unsigned warmup; /* invokes on zeroed inputs of each new interpreter before it is handed out
                      (the model is "warming" meanwhile); 0: the pool's (warm_up: 1) */
  /* Planning: as ap_interpreter_options (0/false/NULL: the pool's defaults). The cost measured
   * at add is measured with these, so what the pool counts is what these interpreters take. */
  const char *strategy; /* copied; NULL: the pool's */
  int kernels;          /* AP_KERNELS_* ; -1: the pool's */
  size_t small_scratch; /* 0: the pool's */
  bool inplace, stream;
  int prepare; /* AP_PREPARE_* */
} ap_pool_model_options;
/* kernels -1, everything else 0. */
ap_pool_model_options ap_pool_model_defaults(void);
/* ap_pool_add with options (NULL: ap_pool_model_defaults()). AP_ERR_ARG for a bad option
 * (max_interpreters over 4096, unknown kernels or prepare, unknown strategy). */
ap_status ap_pool_add_with(ap_pool *p, const char *name, const char *path,
                           const ap_pool_model_options *o);
/* The cached cost of a registered model (AP_ERR_ARG for an unknown name). */
ap_status ap_pool_cost_of(ap_pool *p, const char *name, ap_pool_cost *out);

/* An interpreter of `name`, allocated and ready, for the calling thread: an idle one of the
 * model when there is one, else a new one (loading the model first if needed), making room
 * as described above. Waits up to timeout_ms (0: not at all) for releases when the budget
 * (AP_ERR_BUDGET) or max_interpreters (AP_ERR_TIMEOUT) is the obstacle; a load of the same
 * model by another thread is waited for whatever the timeout (it ends by itself). AP_ERR_ARG for an
 * unknown name; a load's own failure (file changed or gone) is returned as it is. */
ap_status ap_pool_acquire(ap_pool *p, const char *name, uint64_t timeout_ms, ap_interpreter **out);
/* Gives an acquired interpreter back (AP_ERR_ARG if it is not one the pool handed out). */
ap_status ap_pool_release(ap_pool *p, ap_interpreter *it);
/* Unloads what has been idle past the timeout now; returns how many models were unloaded. */
size_t ap_pool_collect(ap_pool *p);

/* Explicit residency (the KServe repository extension's load/unload):
 * load: makes the model resident with one warm interpreter now (making room as an acquire
 *   does; waits up to timeout_ms); AP_ERR_BUDGET with the usual message when it cannot. AP_OK
 *   at once when it is loaded already; cancels an unload still pending. Not counted as an
 *   acquire.
 * unload: unloads it as soon as none of its interpreters is acquired (now, if idle; its idle
 *   interpreters are freed now either way); pinned models too (an explicit unload is the one
 *   way a pinned model leaves); AP_OK, also when it was not loaded. A later acquire loads it
 *   again (load on demand) and a busy model keeps serving until its last release.
 * remove: unregisters a model (a configuration reload dropped it): unloads it when idle,
 *   after which its name is unknown (and may be added again); acquires of it fail with
 *   AP_ERR_ARG from now on, ap_pool_model() no longer lists it; its interpreters still
 *   acquired are released as usual. Its record (and name) lives on until ap_pool_destroy.
 * AP_ERR_ARG for an unknown name. */
ap_status ap_pool_load(ap_pool *p, const char *name, uint64_t timeout_ms);
ap_status ap_pool_unload(ap_pool *p, const char *name);
ap_status ap_pool_remove(ap_pool *p, const char *name);

/* Events: one per model load and unload (for a server's log line). */
typedef enum { AP_POOL_EVENT_LOAD, AP_POOL_EVENT_UNLOAD } ap_pool_event_kind;
typedef enum {
  AP_POOL_REASON_DEMAND,   /* load: an acquire needed it */
  AP_POOL_REASON_EXPLICIT, /* ap_pool_load / ap_pool_unload */
  AP_POOL_REASON_IDLE,     /* unload: idle past its idle_ms */
  AP_POOL_REASON_ROOM,     /* unload: evicted to make room for another model */
  AP_POOL_REASON_REMOVED,  /* unload: ap_pool_remove */
  AP_POOL_REASON_SHUTDOWN  /* unload: ap_pool_destroy */
} ap_pool_reason;
typedef struct ap_pool_event {
  ap_pool_event_kind kind;
  ap_pool_reason reason;
  const char *model;       /* its name: valid as long as the pool */
  uint64_t bytes;          /* what the model held (unload) or holds now (load) */
  uint64_t resident_bytes; /* the pool's resident bytes right after the event */
  uint64_t elapsed_us;     /* loads: how long the load (and warm-up) took; unloads 0 */
} ap_pool_event;
/* "demand", "explicit", "idle", "room", "removed", "shutdown" ("?" for another value). */
const char *ap_pool_reason_name(ap_pool_reason r);

/* A model's state, in ap_pool_model_info.state. LOADING: its file being mapped and its first
 * interpreter allocated; WARMING: that interpreter running its warm-up invokes; READY: loaded,
 * no interpreter acquired; BUSY: loaded, at least one acquired. */
enum { AP_POOL_UNLOADED, AP_POOL_LOADING, AP_POOL_WARMING, AP_POOL_READY, AP_POOL_BUSY };
/* "unloaded", "loading", "warming", "ready", "busy" ("?" for another value). */
const char *ap_pool_state_name(int state);

/* The machine's memory, for a default budget: physical RAM and the smallest memory limit of
 * the process's cgroups (v2 memory.max, v1 memory.limit_in_bytes, its own and its
 * ancestors'), each 0 when unknown or unlimited. A server's default budget is 80 % of the
 * smaller one that is set. AP_ERR_ARG for NULL. */
ap_status ap_pool_machine_memory(uint64_t *physical, uint64_t *cgroup_limit);

typedef struct ap_pool_stats {
  uint64_t budget_bytes;
  uint64_t resident_bytes;      /* now (reservations of loads in progress included) */
  uint64_t peak_resident_bytes; /* the most ever resident at once */
  uint64_t acquires;            /* successful ones */
  uint64_t hits;                /* acquires that found the model loaded */
  uint64_t loads, unloads;      /* models mapped and unmapped */
  uint64_t interpreters_created, interpreters_destroyed;
  uint64_t waits;    /* acquires that had to wait for a release */
  uint64_t failures; /* acquires that failed (budget, timeout, load) */
  /* Models unloaded: idle past their time, evicted to make room for another, explicitly
   * (ap_pool_unload). unloads also counts those of removed models and failed loads. */
  uint64_t evictions_idle, evictions_room, unloads_explicit;
  uint64_t budget_failures; /* acquires that failed with AP_ERR_BUDGET (after their wait) */
  uint64_t waiting;         /* acquires waiting right now (for the budget, an interpreter, a
                               load by another thread) */
} ap_pool_stats;
ap_status ap_pool_get_stats(ap_pool *p, ap_pool_stats *out);

typedef struct ap_pool_model_info {
  const char *name, *path; /* live as long as the pool */
  ap_pool_cost cost;
  bool loaded;
  size_t interpreters; /* allocated now (acquired or idle) */
  size_t acquired;
  uint64_t resident_bytes; /* now: 0, or weights + handle + interpreters * interpreter */
  uint64_t loads, unloads, acquires;
  int state; /* AP_POOL_UNLOADED ... AP_POOL_BUSY */
  bool pinned;
  uint64_t idle_ms;        /* in effect (the pool's when the model's was 0) */
  size_t max_interpreters; /* in effect */
  uint64_t evictions_idle, evictions_room, unloads_explicit;
  uint64_t last_used_ms; /* the pool's clock at its last acquire or release (0: never) */
} ap_pool_model_info;
/* Models in registration order (removed ones left out). */
size_t ap_pool_model_count(ap_pool *p);
ap_status ap_pool_model(ap_pool *p, size_t i, ap_pool_model_info *out);

#ifdef __cplusplus
}
#endif
#endif
