/* The reference kernels: one prepare and one eval per op family (one .c file each).
 *
 * prepare(options, inputs..., output, params, err): checks types and shapes, writes the
 *   output's dims (and rank), fills `params` with everything eval needs that does not depend on
 *   tensor data (multipliers, shifts, activation ranges, padding) and params->scratch_bytes.
 *   Inputs whose data prepare needs (axes, paddings, permutations, shapes) must be constant and
 *   have their data set; others may have data NULL. The output's type and quantization must be
 *   set by the caller (from the model). On failure returns a status and says why in `err`.
 * eval(params, inputs..., output, scratch): computes the output. It never allocates; scratch
 *   (params->scratch_bytes, AP_KSCRATCH_ALIGN-aligned, or NULL when 0) is free for it to use.
 *   Returns AP_ERR_ARG for NULL data pointers, missing scratch, or tensors whose shapes differ
 *   from the ones prepared (so a stale plan cannot overrun a buffer).
 *
 * Every tensor's data, when set, must cover its shape (the model layer verifies buffer sizes);
 * a bias or other optional input passed to eval must be the one given to prepare.
 *
 * Arithmetic is bit-exact with TensorFlow Lite Micro's reference kernels (tflite-micro
 * 90b983c2) for float32, int8 (INT4 weights too) and int16 (16x8 conv-like ops), with TFLite's
 * reference kernels for the uint8 paths TFLite Micro lacks, and with TFLite's hybrid paths for
 * float activations over int8 weights.
 */
#ifndef AP_KERNELS_KERNELS_H
#define AP_KERNELS_KERNELS_H

#include "kernels/ktensor.h"

/* ---------- CONV_2D and DEPTHWISE_CONV_2D (conv.c, depthwise.c) ---------- */
typedef struct ap_conv_options {
  int padding; /* AP_KPAD_* */
  int32_t stride_w, stride_h;
  int32_t dilation_w, dilation_h; /* 0 is read as 1 (the schema default) */
  int activation;                 /* AP_KACT_* */
  int32_t depth_multiplier;       /* depthwise only; 0: derived from the shapes */
  int quantized_bias_type;        /* CONV_2D 16x8 without a bias: INT32 picks int32 sums */
} ap_conv_options;

enum {
  AP_KCONV_FLOAT = 1,
  AP_KCONV_INT8,               /* per-channel multipliers (per-tensor broadcast), TFLM */
  AP_KCONV_UINT8,              /* legacy per-tensor, TFLite */
  AP_KCONV_HYBRID,             /* float in/out, int8 filter, one scale: symmetric input */
  AP_KCONV_HYBRID_PER_CHANNEL, /* several scales: asymmetric input per batch */
  AP_KCONV_INT16X8,            /* int16 activations, int8 filter, per-channel; zero points
                                  ignored as TFLM's reference does; int64 (or int32) sums */
  AP_KCONV_INT8_W4             /* AP_KCONV_INT8 over an INT4 filter unpacked into scratch */
};

typedef struct ap_conv_params {
  int kind;
  ap_kpadding pad;
  int32_t stride_w, stride_h, dilation_w, dilation_h;
  int32_t depth_multiplier;
  int32_t input_offset, filter_offset, output_offset;
  int32_t act_min, act_max;  /* quantized kinds */
  float fact_min, fact_max;  /* float and hybrid kinds */
  int32_t output_multiplier; /* UINT8 */
  int output_shift;
  float input_scale, output_scale; /* INT8: per-channel multipliers are derived at eval */
  int32_t out_channels;
  bool acc32;                 /* INT16X8: int32 sums and bias (TFLM's int32 AccumScalar) */
  size_t filter_offset_bytes; /* INT8_W4: where the unpacked filter starts in scratch */
  ap_kshape in_shape, in2_shape, out_shape; /* as prepared; in2: filter or second input */
  size_t scratch_bytes;
} ap_conv_params;

ap_status ap_conv_prepare(const ap_conv_options *o, const ap_ktensor *input,
                          const ap_ktensor *filter, const ap_ktensor *bias, ap_ktensor *output,
                          ap_conv_params *p, ap_errbuf *err);
ap_status ap_conv_eval(const ap_conv_params *p, const ap_ktensor *input, const ap_ktensor *filter,
                       const ap_ktensor *bias, ap_ktensor *output, void *scratch);
ap_status ap_depthwise_prepare(const ap_conv_options *o, const ap_ktensor *input,
                               const ap_ktensor *filter, const ap_ktensor *bias, ap_ktensor *output,
                               ap_conv_params *p, ap_errbuf *err);
