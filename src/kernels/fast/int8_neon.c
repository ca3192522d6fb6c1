/* The NEON level (AArch64 only; Advanced SIMD is part of every AArch64 core). Products are
 * int16 x int16 widened into int32 lanes (SMLAL: exact for these ranges), sums wrap as the
 * reference's; requantization is MultiplyByQuantizedMultiplier on 4 lanes (int8_neon.h). */
#if defined(__aarch64__)
#include "kernels/fast/int8_neon.h"
#include "kernels/fast/dw_taps.h"

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
  const int16x8_t off = vdupq_n_s16((int16_t)in_off);
  int32_t i = 0;
  for (; i + 8 <= k; i += 8)
    vst1q_s16(a + i, vaddq_s16(vmovl_s8(vld1_s8(src + i)), off));
  for (; i < k; i++)
    a[i] = (int16_t)(src[i] + in_off);
  for (; i % 8; i++)
    a[i] = 0;
}

/* 8 weights of row w from d as int16, zero past k; in place when 8 bytes fit before `end` (the
 * bytes past k are the next row's, multiplied by the row of a's zeros). */
static inline int16x8_t wload(const int8_t *w, int32_t d, int32_t k, const int8_t *end) {
  if (d + 8 <= k || w + d + 8 <= end) return vmovl_s8(vld1_s8(w + d));
  int8_t t[8] = {0};
  memcpy(t, w + d, (size_t)(k - d));
  return vmovl_s8(vld1_s8(t));
}

static inline int32x4_t mla8(int32x4_t s, int16x8_t x, int16x8_t w) {
  return vmlal_high_s16(vmlal_s16(s, vget_low_s16(x), vget_low_s16(w)), x, w);
}

