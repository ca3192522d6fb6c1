/* `arenaplan info --ops --json`: an op's typed options as a JSON object whose keys are the
 * schema's field names (enums as numbers), so they compare one to one with flatc's JSON. */
#include "info.h"

#include <string.h>

static void kv_i(FILE *f, bool *first, const char *k, long long v) {
  fprintf(f, "%s\"%s\":%lld", *first ? "" : ",", k, v);
  *first = false;
}

static void kv_b(FILE *f, bool *first, const char *k, bool v) {
  fprintf(f, "%s\"%s\":%s", *first ? "" : ",", k, v ? "true" : "false");
  *first = false;
}

static void kv_f(FILE *f, bool *first, const char *k, float v) {
  fprintf(f, "%s\"%s\":%.9g", *first ? "" : ",", k, v);
  *first = false;
}

static void kv_v(FILE *f, bool *first, const char *k, ap_ivec v) {
  if (!v.v) return; /* absent vectors have no default */
  fprintf(f, "%s\"%s\":[", *first ? "" : ",", k);
  for (size_t i = 0; i < v.n; i++)
    fprintf(f, "%s%d", i ? "," : "", (int)v.v[i]);
  fputc(']', f);
  *first = false;
}

static void kv_s(FILE *f, bool *first, const char *k, const char *s) {
  if (!s) return;
  fprintf(f, "%s\"%s\":", *first ? "" : ",", k);
  cli_json_string(f, s);
  *first = false;
}

static const char *const kind_names[] = {"none",
                                         "conv2d",
                                         "depthwise_conv2d",
                                         "pool2d",
                                         "fully_connected",
                                         "softmax",
                                         "concatenation",
                                         "add",
                                         "activation",
                                         "reshape",
                                         "reducer",
                                         "squeeze",
                                         "strided_slice",
                                         "pack",
                                         "unpack",
                                         "gather",
                                         "shape",
                                         "cast",
                                         "leaky_relu",
                                         "batch_matmul",
                                         "resize",
                                         "transpose_conv",
                                         "svdf",
                                         "sequence_lstm",
                                         "while",
                                         "if",
                                         "call_once",
                                         "var_handle",
                                         "arg_minmax",
                                         "split",
                                         "block",
                                         "mirror_pad",
                                         "gelu",
                                         "cumsum"};

