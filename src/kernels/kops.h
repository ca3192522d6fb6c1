/* Kernels written directly against the registry's context (ap_kctx): the math, comparison,
 * cast and shape-manipulating ops of issue 8. Families shared by several builtins take the
 * builtin code as an extra argument (registry.c binds it); `params` holds an ap_kx_params filled by
 * prepare, because eval sees no options (the runtime passes empty ones to eval).
 *
 * Arithmetic follows TFLite's reference kernels (tensorflow/lite/kernels/internal/reference):
 * float ops use the float libm function TFLite's std:: call resolves to.
 */
#ifndef AP_KERNELS_KOPS_H
#define AP_KERNELS_KOPS_H

#include "kernels/registry.h"

typedef struct ap_kx_params {
  int op;   /* the builtin code */
  int kind; /* op-specific sub-case */
  float alpha, fmin, fmax;
  int32_t imin, imax;
  int32_t axis, count;
  int32_t begin[AP_KMAXDIMS], stride[AP_KMAXDIMS];
  ap_kshape in_shape, in2_shape, out_shape;
  /* int8 arithmetic (arith_int8.c): inputs' offsets, the output's zero point (index 2), and
   * multipliers and shifts (inputs' rescales, then the output's). */
  int32_t q_offset[3], q_mult[3];
  int q_shift[3];
} ap_kx_params;

/* Broadcast iteration over up to three inputs in output order (numpy rules, as TFLite's
 * Broadcast*Slow kernels): offsets advance with stride 0 along the dims an input broadcasts. */
typedef struct ap_kbcast {
  int rank, n_in;
  int32_t dims[AP_KMAXDIMS], idx[AP_KMAXDIMS];
  size_t stride[3][AP_KMAXDIMS];
  size_t off[3];
} ap_kbcast;

/* Output shape of broadcasting ins[0..n) (n at most 3) into `out`; fails naming `op`. */
ap_status ap_kbcast_shape(const char *op, const ap_ktensor *const *ins, int n, ap_ktensor *out,
                          ap_errbuf *err);
void ap_kbcast_init(ap_kbcast *b, const ap_ktensor *const *ins, int n, const ap_ktensor *out);
void ap_kbcast_next(ap_kbcast *b);

/* Common argument check of the context: n_in..max_in inputs, all non-NULL up to n_in, and at
 * least one output. */
ap_status ap_kx_arity(ap_kctx *c, const char *op, int n_in, int max_in, int n_out);
/* Eval's check that the context is what prepare saw: min_in..max_in inputs, input 0 and output
 * 0 with data and the shapes prepare recorded (params in_shape, out_shape). */
/* Copies n elements of es bytes from src to dst, walking src from element `pos` with per-axis
 * steps `step` (in elements) over the loop dims `dims` (rank axes, innermost last): the one
 * walk of SLICE/STRIDED_SLICE and REVERSE_V2 (a slice with stride -1). */
void ap_kx_strided_copy(unsigned char *dst, const unsigned char *src, size_t es, size_t n, int rank,
                        const int32_t *dims, const int64_t *step, int64_t pos);
bool ap_kx_eval_io(const ap_kctx *c, int min_in, int max_in, const ap_ktensor **in,
                   ap_ktensor **out);

/* math.c: SQRT, RSQRT, EXP, LOG, ABS, NEG, LEAKY_RELU */
ap_status ap_kx_unary_prepare(ap_kctx *c, size_t *scratch, int op);
ap_status ap_kx_unary_eval(ap_kctx *c);
/* arith.c: DIV, FLOOR_DIV, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM, POW, EQUAL, LESS, SELECT_V2 */
ap_status ap_kx_binary_prepare(ap_kctx *c, size_t *scratch, int op);
ap_status ap_kx_binary_eval(ap_kctx *c);
/* cast.c: CAST, SHAPE */
ap_status ap_kx_cast_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_cast_eval(ap_kctx *c);
ap_status ap_kx_shape_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_shape_eval(ap_kctx *c);
/* pack.c: PACK, UNPACK */
ap_status ap_kx_pack_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_pack_eval(ap_kctx *c);
ap_status ap_kx_unpack_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_unpack_eval(ap_kctx *c);
/* gather.c: GATHER, ARG_MAX */
ap_status ap_kx_gather_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_gather_eval(ap_kctx *c);
ap_status ap_kx_argmax_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_argmax_eval(ap_kctx *c);
/* slice.c: SLICE, STRIDED_SLICE */
ap_status ap_kx_slice_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_strided_slice_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_slice_eval(ap_kctx *c);

/* prelu.c: PRELU; reverse.c: REVERSE_V2; transpose_conv.c: TRANSPOSE_CONV (float32) */
ap_status ap_kx_transpose_conv_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_transpose_conv_eval(ap_kctx *c);
/* resize.c: RESIZE_BILINEAR (float32, int8) */
ap_status ap_kx_resize_bilinear_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_resize_bilinear_eval(ap_kctx *c);
/* gather_nd.c: GATHER_ND */
ap_status ap_kx_gather_nd_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_gather_nd_eval(ap_kctx *c);
/* batch_matmul.c: BATCH_MATMUL (float32) */
ap_status ap_kx_batch_matmul_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_batch_matmul_eval(ap_kctx *c);
ap_status ap_kx_prelu_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_prelu_eval(ap_kctx *c);
ap_status ap_kx_reverse_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_reverse_eval(ap_kctx *c);

