/* arenaplan reorder: writes the model with each subgraph's operators in an order of lower
 * peak memory, and shows what that changes: lower bound, best arena, TFLite Micro's need. */
#include "commands.h"
#include "reorder_cli.h"

#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const ap_command cmd_reorder = {
    "reorder", "write the model with its operators in an order that needs less memory", run,
    "usage: arenaplan reorder MODEL -o OUT.tflite [options]\n"
    "  -o, --output FILE  where to write the model (operators reordered, nothing else\n"
    "                     changed; written even when the stored order is kept)\n"
    "  --search-budget S  seconds the search may take per subgraph (default 2)\n"
    "  --beam N           widest layer of the search before it turns heuristic (4096)\n"
    "  --json             machine-readable output\n"
    "The search is exact (dynamic programming over the sets of executed ops) while each step's\n"
    "sets fit the beam, else the best order found. Ops that touch variables, resources or\n"
    "control flow keep their relative order. Outputs of the reordered model are bit-identical.\n"};

typedef struct side {
  uint64_t lb, arena, inplace_arena, tflm_min, tflm_head;
  bool tflm_ok;
  char tflm_error[256];
} side;

static bool measure(const char *path, const ap_model *m, side *s) {
  memset(s, 0, sizeof *s);
  ap_model_plan *mp = NULL;
  ap_model_plan_options o = ap_model_plan_defaults();
  if (ap_model_plan_create(m, &o, NULL, &mp) != AP_OK) {
    cli_fail(path, "%s", cli_unprefixed(path, ap_model_plan_error(mp)));
    ap_model_plan_destroy(mp);
    return false;
  }
  s->lb = ap_model_plan_lower_bound(mp);
  s->arena = ap_model_plan_arena(mp);
  ap_model_plan_destroy(mp);
  mp = NULL;
  o.inplace = true; /* views and element-wise ops on their input's bytes, conv/pool overlapping */
  if (ap_model_plan_create(m, &o, NULL, &mp) != AP_OK) {
    cli_fail(path, "in-place: %s", cli_unprefixed(path, ap_model_plan_error(mp)));
    ap_model_plan_destroy(mp);
    return false;
  }
  s->inplace_arena = ap_model_plan_arena(mp);
  ap_model_plan_destroy(mp);
  ap_tflm_result r;
  s->tflm_ok = ap_tflm_estimate(m, NULL, NULL, &r) == AP_OK;
  if (s->tflm_ok) {
    s->tflm_min = r.min_arena_bytes;
    s->tflm_head = r.head_bytes;
    ap_tflm_result_free(&r, NULL);
  } else {
    snprintf(s->tflm_error, sizeof s->tflm_error, "%s", r.error);
  }
  return true;
}

static void json_side(const char *name, const side *s) {
  printf("  \"%s\": {\"lower_bound_bytes\": %llu, \"arena_bytes\": %llu, ", name,
         (unsigned long long)s->lb, (unsigned long long)s->arena);
  if (s->tflm_ok)
    printf("\"tflm_min_arena_bytes\": %llu, \"tflm_head_bytes\": %llu, ",
           (unsigned long long)s->tflm_min, (unsigned long long)s->tflm_head);
  else
    printf("\"tflm_min_arena_bytes\": null, \"tflm_head_bytes\": null, ");
  printf("\"inplace_arena_bytes\": %llu}", (unsigned long long)s->inplace_arena);
}

static void print_json(const char *path, const char *out, const cli_reordered *x, const side *a,
                       const side *b) {
  printf("{\n  \"schema_version\": 1,\n  \"model\": ");
  cli_json_string(stdout, path);
  printf(",\n  \"output\": ");
  cli_json_string(stdout, out);
  printf(",\n  \"method\": \"%s\",\n  \"changed\": %s,\n  \"subgraphs\": [",
         ap_reorder_method(x->r), ap_reorder_changed(x->r) ? "true" : "false");
  for (size_t sg = 0; sg < ap_reorder_subgraph_count(x->r); sg++) {
    ap_reorder_subgraph in;
    if (ap_reorder_subgraph_info(x->r, sg, &in) != AP_OK) continue;
    printf("%s\n    {\"subgraph\": %zu, \"ops\": %zu, \"peak_before_bytes\": %llu, "
           "\"peak_after_bytes\": %llu, \"floor_bytes\": %llu, \"exact\": %s, \"changed\": %s, "
           "\"states\": %llu, \"time_ms\": %.3f}",
           sg ? "," : "", sg, in.ops, (unsigned long long)in.peak_before,
           (unsigned long long)in.peak_after, (unsigned long long)in.floor,
           in.exact ? "true" : "false", in.changed ? "true" : "false",
           (unsigned long long)in.states, in.ms);
  }
  printf("\n  ],\n");
  json_side("before", a);
  printf(",\n");
  json_side("after", b);
  printf("\n}\n");
}

