/* The writer's output read back by our own reader: every field written comes back, both with
 * buffers inside the FlatBuffer and stored after it (Buffer.offset/size). */
#include "arenaplan/arenaplan.h"
#include "test.h"

static void roundtrip(bool external) {
  ap_writer *w;
  CHECK(ap_writer_create(&(ap_writer_options){.external_buffers = external}, &w) == AP_OK);
  CHECK(ap_writer_set_description(w, "round trip") == AP_OK);
  uint32_t conv, custom, add, buf_w, buf_meta, sub;
  CHECK(ap_writer_add_opcode(w, 3, 2, &conv) == AP_OK);          /* CONV_2D v2 */
  CHECK(ap_writer_add_custom_opcode(w, "MyOp", 1, &custom) == AP_OK);
  CHECK(ap_writer_add_opcode(w, 129, 1, &add) == AP_OK);         /* CALL_ONCE: above 127 */
  int8_t weights[2 * 3 * 3 * 1];
  for (size_t i = 0; i < sizeof weights; i++) weights[i] = (int8_t)(i * 7 - 60);
  CHECK(ap_writer_add_buffer(w, weights, sizeof weights, &buf_w) == AP_OK);
  CHECK(ap_writer_add_metadata_bytes(w, "note", "hello", 5, &buf_meta) == AP_OK);
  CHECK(ap_writer_add_subgraph(w, "init", &sub) == AP_OK);

  const int32_t in_shape[] = {1, 8, 8, 1}, in_sig[] = {-1, 8, 8, 1}, w_shape[] = {2, 3, 3, 1};
  const int32_t out_shape[] = {1, 8, 8, 2}, bias_shape[] = {2};
  const float scales[] = {0.5f, 0.25f};
  const int64_t zps[] = {0, 0}, in_zp[] = {-3};
  const float in_scale[] = {0.125f};
  int32_t in, wt, bias, out, state;
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = "in", .type = AP_INT8,
        .shape = in_shape, .rank = 4, .shape_signature = in_sig, .scale = in_scale,
        .scale_count = 1, .zero_point = in_zp, .zero_point_count = 1}, &in) == AP_OK);
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = "w", .type = AP_INT8,
        .shape = w_shape, .rank = 4, .buffer = buf_w, .scale = scales, .scale_count = 2,
        .zero_point = zps, .zero_point_count = 2, .quantized_dimension = 0}, &wt) == AP_OK);
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = "state", .type = AP_INT16,
        .shape = bias_shape, .rank = 1, .is_variable = true}, &state) == AP_OK);
  CHECK(ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = "out", .type = AP_INT8,
        .shape = out_shape, .rank = 4}, &out) == AP_OK);
  bias = -1;
  CHECK(ap_writer_set_subgraph_io(w, 0, &in, 1, &out, 1) == AP_OK);
  ap_options co = ap_options_conv2d(AP_PADDING_SAME, 1, 2, AP_ACT_RELU6, 1, 1);
  CHECK(ap_writer_add_op(w, 0, &(ap_writer_op){.opcode = conv,
        .inputs = (int32_t[]){in, wt, bias}, .input_count = 3, .outputs = &out,
        .output_count = 1, .options = &co}, NULL) == AP_OK);
  const uint8_t copts[] = {1, 2, 3};
  CHECK(ap_writer_add_op(w, 0, &(ap_writer_op){.opcode = custom, .inputs = &state,
        .input_count = 1, .outputs = &state, .output_count = 1, .custom_options = copts,
        .custom_options_size = 3, .intermediates = &in, .intermediate_count = 1}, NULL) == AP_OK);
  CHECK(ap_writer_add_signature(w, "serving_default", 0, &(ap_tensor_map){"x", (uint32_t)in}, 1,
                                &(ap_tensor_map){"y", (uint32_t)out}, 1, NULL) == AP_OK);
  const uint8_t *bytes;
  size_t size;
  CHECK_MSG(ap_writer_finish(w, &bytes, &size) == AP_OK, "%s", ap_writer_error(w));

  ap_model *m;
  CHECK_MSG(ap_model_from_buffer(bytes, size, "rt.tflite", NULL, &m) == AP_OK, "%s",
            ap_model_error(m));
  CHECK_EQ(ap_model_version(m), 3);
  CHECK_STR(ap_model_description(m), "round trip");
  CHECK_EQ(ap_model_subgraph_count(m), 2);
  CHECK_STR(ap_model_subgraph_name(m, 1), "init");
  CHECK_EQ(ap_model_opcode_count(m), 3);
  ap_opcode_info oc;
  CHECK(ap_model_opcode(m, conv, &oc) == AP_OK && oc.builtin == 3 && oc.version == 2 && !oc.custom);
  CHECK(ap_model_opcode(m, custom, &oc) == AP_OK && oc.builtin == 32);
  CHECK_STR(oc.custom, "MyOp");
  CHECK(ap_model_opcode(m, add, &oc) == AP_OK && oc.builtin == 129);

  ap_tensor_info t;
  CHECK(ap_model_tensor(m, 0, (size_t)in, &t) == AP_OK);
  CHECK_STR(t.name, "in");
  CHECK(t.type == AP_INT8 && t.shape.n == 4 && t.shape.v[1] == 8 && t.bytes == 64);
  CHECK(t.shape_signature.v && t.shape_signature.v[0] == -1);
  CHECK(t.scale_count == 1 && t.scale[0] == 0.125f && t.zero_point[0] == -3);
  CHECK(!t.is_constant && !t.is_variable);
  CHECK(ap_model_tensor(m, 0, (size_t)wt, &t) == AP_OK);
  CHECK(t.is_constant && t.bytes == sizeof weights && t.scale_count == 2 && t.scale[1] == 0.25f);
  size_t bsize;
  const uint8_t *data = ap_model_buffer(m, t.buffer, &bsize);
  CHECK(data && bsize == sizeof weights && memcmp(data, weights, bsize) == 0);
  CHECK(((uintptr_t)data & 15) == 0);
  CHECK(ap_model_tensor(m, 0, (size_t)state, &t) == AP_OK);
  CHECK(t.is_variable && t.bytes == 4 && t.type == AP_INT16);

  ap_op_info op;
  CHECK(ap_model_op(m, 0, 0, &op) == AP_OK);
  CHECK(op.builtin == 3 && op.inputs.n == 3 && op.inputs.v[2] == -1 && op.outputs.v[0] == out);
  ap_op_options oo;
  CHECK(ap_model_op_options(m, 0, 0, &oo) == AP_OK && oo.kind == AP_OPTIONS_CONV2D && oo.stored);
  CHECK(oo.conv2d.padding == AP_PADDING_SAME && oo.conv2d.stride_w == 1 &&
        oo.conv2d.stride_h == 2 && oo.conv2d.activation == AP_ACT_RELU6);
  CHECK(ap_model_op(m, 0, 1, &op) == AP_OK);
  CHECK_STR(op.custom, "MyOp");
  CHECK(op.custom_options_size == 3 && memcmp(op.custom_options, copts, 3) == 0);
  CHECK(op.intermediates.n == 1 && op.intermediates.v[0] == in);

  CHECK_EQ(ap_model_metadata_count(m), 1);
  ap_metadata_info md;
  CHECK(ap_model_metadata(m, 0, &md) == AP_OK);
  CHECK_STR(md.name, "note");
  data = ap_model_buffer(m, md.buffer, &bsize);
  CHECK(data && bsize == 5 && memcmp(data, "hello", 5) == 0);

  CHECK_EQ(ap_model_signature_count(m), 1);
  ap_signature_info si;
  ap_tensor_map tm;
  CHECK(ap_model_signature(m, 0, &si) == AP_OK && si.subgraph == 0 && si.input_count == 1);
  CHECK_STR(si.key, "serving_default");
  CHECK(ap_model_signature_output(m, 0, 0, &tm) == AP_OK && tm.tensor == (uint32_t)out);
  CHECK_STR(tm.name, "y");
  ap_model_destroy(m);
  ap_writer_destroy(w);
}

int main(void) {
  roundtrip(false);
  roundtrip(true);
  return ap_test_done();
}
