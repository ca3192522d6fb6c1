/* arenaplan plan: the arena of a model under one strategy, with the per-tensor table. */
#include "commands.h"
#include "reorder_cli.h"
#include "whatif.h"

#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const ap_command cmd_plan = {
    "plan", "plan the arena of a model with one strategy", run,
    "usage: arenaplan plan MODEL [options]\n"
    "  --strategy S       naive, linear, tflm, tflite, ..., best (default), exact\n"
    "  --align N          offset alignment in bytes (default 16)\n"
    "  --rules R          whose lifetimes: arenaplan (default), tflite, tflm\n"
    "  --preserve-inputs  keep graph inputs alive to the end\n"
    "  --inplace          views and element-wise ops share their input's bytes, convolutions\n"
    "                     and pooling overlap it (not with --rules tflm)\n"
    "  --subgraph K       plan only subgraph K (default: the whole model, one arena)\n"
    "  --budget SIZE      exit 1 when the arena is larger than SIZE (76800, 75K, 1.5M)\n"
    "  --exact-budget S   seconds the exact search may take (default 10)\n"
    "  --tensors          the per-tensor table: index, name, type, shape, bytes, lifetime, offset\n"
    "  --reorder          plan the model with its operators in the order `arenaplan reorder`\n"
    "                     finds (nothing is written)\n"
    "  --what-if int8     also plan the model as if its float32 tensors were int8 (weights\n"
    "                     int8, biases int32, activations int8), with inputs and outputs int8\n"
    "                     and kept float\n"
    "  --json             machine-readable output\n"};

typedef struct plan_args {
  const char *model;
  ap_model_plan_options o;
  bool tensors, json, has_budget, reorder, what_if;
  uint64_t budget;
} plan_args;

