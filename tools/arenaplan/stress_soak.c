/* Threads and soak for `arenaplan stress` (see stress_soak.h). Threads are the tool's: the
 * library only promises that an interpreter is used by one thread at a time and that several
 * interpreters may share a model. */
#include "stress_soak.h"
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REF_SEEDS 8      /* distinct inputs the threads cycle through */
#define SHARED_CALLS 200 /* invokes each thread tries on the shared interpreter */

/* The interpreters' allocator: counts the bytes it has handed out and not had back. */
typedef struct counter {
  atomic_size_t in_use;
  atomic_ullong calls;
} counter;

typedef union block_header {
  size_t size;
  max_align_t align;
} block_header;

static void *count_alloc(void *ctx, size_t n) {
  counter *c = ctx;
  if (n > SIZE_MAX - sizeof(block_header)) return NULL;
  block_header *h = malloc(sizeof *h + n);
  if (!h) return NULL;
  h->size = n;
  atomic_fetch_add(&c->in_use, n);
  atomic_fetch_add(&c->calls, 1);
  return h + 1;
}

static void count_free(void *ctx, void *p) {
  counter *c = ctx;
  if (!p) return;
  block_header *h = (block_header *)p - 1;
  atomic_fetch_sub(&c->in_use, h->size);
  free(h);
}

typedef struct sample {
  double t;
  size_t allocator, heap;
  long rss_kib;
  uint64_t invokes;
} sample;

struct soak;
typedef struct worker {
  struct soak *s;
  ap_interpreter *it;
  uint8_t *out;
  uint64_t invokes, mismatches, failures, ok, busy;
  pthread_t tid;
  bool started;
} worker;

typedef struct soak {
  const soak_config *c;
  counter count;
  ap_allocator alloc;
  uint8_t *ref; /* REF_SEEDS x out_bytes */
  size_t out_bytes, refs;
  worker *w;
  atomic_int stop;
  atomic_uint first_done, finished;
  atomic_int baseline; /* the first sample is taken: workers go on */
  atomic_ullong invokes;
  ap_interpreter *shared;
  atomic_int go; /* the shared phase's start line */
  sample *samples;
  size_t nsamples, max_samples;
} soak;

/* Read with open/read into the stack: fopen would malloc a FILE between the samples it
 * measures (and glibc's tcache keeps that chunk counted as in use). */
