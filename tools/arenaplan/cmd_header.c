/* arenaplan header: a C header with the sizes a firmware build must reserve for a model. */
#include "commands.h"
#include "header_files.h"
#include "header_plan.h"
#include "kernels_cli.h"
#include "reorder_cli.h"
#include "whatif.h"

#include <stdlib.h>

#include <ctype.h>
#include <string.h>

static int run(int argc, char **argv);

const ap_command cmd_header = {
    "header", "a C header for firmware builds: arena, persistent and I/O sizes, checks", run,
    "usage: arenaplan header MODEL [--strategy S] [--prefix NAME] [--inplace] [--stream]\n"
    "                        [--reorder] [--model-array FILE.c] [--ops FILE] [--what-if int8]\n"
    "                        [--kernels K] [--small-scratch SIZE]\n"
    "                        [--plan FILE.c [--plan-kernels portable|reference]]\n"
    "                        > model_arena.h\n"
    "  --strategy S   naive, linear, tflm, tflite, ..., best (default), exact\n"
    "  --stream       plan with streamed segments (the header then defines NAME_STREAM 1:\n"
    "                 set ap_interpreter_options.stream)\n"
    "  --reorder      sizes for the model with its operators in the order `arenaplan\n"
    "                 reorder` finds (the firmware must then run that reordered model)\n"
    "  --what-if int8 add NAME_WHATIF_INT8_* sizes: arena (inputs and outputs int8),\n"
    "                 IO_FLOAT_ARENA (kept float), WEIGHTS, PERSISTENT, as if the float32\n"
    "                 tensors were int8 (re-typed and planned, not converted)\n"
    "  --prefix NAME  macro prefix, a C identifier (default: the file name in capitals,\n"
    "                 e.g. PERSON_DETECT_INT8 for person_detect_int8.tflite)\n"
    "  --inplace      plan with in-place sharing (smaller; the header then defines\n"
    "                 NAME_INPLACE 1: set ap_interpreter_options.inplace)\n"
    "  --model-array FILE.c  also write the model as a C array for flash:\n"
    "                 const unsigned char NAME_DATA[] (16-byte aligned)\n"
    "  --ops FILE     also write the ops the model uses, one a line (\"-\": stdout), for\n"
    "                 scripts/mcu_kernels.py (a firmware with only those kernels)\n"
    "  --plan FILE.c  also write the plan itself (const uint32_t NAME_PLAN[]: each tensor's\n"
    "                 and scratch's offset, the segments, a fingerprint of the model) for\n"
    "                 ap_interpreter_create_planned (include/arenaplan/planned.h): a device\n"
    "                 then links no planner; the header adds NAME_PLAN_WORDS and\n"
    "                 NAME_PLAN_BUFFER_BYTES. Sizes are then for the kernels of\n"
    "                 --plan-kernels: portable (default: the fast kernels' C level, as a\n"
    "                 Cortex-M runs them, AP_SIMD=generic) or reference\n" CLI_KERNELS_USAGE
        CLI_BUDGET_USAGE
    "                       (NAME_ARENA_BYTES is for them; NAME_ARENA_BYTES_REFERENCE,\n"
    "                       _SMALL and _FAST give each choice's arena, one thread; small and\n"
    "                       reference define NAME_KERNELS)\n"
    "Writes to stdout: NAME_ARENA_BYTES, NAME_PERSISTENT_BYTES, NAME_TABLES_BYTES,\n"
    "NAME_BUFFER_BYTES (all three), NAME_ALIGNMENT, NAME_MODEL_BYTES, NAME_INPUTk_BYTES,\n"
    "NAME_OUTPUTk_BYTES, the model's sha256, and NAME_ASSERT_ARENA_FITS(n) and\n"
    "NAME_ASSERT_BUFFER_FITS(n), which fail to compile when n is too small.\n"};

/* "models/person_detect_int8.tflite" -> "PERSON_DETECT_INT8". */
static void default_prefix(const char *path, char *buf, size_t size) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t o = 0;
  if (!isalpha((unsigned char)*base) && o + 1 < size) buf[o++] = 'M';
  for (const char *c = base; *c && *c != '.' && o + 1 < size; c++)
    buf[o++] = isalnum((unsigned char)*c) ? (char)toupper((unsigned char)*c) : '_';
  buf[o] = '\0';
  if (o == 0 || (o == 1 && buf[0] == 'M')) snprintf(buf, size, "MODEL");
}

