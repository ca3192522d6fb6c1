/* Float CONV_2D, written once for the x86 levels: float_conv_avx2.c and float_conv_avx512.c
 * define the vector type and operations (FV, FL lanes, FV_ZERO, FV_LOAD, FV_BCAST, FV_ADD,
 * FV_MUL, FV_STORE, fv_finish, FV_PMAX, FV_QMAX, FV_FN) and include this file.
 *
 * Exactness. Every output element is summed in the reference's order (filter row, column, input
 * channel) from 0.0f, then the bias is added and the clamp applied; lanes are output channels,
 * so only the order across elements changes. A tap outside the input is skipped by the
 * reference; here a block of pixels reads zeros there instead when every weight is finite
 * (c->finite): 0 * w is then +-0, and adding +-0 to a sum that started at +0.0f changes nothing
 * (such a sum is never -0: x + y rounds to -0 only when both are -0). With a non-finite weight
 * (0 * inf is NaN) pixels with a tap outside run one at a time, skipping it. */

#include <string.h>

/* One panel's sum so far at one pixel: 0.0f, or (c->accum) what out holds, lanes past out_d 0. */
static inline FV FV_FN(start)(const ap_fconv *c, int32_t panel, const float *out) {
  if (!c->accum) return FV_ZERO();
  int32_t c0 = panel * FL, cols = c->out_d - c0 < FL ? c->out_d - c0 : FL;
  if (cols == FL) return FV_LOAD(out + c0);
  float t[FL] = {0.0f};
  memcpy(t, out + c0, (size_t)cols * 4);
  return FV_LOAD(t);
}

/* The sum to out: finished (bias, clamp), or as it is (c->partial) for the next pass. */
static inline void FV_FN(end)(const ap_fconv *c, int32_t panel, FV acc, float *out) {
  if (!c->partial) {
    fv_finish(c, panel, acc, out);
    return;
  }
  int32_t c0 = panel * FL, cols = c->out_d - c0 < FL ? c->out_d - c0 : FL;
  if (cols == FL) {
    FV_STORE(out + c0, acc);
    return;
  }
  float t[FL];
  FV_STORE(t, acc);
  memcpy(out + c0, t, (size_t)cols * 4);
}

/* P pixels of one output row (from ox) times Q panels (from panel). */
static inline __attribute__((always_inline)) void FV_FN(block)(const ap_fconv *c, const float *in_b,
                                                               int32_t oy, int32_t ox,
                                                               int32_t panel, float *out,
                                                               const int P, const int Q) {
  const int32_t d = c->in_d;
  const size_t k = (size_t)c->f_h * c->f_w * d, pstride = k * FL;
  const float *wp = c->wp + (size_t)panel * pstride;
  int32_t y0 = oy * c->stride_h - c->pad_h, x0 = ox * c->stride_w - c->pad_w;
  FV acc[FV_PMAX][FV_QMAX];
  const bool whole = (panel + Q) * FL <= c->out_d; /* no lane past out_d */
  if (whole && c->accum) {
#pragma GCC unroll 16
    for (int j = 0; j < P; j++)
#pragma GCC unroll 16
      for (int q = 0; q < Q; q++)
        acc[j][q] = FV_LOAD(out + (size_t)j * c->out_d + (panel + q) * FL);
  } else {
#pragma GCC unroll 16
    for (int j = 0; j < P; j++)
#pragma GCC unroll 16
      for (int q = 0; q < Q; q++)
        acc[j][q] = FV_FN(start)(c, panel + q, out + (size_t)j * c->out_d);
  }
  for (int32_t fy = 0; fy < c->f_h; fy++) {
    int32_t iy = y0 + c->dil_h * fy;
    if (iy < 0 || iy >= c->in_h) continue;
    const float *row = in_b + (size_t)iy * c->in_w * d;
    for (int32_t fx = 0; fx < c->f_w; fx++) {
      const float *s[FV_PMAX];
      bool skip = false;
#pragma GCC unroll 16
      for (int j = 0; j < P; j++) {
        int32_t ix = x0 + j * c->stride_w + c->dil_w * fx;
        if (ix < 0 || ix >= c->in_w) {
          skip = !c->finite; /* only when P == 1: the driver's promise */
          s[j] = c->zeros;
        } else {
          s[j] = row + (size_t)ix * d;
        }
      }
      if (skip) continue;
      const float *w = wp + ((size_t)fy * c->f_w + fx) * d * FL;
      for (int32_t ic = 0; ic < d; ic++) {
        FV wv[FV_QMAX];
#pragma GCC unroll 16
        for (int q = 0; q < Q; q++)
          wv[q] = FV_LOAD(w + q * pstride + (size_t)ic * FL);
#pragma GCC unroll 16
        for (int j = 0; j < P; j++) {
          FV x = FV_BCAST(s[j] + ic);
#pragma GCC unroll 16
          for (int q = 0; q < Q; q++)
            acc[j][q] = FV_ADD(acc[j][q], FV_MUL(x, wv[q]));
        }
      }
    }
  }
  if (whole && c->partial) {
#pragma GCC unroll 16
    for (int j = 0; j < P; j++)
#pragma GCC unroll 16
      for (int q = 0; q < Q; q++)
        FV_STORE(out + (size_t)j * c->out_d + (panel + q) * FL, acc[j][q]);
    return;
  }
#pragma GCC unroll 16
  for (int j = 0; j < P; j++)
#pragma GCC unroll 16
    for (int q = 0; q < Q; q++)
      FV_FN(end)(c, panel + q, acc[j][q], out + (size_t)j * c->out_d);
}