ap_status ap_depthwise_eval(const ap_conv_params *p, const ap_ktensor *input,
                            const ap_ktensor *filter, const ap_ktensor *bias, ap_ktensor *output,
                            void *scratch);

/* Per-channel multipliers exactly as PopulateConvolutionQuantizationParams computes them:
 * double(input_scale) * double(filter_scale[c]) / double(output_scale). */
void ap_kconv_channel_multipliers(float input_scale, const ap_ktensor *filter, float output_scale,
                                  int32_t n, int32_t *multiplier, int32_t *shift);
/* Shared by conv.c and depthwise.c: picks the kind from the types, checks quantization, and
 * fills the offsets, multipliers and activation ranges; out_channels and the batch/input
 * element counts size the scratch. */
ap_status ap_kconv_setup(const char *op, int activation, const ap_ktensor *input,
                         const ap_ktensor *filter, const ap_ktensor *bias, const ap_ktensor *output,
                         int32_t out_channels, ap_conv_params *p, ap_errbuf *err);
/* Shared by conv.c and depthwise.c: strides, dilations (0 reads as 1) and padding from the
 * options, failing with one message when the window leaves no output. */
ap_status ap_kconv_window(const char *op, const ap_conv_options *o, const ap_ktensor *input,
                          const ap_ktensor *filter, ap_conv_params *p, ap_errbuf *err);
/* After a successful prepare: the NHWC output's dims and the shapes eval checks against. */
void ap_kconv_output(const ap_ktensor *input, const ap_ktensor *filter, ap_ktensor *output,
                     int32_t out_channels, ap_conv_params *p);
/* PortableAsymmetricQuantizeFloats / PortableSymmetricQuantizeFloats (tensor_utils), the
 * hybrid kernels' (hybrid.c). Weak references on a freestanding build: a firmware registration
 * whose types lack float or int8 (a float firmware's: scripts/mcu_kernels.py) does not link
 * hybrid.c, whose double arithmetic would pull libgcc's soft double into a single-precision
 * core's firmware, and the prepares refuse hybrids there (ap_khybrid_linked); registry.c links
 * it through ap_khybrid_anchor. A hosted build links it with every prepare. */
void ap_kquantize_asymmetric(const float *v, size_t n, int8_t *q, float *scaling_factor,
                             int32_t *offset) __attribute__((weak));
void ap_kquantize_symmetric(const float *v, size_t n, int8_t *q, float *scaling_factor)
    __attribute__((weak));
extern const int ap_khybrid_anchor;
static inline bool ap_khybrid_linked(void) {
#ifdef AP_PORT_NONE
  return ap_kquantize_asymmetric != NULL; /* hybrid.c defines both or neither is linked */
#else
  return ap_khybrid_anchor != 0; /* a strong reference: a hosted build links them always */
#endif
}

/* ---------- FULLY_CONNECTED (fully_connected.c) ---------- */
typedef struct ap_fc_options {
  int activation;
  bool keep_num_dims;
  bool asymmetric_quantize_inputs; /* hybrid only */
  int quantized_bias_type;         /* 16x8 without a bias: INT32 picks int32 sums */
} ap_fc_options;

enum {
  AP_KFC_FLOAT = 1,
  AP_KFC_INT8,
  AP_KFC_INT8_PER_CHANNEL,
  AP_KFC_UINT8,
  AP_KFC_HYBRID,
  AP_KFC_INT16,             /* int16 activations, int8 weights, one multiplier */
  AP_KFC_INT16_PER_CHANNEL, /* int16 activations, int8 weights, one multiplier per unit */
  AP_KFC_INT8_W4            /* AP_KFC_INT8 over INT4 weights unpacked into scratch */
};

typedef struct ap_fc_params {
  int kind;
  bool asymmetric;
  int32_t batches, accum_depth, units;
  int32_t input_offset, filter_offset, output_offset;
  int32_t act_min, act_max;
  float fact_min, fact_max;
  int32_t output_multiplier;
  int output_shift;
  float input_scale, output_scale;
  bool acc32;                 /* INT16 kinds: int32 sums and bias (TFLM's int32 BiasType) */
  size_t filter_offset_bytes; /* INT8_W4: where the unpacked weights start in scratch */
  ap_kshape in_shape, in2_shape, out_shape; /* as prepared; in2: filter or second input */
  size_t scratch_bytes;
} ap_fc_params;

