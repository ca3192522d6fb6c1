/* Writer round trip through an independent reader: models built with ap_writer are decoded by
 * flatc (the FlatBuffers compiler) with ../shared/tflite/schema.fbs, and every value written
 * is checked in its JSON. flatc fails on a buffer that does not match the schema, so a passing
 * decode also shows the layout (offsets, vtables, unions) is valid. */
#include "arenaplan/writer.h"
#include "support/json.h"
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/ap_writer_flatc_XXXXXX";

/* Saves the model, decodes it with flatc, returns the parsed JSON (NULL on failure). */
static ap_json *roundtrip(ap_writer *w, const char *name) {
  char path[512], cmd[2048], schema[1024];
  snprintf(path, sizeof path, "%s/%s.tflite", tmpdir, name);
  ap_status s = ap_writer_save(w, path);
  CHECK_MSG(s == AP_OK, "save: %s", ap_writer_error(w));
  if (s != AP_OK) return NULL;
  ap_test_path(schema, sizeof schema, "tflite/schema.fbs");
  snprintf(cmd, sizeof cmd,
           "flatc --json --strict-json --raw-binary --defaults-json -o %s %s -- %s", tmpdir, schema,
           path);
  char *out = NULL;
  int rc = ap_test_run(cmd, true, &out);
  CHECK_MSG(rc == 0, "flatc failed (%d): %s", rc, out ? out : "");
  free(out);
  if (rc != 0) return NULL;
  snprintf(path, sizeof path, "%s/%s.json", tmpdir, name);
  size_t size;
  uint8_t *text = ap_test_read_file(path, &size);
  CHECK(text != NULL);
  if (!text) return NULL;
  char *z = malloc(size + 1);
  memcpy(z, text, size);
  z[size] = '\0';
  free(text);
  ap_json *j = ap_json_parse(z);
  CHECK_MSG(j != NULL, "flatc's JSON for %s does not parse", name);
  free(z);
  return j;
}

static void check_int(const ap_json *j, const char *path, int64_t want) {
  int64_t got = 0;
  bool ok = ap_json_i64(j, path, &got);
  CHECK_MSG(ok && got == want, "%s: %s%lld, want %lld", path, ok ? "" : "(absent) ", (long long)got,
            (long long)want);
}

static void check_float(const ap_json *j, const char *path, double want) {
  double got = 0;
  bool ok = ap_json_f64(j, path, &got);
  CHECK_MSG(ok && got == want, "%s: %s%g, want %g", path, ok ? "" : "(absent) ", got, want);
}

static void check_bool(const ap_json *j, const char *path, bool want) {
  bool got = false;
  bool ok = ap_json_bool(j, path, &got);
  CHECK_MSG(ok && got == want, "%s: %s%d, want %d", path, ok ? "" : "(absent) ", got, want);
}

static void check_str(const ap_json *j, const char *path, const char *want) {
  const char *got = ap_json_str(j, path);
  CHECK_MSG(got && strcmp(got, want) == 0, "%s: \"%s\", want \"%s\"", path, got ? got : "(absent)",
            want);
}

static void check_ints(const ap_json *j, const char *path, const int64_t *want, size_t n) {
  CHECK_MSG(ap_json_len(j, path) == (long)n, "%s: length %ld, want %zu", path, ap_json_len(j, path),
            n);
  char p[256];
  for (size_t i = 0; i < n; i++) {
    snprintf(p, sizeof p, "%s[%zu]", path, i);
    check_int(j, p, want[i]);
  }
}

static void check_absent(const ap_json *j, const char *path) {
  CHECK_MSG(ap_json_at(j, path) == NULL, "%s: present, want absent", path);
}

#define INTS(...) ((const int64_t[]){__VA_ARGS__}), sizeof((const int64_t[]){__VA_ARGS__}) / 8

