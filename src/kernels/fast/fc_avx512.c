/* The AVX-512 level's fully connected kernel: weights read in place, 32 of a row per step,
 * widened to int16 and multiplied with (input + offset) pairs by vpdpwssd (two products per
 * int32 lane, wrapping as the reference's sums); when the input's zero point is -128 (after a
 * ReLU), input + 128 is an unsigned byte and 64 weights go through one vpdpbusd. The row's
 * tail is a masked load, its zeros adding nothing. Eight units at a time share each step's
 * input. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/int8_x86.h"

/* Eight 512-bit sums folded to eight lanes: lane j = the sum of s[j]'s 16 lanes. */
static inline __m256i hsum8z(const __m512i *s) {
  __m256i h[8];
#pragma GCC unroll 8
  for (int j = 0; j < 8; j++)
    h[j] = _mm256_add_epi32(_mm512_castsi512_si256(s[j]), _mm512_extracti64x4_epi64(s[j], 1));
  __m128i lo = hsum4(h[0], h[1], h[2], h[3]), hi = hsum4(h[4], h[5], h[6], h[7]);
  return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

void ap_fast_avx512_fc(const ap_qfc *f, int32_t u0, int32_t u1) {
  enum { CHUNK = 64 };
  int32_t k = f->depth, m1[CHUNK], s1[CHUNK], sums[CHUNK];
  for (int i = 0; i < CHUNK; i++)
    m1[i] = f->mult1, s1[i] = f->shift1;
  const __m512i io = _mm512_set1_epi16((int16_t)f->in_off);
  int32_t kfull = k / 32 * 32;
  __mmask32 tail = (__mmask32)((1ull << (k - kfull)) - 1);
  int32_t kfull64 = k / 64 * 64;
  __mmask64 tail64 = ((__mmask64)1 << (k - kfull64)) - 1;
  const __m512i flip = _mm512_set1_epi8((char)0x80);
  for (int32_t b = 0; b < f->batches; b++) {
    const int8_t *x = f->x + (size_t)b * k;
    uint32_t corr = f->filter_off ? (uint32_t)f->filter_off * ap_fast_row_sum(x, k, f->in_off) : 0;
    int8_t *out = f->out + (size_t)b * f->units;
    for (int32_t c0 = u0; c0 < u1; c0 += CHUNK) {
      int32_t c1 = u1 - c0 < CHUNK ? u1 : c0 + CHUNK;
      for (int32_t u = c0; u < c1; u += 8) {
        int32_t nu = c1 - u < 8 ? c1 - u : 8;
        const int8_t *w[8];
#pragma GCC unroll 8
        for (int i = 0; i < 8; i++)
          w[i] = f->w + (size_t)(u + (i < nu ? i : 0)) * k;
        __m512i s[8];
#pragma GCC unroll 8
        for (int i = 0; i < 8; i++)
          s[i] = _mm512_setzero_si512();
        if (f->in_off == 128) { /* input zero point -128: x + 128 is vpdpbusd's unsigned byte */
          int32_t d = 0;
          for (; d < kfull64; d += 64) {
            __m512i xv = _mm512_xor_si512(_mm512_loadu_si512((const void *)(x + d)), flip);
#pragma GCC unroll 8
            for (int i = 0; i < 8; i++)
              s[i] = _mm512_dpbusd_epi32(s[i], xv, _mm512_loadu_si512((const void *)(w[i] + d)));
          }
          if (d < k) { /* weights past k are 0 */
            __m512i xv = _mm512_xor_si512(_mm512_maskz_loadu_epi8(tail64, x + d), flip);
#pragma GCC unroll 8
            for (int i = 0; i < 8; i++)
              s[i] = _mm512_dpbusd_epi32(s[i], xv, _mm512_maskz_loadu_epi8(tail64, w[i] + d));
          }
        } else {
          int32_t d = 0;
          for (; d < kfull; d += 32) {
            __m512i xv = _mm512_add_epi16(
                _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(x + d))), io);
#pragma GCC unroll 8
            for (int i = 0; i < 8; i++)
              s[i] = _mm512_dpwssd_epi32(
                  s[i], xv, _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(w[i] + d))));
          }
          if (d < k) {
            __m512i xv =
                _mm512_add_epi16(_mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(tail, x + d)), io);
#pragma GCC unroll 8
            for (int i = 0; i < 8; i++)
              s[i] = _mm512_dpwssd_epi32(
                  s[i], xv, _mm512_cvtepi8_epi16(_mm256_maskz_loadu_epi8(tail, w[i] + d)));
          }
        }
        int32_t t[8];
        _mm256_storeu_si256((__m256i *)t, hsum8z(s));
        for (int i = 0; i < nu; i++)
          sums[u - c0 + i] =
              (int32_t)((uint32_t)t[i] + corr + (uint32_t)(f->bias ? f->bias[u + i] : 0));
      }
      requant_row(sums, NULL, c1 - c0, f->qmult ? f->qmult + c0 : m1,
                  f->qshift ? f->qshift + c0 : s1, f->out_off, f->act_min, f->act_max, out + c0);
    }
  }
}
#else
typedef int ap_fast_fc_avx512_unused; /* x86-64 only */
#endif