/* Pixels [ox, ox + P) for the panels [p0, p1): groups of FV_QMAX panels, then the rest. */
static inline __attribute__((always_inline)) void FV_FN(pixels)(const ap_fconv *c,
                                                                const float *in_b, int32_t oy,
                                                                int32_t ox, float *out,
                                                                const int P) {
  int32_t panels = c->p1 ? c->p1 : (c->out_d + FL - 1) / FL, p = c->p0;
  for (; p + FV_QMAX <= panels; p += FV_QMAX)
    FV_FN(block)(c, in_b, oy, ox, p, out, P, FV_QMAX);
  for (; p < panels; p++)
    FV_FN(block)(c, in_b, oy, ox, p, out, P, 1);
}

static void FV_FN(pixels_n)(const ap_fconv *c, const float *in_b, int32_t oy, int32_t ox,
                            float *out, int P) {
  switch (P) {
  case 1: FV_FN(pixels)(c, in_b, oy, ox, out, 1); break;
  case 2: FV_FN(pixels)(c, in_b, oy, ox, out, 2); break;
  case 3: FV_FN(pixels)(c, in_b, oy, ox, out, 3); break;
  case 4: FV_FN(pixels)(c, in_b, oy, ox, out, 4); break;
#if FV_PMAX > 4
  case 5: FV_FN(pixels)(c, in_b, oy, ox, out, 5); break;
  case 6: FV_FN(pixels)(c, in_b, oy, ox, out, 6); break;
#endif
#if FV_PMAX > 6
  case 7: FV_FN(pixels)(c, in_b, oy, ox, out, 7); break;
  case 8: FV_FN(pixels)(c, in_b, oy, ox, out, 8); break;
#endif
  default: break;
  }
}

static void FV_FN(conv)(const ap_fconv *c, int32_t r0, int32_t r1) {
  for (int32_t r = r0; r < r1; r++) {
    int32_t b = r / c->out_h, oy = r % c->out_h;
    const float *in_b = c->in + (size_t)b * c->in_h * c->in_w * c->in_d;
    float *row = c->out + (size_t)r * c->out_w * c->out_d;
    int32_t ox = 0;
    while (ox < c->out_w) {
      /* The row's pixels in blocks as even as FV_PMAX allows (32: 6 6 5 5 5 5, not 6 x 5 and 2):
       * a narrow block has too few sums to hide the adds' latency. */
      int32_t left = c->out_w - ox, blocks = (left + FV_PMAX - 1) / FV_PMAX;
      int32_t P = (left + blocks - 1) / blocks;
      if (!c->finite) {
        int32_t first = ox * c->stride_w - c->pad_w;
        int32_t last = (ox + P - 1) * c->stride_w - c->pad_w + c->dil_w * (c->f_w - 1);
        if (first < 0 || last >= c->in_w) P = 1;
      }
      FV_FN(pixels_n)(c, in_b, oy, ox, row + (size_t)ox * c->out_d, P);
      ox += P;
    }
  }
}