static void test_full_model(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  CHECK(ap_writer_set_description(w, "writer round-trip") == AP_OK);

  uint32_t oc[6];
  CHECK(ap_writer_add_opcode(w, 3, 1, &oc[0]) == AP_OK); /* CONV_2D */
  CHECK(ap_writer_add_custom_opcode(w, "MyCustom", 2, &oc[1]) == AP_OK);
  CHECK(ap_writer_add_opcode(w, 130, 3, &oc[2]) == AP_OK);            /* BROADCAST_TO */
  CHECK(ap_writer_add_opcode_raw(w, 4, 0, NULL, 5, &oc[3]) == AP_OK); /* pre-2.3 style */
  CHECK(ap_writer_add_opcode(w, 22, 1, &oc[4]) == AP_OK);             /* RESHAPE */
  CHECK(ap_writer_add_opcode(w, 25, 1, &oc[5]) == AP_OK);             /* SOFTMAX */
  CHECK(oc[0] == 0 && oc[5] == 5);

  uint8_t weights[36];
  for (int i = 0; i < 36; i++)
    weights[i] = (uint8_t)(i * 7 + 3);
  uint32_t wbuf, empty, meta;
  CHECK(ap_writer_add_buffer(w, weights, sizeof weights, &wbuf) == AP_OK);
  CHECK(ap_writer_add_buffer(w, NULL, 0, &empty) == AP_OK);
  const uint8_t plan[] = {'p', 'l', 'a', 'n', 0, 1};
  CHECK(ap_writer_add_metadata_bytes(w, "OfflineMemoryAllocation", plan, sizeof plan, &meta) ==
        AP_OK);
  CHECK(wbuf == 1 && empty == 2 && meta == 3);
  CHECK(ap_writer_add_metadata(w, "alias", wbuf) == AP_OK);

  CHECK(ap_writer_set_subgraph_name(w, 0, "main") == AP_OK);
  int32_t t[8];
  const int32_t in_shape[] = {1, 4, 4, 2}, in_sig[] = {-1, 4, 4, 2};
  CHECK(ap_writer_add_tensor(w, 0,
                             &(ap_writer_tensor){.name = "input",
                                                 .shape = in_shape,
                                                 .rank = 4,
                                                 .shape_signature = in_sig,
                                                 .has_rank = true},
                             &t[0]) == AP_OK);
  const int32_t w_shape[] = {2, 3, 3, 2};
  const float scale[] = {0.5f, 0.25f};
  const int64_t zp[] = {0, 5000000000LL};
  CHECK(ap_writer_add_tensor(w, 0,
                             &(ap_writer_tensor){.name = "weights",
                                                 .type = AP_INT8,
                                                 .shape = w_shape,
                                                 .rank = 4,
                                                 .buffer = wbuf,
                                                 .scale = scale,
                                                 .scale_count = 2,
                                                 .zero_point = zp,
                                                 .zero_point_count = 2,
                                                 .quantized_dimension = 3},
                             &t[1]) == AP_OK);
  const int32_t conv_shape[] = {1, 2, 4, 2}, eight[] = {8}, sixteen[] = {16};
  CHECK(ap_writer_add_tensor(
            w, 0, &(ap_writer_tensor){.name = "conv_out", .shape = conv_shape, .rank = 4}, &t[2]) ==
        AP_OK);
  CHECK(ap_writer_add_tensor(
            w, 0,
            &(ap_writer_tensor){.name = "custom_out", .type = AP_INT16, .shape = eight, .rank = 1},
            &t[3]) == AP_OK);
  CHECK(ap_writer_add_tensor(w, 0,
                             &(ap_writer_tensor){.type = AP_INT8, .shape = sixteen, .rank = 1},
                             &t[4]) == AP_OK);
  CHECK(ap_writer_add_tensor(
            w, 0,
            &(ap_writer_tensor){.name = "state", .shape = eight, .rank = 1, .is_variable = true},
            &t[5]) == AP_OK);
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = "bcast", .shape = eight, .rank = 1},
                             &t[6]) == AP_OK);
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = "output", .shape = eight, .rank = 1},
                             &t[7]) == AP_OK);
  CHECK(t[0] == 0 && t[7] == 7);

  ap_options conv = ap_options_conv2d(AP_PADDING_VALID, 2, 1, AP_ACT_RELU6, 1, 2);
  CHECK(ap_writer_add_op(w, 0,
                         &(ap_writer_op){.opcode = oc[0],
                                         .inputs = (const int32_t[]){0, 1, -1},
                                         .input_count = 3,
                                         .outputs = (const int32_t[]){2},
                                         .output_count = 1,
                                         .options = &conv},
                         NULL) == AP_OK);
  const uint8_t custom[] = {1, 2, 3, 0xff};
  uint32_t op1;
  CHECK(ap_writer_add_op(w, 0,
                         &(ap_writer_op){.opcode = oc[1],
                                         .inputs = (const int32_t[]){2},
                                         .input_count = 1,
                                         .outputs = (const int32_t[]){3},
                                         .output_count = 1,
                                         .intermediates = (const int32_t[]){4},
                                         .intermediate_count = 1,
                                         .custom_options = custom,
                                         .custom_options_size = sizeof custom},
                         &op1) == AP_OK);
  CHECK(op1 == 1);
  /* StableHLOCompositeOptions (BuiltinOptions2 #21): a string, an int, a [ubyte], an int. */
  const uint8_t attrs[] = {9, 8, 7};
  ap_options comp = {.type = 21, .count = 4};
  comp.fields[0] = (ap_option_field){.id = 0, .kind = AP_OPT_STRING, .data = "comp"};
  comp.fields[1] = (ap_option_field){.id = 1, .kind = AP_OPT_INT32, .i = 1};
  comp.fields[2] = (ap_option_field){.id = 2, .kind = AP_OPT_UINT8_VECTOR, .data = attrs, .n = 3};
  comp.fields[3] = (ap_option_field){.id = 4, .kind = AP_OPT_INT32, .i = 4};
  CHECK(ap_writer_add_op(w, 0,
                         &(ap_writer_op){.opcode = oc[2],
                                         .inputs = (const int32_t[]){3, 5},
                                         .input_count = 2,
                                         .outputs = (const int32_t[]){6},
                                         .output_count = 1,
                                         .options2 = &comp},
                         NULL) == AP_OK);
  /* Both unions on one op; StablehloGatherOptions (BuiltinOptions2 #16) has [long], long and
   * bool fields. */
  const int64_t dims[] = {1, 5000000000LL};
  ap_options gather = {.type = 16, .count = 3};
  gather.fields[0] = (ap_option_field){.id = 0, .kind = AP_OPT_INT64_VECTOR, .data = dims, .n = 2};
  gather.fields[1] = (ap_option_field){.id = 3, .kind = AP_OPT_INT64, .i = -2};
  gather.fields[2] = (ap_option_field){.id = 5, .kind = AP_OPT_BOOL, .i = 1};
  ap_options add = ap_options_add(AP_ACT_RELU);
  CHECK(ap_writer_add_op(w, 0,
                         &(ap_writer_op){.opcode = oc[3],
                                         .inputs = (const int32_t[]){6, 6},
                                         .input_count = 2,
                                         .outputs = (const int32_t[]){7},
                                         .output_count = 1,
                                         .options = &add,
                                         .options2 = &gather},
                         NULL) == AP_OK);
  CHECK(ap_writer_set_subgraph_io(w, 0, (const int32_t[]){0}, 1, (const int32_t[]){7}, 1) == AP_OK);

  uint32_t sg1;
  CHECK(ap_writer_add_subgraph(w, "second", &sg1) == AP_OK);
  CHECK(sg1 == 1);
  const int32_t two_four[] = {2, 4}, new_shape[] = {8};
  for (int i = 0; i < 3; i++)
    CHECK(ap_writer_add_tensor(w, 1,
                               &(ap_writer_tensor){.name = i == 0   ? "a"
                                                           : i == 1 ? "b"
                                                                    : "c",
                                                   .shape = i == 0 ? two_four : new_shape,
                                                   .rank = i == 0 ? 2 : 1},
                               NULL) == AP_OK);
  ap_options reshape = ap_options_reshape(new_shape, 1);
  ap_options softmax = ap_options_softmax(0.5f);
  CHECK(ap_writer_add_op(w, 1,
                         &(ap_writer_op){.opcode = oc[4],
                                         .inputs = (const int32_t[]){0},
                                         .input_count = 1,
                                         .outputs = (const int32_t[]){1},
                                         .output_count = 1,
                                         .options = &reshape},
                         NULL) == AP_OK);
  CHECK(ap_writer_add_op(w, 1,
                         &(ap_writer_op){.opcode = oc[5],
                                         .inputs = (const int32_t[]){1},
                                         .input_count = 1,
                                         .outputs = (const int32_t[]){2},
                                         .output_count = 1,
                                         .options = &softmax},
                         NULL) == AP_OK);
  CHECK(ap_writer_set_subgraph_io(w, 1, (const int32_t[]){0}, 1, (const int32_t[]){2}, 1) == AP_OK);

  CHECK(ap_writer_add_signature(w, "serving_default", 0, (const ap_tensor_map[]){{"x", 0}}, 1,
                                (const ap_tensor_map[]){{"y", 7}}, 1, NULL) == AP_OK);
  CHECK(ap_writer_add_signature(w, "second_sig", 1, (const ap_tensor_map[]){{"a", 0}}, 1,
                                (const ap_tensor_map[]){{"c", 2}, {"b", 1}}, 2, NULL) == AP_OK);

  ap_json *j = roundtrip(w, "full");
  ap_writer_destroy(w);
  if (!j) return;

  check_int(j, "version", 3);
  check_str(j, "description", "writer round-trip");

  /* Operator codes: both builtin fields, the placeholder 127 above it, the raw one as given. */
  CHECK_EQ(ap_json_len(j, "operator_codes"), 6);
  check_int(j, "operator_codes[0].deprecated_builtin_code", 3);
  check_str(j, "operator_codes[0].builtin_code", "CONV_2D");
  check_int(j, "operator_codes[0].version", 1);
  check_absent(j, "operator_codes[0].custom_code");
  check_int(j, "operator_codes[1].deprecated_builtin_code", 32);
  check_str(j, "operator_codes[1].builtin_code", "CUSTOM");
  check_str(j, "operator_codes[1].custom_code", "MyCustom");
  check_int(j, "operator_codes[1].version", 2);
  check_int(j, "operator_codes[2].deprecated_builtin_code", 127);
  check_str(j, "operator_codes[2].builtin_code", "BROADCAST_TO");
  check_int(j, "operator_codes[2].version", 3);
  check_int(j, "operator_codes[3].deprecated_builtin_code", 4);
  check_str(j, "operator_codes[3].builtin_code", "ADD");
  check_int(j, "operator_codes[3].version", 5);
  check_str(j, "operator_codes[4].builtin_code", "RESHAPE");
  check_str(j, "operator_codes[5].builtin_code", "SOFTMAX");

  /* Buffers: 0 and the explicit empty one have no data; the others hold exactly our bytes. */
  CHECK_EQ(ap_json_len(j, "buffers"), 4);
  check_absent(j, "buffers[0].data");
  check_absent(j, "buffers[2].data");
  int64_t wb[36];
  for (int i = 0; i < 36; i++)
    wb[i] = weights[i];
  check_ints(j, "buffers[1].data", wb, 36);
  check_ints(j, "buffers[3].data", INTS('p', 'l', 'a', 'n', 0, 1));

  CHECK_EQ(ap_json_len(j, "metadata"), 2);
  check_str(j, "metadata[0].name", "OfflineMemoryAllocation");
  check_int(j, "metadata[0].buffer", 3);
  check_str(j, "metadata[1].name", "alias");
  check_int(j, "metadata[1].buffer", 1);

  CHECK_EQ(ap_json_len(j, "subgraphs"), 2);
  check_str(j, "subgraphs[0].name", "main");
  check_ints(j, "subgraphs[0].inputs", INTS(0));
  check_ints(j, "subgraphs[0].outputs", INTS(7));
  CHECK_EQ(ap_json_len(j, "subgraphs[0].tensors"), 8);
  check_str(j, "subgraphs[0].tensors[0].name", "input");
  check_str(j, "subgraphs[0].tensors[0].type", "FLOAT32");
  check_ints(j, "subgraphs[0].tensors[0].shape", INTS(1, 4, 4, 2));
  check_ints(j, "subgraphs[0].tensors[0].shape_signature", INTS(-1, 4, 4, 2));
  check_bool(j, "subgraphs[0].tensors[0].has_rank", true);
  check_int(j, "subgraphs[0].tensors[0].buffer", 0);
  check_absent(j, "subgraphs[0].tensors[0].quantization");
  check_str(j, "subgraphs[0].tensors[1].name", "weights");
  check_str(j, "subgraphs[0].tensors[1].type", "INT8");
  check_ints(j, "subgraphs[0].tensors[1].shape", INTS(2, 3, 3, 2));
  check_absent(j, "subgraphs[0].tensors[1].shape_signature");
  check_bool(j, "subgraphs[0].tensors[1].has_rank", false);
  check_int(j, "subgraphs[0].tensors[1].buffer", 1);
  check_float(j, "subgraphs[0].tensors[1].quantization.scale[0]", 0.5);
  check_float(j, "subgraphs[0].tensors[1].quantization.scale[1]", 0.25);
  CHECK_EQ(ap_json_len(j, "subgraphs[0].tensors[1].quantization.scale"), 2);
  check_ints(j, "subgraphs[0].tensors[1].quantization.zero_point", INTS(0, 5000000000LL));
  check_int(j, "subgraphs[0].tensors[1].quantization.quantized_dimension", 3);
  check_str(j, "subgraphs[0].tensors[3].type", "INT16");
  check_absent(j, "subgraphs[0].tensors[4].name");
  check_bool(j, "subgraphs[0].tensors[4].is_variable", false);
  check_bool(j, "subgraphs[0].tensors[5].is_variable", true);
  check_str(j, "subgraphs[0].tensors[7].name", "output");

  CHECK_EQ(ap_json_len(j, "subgraphs[0].operators"), 4);
  check_int(j, "subgraphs[0].operators[0].opcode_index", 0);
  check_ints(j, "subgraphs[0].operators[0].inputs", INTS(0, 1, -1));
  check_ints(j, "subgraphs[0].operators[0].outputs", INTS(2));
  check_str(j, "subgraphs[0].operators[0].builtin_options_type", "Conv2DOptions");
  check_str(j, "subgraphs[0].operators[0].builtin_options.padding", "VALID");
  check_int(j, "subgraphs[0].operators[0].builtin_options.stride_w", 2);
  check_int(j, "subgraphs[0].operators[0].builtin_options.stride_h", 1);
  check_str(j, "subgraphs[0].operators[0].builtin_options.fused_activation_function", "RELU6");
  check_int(j, "subgraphs[0].operators[0].builtin_options.dilation_w_factor", 1);
  check_int(j, "subgraphs[0].operators[0].builtin_options.dilation_h_factor", 2);
  check_absent(j, "subgraphs[0].operators[0].intermediates");
  check_absent(j, "subgraphs[0].operators[0].custom_options");

  check_int(j, "subgraphs[0].operators[1].opcode_index", 1);
  check_ints(j, "subgraphs[0].operators[1].custom_options", INTS(1, 2, 3, 255));
  check_ints(j, "subgraphs[0].operators[1].intermediates", INTS(4));
  check_str(j, "subgraphs[0].operators[1].builtin_options_type", "NONE");

  check_str(j, "subgraphs[0].operators[2].builtin_options_2_type", "StableHLOCompositeOptions");
  check_str(j, "subgraphs[0].operators[2].builtin_options_2.name", "comp");
  check_int(j, "subgraphs[0].operators[2].builtin_options_2.decomposition_subgraph_index", 1);
  check_ints(j, "subgraphs[0].operators[2].builtin_options_2.composite_attributes", INTS(9, 8, 7));
  check_int(j, "subgraphs[0].operators[2].builtin_options_2.version", 4);

  check_int(j, "subgraphs[0].operators[3].opcode_index", 3);
  check_str(j, "subgraphs[0].operators[3].builtin_options_type", "AddOptions");
  check_str(j, "subgraphs[0].operators[3].builtin_options.fused_activation_function", "RELU");
  check_str(j, "subgraphs[0].operators[3].builtin_options_2_type", "StablehloGatherOptions");
  check_ints(j, "subgraphs[0].operators[3].builtin_options_2.offset_dims", INTS(1, 5000000000LL));
  check_int(j, "subgraphs[0].operators[3].builtin_options_2.index_vector_dim", -2);
  check_bool(j, "subgraphs[0].operators[3].builtin_options_2.indices_are_sorted", true);

  check_str(j, "subgraphs[1].name", "second");
  check_ints(j, "subgraphs[1].tensors[0].shape", INTS(2, 4));
  check_str(j, "subgraphs[1].tensors[2].name", "c");
  check_str(j, "subgraphs[1].operators[0].builtin_options_type", "ReshapeOptions");
  check_ints(j, "subgraphs[1].operators[0].builtin_options.new_shape", INTS(8));
  check_str(j, "subgraphs[1].operators[1].builtin_options_type", "SoftmaxOptions");
  check_float(j, "subgraphs[1].operators[1].builtin_options.beta", 0.5);
  check_ints(j, "subgraphs[1].outputs", INTS(2));

  CHECK_EQ(ap_json_len(j, "signature_defs"), 2);
  check_str(j, "signature_defs[0].signature_key", "serving_default");
  check_int(j, "signature_defs[0].subgraph_index", 0);
  check_str(j, "signature_defs[0].inputs[0].name", "x");
  check_int(j, "signature_defs[0].inputs[0].tensor_index", 0);
  check_str(j, "signature_defs[0].outputs[0].name", "y");
  check_int(j, "signature_defs[0].outputs[0].tensor_index", 7);
  check_str(j, "signature_defs[1].signature_key", "second_sig");
  check_int(j, "signature_defs[1].subgraph_index", 1);
  CHECK_EQ(ap_json_len(j, "signature_defs[1].outputs"), 2);
  check_str(j, "signature_defs[1].outputs[1].name", "b");
  check_int(j, "signature_defs[1].outputs[1].tensor_index", 1);
  ap_json_free(j);
}

