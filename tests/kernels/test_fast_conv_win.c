/* The direct int8 convolution (kernels/fast/conv_win.c and each level's kit) against the
 * reference kernel, through the registry, at every SIMD level this CPU has and with 1, 2 and 3
 * threads: channel counts off 4 and off 16 (blocks of 4, 2 and 1 vectors), rows off the tile
 * widths, every border and padding wider than the filter's reach, stride 2 and 3 on odd
 * sizes, dilations that map several filter rows to one ring slot, rows wider than a window (cut
 * into chunks), pointwise convolutions flattened over batches, no bias, input zero points at
 * both ends, multipliers above 1 and far below, and a sum that wraps int32; the depthwise
 * kernel over the same windows; fully connected with input zero point -128. */
#include "kernels/fast/fast.h"
#include "kernels/registry.h"
#include "ktest.h"

#include <string.h>

enum { B_CONV = 3, B_DW = 4, B_FC = 9 };

static bool depthwise; /* the cases run DEPTHWISE_CONV_2D (cout: cin times the multiplier) */

static uint64_t rng = 777;
static int32_t rnd(int32_t lo, int32_t hi) {
  return lo + (int32_t)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

static ap_kexec cfgs[16];
static int ncfg;

static void add_cfgs(const ap_fast_level *l, ap_port_workers *w2, ap_port_workers *w3) {
  cfgs[ncfg++] =
      (ap_kexec){.level = l, .threads = 1, .parallel_min = 1}; /* parallel_min 1: every op splits */
  cfgs[ncfg++] = (ap_kexec){.level = l, .workers = w2, .threads = 2, .parallel_min = 1};
  cfgs[ncfg++] = (ap_kexec){.level = l, .workers = w3, .threads = 3, .parallel_min = 1};
}

/* Prepare and eval with exec x (NULL: the reference); the output (malloc'd) or NULL. */
static int32_t builtin_override; /* nonzero: run this builtin (FULLY_CONNECTED) */

static int8_t *run(const ap_kop_options *o, const ap_ktensor *const *ins, int n,
                   const ap_ktensor *out_view, const ap_kexec *x, size_t *bytes) {
  const ap_kernel *k = ap_kernel_find(builtin_override ? builtin_override
                                      : depthwise      ? B_DW
                                                       : B_CONV);
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  memset(params, 0, sizeof params);
  ap_kop_options opt = *o;
  opt.exec = x;
  ap_errbuf err = {{0}};
  ap_ktensor out = *out_view, *outs[1] = {&out};
  ap_kctx c = {ins, n, outs, 1, &opt, params, NULL, &err};
  size_t scratch = 0, count;
  if (k->prepare(&c, &scratch) != AP_OK) return NULL;
  ap_ktensor_count(&out, &count);
  *bytes = count;
  out.data = malloc(count ? count : 1);
  /* Scratch only 16-aligned (what the planner promises), and poisoned. */
  unsigned char *sc = scratch ? aligned_alloc(16, ap_kscratch_round(scratch) + 16) : NULL;
  if (sc) memset(sc, 0xA5, ap_kscratch_round(scratch) + 16);
  c.scratch = sc ? sc + 16 : NULL;
  ap_status s = k->eval(&c);
  free(sc);
  if (s != AP_OK) {
    free(out.data);
    return NULL;
  }
  return out.data;
}

typedef struct conv_spec {
  int b, h, w, cin, cout, fh, fw, sh, sw, dh, dw, padding, act;
  int in_zp;                /* 1000: random */
  float scale_lo, scale_hi; /* filter scales; the input's is 0.05, the output's about 0.3 */
  bool no_bias, extreme;    /* extreme: every input and weight -128, sums that wrap */
} conv_spec;

static void conv_case(const conv_spec *c) {
  size_t nin = (size_t)c->b * c->h * c->w * c->cin,
         nf = (size_t)c->cout * c->fh * c->fw * (depthwise ? 1 : c->cin);
  int8_t *in = malloc(nin), *f = malloc(nf);
  for (size_t i = 0; i < nin; i++)
    in[i] = (int8_t)(c->extreme ? -128 : rnd(-128, 127));
  for (size_t i = 0; i < nf; i++)
    f[i] = (int8_t)(c->extreme ? -128 : rnd(-127, 127));
  int32_t *bias = malloc((size_t)c->cout * 4);
  float *scales = malloc((size_t)c->cout * sizeof *scales);
  for (int i = 0; i < c->cout; i++) {
    bias[i] = rnd(-30000, 30000);
    scales[i] = c->scale_lo + (c->scale_hi - c->scale_lo) * (float)rnd(0, 1000) / 1000.0f;
  }
  int zp = c->in_zp == 1000 ? rnd(-128, 127) : c->in_zp;
  ap_ktensor ti = ktq(AP_INT8, in, 4, c->b, c->h, c->w, c->cin, 0.05f, zp);
  ap_ktensor tf = depthwise ? kt(AP_INT8, f, 4, 1, c->fh, c->fw, c->cout)
                            : kt(AP_INT8, f, 4, c->cout, c->fh, c->fw, c->cin);
  tf.quantized_dimension = depthwise ? 3 : 0;
  tf.scale = scales[0];
  tf.channel_scales = scales;
  tf.n_channels = c->cout;
  ap_ktensor tb = kt(AP_INT32, bias, 1, c->cout, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, NULL, 0.2f + (float)rnd(0, 100) / 500.0f, rnd(-10, 10));
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){
      c->padding, c->sw, c->sh, c->dw, c->dh, c->act, depthwise ? c->cout / c->cin : 0, 0};
  int n_in = c->no_bias ? 2 : 3;
  char what[200];
  snprintf(what, sizeof what,
           "%s b%d %dx%dx%d -> %d, filter %dx%d, stride %dx%d, dilation %dx%d, %s, zp %d%s%s",
           depthwise ? "DEPTHWISE" : "CONV", c->b, c->h, c->w, c->cin, c->cout, c->fh, c->fw, c->sh,
           c->sw, c->dh, c->dw, c->padding == AP_KPAD_SAME ? "SAME" : "VALID", zp,
           c->no_bias ? ", no bias" : "", c->extreme ? ", wrapping" : "");
  size_t nref = 0, ng = 0;
  int8_t *ref = run(&o, ins, n_in, &to, NULL, &nref);
  CHECK_MSG(ref != NULL, "%s: reference failed", what);
  for (int i = 0; ref && i < ncfg; i++) {
    int8_t *got = run(&o, ins, n_in, &to, &cfgs[i], &ng);
    size_t at = 0;
    while (got && at < nref && got[at] == ref[at])
      at++;
    CHECK_MSG(got && ng == nref && at == nref, "%s: %s, %d threads, differs at byte %zu of %zu",
              what, cfgs[i].level->name, cfgs[i].threads, at, nref);
    free(got);
  }
  free(ref), free(in), free(f), free(bias), free(scales);
}