ap_status ap_fc_prepare(const ap_fc_options *o, const ap_ktensor *input, const ap_ktensor *filter,
                        const ap_ktensor *bias, ap_ktensor *output, ap_fc_params *p,
                        ap_errbuf *err);
ap_status ap_fc_eval(const ap_fc_params *p, const ap_ktensor *input, const ap_ktensor *filter,
                     const ap_ktensor *bias, ap_ktensor *output, void *scratch);

/* ---------- AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D (pooling.c) ---------- */
enum { AP_KPOOL_AVERAGE = 1, AP_KPOOL_MAX, AP_KPOOL_L2 /* float32 only */ };
typedef struct ap_pool_options {
  int padding;
  int32_t stride_w, stride_h, filter_w, filter_h;
  int activation;
} ap_pool_options;
typedef struct ap_pool_params {
  int kind; /* AP_KPOOL_* */
  ap_kpadding pad;
  int32_t stride_w, stride_h, filter_w, filter_h;
  int32_t act_min, act_max;
  float fact_min, fact_max;
  ap_kshape in_shape, in2_shape, out_shape; /* as prepared; in2: filter or second input */
  size_t scratch_bytes;
} ap_pool_params;
ap_status ap_pool_prepare(int kind, const ap_pool_options *o, const ap_ktensor *input,
                          ap_ktensor *output, ap_pool_params *p, ap_errbuf *err);
ap_status ap_pool_eval(const ap_pool_params *p, const ap_ktensor *input, ap_ktensor *output);

/* ---------- SOFTMAX (softmax.c) ---------- */
typedef struct ap_softmax_params {
  float beta;
  int32_t input_multiplier;
  int input_left_shift;
  int32_t diff_min;
  ap_kshape in_shape, in2_shape, out_shape; /* as prepared; in2: filter or second input */
  size_t scratch_bytes;
} ap_softmax_params;
ap_status ap_softmax_prepare(float beta, const ap_ktensor *input, ap_ktensor *output,
                             ap_softmax_params *p, ap_errbuf *err);
ap_status ap_softmax_eval(const ap_softmax_params *p, const ap_ktensor *input, ap_ktensor *output);

/* ---------- ADD, SUB, MUL with broadcasting (elementwise.c) ---------- */
enum { AP_KBIN_ADD = 1, AP_KBIN_SUB, AP_KBIN_MUL };
typedef struct ap_binary_params {
  int op; /* AP_KBIN_* */
  int32_t input1_offset, input2_offset, output_offset;
  int32_t input1_multiplier, input2_multiplier, output_multiplier;
  int input1_shift, input2_shift, output_shift;
  int left_shift;
  int32_t act_min, act_max;
  float fact_min, fact_max;
  ap_kshape in_shape, in2_shape, out_shape; /* as prepared; in2: filter or second input */
  size_t scratch_bytes;
} ap_binary_params;
ap_status ap_binary_prepare(int op, int activation, const ap_ktensor *input1,
                            const ap_ktensor *input2, ap_ktensor *output, ap_binary_params *p,
                            ap_errbuf *err);
ap_status ap_binary_eval(const ap_binary_params *p, const ap_ktensor *input1,
                         const ap_ktensor *input2, ap_ktensor *output);

/* ---------- RELU, RELU6, LOGISTIC, TANH (activations.c) ---------- */
enum { AP_KUN_RELU = 1, AP_KUN_RELU6, AP_KUN_LOGISTIC, AP_KUN_TANH };
typedef struct ap_unary_params {
  int op;
  int32_t input_zero_point, output_zero_point;
  int32_t multiplier;
  int shift;
  int32_t input_range_radius;
  int32_t act_min, act_max;                 /* quantized RELU: clamp; RELU6: [zero, six] */
  ap_kshape in_shape, in2_shape, out_shape; /* as prepared; in2: filter or second input */
  size_t scratch_bytes;
} ap_unary_params;
ap_status ap_unary_prepare(int op, const ap_ktensor *input, ap_ktensor *output, ap_unary_params *p,
                           ap_errbuf *err);
ap_status ap_unary_eval(const ap_unary_params *p, const ap_ktensor *input, ap_ktensor *output);
/* reference_ops::Logistic on one float (its cutoffs included); LSTM gates share it. */
float ap_klogistic_f(float v);

/* ---------- PAD and PADV2 (pad.c) ---------- */
typedef struct ap_pad_params {
  int32_t before[AP_KMAXDIMS];
  int32_t pad_int; /* integer types: the padding value (output zero point by default) */
  float pad_float;
  ap_kshape in_shape, in2_shape, out_shape; /* as prepared; in2: filter or second input */
  size_t scratch_bytes;
} ap_pad_params;
/* paddings: INT32 (or INT64) [rank, 2] with data; constant: NULL or a one-element tensor of
 * the input's type. */
