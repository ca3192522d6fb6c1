/* ap_model_tensor_sparsity / ap_model_tensor_sparse_dim on a sparse constant written as JSON
 * and compiled by flatc (an independent FlatBuffers writer) against ../shared's schema: a 4x4
 * float in 2x2 blocks, block rows dense and block columns CSR (segments [0, 2, 3] as Int32Vector,
 * indices [0, 1, 1] as Uint8Vector), as TFLite's own sparse test model; the interpreter hands out
 * its 48 compressed bytes, not the 64 of its dense shape. Skipped (77) without flatc or the
 * schema. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char json[] =
    "{\"version\": 3, \"operator_codes\": [], \"buffers\": [{}, {\"data\": [%s]}],"
    " \"subgraphs\": [{\"tensors\": ["
    " {\"name\": \"sparse\", \"type\": \"FLOAT32\", \"shape\": [4, 4], \"buffer\": 1,"
    "  \"sparsity\": {\"traversal_order\": [0, 1, 2, 3], \"block_map\": [0, 1],"
    "   \"dim_metadata\": [{\"format\": \"DENSE\", \"dense_size\": 2},"
    "    {\"format\": \"SPARSE_CSR\", \"array_segments_type\": \"Int32Vector\","
    "     \"array_segments\": {\"values\": [0, 2, 3]}, \"array_indices_type\": \"Uint8Vector\","
    "     \"array_indices\": {\"values\": [0, 1, 1]}},"
    "    {\"format\": \"DENSE\", \"dense_size\": 2}, {\"format\": \"DENSE\", \"dense_size\": 2}]}},"
    " {\"name\": \"x\", \"type\": \"FLOAT32\", \"shape\": [1]}],"
    " \"inputs\": [1], \"outputs\": [1], \"operators\": []}]}";

int main(void) {
  char schema[512], cmd[2048], dir[] = "/tmp/ap_sparsity_XXXXXX", path[600];
  ap_test_path(schema, sizeof schema, "tflite/schema.fbs");
  if (access(schema, R_OK) != 0 || ap_test_run("command -v flatc", false, NULL) != 0) {
    printf("skipped: needs flatc and %s\n", schema);
    return 77;
  }
  CHECK(mkdtemp(dir) != NULL);
  static const float values[12] = {1, 0, 0, 4, 2, 3, 0, 0, 5, 0, 0, 6};
  char bytes[512] = "";
  size_t at = 0;
  for (size_t i = 0; i < sizeof values; i++)
    at += (size_t)snprintf(bytes + at, sizeof bytes - at, "%s%u", i ? ", " : "",
                           ((const uint8_t *)values)[i]);
  snprintf(path, sizeof path, "%s/sparse.json", dir);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  fprintf(f, json, bytes);
  fclose(f);
  snprintf(cmd, sizeof cmd, "flatc -b -o %s %s %s", dir, schema, path);
  CHECK_EQ(ap_test_run(cmd, true, NULL), 0);
  snprintf(path, sizeof path, "%s/sparse.tflite", dir);
  ap_model *m = NULL;
  CHECK_MSG(ap_model_open(path, NULL, &m) == AP_OK, "%s", ap_model_error(m));

  ap_sparsity s;
  CHECK_EQ(ap_model_tensor_sparsity(m, 0, 0, &s), AP_OK);
  CHECK(s.present && s.dim_count == 4);
  CHECK(s.traversal_order.n == 4 && s.traversal_order.v[3] == 3);
  CHECK(s.block_map.n == 2 && s.block_map.v[0] == 0 && s.block_map.v[1] == 1);
  ap_sparse_dim d;
  for (size_t k = 0; k < 4; k++) {
    CHECK_EQ(ap_model_tensor_sparse_dim(m, 0, 0, k, &d), AP_OK);
    CHECK_EQ(d.format, k == 1);
    if (k != 1) CHECK(d.dense_size == 2 && d.array_segments.type == 0 && !d.array_indices.values);
  }
  CHECK_EQ(ap_model_tensor_sparse_dim(m, 0, 0, 1, &d), AP_OK);
  CHECK(d.array_segments.type == AP_INT32 && d.array_segments.count == 3);
  CHECK(memcmp(d.array_segments.values, (int32_t[]){0, 2, 3}, 12) == 0);
  CHECK(d.array_indices.type == AP_UINT8 && d.array_indices.count == 3);
  CHECK(memcmp(d.array_indices.values, (uint8_t[]){0, 1, 1}, 3) == 0);
  CHECK_EQ(ap_model_tensor_sparse_dim(m, 0, 0, 4, &d), AP_ERR_RANGE);
  CHECK_EQ(ap_model_tensor_sparsity(m, 0, 1, &s), AP_OK);
  CHECK(!s.present && s.dim_count == 0);
  CHECK_EQ(ap_model_tensor_sparse_dim(m, 0, 1, 0, &d), AP_ERR_RANGE);
  CHECK_EQ(ap_model_tensor_sparsity(m, 0, 2, &s), AP_ERR_RANGE);
  CHECK_EQ(ap_model_tensor_sparsity(NULL, 0, 0, &s), AP_ERR_ARG);
  CHECK_EQ(ap_model_tensor_sparse_dim(m, 0, 0, 0, NULL), AP_ERR_ARG);

  /* The interpreter hands out the compressed values: 48 bytes, not the dense 64. */
  ap_interpreter *it = NULL;
  CHECK(ap_interpreter_create(m, NULL, &it) == AP_OK);
  CHECK_MSG(ap_interpreter_allocate(it) == AP_OK, "%s", ap_interpreter_error(it));
  ap_tensor t;
  CHECK_EQ(ap_interpreter_tensor(it, 0, 0, &t), AP_OK);
  CHECK(t.is_constant && t.bytes == 48 && memcmp(t.data, values, 48) == 0);
  ap_interpreter_destroy(it);
  ap_model_destroy(m);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK_EQ(ap_test_run(cmd, false, NULL), 0);
  return ap_test_done();
}
