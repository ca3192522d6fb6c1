/* The Helium level (mve_gemm.c, mve_dw.c, mve_fc.c) for cores with the M-profile Vector
 * Extension (Cortex-M55, M85): the DSP level's table with its int8 matrix product, depthwise and
 * fully connected rows on MVE vectors, the same scratch sizes (a plan made on the host for the
 * portable level holds it), the same results byte for byte. Helium has no C forms here: its
 * kernels exist only in an MVE build and are tested on the board (scripts/test_mcu_kernels.sh
 * runs tests/kernels/test_fast_dsp.c in QEMU's mps3-an547); elsewhere ap_fast_mve() is the DSP
 * level. */
#ifndef AP_KERNELS_FAST_MVE_H
#define AP_KERNELS_FAST_MVE_H

#include "kernels/fast/dsp.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define AP_MVE_NATIVE 1
#include <arm_mve.h>
#else
#define AP_MVE_NATIVE 0
#endif

/* The Helium level where the core has it, else the DSP level (ap_fast_dsp()). */
const ap_fast_level *ap_fast_mve(void);

#if AP_MVE_NATIVE
extern const ap_fast_level ap_fast_mve_level;

void ap_fast_mve_pack(const int8_t *w, int32_t n, int32_t k, const int32_t *bias, int32_t in_off,
                      void *packed, int32_t *col_bias);
void ap_fast_mve_gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc_ws, int8_t *out,
                      size_t out_stride);
void ap_fast_mve_rows2(const ap_qgemm *g, const int8_t *a0, const int8_t *a1, int8_t *out,
                       size_t out_stride);
void ap_fast_mve_rowsn(const ap_qgemm *g, const int8_t *a, int32_t nrows, int32_t *acc_ws,
                       int8_t *out, size_t out_stride);
void ap_fast_mve_rows4(const ap_qgemm *g, const int8_t *a, int8_t *out, size_t stride);
void ap_fast_mve_dw(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws);
void ap_fast_mve_fc(const ap_qfc *f, int32_t u0, int32_t u1);
/* int8 AVERAGE_POOL_2D and MAX_POOL_2D on one thread (mve_pool.c); false: not this op (any
 * other type), *s set otherwise. */
bool ap_fast_mve_pool_eval(const ap_kexec *x, const ap_pool_params *p, const ap_ktensor *in,
                           ap_ktensor *out, ap_status *s);

/* The reference's MultiplyByQuantizedMultiplier (ap_kq_mul) on four lanes, each with its own
 * multiplier m and shift s, both shifts clamped to [0, 31] as ap_fast_mul clamps them (the
 * reference's RoundingDivideByPOT is defined for exponents in [0, 31]):
 *  - the left shift max(s, 0): VSHL wraps modulo 2^32, as the reference's x * 2^left does;
 *  - VQRDMULH is SaturatingRoundingDoublingHighMul exactly, for every x and m: both are
 *    floor((x m + 2^30) / 2^31) (fast.h's ap_fast_mul proves the reference's nudge, 1 - 2^30
 *    for negative products with a truncating division, is that floor) saturated at the one
 *    overflow, x = m = INT32_MIN, to INT32_MAX;
 *  - RoundingDivideByPOT(h, e), e = max(-s, 0), rounds ties away from zero:
 *    floor((h + 2^(e-1) - [h < 0]) / 2^e) for e >= 1 (dsp_acle.h). VRSHL by -e rounds ties up,
 *    floor((h + 2^(e-1)) / 2^e), its sum formed without overflow; the two agree only on
 *    h >= 0 or at e = 0. So h - [h < 0] first when e >= 1: the sign bit of h AND -e (zero
 *    when e = 0), shifted to -1 or 0, added with VQADD. At h = INT32_MIN the saturating add
 *    leaves h, and floor((-2^31 + 2^(e-1)) / 2^e) = -2^(31-e) is the reference's too.
 * Without that fix-up VRSHL differs from the reference on every negative tie (h = -(2j+1)
 * 2^(e-1)): the hand-worked ties of test_fast_dsp.c show it. */
/* The requantization in two halves: the shifts of s (left in [0, 31], negr = -e in [-31, 0]),
 * made once for a block of channels, then each vector of sums those channels reach. */
static inline void ap_mve_shifts(int32x4_t s, int32x4_t *left, int32x4_t *negr) {
  int32x4_t zero = vdupq_n_s32(0);
  *left = vminq_s32(vmaxq_s32(s, zero), vdupq_n_s32(31));
  *negr = vmaxq_s32(vminq_s32(s, zero), vdupq_n_s32(-31));
}

static inline int32x4_t ap_mve_requant_by(int32x4_t x, int32x4_t m, int32x4_t left,
                                          int32x4_t negr) {
  int32x4_t h = vqrdmulhq_s32(vshlq_s32(x, left), m);
  h = vqaddq_s32(h, vshrq_n_s32(vandq_s32(h, negr), 31));
  return vrshlq_s32(h, negr);
}

static inline int32x4_t ap_mve_requant(int32x4_t x, int32x4_t m, int32x4_t s) {
  int32x4_t left, negr;
  ap_mve_shifts(s, &left, &negr);
  return ap_mve_requant_by(x, m, left, negr);
}

/* v + off clamped to [lo, hi]: the int8 outputs in 32-bit lanes. */
static inline int32x4_t ap_mve_clamp(int32x4_t v, int32_t off, int32_t lo, int32_t hi) {
  v = vaddq_n_s32(v, off);
  return vminq_s32(vmaxq_s32(v, vdupq_n_s32(lo)), vdupq_n_s32(hi));
}
#endif

#endif