/* The smallest model: subgraph 0 and buffer 0 only. */
static void test_empty_model(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  ap_json *j = roundtrip(w, "empty");
  ap_writer_destroy(w);
  if (!j) return;
  check_int(j, "version", 3);
  CHECK_EQ(ap_json_len(j, "operator_codes"), 0);
  CHECK_EQ(ap_json_len(j, "subgraphs"), 1);
  CHECK_EQ(ap_json_len(j, "subgraphs[0].tensors"), 0);
  CHECK_EQ(ap_json_len(j, "subgraphs[0].operators"), 0);
  CHECK_EQ(ap_json_len(j, "buffers"), 1);
  check_absent(j, "buffers[0].data");
  check_absent(j, "description");
  check_absent(j, "metadata");
  check_absent(j, "signature_defs");
  ap_json_free(j);
}

/* Many tensors share a vtable, and a version set by hand is kept. */
static void test_many_tensors(void) {
  ap_writer *w;
  CHECK(ap_writer_create(NULL, &w) == AP_OK);
  CHECK(ap_writer_set_version(w, 7) == AP_OK);
  char name[32];
  for (int i = 0; i < 500; i++) {
    snprintf(name, sizeof name, "t%d", i);
    int32_t shape[2] = {i, i % 7};
    CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = name, .shape = shape, .rank = 2},
                               NULL) == AP_OK);
  }
  ap_json *j = roundtrip(w, "many");
  ap_writer_destroy(w);
  if (!j) return;
  check_int(j, "version", 7);
  CHECK_EQ(ap_json_len(j, "subgraphs[0].tensors"), 500);
  check_str(j, "subgraphs[0].tensors[499].name", "t499");
  check_ints(j, "subgraphs[0].tensors[499].shape", INTS(499, 2));
  check_ints(j, "subgraphs[0].tensors[0].shape", INTS(0, 0));
  ap_json_free(j);
}

