/* int16 SQUARED_DIFFERENCE (squared_difference.cc): zero points 0, both inputs rescaled to a
 * common scale without headroom (left shift 0), the difference squared, rescaled to the
 * output and clamped to int16. */
#include "kernels/kops_elem16.h"
#include "kernels/quant.h"

ap_status ap_kx_int16_sqdiff_setup(ap_kctx *c, ap_kx_params *p, const ap_ktensor *a,
                                   const ap_ktensor *b, const ap_ktensor *out) {
  if (!ap_kq_scale_ok(a->scale) || !ap_kq_scale_ok(b->scale) || !ap_kq_scale_ok(out->scale)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "SQUARED_DIFFERENCE: int16 tensors need positive scales");
  }
  if (a->zero_point || b->zero_point || out->zero_point) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "SQUARED_DIFFERENCE: int16 zero points must be 0, got %d, %d -> %d",
                   (int)a->zero_point, (int)b->zero_point, (int)out->zero_point);
  }
  double twice_max = 2.0 * (double)(a->scale > b->scale ? a->scale : b->scale);
  if (!ap_kq_multiplier_lt1((double)a->scale / twice_max, &p->q_mult[0], &p->q_shift[0]) ||
      !ap_kq_multiplier_lt1((double)b->scale / twice_max, &p->q_mult[1], &p->q_shift[1])) {
    return ap_fail(c->err, AP_ERR_FORMAT, "SQUARED_DIFFERENCE: input scales %g and %g",
                   (double)a->scale, (double)b->scale);
  }
  ap_kq_multiplier(twice_max * twice_max / (double)out->scale, &p->q_mult[2], &p->q_shift[2]);
  return AP_OK;
}

int16_t ap_kx_int16_sqdiff(const ap_kx_params *p, int16_t x, int16_t y) {
  int32_t s1 = ap_kq_mul_lt1(x, p->q_mult[0], p->q_shift[0]);
  int32_t s2 = ap_kq_mul_lt1(y, p->q_mult[1], p->q_shift[1]);
  int32_t d = s1 - s2; /* each at most half an input in magnitude: the square fits */
  int32_t raw = ap_kq_mul(d * d, p->q_mult[2], p->q_shift[2]);
  return (int16_t)ap_kq_clamp(raw, INT16_MIN, INT16_MAX);
}
