/* `arenaplan info`: exit statuses, the exact one-line errors for files that are not models,
 * and output shape (lines within 100 columns, JSON keys) on the shared models. */
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

/* Runs `arenaplan ARGS`, returning the exit status; stderr only in *err, stdout in *out. */
static int cli(const char *args, char **out, char **err) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' %s 2>/dev/null", ap_test_cli(), args);
  int rc = ap_test_run(cmd, false, out);
  snprintf(cmd, sizeof cmd, "'%s' %s 2>&1 >/dev/null", ap_test_cli(), args);
  ap_test_run(cmd, false, err);
  return rc;
}

static void write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (!f) return;
  CHECK(fwrite(data, 1, n, f) == n);
  fclose(f);
}

/* The file gives exit 2, nothing on stdout, and exactly `want` (one line) on stderr. */
static void check_error(const char *path, const char *want_msg) {
  char args[4200], want[4200];
  char *out = NULL, *err = NULL;
  snprintf(args, sizeof args, "info '%s'", path);
  CHECK_EQ(cli(args, &out, &err), 2);
  snprintf(want, sizeof want, "arenaplan: %s: %s\n", path, want_msg);
  CHECK_STR(err, want);
  CHECK_STR(out, "");
  free(out);
  free(err);
  snprintf(args, sizeof args, "info --json '%s'", path); /* errors are not JSON */
  CHECK_EQ(cli(args, &out, &err), 2);
  CHECK_STR(err, want);
  free(out);
  free(err);
}

static void bad_files(void) {
  char dir[] = "/tmp/ap_test_info_XXXXXX", path[256];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/missing.tflite", dir);
  check_error(path, "cannot open: No such file or directory");
  check_error(dir, "is a directory, not a model file");
  snprintf(path, sizeof path, "%s/empty.tflite", dir);
  write_file(path, "", 0);
  check_error(path, "empty file (0 bytes)");
  snprintf(path, sizeof path, "%s/garbage.tflite", dir);
  write_file(path, "hello, this is plain text\n", 26);
  /* "hell" read as a little-endian uint32 is 0x6c6c6568 = 1819043176. */
  check_error(path, "not a FlatBuffer: root table offset 1819043176 is outside the file (file is "
                    "26 bytes), file identifier \"o, t\" (a TFLite model has \"TFL3\")");
  snprintf(path, sizeof path, "%s/tiny.tflite", dir);
  write_file(path, "TFL3", 4);
  check_error(path,
              "not a TFLite model: file is 4 bytes, smaller than a FlatBuffer header (8 bytes)");
  /* A FlatBuffer-shaped file (root offset 12, inside) with another identifier. */
  static const uint8_t other[16] = {12, 0, 0, 0, 'A', 'B', 'C', 'D'};
  snprintf(path, sizeof path, "%s/other.bin", dir);
  write_file(path, other, sizeof other);
  check_error(path, "not a TFLite model: file identifier is \"ABCD\", expected \"TFL3\"");
  /* The identifier right, the root table past the end. */
  static const uint8_t cut[16] = {0x20, 0, 0, 0, 'T', 'F', 'L', '3'};
  snprintf(path, sizeof path, "%s/cut.tflite", dir);
  write_file(path, cut, sizeof cut);
  check_error(path, "truncated: file is 16 bytes, root table offset 32");
  const char *names[] = {"missing.tflite", "empty.tflite", "garbage.tflite",
                         "tiny.tflite",    "other.bin",    "cut.tflite"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
}

static void usage(void) {
  char *out = NULL, *err = NULL;
  CHECK_EQ(cli("info", &out, &err), 2);
  CHECK_CONTAINS(err, "arenaplan: info: missing MODEL");
  free(out), free(err);
  CHECK_EQ(cli("info --frobnicate x.tflite", &out, &err), 2);
  CHECK_CONTAINS(err, "arenaplan: info: unknown option '--frobnicate'");
  free(out), free(err);
  CHECK_EQ(cli("info a.tflite b.tflite", &out, &err), 2);
  CHECK_CONTAINS(err, "one MODEL only");
  free(out), free(err);
  CHECK_EQ(cli("info --help", &out, &err), 0);
  CHECK_CONTAINS(out, "usage: arenaplan info MODEL [--json] [--tensors] [--ops]");
  free(out), free(err);
  CHECK_EQ(cli("--help", &out, &err), 0);
  CHECK_CONTAINS(out, "  info ");
  free(out), free(err);
}

static size_t longest_line(const char *s) {
  size_t longest = 0;
  while (s && *s) {
    const char *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) : strlen(s);
    if (len > longest) longest = len;
    s = nl ? nl + 1 : s + len;
  }
  return longest;
}