/* FULLY_CONNECTED with an input zero point of -128 (input + 128 is an unsigned byte: the
 * avx512 level's vpdpbusd path) and others, depths around 64, extreme values that wrap. */
static void fc_case(int batches, int depth, int units, int in_zp, bool extreme) {
  size_t nin = (size_t)batches * depth, nw = (size_t)units * depth;
  int8_t *in = malloc(nin), *w = malloc(nw);
  for (size_t i = 0; i < nin; i++)
    in[i] = (int8_t)(extreme ? 127 : rnd(-128, 127));
  for (size_t i = 0; i < nw; i++)
    w[i] = (int8_t)(extreme ? -128 : rnd(-127, 127));
  int32_t *bias = malloc((size_t)units * 4);
  for (int i = 0; i < units; i++)
    bias[i] = rnd(-5000, 5000);
  ap_ktensor ti = ktq(AP_INT8, in, 2, batches, depth, 0, 0, 0.03f, in_zp);
  ap_ktensor tw = ktq(AP_INT8, w, 2, units, depth, 0, 0, 0.01f, 0);
  ap_ktensor tb = kt(AP_INT32, bias, 1, units, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, NULL, extreme ? 3e4f : 0.2f, rnd(-3, 3));
  const ap_ktensor *ins[3] = {&ti, &tw, &tb};
  ap_kop_options o = {0};
  o.fc.activation = AP_KACT_NONE;
  builtin_override = B_FC;
  size_t nref = 0, ng = 0;
  int8_t *ref = run(&o, ins, 3, &to, NULL, &nref);
  CHECK_MSG(ref != NULL, "FC %d x %d -> %d: reference failed", batches, depth, units);
  for (int i = 0; ref && i < ncfg; i++) {
    int8_t *got = run(&o, ins, 3, &to, &cfgs[i], &ng);
    size_t at = 0;
    while (got && at < nref && got[at] == ref[at])
      at++;
    CHECK_MSG(got && ng == nref && at == nref,
              "FC %d x %d -> %d, zp %d%s: %s, %d threads, differs at byte %zu of %zu", batches,
              depth, units, in_zp, extreme ? ", wrapping" : "", cfgs[i].level->name,
              cfgs[i].threads, at, nref);
    free(got);
  }
  builtin_override = 0;
  free(ref), free(in), free(w), free(bias);
}

