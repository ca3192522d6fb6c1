/* The lean int8 convolution (kernels/fast/lean_conv_avx2.c: the kernel choice's smallest fast
 * candidate) against the reference kernel, through the registry, at every SIMD level this CPU
 * has (a level without it runs the other paths, which must agree as well): hand-worked cases
 * for each of its branches. Runs of taps off 16 (tails) and under 16, output channels odd and
 * above a block of 64, groups of four pixels spanning rows and batches, every border (a pixel
 * whose taps are clipped to the input, or all outside), SAME padding wider than the filter's
 * reach, strides and dilations (one run per tap), input zero points at -128 and 127, sums that
 * wrap int32 (biases at INT32_MAX), no bias, a filter of more than 16 runs (declined: the other
 * paths run), weights packed on the stack or read in place in slabs, outputs starting inside
 * their inputs as in-place plans place them; and its scratch: the reference's per-channel
 * multipliers, nothing more. */
#include "fastcmp.h"

#include <stdlib.h>

enum { B_CONV = 3, B_DW = 4 };

static uint64_t rng = 2929;
static int32_t rnd(int32_t lo, int32_t hi) {
  return lo + (int32_t)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

typedef struct spec {
  int b, h, w, cin, cout, fh, fw, sh, sw, dh, dw, padding, act;
  int in_zp;    /* 1000: random */
  bool extreme; /* inputs at an end, weights -128, biases at INT32_MAX: sums that wrap */
  bool no_bias;
  int mult; /* nonzero: DEPTHWISE_CONV_2D with this depth multiplier (cout = cin x mult) */
} spec;

/* The output placed over its input as the planner's in-place overlap places it
 * (src/graph/overlap.c: offset(in) - offset(out) = the lead, rows whole), on every lean
 * configuration (2 and 3 threads: band by band, each band's rows split): the reference's bytes. */
static void overlap_case(const char *what, int32_t builtin, const ap_kop_options *o,
                         const ap_ktensor *const *ins, int n, const ap_ktensor *out_view,
                         const spec *c) {
  size_t nref = 0, sc;
  ap_status s;
  uint8_t *ref = fc_run(builtin, o, ins, n, out_view, NULL, &nref, &sc, &s);
  if (!ref || s != AP_OK) {
    free(ref);
    return; /* (fc_compare reported it) */
  }
  int32_t eh = (c->fh - 1) * c->dh + 1;
  int32_t oh = c->padding == AP_KPAD_SAME ? (c->h + c->sh - 1) / c->sh : (c->h - eh) / c->sh + 1;
  int32_t pad = c->padding == AP_KPAD_SAME ? ((oh - 1) * c->sh + eh - c->h) / 2 : 0;
  pad = pad > 0 ? pad : 0;
  int64_t orow = (int64_t)nref / c->b / oh, irow = (int64_t)c->w * c->cin, lead = 0;
  for (int b = 0; b < c->b; b++)
    for (int r = 0; r < oh; r++) {
      int64_t first = (int64_t)r * c->sh - pad;
      first = first < 0 ? 0 : first > c->h ? c->h : first;
      int64_t l = ((int64_t)b * oh + r + 1) * orow - ((int64_t)b * c->h + first) * irow;
      lead = l > lead ? l : lead;
    }
  size_t nin = (size_t)c->b * (size_t)irow * (size_t)c->h;
  size_t total = (size_t)lead + nin > nref ? (size_t)lead + nin : nref;
  uint8_t *buf = malloc(total);
  for (int i = 0; i < fc_ncfg; i++) {
    if (!fc_cfgs[i].x.lean) continue;
    memcpy(buf + lead, ins[0]->data, nin);
    ap_ktensor tin = *ins[0];
    tin.data = buf + lead;
    const ap_ktensor *ins2[3] = {&tin, ins[1], n > 2 ? ins[2] : NULL};
    const ap_kernel *k = ap_kernel_find(builtin);
    _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
    memset(params, 0, sizeof params);
    ap_kop_options opt = *o;
    opt.exec = &fc_cfgs[i].x;
    ap_errbuf err = {{0}};
    ap_ktensor out = *out_view, *outs[1] = {&out};
    ap_kctx cx = {ins2, n, outs, 1, &opt, params, NULL, &err};
    size_t scratch = 0;
    s = k->prepare(&cx, &scratch);
    void *sp = scratch ? aligned_alloc(16, ap_kscratch_round(scratch)) : NULL;
    out.data = buf;
    cx.scratch = sp;
    if (s == AP_OK) s = k->eval(&cx);
    free(sp);
    CHECK_MSG(s == AP_OK && memcmp(buf, ref, nref) == 0,
              "%s: over its input (lead %lld), %s with %d threads differs", what, (long long)lead,
              fc_cfgs[i].name, fc_cfgs[i].x.threads);
  }
  free(buf);
  free(ref);
}

static void run_case(const spec *c) {
  size_t nin = (size_t)c->b * c->h * c->w * c->cin,
         nf = (size_t)c->cout * c->fh * c->fw * (c->mult ? 1 : c->cin);
  int8_t *in = malloc(nin), *f = malloc(nf);
  int zp = c->in_zp == 1000 ? rnd(-128, 127) : c->in_zp;
  for (size_t i = 0; i < nin; i++)
    in[i] = (int8_t)(c->extreme ? (zp > 0 ? -128 : 127) : rnd(-128, 127));
  for (size_t i = 0; i < nf; i++)
    f[i] = (int8_t)(c->extreme ? -128 : rnd(-127, 127));
  int32_t *bias = malloc((size_t)c->cout * 4);
  float *scales = malloc((size_t)c->cout * sizeof *scales);
  for (int i = 0; i < c->cout; i++) {
    bias[i] = c->extreme ? INT32_MAX - i : rnd(-30000, 30000);
    scales[i] = 0.002f + 0.03f * (float)rnd(0, 1000) / 1000.0f;
  }
  ap_ktensor ti = ktq(AP_INT8, in, 4, c->b, c->h, c->w, c->cin, 0.05f, zp);
  ap_ktensor tf = c->mult ? kt(AP_INT8, f, 4, 1, c->fh, c->fw, c->cout)
                          : kt(AP_INT8, f, 4, c->cout, c->fh, c->fw, c->cin);
  tf.quantized_dimension = c->mult ? 3 : 0;
  tf.scale = scales[0];
  tf.channel_scales = scales;
  tf.n_channels = c->cout;
  ap_ktensor tb = kt(AP_INT32, bias, 1, c->cout, 0, 0, 0);
  ap_ktensor to =
      kout(AP_INT8, NULL, c->extreme ? 1e5f : 0.2f + (float)rnd(0, 100) / 500.0f, rnd(-10, 10));
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){c->padding, c->sw, c->sh, c->dw, c->dh, c->act, c->mult, 0};
  char what[200];
  snprintf(what, sizeof what,
           "%s b%d %dx%dx%d -> %d, filter %dx%d, stride %dx%d, dilation %dx%d, %s, zp %d%s%s",
           c->mult ? "DEPTHWISE" : "CONV", c->b, c->h, c->w, c->cin, c->cout, c->fh, c->fw, c->sh,
           c->sw, c->dh, c->dw, c->padding == AP_KPAD_SAME ? "SAME" : "VALID", zp,
           c->extreme ? ", wrapping" : "", c->no_bias ? ", no bias" : "");
  fc_compare(what, c->mult ? B_DW : B_CONV, &o, ins, c->no_bias ? 2 : 3, &to);
  overlap_case(what, c->mult ? B_DW : B_CONV, &o, ins, c->no_bias ? 2 : 3, &to, c);
  free(in), free(f), free(bias), free(scales);
}

