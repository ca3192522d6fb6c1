/* The DSP level's small family (dsp-small): the int8 matrix product, depthwise and fully
 * connected rows in the least flash, for a firmware whose flash is tighter than its time (the
 * streamed person_detect of issue 18; the registration picks it, kernels/registry.c's
 * AP_REGISTRY_FAMILY). One row by two output channels on SMLAD over int16 rows of
 * (x + input offset); depthwise four channels a step for depth multiplier 1 (the generic
 * level's loop otherwise); requantization through ap_kq_mul, one copy. The same scratch sizes
 * and results as the generic level and the fast family (int8_dsp.c says why they are exact). */
#include "kernels/fast/dsp.h"

#include "kernels/fast/dsp_acle.h"
#include "kernels/fast/dw_taps.h"

#define load32 ap_dsp_load32
#define ror8 ap_dsp_ror8
#define requant ap_fast_requant /* a call to ap_kq_mul (the fast family's is inline) */

static size_t packed_bytes(int32_t n, int32_t k) {
  (void)n, (void)k;
  return 0; /* reads the weights in place */
}

static void pack(const int8_t *w, int32_t n, int32_t k, const int32_t *bias, int32_t in_off,
                 void *packed, int32_t *col_bias) {
  (void)w, (void)k, (void)in_off, (void)packed;
  for (int32_t c = 0; c < n; c++)
    col_bias[c] = bias ? bias[c] : 0;
}

static size_t arow_bytes(int32_t k) {
  return ap_kscratch_round((size_t)k * 2); /* the generic level's */
}

/* Each group of four values as lanes (0, 2), (1, 3): the order SXTB16 gives the weights. */
static void arow(const int8_t *src, int32_t k, int32_t in_off, void *dst) {
  int16_t *a = dst;
  int32_t i = 0;
  for (; i + 4 <= k; i += 4) {
    a[i] = (int16_t)(src[i] + in_off);
    a[i + 1] = (int16_t)(src[i + 2] + in_off);
    a[i + 2] = (int16_t)(src[i + 1] + in_off);
    a[i + 3] = (int16_t)(src[i + 3] + in_off);
  }
  for (; i < k; i++)
    a[i] = (int16_t)(src[i] + in_off);
}

/* Two columns' sums over one row in arow's order, modulo 2^32: each pair of activation words
 * loaded once for both. */
static void dot2(const int16_t *x, const int8_t *w0, const int8_t *w1, int32_t k, uint32_t *s0,
                 uint32_t *s1) {
  uint32_t a0 = *s0, a1 = *s1;
  int32_t i = 0;
  for (; i + 4 <= k; i += 4) {
    uint32_t x02 = load32(x + i), x13 = load32(x + i + 2);
    uint32_t v0 = load32(w0 + i), v1 = load32(w1 + i);
    a0 = ap_smlad(x02, ap_sxtb16(v0), a0);
    a0 = ap_smlad(x13, ap_sxtb16(ror8(v0)), a0);
    a1 = ap_smlad(x02, ap_sxtb16(v1), a1);
    a1 = ap_smlad(x13, ap_sxtb16(ror8(v1)), a1);
  }
  for (; i < k; i++) {
    a0 += (uint32_t)(x[i] * w0[i]);
    a1 += (uint32_t)(x[i] * w1[i]);
  }
  *s0 = a0;
  *s1 = a1;
}

static void gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc_ws, int8_t *out,
                 size_t out_stride) {
  (void)acc_ws;
  size_t stride = arow_bytes(g->k) / 2;
  for (int32_t r = 0; r < rows; r++) {
    const int16_t *x = (const int16_t *)a + (size_t)r * stride;
    int8_t *o = out + (size_t)r * out_stride;
    for (int32_t c = 0; c < g->n; c += 2) {
      const int8_t *w = g->w + (size_t)c * g->k;
      /* An odd last column runs beside itself (its second sum unused). */
      bool two = c + 1 < g->n;
      uint32_t s0 = (uint32_t)g->col_bias[c], s1 = two ? (uint32_t)g->col_bias[c + 1] : 0;
      dot2(x, w, two ? w + g->k : w, g->k, &s0, &s1);
      for (int32_t j = c; j < c + 2 && j < g->n; j++)
        o[j] = requant((int32_t)(j == c ? s0 : s1), g->mult[j], g->shift[j], g->out_off, g->act_min,
                       g->act_max);
    }
  }
}

