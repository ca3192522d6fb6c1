/* The int8 paths TFLite Micro has for DIV (reference div.h: a fixed-point reciprocal of the
 * divisor, then one rescale), SQUARED_DIFFERENCE (squared_difference.cc: both inputs rescaled
 * to a common scale with 7 bits of headroom, squared, rescaled to the output) and RSQRT
 * (elementwise.cc: the inverse square root multiplier of the offset value, at 2^20, then
 * rescaled), LEAKY_RELU (leaky_relu_common.cc) and PRELU (prelu_common.cc, prelu.h): one
 * rescale for values at or above the zero point, another (times alpha) below; and the 8-bit
 * comparisons (comparisons.h: both inputs rescaled with 8 bits of headroom). Per-tensor
 * quantization; every result is clamped to int8 (and to the fused activation's range for
 * DIV). */
#include "kernels/kops.h"
#include "kernels/quant.h"

#include <math.h>

static bool zero_point_ok(const ap_ktensor *t) {
  return t->zero_point >= -128 && t->zero_point <= 127 && ap_kq_scale_ok(t->scale);
}

ap_status ap_kx_int8_binary_setup(ap_kctx *c, ap_kx_params *p, const char *name,
                                  const ap_ktensor *a, const ap_ktensor *b, const ap_ktensor *out) {
  if (!zero_point_ok(a) || !zero_point_ok(b) || !zero_point_ok(out)) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "%s: int8 tensors need a positive scale and a zero point in [-128, 127]", name);
  }
  p->q_offset[0] = -a->zero_point;
  p->q_offset[1] = -b->zero_point;
  p->q_offset[2] = out->zero_point;
  if (p->op == AP_KB_DIV) {
    if (!ap_kq_act_range_quant(c->options->activation, AP_INT8, out->scale, out->zero_point,
                               &p->imin, &p->imax)) {
      return ap_fail(c->err, AP_ERR_UNSUPPORTED, "DIV: unsupported fused activation %d",
                     c->options->activation);
    }
    /* The ratio in float, as TFLite Micro computes it, then widened. */
    ap_kq_multiplier((double)(a->scale / (b->scale * out->scale)), &p->q_mult[2], &p->q_shift[2]);
    return AP_OK;
  }
  p->imin = -128, p->imax = 127;
  double twice_max = 2.0 * (double)(a->scale > b->scale ? a->scale : b->scale);
  /* (1 << 14) * scale is a float product in TFLite Micro: exact (a power of two). */
  double out_real = twice_max * twice_max / (double)(16384.0f * out->scale);
  if (!ap_kq_multiplier_lt1((double)a->scale / twice_max, &p->q_mult[0], &p->q_shift[0]) ||
      !ap_kq_multiplier_lt1((double)b->scale / twice_max, &p->q_mult[1], &p->q_shift[1])) {
    return ap_fail(c->err, AP_ERR_FORMAT, "%s: input scales %g and %g", name, (double)a->scale,
                   (double)b->scale);
  }
  ap_kq_multiplier(out_real, &p->q_mult[2], &p->q_shift[2]);
  return AP_OK;
}

/* CountLeadingSignBits of int32 (31 for 0, as gcc's __builtin_clrsb path gives). */
static int sign_bits(int32_t x) {
  return x ? __builtin_clrsb(x) : 31;
}

ap_status ap_kx_int8_binary(const ap_kx_params *p, int8_t x, int8_t y, int8_t *r) {
  int32_t v1 = p->q_offset[0] + x, v2 = p->q_offset[1] + y, raw;
  if (p->op == AP_KB_DIV) {
    if (v2 == 0) return AP_ERR_KERNEL;
    if (v2 < 0) v1 = -v1, v2 = -v2; /* the reciprocal must be positive */
    int recip_shift, headroom = sign_bits(v1);
    int32_t inv = ap_kq_reciprocal(v2, 31, &recip_shift);
    int32_t quotient = ap_kq_mul_gt1(v1, inv, headroom);
    int total = p->q_shift[2] - recip_shift - headroom;
    raw = p->q_offset[2] + ap_kq_mul(quotient, p->q_mult[2], total);
  } else {
    int32_t s1 = ap_kq_mul_lt1(v1 * 128, p->q_mult[0], p->q_shift[0]);
    int32_t s2 = ap_kq_mul_lt1(v2 * 128, p->q_mult[1], p->q_shift[1]);
    int32_t d = s1 - s2; /* |d| < 2^15: the square fits */
    raw = p->q_offset[2] + ap_kq_mul(d * d, p->q_mult[2], p->q_shift[2]);
  }
  *r = (int8_t)ap_kq_clamp(raw, p->imin, p->imax);
  return AP_OK;
}

ap_status ap_kx_int8_rsqrt_setup(ap_kctx *c, ap_kx_params *p, const ap_ktensor *in,
                                 const ap_ktensor *out) {
  if (!zero_point_ok(in) || !zero_point_ok(out)) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "RSQRT: int8 tensors need a positive scale and a zero point in [-128, 127]");
  }
  p->q_offset[0] = in->zero_point;
  p->q_offset[2] = out->zero_point;
  ap_kq_multiplier(1.0 / (sqrt((double)in->scale) * (double)out->scale), &p->q_mult[2],
                   &p->q_shift[2]);
  return AP_OK;
}

