/* CONV_2D, DEPTHWISE_CONV_2D and pooling over random geometries (sizes, strides, dilations,
 * SAME/VALID) against a direct implementation written differently: output sizes from ceil
 * formulas and an explicitly zero-padded input. Float data are small integers, so every sum is
 * exact whatever the order and the results must be equal. Run under ASan, this also checks
 * that no geometry reads or writes out of bounds. */
#include "ktest.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng = 12345;
static int rnd(int lo, int hi) {
  return lo + (int)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

typedef struct geo {
  int b, h, w, c, fh, fw, sh, sw, dh, dw, same;
  int oh, ow, pt, pl; /* independent output size and leading padding */
} geo;

static int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

static bool plan(geo *g) {
  int eh = (g->fh - 1) * g->dh + 1, ew = (g->fw - 1) * g->dw + 1;
  if (g->same) {
    g->oh = ceil_div(g->h, g->sh);
    g->ow = ceil_div(g->w, g->sw);
  } else {
    if (g->h < eh || g->w < ew) return false;
    g->oh = ceil_div(g->h - eh + 1, g->sh);
    g->ow = ceil_div(g->w - ew + 1, g->sw);
  }
  int th = (g->oh - 1) * g->sh + eh - g->h, tw = (g->ow - 1) * g->sw + ew - g->w;
  g->pt = th > 0 ? th / 2 : 0;
  g->pl = tw > 0 ? tw / 2 : 0;
  return true;
}

/* The input padded with zeros: pt/pl before, enough after for every window. */
static float *padded(const geo *g, const float *in, int *ph, int *pw) {
  *ph = g->pt + g->h + (g->fh - 1) * g->dh + g->sh * g->oh;
  *pw = g->pl + g->w + (g->fw - 1) * g->dw + g->sw * g->ow;
  float *p = calloc((size_t)g->b * *ph * *pw * g->c, sizeof(float));
  for (int b = 0; b < g->b; b++)
    for (int y = 0; y < g->h; y++)
      for (int x = 0; x < g->w; x++)
        for (int c = 0; c < g->c; c++)
          p[(((size_t)b * *ph + y + g->pt) * *pw + x + g->pl) * g->c + c] =
              in[(((size_t)b * g->h + y) * g->w + x) * g->c + c];
  return p;
}

static geo random_geo(void) {
  geo g = {rnd(1, 2), rnd(1, 7), rnd(1, 7), rnd(1, 4), rnd(1, 4), rnd(1, 4), rnd(1, 3), rnd(1, 3),
           rnd(1, 2), rnd(1, 2), rnd(0, 1), 0,         0,         0,         0};
  return g;
}

static void fill(float *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    v[i] = (float)rnd(-3, 3);
}

static int conv_case(bool depthwise) {
  geo g = random_geo();
  if (!plan(&g)) return 0;
  int mult = rnd(1, 3), oc = depthwise ? g.c * mult : rnd(1, 4);
  size_t nin = (size_t)g.b * g.h * g.w * g.c, nf = (size_t)oc * g.fh * g.fw * (depthwise ? 1 : g.c);
  size_t nout = (size_t)g.b * g.oh * g.ow * oc;
  float *in = malloc(nin * 4), *f = malloc(nf * 4), *bias = malloc((size_t)oc * 4);
  float *out = malloc(nout * 4), *want = malloc(nout * 4);
  fill(in, nin);
  fill(f, nf);
  fill(bias, (size_t)oc);
  int ph, pw;
  float *p = padded(&g, in, &ph, &pw);
  for (int b = 0; b < g.b; b++)
    for (int y = 0; y < g.oh; y++)
      for (int x = 0; x < g.ow; x++)
        for (int o = 0; o < oc; o++) {
          float s = bias[o];
          for (int ky = 0; ky < g.fh; ky++)
            for (int kx = 0; kx < g.fw; kx++) {
              size_t row = ((size_t)b * ph + y * g.sh + ky * g.dh) * pw + x * g.sw + kx * g.dw;
              if (depthwise) {
                s += p[row * g.c + o / mult] * f[((size_t)ky * g.fw + kx) * oc + o];
              } else {
                for (int c = 0; c < g.c; c++) {
                  s += p[row * g.c + c] * f[(((size_t)o * g.fh + ky) * g.fw + kx) * g.c + c];
                }
              }
            }
          want[(((size_t)b * g.oh + y) * g.ow + x) * oc + o] = s;
        }
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, g.b, g.h, g.w, g.c);
  ap_ktensor tf = depthwise ? kt(AP_FLOAT32, f, 4, 1, g.fh, g.fw, oc)
                            : kt(AP_FLOAT32, f, 4, oc, g.fh, g.fw, g.c);
  ap_ktensor tb = kt(AP_FLOAT32, bias, 1, oc, 0, 0, 0), to = kout(AP_FLOAT32, out, 0, 0);
  ap_conv_options o = {
      g.same ? AP_KPAD_SAME : AP_KPAD_VALID, g.sw, g.sh, g.dw, g.dh, AP_KACT_NONE, 0, 0};
  ap_conv_params cp;
  ap_status s = depthwise ? ap_depthwise_prepare(&o, &ti, &tf, &tb, &to, &cp, NULL)
                          : ap_conv_prepare(&o, &ti, &tf, &tb, &to, &cp, NULL);
  int bad = 0;
  if (s != AP_OK || to.dims[1] != g.oh || to.dims[2] != g.ow || to.dims[3] != oc) {
    bad = 1;
  } else {
    s = depthwise ? ap_depthwise_eval(&cp, &ti, &tf, &tb, &to, NULL)
                  : ap_conv_eval(&cp, &ti, &tf, &tb, &to, NULL);
    bad = s != AP_OK || memcmp(out, want, nout * 4) != 0;
  }
  if (bad) {
    fprintf(stderr, "%s mismatch: b%d %dx%dx%d f%dx%d s%dx%d d%dx%d same%d\n",
            depthwise ? "depthwise" : "conv", g.b, g.h, g.w, g.c, g.fh, g.fw, g.sh, g.sw, g.dh,
            g.dw, g.same);
  }
  free(in), free(f), free(bias), free(out), free(want), free(p);
  return bad ? -1 : 1;
}

