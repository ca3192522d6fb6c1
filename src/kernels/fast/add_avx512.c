/* The AVX-512 level's quantized ADD and SUB of same-shape 8-bit tensors: the reference's
 * arithmetic (inputs offset and shifted left, each scaled by MultiplyByQuantizedMultiplier-
 * SmallerThanOneExp, summed, scaled again) on 16 lanes at a time, the tail masked. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/conv_win.h"
#include "kernels/fast/requant_avx512.h"

/* SmallerThanOneExp: no left shift (a positive shift is clamped to 0, as the scalar code). */
static void rq_lt1(rq16 *r, int32_t m, int32_t shift) {
  rq_set(r, _mm512_setzero_si512(), _mm512_set1_epi32(m), _mm512_set1_epi32(shift < 0 ? shift : 0));
}

static inline __m512i widen(const uint8_t *p, __mmask16 k, bool is_unsigned) {
  __m128i b = _mm_maskz_loadu_epi8(k, p);
  return is_unsigned ? _mm512_cvtepu8_epi32(b) : _mm512_cvtepi8_epi32(b);
}

void ap_fast_avx512_add(const ap_binary_params *p, const void *a, const void *b, void *out,
                        size_t n, bool is_unsigned) {
  rq16 r1, r2, ro;
  rq_lt1(&r1, p->input1_multiplier, p->input1_shift);
  rq_lt1(&r2, p->input2_multiplier, p->input2_shift);
  rq_lt1(&ro, p->output_multiplier, p->output_shift);
  const __m512i o1 = _mm512_set1_epi32(p->input1_offset), o2 = _mm512_set1_epi32(p->input2_offset),
                off = _mm512_set1_epi32(p->output_offset), lo = _mm512_set1_epi32(p->act_min),
                hi = _mm512_set1_epi32(p->act_max);
  const __m128i ls = _mm_cvtsi32_si128(p->left_shift);
  const uint8_t *x = a, *y = b;
  uint8_t *o = out;
  bool sub = p->op == AP_KBIN_SUB;
  for (size_t i = 0; i < n; i += 16) {
    __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
    __m512i xr =
        mulq16(_mm512_sll_epi32(_mm512_add_epi32(widen(x + i, k, is_unsigned), o1), ls), &r1);
    __m512i yr =
        mulq16(_mm512_sll_epi32(_mm512_add_epi32(widen(y + i, k, is_unsigned), o2), ls), &r2);
    __m512i raw = sub ? _mm512_sub_epi32(xr, yr) : _mm512_add_epi32(xr, yr);
    __m512i v = _mm512_add_epi32(mulq16(raw, &ro), off);
    v = _mm512_min_epi32(_mm512_max_epi32(v, lo), hi); /* within 8 bits: truncation is exact */
    _mm_mask_storeu_epi8(o + i, k, _mm512_cvtepi32_epi8(v));
  }
}
#else
typedef int ap_fast_add_avx512_unused; /* x86-64 only */
#endif
