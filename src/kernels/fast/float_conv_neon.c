/* Float CONV_2D and ADD/SUB for the AArch64 levels. Exactness: every output element is summed
 * in the reference's order (filter row, column, input channel; taps outside the input skipped)
 * and starts from 0.0f; lanes are output channels (or elements), so only the order across
 * elements changes. Products and sums are separate instructions: FMUL then FADD, never FMLA
 * (vmlaq_f32 may be fused on AArch64, so it is not used, and this file is built with
 * -ffp-contract=off so the compiler does not fuse them either); each rounds as the
 * reference's does. */
#if defined(__aarch64__)
#include "kernels/fast/fast.h"

#include <arm_neon.h>
#include <string.h>

/* std::min(std::max(x, lo), hi) as the reference's clamp, with its comparisons: NaN passes
 * through, and -0.0 against a bound of 0.0 stays -0.0 (FMAX would give +0.0). */
static inline float32x4_t clampf4(float32x4_t x, float32x4_t lo, float32x4_t hi) {
  x = vbslq_f32(vcltq_f32(x, lo), lo, x);
  return vbslq_f32(vcltq_f32(hi, x), hi, x);
}

static inline float32x4_t madd(float32x4_t acc, float x, float32x4_t w) {
  return vaddq_f32(acc, vmulq_f32(vdupq_n_f32(x), w));
}

/* One panel (8 channels, two vectors) of one pixel: + bias (0.0f when absent, so -0.0 sums
 * become +0.0 as there), clamp, store the channels that exist. */
static inline void finish(const ap_fconv *c, int32_t panel, float32x4_t a, float32x4_t b,
                          float *out) {
  int32_t c0 = panel * 8, cols = c->out_d - c0 < 8 ? c->out_d - c0 : 8;
  float t[8] = {0};
  if (c->bias) memcpy(t, c->bias + c0, (size_t)cols * 4);
  const float32x4_t lo = vdupq_n_f32(c->lo), hi = vdupq_n_f32(c->hi);
  if (!c->partial) { /* partial: the sum so far, as it is (ap_fconv) */
    a = clampf4(vaddq_f32(a, vld1q_f32(t)), lo, hi);
    b = clampf4(vaddq_f32(b, vld1q_f32(t + 4)), lo, hi);
  }
  if (cols == 8) {
    vst1q_f32(out + c0, a);
    vst1q_f32(out + c0 + 4, b);
    return;
  }
  vst1q_f32(t, a);
  vst1q_f32(t + 4, b);
  memcpy(out + c0, t, (size_t)cols * 4);
}

/* One panel's sum so far at one pixel: 0.0f, or (c->accum) what out holds, lanes past out_d 0. */
static inline void start(const ap_fconv *c, int32_t panel, const float *out, float32x4_t *a,
                         float32x4_t *b) {
  int32_t c0 = panel * 8, cols = c->out_d - c0 < 8 ? c->out_d - c0 : 8;
  float t[8] = {0};
  if (c->accum) memcpy(t, out + c0, (size_t)cols * 4);
  *a = vld1q_f32(t);
  *b = vld1q_f32(t + 4);
}

/* One output pixel, one panel, every tap checked. */
static void pixel(const ap_fconv *c, const float *in_b, int32_t oy, int32_t ox, int32_t panel,
                  float *out) {
  int32_t y0 = oy * c->stride_h - c->pad_h, x0 = ox * c->stride_w - c->pad_w, d = c->in_d;
  const float *wp = c->wp + (size_t)panel * c->f_h * c->f_w * d * 8;
  float32x4_t a, b;
  start(c, panel, out, &a, &b);
  for (int32_t fy = 0; fy < c->f_h; fy++) {
    int32_t iy = y0 + c->dil_h * fy;
    for (int32_t fx = 0; fx < c->f_w; fx++) {
      int32_t ix = x0 + c->dil_w * fx;
      if (iy < 0 || iy >= c->in_h || ix < 0 || ix >= c->in_w) continue;
      const float *src = in_b + ((size_t)iy * c->in_w + ix) * d;
      const float *w = wp + ((size_t)fy * c->f_w + fx) * d * 8;
      for (int32_t ic = 0; ic < d; ic++) {
        a = madd(a, src[ic], vld1q_f32(w + ic * 8));
        b = madd(b, src[ic], vld1q_f32(w + ic * 8 + 4));
      }
    }
  }
  finish(c, panel, a, b, out);
}

