/* The DSP level's int8 DEPTHWISE_CONV_2D: per output pixel, four channels at a time with their
 * four sums in registers. SXTAB16 widens a tap's four input bytes (lanes 0, 2 and, rotated,
 * 1, 3) and adds the input offset in one (x + off lies in [-255, 255]: no lane wraps), SXTB16
 * widens the weights alike, and SMLABB / SMLATT multiply lane by lane. Taps outside the
 * input are skipped as the reference skips them; an interior 3x3 window (MobileNet's, DS-CNN's)
 * runs unrolled. Depth multipliers that are multiples of 4 (one input channel feeding four
 * adjacent output channels: person_detect's first layer) take the input value in both lanes of
 * a word against four widened weights. Channel tails and other depth multipliers run one
 * channel at a time. A pixel's sums wait in the workspace (the generic level's size, which a
 * plan holds) until its channels are done, then one loop requantizes them. */
#include "kernels/fast/dsp.h"
#include "kernels/fast/dsp_acle.h"
#include "kernels/fast/dw_taps.h"

typedef struct sums4 {
  uint32_t s0, s1, s2, s3;
} sums4;

/* One tap of four channels: input word v, weight word w. */
#define DW_TAP(acc, v, w, off2)                                                                    \
  do {                                                                                             \
    uint32_t v02_ = ap_sxtab16(off2, v), v13_ = ap_sxtab16_ror8(off2, v);                          \
    uint32_t w02_ = ap_sxtb16(w), w13_ = ap_sxtb16_ror8(w);                                        \
    (acc).s0 = ap_smlabb(v02_, w02_, (acc).s0);                                                    \
    (acc).s2 = ap_smlatt(v02_, w02_, (acc).s2);                                                    \
    (acc).s1 = ap_smlabb(v13_, w13_, (acc).s1);                                                    \
    (acc).s3 = ap_smlatt(v13_, w13_, (acc).s3);                                                    \
  } while (0)

/* On a Helium core this file runs only the depth multipliers the MVE level leaves to it
 * (mve_dw.c), never dw_mult1: the written-out window and the whole-range requantization loop
 * are left out there, for flash. */
#if defined(__ARM_FEATURE_MVE) && __ARM_FEATURE_MVE
#define AP_DW_HELIUM 1
#else
#define AP_DW_HELIUM 0
#endif

#if AP_DSP_NATIVE && !AP_DW_HELIUM
/* One tap of DW_TAP in the assembly below: input word v, weight word w (v and w then hold the
 * odd lanes). */
#define DW_TAP_ASM                                                                                 \
  "sxtab16 %[v02], %[off2], %[v]\n\t"                                                              \
  "sxtab16 %[v], %[off2], %[v], ror #8\n\t"                                                        \
  "sxtb16 %[w02], %[w]\n\t"                                                                        \
  "sxtb16 %[w], %[w], ror #8\n\t"                                                                  \
  "smlabb %[s0], %[v02], %[w02], %[s0]\n\t"                                                        \
  "smlatt %[s2], %[v02], %[w02], %[s2]\n\t"                                                        \
  "smlabb %[s1], %[v], %[w], %[s1]\n\t"                                                            \
  "smlatt %[s3], %[v], %[w], %[s3]\n\t"
/* One row of three taps at ip (sx apart) and wp (C apart), then both pointers to the next row
 * (sy, 3 C). The third tap's addresses are formed in the registers its words load into. */
#define DW_ROW_ASM                                                                                 \
  "ldr %[v], [%[ip]]\n\t"                                                                          \
  "ldr %[w], [%[wp]]\n\t" DW_TAP_ASM "ldr %[v], [%[ip], %[sx]]\n\t"                                \
  "ldr %[w], [%[wp], %[c]]\n\t" DW_TAP_ASM "add %[v], %[ip], %[sx], lsl #1\n\t"                    \
  "ldr %[v], [%[v]]\n\t"                                                                           \
  "add %[w], %[wp], %[c], lsl #1\n\t"                                                              \
  "ldr %[w], [%[w]]\n\t" DW_TAP_ASM "ldr %[v], %[sy]\n\t"                                          \
  "add %[ip], %[ip], %[v]\n\t"                                                                     \
  "add %[wp], %[wp], %[c]\n\t"                                                                     \
  "add %[wp], %[wp], %[c], lsl #1\n\t"

