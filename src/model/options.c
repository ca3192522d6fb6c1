/* Typed builtin options, defaults as in schema.fbs, and raw access to any options field. */
#include "arenaplan/options.h"
#include "model/model_internal.h"

typedef struct op_kind {
  int32_t builtin;
  uint8_t kind;
  uint16_t table; /* FBT_ id of the options table; unused for AP_OPTIONS_NONE */
} op_kind;

static const op_kind kinds[] = {
    {FBOP_CONV_2D, AP_OPTIONS_CONV2D, FBT_Conv2DOptions},
    {FBOP_DEPTHWISE_CONV_2D, AP_OPTIONS_DEPTHWISE_CONV2D, FBT_DepthwiseConv2DOptions},
    {FBOP_AVERAGE_POOL_2D, AP_OPTIONS_POOL2D, FBT_Pool2DOptions},
    {FBOP_MAX_POOL_2D, AP_OPTIONS_POOL2D, FBT_Pool2DOptions},
    {FBOP_L2_POOL_2D, AP_OPTIONS_POOL2D, FBT_Pool2DOptions},
    {FBOP_FULLY_CONNECTED, AP_OPTIONS_FULLY_CONNECTED, FBT_FullyConnectedOptions},
    {FBOP_SOFTMAX, AP_OPTIONS_SOFTMAX, FBT_SoftmaxOptions},
    {FBOP_CONCATENATION, AP_OPTIONS_CONCATENATION, FBT_ConcatenationOptions},
    {FBOP_ADD, AP_OPTIONS_ADD, FBT_AddOptions},
    {FBOP_SUB, AP_OPTIONS_ADD, FBT_SubOptions},
    {FBOP_MUL, AP_OPTIONS_ACTIVATION, FBT_MulOptions},
    {FBOP_DIV, AP_OPTIONS_ACTIVATION, FBT_DivOptions},
    {FBOP_L2_NORMALIZATION, AP_OPTIONS_ACTIVATION, FBT_L2NormOptions},
    {FBOP_RESHAPE, AP_OPTIONS_RESHAPE, FBT_ReshapeOptions},
    {FBOP_MEAN, AP_OPTIONS_REDUCER, FBT_ReducerOptions},
    {FBOP_SUM, AP_OPTIONS_REDUCER, FBT_ReducerOptions},
    {FBOP_REDUCE_PROD, AP_OPTIONS_REDUCER, FBT_ReducerOptions},
    {FBOP_REDUCE_MAX, AP_OPTIONS_REDUCER, FBT_ReducerOptions},
    {FBOP_REDUCE_MIN, AP_OPTIONS_REDUCER, FBT_ReducerOptions},
    {FBOP_REDUCE_ANY, AP_OPTIONS_REDUCER, FBT_ReducerOptions},
    {FBOP_REDUCE_ALL, AP_OPTIONS_REDUCER, FBT_ReducerOptions},
    {FBOP_SQUEEZE, AP_OPTIONS_SQUEEZE, FBT_SqueezeOptions},
    {FBOP_STRIDED_SLICE, AP_OPTIONS_STRIDED_SLICE, FBT_StridedSliceOptions},
    {FBOP_PACK, AP_OPTIONS_PACK, FBT_PackOptions},
    {FBOP_UNPACK, AP_OPTIONS_UNPACK, FBT_UnpackOptions},
    {FBOP_GATHER, AP_OPTIONS_GATHER, FBT_GatherOptions},
    {FBOP_SHAPE, AP_OPTIONS_SHAPE, FBT_ShapeOptions},
    {FBOP_CAST, AP_OPTIONS_CAST, FBT_CastOptions},
    {FBOP_LEAKY_RELU, AP_OPTIONS_LEAKY_RELU, FBT_LeakyReluOptions},
    {FBOP_BATCH_MATMUL, AP_OPTIONS_BATCH_MATMUL, FBT_BatchMatMulOptions},
    {FBOP_RESIZE_BILINEAR, AP_OPTIONS_RESIZE, FBT_ResizeBilinearOptions},
    {FBOP_RESIZE_NEAREST_NEIGHBOR, AP_OPTIONS_RESIZE, FBT_ResizeNearestNeighborOptions},
    {FBOP_TRANSPOSE_CONV, AP_OPTIONS_TRANSPOSE_CONV, FBT_TransposeConvOptions},
    {FBOP_SVDF, AP_OPTIONS_SVDF, FBT_SVDFOptions},
    {FBOP_UNIDIRECTIONAL_SEQUENCE_LSTM, AP_OPTIONS_SEQUENCE_LSTM,
     FBT_UnidirectionalSequenceLSTMOptions},
    {FBOP_WHILE, AP_OPTIONS_WHILE, FBT_WhileOptions},
    {FBOP_IF, AP_OPTIONS_IF, FBT_IfOptions},
    {FBOP_CALL_ONCE, AP_OPTIONS_CALL_ONCE, FBT_CallOnceOptions},
    {FBOP_VAR_HANDLE, AP_OPTIONS_VAR_HANDLE, FBT_VarHandleOptions},
    {FBOP_ARG_MAX, AP_OPTIONS_ARG_MINMAX, FBT_ArgMaxOptions},
    {FBOP_ARG_MIN, AP_OPTIONS_ARG_MINMAX, FBT_ArgMinOptions},
    {FBOP_SPLIT, AP_OPTIONS_SPLIT, FBT_SplitOptions},
    {FBOP_SPLIT_V, AP_OPTIONS_SPLIT, FBT_SplitVOptions},
    {FBOP_SPACE_TO_DEPTH, AP_OPTIONS_BLOCK, FBT_SpaceToDepthOptions},
    {FBOP_DEPTH_TO_SPACE, AP_OPTIONS_BLOCK, FBT_DepthToSpaceOptions},
    {FBOP_MIRROR_PAD, AP_OPTIONS_MIRROR_PAD, FBT_MirrorPadOptions},
    {FBOP_GELU, AP_OPTIONS_GELU, FBT_GeluOptions},
    {FBOP_CUMSUM, AP_OPTIONS_CUMSUM, FBT_CumsumOptions},
};

