/* Float CONV_2D for the AVX-512 level: panels of 16 output channels in the lanes of a register,
 * the loops of float_conv_impl.h. Products and sums are separate instructions (no FMA), each
 * rounding as the reference's does. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/float_x86.h"

#include <immintrin.h>

/* total + bias_value (0.0f when absent), then std::min(std::max(x, lo), hi): NaN passes. */
static inline void finish16(const ap_fconv *c, int32_t panel, __m512 acc, float *out) {
  int32_t c0 = panel * 16, cols = c->out_d - c0 < 16 ? c->out_d - c0 : 16;
  __mmask16 m = (__mmask16)(cols == 16 ? 0xffff : (1u << cols) - 1);
  __m512 b = c->bias ? _mm512_maskz_loadu_ps(m, c->bias + c0) : _mm512_setzero_ps();
  _mm512_mask_storeu_ps(out + c0, m, ap_clampf16(_mm512_add_ps(acc, b), c->lo, c->hi));
}

#define FV __m512
#define FL 16
#define FV_PMAX 6
#define FV_QMAX 4
#define FV_ZERO() _mm512_setzero_ps()
#define FV_LOAD(p) _mm512_loadu_ps(p)
#define FV_BCAST(p) _mm512_set1_ps(*(p))
#define FV_ADD(a, b) _mm512_add_ps(a, b)
#define FV_MUL(a, b) _mm512_mul_ps(a, b)
#define FV_STORE(p, v) _mm512_storeu_ps(p, v)
#define FV_FN(name) avx512_##name
#define fv_finish finish16
#include "kernels/fast/float_conv_impl.h"

void ap_fast_avx512_fconv(const ap_fconv *c, int32_t r0, int32_t r1) {
  avx512_conv(c, r0, r1);
}
#else
typedef int ap_fast_float_conv_avx512_unused; /* x86-64 only */
#endif