void info_options_json(FILE *f, const ap_model *m, size_t sg, size_t i) {
  ap_op_options o;
  if (ap_model_op_options(m, sg, i, &o) != AP_OK) {
    fputs("null", f);
    return;
  }
  bool first = true;
  fprintf(f, "{\"kind\":\"%s\",\"stored\":%s,\"fields\":{",
          (size_t)o.kind < sizeof kind_names / sizeof kind_names[0] ? kind_names[o.kind] : "?",
          o.stored ? "true" : "false");
  switch (o.kind) {
  case AP_OPTIONS_CONV2D:
    kv_i(f, &first, "padding", o.conv2d.padding);
    kv_i(f, &first, "stride_w", o.conv2d.stride_w);
    kv_i(f, &first, "stride_h", o.conv2d.stride_h);
    kv_i(f, &first, "fused_activation_function", o.conv2d.activation);
    kv_i(f, &first, "dilation_w_factor", o.conv2d.dilation_w_factor);
    kv_i(f, &first, "dilation_h_factor", o.conv2d.dilation_h_factor);
    kv_i(f, &first, "quantized_bias_type", o.conv2d.quantized_bias_type);
    break;
  case AP_OPTIONS_DEPTHWISE_CONV2D:
    kv_i(f, &first, "padding", o.depthwise_conv2d.padding);
    kv_i(f, &first, "stride_w", o.depthwise_conv2d.stride_w);
    kv_i(f, &first, "stride_h", o.depthwise_conv2d.stride_h);
    kv_i(f, &first, "depth_multiplier", o.depthwise_conv2d.depth_multiplier);
    kv_i(f, &first, "fused_activation_function", o.depthwise_conv2d.activation);
    kv_i(f, &first, "dilation_w_factor", o.depthwise_conv2d.dilation_w_factor);
    kv_i(f, &first, "dilation_h_factor", o.depthwise_conv2d.dilation_h_factor);
    break;
  case AP_OPTIONS_POOL2D:
    kv_i(f, &first, "padding", o.pool2d.padding);
    kv_i(f, &first, "stride_w", o.pool2d.stride_w);
    kv_i(f, &first, "stride_h", o.pool2d.stride_h);
    kv_i(f, &first, "filter_width", o.pool2d.filter_width);
    kv_i(f, &first, "filter_height", o.pool2d.filter_height);
    kv_i(f, &first, "fused_activation_function", o.pool2d.activation);
    break;
  case AP_OPTIONS_FULLY_CONNECTED:
    kv_i(f, &first, "fused_activation_function", o.fully_connected.activation);
    kv_i(f, &first, "weights_format", o.fully_connected.weights_format);
    kv_b(f, &first, "keep_num_dims", o.fully_connected.keep_num_dims);
    kv_b(f, &first, "asymmetric_quantize_inputs", o.fully_connected.asymmetric_quantize_inputs);
    kv_i(f, &first, "quantized_bias_type", o.fully_connected.quantized_bias_type);
    break;
  case AP_OPTIONS_SOFTMAX: kv_f(f, &first, "beta", o.softmax.beta); break;
  case AP_OPTIONS_CONCATENATION:
    kv_i(f, &first, "axis", o.concatenation.axis);
    kv_i(f, &first, "fused_activation_function", o.concatenation.activation);
    break;
  case AP_OPTIONS_ADD:
    kv_i(f, &first, "fused_activation_function", o.add.activation);
    kv_b(f, &first, "pot_scale_int16", o.add.pot_scale_int16);
    break;
  case AP_OPTIONS_ACTIVATION:
    kv_i(f, &first, "fused_activation_function", o.activation.activation);
    break;
  case AP_OPTIONS_RESHAPE: kv_v(f, &first, "new_shape", o.reshape.new_shape); break;
  case AP_OPTIONS_REDUCER: kv_b(f, &first, "keep_dims", o.reducer.keep_dims); break;
  case AP_OPTIONS_SQUEEZE: kv_v(f, &first, "squeeze_dims", o.squeeze.squeeze_dims); break;
  case AP_OPTIONS_STRIDED_SLICE:
    kv_i(f, &first, "begin_mask", o.strided_slice.begin_mask);
    kv_i(f, &first, "end_mask", o.strided_slice.end_mask);
    kv_i(f, &first, "ellipsis_mask", o.strided_slice.ellipsis_mask);
    kv_i(f, &first, "new_axis_mask", o.strided_slice.new_axis_mask);
    kv_i(f, &first, "shrink_axis_mask", o.strided_slice.shrink_axis_mask);
    kv_b(f, &first, "offset", o.strided_slice.offset);
    break;
  case AP_OPTIONS_PACK:
    kv_i(f, &first, "values_count", o.pack.values_count);
    kv_i(f, &first, "axis", o.pack.axis);
    break;
  case AP_OPTIONS_UNPACK:
    kv_i(f, &first, "num", o.unpack.num);
    kv_i(f, &first, "axis", o.unpack.axis);
    break;
  case AP_OPTIONS_GATHER:
    kv_i(f, &first, "axis", o.gather.axis);
    kv_i(f, &first, "batch_dims", o.gather.batch_dims);
    break;
  case AP_OPTIONS_SHAPE: kv_i(f, &first, "out_type", o.shape.out_type); break;
  case AP_OPTIONS_CAST:
    kv_i(f, &first, "in_data_type", o.cast.in_data_type);
    kv_i(f, &first, "out_data_type", o.cast.out_data_type);
    break;
  case AP_OPTIONS_LEAKY_RELU: kv_f(f, &first, "alpha", o.leaky_relu.alpha); break;
  case AP_OPTIONS_BATCH_MATMUL:
    kv_b(f, &first, "adj_x", o.batch_matmul.adj_x);
    kv_b(f, &first, "adj_y", o.batch_matmul.adj_y);
    kv_b(f, &first, "asymmetric_quantize_inputs", o.batch_matmul.asymmetric_quantize_inputs);
    break;
  case AP_OPTIONS_RESIZE:
    kv_b(f, &first, "align_corners", o.resize.align_corners);
    kv_b(f, &first, "half_pixel_centers", o.resize.half_pixel_centers);
    break;
  case AP_OPTIONS_TRANSPOSE_CONV:
    kv_i(f, &first, "padding", o.transpose_conv.padding);
    kv_i(f, &first, "stride_w", o.transpose_conv.stride_w);
    kv_i(f, &first, "stride_h", o.transpose_conv.stride_h);
    kv_i(f, &first, "fused_activation_function", o.transpose_conv.activation);
    kv_i(f, &first, "quantized_bias_type", o.transpose_conv.quantized_bias_type);
    break;
  case AP_OPTIONS_SVDF:
    kv_i(f, &first, "rank", o.svdf.rank);
    kv_i(f, &first, "fused_activation_function", o.svdf.activation);
    kv_b(f, &first, "asymmetric_quantize_inputs", o.svdf.asymmetric_quantize_inputs);
    break;
  case AP_OPTIONS_SEQUENCE_LSTM:
    kv_i(f, &first, "fused_activation_function", o.sequence_lstm.activation);
    kv_f(f, &first, "cell_clip", o.sequence_lstm.cell_clip);
    kv_f(f, &first, "proj_clip", o.sequence_lstm.proj_clip);
    kv_b(f, &first, "time_major", o.sequence_lstm.time_major);
    kv_b(f, &first, "asymmetric_quantize_inputs", o.sequence_lstm.asymmetric_quantize_inputs);
    kv_b(f, &first, "diagonal_recurrent_tensors", o.sequence_lstm.diagonal_recurrent_tensors);
    break;
  case AP_OPTIONS_WHILE:
    kv_i(f, &first, "cond_subgraph_index", o.while_op.cond_subgraph);
    kv_i(f, &first, "body_subgraph_index", o.while_op.body_subgraph);
    break;
  case AP_OPTIONS_IF:
    kv_i(f, &first, "then_subgraph_index", o.if_op.then_subgraph);
    kv_i(f, &first, "else_subgraph_index", o.if_op.else_subgraph);
    break;
  case AP_OPTIONS_CALL_ONCE:
    kv_i(f, &first, "init_subgraph_index", o.call_once.init_subgraph);
    break;
  case AP_OPTIONS_VAR_HANDLE:
    kv_s(f, &first, "container", o.var_handle.container);
    kv_s(f, &first, "shared_name", o.var_handle.shared_name);
    break;
  case AP_OPTIONS_ARG_MINMAX: kv_i(f, &first, "output_type", o.arg_minmax.output_type); break;
  case AP_OPTIONS_SPLIT: kv_i(f, &first, "num_splits", o.split.num_splits); break;
  case AP_OPTIONS_BLOCK: kv_i(f, &first, "block_size", o.block.block_size); break;
  case AP_OPTIONS_MIRROR_PAD: kv_i(f, &first, "mode", o.mirror_pad.mode); break;
  case AP_OPTIONS_GELU: kv_b(f, &first, "approximate", o.gelu.approximate); break;
  case AP_OPTIONS_CUMSUM:
    kv_b(f, &first, "exclusive", o.cumsum.exclusive);
    kv_b(f, &first, "reverse", o.cumsum.reverse);
    break;
  case AP_OPTIONS_NONE: break;
  }
  fputs("}}", f);
}
