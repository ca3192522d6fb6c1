/* The requantization and stores the AArch64 levels share (included by int8_neon.c and
 * int8_neondot.c; every function is static inline, compiled with the including file's flags).
 *
 * MultiplyByQuantizedMultiplier on 4 lanes, bit for bit with ap_kq_mul:
 * - SQRDMULH is the reference's SaturatingRoundingDoublingHighMul exactly: both are
 *   floor((x * m + 2^30) / 2^31) (the reference's nudge 1 - 2^30 for negative products with a
 *   truncating division is the same floor), saturating only INT32_MIN * INT32_MIN.
 * - SRSHL by -e rounds ties up (toward +inf); the reference's RoundingDivideByPOT rounds them
 *   away from zero. Subtracting 1 from negative values first (saturating, so INT32_MIN stays,
 *   which rounds to the same -2^(31-e)) turns one into the other; e = 0 adds nothing.
 * Shifts are clamped to [0, 31] each way as the scalar code clamps them. */
#ifndef AP_KERNELS_FAST_INT8_NEON_H
#define AP_KERNELS_FAST_INT8_NEON_H

#include "kernels/fast/fast.h"

#include <arm_neon.h>

/* RoundingDivideByPOT(x, e) per lane, ties away from zero; neg_e = -e, e in [0, 31]. */
static inline int32x4_t ap_neon_rdbpot(int32x4_t x, int32x4_t neg_e) {
  /* neg_e < 0 has its sign bit set: the fixup is -1 for negative x and e > 0, else 0. */
  int32x4_t fix = vshrq_n_s32(vandq_s32(x, neg_e), 31);
  return vrshlq_s32(vqaddq_s32(x, fix), neg_e);
}

/* ap_kq_mul on 4 lanes. */
static inline int32x4_t ap_neon_mulq(int32x4_t x, int32x4_t m, int32x4_t shift) {
  const int32x4_t zero = vdupq_n_s32(0), max_shift = vdupq_n_s32(31);
  int32x4_t left = vminq_s32(vmaxq_s32(shift, zero), max_shift);
  int32x4_t neg_right = vmaxq_s32(vminq_s32(shift, zero), vnegq_s32(max_shift));
  return ap_neon_rdbpot(vqrdmulhq_s32(vshlq_s32(x, left), m), neg_right);
}

/* ap_kq_mul_lt1 on 4 lanes: no left shift, right shift -shift clamped to [0, 31]. */
static inline int32x4_t ap_neon_mulq_lt1(int32x4_t x, int32x4_t m, int32x4_t shift) {
  int32x4_t neg_right = vmaxq_s32(vminq_s32(shift, vdupq_n_s32(0)), vdupq_n_s32(-31));
  return ap_neon_rdbpot(vqrdmulhq_s32(x, m), neg_right);
}

/* requant of 8 lanes (lo: channels 0-3, hi: 4-7) to 8 int8: multiplier, offset, clamp. */
static inline int8x8_t ap_neon_requant8(int32x4_t lo, int32x4_t hi, const int32_t *mult,
                                        const int32_t *shift, int32x4_t off, int32x4_t amin,
                                        int32x4_t amax) {
  lo = vaddq_s32(ap_neon_mulq(lo, vld1q_s32(mult), vld1q_s32(shift)), off);
  hi = vaddq_s32(ap_neon_mulq(hi, vld1q_s32(mult + 4), vld1q_s32(shift + 4)), off);
  lo = vminq_s32(vmaxq_s32(lo, amin), amax);
  hi = vminq_s32(vmaxq_s32(hi, amin), amax);
  return vqmovn_s16(vcombine_s16(vqmovn_s32(lo), vqmovn_s32(hi)));
}

/* out[c] for c in [0, n): requant(acc[c] + add[c]) (add may be NULL). */
static inline void ap_neon_requant_row(const int32_t *acc, const int32_t *add, int32_t n,
                                       const int32_t *mult, const int32_t *shift, int32_t out_off,
                                       int32_t lo, int32_t hi, int8_t *out) {
  const int32x4_t off = vdupq_n_s32(out_off), amin = vdupq_n_s32(lo), amax = vdupq_n_s32(hi);
  int32_t c = 0;
  for (; c + 8 <= n; c += 8) {
    int32x4_t a0 = vld1q_s32(acc + c), a1 = vld1q_s32(acc + c + 4);
    if (add) a0 = vaddq_s32(a0, vld1q_s32(add + c)), a1 = vaddq_s32(a1, vld1q_s32(add + c + 4));
    vst1_s8(out + c, ap_neon_requant8(a0, a1, mult + c, shift + c, off, amin, amax));
  }
  for (; c < n; c++) {
    int32_t v = (int32_t)((uint32_t)acc[c] + (uint32_t)(add ? add[c] : 0));
    out[c] = ap_fast_requant(v, mult[c], shift[c], out_off, lo, hi);
  }
}

/* An outer-product kit's channels [c, c + 8) of one row (lo, hi): column bias,
 * requantization, the channels that exist. */
static inline void ap_neon_outer_store(const ap_qgemm *g, int32x4_t lo, int32x4_t hi, int32_t c,
                                       int8_t *out) {
  int32_t cols = g->n - c < 8 ? g->n - c : 8;
  if (cols <= 0) return;
  if (cols == 8) {
    lo = vaddq_s32(lo, vld1q_s32(g->col_bias + c));
    hi = vaddq_s32(hi, vld1q_s32(g->col_bias + c + 4));
    vst1_s8(out + c, ap_neon_requant8(lo, hi, g->mult + c, g->shift + c, vdupq_n_s32(g->out_off),
                                      vdupq_n_s32(g->act_min), vdupq_n_s32(g->act_max)));
    return;
  }
  int32_t t[8];
  vst1q_s32(t, lo);
  vst1q_s32(t + 4, hi);
  for (int32_t i = 0; i < cols; i++)
    out[c + i] =
        ap_fast_requant((int32_t)((uint32_t)t[i] + (uint32_t)g->col_bias[c + i]), g->mult[c + i],
                        g->shift[c + i], g->out_off, g->act_min, g->act_max);
}

#endif
