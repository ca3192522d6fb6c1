/* The worker group on POSIX threads.
 *
 * A parallel region publishes (fn, arg) and then a new generation. Its n indices are cut into
 * one contiguous range per thread, in slot order (the caller's first), each held in a 64-bit
 * word of its own (generation, front, back): a thread claims its own range from the front, and
 * once it is empty steals from the back of the others'. So an op split into as many pieces as
 * threads runs piece i on thread i, and consecutive ops split alike over the same rows find
 * their inputs in their own core's cache: on a virtual machine moving a 75 KB map from the
 * other core cost 6 us against 1.5 us to copy it locally, more than a small op's work.
 * A late or descheduled thread loses its pieces to the others, one at a time from its back.
 * The generation is in each word, not read beside it, so a worker that wakes late can never
 * run an index of a later region with an earlier region's function: its claim fails once the
 * region it read has moved on (and the region cannot move on before its last claimed task has
 * finished, so what it read belongs to the region it claimed).
 * The caller returns once all n tasks have completed; a worker the OS has not scheduled yet
 * costs nothing but the wake-up (the caller takes its share), which matters on loaded machines.
 *
 * Waiting. Regions come every few tens of microseconds during an invoke (one per large op),
 * and a condition variable's wake-up costs about as much on a virtual machine, so both sides
 * first spin for a while (AP_SPIN_NS, with the CPU's pause hint) and only then sleep on the
 * mutex and condition variable: idle workers sleep between invokes, so an idle interpreter
 * costs no CPU. Sleepers announce themselves in a counter before their last look, and wakers
 * read it after publishing, both sequentially consistent, so one of the two always sees the
 * other. Nothing is allocated after create. */
#ifndef AP_PORT_NONE
#include "port/port.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

/* How long a waiting thread spins before sleeping: longer than the gaps between the parallel
 * regions of one invoke (ops on the caller alone: mobilenet_v2's first TRANSPOSE takes half a
 * millisecond), short enough to sleep soon after an invoke. Where a wake-up is slow, longer:
 * AP_SPIN_WAKES times what the last wake-ups cost, up to AP_SPIN_MAX_NS. On this project's
 * virtual machine a broadcast took the caller 0.5 ms and the worker ran 4-6 ms after it, so a
 * model invoked every 20 ms ran slower on 2 threads than on 1 (8 against 5.5 ms: each invoke
 * woke its workers, which joined near its end); spinning through such gaps, 3.9 ms. */
#define AP_SPIN_NS 1000000
#define AP_SPIN_WAKES 8
#define AP_SPIN_MAX_NS 50000000
/* A gap this long between two looks at the clock while spinning is the OS's, not the spin's. */
#define AP_PREEMPTED_NS 50000
/* A wait for the workers past the caller's own share and this long is a stall (a worker
 * descheduled mid-piece); the caller then runs this many regions alone (about one invoke of a
 * large model) before trying the workers again, twice as many after each further stall. */
#define AP_STALL_NS 200000
#define AP_BACKOFF_REGIONS 64
#define AP_BACKOFF_MAX 8192 /* stall after stall (a saturated machine): up to this many */

typedef struct worker_arg {
  ap_port_workers *w;
  int slot; /* 1 to threads - 1 (the caller is 0) */
} worker_arg;

/* A thread's range of the current region: generation << 32 | front << 16 | back, on a cache
 * line of its own (every claim writes it). */
typedef struct claim {
  _Alignas(64) _Atomic uint64_t word;
} claim;

