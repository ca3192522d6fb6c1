/* TFLite's C API on every shared model: tests/compat/minimal.c (TFLite's minimal C API example,
 * written against tensorflow/lite/c/c_api.h alone) linked with -ltensorflowlite_c, and the same
 * source loaded through dlopen("libtensorflowlite_c.so"), each run with the oracle's seeded
 * inputs. Where `arenaplan run` runs the model, both give its output bytes exactly, and TFLite
 * Micro's (shared/oracle/tflm) where the oracle has them; every getter's line matches the
 * runtime's own view of the tensor (name, type, dims, bytes, quantization). Where `arenaplan
 * run` refuses the model, both fail with the reason through the error reporter. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static char tmp[] = "/tmp/ap_capi_XXXXXX";
static size_t ran, refused, oracle_models;

/* The line minimal.c prints for a tensor, from the runtime's view (TFLite's type names). */
static void expected_line(char *buf, size_t size, const char *kind, size_t k, const ap_tensor *t) {
  static const char *const tflite_name[AP_DTYPE_COUNT] = {
      [AP_FLOAT32] = "FLOAT32", [AP_FLOAT16] = "FLOAT16", [AP_INT32] = "INT32",
      [AP_UINT8] = "UINT8",     [AP_INT64] = "INT64",     [AP_STRING] = "STRING",
      [AP_BOOL] = "BOOL",       [AP_INT16] = "INT16",     [AP_INT8] = "INT8",
      [AP_FLOAT64] = "FLOAT64", [AP_UINT32] = "UINT32",   [AP_UINT16] = "UINT16"};
  const char *type =
      t->type >= 0 && t->type < AP_DTYPE_COUNT && tflite_name[t->type] ? tflite_name[t->type] : "?";
  size_t o = (size_t)snprintf(buf, size, "%s %zu name=%s type=%s dims=[", kind, k, t->name, type);
  for (int d = 0; d < t->rank && o < size; d++)
    o += (size_t)snprintf(buf + o, size - o, "%s%d", d ? "," : "", (int)t->dims[d]);
  if (o < size)
    snprintf(buf + o, size - o, "] bytes=%zu scale=%.9g zero_point=%d\n", t->bytes,
             (double)(t->quant_count ? t->scale : 0.0f), t->quant_count ? (int)t->zero_point : 0);
}

static void check_file(const char *model, const char *got, const char *want, const char *what) {
  size_t n = 0, m = 0;
  uint8_t *a = ap_test_read_file(got, &n), *b = ap_test_read_file(want, &m);
  CHECK_MSG(a && b, "%s: cannot read %s or %s", model, got, want);
  if (a && b)
    CHECK_MSG(n == m && memcmp(a, b, n) == 0, "%s: %s (%zu bytes) differs from %s (%zu bytes)",
              model, got, n, what, m);
  free(a);
  free(b);
}

/* The getter lines minimal.c must print, from the runtime's own view of the allocated model
 * (outputs of dynamic shape are checked by their files). */
static void check_lines(const char *name, const char *path, const char *out) {
  ap_model *m = NULL;
  ap_interpreter *it = NULL;
  ap_interpreter_options o = ap_interpreter_defaults();
  if (ap_model_open(path, NULL, &m) != AP_OK || ap_interpreter_create(m, &o, &it) != AP_OK ||
      ap_interpreter_allocate(it) != AP_OK) {
    CHECK_MSG(0, "%s: the runtime refuses what the CLI ran", name);
    ap_interpreter_destroy(it);
    ap_model_destroy(m);
    return;
  }
  char line[1024];
  for (size_t k = 0; k < ap_interpreter_input_count(it); k++) {
    ap_tensor t;
    ap_interpreter_input(it, k, &t);
    expected_line(line, sizeof line, "input", k, &t);
    CHECK_CONTAINS(out, line);
  }
  for (size_t k = 0; k < ap_interpreter_output_count(it); k++) {
    ap_tensor t;
    ap_interpreter_output(it, k, &t);
    if (t.is_dynamic) continue; /* bytes known only after the invoke: checked by the files */
    expected_line(line, sizeof line, "output", k, &t);
    CHECK_CONTAINS(out, line);
  }
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
}

