/* arenaplan options: an operator's builtin options, typed, with the schema's defaults.
 *
 *   ap_op_options o;
 *   if (ap_model_op_options(m, sg, op, &o) == AP_OK && o.kind == AP_OPTIONS_CONV2D)
 *     printf("stride %d x %d\n", o.conv2d.stride_h, o.conv2d.stride_w);
 *
 * The member is chosen by the op's builtin code (as TFLite does), not by the union type the
 * file stores: an op whose options table is absent, or of another type, reads as the schema's
 * defaults with `stored` false. Options of other ops: ap_model_op_raw_option().
 */
#ifndef ARENAPLAN_OPTIONS_H
#define ARENAPLAN_OPTIONS_H

#include "arenaplan/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* schema.fbs ActivationFunctionType and Padding. */
typedef enum ap_activation {
  AP_ACT_NONE = 0,
  AP_ACT_RELU = 1,
  AP_ACT_RELU_N1_TO_1 = 2,
  AP_ACT_RELU6 = 3,
  AP_ACT_TANH = 4,
  AP_ACT_SIGN_BIT = 5
} ap_activation;
typedef enum ap_padding { AP_PADDING_SAME = 0, AP_PADDING_VALID = 1 } ap_padding;

typedef enum ap_options_kind {
  AP_OPTIONS_NONE,             /* ops with no options (PAD, TRANSPOSE, LOGISTIC, ...) */
  AP_OPTIONS_CONV2D,           /* CONV_2D */
  AP_OPTIONS_DEPTHWISE_CONV2D, /* DEPTHWISE_CONV_2D */
  AP_OPTIONS_POOL2D,           /* AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D */
  AP_OPTIONS_FULLY_CONNECTED,  /* FULLY_CONNECTED */
  AP_OPTIONS_SOFTMAX,          /* SOFTMAX */
  AP_OPTIONS_CONCATENATION,    /* CONCATENATION */
  AP_OPTIONS_ADD,              /* ADD, SUB (member add) */
  AP_OPTIONS_ACTIVATION,       /* MUL, DIV, L2_NORMALIZATION: a fused activation only */
  AP_OPTIONS_RESHAPE,          /* RESHAPE */
  AP_OPTIONS_REDUCER,          /* MEAN, SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN, REDUCE_ANY,
                                  REDUCE_ALL */
  AP_OPTIONS_SQUEEZE,          /* SQUEEZE */
  AP_OPTIONS_STRIDED_SLICE,    /* STRIDED_SLICE */
  AP_OPTIONS_PACK,             /* PACK */
  AP_OPTIONS_UNPACK,           /* UNPACK */
  AP_OPTIONS_GATHER,           /* GATHER */
  AP_OPTIONS_SHAPE,            /* SHAPE */
  AP_OPTIONS_CAST,             /* CAST */
  AP_OPTIONS_LEAKY_RELU,       /* LEAKY_RELU */
  AP_OPTIONS_BATCH_MATMUL,     /* BATCH_MATMUL */
  AP_OPTIONS_RESIZE,           /* RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR */
  AP_OPTIONS_TRANSPOSE_CONV,   /* TRANSPOSE_CONV */
  AP_OPTIONS_SVDF,             /* SVDF */
  AP_OPTIONS_SEQUENCE_LSTM,    /* UNIDIRECTIONAL_SEQUENCE_LSTM */
  AP_OPTIONS_WHILE,            /* WHILE */
  AP_OPTIONS_IF,               /* IF */
  AP_OPTIONS_CALL_ONCE,        /* CALL_ONCE */
  AP_OPTIONS_VAR_HANDLE,       /* VAR_HANDLE */
  AP_OPTIONS_ARG_MINMAX,       /* ARG_MAX, ARG_MIN */
  AP_OPTIONS_SPLIT,            /* SPLIT, SPLIT_V */
  AP_OPTIONS_BLOCK,            /* SPACE_TO_DEPTH, DEPTH_TO_SPACE */
  AP_OPTIONS_MIRROR_PAD,       /* MIRROR_PAD */
  AP_OPTIONS_GELU,             /* GELU */
  AP_OPTIONS_CUMSUM            /* CUMSUM */
} ap_options_kind;

