/* arenaplan stress: the smallest caller-owned buffer that really works, found the way users do
 * it by hand (shrink until allocate fails, then bisect), with every allocation checked by
 * seeded random invokes against a reference run in a naive (no reuse) plan. Public runtime API
 * only. */
#include "commands.h"
#include "real.h"
#include "stress_soak.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run(int argc, char **argv);

const ap_command cmd_stress = {
    "stress", "find the smallest working buffer by allocating and running the model", run,
    "usage: arenaplan stress MODEL [options]\n"
    "  --iterations N  seeded random invokes per size tried (default 100)\n"
    "  --seed S        the first input seed (default 1)\n"
    "  --start SIZE    the first size to try (default: the smallest buffer the report measures)\n"
    "  --strategy S    the runtime's strategy (default best)\n"
    "  --threads N     N threads, one interpreter each over the one loaded model, invoking\n"
    "                  concurrently (outputs checked against one thread's), then the N threads\n"
    "                  calling ONE shared interpreter (AP_ERR_BUSY counted, outputs checked)\n"
    "  --duration SECONDS  keep invoking for SECONDS, sampling the allocator's and malloc's\n"
    "                  bytes in use and the resident set every second\n"
    "  --csv FILE      with --threads/--duration: write the samples (seconds, invokes,\n"
    "                  allocator_bytes, heap_bytes, resident_kib)\n"
    "  --json          machine-readable output\n"
    "Without --threads or --duration: starts from the planned size, tries it scaled by 0.9, 0.8, "
    "... until allocate fails, then\n"
    "bisects for the smallest caller-owned buffer (ap_interpreter_options.arena) with which\n"
    "allocate succeeds and every invoke's outputs are bit-identical to a reference run in a\n"
    "naive plan. Reports that red line, a recommended size (+10%), whether invoke allocated,\n"
    "and whether the process's resident memory grew across the sizes tried.\n"
    "With --threads or --duration (default 1 thread; --iterations invokes each without a\n"
    "duration): reports the device total (weights once + N x (arena + persistent + tables)),\n"
    "whether every output equals the single-thread run, and whether memory grew after the\n"
    "first invoke (allocator or malloc bytes in use; the resident set is shown, not judged).\n"
    "Exit 1 when outputs differ, invoke allocates or memory grows; 2 when the runtime cannot\n"
    "run the model.\n"};

typedef struct stress {
  const ap_model *m;
  const char *strategy;
  uint64_t iters, seed;
  uint8_t *ref; /* iters x out_bytes: the reference outputs */
  size_t out_bytes;
  bool counting; /* count allocator calls (during invoke only) */
  uint64_t allocs_in_invoke, invokes, probes, mismatches;
  uint64_t mismatch_size;
  bool tty;
  bool measure; /* record the resident set around a probe's invokes */
  long rss_before, rss_after;
  size_t heap_before, heap_after; /* malloc's bytes in use, mapped chunks included */
} stress;

static void *count_alloc(void *ctx, size_t n) {
  stress *s = ctx;
  if (s->counting) s->allocs_in_invoke++;
  return malloc(n);
}
static void count_free(void *ctx, void *p) {
  (void)ctx;
  free(p);
}

static uint64_t next(uint64_t *x) { /* xorshift64*: seeded, the same inputs every run */
  *x ^= *x >> 12;
  *x ^= *x << 25;
  *x ^= *x >> 27;
  return *x * 2685821657736338717ull;
}

