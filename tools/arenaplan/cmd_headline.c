/* arenaplan MODEL: the headline. Our best arena beside what TFLite and TFLite Micro would need,
 * the lower bound, the weights and the inputs and outputs. */
#include "commands.h"

#include <string.h>

static int run(int argc, char **argv);

const ap_command cmd_headline = {
    "headline", "MODEL: arena, lower bound, TFLite's and TFLite Micro's need, weights, IO", run,
    "usage: arenaplan MODEL [--json]\n"
    "       arenaplan headline MODEL [--json]\n"
    "Our best arena (16-byte alignment), the lower bound, what TFLite (ArenaPlanner) and\n"
    "TFLite Micro (GreedyMemoryPlanner head) would need, the weights and the I/O bytes.\n"};

static uint64_t arena_of(const ap_model *m, ap_model_plan_options o, uint64_t *lb, bool *ok) {
  ap_model_plan *mp = NULL;
  uint64_t a = 0;
  *ok = ap_model_plan_create(m, &o, NULL, &mp) == AP_OK;
  if (*ok) {
    a = ap_model_plan_arena(mp);
    if (lb) *lb = ap_model_plan_lower_bound(mp);
  }
  ap_model_plan_destroy(mp);
  return a;
}

/* "  (16.7% more)" or "  (38.8% less: its own lifetimes)", then the line's end. */
static void more_or_less(uint64_t theirs, uint64_t ours) {
  if (ours && theirs > ours)
    printf("  (%.1f%% more)", 100.0 * (double)(theirs - ours) / (double)ours);
  else if (ours && theirs < ours)
    printf("  (%.1f%% less: its own lifetimes)", 100.0 * (double)(ours - theirs) / (double)ours);
  printf("\n");
}

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_headline, argc, argv)) return AP_EXIT_OK;
  const char *path = NULL;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0)
      json = true;
    else if (argv[i][0] == '-' && argv[i][1])
      return cli_usage_error(&cmd_headline, "unknown option %s", argv[i]);
    else if (!path)
      path = argv[i];
    else
      return cli_usage_error(&cmd_headline, "one model at a time (got \"%s\" too)", argv[i]);
  }
  if (!path) return cli_usage_error(&cmd_headline, "no model given");
  ap_model *m = cli_open_model(path);
  if (!m) return AP_EXIT_USAGE;
  ap_model_plan *mp = NULL;
  ap_model_plan_options o = ap_model_plan_defaults();
  if (ap_model_plan_create(m, &o, NULL, &mp) != AP_OK) {
    cli_fail(path, "%s", cli_unprefixed(path, ap_model_plan_error(mp)));
    ap_model_plan_destroy(mp);
    ap_model_destroy(m);
    return AP_EXIT_USAGE;
  }
  uint64_t arena = ap_model_plan_arena(mp), lb = ap_model_plan_lower_bound(mp);
  bool optimal = ap_model_plan_optimal(mp);
  ap_model_plan_destroy(mp);
  bool ok_tfl, ok_tflm;
  uint64_t tfl = arena_of(m, ap_model_plan_tflite(), NULL, &ok_tfl);
  uint64_t tflm = arena_of(m, ap_model_plan_tflm(), NULL, &ok_tflm);
  uint64_t w = ap_model_weight_bytes(m, NULL);
  uint64_t in = ap_model_input_bytes(m, 0), out = ap_model_output_bytes(m, 0);
  char s[64];
  if (json) {
    printf("{\n  \"schema_version\": 1,\n  \"model\": ");
    cli_json_string(stdout, path);
    printf(",\n  \"arena_bytes\": %llu,\n  \"lower_bound_bytes\": %llu,\n  \"optimal\": %s,\n"
           "  \"tflite_bytes\": %llu,\n  \"tflm_head_bytes\": %llu,\n  \"weight_bytes\": %llu,\n"
           "  \"input_bytes\": %llu,\n  \"output_bytes\": %llu\n}\n",
           (unsigned long long)arena, (unsigned long long)lb, optimal ? "true" : "false",
           (unsigned long long)tfl, (unsigned long long)tflm, (unsigned long long)w,
           (unsigned long long)in, (unsigned long long)out);
  } else {
    printf("%s\n", path);
    printf("  arena (arenaplan best):  %s%s\n", cli_size(s, sizeof s, arena),
           optimal ? "  optimal" : "");
    printf("  lower bound:             %s\n", cli_size(s, sizeof s, lb));
    if (ok_tfl) {
      printf("  TFLite would need:       %s", cli_size(s, sizeof s, tfl));
      more_or_less(tfl, arena);
    }
    if (ok_tflm) {
      printf("  TFLite Micro would need: %s", cli_size(s, sizeof s, tflm));
      more_or_less(tflm, arena);
    }
    size_t file = 0;
    ap_model_bytes(m, &file);
    printf("  weights:                 %s  (constant data; the file is ", cli_size(s, sizeof s, w));
    printf("%s B)\n", cli_thousands(s, sizeof s, file));
    printf("  inputs:                  %s\n", cli_size(s, sizeof s, in));
    printf("  outputs:                 %s\n", cli_size(s, sizeof s, out));
    if (ok_tflm) printf("  (TFLite Micro: its planner's head, the planned tensors only)\n");
    printf("more: arenaplan report %s\n", path);
  }
  ap_model_destroy(m);
  return AP_EXIT_OK;
}
