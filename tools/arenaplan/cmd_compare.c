/* arenaplan compare: every strategy side by side on one model, beside what TFLite and TFLite
 * Micro would need for it. */
#include "commands.h"

#include <string.h>

static int run(int argc, char **argv);

const ap_command cmd_compare = {
    "compare", "every strategy side by side, and what TFLite and TFLite Micro need", run,
    "usage: arenaplan compare MODEL [--align N] [--exact-budget SECONDS] [--inplace] [--stream]\n"
    "                 [--json]\n"
    "  --inplace      every strategy plans with in-place sharing and overlaps\n"
    "  --stream       every strategy plans with streamed segments\n"
    "Plans MODEL with every strategy (our lifetimes, 16-byte alignment by default) and shows\n"
    "each arena, its ratio to the lower bound, the saving against what TFLite (ArenaPlanner,\n"
    "its lifetimes, 64-byte alignment) and TFLite Micro (GreedyMemoryPlanner, its lifetimes)\n"
    "would need, and the plan time.\n"};

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_compare, argc, argv)) return AP_EXIT_OK;
  const char *path = NULL;
  bool json = false, inplace = false, stream = false;
  uint64_t align = 16;
  double exact_budget = 5;
  for (int i = 1; i < argc; i++) {
    const char *v;
    if (strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (strcmp(argv[i], "--inplace") == 0) {
      inplace = true;
    } else if (strcmp(argv[i], "--stream") == 0) {
      stream = true;
    } else if (strcmp(argv[i], "--align") == 0) {
      if (!(v = cli_value(&cmd_compare, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_uint(v, 1u << 30, &align) || align == 0)
        return cli_usage_error(&cmd_compare, "--align \"%s\": expected a positive integer", v);
    } else if (strcmp(argv[i], "--exact-budget") == 0) {
      uint64_t s;
      if (!(v = cli_value(&cmd_compare, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_uint(v, 86400, &s) || s == 0)
        return cli_usage_error(&cmd_compare, "--exact-budget \"%s\": expected seconds", v);
      exact_budget = (double)s;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_usage_error(&cmd_compare, "unknown option %s", argv[i]);
    } else if (!path) {
      path = argv[i];
    } else {
      return cli_usage_error(&cmd_compare, "one model at a time (got \"%s\" too)", argv[i]);
    }
  }
  if (!path) return cli_usage_error(&cmd_compare, "no model given");
  ap_model *m = cli_open_model(path);
  if (!m) return AP_EXIT_USAGE;

  /* The runtimes' own figures first: every saving is measured against them. */
  ap_model_plan_options ref_opts[2] = {ap_model_plan_tflite(), ap_model_plan_tflm()};
  uint64_t ref[2] = {0, 0};
  for (int r = 0; r < 2; r++) {
    ap_model_plan *mp = NULL;
    if (ap_model_plan_create(m, &ref_opts[r], NULL, &mp) == AP_OK) ref[r] = ap_model_plan_arena(mp);
    ap_model_plan_destroy(mp);
  }
  int rc = AP_EXIT_OK;
  char s1[64], s2[64];
  if (json) {
    printf("{\n  \"schema_version\": 1,\n  \"model\": ");
    cli_json_string(stdout, path);
    printf(",\n  \"tflite_bytes\": %llu,\n  \"tflm_head_bytes\": %llu,\n  \"plans\": [",
           (unsigned long long)ref[0], (unsigned long long)ref[1]);
  } else {
    printf("model: %s\n", path);
    printf("TFLite would need:        %s (ArenaPlanner, its lifetimes, 64-byte alignment)\n",
           cli_size(s1, sizeof s1, ref[0]));
    printf("TFLite Micro would need:  %s (GreedyMemoryPlanner head, its lifetimes)\n\n",
           cli_size(s2, sizeof s2, ref[1]));
    printf("%-16s %14s %8s %10s %10s %10s\n", "strategy", "arena", "ratio", "vs tflite", "vs tflm",
           "time ms");
  }
  for (size_t i = 0; i < ap_strategy_count(); i++) {
    ap_model_plan_options o = ap_model_plan_defaults();
    o.strategy = ap_strategy_name(i);
    o.alignment = align;
    o.budget_seconds = exact_budget;
    o.inplace = inplace;
    o.stream = stream;
    ap_model_plan *mp = NULL;
    ap_status s = ap_model_plan_create(m, &o, NULL, &mp);
    if (s != AP_OK) {
      cli_fail(path, "%s: %s", o.strategy, cli_unprefixed(path, ap_model_plan_error(mp)));
      ap_model_plan_destroy(mp);
      rc = AP_EXIT_USAGE;
      break;
    }
    uint64_t arena = ap_model_plan_arena(mp), lb = ap_model_plan_lower_bound(mp);
    double ratio = lb ? (double)arena / (double)lb : 1.0;
    double vs[2];
    for (int r = 0; r < 2; r++)
      vs[r] = ref[r] ? 100.0 * ((double)ref[r] - (double)arena) / (double)ref[r] : 0.0;
    if (json) {
      printf("%s\n    {\"strategy\": \"%s\", \"arena_bytes\": %llu, \"lower_bound_bytes\": %llu, "
             "\"ratio\": %.6f, \"optimal\": %s, \"saving_vs_tflite_pct\": %.2f, "
             "\"saving_vs_tflm_pct\": %.2f, \"plan_time_ms\": %.3f}",
             i ? "," : "", o.strategy, (unsigned long long)arena, (unsigned long long)lb, ratio,
             ap_model_plan_optimal(mp) ? "true" : "false", vs[0], vs[1], ap_model_plan_time_ms(mp));
    } else {
      printf("%-16s %14s %8.3f %9.1f%% %9.1f%% %10.3f\n", o.strategy,
             cli_thousands(s1, sizeof s1, arena), ratio, vs[0], vs[1], ap_model_plan_time_ms(mp));
    }
    if (i + 1 == ap_strategy_count() && !json)
      printf("\nlower bound: %s\n"
             "vs tflite, vs tflm: how much smaller the arena is than what that runtime needs\n"
             "(negative: larger); arena in bytes; ratio: arena / lower bound.\n",
             cli_size(s1, sizeof s1, lb));
    ap_model_plan_destroy(mp);
  }
  if (json && rc == AP_EXIT_OK) printf("\n  ]\n}\n");
  ap_model_destroy(m);
  return rc;
}
