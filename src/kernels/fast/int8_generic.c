/* The generic level: portable C11 (any compiler, microcontrollers included), with loops
 * ordered so compilers vectorise the inner ones. Sums are uint32 (modular, like the
 * reference's int64 sum reduced to 32 bits, without signed overflow). */
#include "kernels/fast/fast.h"

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
  return ap_kscratch_round((size_t)k * 2);
}

static void arow(const int8_t *src, int32_t k, int32_t in_off, void *dst) {
  int16_t *a = dst;
  for (int32_t i = 0; i < k; i++)
    a[i] = (int16_t)(src[i] + in_off);
}

static void gemm(const ap_qgemm *g, const void *a, int32_t rows, int32_t *acc_ws, int8_t *out,
                 size_t out_stride) {
  (void)acc_ws;
  size_t stride = arow_bytes(g->k) / 2;
  for (int32_t r = 0; r < rows; r++) {
    const int16_t *x = (const int16_t *)a + (size_t)r * stride;
    for (int32_t c = 0; c < g->n; c++) {
      const int8_t *w = g->w + (size_t)c * g->k;
      uint32_t acc = (uint32_t)g->col_bias[c];
      for (int32_t i = 0; i < g->k; i++)
        acc += (uint32_t)(x[i] * w[i]);
      out[(size_t)r * out_stride + c] = ap_fast_requant((int32_t)acc, g->mult[c], g->shift[c],
                                                        g->out_off, g->act_min, g->act_max);
    }
  }
}

void ap_fast_generic_dw(const ap_qdw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws) {
  (void)ws;
  for (int32_t oy = oy0; oy < oy1; oy++)
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int32_t y0 = oy * d->stride_h - d->pad_h, x0 = ox * d->stride_w - d->pad_w;
      int8_t *o = d->out + (((size_t)b * d->out_h + oy) * d->out_w + ox) * d->out_d;
      for (int32_t c = 0; c < d->out_d; c++) {
        int32_t ic = c / d->mult;
        uint32_t acc = 0;
        for (int32_t fy = 0; fy < d->f_h; fy++) {
          int32_t iy = y0 + d->dil_h * fy;
          if (iy < 0 || iy >= d->in_h) continue;
          for (int32_t fx = 0; fx < d->f_w; fx++) {
            int32_t ix = x0 + d->dil_w * fx;
            if (ix < 0 || ix >= d->in_w) continue;
            int32_t v = d->in[(((size_t)b * d->in_h + iy) * d->in_w + ix) * d->in_d + ic];
            int32_t w = d->f[((size_t)fy * d->f_w + fx) * d->out_d + c];
            acc += (uint32_t)(w * (v + d->in_off));
          }
        }
        if (d->bias) acc += (uint32_t)d->bias[c];
        o[c] = ap_fast_requant((int32_t)acc, d->qmult[c], d->qshift[c], d->out_off, d->act_min,
                               d->act_max);
      }
    }
}

static void fc(const ap_qfc *f, int32_t u0, int32_t u1) {
  for (int32_t b = 0; b < f->batches; b++) {
    const int8_t *x = f->x + (size_t)b * f->depth;
    uint32_t corr =
        f->filter_off ? (uint32_t)f->filter_off * ap_fast_row_sum(x, f->depth, f->in_off) : 0;
    for (int32_t u = u0; u < u1; u++) {
      const int8_t *w = f->w + (size_t)u * f->depth;
      uint32_t acc = corr;
      for (int32_t i = 0; i < f->depth; i++)
        acc += (uint32_t)((x[i] + f->in_off) * w[i]);
      if (f->bias) acc += (uint32_t)f->bias[u];
      f->out[(size_t)b * f->units + u] =
          ap_fast_requant((int32_t)acc, f->qmult ? f->qmult[u] : f->mult1,
                          f->qshift ? f->qshift[u] : f->shift1, f->out_off, f->act_min, f->act_max);
    }
  }
}

const ap_fast_level ap_fast_generic = {
    .name = "generic",
    .level = AP_SIMD_GENERIC,
    .gemm = {.mr = 1,
             .packed_bytes = packed_bytes,
             .pack = pack,
             .arow_bytes = arow_bytes,
             .arow = arow,
             .gemm = gemm},
    .dw = ap_fast_generic_dw,
    .fc = fc,
    /* -- int8speed -- */
    /* -- float -- */
    .fbin = ap_fast_generic_fbin,
    .fpool = ap_fast_generic_fpool,
    .fdw = ap_fast_generic_fdw,
    .ffc = ap_fast_generic_ffc,
    .fconv = ap_fast_generic_fconv,
    /* -- fastops -- */
    .ops = &ap_fastops_generic,
    /* -- stream3 -- */
};