static void fc(const ap_qfc *f, int32_t u0, int32_t u1) {
  /* (x + in_off) in both lanes of a word: SADD16 adds it to two widened values at once. */
  uint32_t off2 = ((uint32_t)f->in_off & 0xffffu) * 0x10001u;
  for (int32_t b = 0; b < f->batches; b++) {
    const int8_t *x = f->x + (size_t)b * f->depth;
    uint32_t corr =
        f->filter_off ? (uint32_t)f->filter_off * ap_fast_row_sum(x, f->depth, f->in_off) : 0;
    for (int32_t u = u0; u < u1; u++) {
      const int8_t *w = f->w + (size_t)u * f->depth;
      uint32_t acc = corr;
      int32_t i = 0;
      for (; i + 4 <= f->depth; i += 4) {
        uint32_t xw = load32(x + i), ww = load32(w + i);
        uint32_t x02 = ap_sadd16(ap_sxtb16(xw), off2);
        uint32_t x13 = ap_sadd16(ap_sxtb16(ror8(xw)), off2);
        acc = ap_smlad(x02, ap_sxtb16(ww), acc);
        acc = ap_smlad(x13, ap_sxtb16(ror8(ww)), acc);
      }
      for (; i < f->depth; i++)
        acc += (uint32_t)((x[i] + f->in_off) * w[i]);
      if (f->bias) acc += (uint32_t)f->bias[u];
      f->out[(size_t)b * f->units + u] =
          requant((int32_t)acc, f->qmult ? f->qmult[u] : f->mult1,
                  f->qshift ? f->qshift[u] : f->shift1, f->out_off, f->act_min, f->act_max);
    }
  }
}

/* Depthwise, one channel per input channel and channels in fours: per output pixel and four
 * channels, the valid taps' products go to four sums in registers (SMLABB / SMLATT take the
 * widened lanes one at a time); padded taps are skipped, as the reference does. Any other
 * shape runs the generic level's loop. */
static void dw(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws) {
  if (d->mult != 1 || d->out_d % 4 != 0 || d->in_d != d->out_d) {
    ap_fast_generic_dw(d, b, oy0, oy1, ws); /* by name: see the table */
    return;
  }
  uint32_t off2 = ((uint32_t)d->in_off & 0xffffu) * 0x10001u;
  size_t row = (size_t)d->in_w * (size_t)d->in_d;
  const int8_t *in = d->in + (size_t)b * d->in_h * row;
  for (int32_t oy = oy0; oy < oy1; oy++) {
    int32_t y0 = oy * d->stride_h - d->pad_h, fy0, fy1;
    ap_fast_dw_tap_range(y0, d->dil_h, d->f_h, d->in_h, &fy0, &fy1);
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int32_t x0 = ox * d->stride_w - d->pad_w, fx0, fx1;
      ap_fast_dw_tap_range(x0, d->dil_w, d->f_w, d->in_w, &fx0, &fx1);
      int8_t *o = d->out + (((size_t)b * d->out_h + oy) * d->out_w + ox) * d->out_d;
      for (int32_t c = 0; c < d->out_d; c += 4) {
        uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (int32_t fy = fy0; fy < fy1; fy++) {
          const int8_t *irow = in + (size_t)(y0 + d->dil_h * fy) * row + c;
          const int8_t *frow = d->f + (size_t)fy * d->f_w * d->out_d + c;
          for (int32_t fx = fx0; fx < fx1; fx++) {
            uint32_t v = load32(irow + (size_t)(x0 + d->dil_w * fx) * d->in_d);
            uint32_t w = load32(frow + (size_t)fx * d->out_d);
            uint32_t v02 = ap_sadd16(ap_sxtb16(v), off2);
            uint32_t v13 = ap_sadd16(ap_sxtb16(ror8(v)), off2);
            uint32_t w02 = ap_sxtb16(w), w13 = ap_sxtb16(ror8(w));
            s0 = ap_smlabb(v02, w02, s0);
            s2 = ap_smlatt(v02, w02, s2);
            s1 = ap_smlabb(v13, w13, s1);
            s3 = ap_smlatt(v13, w13, s3);
          }
        }
        uint32_t s[4] = {s0, s1, s2, s3};
        for (int32_t j = 0; j < 4; j++) {
          uint32_t acc = s[j] + (d->bias ? (uint32_t)d->bias[c + j] : 0u);
          o[c + j] = requant((int32_t)acc, d->qmult[c + j], d->qshift[c + j], d->out_off,
                             d->act_min, d->act_max);
        }
      }
    }
  }
}

/* Only these rows: a table links every kernel it points at. */
const ap_fast_level ap_fast_dsp_small_level = {
    .name = "dsp-small",
    .level = AP_SIMD_GENERIC,
    .gemm = {.mr = 1,
             .packed_bytes = packed_bytes,
             .pack = pack,
             .arow_bytes = arow_bytes,
             .arow = arow,
             .gemm = gemm},
    .dw = dw,
    .fc = fc,
};

const ap_fast_level *ap_fast_dsp_small(void) {
  return AP_DSP_NATIVE ? &ap_fast_dsp_small_level : &ap_fast_generic;
}
