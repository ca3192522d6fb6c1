/* `arenaplan header`: the header compiles with gcc -Wall -Wextra -Werror as C11 and C99, its
 * macros hold the numbers `arenaplan plan --json` and the runtime report independently, its
 * size checks fail to compile when a buffer is one byte short, and its sha256 is the one
 * MANIFEST.tsv records. */
#include "arenaplan/arenaplan.h"
#include "support/json.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/ap_test_header_XXXXXX";

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

/* Compiles prog.c (which includes model.h) with -std=STD; returns gcc's status. */
static int compile(const char *std, const char *prog, char **out) {
  char path[600], cmd[2048];
  snprintf(path, sizeof path, "%s/prog.c", dir);
  write_text(path, prog);
  snprintf(cmd, sizeof cmd, "cd %s && gcc -std=%s -Wall -Wextra -Werror -pedantic prog.c -o prog",
           dir, std);
  return sh(cmd, out);
}

static int64_t json_int(const char *args, const char *key) {
  char cmd[2048], *out = NULL;
  snprintf(cmd, sizeof cmd, "'%s' %s", ap_test_cli(), args);
  CHECK_EQ(ap_test_run(cmd, false, &out), 0);
  ap_json *j = ap_json_parse(out);
  int64_t v = -1;
  CHECK(j && ap_json_i64(j, key, &v));
  ap_json_free(j);
  free(out);
  return v;
}

static const char *prog_print =
    "#include <stdio.h>\n#include \"model.h\"\n"
    "static unsigned char buffer[P_BUFFER_BYTES];\n"
    "P_ASSERT_BUFFER_FITS(sizeof buffer);\n"
    "P_ASSERT_ARENA_FITS(P_ARENA_BYTES);\n"
    "int main(void) {\n"
    "  printf(\"%lu %lu %lu %lu %lu %lu %lu %lu %lu %lu\\n\", (unsigned long)P_ARENA_BYTES,\n"
    "         (unsigned long)P_PERSISTENT_BYTES, (unsigned long)P_TABLES_BYTES,\n"
    "         (unsigned long)P_BUFFER_BYTES, (unsigned long)P_ALIGNMENT,\n"
    "         (unsigned long)P_MODEL_BYTES, (unsigned long)P_INPUT_COUNT,\n"
    "         (unsigned long)P_INPUT0_BYTES, (unsigned long)P_OUTPUT_COUNT,\n"
    "         (unsigned long)P_OUTPUT0_BYTES);\n"
    "  return (int)sizeof buffer[0] - 1;\n}\n";

/* The smallest 16-aligned caller-owned buffer the interpreter accepts, by bisection from
 * `low` (arena + persistent + tables: never enough less). */
static uint64_t buffer_need(const ap_model *m, uint64_t low) {
  uint64_t lo = low, hi = 2 * low + 4096; /* lo - 1 fails (or is below the sum); hi works */
  uint8_t *raw = malloc(hi + 16);
  uint8_t *buf = raw + (16 - (uintptr_t)raw % 16) % 16;
  CHECK(low > 0);
  if (lo > 0) lo--;
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    ap_interpreter_options io = ap_interpreter_defaults();
    io.arena = buf;
    io.arena_size = mid;
    ap_interpreter *it = NULL;
    bool ok = ap_interpreter_create(m, &io, &it) == AP_OK && ap_interpreter_allocate(it) == AP_OK;
    ap_interpreter_destroy(it);
    if (ok)
      hi = mid;
    else
      lo = mid;
  }
  free(raw);
  return hi;
}