/* Four pixels of one row, all of whose columns are inside the input, one panel: eight
 * independent sums hide the adds' latency. */
static void quad(const ap_fconv *c, const float *in_b, int32_t oy, int32_t ox, int32_t panel,
                 float *out, size_t out_step) {
  int32_t y0 = oy * c->stride_h - c->pad_h, x0 = ox * c->stride_w - c->pad_w, d = c->in_d;
  size_t step = (size_t)c->stride_w * d;
  const float *wp = c->wp + (size_t)panel * c->f_h * c->f_w * d * 8;
  float32x4_t a0, a1, a2, a3, b0, b1, b2, b3;
  start(c, panel, out, &a0, &b0);
  start(c, panel, out + out_step, &a1, &b1);
  start(c, panel, out + 2 * out_step, &a2, &b2);
  start(c, panel, out + 3 * out_step, &a3, &b3);
  for (int32_t fy = 0; fy < c->f_h; fy++) {
    int32_t iy = y0 + c->dil_h * fy;
    if (iy < 0 || iy >= c->in_h) continue;
    for (int32_t fx = 0; fx < c->f_w; fx++) {
      const float *src = in_b + ((size_t)iy * c->in_w + x0 + c->dil_w * fx) * d;
      const float *w = wp + ((size_t)fy * c->f_w + fx) * d * 8;
      for (int32_t ic = 0; ic < d; ic++) {
        float32x4_t wl = vld1q_f32(w + ic * 8), wh = vld1q_f32(w + ic * 8 + 4);
        a0 = madd(a0, src[ic], wl);
        b0 = madd(b0, src[ic], wh);
        a1 = madd(a1, src[step + ic], wl);
        b1 = madd(b1, src[step + ic], wh);
        a2 = madd(a2, src[2 * step + ic], wl);
        b2 = madd(b2, src[2 * step + ic], wh);
        a3 = madd(a3, src[3 * step + ic], wl);
        b3 = madd(b3, src[3 * step + ic], wh);
      }
    }
  }
  finish(c, panel, a0, b0, out);
  finish(c, panel, a1, b1, out + out_step);
  finish(c, panel, a2, b2, out + 2 * out_step);
  finish(c, panel, a3, b3, out + 3 * out_step);
}

void ap_fast_neon_fconv(const ap_fconv *c, int32_t r0, int32_t r1) {
  int32_t panels = c->p1 ? c->p1 : (c->out_d + 7) / 8; /* panels [p0, p1) (ap_fconv) */
  for (int32_t r = r0; r < r1; r++) {
    int32_t b = r / c->out_h, oy = r % c->out_h;
    const float *in_b = c->in + (size_t)b * c->in_h * c->in_w * c->in_d;
    float *row = c->out + (size_t)r * c->out_w * c->out_d;
    for (int32_t ox = 0; ox < c->out_w; ox++) {
      int32_t first = ox * c->stride_w - c->pad_w;
      int32_t last = (ox + 3) * c->stride_w - c->pad_w + c->dil_w * (c->f_w - 1);
      if (ox + 4 <= c->out_w && first >= 0 && last < c->in_w) {
        for (int32_t p = c->p0; p < panels; p++)
          quad(c, in_b, oy, ox, p, row + (size_t)ox * c->out_d, (size_t)c->out_d);
        ox += 3;
        continue;
      }
      for (int32_t p = c->p0; p < panels; p++)
        pixel(c, in_b, oy, ox, p, row + (size_t)ox * c->out_d);
    }
  }
}

void ap_fast_neon_fadd(const ap_binary_params *p, const float *a, const float *b, float *out,
                       size_t n) {
  const float32x4_t lo = vdupq_n_f32(p->fact_min), hi = vdupq_n_f32(p->fact_max);
  bool sub = p->op == AP_KBIN_SUB;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float32x4_t x = vld1q_f32(a + i), y = vld1q_f32(b + i);
    vst1q_f32(out + i, clampf4(sub ? vsubq_f32(x, y) : vaddq_f32(x, y), lo, hi));
  }
  for (; i < n; i++)
    out[i] = ap_kq_clampf(sub ? a[i] - b[i] : a[i] + b[i], p->fact_min, p->fact_max);
}
#else
typedef int ap_fast_float_neon_unused; /* AArch64 only */
#endif
