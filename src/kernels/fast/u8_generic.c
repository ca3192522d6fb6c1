/* The uint8 kernels in portable C11, loops ordered so compilers vectorise the inner ones;
 * sums are uint32 (modular, as the reference's int64 sum reduced to 32 bits). */
#include "kernels/fast/fastops.h"

static void u8gemm(const ap_u8gemm *g, const int16_t *a, int32_t rows, uint8_t *out,
                   size_t out_stride) {
  for (int32_t r = 0; r < rows; r++) {
    const int16_t *x = a + (size_t)r * (size_t)g->kp;
    for (int32_t c = 0; c < g->n; c++) {
      const uint8_t *w = g->w + (size_t)c * (size_t)g->k;
      uint32_t acc = g->bias ? (uint32_t)g->bias[c] : 0;
      for (int32_t i = 0; i < g->k; i++)
        acc += (uint32_t)(x[i] * (w[i] + g->w_off));
      out[(size_t)r * out_stride + (size_t)c] = ap_fast_u8requant((int32_t)acc, &g->q);
    }
  }
}

void ap_fastops_generic_u8dw(const ap_u8dw *d, int32_t b, int32_t oy0, int32_t oy1, void *ws) {
  (void)ws;
  for (int32_t oy = oy0; oy < oy1; oy++)
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int32_t y0 = oy * d->stride_h - d->pad_h, x0 = ox * d->stride_w - d->pad_w;
      uint8_t *o = d->out + (((size_t)b * d->out_h + oy) * d->out_w + ox) * d->out_d;
      for (int32_t c = 0; c < d->out_d; c++) {
        int32_t ic = c / d->mult;
        uint32_t acc = d->bias ? (uint32_t)d->bias[c] : 0;
        for (int32_t fy = 0; fy < d->f_h; fy++) {
          int32_t iy = y0 + d->dil_h * fy;
          if (iy < 0 || iy >= d->in_h) continue;
          for (int32_t fx = 0; fx < d->f_w; fx++) {
            int32_t ix = x0 + d->dil_w * fx;
            if (ix < 0 || ix >= d->in_w) continue;
            int32_t v = d->in[(((size_t)b * d->in_h + iy) * d->in_w + ix) * d->in_d + ic];
            int32_t w = d->f[((size_t)fy * d->f_w + fx) * d->out_d + c];
            acc += (uint32_t)((w + d->f_off) * (v + d->in_off));
          }
        }
        o[c] = ap_fast_u8requant((int32_t)acc, &d->q);
      }
    }
}

static void u8fc(const ap_u8fc *f, int32_t u0, int32_t u1) {
  for (int32_t b = 0; b < f->batches; b++) {
    const uint8_t *x = f->x + (size_t)b * (size_t)f->depth;
    for (int32_t u = u0; u < u1; u++) {
      const uint8_t *w = f->w + (size_t)u * (size_t)f->depth;
      uint32_t acc = f->bias ? (uint32_t)f->bias[u] : 0;
      for (int32_t i = 0; i < f->depth; i++)
        acc += (uint32_t)((x[i] + f->in_off) * (w[i] + f->w_off));
      f->out[(size_t)b * (size_t)f->units + (size_t)u] = ap_fast_u8requant((int32_t)acc, &f->q);
    }
  }
}

static int64_t dot16x8(const int16_t *x, const int8_t *w, int32_t k) {
  int64_t acc = 0;
  for (int32_t i = 0; i < k; i++)
    acc += (int32_t)x[i] * w[i];
  return acc;
}

static int32_t dot16x16(const int16_t *x, const int16_t *y, int32_t kp) {
  uint32_t acc = 0;
  for (int32_t i = 0; i < kp; i++)
    acc += (uint32_t)((int32_t)x[i] * y[i]);
  return (int32_t)acc;
}

const ap_fastops ap_fastops_generic = {
    .mr = 1,
    .kalign = 1,
    .u8gemm = u8gemm,
    .u8dw = ap_fastops_generic_u8dw,
    .u8fc = u8fc,
    .pool = ap_fastops_generic_pool,
    .dot16x8 = dot16x8,
    .dot16x16 = dot16x16,
    .fmm = ap_fastops_generic_fmm,
};
