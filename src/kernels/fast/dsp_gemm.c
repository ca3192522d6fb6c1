/* The DSP level's int8 matrix product (CONV_2D's rows of patches, 1x1 rows read in place): two
 * rows by two output channels per inner loop, the four sums in registers. Both operands stay
 * int8 in memory: SXTB16 widens bytes 0 and 2 (and, rotated, 1 and 3) of a word to two int16
 * lanes and SMLAD adds both lanes' products, so four words (two rows, two channels) give
 * sixteen multiply-adds in eight SMLADs and eight SXTB16s.
 *
 * The input offset is not added to each activation: sum_k (x + off) w = sum_k x w + off sum_k w
 * (modulo 2^32, as every level's sums), so pack folds off * sum_k w[c][k] into col_bias[c].
 * Padded patch positions hold the zero point -off, whose term is then (-off + off) w = 0, as in
 * the reference. Scratch sizes are the generic level's (arow_bytes, no packed weights), so a plan
 * made for the portable level holds this one: the driver builds rows2's two patch rows side by
 * side in the row of a the generic level widens into (2k bytes). */
#include "kernels/fast/dsp.h"
#include "kernels/fast/dsp_acle.h"

size_t ap_fast_dsp_packed_bytes(int32_t n, int32_t k) {
  (void)n, (void)k;
  return 0; /* reads the weights in place */
}

void ap_fast_dsp_pack(const int8_t *w, int32_t n, int32_t k, const int32_t *bias, int32_t in_off,
                      void *packed, int32_t *col_bias) {
  (void)packed;
  uint32_t ones = 0x00010001u;
  for (int32_t c = 0; c < n; c++) {
    const int8_t *wc = w + (size_t)c * (size_t)k;
    uint32_t s = 0;
    int32_t i = 0;
    if (in_off != 0) {
#if AP_DSP_NATIVE
      /* USADA8 adds a word's four bytes as unsigned: with each sign bit flipped (w + 128), four
       * bytes add 512 more than the signed sum, taken off once at the end. */
      uint32_t u = 0;
      int32_t words = k >> 2;
      for (; i + 4 <= k; i += 4)
        u = (uint32_t)__usada8((ap_dsp_load32(wc + i) ^ 0x80808080u), 0, u);
      s = u - (uint32_t)words * 512u;
      (void)ones;
#else
      for (; i + 4 <= k; i += 4) {
        uint32_t v = ap_dsp_load32(wc + i);
        s = ap_smlad(ap_sxtb16(v), ones, s);
        s = ap_smlad(ap_sxtb16_ror8(v), ones, s);
      }
#endif
      for (; i < k; i++)
        s += (uint32_t)(int32_t)wc[i];
    }
    col_bias[c] = (int32_t)((bias ? (uint32_t)bias[c] : 0u) + s * (uint32_t)in_off);
  }
}

size_t ap_fast_dsp_arow_bytes(int32_t k) {
  return ap_kscratch_round((size_t)k * 2); /* the generic level's */
}

/* A row of a is the patch's int8 bytes as they are (the offset is in col_bias). */
void ap_fast_dsp_arow(const int8_t *src, int32_t k, int32_t in_off, void *dst) {
  (void)in_off;
  memcpy(dst, src, (size_t)k);
}

/* The layer's shifts rewritten once, after its multipliers: ap_dsp_rqb_of's word where the
 * short form applies (the shift itself elsewhere), so that a sum costs six instructions of
 * requantization and no channel constant is derived again for each pair of rows. */
void ap_fast_dsp_prep(int32_t n, const int32_t *mult, int32_t *shift) {
  for (int32_t c = 0; c < n; c++)
    shift[c] = (int32_t)ap_dsp_rqb_of(mult[c], shift[c]);
}

/* Channel c's sums s0 and s1 (when o1) into the outputs out of line (the rare path): ap_dsp_rqc's
 * form for a shift left as it was (a kit caller that did not prepare, or a shift outside the
 * prepared form), else the prepared one. */
