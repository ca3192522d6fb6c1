/* arenaplan run: runs a model in its planned arena and shows outputs, invoke time and the
 * bytes of each memory region. */
#include "commands.h"
#define AP_DETECT_WITH_MODEL
#include "detect.h"
#include "kernels_cli.h"
#include "real.h"
#include "run.h"
#include "run_profile.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int run(int argc, char **argv);

const ap_command cmd_run = {
    "run", "run a model in its planned arena: outputs, invoke time, memory", run,
    "usage: arenaplan run MODEL [options]\n"
    "  --iterations N       invokes to time (default 10); outputs are from the first\n"
    "  --input random       seeded random inputs (default), TFLite Micro oracle's rule:\n"
    "                       input K draws from a generator seeded with S + K\n"
    "  --input FILE...      one raw file per input, in the order of subgraph 0's inputs\n"
    "                       (the files run up to the next option)\n"
    "  --seed S             seed of the random inputs (default 1)\n"
    "  --arena SIZE         run inside one caller-owned buffer of SIZE bytes (76800, 75K,\n"
    "                       1.5M) holding arena, persistent and tables\n"
    "  --strategy S         naive, linear, tflm, tflite, ..., best (default)\n"
    "  --inplace            views and element-wise ops write over their input's bytes,\n"
    "                       convolutions and pooling overlap it\n"
    "  --stream             run chains of convolutions and pooling row by row, the maps\n"
    "                       between them held as rings of rows\n"
    "  --output DIR         write output K's raw bytes to DIR/outputK.bin\n"
    "  --dump-tensors DIR   plan with no reuse and write every non-constant tensor of\n"
    "                       subgraph 0 after the first invoke to "
    "DIR/tensorT.bin\n" CLI_KERNELS_USAGE CLI_BUDGET_USAGE
    "  --threads N          threads for large ops of the fast kernels (default 1)\n"
    "  --profile            each op's median wall time over the iterations and its share\n"
    "                       of the invoke (with --json: a \"profile\" array)\n"
    "  --prepare P          each (default: builtin ops prepared again before every eval,\n"
    "                       no memory kept) or once (in allocate; each op keeps its\n"
    "                       parameters in persistent memory and invoke runs eval alone)\n"
    "  --score-threshold X  detection models (outputs of TFLite_Detection_PostProcess):\n"
    "                       list the detections with score >= X (default 0.5)\n"
    "  --json               machine-readable output\n"
    "exit status: 0 ran; 1 the model does not fit in --arena SIZE; 2 bad usage, unreadable\n"
    "model or input, unsupported op\n"};

#define MAX_FILES 64

typedef struct run_args {
  const char *model, *strategy, *output, *dump;
  const char *files[MAX_FILES];
  size_t file_count;
  bool json, has_arena, inplace, stream, prepare_once, profile;
  cli_kernels kernels;
  uint64_t iterations, seed, arena, threads;
  double score_threshold;
} run_args;

