/* `arenaplan ops` lists what the runtime runs, with the types the oracle proves; `info` marks
 * the ops of a model this build cannot run (ap_op_supported). */
#include "test.h"

#include "arenaplan/arenaplan.h"

#include <stdlib.h>
#include <string.h>

static int cli(const char *args, char **out) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", ap_test_cli(), args);
  return ap_test_run(cmd, false, out);
}

static size_t count_lines(const char *s) {
  size_t n = 0;
  for (; s && *s; s++)
    n += *s == '\n';
  return n;
}

int main(void) {
  char *out = NULL;
  /* Text: a heading, a column line, then one line per op the library lists. */
  CHECK_EQ(cli("ops", &out), 0);
  size_t n = ap_supported_op_count();
  CHECK(n > 60);
  CHECK_EQ(count_lines(out), n + 2);
  CHECK(strstr(out, "\n  CONV_2D ") != NULL);
  CHECK(strstr(out, "\n  WHILE ") != NULL); /* the runtime's own ops are listed too */
  free(out);
  /* Every op the library lists is found by name, and CONV_2D runs int8 by the oracle. */
  bool conv_int8 = false;
  for (size_t i = 0; i < n; i++) {
    ap_op_support o;
    CHECK_EQ(ap_supported_op(i, &o), AP_OK);
    CHECK(o.name && o.name[0] && o.types);
    if (strcmp(o.name, "CONV_2D") == 0) conv_int8 = strstr(o.types, "int8") != NULL;
  }
  CHECK(conv_int8);
  ap_op_support o;
  CHECK_EQ(ap_supported_op(n, &o), AP_ERR_RANGE);
  CHECK_EQ(ap_supported_op(0, NULL), AP_ERR_ARG);

  CHECK_EQ(cli("ops --json", &out), 0);
  CHECK(strncmp(out, "{\"schema_version\": 1, \"builtin_count\": ", 39) == 0);
  CHECK(strstr(out, "\"name\": \"CONV_2D\", \"builtin\": 3, \"custom\": false, \"types\": [") !=
        NULL);
  free(out);
  CHECK_EQ(cli("ops --bogus", &out), 2);
  CHECK(strstr(out, "arenaplan: ops: unexpected argument '--bogus'") != NULL ||
        strstr(out, "unexpected argument '--bogus'") != NULL);
  free(out);

  ap_test_require_shared();
  char path[4096], args[4200];
  /* The NPU model: its one ethos-u op is marked, with the reason. */
  ap_test_path(path, sizeof path, "models/person_detect_vela.tflite");
  snprintf(args, sizeof args, "info '%s'", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK(
      strstr(out, "cannot run here (see arenaplan ops):\n  subgraph 0 op 0     CUSTOM(ethos-u)") !=
      NULL);
  CHECK(strstr(out, "CUSTOM(ethos-u)              custom op, not built in\n") != NULL);
  free(out);
  snprintf(args, sizeof args, "info --json '%s'", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK(strstr(out, "\"unsupported_ops\":[{\"subgraph\":0,\"op\":0,\"why\":\"custom op, not built "
                    "in\"}]") != NULL);
  free(out);
  /* A model that runs: every op has a kernel. */
  ap_test_path(path, sizeof path, "models/person_detect_int8.tflite");
  snprintf(args, sizeof args, "info '%s'", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK(strstr(out, "runtime: this build has a kernel for all 31 ops\n") != NULL);
  free(out);
  return ap_test_done();
}
