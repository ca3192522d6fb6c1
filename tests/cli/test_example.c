/* `arenaplan example`: writes a deterministic model, reports usage errors with exit 2, and
 * (when ../shared's schema is there) its output decodes with flatc to the documented graph. */
#include "support/json.h"
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/ap_example_XXXXXX";

static int cli(const char *args, char **out) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s %s", ap_test_cli(), args);
  return ap_test_run(cmd, true, out);
}

static uint8_t *read_all(const char *name, size_t *size) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return ap_test_read_file(p, size);
}

static void test_usage_errors(void) {
  char *out = NULL;
  CHECK_EQ(cli("example", &out), 2);
  CHECK_CONTAINS(out, "arenaplan: example: no output file (-o OUT.tflite)\n");
  free(out);
  CHECK_EQ(cli("example -o /tmp/x.tflite --kind rnn", &out), 2);
  CHECK_CONTAINS(out, "arenaplan: example: unknown kind 'rnn' (cnn, mlp)\n");
  free(out);
  CHECK_EQ(cli("example -o /tmp/x.tflite --seed -3", &out), 2);
  CHECK_CONTAINS(out, "arenaplan: example: --seed needs a non-negative integer\n");
  free(out);
  CHECK_EQ(cli("example -o /tmp/x.tflite extra", &out), 2);
  CHECK_CONTAINS(out, "arenaplan: example: unexpected argument 'extra'\n");
  free(out);
  CHECK_EQ(cli("example -o", &out), 2);
  CHECK_CONTAINS(out, "arenaplan: example: -o needs a file name\n");
  free(out);
  CHECK_EQ(cli("example -o /nonexistent-dir/m.tflite", &out), 2);
  CHECK_STR(out, "arenaplan: /nonexistent-dir/m.tflite: cannot create: No such file or "
                 "directory\n");
  free(out);
  CHECK_EQ(cli("example --help", &out), 0);
  CHECK_CONTAINS(out, "usage: arenaplan example -o OUT.tflite");
  free(out);
  CHECK_EQ(cli("--help", &out), 0);
  CHECK_CONTAINS(out, "  example    write a small float32 model to try arenaplan on\n");
  free(out);
}

static void test_deterministic(void) {
  char args[1024], *out = NULL;
  snprintf(args, sizeof args, "example -o %s/a.tflite", dir);
  CHECK_EQ(cli(args, &out), 0);
  free(out);
  snprintf(args, sizeof args, "example --seed 1 -o %s/b.tflite", dir);
  CHECK_EQ(cli(args, &out), 0);
  free(out);
  snprintf(args, sizeof args, "example --seed 2 --json -o %s/c.tflite", dir);
  CHECK_EQ(cli(args, &out), 0);
  /* Weights: four filters/matrices and their biases, 8*27+8 + 72+8 + 64+8 + 80+10
   * floats = 466 floats = 1864 bytes, plus the int32 reshape shape (not counted as weights). */
  CHECK_CONTAINS(out, "\"kind\": \"cnn\", \"seed\": 2,");
  CHECK_CONTAINS(out, "\"weight_bytes\": 1864, \"tensors\": 18, \"ops\": 8}");
  free(out);
  size_t na, nb, nc;
  uint8_t *a = read_all("a.tflite", &na), *b = read_all("b.tflite", &nb),
          *c = read_all("c.tflite", &nc);
  CHECK(a && b && c);
  /* The default seed is 1; another seed changes weights only, not the size. */
  CHECK(a && b && na == nb && memcmp(a, b, na) == 0);
  CHECK(a && c && na == nc && memcmp(a, c, na) != 0);
  CHECK(a && na > 8 && memcmp(a + 4, "TFL3", 4) == 0);
  free(a);
  free(b);
  free(c);
}

