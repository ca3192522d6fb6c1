/* The Helium level's int8 DEPTHWISE_CONV_2D with depth multiplier 1 (MobileNet's, DS-CNN's):
 * per output pixel, eight channels a vector. VLDRB.S16 widens eight input bytes and eight weight
 * bytes to 16-bit lanes (x + the input offset lies in [-255, 255]: no lane wraps), VMULLB and
 * VMULLT multiply the even and the odd lanes into two vectors of 32-bit products, which VADD
 * accumulates, over the window's taps that fall inside the input (the others skipped, as the
 * reference skips them). The even and odd channels' sums requantize as two vectors
 * (ap_mve_requant, their constants deinterleaved by VLD2, gathered at stride 2 in the tail), VMOVNB
 * / VMOVNT interleave them back and one VSTRB.16 stores eight bytes. The channel tail is the same
 * block predicated. One input channel with any multiplier broadcasts its value to the lanes; other
 * depth multipliers run the DSP level's kernel. Pixels whose window lies inside the input take
 * their blocks' constants from the workspace (the generic level's size, which the plan holds),
 * prepared once per call: the input offset folded into the bias, the shifts split. */
#include "kernels/fast/dw_taps.h"
#include "kernels/fast/mve.h"

#if AP_MVE_NATIVE

/* One pixel's eight channels from c (n - c of them when `tail`): x and f its first tap inside
 * the input and the filter, nx by ny taps, tap_x / tap_y / frow bytes apart. */
static inline __attribute__((always_inline)) void
block8(const ap_qdw *d, const int8_t *x, const int8_t *f, int32_t nx, int32_t ny, size_t tap_x,
       size_t tap_y, size_t frow, int32_t c, int8_t *o, bool tail, bool bcast) {
  int32_t n = d->out_d, left = n - c;
  mve_pred16_t p = vctp16q((uint32_t)left), pe = vctp32q((uint32_t)(left + 1) / 2u);
  mve_pred16_t po = vctp32q((uint32_t)left / 2u);
  int32x4_t ae = vdupq_n_s32(0), ao = ae;
  uint32x4_t even = vmulq_n_u32(vidupq_n_u32(0, 1), 2u), odd = vaddq_n_u32(even, 1u);
  if (d->bias) {
    if (tail) {
      ae = vldrwq_gather_shifted_offset_z_s32(d->bias + c, even, pe);
      ao = vldrwq_gather_shifted_offset_z_s32(d->bias + c, odd, po);
    } else {
      int32x4x2_t b2 = vld2q_s32(d->bias + c);
      ae = b2.val[0], ao = b2.val[1];
    }
  }
  int16_t off = (int16_t)d->in_off;
  for (int32_t ty = 0; ty < ny; ty++, x += tap_y, f += frow) {
    const int8_t *xt = x, *ft = f;
    for (int32_t tx = 0; tx < nx; tx++, xt += tap_x, ft += n) {
      int16x8_t xv = bcast ? vdupq_n_s16(*xt) : tail ? vldrbq_z_s16(xt, p) : vldrbq_s16(xt);
      int16x8_t wv = tail ? vldrbq_z_s16(ft, p) : vldrbq_s16(ft);
      xv = vaddq_n_s16(xv, off);
      ae = vaddq_s32(ae, vmullbq_int_s16(xv, wv));
      ao = vaddq_s32(ao, vmulltq_int_s16(xv, wv));
    }
  }
  int32x4_t me, se, mo, so;
  if (tail) {
    me = vldrwq_gather_shifted_offset_z_s32(d->qmult + c, even, pe);
    se = vldrwq_gather_shifted_offset_z_s32(d->qshift + c, even, pe);
    mo = vldrwq_gather_shifted_offset_z_s32(d->qmult + c, odd, po);
    so = vldrwq_gather_shifted_offset_z_s32(d->qshift + c, odd, po);
  } else { /* VLD2: the even and odd channels' constants, deinterleaved by the load */
    int32x4x2_t m2 = vld2q_s32(d->qmult + c), s2 = vld2q_s32(d->qshift + c);
    me = m2.val[0], mo = m2.val[1], se = s2.val[0], so = s2.val[1];
  }
  ae = ap_mve_clamp(ap_mve_requant(ae, me, se), d->out_off, d->act_min, d->act_max);
  ao = ap_mve_clamp(ap_mve_requant(ao, mo, so), d->out_off, d->act_min, d->act_max);
  int16x8_t r = vmovntq_s32(vmovnbq_s32(vdupq_n_s16(0), ae), ao);
  if (tail)
    vstrbq_p_s16(o + c, r, p);
  else
    vstrbq_s16(o + c, r);
}

