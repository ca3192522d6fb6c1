/* The NEON dot-product level (AArch64 with FEAT_DotProd, the armv8.2-a SDOT instruction;
 * compiled with -march=armv8.2-a+dotprod, chosen only when the auxiliary vector says the CPU
 * has it). SDOT sums four int8 x int8 products into each int32 lane, so rows of a hold the raw
 * input bytes and the input offset's share, in_off * sum(w), is added per output channel:
 * sum((x + in_off) * w) = sum(x * w) + in_off * sum(w), both modulo 2^32 as the reference's
 * sum reduced to 32 bits. Depthwise, ADD and the float kernels are the NEON level's. */
#if defined(__aarch64__)
#include "kernels/fast/int8_neon.h"

#include <string.h>

static size_t packed_bytes(int32_t n, int32_t k) {
  (void)n, (void)k;
  return 0; /* weights are read in place, rows of k */
}

/* col_bias: bias + in_off * (sum of the channel's k weights). */
static void pack(const int8_t *w, int32_t n, int32_t k, const int32_t *bias, int32_t in_off,
                 void *packed, int32_t *col_bias) {
  (void)packed;
  for (int32_t c = 0; c < n; c++) {
    const int8_t *row = w + (size_t)c * k;
    int32x4_t s = vdupq_n_s32(0);
    int32_t i = 0;
    for (; i + 16 <= k; i += 16)
      s = vpadalq_s16(s, vpaddlq_s8(vld1q_s8(row + i)));
    uint32_t sum = (uint32_t)vaddvq_s32(s);
    for (; i < k; i++)
      sum += (uint32_t)row[i];
    col_bias[c] = (int32_t)((bias ? (uint32_t)bias[c] : 0u) + (uint32_t)in_off * sum);
  }
}

static size_t arow_bytes(int32_t k) {
  return ((size_t)k + 15) / 16 * 16;
}

/* The raw bytes, zeros past k (a zero times the next row's weights adds nothing). */
static void arow(const int8_t *src, int32_t k, int32_t in_off, void *dst) {
  (void)in_off;
  int8_t *a = dst;
  memcpy(a, src, (size_t)k);
  memset(a + k, 0, arow_bytes(k) - (size_t)k);
}

/* 16 weights of row w from d, zero past k; in place when 16 bytes fit before `end`. */
static inline int8x16_t wload(const int8_t *w, int32_t d, int32_t k, const int8_t *end) {
  if (d + 16 <= k || w + d + 16 <= end) return vld1q_s8(w + d);
  int8_t t[16] = {0};
  memcpy(t, w + d, (size_t)(k - d));
  return vld1q_s8(t);
}

/* Up to 4 rows of a against every channel, 2 channels at a time. */
static void gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc, int8_t *out,
                 size_t out_stride) {
  int32_t n = g->n, k = g->k, kp = (k + 15) / 16 * 16;
  const int8_t *r[4];
  for (int i = 0; i < 4; i++)
    r[i] = (const int8_t *)a + (size_t)(i < rows ? i : 0) * (size_t)kp;
  const int8_t *end = g->w + (size_t)n * (size_t)k;
  for (int32_t c = 0; c < n; c += 2) {
    const int8_t *w0 = g->w + (size_t)c * k, *w1 = c + 1 < n ? w0 + k : w0;
    int32x4_t s00 = vdupq_n_s32(0), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00,
              s30 = s00, s31 = s00;
    for (int32_t d = 0; d < kp; d += 16) {
      int8x16_t v0 = wload(w0, d, k, end), v1 = wload(w1, d, k, end);
      int8x16_t x0 = vld1q_s8(r[0] + d), x1 = vld1q_s8(r[1] + d), x2 = vld1q_s8(r[2] + d),
                x3 = vld1q_s8(r[3] + d);
      s00 = vdotq_s32(s00, x0, v0);
      s01 = vdotq_s32(s01, x0, v1);
      s10 = vdotq_s32(s10, x1, v0);
      s11 = vdotq_s32(s11, x1, v1);
      s20 = vdotq_s32(s20, x2, v0);
      s21 = vdotq_s32(s21, x2, v1);
      s30 = vdotq_s32(s30, x3, v0);
      s31 = vdotq_s32(s31, x3, v1);
    }
    int32x4_t s[4][2] = {{s00, s01}, {s10, s11}, {s20, s21}, {s30, s31}};
    for (int32_t i = 0; i < rows; i++) {
      acc[(size_t)i * n + c] = vaddvq_s32(s[i][0]);
      if (c + 1 < n) acc[(size_t)i * n + c + 1] = vaddvq_s32(s[i][1]);
    }
  }
  for (int32_t i = 0; i < rows; i++)
    ap_neon_requant_row(acc + (size_t)i * n, g->col_bias, n, g->mult, g->shift, g->out_off,
                        g->act_min, g->act_max, out + (size_t)i * out_stride);
}

