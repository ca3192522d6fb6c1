/* The Helium level's int8 matrix product (CONV_2D's rows of patches, 1x1 rows read in place):
 * output channels four at a time, each block of four against every row the call has (one or
 * two). VMLADAVA multiplies sixteen int8 pairs and adds the products to a scalar sum, so sixteen
 * bytes of a row against four channels' are one load of the row, four of weights and four
 * VMLADAVAs; the depth's tail (k % 16) is one more step predicated (VCTP: lanes past k load
 * zero and are not read). The four sums of a row are one vector, lane i channel c + i: the
 * block's column sums, multipliers and shifts load contiguously once (predicated past n) and
 * serve every row, the shifts split once (ap_mve_shifts), and the row's four bytes store as
 * one VSTRB.32. A layer's cost outside the inner loop is then about a sixth of the former two
 * rows by two channels' (constants gathered per four outputs, scattered stores).
 *
 * The input offset is folded into col_bias as the DSP level does (ap_fast_dsp_pack: sum_k (x +
 * off) w = sum_k x w + off sum_k w modulo 2^32), and rows of a are the patch's int8 bytes
 * (ap_fast_dsp_arow), so the scratch sizes are the generic level's. */
#include "kernels/fast/mve.h"

#if AP_MVE_NATIVE
/* One row x against four channels' weights w0..w3 (k bytes each, sixteen at a time, the tail
 * predicated): the four sums as one vector, lane i channel i. */
static inline __attribute__((always_inline)) int32x4_t dot4(const int8_t *x, const int8_t *w0,
                                                            const int8_t *w1, const int8_t *w2,
                                                            const int8_t *w3, int32_t k16,
                                                            mve_pred16_t pt, bool tail) {
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int32_t i = k16; i > 0; i--, x += 16, w0 += 16, w1 += 16, w2 += 16, w3 += 16) {
    int8x16_t xv = vld1q_s8(x);
    s0 = vmladavaq_s8(s0, xv, vld1q_s8(w0));
    s1 = vmladavaq_s8(s1, xv, vld1q_s8(w1));
    s2 = vmladavaq_s8(s2, xv, vld1q_s8(w2));
    s3 = vmladavaq_s8(s3, xv, vld1q_s8(w3));
  }
  if (tail) {
    int8x16_t xv = vldrbq_z_s8(x, pt);
    s0 = vmladavaq_s8(s0, xv, vldrbq_z_s8(w0, pt));
    s1 = vmladavaq_s8(s1, xv, vldrbq_z_s8(w1, pt));
    s2 = vmladavaq_s8(s2, xv, vldrbq_z_s8(w2, pt));
    s3 = vmladavaq_s8(s3, xv, vldrbq_z_s8(w3, pt));
  }
  int32x4_t v = vdupq_n_s32(s0);
  v = vsetq_lane_s32(s1, v, 1);
  v = vsetq_lane_s32(s2, v, 2);
  return vsetq_lane_s32(s3, v, 3);
}

/* Rows a + r k, r in [0, nrows), into out + r * stride: each block of four channels against
 * every row, so its constants load once however many rows there are. Channels past n in the
 * last block read channel c's weights (in bounds) and their lanes are neither loaded nor
 * stored. */
static void rows(const ap_qgemm *g, const int8_t *a, int32_t nrows, int8_t *out, size_t stride) {
  int32_t k = g->k, n = g->n, k16 = k >> 4;
  bool tail = (k & 15) != 0;
  mve_pred16_t pt = vctp8q((uint32_t)(k & 15));
  int32_t off = g->out_off, lo = g->act_min, hi = g->act_max;
  const int8_t *w = g->w;
  for (int32_t c = 0; c < n; c += 4, w += 4 * (size_t)k) {
    int32_t left_n = n - c;
    mve_pred16_t p = vctp32q((uint32_t)left_n);
    const int8_t *w1 = left_n > 1 ? w + k : w, *w2 = left_n > 2 ? w + 2 * (size_t)k : w;
    const int8_t *w3 = left_n > 3 ? w + 3 * (size_t)k : w;
    int32x4_t cb = vldrwq_z_s32(g->col_bias + c, p), m = vldrwq_z_s32(g->mult + c, p), left, negr;
    ap_mve_shifts(vldrwq_z_s32(g->shift + c, p), &left, &negr);
    const int8_t *x = a;
    int8_t *o = out + c;
    for (int32_t r = 0; r < nrows; r++, x += k, o += stride) {
      int32x4_t v = vaddq_s32(dot4(x, w, w1, w2, w3, k16, pt, tail), cb);
      v = ap_mve_clamp(ap_mve_requant_by(v, m, left, negr), off, lo, hi);
      vstrbq_p_s32(o, v, p);
    }
  }
}