/* A model the reader's verifier must reject can still be written in unchecked mode. */
static void test_unchecked(void) {
  ap_writer *w;
  CHECK(ap_writer_create(&(ap_writer_options){.unchecked = true}, &w) == AP_OK);
  uint32_t op;
  CHECK(ap_writer_add_opcode(w, 0, 0, &op) == AP_OK);
  const int32_t shape[] = {-5, 3};
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.shape = shape, .rank = 2, .buffer = 9},
                             NULL) == AP_OK);
  CHECK(ap_writer_add_op(
            w, 0, &(ap_writer_op){.opcode = 4, .inputs = (const int32_t[]){12}, .input_count = 1},
            NULL) == AP_OK);
  ap_json *j = roundtrip(w, "unchecked");
  ap_writer_destroy(w);
  if (!j) return;
  check_ints(j, "subgraphs[0].tensors[0].shape", INTS(-5, 3));
  check_int(j, "subgraphs[0].tensors[0].buffer", 9);
  check_int(j, "subgraphs[0].operators[0].opcode_index", 4);
  check_ints(j, "subgraphs[0].operators[0].inputs", INTS(12));
  check_int(j, "operator_codes[0].version", 0);
  ap_json_free(j);
}

/* Buffer data after the FlatBuffer, through Buffer.offset/size (TFLite's layout over 2 GB). */
static void test_external_buffers(void) {
  ap_writer *w;
  CHECK(ap_writer_create(&(ap_writer_options){.external_buffers = true}, &w) == AP_OK);
  const uint8_t a[5] = {10, 11, 12, 13, 14}, c[2] = {0xee, 0xef};
  CHECK(ap_writer_add_buffer(w, a, sizeof a, NULL) == AP_OK);
  CHECK(ap_writer_add_buffer(w, NULL, 0, NULL) == AP_OK);
  CHECK(ap_writer_add_metadata_bytes(w, "m", c, sizeof c, NULL) == AP_OK);
  const uint8_t *bytes;
  size_t size;
  CHECK(ap_writer_finish(w, &bytes, &size) == AP_OK);
  uint8_t *copy = malloc(size);
  memcpy(copy, bytes, size);
  ap_json *j = roundtrip(w, "external");
  ap_writer_destroy(w);
  if (!j) {
    free(copy);
    return;
  }
  CHECK_EQ(ap_json_len(j, "buffers"), 4);
  check_absent(j, "buffers[1].data");
  check_absent(j, "buffers[3].data");
  check_int(j, "buffers[1].size", 5);
  check_int(j, "buffers[2].size", 0);
  check_int(j, "buffers[2].offset", 0);
  check_int(j, "buffers[3].size", 2);
  int64_t o1 = 0, o3 = 0;
  CHECK(ap_json_i64(j, "buffers[1].offset", &o1) && ap_json_i64(j, "buffers[3].offset", &o3));
  /* Each lies inside the file, 16-byte aligned, after everything else: the last one ends it. */
  CHECK(o1 > 1 && o1 % 16 == 0 && (size_t)o1 + 5 <= size && memcmp(copy + o1, a, 5) == 0);
  CHECK(o3 > o1 && o3 % 16 == 0 && (size_t)o3 + 2 == size && memcmp(copy + o3, c, 2) == 0);
  free(copy);
  ap_json_free(j);
}

int main(void) {
  ap_test_require_shared();
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_full_model();
  test_empty_model();
  test_many_tensors();
  test_unchecked();
  test_external_buffers();
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  ap_test_run(cmd, true, NULL);
  return ap_test_done();
}