static long resident_kib(void) {
  char buf[128];
  int fd = open("/proc/self/statm", O_RDONLY);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  long pages = 0, rss = 0;
  if (sscanf(buf, "%ld %ld", &pages, &rss) != 2) return 0;
  return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* malloc's bytes in use in every arena (mapped chunks included): catches a kernel or custom op
 * that allocates behind the interpreter's allocator. Under a sanitizer malloc is the
 * sanitizer's, which mallinfo2 does not see: ask it instead. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* From the sanitizer runtime (sanitizer/allocator_interface.h, not always installed). */
size_t __sanitizer_get_current_allocated_bytes(void);
static size_t heap_in_use(void) {
  return __sanitizer_get_current_allocated_bytes();
}
#else
static size_t heap_in_use(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}
#endif

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap(double seconds) {
  struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static size_t output_bytes(const ap_interpreter *it) {
  size_t n = 0;
  for (size_t i = 0; i < ap_interpreter_output_count(it); i++) {
    ap_tensor t;
    if (ap_interpreter_output(it, i, &t) == AP_OK) n += t.bytes;
  }
  return n;
}

/* One invoke on input seed k (the run rule), its outputs copied to out. */
static ap_status invoke_seed(const soak *s, ap_interpreter *it, size_t k, uint8_t *out) {
  ap_interpreter_reset_variables(it);
  for (size_t i = 0; i < ap_interpreter_input_count(it); i++) {
    ap_tensor t;
    if (ap_interpreter_input(it, i, &t) == AP_OK) run_fill_random(&t, s->c->seed + k, i);
  }
  ap_status st = ap_interpreter_invoke(it);
  if (st != AP_OK) return st;
  for (size_t i = 0, o = 0; i < ap_interpreter_output_count(it); i++) {
    ap_tensor t;
    if (ap_interpreter_output(it, i, &t) != AP_OK || o + t.bytes > s->out_bytes)
      return AP_ERR_RANGE;
    if (t.bytes) memcpy(out + o, t.data, t.bytes);
    o += t.bytes;
  }
  return AP_OK;
}

static ap_status create(soak *s, bool preserve_all, ap_interpreter **it) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.strategy = s->c->strategy;
  o.allocator = &s->alloc;
  o.custom_ops = s->c->custom_ops;
  o.custom_op_count = s->c->custom_op_count;
  o.preserve_all = preserve_all;
  ap_status st = ap_interpreter_create(s->c->model, &o, it);
  return st == AP_OK ? ap_interpreter_allocate(*it) : st;
}

static void *work(void *arg) {
  worker *w = arg;
  soak *s = w->s;
  for (uint64_t k = 0;; k++) {
    if (s->c->duration > 0 ? atomic_load(&s->stop) != 0 : k >= s->c->iterations) break;
    size_t seed = (size_t)(k % s->refs);
    ap_status st = invoke_seed(s, w->it, seed, w->out);
    w->invokes++;
    atomic_fetch_add(&s->invokes, 1);
    if (st != AP_OK)
      w->failures++;
    else if (memcmp(w->out, s->ref + seed * s->out_bytes, s->out_bytes) != 0)
      w->mismatches++;
    if (k != 0) continue;
    /* Wait for the baseline sample: "after the first invoke" means every thread's. */
    atomic_fetch_add(&s->first_done, 1);
    while (!atomic_load(&s->baseline))
      nap(0.0005);
  }
  if (!w->invokes) atomic_fetch_add(&s->first_done, 1); /* stopped before starting */
  atomic_fetch_add(&s->finished, 1);
  return NULL;
}

/* Every thread hammers the one shared interpreter; a call that finds it busy must say so. */
static void *hammer(void *arg) {
  worker *w = arg;
  soak *s = w->s;
  while (!atomic_load(&s->go)) {
  }
  double end = now_s() + 1; /* a slow model: a second of calls is enough to collide */
  for (int i = 0; i < SHARED_CALLS && now_s() < end; i++) {
    ap_status st = ap_interpreter_invoke(s->shared);
    if (st == AP_OK)
      w->ok++;
    else if (st == AP_ERR_BUSY)
      w->busy++;
    else
      w->failures++;
  }
  return NULL;
}

static void take_sample(soak *s, double t0) {
  if (s->nsamples == s->max_samples) return;
  sample *x = &s->samples[s->nsamples++];
  x->t = now_s() - t0;
  x->allocator = atomic_load(&s->count.in_use);
  x->heap = heap_in_use();
  x->rss_kib = resident_kib();
  x->invokes = atomic_load(&s->invokes);
}

static bool has_variables(const ap_model *m) {
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++) {
      ap_tensor_info ti;
      if (ap_model_tensor(m, sg, t, &ti) == AP_OK && ti.is_variable) return true;
    }
  return false;
}

static int write_csv(const soak *s) {
  FILE *f = fopen(s->c->csv, "w");
  if (!f) return cli_fail(s->c->csv, "cannot write: %s", strerror(errno));
  fprintf(f, "seconds,invokes,allocator_bytes,heap_bytes,resident_kib\n");
  for (size_t i = 0; i < s->nsamples; i++) {
    const sample *x = &s->samples[i];
    fprintf(f, "%.3f,%llu,%zu,%zu,%ld\n", x->t, (unsigned long long)x->invokes, x->allocator,
            x->heap, x->rss_kib);
  }
  if (fclose(f) != 0) return cli_fail(s->c->csv, "cannot write: %s", strerror(errno));
  return AP_EXIT_OK;
}

typedef struct totals {
  uint64_t invokes, mismatches, failures, ok, busy, shared_failures;
  bool shared_checked, shared_equal;
  ap_memory_usage u;
  uint64_t weights, device;
  long long allocator_growth, heap_growth;
  long rss_growth;
  unsigned long long calls_after_first;
  double seconds;
} totals;

