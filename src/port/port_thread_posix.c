/* The worker group on POSIX threads. A parallel region publishes (fn, arg, n) under the mutex
 * with a new generation and wakes the workers; everyone, the caller included, claims indices
 * from one 64-bit counter holding (generation, next index), so a worker that wakes late can
 * never claim an index of a later region with an earlier region's function. The caller returns
 * once all n tasks have completed: a worker the OS has not scheduled yet costs nothing but the
 * wake-up (the caller takes its share), which matters on loaded machines. Nothing is allocated
 * after create. */
#ifndef AP_PORT_NONE
#include "port/port.h"

#include <pthread.h>
#include <stdatomic.h>

struct ap_port_workers {
  ap_allocator alloc;
  int threads; /* including the caller */
  int started; /* worker threads running */
  pthread_t *ids;
  pthread_mutex_t mu;
  pthread_cond_t wake, done;
  /* Guarded by mu: the current region. */
  uint32_t generation;
  bool stop;
  ap_port_task fn;
  void *arg;
  int n;
  _Atomic uint64_t next; /* generation << 32 | next index */
  atomic_int completed;  /* tasks of the current region finished */
};

/* Claims and runs tasks of region `gen` until none is left; true if it ran the last one. */
static void take(ap_port_workers *w, uint32_t gen, ap_port_task fn, void *arg, int n) {
  for (;;) {
    uint64_t v = atomic_load_explicit(&w->next, memory_order_acquire);
    if ((uint32_t)(v >> 32) != gen || (int)(uint32_t)v >= n) return;
    if (!atomic_compare_exchange_weak_explicit(&w->next, &v, v + 1, memory_order_acq_rel,
                                               memory_order_acquire))
      continue;
    fn(arg, (int)(uint32_t)v);
    if (atomic_fetch_add_explicit(&w->completed, 1, memory_order_acq_rel) + 1 == n) {
      pthread_mutex_lock(&w->mu);
      pthread_cond_signal(&w->done);
      pthread_mutex_unlock(&w->mu);
    }
  }
}

static void *worker(void *p) {
  ap_port_workers *w = p;
  uint32_t seen = 0;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    while (!w->stop && w->generation == seen)
      pthread_cond_wait(&w->wake, &w->mu);
    if (w->stop) break;
    seen = w->generation;
    ap_port_task fn = w->fn;
    void *arg = w->arg;
    int n = w->n;
    pthread_mutex_unlock(&w->mu);
    take(w, seen, fn, arg, n);
    pthread_mutex_lock(&w->mu);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

ap_status ap_port_workers_create(const ap_allocator *a, int threads, ap_port_workers **out,
                                 ap_errbuf *err) {
  if (!out) return ap_fail(err, AP_ERR_ARG, "workers: NULL argument");
  *out = NULL;
  if (threads < 1 || threads > 1024)
    return ap_fail(err, AP_ERR_ARG, "workers: %d threads (1 to 1024)", threads);
  const ap_allocator *al = ap_alloc_or_default(a);
  ap_port_workers *w = ap_calloc(al, 1, sizeof *w);
  if (!w) return ap_fail(err, AP_ERR_NOMEM, "workers: out of memory");
  w->alloc = *al;
  w->threads = threads;
  if (threads > 1 && !(w->ids = ap_calloc(al, (size_t)threads - 1, sizeof *w->ids))) {
    ap_free(al, w);
    return ap_fail(err, AP_ERR_NOMEM, "workers: out of memory");
  }
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->wake, NULL);
  pthread_cond_init(&w->done, NULL);
  atomic_init(&w->next, 0);
  atomic_init(&w->completed, 0);
  for (int i = 0; i + 1 < threads; i++) {
    if (pthread_create(&w->ids[i], NULL, worker, w) != 0) {
      ap_port_workers_destroy(w);
      return ap_fail(err, AP_ERR_NOMEM, "workers: cannot start thread %d of %d", i + 2, threads);
    }
    w->started++;
  }
  *out = w;
  return AP_OK;
}

int ap_port_workers_count(const ap_port_workers *w) {
  return w ? w->threads : 1;
}

void ap_port_workers_run(ap_port_workers *w, ap_port_task fn, void *arg, int n) {
  if (!fn || n <= 0) return;
  if (!w || w->started == 0 || n == 1) {
    for (int i = 0; i < n; i++)
      fn(arg, i);
    return;
  }
  pthread_mutex_lock(&w->mu);
  uint32_t gen = ++w->generation;
  if (gen == 0) gen = ++w->generation; /* 0 is every worker's "seen nothing yet" */
  w->fn = fn;
  w->arg = arg;
  w->n = n;
  atomic_store_explicit(&w->completed, 0, memory_order_relaxed);
  atomic_store_explicit(&w->next, (uint64_t)gen << 32, memory_order_release);
  pthread_cond_broadcast(&w->wake);
  pthread_mutex_unlock(&w->mu);
  take(w, gen, fn, arg, n);
  pthread_mutex_lock(&w->mu);
  while (atomic_load_explicit(&w->completed, memory_order_acquire) < n)
    pthread_cond_wait(&w->done, &w->mu);
  pthread_mutex_unlock(&w->mu);
}

void ap_port_workers_destroy(ap_port_workers *w) {
  if (!w) return;
  pthread_mutex_lock(&w->mu);
  w->stop = true;
  pthread_cond_broadcast(&w->wake);
  pthread_mutex_unlock(&w->mu);
  for (int i = 0; i < w->started; i++)
    pthread_join(w->ids[i], NULL);
  pthread_cond_destroy(&w->done);
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->mu);
  ap_allocator a = w->alloc;
  ap_free(&a, w->ids);
  ap_free(&a, w);
}
#else
typedef int ap_port_thread_unused; /* the freestanding port (port_none.c) has these */
#endif
