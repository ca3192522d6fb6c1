/* TFLite's quantized arithmetic, bit for bit: the multiplier/shift representation of a real
 * scale (quantization_util.cc), the gemmlowp rounding primitives that TFLite uses when
 * TFLITE_SINGLE_ROUNDING is off (its default, and TFLite Micro's), activation ranges
 * (kernel_util.cc), and the gemmlowp fixed-point functions behind the quantized softmax,
 * logistic and tanh (fixedpoint.h).
 *
 * Shifts follow TFLite: a positive shift is a left shift. Raw fixed-point values are int32
 * with `integer_bits` integer bits (gemmlowp's FixedPoint<int32_t, integer_bits>).
 */
#ifndef AP_KERNELS_QUANT_H
#define AP_KERNELS_QUANT_H

#include "kernels/ktensor.h"

/* QuantizeMultiplier: m = multiplier * 2^(shift - 31), multiplier in [2^30, 2^31) (or 0).
 * Multipliers below 2^-31 become (0, 0), as in TFLite. */
void ap_kq_multiplier(double m, int32_t *multiplier, int *shift);
/* QuantizeMultiplierSmallerThanOneExp: false unless 0 < m < 1. */
bool ap_kq_multiplier_lt1(double m, int32_t *multiplier, int *left_shift);
/* QuantizeMultiplierGreaterThanOne: false unless m > 1. */
bool ap_kq_multiplier_gt1(double m, int32_t *multiplier, int *left_shift);

int32_t ap_kq_srdhm(int32_t a, int32_t b);     /* SaturatingRoundingDoublingHighMul */
int32_t ap_kq_rdbpot(int32_t x, int exponent); /* RoundingDivideByPOT, exponent in [0, 31] */
/* MultiplyByQuantizedMultiplier (double rounding): left shift, high mul, rounding right
 * shift. The left shift wraps in 32 bits as TFLite's does on every compiler it ships with. */
int32_t ap_kq_mul(int32_t x, int32_t multiplier, int shift);
int32_t ap_kq_mul_lt1(int32_t x, int32_t multiplier, int left_shift);
int32_t ap_kq_mul_gt1(int32_t x, int32_t multiplier, int left_shift);
/* MultiplyByQuantizedMultiplier's int64 overload (the 16x8 kernels' 64-bit accumulators):
 * the multiplier rounded to 16 bits, one rounding shift, the result truncated to 32 bits. */
int32_t ap_kq_mul64(int64_t x, int32_t multiplier, int shift);

/* 1 where double arithmetic is emulated in software (no double-precision FPU: Cortex-M4, M33,
 * soft-float cores): the multipliers are then computed from the float scales with integers
 * (quant_exact.c), the same values, and libgcc's soft double is not linked. */
#if defined(__SOFTFP__) || (defined(__ARM_FP) && !(__ARM_FP & 8))
#define AP_KQ_SOFT_DOUBLE 1
#else
#define AP_KQ_SOFT_DOUBLE 0
#endif
/* ap_kq_multiplier((double)a * (double)b / (double)c), without double arithmetic. */
void ap_kq_multiplier_ratio(float a, float b, float c, int32_t *multiplier, int *shift);
/* ap_kq_softmax_scaling((double)beta, (double)input_scale, ...), without double arithmetic. */
bool ap_kq_softmax_scaling_f(float beta, float input_scale, int input_integer_bits,
                             int32_t *multiplier, int *left_shift);
/* ap_kq_input_radius without double arithmetic (input_integer_bits in [0, 31]). */
int32_t ap_kq_input_radius_int(int input_integer_bits, int input_left_shift);

/* CalculateInputRadius (total_signed_bits 31). */
int32_t ap_kq_input_radius(int input_integer_bits, int input_left_shift);
/* PreprocessSoftmaxScaling (double-rounding variant). */
bool ap_kq_softmax_scaling(double beta, double input_scale, int input_integer_bits,
                           int32_t *multiplier, int *left_shift);

/* CalculateActivationRange for float kernels. False for TANH/SIGN_BIT fused activations, which
 * TFLite's float kernels do not apply either. */
bool ap_kq_act_range_float(int activation, float *min, float *max);
/* CalculateActivationRangeQuantized: the range of `type` (INT8, UINT8, INT16, INT32) narrowed
 * by the activation quantized with the output's scale and zero point. */
bool ap_kq_act_range_quant(int activation, int type, float scale, int32_t zero_point, int32_t *min,
                           int32_t *max);
/* std::min(std::max(x, lo), hi): NaN passes through, as in ActivationFunctionWithMinMax. */
static inline float ap_kq_clampf(float x, float lo, float hi) {
  float y = x < lo ? lo : x;
  return hi < y ? hi : y;
}
static inline int32_t ap_kq_clamp(int32_t x, int32_t lo, int32_t hi) {
  return x < lo ? lo : x > hi ? hi : x;
}
/* An int32 accumulation as TFLite's wraps on overflow, without the undefined behaviour: sum in
 * int64, then keep the low 32 bits. */
static inline int32_t ap_kq_wrap32(int64_t v) {
  return (int32_t)(uint32_t)(uint64_t)v;
}
/* A usable quantization scale: positive and finite. */
bool ap_kq_scale_ok(float scale);
/* The zero point lies in the range of the tensor's type (INT8, UINT8, INT16; any other type
 * is not checked). Offsets are negated zero points, so this also keeps them in range. */
bool ap_kq_zero_point_ok(const ap_ktensor *t);
/* Every per-channel scale of t (or its one scale) is usable. */
bool ap_kq_channel_scales_ok(const ap_ktensor *t);
/* TfLiteRound for floats: round half away from zero. */
float ap_kq_roundf(float x);

/* gemmlowp fixed point. */
int32_t ap_kfp_exp_on_negative_values(int32_t a, int integer_bits); /* result: 0 int bits */
int32_t ap_kfp_one_over_one_plus_x(int32_t a);                      /* a, result: 0 int bits */
int32_t ap_kfp_logistic(int32_t a, int integer_bits);               /* result: 0 int bits */
int32_t ap_kfp_tanh(int32_t a, int integer_bits);                   /* result: 0 int bits */
/* GetReciprocal (common.h): 1/x for x with x_integer_digits, as a raw Q0.31 value and the
 * number of bits it is shifted by. x must be positive. */
int32_t ap_kq_reciprocal(int32_t x, int x_integer_digits, int *num_bits_over_unit);
/* GetInvSqrtQuantizedMultiplierExp (common.h): 1/sqrt(input) as a multiplier and a right shift
 * (times reverse_shift: -1 turns it into TFLite's left shift). input <= 1 gives INT32_MAX, 0. */
void ap_kq_inv_sqrt(int32_t input, int reverse_shift, int32_t *multiplier, int *shift);

#endif