/* ap_fast_dsp_pack's col_bias (bias + in_off sum_k w, modulo 2^32; nothing packed), each
 * channel's weights summed sixteen at a time by VADDVA: it runs at every invoke. */
void ap_fast_mve_pack(const int8_t *w, int32_t n, int32_t k, const int32_t *bias, int32_t in_off,
                      void *packed, int32_t *col_bias) {
  (void)packed;
  for (int32_t c = 0; c < n; c++, w += k) {
    int32_t s = 0;
    for (int32_t i = 0; in_off != 0 && i < k; i += 16)
      s = vaddvaq_s8(s, vldrbq_z_s8(w + i, vctp8q((uint32_t)(k - i))));
    col_bias[c] = (int32_t)((bias ? (uint32_t)bias[c] : 0u) + (uint32_t)s * (uint32_t)in_off);
  }
}

/* Two rows (a1 = a0 + k, or NULL). */
void ap_fast_mve_rows2(const ap_qgemm *g, const int8_t *a0, const int8_t *a1, int8_t *out,
                       size_t out_stride) {
  rows(g, a0, a1 ? 2 : 1, out, out_stride);
}

/* Four rows x, x + k, ... (now of them; the others read row x and are not stored) against every
 * channel, rows in lanes: one channel's weights are the loaded vector of dot4 and the rows its
 * four others, so a channel costs its scalar constants (bias, multiplier, shifts: VSHL, VQRDMULH
 * and VRSHL by a scalar register) and one VSTRB scatter to buf[r n + c], and the weights run on
 * through the channels without a reset. */
static void group4(const ap_qgemm *g, const int8_t *x, int32_t now, int8_t *buf, size_t stride) {
  int32_t k = g->k, n = g->n, k16 = k >> 4;
  bool tail = (k & 15) != 0;
  mve_pred16_t pt = vctp8q((uint32_t)(k & 15)), p = vctp32q((uint32_t)now);
  const int8_t *x1 = now > 1 ? x + k : x, *x2 = now > 2 ? x + 2 * (size_t)k : x;
  const int8_t *x3 = now > 3 ? x + 3 * (size_t)k : x;
  uint32x4_t offs = vmulq_n_u32(vidupq_n_u32(0, 1), (uint32_t)stride);
  int32x4_t lo = vdupq_n_s32(g->act_min), hi = vdupq_n_s32(g->act_max);
  int32_t off = g->out_off;
  const int8_t *w = g->w;
  for (int32_t c = 0; c < n; c++, w += k) {
    int32_t s = g->shift[c];
    int32_t left = s > 0 ? (s > 31 ? 31 : s) : 0, negr = s < 0 ? (s < -31 ? -31 : s) : 0;
    int32x4_t v = vaddq_n_s32(dot4(w, x, x1, x2, x3, k16, pt, tail), g->col_bias[c]);
    /* ap_mve_requant_by with one channel's constants (mve.h proves each step). */
    v = vqrdmulhq_n_s32(vshlq_r_s32(v, left), g->mult[c]);
    if (negr) v = vqaddq_s32(v, vshrq_n_s32(v, 31));
    v = vrshlq_n_s32(v, negr);
    v = vminq_s32(vmaxq_s32(vaddq_n_s32(v, off), lo), hi);
    vstrbq_scatter_offset_p_s32(buf + c, offs, v, p);
  }
}

/* group4 for four rows, in assembly: GCC at -Os spilled the pointers and constants around the
 * inner loop to the stack, which cost as much as the products at a depth of 64. The same
 * arithmetic step for step (each instruction the intrinsic's in group4), channel c's scalar
 * constants at mult + 4c, that + r bytes (shift) and + 2r (col_bias): the conv driver's
 * scratch layout, which the caller checks. VPR is saved and restored (GCC names no clobber for
 * it). */
