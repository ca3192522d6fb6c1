/* The DSP extension's instructions the DSP level uses (Armv7E-M / Armv8-M: Cortex-M4, M7, M33,
 * M55), as ACLE intrinsics on a core that has them and as portable C elsewhere: the same kernel
 * source then runs in the host's tests (tests/kernels/test_fast_dsp.c) and on the board. The C
 * forms follow the Arm ARM's pseudocode; sums wrap modulo 2^32 as the instructions do (SMLAD's
 * Q flag is never read). */
#ifndef AP_KERNELS_FAST_DSP_ACLE_H
#define AP_KERNELS_FAST_DSP_ACLE_H

#include "kernels/fast/fast.h"

#include <stdint.h>
#include <string.h>

#if defined(__ARM_FEATURE_SIMD32) && __ARM_FEATURE_SIMD32
#include <arm_acle.h>
#define AP_DSP_NATIVE 1
#else
#define AP_DSP_NATIVE 0
#endif

static inline uint32_t ap_dsp_load32(const void *p) {
  uint32_t v;
  memcpy(&v, p, 4); /* an unaligned LDR on these cores */
  return v;
}

static inline uint32_t ap_dsp_ror8(uint32_t v) {
  return v >> 8 | v << 24;
}

#if AP_DSP_NATIVE
/* Bytes 0 and 2 sign-extended to the two halfwords. */
static inline uint32_t ap_sxtb16(uint32_t v) {
  return (uint32_t)__sxtb16((int32_t)v);
}
/* Bytes 1 and 3: SXTB16 with ROR #8, one instruction (the compiler does not fold the rotation
 * into the intrinsic's operand by itself). */
static inline uint32_t ap_sxtb16_ror8(uint32_t v) {
  uint32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
  return r;
}
/* a + sxtb16(v), lane by lane modulo 2^16 (SXTAB16: widen and add the offset in one). */
static inline uint32_t ap_sxtab16(uint32_t a, uint32_t v) {
  return (uint32_t)__sxtab16((int32_t)a, (int32_t)v);
}
/* a + sxtb16_ror8(v) (SXTAB16 with ROR #8). */
static inline uint32_t ap_sxtab16_ror8(uint32_t a, uint32_t v) {
  uint32_t r;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(v));
  return r;
}
/* acc + lo(a) lo(b) + hi(a) hi(b), halfwords signed. */
static inline uint32_t ap_smlad(uint32_t a, uint32_t b, uint32_t acc) {
  return (uint32_t)__smlad((int32_t)a, (int32_t)b, (int32_t)acc);
}
static inline uint32_t ap_smlabb(uint32_t a, uint32_t b, uint32_t acc) {
  return (uint32_t)__smlabb((int32_t)a, (int32_t)b, (int32_t)acc);
}
static inline uint32_t ap_smlatt(uint32_t a, uint32_t b, uint32_t acc) {
  return (uint32_t)__smlatt((int32_t)a, (int32_t)b, (int32_t)acc);
}
static inline uint32_t ap_smlabt(uint32_t a, uint32_t b, uint32_t acc) {
  return (uint32_t)__smlabt((int32_t)a, (int32_t)b, (int32_t)acc);
}
/* Both halfwords added, each modulo 2^16. */
static inline uint32_t ap_sadd16(uint32_t a, uint32_t b) {
  return (uint32_t)__sadd16((int32_t)a, (int32_t)b);
}
#else
static inline int32_t ap_dsp_lo(uint32_t v) {
  return (int16_t)(uint16_t)(v & 0xffffu);
}
static inline int32_t ap_dsp_hi(uint32_t v) {
  return (int16_t)(uint16_t)(v >> 16);
}
static inline uint32_t ap_dsp_pack(int32_t lo, int32_t hi) {
  return ((uint32_t)lo & 0xffffu) | ((uint32_t)hi & 0xffffu) << 16;
}
static inline uint32_t ap_sxtb16(uint32_t v) {
  return ap_dsp_pack((int8_t)(uint8_t)(v & 0xffu), (int8_t)(uint8_t)(v >> 16 & 0xffu));
}
static inline uint32_t ap_sxtb16_ror8(uint32_t v) {
  return ap_sxtb16(ap_dsp_ror8(v));
}
static inline uint32_t ap_sxtab16(uint32_t a, uint32_t v) {
  uint32_t x = ap_sxtb16(v);
  return ap_dsp_pack(ap_dsp_lo(a) + ap_dsp_lo(x), ap_dsp_hi(a) + ap_dsp_hi(x));
}
static inline uint32_t ap_sxtab16_ror8(uint32_t a, uint32_t v) {
  return ap_sxtab16(a, ap_dsp_ror8(v));
}
static inline uint32_t ap_smlad(uint32_t a, uint32_t b, uint32_t acc) {
  return acc + (uint32_t)(ap_dsp_lo(a) * ap_dsp_lo(b)) + (uint32_t)(ap_dsp_hi(a) * ap_dsp_hi(b));
}
static inline uint32_t ap_smlabb(uint32_t a, uint32_t b, uint32_t acc) {
  return acc + (uint32_t)(ap_dsp_lo(a) * ap_dsp_lo(b));
}
static inline uint32_t ap_smlatt(uint32_t a, uint32_t b, uint32_t acc) {
  return acc + (uint32_t)(ap_dsp_hi(a) * ap_dsp_hi(b));
}
static inline uint32_t ap_smlabt(uint32_t a, uint32_t b, uint32_t acc) {
  return acc + (uint32_t)(ap_dsp_lo(a) * ap_dsp_hi(b));
}
static inline uint32_t ap_sadd16(uint32_t a, uint32_t b) {
  return ap_dsp_pack(ap_dsp_lo(a) + ap_dsp_lo(b), ap_dsp_hi(a) + ap_dsp_hi(b));
}
#endif

