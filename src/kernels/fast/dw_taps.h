/* The depthwise kernels that read each output pixel's window through one pointer per tap
 * (int8_avx2.c, int8_neon.c, dwrows_avx512.c): where those pointers come from, once; and the
 * range of taps inside the input that the Cortex-M kernels (dsp_dw.c, dsp_small.c, mve_dw.c)
 * loop over. */
#ifndef AP_FAST_DW_TAPS_H
#define AP_FAST_DW_TAPS_H

#include "kernels/fast/fast.h"

#include <stddef.h>

/* The taps [t0, t1) of a filter of `taps` at `dil` apart from `start` that fall inside
 * [0, size). */
static __attribute__((unused)) void ap_fast_dw_tap_range(int32_t start, int32_t dil, int32_t taps,
                                                         int32_t size, int32_t *t0, int32_t *t1) {
  int32_t lo = 0, hi = taps;
  while (lo < hi && start + dil * lo < 0)
    lo++;
  while (hi > lo && start + dil * (hi - 1) >= size)
    hi--;
  *t0 = lo;
  *t1 = hi;
}

/* Each tap's offset from its window's top-left pixel, in bytes of an input of C channels. */
static inline void ap_fast_dw_inner(const ap_qdw *d, int32_t C, ptrdiff_t *inner) {
  for (int32_t fy = 0, t = 0; fy < d->f_h; fy++)
    for (int32_t fx = 0; fx < d->f_w; fx++, t++)
      inner[t] = ((ptrdiff_t)fy * d->dil_h * d->in_w + (ptrdiff_t)fx * d->dil_w) * C;
}

/* px[t]: the input pixel tap t of output pixel (oy, ox) reads in batch `in_b`, or `zp` (a row
 * of the input's zero point) where the tap falls in the padding. A window wholly inside the
 * input takes the offsets `inner` from its corner. */
static inline void ap_fast_dw_taps(const ap_qdw *d, const int8_t *in_b, int32_t C,
                                   const ptrdiff_t *inner, const int8_t *zp, int32_t oy, int32_t ox,
                                   const int8_t **px) {
  int32_t y0 = oy * d->stride_h - d->pad_h, x0 = ox * d->stride_w - d->pad_w;
  int32_t taps = d->f_h * d->f_w;
  if (y0 >= 0 && x0 >= 0 && y0 + d->dil_h * (d->f_h - 1) < d->in_h &&
      x0 + d->dil_w * (d->f_w - 1) < d->in_w) {
    const int8_t *base = in_b + ((size_t)y0 * d->in_w + x0) * C;
    for (int32_t t = 0; t < taps; t++)
      px[t] = base + inner[t];
    return;
  }
  for (int32_t fy = 0, t = 0; fy < d->f_h; fy++) {
    int32_t iy = y0 + d->dil_h * fy;
    for (int32_t fx = 0; fx < d->f_w; fx++, t++) {
      int32_t ix = x0 + d->dil_w * fx;
      bool in = iy >= 0 && iy < d->in_h && ix >= 0 && ix < d->in_w;
      px[t] = in ? in_b + ((size_t)iy * d->in_w + ix) * C : zp;
    }
  }
}

#endif
