/* The host's worker group (port_thread_posix.c): every index of every region runs exactly once
 * with its own region's function and argument (run_slots: in a slot below the thread count
 * that no other index holds at the time), back to back (workers still spinning from the
 * last region), after the workers have gone to sleep, and after wake(); bad arguments fail. */
#include "port/port.h"
#include "test.h"

#include <stdatomic.h>
#include <time.h>

enum { MAX_N = 97 };

typedef struct region {
  atomic_int runs[MAX_N];
  int tag;
} region;

static void count_a(void *arg, int i) {
  region *r = arg;
  atomic_fetch_add(&r->runs[i], r->tag);
}

static void count_b(void *arg, int i) {
  region *r = arg;
  atomic_fetch_add(&r->runs[i], 2 * r->tag);
}

/* run_slots: each index once, its slot below the thread count and never busy twice at once. */
static atomic_int busy[8], slot_errors, slots_seen;

static void in_slot(void *arg, int i, int slot) {
  region *r = arg;
  if (slot < 0 || slot >= 8 || atomic_exchange(&busy[slot], 1)) {
    atomic_fetch_add(&slot_errors, 1);
    return;
  }
  atomic_fetch_or(&slots_seen, 1 << slot);
  for (volatile int k = 0; k < 200; k++) /* long enough for the workers to claim some */
    ;
  atomic_fetch_add(&r->runs[i], r->tag);
  atomic_store(&busy[slot], 0);
}

/* A worker's piece that stalls (as if its core were taken away): 3 ms. */
static void stall_in_worker(void *arg, int i, int slot) {
  (void)arg, (void)i;
  if (slot != 0) {
    struct timespec t = {0, 3000000L};
    nanosleep(&t, NULL);
  }
}

static bool once_each(region *r, int n, int per_run) {
  for (int i = 0; i < MAX_N; i++)
    if (atomic_load(&r->runs[i]) != (i < n ? per_run : 0)) return false;
  return true;
}

static void reset(region *r, int tag) {
  for (int i = 0; i < MAX_N; i++)
    atomic_store(&r->runs[i], 0);
  r->tag = tag;
}

static void sleep_ms(int ms) {
  struct timespec t = {0, (long)ms * 1000000L};
  nanosleep(&t, NULL);
}

static region ra, rb;

static void regions(ap_port_workers *w, int threads) {
  /* Back to back, alternating function and argument: a worker late for one region must not
   * run an index of the next with the old function. */
  for (int k = 0; k < 3000; k++) {
    int n = k % MAX_N;
    region *r = k % 2 ? &ra : &rb;
    reset(r, k + 1);
    ap_port_workers_run(w, k % 3 ? count_a : count_b, r, n);
    CHECK_MSG(once_each(r, n, (k % 3 ? 1 : 2) * (k + 1)), "%d threads, region %d of %d tasks",
              threads, k, n);
  }
  /* After the workers have gone to sleep, with and without a wake-up ahead. */
  for (int k = 0; k < 4; k++) {
    sleep_ms(3);
    if (k % 2) ap_port_workers_wake(w);
    reset(&ra, 7);
    ap_port_workers_run(w, count_a, &ra, 40 + k);
    CHECK_MSG(once_each(&ra, 40 + k, 7), "%d threads, after sleeping, region %d", threads, k);
  }
  for (int k = 0; k < 500; k++) {
    int n = k % MAX_N;
    reset(&ra, 3);
    ap_port_workers_run_slots(w, in_slot, &ra, n);
    CHECK_MSG(once_each(&ra, n, 3), "%d threads, slot region %d", threads, k);
  }
  CHECK_EQ(atomic_load(&slot_errors), 0);
  CHECK(atomic_load(&slots_seen) < 1 << threads);
  atomic_store(&slots_seen, 0);
  ap_port_workers_wake(w); /* no region since the last wake: nothing */
  ap_port_workers_wake(w);
  reset(&ra, 1);
  ap_port_workers_run(w, NULL, &ra, 5); /* no function, or no tasks: nothing runs */
  ap_port_workers_run(w, count_a, &ra, 0);
  ap_port_workers_run(w, count_a, &ra, -3);
  ap_port_workers_run_slots(w, NULL, &ra, 5);
  ap_port_workers_run_slots(w, in_slot, &ra, 0);
  CHECK(once_each(&ra, 0, 0));
}

int main(void) {
  ap_errbuf e = {{0}};
  ap_port_workers *w = NULL;
  static const int counts[] = {1, 2, 3, 8};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    CHECK_EQ(ap_port_workers_create(NULL, counts[i], &w, &e), AP_OK);
    CHECK_EQ(ap_port_workers_count(w), counts[i]);
    regions(w, counts[i]);
    ap_port_workers_destroy(w);
  }
  /* After a region that waited on a stalled worker, the next ones run on the caller alone
   * (correctly), then the workers serve again. */
  CHECK_EQ(ap_port_workers_create(NULL, 2, &w, &e), AP_OK);
  bool stalled = false; /* until a worker takes a piece and stalls (the caller waits 3 ms) */
  for (int k = 0; k < 2000 && !stalled; k++) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ap_port_workers_run_slots(w, stall_in_worker, NULL, 2);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    stalled = (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) > 2000000L;
  }
  atomic_store(&slots_seen, 0);
  for (int k = 0; k < 20; k++) {
    reset(&ra, 5);
    ap_port_workers_run_slots(w, in_slot, &ra, 30);
    CHECK(once_each(&ra, 30, 5));
  }
  CHECK(!stalled || atomic_load(&slots_seen) == 1);
  regions(w, 2);
  ap_port_workers_destroy(w);
  /* A group destroyed while its workers sleep, and one destroyed at once. */
  CHECK_EQ(ap_port_workers_create(NULL, 3, &w, &e), AP_OK);
  sleep_ms(3);
  ap_port_workers_destroy(w);
  CHECK_EQ(ap_port_workers_create(NULL, 3, &w, &e), AP_OK);
  ap_port_workers_destroy(w);
  ap_port_workers_destroy(NULL);
  ap_port_workers_wake(NULL);
  CHECK_EQ(ap_port_workers_count(NULL), 1);
  /* NULL group: the caller runs every index. */
  reset(&ra, 1);
  ap_port_workers_run(NULL, count_a, &ra, 9);
  CHECK(once_each(&ra, 9, 1));
  reset(&ra, 2);
  ap_port_workers_run_slots(NULL, in_slot, &ra, 9);
  CHECK(once_each(&ra, 9, 2));
  CHECK_EQ(atomic_load(&slots_seen), 1); /* slot 0 only */
  CHECK_EQ(ap_port_workers_create(NULL, 0, &w, &e), AP_ERR_ARG);
  CHECK(w == NULL);
  CHECK_CONTAINS(e.msg, "0 threads");
  CHECK_EQ(ap_port_workers_create(NULL, 1025, &w, &e), AP_ERR_ARG);
  CHECK_EQ(ap_port_workers_create(NULL, 2, NULL, &e), AP_ERR_ARG);
  return ap_test_done();
}
