/* arenaplan report: where every byte a model needs goes, and the memory map. */
#include "commands.h"
#include "reorder_cli.h"
#include "report_cli.h"
#include "soak_plot.h"
#include "whatif.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int run(int argc, char **argv);

const ap_command cmd_report = {
    "report", "the memory estimate, the peak, every request, the memory map", run,
    "usage: arenaplan report MODEL [options]\n"
    "  --strategy S   naive, linear, tflm, tflite, ..., best (default), exact\n"
    "  --html FILE    write a self-contained HTML page with the memory map (hover for tensors)\n"
    "  --soak CSV     with --html: plot the memory curve in CSV (written by `arenaplan stress`)\n"
    "  --svg FILE     write the memory map as SVG\n"
    "  --budget SIZE  plan the fastest kernels whose device total (arena + persistent +\n"
    "                 tables) fits SIZE (76800, 75K, 1.5M, 2MiB); exit 1 saying by how much\n"
    "                 when even the smallest plan is larger\n"
    "  --measure N    time each point of the kernels' curve beside its fastest plan, N\n"
    "                 invokes each in alternation, and show the time beside the estimate\n"
    "                 (default: estimates only)\n"
    "  --wide         do not shorten tensor names to fit 100 columns\n"
    "  --reorder      report the model with its operators in the order `arenaplan reorder`\n"
    "                 finds (nothing is written)\n"
    "  --inplace      views and element-wise ops share their input's bytes, convolutions and\n"
    "                 pooling overlap it\n"
    "  --stream       run chains of convolutions and pooling row by row (rings of rows); the\n"
    "                 segments, their rings and what they saved are listed\n"
    "  --what-if int8 also what the device would need if the float32 tensors were int8\n"
    "                 (weights int8, biases int32, activations int8), inputs and outputs int8\n"
    "                 or kept float: the re-typed plan + variables + the measured "
    "tables\n" CLI_KERNELS_USAGE
    "                       (the plan's scratch is theirs; every choice's scratch and arena\n"
    "                       are listed side by side, with the ops whose scratch differs)\n"
    "  --json         machine-readable output\n"
    "The estimate: total = weights (the model file, read in place) + inputs and outputs +\n"
    "intermediates and scratch (the rest of the arena) + persistent + the interpreter's tables.\n"
    "Persistent and tables are measured by allocating the model with arenaplan's runtime; when\n"
    "it cannot (an unsupported op), persistent is the variable tensors and tables are unknown.\n"};