/* Fully connected: 4 units at a time over depth in steps of 16 with SDOT on the raw bytes; the
 * same loop sums each unit's weights (SDOT against ones) for the input offset's share; the
 * depth tail in scalar code. */
static void fc(const ap_qfc *f, int32_t u0, int32_t u1) {
  enum { CHUNK = 64 };
  int32_t k = f->depth, kfull = k / 16 * 16, m1[CHUNK], s1[CHUNK], sums[CHUNK];
  for (int i = 0; i < CHUNK; i++)
    m1[i] = f->mult1, s1[i] = f->shift1;
  const int8x16_t ones = vdupq_n_s8(1);
  for (int32_t b = 0; b < f->batches; b++) {
    const int8_t *x = f->x + (size_t)b * k;
    uint32_t corr = f->filter_off ? (uint32_t)f->filter_off * ap_fast_row_sum(x, k, f->in_off) : 0;
    int8_t *out = f->out + (size_t)b * f->units;
    for (int32_t c0 = u0; c0 < u1; c0 += CHUNK) {
      int32_t c1 = u1 - c0 < CHUNK ? u1 : c0 + CHUNK;
      for (int32_t u = c0; u < c1; u += 4) {
        int32_t nu = c1 - u < 4 ? c1 - u : 4;
        const int8_t *w[4];
        for (int i = 0; i < 4; i++)
          w[i] = f->w + (size_t)(u + (i < nu ? i : 0)) * k;
        int32x4_t s[4], sw[4];
        for (int i = 0; i < 4; i++)
          s[i] = sw[i] = vdupq_n_s32(0);
        for (int32_t d = 0; d < kfull; d += 16) {
          int8x16_t xv = vld1q_s8(x + d);
          for (int i = 0; i < 4; i++) {
            int8x16_t wv = vld1q_s8(w[i] + d);
            s[i] = vdotq_s32(s[i], xv, wv);
            sw[i] = vdotq_s32(sw[i], ones, wv);
          }
        }
        for (int i = 0; i < nu; i++) {
          uint32_t acc =
              (uint32_t)vaddvq_s32(s[i]) + corr + (uint32_t)f->in_off * (uint32_t)vaddvq_s32(sw[i]);
          for (int32_t d = kfull; d < k; d++)
            acc += (uint32_t)((x[d] + f->in_off) * w[i][d]);
          if (f->bias) acc += (uint32_t)f->bias[u + i];
          sums[u - c0 + i] = (int32_t)acc;
        }
      }
      ap_neon_requant_row(sums, NULL, c1 - c0, f->qmult ? f->qmult + c0 : m1,
                          f->qshift ? f->qshift + c0 : s1, f->out_off, f->act_min, f->act_max,
                          out + c0);
    }
  }
}

/* The outer-product kit with SDOT by element: weights packed in blocks of 16 channels,
 * [block][k / 4][16 channels][4], k padded to 16 with zeros (and channels past n); one 16-byte
 * load of a row holds four groups of 4 k, and SDOT with a lane index multiplies one group with
 * 4 channels' 4 weights. The input offset's share is in the column bias, as above. */
static size_t outer_bytes(int32_t n, int32_t k) {
  return ((size_t)n + 15) / 16 * 16 * arow_bytes(k);
}

