/* Float DEPTHWISE_CONV_2D for the AVX2 level (depth multiplier 1, or a multiple of 8: each
 * register's channels then read one input channel; others: the generic level's): channels in
 * lanes, four registers of channels per pass so their sums' adds overlap. Each
 * output's taps are summed in the reference's order from 0.0f, those outside the input skipped
 * (the decision is per pixel, common to every lane), then the bias and the clamp; no FMA. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/float_x86.h"

#include <immintrin.h>
#include <string.h>

/* Channels [c0, c0 + 8 * V) of one output pixel. */
static inline __attribute__((always_inline)) void chans(const ap_fdw *d, const float *in_b,
                                                        int32_t y0, int32_t x0, int32_t c0,
                                                        float *out, const int V, const bool one) {
  __m256 acc[4];
  for (int v = 0; v < V; v++)
    acc[v] = _mm256_setzero_ps();
  for (int32_t fy = 0; fy < d->f_h; fy++) {
    int32_t iy = y0 + d->dil_h * fy;
    if (iy < 0 || iy >= d->in_h) continue;
    for (int32_t fx = 0; fx < d->f_w; fx++) {
      int32_t ix = x0 + d->dil_w * fx;
      if (ix < 0 || ix >= d->in_w) continue;
      const float *src = in_b + ((size_t)iy * d->in_w + ix) * d->in_d;
      const float *w = d->f + ((size_t)fy * d->f_w + fx) * d->out_d + c0;
      for (int v = 0; v < V; v++) {
        __m256 xv = one ? _mm256_loadu_ps(src + c0 + 8 * v)
                        : _mm256_broadcast_ss(src + (c0 + 8 * v) / d->mult);
        acc[v] = _mm256_add_ps(acc[v], _mm256_mul_ps(xv, _mm256_loadu_ps(w + 8 * v)));
      }
    }
  }
  for (int v = 0; v < V; v++) {
    __m256 bv = d->bias ? _mm256_loadu_ps(d->bias + c0 + 8 * v) : _mm256_setzero_ps();
    _mm256_storeu_ps(out + c0 + 8 * v, ap_clampf8(_mm256_add_ps(acc[v], bv), d->lo, d->hi));
  }
}

/* The last channels (fewer than 8), one lane at a time in the same order. */
static void tail(const ap_fdw *d, const float *in_b, int32_t y0, int32_t x0, int32_t c0,
                 float *out) {
  for (int32_t c = c0; c < d->out_d; c++) {
    float acc = 0.0f;
    for (int32_t fy = 0; fy < d->f_h; fy++) {
      int32_t iy = y0 + d->dil_h * fy;
      if (iy < 0 || iy >= d->in_h) continue;
      for (int32_t fx = 0; fx < d->f_w; fx++) {
        int32_t ix = x0 + d->dil_w * fx;
        if (ix < 0 || ix >= d->in_w) continue;
        acc += in_b[((size_t)iy * d->in_w + ix) * d->in_d + c / d->mult] *
               d->f[((size_t)fy * d->f_w + fx) * d->out_d + c];
      }
    }
    out[c] = ap_kq_clampf(acc + (d->bias ? d->bias[c] : 0.0f), d->lo, d->hi);
  }
}

void ap_fast_avx2_fdw(const ap_fdw *d, int32_t r0, int32_t r1) {
  bool one = d->mult == 1;
  if (!one && d->mult % 8) {
    ap_fast_generic_fdw(d, r0, r1);
    return;
  }
  for (int32_t r = r0; r < r1; r++) {
    int32_t b = r / d->out_h, oy = r % d->out_h, y0 = oy * d->stride_h - d->pad_h;
    const float *in_b = d->in + (size_t)b * d->in_h * d->in_w * d->in_d;
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int32_t x0 = ox * d->stride_w - d->pad_w, c0 = 0;
      float *out = d->out + ((size_t)r * d->out_w + ox) * d->out_d;
      if (one) {
        for (; c0 + 32 <= d->out_d; c0 += 32)
          chans(d, in_b, y0, x0, c0, out, 4, true);
        for (; c0 + 8 <= d->out_d; c0 += 8)
          chans(d, in_b, y0, x0, c0, out, 1, true);
      } else {
        for (; c0 + 32 <= d->out_d; c0 += 32)
          chans(d, in_b, y0, x0, c0, out, 4, false);
        for (; c0 + 8 <= d->out_d; c0 += 8)
          chans(d, in_b, y0, x0, c0, out, 1, false);
      }
      if (c0 < d->out_d) tail(d, in_b, y0, x0, c0, out);
    }
  }
}
#else
typedef int ap_fast_float_depthwise_avx2_unused; /* x86-64 only */
#endif