/* The interior 3x3 window of four channels (DW_TAP nine times), written out: the compiler's
 * loop kept its nine offsets on the stack (about 15 instructions a tap; 11 here). The row
 * stride is read from memory: thirteen registers are what the compiler can give here. */
static inline __attribute__((always_inline)) void window3x3(sums4 *a, const int8_t *ip,
                                                            const int8_t *wp, uint32_t sx,
                                                            uint32_t sy, uint32_t c,
                                                            uint32_t off2) {
  uint32_t s0 = a->s0, s1 = a->s1, s2 = a->s2, s3 = a->s3, v, w, v02, w02;
  __asm__(DW_ROW_ASM DW_ROW_ASM DW_ROW_ASM
          : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [ip] "+r"(ip),
            [wp] "+r"(wp), [v] "=&r"(v), [w] "=&r"(w), [v02] "=&r"(v02), [w02] "=&r"(w02)
          : [sx] "r"(sx), [sy] "m"(sy), [c] "r"(c), [off2] "r"(off2)
          : "memory");
  a->s0 = s0, a->s1 = s1, a->s2 = s2, a->s3 = s3;
}
#endif

/* A pixel's sums, kept in the workspace until the pixel's channels are done: then one loop
 * requantizes them (ap_fast_dw_ws(taps, C) is at least 4C bytes for every C: the generic level's
 * size, which plans hold). */
static inline void keep4(uint32_t *acc, int32_t c, sums4 a) {
  acc[c] = a.s0, acc[c + 1] = a.s1, acc[c + 2] = a.s2, acc[c + 3] = a.s3;
}

/* When the workspace holds it (12 bytes a channel: the sums, then each channel's multiplier and
 * ap_dsp_rqb_of's word; a 3x3 filter over a multiple of 8 channels always fits),
 * ap_fast_dsp_dw writes the table once a call. */
static bool table_fits(const ap_qdw *d) {
  return ap_fast_dw_ws(d->f_h * d->f_w, d->out_d) >= (size_t)d->out_d * 12;
}

static void table_fill(const ap_qdw *d, uint32_t *t) {
  for (int32_t c = 0; c < d->out_d; c++, t += 2)
    t[0] = (uint32_t)d->qmult[c], t[1] = ap_dsp_rqb_of(d->qmult[c], d->qshift[c]);
}

/* Channel c's sum by ap_fast_mul (a shift outside the prepared form), out of line. */
static __attribute__((noinline)) int32_t requant_slow(const ap_qdw *d, uint32_t acc, int32_t c) {
  return ap_fast_mul((int32_t)acc, d->qmult[c], d->qshift[c]);
}

static __attribute__((noinline)) void requant_pixel(const ap_qdw *d, const uint32_t *acc,
                                                    int8_t *o) {
  int32_t off = d->out_off, lo = d->act_min, hi = d->act_max, n = d->out_d;
  if (!table_fits(d)) {
    for (int32_t c = 0; c < n; c++)
      o[c] = ap_dsp_requant(acc[c], d->qmult[c], d->qshift[c], off, lo, hi);
    return;
  }
  const uint32_t *t = acc + n;
  int8_t *end = o + n;
  if (!AP_DW_HELIUM && lo == -128 && hi == 127) { /* the whole int8 range: SSAT clamps */
    for (; o < end; o++, t += 2) {
      uint32_t s = *acc++, b = t[1];
      int32_t v = ap_dsp_rqb_fast(b) ? ap_dsp_rqb_apply(s, (int32_t)t[0], b)
                                     : requant_slow(d, s, n - (int32_t)(end - o));
      *o = (int8_t)ap_dsp_ssat8(v + off);
    }
    return;
  }
  for (; o < end; o++, t += 2) {
    uint32_t s = *acc++, b = t[1];
    int32_t v = ap_dsp_rqb_fast(b) ? ap_dsp_rqb_apply(s, (int32_t)t[0], b)
                                   : requant_slow(d, s, n - (int32_t)(end - o));
    v += off;
    v = v < lo ? lo : v;
    *o = (int8_t)(v > hi ? hi : v);
  }
}

