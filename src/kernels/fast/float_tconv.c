/* TRANSPOSE_CONV float32's scatter with the filter transposed to [ky][kx][ci][co] (wt), output
 * channels 8 at a time held in a block the compiler keeps in vector registers. Within one
 * input pixel each output element is reached by one filter tap only, so running the taps
 * outside the input channels keeps every output's products in the reference's order (input
 * pixels in order, then input channels), each a multiply then an add (-ffp-contract=off). */
#include "kernels/fast/fastops.h"

void ap_fast_tconv_float(const ap_ftconv *t) {
  size_t oc = (size_t)t->oc, ws = t->ws ? (size_t)t->ws : oc, wc0 = (size_t)t->wc0;
  for (int32_t b = 0; b < t->batches; b++)
    for (int32_t iy = 0; iy < t->ih; iy++)
      for (int32_t ix = 0; ix < t->iw; ix++) {
        int64_t oy0 = (int64_t)iy * t->stride_h - t->pad_h;
        int64_t ox0 = (int64_t)ix * t->stride_w - t->pad_w;
        const float *xp = t->x + (((size_t)b * t->ih + iy) * t->iw + ix) * t->ic;
        for (int32_t ky = 0; ky < t->fh; ky++) {
          int64_t oy = oy0 + ky;
          if (oy < 0 || oy >= t->oh) continue;
          for (int32_t kx = 0; kx < t->fw; kx++) {
            int64_t ox = ox0 + kx;
            if (ox < 0 || ox >= t->ow) continue;
            float *yr = t->y + (((size_t)b * t->oh + (size_t)oy) * t->ow + (size_t)ox) * oc;
            const float *wk = t->wt + ((size_t)ky * t->fw + kx) * (size_t)t->ic * ws;
            size_t co = (size_t)t->co0, co1 = (size_t)t->co1;
            for (; co + 8 <= co1; co += 8) {
              float acc[8];
              for (int q = 0; q < 8; q++)
                acc[q] = yr[co + q];
              for (int32_t ci = 0; ci < t->ic; ci++) {
                float xv = xp[ci];
                const float *wr = wk + (size_t)ci * ws + (co - wc0);
                for (int q = 0; q < 8; q++)
                  acc[q] += xv * wr[q];
              }
              for (int q = 0; q < 8; q++)
                yr[co + q] = acc[q];
            }
            for (; co < co1; co++) {
              float acc = yr[co];
              for (int32_t ci = 0; ci < t->ic; ci++)
                acc += xp[ci] * wk[(size_t)ci * ws + (co - wc0)];
              yr[co] = acc;
            }
          }
        }
      }
}

size_t ap_fast_tconv_float_chunk_bytes(int32_t fh, int32_t fw, int32_t ic, int32_t oc) {
  size_t c = oc < AP_FTCONV_CHUNK ? (size_t)oc : AP_FTCONV_CHUNK;
  return (size_t)fh * (size_t)fw * (size_t)ic * c *
         sizeof(float); /* the caller checked fh*fw*ic*oc */
}

void ap_fast_tconv_float_chunks(const ap_ftconv *t, const float *w, float *wt) {
  size_t taps = (size_t)t->fh * (size_t)t->fw, ic = (size_t)t->ic;
  for (int32_t c0 = t->co0; c0 < t->co1; c0 += AP_FTCONV_CHUNK) {
    int32_t c1 = t->co1 - c0 < AP_FTCONV_CHUNK ? t->co1 : c0 + AP_FTCONV_CHUNK;
    size_t width = (size_t)(c1 - c0);
    for (int32_t co = c0; co < c1; co++)
      for (size_t k = 0; k < taps * ic; k++) /* [tap][ci] of the filter's row co */
        wt[k * width + (size_t)(co - c0)] = w[(size_t)co * taps * ic + k];
    ap_ftconv part = *t;
    part.wt = wt;
    part.co0 = c0;
    part.co1 = c1;
    part.ws = (int32_t)width;
    part.wc0 = c0;
    ap_fast_tconv_float(&part);
  }
}
