/* The Helium level's int8 FULLY_CONNECTED rows and the level itself. A unit's sum is
 * VMLADAVA over sixteen bytes of x and of its weights at a time (the depth's tail predicated),
 * with VADDVA summing the weights alongside: sum (x + in_off) w = sum x w + in_off sum w, modulo
 * 2^32 as every level's sums. */
#include "kernels/fast/dsp_acle.h"
#include "kernels/fast/mve.h"

#if AP_MVE_NATIVE
void ap_fast_mve_fc(const ap_qfc *f, int32_t u0, int32_t u1) {
  int32_t k = f->depth;
  for (int32_t b = 0; b < f->batches; b++) {
    const int8_t *x = f->x + (size_t)b * (size_t)k;
    uint32_t corr = f->filter_off ? (uint32_t)f->filter_off * ap_fast_row_sum(x, k, f->in_off) : 0;
    for (int32_t u = u0; u < u1; u++) {
      const int8_t *w = f->w + (size_t)u * (size_t)k;
      int32_t s = 0, sw = 0;
      for (int32_t i = 0; i < k; i += 16) {
        mve_pred16_t p = vctp8q((uint32_t)(k - i));
        int8x16_t wv = vldrbq_z_s8(w + i, p);
        s = vmladavaq_s8(s, vldrbq_z_s8(x + i, p), wv);
        sw = vaddvaq_s8(sw, wv);
      }
      uint32_t acc = corr + (uint32_t)s + (uint32_t)sw * (uint32_t)f->in_off;
      if (f->bias) acc += (uint32_t)f->bias[u];
      f->out[(size_t)b * (size_t)f->units + (size_t)u] =
          ap_dsp_requant(acc, f->qmult ? f->qmult[u] : f->mult1,
                         f->qshift ? f->qshift[u] : f->shift1, f->out_off, f->act_min, f->act_max);
    }
  }
}

/* The Helium level: the DSP level's table with the MVE kernels. */
const ap_fast_level ap_fast_mve_level = {
    .name = "mve",
    .level = AP_SIMD_GENERIC,
    .gemm = {1, ap_fast_dsp_packed_bytes, ap_fast_mve_pack, ap_fast_dsp_arow_bytes,
             ap_fast_dsp_arow, ap_fast_mve_gemm, ap_fast_mve_rows2},
    .dw = ap_fast_mve_dw,
    .fc = ap_fast_mve_fc,
};
#endif

const ap_fast_level *ap_fast_mve(void) {
#if AP_MVE_NATIVE
  return &ap_fast_mve_level;
#else
  return ap_fast_dsp();
#endif
}
