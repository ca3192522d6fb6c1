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
 * made for the portable level holds this one; rows2 takes its second patch row in the row of a
 * that the generic level widens into (2k bytes, at least the k a patch needs). */
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

/* Sums s[0..cols) of channels c.. into o0 (and o1 from s[2]): one copy of the requantization
 * (called once per four outputs, it costs a firmware less flash than four inline copies). */
static inline void store(const ap_qgemm *g, int32_t c, int32_t cols, const uint32_t *s, int8_t *o0,
                         int8_t *o1) {
  for (int32_t r = 0; r < (o1 ? 2 : 1); r++)
    for (int32_t j = 0; j < cols; j++)
      (r ? o1 : o0)[c + j] =
          ap_fast_requant_inline((int32_t)s[2 * r + j], g->mult[c + j], g->shift[c + j], g->out_off,
                                 g->act_min, g->act_max);
}

/* Output channel c alone (the last of an odd count) for rows a0 and a1. */
static void one_channel(const ap_qgemm *g, int32_t c, const int8_t *a0, const int8_t *a1,
                        int8_t *o0, int8_t *o1) {
  const int8_t *w = g->w + (size_t)c * (size_t)g->k;
  uint32_t s0 = (uint32_t)g->col_bias[c], s1 = s0;
  int32_t i = 0;
  for (; i + 4 <= g->k; i += 4) {
    uint32_t x0 = ap_dsp_load32(a0 + i), x1 = ap_dsp_load32(a1 + i), v = ap_dsp_load32(w + i);
    uint32_t ve = ap_sxtb16(v), vo = ap_sxtb16_ror8(v);
    s0 = ap_smlad(ap_sxtb16(x0), ve, s0);
    s0 = ap_smlad(ap_sxtb16_ror8(x0), vo, s0);
    s1 = ap_smlad(ap_sxtb16(x1), ve, s1);
    s1 = ap_smlad(ap_sxtb16_ror8(x1), vo, s1);
  }
  for (; i < g->k; i++) {
    s0 += (uint32_t)(a0[i] * w[i]);
    s1 += (uint32_t)(a1[i] * w[i]);
  }
  uint32_t s[4] = {s0, 0, s1, 0};
  store(g, c, 1, s, o0, o1);
}

void ap_fast_dsp_rows2(const ap_qgemm *g, const int8_t *a0, const int8_t *a1, int8_t *out,
                       size_t out_stride) {
  /* One row: it runs beside itself, its second sums unused. */
  int8_t *o1 = a1 ? out + out_stride : NULL;
  if (!a1) a1 = a0;
  int32_t k = g->k, c = 0;
  for (; c + 2 <= g->n; c += 2) {
    const int8_t *w0 = g->w + (size_t)c * (size_t)k, *w1 = w0 + k;
    uint32_t s00 = (uint32_t)g->col_bias[c], s01 = (uint32_t)g->col_bias[c + 1];
    uint32_t s10 = s00, s11 = s01;
    int32_t i = 0;
    for (; i + 4 <= k; i += 4) {
      uint32_t x0 = ap_dsp_load32(a0 + i), x1 = ap_dsp_load32(a1 + i);
      uint32_t x0e = ap_sxtb16(x0), x0o = ap_sxtb16_ror8(x0);
      uint32_t x1e = ap_sxtb16(x1), x1o = ap_sxtb16_ror8(x1);
      uint32_t v = ap_dsp_load32(w0 + i), ve = ap_sxtb16(v), vo = ap_sxtb16_ror8(v);
      s00 = ap_smlad(x0e, ve, s00);
      s00 = ap_smlad(x0o, vo, s00);
      s10 = ap_smlad(x1e, ve, s10);
      s10 = ap_smlad(x1o, vo, s10);
      v = ap_dsp_load32(w1 + i), ve = ap_sxtb16(v), vo = ap_sxtb16_ror8(v);
      s01 = ap_smlad(x0e, ve, s01);
      s01 = ap_smlad(x0o, vo, s01);
      s11 = ap_smlad(x1e, ve, s11);
      s11 = ap_smlad(x1o, vo, s11);
    }
    for (; i < k; i++) {
      s00 += (uint32_t)(a0[i] * w0[i]);
      s01 += (uint32_t)(a0[i] * w1[i]);
      s10 += (uint32_t)(a1[i] * w0[i]);
      s11 += (uint32_t)(a1[i] * w1[i]);
    }
    uint32_t s[4] = {s00, s01, s10, s11};
    store(g, c, 2, s, out, o1);
  }
  if (c < g->n) one_channel(g, c, a0, a1, out, o1);
}

/* The kit's product over rows of a (ap_fast_dsp_arow's bytes), two at a time. */
void ap_fast_dsp_gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc_ws, int8_t *out,
                      size_t out_stride) {
  (void)acc_ws;
  size_t stride = ap_fast_dsp_arow_bytes(g->k);
  const int8_t *x = a;
  for (int32_t r = 0; r < rows; r += 2)
    ap_fast_dsp_rows2(g, x + (size_t)r * stride, r + 1 < rows ? x + (size_t)(r + 1) * stride : NULL,
                      out + (size_t)r * out_stride, out_stride);
}