static __attribute__((noinline)) void store_rqc(const ap_qgemm *g, int32_t c, uint32_t s0,
                                                uint32_t s1, int8_t *o0, int8_t *o1) {
  int32_t sh = g->shift[c], off = g->out_off, lo = g->act_min, hi = g->act_max;
  if (ap_dsp_rqb_fast((uint32_t)sh)) { /* the other channel of its pair was not prepared */
    o0[c] = ap_dsp_clamp8(ap_dsp_rqb_apply(s0, g->mult[c], (uint32_t)sh), off, lo, hi);
    if (o1) o1[c] = ap_dsp_clamp8(ap_dsp_rqb_apply(s1, g->mult[c], (uint32_t)sh), off, lo, hi);
    return;
  }
  ap_dsp_rqc q = ap_dsp_rqc_of(g->mult[c], sh);
  o0[c] = ap_dsp_clamp8(ap_dsp_rqc_apply(&q, s0, sh), off, lo, hi);
  if (o1) o1[c] = ap_dsp_clamp8(ap_dsp_rqc_apply(&q, s1, sh), off, lo, hi);
}

/* Channel c's sums s0 (row 0) and s1 (row 1, when o1) into the outputs. */
static inline __attribute__((always_inline)) void store(const ap_qgemm *g, int32_t c, uint32_t s0,
                                                        uint32_t s1, int8_t *o0, int8_t *o1) {
  uint32_t b = (uint32_t)g->shift[c];
  if (!ap_dsp_rqb_fast(b)) {
    store_rqc(g, c, s0, s1, o0, o1);
    return;
  }
  int32_t m = g->mult[c], off = g->out_off, lo = g->act_min, hi = g->act_max;
  o0[c] = ap_dsp_clamp8(ap_dsp_rqb_apply(s0, m, b), off, lo, hi);
  if (o1) o1[c] = ap_dsp_clamp8(ap_dsp_rqb_apply(s1, m, b), off, lo, hi);
}

/* Row a alone (the last of an odd count), output channels two at a time. */
static void one_row(const ap_qgemm *g, const int8_t *a, int8_t *out) {
  int32_t k = g->k;
  for (int32_t c = 0; c < g->n; c += 2) {
    const int8_t *w0 = g->w + (size_t)c * (size_t)k;
    bool two = c + 1 < g->n;
    const int8_t *w1 = two ? w0 + k : w0;
    uint32_t s0 = (uint32_t)g->col_bias[c], s1 = two ? (uint32_t)g->col_bias[c + 1] : 0u;
    int32_t i = 0;
    for (; i + 4 <= k; i += 4) {
      uint32_t x = ap_dsp_load32(a + i), xe = ap_sxtb16(x), xo = ap_sxtb16_ror8(x);
      uint32_t v = ap_dsp_load32(w0 + i);
      s0 = ap_smlad(xe, ap_sxtb16(v), s0);
      s0 = ap_smlad(xo, ap_sxtb16_ror8(v), s0);
      v = ap_dsp_load32(w1 + i);
      s1 = ap_smlad(xe, ap_sxtb16(v), s1);
      s1 = ap_smlad(xo, ap_sxtb16_ror8(v), s1);
    }
    for (; i < k; i++) {
      s0 += (uint32_t)(a[i] * w0[i]);
      s1 += (uint32_t)(a[i] * w1[i]);
    }
    store(g, c, s0, 0, out, NULL);
    if (two) store(g, c + 1, s1, 0, out, NULL);
  }
}

/* A prepared channel's sum requantized, offset, clamped (v an int32 until the store: no
 * sign extension). */