static void shared_models(void) {
  char names[64][64], path[4096], args[4200];
  size_t n = ap_test_models(names, 64);
  CHECK(n > 0);
  for (size_t i = 0; i < n; i++) {
    char *out = NULL, *err = NULL;
    /* From inside the models folder: the lines are ours, not a long path's. */
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' info --tensors --ops '%s'",
             ap_test_path(path, sizeof path, "models"), ap_test_cli(), names[i]);
    CHECK_EQ(ap_test_run(cmd, false, &out), 0);
    CHECK_MSG(longest_line(out) <= 100, "%s: a line of %zu columns", names[i], longest_line(out));
    free(out);
    snprintf(args, sizeof args, "info --tensors --ops '%s'",
             ap_test_path(path, sizeof path, "models/%s", names[i]));
    CHECK_EQ(cli(args, &out, &err), 0);
    CHECK_STR(err, "");
    free(out), free(err);
    snprintf(args, sizeof args, "info --json '%s'", path);
    CHECK_EQ(cli(args, &out, &err), 0);
    CHECK(out && strncmp(out, "{\"schema_version\":1,", 20) == 0);
    free(out), free(err);
  }
  /* hello_world_float (MANIFEST.tsv): 3 FULLY_CONNECTED, input float32 with shape_signature
   * [-1,1], 10 tensors, signature serving_default, metadata CONVERSION_METADATA. */
  char *out = NULL, *err = NULL;
  ap_test_path(path, sizeof path, "models/hello_world_float.tflite");
  snprintf(args, sizeof args, "info --json '%s'", path);
  CHECK_EQ(cli(args, &out, &err), 0);
  CHECK_CONTAINS(out, "\"op_histogram\":{\"FULLY_CONNECTED\":3}");
  CHECK_CONTAINS(out, "\"tensor_count\":10,\"op_count\":3");
  CHECK_CONTAINS(out, "\"type\":\"FLOAT32\",\"shape\":[1,1],\"shape_signature\":[-1,1]");
  CHECK_CONTAINS(out, "{\"key\":\"serving_default\",\"subgraph\":0");
  CHECK_CONTAINS(out, "{\"name\":\"CONVERSION_METADATA\",");
  free(out), free(err);
  snprintf(args, sizeof args, "info '%s'", path);
  CHECK_EQ(cli(args, &out, &err), 0);
  CHECK_CONTAINS(out, "  FULLY_CONNECTED                         3\n");
  CHECK_CONTAINS(out, "FLOAT32  [-1,1]");
  free(out), free(err);
}

/* A real model cut in half, and one with a byte of its root table's vtable offset changed:
 * exit 2 and one line naming the file. */
static void corrupt_models(void) {
  char path[4096], tmp[] = "/tmp/ap_test_info_cut_XXXXXX", args[4200], prefix[128];
  size_t size;
  uint8_t *b =
      ap_test_read_file(ap_test_path(path, sizeof path, "models/micro_speech_int8.tflite"), &size);
  CHECK(b != NULL);
  int fd = mkstemp(tmp);
  CHECK(fd >= 0);
  if (!b || fd < 0) return;
  close(fd);
  snprintf(args, sizeof args, "info '%s'", tmp);
  snprintf(prefix, sizeof prefix, "arenaplan: %s: ", tmp);
  for (int round = 0; round < 2; round++) {
    if (round == 0) {
      write_file(tmp, b, size / 2);
    } else {
      uint32_t root;
      memcpy(&root, b, 4);
      b[root + 3] ^= 0x40; /* the soffset to the vtable, now 2^30 away */
      write_file(tmp, b, size);
    }
    char *out = NULL, *err = NULL;
    CHECK_EQ(cli(args, &out, &err), 2);
    CHECK(err && strncmp(err, prefix, strlen(prefix)) == 0);
    CHECK(err && strchr(err, '\n') == err + strlen(err) - 1); /* exactly one line */
    CHECK_STR(out, "");
    free(out), free(err);
  }
  unlink(tmp);
  free(b);
}

int main(void) {
  bad_files();
  usage();
  ap_test_require_shared();
  shared_models();
  corrupt_models();
  return ap_test_done();
}
