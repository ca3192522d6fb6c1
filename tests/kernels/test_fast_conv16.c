/* The AVX-512 level's pixels-in-lanes convolution with weights in place (kops_stream6.h):
 * output pixels fed in tiles of every count from 1 to 16, each equal to the reference kernel's
 * whole-map eval byte for byte. Tails: channel counts not multiples of 16 (the overlapping
 * last block) and below 16 (rows repeated), k not a multiple of 4 or 64 and k at the kernel's
 * limit, padding at every border, stride 2, dilation, 1x1 and 3x3, input zero points at both
 * extremes, a clamping activation; the patches built by the caller or, from rows, by the
 * kernel. */
#include "kernels/kops_stream6.h"
#include "ktest.h"
#include "levels.h"

#include <string.h>

#ifdef AP_FAST_X86
static uint64_t rng = 4242;
static int32_t rnd(int32_t lo, int32_t hi) {
  return lo + (int32_t)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

typedef struct ccase {
  int h, w, cin, cout, fh, fw, stride, dil, padding, in_zp, act;
} ccase;

/* The patches of a test: input, geometry, and the first pixel of the tile. */
typedef struct pctx {
  const int8_t *in;
  const ccase *c;
  const ap_conv_params *p;
  int32_t ow, q0;
  bool in_place; /* 1x1 unpadded stride 1: the patch is the input pixel itself */
} pctx;

static const int8_t *make_patch(void *ctx, int32_t i, int8_t *buf) {
  const pctx *t = ctx;
  const ccase *c = t->c;
  int32_t q = t->q0 + i, oy = q / t->ow, ox = q % t->ow;
  if (t->in_place) return t->in + ((size_t)oy * c->w + (size_t)ox) * (size_t)c->cin;
  int8_t *d = buf;
  for (int32_t fy = 0; fy < c->fh; fy++)
    for (int32_t fx = 0; fx < c->fw; fx++)
      for (int32_t k = 0; k < c->cin; k++) {
        int32_t iy = oy * c->stride - t->p->pad.pad_h + fy * c->dil;
        int32_t ix = ox * c->stride - t->p->pad.pad_w + fx * c->dil;
        bool in = iy >= 0 && iy < c->h && ix >= 0 && ix < c->w;
        *d++ = in ? t->in[((size_t)iy * c->w + (size_t)ix) * (size_t)c->cin + (size_t)k]
                  : (int8_t)-t->p->input_offset;
      }
  return buf;
}

static void conv_case(const ccase *c) {
  size_t nin = (size_t)c->h * c->w * c->cin, nf = (size_t)c->cout * c->fh * c->fw * c->cin;
  int8_t *in = malloc(nin), *f = malloc(nf);
  int32_t *bias = malloc((size_t)c->cout * 4), *mult = malloc((size_t)c->cout * 4),
          *shift = malloc((size_t)c->cout * 4), *col_bias = malloc((size_t)c->cout * 4);
  float *scales = malloc((size_t)c->cout * sizeof(float));
  for (size_t i = 0; i < nin; i++)
    in[i] = (int8_t)rnd(-128, 127);
  for (size_t i = 0; i < nf; i++)
    f[i] = (int8_t)rnd(-127, 127);
  for (int i = 0; i < c->cout; i++) {
    bias[i] = rnd(-20000, 20000);
    scales[i] = 0.0005f + 0.0002f * (float)(i % 37);
  }
  ap_ktensor ti = ktq(AP_INT8, in, 4, 1, c->h, c->w, c->cin, 0.05f, c->in_zp);
  ap_ktensor tf = kt(AP_INT8, f, 4, c->cout, c->fh, c->fw, c->cin);
  tf.scale = scales[0];
  tf.channel_scales = scales;
  tf.n_channels = c->cout;
  tf.quantized_dimension = 0;
  ap_ktensor tb = kt(AP_INT32, bias, 1, c->cout, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, NULL, 0.2f, -5);
  ap_conv_options o = {c->padding, c->stride, c->stride, c->dil, c->dil, c->act, 0, 0};
  ap_conv_params p;
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, &tb, &to, &p, NULL), AP_OK);
  int32_t oh = to.dims[1], ow = to.dims[2], n = c->cout, k = c->fh * c->fw * c->cin;
  size_t nout = (size_t)oh * ow * n;
  int8_t *want = malloc(nout), *got = malloc(nout);
  void *rs = malloc(p.scratch_bytes ? p.scratch_bytes : 1);
  to.data = want;
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, &tb, &to, rs), AP_OK);
  ap_fast_channel_multipliers(p.input_scale, &tf, p.output_scale, n, mult, shift);
  ap_fast_avx512.gemm.pack(f, n, k, bias, p.input_offset, NULL, col_bias);
  ap_qgemm g = {n, k, f, NULL, col_bias, mult, shift, p.output_offset, p.act_min, p.act_max};
  pctx t = {in, c,
            &p, ow,
            0,  c->fh == 1 && c->fw == 1 && c->stride == 1 && p.pad.pad_h == 0 && p.pad.pad_w == 0};
  int32_t pixels = oh * ow;
  for (int32_t tile = 1; tile <= 16; tile++) {
    memset(got, 0x55, nout);
    for (t.q0 = 0; t.q0 < pixels; t.q0 += tile) {
      int32_t count = pixels - t.q0 < tile ? pixels - t.q0 : tile;
      ap_fast_avx512_conv16(&g, make_patch, &t, count, got + (size_t)t.q0 * (size_t)n, (size_t)n);
    }
    CHECK_MSG(memcmp(got, want, nout) == 0,
              "%dx%dx%d -> %d, %dx%d s%d d%d zp %d act %d, tiles of %d: outputs differ", c->h, c->w,
              c->cin, c->cout, c->fh, c->fw, c->stride, c->dil, c->in_zp, c->act, tile);
  }
  /* The patches built by the kernel from rows (dilation 1): tiles within each output row. */
  for (int32_t tile = 1; tile <= 16 && c->dil == 1; tile++) {
    memset(got, 0x55, nout);
    ap_fast_conv16_rows r = {{NULL}, c->fh, c->fw,     c->cin,
                             c->w,   0,     c->stride, (int8_t)-p.input_offset};
    for (int32_t oy = 0; oy < oh; oy++) {
      for (int32_t fy = 0; fy < c->fh; fy++) {
        int32_t iy = oy * c->stride - p.pad.pad_h + fy;
        r.row[fy] = iy < 0 || iy >= c->h ? NULL : in + (size_t)iy * c->w * c->cin;
      }
      for (int32_t ox = 0; ox < ow; ox += tile) {
        r.x0 = ox * c->stride - p.pad.pad_w;
        ap_fast_avx512_conv16_rows(&g, &r, ow - ox < tile ? ow - ox : tile,
                                   got + ((size_t)oy * ow + (size_t)ox) * (size_t)n, (size_t)n);
      }
    }
    CHECK_MSG(memcmp(got, want, nout) == 0,
              "%dx%dx%d -> %d, %dx%d s%d zp %d act %d, rows, tiles of %d: outputs differ", c->h,
              c->w, c->cin, c->cout, c->fh, c->fw, c->stride, c->in_zp, c->act, tile);
  }
  /* Refused quietly, nothing written: no pixels, too many, k past the limit. */
  memset(got, 0x55, nout);
  t.q0 = 0;
  ap_fast_avx512_conv16(&g, make_patch, &t, 0, got, (size_t)n);
  ap_fast_avx512_conv16(&g, make_patch, &t, 17, got, (size_t)n);
  ap_qgemm big = g;
  big.k = AP_FAST_CONV16_MAX_K + 1;
  ap_fast_avx512_conv16(&big, make_patch, &t, 1, got, (size_t)n);
  ap_fast_conv16_rows bad = {{NULL}, c->fh, c->fw, c->cin + 1, c->w, 0, 1, 0}; /* k differs */
  ap_fast_avx512_conv16_rows(&g, &bad, 1, got, (size_t)n);
  CHECK(got[0] == 0x55 && got[nout - 1] == 0x55);
  free(in), free(f), free(bias), free(mult), free(shift), free(col_bias), free(scales);
  free(want), free(got), free(rs);
}
#endif