/* The constants of eight channels' block, prepared once per call in the workspace for pixels
 * whose window lies wholly inside the input: per block, even lanes then odd lanes, the bias
 * with the input offset folded in (bias + in_off sum_taps w, modulo 2^32 as the sums are: the
 * reference's sum of (x + in_off) w over every tap), the multipliers and the two shifts
 * (ap_mve_shifts). The taps then multiply the input bytes as they are, and the requantization
 * loads its constants instead of making them. */
enum { DW_PREP = 8 }; /* vectors per block */

static void prepare(const ap_qdw *d, int32_t nb, int32_t *prep) {
  int32_t n = d->out_d, taps = d->f_h * d->f_w;
  for (int32_t c = 0; c < nb * 8; c++) {
    uint32_t sw = 0;
    for (int32_t t = 0; t < taps; t++)
      sw += (uint32_t)(int32_t)d->f[(size_t)t * (size_t)n + (size_t)c];
    int32_t *blk = prep + (c >> 3) * DW_PREP * 4, lane = (c & 7) >> 1, odd = c & 1;
    int32_t s = d->qshift[c];
    blk[(0 + odd) * 4 + lane] =
        (int32_t)((d->bias ? (uint32_t)d->bias[c] : 0u) + (uint32_t)d->in_off * sw);
    blk[(2 + odd) * 4 + lane] = d->qmult[c];
    blk[(4 + odd) * 4 + lane] = s > 0 ? (s > 31 ? 31 : s) : 0;
    blk[(6 + odd) * 4 + lane] = s < 0 ? (s < -31 ? -31 : s) : 0;
  }
}

/* One pixel's eight channels from c, every tap inside the input (f_w by f_h of them), with the
 * block's prepared constants pc. */
static inline __attribute__((always_inline)) void
block8_inside(const ap_qdw *d, const int8_t *x, const int8_t *f, size_t tap_x, size_t tap_y,
              size_t frow, const int32_t *pc, int8_t *o, bool bcast, bool three) {
  int32_t n = d->out_d;
  int32x4_t ae = vldrwq_s32(pc), ao = vldrwq_s32(pc + 4);
#define AP_MVE_TAP(xt, ft)                                                                         \
  do {                                                                                             \
    int16x8_t xv = bcast ? vdupq_n_s16(*(xt)) : vldrbq_s16(xt), wv = vldrbq_s16(ft);               \
    ae = vaddq_s32(ae, vmullbq_int_s16(xv, wv));                                                   \
    ao = vaddq_s32(ao, vmulltq_int_s16(xv, wv));                                                   \
  } while (0)
  if (three) { /* a filter row's three taps unrolled: no count, no loop per row */
    for (int32_t ty = 0; ty < 3; ty++, x += tap_y, f += frow) {
      const int8_t *x1 = x + tap_x, *f1 = f + n;
      AP_MVE_TAP(x, f);
      AP_MVE_TAP(x1, f1);
      AP_MVE_TAP(x1 + tap_x, f1 + n);
    }
  } else {
    for (int32_t ty = 0; ty < d->f_h; ty++, x += tap_y, f += frow) {
      const int8_t *xt = x, *ft = f;
      for (int32_t tx = 0; tx < d->f_w; tx++, xt += tap_x, ft += n)
        AP_MVE_TAP(xt, ft);
    }
  }
#undef AP_MVE_TAP
  ae = ap_mve_requant_by(ae, vldrwq_s32(pc + 8), vldrwq_s32(pc + 16), vldrwq_s32(pc + 24));
  ao = ap_mve_requant_by(ao, vldrwq_s32(pc + 12), vldrwq_s32(pc + 20), vldrwq_s32(pc + 28));
  ae = ap_mve_clamp(ae, d->out_off, d->act_min, d->act_max);
  ao = ap_mve_clamp(ao, d->out_off, d->act_min, d->act_max);
  vstrbq_s16(o, vmovntq_s32(vmovnbq_s32(vdupq_n_s16(0), ae), ao));
}

/* block8_inside for a 3x3 window without broadcast, every full block of a pixel, in assembly:
 * GCC at -Os kept the nine taps' pointers on the stack (about 11 instructions a tap); here a
 * tap is its two loads, the two widening products and their sums (VMULLB / VMULLT, VADD), and
 * a block's constants come from the prepared vectors as in block8_inside (the same
 * requantization, instruction for instruction). */
