/* The Helium level's int8 matrix product (CONV_2D's rows of patches, 1x1 rows read in place):
 * one row by four output channels per inner loop, two rows per block of channels. VMLADAVA
 * multiplies sixteen int8 pairs and adds the products to a scalar sum, so sixteen bytes of the row
 * against four channels' are one load of the row, four of weights and four VMLADAVAs; the depth's
 * tail (k % 16) is one more step predicated (VCTP: lanes past k load zero and are not read). The
 * four sums then requantize as one vector with their channels' multipliers and shifts
 * (ap_mve_requant) and store as four bytes.
 *
 * The input offset is folded into col_bias as the DSP level does (ap_fast_dsp_pack: sum_k (x +
 * off) w = sum_k x w + off sum_k w modulo 2^32), and rows of a are the patch's int8 bytes
 * (ap_fast_dsp_arow), so the scratch sizes are the generic level's. */
#include "kernels/fast/mve.h"

#if AP_MVE_NATIVE
/* Rows a0 and a1 (NULL: a0 alone) into o0 and o1 = o0 + stride, output channels two at a
 * time: the four sums (row 0 and 1 by channel c and c + 1) are one vector, lanes
 * {r0 c, r0 c+1, r1 c, r1 c+1}, requantized with constants gathered at offsets {0, 1, 0, 1} and
 * scattered to o0[c], o0[c + 1], o1[c], o1[c + 1] by one VSTRB. Predicated off: row 1's lanes
 * when a1 is NULL, channel c + 1's when c + 1 = n. */
static void rows(const ap_qgemm *g, const int8_t *a0, const int8_t *a1, int8_t *o0, size_t stride) {
  int32_t k = g->k, n = g->n, k16 = k >> 4;
  int32_t off = g->out_off, lo = g->act_min, hi = g->act_max;
  const int32_t *cb = g->col_bias, *mu = g->mult, *sh = g->shift;
  mve_pred16_t pt = vctp8q((uint32_t)(k & 15));
  mve_pred16_t rows_p = a1 ? 0xffff : 0x00ff;
  if (!a1) a1 = a0;
  /* {0, 1, 0, 1} and {0, 1, stride, stride + 1}. */
  uint32x4_t pair = vandq_u32(vidupq_n_u32(0, 1), vdupq_n_u32(1));
  uint32x4_t dst =
      vaddq_u32(pair, vmulq_n_u32(vshrq_n_u32(vidupq_n_u32(0, 1), 1), (uint32_t)stride));
  const int8_t *w0 = g->w;
  for (int32_t c = 0; c < n; c += 2, w0 += 2 * (size_t)k) {
    bool two = c + 1 < n;
    const int8_t *w1 = two ? w0 + k : w0;
    mve_pred16_t p = two ? rows_p : (mve_pred16_t)(rows_p & 0x0f0f);
    const int8_t *x0 = a0, *x1 = a1, *v0 = w0;
    int32_t s00 = 0, s01 = 0, s10 = 0, s11 = 0;
    for (int32_t i = k16; i > 0; i--, x0 += 16, x1 += 16, v0 += 16, w1 += 16) {
      int8x16_t xa = vld1q_s8(x0), xb = vld1q_s8(x1), wa = vld1q_s8(v0), wb = vld1q_s8(w1);
      s00 = vmladavaq_s8(s00, xa, wa);
      s01 = vmladavaq_s8(s01, xa, wb);
      s10 = vmladavaq_s8(s10, xb, wa);
      s11 = vmladavaq_s8(s11, xb, wb);
    }
    if (k & 15) {
      int8x16_t xa = vldrbq_z_s8(x0, pt), xb = vldrbq_z_s8(x1, pt);
      int8x16_t wa = vldrbq_z_s8(v0, pt), wb = vldrbq_z_s8(w1, pt);
      s00 = vmladavaq_s8(s00, xa, wa);
      s01 = vmladavaq_s8(s01, xa, wb);
      s10 = vmladavaq_s8(s10, xb, wa);
      s11 = vmladavaq_s8(s11, xb, wb);
    }
    int32x4_t v = vdupq_n_s32(s00);
    v = vsetq_lane_s32(s01, v, 1);
    v = vsetq_lane_s32(s10, v, 2);
    v = vsetq_lane_s32(s11, v, 3);
    v = vaddq_s32(v, vldrwq_gather_shifted_offset_z_s32(cb + c, pair, p));
    v = ap_mve_requant(v, vldrwq_gather_shifted_offset_z_s32(mu + c, pair, p),
                       vldrwq_gather_shifted_offset_z_s32(sh + c, pair, p));
    vstrbq_scatter_offset_p_s32(o0 + c, dst, ap_mve_clamp(v, off, lo, hi), p);
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
  rows(g, a0, a1, out, out_stride);
}

/* The kit's product over rows of a (arow_bytes apart), two at a time. */
void ap_fast_mve_gemm(const ap_qgemm *g, const void *a, int32_t nrows, int32_t *acc_ws, int8_t *out,
                      size_t out_stride) {
  (void)acc_ws;
  size_t stride = ap_fast_dsp_arow_bytes(g->k);
  const int8_t *a8 = a;
  for (int32_t r = 0; r < nrows; r += 2)
    rows(g, a8 + (size_t)r * stride, r + 1 < nrows ? a8 + (size_t)(r + 1) * stride : NULL,
         out + (size_t)r * out_stride, out_stride);
}
#endif
