/* The SSE4.1 level (compiled with -msse4.1 on x86-64 only): the matrix product and fully
 * connected sums with pmovsxbw and pmaddwd on 128-bit vectors. SSE4.1 has no per-lane shifts,
 * so requantization is the reference's scalar code; depthwise is the generic level's. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/fast.h"

#include <smmintrin.h>
#include <string.h>

static size_t packed_bytes(int32_t n, int32_t k) {
  (void)n, (void)k;
  return 0; /* weights are read in place, rows of k */
}

static void pack(const int8_t *w, int32_t n, int32_t k, const int32_t *bias, int32_t in_off,
                 void *packed, int32_t *col_bias) {
  (void)w, (void)k, (void)in_off, (void)packed;
  for (int32_t c = 0; c < n; c++)
    col_bias[c] = bias ? bias[c] : 0;
}

static size_t arow_bytes(int32_t k) {
  return ((size_t)k + 7) / 8 * 16;
}

static void arow(const int8_t *src, int32_t k, int32_t in_off, void *dst) {
  int16_t *a = dst;
  int32_t i = 0;
  for (; i < k; i++)
    a[i] = (int16_t)(src[i] + in_off);
  for (; i % 8; i++)
    a[i] = 0;
}

/* 8 weights of row w from d as int16, zero past k; in place when 8 bytes fit before `end`. */
static inline __m128i wload(const int8_t *w, int32_t d, int32_t k, const int8_t *end) {
  if (d + 8 <= k || w + d + 8 <= end)
    return _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(w + d)));
  int8_t t[8] = {0};
  memcpy(t, w + d, (size_t)(k - d));
  return _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)t));
}

static inline __m128i hsum4(__m128i a, __m128i b, __m128i c, __m128i d) {
  return _mm_hadd_epi32(_mm_hadd_epi32(a, b), _mm_hadd_epi32(c, d));
}

static void gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc, int8_t *out,
                 size_t out_stride) {
  int32_t n = g->n, k = g->k, kp = (k + 7) / 8 * 8;
  const int16_t *r[4];
  for (int i = 0; i < 4; i++)
    r[i] = (const int16_t *)a + (size_t)(i < rows ? i : 0) * (size_t)kp;
  const int8_t *end = g->w + (size_t)n * (size_t)k;
  for (int32_t c = 0; c < n; c += 2) {
    const int8_t *w0 = g->w + (size_t)c * k, *w1 = c + 1 < n ? w0 + k : w0;
    __m128i s00 = _mm_setzero_si128(), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00,
            s30 = s00, s31 = s00;
    for (int32_t d = 0; d < kp; d += 8) {
      __m128i v0 = wload(w0, d, k, end), v1 = wload(w1, d, k, end);
      __m128i x0 = _mm_loadu_si128((const __m128i *)(r[0] + d));
      __m128i x1 = _mm_loadu_si128((const __m128i *)(r[1] + d));
      __m128i x2 = _mm_loadu_si128((const __m128i *)(r[2] + d));
      __m128i x3 = _mm_loadu_si128((const __m128i *)(r[3] + d));
      s00 = _mm_add_epi32(s00, _mm_madd_epi16(x0, v0));
      s01 = _mm_add_epi32(s01, _mm_madd_epi16(x0, v1));
      s10 = _mm_add_epi32(s10, _mm_madd_epi16(x1, v0));
      s11 = _mm_add_epi32(s11, _mm_madd_epi16(x1, v1));
      s20 = _mm_add_epi32(s20, _mm_madd_epi16(x2, v0));
      s21 = _mm_add_epi32(s21, _mm_madd_epi16(x2, v1));
      s30 = _mm_add_epi32(s30, _mm_madd_epi16(x3, v0));
      s31 = _mm_add_epi32(s31, _mm_madd_epi16(x3, v1));
    }
    int32_t t[8];
    _mm_storeu_si128((__m128i *)t, hsum4(s00, s01, s10, s11));
    _mm_storeu_si128((__m128i *)(t + 4), hsum4(s20, s21, s30, s31));
    for (int32_t i = 0; i < rows; i++) {
      acc[(size_t)i * n + c] = t[2 * i];
      if (c + 1 < n) acc[(size_t)i * n + c + 1] = t[2 * i + 1];
    }
  }
  for (int32_t i = 0; i < rows; i++)
    for (int32_t c = 0; c < n; c++) {
      int32_t v = (int32_t)((uint32_t)acc[(size_t)i * n + c] + (uint32_t)g->col_bias[c]);
      out[(size_t)i * out_stride + c] =
          ap_fast_requant(v, g->mult[c], g->shift[c], g->out_off, g->act_min, g->act_max);
    }
}

static void fc(const ap_qfc *f, int32_t u0, int32_t u1) {
  int32_t k = f->depth, kfull = k / 8 * 8;
  const __m128i io = _mm_set1_epi16((int16_t)f->in_off);
  for (int32_t b = 0; b < f->batches; b++) {
    const int8_t *x = f->x + (size_t)b * k;
    uint32_t corr = f->filter_off ? (uint32_t)f->filter_off * ap_fast_row_sum(x, k, f->in_off) : 0;
    int8_t *out = f->out + (size_t)b * f->units;
    for (int32_t u = u0; u < u1; u += 4) {
      int32_t nu = u1 - u < 4 ? u1 - u : 4;
      const int8_t *w[4];
      for (int i = 0; i < 4; i++)
        w[i] = f->w + (size_t)(u + (i < nu ? i : 0)) * k;
      __m128i s[4] = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128(),
                      _mm_setzero_si128()};
      for (int32_t d = 0; d < kfull; d += 8) {
        __m128i xv =
            _mm_add_epi16(_mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(x + d))), io);
        for (int i = 0; i < 4; i++)
          s[i] = _mm_add_epi32(
              s[i],
              _mm_madd_epi16(xv, _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(w[i] + d)))));
      }
      int32_t t[4];
      _mm_storeu_si128((__m128i *)t, hsum4(s[0], s[1], s[2], s[3]));
      for (int i = 0; i < nu; i++) {
        uint32_t acc = (uint32_t)t[i] + corr;
        for (int32_t d = kfull; d < k; d++)
          acc += (uint32_t)((x[d] + f->in_off) * w[i][d]);
        if (f->bias) acc += (uint32_t)f->bias[u + i];
        out[u + i] = ap_fast_requant((int32_t)acc, f->qmult ? f->qmult[u + i] : f->mult1,
                                     f->qshift ? f->qshift[u + i] : f->shift1, f->out_off,
                                     f->act_min, f->act_max);
      }
    }
  }
}

static void dw(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws) {
  ap_fast_generic.dw(d, b, oy0, oy1, ws);
}

const ap_fast_level ap_fast_sse41 = {
    .name = "sse41",
    .level = AP_SIMD_SSE41,
    .gemm = {.mr = 4,
             .packed_bytes = packed_bytes,
             .pack = pack,
             .arow_bytes = arow_bytes,
             .arow = arow,
             .gemm = gemm},
    .dw = dw,
    .fc = fc,
    /* -- int8speed -- */
    /* -- float -- */
    .fbin = ap_fast_generic_fbin,
    .fpool = ap_fast_generic_fpool,
    .fdw = ap_fast_generic_fdw,
    .ffc = ap_fast_generic_ffc,
    .fconv = ap_fast_sse41_fconv,
    .fconv_lanes = 4,
    /* -- fastops -- */
    .ops = &ap_fastops_generic,
    /* -- stream3 -- */
};
#else
typedef int ap_fast_sse41_unused; /* x86-64 only */
#endif