/* The lean paths' scratch where they run: the reference's (two int32 per output channel, 7
 * here), where the fast kernels' take more. */
static void scratch_case(int builtin) {
  bool dw = builtin == B_DW;
  int8_t in[6 * 6 * 7] = {0}, f[7 * 3 * 3 * 7] = {0};
  int32_t bias[7] = {0};
  float scales[7] = {0.01f, 0.01f, 0.01f, 0.01f, 0.01f, 0.01f, 0.01f};
  ap_ktensor ti = ktq(AP_INT8, in, 4, 1, 6, 6, 7, 0.05f, 3);
  ap_ktensor tf = dw ? kt(AP_INT8, f, 4, 1, 3, 3, 7) : kt(AP_INT8, f, 4, 7, 3, 3, 7);
  tf.scale = scales[0];
  tf.channel_scales = scales;
  tf.n_channels = 7;
  tf.quantized_dimension = dw ? 3 : 0;
  ap_ktensor tb = kt(AP_INT32, bias, 1, 7, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, NULL, 0.3f, 0);
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){AP_KPAD_SAME, 1, 1, 1, 1, AP_KACT_NONE, dw ? 1 : 0, 0};
  size_t bytes, ref_scratch, lean_scratch, fast_scratch;
  ap_status s;
  free(fc_run(builtin, &o, ins, 3, &to, NULL, &bytes, &ref_scratch, &s));
  CHECK(s == AP_OK);
  CHECK_MSG(ref_scratch == 2 * 7 * 4, "reference scratch %zu", ref_scratch);
