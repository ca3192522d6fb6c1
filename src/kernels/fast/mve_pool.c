/* The Helium level's int8 AVERAGE_POOL_2D and MAX_POOL_2D: per output pixel, channels four a
 * vector (VLDRB.S32 widens four bytes to 32-bit lanes; the channel tail predicated), summed
 * (VADD: the reference's int32 sum) or maxed (VMAX) over the window's taps inside the input;
 * padding never counts, as in the reference. The average's division is the reference's own,
 * lane by lane (half away from zero, truncating), then the activation's clamp. The registry
 * calls it on an MVE build (its DSP-only table has no op table for pools, ap_fastops, whose
 * other entries the Cortex-M levels do not fill). */
#include "kernels/fast/fastops.h"
#include "kernels/fast/mve.h"

#if AP_MVE_NATIVE
static int32_t average(int32_t acc, int32_t count) {
  return acc > 0 ? (int32_t)(((int64_t)acc + count / 2) / count)
                 : (int32_t)(((int64_t)acc - count / 2) / count);
}

/* The window of output (oy, ox) inside the input: taps [*fy0, *fy1) x [*fx0, *fx1) from (y0, x0).
 */
static int32_t window(const ap_qpool *q, int32_t oy, int32_t ox, int32_t *y0, int32_t *x0,
                      int32_t *fy0, int32_t *fy1, int32_t *fx0, int32_t *fx1) {
  *y0 = oy * q->stride_h - q->pad_h;
  *x0 = ox * q->stride_w - q->pad_w;
  *fy0 = *y0 < 0 ? -*y0 : 0;
  *fx0 = *x0 < 0 ? -*x0 : 0;
  *fy1 = q->in_h - *y0 < q->f_h ? q->in_h - *y0 : q->f_h;
  *fx1 = q->in_w - *x0 < q->f_w ? q->in_w - *x0 : q->f_w;
  int32_t h = *fy1 - *fy0, w = *fx1 - *fx0;
  return h > 0 && w > 0 ? h * w : 0;
}

static bool pool(const ap_qpool *q, int32_t b, int32_t oy0, int32_t oy1) {
  int32_t D = q->depth;
  bool avg = q->kind == AP_KPOOL_AVERAGE;
  int32x4_t lo = vdupq_n_s32(q->act_min), hi = vdupq_n_s32(q->act_max);
  size_t row = (size_t)q->in_w * (size_t)D;
  for (int32_t oy = oy0; oy < oy1; oy++)
    for (int32_t ox = 0; ox < q->out_w; ox++) {
      int32_t y0, x0, fy0, fy1, fx0, fx1;
      int32_t count = window(q, oy, ox, &y0, &x0, &fy0, &fy1, &fx0, &fx1);
      if (avg && count == 0) return false;
      int8_t *o =
          (int8_t *)q->out +
          (((size_t)b * (size_t)q->out_h + (size_t)oy) * (size_t)q->out_w + (size_t)ox) * (size_t)D;
      const int8_t *in = (const int8_t *)q->in +
                         (((size_t)b * (size_t)q->in_h + (size_t)(y0 + fy0)) * (size_t)q->in_w +
                          (size_t)(x0 + fx0)) *
                             (size_t)D;
      for (int32_t c = 0; c < D; c += 4) {
        mve_pred16_t p = vctp32q((uint32_t)(D - c));
        int32x4_t v = vdupq_n_s32(avg ? 0 : -128);
        const int8_t *r = in + c;
        for (int32_t fy = fy0; fy < fy1; fy++, r += row) {
          const int8_t *t = r;
          for (int32_t fx = fx0; fx < fx1; fx++, t += D) {
            int32x4_t x = vldrbq_z_s32(t, p);
            v = avg ? vaddq_s32(v, x) : vmaxq_s32(v, x);
          }
        }
        if (avg) {
          int32_t acc[4];
          vst1q_s32(acc, v);
          for (int l = 0; l < 4; l++)
            acc[l] = average(acc[l], count);
          v = vld1q_s32(acc);
        }
        vstrbq_p_s32(o + c, vminq_s32(vmaxq_s32(v, lo), hi), p);
      }
    }
  return true;
}

bool ap_fast_mve_pool_eval(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                           ap_ktensor *out, ap_status *s) {
  if (!x || !x->level || !p || !in || !out || in->type != AP_INT8 || out->type != AP_INT8 ||
      in->rank != 4 || (p->kind != AP_KPOOL_AVERAGE && p->kind != AP_KPOOL_MAX))
    return false;
  ap_qpool q;
  if (!ap_fast_qpool_of(p, in, out, &q)) {
    *s = AP_ERR_ARG;
    return true;
  }
  *s = AP_OK;
  for (int32_t b = 0; b < in->dims[0]; b++)
    if (!pool(&q, b, 0, q.out_h)) *s = AP_ERR_KERNEL;
  return true;
}

#endif