static void print(const soak *s, const totals *t, bool clean) {
  const soak_config *c = s->c;
  char b1[64], b2[64], b3[64], b4[64];
  if (c->json) {
    printf("{\n  \"model\": ");
    cli_json_string(stdout, c->path);
    printf(",\n  \"threads\": %u,\n  \"duration_s\": %.3f,\n  \"seconds\": %.3f,\n"
           "  \"invokes\": %llu,\n  \"mismatches\": %llu,\n  \"failed_invokes\": %llu,\n",
           c->threads, c->duration, t->seconds, (unsigned long long)t->invokes,
           (unsigned long long)t->mismatches, (unsigned long long)t->failures);
    printf("  \"weights_bytes\": %llu,\n  \"per_interpreter_bytes\": %llu,\n"
           "  \"arena_bytes\": %llu,\n  \"persistent_bytes\": %llu,\n  \"tables_bytes\": %llu,\n"
           "  \"device_bytes\": %llu,\n",
           (unsigned long long)t->weights, (unsigned long long)t->u.total,
           (unsigned long long)t->u.arena, (unsigned long long)t->u.persistent,
           (unsigned long long)t->u.tables, (unsigned long long)t->device);
    printf("  \"shared\": {\"calls\": %llu, \"ok\": %llu, \"busy\": %llu, \"failed\": %llu, "
           "\"outputs_checked\": %s, \"outputs_equal\": %s},\n",
           (unsigned long long)(t->ok + t->busy + t->shared_failures), (unsigned long long)t->ok,
           (unsigned long long)t->busy, (unsigned long long)t->shared_failures,
           t->shared_checked ? "true" : "false", t->shared_equal ? "true" : "false");
    printf("  \"samples\": %zu,\n  \"allocator_growth_bytes\": %lld,\n"
           "  \"heap_growth_bytes\": %lld,\n  \"resident_growth_kib\": %ld,\n"
           "  \"allocator_calls_after_first_invoke\": %llu,\n  \"pass\": %s\n}\n",
           s->nsamples, t->allocator_growth, t->heap_growth, t->rss_growth, t->calls_after_first,
           clean ? "true" : "false");
    return;
  }
  printf("model:        %s\n", c->path);
  if (c->duration > 0)
    printf("ran:          %u thread%s, one interpreter each, for %.3g s: %llu invokes\n",
           c->threads, c->threads == 1 ? "" : "s", c->duration, (unsigned long long)t->invokes);
  else
    printf("ran:          %u thread%s, one interpreter each, %llu invokes each: %llu invokes\n",
           c->threads, c->threads == 1 ? "" : "s", (unsigned long long)c->iterations,
           (unsigned long long)t->invokes);
  printf("device:       %s = weights %s once (one model, mapped once, shared) + %u x %s (arena "
         "%s B, persistent %llu B, tables %llu B)\n",
         cli_size(b1, sizeof b1, t->device), cli_size(b2, sizeof b2, t->weights), c->threads,
         cli_size(b3, sizeof b3, t->u.total), cli_thousands(b4, sizeof b4, t->u.arena),
         (unsigned long long)t->u.persistent, (unsigned long long)t->u.tables);
  if (t->mismatches || t->failures)
    printf("outputs:      DIFFER from the single-thread run in %llu invokes, %llu failed\n",
           (unsigned long long)t->mismatches, (unsigned long long)t->failures);
  else
    printf("outputs:      every thread's equal the single-thread run's (%zu seeds cycled)\n",
           s->refs);
  if (c->threads > 1) {
    printf("shared:       %u threads calling ONE interpreter (up to %d calls or 1 s each): %llu "
           "ran, %llu refused with AP_ERR_BUSY, %llu failed otherwise",
           c->threads, SHARED_CALLS, (unsigned long long)t->ok, (unsigned long long)t->busy,
           (unsigned long long)t->shared_failures);
    if (t->shared_checked)
      printf("; outputs %s\n", t->shared_equal ? "intact" : "CORRUPT");
    else
      printf("; outputs not compared (the model has variable tensors)\n");
  }
  printf("memory:       %s after the first invoke over %zu samples: allocator %+lld B, malloc "
         "%+lld B, resident set %+ld KiB (pages: shown, not judged)\n",
         t->allocator_growth > 0 || t->heap_growth > 0 ? "GREW" : "flat", s->nsamples,
         t->allocator_growth, t->heap_growth, t->rss_growth);
  if (t->calls_after_first)
    printf("              %llu allocator calls after the first invoke\n", t->calls_after_first);
  if (c->csv) printf("curve:        %s (%zu samples)\n", c->csv, s->nsamples);
  printf("verdict:      %s\n", clean ? "pass" : "FAIL");
}