/* Ops whose options table is empty or absent from the schema. */
static const int32_t no_options[] = {
    FBOP_PAD,
    FBOP_PADV2,
    FBOP_TRANSPOSE,
    FBOP_QUANTIZE,
    FBOP_DEQUANTIZE,
    FBOP_TILE,
    FBOP_LOGISTIC,
    FBOP_TANH,
    FBOP_RELU,
    FBOP_RELU6,
    FBOP_RELU_N1_TO_1,
    FBOP_RELU_0_TO_1,
    FBOP_EXP,
    FBOP_LOG,
    FBOP_SQRT,
    FBOP_RSQRT,
    FBOP_POW,
    FBOP_SQUARE,
    FBOP_SQUARED_DIFFERENCE,
    FBOP_MAXIMUM,
    FBOP_MINIMUM,
    FBOP_LESS,
    FBOP_LESS_EQUAL,
    FBOP_GREATER,
    FBOP_GREATER_EQUAL,
    FBOP_EQUAL,
    FBOP_NOT_EQUAL,
    FBOP_GATHER_ND,
    FBOP_FLOOR,
    FBOP_CEIL,
    FBOP_FLOOR_DIV,
    FBOP_FLOOR_MOD,
    FBOP_READ_VARIABLE,
    FBOP_ASSIGN_VARIABLE,
    FBOP_PRELU,
    FBOP_REVERSE_V2,
    FBOP_SELECT,
    FBOP_SELECT_V2,
    FBOP_SLICE,
    FBOP_NEG,
    FBOP_ABS,
    FBOP_SIN,
    FBOP_COS,
    FBOP_HARD_SWISH,
    FBOP_ZEROS_LIKE,
    FBOP_FILL,
    FBOP_RANGE,
    FBOP_EXPAND_DIMS,
    FBOP_BROADCAST_TO,
    FBOP_WHERE,
    FBOP_RANK,
    FBOP_LOGICAL_AND,
    FBOP_LOGICAL_OR,
    FBOP_LOGICAL_NOT,
    FBOP_ADD_N,
    FBOP_ELU,
    FBOP_BATCH_TO_SPACE_ND,
    FBOP_SPACE_TO_BATCH_ND,
    FBOP_LOG_SOFTMAX,
    FBOP_TOPK_V2,
};

