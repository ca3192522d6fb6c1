/* Typed and raw operator options. Expected values are those flatc prints for the same files
 * (`flatc --json --defaults-json` with ../shared/tflite/schema.fbs); test_flatc.py compares
 * every typed field of every op in every shared model the same way. */
#include "arenaplan/options.h"
#include "test.h"

static ap_model *open_model(const char *name) {
  char path[4096];
  ap_model *m = NULL;
  ap_status s = ap_model_open(ap_test_path(path, sizeof path, "models/%s", name), NULL, &m);
  CHECK_MSG(s == AP_OK, "%s", ap_model_error(m));
  return m;
}

int main(void) {
  ap_op_options o;
  ap_raw_field raw;
  CHECK_EQ(ap_model_op_options(NULL, 0, 0, &o), AP_ERR_ARG);
  CHECK_EQ(ap_model_op_raw_option(NULL, 0, 0, 1, 0, &raw), AP_ERR_ARG);
  ap_test_require_shared();

  /* micro_speech_int8: RESHAPE, DEPTHWISE_CONV_2D, FULLY_CONNECTED, SOFTMAX. */
  ap_model *m = open_model("micro_speech_int8.tflite");
  CHECK_EQ(ap_model_op_options(m, 0, 0, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_model_op_options(m, 0, 4, &o), AP_ERR_RANGE);
  CHECK_EQ(ap_model_op_options(m, 1, 0, &o), AP_ERR_RANGE);
  CHECK_EQ(ap_model_op_options(m, 0, 0, &o), AP_OK);
  CHECK_EQ(o.kind, AP_OPTIONS_RESHAPE);
  CHECK(o.stored);
  CHECK(o.reshape.new_shape.n == 4 && o.reshape.new_shape.v[0] == -1 &&
        o.reshape.new_shape.v[1] == 49 && o.reshape.new_shape.v[2] == 40 &&
        o.reshape.new_shape.v[3] == 1);
  CHECK_EQ(ap_model_op_options(m, 0, 1, &o), AP_OK);
  CHECK_EQ(o.kind, AP_OPTIONS_DEPTHWISE_CONV2D);
  CHECK_EQ(o.depthwise_conv2d.padding, AP_PADDING_SAME);
  CHECK_EQ(o.depthwise_conv2d.stride_w, 2);
  CHECK_EQ(o.depthwise_conv2d.stride_h, 2);
  CHECK_EQ(o.depthwise_conv2d.depth_multiplier, 8);
  CHECK_EQ(o.depthwise_conv2d.activation, AP_ACT_RELU);
  CHECK_EQ(o.depthwise_conv2d.dilation_w_factor, 1);
  CHECK_EQ(ap_model_op_options(m, 0, 3, &o), AP_OK);
  CHECK_EQ(o.kind, AP_OPTIONS_SOFTMAX);
  CHECK(o.softmax.beta == 1.0f);

  /* Raw: DepthwiseConv2DOptions slot 3 is depth_multiplier (int); ReshapeOptions slot 0 is
   * new_shape ([int]); no builtin_options_2 is stored. */
  CHECK_EQ(ap_model_op_raw_option(m, 0, 1, 1, 3, &raw), AP_OK);
  int32_t dm = 0;
  CHECK(raw.data && raw.size == 4 && raw.count == 1);
  if (raw.data) memcpy(&dm, raw.data, 4);
  CHECK_EQ(dm, 8);
  CHECK_EQ(ap_model_op_raw_option(m, 0, 0, 1, 0, &raw), AP_OK);
  CHECK(raw.data && raw.count == 4 && raw.size == 16);
  CHECK_EQ(ap_model_op_raw_option(m, 0, 1, 1, 7, &raw), AP_ERR_RANGE); /* 7 fields: 0..6 */
  CHECK_EQ(ap_model_op_raw_option(m, 0, 1, 2, 0, &raw), AP_OK);
  CHECK(raw.table_type == 0 && raw.data == NULL);
  CHECK_EQ(ap_model_op_raw_option(m, 0, 1, 3, 0, &raw), AP_ERR_ARG);
  CHECK_EQ(ap_model_op_raw_option(m, 0, 9, 1, 0, &raw), AP_ERR_RANGE);
  ap_model_destroy(m);

  /* mnist_lstm_int8: LSTM options; RESHAPE stored without options: defaults. */
  m = open_model("mnist_lstm_int8.tflite");
  bool lstm = false, reshape = false;
  for (size_t i = 0; i < ap_model_op_count(m, 0); i++) {
    if (ap_model_op_options(m, 0, i, &o) != AP_OK) continue;
    if (o.kind == AP_OPTIONS_SEQUENCE_LSTM) {
      lstm = true;
      CHECK_EQ(o.sequence_lstm.activation, AP_ACT_TANH);
      CHECK(o.sequence_lstm.cell_clip == 10.0f && o.sequence_lstm.proj_clip == 0.0f);
      CHECK(!o.sequence_lstm.time_major);
    } else if (o.kind == AP_OPTIONS_RESHAPE) {
      reshape = true;
      CHECK(!o.stored && o.reshape.new_shape.v == NULL && o.reshape.new_shape.n == 0);
    }
  }
  CHECK(lstm && reshape);
  ap_model_destroy(m);

  /* Control flow and resource variables. */
  m = open_model("while_multi_subgraph.tflite");
  CHECK_EQ(ap_model_op_options(m, 0, 0, &o), AP_OK);
  CHECK_EQ(o.kind, AP_OPTIONS_WHILE);
  CHECK_EQ(o.while_op.cond_subgraph, 1);
  CHECK_EQ(o.while_op.body_subgraph, 2);
  /* ADD keeps pot_scale_int16's schema default, true. */
  bool add = false;
  for (size_t i = 0; i < ap_model_op_count(m, 2); i++)
    if (ap_model_op_options(m, 2, i, &o) == AP_OK && o.kind == AP_OPTIONS_ADD) {
      add = true;
      CHECK(o.add.pot_scale_int16);
    }
  CHECK(add);
  ap_model_destroy(m);
  m = open_model("call_once_mul.tflite");
  CHECK_EQ(ap_model_op_options(m, 0, 0, &o), AP_OK);
  CHECK_EQ(o.kind, AP_OPTIONS_CALL_ONCE);
  CHECK_EQ(o.call_once.init_subgraph, 1);
  CHECK_EQ(ap_model_op_options(m, 0, 1, &o), AP_OK);
  CHECK_EQ(o.kind, AP_OPTIONS_VAR_HANDLE);
  CHECK_STR(o.var_handle.shared_name, "Variable");
  CHECK_EQ(ap_model_op_options(m, 0, 2, &o), AP_OK); /* READ_VARIABLE: none */
  CHECK_EQ(o.kind, AP_OPTIONS_NONE);
  CHECK_EQ(ap_model_op_raw_option(m, 0, 1, 1, 1, &raw), AP_OK); /* VarHandle.shared_name */
  CHECK(raw.data && raw.count == 8 && memcmp(raw.data, "Variable", 9) == 0);
  ap_model_destroy(m);

  /* A custom op has no typed options. */
  m = open_model("person_detect_vela.tflite");
  CHECK_EQ(ap_model_op_options(m, 0, 0, &o), AP_ERR_UNSUPPORTED);
  ap_model_destroy(m);
  return ap_test_done();
}
