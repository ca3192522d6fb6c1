/* What one parallel region (fork/join) of the worker group costs the caller (issue 29): the
 * floor below which ap_fast_tasks keeps an op on one thread comes from it. A region of
 * THREADS tasks, each spinning WORK ns of the CPU (0: an empty task), is timed against the same
 * tasks run inline on the caller, GAP ns of caller-only work between regions (as the serial
 * ops between an invoke's split ops, during which the workers spin). Per batch of regions the
 * mean; printed: the lowest and the median batch over ROUNDS (load on a shared machine only
 * adds time: the lowest is the cost itself, the median what a loaded machine sees), and the
 * overhead = region time - one task's time inline (the ideal time of THREADS tasks on THREADS
 * cores). Task work is arithmetic calibrated once to WORK ns, not clock reads.
 *
 *   bench_forkjoin_bench [THREADS [ROUNDS]]   (default 2 threads, 31 rounds) */
#include "bench_run.h"
#include "port/port.h"

#include <stdatomic.h>
#include <stdlib.h>

static uint64_t spin_ns;
static _Atomic uint64_t sink;

static uint64_t now(void) {
  return ap_port_now_ns();
}

/* ns of arithmetic (at the calibrated rate), without reading the clock: a task preempted
 * midway takes longer, as a kernel's would. */
static double per_ns;
static void busy(uint64_t ns) {
  uint64_t x = 1, n = (uint64_t)((double)ns * per_ns);
  for (uint64_t i = 0; i < n; i++)
    x = x * 6364136223846793005u + i;
  atomic_fetch_add_explicit(&sink, x, memory_order_relaxed);
}

/* Loop iterations per ns: the fastest of several timings of a million. */
static void calibrate(void) {
  double best = 1e30;
  per_ns = 1;
  for (int i = 0; i < 20; i++) {
    uint64_t t0 = now();
    busy(1000000);
    double t = (double)(now() - t0);
    if (t < best) best = t;
  }
  per_ns = 1000000.0 / best;
}

static void task(void *arg, int i) {
  (void)arg, (void)i;
  if (spin_ns) busy(spin_ns);
}

/* Mean ns per region over `regions` regions with `gap` ns of caller work between them. */
static double batch(ap_port_workers *w, int threads, int regions, uint64_t gap) {
  uint64_t total = 0;
  for (int r = 0; r < regions; r++) {
    if (gap) busy(gap);
    uint64_t t0 = now();
    if (w)
      ap_port_workers_run(w, task, NULL, threads);
    else
      task(NULL, 0);
    total += now() - t0;
  }
  return (double)total / regions;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2, rounds = argc > 2 ? atoi(argv[2]) : 31;
  if (threads < 2 || threads > 64) threads = 2;
  if (rounds < 1 || rounds > 10000) rounds = 31;
  ap_port_workers *w = NULL;
  ap_errbuf e = {{0}};
  if (ap_port_workers_create(NULL, threads, &w, &e) != AP_OK) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  calibrate();
  static const uint64_t works[] = {0, 1000, 5000, 20000};
  static const uint64_t gaps[] = {0, 5000, 50000};
  printf("| task work | gap between regions | %d threads, lowest | median | 1 thread (one task "
         "inline), lowest | overhead, lowest | overhead, median |\n",
         threads);
  printf("|---:|---:|---:|---:|---:|---:|---:|\n");
  double *a = calloc((size_t)rounds, sizeof *a), *b = calloc((size_t)rounds, sizeof *b);
  if (!a || !b) return 1;
  for (size_t i = 0; i < sizeof works / sizeof works[0]; i++)
    for (size_t j = 0; j < sizeof gaps / sizeof gaps[0]; j++) {
      spin_ns = works[i];
      int regions = gaps[j] >= 50000 || works[i] >= 20000 ? 100 : 1000;
      for (int r = 0; r < rounds; r++) { /* interleaved: threads, then inline */
        a[r] = batch(w, threads, regions, gaps[j]);
        b[r] = batch(NULL, threads, regions, gaps[j]);
      }
      qsort(a, (size_t)rounds, sizeof *a, bench_cmp_double);
      qsort(b, (size_t)rounds, sizeof *b, bench_cmp_double);
      printf("| %llu ns | %llu ns | %.0f ns | %.0f ns | %.0f ns | %.0f ns | %.0f ns |\n",
             (unsigned long long)works[i], (unsigned long long)gaps[j], a[0], a[rounds / 2], b[0],
             a[0] - b[0], a[rounds / 2] - b[0]);
      fflush(stdout);
    }
  free(a);
  free(b);
  ap_port_workers_destroy(w);
  return 0;
}