static uint64_t weights_of(const ap_model *m, const char *strategy) {
  ap_report *r = NULL;
  ap_report_options o = {.strategy = strategy};
  uint64_t w = 0;
  if (ap_report_create(m, &o, NULL, &r) == AP_OK) w = ap_report_estimate(r)->weights;
  ap_report_destroy(r);
  return w;
}

static int shared_phase(soak *s, totals *t) {
  const soak_config *c = s->c;
  if (c->threads < 2) return AP_EXIT_OK;
  if (create(s, true, &s->shared) != AP_OK)
    return cli_fail(c->path, "%s", cli_unprefixed(c->path, ap_interpreter_error(s->shared)));
  uint8_t *out = malloc(s->out_bytes + 1);
  if (!out) return cli_fail(c->path, "out of memory");
  /* No reuse (preserve_all) keeps the inputs intact, so every invoke computes the same. */
  ap_status st = invoke_seed(s, s->shared, 0, out);
  unsigned started = 0;
  for (unsigned i = 0; st == AP_OK && i < c->threads; i++) {
    s->w[i].ok = s->w[i].busy = s->w[i].failures = 0;
    if (pthread_create(&s->w[i].tid, NULL, hammer, &s->w[i]) != 0) break;
    started++;
  }
  atomic_store(&s->go, 1);
  for (unsigned i = 0; i < started; i++) {
    pthread_join(s->w[i].tid, NULL);
    t->ok += s->w[i].ok;
    t->busy += s->w[i].busy;
    t->shared_failures += s->w[i].failures;
  }
  t->shared_checked = !has_variables(c->model) && st == AP_OK;
  if (t->shared_checked) {
    for (size_t i = 0, o = 0; i < ap_interpreter_output_count(s->shared); i++) {
      ap_tensor x;
      if (ap_interpreter_output(s->shared, i, &x) == AP_OK && x.bytes)
        memcpy(out + o, x.data, x.bytes);
      o += x.bytes;
    }
    t->shared_equal = memcmp(out, s->ref, s->out_bytes) == 0;
  }
  free(out);
  if (st != AP_OK)
    return cli_fail(c->path, "%s", cli_unprefixed(c->path, ap_interpreter_error(s->shared)));
  if (started < c->threads) return cli_fail(c->path, "cannot start %u threads", c->threads);
  return AP_EXIT_OK;
}

static int prepare(soak *s) {
  const soak_config *c = s->c;
  ap_interpreter *ref = NULL;
  if (create(s, false, &ref) != AP_OK) {
    int rc = cli_fail(c->path, "%s",
                      ref ? cli_unprefixed(c->path, ap_interpreter_error(ref)) : "out of memory");
    ap_interpreter_destroy(ref);
    return rc;
  }
  s->out_bytes = output_bytes(ref);
  s->refs = c->duration > 0 || c->iterations > REF_SEEDS ? REF_SEEDS : (size_t)c->iterations;
  if (!s->refs) s->refs = 1;
  s->ref = malloc(s->refs * s->out_bytes + 1);
  if (!s->ref) {
    ap_interpreter_destroy(ref);
    return cli_fail(c->path, "out of memory");
  }
  for (size_t k = 0; k < s->refs; k++) {
    if (invoke_seed(s, ref, k, s->ref + k * s->out_bytes) == AP_OK) continue;
    int rc = cli_fail(c->path, "%s", cli_unprefixed(c->path, ap_interpreter_error(ref)));
    ap_interpreter_destroy(ref);
    return rc;
  }
  ap_interpreter_destroy(ref);
  for (unsigned i = 0; i < c->threads; i++) {
    worker *w = &s->w[i];
    w->s = s;
    w->out = malloc(s->out_bytes + 1);
    if (!w->out) return cli_fail(c->path, "out of memory");
    if (create(s, false, &w->it) != AP_OK)
      return cli_fail(c->path, "%s",
                      w->it ? cli_unprefixed(c->path, ap_interpreter_error(w->it))
                            : "out of memory");
  }
  return AP_EXIT_OK;
}