static inline sums4 bias4(const ap_qdw *d, int32_t c) {
  if (!d->bias) return (sums4){0, 0, 0, 0};
  return (sums4){(uint32_t)d->bias[c], (uint32_t)d->bias[c + 1], (uint32_t)d->bias[c + 2],
                 (uint32_t)d->bias[c + 3]};
}

/* One channel over the valid taps (a channel tail, or any depth multiplier). */
static __attribute__((noinline)) uint32_t one_channel(const ap_qdw *d, const int8_t *in, int32_t y0,
                                                      int32_t x0, int32_t fy0, int32_t fy1,
                                                      int32_t fx0, int32_t fx1, int32_t c,
                                                      int32_t ic) {
  uint32_t acc = d->bias ? (uint32_t)d->bias[c] : 0u;
  for (int32_t fy = fy0; fy < fy1; fy++)
    for (int32_t fx = fx0; fx < fx1; fx++) {
      int32_t v =
          in[((size_t)(y0 + d->dil_h * fy) * d->in_w + (size_t)(x0 + d->dil_w * fx)) * d->in_d +
             ic];
      int32_t w = d->f[((size_t)fy * d->f_w + fx) * d->out_d + c];
      acc += (uint32_t)(w * (v + d->in_off));
    }
  return acc;
}

/* Depth multiplier 1: output channel c reads input channel c. */
static __attribute__((noinline)) void dw_mult1(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1,
                                               uint32_t *acc) {
  uint32_t off2 = ap_dsp_dup16(d->in_off);
  int32_t C = d->out_d;
  size_t row = (size_t)d->in_w * (size_t)C, sx = (size_t)d->dil_w * (size_t)C;
  size_t sy = (size_t)d->dil_h * row, wrow = (size_t)d->f_w * (size_t)C;
  const int8_t *in = d->in + (size_t)b * (size_t)d->in_h * row;
  bool k3 = d->f_h == 3 && d->f_w == 3;
  for (int32_t oy = oy0; oy < oy1; oy++) {
    int32_t y0 = oy * d->stride_h - d->pad_h, fy0, fy1;
    ap_fast_dw_tap_range(y0, d->dil_h, d->f_h, d->in_h, &fy0, &fy1);
    int8_t *orow = d->out + ((size_t)b * d->out_h + oy) * d->out_w * (size_t)C;
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int32_t x0 = ox * d->stride_w - d->pad_w, fx0, fx1;
      ap_fast_dw_tap_range(x0, d->dil_w, d->f_w, d->in_w, &fx0, &fx1);
      int8_t *o = orow + (size_t)ox * C;
      /* No tap inside: the bias alone (no window pointer is formed). */
      bool any = fy0 < fy1 && fx0 < fx1;
      const int8_t *ip0 =
          any ? in + (size_t)(y0 + d->dil_h * fy0) * row + (size_t)(x0 + d->dil_w * fx0) * C : in;
      const int8_t *wp0 = any ? d->f + ((size_t)fy0 * d->f_w + fx0) * C : d->f;
      int32_t fy_end = any ? fy1 : fy0;
      bool full3 = k3 && fy0 == 0 && fy1 == 3 && fx0 == 0 && fx1 == 3;
      int32_t c = 0;
      if (full3) {
        for (; c + 4 <= C; c += 4) {
          sums4 a = bias4(d, c);
          const int8_t *ip = ip0 + c, *wp = wp0 + c;
#if AP_DSP_NATIVE && !AP_DW_HELIUM
          (void)wrow;
          window3x3(&a, ip, wp, (uint32_t)sx, (uint32_t)sy, (uint32_t)C, off2);
#else
          for (int r = 0; r < 3; r++, ip += sy, wp += wrow) {
            DW_TAP(a, ap_dsp_load32(ip), ap_dsp_load32(wp), off2);
            DW_TAP(a, ap_dsp_load32(ip + sx), ap_dsp_load32(wp + C), off2);
            DW_TAP(a, ap_dsp_load32(ip + 2 * sx), ap_dsp_load32(wp + 2 * C), off2);
          }
#endif
          keep4(acc, c, a);
        }
      } else {
        for (; c + 4 <= C; c += 4) {
          sums4 a = bias4(d, c);
          const int8_t *ip = ip0 + c, *wp = wp0 + c;
          for (int32_t fy = fy0; fy < fy_end; fy++, ip += sy, wp += wrow) {
            const int8_t *ipx = ip, *wpx = wp;
            for (int32_t fx = fx0; fx < fx1; fx++, ipx += sx, wpx += C)
              DW_TAP(a, ap_dsp_load32(ipx), ap_dsp_load32(wpx), off2);
          }
          keep4(acc, c, a);
        }
      }
      for (; c < C; c++)
        acc[c] = one_channel(d, in, y0, x0, fy0, fy1, fx0, fx1, c, c);
      requant_pixel(d, acc, o);
    }
  }
}

