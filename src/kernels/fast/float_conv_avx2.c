/* Float CONV_2D and ADD/SUB for the AVX2 level (the convolution's loops: float_conv_impl.h).
 * Lanes are output channels (or elements), so only the order across elements changes. Products
 * and sums are separate instructions (this file is built with -ffp-contract=off and uses no FMA
 * intrinsics), so each rounds as the reference's does. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/float_x86.h"

#include <immintrin.h>
#include <string.h>

static inline void finish(const ap_fconv *c, int32_t panel, __m256 acc, float *out) {
  int32_t c0 = panel * 8, cols = c->out_d - c0 < 8 ? c->out_d - c0 : 8;
  __m256 b = _mm256_setzero_ps();
  if (c->bias && cols == 8) {
    b = _mm256_loadu_ps(c->bias + c0);
  } else if (c->bias) {
    float t[8] = {0};
    memcpy(t, c->bias + c0, (size_t)cols * 4);
    b = _mm256_loadu_ps(t);
  }
  /* total + bias_value, bias 0.0f when absent (so -0.0 sums become +0.0 as there). */
  acc = ap_clampf8(_mm256_add_ps(acc, b), c->lo, c->hi);
  if (cols == 8) {
    _mm256_storeu_ps(out + c0, acc);
  } else {
    float t[8];
    _mm256_storeu_ps(t, acc);
    memcpy(out + c0, t, (size_t)cols * 4);
  }
}

#define FV __m256
#define FL 8
#define FV_PMAX 6
#define FV_QMAX 2
#define FV_ZERO() _mm256_setzero_ps()
#define FV_LOAD(p) _mm256_loadu_ps(p)
#define FV_BCAST(p) _mm256_broadcast_ss(p)
#define FV_ADD(a, b) _mm256_add_ps(a, b)
#define FV_MUL(a, b) _mm256_mul_ps(a, b)
#define FV_STORE(p, v) _mm256_storeu_ps(p, v)
#define FV_FN(name) avx2_##name
#define fv_finish finish
#include "kernels/fast/float_conv_impl.h"

void ap_fast_avx2_fconv(const ap_fconv *c, int32_t r0, int32_t r1) {
  avx2_conv(c, r0, r1);
}

/* Groups of 8 rows by 8x8 transposes; the rest (rows past the last group of 8, columns past
 * the last multiple of 8) through the portable loop's rule, element by element. */
bool ap_fast_avx2_fconv_pack(const float *w, int32_t n, size_t k, int32_t L, float *wp) {
  return ap_fast_avx2_fconv_pack_rows(w, n, k, k, L, wp);
}

bool ap_fast_avx2_fconv_pack_rows(const float *w, int32_t n, size_t k, size_t stride, int32_t L,
                                  float *wp) {
  int32_t n8 = n / 8 * 8;
  size_t k8 = k / 8 * 8;
  __m256i expo = _mm256_set1_epi32(0x7f800000), bad = _mm256_setzero_si256();
  for (int32_t c0 = 0; c0 < n8; c0 += 8) {
    float *dst = wp + (size_t)(c0 / L) * k * (size_t)L + (size_t)(c0 % L);
    const float *src = w + (size_t)c0 * stride;
    for (size_t i = 0; i < k8; i += 8) {
      __m256 r[8];
#pragma GCC unroll 8
      for (int l = 0; l < 8; l++) {
        r[l] = _mm256_loadu_ps(src + (size_t)l * stride + i);
        __m256i e = _mm256_and_si256(_mm256_castps_si256(r[l]), expo);
        bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(e, expo));
      }
      ap_transpose8(r);
#pragma GCC unroll 8
      for (int l = 0; l < 8; l++)
        _mm256_storeu_ps(dst + (i + (size_t)l) * (size_t)L, r[l]);
    }
    if (k8 < k && !ap_fast_fconv_pack_part(w, n, k, stride, L, wp, c0, c0 + 8, k8))
      bad = _mm256_set1_epi32(-1);
  }
  bool finite = ap_fast_fconv_pack_part(w, n, k, stride, L, wp, n8, (n + L - 1) / L * L, 0);
  return finite && _mm256_testz_si256(bad, bad);
}

void ap_fast_avx2_fadd(const ap_binary_params *p, const float *a, const float *b, float *out,
                       size_t n) {
  bool sub = p->op == AP_KBIN_SUB;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_loadu_ps(a + i), y = _mm256_loadu_ps(b + i);
    _mm256_storeu_ps(out + i, ap_clampf8(sub ? _mm256_sub_ps(x, y) : _mm256_add_ps(x, y),
                                         p->fact_min, p->fact_max));
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