static void check_shape(const ap_json *j, int t, const char *name, const int *dims, int rank) {
  char p[128];
  snprintf(p, sizeof p, "subgraphs[0].tensors[%d].name", t);
  const char *got = ap_json_str(j, p);
  CHECK_MSG(got && strcmp(got, name) == 0, "tensor %d: \"%s\", want \"%s\"", t,
            got ? got : "(absent)", name);
  snprintf(p, sizeof p, "subgraphs[0].tensors[%d].shape", t);
  CHECK_EQ(ap_json_len(j, p), rank);
  for (int d = 0; d < rank; d++) {
    int64_t v = -1;
    snprintf(p, sizeof p, "subgraphs[0].tensors[%d].shape[%d]", t, d);
    CHECK(ap_json_i64(j, p, &v) && v == dims[d]);
  }
}

/* The graph --help describes, decoded by flatc: ops in order, filter layouts, residual. */
static void test_flatc(void) {
  char p[1024], cmd[4096], *out = NULL;
  ap_test_path(p, sizeof p, "tflite/schema.fbs");
  struct stat st;
  if (stat(p, &st) != 0) {
    printf("note: %s absent, flatc part skipped\n", p);
    return;
  }
  snprintf(cmd, sizeof cmd,
           "flatc --json --strict-json --raw-binary --defaults-json -o %s %s -- %s/a.tflite", dir,
           p, dir);
  CHECK_EQ(ap_test_run(cmd, true, &out), 0);
  free(out);
  size_t n;
  uint8_t *text = read_all("a.json", &n);
  CHECK(text != NULL);
  if (!text) return;
  char *z = malloc(n + 1);
  memcpy(z, text, n);
  z[n] = '\0';
  free(text);
  ap_json *j = ap_json_parse(z);
  free(z);
  CHECK(j != NULL);
  if (!j) return;
  static const char *ops[] = {"CONV_2D",         "DEPTHWISE_CONV_2D", "CONV_2D",         "ADD",
                              "AVERAGE_POOL_2D", "RESHAPE",           "FULLY_CONNECTED", "SOFTMAX"};
  CHECK_EQ(ap_json_len(j, "subgraphs[0].operators"), 8);
  for (int i = 0; i < 8; i++) {
    int64_t oc = -1;
    snprintf(p, sizeof p, "subgraphs[0].operators[%d].opcode_index", i);
    CHECK(ap_json_i64(j, p, &oc));
    snprintf(p, sizeof p, "operator_codes[%lld].builtin_code", (long long)oc);
    CHECK_STR(ap_json_str(j, p), ops[i]);
  }
  check_shape(j, 0, "input", (const int[]){1, 32, 32, 3}, 4);
  check_shape(j, 1, "conv1/filter", (const int[]){8, 3, 3, 3}, 4);  /* [out, kh, kw, in] */
  check_shape(j, 4, "dwconv/filter", (const int[]){1, 3, 3, 8}, 4); /* [1, kh, kw, out] */
  check_shape(j, 7, "conv2/filter", (const int[]){8, 1, 1, 8}, 4);
  check_shape(j, 14, "dense/weights", (const int[]){10, 8}, 2); /* [out, in] */
  check_shape(j, 15, "dense/bias", (const int[]){10}, 1);
  check_shape(j, 17, "probabilities", (const int[]){1, 10}, 2);
  /* The residual ADD reads the first conv's output (tensor 3) and the second conv's. */
  int64_t a = -1, b = -1;
  CHECK(ap_json_i64(j, "subgraphs[0].operators[3].inputs[0]", &a) && a == 3);
  CHECK(ap_json_i64(j, "subgraphs[0].operators[3].inputs[1]", &b) && b == 9);
  CHECK_STR(ap_json_str(j, "signature_defs[0].signature_key"), "serving_default");
  CHECK_STR(ap_json_str(j, "signature_defs[0].outputs[0].name"), "probabilities");
  CHECK_STR(ap_json_str(j, "metadata[0].name"), "arenaplan_example");
  CHECK_STR(ap_json_str(j, "subgraphs[0].operators[0].builtin_options.fused_activation_function"),
            "RELU");
  int64_t stride = 0;
  CHECK(ap_json_i64(j, "subgraphs[0].operators[0].builtin_options.stride_w", &stride) &&
        stride == 2);
  ap_json_free(j);
}

int main(void) {
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_usage_errors();
  test_deterministic();
  test_flatc();
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ap_test_run(cmd, true, NULL);
  return ap_test_done();
}
