/* Float AVERAGE_POOL_2D and MAX_POOL_2D for the AVX2 level: channels in lanes, four registers
 * per pass; the window's elements in the reference's order (average: sum from 0.0f, then one
 * division by the float count; max: r < v ? v : r from -FLT_MAX, so a NaN v is passed over as
 * there), then the clamp. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/float_x86.h"

#include <float.h>
#include <immintrin.h>

static inline __attribute__((always_inline)) void chans(const ap_fpool *p, const float *in_b,
                                                        int32_t y0, int32_t x0, int32_t c0,
                                                        float *out, const int V, const bool max) {
  int32_t fy0 = y0 < 0 ? -y0 : 0, fy1 = p->in_h - y0 < p->f_h ? p->in_h - y0 : p->f_h;
  int32_t fx0 = x0 < 0 ? -x0 : 0, fx1 = p->in_w - x0 < p->f_w ? p->in_w - x0 : p->f_w;
  __m256 acc[4];
  float count = 0.0f;
  for (int v = 0; v < V; v++)
    acc[v] = max ? _mm256_set1_ps(-FLT_MAX) : _mm256_setzero_ps();
  for (int32_t fy = fy0; fy < fy1; fy++)
    for (int32_t fx = fx0; fx < fx1; fx++) {
      const float *src = in_b + ((size_t)(y0 + fy) * p->in_w + (x0 + fx)) * p->depth + c0;
      for (int v = 0; v < V; v++) {
        __m256 x = _mm256_loadu_ps(src + 8 * v);
        acc[v] = max ? _mm256_blendv_ps(acc[v], x, _mm256_cmp_ps(acc[v], x, _CMP_LT_OQ))
                     : _mm256_add_ps(acc[v], x);
      }
      count += 1.0f;
    }
  for (int v = 0; v < V; v++) {
    __m256 r = max ? acc[v] : _mm256_div_ps(acc[v], _mm256_set1_ps(count));
    _mm256_storeu_ps(out + c0 + 8 * v, ap_clampf8(r, p->lo, p->hi));
  }
}

static inline __attribute__((always_inline)) void rows(const ap_fpool *p, int32_t r0, int32_t r1,
                                                       const bool max) {
  for (int32_t r = r0; r < r1; r++) {
    int32_t b = r / p->out_h, oy = r % p->out_h, y0 = oy * p->stride_h - p->pad_h;
    const float *in_b = p->in + (size_t)b * p->in_h * p->in_w * p->depth;
    for (int32_t ox = 0; ox < p->out_w; ox++) {
      int32_t x0 = ox * p->stride_w - p->pad_w, c0 = 0;
      float *out = p->out + ((size_t)r * p->out_w + ox) * p->depth;
      for (; c0 + 32 <= p->depth; c0 += 32)
        chans(p, in_b, y0, x0, c0, out, 4, max);
      for (; c0 + 8 <= p->depth; c0 += 8)
        chans(p, in_b, y0, x0, c0, out, 1, max);
      if (c0 < p->depth) { /* the last channels (fewer than 8), one at a time */
        for (int32_t c = c0; c < p->depth; c++) {
          int32_t fy0 = y0 < 0 ? -y0 : 0, fy1 = p->in_h - y0 < p->f_h ? p->in_h - y0 : p->f_h;
          int32_t fx0 = x0 < 0 ? -x0 : 0, fx1 = p->in_w - x0 < p->f_w ? p->in_w - x0 : p->f_w;
          float acc = max ? -FLT_MAX : 0.0f, count = 0.0f;
          for (int32_t fy = fy0; fy < fy1; fy++)
            for (int32_t fx = fx0; fx < fx1; fx++) {
              float v = in_b[((size_t)(y0 + fy) * p->in_w + (x0 + fx)) * p->depth + c];
              acc = max ? (acc < v ? v : acc) : acc + v;
              count += 1.0f;
            }
          out[c] = ap_kq_clampf(max ? acc : acc / count, p->lo, p->hi);
        }
      }
    }
  }
}

void ap_fast_avx2_fpool(const ap_fpool *p, int32_t r0, int32_t r1) {
  if (p->max)
    rows(p, r0, r1, true);
  else
    rows(p, r0, r1, false);
}
#else
typedef int ap_fast_float_pool_avx2_unused; /* x86-64 only */
#endif