static int parse(int argc, char **argv, plan_args *a) {
  a->o = ap_model_plan_defaults();
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    uint64_t n;
    if (strcmp(arg, "--strategy") == 0) {
      if (!(v = cli_value(&cmd_plan, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_check_strategy(&cmd_plan, v)) return AP_EXIT_USAGE;
      a->o.strategy = v;
    } else if (strcmp(arg, "--align") == 0) {
      if (!(v = cli_value(&cmd_plan, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_uint(v, 1u << 30, &n) || n == 0)
        return cli_usage_error(&cmd_plan, "--align \"%s\": expected a positive integer", v);
      a->o.alignment = n;
    } else if (strcmp(arg, "--rules") == 0) {
      if (!(v = cli_value(&cmd_plan, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_rules(v, &a->o.rules))
        return cli_usage_error(&cmd_plan, "--rules \"%s\": one of arenaplan, tflite, tflm", v);
    } else if (strcmp(arg, "--subgraph") == 0) {
      if (!(v = cli_value(&cmd_plan, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_uint(v, 1u << 30, &n))
        return cli_usage_error(&cmd_plan, "--subgraph \"%s\": expected an index", v);
      a->o.subgraph = (int)n;
    } else if (strcmp(arg, "--budget") == 0) {
      if (!(v = cli_value(&cmd_plan, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_size(v, &a->budget))
        return cli_usage_error(&cmd_plan, "--budget \"%s\": expected a size like 76800, 75K, 1.5M",
                               v);
      a->has_budget = true;
    } else if (strcmp(arg, "--exact-budget") == 0) {
      if (!(v = cli_value(&cmd_plan, argc, argv, &i))) return AP_EXIT_USAGE;
      char *end;
      double s = strtod(v, &end);
      if (*end || !(s > 0 && s <= 86400))
        return cli_usage_error(&cmd_plan, "--exact-budget \"%s\": expected seconds", v);
      a->o.budget_seconds = s;
    } else if (strcmp(arg, "--preserve-inputs") == 0) {
      a->o.preserve_inputs = true;
    } else if (strcmp(arg, "--inplace") == 0) {
      a->o.inplace = true;
    } else if (strcmp(arg, "--tensors") == 0) {
      a->tensors = true;
    } else if (strcmp(arg, "--reorder") == 0) {
      a->reorder = true;
    } else if (strcmp(arg, "--what-if") == 0) {
      if (!(v = cli_value(&cmd_plan, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!whatif_parse(&cmd_plan, v)) return AP_EXIT_USAGE;
      a->what_if = true;
    } else if (strcmp(arg, "--json") == 0) {
      a->json = true;
    } else if (arg[0] == '-' && arg[1]) {
      return cli_usage_error(&cmd_plan, "unknown option %s", arg);
    } else if (!a->model) {
      a->model = arg;
    } else {
      return cli_usage_error(&cmd_plan, "one model at a time (got \"%s\" too)", arg);
    }
  }
  if (!a->model) return cli_usage_error(&cmd_plan, "no model given");
  return AP_EXIT_OK;
}

static void print_tensors_human(const ap_model *m, const ap_model_plan *mp) {
  const ap_graph *g = ap_model_plan_graph(mp);
  printf("\n%5s %-32s %-8s %-16s %12s %6s %6s %12s\n", "index", "name", "type", "shape", "bytes",
         "first", "last", "offset");
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++) {
    if (ap_model_subgraph_count(m) > 1) printf("subgraph %zu\n", sg);
    for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++) {
      ap_tensor_info ti;
      ap_lifetime l;
      uint64_t off;
      if (ap_model_tensor(m, sg, t, &ti) != AP_OK || ap_graph_tensor(g, sg, t, &l) != AP_OK)
        continue;
      if (!l.planned || !ap_model_plan_tensor_offset(mp, sg, t, &off)) continue;
      char shape[64], name[33];
      snprintf(name, sizeof name, "%s", ti.name);
      printf("%5zu %-32s %-8s %-16s %12llu %6d %6d %12llu\n", t, name, ap_dtype_name(ti.type),
             cli_shape(shape, sizeof shape, ti.shape), (unsigned long long)l.bytes, l.first, l.last,
             (unsigned long long)off);
    }
  }
}

static void print_tensors_json(const ap_model *m, const ap_model_plan *mp) {
  const ap_graph *g = ap_model_plan_graph(mp);
  printf(",\n  \"tensors\": [");
  bool first = true;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t t = 0; t < ap_model_tensor_count(m, sg); t++) {
      ap_tensor_info ti;
      ap_lifetime l;
      uint64_t off;
      if (ap_model_tensor(m, sg, t, &ti) != AP_OK || ap_graph_tensor(g, sg, t, &l) != AP_OK)
        continue;
      if (!l.planned || !ap_model_plan_tensor_offset(mp, sg, t, &off)) continue;
      printf("%s\n    {\"subgraph\": %zu, \"index\": %zu, \"name\": ", first ? "" : ",", sg, t);
      cli_json_string(stdout, ti.name);
      printf(", \"type\": \"%s\", \"shape\": [", ap_dtype_name(ti.type));
      for (size_t d = 0; d < ti.shape.n; d++)
        printf("%s%d", d ? ", " : "", ti.shape.v[d]);
      printf("], \"kind\": \"%s\", \"bytes\": %llu, \"first\": %d, \"last\": %d, \"offset\": %llu}",
             ap_kind_name(l.kind), (unsigned long long)l.bytes, l.first, l.last,
             (unsigned long long)off);
      first = false;
    }
  printf("\n  ]");
}

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_plan, argc, argv)) return AP_EXIT_OK;
  plan_args a = {0};
  int rc = parse(argc, argv, &a);
  if (rc != AP_EXIT_OK) return rc;
  ap_model *opened = cli_open_model(a.model);
  if (!opened) return AP_EXIT_USAGE;
  cli_reordered x = {0};
  if (a.reorder && !cli_reorder(a.model, opened, NULL, &x)) {
    ap_model_destroy(opened);
    return AP_EXIT_USAGE;
  }
  const ap_model *m = cli_reordered_model(&x, opened);
  ap_model_plan *mp = NULL;
  if (ap_model_plan_create(m, &a.o, NULL, &mp) != AP_OK) {
    cli_fail(a.model, "%s", cli_unprefixed(a.model, ap_model_plan_error(mp)));
    ap_model_plan_destroy(mp);
    cli_reordered_free(&x);
    ap_model_destroy(opened);
    return AP_EXIT_USAGE;
  }
  whatif w;
  char why[512];
  if (a.what_if && whatif_int8(m, &a.o, &w, why, sizeof why) != AP_OK) {
    cli_fail(a.model, "--what-if int8: %s", why);
    ap_model_plan_destroy(mp);
    cli_reordered_free(&x);
    ap_model_destroy(opened);
    return AP_EXIT_USAGE;
  }
  uint64_t arena = ap_model_plan_arena(mp), lb = ap_model_plan_lower_bound(mp);
  double ratio = lb ? (double)arena / (double)lb : 1.0;
  bool fits = !a.has_budget || arena <= a.budget;
  char s1[64], s2[64];
  if (a.json) {
    printf("{\n  \"schema_version\": 1,\n  \"model\": ");
    cli_json_string(stdout, a.model);
    printf(",\n  \"strategy\": \"%s\",\n  \"rules\": \"%s\",\n  \"alignment\": %llu,\n"
           "  \"arena_bytes\": %llu,\n  \"lower_bound_bytes\": %llu,\n  \"ratio\": %.6f,\n"
           "  \"optimal\": %s,\n  \"requests\": %zu,\n  \"reused\": %zu,\n"
           "  \"plan_time_ms\": %.3f",
           a.o.strategy, ap_rules_name(a.o.rules), (unsigned long long)a.o.alignment,
           (unsigned long long)arena, (unsigned long long)lb, ratio,
           ap_model_plan_optimal(mp) ? "true" : "false", ap_model_plan_requests(mp),
           ap_model_plan_reused(mp), ap_model_plan_time_ms(mp));
    printf(",\n  \"inplace\": %s", a.o.inplace ? "true" : "false");
    if (a.has_budget)
      printf(",\n  \"budget_bytes\": %llu,\n  \"fits\": %s", (unsigned long long)a.budget,
             fits ? "true" : "false");
    if (a.reorder)
      printf(",\n  \"reorder\": {\"method\": \"%s\", \"changed\": %s}", ap_reorder_method(x.r),
             ap_reorder_changed(x.r) ? "true" : "false");
    if (a.tensors) print_tensors_json(m, mp);
    if (a.what_if) {
      printf(",\n  \"what_if_int8\": ");
      whatif_json(&w, 0, "  ");
    }
    printf("\n}\n");
  } else {
    printf("model:        %s\n", a.model);
    if (a.reorder) cli_reorder_line(stdout, &x);
    printf("strategy:     %s (%s lifetimes, %llu-byte alignment%s)\n", a.o.strategy,
           ap_rules_name(a.o.rules), (unsigned long long)a.o.alignment,
           a.o.inplace ? ", in-place" : "");
    printf("arena:        %s\n", cli_size(s1, sizeof s1, arena));
    printf("lower bound:  %s\n", cli_size(s2, sizeof s2, lb));
    printf("ratio:        %.3f%s\n", ratio, ap_model_plan_optimal(mp) ? " (optimal)" : "");
    printf("plan time:    %.3f ms\n", ap_model_plan_time_ms(mp));
    printf("arena: %llu bytes, %zu requests, %zu reused\n", (unsigned long long)arena,
           ap_model_plan_requests(mp), ap_model_plan_reused(mp));
    if (a.tensors) print_tensors_human(m, mp);
    if (a.has_budget) cli_budget_line(stdout, arena, a.budget, "the plan's arena");
    if (a.what_if) whatif_print(&w, 0);
  }
  ap_model_plan_destroy(mp);
  cli_reordered_free(&x);
  ap_model_destroy(opened);
  return fits ? AP_EXIT_OK : AP_EXIT_CHECK;
}