typedef struct g4_args {
  const int8_t *x[4];  /* 0: the four rows, k bytes apart */
  const int8_t *w;     /* 16: channel 0's weights; the others follow, k bytes each */
  const int32_t *mult; /* 20 */
  int32_t r;           /* 24: bytes from mult to shift and from shift to col_bias */
  int8_t *buf;         /* 28: outputs, row i at buf + i n */
  int8_t *buf_end;     /* 32: buf + n */
  int32_t k16, ktail;  /* 36, 40 */
  int32_t out_off;     /* 44 */
  int32_t lo, hi;      /* 48, 52 */
  uint32_t offs[4];    /* 56: 0, n, 2n, 3n */
} g4_args;

static void group4_asm(const g4_args *a) {
  __asm__ volatile("push {r4-r11, lr}\n\t"
                   "vmrs r0, p0\n\t"
                   "push {r0}\n\t"
                   "mov r12, %[a]\n\t"
                   "ldr r8, [r12, #16]\n\t"
                   "ldr r10, [r12, #20]\n\t"
                   "ldr r11, [r12, #24]\n\t"
                   "ldr r9, [r12, #28]\n\t"
                   "vldrw.u32 q0, [r12, #56]\n\t"
                   "ldr r0, [r12, #48]\n\t"
                   "vdup.32 q1, r0\n\t"
                   "ldr r0, [r12, #52]\n\t"
                   "vdup.32 q2, r0\n"
                   "1:\n\t" /* channel c: its four sums over the rows */
                   "ldm r12, {r1, r3, r5, r7}\n\t"
                   "movs r0, #0\n\t"
                   "movs r2, #0\n\t"
                   "movs r4, #0\n\t"
                   "movs r6, #0\n\t"
                   "ldr lr, [r12, #36]\n\t"
                   "wls lr, lr, 3f\n"
                   "2:\n\t"
                   "vldrb.8 q3, [r8], #16\n\t"
                   "vldrb.8 q4, [r1], #16\n\t"
                   "vmladava.s8 r0, q4, q3\n\t"
                   "vldrb.8 q5, [r3], #16\n\t"
                   "vmladava.s8 r2, q5, q3\n\t"
                   "vldrb.8 q6, [r5], #16\n\t"
                   "vmladava.s8 r4, q6, q3\n\t"
                   "vldrb.8 q7, [r7], #16\n\t"
                   "vmladava.s8 r6, q7, q3\n\t"
                   "le lr, 2b\n"
                   "3:\n\t" /* the depth's tail: lanes past k load zero */
                   "ldr lr, [r12, #40]\n\t"
                   "cmp lr, #0\n\t"
                   "beq 4f\n\t"
                   "vctp.8 lr\n\t"
                   "vpstttt\n\t"
                   "vldrbt.8 q3, [r8]\n\t"
                   "vldrbt.8 q4, [r1]\n\t"
                   "vldrbt.8 q5, [r3]\n\t"
                   "vldrbt.8 q6, [r5]\n\t"
                   "vpst\n\t"
                   "vldrbt.8 q7, [r7]\n\t"
                   "add r8, r8, lr\n\t"
                   "vmladava.s8 r0, q4, q3\n\t"
                   "vmladava.s8 r2, q5, q3\n\t"
                   "vmladava.s8 r4, q6, q3\n\t"
                   "vmladava.s8 r6, q7, q3\n"
                   "4:\n\t" /* lanes = rows; + col_bias[c]; requantized as group4 */
                   "vmov.32 q4[0], r0\n\t"
                   "vmov.32 q4[1], r2\n\t"
                   "vmov.32 q4[2], r4\n\t"
                   "vmov.32 q4[3], r6\n\t"
                   "ldr r0, [r10, r11, lsl #1]\n\t"
                   "vadd.i32 q4, q4, r0\n\t"
                   "ldr r2, [r10, r11]\n\t"
                   "usat r4, #5, r2\n\t" /* left = clamp(s, 0, 31) */
                   "vshl.s32 q4, r4\n\t"
                   "ldr r0, [r10], #4\n\t"
                   "vqrdmulh.s32 q4, q4, r0\n\t"
                   "ssat r2, #6, r2\n\t" /* e = clamp(-s, 0, 31) */
                   "rsbs r2, r2, #0\n\t"
                   "usat r2, #5, r2\n\t"
                   "cbz r2, 5f\n\t"
                   "vshr.s32 q5, q4, #31\n\t" /* h - [h < 0], saturating */
                   "vqadd.s32 q4, q4, q5\n\t"
                   "rsbs r2, r2, #0\n\t"
                   "vrshl.s32 q4, r2\n"
                   "5:\n\t"
                   "ldr r0, [r12, #44]\n\t"
                   "vadd.i32 q4, q4, r0\n\t"
                   "vmax.s32 q4, q4, q1\n\t"
                   "vmin.s32 q4, q4, q2\n\t"
                   "vstrb.32 q4, [r9, q0]\n\t"
                   "adds r9, #1\n\t"
                   "ldr r0, [r12, #32]\n\t"
                   "cmp r9, r0\n\t"
                   "bne 1b\n\t"
                   "pop {r0}\n\t"
                   "vmsr p0, r0\n\t"
                   "pop {r4-r11, lr}\n\t"
                   :
                   : [a] "r"(a)
                   : "r0", "r1", "r2", "r3", "r12", "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7",
                     "cc", "memory");
}