int main(void) {
#ifdef AP_FAST_X86
  const ap_fast_level *levels[AP_TEST_MAX_LEVELS];
  int nl = ap_test_levels(levels);
  if (levels[nl - 1] != &ap_fast_avx512) return ap_test_done(); /* no AVX-512 VNNI here */
  static const ccase cases[] = {
      {5, 7, 64, 64, 1, 1, 1, 1, AP_KPAD_VALID, 3, AP_KACT_NONE},    /* k 64, in place */
      {9, 9, 32, 32, 3, 3, 1, 1, AP_KPAD_SAME, -7, AP_KACT_RELU},    /* k 288, n 2 blocks */
      {7, 6, 1, 16, 3, 3, 1, 1, AP_KPAD_SAME, 11, AP_KACT_NONE},     /* k 9 */
      {6, 5, 5, 9, 3, 3, 1, 1, AP_KPAD_SAME, 0, AP_KACT_NONE},       /* k 45, n < 16 */
      {9, 8, 3, 17, 3, 3, 2, 1, AP_KPAD_SAME, -128, AP_KACT_NONE},   /* n 17: overlap */
      {10, 9, 7, 20, 3, 3, 1, 2, AP_KPAD_SAME, 127, AP_KACT_RELU6},  /* dilation */
      {4, 5, 1024, 24, 1, 1, 1, 1, AP_KPAD_VALID, -1, AP_KACT_NONE}, /* k at the limit */
      {6, 3, 4, 8, 5, 1, 1, 1, AP_KPAD_VALID, 5, AP_KACT_NONE},      /* 5x1 */
      {8, 8, 64, 40, 3, 3, 2, 1, AP_KPAD_SAME, -128, AP_KACT_NONE},  /* k 576, stride 2 */
      {3, 3, 2, 1, 3, 3, 1, 1, AP_KPAD_SAME, 127, AP_KACT_NONE},     /* n 1 */
      {5, 6, 6, 48, 2, 2, 2, 1, AP_KPAD_VALID, -3, AP_KACT_NONE},    /* 2x2 stride 2 */
      {4, 37, 3, 16, 3, 3, 1, 1, AP_KPAD_SAME, 20, AP_KACT_NONE},    /* wide rows, c 3 */
      {5, 33, 24, 32, 5, 5, 2, 1, AP_KPAD_SAME, -60, AP_KACT_NONE},  /* 5x5 s2, run 120 */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    conv_case(&cases[i]);
#endif
  return ap_test_done();
}
