/* Float CONV_2D and ADD/SUB for the AVX2 level. Exactness: every output element is summed in
 * the reference's order (filter row, column, input channel; taps outside the input skipped) and
 * starts from 0.0f; lanes are output channels (or elements), so only the order across elements
 * changes. Products and sums are separate instructions (this file is built with
 * -ffp-contract=off and uses no FMA intrinsics), so each rounds as the reference's does. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/fast.h"

#include <immintrin.h>
#include <string.h>

/* std::min(std::max(x, lo), hi) as the reference's clamp: NaN passes through. */
static inline __m256 clampf8(__m256 x, __m256 lo, __m256 hi) {
  x = _mm256_blendv_ps(x, lo, _mm256_cmp_ps(x, lo, _CMP_LT_OQ));
  return _mm256_blendv_ps(x, hi, _mm256_cmp_ps(hi, x, _CMP_LT_OQ));
}

static inline void finish(const ap_fconv *c, int32_t panel, __m256 acc, float *out) {
  int32_t c0 = panel * 8, cols = c->n - c0 < 8 ? c->n - c0 : 8;
  __m256 b = _mm256_setzero_ps();
  if (c->bias && cols == 8) {
    b = _mm256_loadu_ps(c->bias + c0);
  } else if (c->bias) {
    float t[8] = {0};
    memcpy(t, c->bias + c0, (size_t)cols * 4);
    b = _mm256_loadu_ps(t);
  }
  /* total + bias_value, bias 0.0f when absent (so -0.0 sums become +0.0 as there). */
  acc = clampf8(_mm256_add_ps(acc, b), _mm256_set1_ps(c->lo), _mm256_set1_ps(c->hi));
  if (cols == 8) {
    _mm256_storeu_ps(out + c0, acc);
  } else {
    float t[8];
    _mm256_storeu_ps(t, acc);
    memcpy(out + c0, t, (size_t)cols * 4);
  }
}

/* One output pixel, one panel, every tap checked. */
static void pixel(const ap_fconv *c, const float *in_b, int32_t oy, int32_t ox, int32_t panel,
                  float *out) {
  int32_t y0 = oy * c->stride_h - c->pad_h, x0 = ox * c->stride_w - c->pad_w, d = c->in_d;
  const float *wp = c->wp + (size_t)panel * c->f_h * c->f_w * d * 8;
  __m256 acc = _mm256_setzero_ps();
  for (int32_t fy = 0; fy < c->f_h; fy++) {
    int32_t iy = y0 + c->dil_h * fy;
    for (int32_t fx = 0; fx < c->f_w; fx++) {
      int32_t ix = x0 + c->dil_w * fx;
      if (iy < 0 || iy >= c->in_h || ix < 0 || ix >= c->in_w) continue;
      const float *src = in_b + ((size_t)iy * c->in_w + ix) * d;
      const float *w = wp + ((size_t)fy * c->f_w + fx) * d * 8;
      for (int32_t ic = 0; ic < d; ic++)
        acc =
            _mm256_add_ps(acc, _mm256_mul_ps(_mm256_set1_ps(src[ic]), _mm256_loadu_ps(w + ic * 8)));
    }
  }
  finish(c, panel, acc, out);
}

/* Four pixels of one row, all of whose columns are inside the input, two panels (eight
 * independent sums hide the adds' latency). */
static void quad2(const ap_fconv *c, const float *in_b, int32_t oy, int32_t ox, int32_t panel,
                  float *out, size_t out_step) {
  int32_t y0 = oy * c->stride_h - c->pad_h, x0 = ox * c->stride_w - c->pad_w, d = c->in_d;
  size_t step = (size_t)c->stride_w * d, k = (size_t)c->f_h * c->f_w * d;
  const float *wp0 = c->wp + (size_t)panel * k * 8, *wp1 = wp0 + k * 8;
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
  for (int32_t fy = 0; fy < c->f_h; fy++) {
    int32_t iy = y0 + c->dil_h * fy;
    if (iy < 0 || iy >= c->in_h) continue;
    for (int32_t fx = 0; fx < c->f_w; fx++) {
      const float *src = in_b + ((size_t)iy * c->in_w + x0 + c->dil_w * fx) * d;
      size_t at = ((size_t)fy * c->f_w + fx) * d * 8;
      const float *w0 = wp0 + at, *w1 = wp1 + at;
      for (int32_t ic = 0; ic < d; ic++) {
        __m256 v0 = _mm256_loadu_ps(w0 + ic * 8), v1 = _mm256_loadu_ps(w1 + ic * 8);
        __m256 x;
        x = _mm256_set1_ps(src[ic]);
        a0 = _mm256_add_ps(a0, _mm256_mul_ps(x, v0));
        b0 = _mm256_add_ps(b0, _mm256_mul_ps(x, v1));
        x = _mm256_set1_ps(src[step + ic]);
        a1 = _mm256_add_ps(a1, _mm256_mul_ps(x, v0));
        b1 = _mm256_add_ps(b1, _mm256_mul_ps(x, v1));
        x = _mm256_set1_ps(src[2 * step + ic]);
        a2 = _mm256_add_ps(a2, _mm256_mul_ps(x, v0));
        b2 = _mm256_add_ps(b2, _mm256_mul_ps(x, v1));
        x = _mm256_set1_ps(src[3 * step + ic]);
        a3 = _mm256_add_ps(a3, _mm256_mul_ps(x, v0));
        b3 = _mm256_add_ps(b3, _mm256_mul_ps(x, v1));
      }
    }
  }
  finish(c, panel, a0, out);
  finish(c, panel, a1, out + out_step);
  finish(c, panel, a2, out + 2 * out_step);
  finish(c, panel, a3, out + 3 * out_step);
  finish(c, panel + 1, b0, out);
  finish(c, panel + 1, b1, out + out_step);
  finish(c, panel + 1, b2, out + 2 * out_step);
  finish(c, panel + 1, b3, out + 3 * out_step);
}

