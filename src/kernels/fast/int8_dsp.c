/* The DSP level: the int8 kernels of the generic level rewritten for the Armv7E-M / Armv8-M DSP
 * extension (Cortex-M4, M7, M33, M55): the matrix product (dsp_gemm.c), depthwise
 * (dsp_dw.c) and fully connected rows (here). SXTB16 widens two int8 values to int16 lanes and
 * SMLAD multiplies two lane pairs into a sum. The sums are modular 32-bit like the generic
 * level's (SMLAD wraps; its Q flag is never read) and every operand fits int16 (x + input offset
 * is within +-255), so the results are the reference's bit for bit. Scratch sizes are the
 * generic level's exactly (same row bytes, one row per call, no packed weights), so a plan made
 * on the host for the portable level holds this one (src/runtime/planned.c runs it on such
 * cores). On a core without the extension (a host) the same source is built with dsp_acle.h's
 * C forms of the instructions: its tests run it there (ap_fast_dsp_level). */
#include "kernels/fast/dsp.h"
#include "kernels/fast/dsp_acle.h"

/* Fully connected, two units at a time: each word of x widened once (and offset by SADD16)
 * for both units' weights. */
void ap_fast_dsp_fc(const ap_qfc *f, int32_t u0, int32_t u1) {
  uint32_t off2 = ap_dsp_dup16(f->in_off);
  for (int32_t b = 0; b < f->batches; b++) {
    const int8_t *x = f->x + (size_t)b * f->depth;
    uint32_t corr =
        f->filter_off ? (uint32_t)f->filter_off * ap_fast_row_sum(x, f->depth, f->in_off) : 0;
    for (int32_t u = u0; u < u1; u += 2) {
      bool two = u + 1 < u1;
      const int8_t *w0 = f->w + (size_t)u * f->depth, *w1 = two ? w0 + f->depth : w0;
      uint32_t a0 = corr, a1 = corr;
      int32_t i = 0;
      for (; i + 4 <= f->depth; i += 4) {
        uint32_t xw = ap_dsp_load32(x + i);
        uint32_t x02 = ap_sadd16(ap_sxtb16(xw), off2), x13 = ap_sadd16(ap_sxtb16_ror8(xw), off2);
        uint32_t v = ap_dsp_load32(w0 + i);
        a0 = ap_smlad(x02, ap_sxtb16(v), a0);
        a0 = ap_smlad(x13, ap_sxtb16_ror8(v), a0);
        v = ap_dsp_load32(w1 + i);
        a1 = ap_smlad(x02, ap_sxtb16(v), a1);
        a1 = ap_smlad(x13, ap_sxtb16_ror8(v), a1);
      }
      for (; i < f->depth; i++) {
        a0 += (uint32_t)((x[i] + f->in_off) * w0[i]);
        a1 += (uint32_t)((x[i] + f->in_off) * w1[i]);
      }
      for (int32_t j = 0; j < (two ? 2 : 1); j++) {
        uint32_t acc = j ? a1 : a0;
        if (f->bias) acc += (uint32_t)f->bias[u + j];
        f->out[(size_t)b * f->units + u + j] = ap_dsp_requant(
            acc, f->qmult ? f->qmult[u + j] : f->mult1, f->qshift ? f->qshift[u + j] : f->shift1,
            f->out_off, f->act_min, f->act_max);
      }
    }
  }
}

/* The DSP level: the int8 matrix product, fully connected and depthwise rows. It does not copy
 * the generic level's table: a table links every kernel it points at, and a firmware must link
 * only its model's (the other types' ops run their reference kernels here). */
const ap_fast_level ap_fast_dsp_level = {
    .name = "dsp",
    .level = AP_SIMD_GENERIC,
    .gemm = {1, ap_fast_dsp_packed_bytes, ap_fast_dsp_pack, ap_fast_dsp_arow_bytes,
             ap_fast_dsp_arow, ap_fast_dsp_gemm, ap_fast_dsp_rows2},
    .dw = ap_fast_dsp_dw,
    .fc = ap_fast_dsp_fc,
};

const ap_fast_level *ap_fast_dsp(void) {
  return AP_DSP_NATIVE ? &ap_fast_dsp_level : &ap_fast_generic;
}
