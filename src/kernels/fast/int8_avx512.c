/* The AVX-512 level (AVX512BW, VL and VNNI; compiled with those flags on x86-64 only). The
 * matrix product uses vpdpbusd on 256-bit vectors with the 32 registers EVEX gives: unsigned
 * patch bytes (input + 128) times signed weights, four products per int32 lane, no
 * saturation (vpdpbusd, not vpdpbusds), so sums stay exact modulo 2^32. The +128 is taken back
 * through each channel's weight sum in col_bias. 256-bit vectors run at full rate on cores
 * that split 512-bit ones and waste less on small depths. */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/conv_win.h"
#include "kernels/fast/int8_x86.h"
#include "kernels/kops_stream6.h"

static size_t packed_bytes(int32_t n, int32_t k) {
  (void)n, (void)k;
  return 0; /* weights are read in place, rows of k */
}

/* col_bias[c] = bias[c] + (in_off - 128) * sum_k w[c][k], modulo 2^32. */
static void pack(const int8_t *w, int32_t n, int32_t k, const int32_t *bias, int32_t in_off,
                 void *packed, int32_t *col_bias) {
  (void)packed;
  const __m256i ones = _mm256_set1_epi8(1);
  for (int32_t c = 0; c < n; c++) {
    const int8_t *row = w + (size_t)c * k;
    __m256i s = _mm256_setzero_si256();
    int32_t d = 0;
    for (; d + 32 <= k; d += 32)
      s = _mm256_dpbusd_epi32(s, ones, _mm256_loadu_si256((const __m256i *)(row + d)));
    int32_t t[8];
    _mm256_storeu_si256((__m256i *)t, s);
    uint32_t sum = 0;
    for (int i = 0; i < 8; i++)
      sum += (uint32_t)t[i];
    for (; d < k; d++)
      sum += (uint32_t)(int32_t)row[d];
    col_bias[c] = (int32_t)((uint32_t)(bias ? bias[c] : 0) + (uint32_t)(in_off - 128) * sum);
  }
}

static size_t arow_bytes(int32_t k) {
  return ((size_t)k + 63) / 64 * 64;
}

/* Input + 128 as unsigned bytes (the sign bit flipped), zeros past k. */
static void arow(const int8_t *src, int32_t k, int32_t in_off, void *dst) {
  (void)in_off;
  uint8_t *a = dst;
  const __m512i flip = _mm512_set1_epi8((char)0x80);
  int32_t i = 0;
  for (; i + 64 <= k; i += 64)
    _mm512_storeu_si512((void *)(a + i),
                        _mm512_xor_si512(_mm512_loadu_si512((const void *)(src + i)), flip));
  if (i < k) { /* the tail, and zeros to the row's end */
    __mmask64 m = ((__mmask64)1 << (k - i)) - 1;
    _mm512_storeu_si512((void *)(a + i),
                        _mm512_maskz_xor_epi32((__mmask16)~0u, _mm512_maskz_loadu_epi8(m, src + i),
                                               _mm512_maskz_mov_epi8(m, flip)));
  }
}

/* Sixteen 512-bit sums folded to four lanes: lane j = the sum of s[j]'s 16 lanes. */
static inline __m128i hsum4z(__m512i a, __m512i b, __m512i c, __m512i d) {
  __m256i a8 = _mm256_add_epi32(_mm512_castsi512_si256(a), _mm512_extracti64x4_epi64(a, 1));
  __m256i b8 = _mm256_add_epi32(_mm512_castsi512_si256(b), _mm512_extracti64x4_epi64(b, 1));
  __m256i c8 = _mm256_add_epi32(_mm512_castsi512_si256(c), _mm512_extracti64x4_epi64(c, 1));
  __m256i d8 = _mm256_add_epi32(_mm512_castsi512_si256(d), _mm512_extracti64x4_epi64(d, 1));
  return hsum4(a8, b8, c8, d8);
}

/* 4 rows of a times 4 weight rows at a time, 64 bytes of k per vpdpbusd; the weights' last
 * step is a masked load (bytes past k meet zeros of a anyway, but may lie past the tensor). */