typedef struct dw3_args {
  const int8_t *x;         /* 0: the window's top-left tap, channel 0 */
  const int8_t *f;         /* 4: the filter's tap 0, channel 0 */
  int32_t tap_x;           /* 8: bytes between a row's taps */
  int32_t tap_y;           /* 12: bytes between the window's rows */
  int32_t n;               /* 16: channels (bytes between the filter's taps) */
  const int32_t *pc;       /* 20: the prepared constants, DW_PREP vectors a block */
  int8_t *o;               /* 24 */
  int32_t nb;              /* 28: full blocks (>= 1) */
  int32_t out_off, lo, hi; /* 32, 36, 40 */
} dw3_args;

#define AP_DW3_TAP(X)                                                                              \
  "vldrb.s16 q2, [" X "]\n\t"                                                                      \
  "vldrb.s16 q3, [r7]\n\t"                                                                         \
  "vmullb.s16 q4, q2, q3\n\t"                                                                      \
  "vadd.i32 q0, q0, q4\n\t"                                                                        \
  "vmullt.s16 q4, q2, q3\n\t"                                                                      \
  "vadd.i32 q1, q1, q4\n\t"                                                                        \
  "add r7, r7, r3\n\t"
#define AP_DW3_ROW                                                                                 \
  "add r5, r4, r1\n\t"                                                                             \
  "add r6, r5, r1\n\t" AP_DW3_TAP("r4") AP_DW3_TAP("r5") AP_DW3_TAP("r6") "add r4, r4, r2\n\t"
#define AP_DW3_REQUANT(Q, M, L, R)                                                                 \
  "vldrw.u32 q2, [r9, #" M "]\n\t"                                                                 \
  "vldrw.u32 q3, [r9, #" L "]\n\t"                                                                 \
  "vldrw.u32 q4, [r9, #" R "]\n\t"                                                                 \
  "vshl.s32 " Q ", " Q ", q3\n\t"                                                                  \
  "vqrdmulh.s32 " Q ", " Q ", q2\n\t"                                                              \
  "vand q5, " Q ", q4\n\t"                                                                         \
  "vshr.s32 q5, q5, #31\n\t"                                                                       \
  "vqadd.s32 " Q ", " Q ", q5\n\t"                                                                 \
  "vrshl.s32 " Q ", " Q ", q4\n\t"                                                                 \
  "vadd.i32 " Q ", " Q ", r11\n\t"                                                                 \
  "vmax.s32 " Q ", " Q ", q6\n\t"                                                                  \
  "vmin.s32 " Q ", " Q ", q7\n\t"

/* Not inlined: its arguments' block and saved registers stay off the stack of the layers that
 * never take it (micro_speech's). */
static __attribute__((noinline)) void dw3(const ap_qdw *d, const int8_t *x, const int8_t *f,
                                          size_t tap_x, size_t tap_y, const int32_t *pc, int8_t *o,
                                          int32_t nb) {
  dw3_args args = {x, f,  (int32_t)tap_x, (int32_t)tap_y, d->out_d,  pc,
                   o, nb, d->out_off,     d->act_min,     d->act_max};
  const dw3_args *a = &args;
  __asm__ volatile(
      "push {r4-r11, lr}\n\t"
      "mov r12, %[a]\n\t"
      "ldr r0, [r12, #0]\n\t"
      "ldr r8, [r12, #4]\n\t"
      "ldr r1, [r12, #8]\n\t"
      "ldr r2, [r12, #12]\n\t"
      "ldr r3, [r12, #16]\n\t"
      "ldr r9, [r12, #20]\n\t"
      "ldr r10, [r12, #24]\n\t"
      "ldr r11, [r12, #32]\n\t"
      "ldr r4, [r12, #36]\n\t"
      "vdup.32 q6, r4\n\t"
      "ldr r4, [r12, #40]\n\t"
      "vdup.32 q7, r4\n\t"
      "ldr lr, [r12, #28]\n\t"
      "dls lr, lr\n"
      "1:\n\t"
      "vldrw.u32 q0, [r9]\n\t"
      "vldrw.u32 q1, [r9, #16]\n\t"
      "mov r4, r0\n\t"
      "mov r7, r8\n\t" AP_DW3_ROW AP_DW3_ROW AP_DW3_ROW AP_DW3_REQUANT("q0", "32", "64", "96")
          AP_DW3_REQUANT("q1", "48", "80",
                         "112") "vmovnb.i32 q2, q0\n\t"
                                "vmovnt.i32 q2, q1\n\t"
                                "mov r5, r10\n\t" /* a narrowing store takes a low register */
                                "vstrb.16 q2, [r5]\n\t"
                                "add r0, r0, #8\n\t"
                                "add r8, r8, #8\n\t"
                                "add r9, r9, #128\n\t"
                                "add r10, r10, #8\n\t"
                                "le lr, 1b\n\t"
                                "pop {r4-r11, lr}\n\t"
      :
      : [a] "r"(a)
      : "r0", "r1", "r2", "r3", "r12", "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "cc",
        "memory");
}
#undef AP_DW3_TAP
#undef AP_DW3_ROW
#undef AP_DW3_REQUANT