/* The op's options table if it is stored with the expected type, else 0. */
static size_t options_table(const uint8_t *b, size_t op, unsigned table) {
  uint8_t type = fb_get_u8(b, op, FB_Operator_builtin_options_type, 0);
  const fb_union_desc *u = &fb_unions[FBU_BuiltinOptions];
  if (type == 0 || type >= u->count || u->members[type] != table) return 0;
  return fb_table(b, op, FB_Operator_builtin_options);
}

static ap_ivec ivec_field(const uint8_t *b, size_t t, unsigned id) {
  fb_vec v = fb_vector(b, t, id);
  ap_ivec r = {fb_vec_data(b, v), v.n};
  return r;
}

#define I32(id, def) fb_get_i32(b, t, id, def)
#define U8(id, def) fb_get_u8(b, t, id, def)
#define BOOL(id) (fb_get_u8(b, t, id, 0) != 0)
#define F32(id, def) fb_get_f32(b, t, id, def)
#define ACT(id) ((ap_activation)fb_get_i8(b, t, id, 0))
#define PAD(id) ((ap_padding)fb_get_i8(b, t, id, 0))
#define TYPE(id, def) ((int)fb_get_i8(b, t, id, def))

/* Every read below falls back to the schema default when t == 0 or the field is absent. */
static void fill(const uint8_t *b, size_t t, ap_op_options *o) {
  switch (o->kind) {
  case AP_OPTIONS_CONV2D:
    o->conv2d.padding = PAD(FB_Conv2DOptions_padding);
    o->conv2d.stride_w = I32(FB_Conv2DOptions_stride_w, 0);
    o->conv2d.stride_h = I32(FB_Conv2DOptions_stride_h, 0);
    o->conv2d.activation = ACT(FB_Conv2DOptions_fused_activation_function);
    o->conv2d.dilation_w_factor = I32(FB_Conv2DOptions_dilation_w_factor, 1);
    o->conv2d.dilation_h_factor = I32(FB_Conv2DOptions_dilation_h_factor, 1);
    o->conv2d.quantized_bias_type = TYPE(FB_Conv2DOptions_quantized_bias_type, 0);
    break;
  case AP_OPTIONS_DEPTHWISE_CONV2D:
    o->depthwise_conv2d.padding = PAD(FB_DepthwiseConv2DOptions_padding);
    o->depthwise_conv2d.stride_w = I32(FB_DepthwiseConv2DOptions_stride_w, 0);
    o->depthwise_conv2d.stride_h = I32(FB_DepthwiseConv2DOptions_stride_h, 0);
    o->depthwise_conv2d.depth_multiplier = I32(FB_DepthwiseConv2DOptions_depth_multiplier, 0);
    o->depthwise_conv2d.activation = ACT(FB_DepthwiseConv2DOptions_fused_activation_function);
    o->depthwise_conv2d.dilation_w_factor = I32(FB_DepthwiseConv2DOptions_dilation_w_factor, 1);
    o->depthwise_conv2d.dilation_h_factor = I32(FB_DepthwiseConv2DOptions_dilation_h_factor, 1);
    break;
  case AP_OPTIONS_POOL2D:
    o->pool2d.padding = PAD(FB_Pool2DOptions_padding);
    o->pool2d.stride_w = I32(FB_Pool2DOptions_stride_w, 0);
    o->pool2d.stride_h = I32(FB_Pool2DOptions_stride_h, 0);
    o->pool2d.filter_width = I32(FB_Pool2DOptions_filter_width, 0);
    o->pool2d.filter_height = I32(FB_Pool2DOptions_filter_height, 0);
    o->pool2d.activation = ACT(FB_Pool2DOptions_fused_activation_function);
    break;
  case AP_OPTIONS_FULLY_CONNECTED:
    o->fully_connected.activation = ACT(FB_FullyConnectedOptions_fused_activation_function);
    o->fully_connected.weights_format = TYPE(FB_FullyConnectedOptions_weights_format, 0);
    o->fully_connected.keep_num_dims = BOOL(FB_FullyConnectedOptions_keep_num_dims);
    o->fully_connected.asymmetric_quantize_inputs =
        BOOL(FB_FullyConnectedOptions_asymmetric_quantize_inputs);
    o->fully_connected.quantized_bias_type = TYPE(FB_FullyConnectedOptions_quantized_bias_type, 0);
    break;
  case AP_OPTIONS_SOFTMAX: o->softmax.beta = F32(FB_SoftmaxOptions_beta, 0.0f); break;
  case AP_OPTIONS_CONCATENATION:
    o->concatenation.axis = I32(FB_ConcatenationOptions_axis, 0);
    o->concatenation.activation = ACT(FB_ConcatenationOptions_fused_activation_function);
    break;
  case AP_OPTIONS_ADD: /* AddOptions and SubOptions share their layout */
    o->add.activation = ACT(FB_AddOptions_fused_activation_function);
    o->add.pot_scale_int16 = U8(FB_AddOptions_pot_scale_int16, 1) != 0;
    break;
  case AP_OPTIONS_ACTIVATION: /* MulOptions, DivOptions, L2NormOptions: field 0 */
    o->activation.activation = ACT(FB_MulOptions_fused_activation_function);
    break;
  case AP_OPTIONS_RESHAPE:
    o->reshape.new_shape = ivec_field(b, t, FB_ReshapeOptions_new_shape);
    break;
  case AP_OPTIONS_REDUCER: o->reducer.keep_dims = BOOL(FB_ReducerOptions_keep_dims); break;
  case AP_OPTIONS_SQUEEZE:
    o->squeeze.squeeze_dims = ivec_field(b, t, FB_SqueezeOptions_squeeze_dims);
    break;
  case AP_OPTIONS_STRIDED_SLICE:
    o->strided_slice.begin_mask = I32(FB_StridedSliceOptions_begin_mask, 0);
    o->strided_slice.end_mask = I32(FB_StridedSliceOptions_end_mask, 0);
    o->strided_slice.ellipsis_mask = I32(FB_StridedSliceOptions_ellipsis_mask, 0);
    o->strided_slice.new_axis_mask = I32(FB_StridedSliceOptions_new_axis_mask, 0);
    o->strided_slice.shrink_axis_mask = I32(FB_StridedSliceOptions_shrink_axis_mask, 0);
    o->strided_slice.offset = BOOL(FB_StridedSliceOptions_offset);
    break;
  case AP_OPTIONS_PACK:
    o->pack.values_count = I32(FB_PackOptions_values_count, 0);
    o->pack.axis = I32(FB_PackOptions_axis, 0);
    break;
  case AP_OPTIONS_UNPACK:
    o->unpack.num = I32(FB_UnpackOptions_num, 0);
    o->unpack.axis = I32(FB_UnpackOptions_axis, 0);
    break;
  case AP_OPTIONS_GATHER:
    o->gather.axis = I32(FB_GatherOptions_axis, 0);
    o->gather.batch_dims = I32(FB_GatherOptions_batch_dims, 0);
    break;
  case AP_OPTIONS_SHAPE: o->shape.out_type = TYPE(FB_ShapeOptions_out_type, 0); break;
  case AP_OPTIONS_CAST:
    o->cast.in_data_type = TYPE(FB_CastOptions_in_data_type, 0);
    o->cast.out_data_type = TYPE(FB_CastOptions_out_data_type, 0);
    break;
  case AP_OPTIONS_LEAKY_RELU: o->leaky_relu.alpha = F32(FB_LeakyReluOptions_alpha, 0.0f); break;
  case AP_OPTIONS_BATCH_MATMUL:
    o->batch_matmul.adj_x = BOOL(FB_BatchMatMulOptions_adj_x);
    o->batch_matmul.adj_y = BOOL(FB_BatchMatMulOptions_adj_y);
    o->batch_matmul.asymmetric_quantize_inputs =
        BOOL(FB_BatchMatMulOptions_asymmetric_quantize_inputs);
    break;
  case AP_OPTIONS_RESIZE: break; /* two layouts: see ap_model_op_options */
  case AP_OPTIONS_TRANSPOSE_CONV:
    o->transpose_conv.padding = PAD(FB_TransposeConvOptions_padding);
    o->transpose_conv.stride_w = I32(FB_TransposeConvOptions_stride_w, 0);
    o->transpose_conv.stride_h = I32(FB_TransposeConvOptions_stride_h, 0);
    o->transpose_conv.activation = ACT(FB_TransposeConvOptions_fused_activation_function);
    o->transpose_conv.quantized_bias_type = TYPE(FB_TransposeConvOptions_quantized_bias_type, 0);
    break;
  case AP_OPTIONS_SVDF:
    o->svdf.rank = I32(FB_SVDFOptions_rank, 0);
    o->svdf.activation = ACT(FB_SVDFOptions_fused_activation_function);
    o->svdf.asymmetric_quantize_inputs = BOOL(FB_SVDFOptions_asymmetric_quantize_inputs);
    break;
  case AP_OPTIONS_SEQUENCE_LSTM:
    o->sequence_lstm.activation =
        ACT(FB_UnidirectionalSequenceLSTMOptions_fused_activation_function);
    o->sequence_lstm.cell_clip = F32(FB_UnidirectionalSequenceLSTMOptions_cell_clip, 0.0f);
    o->sequence_lstm.proj_clip = F32(FB_UnidirectionalSequenceLSTMOptions_proj_clip, 0.0f);
    o->sequence_lstm.time_major = BOOL(FB_UnidirectionalSequenceLSTMOptions_time_major);
    o->sequence_lstm.asymmetric_quantize_inputs =
        BOOL(FB_UnidirectionalSequenceLSTMOptions_asymmetric_quantize_inputs);
    o->sequence_lstm.diagonal_recurrent_tensors =
        BOOL(FB_UnidirectionalSequenceLSTMOptions_diagonal_recurrent_tensors);
    break;
  case AP_OPTIONS_WHILE:
    o->while_op.cond_subgraph = I32(FB_WhileOptions_cond_subgraph_index, 0);
    o->while_op.body_subgraph = I32(FB_WhileOptions_body_subgraph_index, 0);
    break;
  case AP_OPTIONS_IF:
    o->if_op.then_subgraph = I32(FB_IfOptions_then_subgraph_index, 0);
    o->if_op.else_subgraph = I32(FB_IfOptions_else_subgraph_index, 0);
    break;
  case AP_OPTIONS_CALL_ONCE:
    o->call_once.init_subgraph = I32(FB_CallOnceOptions_init_subgraph_index, 0);
    break;
  case AP_OPTIONS_VAR_HANDLE:
    o->var_handle.container = t ? fb_string(b, t, FB_VarHandleOptions_container) : NULL;
    o->var_handle.shared_name = t ? fb_string(b, t, FB_VarHandleOptions_shared_name) : NULL;
    break;
  case AP_OPTIONS_ARG_MINMAX:
    o->arg_minmax.output_type = TYPE(FB_ArgMaxOptions_output_type, 0);
    break;
  case AP_OPTIONS_SPLIT: o->split.num_splits = I32(FB_SplitOptions_num_splits, 0); break;
  case AP_OPTIONS_BLOCK: o->block.block_size = I32(FB_SpaceToDepthOptions_block_size, 0); break;
  case AP_OPTIONS_MIRROR_PAD: o->mirror_pad.mode = TYPE(FB_MirrorPadOptions_mode, 0); break;
  case AP_OPTIONS_GELU: o->gelu.approximate = BOOL(FB_GeluOptions_approximate); break;
  case AP_OPTIONS_CUMSUM:
    o->cumsum.exclusive = BOOL(FB_CumsumOptions_exclusive);
    o->cumsum.reverse = BOOL(FB_CumsumOptions_reverse);
    break;
  case AP_OPTIONS_NONE: break;
  }
}