struct ap_port_workers {
  ap_allocator alloc;
  int threads; /* including the caller */
  int started; /* worker threads running */
  pthread_t *ids;
  worker_arg *args;
  claim *ranges; /* one per thread, slot order */
  void *ranges_raw;
  pthread_mutex_t mu;
  pthread_cond_t wake, done;
  atomic_int sleepers; /* workers asleep on `wake`, or about to be */
  /* 1 from a broadcast until a worker next goes to sleep: the sleepers it woke need no other
   * (on a virtual machine a woken CPU can take milliseconds to run, and a broadcast at every
   * region meanwhile cost the caller a system call each). */
  atomic_int broadcast;
  atomic_int waiting; /* 1 while the caller sleeps on `done`, or is about to */
  atomic_bool stop;
  _Atomic uint32_t pokes;     /* wake() calls that found sleepers: they start spinning again */
  _Atomic uint64_t wake_at;   /* when the last broadcast started (now_ns) */
  _Atomic uint64_t wake_cost; /* a wake-up's cost, averaged: broadcast to the worker running */
  uint32_t woken_at;          /* the generation at the last wake() (the caller's own) */
  int backoff;                /* regions the caller runs alone after a stall (the caller's own) */
  int backoff_len; /* the next back-off's length: doubles at each stall, halves without */
  _Atomic uint32_t generation; /* of the last published region; 0: none yet */
  /* The current region (written before its generation is published). */
  _Atomic(ap_port_task) fn;
  _Atomic(ap_port_slot_task) slot_fn; /* instead of fn when set */
  _Atomic(void *) arg;
  _Atomic uint32_t count;            /* its number of indices */
  _Alignas(64) atomic_int completed; /* tasks of the current region finished */
};

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __asm__ __volatile__("pause");
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield");
#endif
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* How long to spin before sleeping, from what waking a sleeper has cost. */
static uint64_t spin_ns(const ap_port_workers *w) {
  uint64_t c = atomic_load_explicit(&w->wake_cost, memory_order_relaxed);
  uint64_t t = c > AP_SPIN_MAX_NS / AP_SPIN_WAKES ? AP_SPIN_MAX_NS : c * AP_SPIN_WAKES;
  return t > AP_SPIN_NS ? t : AP_SPIN_NS;
}

/* Spins until done(w, v) holds or spin_ns() have passed; true if it holds. */
static bool spin_until(const ap_port_workers *w, bool (*done)(const ap_port_workers *, uint32_t),
                       uint32_t v) {
  uint64_t limit = spin_ns(w);
  uint64_t last = 0, spun = 0;
  for (unsigned i = 0;; i++) {
    if (done(w, v)) return true;
    cpu_relax();
    if ((i & 63) == 63) { /* the clock is read rarely: it costs tens of pauses */
      uint64_t t = now_ns();
      /* Time spent preempted is not spinning: a worker the OS took off its core for longer
       * than the spin (a loaded machine) would otherwise fall asleep the moment it came back,
       * in the middle of an invoke, and every region after would wait on its wake-up. */
      if (last && t - last < AP_PREEMPTED_NS) spun += t - last;
      last = t;
      if (spun > limit) return false;
    }
  }
}

/* Both predicates load sequentially consistently: a sleeper's last look must see what a waker
 * published before reading the sleeper's announcement (and they are plain loads on x86). */
static bool new_region(const ap_port_workers *w, uint32_t seen) {
  return atomic_load(&w->generation) != seen || atomic_load(&w->stop);
}

static bool all_done(const ap_port_workers *w, uint32_t n) {
  return (uint32_t)atomic_load(&w->completed) >= n;
}

#define AP_MAX_INDICES 0xFFFF /* a range's ends fit 16 bits of its word */

/* Runs index i of region gen, counting it done. */
static void run_index(ap_port_workers *w, ap_port_task fn, ap_port_slot_task slot_fn, void *arg,
                      int i, int slot, uint32_t n) {
  if (slot_fn)
    slot_fn(arg, i, slot);
  else
    fn(arg, i);
  if ((uint32_t)atomic_fetch_add(&w->completed, 1) + 1 == n && atomic_load(&w->waiting)) {
    pthread_mutex_lock(&w->mu);
    pthread_cond_signal(&w->done);
    pthread_mutex_unlock(&w->mu);
  }
}

/* Claims one index of region gen from range r: its front (own) or its back (stolen); -1 when
 * the range is empty or belongs to another region. */
