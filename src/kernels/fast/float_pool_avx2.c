/* Float AVERAGE_POOL_2D and MAX_POOL_2D for the AVX2 level: channels in lanes, four registers
 * per pass; the window's elements in the reference's order (average: sum from 0.0f, then one
 * division by the float count; max: r < v ? v : r from -FLT_MAX, so a NaN v is passed over as
 * there), then the clamp. That max is vmaxps(v, r) exactly (v > r ? v : r, the second operand
 * when unordered or equal, so -0.0f and NaN come out as the reference's), one instruction of
 * short latency where a compare and a blend made each pixel's chain three times longer. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/float_x86.h"

#include <float.h>
#include <immintrin.h>
#include <stddef.h>

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
        acc[v] = max ? _mm256_max_ps(x, acc[v]) : _mm256_add_ps(acc[v], x);
      }
      count += 1.0f;
    }
  for (int v = 0; v < V; v++) {
    __m256 r = max ? acc[v] : _mm256_div_ps(acc[v], _mm256_set1_ps(count));
    _mm256_storeu_ps(out + c0 + 8 * v, ap_clampf8(r, p->lo, p->hi));
  }
}

/* The last channels (fewer than 8) of one pixel, one at a time. */
static void tail(const ap_fpool *p, const float *in_b, int32_t y0, int32_t x0, int32_t c0,
                 float *out) {
  int32_t fy0 = y0 < 0 ? -y0 : 0, fy1 = p->in_h - y0 < p->f_h ? p->in_h - y0 : p->f_h;
  int32_t fx0 = x0 < 0 ? -x0 : 0, fx1 = p->in_w - x0 < p->f_w ? p->in_w - x0 : p->f_w;
  for (int32_t c = c0; c < p->depth; c++) {
    float acc = p->max ? -FLT_MAX : 0.0f, count = 0.0f;
    for (int32_t fy = fy0; fy < fy1; fy++)
      for (int32_t fx = fx0; fx < fx1; fx++) {
        float v = in_b[((size_t)(y0 + fy) * p->in_w + (x0 + fx)) * p->depth + c];
        acc = p->max ? (acc < v ? v : acc) : acc + v;
        count += 1.0f;
      }
    out[c] = ap_kq_clampf(p->max ? acc : acc / count, p->lo, p->hi);
  }
}

/* One pixel, every channel. */
static inline __attribute__((always_inline)) void
pixel(const ap_fpool *p, const float *in_b, int32_t y0, int32_t x0, float *out, const bool max) {
  int32_t c0 = 0;
  for (; c0 + 32 <= p->depth; c0 += 32)
    chans(p, in_b, y0, x0, c0, out, 4, max);
  for (; c0 + 8 <= p->depth; c0 += 8)
    chans(p, in_b, y0, x0, c0, out, 1, max);
  if (c0 < p->depth) tail(p, in_b, y0, x0, c0, out);
}

/* NB pixels whose windows lie wholly inside the input (src: each window's first element),
 * channels [c0, c0 + 8): their chains interleaved (a small map's pixel alone is one short chain
 * of maxima or adds), each window still in the reference's order, the count f_h * f_w (exact
 * as a float, as the reference's count of ones). All read before any is written, then written
 * in pixel order: in place, no output lands earlier than one pixel at a time would put it. */
enum { NB = 4 };
static inline __attribute__((always_inline)) void
block(const ap_fpool *p, const float *const src[NB], float *const dst[NB], const bool max) {
  const size_t row = (size_t)p->in_w * (size_t)p->depth, col = (size_t)p->depth;
  const __m256 count = _mm256_set1_ps((float)(p->f_h * p->f_w));
  for (int32_t c0 = 0; c0 < p->depth; c0 += 8) {
    __m256 acc[NB];
    _Pragma("GCC unroll 4") for (int j = 0; j < NB; j++) acc[j] =
        max ? _mm256_set1_ps(-FLT_MAX) : _mm256_setzero_ps();
    for (int32_t fy = 0; fy < p->f_h; fy++)
      for (int32_t fx = 0; fx < p->f_w; fx++) {
        size_t off = fy * row + fx * col + (size_t)c0;
        _Pragma("GCC unroll 4") for (int j = 0; j < NB; j++) {
          __m256 x = _mm256_loadu_ps(src[j] + off);
          acc[j] = max ? _mm256_max_ps(x, acc[j]) : _mm256_add_ps(acc[j], x);
        }
      }
    _Pragma("GCC unroll 4") for (int j = 0; j < NB; j++) acc[j] =
        ap_clampf8(max ? acc[j] : _mm256_div_ps(acc[j], count), p->lo, p->hi);
    _Pragma("GCC unroll 4") for (int j = 0; j < NB; j++) _mm256_storeu_ps(dst[j] + c0, acc[j]);
  }
}

/* Output rows [r0, r1): pixels in order, blocks of NB whole-window pixels where the depth is a
 * multiple of 8, every other pixel alone. */
static inline __attribute__((always_inline)) void rows(const ap_fpool *p, int32_t r0, int32_t r1,
                                                       const bool max) {
  const bool blocks = p->depth % 8 == 0;
  const float *src[NB];
  float *dst[NB];
  int n = 0;
  int32_t b = r0 / p->out_h, oy = r0 % p->out_h;
  for (int32_t r = r0; r < r1; r++) {
    int32_t y0 = oy * p->stride_h - p->pad_h;
    const float *in_b = p->in + (size_t)b * p->in_h * p->in_w * p->depth;
    bool rows_in = y0 >= 0 && y0 + p->f_h <= p->in_h;
    for (int32_t ox = 0; ox < p->out_w; ox++) {
      int32_t x0 = ox * p->stride_w - p->pad_w;
      float *out = p->out + ((size_t)r * p->out_w + ox) * p->depth;
      if (blocks && rows_in && x0 >= 0 && x0 + p->f_w <= p->in_w) {
        src[n] = in_b + ((size_t)y0 * p->in_w + x0) * p->depth;
        dst[n++] = out;
        if (n == NB) block(p, src, dst, max), n = 0;
        continue;
      }
      for (int j = 0; j < n; j++) /* the pending ones first: pixel order */
        pixel(p, in_b, (int32_t)((src[j] - in_b) / ((ptrdiff_t)p->in_w * p->depth)),
              (int32_t)((src[j] - in_b) / p->depth % p->in_w), dst[j], max);
      n = 0;
      pixel(p, in_b, y0, x0, out, max);
    }
    if (++oy == p->out_h) oy = 0, b++;
  }
  for (int j = 0; j < n; j++) {
    const float *in_b =
        p->in + (size_t)((src[j] - p->in) / ((ptrdiff_t)p->in_h * p->in_w * p->depth)) * p->in_h *
                    p->in_w * p->depth;
    pixel(p, in_b, (int32_t)((src[j] - in_b) / ((ptrdiff_t)p->in_w * p->depth)),
          (int32_t)((src[j] - in_b) / p->depth % p->in_w), dst[j], max);
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