ap_status ap_kx_int8_rsqrt(const ap_kx_params *p, int8_t x, int8_t *r) {
  int32_t v = x - p->q_offset[0];
  if (v < 0) return AP_ERR_KERNEL; /* below the zero point: a negative real value */
  if (v == 0) {
    *r = 127; /* TFLite Micro's stand-in for 1/sqrt(0) */
    return AP_OK;
  }
  int32_t m;
  int shift;
  ap_kq_inv_sqrt(v, -1, &m, &shift);
  /* 1/sqrt(v) at 2^20, so the integer keeps its fraction through the second rescale. */
  int32_t at20 = ap_kq_mul(1, m, shift + 20);
  int32_t raw = ap_kq_mul(at20, p->q_mult[2], p->q_shift[2] - 20) + p->q_offset[2];
  *r = (int8_t)ap_kq_clamp(raw, -128, 127);
  return AP_OK;
}

ap_status ap_kx_int8_relu_setup(ap_kctx *c, ap_kx_params *p, const char *name, const ap_ktensor *in,
                                const ap_ktensor *alpha, const ap_ktensor *out) {
  /* int8, or int16 with an int8 alpha (the same arithmetic, clamped to int16 by the caller). */
  bool ok = ap_kq_scale_ok(in->scale) && ap_kq_zero_point_ok(in) && ap_kq_scale_ok(out->scale) &&
            ap_kq_zero_point_ok(out) && (!alpha || zero_point_ok(alpha));
  if (!ok) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "%s: quantized tensors need a positive scale and a zero point of their type",
                   name);
  }
  p->q_offset[0] = -in->zero_point;
  p->q_offset[1] = alpha ? -alpha->zero_point : 0;
  p->q_offset[2] = out->zero_point;
  if (alpha) { /* PRELU: the products of two offsets values rescale by in * alpha / out */
    ap_kq_multiplier((double)in->scale / (double)out->scale, &p->q_mult[0], &p->q_shift[0]);
    ap_kq_multiplier((double)in->scale * (double)alpha->scale / (double)out->scale, &p->q_mult[1],
                     &p->q_shift[1]);
  } else { /* LEAKY_RELU: both ratios in float first, as TFLite Micro computes them */
    ap_kq_multiplier((double)(in->scale / out->scale), &p->q_mult[0], &p->q_shift[0]);
    ap_kq_multiplier((double)(in->scale * c->options->alpha / out->scale), &p->q_mult[1],
                     &p->q_shift[1]);
  }
  return AP_OK;
}

int32_t ap_kx_q_relu(const ap_kx_params *p, int32_t x, const int8_t *alpha) {
  int32_t v = p->q_offset[0] + x, raw;
  if (v >= 0) {
    raw = ap_kq_mul(v, p->q_mult[0], p->q_shift[0]);
  } else if (alpha) {
    raw = ap_kq_mul(v * (p->q_offset[1] + *alpha), p->q_mult[1], p->q_shift[1]);
  } else if (p->q_mult[1] < 0 && p->q_mult[1] != INT32_MIN) {
    /* A negative alpha: leaky_relu.h scales by |multiplier| and negates, which rounds ties
     * differently from scaling by the negative multiplier. */
    raw = -ap_kq_mul(v, -p->q_mult[1], p->q_shift[1]);
  } else {
    raw = ap_kq_mul(v, p->q_mult[1], p->q_shift[1]);
  }
  return raw + p->q_offset[2];
}

int8_t ap_kx_int8_relu(const ap_kx_params *p, int8_t x, const int8_t *alpha) {
  return (int8_t)ap_kq_clamp(ap_kx_q_relu(p, x, alpha), -128, 127);
}

ap_status ap_kx_q8_compare_setup(ap_kctx *c, ap_kx_params *p, const char *name, const ap_ktensor *a,
                                 const ap_ktensor *b) {
  if (!ap_kq_scale_ok(a->scale) || !ap_kq_scale_ok(b->scale) || !ap_kq_zero_point_ok(a) ||
      !ap_kq_zero_point_ok(b)) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "%s: 8-bit inputs need a positive scale and a zero point of their type", name);
  }
  p->kind = 1;
  p->q_offset[0] = -a->zero_point;
  p->q_offset[1] = -b->zero_point;
  /* TFLite Micro takes the scales as multipliers below one; a scale of 1 or more gives a left
   * shift, which its rounding division leaves undefined and ap_kq_mul defines. */
  ap_kq_multiplier((double)a->scale, &p->q_mult[0], &p->q_shift[0]);
  ap_kq_multiplier((double)b->scale, &p->q_mult[1], &p->q_shift[1]);
  return AP_OK;
}

void ap_kx_q8_compare_scale(const ap_kx_params *p, int32_t x, int32_t y, int64_t *sx, int64_t *sy) {
  /* Both values at 2^8 times their real value, the scales folded in (ComparisonWithScaling). */
  *sx = ap_kq_mul((p->q_offset[0] + x) * 256, p->q_mult[0], p->q_shift[0]);
  *sy = ap_kq_mul((p->q_offset[1] + y) * 256, p->q_mult[1], p->q_shift[1]);
}