static inline __attribute__((always_inline)) int32_t rq_fast(uint32_t s, int32_t m, uint32_t b,
                                                             int32_t off, int32_t lo, int32_t hi) {
  int32_t v = ap_dsp_rqb_apply(s, m, b) + off;
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

#if AP_DSP_NATIVE
/* The C loop below (quads of depths of rows x, x + k by channels w, w + k), written out: every
 * load post-increments its pointer (the second row and channel sit k - 4 bytes past the
 * incremented pointer), so a quad is four LDRs, eight SXTB16s, eight SMLADs and the count's
 * SUBS and BNE, all fourteen registers in use (the compiler's version spilled its end pointer
 * and added both pointers apart: 25 instructions a quad, 22 here). */
static inline __attribute__((always_inline)) void quad_loop(uint32_t *p00, uint32_t *p01,
                                                            uint32_t *p10, uint32_t *p11,
                                                            const int8_t **px, const int8_t **pw,
                                                            int32_t k, int32_t quads) {
  uint32_t s00 = *p00, s01 = *p01, s10 = *p10, s11 = *p11, t0, t1, t2, t3, t4, t5;
  const int8_t *x = *px, *w = *pw;
  int32_t kk = k - 4, n = quads;
  __asm__ volatile("1:\n\t"
                   "ldr %[t0], [%[x]], #4\n\t"
                   "ldr %[t1], [%[x], %[kk]]\n\t"
                   "ldr %[t2], [%[w]], #4\n\t"
                   "sxtb16 %[t3], %[t0]\n\t"
                   "sxtb16 %[t0], %[t0], ror #8\n\t"
                   "sxtb16 %[t4], %[t1]\n\t"
                   "sxtb16 %[t1], %[t1], ror #8\n\t"
                   "sxtb16 %[t5], %[t2]\n\t"
                   "sxtb16 %[t2], %[t2], ror #8\n\t"
                   "smlad %[s00], %[t3], %[t5], %[s00]\n\t"
                   "smlad %[s00], %[t0], %[t2], %[s00]\n\t"
                   "smlad %[s10], %[t4], %[t5], %[s10]\n\t"
                   "smlad %[s10], %[t1], %[t2], %[s10]\n\t"
                   "ldr %[t2], [%[w], %[kk]]\n\t"
                   "sxtb16 %[t5], %[t2]\n\t"
                   "sxtb16 %[t2], %[t2], ror #8\n\t"
                   "smlad %[s01], %[t3], %[t5], %[s01]\n\t"
                   "smlad %[s01], %[t0], %[t2], %[s01]\n\t"
                   "smlad %[s11], %[t4], %[t5], %[s11]\n\t"
                   "smlad %[s11], %[t1], %[t2], %[s11]\n\t"
                   "subs %[n], %[n], #1\n\t"
                   "bne 1b"
                   : [s00] "+r"(s00), [s01] "+r"(s01), [s10] "+r"(s10), [s11] "+r"(s11),
                     [x] "+r"(x), [w] "+r"(w), [n] "+r"(n), [t0] "=&r"(t0), [t1] "=&r"(t1),
                     [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5)
                   : [kk] "r"(kk)
                   : "cc", "memory");
  *p00 = s00, *p01 = s01, *p10 = s10, *p11 = s11, *px = x, *pw = w;
}
#endif

/* Two rows (a1 = a0 + k) by two output channels (w1 = w0 + k): one register holds k for both
 * second operands, so the loop's pointers, sums and widened words fit the core's registers.
 * The four sums of a pair of prepared channels are stored with the constants loaded once. */
void ap_fast_dsp_rows2(const ap_qgemm *g, const int8_t *a0, const int8_t *a1, int8_t *out,
                       size_t out_stride) {
  if (!a1) {
    one_row(g, a0, out);
    return;
  }
  int8_t *o1 = out + out_stride;
  const int32_t *cb = g->col_bias, *mult = g->mult, *shift = g->shift;
  const int8_t *w = g->w;
  int32_t k = g->k, quads = k >> 2, n = g->n, c = 0;
  bool full = g->act_min == -128 && g->act_max == 127; /* SSAT clamps */
  for (; c + 2 <= n; c += 2, w += 2 * (size_t)k) {
    uint32_t s00 = (uint32_t)cb[c], s01 = (uint32_t)cb[c + 1];
    uint32_t s10 = s00, s11 = s01;
    const int8_t *x = a0, *wp = w;
#if AP_DSP_NATIVE
    if (quads > 0) quad_loop(&s00, &s01, &s10, &s11, &x, &wp, k, quads);
#else
    for (int32_t q = quads; q > 0; q--, x += 4, wp += 4) {
      uint32_t x0 = ap_dsp_load32(x), x1 = ap_dsp_load32(x + k);
      uint32_t x0e = ap_sxtb16(x0), x0o = ap_sxtb16_ror8(x0);
      uint32_t x1e = ap_sxtb16(x1), x1o = ap_sxtb16_ror8(x1);
      uint32_t v = ap_dsp_load32(wp), ve = ap_sxtb16(v), vo = ap_sxtb16_ror8(v);
      s00 = ap_smlad(x0e, ve, s00);
      s00 = ap_smlad(x0o, vo, s00);
      s10 = ap_smlad(x1e, ve, s10);
      s10 = ap_smlad(x1o, vo, s10);
      v = ap_dsp_load32(wp + k), ve = ap_sxtb16(v), vo = ap_sxtb16_ror8(v);
      s01 = ap_smlad(x0e, ve, s01);
      s01 = ap_smlad(x0o, vo, s01);
      s11 = ap_smlad(x1e, ve, s11);
      s11 = ap_smlad(x1o, vo, s11);
    }
#endif
    for (int32_t i = quads * 4; i < k; i++, wp++) {
      s00 += (uint32_t)(a0[i] * wp[0]);
      s01 += (uint32_t)(a0[i] * wp[k]);
      s10 += (uint32_t)(a1[i] * wp[0]);
      s11 += (uint32_t)(a1[i] * wp[k]);
    }
    uint32_t b0 = (uint32_t)shift[c], b1 = (uint32_t)shift[c + 1];
    if (ap_dsp_rqb_fast(b0) && ap_dsp_rqb_fast(b1) && full) {
      int32_t m0 = mult[c], m1 = mult[c + 1], off = g->out_off;
      out[c] = (int8_t)ap_dsp_ssat8(ap_dsp_rqb_apply(s00, m0, b0) + off);
      o1[c] = (int8_t)ap_dsp_ssat8(ap_dsp_rqb_apply(s10, m0, b0) + off);
      out[c + 1] = (int8_t)ap_dsp_ssat8(ap_dsp_rqb_apply(s01, m1, b1) + off);
      o1[c + 1] = (int8_t)ap_dsp_ssat8(ap_dsp_rqb_apply(s11, m1, b1) + off);
    } else if (ap_dsp_rqb_fast(b0) && ap_dsp_rqb_fast(b1)) {
      int32_t m0 = mult[c], m1 = mult[c + 1], off = g->out_off, lo = g->act_min, hi = g->act_max;
      out[c] = (int8_t)rq_fast(s00, m0, b0, off, lo, hi);
      o1[c] = (int8_t)rq_fast(s10, m0, b0, off, lo, hi);
      out[c + 1] = (int8_t)rq_fast(s01, m1, b1, off, lo, hi);
      o1[c + 1] = (int8_t)rq_fast(s11, m1, b1, off, lo, hi);
    } else {
      store_rqc(g, c, s00, s10, out, o1);
      store_rqc(g, c + 1, s01, s11, out, o1);
    }
  }
  if (c < n) { /* the last of an odd channel count */
    uint32_t s0 = (uint32_t)cb[c], s1 = s0;
    for (int32_t i = 0; i < k; i++) {
      s0 += (uint32_t)(a0[i] * w[i]);
      s1 += (uint32_t)(a1[i] * w[i]);
    }
    store(g, c, s0, s1, out, o1);
  }
}

/* The kit's product over rows of a (ap_fast_dsp_arow's bytes, arow_bytes apart: the streamed
 * segments' rows), one row at a time. */
void ap_fast_dsp_gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc_ws, int8_t *out,
                      size_t out_stride) {
  (void)acc_ws;
  size_t stride = ap_fast_dsp_arow_bytes(g->k);
  for (int32_t r = 0; r < rows; r++)
    one_row(g, (const int8_t *)a + (size_t)r * stride, out + (size_t)r * out_stride);
}