int main(void) {
  ap_port_workers *w2 = NULL, *w3 = NULL;
  CHECK(ap_port_workers_create(NULL, 2, &w2, NULL) == AP_OK);
  CHECK(ap_port_workers_create(NULL, 3, &w3, NULL) == AP_OK);
  add_cfgs(&ap_fast_generic, w2, w3);
#ifdef AP_FAST_X86
  uint32_t feat = ap_port_cpu_features();
  if (feat & AP_CPU_SSE41) add_cfgs(&ap_fast_sse41, w2, w3);
  if (feat & AP_CPU_AVX2) add_cfgs(&ap_fast_avx2, w2, w3);
  if ((feat & AP_CPU_AVX512BW) && (feat & AP_CPU_AVX512VNNI)) add_cfgs(&ap_fast_avx512, w2, w3);
#endif
#ifdef AP_FAST_NEON
  uint32_t feat_a = ap_port_cpu_features();
  if (feat_a & AP_CPU_NEON) add_cfgs(&ap_fast_neon, w2, w3);
  if ((feat_a & AP_CPU_NEON) && (feat_a & AP_CPU_NEON_DOT)) add_cfgs(&ap_fast_neondot, w2, w3);
#endif
  const int S = AP_KPAD_SAME, V = AP_KPAD_VALID, R = 1000;
  const int NONE = AP_KACT_NONE, RELU = AP_KACT_RELU, RELU6 = AP_KACT_RELU6;
  static conv_spec specs[128];
  int n = 0;
  /* Input channels 1, 2, 3 (padded to a quad), 5, 7; output channels 1, 15, 17. */
  specs[n++] =
      (conv_spec){1, 9, 11, 1, 15, 3, 3, 1, 1, 1, 1, S, NONE, R, 0.01f, 0.05f, false, false};
  specs[n++] =
      (conv_spec){1, 8, 7, 2, 17, 3, 3, 2, 2, 1, 1, S, RELU, R, 0.01f, 0.05f, false, false};
  specs[n++] =
      (conv_spec){2, 7, 9, 3, 16, 3, 3, 1, 1, 1, 1, S, RELU6, R, 0.01f, 0.05f, false, false};
  specs[n++] =
      (conv_spec){1, 6, 13, 5, 1, 3, 3, 1, 1, 1, 1, V, NONE, R, 0.01f, 0.05f, false, false};
  specs[n++] =
      (conv_spec){1, 10, 10, 7, 33, 5, 5, 2, 2, 1, 1, S, NONE, R, 0.01f, 0.05f, false, false};
  /* Output channels over 4, 2 and 1 vector blocks: 48, 64, 80, 112, 127. */
  specs[n++] =
      (conv_spec){1, 5, 9, 16, 48, 3, 3, 1, 1, 1, 1, S, NONE, R, 0.005f, 0.02f, false, false};
  specs[n++] =
      (conv_spec){1, 4, 11, 32, 64, 3, 3, 1, 1, 1, 1, S, RELU, R, 0.005f, 0.02f, false, false};
  specs[n++] =
      (conv_spec){1, 3, 5, 12, 80, 3, 3, 1, 1, 1, 1, S, NONE, R, 0.005f, 0.02f, false, false};
  specs[n++] =
      (conv_spec){1, 4, 6, 20, 112, 1, 1, 1, 1, 1, 1, V, NONE, R, 0.005f, 0.02f, false, false};
  specs[n++] =
      (conv_spec){1, 3, 3, 9, 127, 3, 3, 1, 1, 1, 1, S, NONE, R, 0.005f, 0.02f, false, false};
  /* Weights of 16 KB and more over several 16-channel blocks, a tail block among them: their
   * multipliers and packing split by blocks over the threads. */
  specs[n++] =
      (conv_spec){1, 6, 9, 24, 200, 3, 3, 1, 1, 1, 1, S, RELU6, R, 0.005f, 0.02f, false, false};
  specs[n++] =
      (conv_spec){1, 9, 10, 96, 177, 1, 1, 1, 1, 1, 1, V, NONE, R, 0.005f, 0.02f, false, false};
  /* Rows of 1 to 13 pixels (tiles of 8 and 4 with tails). */
  for (int w = 1; w <= 13; w += 3)
    specs[n++] =
        (conv_spec){1, 3, w, 8, 64, 3, 3, 1, 1, 1, 1, S, NONE, R, 0.005f, 0.02f, false, false};
  /* Stride 3, unequal strides and dilations; dilation 3 with a 3-row filter puts every filter
   * row in the same slot modulo 3; a 5x1 filter with dilation 2. */
  specs[n++] =
      (conv_spec){1, 11, 10, 8, 16, 3, 3, 3, 2, 1, 1, S, NONE, R, 0.01f, 0.05f, false, false};
  specs[n++] =
      (conv_spec){1, 12, 12, 4, 20, 3, 3, 1, 1, 3, 3, S, NONE, R, 0.01f, 0.05f, false, false};
  specs[n++] =
      (conv_spec){1, 13, 9, 6, 16, 5, 1, 1, 2, 2, 1, S, RELU, R, 0.01f, 0.05f, false, false};
  specs[n++] =
      (conv_spec){1, 9, 14, 4, 8, 2, 4, 2, 1, 1, 2, S, NONE, R, 0.01f, 0.05f, false, false};
  /* A filter larger than the input (padding on both sides of every row), VALID edge. */
  specs[n++] =
      (conv_spec){1, 2, 3, 4, 16, 5, 5, 1, 1, 1, 1, S, NONE, R, 0.01f, 0.05f, false, false};
  specs[n++] =
      (conv_spec){1, 5, 5, 4, 16, 5, 5, 1, 1, 1, 1, V, NONE, R, 0.01f, 0.05f, false, false};
  /* Rows wider than one window (chunks), with and without padding. */
  specs[n++] =
      (conv_spec){1, 3, 300, 64, 16, 3, 3, 1, 1, 1, 1, S, NONE, R, 0.002f, 0.01f, false, false};
  specs[n++] =
      (conv_spec){1, 4, 301, 40, 24, 3, 3, 2, 2, 1, 1, V, NONE, R, 0.002f, 0.01f, false, false};
  /* Pointwise: flattened over batches and cut into chunks; stride 2 is not flattened. */
  specs[n++] =
      (conv_spec){3, 17, 19, 64, 40, 1, 1, 1, 1, 1, 1, V, RELU6, R, 0.005f, 0.02f, false, false};
  specs[n++] =
      (conv_spec){2, 9, 7, 24, 17, 1, 1, 2, 2, 1, 1, S, NONE, R, 0.005f, 0.02f, false, false};
  /* No bias; input zero points -128 and 127 (offsets 128 and -127). */
  specs[n++] = (conv_spec){1, 6, 6, 8, 16, 3, 3, 1, 1, 1, 1, S, NONE, R, 0.01f, 0.05f, true, false};
  specs[n++] =
      (conv_spec){1, 6, 7, 8, 16, 3, 3, 1, 1, 1, 1, S, NONE, -128, 0.01f, 0.05f, false, false};
  specs[n++] =
      (conv_spec){1, 7, 6, 8, 16, 3, 3, 1, 1, 1, 1, S, NONE, 127, 0.01f, 0.05f, false, false};
  /* Multipliers above 1 (left shifts, saturating outputs) and tiny ones (shifts near -31). */
  specs[n++] =
      (conv_spec){1, 5, 6, 4, 16, 3, 3, 1, 1, 1, 1, S, NONE, R, 10.0f, 500.0f, false, false};
  specs[n++] =
      (conv_spec){1, 5, 6, 4, 16, 3, 3, 1, 1, 1, 1, S, NONE, R, 1e-9f, 1e-6f, false, false};
  /* Every input and weight -128 over a depth of 70000: the int32 sum wraps. */
  specs[n++] =
      (conv_spec){1, 1, 2, 70000, 3, 1, 1, 1, 1, 1, 1, V, NONE, 127, 0.01f, 0.05f, false, true};
  /* The same on maps tall enough for the direct kernel (small maps with large weights take the
   * in-place product, which the cases above test), and a wrapping sum over 128 pixels. */
  for (int i = 0, n0 = n; i < n0; i++)
    if (specs[i].h * specs[i].w < 512 && !specs[i].extreme) {
      specs[n] = specs[i];
      specs[n++].h *= 24;
    }
  specs[n++] =
      (conv_spec){1, 1, 128, 70000, 3, 1, 1, 1, 1, 1, 1, V, NONE, 127, 0.01f, 0.05f, false, true};
  for (int i = 0; i < n; i++)
    conv_case(&specs[i]);
  /* Depthwise: channels 1 to 32 (whole pixels per vector, one load at stride 1, gathered at
   * stride 2), 48, 64 and past 64 (a tail block), depth multipliers 2 and 8, filters of 1 to 7
   * columns (one or two groups of 4 taps), dilation, padding past the filter's reach. */
  depthwise = true;
  n = 0;
  static const int dws[][6] = {
      /* cin, cout, fh x fw, stride, dilation */
      {1, 1, 3, 3, 1, 1},
      {2, 2, 3, 3, 1, 1},
      {4, 4, 3, 3, 2, 1},
      {8, 8, 3, 3, 1, 1},
      {8, 8, 3, 3, 2, 1},
      {16, 16, 3, 3, 1, 1},
      {16, 16, 3, 3, 2, 1},
      {32, 32, 3, 3, 1, 1},
      {32, 32, 3, 3, 2, 1},
      {48, 48, 3, 3, 1, 1},
      {64, 64, 3, 3, 2, 1},
      {72, 72, 3, 3, 1, 1},
      {136, 136, 5, 5, 1, 1},
      {1, 8, 3, 3, 2, 1},
      {3, 24, 3, 3, 1, 1},
      {5, 10, 3, 3, 1, 2},
      {16, 16, 1, 7, 1, 1},
      {24, 24, 7, 2, 2, 1},
      {9, 9, 2, 5, 1, 3},
      {32, 32, 1, 1, 1, 1},
      /* 4 blocks of 64 channels and more, a tail among them: packed by blocks over the threads */
      {200, 200, 3, 3, 1, 1},
      {300, 300, 3, 3, 2, 1},
      {100, 400, 3, 3, 1, 1}};
  for (size_t i = 0; i < sizeof dws / sizeof dws[0]; i++) {
    const int *d = dws[i];
    int w = 3 + (int)i % 11;
    specs[n++] = (conv_spec){1,          5 + (int)i % 4,
                             w,          d[0],
                             d[1],       d[2],
                             d[3],       d[4],
                             d[4],       d[5],
                             d[5],       i % 3 == 0 && d[2] <= 3 && d[3] <= 3 && d[5] == 1 ? V : S,
                             (int)i % 3, R,
                             0.01f,      0.06f,
                             i % 7 == 3, false};
  }
  specs[n++] =
      (conv_spec){2, 9, 40, 16, 16, 3, 3, 1, 1, 1, 1, S, RELU6, -128, 0.01f, 0.05f, false, false};
  specs[n++] =
      (conv_spec){1, 4, 5, 16, 16, 3, 3, 1, 1, 1, 1, S, NONE, 127, 10.0f, 500.0f, false, false};
  specs[n++] =
      (conv_spec){1, 4, 5, 64, 64, 3, 3, 2, 2, 1, 1, S, NONE, R, 1e-9f, 1e-6f, false, false};
  /* The same on maps large enough for the window kernel (small maps keep the other path, whose
   * scratch is smaller, which the cases above test). */
  for (int i = 0, n0 = n; i < n0; i++) {
    specs[n] = specs[i];
    specs[n].h *= 12;
    specs[n++].w *= 8;
  }
  for (int i = 0; i < n; i++)
    conv_case(&specs[i]);
  static const int fcs[][3] = {{1, 1, 1},   {1, 63, 9},    {2, 64, 8}, {1, 65, 17},
                               {3, 130, 5}, {1, 640, 128}, {1, 8, 128}};
  for (size_t i = 0; i < sizeof fcs / sizeof fcs[0]; i++) {
    fc_case(fcs[i][0], fcs[i][1], fcs[i][2], -128, false);
    fc_case(fcs[i][0], fcs[i][1], fcs[i][2], rnd(-127, 127), false);
  }
  fc_case(1, 70000, 3, -128, true);
  ap_port_workers_destroy(w2);
  ap_port_workers_destroy(w3);
  return ap_test_done();
}