/* v clamped to [0, 31] (USAT #5). */
static inline uint32_t ap_dsp_usat5(int32_t v) {
#if AP_DSP_NATIVE
  return (uint32_t)__usat(v, 5);
#else
  return v < 0 ? 0u : v > 31 ? 31u : (uint32_t)v;
#endif
}

/* The reference's requantization of a sum (ap_kq_mul, the output offset, the clamp) as
 * ap_fast_mul computes it (kernels/fast/fast.h proves the two equal), written for these
 * cores: USAT clamps both shifts, SMLAL forms ab + 2^30, and no branch is taken. */
static inline int8_t ap_dsp_requant(uint32_t acc, int32_t mult, int32_t shift, int32_t off,
                                    int32_t lo, int32_t hi) {
  uint32_t left = ap_dsp_usat5(shift), right = ap_dsp_usat5((int32_t)(0u - (uint32_t)shift));
  int64_t p = (int64_t)(int32_t)(acc << left) * mult + (1 << 30);
  uint32_t h = (uint32_t)(p >> 31);
  h -= h == 0x80000000u;
  uint32_t mask = (1u << right) - 1u;
  int32_t v = ((int32_t)h >> right) + ((h & mask) > (mask >> 1) + (h >> 31)) + off;
  v = v < lo ? lo : v;
  return (int8_t)(v > hi ? hi : v);
}

/* The same requantization with what depends on the channel computed once (ap_dsp_rqc_of) and a
 * few instructions a sum (ap_dsp_rqc_apply). For e >= 1 and m >= 0, with x the shifted sum:
 *  - SaturatingRoundingDoublingHighMul(x, m) is h = floor(P0 / 2^31), P0 = x m + 2^30
 *    (fast.h's ap_fast_mul proves it; m >= 0 is never INT32_MIN: no saturation);
 *  - RoundingDivideByPOT(h, e) is floor((h + 2^(e-1) - [h < 0]) / 2^e): with h = q 2^e + r,
 *    0 <= r < 2^e, the reference adds [r > 2^(e-1) - 1 + [h < 0]] to q, and so does the floor,
 *    r + 2^(e-1) - [h < 0] lying in [0, 2^(e+1));
 *  - floor((floor(P0 / 2^31) + c) / 2^e) = floor((P0 + c 2^31) / 2^(31+e)) for an integer c, and
 *    [h < 0] = [P0 < 0]: the result is (x m + K - [P0 < 0] 2^31) >> (31 + e), K = 2^30 + 2^(30+e);
 *  - [P0 < 0] may be [x < 0]: they differ only when x < 0 <= P0, i.e. P0 in [0, 2^30], where
 *    h = 0 and the result 0, and the form gives floor((P0 + 2^(30+e) - 2^31) / 2^(31+e)) = 0
 *    (the numerator lies in [0, 2^(31+e)));
 *  - 31 + e >= 32: the result is the high word of that sum shifted right by e - 1.
 * No term overflows (|x m| <= 2^62, K <= 2^30 + 2^61). So: SUBS/SBC of x's sign bit from K,
 * SMLAL, ASR. e = 0 and negative multipliers (no valid scale makes one) take ap_fast_mul. */
typedef struct ap_dsp_rqc {
  int32_t m;
  uint32_t left, klo;
  int32_t khi;
  uint32_t e1; /* e - 1; UINT32_MAX: ap_fast_mul */
} ap_dsp_rqc;