static void run_model(const char *name, uint64_t seed) {
  char path[4096], cmd[16384], dir[4096];
  ap_test_path(path, sizeof path, "models/%s.tflite", name);
  const char *variants[3] = {"cli", "linked", "dlopen"};
  for (int v = 0; v < 3; v++) {
    snprintf(dir, sizeof dir, "%s/%s", tmp, variants[v]);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    CHECK_EQ(system(cmd), 0);
  }
  char *cli = NULL, *linked = NULL, *dl = NULL;
  snprintf(cmd, sizeof cmd, "'%s' run '%s' --iterations 1 --seed %llu --output '%s/cli'",
           ap_test_cli(), path, (unsigned long long)seed, tmp);
  int cli_rc = ap_test_run(cmd, true, &cli);
  snprintf(cmd, sizeof cmd, "'%s/tests/compat_minimal' '%s' %llu '%s/linked'", AP_BUILD_DIR, path,
           (unsigned long long)seed, tmp);
  int linked_rc = ap_test_run(cmd, true, &linked);
  snprintf(cmd, sizeof cmd,
           "LD_LIBRARY_PATH='%s' '%s/tests/compat_dlopen_run' libtensorflowlite_c.so "
           "'%s/tests/libcompat_minimal_module.so' '%s' %llu '%s/dlopen'",
           AP_BUILD_DIR, AP_BUILD_DIR, AP_BUILD_DIR, path, (unsigned long long)seed, tmp);
  int dl_rc = ap_test_run(cmd, true, &dl);
  if (cli_rc == 0) {
    ran++;
    CHECK_MSG(linked_rc == 0, "%s: minimal exits %d:\n%s", name, linked_rc, linked ? linked : "");
    CHECK_MSG(dl_rc == 0, "%s: dlopen exits %d:\n%s", name, dl_rc, dl ? dl : "");
    CHECK_MSG(linked && dl && strcmp(linked, dl) == 0, "%s: linked and dlopen print differently",
              name);
    if (linked) check_lines(name, path, linked);
    for (int k = 0;; k++) {
      char want[4096], got[4096], oracle[4096];
      snprintf(want, sizeof want, "%s/cli/output%d.bin", tmp, k);
      if (access(want, R_OK) != 0) {
        CHECK_MSG(k > 0, "%s: the CLI wrote no output", name);
        break;
      }
      snprintf(got, sizeof got, "%s/linked/output%d.bin", tmp, k);
      check_file(name, got, want, "arenaplan run's");
      snprintf(got, sizeof got, "%s/dlopen/output%d.bin", tmp, k);
      check_file(name, got, want, "arenaplan run's");
      ap_test_path(oracle, sizeof oracle, "oracle/tflm/%s.seed%llu.output%d.bin", name,
                   (unsigned long long)seed, k);
      if (access(oracle, R_OK) == 0) {
        snprintf(got, sizeof got, "%s/linked/output%d.bin", tmp, k);
        check_file(name, got, oracle, "TFLite Micro's");
        if (k == 0) oracle_models++;
      }
    }
  } else {
    refused++;
    /* The CLI's reason, through minimal.c's reporter ("minimal: ..."), and NULL/error codes
     * handled without a crash (exit 1, not a signal). */
    CHECK_MSG(linked_rc == 1 && linked && strstr(linked, "minimal: "),
              "%s: the CLI refuses it (%d), minimal exits %d:\n%s", name, cli_rc, linked_rc,
              linked ? linked : "");
    CHECK_MSG(dl_rc == 1, "%s: dlopen exits %d", name, dl_rc);
  }
  free(cli);
  free(linked);
  free(dl);
}

int main(void) {
  ap_test_require_shared();
  if (!mkdtemp(tmp)) {
    perror("mkdtemp");
    return 1;
  }
  static char names[128][64];
  size_t n = ap_test_models(names, 128);
  CHECK(n >= 20);
  for (size_t i = 0; i < n; i++) {
    /* conformer_float takes seconds per run unoptimised: the ASan build runs the rest. */
    if (SANITIZED && strcmp(names[i], "conformer_float") == 0) continue;
    char *dot = strstr(names[i], ".tflite");
    if (dot) *dot = '\0';
    run_model(names[i], 1);
    if (!SANITIZED) run_model(names[i], 2);
  }
  printf("%zu runs, %zu refused by the CLI and the C API alike, %zu checked against TFLite Micro\n",
         ran, refused, oracle_models);
  /* The oracle has 23 models the runtime runs: each (model, seed) above that it covers. */
  CHECK(oracle_models >= (SANITIZED ? 22u : 44u));
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  CHECK_EQ(system(cmd), 0);
  return ap_test_done();
}
