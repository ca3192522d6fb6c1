/* The float kernels of the generic level: portable C11 (any compiler, microcontrollers
 * included), lanes as short arrays compilers can vectorise. Same order per output element as
 * the reference's (see float_conv_impl.h on the zeros read for taps outside the input). */
#include "kernels/fast/fast.h"

#include <float.h>

enum { GL = 8, GP = 4 }; /* output channels per panel, pixels per block */

static void finish(const ap_fconv *c, int32_t panel, const float *acc, float *out) {
  int32_t c0 = panel * GL, cols = c->out_d - c0 < GL ? c->out_d - c0 : GL;
  for (int32_t l = 0; l < cols; l++)
    out[c0 + l] = c->partial ? acc[l]
                             : ap_kq_clampf(acc[l] + (c->bias ? c->bias[c0 + l] : 0.0f), c->lo,
                                            c->hi); /* partial: the sum so far (ap_fconv) */
}

/* P pixels of one output row from ox, one panel. */
static void block(const ap_fconv *c, const float *in_b, int32_t oy, int32_t ox, int32_t panel,
                  float *out, int32_t P) {
  const int32_t d = c->in_d;
  const size_t k = (size_t)c->f_h * c->f_w * d;
  const float *wp = c->wp + (size_t)panel * k * GL;
  int32_t y0 = oy * c->stride_h - c->pad_h, x0 = ox * c->stride_w - c->pad_w;
  float acc[GP][GL] = {{0.0f}};
  for (int32_t j = 0; c->accum && j < P; j++) /* the sum so far (ap_fconv) */
    for (int32_t l = 0; l < GL && panel * GL + l < c->out_d; l++)
      acc[j][l] = out[(size_t)j * c->out_d + (size_t)panel * GL + (size_t)l];
  for (int32_t fy = 0; fy < c->f_h; fy++) {
    int32_t iy = y0 + c->dil_h * fy;
    if (iy < 0 || iy >= c->in_h) continue;
    const float *row = in_b + (size_t)iy * c->in_w * d;
    for (int32_t fx = 0; fx < c->f_w; fx++) {
      const float *w = wp + ((size_t)fy * c->f_w + fx) * d * GL;
      for (int32_t j = 0; j < P; j++) {
        int32_t ix = x0 + j * c->stride_w + c->dil_w * fx;
        const float *s = row + (size_t)ix * d;
        if (ix < 0 || ix >= c->in_w) {
          if (!c->finite) continue; /* the reference skips the tap */
          s = c->zeros;
        }
        float a[GL]; /* a local copy compilers keep in registers */
        for (int32_t l = 0; l < GL; l++)
          a[l] = acc[j][l];
        for (int32_t ic = 0; ic < d; ic++)
          for (int32_t l = 0; l < GL; l++)
            a[l] += s[ic] * w[(size_t)ic * GL + l];
        for (int32_t l = 0; l < GL; l++)
          acc[j][l] = a[l];
      }
    }
  }
  for (int32_t j = 0; j < P; j++)
    finish(c, panel, acc[j], out + (size_t)j * c->out_d);
}

void ap_fast_generic_fconv(const ap_fconv *c, int32_t r0, int32_t r1) {
  int32_t panels = c->p1 ? c->p1 : (c->out_d + GL - 1) / GL; /* panels [p0, p1) (ap_fconv) */
  for (int32_t r = r0; r < r1; r++) {
    int32_t b = r / c->out_h, oy = r % c->out_h;
    const float *in_b = c->in + (size_t)b * c->in_h * c->in_w * c->in_d;
    float *row = c->out + (size_t)r * c->out_w * c->out_d;
    for (int32_t ox = 0; ox < c->out_w; ox += GP) {
      int32_t P = c->out_w - ox < GP ? c->out_w - ox : GP;
      for (int32_t p = c->p0; p < panels; p++)
        block(c, in_b, oy, ox, p, row + (size_t)ox * c->out_d, P);
    }
  }
}

/* Fully connected: four units at a time, four independent sums (scalars compilers keep in
 * registers), each over the depth in index order. */
void ap_fast_generic_ffc(const ap_ffc *f, int32_t u0, int32_t u1) {
  size_t D = (size_t)f->depth;
  for (int32_t b = 0; b < f->batches; b++) {
    const float *x = f->x + (size_t)b * D;
    float *out = f->out + (size_t)b * f->units;
    int32_t u = u0;
    for (; u + 4 <= u1; u += 4) {
      const float *w0 = f->w + (size_t)u * D, *w1 = w0 + D, *w2 = w1 + D, *w3 = w2 + D;
      float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
      for (size_t d = 0; d < D; d++) {
        float xv = x[d];
        a0 += xv * w0[d];
        a1 += xv * w1[d];
        a2 += xv * w2[d];
        a3 += xv * w3[d];
      }
      float acc[4] = {a0, a1, a2, a3};
      for (int32_t l = 0; l < 4; l++)
        out[u + l] = ap_kq_clampf(acc[l] + (f->bias ? f->bias[u + l] : 0.0f), f->lo, f->hi);
    }
    for (; u < u1; u++) {
      const float *w = f->w + (size_t)u * D;
      float a = 0.0f;
      for (size_t d = 0; d < D; d++)
        a += x[d] * w[d];
      out[u] = ap_kq_clampf(a + (f->bias ? f->bias[u] : 0.0f), f->lo, f->hi);
    }
  }
}