static int parse(int argc, char **argv, run_args *a) {
  a->iterations = 10;
  a->seed = 1;
  a->score_threshold = 0.5;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *v;
    int k;
    if (strcmp(arg, "--iterations") == 0) {
      if (!(v = cli_value(&cmd_run, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_uint(v, 1000000, &a->iterations) || a->iterations == 0)
        return cli_usage_error(&cmd_run, "--iterations \"%s\": expected 1 to 1000000", v);
    } else if (strcmp(arg, "--seed") == 0) {
      if (!(v = cli_value(&cmd_run, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_uint(v, UINT64_MAX, &a->seed))
        return cli_usage_error(&cmd_run, "--seed \"%s\": expected a non-negative integer", v);
    } else if (strcmp(arg, "--input") == 0) {
      if (!(v = cli_value(&cmd_run, argc, argv, &i))) return AP_EXIT_USAGE;
      a->file_count = 0;
      if (strcmp(v, "random") == 0) continue;
      a->files[a->file_count++] = v;
      while (i + 1 < argc && !(argv[i + 1][0] == '-' && argv[i + 1][1])) {
        if (a->file_count == MAX_FILES)
          return cli_usage_error(&cmd_run, "--input: at most %d files", MAX_FILES);
        a->files[a->file_count++] = argv[++i];
      }
    } else if (strcmp(arg, "--arena") == 0) {
      if (!(v = cli_value(&cmd_run, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_size(v, &a->arena) || a->arena == 0 || a->arena > SIZE_MAX / 2)
        return cli_usage_error(&cmd_run, "--arena \"%s\": expected a size like 76800, 75K, 1.5M",
                               v);
      a->has_arena = true;
    } else if (strcmp(arg, "--strategy") == 0) {
      if (!(v = cli_value(&cmd_run, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_check_strategy(&cmd_run, v)) return AP_EXIT_USAGE;
      a->strategy = v;
    } else if (strcmp(arg, "--inplace") == 0) {
      a->inplace = true;
    } else if (strcmp(arg, "--stream") == 0) {
      a->stream = true;
    } else if (strcmp(arg, "--output") == 0) {
      if (!(a->output = cli_value(&cmd_run, argc, argv, &i))) return AP_EXIT_USAGE;
    } else if (strcmp(arg, "--dump-tensors") == 0) {
      if (!(a->dump = cli_value(&cmd_run, argc, argv, &i))) return AP_EXIT_USAGE;
    } else if (strcmp(arg, "--score-threshold") == 0) {
      if (!(v = cli_value(&cmd_run, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_real(v, 0, 1, &a->score_threshold))
        return cli_usage_error(&cmd_run, "--score-threshold \"%s\": expected a number from 0 to 1",
                               v);
    } else if (strcmp(arg, "--json") == 0) {
      a->json = true;
    } else if (strcmp(arg, "--profile") == 0) {
      a->profile = true;
    } else if (strcmp(arg, "--prepare") == 0) {
      if (!(v = cli_value(&cmd_run, argc, argv, &i))) return AP_EXIT_USAGE;
      if (strcmp(v, "once") != 0 && strcmp(v, "each") != 0)
        return cli_usage_error(&cmd_run, "--prepare \"%s\": expected each or once", v);
      a->prepare_once = strcmp(v, "once") == 0;
    } else if ((k = cli_kernels_arg(&cmd_run, argc, argv, &i, &a->kernels)) != 0 ||
               (k = cli_budget_arg(&cmd_run, argc, argv, &i, &a->kernels)) != 0) {
      if (k < 0) return AP_EXIT_USAGE;
    } else if (strcmp(arg, "--threads") == 0) {
      if (!(v = cli_value(&cmd_run, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_parse_uint(v, AP_MAX_THREADS, &a->threads) || a->threads == 0)
        return cli_usage_error(&cmd_run, "--threads \"%s\": expected 1 to %d", v, AP_MAX_THREADS);
    } else if (arg[0] == '-' && arg[1]) {
      return cli_usage_error(&cmd_run, "unknown option %s", arg);
    } else if (!a->model) {
      a->model = arg;
    } else {
      return cli_usage_error(&cmd_run, "one model at a time (got \"%s\" too)", arg);
    }
  }
  if (!a->model) return cli_usage_error(&cmd_run, "no model given");
  if (a->dump && a->strategy)
    return cli_usage_error(&cmd_run, "--dump-tensors plans with no reuse; --strategy does not "
                                     "apply");
  return AP_EXIT_OK;
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return a < b ? -1 : a > b;
}

/* The library's message without the model path it may start with (the CLI line names it). */
static const char *strip_path(const char *msg, const char *path) {
  size_t n = strlen(path);
  if (strncmp(msg, path, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ') return msg + n + 2;
  return msg;
}

typedef struct run_state {
  ap_model *model;
  ap_interpreter *it;
  void *buffer;         /* the caller-owned arena, when --arena */
  unsigned char **keep; /* input bytes, put back before every invoke */
  size_t inputs;
  double *times;
  run_profile prof; /* --profile */
} run_state;

static void cleanup(run_state *s) {
  ap_interpreter_destroy(s->it);
  ap_model_destroy(s->model);
  free(s->buffer);
  for (size_t k = 0; s->keep && k < s->inputs; k++)
    free(s->keep[k]);
  free(s->keep);
  free(s->times);
  run_profile_free(&s->prof);
}

static int fill_inputs(const run_args *a, run_state *s) {
  s->inputs = ap_interpreter_input_count(s->it);
  if (a->file_count && a->file_count != s->inputs)
    return cli_fail(a->model, "has %zu input%s, --input gave %zu file%s", s->inputs,
                    s->inputs == 1 ? "" : "s", a->file_count, a->file_count == 1 ? "" : "s");
  s->keep = calloc(s->inputs ? s->inputs : 1, sizeof *s->keep);
  if (!s->keep) return cli_fail(a->model, "out of memory");
  for (size_t k = 0; k < s->inputs; k++) {
    ap_tensor tv, *t = &tv;
    if (ap_interpreter_input(s->it, k, t) != AP_OK)
      return cli_fail(a->model, "input %zu is missing", k);
    if (a->file_count) {
      if (!run_read_input(a->files[k], t, k)) return AP_EXIT_USAGE;
    } else {
      run_fill_random(t, a->seed, k);
    }
    s->keep[k] = malloc(t->bytes ? t->bytes : 1);
    if (!s->keep[k]) return cli_fail(a->model, "out of memory");
    if (t->bytes) memcpy(s->keep[k], t->data, t->bytes);
  }
  return AP_EXIT_OK;
}

static int write_files(const run_args *a, run_state *s) {
  if (a->output) {
    if (!run_make_dir(a->output)) return AP_EXIT_USAGE;
    for (size_t k = 0; k < ap_interpreter_output_count(s->it); k++) {
      ap_tensor tv, *t = &tv;
      if (ap_interpreter_output(s->it, k, t) != AP_OK) return AP_EXIT_USAGE;
      if (!run_write_tensor(a->output, "output", k, t->data, t->bytes)) return AP_EXIT_USAGE;
    }
  }
  if (a->dump) {
    if (!run_make_dir(a->dump)) return AP_EXIT_USAGE;
    for (size_t t = 0; t < ap_model_tensor_count(s->model, 0); t++) {
      ap_tensor xv, *x = &xv;
      if (ap_interpreter_tensor(s->it, 0, t, x) != AP_OK || (x->is_constant && !x->is_variable))
        continue;
      if (!run_write_tensor(a->dump, "tensor", t, x->data, x->data ? x->bytes : 0))
        return AP_EXIT_USAGE;
    }
  }
  return AP_EXIT_OK;
}

static void json_number(double v) {
  if (isfinite(v))
    printf("%.9g", v);
  else
    printf("null");
}

/* The detections of a TFLite_Detection_PostProcess model, at most DET_MAX of them. */
#define DET_MAX 1024
typedef struct run_detections {
  det_outputs where;
  det_box box[DET_MAX];
  size_t n, reported;
} run_detections;

static void read_detections(const run_args *a, run_state *s, run_detections *d) {
  d->where = det_find_outputs(s->model);
  d->n = det_read(s->it, &d->where, a->score_threshold, d->box, DET_MAX, &d->reported);
}

static void print_json(const run_args *a, run_state *s, const ap_memory_usage *u, double median,
                       double min, const run_detections *d) {
  printf("{\n  \"model\": ");
  cli_json_string(stdout, a->model);
  printf(",\n  \"strategy\": ");
  cli_json_string(stdout, a->dump ? "naive (preserve all)" : a->strategy ? a->strategy : "best");
  printf(",\n  \"input\": \"%s\",\n  \"seed\": ", a->file_count ? "files" : "random");
  if (a->file_count)
    printf("null");
  else
    printf("%llu", (unsigned long long)a->seed);
  printf(",\n  \"iterations\": %llu,\n  \"invoke_us_median\": %.1f,\n  \"invoke_us_min\": %.1f,\n",
         (unsigned long long)a->iterations, median, min);
  printf("  \"kernels\": \"%s\",\n  \"simd\": ", cli_kernels_name(a->kernels.kernels));
  cli_json_string(stdout, ap_interpreter_kernels(s->it));
  printf(",\n  \"threads\": %d,\n", ap_interpreter_threads(s->it));
  if (a->profile) run_profile_json(&s->prof, s->it, s->model);
  printf("  \"arena_bytes\": %llu,\n  \"persistent_bytes\": %llu,\n  \"tables_bytes\": %llu,\n"
         "  \"total_bytes\": %llu,\n",
         (unsigned long long)u->arena, (unsigned long long)u->persistent,
         (unsigned long long)u->tables, (unsigned long long)u->total);
  if (a->has_arena) printf("  \"buffer_bytes\": %llu,\n", (unsigned long long)a->arena);
  printf("  \"dynamic_tensors\": %zu,\n  \"dynamic_bytes\": %llu,\n",
         ap_interpreter_dynamic_count(s->it),
         (unsigned long long)ap_interpreter_dynamic_bytes(s->it));
  printf("  \"outputs\": [");
  for (size_t k = 0; k < ap_interpreter_output_count(s->it); k++) {
    ap_tensor tv, *t = &tv;
    if (ap_interpreter_output(s->it, k, t) != AP_OK) continue;
    run_summary sm;
    run_summarize(t, &sm);
    printf("%s\n    {\"index\": %zu, \"name\": ", k ? "," : "", k);
    cli_json_string(stdout, t->name);
    printf(", \"type\": \"%s\", \"shape\": [", ap_dtype_name(t->type));
    for (int d = 0; d < t->rank; d++)
      printf("%s%d", d ? ", " : "", (int)t->dims[d]);
    printf("], \"bytes\": %zu, \"dequantized\": %s, \"min\": ", t->bytes,
           sm.dequantized ? "true" : "false");
    if (sm.has_stats)
      json_number(sm.min);
    else
      printf("null");
    printf(", \"max\": ");
    if (sm.has_stats)
      json_number(sm.max);
    else
      printf("null");
    printf(", \"mean\": ");
    if (sm.has_stats)
      json_number(sm.mean);
    else
      printf("null");
    printf(", \"top5\": ");
    if (!sm.top_n) {
      printf("null}");
      continue;
    }
    printf("[");
    for (int j = 0; j < sm.top_n; j++) {
      printf("%s{\"class\": %zu, \"value\": ", j ? ", " : "", sm.top_class[j]);
      json_number(sm.top_value[j]);
      printf("}");
    }
    printf("]}");
  }
  printf("\n  ],\n  \"detections\": ");
  if (!d->where.found) {
    printf("null\n}\n");
    return;
  }
  printf("{\"score_threshold\": ");
  json_number(a->score_threshold);
  printf(", \"reported\": %zu, \"boxes\": [", d->reported);
  for (size_t i = 0; i < d->n; i++) {
    const det_box *x = &d->box[i];
    printf("%s\n    {\"class\": %d, \"score\": ", i ? "," : "", x->cls);
    json_number(x->score);
    printf(", \"ymin\": ");
    json_number(x->ymin);
    printf(", \"xmin\": ");
    json_number(x->xmin);
    printf(", \"ymax\": ");
    json_number(x->ymax);
    printf(", \"xmax\": ");
    json_number(x->xmax);
    printf("}");
  }
  printf("%s]}\n}\n", d->n ? "\n  " : "");
}

static void print_human(const run_args *a, run_state *s, const ap_memory_usage *u, double median,
                        double min, const run_detections *d) {
  char b[64];
  printf("model       %s\n", a->model);
  printf("strategy    %s\n", a->dump       ? "naive (every tensor preserved for --dump-tensors)"
                             : a->strategy ? a->strategy
                                           : "best");
  if (a->inplace && !a->dump) printf("in-place    on\n");
  if (a->stream && !a->dump) printf("streamed    on\n");
  if (a->file_count)
    printf("inputs      %zu file%s\n", a->file_count, a->file_count == 1 ? "" : "s");
  else
    printf("inputs      random, seed %llu (TFLite Micro oracle rule)\n",
           (unsigned long long)a->seed);
  printf("invoke      %.1f us median, %.1f us min over %llu iteration%s\n", median, min,
         (unsigned long long)a->iterations, a->iterations == 1 ? "" : "s");
  int threads = ap_interpreter_threads(s->it);
  printf("kernels     %s (%s), %d thread%s\n", cli_kernels_name(a->kernels.kernels),
         ap_interpreter_kernels(s->it), threads, threads == 1 ? "" : "s");
  printf("arena       %s\n", cli_size(b, sizeof b, u->arena));
  printf("persistent  %s\n", cli_size(b, sizeof b, u->persistent));
  printf("tables      %s\n", cli_size(b, sizeof b, u->tables));
  printf("total       %s", cli_size(b, sizeof b, u->total));
  if (a->has_arena) printf(", in a buffer of %s", cli_size(b, sizeof b, a->arena));
  if (ap_interpreter_dynamic_count(s->it))
    printf("\ndynamic     %s in %zu tensors shaped while running (allocator blocks, not in total)",
           cli_size(b, sizeof b, ap_interpreter_dynamic_bytes(s->it)),
           ap_interpreter_dynamic_count(s->it));
  printf("\n\noutputs\n");
  for (size_t k = 0; k < ap_interpreter_output_count(s->it); k++) {
    ap_tensor tv, *t = &tv;
    if (ap_interpreter_output(s->it, k, t) != AP_OK) continue;
    run_summary sm;
    run_summarize(t, &sm);
    printf("  %zu %s %s %s\n", k, t->name ? t->name : "", ap_dtype_name(t->type),
           run_shape(b, sizeof b, t));
    if (sm.has_stats)
      printf("    min %.6g  max %.6g  mean %.6g%s\n", sm.min, sm.max, sm.mean,
             sm.dequantized ? "  (dequantized)" : "");
    if (sm.top_n) {
      printf("    top-%d:", sm.top_n);
      for (int j = 0; j < sm.top_n; j++)
        printf(" %zu (%.6g)%s", sm.top_class[j], sm.top_value[j], j + 1 < sm.top_n ? "," : "");
      printf("\n");
    }
  }
  if (!d->where.found) return;
  printf("\ndetections  %zu reported by TFLite_Detection_PostProcess, %zu with score >= %g\n",
         d->reported, d->n, a->score_threshold);
  if (d->n) printf("  class  score     ymin      xmin      ymax      xmax\n");
  for (size_t i = 0; i < d->n; i++) {
    const det_box *x = &d->box[i];
    printf("  %5d  %.6f  %.6f  %.6f  %.6f  %.6f\n", x->cls, (double)x->score, (double)x->ymin,
           (double)x->xmin, (double)x->ymax, (double)x->xmax);
  }
}

static int allocate(const run_args *a, run_state *s) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.strategy = a->strategy;
  o.preserve_all = a->dump != NULL;
  o.inplace = a->inplace;
  o.stream = a->stream;
  o.kernels = a->kernels.kernels;
  o.small_scratch = (size_t)a->kernels.small;
  o.budget = a->kernels.budget;
  o.threads = (int)a->threads;
  o.prepare = a->prepare_once ? AP_PREPARE_ONCE : AP_PREPARE_EACH_INVOKE;
  if (a->has_arena) {
    /* 16-byte aligned, like the planner's offsets, so the arena's own alignment holds. */
    size_t size = (size_t)a->arena;
    if (posix_memalign(&s->buffer, 16, size) != 0)
      return cli_fail(a->model, "cannot allocate a %zu-byte buffer for --arena", size);
    o.arena = s->buffer;
    o.arena_size = size;
  }
  ap_status st = ap_interpreter_create(s->model, &o, &s->it);
  if (st == AP_OK) st = ap_interpreter_allocate(s->it);
  if (st == AP_OK) return AP_EXIT_OK;
  const char *msg = s->it ? strip_path(ap_interpreter_error(s->it), a->model) : "out of memory";
  /* A buffer too small for even the interpreter's own record leaves no handle to ask. */
  char small[128];
  if (!s->it && st == AP_ERR_ARENA_TOO_SMALL) {
    snprintf(small, sizeof small,
             "arena too small: the %llu-byte buffer cannot hold the interpreter's own record",
             (unsigned long long)a->arena);
    msg = small;
  }
  if (st == AP_ERR_ARENA_TOO_SMALL) {
    fprintf(stderr, "arenaplan: %s: does not fit: %s\n", a->model, msg);
    return AP_EXIT_CHECK;
  }
  if (st == AP_ERR_UNSUPPORTED && strstr(msg, "unsupported"))
    return cli_fail(a->model,
                    "%s (the CLI runs builtin kernels only; 'arenaplan plan' still plans "
                    "this model)",
                    msg);
  return cli_fail(a->model, "%s", msg);
}

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_run, argc, argv)) return AP_EXIT_OK;
  run_args a = {0};
  int rc = parse(argc, argv, &a);
  if (rc != AP_EXIT_OK) return rc;
  run_state s = {0};
  if (!(s.model = cli_open_model(a.model))) return AP_EXIT_USAGE;
  if ((rc = allocate(&a, &s)) != AP_EXIT_OK || (rc = fill_inputs(&a, &s)) != AP_EXIT_OK) {
    cleanup(&s);
    return rc;
  }
  s.times = malloc((size_t)a.iterations * sizeof *s.times);
  if (!s.times) {
    cleanup(&s);
    return cli_fail(a.model, "out of memory");
  }
  if (a.profile &&
      !run_profile_init(&s.prof, ap_model_op_count(s.model, 0), (size_t)a.iterations)) {
    cleanup(&s);
    return cli_fail(a.model, "out of memory");
  }
  for (uint64_t i = 0; i < a.iterations; i++) {
    /* Every iteration sees the same inputs and starting state: the plan may reuse an input's
     * bytes once it is read, and variable tensors carry state. */
    for (size_t k = 0; i && k < s.inputs; k++) {
      ap_tensor t;
      if (ap_interpreter_input(s.it, k, &t) == AP_OK && t.bytes) memcpy(t.data, s.keep[k], t.bytes);
    }
    if (i) ap_interpreter_reset_variables(s.it);
    if (a.profile) ap_interpreter_set_profile(s.it, run_profile_row(&s.prof, i), s.prof.ops);
    double t0 = now_us();
    ap_status st = ap_interpreter_invoke(s.it);
    s.times[i] = now_us() - t0;
    if (st != AP_OK) {
      rc = cli_fail(a.model, "%s", strip_path(ap_interpreter_error(s.it), a.model));
      cleanup(&s);
      return rc;
    }
    /* Outputs and dumps are the first invoke's, as the oracle records them. */
    if (i == 0 && (rc = write_files(&a, &s)) != AP_EXIT_OK) {
      cleanup(&s);
      return rc;
    }
  }
  ap_memory_usage u;
  if (ap_interpreter_memory(s.it, &u) != AP_OK) memset(&u, 0, sizeof u);
  double min = s.times[0];
  for (uint64_t i = 1; i < a.iterations; i++)
    min = s.times[i] < min ? s.times[i] : min;
  qsort(s.times, (size_t)a.iterations, sizeof *s.times, cmp_double);
  size_t n = (size_t)a.iterations;
  double median = n % 2 ? s.times[n / 2] : (s.times[n / 2 - 1] + s.times[n / 2]) / 2;
  static run_detections det; /* too big for the stack; run is called once */
  read_detections(&a, &s, &det);
  if (a.json)
    print_json(&a, &s, &u, median, min, &det);
  else
    print_human(&a, &s, &u, median, min, &det);
  if (a.profile && !a.json) run_profile_print(&s.prof, s.it, s.model, median);
  cleanup(&s);
  return AP_EXIT_OK;
}
