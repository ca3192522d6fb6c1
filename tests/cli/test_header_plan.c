/* `arenaplan header --plan`: the plan file and the header's plan macros compile with gcc -Wall
 * -Wextra -Werror -pedantic (C99 and C11), the array has the words the header says, a program
 * built from them creates a planned interpreter over the model file and runs it, a streamed
 * plan says so, and what a plan cannot carry is refused with the reason. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/ap_test_header_plan_XXXXXX";

static int sh(const char *cmd, char **out) {
  return ap_test_run(cmd, true, out);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

/* A file's text, NUL-terminated (malloc'd), or NULL. */
static char *read_text(const char *path) {
  size_t n = 0;
  uint8_t *b = ap_test_read_file(path, &n);
  char *t = b ? malloc(n + 1) : NULL;
  if (t) {
    memcpy(t, b, n);
    t[n] = '\0';
  }
  free(b);
  return t;
}

/* Runs `arenaplan header MODEL ARGS --plan DIR/plan.c > DIR/model.h`; returns the exit code. */
static int header(const char *model, const char *args, char **out) {
  char path[1024], cmd[4096];
  ap_test_path(path, sizeof path, "models/%s.tflite", model);
  snprintf(cmd, sizeof cmd, "('%s' header '%s' --prefix P %s --plan %s/plan.c > %s/model.h)",
           ap_test_cli(), path, args, dir, dir);
  return sh(cmd, out);
}

/* The header and plan.c with a main of our own, against the library (the test's build). */
static const char *prog =
    "#include <stdio.h>\n#include <stdlib.h>\n#include \"model.h\"\n"
    "#include \"arenaplan/planned.h\"\n"
    "static unsigned char buffer[P_PLAN_BUFFER_BYTES] __attribute__((aligned(16)));\n"
    "int main(int argc, char **argv) {\n"
    "  FILE *f = fopen(argv[argc - 1], \"rb\");\n"
    "  static unsigned char model[P_MODEL_BYTES] __attribute__((aligned(16)));\n"
    "  if (!f || fread(model, 1, sizeof model, f) != sizeof model) return 3;\n"
    "  fclose(f);\n"
    "  ap_interpreter *it = NULL;\n"
    "  ap_status s = ap_interpreter_create_planned_streamed(model, sizeof model, P_PLAN,\n"
    "                                                       P_PLAN_WORDS, buffer, sizeof buffer,\n"
    "                                                       &it);\n"
    "  if (s != AP_OK) { printf(\"create %s\\n\", it ? ap_interpreter_error(it) : \"-\"); return "
    "4; }\n"
    "  s = ap_interpreter_invoke(it);\n"
    "  printf(\"invoke %d words %u\\n\", (int)s, (unsigned)P_PLAN_WORDS);\n"
    "  ap_interpreter_destroy(it);\n"
    "  return s == AP_OK ? 0 : 5;\n}\n";

/* The library of a sanitized build needs its runtime linked into our program too. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZE " -fsanitize=address,undefined"
#elif defined(__SANITIZE_THREAD__)
#define SANITIZE " -fsanitize=thread"
#else
#define SANITIZE ""
#endif

static void build_and_run(const char *model, const char *std) {
  char path[1024], cmd[8192], *out = NULL;
  snprintf(path, sizeof path, "%s/prog.c", dir);
  write_text(path, prog);
  const char *src = AP_SOURCE_DIR, *lib = AP_BUILD_DIR; /* libarenaplan.a, built before us */
  ap_test_path(path, sizeof path, "models/%s.tflite", model);
  snprintf(cmd, sizeof cmd,
           "cd %s && gcc -std=%s -Wall -Wextra -Werror -pedantic -c plan.c && "
           "gcc -std=%s -Wall -Wextra -Werror" SANITIZE
           " -I'%s/include' prog.c plan.o '%s/libarenaplan.a' "
           "-lm -lpthread -o prog && AP_SIMD=generic ./prog '%s'",
           dir, std, std, src, lib, path);
  int rc = sh(cmd, &out);
  CHECK_MSG(rc == 0, "%s (%s): %s", model, std, out ? out : "");
  CHECK_CONTAINS(out, "invoke 0 words ");
  free(out);
}

int main(void) {
  ap_test_require_shared();
  CHECK(mkdtemp(dir) != NULL);
  char *out = NULL, path[1024];

  CHECK_EQ(header("hello_world_int8", "--inplace", &out), 0);
  free(out);
  snprintf(path, sizeof path, "%s/model.h", dir);
  char *h = read_text(path);
  CHECK(h != NULL);
  if (h) {
    CHECK_CONTAINS(h, "\n#define P_PLAN_WORDS 25u\n");
    CHECK_CONTAINS(h, "\n#define P_PLAN_BUFFER_BYTES ");
    CHECK_CONTAINS(h, "extern const uint32_t P_PLAN[P_PLAN_WORDS];");
    CHECK(strstr(h, "P_PLAN_STREAMED") == NULL);
    /* The plan's macros sit inside the include guard. */
    CHECK(strstr(h, "P_PLAN_WORDS") < strstr(h, "#endif /* P_ARENA_H */"));
  }
  free(h);
  snprintf(path, sizeof path, "%s/plan.c", dir);
  char *c = read_text(path);
  CHECK(c != NULL);
  if (c) {
    CHECK_CONTAINS(c, "const uint32_t P_PLAN[25] = {\n  0x31505041, 0x19,");
    CHECK_CONTAINS(c, "do not edit");
  }
  free(c);
  build_and_run("hello_world_int8", "c99");
  build_and_run("hello_world_int8", "c11");

  /* Streamed: the header says which entry point; the plan runs. */
  CHECK_EQ(header("person_detect_int8", "--inplace --stream", &out), 0);
  free(out);
  snprintf(path, sizeof path, "%s/model.h", dir);
  h = read_text(path);
  CHECK(h && strstr(h, "\n#define P_PLAN_STREAMED 1\n"));
  free(h);
  build_and_run("person_detect_int8", "c11");

  /* Reference kernels: planned for them, and it runs (the program's level is not asked). */
  CHECK_EQ(header("mlperf_kws_dscnn_int8", "--inplace --plan-kernels reference", &out), 0);
  free(out);
  build_and_run("mlperf_kws_dscnn_int8", "c11");

  /* What a plan cannot carry: refused with the reason, exit 2. */
  CHECK_EQ(header("while_multi_subgraph", "", &out), 2);
  CHECK_CONTAINS(out, "--plan: no plan for a device: the model has several subgraphs");
  free(out);
  CHECK_EQ(header("hello_world_int8", "--plan-kernels fast", &out), 2);
  CHECK_CONTAINS(out, "--plan-kernels fast: expected portable or reference");
  free(out);
  CHECK_EQ(header("hello_world_int8", "--reorder", &out), 2);
  CHECK_CONTAINS(out, "--plan with --reorder");
  free(out);

  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK_EQ(system(cmd), 0);
  return ap_test_done();
}