typedef struct ap_op_options {
  ap_options_kind kind;
  bool stored; /* the file holds the options table; false: every value is the default */
  union {
    struct {
      ap_padding padding;
      int32_t stride_w, stride_h, dilation_w_factor, dilation_h_factor; /* dilations: 1 */
      ap_activation activation;
      int quantized_bias_type; /* ap_dtype */
    } conv2d;
    struct {
      ap_padding padding;
      int32_t stride_w, stride_h, depth_multiplier, dilation_w_factor, dilation_h_factor;
      ap_activation activation;
    } depthwise_conv2d;
    struct {
      ap_padding padding;
      int32_t stride_w, stride_h, filter_width, filter_height;
      ap_activation activation;
    } pool2d;
    struct {
      ap_activation activation;
      int weights_format; /* 0 DEFAULT, 1 SHUFFLED4x16INT8 */
      bool keep_num_dims, asymmetric_quantize_inputs;
      int quantized_bias_type;
    } fully_connected;
    struct {
      float beta;
    } softmax;
    struct {
      int32_t axis;
      ap_activation activation;
    } concatenation;
    struct {
      ap_activation activation;
      bool pot_scale_int16; /* default true */
    } add;
    struct {
      ap_activation activation;
    } activation;
    struct {
      ap_ivec new_shape; /* v == NULL if absent */
    } reshape;
    struct {
      bool keep_dims;
    } reducer;
    struct {
      ap_ivec squeeze_dims;
    } squeeze;
    struct {
      int32_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask;
      bool offset;
    } strided_slice;
    struct {
      int32_t values_count, axis;
    } pack;
    struct {
      int32_t num, axis;
    } unpack;
    struct {
      int32_t axis, batch_dims;
    } gather;
    struct {
      int out_type;
    } shape;
    struct {
      int in_data_type, out_data_type;
    } cast;
    struct {
      float alpha;
    } leaky_relu;
    struct {
      bool adj_x, adj_y, asymmetric_quantize_inputs;
    } batch_matmul;
    struct {
      bool align_corners, half_pixel_centers;
    } resize;
    struct {
      ap_padding padding;
      int32_t stride_w, stride_h;
      ap_activation activation;
      int quantized_bias_type;
    } transpose_conv;
    struct {
      int32_t rank;
      ap_activation activation;
      bool asymmetric_quantize_inputs;
    } svdf;
    struct {
      ap_activation activation;
      float cell_clip, proj_clip;
      bool time_major, asymmetric_quantize_inputs, diagonal_recurrent_tensors;
    } sequence_lstm;
    struct {
      int32_t cond_subgraph, body_subgraph; /* verified in range */
    } while_op;
    struct {
      int32_t then_subgraph, else_subgraph; /* verified in range */
    } if_op;
    struct {
      int32_t init_subgraph; /* verified in range */
    } call_once;
    struct {
      const char *container, *shared_name; /* NULL if absent */
    } var_handle;
    struct {
      int output_type;
    } arg_minmax;
    struct {
      int32_t num_splits;
    } split;
    struct {
      int32_t block_size;
    } block;
    struct {
      int mode; /* 0 REFLECT, 1 SYMMETRIC */
    } mirror_pad;
    struct {
      bool approximate;
    } gelu;
    struct {
      bool exclusive, reverse;
    } cumsum;
  };
} ap_op_options;

/* Fills *out for op `op` of subgraph `sg`. AP_ERR_UNSUPPORTED for ops with options this
 * header does not type (and CUSTOM ops: see ap_op_info.custom_options). */
ap_status ap_model_op_options(const ap_model *m, size_t sg, size_t op, ap_op_options *out);

/* One field of an op's options table, as stored. */
typedef struct ap_raw_field {
  uint8_t table_type; /* the stored union type (BuiltinOptions or BuiltinOptions2), 0 if none */
  const void *data;   /* scalar: its bytes; string: its chars (NUL-terminated); vector: items.
                         NULL when the field is absent: the schema default applies */
  size_t size;        /* bytes at data */
  size_t count;       /* vector items or string length; 1 for a scalar */
} ap_raw_field;

/* Field slot `field` (declaration order in the schema table, from 0; a union field takes two
 * slots) of the op's builtin_options (which == 1) or builtin_options_2 (which == 2) table.
 * AP_ERR_RANGE when the stored table type has no such field, AP_ERR_UNSUPPORTED for fields
 * that are tables. With no table stored: AP_OK, table_type 0, data NULL. */
ap_status ap_model_op_raw_option(const ap_model *m, size_t sg, size_t op, int which, unsigned field,
                                 ap_raw_field *out);

#ifdef __cplusplus
}
#endif
#endif