/* Depthwise: per output pixel, GL channels at a time, the taps in the reference's order. */
void ap_fast_generic_fdw(const ap_fdw *d, int32_t r0, int32_t r1) {
  for (int32_t r = r0; r < r1; r++) {
    int32_t b = r / d->out_h, oy = r % d->out_h, y0 = oy * d->stride_h - d->pad_h;
    const float *in_b = d->in + (size_t)b * d->in_h * d->in_w * d->in_d;
    for (int32_t ox = 0; ox < d->out_w; ox++) {
      int32_t x0 = ox * d->stride_w - d->pad_w;
      float *out = d->out + ((size_t)r * d->out_w + ox) * d->out_d;
      for (int32_t c0 = 0; c0 < d->out_d; c0 += GL) {
        int32_t m = d->out_d - c0 < GL ? d->out_d - c0 : GL, ch[GL];
        for (int32_t l = 0; l < GL; l++) /* the input channel of each lane */
          ch[l] = (c0 + (l < m ? l : 0)) / d->mult;
        float acc[GL] = {0.0f};
        for (int32_t fy = 0; fy < d->f_h; fy++) {
          int32_t iy = y0 + d->dil_h * fy;
          if (iy < 0 || iy >= d->in_h) continue;
          for (int32_t fx = 0; fx < d->f_w; fx++) {
            int32_t ix = x0 + d->dil_w * fx;
            if (ix < 0 || ix >= d->in_w) continue;
            const float *src = in_b + ((size_t)iy * d->in_w + ix) * d->in_d;
            const float *w = d->f + ((size_t)fy * d->f_w + fx) * d->out_d + c0;
            for (int32_t l = 0; l < m; l++)
              acc[l] += src[ch[l]] * w[l];
          }
        }
        for (int32_t l = 0; l < m; l++)
          out[c0 + l] = ap_kq_clampf(acc[l] + (d->bias ? d->bias[c0 + l] : 0.0f), d->lo, d->hi);
      }
    }
  }
}

/* Pooling: per output pixel, GL channels at a time, the window clipped to the input. */
void ap_fast_generic_fpool(const ap_fpool *p, int32_t r0, int32_t r1) {
  for (int32_t r = r0; r < r1; r++) {
    int32_t b = r / p->out_h, oy = r % p->out_h, y0 = oy * p->stride_h - p->pad_h;
    int32_t fy0 = y0 < 0 ? -y0 : 0, fy1 = p->in_h - y0 < p->f_h ? p->in_h - y0 : p->f_h;
    const float *in_b = p->in + (size_t)b * p->in_h * p->in_w * p->depth;
    for (int32_t ox = 0; ox < p->out_w; ox++) {
      int32_t x0 = ox * p->stride_w - p->pad_w;
      int32_t fx0 = x0 < 0 ? -x0 : 0, fx1 = p->in_w - x0 < p->f_w ? p->in_w - x0 : p->f_w;
      float *out = p->out + ((size_t)r * p->out_w + ox) * p->depth;
      for (int32_t c0 = 0; c0 < p->depth; c0 += GL) {
        int32_t m = p->depth - c0 < GL ? p->depth - c0 : GL;
        float acc[GL], count = 0.0f;
        for (int32_t l = 0; l < GL; l++)
          acc[l] = p->max ? -FLT_MAX : 0.0f;
        for (int32_t fy = fy0; fy < fy1; fy++)
          for (int32_t fx = fx0; fx < fx1; fx++) {
            const float *src = in_b + ((size_t)(y0 + fy) * p->in_w + (x0 + fx)) * p->depth + c0;
            if (p->max) {
              for (int32_t l = 0; l < m; l++)
                acc[l] = acc[l] < src[l] ? src[l] : acc[l];
            } else {
              for (int32_t l = 0; l < m; l++)
                acc[l] += src[l];
            }
            count += 1.0f;
          }
        for (int32_t l = 0; l < m; l++)
          out[c0 + l] = ap_kq_clampf(p->max ? acc[l] : acc[l] / count, p->lo, p->hi);
      }
    }
  }
}

/* One row of a float ADD, SUB or MUL; each stride 0 or 1. */
void ap_fast_generic_fbin(int op, const float *a, size_t sa, const float *b, size_t sb, float *out,
                          size_t n, float lo, float hi) {
  for (size_t i = 0; i < n; i++) {
    float x = a[i * sa], y = b[i * sb];
    float r = op == AP_KBIN_ADD ? x + y : op == AP_KBIN_SUB ? x - y : x * y;
    out[i] = ap_kq_clampf(r, lo, hi);
  }
}