static int pool_case(bool max) {
  geo g = random_geo();
  g.dh = g.dw = 1;
  if (!plan(&g)) return 0;
  size_t nin = (size_t)g.b * g.h * g.w * g.c, nout = (size_t)g.b * g.oh * g.ow * g.c;
  float *in = malloc(nin * 4), *out = malloc(nout * 4), *want = malloc(nout * 4);
  fill(in, nin);
  for (int b = 0; b < g.b; b++)
    for (int y = 0; y < g.oh; y++)
      for (int x = 0; x < g.ow; x++)
        for (int c = 0; c < g.c; c++) {
          float acc = max ? -1e30f : 0.0f;
          int n = 0;
          for (int ky = 0; ky < g.fh; ky++)
            for (int kx = 0; kx < g.fw; kx++) {
              int iy = y * g.sh - g.pt + ky, ix = x * g.sw - g.pl + kx;
              if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
              float v = in[(((size_t)b * g.h + iy) * g.w + ix) * g.c + c];
              acc = max ? fmaxf(acc, v) : acc + v;
              n++;
            }
          want[(((size_t)b * g.oh + y) * g.ow + x) * g.c + c] = max ? acc : acc / (float)n;
        }
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, g.b, g.h, g.w, g.c), to = kout(AP_FLOAT32, out, 0, 0);
  ap_pool_options o = {g.same ? AP_KPAD_SAME : AP_KPAD_VALID, g.sw, g.sh, g.fw, g.fh, AP_KACT_NONE};
  ap_pool_params pp;
  ap_status s = ap_pool_prepare(max ? AP_KPOOL_MAX : AP_KPOOL_AVERAGE, &o, &ti, &to, &pp, NULL);
  int bad = s != AP_OK || to.dims[1] != g.oh || to.dims[2] != g.ow ||
            ap_pool_eval(&pp, &ti, &to) != AP_OK || memcmp(out, want, nout * 4) != 0;
  if (bad) {
    fprintf(stderr, "%s pool mismatch: %dx%d f%dx%d s%dx%d same%d\n", max ? "max" : "avg", g.h, g.w,
            g.fh, g.fw, g.sh, g.sw, g.same);
  }
  free(in), free(out), free(want);
  return bad ? -1 : 1;
}

int main(void) {
  int ran[4] = {0}, bad[4] = {0};
  for (int i = 0; i < 400; i++) {
    int r[4] = {conv_case(false), conv_case(true), pool_case(false), pool_case(true)};
    for (int k = 0; k < 4; k++) {
      ran[k] += r[k] != 0;
      bad[k] += r[k] < 0;
    }
  }
  for (int k = 0; k < 4; k++) {
    CHECK_EQ(bad[k], 0);
    CHECK_MSG(ran[k] > 200, "only %d geometries were valid", ran[k]);
  }
  /* Eval refuses a tensor whose shape differs from the prepared one. */
  float in[8] = {0}, f[2] = {1, 1}, out[8];
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, 1, 2, 2, 2), tf = kt(AP_FLOAT32, f, 4, 1, 1, 1, 2);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  ap_conv_options o = {AP_KPAD_VALID, 1, 1, 1, 1, AP_KACT_NONE, 0, 0};
  ap_conv_params p;
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  ti.dims[1] = 4;
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, NULL, &to, NULL), AP_ERR_ARG);
  return ap_test_done();
}