/* Depth multiplier a multiple of 4: output channels ic * mult + [m, m + 4) read input channel
 * ic, whose value (plus the offset) sits in both lanes of a word. */
static __attribute__((noinline)) void dw_mult4(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1,
                                               uint32_t *acc) {
  size_t row = (size_t)d->in_w * (size_t)d->in_d, sx = (size_t)d->dil_w * (size_t)d->in_d;
  const int8_t *in = d->in + (size_t)b * (size_t)d->in_h * row;
  for (int32_t oy = oy0; oy < oy1; oy++) {
    int32_t y0 = oy * d->stride_h - d->pad_h, fy0, fy1;
    ap_fast_dw_tap_range(y0, d->dil_h, d->f_h, d->in_h, &fy0, &fy1);
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int32_t x0 = ox * d->stride_w - d->pad_w, fx0, fx1;
      ap_fast_dw_tap_range(x0, d->dil_w, d->f_w, d->in_w, &fx0, &fx1);
      int8_t *o = d->out + (((size_t)b * d->out_h + oy) * d->out_w + ox) * d->out_d;
      for (int32_t ic = 0; ic < d->in_d; ic++)
        for (int32_t m = 0; m < d->mult; m += 4) {
          int32_t c = ic * d->mult + m;
          sums4 a = bias4(d, c);
          for (int32_t fy = fy0; fy < fy1 && fx0 < fx1; fy++) {
            const int8_t *ip = in + (size_t)(y0 + d->dil_h * fy) * row +
                               (size_t)(x0 + d->dil_w * fx0) * d->in_d + ic;
            const int8_t *wp = d->f + ((size_t)fy * d->f_w + fx0) * d->out_d + c;
            for (int32_t fx = fx0; fx < fx1; fx++, ip += sx, wp += d->out_d) {
              uint32_t v = ap_dsp_dup16(*ip + d->in_off);
              uint32_t w = ap_dsp_load32(wp);
              uint32_t w02 = ap_sxtb16(w), w13 = ap_sxtb16_ror8(w);
              a.s0 = ap_smlabb(v, w02, a.s0);
              a.s2 = ap_smlabt(v, w02, a.s2);
              a.s1 = ap_smlabb(v, w13, a.s1);
              a.s3 = ap_smlabt(v, w13, a.s3);
            }
          }
          keep4(acc, c, a);
        }
      requant_pixel(d, acc, o);
    }
  }
}

/* Depth multiplier a multiple of 8 (person_detect's and micro_speech's first layers: one input
 * channel, eight output channels): eight sums a tap, so each input value is loaded and put in
 * both lanes once for eight channels. */
