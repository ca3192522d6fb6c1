/* The AVX-512 level's convolution product with weights read in place, pixels in lanes
 * (kops_stream6.h). The level's gemm kit keeps 4 pixels x 4 channels of 64-byte sums and folds
 * each to one int32 (about half its work); here a vector holds one output channel's sums for
 * 16 pixels, so nothing is folded: per input quad, one load of the 16 pixels' quads (transposed
 * from the patches in registers, no gathers) and 16 vpdpbusd, each with one channel's weight
 * quad broadcast from the weights in place. The sums wrap modulo 2^32 as the reference's (any
 * order is exact); the requantization is requant_avx512.h's, per channel. The tile of 16
 * transposed patches is on the stack (at most 16 KiB: x86-64 hosts only, no microcontroller
 * links this file). */
#if defined(__x86_64__) || defined(_M_X64)
#include "kernels/fast/requant_avx512.h"
#include "kernels/kops_stream6.h"

#include <string.h>

/* 16 rows of 16 dwords transposed in registers: r[j] lane i = the old r[i] lane j. */
static inline __attribute__((always_inline)) void tr16(__m512i r[16]) {
  __m512i t[16];
#pragma GCC unroll 16
  for (int i = 0; i < 8; i++) {
    t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
/* r[4i + m], 128-bit lane L: element 4L + m of rows 4i..4i+3 */
#pragma GCC unroll 16
  for (int i = 0; i < 4; i++) {
    r[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    r[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    r[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    r[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
#pragma GCC unroll 16
  for (int m = 0; m < 4; m++) {
    __m512i u0 = _mm512_shuffle_i32x4(r[m], r[4 + m], 0x88);
    __m512i u1 = _mm512_shuffle_i32x4(r[m], r[4 + m], 0xdd);
    __m512i v0 = _mm512_shuffle_i32x4(r[8 + m], r[12 + m], 0x88);
    __m512i v1 = _mm512_shuffle_i32x4(r[8 + m], r[12 + m], 0xdd);
    t[m] = _mm512_shuffle_i32x4(u0, v0, 0x88);
    t[8 + m] = _mm512_shuffle_i32x4(u0, v0, 0xdd);
    t[4 + m] = _mm512_shuffle_i32x4(u1, v1, 0x88);
    t[12 + m] = _mm512_shuffle_i32x4(u1, v1, 0xdd);
  }
#pragma GCC unroll 16
  for (int i = 0; i < 16; i++)
    r[i] = t[i];
}

/* A weight quad, read unaligned where it lies (a may_alias type: GCC then folds the broadcast
 * into vpdpbusd's {1to16} memory operand). */
typedef int32_t ap_i32u __attribute__((aligned(1), may_alias));
#define AP_W(P) _mm512_set1_epi32(*(const ap_i32u *)(const void *)(P))

/* The last quad of a row of k bytes (k % 4 of them; the patches' bytes past k are zero). */
static inline int32_t w_tail(const int8_t *p, int32_t bytes) {
  int32_t v = 0;
  memcpy(&v, p, (size_t)bytes);
  return v;
}

#define AP_ACC16(X)                                                                                \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#define AP_DECL(I) VEC a##I = VZERO;
#define AP_SAVE(I) acc[I] = VSAVE(a##I);
#define AP_DOT(I) a##I = VDOT(a##I, x, VSET1(*(const ap_i32u *)(const void *)(ROW(I))));
#define AP_DOT_TAIL(I) a##I = VDOT(a##I, x, VSET1(w_tail(ROW(I), rest)));

/* 16 channels' sums over the tile of QC pixels (quad q at tile + (q % QC) * kp + (q / QC) *
 * QC * 4), channel I's weight quad at ROW(I), a macro of the caller over p0 and p8 (channels 0
 * and 8, moved by a quad per step); VEC, VZERO, VDOT, VSET1, VLOAD, VSAVE: the vector width's
 * (VSAVE widens to the 512-bit acc, zeros above). */
#define AP_BLOCK_BODY(QC)                                                                          \
  AP_ACC16(AP_DECL)                                                                                \
  int32_t kfull = k / 4;                                                                           \
  for (int32_t q0 = 0; q0 < kfull; q0 += (QC)) {                                                   \
    const uint8_t *xp = tile + (size_t)q0 * 4;                                                     \
    int32_t qe = kfull - q0 < (QC) ? kfull - q0 : (QC);                                            \
    for (int32_t j = 0; j < qe; j++, xp += kp, p0 += 4, p8 += 4) {                                 \
      VEC x = VLOAD((const void *)xp);                                                             \
      AP_ACC16(AP_DOT)                                                                             \
    }                                                                                              \
  }                                                                                                \
  if (k % 4) { /* the last quad: read no weight byte past k */                                     \
    int32_t rest = k % 4;                                                                          \
    VEC x = VLOAD(                                                                                 \
        (const void *)(tile + (size_t)(kfull % (QC)) * kp + (size_t)(kfull / (QC)) * (QC)*4));     \
    AP_ACC16(AP_DOT_TAIL)                                                                          \
  }                                                                                                \
  AP_ACC16(AP_SAVE)

/* Channels w + I * k, I < 16: 16 rows addressed from two pointers and the odd multiples of k. */
#define AP_ROW_STRIDED(I)                                                                          \
  ((I) == 0    ? p0                                                                                \
   : (I) == 1  ? p0 + k1                                                                           \
   : (I) == 2  ? p0 + 2 * k1                                                                       \
   : (I) == 3  ? p0 + k3                                                                           \
   : (I) == 4  ? p0 + 4 * k1                                                                       \
   : (I) == 5  ? p0 + k5                                                                           \
   : (I) == 6  ? p0 + 2 * k3                                                                       \
   : (I) == 7  ? p0 + k7                                                                           \
   : (I) == 8  ? p8                                                                                \
   : (I) == 9  ? p8 + k1                                                                           \
   : (I) == 10 ? p8 + 2 * k1                                                                       \
   : (I) == 11 ? p8 + k3                                                                           \
   : (I) == 12 ? p8 + 4 * k1                                                                       \
   : (I) == 13 ? p8 + k5                                                                           \
   : (I) == 14 ? p8 + 2 * k3                                                                       \
               : p8 + k7)
/* Fewer than 16 channels in all: row I is channel min(I, n - 1). */
#define AP_ROW_CLAMPED(I) ((I) < 8 ? p0 + off[I] : p8 + off[I])

#define AP_STRIDED_FN(NAME, QC)                                                                    \
  __attribute__((noinline)) static void NAME(const uint8_t *tile, size_t kp, const int8_t *w,      \
                                             int32_t k, __m512i *acc) {                            \
    const ptrdiff_t k1 = k, k3 = 3 * k1, k5 = 5 * k1, k7 = 7 * k1;                                 \
    const int8_t *p0 = w, *p8 = w + 8 * k1;                                                        \
    AP_BLOCK_BODY(QC)                                                                              \
  }
#define AP_CLAMPED_FN(NAME, QC)                                                                    \
  __attribute__((noinline)) static void NAME(const uint8_t *tile, size_t kp, const int8_t *w,      \
                                             int32_t k, int32_t n, __m512i *acc) {                 \
    ptrdiff_t off[16];                                                                             \
    for (int32_t i = 0; i < 16; i++)                                                               \
      off[i] = (ptrdiff_t)(i < n ? i : n - 1) * k;                                                 \
    const int8_t *p0 = w, *p8 = w;                                                                 \
    AP_BLOCK_BODY(QC)                                                                              \
  }

/* 16 pixels in 512-bit vectors. */
#define VEC __m512i
#define VZERO _mm512_setzero_si512()
#define VDOT _mm512_dpbusd_epi32
#define VSET1 _mm512_set1_epi32
#define VLOAD _mm512_load_si512
#define VSAVE(A) (A)
#define ROW AP_ROW_STRIDED
AP_STRIDED_FN(block16, 16)
#undef ROW
#define ROW AP_ROW_CLAMPED
AP_CLAMPED_FN(block16_rows, 16)
#undef ROW
#undef VEC
#undef VZERO
#undef VDOT
#undef VSET1
#undef VLOAD
#undef VSAVE

/* At most 8 pixels in 256-bit vectors: half the work of 512-bit ones for a short row (a
 * segment's 5-pixel rows, a run's last pixels). */
#define VEC __m256i
#define VZERO _mm256_setzero_si256()
#define VDOT _mm256_dpbusd_epi32
#define VSET1 _mm256_set1_epi32
#define VLOAD _mm256_load_si256
#define VSAVE(A) _mm512_zextsi256_si512(A)
#define ROW AP_ROW_STRIDED
AP_STRIDED_FN(block8, 8)
#undef ROW
#define ROW AP_ROW_CLAMPED
AP_CLAMPED_FN(block8_rows, 8)
#undef ROW
#undef VEC
#undef VZERO
#undef VDOT
#undef VSET1
#undef VLOAD
#undef VSAVE

/* 8 rows of 8 dwords transposed in registers. */
static inline __attribute__((always_inline)) void tr8(__m256i r[8]) {
  __m256i t[8];
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++) {
    t[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  /* r[4i + m], 128-bit lane L: element 4L + m of rows 4i..4i+3 */
#pragma GCC unroll 2
  for (int i = 0; i < 2; i++) {
    r[4 * i] = _mm256_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
    r[4 * i + 1] = _mm256_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
    r[4 * i + 2] = _mm256_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
    r[4 * i + 3] = _mm256_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
  }
#pragma GCC unroll 4
  for (int m = 0; m < 4; m++) {
    t[m] = _mm256_permute2x128_si256(r[m], r[4 + m], 0x20);
    t[4 + m] = _mm256_permute2x128_si256(r[m], r[4 + m], 0x31);
  }
#pragma GCC unroll 8
  for (int i = 0; i < 8; i++)
    r[i] = t[i];
}

/* Channel c0 + I's sums (acc[I], 16 pixels) transposed to pixels (the sums wrap, so the bias
 * may come after), requantized with channels in lanes and stored: pixel i's channels
 * [c0, c0 + nc) at out + i * stride + c0. */
static void store_block(const ap_qgemm *g, __m512i acc[16], int32_t c0, int32_t nc, int32_t count,
                        int8_t *out, size_t stride) {
  __mmask16 m = (__mmask16)((1u << nc) - 1);
  rq16 r;
  rq_set(&r, _mm512_maskz_loadu_epi32(m, g->col_bias + c0),
         _mm512_maskz_loadu_epi32(m, g->mult + c0), _mm512_maskz_loadu_epi32(m, g->shift + c0));
  const __m512i off = _mm512_set1_epi32(g->out_off), lo = _mm512_set1_epi32(g->act_min),
                hi = _mm512_set1_epi32(g->act_max);
  if (count <= 8) { /* 8 pixels in the low halves: two 8 x 8 transposes, half the shuffles */
    __m256i a[8], b[8];
#pragma GCC unroll 8
    for (int32_t i = 0; i < 8; i++) {
      a[i] = _mm512_castsi512_si256(acc[i]);
      b[i] = _mm512_castsi512_si256(acc[8 + i]);
    }
    tr8(a);
    tr8(b);
#pragma GCC unroll 8
    for (int32_t i = 0; i < count; i++)
      _mm_mask_storeu_epi8(
          out + (size_t)i * stride + c0, m,
          requant16(_mm512_inserti64x4(_mm512_castsi256_si512(a[i]), b[i], 1), &r, off, lo, hi));
    return;
  }
  tr16(acc);
#pragma GCC unroll 16
  for (int32_t i = 0; i < count; i++)
    _mm_mask_storeu_epi8(out + (size_t)i * stride + c0, m, requant16(acc[i], &r, off, lo, hi));
}

/* The 8 or 16 patches (src, + 128, zeros past k) transposed into the tile, QC quads of the QC
 * pixels per column of QC * 4 bytes: quad q at tile + (q % QC) * kp + (q / QC) * QC * 4. A
 * patch built in the tile is read whole before its column is overwritten. */
static void tile16(const int8_t *const src[16], int32_t k, size_t kp, uint8_t *tile) {
  const __m512i flip = _mm512_set1_epi8((char)0x80);
  for (int32_t b = 0; b * 64 < k; b++) {
    int32_t len = k - b * 64 < 64 ? k - b * 64 : 64;
    __mmask64 m = len == 64 ? ~(__mmask64)0 : ((__mmask64)1 << len) - 1;
    __m512i r[16];
#pragma GCC unroll 16
    for (int32_t i = 0; i < 16; i++)
      r[i] = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, src[i] + b * 64),
                              _mm512_maskz_mov_epi8(m, flip));
    tr16(r);
#pragma GCC unroll 16
    for (int32_t j = 0; j < 16; j++)
      _mm512_store_si512((void *)(tile + (size_t)j * kp + (size_t)b * 64), r[j]);
  }
}

static void tile8(const int8_t *const src[16], int32_t k, size_t kp, uint8_t *tile) {
  const __m256i flip = _mm256_set1_epi8((char)0x80);
  for (int32_t b = 0; b * 32 < k; b++) {
    int32_t len = k - b * 32 < 32 ? k - b * 32 : 32;
    __mmask32 m = len == 32 ? ~(__mmask32)0 : ((__mmask32)1 << len) - 1;
    __m256i r[8];
#pragma GCC unroll 8
    for (int32_t i = 0; i < 8; i++)
      r[i] = _mm256_xor_si256(_mm256_maskz_loadu_epi8(m, src[i] + b * 32),
                              _mm256_maskz_mov_epi8(m, flip));
    tr8(r);
#pragma GCC unroll 8
    for (int32_t j = 0; j < 8; j++)
      _mm256_store_si256((__m256i *)(tile + (size_t)j * kp + (size_t)b * 32), r[j]);
  }
}

/* The product over the tile of count patches, src[i] (in the tile or elsewhere). */
static void conv_tile(const ap_qgemm *g, const int8_t *const src[16], int32_t count, uint8_t *tile,
                      size_t kp, int8_t *out, size_t out_stride) {
  int32_t k = g->k, n = g->n;
  bool narrow = count <= 8;
  if (narrow)
    tile8(src, k, kp, tile);
  else
    tile16(src, k, kp, tile);
  __m512i acc[16];
  if (n >= 16) {
    /* The last block overlaps the one before when n % 16: its channels are written twice,
     * with the same bytes. */
    for (int32_t c0 = 0; c0 < n; c0 += 16) {
      int32_t c = c0 + 16 <= n ? c0 : n - 16;
      const int8_t *w = g->w + (size_t)c * (size_t)k;
      if (narrow)
        block8(tile, kp, w, k, acc);
      else
        block16(tile, kp, w, k, acc);
      store_block(g, acc, c, 16, count, out, out_stride);
    }
    return;
  }
  if (narrow)
    block8_rows(tile, kp, g->w, k, n, acc);
  else
    block16_rows(tile, kp, g->w, k, n, acc);
  store_block(g, acc, 0, n, count, out, out_stride);
}

void ap_fast_avx512_conv16(const ap_qgemm *g, ap_fast_patch_fn patch, void *ctx, int32_t count,
                           int8_t *out, size_t out_stride) {
  int32_t k = g->k, n = g->n;
  if (count <= 0 || count > 16 || k <= 0 || k > AP_FAST_CONV16_MAX_K || n <= 0) return;
  size_t kp = ((size_t)k + 63) / 64 * 64;
  _Alignas(64) uint8_t tile[16 * AP_FAST_CONV16_MAX_K];
  const int8_t *src[16];
  for (int32_t i = 0; i < 16; i++)
    src[i] = i < count ? patch(ctx, i, (int8_t *)tile + (size_t)i * kp) : src[0];
  conv_tile(g, src, count, tile, kp, out, out_stride);
}

/* Bits [a, e) of a 64-bit mask, the range clamped to [0, 64). */
static inline __mmask64 bits(int64_t a, int64_t e) {
  a = a < 0 ? 0 : a;
  if (e <= a) return 0;
  __mmask64 hi = e >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << e) - 1;
  __mmask64 lo = a >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << a) - 1;
  return hi & ~lo;
}

void ap_fast_avx512_conv16_rows(const ap_qgemm *g, const ap_fast_conv16_rows *r, int32_t count,
                                int8_t *out, size_t out_stride) {
  int32_t k = g->k, n = g->n;
  if (count <= 0 || count > 16 || k <= 0 || k > AP_FAST_CONV16_MAX_K || n <= 0 || r->f_h <= 0 ||
      r->f_h > AP_FAST_CONV16_MAX_FH || r->f_w <= 0 || r->c <= 0 ||
      (int64_t)r->f_h * r->f_w * r->c != k)
    return;
  size_t kp = ((size_t)k + 63) / 64 * 64;
  _Alignas(64) uint8_t tile[16 * AP_FAST_CONV16_MAX_K];
  const int8_t *src[16];
  const __m512i pad = _mm512_set1_epi8(r->pad);
  int64_t run = (int64_t)r->f_w * r->c, width = (int64_t)r->in_w * r->c;
  int64_t step = (int64_t)r->stride * r->c, off0 = (int64_t)r->x0 * r->c;
  for (int32_t i = 0; i < count; i++)
    src[i] = (const int8_t *)(tile + (size_t)i * kp);
  for (int32_t i = count; i < 16; i++)
    src[i] = src[0];
  /* Pixel i's tap row fy: the run bytes from off0 + i * step of row fy, of which those in
   * [0, width) are the input's. A pixel with every tap inside copies with the chunk's fixed
   * mask; one at a border loads under a mask of its bytes inside (masked-off bytes are neither
   * read nor faulted on, so its run may start left of the row or end past it). */
  for (int32_t fy = 0; fy < r->f_h; fy++) {
    uintptr_t row = (uintptr_t)r->row[fy];
    for (int64_t b = 0; b < run; b += 64) {
      int64_t len = run - b < 64 ? run - b : 64;
      __mmask64 all = bits(0, len);
      uint8_t *d = tile + (size_t)fy * (size_t)run + (size_t)b;
      if (!row) {
        for (int32_t i = 0; i < count; i++, d += kp)
          _mm512_mask_storeu_epi8(d, all, pad);
        continue;
      }
      int64_t off = off0 + b;
      for (int32_t i = 0; i < count; i++, d += kp, off += step) {
        const void *at = (const void *)(row + (uintptr_t)off);
        __m512i v = off >= 0 && off + len <= width
                        ? _mm512_maskz_loadu_epi8(all, at)
                        : _mm512_mask_loadu_epi8(pad, bits(-off, width - off) & all, at);
        _mm512_mask_storeu_epi8(d, all, v);
      }
    }
  }
  conv_tile(g, src, count, tile, kp, out, out_stride);
}
#else
typedef int ap_fast_inplace_avx512_unused; /* x86-64 only */
#endif
