/* `arenaplan tflm`: the figures it prints are TFLite Micro's measured ones
 * (../shared/bench/tflm_arena.tsv), in text and JSON, for both targets; models TFLite Micro
 * cannot allocate exit 1 with the reason; bad usage exits 2. */
#include "support/json.h"
#include "test.h"

#include "arenaplan/arenaplan.h"

#include <stdlib.h>
#include <unistd.h>

static int cli(const char *args, char **out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s %s", ap_test_cli(), args);
  return ap_test_run(cmd, true, out);
}

static void test_json(const char *model, const char *target) {
  bool b32 = strcmp(target, "mcu32") == 0;
  char args[4096], path[4096], *out = NULL;
  snprintf(args, sizeof args, "tflm %s --target %s --json",
           ap_test_path(path, sizeof path, "models/%s.tflite", model), target);
  CHECK_EQ(cli(args, &out), 0);
  ap_json *j = ap_json_parse(out);
  CHECK_MSG(j, "%s: not JSON: %s", model, out);
  int64_t v = -1, sum = 0;
  CHECK(ap_json_i64(j, "min_arena_bytes", &v));
  CHECK_EQ(v, ap_test_tflm_value(model, b32 ? "min_arena_plain_16_32" : "min_arena_plain_16"));
  CHECK(ap_json_i64(j, "arena_used_bytes", &v));
  CHECK_EQ(v,
           ap_test_tflm_value(model, b32 ? "plain_arena_used_bytes_32" : "plain_arena_used_bytes"));
  CHECK(ap_json_i64(j, "head_bytes", &v));
  CHECK_EQ(v, ap_test_tflm_value(model, b32 ? "head_32" : "plain_head"));
  CHECK(ap_json_i64(j, "tail_bytes", &v));
  CHECK_EQ(v, ap_test_tflm_value(model, b32 ? "plain_tail_32" : "plain_tail"));
  const ap_json *cats = ap_json_at(j, "categories");
  CHECK(cats && cats->type == AP_JSON_OBJECT && cats->n == 11);
  for (size_t i = 0; cats && i < cats->n; i++) {
    int64_t bytes = -1;
    CHECK(ap_json_i64(&cats->items[i], "bytes", &bytes));
    sum += bytes;
  }
  CHECK_EQ(sum, ap_test_tflm_value(model, b32 ? "plain_tail_32" : "plain_tail"));
  CHECK_STR(ap_json_str(j, "categories.persistent_buffer.tflm_name"), "kPersistentBufferData");
  CHECK_STR(ap_json_str(j, "target"), target);
  ap_json_free(j);
  free(out);
}

