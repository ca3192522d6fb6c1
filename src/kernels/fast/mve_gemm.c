/* The Helium level's int8 matrix product (CONV_2D's rows of patches, 1x1 rows read in place):
 * one row by four output channels per inner loop. VMLADAVA multiplies sixteen int8 pairs and
 * adds the products to a scalar sum, so sixteen bytes of the row against four channels' are
 * one load of the row, four of weights and four VMLADAVAs; the depth's tail (k % 16) is one
 * more step predicated (VCTP: lanes past k load zero and are not read). The four sums then
 * requantize as one vector with their channels' multipliers and shifts (ap_mve_requant) and store
 * as four bytes.
 *
 * The input offset is folded into col_bias as the DSP level does (ap_fast_dsp_pack: sum_k (x +
 * off) w = sum_k x w + off sum_k w modulo 2^32), and rows of a are the patch's int8 bytes
 * (ap_fast_dsp_arow), so the scratch sizes are the generic level's. */
#include "kernels/fast/mve.h"

#if AP_MVE_NATIVE
/* One row a into out: channels four at a time (the last block predicated). */
static void one_row(const ap_qgemm *g, const int8_t *a, int8_t *out) {
  int32_t k = g->k, n = g->n;
  for (int32_t c = 0; c < n; c += 4) {
    int32_t left = n - c;
    const int8_t *w0 = g->w + (size_t)c * (size_t)k;
    /* Channels past n read channel c's weights again; their lanes are not stored. */
    const int8_t *w1 = left > 1 ? w0 + k : w0, *w2 = left > 2 ? w0 + 2 * k : w0;
    const int8_t *w3 = left > 3 ? w0 + 3 * k : w0;
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    const int8_t *x = a;
    for (int32_t i = k >> 4; i > 0; i--, x += 16, w0 += 16, w1 += 16, w2 += 16, w3 += 16) {
      int8x16_t xv = vld1q_s8(x);
      s0 = vmladavaq_s8(s0, xv, vld1q_s8(w0));
      s1 = vmladavaq_s8(s1, xv, vld1q_s8(w1));
      s2 = vmladavaq_s8(s2, xv, vld1q_s8(w2));
      s3 = vmladavaq_s8(s3, xv, vld1q_s8(w3));
    }
    if (k & 15) {
      mve_pred16_t p = vctp8q((uint32_t)(k & 15));
      int8x16_t xv = vldrbq_z_s8(x, p);
      s0 = vmladavaq_s8(s0, xv, vldrbq_z_s8(w0, p));
      s1 = vmladavaq_s8(s1, xv, vldrbq_z_s8(w1, p));
      s2 = vmladavaq_s8(s2, xv, vldrbq_z_s8(w2, p));
      s3 = vmladavaq_s8(s3, xv, vldrbq_z_s8(w3, p));
    }
    mve_pred16_t pc = vctp32q((uint32_t)left);
    int32x4_t v = vdupq_n_s32(s0);
    v = vsetq_lane_s32(s1, v, 1);
    v = vsetq_lane_s32(s2, v, 2);
    v = vsetq_lane_s32(s3, v, 3);
    v = vaddq_s32(v, vldrwq_z_s32(g->col_bias + c, pc));
    v = ap_mve_requant(v, vldrwq_z_s32(g->mult + c, pc), vldrwq_z_s32(g->shift + c, pc));
    vstrbq_p_s32(out + c, ap_mve_clamp(v, g->out_off, g->act_min, g->act_max), pc);
  }
}

/* Two rows (a1 = a0 + k, or NULL) one after the other. */
void ap_fast_mve_rows2(const ap_qgemm *g, const int8_t *a0, const int8_t *a1, int8_t *out,
                       size_t out_stride) {
  one_row(g, a0, out);
  if (a1) one_row(g, a1, out + out_stride);
}

/* The kit's product over rows of a (arow_bytes apart), one row at a time. */
void ap_fast_mve_gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc_ws, int8_t *out,
                      size_t out_stride) {
  (void)acc_ws;
  size_t stride = ap_fast_dsp_arow_bytes(g->k);
  for (int32_t r = 0; r < rows; r++)
    one_row(g, (const int8_t *)a + (size_t)r * stride, out + (size_t)r * out_stride);
}
#endif