static int parse(int argc, char **argv, report_args *a) {
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    int k = cli_kernels_arg(&cmd_report, argc, argv, &i, &a->kernels);
    if (k < 0) return AP_EXIT_USAGE;
    if (k > 0) continue;
    if (strcmp(arg, "--budget") == 0) {
      if (!(v = cli_value(&cmd_report, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_size(v, &a->budget))
        return cli_usage_error(&cmd_report,
                               "--budget \"%s\": expected a size like 76800, 75K, 1.5M, 2MiB", v);
      a->has_budget = true;
    } else if (strcmp(arg, "--measure") == 0) {
      if (!(v = cli_value(&cmd_report, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_uint(v, 1000, &a->measure) || a->measure == 0)
        return cli_usage_error(&cmd_report, "--measure \"%s\": expected 1 to 1000 invokes", v);
    } else if (strcmp(arg, "--strategy") == 0) {
      if (!(v = cli_value(&cmd_report, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_check_strategy(&cmd_report, v)) return AP_EXIT_USAGE;
      a->strategy = v;
    } else if (strcmp(arg, "--html") == 0) {
      if (!(a->html = cli_value(&cmd_report, argc, argv, &i))) return AP_EXIT_USAGE;
    } else if (strcmp(arg, "--soak") == 0) {
      if (!(a->soak = cli_value(&cmd_report, argc, argv, &i))) return AP_EXIT_USAGE;
    } else if (strcmp(arg, "--svg") == 0) {
      if (!(a->svg = cli_value(&cmd_report, argc, argv, &i))) return AP_EXIT_USAGE;
    } else if (strcmp(arg, "--wide") == 0) {
      a->wide = true;
    } else if (strcmp(arg, "--reorder") == 0) {
      a->reorder = true;
    } else if (strcmp(arg, "--inplace") == 0) {
      a->inplace = true;
    } else if (strcmp(arg, "--stream") == 0) {
      a->stream = true;
    } else if (strcmp(arg, "--what-if") == 0) {
      if (!(v = cli_value(&cmd_report, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!whatif_parse(&cmd_report, v)) return AP_EXIT_USAGE;
      a->what_if = (const struct whatif *)1; /* set to the result in run() */
    } else if (strcmp(arg, "--json") == 0) {
      a->json = true;
    } else if (arg[0] == '-' && arg[1]) {
      return cli_usage_error(&cmd_report, "unknown option %s", arg);
    } else if (!a->model) {
      a->model = arg;
    } else {
      return cli_usage_error(&cmd_report, "one model at a time (got \"%s\" too)", arg);
    }
  }
  if (!a->model) return cli_usage_error(&cmd_report, "no model given");
  if (a->soak && !a->html)
    return cli_usage_error(&cmd_report, "--soak plots into the HTML page: give --html FILE");
  return AP_EXIT_OK;
}

typedef ap_status (*writer)(const ap_report *, FILE *);

static int write_file(const char *path, const ap_report *r, writer w) {
  FILE *f = fopen(path, "w");
  if (!f) return cli_fail(path, "cannot write: %s", strerror(errno));
  ap_status s = w(r, f);
  if (fclose(f) != 0 || s != AP_OK) return cli_fail(path, "write failed (%s)", ap_status_name(s));
  return AP_EXIT_OK;
}

/* The streamed segments of the plan: ops, rings and what they saved. */
static void print_segments(const ap_model *m, const ap_graph *g) {
  size_t n = ap_graph_segment_count(g);
  printf("\nstreamed segments: %zu%s\n", n, n ? "" : " (none smaller than the plan without)");
  for (size_t i = 0; i < n; i++) {
    ap_segment s;
    if (ap_graph_segment(g, i, &s) != AP_OK) continue;
    printf("  ops %u-%u: rings %llu B, saved %llu B;", s.first_op, s.first_op + s.op_count - 1,
           (unsigned long long)s.ring_bytes, (unsigned long long)s.saved);
    for (uint32_t k = s.first_op; k + 1 < s.first_op + s.op_count; k++) {
      ap_op_info op;
      if (ap_model_op(m, s.subgraph, k, &op) != AP_OK || op.outputs.n < 1) continue;
      ap_lifetime l;
      if (ap_graph_tensor(g, s.subgraph, (size_t)op.outputs.v[0], &l) != AP_OK) continue;
      printf(" t%d %u rows (%llu B)", op.outputs.v[0],
             ap_graph_ring_rows(g, (uint64_t)op.outputs.v[0]), (unsigned long long)l.bytes);
    }
    printf("\n");
  }
}

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_report, argc, argv)) return AP_EXIT_OK;
  report_args a = {0};
  int rc = parse(argc, argv, &a);
  if (rc != AP_EXIT_OK) return rc;
  ap_model *m = cli_open_model(a.model);
  if (!m) return AP_EXIT_USAGE;
  ap_report *r = NULL;
  ap_report_options o = {.strategy = a.strategy,
                         .inplace = a.inplace,
                         .stream = a.stream,
                         .kernels = a.kernels.kernels,
                         .small_scratch = (size_t)a.kernels.small,
                         .budget = a.has_budget && !a.kernels.kernels ? a.budget : 0,
                         .measure = (int)a.measure};
  a.kernels.budget = o.budget; /* the kernels section names it */
  cli_reordered x = {0};
  if (a.reorder && !cli_reorder(a.model, m, NULL, &x)) {
    rc = AP_EXIT_USAGE;
    goto done;
  }
  if (ap_report_create(cli_reordered_model(&x, m), &o, NULL, &r) != AP_OK) {
    rc = cli_fail(a.model, "%s", ap_report_error(r));
    goto done;
  }
  const ap_estimate *est = ap_report_estimate(r);
  if (o.budget && !est->from_runtime && strstr(est->runtime_error, "budget ")) {
    /* No kernels fit: the report is of the smallest plan, and says by how much it misses. */
    ap_report_destroy(r);
    r = NULL;
    o.budget = 0;
    o.kernels = AP_KERNELS_REFERENCE;
    a.kernels.budget = 0;
    a.kernels.kernels = AP_KERNELS_REFERENCE;
    if (ap_report_create(cli_reordered_model(&x, m), &o, NULL, &r) != AP_OK) {
      rc = cli_fail(a.model, "%s", ap_report_error(r));
      goto done;
    }
  }
  whatif w;
  if (a.what_if) {
    char why[512];
    ap_model_plan_options po = ap_model_plan_defaults();
    po.strategy = a.strategy;
    po.inplace = a.inplace;
    if (whatif_int8(cli_reordered_model(&x, m), &po, &w, why, sizeof why) != AP_OK) {
      rc = cli_fail(a.model, "--what-if int8: %s", why);
      goto done;
    }
    const ap_estimate *e = ap_report_estimate(r);
    /* Tables and kernels' persistent state as measured now; variables re-typed. */
    uint64_t kernel_state =
        e->persistent > w.persistent_before ? e->persistent - w.persistent_before : 0;
    a.what_if = &w;
    a.what_if_extra = e->tables + kernel_state;
  }
  if (a.html && a.soak && (rc = soak_plot_html(r, a.soak, a.html)) != AP_EXIT_OK) goto done;
  if (a.html && !a.soak && (rc = write_file(a.html, r, ap_report_write_html)) != AP_EXIT_OK)
    goto done;
  if (a.svg && (rc = write_file(a.svg, r, ap_report_write_svg)) != AP_EXIT_OK) goto done;
  if (a.json) {
    report_print_json(r, &a);
  } else {
    if (a.reorder) cli_reorder_line(stdout, &x);
    report_print_text(r, &a);
    if (a.stream)
      print_segments(cli_reordered_model(&x, m), ap_model_plan_graph(ap_report_plan(r)));
    if (a.what_if) whatif_print(a.what_if, a.what_if_extra);
  }
  if (a.has_budget && ap_report_estimate(r)->device > a.budget) rc = AP_EXIT_CHECK;
done:
  ap_report_destroy(r);
  cli_reordered_free(&x);
  ap_model_destroy(m);
  return rc;
}