/* Tables that share one layout with the one fill() reads. */
_Static_assert(FB_SubOptions_fused_activation_function == FB_AddOptions_fused_activation_function &&
                   FB_SubOptions_pot_scale_int16 == FB_AddOptions_pot_scale_int16,
               "SubOptions and AddOptions differ");
_Static_assert(FB_DivOptions_fused_activation_function == 0 &&
                   FB_L2NormOptions_fused_activation_function == 0 &&
                   FB_MulOptions_fused_activation_function == 0,
               "activation-only options differ");
_Static_assert(FB_ArgMinOptions_output_type == FB_ArgMaxOptions_output_type, "ArgMin/ArgMax");
_Static_assert(FB_SplitVOptions_num_splits == FB_SplitOptions_num_splits, "SplitV/Split");
_Static_assert(FB_DepthToSpaceOptions_block_size == FB_SpaceToDepthOptions_block_size,
               "DepthToSpace/SpaceToDepth");

ap_status ap_model_op_options(const ap_model *m, size_t sg, size_t i, ap_op_options *out) {
  if (!m || !out) return AP_ERR_ARG;
  size_t op = ap_model_op_pos(m, sg, i);
  if (!op) return AP_ERR_RANGE;
  const uint8_t *b = m->bytes;
  memset(out, 0, sizeof *out);
  size_t oc = fb_vec_ref(b, m->opcodes, fb_get_u32(b, op, FB_Operator_opcode_index, 0));
  int32_t builtin = ap_model_opcode_builtin(b, oc);
  for (size_t k = 0; k < sizeof no_options / sizeof no_options[0]; k++)
    if (no_options[k] == builtin) return AP_OK;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    if (kinds[k].builtin != builtin) continue;
    size_t t = options_table(b, op, kinds[k].table);
    out->kind = (ap_options_kind)kinds[k].kind;
    out->stored = t != 0;
    if (kinds[k].table == FBT_ResizeBilinearOptions) {
      out->resize.align_corners = BOOL(FB_ResizeBilinearOptions_align_corners);
      out->resize.half_pixel_centers = BOOL(FB_ResizeBilinearOptions_half_pixel_centers);
    } else if (kinds[k].table == FBT_ResizeNearestNeighborOptions) {
      out->resize.align_corners = BOOL(FB_ResizeNearestNeighborOptions_align_corners);
      out->resize.half_pixel_centers = BOOL(FB_ResizeNearestNeighborOptions_half_pixel_centers);
    } else {
      fill(b, t, out);
    }
    return AP_OK;
  }
  return AP_ERR_UNSUPPORTED;
}

