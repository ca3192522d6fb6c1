/* The math, comparison, logic and reduction ops of issue 15, on the kops.h families:
 *   math.c      FLOOR, CEIL, ROUND, SIN, COS, SQUARE (float32), LOGICAL_NOT (bool)
 *   arith.c     FLOOR_MOD (float32), GREATER, GREATER_EQUAL, LESS_EQUAL, NOT_EQUAL,
 *               LOGICAL_AND, LOGICAL_OR (broadcasting)
 *   reduce.c    SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL; the reduction walk MEAN shares
 *   gather.c    ARG_MIN (ARG_MAX's walk with `<`)
 *   pooling.c   L2_POOL_2D (AP_KPOOL_L2)
 * TFLite Micro registers no REDUCE_ANY or REDUCE_PROD, so neither is here.
 */
#ifndef AP_KERNELS_KOPS_MATHLOGIC_H
#define AP_KERNELS_KOPS_MATHLOGIC_H

#include "kernels/kops.h"

/* Builtin codes (schema.fbs BuiltinOperator). */
enum {
  AP_KB_FLOOR = 8,
  AP_KB_L2_POOL_2D = 12,
  AP_KB_GREATER = 61,
  AP_KB_GREATER_EQUAL = 62,
  AP_KB_LESS_EQUAL = 63,
  AP_KB_SIN = 66,
  AP_KB_NOT_EQUAL = 72,
  AP_KB_SUM = 74,
  AP_KB_ARG_MIN = 79,
  AP_KB_REDUCE_MAX = 82,
  AP_KB_LOGICAL_OR = 84,
  AP_KB_LOGICAL_AND = 86,
  AP_KB_LOGICAL_NOT = 87,
  AP_KB_REDUCE_MIN = 89,
  AP_KB_SQUARE = 92,
  AP_KB_FLOOR_MOD = 95,
  AP_KB_CEIL = 104,
  AP_KB_COS = 108,
  AP_KB_ROUND = 116,
  AP_KB_REDUCE_ALL = 140
};

/* The registry's prepare adapters: each binds its builtin code to the family's prepare. */
#define AP_KML_UNARY_OPS(X) X(FLOOR) X(CEIL) X(ROUND) X(SIN) X(COS) X(SQUARE) X(LOGICAL_NOT)
#define AP_KML_BINARY_OPS(X)                                                                       \
  X(FLOOR_MOD) X(GREATER) X(GREATER_EQUAL) X(LESS_EQUAL) X(NOT_EQUAL) X(LOGICAL_AND) X(LOGICAL_OR)
#define AP_KML_REDUCE_OPS(X) X(SUM) X(REDUCE_MAX) X(REDUCE_MIN) X(REDUCE_ALL)
#define AP_KML_DECLARE(NAME) ap_status ap_kml_##NAME##_prepare(ap_kctx *c, size_t *scratch);
AP_KML_UNARY_OPS(AP_KML_DECLARE)
AP_KML_BINARY_OPS(AP_KML_DECLARE)
AP_KML_REDUCE_OPS(AP_KML_DECLARE)
#undef AP_KML_DECLARE
/* A registry entry of one of the lists above. */
#define AP_KML_ENTRY(NAME, PARAMS, EVAL)                                                           \
  { AP_KB_##NAME, #NAME, sizeof(PARAMS), ap_kml_##NAME##_prepare, EVAL }

/* reduce.c. Params of SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL. */
typedef struct ap_kreduce_params {
  int op, type;
  bool reduced[AP_KMAXDIMS];
  int64_t count; /* input elements per output element */
  int32_t multiplier, input_zero_point, output_zero_point;
  int shift;
  ap_kshape in_shape, out_shape;
  size_t scratch_bytes;
} ap_kreduce_params;
ap_status ap_kx_reduce_eval(ap_kctx *c);

/* The axis input resolved as TFLite's ResolveAxis does (negative axes count from the end,
 * duplicates dropped, any axis of a scalar ignored), and the output shape it gives (reduced
 * dims kept as 1 with keep_dims, dropped otherwise). `reduced` gets one flag per input dim. */
ap_status ap_kreduce_axes(const char *op, const ap_ktensor *input, const ap_ktensor *axis,
                          bool keep_dims, ap_ktensor *output, bool *reduced, ap_errbuf *err);
/* The one reduction walk: the input in storage order, each element's output index from the
 * broadcast iterator run backwards (the output, reduced dims as 1, broadcast to the input). */
void ap_kreduce_walk_init(ap_kbcast *it, const ap_ktensor *input, const bool *reduced);
/* Sums per output element in input storage order: float32 in float (as ReduceGeneric), int8 and
 * int16 in int32 wrapping (as ReduceSumImpl). */
void ap_kreduce_sum_float(const ap_ktensor *input, const bool *reduced, float *out, size_t n_out);
void ap_kreduce_sum_int(const ap_ktensor *input, const bool *reduced, int32_t *sum, size_t n_out);
/* QuantizedMeanOrSum's last step: each sum less count input zero points, rescaled, plus the
 * output zero point, clamped to `type` (INT8, UINT8, INT16) and stored in out. */
void ap_kreduce_requantize(int type, const int32_t *sum, size_t n, int64_t count,
                           int32_t input_zero_point, int32_t multiplier, int shift,
                           int32_t output_zero_point, void *out);

/* gather.c: ARG_MIN. */
ap_status ap_kx_argmin_prepare(ap_kctx *c, size_t *scratch);

/* pooling.c: L2_POOL_2D's prepare (eval: the pools' own). */
ap_status ap_kml_l2_pool_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kml_pool_eval(ap_kctx *c);

#endif