#ifdef AP_FAST_X86
  if (ap_port_cpu_features() & AP_CPU_AVX2) {
    ap_kexec x = {.level = &ap_fast_avx2, .threads = 1, .lean = true};
    free(fc_run(builtin, &o, ins, 3, &to, &x, &bytes, &lean_scratch, &s));
    CHECK(s == AP_OK);
    CHECK_MSG(lean_scratch == ref_scratch, "%s: lean scratch %zu, reference %zu",
              dw ? "depthwise" : "conv", lean_scratch, ref_scratch);
    ap_kexec fast = {.level = &ap_fast_avx2, .threads = 1};
    free(fc_run(builtin, &o, ins, 3, &to, &fast, &bytes, &fast_scratch, &s));
    CHECK_MSG(s == AP_OK && fast_scratch > lean_scratch, "%s: fast scratch %zu",
              dw ? "depthwise" : "conv", fast_scratch);
  }
#else
  (void)lean_scratch, (void)fast_scratch;
#endif
}

int main(void) {
  /* Every level on 1-3 threads, then each with the lean kernels: on one thread, and on 2 and
   * 3 as the kernel choice's "in place" candidate runs them (one workspace: the lean kernels
   * split, every op however small). */
  fc_setup();
  ap_port_workers *w1 = NULL; /* one thread: a region's indices run in turn on the caller */
  CHECK(ap_port_workers_create(NULL, 1, &w1, NULL) == AP_OK);
  const ap_fast_level *l[AP_TEST_MAX_LEVELS];
  for (int i = 0, n = ap_test_levels(l); i < n; i++) {
    fc_cfgs[fc_ncfg++] = (fc_cfg){{.level = l[i], .threads = 1, .lean = true}, l[i]->name};
    fc_cfgs[fc_ncfg++] = (fc_cfg){{.level = l[i],
                                   .workers = fc_w2,
                                   .threads = 2,
                                   .lean = true,
                                   .one_workspace = true,
                                   .parallel_min = 1},
                                  l[i]->name};
    fc_cfgs[fc_ncfg++] = (fc_cfg){{.level = l[i],
                                   .workers = fc_w3,
                                   .threads = 3,
                                   .lean = true,
                                   .one_workspace = true,
                                   .parallel_min = 1},
                                  l[i]->name};
    /* 2 and 3 threads' pieces run one after the other, not in index order where the kernel
     * maps them otherwise (the lean CONV_2D's pieces of an output over its input: a piece
     * before the one before it and after it), at the levels that run the lean CONV_2D */
    for (int t = 2; t <= 3 && (l[i]->level == AP_SIMD_AVX2 || l[i]->level == AP_SIMD_AVX512); t++)
      fc_cfgs[fc_ncfg++] = (fc_cfg){{.level = l[i],
                                     .workers = w1,
                                     .threads = t,
                                     .lean = true,
                                     .one_workspace = true,
                                     .parallel_min = 1},
                                    l[i]->name};
  }
  const int S = AP_KPAD_SAME, V = AP_KPAD_VALID, R = 1000;
  const int NONE = AP_KACT_NONE, RELU = AP_KACT_RELU, RELU6 = AP_KACT_RELU6;
  static const spec specs[] = {
      /* The input's rows widened once (win16_avx2.c, the packed product): dilation down
       * only, groups of four pixels across two output rows, out_w of exactly 4 with stride 2
       * (runs of 18), a 5x5 filter's two padded columns, a VALID stride-2 map whose last input
       * column no tap reads, sums that wrap */
      {1, 13, 10, 8, 24, 3, 3, 1, 1, 2, 1, S, RELU, R, false, false, 0},
      {1, 11, 7, 6, 16, 3, 3, 2, 2, 1, 1, S, NONE, -128, false, false, 0},
      {1, 12, 9, 4, 40, 5, 5, 1, 1, 1, 1, S, NONE, 127, false, false, 0},
      {1, 9, 31, 4, 16, 2, 2, 1, 2, 1, 1, V, NONE, R, false, false, 0},
      {1, 8, 8, 16, 16, 3, 3, 1, 1, 1, 1, S, NONE, 127, true, false, 0},
      /* mlperf_ic_resnet_int8's 3x3 convolutions: runs of 48, a border around every side */
      {1, 32, 32, 16, 16, 3, 3, 1, 1, 1, 1, S, RELU, R, false, false, 0},
      {1, 16, 16, 16, 32, 3, 3, 2, 2, 1, 1, S, RELU, R, false, false, 0},
      /* pointwise, 64 channels over 25x5 (groups across rows), and strided */
      {1, 25, 5, 64, 64, 1, 1, 1, 1, 1, 1, V, RELU6, R, false, false, 0},
      {2, 9, 7, 24, 17, 1, 1, 2, 2, 1, 1, S, NONE, R, false, false, 0},
      /* one input channel, a 10x4 filter (runs of 4: all tail), stride 2 */
      {1, 49, 10, 1, 64, 10, 4, 2, 2, 1, 1, S, RELU, R, false, false, 0},
      /* odd channels, runs off 16, outputs over a block of 64 and odd */
      {1, 7, 9, 3, 131, 3, 3, 1, 1, 1, 1, S, NONE, R, false, false, 0},
      {1, 6, 5, 7, 5, 5, 5, 1, 1, 1, 1, S, RELU, R, false, true, 0},
      {3, 5, 3, 33, 1, 3, 3, 1, 1, 1, 1, S, NONE, R, false, false, 0},
      /* padding wider than the filter's reach: pixels with no tap inside */
      {1, 2, 3, 4, 16, 5, 5, 1, 1, 1, 1, S, NONE, R, false, false, 0},
      {1, 1, 1, 9, 10, 3, 3, 1, 1, 1, 1, S, NONE, R, false, false, 0},
      /* dilations: one run per tap; strides 3 and 2 */
      {1, 12, 12, 4, 20, 3, 3, 1, 1, 3, 3, S, NONE, R, false, false, 0},
      {1, 13, 9, 6, 16, 5, 1, 1, 2, 2, 1, S, RELU, R, false, false, 0},
      {1, 9, 14, 4, 8, 2, 4, 2, 1, 1, 2, S, NONE, R, false, false, 0},
      {1, 11, 10, 8, 16, 3, 3, 3, 2, 1, 1, S, NONE, R, false, false, 0},
      {1, 10, 11, 20, 24, 3, 3, 2, 2, 2, 2, V, RELU6, R, false, false, 0},
      /* Widened patches: all the weights packed on the stack for the outer product (131 and 120
       * channels, more than 64), else read in place in slabs of 64 (a tail under 8), the
       * longest patch widened (640 taps); each also with its output starting inside its
       * input (overlap_case: an in-place plan, written in pixel order on one thread) */
      {1, 25, 5, 64, 64, 1, 1, 1, 1, 1, 1, V, RELU6, R, false, false, 0},
      {1, 14, 14, 16, 32, 3, 3, 1, 1, 1, 1, V, NONE, R, false, false, 0},
      {1, 6, 5, 3, 131, 3, 3, 1, 1, 1, 1, S, NONE, R, false, false, 0},
      {1, 8, 8, 40, 120, 1, 1, 2, 2, 1, 1, S, NONE, R, false, false, 0},
      {1, 9, 8, 32, 32, 3, 3, 1, 1, 1, 1, S, RELU, R, false, true, 0},
      {1, 6, 7, 40, 70, 3, 3, 1, 1, 1, 1, S, NONE, R, false, false, 0},
      {1, 5, 7, 100, 70, 1, 1, 1, 1, 1, 1, V, NONE, R, false, false, 0},
      {2, 5, 6, 160, 72, 2, 2, 1, 1, 1, 1, S, NONE, R, false, false, 0},
      {1, 9, 9, 16, 16, 3, 3, 2, 2, 1, 1, S, NONE, R, false, false, 0},
      /* input zero points at the int8 ends; biases at INT32_MAX, so sums wrap int32 */
      {1, 8, 8, 16, 16, 3, 3, 1, 1, 1, 1, S, NONE, -128, false, false, 0},
      {1, 8, 8, 16, 16, 3, 3, 1, 1, 1, 1, S, NONE, 127, false, false, 0},
      {1, 6, 6, 96, 12, 3, 3, 1, 1, 1, 1, S, NONE, -128, true, false, 0},
      {1, 6, 6, 96, 12, 3, 3, 1, 1, 1, 1, V, NONE, 127, true, false, 0},
      /* patches above the 640 taps widened on the stack: runs read in place (dilated: a run
       * per tap), with the borders' taps clipped */
      {1, 9, 8, 80, 24, 3, 3, 1, 1, 1, 1, S, RELU, R, false, false, 0},
      {1, 9, 10, 72, 9, 3, 3, 1, 2, 2, 2, S, NONE, 127, false, false, 0},
      {2, 5, 5, 700, 3, 1, 1, 1, 1, 1, 1, V, NONE, R, false, true, 0},
      /* 17 filter rows: more runs than the lean kernel takes (the other paths run) */
      {1, 20, 3, 2, 4, 17, 1, 1, 1, 1, 1, S, NONE, R, false, false, 0},
  };
  for (size_t i = 0; i < sizeof specs / sizeof *specs; i++)
    run_case(&specs[i]);
  static const spec dws[] = {
      /* mlperf_kws_dscnn_int8's 3x3 over 25x5x64, micro_speech's 10x8 with multiplier 8 */
      {1, 25, 5, 64, 64, 3, 3, 1, 1, 1, 1, S, RELU, R, false, false, 1},
      {1, 49, 40, 1, 8, 10, 8, 2, 2, 1, 1, S, RELU, R, false, false, 8},
      /* mlperf_sww_int8's columns (width 1), channels off 8 (a scalar tail), multiplier 16 */
      {1, 30, 1, 40, 40, 3, 1, 1, 1, 1, 1, V, NONE, R, false, false, 1},
      {2, 7, 6, 13, 13, 3, 3, 2, 1, 1, 1, S, RELU6, R, false, true, 1},
      {1, 5, 7, 3, 48, 3, 3, 1, 2, 1, 1, S, NONE, R, false, false, 16},
      /* dilation, padding past the filter's reach, zero points at the ends, wrapping sums */
      {1, 9, 9, 16, 16, 3, 3, 1, 1, 2, 3, S, NONE, R, false, false, 1},
      {1, 2, 2, 8, 8, 5, 5, 1, 1, 1, 1, S, NONE, -128, false, false, 1},
      {1, 6, 6, 24, 24, 3, 3, 1, 1, 1, 1, S, NONE, 127, true, false, 1},
      {1, 6, 6, 24, 24, 3, 3, 1, 1, 1, 1, V, NONE, -128, true, false, 1},
      /* workspaces above the stack's 4 KiB: the lean file's own kernel (channels off 8, a
       * multiplier of 8 over 16 input channels, padding and stride) */
      {1, 7, 6, 201, 201, 3, 3, 1, 1, 1, 1, S, RELU, R, false, false, 1},
      {1, 6, 7, 16, 128, 5, 5, 2, 1, 1, 1, S, NONE, R, false, true, 8},
      {1, 9, 8, 256, 256, 3, 3, 2, 2, 2, 1, S, NONE, -128, true, false, 1},
      /* multiplier 3: not the lean kernel's (the other paths run) */
      {1, 6, 5, 4, 12, 3, 3, 1, 1, 1, 1, S, NONE, R, false, false, 3},
  };
  for (size_t i = 0; i < sizeof dws / sizeof *dws; i++)
    run_case(&dws[i]);
  for (int i = 0; i < 40; i++) { /* random shapes around the cases above */
    spec c = {rnd(1, 2),  rnd(1, 12),
              rnd(1, 12), rnd(1, 40),
              rnd(1, 70), rnd(1, 4),
              rnd(1, 4),  rnd(1, 3),
              rnd(1, 3),  rnd(1, 2),
              rnd(1, 2),  rnd(0, 1) ? S : V,
              NONE,       rnd(0, 3) ? R : (rnd(0, 1) ? -128 : 127),
              false,      rnd(0, 4) == 0,
              0};
    if (i % 2) { /* a depthwise of multiplier 1 or 8 */
      c.mult = rnd(0, 2) ? 1 : 8;
      c.cout = c.cin * c.mult;
    }
    if (c.padding == V && (c.h < (c.fh - 1) * c.dh + 1 || c.w < (c.fw - 1) * c.dw + 1))
      c.padding = S;
    run_case(&c);
  }
  scratch_case(B_CONV);
  scratch_case(B_DW);
  fc_teardown();
  ap_port_workers_destroy(w1);
  return ap_test_done();
}