static void gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc, int8_t *out,
                 size_t out_stride) {
  int32_t n = g->n, k = g->k, kp = (int32_t)arow_bytes(k), kfull = k / 64 * 64;
  __mmask64 tail = ((__mmask64)1 << (k - kfull)) - 1; /* k - kfull < 64 */
  const uint8_t *a0 = a, *r[4];
  for (int i = 0; i < 4; i++)
    r[i] = a0 + (size_t)(i < rows ? i : 0) * (size_t)kp;
  for (int32_t c = 0; c < n; c += 4) {
    const int8_t *w[4];
    for (int j = 0; j < 4; j++)
      w[j] = g->w + (size_t)(c + j < n ? c + j : c) * k;
      /* Sixteen named accumulators: an array would live on the stack. */
#define AP_Z _mm512_setzero_si512()
    __m512i s00 = AP_Z, s01 = AP_Z, s02 = AP_Z, s03 = AP_Z, s10 = AP_Z, s11 = AP_Z, s12 = AP_Z,
            s13 = AP_Z, s20 = AP_Z, s21 = AP_Z, s22 = AP_Z, s23 = AP_Z, s30 = AP_Z, s31 = AP_Z,
            s32 = AP_Z, s33 = AP_Z;
#undef AP_Z
#define AP_STEP(LOAD)                                                                              \
  do {                                                                                             \
    __m512i v0 = LOAD(w[0]), v1 = LOAD(w[1]), v2 = LOAD(w[2]), v3 = LOAD(w[3]);                    \
    AP_ROW(0);                                                                                     \
    AP_ROW(1);                                                                                     \
    AP_ROW(2);                                                                                     \
    AP_ROW(3);                                                                                     \
  } while (0)
#define AP_ROW(I)                                                                                  \
  do {                                                                                             \
    __m512i x = _mm512_loadu_si512((const void *)(r[I] + d));                                      \
    s##I##0 = _mm512_dpbusd_epi32(s##I##0, x, v0);                                                 \
    s##I##1 = _mm512_dpbusd_epi32(s##I##1, x, v1);                                                 \
    s##I##2 = _mm512_dpbusd_epi32(s##I##2, x, v2);                                                 \
    s##I##3 = _mm512_dpbusd_epi32(s##I##3, x, v3);                                                 \
  } while (0)
#define AP_DIRECT(W) _mm512_loadu_si512((const void *)((W) + d))
#define AP_TAIL(W) _mm512_maskz_loadu_epi8(tail, (W) + d)
    int32_t d = 0;
    for (; d < kfull; d += 64)
      AP_STEP(AP_DIRECT);
    if (d < kp) AP_STEP(AP_TAIL);
#undef AP_STEP
#undef AP_ROW
#undef AP_DIRECT
#undef AP_TAIL
    __m128i h[4] = {hsum4z(s00, s01, s02, s03), hsum4z(s10, s11, s12, s13),
                    hsum4z(s20, s21, s22, s23), hsum4z(s30, s31, s32, s33)};
    int32_t cols = n - c < 4 ? n - c : 4;
    for (int32_t i = 0; i < rows; i++) {
      int32_t t[4];
      _mm_storeu_si128((__m128i *)t, h[i]);
      memcpy(acc + (size_t)i * n + c, t, (size_t)cols * 4);
    }
  }
  for (int32_t i = 0; i < rows; i++)
    requant_row(acc + (size_t)i * n, g->col_bias, n, g->mult, g->shift, g->out_off, g->act_min,
                g->act_max, out + (size_t)i * out_stride);
}

/* The outer-product kit with vpdpwssd: the AVX2 kit's packing and rows, each int16 pair
 * product summed into its lane in one instruction (not saturating: exact modulo 2^32). */
static inline void outer_store_x(const ap_qgemm *g, __m256i acc, int32_t c, int8_t *out) {
  int32_t cols = g->n - c < 8 ? g->n - c : 8;
  if (cols <= 0) return;
  if (cols == 8) {
    acc = _mm256_add_epi32(acc, _mm256_loadu_si256((const __m256i *)(g->col_bias + c)));
    store8(out + c, requant8(acc, g->mult + c, g->shift + c, _mm256_set1_epi32(g->out_off),
                             _mm256_set1_epi32(g->act_min), _mm256_set1_epi32(g->act_max)));
    return;
  }
  int32_t t[8];
  _mm256_storeu_si256((__m256i *)t, acc);
  for (int32_t i = 0; i < cols; i++)
    out[c + i] =
        ap_fast_requant((int32_t)((uint32_t)t[i] + (uint32_t)g->col_bias[c + i]), g->mult[c + i],
                        g->shift[c + i], g->out_off, g->act_min, g->act_max);
}

