/* arenaplan solve: plans a problem given as a MiniMalloc CSV (id,lower,upper,size). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int run_solve(int argc, char **argv);

const ap_command cmd_solve = {
    "solve", "plan a problem from a MiniMalloc CSV (id,lower,upper,size)", run_solve,
    "usage: arenaplan solve PROBLEM.csv [--strategy S] [--align N] [--budget SECONDS]\n"
    "                       [--json] [--out PLAN.csv]\n"
    "\n"
    "Plans the requests of PROBLEM.csv: one per line, id,lower,upper,size, live over steps\n"
    "[lower, upper) (upper exclusive); a header line is optional. An id is a non-negative\n"
    "integer or a name (as MiniMalloc's examples: b1), kept as given in --out. Prints the arena, "
    "the\n"
    "lower bound, their ratio, whether the plan is optimal, the plan time, and\n"
    "'arena: BYTES bytes, N requests, R reused' (reused: placed on bytes that a request\n"
    "which ended earlier had used).\n"
    "\n"
    "  --strategy S      a strategy (default best); 'arenaplan solve --strategy list'\n"
    "  --align N         every offset a multiple of N (default 1)\n"
    "  --budget SECONDS  time budget for searching strategies (default: exact 10 s, search a\n"
    "                    fixed amount of work)\n"
    "  --json            machine-readable output\n"
    "  --out PLAN.csv    write the plan: id,lower,upper,size,offset\n"
    "\n"
    "Exit status: 0 planned, 2 bad usage or input.\n"};

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
    if (!nb) {
      free(buf);
      buf = NULL;
      errno = ENOMEM;
      break;
    }
    buf = nb;
    cap *= 2;
  }
  if (buf && ferror(f)) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  *len = n;
  return buf;
}

static void list_strategies(FILE *f) {
  for (size_t i = 0; i < ap_strategy_count(); i++)
    fprintf(f, "  %-15s %s\n", ap_strategy_name(i), ap_strategy_summary(i));
}

static int write_plan(const char *path, const ap_problem *p, const ap_plan *plan) {
  FILE *f = fopen(path, "w");
  if (!f) return cli_fail(path, "cannot write: %s", strerror(errno));
  const ap_request *r = ap_problem_requests(p);
  const uint64_t *off = ap_plan_offsets(plan);
  fprintf(f, "id,lower,upper,size,offset\n");
  for (size_t i = 0; i < ap_problem_count(p); i++) {
    const char *name = ap_problem_request_name(p, i); /* the CSV's own id when it named it */
    if (name)
      fprintf(f, "%s", name);
    else
      fprintf(f, "%llu", (unsigned long long)r[i].id);
    fprintf(f, ",%d,%lld,%llu,%llu\n", (int)r[i].first, (long long)r[i].last + 1,
            (unsigned long long)r[i].size, (unsigned long long)off[i]);
  }
  if (fclose(f) != 0) return cli_fail(path, "cannot write: %s", strerror(errno));
  return AP_EXIT_OK;
}

static int run_solve(int argc, char **argv) {
  if (cli_wants_help(&cmd_solve, argc, argv)) return AP_EXIT_OK;
  const char *file = NULL, *strategy = "best", *out = NULL;
  uint64_t align = 1;
  double budget = 0;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    bool has_value = i + 1 < argc;
    if (strcmp(a, "--json") == 0) {
      json = true;
    } else if (strcmp(a, "--strategy") == 0 && has_value) {
      strategy = argv[++i];
    } else if (strcmp(a, "--align") == 0 && has_value) {
      if (!cli_parse_uint(argv[++i], UINT64_MAX, &align) || align == 0)
        return cli_usage_error(&cmd_solve, "--align \"%s\": expected a positive integer", argv[i]);
    } else if (strcmp(a, "--budget") == 0 && has_value) {
      char *end;
      errno = 0;
      budget = strtod(argv[++i], &end);
      if (errno || *end || end == argv[i] || !(budget > 0) || budget > 1e6)
        return cli_usage_error(&cmd_solve, "--budget \"%s\": expected seconds > 0", argv[i]);
    } else if (strcmp(a, "--out") == 0 && has_value) {
      out = argv[++i];
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error(&cmd_solve, "unknown or incomplete option \"%s\"", a);
    } else if (!file) {
      file = a;
    } else {
      return cli_usage_error(&cmd_solve, "more than one problem file (\"%s\")", a);
    }
  }
  if (strcmp(strategy, "list") == 0) {
    list_strategies(stdout);
    return AP_EXIT_OK;
  }
  if (!file) return cli_usage_error(&cmd_solve, "no problem file");
  size_t len;
  char *text = read_all(file, &len);
  if (!text) return cli_fail(file, "cannot read: %s", strerror(errno));
  if (len == 0) {
    free(text);
    return cli_fail(file, "empty file (0 bytes)");
  }
  ap_problem *p = NULL;
  ap_plan *plan = NULL;
  int rc = AP_EXIT_USAGE;
  if (ap_problem_create(NULL, &p) != AP_OK) {
    rc = cli_fail(file, "out of memory");
    goto done;
  }
  if (ap_problem_set_alignment(p, align) != AP_OK || ap_problem_parse_csv(p, text, len) != AP_OK) {
    rc = cli_fail(file, "%s", ap_problem_error(p));
    goto done;
  }
  if (ap_problem_count(p) == 0) {
    rc = cli_fail(file, "no requests (expected lines id,lower,upper,size)");
    goto done;
  }
  ap_plan_options opt = {.strategy = strategy, .budget_seconds = budget};
  if (ap_plan_create(p, &opt, &plan) != AP_OK) {
    rc = cli_fail(file, "%s", plan ? ap_plan_error(plan) : "out of memory");
    goto done;
  }
  uint64_t arena = ap_plan_arena(plan), lb = ap_plan_lower_bound(plan);
  double ratio = lb ? (double)arena / (double)lb : 1.0;
  size_t n = ap_problem_count(p), reused = ap_plan_reused(p, plan);
  if (json) {
    printf("{\"problem\": ");
    cli_json_string(stdout, file);
    printf(", \"strategy\": ");
    cli_json_string(stdout, ap_plan_strategy(plan));
    printf(", \"alignment\": %llu, \"arena_bytes\": %llu, \"lower_bound_bytes\": %llu, "
           "\"ratio\": %.4f, \"optimal\": %s, \"plan_time_ms\": %.3f, \"requests\": %zu, "
           "\"reused\": %zu}\n",
           (unsigned long long)align, (unsigned long long)arena, (unsigned long long)lb, ratio,
           ap_plan_optimal(plan) ? "true" : "false", ap_plan_time_ms(plan), n, reused);
  } else {
    char a[64], b[64];
    printf("problem:     %s (%zu requests, alignment %llu)\n", file, n, (unsigned long long)align);
    printf("strategy:    %s\n", ap_plan_strategy(plan));
    printf("arena:       %s\n", cli_size(a, sizeof a, arena));
    printf("lower bound: %s\n", cli_size(b, sizeof b, lb));
    printf("ratio:       %.4f\n", ratio);
    printf("optimal:     %s\n", ap_plan_optimal(plan) ? "yes" : "not proven");
    printf("plan time:   %.3f ms\n", ap_plan_time_ms(plan));
    printf("arena: %llu bytes, %zu requests, %zu reused\n", (unsigned long long)arena, n, reused);
  }
  rc = out ? write_plan(out, p, plan) : AP_EXIT_OK;
done:
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
  free(text);
  return rc;
}