/* Four pixels of one row, all of whose columns are inside the input, one panel. */
static void quad(const ap_fconv *c, const float *in_b, int32_t oy, int32_t ox, int32_t panel,
                 float *out, size_t out_step) {
  int32_t y0 = oy * c->stride_h - c->pad_h, x0 = ox * c->stride_w - c->pad_w, d = c->in_d;
  size_t step = (size_t)c->stride_w * d;
  const float *wp = c->wp + (size_t)panel * c->f_h * c->f_w * d * 8;
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  for (int32_t fy = 0; fy < c->f_h; fy++) {
    int32_t iy = y0 + c->dil_h * fy;
    if (iy < 0 || iy >= c->in_h) continue;
    for (int32_t fx = 0; fx < c->f_w; fx++) {
      const float *src = in_b + ((size_t)iy * c->in_w + x0 + c->dil_w * fx) * d;
      const float *w = wp + ((size_t)fy * c->f_w + fx) * d * 8;
      for (int32_t ic = 0; ic < d; ic++) {
        __m256 wv = _mm256_loadu_ps(w + ic * 8);
        a0 = _mm256_add_ps(a0, _mm256_mul_ps(_mm256_set1_ps(src[ic]), wv));
        a1 = _mm256_add_ps(a1, _mm256_mul_ps(_mm256_set1_ps(src[step + ic]), wv));
        a2 = _mm256_add_ps(a2, _mm256_mul_ps(_mm256_set1_ps(src[2 * step + ic]), wv));
        a3 = _mm256_add_ps(a3, _mm256_mul_ps(_mm256_set1_ps(src[3 * step + ic]), wv));
      }
    }
  }
  finish(c, panel, a0, out);
  finish(c, panel, a1, out + out_step);
  finish(c, panel, a2, out + 2 * out_step);
  finish(c, panel, a3, out + 3 * out_step);
}

void ap_fast_avx2_fconv(const ap_fconv *c, int32_t r0, int32_t r1) {
  int32_t panels = (c->n + 7) / 8;
  for (int32_t r = r0; r < r1; r++) {
    int32_t b = r / c->out_h, oy = r % c->out_h;
    const float *in_b = c->in + (size_t)b * c->in_h * c->in_w * c->in_d;
    float *row = c->out + (size_t)r * c->out_w * c->n;
    int32_t ox = 0;
    for (; ox < c->out_w; ox++) {
      int32_t first = ox * c->stride_w - c->pad_w;
      int32_t last = (ox + 3) * c->stride_w - c->pad_w + c->dil_w * (c->f_w - 1);
      if (ox + 4 <= c->out_w && first >= 0 && last < c->in_w) {
        int32_t p = 0;
        for (; p + 2 <= panels; p += 2)
          quad2(c, in_b, oy, ox, p, row + (size_t)ox * c->n, (size_t)c->n);
        if (p < panels) quad(c, in_b, oy, ox, p, row + (size_t)ox * c->n, (size_t)c->n);
        ox += 3;
        continue;
      }
      for (int32_t p = 0; p < panels; p++)
        pixel(c, in_b, oy, ox, p, row + (size_t)ox * c->n);
    }
  }
}

void ap_fast_avx2_fadd(const ap_binary_params *p, const float *a, const float *b, float *out,
                       size_t n) {
  __m256 lo = _mm256_set1_ps(p->fact_min), hi = _mm256_set1_ps(p->fact_max);
  bool sub = p->op == AP_KBIN_SUB;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_loadu_ps(a + i), y = _mm256_loadu_ps(b + i);
    _mm256_storeu_ps(out + i, clampf8(sub ? _mm256_sub_ps(x, y) : _mm256_add_ps(x, y), lo, hi));
  }
  for (; i < n; i++) {
    float r = sub ? a[i] - b[i] : a[i] + b[i];
    float y = r < p->fact_min ? p->fact_min : r;
    out[i] = p->fact_max < y ? p->fact_max : y;
  }
}
#else
typedef int ap_fast_float_avx2_unused; /* x86-64 only */
#endif