ap_status ap_model_op_raw_option(const ap_model *m, size_t sg, size_t i, int which, unsigned field,
                                 ap_raw_field *out) {
  if (!m || !out || (which != 1 && which != 2)) return AP_ERR_ARG;
  size_t op = ap_model_op_pos(m, sg, i);
  if (!op) return AP_ERR_RANGE;
  const uint8_t *b = m->bytes;
  memset(out, 0, sizeof *out);
  const fb_union_desc *u = &fb_unions[which == 1 ? FBU_BuiltinOptions : FBU_BuiltinOptions2];
  uint8_t type = fb_get_u8(
      b, op, which == 1 ? FB_Operator_builtin_options_type : FB_Operator_builtin_options_2_type, 0);
  size_t t =
      fb_table(b, op, which == 1 ? FB_Operator_builtin_options : FB_Operator_builtin_options_2);
  if (type == 0 || !t) return AP_OK;
  out->table_type = type;
  /* A type this schema does not know was never verified: nothing of it is read. */
  if (type >= u->count) return AP_ERR_UNSUPPORTED;
  const fb_table_desc *d = &fb_tables[u->members[type]];
  if (field >= d->nfields) return AP_ERR_RANGE;
  const fb_slot *f = &d->fields[field];
  size_t at = fb_field(b, t, field);
  if (!at || f->kind == FB_SKIP) return AP_OK;
  fb_vec v;
  switch (f->kind) {
  case FB_SCALAR1:
  case FB_UTYPE: out->size = 1; break;
  case FB_SCALAR2: out->size = 2; break;
  case FB_SCALAR4: out->size = 4; break;
  case FB_SCALAR8: out->size = 8; break;
  case FB_STRING:
  case FB_VEC1:
  case FB_VEC2:
  case FB_VEC4:
  case FB_VEC8: {
    static const uint8_t item[] = {
        [FB_STRING] = 1, [FB_VEC1] = 1, [FB_VEC2] = 2, [FB_VEC4] = 4, [FB_VEC8] = 8};
    v.pos = fb_deref(b, at);
    v.n = fb_u32(b, v.pos);
    out->data = b + v.pos + 4;
    out->count = v.n;
    out->size = (size_t)v.n * item[f->kind]; /* verified: no overflow, inside the file */
    return AP_OK;
  }
  default: return AP_ERR_UNSUPPORTED; /* tables, vectors of tables or strings, unions */
  }
  out->data = b + at;
  out->count = 1;
  return AP_OK;
}
