/* The int16 element-wise and activation paths, and HARD_SWISH, ELU, LOG_SOFTMAX (helper elem16's
 * part of issue 15). Arithmetic follows TFLite Micro's reference kernels bit for bit. */
#ifndef AP_KERNELS_KOPS_ELEM16_H
#define AP_KERNELS_KOPS_ELEM16_H

#include "kernels/kops.h"

/* LEAKY_RELU and PRELU before the clamp (arith_int8.c): the int8 arithmetic, shared by int16
 * LEAKY_RELU and int16 PRELU (whose alpha is int8). */
int32_t ap_kx_q_relu(const ap_kx_params *p, int32_t x, const int8_t *alpha);

/* ABS on int8 and int16 (math.c, elementwise.cc): |x - zero point|, rescaled when the scales
 * differ; an int16 tensor without quantization takes std::abs (which wraps at -32768). */
ap_status ap_kx_q_abs_setup(ap_kctx *c, ap_kx_params *p, const ap_ktensor *in,
                            const ap_ktensor *out);
int32_t ap_kx_q_abs(const ap_kx_params *p, int32_t x);

/* int16 SQUARED_DIFFERENCE (arith_int16.c). */
ap_status ap_kx_int16_sqdiff_setup(ap_kctx *c, ap_kx_params *p, const ap_ktensor *a,
                                   const ap_ktensor *b, const ap_ktensor *out);
int16_t ap_kx_int16_sqdiff(const ap_kx_params *p, int16_t x, int16_t y);

/* int16 SOFTMAX (softmax16.c): the setup checks TFLite Micro's quantization (zero points 0,
 * output scale 1/32768) and sets p's multiplier and scratch_bytes (the two tables); eval
 * builds the tables in scratch, then computes outer rows of depth values. */
size_t ap_softmax16_scratch(void);
ap_status ap_softmax16_setup(float beta, const ap_ktensor *in, const ap_ktensor *out,
                             ap_softmax_params *p, ap_errbuf *err);
void ap_softmax16_eval(const ap_softmax_params *p, const int16_t *x, int16_t *y, size_t outer,
                       size_t depth, void *scratch);
/* ap_softmax_eval with the scratch an int16 SOFTMAX needs (softmax.c). */
ap_status ap_softmax_eval_scratch(const ap_softmax_params *p, const ap_ktensor *input,
                                  ap_ktensor *output, void *scratch);
/* ap_softmax_prepare and ap_softmax_eval_scratch for the 8-bit kinds only (int16 and float32
 * refused with AP_ERR_UNSUPPORTED), so a registration that leaves both types out links neither
 * softmax16.c nor expf. */
ap_status ap_softmax_prepare_8bit(float beta, const ap_ktensor *input, ap_ktensor *output,
                                  ap_softmax_params *p, ap_errbuf *err);
/* ap_softmax_prepare for float32 and the 8-bit kinds (int16 refused): a registration with float
 * and without int16 links no softmax16.c setup (its double multiplier). */
ap_status ap_softmax_prepare_float(float beta, const ap_ktensor *input, ap_ktensor *output,
                                   ap_softmax_params *p, ap_errbuf *err);
ap_status ap_softmax_eval_8bit(const ap_softmax_params *p, const ap_ktensor *input,
                               ap_ktensor *output, void *scratch);

/* Builtin codes of the ops added here (schema.fbs BuiltinOperator). */
enum { AP_KB_LOG_SOFTMAX = 50, AP_KB_ELU = 111, AP_KB_HARD_SWISH = 117 };

/* act_prepare.c: the common prepare of HARD_SWISH, ELU and LOG_SOFTMAX (same shape, float32 or
 * int8 with usable quantization); params zeroed, zero points in q_offset[0] and [2]. */
ap_status ap_kx_act_prepare(ap_kctx *c, size_t *scratch, const char *name);
/* Their eval, one element at a time: q on int8, f on float32. */
ap_status ap_kx_act_eval(ap_kctx *c, int8_t (*q)(const ap_kx_params *p, int8_t x),
                         float (*f)(float x));
/* hard_swish.c: HARD_SWISH (float32, int8); elu.c: ELU (float32, int8); log_softmax.c:
 * LOG_SOFTMAX (float32, int8). */
ap_status ap_kx_hard_swish_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_hard_swish_eval(ap_kctx *c);
ap_status ap_kx_elu_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_elu_eval(ap_kctx *c);
ap_status ap_kx_log_softmax_prepare(ap_kctx *c, size_t *scratch);
ap_status ap_kx_log_softmax_eval(ap_kctx *c);
/* fixed_log.c: log x of x >= 1, x with in_bits integer bits, the result with out_bits
 * (log_x_for_x_greater_than_or_equal_to_1). */
int32_t ap_kfp_log_x_ge_1(int32_t x, int in_bits, int out_bits);

/* int16 LOGISTIC and TANH (act16.c): the setup checks the quantization and sets p's input
 * multiplier, shift and scratch_bytes (the sigmoid table); eval builds the table in scratch. */
size_t ap_act16_scratch(void);
ap_status ap_act16_setup(bool tanh_op, const ap_ktensor *in, const ap_ktensor *out,
                         ap_unary_params *p, ap_errbuf *err);
void ap_act16_eval(const ap_unary_params *p, bool tanh_op, const int16_t *x, int16_t *y, size_t n,
                   void *scratch);
/* ap_unary_eval with the scratch int16 LOGISTIC and TANH need (activations.c). */
ap_status ap_unary_eval_scratch(const ap_unary_params *p, const ap_ktensor *input,
                                ap_ktensor *output, void *scratch);

#endif
