/* The quantized pools (pool_body.h) compiled with AVX2 (x86-64 only): the same loops, 256-bit
 * vectors; int8 and uint8 averages over windows of at most 128 values by avg_rows below. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/pool_body.h"

#include <immintrin.h>

/* pool_avg on 8 lanes: sign(acc) * ((|acc| + half) * m >> sh), the reciprocal's product in
 * 64-bit lanes (|acc| + half < 2^16, m <= 2^32: below 2^48). */
static inline __m256i avg8(__m256i acc, __m256i half, __m256i m, __m128i sh) {
  __m256i t = _mm256_add_epi32(_mm256_abs_epi32(acc), half);
  __m256i even = _mm256_srl_epi64(_mm256_mul_epu32(t, m), sh);
  __m256i odd = _mm256_srl_epi64(_mm256_mul_epu32(_mm256_srli_epi64(t, 32), m), sh);
  return _mm256_sign_epi32(_mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA), acc);
}

/* AVERAGE_POOL_2D of int8 or uint8 (u8) with windows of at most 128 values: each window's sums
 * in int16 lanes (|sum| <= 128 * 255 < 2^15), 16 channels a step, then pool_avg's rounding
 * and division (by the reciprocal, taken again only when the window's count changes), the
 * clamp and a saturating pack (the clamp's range lies within the type's). The last depth % 16
 * channels as pool_body.h's. */
static bool avg_rows(const ap_qpool *q, int32_t b, int32_t oy0, int32_t oy1, bool u8) {
  const int8_t *in = q->in;
  int8_t *out = q->out;
  int32_t D = q->depth;
  const __m256i lo = _mm256_set1_epi32(q->act_min), hi = _mm256_set1_epi32(q->act_max);
  pool_div dv = pool_div_of(1);
  __m256i half = _mm256_setzero_si256(), m = _mm256_set1_epi64x((long long)dv.m);
  __m128i sh = _mm_cvtsi32_si128(dv.sh);
  for (int32_t oy = oy0; oy < oy1; oy++)
    for (int32_t ox = 0; ox < q->out_w; ox++) {
      int32_t y0 = oy * q->stride_h - q->pad_h, x0 = ox * q->stride_w - q->pad_w;
      int32_t fy0 = y0 < 0 ? -y0 : 0, fy1 = q->in_h - y0 < q->f_h ? q->in_h - y0 : q->f_h;
      int32_t fx0 = x0 < 0 ? -x0 : 0, fx1 = q->in_w - x0 < q->f_w ? q->in_w - x0 : q->f_w;
      if (fy1 <= fy0 || fx1 <= fx0) return false; /* the reference's error: nothing to average */
      int32_t count = (fy1 - fy0) * (fx1 - fx0);
      if (count != dv.count) {
        dv = pool_div_of(count);
        half = _mm256_set1_epi32(count / 2);
        m = _mm256_set1_epi64x((long long)dv.m);
        sh = _mm_cvtsi32_si128(dv.sh);
      }
      int8_t *o = out + (((size_t)b * q->out_h + oy) * q->out_w + ox) * D;
      const int8_t *w0 =
          in + (((size_t)b * q->in_h + (size_t)(y0 + fy0)) * q->in_w + (size_t)(x0 + fx0)) * D;
      int32_t c = 0;
      for (; c + 16 <= D; c += 16) {
        __m256i acc = _mm256_setzero_si256();
        const int8_t *r = w0 + c;
        for (int32_t fy = fy0; fy < fy1; fy++, r += (size_t)q->in_w * D) {
          const int8_t *s = r;
          for (int32_t fx = fx0; fx < fx1; fx++, s += D) {
            __m128i v = _mm_loadu_si128((const __m128i *)s);
            acc = _mm256_add_epi16(acc, u8 ? _mm256_cvtepu8_epi16(v) : _mm256_cvtepi8_epi16(v));
          }
        }
        __m256i a0 = avg8(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(acc)), half, m, sh);
        __m256i a1 = avg8(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(acc, 1)), half, m, sh);
        a0 = _mm256_min_epi32(_mm256_max_epi32(a0, lo), hi);
        a1 = _mm256_min_epi32(_mm256_max_epi32(a1, lo), hi);
        __m256i p = _mm256_packs_epi32(a0, a1); /* [a0 0-3, a1 0-3 | a0 4-7, a1 4-7] */
        p = u8 ? _mm256_packus_epi16(p, p) : _mm256_packs_epi16(p, p);
        p = _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 0, 0, 0, 0));
        _mm_storeu_si128((__m128i *)(o + c), _mm256_castsi256_si128(p));
      }
      for (; c < D; c++) {
        int32_t acc = 0;
        for (int32_t fy = fy0; fy < fy1; fy++)
          for (int32_t fx = fx0; fx < fx1; fx++) {
            int8_t v = w0[((size_t)(fy - fy0) * q->in_w + (size_t)(fx - fx0)) * D + (size_t)c];
            acc += u8 ? (int32_t)(uint8_t)v : (int32_t)v;
          }
        int32_t v = pool_avg(acc, &dv);
        o[c] = (int8_t)(v < q->act_min ? q->act_min : v > q->act_max ? q->act_max : v);
      }
    }
  return true;
}

bool ap_fastops_avx2_pool(const ap_qpool *q, int32_t b, int32_t oy0, int32_t oy1) {
  if (q->kind == AP_KPOOL_AVERAGE && (q->type == AP_INT8 || q->type == AP_UINT8) &&
      (int64_t)q->f_h * q->f_w <= 128)
    return avg_rows(q, b, oy0, oy1, q->type == AP_UINT8);
  return pool_rows(q, b, oy0, oy1);
}
#endif
