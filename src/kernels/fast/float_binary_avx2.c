/* One row of a float ADD, SUB or MUL for the AVX2 level: a broadcast input (stride 0) is one
 * register; each element is one operation (a op b, in that order) and the clamp. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/float_x86.h"

#include <immintrin.h>

static inline __attribute__((always_inline)) void row(int op, const float *a, size_t sa,
                                                      const float *b, size_t sb, float *out,
                                                      size_t n, float lo, float hi) {
  size_t i = 0;
  __m256 ca = _mm256_set1_ps(a[0]), cb = _mm256_set1_ps(b[0]);
  for (; i + 8 <= n; i += 8) {
    __m256 x = sa ? _mm256_loadu_ps(a + i) : ca, y = sb ? _mm256_loadu_ps(b + i) : cb;
    __m256 r = op == AP_KBIN_ADD   ? _mm256_add_ps(x, y)
               : op == AP_KBIN_SUB ? _mm256_sub_ps(x, y)
                                   : _mm256_mul_ps(x, y);
    _mm256_storeu_ps(out + i, ap_clampf8(r, lo, hi));
  }
  ap_fast_generic_fbin(op, a + i * sa, sa, b + i * sb, sb, out + i, n - i, lo, hi);
}

#define ROWS(OP)                                                                                   \
  if (sa && sb)                                                                                    \
    row(OP, a, 1, b, 1, out, n, lo, hi);                                                           \
  else if (sa)                                                                                     \
    row(OP, a, 1, b, 0, out, n, lo, hi);                                                           \
  else if (sb)                                                                                     \
    row(OP, a, 0, b, 1, out, n, lo, hi);                                                           \
  else                                                                                             \
    row(OP, a, 0, b, 0, out, n, lo, hi);

void ap_fast_avx2_fbin(int op, const float *a, size_t sa, const float *b, size_t sb, float *out,
                       size_t n, float lo, float hi) {
  if (n < 8) {
    ap_fast_generic_fbin(op, a, sa, b, sb, out, n, lo, hi);
  } else if (op == AP_KBIN_ADD) {
    ROWS(AP_KBIN_ADD)
  } else if (op == AP_KBIN_SUB) {
    ROWS(AP_KBIN_SUB)
  } else {
    ROWS(AP_KBIN_MUL)
  }
}
#else
typedef int ap_fast_float_binary_avx2_unused; /* x86-64 only */
#endif