/* Up to 4 rows of a against every channel, 2 channels at a time; acc holds the raw sums. */
static void gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc, int8_t *out,
                 size_t out_stride) {
  int32_t n = g->n, k = g->k, kp = (k + 7) / 8 * 8;
  const int16_t *r[4];
  for (int i = 0; i < 4; i++)
    r[i] = (const int16_t *)a + (size_t)(i < rows ? i : 0) * (size_t)kp;
  const int8_t *end = g->w + (size_t)n * (size_t)k;
  for (int32_t c = 0; c < n; c += 2) {
    const int8_t *w0 = g->w + (size_t)c * k, *w1 = c + 1 < n ? w0 + k : w0;
    int32x4_t s00 = vdupq_n_s32(0), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00,
              s30 = s00, s31 = s00;
    for (int32_t d = 0; d < kp; d += 8) {
      int16x8_t v0 = wload(w0, d, k, end), v1 = wload(w1, d, k, end);
      int16x8_t x0 = vld1q_s16(r[0] + d), x1 = vld1q_s16(r[1] + d), x2 = vld1q_s16(r[2] + d),
                x3 = vld1q_s16(r[3] + d);
      s00 = mla8(s00, x0, v0);
      s01 = mla8(s01, x0, v1);
      s10 = mla8(s10, x1, v0);
      s11 = mla8(s11, x1, v1);
      s20 = mla8(s20, x2, v0);
      s21 = mla8(s21, x2, v1);
      s30 = mla8(s30, x3, v0);
      s31 = mla8(s31, x3, v1);
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

extern const ap_fast_level ap_fast_generic;

/* Depthwise with a depth multiplier above 1: each tap's input is first spread to the output
 * channels (channel c reads input channel c / multiplier, taps outside the input the zero
 * point, whose offset input is 0), then 8 output channels at a time as below. */
static void dw_multiplier(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1) {
  int32_t C = d->out_d, taps = d->f_h * d->f_w, D = d->in_d, blocks = C / 8;
  _Alignas(16) int8_t ex[32768];
  const int32x4_t voff = vdupq_n_s32(d->out_off), vlo = vdupq_n_s32(d->act_min),
                  vhi = vdupq_n_s32(d->act_max);
  const int16x8_t vin = vdupq_n_s16((int16_t)d->in_off);
  int8_t zp = (int8_t)-d->in_off;
  for (int32_t oy = oy0; oy < oy1; oy++)
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int32_t y0 = oy * d->stride_h - d->pad_h, x0 = ox * d->stride_w - d->pad_w;
      int8_t *o = d->out + (((size_t)b * d->out_h + oy) * d->out_w + ox) * C;
      for (int32_t fy = 0, t = 0; fy < d->f_h; fy++) {
        int32_t iy = y0 + d->dil_h * fy;
        for (int32_t fx = 0; fx < d->f_w; fx++, t++) {
          int32_t ix = x0 + d->dil_w * fx;
          int8_t *e = ex + (size_t)t * C;
          if (iy < 0 || iy >= d->in_h || ix < 0 || ix >= d->in_w) {
            memset(e, zp, (size_t)C);
            continue;
          }
          const int8_t *src = d->in + (((size_t)b * d->in_h + iy) * d->in_w + ix) * D;
          for (int32_t ic = 0, c = 0; ic < D; ic++)
            for (int32_t m = 0; m < d->mult; m++)
              e[c++] = src[ic];
        }
      }
      for (int32_t k = 0; k < blocks; k++) {
        size_t c = (size_t)k * 8;
        int32x4_t lo = vdupq_n_s32(0), hi = lo;
        for (int32_t t = 0; t < taps; t++) {
          int16x8_t x = vaddq_s16(vmovl_s8(vld1_s8(ex + (size_t)t * C + c)), vin);
          int16x8_t wv = vmovl_s8(vld1_s8(d->f + (size_t)t * C + c));
          lo = vmlal_s16(lo, vget_low_s16(x), vget_low_s16(wv));
          hi = vmlal_high_s16(hi, x, wv);
        }
        if (d->bias) {
          lo = vaddq_s32(lo, vld1q_s32(d->bias + c));
          hi = vaddq_s32(hi, vld1q_s32(d->bias + c + 4));
        }
        vst1_s8(o + c, ap_neon_requant8(lo, hi, d->qmult + c, d->qshift + c, voff, vlo, vhi));
      }
      for (int32_t c = blocks * 8; c < C; c++) {
        uint32_t acc = 0;
        for (int32_t t = 0; t < taps; t++)
          acc += (uint32_t)(d->f[(size_t)t * C + c] * (ex[(size_t)t * C + c] + d->in_off));
        if (d->bias) acc += (uint32_t)d->bias[c];
        o[c] = ap_fast_requant((int32_t)acc, d->qmult[c], d->qshift[c], d->out_off, d->act_min,
                               d->act_max);
      }
    }
}

/* Depthwise, multiplier 1, 8 channels at a time: each tap's input bytes widened and offset
 * (int16) times the tap's weights (widened once per call into ws: [tap][block][8] int16) into
 * two int32x4 sums. A tap outside the input reads a row of zero points, whose offset input is
 * 0, so it adds nothing, as the reference's skipped tap. More than 64 taps at multiplier 1
 * (above 1: more than 32768 tap-channels) run the generic level's loop. */
void ap_fast_neon_dw(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws) {
  int32_t C = d->out_d, taps = d->f_h * d->f_w;
  if (d->mult != 1 ? (size_t)taps * (size_t)C > 32768 : taps > 64) {
    ap_fast_generic.dw(d, b, oy0, oy1, ws);
    return;
  }
  if (d->mult != 1) {
    dw_multiplier(d, b, oy0, oy1);
    return;
  }
  int32_t pairs = (taps + 1) / 2, blocks = C / 8;
  /* ap_fast_dw_ws: pairs * blocks * 32 bytes of weights (>= taps * blocks * 16), then C + 16
   * bytes for the zero-point row. */
  int16_t *wp = ws;
  int8_t *zp = (int8_t *)ws + (size_t)pairs * blocks * 32;
  memset(zp, -d->in_off, (size_t)C);
  for (int32_t t = 0; t < taps; t++)
    for (int32_t k = 0; k < blocks; k++)
      vst1q_s16(wp + ((size_t)t * blocks + k) * 8, vmovl_s8(vld1_s8(d->f + (size_t)t * C + k * 8)));
  const int32x4_t voff = vdupq_n_s32(d->out_off), vlo = vdupq_n_s32(d->act_min),
                  vhi = vdupq_n_s32(d->act_max);
  const int16x8_t vin = vdupq_n_s16((int16_t)d->in_off);
  ptrdiff_t inner[64];
  ap_fast_dw_inner(d, C, inner);
  const int8_t *px[64];
  const int8_t *in_b = d->in + (size_t)b * d->in_h * d->in_w * C;
  for (int32_t oy = oy0; oy < oy1; oy++)
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int8_t *o = d->out + (((size_t)b * d->out_h + oy) * d->out_w + ox) * C;
      ap_fast_dw_taps(d, in_b, C, inner, zp, oy, ox, px);
      for (int32_t k = 0; k < blocks; k++) {
        size_t c = (size_t)k * 8;
        int32x4_t lo = vdupq_n_s32(0), hi = lo;
        const int16_t *w = wp + c;
        for (int32_t t = 0; t < taps; t++, w += (size_t)blocks * 8) {
          int16x8_t x = vaddq_s16(vmovl_s8(vld1_s8(px[t] + c)), vin), wv = vld1q_s16(w);
          lo = vmlal_s16(lo, vget_low_s16(x), vget_low_s16(wv));
          hi = vmlal_high_s16(hi, x, wv);
        }
        if (d->bias) {
          lo = vaddq_s32(lo, vld1q_s32(d->bias + c));
          hi = vaddq_s32(hi, vld1q_s32(d->bias + c + 4));
        }
        vst1_s8(o + c, ap_neon_requant8(lo, hi, d->qmult + c, d->qshift + c, voff, vlo, vhi));
      }
      for (int32_t c = blocks * 8; c < C; c++) {
        uint32_t acc = 0;
        for (int32_t t = 0; t < taps; t++)
          acc += (uint32_t)(d->f[(size_t)t * C + c] * (px[t][c] + d->in_off));
        if (d->bias) acc += (uint32_t)d->bias[c];
        o[c] = ap_fast_requant((int32_t)acc, d->qmult[c], d->qshift[c], d->out_off, d->act_min,
                               d->act_max);
      }
    }
}

/* Fully connected: 4 units at a time over depth in steps of 8, the tail in scalar code; sums
 * are requantized 64 units at a time. */
static void fc(const ap_qfc *f, int32_t u0, int32_t u1) {
  enum { CHUNK = 64 };
  int32_t k = f->depth, kfull = k / 8 * 8, m1[CHUNK], s1[CHUNK], sums[CHUNK];
  for (int i = 0; i < CHUNK; i++)
    m1[i] = f->mult1, s1[i] = f->shift1;
  const int16x8_t io = vdupq_n_s16((int16_t)f->in_off);
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
        int32x4_t s[4] = {vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0), vdupq_n_s32(0)};
        for (int32_t d = 0; d < kfull; d += 8) {
          int16x8_t xv = vaddq_s16(vmovl_s8(vld1_s8(x + d)), io);
          for (int i = 0; i < 4; i++)
            s[i] = mla8(s[i], xv, vmovl_s8(vld1_s8(w[i] + d)));
        }
        for (int i = 0; i < nu; i++) {
          uint32_t acc = (uint32_t)vaddvq_s32(s[i]) + corr;
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

/* One input's 8 lanes: (x + offset) << left_shift, then its multiplier. */
static inline void add_in(int16x8_t x, int32x4_t off, int32x4_t ls, int32x4_t m, int32x4_t sh,
                          int32x4_t *lo, int32x4_t *hi) {
  *lo = ap_neon_mulq_lt1(vshlq_s32(vaddq_s32(vmovl_s16(vget_low_s16(x)), off), ls), m, sh);
  *hi = ap_neon_mulq_lt1(vshlq_s32(vaddq_s32(vmovl_high_s16(x), off), ls), m, sh);
}

/* quant_add_sub of the reference on 8 lanes: offset, left shift, each input's multiplier, sum
 * or difference, the output's multiplier, offset and clamp. */
void ap_fast_neon_add(const ap_binary_params *p, const void *a, const void *b, void *out, size_t n,
                      bool is_unsigned) {
  const int32x4_t o1 = vdupq_n_s32(p->input1_offset), o2 = vdupq_n_s32(p->input2_offset),
                  m1 = vdupq_n_s32(p->input1_multiplier), s1 = vdupq_n_s32(p->input1_shift),
                  m2 = vdupq_n_s32(p->input2_multiplier), s2 = vdupq_n_s32(p->input2_shift),
                  mo = vdupq_n_s32(p->output_multiplier), so = vdupq_n_s32(p->output_shift),
                  off = vdupq_n_s32(p->output_offset), lo = vdupq_n_s32(p->act_min),
                  hi = vdupq_n_s32(p->act_max), ls = vdupq_n_s32(p->left_shift);
  const uint8_t *x = a, *y = b;
  uint8_t *o = out;
  bool sub = p->op == AP_KBIN_SUB;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint8x8_t xb = vld1_u8(x + i), yb = vld1_u8(y + i);
    int16x8_t xv =
        is_unsigned ? vreinterpretq_s16_u16(vmovl_u8(xb)) : vmovl_s8(vreinterpret_s8_u8(xb));
    int16x8_t yv =
        is_unsigned ? vreinterpretq_s16_u16(vmovl_u8(yb)) : vmovl_s8(vreinterpret_s8_u8(yb));
    int32x4_t x0, x1, y0, y1;
    add_in(xv, o1, ls, m1, s1, &x0, &x1);
    add_in(yv, o2, ls, m2, s2, &y0, &y1);
    int32x4_t r0 = sub ? vsubq_s32(x0, y0) : vaddq_s32(x0, y0);
    int32x4_t r1 = sub ? vsubq_s32(x1, y1) : vaddq_s32(x1, y1);
    r0 = vminq_s32(vmaxq_s32(vaddq_s32(ap_neon_mulq_lt1(r0, mo, so), off), lo), hi);
    r1 = vminq_s32(vmaxq_s32(vaddq_s32(ap_neon_mulq_lt1(r1, mo, so), off), lo), hi);
    int16x8_t r = vcombine_s16(vqmovn_s32(r0), vqmovn_s32(r1));
    vst1_u8(o + i, is_unsigned ? vqmovun_s16(r) : vreinterpret_u8_s8(vqmovn_s16(r)));
  }
  for (; i < n; i++) {
    int32_t xv = is_unsigned ? x[i] : (int8_t)x[i], yv = is_unsigned ? y[i] : (int8_t)y[i];
    int32_t xs = (int32_t)((uint32_t)(p->input1_offset + xv) << p->left_shift);
    int32_t ys = (int32_t)((uint32_t)(p->input2_offset + yv) << p->left_shift);
    int32_t xr = ap_kq_mul_lt1(xs, p->input1_multiplier, p->input1_shift);
    int32_t yr = ap_kq_mul_lt1(ys, p->input2_multiplier, p->input2_shift);
    int32_t raw = sub ? xr - yr : xr + yr;
    int32_t r = ap_kq_mul_lt1(raw, p->output_multiplier, p->output_shift) + p->output_offset;
    o[i] = (uint8_t)ap_kq_clamp(r, p->act_min, p->act_max);
  }
}

/* The outer-product kit: output channels in lanes, no horizontal sums. Weights packed as int16
 * in blocks of 16 channels, [block][k][16], zeros past n; each step multiplies one a[k] of a
 * row (SMLAL by scalar) with the 16 channels' weights of k. */
static size_t outer_bytes(int32_t n, int32_t k) {
  return ((size_t)n + 15) / 16 * 16 * (size_t)k * 2;
}

static void outer_pack(const int8_t *w, int32_t n, int32_t k, const int32_t *bias, int32_t in_off,
                       void *packed, int32_t *col_bias) {
  (void)in_off;
  int16_t *p = packed;
  int32_t blocks = (n + 15) / 16;
  if (n % 16) /* the last block's channels past n hold zeros */
    memset(p + (size_t)(blocks - 1) * k * 16, 0, (size_t)k * 16 * 2);
  for (int32_t c = 0; c < n; c++) {
    const int8_t *row = w + (size_t)c * k;
    int16_t *dst = p + (size_t)(c / 16) * k * 16 + c % 16;
    for (int32_t j = 0; j < k; j++)
      dst[(size_t)j * 16] = row[j];
    col_bias[c] = bias ? bias[c] : 0;
  }
}

static void outer_gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc_ws, int8_t *out,
                       size_t out_stride) {
  (void)acc_ws;
  int32_t k = g->k, blocks = (g->n + 15) / 16;
  size_t kp = arow_bytes(k) / 2;
  const int16_t *r[4];
  for (int i = 0; i < 4; i++)
    r[i] = (const int16_t *)a + (size_t)(i < rows ? i : 0) * kp;
  const int16_t *packed = g->packed;
  for (int32_t bl = 0; bl < blocks; bl++) {
    const int16_t *b = packed + (size_t)bl * k * 16;
    int32x4_t s[4][4];
    for (int i = 0; i < 4; i++)
      for (int q = 0; q < 4; q++)
        s[i][q] = vdupq_n_s32(0);
    for (int32_t j = 0; j < k; j++) {
      int16x8_t w0 = vld1q_s16(b + (size_t)j * 16), w1 = vld1q_s16(b + (size_t)j * 16 + 8);
      for (int i = 0; i < 4; i++) {
        int16_t x = r[i][j];
        s[i][0] = vmlal_n_s16(s[i][0], vget_low_s16(w0), x);
        s[i][1] = vmlal_high_n_s16(s[i][1], w0, x);
        s[i][2] = vmlal_n_s16(s[i][2], vget_low_s16(w1), x);
        s[i][3] = vmlal_high_n_s16(s[i][3], w1, x);
      }
    }
    int32_t c = bl * 16;
    for (int32_t i = 0; i < rows; i++) {
      ap_neon_outer_store(g, s[i][0], s[i][1], c, out + (size_t)i * out_stride);
      ap_neon_outer_store(g, s[i][2], s[i][3], c + 8, out + (size_t)i * out_stride);
    }
  }
}

static const ap_gemm_kit outer = {4, outer_bytes, outer_pack, arow_bytes, arow, outer_gemm, NULL};

const ap_fast_level ap_fast_neon = {
    .name = "neon",
    .level = AP_SIMD_NEON,
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
typedef int ap_fast_neon_unused; /* AArch64 only */
#endif