/* Inputs from the seed: floats in [-1, 1), integers and bytes uniformly random. */
static void fill_inputs(ap_interpreter *it, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < ap_interpreter_input_count(it); i++) {
    ap_tensor tv, *t = &tv;
    if (ap_interpreter_input(it, i, t) != AP_OK || !t->data) continue;
    if (t->type == AP_FLOAT32) {
      float *f = t->data;
      for (size_t k = 0; k < t->bytes / 4; k++)
        f[k] = (float)((double)(next(&x) >> 11) / (double)(1ull << 53) * 2.0 - 1.0);
    } else if (t->type == AP_BOOL) {
      for (size_t k = 0; k < t->bytes; k++)
        ((uint8_t *)t->data)[k] = (uint8_t)(next(&x) & 1);
    } else {
      for (size_t k = 0; k < t->bytes; k++)
        ((uint8_t *)t->data)[k] = (uint8_t)(next(&x) >> 56);
    }
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

/* One invoke on seed k; its outputs into out. */
static ap_status invoke(stress *s, ap_interpreter *it, uint64_t k, uint8_t *out) {
  ap_interpreter_reset_variables(it);
  fill_inputs(it, s->seed + k);
  s->counting = true;
  ap_status st = ap_interpreter_invoke(it);
  s->counting = false;
  s->invokes++;
  if (st != AP_OK) return st;
  for (size_t i = 0, o = 0; i < ap_interpreter_output_count(it); i++) {
    ap_tensor t;
    if (ap_interpreter_output(it, i, &t) != AP_OK) return AP_ERR_RANGE;
    memcpy(out + o, t.data, t.bytes);
    o += t.bytes;
  }
  return AP_OK;
}

static int reference(stress *s) {
  ap_allocator a = {count_alloc, count_free, s};
  ap_interpreter_options o = ap_interpreter_defaults();
  o.strategy = "naive";
  o.allocator = &a;
  ap_interpreter *it = NULL;
  int rc = AP_EXIT_OK;
  if (ap_interpreter_create(s->m, &o, &it) != AP_OK || ap_interpreter_allocate(it) != AP_OK) {
    rc = cli_fail(ap_model_path(s->m), "the runtime cannot allocate this model: %s",
                  ap_interpreter_error(it));
    goto done;
  }
  s->out_bytes = output_bytes(it);
  s->ref = malloc(s->iters * s->out_bytes + 1);
  if (!s->ref) {
    rc = cli_fail(ap_model_path(s->m), "out of memory for %llu reference outputs",
                  (unsigned long long)s->iters);
    goto done;
  }
  for (uint64_t k = 0; k < s->iters; k++)
    if (invoke(s, it, k, s->ref + k * s->out_bytes) != AP_OK) {
      rc = cli_fail(ap_model_path(s->m), "the reference invoke %llu failed: %s",
                    (unsigned long long)k, ap_interpreter_error(it));
      break;
    }
done:
  ap_interpreter_destroy(it);
  return rc;
}

static long resident_kib(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long pages = 0, rss = 0;
  if (f && fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0;
  if (f) fclose(f);
  return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Every byte malloc has handed out and not had back: exact, where the resident set moves by
 * whole pages for reasons of its own (first touches, the kernel's page handling). */
static size_t heap_in_use(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

/* Does a buffer of `size` bytes work? Allocate in it, then every seeded invoke must match. */
static bool probe(stress *s, uint64_t size) {
  s->probes++;
  if (s->tty)
    fprintf(stderr, "\rarenaplan: stress: try %zu: %llu bytes ...          ", (size_t)s->probes,
            (unsigned long long)size);
  uint8_t *raw = malloc(size + 16), *out = malloc(s->out_bytes + 1);
  ap_allocator a = {count_alloc, count_free, s};
  ap_interpreter_options o = ap_interpreter_defaults();
  o.strategy = s->strategy;
  o.allocator = &a;
  o.arena = raw ? raw + (16 - (uintptr_t)raw % 16) % 16 : NULL;
  o.arena_size = (size_t)size;
  ap_interpreter *it = NULL;
  bool ok = raw && out && ap_interpreter_create(s->m, &o, &it) == AP_OK &&
            ap_interpreter_allocate(it) == AP_OK;
  for (uint64_t k = 0; ok && k < s->iters; k++) {
    /* From after the first invoke: it touches the arena's pages for the first time. */
    if (s->measure && k == 1) {
      s->rss_before = resident_kib();
      s->heap_before = heap_in_use();
    }
    if (invoke(s, it, k, out) != AP_OK ||
        memcmp(out, s->ref + k * s->out_bytes, s->out_bytes) != 0) {
      ok = false;
      s->mismatches++;
      if (!s->mismatch_size || size > s->mismatch_size) s->mismatch_size = size;
    }
  }
  if (s->measure) {
    s->heap_after = s->iters > 1 ? heap_in_use() : s->heap_before;
    s->rss_after = s->iters > 1 ? resident_kib() : s->rss_before;
  }
  ap_interpreter_destroy(it);
  free(out);
  free(raw);
  return ok;
}

/* The planned size: the smallest buffer the report measures. */
static uint64_t planned(stress *s) {
  ap_report *r = NULL;
  ap_report_options o = {.strategy = s->strategy};
  uint64_t b = 0;
  if (ap_report_create(s->m, &o, NULL, &r) == AP_OK) b = ap_report_estimate(r)->buffer;
  ap_report_destroy(r);
  return b;
}

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_stress, argc, argv)) return AP_EXIT_OK;
  stress s = {.strategy = "best", .iters = 100, .seed = 1, .tty = isatty(2)};
  const char *path = NULL, *v;
  uint64_t start = 0, threads = 0;
  double duration = 0;
  const char *csv = NULL;
  bool json = false, iters_given = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--iterations") == 0) {
      if (!(v = cli_value(&cmd_stress, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_uint(v, 1000000, &s.iters) || s.iters == 0)
        return cli_usage_error(&cmd_stress, "--iterations \"%s\": expected 1 to 1000000", v);
      iters_given = true;
    } else if (strcmp(argv[i], "--seed") == 0) {
      if (!(v = cli_value(&cmd_stress, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_uint(v, UINT64_MAX / 2, &s.seed))
        return cli_usage_error(&cmd_stress, "--seed \"%s\": expected an integer", v);
    } else if (strcmp(argv[i], "--start") == 0) {
      if (!(v = cli_value(&cmd_stress, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_size(v, &start) || start == 0 || start > ((uint64_t)1 << 40))
        return cli_usage_error(&cmd_stress, "--start \"%s\": expected a size like 96K", v);
    } else if (strcmp(argv[i], "--strategy") == 0) {
      if (!(v = cli_value(&cmd_stress, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_check_strategy(&cmd_stress, v)) return AP_EXIT_USAGE;
      s.strategy = v;
    } else if (strcmp(argv[i], "--threads") == 0) {
      if (!(v = cli_value(&cmd_stress, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_uint(v, SOAK_MAX_THREADS, &threads) || threads == 0)
        return cli_usage_error(&cmd_stress, "--threads \"%s\": expected 1 to %d", v,
                               SOAK_MAX_THREADS);
    } else if (strcmp(argv[i], "--duration") == 0) {
      if (!(v = cli_value(&cmd_stress, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_real(v, 0, SOAK_MAX_DURATION, &duration) || !(duration >= 0.001))
        return cli_usage_error(&cmd_stress,
                               "--duration \"%s\": expected seconds from 0.001 to %.0f", v,
                               SOAK_MAX_DURATION);
    } else if (strcmp(argv[i], "--csv") == 0) {
      if (!(csv = cli_value(&cmd_stress, argc, argv, &i))) return AP_EXIT_USAGE;
    } else if (strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_usage_error(&cmd_stress, "unknown option %s", argv[i]);
    } else if (!path) {
      path = argv[i];
    } else {
      return cli_usage_error(&cmd_stress, "one model at a time (got \"%s\" too)", argv[i]);
    }
  }
  if (!path) return cli_usage_error(&cmd_stress, "no model given");
  bool soak = threads || duration > 0;
  if (csv && !soak) return cli_usage_error(&cmd_stress, "--csv needs --threads or --duration");
  if (soak && start)
    return cli_usage_error(&cmd_stress, "--start is the buffer search's; --threads and "
                                        "--duration do not search");
  ap_model *m = cli_open_model(path);
  if (!m) return AP_EXIT_USAGE;
  if (soak) {
    soak_config c = {.model = m,
                     .path = path,
                     .strategy = s.strategy,
                     .threads = threads ? (unsigned)threads : 1,
                     .duration = duration,
                     .iterations = iters_given ? s.iters : 100,
                     .seed = s.seed,
                     .csv = csv,
                     .json = json};
    int rc = soak_run(&c);
    ap_model_destroy(m);
    return rc;
  }
  s.m = m;
  int rc = reference(&s);
  if (rc != AP_EXIT_OK) goto done;
  uint64_t plan = planned(&s), hi = start ? start : plan;
  if (!hi) {
    rc = cli_fail(path, "the runtime cannot allocate this model in a caller-owned buffer");
    goto done;
  }
  /* Upwards first when the start is too small (a --start below the need). */
  bool works = false;
  for (int k = 0; k < 40 && !(works = probe(&s, hi)); k++)
    hi += hi / 10 + 16;
  if (!works) {
    if (s.tty) fprintf(stderr, "\n");
    rc = s.mismatches ? AP_EXIT_CHECK
                      : cli_fail(path, "no size up to %llu bytes works", (unsigned long long)hi);
    if (s.mismatches)
      fprintf(stderr, "arenaplan: %s: outputs differ from the naive run (%llu invokes)\n", path,
              (unsigned long long)s.mismatches);
    goto done;
  }
  uint64_t lo = 0; /* the largest size known to fail (0: none yet) */
  for (int k = 9; k >= 1; k--) {
    uint64_t size = hi * (uint64_t)k / 10;
    if (!probe(&s, size)) {
      lo = size;
      break;
    }
    hi = size;
  }
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (probe(&s, mid))
      hi = mid;
    else
      lo = mid;
  }
  /* Once more at the red line, watching the resident set across its invokes: an invoke that
   * leaks or grows a cache shows here. */
  s.measure = true;
  probe(&s, hi);
  s.measure = false;
  long growth = s.rss_after - s.rss_before;
  long long heap_growth = (long long)s.heap_after - (long long)s.heap_before;
  if (s.tty) fprintf(stderr, "\r%70s\r", "");
  uint64_t recommended = hi + hi / 10;
  recommended = (recommended + 15) / 16 * 16;
  bool clean = s.allocs_in_invoke == 0 && s.mismatches == 0 && heap_growth <= 0;
  char b1[64], b2[64];
  if (json) {
    printf("{\n  \"schema_version\": 1,\n  \"model\": ");
    cli_json_string(stdout, path);
    printf(",\n  \"strategy\": \"%s\",\n  \"iterations\": %llu,\n  \"seed\": %llu,\n"
           "  \"planned_bytes\": %llu,\n  \"red_line_bytes\": %llu,\n  \"recommended_bytes\": %llu,"
           "\n  \"sizes_tried\": %llu,\n  \"invokes\": %llu,\n  \"allocations_in_invoke\": %llu,\n"
           "  \"mismatches\": %llu,\n  \"heap_growth_bytes\": %lld,\n"
           "  \"resident_growth_kib\": %ld\n}\n",
           s.strategy, (unsigned long long)s.iters, (unsigned long long)s.seed,
           (unsigned long long)plan, (unsigned long long)hi, (unsigned long long)recommended,
           (unsigned long long)s.probes, (unsigned long long)s.invokes,
           (unsigned long long)s.allocs_in_invoke, (unsigned long long)s.mismatches, heap_growth,
           growth);
  } else {
    printf("model:        %s\n", path);
    printf("checked:      %llu seeded invokes per size (seed %llu) against a naive-plan run\n",
           (unsigned long long)s.iters, (unsigned long long)s.seed);
    printf("planned:      %s  (the smallest buffer `arenaplan report` measures)\n",
           cli_size(b1, sizeof b1, plan));
    printf("red line:     %s  (smallest that allocates and matches; %llu sizes tried)\n",
           cli_size(b1, sizeof b1, hi), (unsigned long long)s.probes);
    printf("recommended:  %s  (red line + 10%%, 16-byte multiple)\n",
           cli_size(b2, sizeof b2, recommended));
    printf("invoke:       %llu allocator calls in %llu invokes%s\n",
           (unsigned long long)s.allocs_in_invoke, (unsigned long long)s.invokes,
           s.allocs_in_invoke ? "  (invoke must not allocate)" : "");
    if (s.mismatches)
      printf("outputs:      DIFFER from the naive run in %llu invokes (largest size: %llu B)\n",
             (unsigned long long)s.mismatches, (unsigned long long)s.mismatch_size);
    else
      printf("outputs:      bit-identical to the naive run at every size that allocated\n");
    if (heap_growth > 0)
      printf("memory:       GREW: malloc's bytes in use +%lld over invokes 2..%llu at the red line"
             "\n              (resident set %+ld KiB)\n",
             heap_growth, (unsigned long long)s.iters, growth);
    else
      printf("memory:       no growth over invokes 2..%llu at the red line (malloc's bytes in use"
             "\n              unchanged; resident set %+ld KiB, whole pages)\n",
             (unsigned long long)s.iters, growth);
  }
  rc = clean ? AP_EXIT_OK : AP_EXIT_CHECK;
done:
  free(s.ref);
  ap_model_destroy(m);
  return rc;
}