ap_status ap_pad_prepare(const ap_ktensor *input, const ap_ktensor *paddings,
                         const ap_ktensor *constant, ap_ktensor *output, ap_pad_params *p,
                         ap_errbuf *err);
ap_status ap_pad_eval(const ap_pad_params *p, const ap_ktensor *input, ap_ktensor *output);

/* ---------- MEAN (mean.c) ---------- */
enum { AP_KMEAN_FLOAT = 1, AP_KMEAN_INT };
typedef struct ap_mean_params {
  int kind;
  int32_t axes[AP_KMAXDIMS]; /* resolved: non-negative, no duplicates */
  int n_axes;
  int32_t multiplier;
  int shift;
  int32_t input_zero_point, output_zero_point;
  ap_kshape in_shape, in2_shape, out_shape; /* as prepared; in2: filter or second input */
  size_t scratch_bytes; /* int32 sums, one per output element, for integer kinds */
} ap_mean_params;
ap_status ap_mean_prepare(const ap_ktensor *input, const ap_ktensor *axis, bool keep_dims,
                          ap_ktensor *output, ap_mean_params *p, ap_errbuf *err);
ap_status ap_mean_eval(const ap_mean_params *p, const ap_ktensor *input, ap_ktensor *output,
                       void *scratch);
/* The integer kinds' multiplier and shift with 1/count folded in (count > 0), as eval uses
 * them (the fast path's too). */
void ap_mean_fold_count(const ap_mean_params *p, int64_t count, int32_t *multiplier, int *shift);

/* ---------- TRANSPOSE (transpose.c) ---------- */
typedef struct ap_transpose_params {
  int32_t perm[AP_KMAXDIMS];
  int rank;
  ap_kshape in_shape, in2_shape, out_shape; /* as prepared; in2: filter or second input */
  size_t scratch_bytes;
} ap_transpose_params;
ap_status ap_transpose_prepare(const ap_ktensor *input, const ap_ktensor *perm, ap_ktensor *output,
                               ap_transpose_params *p, ap_errbuf *err);
ap_status ap_transpose_eval(const ap_transpose_params *p, const ap_ktensor *input,
                            ap_ktensor *output);

/* ---------- CONCATENATION (concat.c) ---------- */
typedef struct ap_concat_params {
  int axis;                                 /* resolved */
  ap_kshape in_shape, in2_shape, out_shape; /* as prepared; in2: filter or second input */
  size_t scratch_bytes;
} ap_concat_params;
ap_status ap_concat_prepare(int axis, int activation, const ap_ktensor *const *inputs, int n,
                            ap_ktensor *output, ap_concat_params *p, ap_errbuf *err);
ap_status ap_concat_eval(const ap_concat_params *p, const ap_ktensor *const *inputs, int n,
                         ap_ktensor *output);

/* ---------- RESHAPE (reshape.c) ---------- */
/* shape: the new shape (one -1 allowed), from the shape input or the options; NULL with n 0
 * for a scalar. Eval copies the bytes unless input and output share them. */
ap_status ap_reshape_prepare(const ap_ktensor *input, const int32_t *shape, int n,
                             ap_ktensor *output, ap_errbuf *err);
ap_status ap_reshape_eval(const ap_ktensor *input, ap_ktensor *output);

/* ---------- QUANTIZE and DEQUANTIZE (quantize.c) ---------- */
enum { AP_KQ_FLOAT_TO_INT = 1, AP_KQ_REQUANTIZE, AP_KQ_DEQUANTIZE };
typedef struct ap_quantize_params {
  int kind;
  float scale; /* FLOAT_TO_INT: output scale; DEQUANTIZE: input scale */
  int32_t input_zero_point, output_zero_point;
  int32_t multiplier;
  int shift;
  ap_kshape in_shape, in2_shape, out_shape; /* as prepared; in2: filter or second input */
  size_t scratch_bytes;
} ap_quantize_params;
ap_status ap_quantize_prepare(const ap_ktensor *input, ap_ktensor *output, ap_quantize_params *p,
                              ap_errbuf *err);
ap_status ap_dequantize_prepare(const ap_ktensor *input, ap_ktensor *output, ap_quantize_params *p,
                                ap_errbuf *err);
ap_status ap_quantize_eval(const ap_quantize_params *p, const ap_ktensor *input,
                           ap_ktensor *output);

#endif
