/* ap_fast_channel_multipliers (multipliers.c) for per-channel filters on AVX2, 4 channels a
 * step: the same doubles (input_scale * scale / output_scale, each operation IEEE double in
 * every lane as in the scalar code) and the same integer route from their bits. A step with a
 * lane off that route (zero, subnormal, infinite, NaN, negative) and the last n % 4 channels
 * take multipliers.c's. The depthwise kernels compute their multipliers at every eval: on small
 * maps the scalar divisions were a tenth of the op. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/fast.h"

#include <immintrin.h>

/* multipliers.c's values for channels [c, c + k) */
static void scalar(float input_scale, const ap_ktensor *filter, float output_scale, int32_t c,
                   int32_t k, int32_t *mult, int32_t *shift) {
  ap_ktensor f = *filter;
  f.channel_scales += c;
  f.n_channels -= c;
  ap_fast_channel_multipliers(input_scale, &f, output_scale, k, mult + c, shift + c);
}

void ap_fast_avx2_channel_multipliers(float input_scale, const ap_ktensor *filter,
                                      float output_scale, int32_t n, int32_t *mult,
                                      int32_t *shift) {
  if (AP_KQ_SOFT_DOUBLE || !filter->channel_scales || filter->n_channels < n || n < 4) {
    ap_fast_channel_multipliers(input_scale, filter, output_scale, n, mult, shift);
    return;
  }
  const __m256d in = _mm256_set1_pd((double)input_scale),
                out = _mm256_set1_pd((double)output_scale);
  const __m256i exp_mask = _mm256_set1_epi64x(0x7ff), frac = _mm256_set1_epi64x((1ll << 52) - 1),
                hidden = _mm256_set1_epi64x(1ll << 52), round = _mm256_set1_epi64x(1ll << 21),
                bias = _mm256_set1_epi64x(1022), top = _mm256_set1_epi64x(1ll << 31),
                half_top = _mm256_set1_epi64x(1ll << 30), lowest = _mm256_set1_epi64x(-31),
                zero = _mm256_setzero_si256(), lows = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  int32_t c = 0;
  for (; c + 4 <= n; c += 4) {
    __m256d m = _mm256_cvtps_pd(_mm_loadu_ps(filter->channel_scales + c));
    m = _mm256_div_pd(_mm256_mul_pd(in, m), out);
    __m256i bits = _mm256_castpd_si256(m);
    __m256i biased = _mm256_and_si256(_mm256_srli_epi64(bits, 52), exp_mask);
    __m256i off = _mm256_or_si256(
        _mm256_cmpgt_epi64(zero, bits),
        _mm256_or_si256(_mm256_cmpeq_epi64(biased, zero), _mm256_cmpeq_epi64(biased, exp_mask)));
    if (!_mm256_testz_si256(off, off)) {
      scalar(input_scale, filter, output_scale, c, 4, mult, shift);
      continue;
    }
    __m256i sig = _mm256_or_si256(_mm256_and_si256(bits, frac), hidden);
    __m256i e = _mm256_sub_epi64(biased, bias);
    __m256i q = _mm256_srli_epi64(_mm256_add_epi64(sig, round), 22);
    __m256i carry = _mm256_cmpeq_epi64(q, top); /* q = 2^31: half of it, one more in e */
    q = _mm256_blendv_epi8(q, half_top, carry);
    e = _mm256_sub_epi64(e, carry);
    __m256i small = _mm256_cmpgt_epi64(lowest, e); /* e < -31: 0 and 0 */
    q = _mm256_andnot_si256(small, q);
    e = _mm256_andnot_si256(small, e);
    _mm_storeu_si128((__m128i *)(mult + c),
                     _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(q, lows)));
    _mm_storeu_si128((__m128i *)(shift + c),
                     _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(e, lows)));
  }
  if (c < n) scalar(input_scale, filter, output_scale, c, n - c, mult, shift);
}
#else
typedef int ap_fast_multipliers_avx2_unused; /* x86-64 only */
#endif