static __attribute__((noinline)) void dw_mult8(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1,
                                               uint32_t *acc) {
  size_t row = (size_t)d->in_w * (size_t)d->in_d, sx = (size_t)d->dil_w * (size_t)d->in_d;
  const int8_t *in = d->in + (size_t)b * (size_t)d->in_h * row;
  for (int32_t oy = oy0; oy < oy1; oy++) {
    int32_t y0 = oy * d->stride_h - d->pad_h, fy0, fy1;
    ap_fast_dw_tap_range(y0, d->dil_h, d->f_h, d->in_h, &fy0, &fy1);
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int32_t x0 = ox * d->stride_w - d->pad_w, fx0, fx1;
      ap_fast_dw_tap_range(x0, d->dil_w, d->f_w, d->in_w, &fx0, &fx1);
      int8_t *o = d->out + (((size_t)b * d->out_h + oy) * d->out_w + ox) * d->out_d;
      for (int32_t ic = 0; ic < d->in_d; ic++)
        for (int32_t m = 0; m < d->mult; m += 8) {
          int32_t c = ic * d->mult + m;
          sums4 a = bias4(d, c), e = bias4(d, c + 4);
          for (int32_t fy = fy0; fy < fy1 && fx0 < fx1; fy++) {
            const int8_t *ip = in + (size_t)(y0 + d->dil_h * fy) * row +
                               (size_t)(x0 + d->dil_w * fx0) * d->in_d + ic;
            const int8_t *wp = d->f + ((size_t)fy * d->f_w + fx0) * d->out_d + c;
            for (int32_t fx = fx0; fx < fx1; fx++, ip += sx, wp += d->out_d) {
              uint32_t v = ap_dsp_dup16(*ip + d->in_off);
              uint32_t w = ap_dsp_load32(wp), w02 = ap_sxtb16(w), w13 = ap_sxtb16_ror8(w);
              a.s0 = ap_smlabb(v, w02, a.s0);
              a.s2 = ap_smlabt(v, w02, a.s2);
              a.s1 = ap_smlabb(v, w13, a.s1);
              a.s3 = ap_smlabt(v, w13, a.s3);
              w = ap_dsp_load32(wp + 4), w02 = ap_sxtb16(w), w13 = ap_sxtb16_ror8(w);
              e.s0 = ap_smlabb(v, w02, e.s0);
              e.s2 = ap_smlabt(v, w02, e.s2);
              e.s1 = ap_smlabb(v, w13, e.s1);
              e.s3 = ap_smlabt(v, w13, e.s3);
            }
          }
          keep4(acc, c, a);
          keep4(acc, c + 4, e);
        }
      requant_pixel(d, acc, o);
    }
  }
}

/* Any other depth multiplier, one channel at a time. */
static __attribute__((noinline)) void dw_any(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1,
                                             uint32_t *acc) {
  const int8_t *in = d->in + (size_t)b * (size_t)d->in_h * d->in_w * d->in_d;
  for (int32_t oy = oy0; oy < oy1; oy++) {
    int32_t y0 = oy * d->stride_h - d->pad_h, fy0, fy1;
    ap_fast_dw_tap_range(y0, d->dil_h, d->f_h, d->in_h, &fy0, &fy1);
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int32_t x0 = ox * d->stride_w - d->pad_w, fx0, fx1;
      ap_fast_dw_tap_range(x0, d->dil_w, d->f_w, d->in_w, &fx0, &fx1);
      int8_t *o = d->out + (((size_t)b * d->out_h + oy) * d->out_w + ox) * d->out_d;
      for (int32_t c = 0; c < d->out_d; c++)
        acc[c] = one_channel(d, in, y0, x0, fy0, fy1, fx0, fx1, c, c / d->mult);
      requant_pixel(d, acc, o);
    }
  }
}

void ap_fast_dsp_dw(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws) {
  uint32_t *acc = ws;
  if (table_fits(d)) table_fill(d, acc + d->out_d);
  if (d->mult == 1 && d->in_d == d->out_d)
    dw_mult1(d, b, oy0, oy1, acc);
  else if (d->mult > 0 && d->mult % 8 == 0 && d->out_d == d->in_d * d->mult)
    dw_mult8(d, b, oy0, oy1, acc);
  else if (d->mult > 0 && d->mult % 4 == 0 && d->out_d == d->in_d * d->mult)
    dw_mult4(d, b, oy0, oy1, acc);
  else
    dw_any(d, b, oy0, oy1, acc);
}