static int claim_one(claim *r, uint32_t gen, bool front) {
  uint64_t v = atomic_load_explicit(&r->word, memory_order_acquire);
  for (;;) {
    uint32_t f = (uint32_t)(v >> 16 & AP_MAX_INDICES), b = (uint32_t)(v & AP_MAX_INDICES);
    if ((uint32_t)(v >> 32) != gen || f >= b) return -1;
    uint64_t to = front ? v + (1u << 16) : v - 1;
    if (atomic_compare_exchange_weak_explicit(&r->word, &v, to, memory_order_acq_rel,
                                              memory_order_acquire))
      return (int)(front ? f : b - 1);
  }
}

/* Claims and runs tasks of region gen (n of them) until none is left: the thread's own range
 * from its front, then the others' from their backs. */
static void take(ap_port_workers *w, uint32_t gen, ap_port_task fn, ap_port_slot_task slot_fn,
                 void *arg, int slot, uint32_t n) {
  int i;
  while ((i = claim_one(&w->ranges[slot], gen, true)) >= 0)
    run_index(w, fn, slot_fn, arg, i, slot, n);
  for (int k = 1; k < w->threads; k++) {
    claim *r = &w->ranges[(slot + k) % w->threads];
    while ((i = claim_one(r, gen, false)) >= 0)
      run_index(w, fn, slot_fn, arg, i, slot, n);
  }
}

static void *worker(void *p) {
  ap_port_workers *w = ((worker_arg *)p)->w;
  int slot = ((worker_arg *)p)->slot;
  uint32_t seen = 0;
  for (;;) {
    if (!spin_until(w, new_region, seen)) {
      pthread_mutex_lock(&w->mu);
      atomic_store(&w->broadcast, 0); /* before the announcement: see wake_sleepers() */
      atomic_fetch_add(&w->sleepers, 1);
      uint32_t poked = atomic_load(&w->pokes);
      while (!new_region(w, seen) && atomic_load(&w->pokes) == poked)
        pthread_cond_wait(&w->wake, &w->mu);
      atomic_fetch_sub(&w->sleepers, 1);
      pthread_mutex_unlock(&w->mu);
      /* A lost wake-up race (a broadcast older than this sleep) reads as a long one: the
       * average only moves a quarter of the way, and a cost above a second is not kept. */
      uint64_t at = atomic_load(&w->wake_at), t = now_ns();
      if (at && t > at && t - at < 1000000000u) {
        uint64_t c = atomic_load_explicit(&w->wake_cost, memory_order_relaxed);
        atomic_store_explicit(&w->wake_cost, c ? (3 * c + (t - at)) / 4 : t - at,
                              memory_order_relaxed);
      }
      if (!new_region(w, seen)) continue; /* woken ahead of a region: spin for it */
    }
    if (atomic_load_explicit(&w->stop, memory_order_acquire)) break;
    seen = atomic_load_explicit(&w->generation, memory_order_acquire);
    ap_port_task fn = atomic_load_explicit(&w->fn, memory_order_relaxed);
    ap_port_slot_task slot_fn = atomic_load_explicit(&w->slot_fn, memory_order_relaxed);
    void *arg = atomic_load_explicit(&w->arg, memory_order_relaxed);
    uint32_t n = atomic_load_explicit(&w->count, memory_order_relaxed);
    take(w, seen, fn, slot_fn, arg, slot, n);
  }
  return NULL;
}

