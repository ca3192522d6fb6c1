/* arenaplan pool: several models under one memory budget. Without --trace: what each model
 * costs resident and which resident sets fit. With --trace: a replay of requests through the
 * real pool (ap_pool_*), with real invokes. */
#include "commands.h"
#include "kernels_cli.h"
#include "pool_replay.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const ap_command cmd_pool = {
    "pool", "several models under one memory budget: costs, resident sets, trace replay", run,
    "usage: arenaplan pool --budget SIZE [options] MODEL...\n"
    "  --budget SIZE        bytes all resident models may take together (76800, 75K, 1.5M)\n"
    "  --trace TRACE.csv    replay requests, one \"time_ms,model\" line each (a first line\n"
    "                       \"time_ms,model\" is a header), through the real pool with real\n"
    "                       invokes on seeded random inputs\n"
    "  --idle SECONDS       with --trace: unload a model idle this long (default 60)\n"
    "  --seed S             with --trace: request i's inputs use seed S + i (default 1)\n"
    "  --strategy S         naive, linear, tflm, tflite, ..., best (default)\n" CLI_KERNELS_USAGE
    "  --json               machine-readable output\n"
    "\n"
    "A model's name is its file name without the directory and .tflite. Its cost: the file\n"
    "(mapped once, shared), the model handle, and per interpreter the buffer holding its\n"
    "arena, persistent state and tables, as an allocate measures them.\n"
    "The replay is deterministic: time_ms is the pool's clock for idle unloading (not real\n"
    "time), so loads and unloads depend on the trace alone; latencies (acquire + invoke +\n"
    "release, percentiles by nearest rank) are real time.\n"
    "exit status: 0 all fit resident (or the replay ran); 1 not all fit at once (the pool\n"
    "loads them on demand), or a model alone exceeds the budget; 2 bad usage, unreadable\n"
    "model, malformed trace\n"};

#define MAX_MODELS 256

typedef struct pool_args {
  const char *models[MAX_MODELS];
  char *names[MAX_MODELS];
  size_t count;
  const char *trace, *strategy;
  uint64_t budget, idle_ms, seed;
  bool has_budget, has_idle, json;
  cli_kernels kernels; /* the interpreters' */
} pool_args;

static bool parse_seconds(const char *s, uint64_t *ms) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end || !isfinite(v) || v < 0 || v > 1e9) return false;
  *ms = (uint64_t)llround(v * 1000.0);
  return true;
}

/* "dir/micro_speech_int8.tflite" -> "micro_speech_int8". */
static char *model_name(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (n > 7 && strcmp(base + n - 7, ".tflite") == 0) n -= 7;
  char *name = malloc(n + 1);
  if (name) {
    memcpy(name, base, n);
    name[n] = 0;
  }
  return name;
}

