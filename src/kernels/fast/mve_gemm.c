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

#include <string.h>

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

/* nrows rows in place, k bytes apart, four at a time: each four rows' outputs go to acc_ws
 * (4 n bytes: the mr = 1 rows of n int32 the plan holds for every level) and from there to out,
 * so outputs planned over their rows (in place) overwrite only rows every channel has read. */
void ap_fast_mve_rowsn(const ap_qgemm *g, const int8_t *a, int32_t nrows, int32_t *acc_ws,
                       int8_t *out, size_t out_stride) {
  int8_t *buf = (int8_t *)acc_ws;
  size_t n = (size_t)g->n;
  for (int32_t r = 0; r < nrows; r += 4) {
    int32_t now = nrows - r < 4 ? nrows - r : 4;
    rows(g, a + (size_t)r * (size_t)g->k, now, buf, n);
    for (int32_t i = 0; i < now; i++)
      memcpy(out + (size_t)(r + i) * out_stride, buf + (size_t)i * n, n);
  }
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