static bool identifier(const char *s) {
  if (!(isalpha((unsigned char)*s) || *s == '_') || strlen(s) > 64) return false;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return false;
  return true;
}

/* The library's header, with the what-if sizes and the plan's macros inside its include guard
 * (before the last #endif). */
static ap_status write_header(const ap_report *r, const char *prefix, const whatif *w,
                              const header_plan *plan) {
  if (!w && !plan) return ap_report_write_c_header(r, prefix, stdout);
  char *text = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&text, &n);
  if (!f) return AP_ERR_NOMEM;
  ap_status s = ap_report_write_c_header(r, prefix, f);
  if (fclose(f) != 0 && s == AP_OK) s = AP_ERR_NOMEM;
  char *end = s == AP_OK && text ? strstr(text, "\n#endif /*") : NULL;
  while (end && strstr(end + 1, "\n#endif /*"))
    end = strstr(end + 1, "\n#endif /*");
  if (!end) {
    free(text);
    return s == AP_OK ? AP_ERR_FORMAT : s;
  }
  fwrite(text, 1, (size_t)(end - text) + 1, stdout);
  if (plan) header_plan_macros(plan, prefix, stdout);
  if (w) {
    printf("\n/* What if the float32 tensors were int8 (arenaplan --what-if int8: weights int8, "
           "biases int32,\n * activations int8; re-typed and planned, not converted; int8 "
           "kernels' scratch not included). */\n");
    printf("#define %s_WHATIF_INT8_ARENA_BYTES %lluu /* inputs and outputs int8 */\n", prefix,
           (unsigned long long)w->io_int8.arena);
    printf("#define %s_WHATIF_INT8_IO_FLOAT_ARENA_BYTES %lluu /* inputs and outputs kept float "
           "*/\n",
           prefix, (unsigned long long)w->io_float.arena);
    printf("#define %s_WHATIF_INT8_WEIGHTS_BYTES %lluu\n", prefix,
           (unsigned long long)w->weights_after);
    printf("#define %s_WHATIF_INT8_PERSISTENT_BYTES %lluu /* variables */\n", prefix,
           (unsigned long long)w->persistent_after);
  }
  fputs(end + 1, stdout);
  free(text);
  return AP_OK;
}

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_header, argc, argv)) return AP_EXIT_OK;
  const char *path = NULL, *strategy = NULL, *prefix = NULL, *array = NULL, *ops = NULL, *v;
  const char *plan_out = NULL;
  bool inplace = false, what_if = false, stream = false, reorder = false, reference = false;
  cli_kernels kernels = {AP_KERNELS_AUTO, 0, 0};
  for (int i = 1; i < argc; i++) {
    int k = cli_kernels_arg(&cmd_header, argc, argv, &i, &kernels);
    if (k == 0) k = cli_budget_arg(&cmd_header, argc, argv, &i, &kernels);
    if (k < 0) return AP_EXIT_USAGE;
    if (k > 0) continue;
    if (strcmp(argv[i], "--inplace") == 0) {
      inplace = true;
      continue;
    }
    if (strcmp(argv[i], "--stream") == 0 || strcmp(argv[i], "--reorder") == 0) {
      *(argv[i][2] == 's' ? &stream : &reorder) = true;
      continue;
    }
    if (strcmp(argv[i], "--model-array") == 0 || strcmp(argv[i], "--ops") == 0) {
      if (!(v = cli_value(&cmd_header, argc, argv, &i))) return AP_EXIT_USAGE;
      *(argv[i - 1][2] == 'm' ? &array : &ops) = v;
      continue;
    }
    if (strcmp(argv[i], "--plan") == 0) {
      if (!(plan_out = cli_value(&cmd_header, argc, argv, &i))) return AP_EXIT_USAGE;
      continue;
    }
    if (strcmp(argv[i], "--plan-kernels") == 0) {
      if (!(v = cli_value(&cmd_header, argc, argv, &i))) return AP_EXIT_USAGE;
      if (strcmp(v, "reference") != 0 && strcmp(v, "portable") != 0)
        return cli_usage_error(&cmd_header, "--plan-kernels %s: expected portable or reference", v);
      reference = v[0] == 'r';
      continue;
    }
    if (strcmp(argv[i], "--strategy") == 0) {
      if (!(v = cli_value(&cmd_header, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!cli_check_strategy(&cmd_header, v)) return AP_EXIT_USAGE;
      strategy = v;
    } else if (strcmp(argv[i], "--prefix") == 0) {
      if (!(v = cli_value(&cmd_header, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!identifier(v))
        return cli_usage_error(&cmd_header,
                               "--prefix \"%s\": expected a C identifier (letters, digits, _)", v);
      prefix = v;
    } else if (strcmp(argv[i], "--what-if") == 0) {
      if (!(v = cli_value(&cmd_header, argc, argv, &i))) return AP_EXIT_USAGE;
      if (!whatif_parse(&cmd_header, v)) return AP_EXIT_USAGE;
      what_if = true;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cli_usage_error(&cmd_header, "unknown option %s", argv[i]);
    } else if (!path) {
      path = argv[i];
    } else {
      return cli_usage_error(&cmd_header, "one model at a time (got \"%s\" too)", argv[i]);
    }
  }
  if (!path) return cli_usage_error(&cmd_header, "no model given");
  char def[72];
  if (!prefix) {
    default_prefix(path, def, sizeof def);
    prefix = def;
  }
  if (reorder && plan_out)
    return cli_usage_error(&cmd_header, "--plan with --reorder: plan the reordered model");
  /* A plan is for the device's kernels: their scratch sizes are the ones it holds. */
  if (plan_out && !reference) setenv("AP_SIMD", "generic", 1);
  if (plan_out && reference) kernels.kernels = AP_KERNELS_REFERENCE;
  /* The device runs one kernel per op family (its plan carries no per-op choice): the
   * portable fast kernels everywhere, unless a budget asks for a choice (then the plan is
   * refused when it mixes them). */
  if (plan_out && kernels.kernels == AP_KERNELS_AUTO && !kernels.budget)
    kernels.kernels = AP_KERNELS_FAST;
  ap_model *m = cli_open_model(path);
  if (!m) return AP_EXIT_USAGE;
  header_plan plan = {0};
  ap_report *r = NULL;
  ap_report_options o = {.strategy = strategy,
                         .inplace = inplace,
                         .stream = stream,
                         .kernels = kernels.kernels,
                         .small_scratch = (size_t)kernels.small,
                         .budget = kernels.budget};
  int rc = AP_EXIT_OK;
  whatif w;
  char why[512];
  ap_model_plan_options po = ap_model_plan_defaults();
  po.strategy = strategy;
  cli_reordered x = {0};
  if (reorder && !cli_reorder(path, m, NULL, &x))
    rc = AP_EXIT_USAGE;
  else if (plan_out && (rc = header_make_plan(path, m, strategy, inplace, stream, reference,
                                              &plan)) != AP_EXIT_OK)
    ;
  else if (what_if && whatif_int8(m, &po, &w, why, sizeof why) != AP_OK)
    rc = cli_fail(path, "--what-if int8: %s", why);
  else if (ap_report_create(cli_reordered_model(&x, m), &o, NULL, &r) != AP_OK)
    rc = cli_fail(path, "%s", ap_report_error(r));
  else if (write_header(r, prefix, what_if ? &w : NULL, plan_out ? &plan : NULL) != AP_OK)
    rc = cli_fail(path, "could not write the header");
  else if (!ap_report_estimate(r)->from_runtime)
    fprintf(stderr,
            "arenaplan: %s: note: the runtime could not allocate the model (%s); "
            "persistent is the variable tensors only, tables 0\n",
            path, ap_report_estimate(r)->runtime_error);
  if (rc == AP_EXIT_OK && array) rc = header_write_model_array(m, prefix, array);
  if (rc == AP_EXIT_OK && ops) rc = header_write_ops(m, ops);
  if (rc == AP_EXIT_OK && plan_out) rc = header_write_plan(&plan, m, prefix, plan_out);
  header_plan_free(&plan);
  ap_report_destroy(r);
  cli_reordered_free(&x);
  ap_model_destroy(m);
  return rc;
}