/* A model with ops we do not model: the JSON names them with their allowance. */
static void test_unmodelled(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  uint32_t other_code;
  /* A custom op: every builtin TFLite Micro registers is modelled. */
  CHECK(ap_writer_add_custom_opcode(w, "MyOp", 1, &other_code) == AP_OK);
  int32_t shape[2] = {1, 8}, x, y;
  ap_writer_tensor t = {.type = AP_FLOAT32, .shape = shape, .rank = 2};
  CHECK(ap_writer_add_tensor(w, 0, &t, &x) == AP_OK);
  CHECK(ap_writer_add_tensor(w, 0, &t, &y) == AP_OK);
  CHECK(ap_writer_add_op(w, 0,
                         &(ap_writer_op){.opcode = other_code,
                                         .inputs = &x,
                                         .input_count = 1,
                                         .outputs = &y,
                                         .output_count = 1},
                         NULL) == AP_OK);
  CHECK(ap_writer_set_subgraph_io(w, 0, &x, 1, &y, 1) == AP_OK);
  char path[] = "/tmp/ap_tflm_tanh_XXXXXX", args[256], *out = NULL;
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  CHECK(ap_writer_save(w, path) == AP_OK);
  ap_writer_destroy(w);
  snprintf(args, sizeof args, "tflm %s --json", path);
  CHECK_EQ(cli(args, &out), 0);
  ap_json *j = ap_json_parse(out);
  CHECK_MSG(j, "not JSON: %s", out);
  int64_t v = -1;
  CHECK_STR(ap_json_str(j, "unmodelled[0].name"), "MyOp");
  CHECK(ap_json_i64(j, "unmodelled[0].allowance_bytes", &v) && v == 1024);
  CHECK(ap_json_at(j, "unmodelled[1]") == NULL);
  ap_json_free(j);
  free(out);
  snprintf(args, sizeof args, "tflm %s", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(out, "    MyOp x1 (subgraph:op 0:0)\n    total allowance: 1,024 B\n");
  free(out);
  unlink(path);
}

int main(void) {
  ap_test_require_shared();
  char path[4096], args[4096], *out = NULL;

  test_json("person_detect_int8", "host64");
  test_json("person_detect_int8", "mcu32");
  test_json("keyword_scrambled_svdf", "host64");
  test_json("while_multi_subgraph", "mcu32");

  /* Text: the smallest arena first, and why small models need more than arena_used_bytes. */
  snprintf(args, sizeof args, "tflm %s",
           ap_test_path(path, sizeof path, "models/hello_world_int8.tflite"));
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(
      out, "  kTensorArenaSize >= 1,616 B (1.6 KiB)  smallest that allocates (a multiple of 16,\n");
  CHECK_CONTAINS(out, "  arena_used_bytes:   1,184 B (1.2 KiB)  = head 32 + tail 1,152\n");
  CHECK_CONTAINS(out, "AllocateTensors() fails with arena_used_bytes: it needs 432 B more");
  CHECK_CONTAINS(out, "    kNodeAndRegistrationArray                         192 B       3\n");
  CHECK_CONTAINS(out, "arenaplan runtime needs:");
  free(out);

  /* Models TFLite Micro cannot allocate on a host: exit 1 and the reason. */
  snprintf(args, sizeof args, "tflm %s",
           ap_test_path(path, sizeof path, "models/mlperf_kws_dscnn_hybrid.tflite"));
  CHECK_EQ(cli(args, &out), 1);
  CHECK_CONTAINS(out, "input FLOAT32, filter INT8: \"Hybrid models are not supported on "
                      "TFLite Micro.\"");
  free(out);
  snprintf(args, sizeof args, "tflm %s",
           ap_test_path(path, sizeof path, "models/person_detect_vela.tflite"));
  CHECK_EQ(cli(args, &out), 1);
  CHECK_CONTAINS(out, "is the Ethos-U custom op");
  free(out);
  snprintf(args, sizeof args, "tflm %s",
           ap_test_path(path, sizeof path, "models/dp_net_float.tflite"));
  CHECK_EQ(cli(args, &out), 1);
  CHECK_CONTAINS(out, "op 2328 of subgraph 0 is POW: TFLite Micro has no kernel for it\n");
  free(out);

  test_unmodelled();

  /* Usage. */
  CHECK_EQ(cli("tflm", &out), 2);
  CHECK_CONTAINS(out, "arenaplan: tflm: no model given\n");
  free(out);
  snprintf(args, sizeof args, "tflm %s --target avr8",
           ap_test_path(path, sizeof path, "models/hello_world_int8.tflite"));
  CHECK_EQ(cli(args, &out), 2);
  CHECK_CONTAINS(out, "arenaplan: tflm: unknown target \"avr8\" (host64 or mcu32)\n");
  free(out);
  CHECK_EQ(cli("tflm --target", &out), 2);
  free(out);
  CHECK_EQ(cli("tflm /nonexistent.tflite", &out), 2);
  free(out);
  CHECK_EQ(cli("tflm --help", &out), 0);
  CHECK_CONTAINS(out, "usage: arenaplan tflm MODEL [--target host64|mcu32]");
  free(out);
  return ap_test_done();
}