static int parse(int argc, char **argv, pool_args *a) {
  a->idle_ms = 60000;
  a->seed = 1;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    int k = cli_kernels_arg(&cmd_pool, argc, argv, &i, &a->kernels);
    if (k < 0) return AP_EXIT_USAGE;
    if (k > 0) continue;
    if (strcmp(arg, "--budget") == 0) {
      if (!(v = cli_value(&cmd_pool, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_size(v, &a->budget) || a->budget == 0)
        return cli_usage_error(&cmd_pool,
                               "--budget \"%s\": expected a size above 0, like 76800, "
                               "75K, 1.5M",
                               v);
      a->has_budget = true;
    } else if (strcmp(arg, "--idle") == 0) {
      if (!(v = cli_value(&cmd_pool, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!parse_seconds(v, &a->idle_ms))
        return cli_usage_error(&cmd_pool, "--idle \"%s\": expected seconds (0 to 1e9)", v);
      a->has_idle = true;
    } else if (strcmp(arg, "--seed") == 0) {
      if (!(v = cli_value(&cmd_pool, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_uint(v, UINT64_MAX / 2, &a->seed))
        return cli_usage_error(&cmd_pool, "--seed \"%s\": expected a non-negative integer", v);
    } else if (strcmp(arg, "--trace") == 0) {
      if (!(a->trace = cli_value(&cmd_pool, argc, argv, &i))) return AP_EXIT_USAGE;
    } else if (strcmp(arg, "--strategy") == 0) {
      if (!(a->strategy = cli_value(&cmd_pool, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_check_strategy(&cmd_pool, a->strategy)) return AP_EXIT_USAGE;
    } else if (strcmp(arg, "--json") == 0) {
      a->json = true;
    } else if (arg[0] == '-' && arg[1]) {
      return cli_usage_error(&cmd_pool, "unknown option %s", arg);
    } else if (a->count == MAX_MODELS) {
      return cli_usage_error(&cmd_pool, "at most %d models", MAX_MODELS);
    } else {
      a->models[a->count++] = arg;
    }
  }
  if (!a->has_budget) return cli_usage_error(&cmd_pool, "--budget SIZE is required");
  if (a->count == 0) return cli_usage_error(&cmd_pool, "no model given");
  if (a->has_idle && !a->trace)
    return cli_usage_error(&cmd_pool, "--idle applies to a --trace replay");
  for (size_t i = 0; i < a->count; i++) {
    if (!(a->names[i] = model_name(a->models[i]))) return cli_fail("pool", "out of memory");
    if (!a->names[i][0]) return cli_fail(a->models[i], "no model name in this path");
    for (size_t j = 0; j < i; j++)
      if (strcmp(a->names[i], a->names[j]) == 0)
        return cli_fail(a->models[i], "two models named \"%s\" (%s and %s)", a->names[i],
                        a->models[j], a->models[i]);
  }
  return AP_EXIT_OK;
}

static int cmp_u64_desc(const void *pa, const void *pb) {
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return a < b ? 1 : a > b ? -1 : 0;
}
static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return a < b ? -1 : a > b;
}

/* How many models are sure to fit together (the largest ones) and how many at best (the
 * smallest ones). */
static void resident_sets(const uint64_t *cost, size_t n, uint64_t budget, size_t *any_k,
                          size_t *best_k) {
  uint64_t *sorted = malloc(n * sizeof *sorted);
  *any_k = *best_k = 0;
  if (!sorted) return;
  memcpy(sorted, cost, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, cmp_u64_desc);
  /* sum stays within the budget, so budget - sum cannot wrap. */
  uint64_t sum = 0;
  while (*any_k < n && sorted[*any_k] <= budget - sum)
    sum += sorted[(*any_k)++];
  sum = 0;
  while (*best_k < n && sorted[n - 1 - *best_k] <= budget - sum)
    sum += sorted[n - 1 - (*best_k)++];
  free(sorted);
}

/* Nearest rank: the smallest value with at least p% of the values at or below it. */
static double percentile(const double *sorted, size_t n, double p) {
  size_t rank = (size_t)ceil(p / 100.0 * (double)n);
  return sorted[rank ? rank - 1 : 0];
}

typedef struct pool_view {
  ap_pool_model_info info[MAX_MODELS];
  uint64_t all_resident;
  size_t any_k, best_k;
  ap_pool_stats st;
  pool_replay_result rr;
  size_t requests;
  double p50, p90, p99, max;
  double acquire_p50, acquire_max;
} pool_view;

static void print_json(const pool_args *a, const pool_view *v) {
  printf("{\n  \"budget_bytes\": %llu,\n  \"all_resident_bytes\": %llu,\n  \"all_fit\": %s,\n"
         "  \"fit_any\": %zu,\n  \"fit_at_most\": %zu,\n  \"models\": [",
         (unsigned long long)a->budget, (unsigned long long)v->all_resident,
         v->all_resident <= a->budget ? "true" : "false", v->any_k, v->best_k);
  for (size_t i = 0; i < a->count; i++) {
    const ap_pool_model_info *m = &v->info[i];
    printf("%s\n    {\"name\": ", i ? "," : "");
    cli_json_string(stdout, m->name);
    printf(", \"path\": ");
    cli_json_string(stdout, m->path);
    printf(", \"weights_bytes\": %llu, \"handle_bytes\": %llu, \"arena_bytes\": %llu, "
           "\"persistent_bytes\": %llu, \"tables_bytes\": %llu, \"interpreter_bytes\": %llu, "
           "\"resident_bytes\": %llu",
           (unsigned long long)m->cost.weights, (unsigned long long)m->cost.handle,
           (unsigned long long)m->cost.arena, (unsigned long long)m->cost.persistent,
           (unsigned long long)m->cost.tables, (unsigned long long)m->cost.interpreter,
           (unsigned long long)m->cost.resident);
    if (a->trace)
      printf(", \"requests\": %llu, \"loads\": %llu, \"unloads\": %llu, "
             "\"evictions_room\": %llu, \"evictions_idle\": %llu",
             (unsigned long long)v->rr.requests[i], (unsigned long long)m->loads,
             (unsigned long long)m->unloads, (unsigned long long)m->evictions_room,
             (unsigned long long)m->evictions_idle);
    printf("}");
  }
  printf("\n  ]");
  if (a->trace) {
    printf(",\n  \"idle_ms\": %llu,\n  \"requests\": %zu,\n  \"loads\": %llu,\n"
           "  \"unloads\": %llu,\n  \"evictions_room\": %llu,\n  \"evictions_idle\": %llu,\n"
           "  \"hits\": %llu,\n  \"peak_resident_bytes\": %llu,\n"
           "  \"latency_p50_us\": %.1f,\n  \"latency_p90_us\": %.1f,\n"
           "  \"latency_p99_us\": %.1f,\n  \"latency_max_us\": %.1f,\n"
           "  \"acquire_p50_us\": %.1f,\n  \"acquire_max_us\": %.1f",
           (unsigned long long)a->idle_ms, v->requests, (unsigned long long)v->st.loads,
           (unsigned long long)v->st.unloads, (unsigned long long)v->st.evictions_room,
           (unsigned long long)v->st.evictions_idle, (unsigned long long)v->st.hits,
           (unsigned long long)v->st.peak_resident_bytes, v->p50, v->p90, v->p99, v->max,
           v->acquire_p50, v->acquire_max);
  }
  printf("\n}\n");
}

static void print_human(const pool_args *a, const pool_view *v) {
  char s[64], s2[64], s3[64], s4[64];
  printf("%-28s %14s %12s %14s %14s\n", "model", "weights", "handle", "interpreter", "resident");
  for (size_t i = 0; i < a->count; i++) {
    const ap_pool_cost *c = &v->info[i].cost;
    printf("%-28s %14s %12s %14s %14s\n", v->info[i].name, cli_thousands(s, sizeof s, c->weights),
           cli_thousands(s2, sizeof s2, c->handle), cli_thousands(s3, sizeof s3, c->interpreter),
           cli_thousands(s4, sizeof s4, c->resident));
  }
  printf("(bytes; interpreter: arena + persistent + tables, once more per further interpreter)\n");
  cli_budget_line(stdout, v->all_resident, a->budget, "all models resident");
  if (v->all_resident > a->budget)
    printf("policy: load on demand, unload the least recently used idle model first;\n"
           "        any %zu of the %zu fit resident together, at most %zu at once (the %zu "
           "smallest)\n",
           v->any_k, a->count, v->best_k, v->best_k);
  if (!a->trace) return;
  printf("\nreplay of %s: %zu requests, idle timeout %g s (on the trace's clock)\n", a->trace,
         v->requests, (double)a->idle_ms / 1000);
  for (size_t i = 0; i < a->count; i++)
    printf("  %-28s %6llu requests %5llu loads %5llu unloads\n", v->info[i].name,
           (unsigned long long)v->rr.requests[i], (unsigned long long)v->info[i].loads,
           (unsigned long long)v->info[i].unloads);
  printf("  loads %llu, unloads %llu, hits %llu\n", (unsigned long long)v->st.loads,
         (unsigned long long)v->st.unloads, (unsigned long long)v->st.hits);
  printf("  peak resident: %s of the budget's %s B (%.1f%%)\n",
         cli_size(s, sizeof s, v->st.peak_resident_bytes), cli_thousands(s2, sizeof s2, a->budget),
         100.0 * (double)v->st.peak_resident_bytes / (double)a->budget);
  printf("  every model resident would take: %s (%.2fx the budget)\n",
         cli_size(s, sizeof s, v->all_resident), (double)v->all_resident / (double)a->budget);
  printf("  latency (acquire + invoke + release): p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max "
         "%.3f ms\n",
         v->p50 / 1000, v->p90 / 1000, v->p99 / 1000, v->max / 1000);
  printf("  of which acquire (a load when it needs one): p50 %.3f ms, max %.3f ms\n",
         v->acquire_p50 / 1000, v->acquire_max / 1000);
}

static uint64_t trace_clock(void *ctx) {
  return *(const uint64_t *)ctx;
}

static int with_pool(const pool_args *a, pool_view *v) {
  uint64_t clock_ms = 0;
  ap_pool_options o = ap_pool_defaults();
  o.budget_bytes = a->budget;
  o.idle_ms = a->idle_ms;
  o.max_interpreters = 1; /* the replay is one client: one interpreter per model is enough */
  o.strategy = a->strategy;
  o.kernels = a->kernels.kernels;
  o.small_scratch = (size_t)a->kernels.small;
  if (a->trace) {
    o.clock = trace_clock;
    o.clock_ctx = &clock_ms;
  }
  ap_pool *p = NULL;
  if (ap_pool_create(&o, &p) != AP_OK) {
    int rc = cli_fail("pool", "%s", ap_pool_error(p));
    ap_pool_destroy(p);
    return rc;
  }
  int rc = AP_EXIT_OK;
  for (size_t i = 0; i < a->count && rc == AP_EXIT_OK; i++) {
    ap_status s = ap_pool_add(p, a->names[i], a->models[i]);
    if (s != AP_OK) {
      cli_fail(a->models[i], "%s", cli_unprefixed(a->models[i], ap_pool_error(p)));
      rc = s == AP_ERR_BUDGET ? AP_EXIT_CHECK : AP_EXIT_USAGE;
    }
  }
  pool_request *req = NULL;
  if (rc == AP_EXIT_OK && a->trace &&
      !pool_read_trace(a->trace, (const char *const *)a->names, a->count, &req, &v->requests))
    rc = AP_EXIT_USAGE;
  if (rc == AP_EXIT_OK && a->trace &&
      !pool_replay(p, a->trace, (const char *const *)a->names, a->count, req, v->requests, a->seed,
                   &clock_ms, &v->rr))
    rc = AP_EXIT_USAGE;
  if (rc == AP_EXIT_OK) {
    uint64_t cost[MAX_MODELS];
    for (size_t i = 0; i < a->count; i++) {
      ap_pool_model(p, i, &v->info[i]);
      cost[i] = v->info[i].cost.resident;
      if (__builtin_add_overflow(v->all_resident, cost[i], &v->all_resident))
        v->all_resident = UINT64_MAX; /* only a sum to print: saturate */
    }
    resident_sets(cost, a->count, a->budget, &v->any_k, &v->best_k);
    ap_pool_get_stats(p, &v->st);
    if (a->trace) {
      qsort(v->rr.latency_us, v->requests, sizeof(double), cmp_double);
      v->p50 = percentile(v->rr.latency_us, v->requests, 50);
      v->p90 = percentile(v->rr.latency_us, v->requests, 90);
      v->p99 = percentile(v->rr.latency_us, v->requests, 99);
      v->max = v->rr.latency_us[v->requests - 1];
      qsort(v->rr.acquire_us, v->requests, sizeof(double), cmp_double);
      v->acquire_p50 = percentile(v->rr.acquire_us, v->requests, 50);
      v->acquire_max = v->rr.acquire_us[v->requests - 1];
    }
    if (a->json)
      print_json(a, v);
    else
      print_human(a, v);
    if (!a->trace && v->all_resident > a->budget) rc = AP_EXIT_CHECK;
  }
  free(req);
  free(v->rr.latency_us);
  free(v->rr.acquire_us);
  free(v->rr.requests);
  ap_pool_destroy(p); /* after printing: the names point into the pool */
  return rc;
}

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_pool, argc, argv)) return AP_EXIT_OK;
  pool_args a = {0};
  int rc = parse(argc, argv, &a);
  pool_view *v = NULL;
  if (rc == AP_EXIT_OK) {
    v = calloc(1, sizeof *v);
    rc = v ? with_pool(&a, v) : cli_fail("pool", "out of memory");
  }
  free(v);
  for (size_t i = 0; i < a.count; i++)
    free(a.names[i]);
  return rc;
}
