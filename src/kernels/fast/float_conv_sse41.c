/* Float CONV_2D for the SSE4.1 level: panels of 4 output channels, the loops of
 * float_conv_impl.h. Products and sums are separate instructions, each rounding as the
 * reference's does. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/fast.h"

#include <smmintrin.h>
#include <string.h>

/* total + bias_value (0.0f when absent), then std::min(std::max(x, lo), hi): NaN passes. */
static inline void finish4(const ap_fconv *c, int32_t panel, __m128 acc, float *out) {
  int32_t c0 = panel * 4, cols = c->out_d - c0 < 4 ? c->out_d - c0 : 4;
  float t[4] = {0.0f};
  if (c->bias) memcpy(t, c->bias + c0, (size_t)cols * 4);
  __m128 x = _mm_add_ps(acc, _mm_loadu_ps(t)), lo = _mm_set1_ps(c->lo), hi = _mm_set1_ps(c->hi);
  x = _mm_blendv_ps(x, lo, _mm_cmplt_ps(x, lo));
  x = _mm_blendv_ps(x, hi, _mm_cmplt_ps(hi, x));
  if (cols == 4) {
    _mm_storeu_ps(out + c0, x);
  } else {
    _mm_storeu_ps(t, x);
    memcpy(out + c0, t, (size_t)cols * 4);
  }
}

#define FV __m128
#define FL 4
#define FV_PMAX 6
#define FV_QMAX 2
#define FV_ZERO() _mm_setzero_ps()
#define FV_LOAD(p) _mm_loadu_ps(p)
#define FV_BCAST(p) _mm_set1_ps(*(p))
#define FV_ADD(a, b) _mm_add_ps(a, b)
#define FV_MUL(a, b) _mm_mul_ps(a, b)
#define FV_STORE(p, v) _mm_storeu_ps(p, v)
#define FV_FN(name) sse41_##name
#define fv_finish finish4
#include "kernels/fast/float_conv_impl.h"

void ap_fast_sse41_fconv(const ap_fconv *c, int32_t r0, int32_t r1) {
  sse41_conv(c, r0, r1);
}
#else
typedef int ap_fast_float_conv_sse41_unused; /* x86-64 only */
#endif
