/* arenaplan ops: the builtin and custom ops this build runs, each with the input types the
 * oracle proves. */
#include "commands.h"

#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b) {
  const ap_op_support *x = a, *y = b;
  if ((x->builtin == 32) != (y->builtin == 32)) return x->builtin == 32 ? 1 : -1;
  return strcmp(x->name, y->name);
}

static int run(int argc, char **argv);

const ap_command cmd_ops = {
    "ops", "the ops this build runs, with their input types", run,
    "usage: arenaplan ops [--json]\n"
    "\n"
    "Lists every op the runtime runs without custom kernels of the caller: builtin kernels,\n"
    "the runtime's own ops (control flow, resource variables) and the custom ops TensorFlow\n"
    "Lite Micro ships, built in. Types are the input types proven byte-exact against TFLite\n"
    "Micro by shared/oracle/ops (int16x8: int16 activations with int8 weights; int8+int4w:\n"
    "int4 weights; hybrid: float activations over int8 weights); '-' where no single-op\n"
    "oracle model covers the op (it is proven by whole models). `arenaplan info MODEL` marks\n"
    "the ops of a model this build has no kernel for.\n"
    "\n"
    "  --json     machine-readable output (\"schema_version\": 1)\n"
    "\n"
    "Exit status: 0, or 2 on bad usage.\n"};

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_ops, argc, argv)) return AP_EXIT_OK;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0)
      json = true;
    else
      return cli_usage_error(&cmd_ops, "unexpected argument '%s'", argv[i]);
  }
  size_t n = ap_supported_op_count(), builtin = 0, custom = 0;
  ap_op_support *all = calloc(n ? n : 1, sizeof *all);
  if (!all) return cli_fail("ops", "out of memory");
  for (size_t i = 0; i < n; i++) {
    if (ap_supported_op(i, &all[i]) != AP_OK)
      n = i;
    else
      all[i].builtin == 32 ? custom++ : builtin++;
  }
  qsort(all, n, sizeof *all, by_name); /* builtins by name, then custom ops */
  ap_op_support o;
  if (json) {
    printf("{\"schema_version\": 1, \"builtin_count\": %zu, \"custom_count\": %zu, \"ops\": [",
           builtin, custom);
    for (size_t i = 0; i < n && (o = all[i], 1); i++) {
      printf("%s\n  {\"name\": ", i ? "," : "");
      cli_json_string(stdout, o.name);
      printf(", \"builtin\": %d, \"custom\": %s, \"types\": [", (int)o.builtin,
             o.builtin == 32 ? "true" : "false");
      const char *p = o.types;
      for (int k = 0; *p; k++) {
        const char *e = strchr(p, ' ');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        printf("%s\"%.*s\"", k ? ", " : "", (int)len, p);
        p += len + (e != NULL);
      }
      printf("]}");
    }
    printf("\n]}\n");
    free(all);
    return AP_EXIT_OK;
  }
  printf("%zu builtin ops and %zu custom ops run in this build\n", builtin, custom);
  printf("  %-36s %5s  %s\n", "op", "code", "input types (proven by shared/oracle/ops)");
  for (size_t i = 0; i < n && (o = all[i], 1); i++) {
    char name[128];
    snprintf(name, sizeof name, o.builtin == 32 ? "CUSTOM(%s)" : "%s", o.name);
    printf("  %-36s %5d  %s\n", name, (int)o.builtin, o.types[0] ? o.types : "-");
  }
  free(all);
  return AP_EXIT_OK;
}