void ap_fast_mve_dw(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws) {
  /* One input channel (person_detect's first layer: multiplier 8) feeds every output channel:
   * its value broadcast to the lanes. */
  bool bcast = d->in_d == 1;
  if (d->mult != 1 && !bcast) {
    ap_fast_dsp_dw(d, b, oy0, oy1, ws);
    return;
  }
  int32_t n = d->out_d, n8 = n & ~7, in_d = d->in_d;
  /* The full blocks' constants in the workspace when it holds them (ap_fast_dw_ws: 20 bytes
   * per channel and more for a 3x3 filter, 4 for a 1x1), else every block makes its own. */
  int32_t *prep = ws, nb = n8 / 8;
  bool three = d->f_h == 3 && d->f_w == 3;
  if (!ws || ((uintptr_t)ws & 3) || nb == 0 ||
      (size_t)nb * DW_PREP * 16 > ap_fast_dw_ws(d->f_h * d->f_w, n))
    prep = NULL;
  if (prep) prepare(d, nb, prep);
  size_t row = (size_t)d->in_w * (size_t)in_d, tap_x = (size_t)d->dil_w * (size_t)in_d;
  size_t tap_y = (size_t)d->dil_h * row, frow = (size_t)d->f_w * (size_t)n;
  const int8_t *in_b = d->in + (size_t)b * (size_t)d->in_h * row;
  for (int32_t oy = oy0; oy < oy1; oy++) {
    int32_t iy = oy * d->stride_h - d->pad_h, ky0, ky1;
    ap_fast_dw_tap_range(iy, d->dil_h, d->f_h, d->in_h, &ky0, &ky1);
    int8_t *o =
        d->out + (((size_t)b * (size_t)d->out_h + (size_t)oy) * (size_t)d->out_w) * (size_t)n;
    for (int32_t ox = 0; ox < d->out_w; ox++, o += n) {
      int32_t ix = ox * d->stride_w - d->pad_w, kx0, kx1;
      ap_fast_dw_tap_range(ix, d->dil_w, d->f_w, d->in_w, &kx0, &kx1);
      /* The first tap inside the input, in the input and in the filter. */
      const int8_t *x0 =
          in_b + (size_t)(iy + ky0 * d->dil_h) * row + (size_t)(ix + kx0 * d->dil_w) * (size_t)in_d;
      const int8_t *f0 = d->f + (size_t)ky0 * frow + (size_t)kx0 * (size_t)n;
      int32_t nx = kx1 - kx0, ny = ky1 - ky0, c = 0;
      if (prep && nx == d->f_w && ny == d->f_h) {
        const int32_t *pc = prep;
        if (bcast)
          for (; c < n8; c += 8, pc += DW_PREP * 4)
            block8_inside(d, x0, f0 + c, tap_x, tap_y, frow, pc, o + c, true, false);
        else if (three) {
          dw3(d, x0, f0, tap_x, tap_y, pc, o, nb);
          c = n8;
        } else
          for (; c < n8; c += 8, pc += DW_PREP * 4)
            block8_inside(d, x0 + c, f0 + c, tap_x, tap_y, frow, pc, o + c, false, false);
      }
      if (bcast) {
        for (; c < n8; c += 8)
          block8(d, x0, f0 + c, nx, ny, tap_x, tap_y, frow, c, o, false, true);
        if (c < n) block8(d, x0, f0 + c, nx, ny, tap_x, tap_y, frow, c, o, true, true);
        continue;
      }
      for (; c < n8; c += 8)
        block8(d, x0 + c, f0 + c, nx, ny, tap_x, tap_y, frow, c, o, false, false);
      if (c < n) block8(d, x0 + c, f0 + c, nx, ny, tap_x, tap_y, frow, c, o, true, false);
    }
  }
}
#endif