static void outer_pack(const int8_t *w, int32_t n, int32_t k, const int32_t *bias, int32_t in_off,
                       void *packed, int32_t *col_bias) {
  int8_t *p = packed;
  size_t kp = arow_bytes(k);
  int32_t blocks = (n + 15) / 16;
  memset(p, 0, (size_t)blocks * 16 * kp); /* padding of k and of the last block */
  for (int32_t c = 0; c < n; c++) {
    const int8_t *row = w + (size_t)c * k;
    int8_t *dst = p + (size_t)(c / 16) * 16 * kp + (size_t)(c % 16) * 4;
    for (int32_t j = 0; j < k; j++)
      dst[(size_t)(j / 4) * 64 + j % 4] = row[j];
  }
  pack(w, n, k, bias, in_off, NULL, col_bias);
}

/* One group of 4 k (lane L of the rows' 16-byte loads) against the block's 16 channels. */
#define AP_DOT_GROUP(L)                                                                            \
  do {                                                                                             \
    const int8_t *wg = b + (size_t)(d / 4 + (L)) * 64;                                             \
    int8x16_t w0 = vld1q_s8(wg), w1 = vld1q_s8(wg + 16), w2 = vld1q_s8(wg + 32),                   \
              w3 = vld1q_s8(wg + 48);                                                              \
    for (int i = 0; i < 4; i++) {                                                                  \
      s[i][0] = vdotq_laneq_s32(s[i][0], w0, x[i], L);                                             \
      s[i][1] = vdotq_laneq_s32(s[i][1], w1, x[i], L);                                             \
      s[i][2] = vdotq_laneq_s32(s[i][2], w2, x[i], L);                                             \
      s[i][3] = vdotq_laneq_s32(s[i][3], w3, x[i], L);                                             \
    }                                                                                              \
  } while (0)

static void outer_gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc_ws, int8_t *out,
                       size_t out_stride) {
  (void)acc_ws;
  int32_t blocks = (g->n + 15) / 16;
  size_t kp = arow_bytes(g->k);
  const int8_t *r[4];
  for (int i = 0; i < 4; i++)
    r[i] = (const int8_t *)a + (size_t)(i < rows ? i : 0) * kp;
  const int8_t *packed = g->packed;
  for (int32_t bl = 0; bl < blocks; bl++) {
    const int8_t *b = packed + (size_t)bl * 16 * kp;
    int32x4_t s[4][4];
    for (int i = 0; i < 4; i++)
      for (int q = 0; q < 4; q++)
        s[i][q] = vdupq_n_s32(0);
    for (size_t d = 0; d < kp; d += 16) {
      int8x16_t x[4] = {vld1q_s8(r[0] + d), vld1q_s8(r[1] + d), vld1q_s8(r[2] + d),
                        vld1q_s8(r[3] + d)};
      AP_DOT_GROUP(0);
      AP_DOT_GROUP(1);
      AP_DOT_GROUP(2);
      AP_DOT_GROUP(3);
    }
    int32_t c = bl * 16;
    for (int32_t i = 0; i < rows; i++) {
      ap_neon_outer_store(g, s[i][0], s[i][1], c, out + (size_t)i * out_stride);
      ap_neon_outer_store(g, s[i][2], s[i][3], c + 8, out + (size_t)i * out_stride);
    }
  }
}
#undef AP_DOT_GROUP

static const ap_gemm_kit outer = {4, outer_bytes, outer_pack, arow_bytes, arow, outer_gemm, NULL};

const ap_fast_level ap_fast_neondot = {
    .name = "neondot",
    .level = AP_SIMD_NEONDOT,
    .gemm = {.mr = 4,
             .packed_bytes = packed_bytes,
             .pack = pack,
             .arow_bytes = arow_bytes,
             .arow = arow,
             .gemm = gemm},
    .outer = &outer,
    .outer_min_m = 128,
    .outer_max_bytes = 1u << 20,
    .dw = ap_fast_neon_dw,
    .fc = fc,
    .add = ap_fast_neon_add,
    .fconv = ap_fast_neon_fconv,
    .fadd = ap_fast_neon_fadd,
    /* -- int8speed -- */
    /* -- float -- */
    .fpool = ap_fast_generic_fpool, /* the generic level's C (the reference's order) */
    .fdw = ap_fast_generic_fdw,
    .ffc = ap_fast_generic_ffc,
    /* -- fastops -- */
    .ops = &ap_fastops_generic,
    /* -- stream3 -- */
};
#else
typedef int ap_fast_neondot_unused; /* AArch64 only */
#endif