static void row(const char *what, uint64_t a, uint64_t b) {
  char s1[64], s2[64];
  printf("  %-22s %24s   %24s\n", what, cli_size(s1, sizeof s1, a), cli_size(s2, sizeof s2, b));
}

static void print_text(const char *path, const char *out, const cli_reordered *x, const side *a,
                       const side *b) {
  printf("model:        %s\n", path);
  cli_reorder_line(stdout, x);
  for (size_t sg = 0; sg < ap_reorder_subgraph_count(x->r); sg++) {
    ap_reorder_subgraph in;
    if (ap_reorder_subgraph_info(x->r, sg, &in) != AP_OK) continue;
    char p0[32], p1[32], fl[32];
    printf("  subgraph %zu: %zu ops, %s, peak %s -> %s B%s%s, %llu sets, %.1f ms\n", sg, in.ops,
           in.exact ? "exact" : "heuristic", cli_thousands(p0, sizeof p0, in.peak_before),
           cli_thousands(p1, sizeof p1, in.peak_after), in.exact ? "" : ", no order below ",
           in.exact ? "" : cli_thousands(fl, sizeof fl, in.floor), (unsigned long long)in.states,
           in.ms);
  }
  printf("\n  %-22s %24s   %24s\n", "", "stored order", "new order");
  row("lower bound", a->lb, b->lb);
  row("arena (best)", a->arena, b->arena);
  if (a->tflm_ok && b->tflm_ok) {
    row("TFLite Micro head", a->tflm_head, b->tflm_head);
    row("TFLite Micro arena", a->tflm_min, b->tflm_min);
  } else {
    printf("  %-22s not modelled: %s\n", "TFLite Micro", a->tflm_error);
  }
  row("arena (best, in-place)", a->inplace_arena, b->inplace_arena);
  printf("\nwrote %s (%s)\n", out,
         ap_reorder_changed(x->r) ? "operators reordered, nothing else changed"
                                  : "a copy: the stored order is kept");
}

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_reorder, argc, argv)) return AP_EXIT_OK;
  const char *path = NULL, *out = NULL, *v;
  bool json = false;
  ap_reorder_options o = {0};
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    uint64_t n;
    if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
      if (!(out = cli_value(&cmd_reorder, argc, argv, &i))) return AP_EXIT_USAGE;
    } else if (!strcmp(arg, "--search-budget")) {
      if (!(v = cli_value(&cmd_reorder, argc, argv, &i))) return AP_EXIT_USAGE;
      char *end;
      double s = strtod(v, &end);
      if (*end || !(s > 0 && s <= 86400))
        return cli_usage_error(&cmd_reorder, "--search-budget \"%s\": expected seconds", v);
      o.budget_seconds = s;
    } else if (!strcmp(arg, "--beam")) {
      if (!(v = cli_value(&cmd_reorder, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_uint(v, 1u << 24, &n) || n == 0)
        return cli_usage_error(&cmd_reorder, "--beam \"%s\": expected a positive integer", v);
      o.beam_width = (size_t)n;
    } else if (!strcmp(arg, "--json")) {
      json = true;
    } else if (arg[0] == '-' && arg[1]) {
      return cli_usage_error(&cmd_reorder, "unknown option %s", arg);
    } else if (!path) {
      path = arg;
    } else {
      return cli_usage_error(&cmd_reorder, "one model at a time (got \"%s\" too)", arg);
    }
  }
  if (!path) return cli_usage_error(&cmd_reorder, "no model given");
  if (!out) return cli_usage_error(&cmd_reorder, "no output file given (-o OUT.tflite)");
  ap_model *m = cli_open_model(path);
  if (!m) return AP_EXIT_USAGE;
  cli_reordered x;
  int rc = AP_EXIT_USAGE;
  side a, b;
  if (cli_reorder(path, m, &o, &x)) {
    const ap_model *m2 = cli_reordered_model(&x, m);
    size_t size;
    const uint8_t *bytes = ap_model_bytes(m2, &size);
    if (measure(path, m, &a) && measure(path, m2, &b) && cli_write_file(out, bytes, size)) {
      if (json)
        print_json(path, out, &x, &a, &b);
      else
        print_text(path, out, &x, &a, &b);
      rc = AP_EXIT_OK;
    }
    cli_reordered_free(&x);
  }
  ap_model_destroy(m);
  return rc;
}