/* nrows rows in place, k bytes apart, four at a time: each four rows' outputs go to acc_ws
 * (4 n bytes: the mr = 1 rows of n int32 the plan holds for every level) and from there to out,
 * so outputs planned over their rows (in place) overwrite only rows every channel has read. */
void ap_fast_mve_rowsn(const ap_qgemm *g, const int8_t *a, int32_t nrows, int32_t *acc_ws,
                       int8_t *out, size_t out_stride) {
  int8_t *buf = (int8_t *)acc_ws;
  size_t n = (size_t)g->n;
  /* The asm's constants: mult, shift and col_bias equally far apart (conv_int8.c's layout). */
  ptrdiff_t rb = (const char *)g->shift - (const char *)g->mult;
  bool layout = (const char *)g->col_bias - (const char *)g->shift == rb && rb >= 0;
  g4_args args = {{NULL, NULL, NULL, NULL},
                  g->w,
                  g->mult,
                  (int32_t)rb,
                  buf,
                  buf + n,
                  g->k >> 4,
                  g->k & 15,
                  g->out_off,
                  g->act_min,
                  g->act_max,
                  {0, (uint32_t)n, 2 * (uint32_t)n, 3 * (uint32_t)n}};
  for (int32_t r = 0; r < nrows; r += 4) {
    int32_t now = nrows - r < 4 ? nrows - r : 4;
    const int8_t *x = a + (size_t)r * (size_t)g->k;
    if (now == 4 && layout) {
      for (int i = 0; i < 4; i++)
        args.x[i] = x + (size_t)i * (size_t)g->k;
      group4_asm(&args);
    } else {
      group4(g, x, now, buf, n);
    }
    for (int32_t i = 0; i < now; i++) {
      int8_t *o = out + (size_t)(r + i) * out_stride;
      const int8_t *b = buf + (size_t)i * n;
      for (size_t j = 0; j < n; j += 16) {
        mve_pred16_t q = vctp8q((uint32_t)(n - j));
        vstrbq_p_s8(o + j, vldrbq_z_s8(b + j, q), q);
      }
    }
  }
}

/* Four rows k bytes apart (patches the driver built side by side), outputs at out + i stride
 * written directly: the rows are copies, which no output overlaps. */
void ap_fast_mve_rows4(const ap_qgemm *g, const int8_t *a, int8_t *out, size_t stride) {
  ptrdiff_t rb = (const char *)g->shift - (const char *)g->mult;
  if ((const char *)g->col_bias - (const char *)g->shift != rb || rb < 0 ||
      stride > INT32_MAX / 3) {
    group4(g, a, 4, out, stride);
    return;
  }
  uint32_t st = (uint32_t)stride;
  size_t k = (size_t)g->k;
  g4_args args = {{a, a + k, a + 2 * k, a + 3 * k},
                  g->w,
                  g->mult,
                  (int32_t)rb,
                  out,
                  out + g->n,
                  g->k >> 4,
                  g->k & 15,
                  g->out_off,
                  g->act_min,
                  g->act_max,
                  {0, st, 2 * st, 3 * st}};
  group4_asm(&args);
}

/* The kit's product over rows of a (arow_bytes apart), two at a time. */
void ap_fast_mve_gemm(const ap_qgemm *g, const void *a, int32_t nrows, int32_t *acc_ws, int8_t *out,
                      size_t out_stride) {
  (void)acc_ws;
  size_t stride = ap_fast_dsp_arow_bytes(g->k);
  const int8_t *a8 = a;
  for (int32_t r = 0; r < nrows; r++)
    rows(g, a8 + (size_t)r * stride, 1, out + (size_t)r * out_stride, out_stride);
}
#endif
