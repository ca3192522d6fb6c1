/* How evenly 2 threads share an invoke's work, counted in instructions (issue 29): a machine
 * shared with other work cannot time a 2-thread run fairly, but valgrind can count what each
 * piece of each parallel region costs. Run under callgrind (bench/threads_balance.sh does):
 * every model is invoked with 1 thread and with THREADS threads; during the measured invoke
 * the parallel regions run their pieces one after the other on the caller (the link wraps
 * ap_port_workers_run and _run_slots), and a dump after each piece and around each op (the
 * profile's clock reads, also wrapped) gives callgrind's instruction count of every piece and
 * of every op's serial part. The script then plays the worker group's claim rule over those
 * counts (each thread its own contiguous range first, then the others' backs) for threads of
 * equal speed: the ideal 2-thread ratio, before any wake-up or cache cost.
 *
 *   valgrind --tool=callgrind --separate-threads=yes bench_threads_balance \
 *       [--kernels fast|auto] [--threads N] [--no-inplace] [--floor WORK]
 *       MODEL...
 * Dump names: "ap op MODEL T K" (op K's serial part since the last dump), "ap piece MODEL T K
 * I N S" (piece I of N of a region of op K, thread S's by the static ranges). */
#include "bench_run.h"
#include "port/port.h"

#include <stdlib.h>
#include <valgrind/callgrind.h>

/* While set, regions run inline with a dump per piece; the label names the model and threads.
 * Formatting a label (snprintf, some 1,500 instructions) runs with callgrind's collection off
 * (LABEL): counted, it landed in the piece or serial part it follows, 1.5 k instructions a
 * piece and 3 k a split op's serial part that the library never executes (mlperf_ic_resnet_int8:
 * 4.09 M instructions on 2 threads, 3.77 M of them the library's). */
#define LABEL(buf, ...)                                                                            \
  do {                                                                                             \
    CALLGRIND_TOGGLE_COLLECT;                                                                      \
    snprintf(buf, sizeof buf, __VA_ARGS__);                                                        \
    CALLGRIND_TOGGLE_COLLECT;                                                                      \
  } while (0)
static const char *trace_model;
static int trace_threads, trace_calls;
static bool inplace = true;
static uint64_t floor_work; /* --floor: ap_fast_tasks's parallel_min (0: the library's) */

uint64_t __real_ap_port_now_ns(void);
void __real_ap_port_workers_run(ap_port_workers *w, ap_port_task fn, void *arg, int n);
void __real_ap_port_workers_run_slots(ap_port_workers *w, ap_port_slot_task fn, void *arg, int n);

/* The work only meets the floor in ap_fast_tasks: above --floor it passes any floor, below
 * none. (ap_kexec stays opaque: kernels.h's names clash with the public headers'.) */
struct ap_kexec;
int __real_ap_fast_tasks(const struct ap_kexec *x, uint64_t work, int64_t units);
int __wrap_ap_fast_tasks(const struct ap_kexec *x, uint64_t work, int64_t units) {
  if (floor_work) work = work >= floor_work ? UINT64_MAX / 2 : 0;
  return __real_ap_fast_tasks(x, work, units);
}

/* The profile reads the clock before and after each op: dumping there splits the ops. */
uint64_t __wrap_ap_port_now_ns(void) {
  if (trace_model) {
    char label[256];
    int k = trace_calls++;
    LABEL(label, "ap %s %s %d %d", k % 2 ? "op" : "gap", trace_model, trace_threads, k / 2);
    CALLGRIND_DUMP_STATS_AT(label);
  }
  return __real_ap_port_now_ns();
}

static void pieces(ap_port_workers *w, ap_port_task fn, ap_port_slot_task slot_fn, void *arg,
                   int n) {
  char label[256];
  int op = trace_calls / 2, t = ap_port_workers_count(w);
  LABEL(label, "ap pre %s %d %d", trace_model, trace_threads, op);
  CALLGRIND_DUMP_STATS_AT(label);
  for (int s = 0; s < t; s++) {
    /* slot s's static range, as port_thread_posix.c cuts it */
    int f = (int)(((int64_t)s * n + t - 1) / t), b = (int)(((int64_t)(s + 1) * n + t - 1) / t);
    for (int i = f; i < b; i++) {
      if (slot_fn)
        slot_fn(arg, i, s);
      else
        fn(arg, i);
      LABEL(label, "ap piece %s %d %d %d %d %d", trace_model, trace_threads, op, i, n, s);
      CALLGRIND_DUMP_STATS_AT(label);
    }
  }
}

void __wrap_ap_port_workers_run(ap_port_workers *w, ap_port_task fn, void *arg, int n) {
  if (trace_model && n > 1)
    pieces(w, fn, NULL, arg, n);
  else
    __real_ap_port_workers_run(w, fn, arg, n);
}

void __wrap_ap_port_workers_run_slots(ap_port_workers *w, ap_port_slot_task fn, void *arg, int n) {
  if (trace_model && n > 1)
    pieces(w, NULL, fn, arg, n);
  else
    __real_ap_port_workers_run_slots(w, fn, arg, n);
}

static bool measure(const ap_model *m, const char *name, int kernels, int threads) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.kernels = kernels;
  o.threads = threads;
  o.prepare = AP_PREPARE_ONCE;
  o.inplace = inplace;
  ap_interpreter *it = bench_interpreter(m, name, o);
  /* as many entries as ops: invoke clears them, which the counts then include */
  static uint64_t prof[4096];
  size_t ops = ap_model_op_count(m, 0);
  if (!it || ops > sizeof prof / sizeof prof[0] ||
      ap_interpreter_set_profile(it, prof, ops) != AP_OK) {
    fprintf(stderr, "%s: does not allocate with %d threads\n", name, threads);
    ap_interpreter_destroy(it);
    return false;
  }
  bool ok = ap_interpreter_invoke(it) == AP_OK; /* warm: caches, lazily built tables */
  trace_model = name;
  trace_threads = threads;
  trace_calls = 0;
  CALLGRIND_DUMP_STATS_AT("ap skip");
  ok = ok && ap_interpreter_invoke(it) == AP_OK;
  CALLGRIND_DUMP_STATS_AT("ap skip");
  trace_model = NULL;
  printf("%s %d threads: %s, %d ops\n", name, threads, ok ? "ran" : "FAILED", trace_calls / 2);
  ap_interpreter_destroy(it);
  return ok;
}

int main(int argc, char **argv) {
  ap_test_require_shared();
  int kernels = AP_KERNELS_FAST, threads = 2, bad = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--kernels") == 0 && i + 1 < argc) {
      kernels = strcmp(argv[++i], "auto") == 0 ? AP_KERNELS_AUTO : AP_KERNELS_FAST;
    } else if (strcmp(argv[i], "--floor") == 0 && i + 1 < argc) {
      floor_work = strtoull(argv[++i], NULL, 10);
    } else if (strcmp(argv[i], "--no-inplace") == 0) {
      inplace = false;
    } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = atoi(argv[++i]);
      if (threads < 2 || threads > 64) threads = 2;
    } else {
      ap_model *m = rt_load(argv[i]);
      bad += !m || !measure(m, argv[i], kernels, 1) || !measure(m, argv[i], kernels, threads);
      ap_model_destroy(m);
    }
  }
  return bad ? 1 : 0;
}