/* Starts the workers, samples memory every second from the first invokes' end to the
 * deadline, stops them and takes the last sample before they are joined. */
static int soak_threads(soak *s, totals *t) {
  const soak_config *c = s->c;
  unsigned started = 0;
  double t_start = now_s();
  for (unsigned i = 0; i < c->threads; i++) {
    if (pthread_create(&s->w[i].tid, NULL, work, &s->w[i]) != 0) break;
    s->w[i].started = true;
    started++;
  }
  if (started < c->threads) atomic_store(&s->stop, 1);
  while (atomic_load(&s->first_done) + (c->threads - started) < c->threads)
    nap(0.001);
  double t0 = now_s();
  take_sample(s, t0);
  unsigned long long calls0 = atomic_load(&s->count.calls);
  atomic_store(&s->baseline, 1);
  if (c->duration > 0) {
    for (double next = 1; next < c->duration && atomic_load(&s->finished) < started; next++) {
      double wait = t0 + next - now_s();
      if (wait > 0) nap(wait);
      take_sample(s, t0);
    }
    double left = t0 + c->duration - now_s();
    if (left > 0) nap(left);
    atomic_store(&s->stop, 1);
  }
  while (atomic_load(&s->finished) < started)
    nap(0.001);
  take_sample(s, t0);
  t->seconds = now_s() - t_start;
  t->calls_after_first = atomic_load(&s->count.calls) - calls0;
  for (unsigned i = 0; i < started; i++) {
    pthread_join(s->w[i].tid, NULL);
    t->invokes += s->w[i].invokes;
    t->mismatches += s->w[i].mismatches;
    t->failures += s->w[i].failures;
  }
  const sample *a = &s->samples[0], *b = &s->samples[s->nsamples - 1];
  t->allocator_growth = (long long)b->allocator - (long long)a->allocator;
  t->heap_growth = (long long)b->heap - (long long)a->heap;
  t->rss_growth = b->rss_kib - a->rss_kib;
  if (started < c->threads) return cli_fail(c->path, "cannot start %u threads", c->threads);
  return AP_EXIT_OK;
}

int soak_run(const soak_config *c) {
  if (!c || !c->model || c->threads < 1 || c->threads > SOAK_MAX_THREADS || c->duration < 0 ||
      c->duration > SOAK_MAX_DURATION)
    return cli_fail("stress", "bad thread count or duration");
  soak *s = calloc(1, sizeof *s);
  if (!s) return cli_fail(c->path, "out of memory");
  s->c = c;
  s->alloc = (ap_allocator){count_alloc, count_free, &s->count};
  s->w = calloc(c->threads, sizeof *s->w);
  s->max_samples = (size_t)c->duration + 3;
  s->samples = calloc(s->max_samples, sizeof *s->samples);
  totals t = {0};
  int rc = s->w && s->samples ? prepare(s) : cli_fail(c->path, "out of memory");
  if (rc == AP_EXIT_OK) {
    ap_interpreter_memory(s->w[0].it, &t.u);
    t.weights = weights_of(c->model, c->strategy);
    t.device = t.weights + (uint64_t)c->threads * t.u.total;
    rc = soak_threads(s, &t);
  }
  if (rc == AP_EXIT_OK) rc = shared_phase(s, &t);
  if (rc == AP_EXIT_OK && c->csv) rc = write_csv(s);
  if (rc == AP_EXIT_OK) {
    bool clean = !t.mismatches && !t.failures && t.allocator_growth <= 0 && t.heap_growth <= 0 &&
                 !t.shared_failures && (!t.shared_checked || t.shared_equal);
    print(s, &t, clean);
    rc = clean ? AP_EXIT_OK : AP_EXIT_CHECK;
  }
  for (unsigned i = 0; s->w && i < c->threads; i++) {
    ap_interpreter_destroy(s->w[i].it);
    free(s->w[i].out);
  }
  ap_interpreter_destroy(s->shared);
  free(s->w);
  free(s->samples);
  free(s->ref);
  free(s);
  return rc;
}