static void outer_gemm_vnni(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc_ws,
                            int8_t *out, size_t out_stride) {
  (void)acc_ws;
  int32_t k2 = (g->k + 1) / 2, blocks = (g->n + 15) / 16;
  size_t kp = ap_fast_avx2_arow_bytes(g->k) / 2;
  const int16_t *r[4];
  for (int i = 0; i < 4; i++)
    r[i] = (const int16_t *)a + (size_t)(i < rows ? i : 0) * kp;
  const int16_t *packed = g->packed;
  for (int32_t bl = 0; bl < blocks; bl++) {
    const int16_t *b = packed + (size_t)bl * k2 * 32;
    __m256i s00 = _mm256_setzero_si256(), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00,
            s30 = s00, s31 = s00;
    for (int32_t j = 0; j < k2; j++) {
      __m256i b0 = _mm256_loadu_si256((const __m256i *)(b + (size_t)j * 32));
      __m256i b1 = _mm256_loadu_si256((const __m256i *)(b + (size_t)j * 32 + 16));
      int32_t p0, p1, p2, p3;
      memcpy(&p0, r[0] + 2 * j, 4);
      memcpy(&p1, r[1] + 2 * j, 4);
      memcpy(&p2, r[2] + 2 * j, 4);
      memcpy(&p3, r[3] + 2 * j, 4);
      __m256i x0 = _mm256_set1_epi32(p0), x1 = _mm256_set1_epi32(p1), x2 = _mm256_set1_epi32(p2),
              x3 = _mm256_set1_epi32(p3);
      s00 = _mm256_dpwssd_epi32(s00, x0, b0);
      s01 = _mm256_dpwssd_epi32(s01, x0, b1);
      s10 = _mm256_dpwssd_epi32(s10, x1, b0);
      s11 = _mm256_dpwssd_epi32(s11, x1, b1);
      s20 = _mm256_dpwssd_epi32(s20, x2, b0);
      s21 = _mm256_dpwssd_epi32(s21, x2, b1);
      s30 = _mm256_dpwssd_epi32(s30, x3, b0);
      s31 = _mm256_dpwssd_epi32(s31, x3, b1);
    }
    int32_t c = bl * 16;
    __m256i s[4][2] = {{s00, s01}, {s10, s11}, {s20, s21}, {s30, s31}};
    for (int32_t i = 0; i < rows; i++) {
      outer_store_x(g, s[i][0], c, out + (size_t)i * out_stride);
      outer_store_x(g, s[i][1], c + 8, out + (size_t)i * out_stride);
    }
  }
}

static const ap_gemm_kit outer = {4,
                                  ap_fast_avx2_outer_bytes,
                                  ap_fast_avx2_outer_pack,
                                  ap_fast_avx2_arow_bytes,
                                  ap_fast_avx2_arow,
                                  outer_gemm_vnni,
                                  NULL};

const ap_fast_level ap_fast_avx512 = {
    .name = "avx512",
    .level = AP_SIMD_AVX512,
    .gemm = {.mr = 4,
             .packed_bytes = packed_bytes,
             .pack = pack,
             .arow_bytes = arow_bytes,
             .arow = arow,
             .gemm = gemm},
    .outer = &outer,
    .outer_min_m = 128,
    .outer_max_bytes = 1u << 20,
    .dw = ap_fast_avx512_dwrows, /* stream6 */
    .fc = ap_fast_avx512_fc,
    .add = ap_fast_avx512_add,
    .fadd = ap_fast_avx2_fadd,
    /* -- int8speed -- */
    .conv = &ap_fast_avx512_conv,
    .dwin = &ap_fast_avx512_dw,
    /* -- float -- */
    .fbin = ap_fast_avx2_fbin,
    .fpool = ap_fast_avx2_fpool,
    .fdw = ap_fast_avx2_fdw,
    .ffc = ap_fast_avx2_ffc,
    .fconv_pack = ap_fast_avx2_fconv_pack,
    .fconv = ap_fast_avx512_fconv,
    .fconv_lanes = 16,
    /* -- fastops -- */
    .ops = &ap_fastops_avx2,
    /* -- stream3 -- */
};
#else
typedef int ap_fast_avx512_unused; /* x86-64 only */
#endif