/* svdf.c: SVDF (float32; int8 with an int16 or int8 state) */
enum { AP_KSVDF_FLOAT = 1, AP_KSVDF_INT };
typedef struct ap_svdf_params {
  int kind, state_type, activation;
  int32_t batch, n_input, n_filter, n_unit, rank, n_memory;
  int32_t mult1, mult2; /* int: feature matmul to the state's scale; the sum to the output's */
  int shift1, shift2;
  int32_t input_zp, output_zp, state_zp;
  size_t filter_bytes; /* the per-filter scratch, rounded; the per-unit sums follow it */
  ap_kshape in_shape, out_shape;
} ap_svdf_params;
ap_status ap_kx_svdf_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_svdf_eval(ap_kctx *c);

/* arith_int8.c: int8 DIV and SQUARED_DIFFERENCE (p->op says which), int8 RSQRT. The setups
 * run in prepare; the element functions fail (AP_ERR_KERNEL) on a zero divisor and on RSQRT of
 * a value below the zero point. */
ap_status ap_kx_int8_binary_setup(ap_kctx *c, ap_kx_params *p, const char *name,
                                  const ap_ktensor *a, const ap_ktensor *b, const ap_ktensor *out);
ap_status ap_kx_int8_binary(const ap_kx_params *p, int8_t x, int8_t y, int8_t *r);
ap_status ap_kx_int8_rsqrt_setup(ap_kctx *c, ap_kx_params *p, const ap_ktensor *in,
                                 const ap_ktensor *out);
ap_status ap_kx_int8_rsqrt(const ap_kx_params *p, int8_t x, int8_t *r);
/* int8 LEAKY_RELU (alpha NULL: the options' alpha) and PRELU (alpha: its int8 tensor): two
 * rescales, by in / out for values at or above the zero point, by the slope otherwise. */
ap_status ap_kx_int8_relu_setup(ap_kctx *c, ap_kx_params *p, const char *name, const ap_ktensor *in,
                                const ap_ktensor *alpha, const ap_ktensor *out);
int8_t ap_kx_int8_relu(const ap_kx_params *p, int8_t x, const int8_t *alpha);
/* int8/uint8 EQUAL and LESS: the two values compared after rescaling (p->kind 1). */
ap_status ap_kx_q8_compare_setup(ap_kctx *c, ap_kx_params *p, const char *name, const ap_ktensor *a,
                                 const ap_ktensor *b);
void ap_kx_q8_compare_scale(const ap_kx_params *p, int32_t x, int32_t y, int64_t *sx, int64_t *sy);

/* tile.c: TILE (any element type); l2norm.c: L2_NORMALIZATION (float32, int8) */
ap_status ap_kx_tile_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_tile_eval(ap_kctx *c);
ap_status ap_kx_l2norm_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_l2norm_eval(ap_kctx *c);

/* Builtin codes (schema.fbs BuiltinOperator). */
enum {
  AP_KB_L2_NORMALIZATION = 11,
  AP_KB_RESHAPE = 22,
  AP_KB_RESIZE_BILINEAR = 23,
  AP_KB_SVDF = 27,
  AP_KB_PAD = 34,
  AP_KB_TRANSPOSE = 39,
  AP_KB_MEAN = 40,
  AP_KB_GATHER = 36,
  AP_KB_DIV = 42,
  AP_KB_UNIDIRECTIONAL_SEQUENCE_LSTM = 44,
  AP_KB_STRIDED_SLICE = 45,
  AP_KB_EXP = 47,
  AP_KB_CAST = 53,
  AP_KB_PRELU = 54,
  AP_KB_MAXIMUM = 55,
  AP_KB_ARG_MAX = 56,
  AP_KB_MINIMUM = 57,
  AP_KB_LESS = 58,
  AP_KB_PADV2 = 60,
  AP_KB_NEG = 59,
  AP_KB_SLICE = 65,
  AP_KB_TRANSPOSE_CONV = 67,
  AP_KB_TILE = 69,
  AP_KB_EQUAL = 71,
  AP_KB_LOG = 73,
  AP_KB_SQRT = 75,
  AP_KB_RSQRT = 76,
  AP_KB_SHAPE = 77,
  AP_KB_POW = 78,
  AP_KB_PACK = 83,
  AP_KB_UNPACK = 88,
  AP_KB_FLOOR_DIV = 90,
  AP_KB_LEAKY_RELU = 98,
  AP_KB_SQUARED_DIFFERENCE = 99,
  AP_KB_ABS = 101,
  AP_KB_REVERSE_V2 = 105,
  AP_KB_GATHER_ND = 107,
  AP_KB_SELECT_V2 = 123,
  AP_KB_BATCH_MATMUL = 126
};

#endif