ap_status ap_port_workers_create(const ap_allocator *a, int threads, ap_port_workers **out,
                                 ap_errbuf *err) {
  if (!out) return ap_fail(err, AP_ERR_ARG, "workers: NULL argument");
  *out = NULL;
  if (threads < 1 || threads > 1024)
    return ap_fail(err, AP_ERR_ARG, "workers: %d threads (1 to 1024)", threads);
  const ap_allocator *al = ap_alloc_or_default(a);
  /* The record is aligned by hand: the allocator promises less than a cache line. */
  size_t size = sizeof(ap_port_workers) + 64 + sizeof(void *);
  void *raw = ap_calloc(al, 1, size);
  if (!raw) return ap_fail(err, AP_ERR_NOMEM, "workers: out of memory");
  ap_port_workers *w = (ap_port_workers *)(((uintptr_t)raw + sizeof(void *) + 63) & ~(uintptr_t)63);
  ((void **)w)[-1] = raw;
  w->alloc = *al;
  w->threads = threads;
  w->backoff_len = AP_BACKOFF_REGIONS;
  if (threads > 1 && (!(w->ids = ap_calloc(al, (size_t)threads - 1, sizeof *w->ids)) ||
                      !(w->args = ap_calloc(al, (size_t)threads - 1, sizeof *w->args)) ||
                      !(w->ranges_raw = ap_calloc(al, (size_t)threads + 1, sizeof(claim))))) {
    ap_free(al, w->ids);
    ap_free(al, w->args);
    ap_free(al, raw);
    return ap_fail(err, AP_ERR_NOMEM, "workers: out of memory");
  }
  /* One spare claim's room aligns them by hand, as the record. */
  w->ranges = (claim *)(((uintptr_t)w->ranges_raw + 63) & ~(uintptr_t)63);
  for (int i = 0; threads > 1 && i < threads; i++)
    atomic_init(&w->ranges[i].word, 0);
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->wake, NULL);
  pthread_cond_init(&w->done, NULL);
  atomic_init(&w->sleepers, 0);
  atomic_init(&w->broadcast, 0);
  atomic_init(&w->waiting, 0);
  atomic_init(&w->stop, false);
  atomic_init(&w->pokes, 0);
  atomic_init(&w->wake_at, 0);
  atomic_init(&w->wake_cost, 0);
  atomic_init(&w->generation, 0);
  atomic_init(&w->fn, NULL);
  atomic_init(&w->slot_fn, NULL);
  atomic_init(&w->arg, NULL);
  atomic_init(&w->count, 0);
  atomic_init(&w->completed, 0);
  for (int i = 0; i + 1 < threads; i++) {
    w->args[i] = (worker_arg){w, i + 1};
    if (pthread_create(&w->ids[i], NULL, worker, &w->args[i]) != 0) {
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

/* Wakes the sleepers unless a broadcast since the last of them went to sleep already did. A
 * worker clears `broadcast` before announcing itself in `sleepers` (both sequentially
 * consistent), so a waker that reads its announcement reads the cleared flag too. */
static void wake_sleepers(ap_port_workers *w, bool poke) {
  if (atomic_exchange(&w->broadcast, 1)) return;
  atomic_store(&w->wake_at, now_ns());
  pthread_mutex_lock(&w->mu);
  if (poke) atomic_fetch_add(&w->pokes, 1);
  pthread_cond_broadcast(&w->wake);
  pthread_mutex_unlock(&w->mu);
}

static void run(ap_port_workers *w, ap_port_task fn, ap_port_slot_task slot_fn, void *arg, int n) {
  uint32_t gen = atomic_load_explicit(&w->generation, memory_order_relaxed) + 1;
  if (gen == 0) gen = 1; /* 0 is every worker's "seen nothing yet" */
  atomic_store_explicit(&w->fn, fn, memory_order_relaxed);
  atomic_store_explicit(&w->slot_fn, slot_fn, memory_order_relaxed);
  atomic_store_explicit(&w->arg, arg, memory_order_relaxed);
  atomic_store_explicit(&w->completed, 0, memory_order_relaxed);
  atomic_store_explicit(&w->count, (uint32_t)n, memory_order_relaxed);
  /* Slot s's range [ceil(s n / T), ceil((s + 1) n / T)): the caller's first, never smaller
   * than a worker's. */
  uint64_t t = (uint64_t)w->threads;
  for (int s = 0; s < w->threads; s++) {
    uint64_t f = ((uint64_t)s * (uint64_t)n + t - 1) / t;
    uint64_t b = ((uint64_t)(s + 1) * (uint64_t)n + t - 1) / t;
    atomic_store_explicit(&w->ranges[s].word, (uint64_t)gen << 32 | f << 16 | b,
                          memory_order_release);
  }
  atomic_store(&w->generation, gen); /* seq_cst: ordered before the read of sleepers */
  /* Workers asleep (between invokes, or woken by ap_port_workers_wake and not yet running):
   * waiting for them here is their wake-up, not a stall, and must not send the next regions to
   * the caller alone (a model invoked now and then, as a camera's frames come, would never run
   * on its workers). */
  bool woke = atomic_load(&w->sleepers) != 0;
  if (woke) wake_sleepers(w, false);
  uint64_t t0 = now_ns();
  take(w, gen, fn, slot_fn, arg, 0, (uint32_t)n);
  uint64_t t1 = now_ns();
  if (!spin_until(w, all_done, (uint32_t)n)) {
    pthread_mutex_lock(&w->mu);
    atomic_store(&w->waiting, 1);
    while (!all_done(w, (uint32_t)n))
      pthread_cond_wait(&w->done, &w->mu);
    atomic_store(&w->waiting, 0);
    pthread_mutex_unlock(&w->mu);
  }
  /* A worker that runs holds the caller back by at most one piece, less than the caller's own
   * share took; waiting longer means a worker lost its core mid-piece (more threads than free
   * cores), where splitting loses: the next regions run on the caller alone. */
  uint64_t waited = now_ns() - t1;
  if (!woke && waited > AP_STALL_NS && waited > t1 - t0) {
    w->backoff = w->backoff_len;
    w->backoff_len = w->backoff_len < AP_BACKOFF_MAX / 2 ? 2 * w->backoff_len : AP_BACKOFF_MAX;
  } else if (w->backoff_len > AP_BACKOFF_REGIONS) {
    w->backoff_len /= 2;
  }
}

/* The caller runs the region alone while backing off after a stall. */
static bool alone(ap_port_workers *w) {
  if (w->backoff <= 0) return false;
  w->backoff--;
  return true;
}

void ap_port_workers_run(ap_port_workers *w, ap_port_task fn, void *arg, int n) {
  if (!fn || n <= 0) return;
  if (!w || w->started == 0 || n == 1 || n > AP_MAX_INDICES || alone(w)) {
    for (int i = 0; i < n; i++)
      fn(arg, i);
    return;
  }
  run(w, fn, NULL, arg, n);
}

void ap_port_workers_run_slots(ap_port_workers *w, ap_port_slot_task fn, void *arg, int n) {
  if (!fn || n <= 0) return;
  if (!w || w->started == 0 || n == 1 || n > AP_MAX_INDICES || alone(w)) {
    for (int i = 0; i < n; i++)
      fn(arg, i, 0);
    return;
  }
  run(w, NULL, fn, arg, n);
}

void ap_port_workers_wake(ap_port_workers *w) {
  /* A hint: a worker falling asleep just now may miss it and wake at the region instead. */
  if (!w) return;
  /* No region since the last call (a model whose ops all stay on the caller): waking would
   * only cost the caller a system call. */
  uint32_t gen = atomic_load_explicit(&w->generation, memory_order_relaxed);
  if (gen == w->woken_at) return;
  w->woken_at = gen;
  if (!atomic_load(&w->sleepers)) return;
  wake_sleepers(w, true);
}

void ap_port_workers_destroy(ap_port_workers *w) {
  if (!w) return;
  pthread_mutex_lock(&w->mu);
  atomic_store(&w->stop, true);
  pthread_cond_broadcast(&w->wake);
  pthread_mutex_unlock(&w->mu);
  for (int i = 0; i < w->started; i++)
    pthread_join(w->ids[i], NULL);
  pthread_cond_destroy(&w->done);
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->mu);
  ap_allocator a = w->alloc;
  void *raw = ((void **)w)[-1];
  ap_free(&a, w->ids);
  ap_free(&a, w->args);
  ap_free(&a, w->ranges_raw);
  ap_free(&a, raw);
}
#else
typedef int ap_port_thread_unused; /* the freestanding port (port_none.c) has these */
#endif