static inline ap_dsp_rqc ap_dsp_rqc_of(int32_t mult, int32_t shift) {
  ap_dsp_rqc q;
  uint32_t e = ap_dsp_usat5((int32_t)(0u - (uint32_t)shift));
  uint64_t k = ((uint64_t)1 << 30) + (e ? (uint64_t)1 << (30 + e) : 0u);
  q.m = mult;
  q.left = ap_dsp_usat5(shift);
  q.klo = (uint32_t)k;
  q.khi = (int32_t)(k >> 32);
  q.e1 = mult >= 0 && e ? e - 1 : UINT32_MAX;
  return q;
}

/* ap_kq_mul(acc, m, shift) for the channel q was made from. */
static inline int32_t ap_dsp_rqc_apply(const ap_dsp_rqc *q, uint32_t acc, int32_t shift) {
  if (q->e1 == UINT32_MAX) return ap_fast_mul((int32_t)acc, q->m, shift);
  int32_t x = (int32_t)(acc << q->left);
  int64_t k = (int64_t)(((uint64_t)(uint32_t)q->khi << 32) | q->klo);
  int64_t p = k - (int64_t)((uint32_t)x & 0x80000000u) + (int64_t)x * q->m;
  return (int32_t)(p >> 32) >> q->e1;
}

/* A channel's requantization prepared once a layer into one word b (ap_dsp_rqb_of), for the
 * shifts e = -shift in [2, 24] with m >= 0, where the sum is not shifted left (shift <= 0).
 * From ap_dsp_rqc's form, the result is floor((x m + K - [x < 0] 2^31) / 2^(31+e)),
 * K = 2^30 + 2^(30+e). Write P = x m + L, L = 2^30 - [x < 0] 2^31 (+-2^30: its high word is x's
 * sign, its low word 2^30 with bit 31 from x), P = H 2^32 + l, 0 <= l < 2^32, and
 * R = 2^(e-2) (e >= 2: 2^(30+e) = R 2^32). Then the result is
 * floor((H + R + l / 2^32) / 2^(e-1)) = floor((H + R) / 2^(e-1)), H + R an integer and
 * l / 2^32 in [0, 1). |H| <= 2^30 and R <= 2^22: no term overflows, and b (R << 8) stays
 * positive as an int32. So: AND, EOR and ASR set up
 * L, SMLAL, one ADD of R and one ASR. b holds e - 1 in its low byte (the ASR by a register
 * reads that byte only) and R above it; b > 255 tells a prepared word from a shift (|shift| <=
 * 31), which keeps the general form. */
static inline uint32_t ap_dsp_rqb_of(int32_t mult, int32_t shift) {
  if (mult < 0 || shift > -2 || shift < -24) return (uint32_t)shift;
  uint32_t e1 = (uint32_t)-shift - 1u;
  return e1 | (1u << (e1 - 1u)) << 8;
}

static inline bool ap_dsp_rqb_fast(uint32_t b) {
  return (int32_t)b > 255;
}

/* ap_kq_mul(acc, m, shift) for the b that ap_dsp_rqb_of(m, shift) made when ap_dsp_rqb_fast. */
static inline int32_t ap_dsp_rqb_apply(uint32_t acc, int32_t m, uint32_t b) {
#if AP_DSP_NATIVE
  uint32_t lo, hi;
  __asm__("and %0, %2, #0x80000000\n\t"
          "eor %0, %0, #0x40000000\n\t"
          "asr %1, %2, #31\n\t"
          "smlal %0, %1, %2, %3\n\t"
          "add %1, %1, %4, lsr #8\n\t"
          "asr %1, %1, %4"
          : "=&r"(lo), "=&r"(hi)
          : "r"(acc), "r"(m), "r"(b));
  return (int32_t)hi;
#else
  int32_t x = (int32_t)acc;
  int64_t p = (int64_t)x * m + (x < 0 ? -(INT64_C(1) << 30) : INT64_C(1) << 30);
  int32_t h = (int32_t)(p >> 32); /* floor(P / 2^32): the high word */
  return (h + (int32_t)(b >> 8)) >> (b & 0xffu);
#endif
}

/* v clamped to [-128, 127] (SSAT #8): the clamp of an output whose activation range is the whole
 * int8 range (no activation, or a ReLU whose zero point is -128). */
static inline int32_t ap_dsp_ssat8(int32_t v) {
#if AP_DSP_NATIVE
  return __ssat(v, 8);
#else
  return v < -128 ? -128 : v > 127 ? 127 : v;
#endif
}

static inline int8_t ap_dsp_clamp8(int32_t v, int32_t off, int32_t lo, int32_t hi) {
  v += off;
  v = v < lo ? lo : v;
  return (int8_t)(v > hi ? hi : v);
}

/* A 16-bit value in both halfwords (what SADD16 adds to two widened lanes). */
static inline uint32_t ap_dsp_dup16(int32_t v) {
  return ((uint32_t)v & 0xffffu) * 0x10001u;
}

#endif