static void model(const char *name, const char *sha) {
  char path[1024], cmd[4096], *out = NULL;
  ap_test_path(path, sizeof path, "models/%s", name);
  snprintf(cmd, sizeof cmd, "'%s' header '%s' --prefix P > %s/model.h", ap_test_cli(), path, dir);
  CHECK_EQ(sh(cmd, &out), 0);
  free(out);
  snprintf(cmd, sizeof cmd, "%s/model.h", dir);
  size_t n = 0;
  char *h = (char *)ap_test_read_file(cmd, &n), want[128];
  snprintf(want, sizeof want, "\n * model sha256: %s\n", sha);
  CHECK_CONTAINS(h, want);
  free(h);

  /* The independent figures: plan --json's arena, the runtime's regions and I/O bytes. */
  char args[1200];
  snprintf(args, sizeof args, "plan '%s' --json", path);
  int64_t arena = json_int(args, "arena_bytes");
  ap_model *m = NULL;
  ap_interpreter *it = NULL;
  ap_memory_usage mu = {0};
  CHECK_EQ(ap_model_open(path, NULL, &m), AP_OK);
  CHECK_EQ(ap_interpreter_create(m, NULL, &it), AP_OK);
  CHECK_EQ(ap_interpreter_allocate(it), AP_OK);
  CHECK_EQ(ap_interpreter_memory(it, &mu), AP_OK);
  size_t file = 0;
  ap_model_bytes(m, &file);
  /* With kernel scratch the runtime's arena is larger than plan's (model shapes only). */
  CHECK(mu.arena >= (uint64_t)arena);
  ap_tensor in0, out0;
  CHECK(ap_interpreter_input(it, 0, &in0) == AP_OK && ap_interpreter_output(it, 0, &out0) == AP_OK);
  unsigned long want_vals[10] = {
      (unsigned long)mu.arena,
      (unsigned long)mu.persistent,
      (unsigned long)mu.tables,
      (unsigned long)buffer_need(m, mu.arena + mu.persistent + mu.tables),
      16,
      (unsigned long)file,
      (unsigned long)ap_interpreter_input_count(it),
      (unsigned long)in0.bytes,
      (unsigned long)ap_interpreter_output_count(it),
      (unsigned long)out0.bytes};
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  char expect[512] = "";
  for (int i = 0; i < 10; i++)
    snprintf(expect + strlen(expect), sizeof expect - strlen(expect), "%s%lu", i ? " " : "",
             want_vals[i]);
  strcat(expect, "\n");

  /* C11: the checks work at block scope too, silently when the size is enough. */
  CHECK_EQ(compile("c11",
                   "#include \"model.h\"\nint main(void) {\n  P_ASSERT_ARENA_FITS(P_ARENA_BYTES);"
                   "\n  return 0;\n}\n",
                   &out),
           0);
  free(out);
  static const char *stds[] = {"c11", "c99"};
  for (int s = 0; s < 2; s++) {
    CHECK_MSG(compile(stds[s], prog_print, &out) == 0, "%s %s: %s", name, stds[s], out);
    free(out);
    snprintf(cmd, sizeof cmd, "%s/prog", dir);
    CHECK_EQ(ap_test_run(cmd, false, &out), 0);
    CHECK_STR(out, expect);
    free(out);
    /* One byte short: both checks refuse to compile. */
    CHECK(compile(stds[s],
                  "#include \"model.h\"\nstatic unsigned char b[P_BUFFER_BYTES - 1];\n"
                  "P_ASSERT_BUFFER_FITS(sizeof b);\nint main(void) { return b[0]; }\n",
                  &out) != 0);
    CHECK_CONTAINS(out, "P_too_small");
    free(out);
    CHECK(compile(stds[s],
                  "#include \"model.h\"\nP_ASSERT_ARENA_FITS(P_ARENA_BYTES - 1);\n"
                  "int main(void) { return 0; }\n",
                  &out) != 0);
    free(out);
  }
}

int main(void) {
  ap_test_require_shared();
  CHECK(mkdtemp(dir) != NULL);
  model("hello_world_int8.tflite",
        "505ee4fae7fa46ab67bea4c08b4969eb3eb8b9114c50595ec4a29d9a27993202");
  model("person_detect_int8.tflite",
        "808cfdfc0cf3a6fa6f6fa26bfa379ea97c16d5db7334637766e39c3408502e9d");

  /* The default prefix comes from the file name; a bad --prefix is a usage error. */
  char path[1024], cmd[2048], *out = NULL;
  ap_test_path(path, sizeof path, "models/person_detect_int8.tflite");
  snprintf(cmd, sizeof cmd, "'%s' header '%s'", ap_test_cli(), path);
  CHECK_EQ(ap_test_run(cmd, false, &out), 0);
  CHECK_CONTAINS(out, "\n#ifndef PERSON_DETECT_INT8_ARENA_H\n");
  CHECK_CONTAINS(out, "\n#define PERSON_DETECT_INT8_ALIGNMENT 16u\n");
  free(out);
  snprintf(cmd, sizeof cmd, "'%s' header '%s' --prefix 9x", ap_test_cli(), path);
  CHECK_EQ(sh(cmd, &out), 2);
  CHECK_CONTAINS(out, "arenaplan: header: --prefix \"9x\": expected a C identifier");
  free(out);

  /* A model the runtime cannot allocate yet: the header says so and still compiles. */
  ap_test_path(path, sizeof path, "models/keyword_scrambled_svdf.tflite");
  snprintf(cmd, sizeof cmd, "'%s' header '%s' --prefix P 2>%s/note.txt > %s/model.h", ap_test_cli(),
           path, dir, dir);
  CHECK_EQ(ap_test_run(cmd, false, &out), 0);
  free(out);
  CHECK_EQ(
      compile("c11", "#include \"model.h\"\nint main(void) { return P_ARENA_BYTES == 0; }\n", &out),
      0);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK_EQ(sh(cmd, &out), 0);
  free(out);
  return ap_test_done();
}
