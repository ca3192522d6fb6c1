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
      for (; i + 4 <= k; i += 4) {
        uint32_t v = ap_dsp_load32(wc + i);
        s = ap_smlad(ap_sxtb16(v), ones, s);
        s = ap_smlad(ap_sxtb16_ror8(v), ones, s);
      }
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

/* Channel c's sums s0 (row 0) and s1 (row 1, when o1) into the outputs. */
static inline __attribute__((always_inline)) void store(const ap_qgemm *g, int32_t c, uint32_t s0,
                                                        uint32_t s1, int8_t *o0, int8_t *o1) {
  int32_t sh = g->shift[c];
  ap_dsp_rqc q = ap_dsp_rqc_of(g->mult[c], sh);
  o0[c] = ap_dsp_clamp8(ap_dsp_rqc_apply(&q, s0, sh), g->out_off, g->act_min, g->act_max);
  if (o1) o1[c] = ap_dsp_clamp8(ap_dsp_rqc_apply(&q, s1, sh), g->out_off, g->act_min, g->act_max);
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

/* Two rows (a1 = a0 + k) by two output channels (w1 = w0 + k): one register holds k for both
 * second operands, so the loop's pointers, sums and widened words fit the core's registers. */
void ap_fast_dsp_rows2(const ap_qgemm *g, const int8_t *a0, const int8_t *a1, int8_t *out,
                       size_t out_stride) {
  if (!a1) {
    one_row(g, a0, out);
    return;
  }
  int8_t *o1 = out + out_stride;
  int32_t k = g->k, k4 = k & ~3, c = 0;
  for (; c + 2 <= g->n; c += 2) {
    const int8_t *w = g->w + (size_t)c * (size_t)k;
    uint32_t s00 = (uint32_t)g->col_bias[c], s01 = (uint32_t)g->col_bias[c + 1];
    uint32_t s10 = s00, s11 = s01;
    const int8_t *x = a0, *xend = a0 + k4;
    for (; x < xend; x += 4, w += 4) {
      uint32_t x0 = ap_dsp_load32(x), x1 = ap_dsp_load32(x + k);
      uint32_t x0e = ap_sxtb16(x0), x0o = ap_sxtb16_ror8(x0);
      uint32_t x1e = ap_sxtb16(x1), x1o = ap_sxtb16_ror8(x1);
      uint32_t v = ap_dsp_load32(w), ve = ap_sxtb16(v), vo = ap_sxtb16_ror8(v);
      s00 = ap_smlad(x0e, ve, s00);
      s00 = ap_smlad(x0o, vo, s00);
      s10 = ap_smlad(x1e, ve, s10);
      s10 = ap_smlad(x1o, vo, s10);
      v = ap_dsp_load32(w + k), ve = ap_sxtb16(v), vo = ap_sxtb16_ror8(v);
      s01 = ap_smlad(x0e, ve, s01);
      s01 = ap_smlad(x0o, vo, s01);
      s11 = ap_smlad(x1e, ve, s11);
      s11 = ap_smlad(x1o, vo, s11);
    }
    for (int32_t i = k4; i < k; i++, w++) {
      s00 += (uint32_t)(a0[i] * w[0]);
      s01 += (uint32_t)(a0[i] * w[k]);
      s10 += (uint32_t)(a1[i] * w[0]);
      s11 += (uint32_t)(a1[i] * w[k]);
    }
    store(g, c, s00, s10, out, o1);
    store(g, c + 1, s01, s11, out, o1);
  }
  if (c < g->n) { /* the last of an odd channel count */
    const int8_t *w = g->w + (size_t)c * (size_t)k;
    uint32_t s0 = (uint32_t)g->col_bias[c], s1 = s0;
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
