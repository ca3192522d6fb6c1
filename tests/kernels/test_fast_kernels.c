/* The fast kernels against the reference ones, through the registry as the runtime calls them,
 * at every SIMD level this CPU has and with 1, 2 and 3 threads: the edges a fast path adds
 * (channel counts off the vector widths, padding at every border, stride 2 over odd sizes,
 * dilation, depth multipliers above 1, depths off 16 and 32, an int32 sum that wraps), plus
 * hand-worked values. */
#include "kernels/fast/dsp.h"
#include "kernels/fast/fast.h"
#include "kernels/registry.h"
#include "ktest.h"

#include <string.h>

enum { B_CONV = 3, B_DW = 4, B_FC = 9, B_PAD = 34 };

static uint64_t rng = 12345;
static int32_t rnd(int32_t lo, int32_t hi) {
  return lo + (int32_t)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

typedef struct cfg {
  ap_kexec x;
  const char *name;
} cfg;
static cfg cfgs[24];
static int ncfg;

static void add_cfgs(const ap_fast_level *l, ap_port_workers *w2, ap_port_workers *w3) {
  /* Every op splits, however small. */
  cfgs[ncfg++] = (cfg){{.level = l, .threads = 1, .parallel_min = 1}, l->name};
  cfgs[ncfg++] = (cfg){{.level = l, .workers = w2, .threads = 2, .parallel_min = 1}, l->name};
  cfgs[ncfg++] = (cfg){{.level = l, .workers = w3, .threads = 3, .parallel_min = 1}, l->name};
}

/* Prepare and eval of `builtin` with exec x (NULL: reference); the output bytes (malloc'd) or
 * NULL with *s the failure. */
static int8_t *run(int32_t builtin, const ap_kop_options *o, const ap_ktensor *const *ins, int n,
                   const ap_ktensor *out_view, const ap_kexec *x, size_t *bytes, ap_status *s) {
  const ap_kernel *k = ap_kernel_find(builtin);
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  memset(params, 0, sizeof params);
  ap_kop_options opt = *o;
  opt.exec = x;
  ap_errbuf err = {{0}};
  ap_ktensor out = *out_view, *outs[1] = {&out};
  ap_kctx c = {ins, n, outs, 1, &opt, params, NULL, &err};
  size_t scratch = 0;
  *s = k->prepare(&c, &scratch);
  if (*s != AP_OK) return NULL;
  size_t count;
  ap_ktensor_count(&out, &count);
  count *= ap_ktype_size(out.type);
  *bytes = count;
  out.data = malloc(count ? count : 1);
  /* a pattern, not the bytes of the run before (malloc hands the freed block back): an output
   * byte no piece writes differs */
  if (out.data) memset(out.data, 0xa5, count);
  void *sc = scratch ? aligned_alloc(16, ap_kscratch_round(scratch)) : NULL;
  c.scratch = sc;
  ap_kop_options run_opt = {0};
  run_opt.exec = x;
  c.options = &run_opt;
  *s = k->eval(&c);
  free(sc);
  return out.data;
}

/* Equal bytes; for float outputs a NaN matches any NaN: which NaN an operation on two NaNs (or
 * on inf and 0) gives depends on operand order, which the compiler picks for the reference
 * itself (its -O0 and -O2 builds differ in the sign of such NaNs). */
static bool equal_out(const int8_t *a, const int8_t *b, size_t n, int type) {
  if (type != AP_FLOAT32) return memcmp(a, b, n) == 0;
  for (size_t i = 0; i + 4 <= n; i += 4) {
    float x, y;
    memcpy(&x, a + i, 4);
    memcpy(&y, b + i, 4);
    if (memcmp(&x, &y, 4) != 0 && !(isnan(x) && isnan(y))) return false;
  }
  return true;
}

/* Every configuration's output equals the reference's. */
static void compare_all(const char *what, int32_t builtin, const ap_kop_options *o,
                        const ap_ktensor *const *ins, int n, const ap_ktensor *out_view) {
  size_t nref = 0, nf = 0;
  ap_status s;
  int8_t *ref = run(builtin, o, ins, n, out_view, NULL, &nref, &s);
  CHECK_MSG(ref && s == AP_OK, "%s: reference failed (%d)", what, (int)s);
  for (int i = 0; ref && i < ncfg; i++) {
    int8_t *got = run(builtin, o, ins, n, out_view, &cfgs[i].x, &nf, &s);
    bool same = got && s == AP_OK && nf == nref && equal_out(got, ref, nref, out_view->type);
    size_t at = 0;
    while (got && !same && at < nref && got[at] == ref[at])
      at++;
    CHECK_MSG(same, "%s: %s with %d threads differs at byte %zu of %zu (%d, reference %d)", what,
              cfgs[i].name, cfgs[i].x.threads, at, nref, got && at < nf ? got[at] : 0,
              at < nref ? ref[at] : 0);
    free(got);
  }
  free(ref);
}

static int8_t *rand_bytes(size_t n, int lo, int hi) {
  int8_t *p = malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++)
    p[i] = (int8_t)rnd(lo, hi);
  return p;
}

static float *rand_scales(int n, float lo, float hi) {
  float *s = malloc((size_t)n * sizeof *s);
  for (int i = 0; i < n; i++)
    s[i] = lo + (hi - lo) * (float)rnd(0, 1000) / 1000.0f;
  return s;
}

/* in_zp, out_zp: the zero points, or 999 for random ones in [-20, 20] and [-10, 10]; out_scale:
 * 0 for a random one in [0.1, 0.6]; biases in [-bias_span, bias_span]. */
static void conv_case_q(bool depthwise, int b, int h, int w, int cin, int cout, int fh, int fw,
                        int stride, int dil, int padding, int act, int in_zp, int out_zp,
                        float out_scale, int32_t bias_span) {
  int mult = depthwise ? cout / cin : 1;
  size_t nin = (size_t)b * h * w * cin, nf = (size_t)cout * fh * fw * (depthwise ? 1 : cin);
  int8_t *in = rand_bytes(nin, -128, 127), *f = rand_bytes(nf, -127, 127);
  int32_t *bias = malloc((size_t)cout * 4);
  for (int i = 0; i < cout; i++)
    bias[i] = rnd(-bias_span, bias_span);
  float *scales = rand_scales(cout, 0.002f, 0.05f);
  ap_ktensor ti = ktq(AP_INT8, in, 4, b, h, w, cin, 0.05f, in_zp == 999 ? rnd(-20, 20) : in_zp);
  ap_ktensor tf =
      depthwise ? kt(AP_INT8, f, 4, 1, fh, fw, cout) : kt(AP_INT8, f, 4, cout, fh, fw, cin);
  tf.scale = scales[0];
  tf.channel_scales = scales;
  tf.n_channels = cout;
  tf.quantized_dimension = depthwise ? 3 : 0;
  ap_ktensor tb = kt(AP_INT32, bias, 1, cout, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, NULL, out_scale ? out_scale : 0.1f + (float)rnd(0, 100) / 200.0f,
                       out_zp == 999 ? rnd(-10, 10) : out_zp);
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){padding, stride, stride, dil, dil, act, depthwise ? mult : 0, 0};
  char what[200];
  snprintf(what, sizeof what,
           "%s b%d %dx%dx%d -> %d, filter %dx%d, stride %d, dilation %d, %s, zero points %d, %d",
           depthwise ? "DEPTHWISE" : "CONV", b, h, w, cin, cout, fh, fw, stride, dil,
           padding == AP_KPAD_SAME ? "SAME" : "VALID", ti.zero_point, to.zero_point);
  compare_all(what, depthwise ? B_DW : B_CONV, &o, ins, 3, &to);
  free(in), free(f), free(bias), free(scales);
}

/* Depthwise, multiplier 1: biases at the int32 ends under a multiplier just below 2^-22, whose
 * rounding divide (2^22 added, then a shift by 23) leaves int32 for the sums near INT32_MAX
 * (AVX2's folded requantization checks its bound and adds the input offset per tap instead). */
static void dw_bias_ends(void) {
  enum { H = 5, W = 6, C = 24 };
  int8_t *in = rand_bytes((size_t)H * W * C, -128, 127), *f = rand_bytes((size_t)9 * C, -127, 127);
  int32_t bias[C];
  float scales[C];
  for (int i = 0; i < C; i++) {
    bias[i] = i % 3 ? INT32_MAX - rnd(0, 3000) : INT32_MIN + rnd(0, 3000);
    scales[i] = 0.05f;
  }
  ap_ktensor ti = ktq(AP_INT8, in, 4, 1, H, W, C, 0.05f, 3);
  ap_ktensor tf = kt(AP_INT8, f, 4, 1, 3, 3, C);
  tf.scale = scales[0];
  tf.channel_scales = scales;
  tf.n_channels = C;
  tf.quantized_dimension = 3;
  ap_ktensor tb = kt(AP_INT32, bias, 1, C, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, NULL, 42000.0f, -5);
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){AP_KPAD_SAME, 1, 1, 1, 1, AP_KACT_NONE, 1, 0};
  compare_all("DEPTHWISE 5x6x24 3x3, biases at the int32 ends", B_DW, &o, ins, 3, &to);
  free(in), free(f);
}

static void conv_case(bool depthwise, int b, int h, int w, int cin, int cout, int fh, int fw,
                      int stride, int dil, int padding, int act) {
  int in_zp = rnd(-20, 20), out_zp = rnd(-10, 10);
  float out_scale = 0.1f + (float)rnd(0, 100) / 200.0f;
  conv_case_q(depthwise, b, h, w, cin, cout, fh, fw, stride, dil, padding, act, in_zp, out_zp,
              out_scale, 20000);
}

static void fc_case(int batches, int depth, int units, bool per_channel, int filter_zp,
                    bool extreme) {
  size_t nin = (size_t)batches * depth, nw = (size_t)units * depth;
  int8_t *in = extreme ? rand_bytes(nin, -128, -128) : rand_bytes(nin, -128, 127);
  int8_t *wt = extreme ? rand_bytes(nw, -128, -128) : rand_bytes(nw, -127, 127);
  int32_t *bias = malloc((size_t)units * 4);
  for (int i = 0; i < units; i++)
    bias[i] = rnd(-5000, 5000);
  float *scales = rand_scales(units, 0.001f, 0.02f);
  ap_ktensor ti = ktq(AP_INT8, in, 2, batches, depth, 0, 0, 0.03f, extreme ? 127 : rnd(-5, 5));
  ap_ktensor tw = ktq(AP_INT8, wt, 2, units, depth, 0, 0, scales[0], filter_zp);
  if (per_channel) {
    tw.channel_scales = scales;
    tw.n_channels = units;
  }
  ap_ktensor tb = kt(AP_INT32, bias, 1, units, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, NULL, extreme ? 3e4f : 0.2f, rnd(-3, 3));
  const ap_ktensor *ins[3] = {&ti, &tw, &tb};
  ap_kop_options o = {0};
  o.fc.activation = AP_KACT_NONE;
  char what[128];
  snprintf(what, sizeof what, "FC %d x %d -> %d%s, filter zp %d%s", batches, depth, units,
           per_channel ? " per channel" : "", filter_zp, extreme ? ", wrapping sum" : "");
  compare_all(what, B_FC, &o, ins, 3, &to);
  free(in), free(wt), free(bias), free(scales);
}

static float *rand_floats(size_t n, bool specials) {
  float *p = malloc((n ? n : 1) * sizeof *p);
  for (size_t i = 0; i < n; i++) {
    p[i] = (float)rnd(-1000, 1000) / 300.0f;
    int r = specials ? rnd(0, 60) : 99;
    if (r == 0) p[i] = NAN;
    if (r == 1) p[i] = INFINITY;
    if (r == 2) p[i] = -0.0f;
  }
  return p;
}

/* Float CONV_2D: each output's sum order kept, so the bytes equal the reference's, NaN and
 * infinities included. */
static void fconv_case(int b, int h, int w, int cin, int cout, int fh, int fw, int stride, int dil,
                       int padding, int act, bool has_bias, bool specials) {
  size_t nin = (size_t)b * h * w * cin, nf = (size_t)cout * fh * fw * cin;
  float *in = rand_floats(nin, specials), *f = rand_floats(nf, false),
        *bias = rand_floats((size_t)cout, false);
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, b, h, w, cin);
  ap_ktensor tf = kt(AP_FLOAT32, f, 4, cout, fh, fw, cin);
  ap_ktensor tb = kt(AP_FLOAT32, bias, 1, cout, 0, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, NULL, 0.0f, 0);
  const ap_ktensor *ins[3] = {&ti, &tf, has_bias ? &tb : NULL};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){padding, stride, stride, dil, dil, act, 0, 0};
  char what[160];
  snprintf(what, sizeof what, "float CONV b%d %dx%dx%d -> %d, filter %dx%d, stride %d%s", b, h, w,
           cin, cout, fh, fw, stride, specials ? ", NaN and inf" : "");
  compare_all(what, B_CONV, &o, ins, 3, &to);
  free(in), free(f), free(bias);
}

/* ADD or SUB (builtin 0 or 41) of same-shape 8-bit tensors: tails of 8, both signs of
 * scale ratio, activations. */
static void add_case(int32_t builtin, int type, int n, float s1, float s2, float so, int act) {
  int8_t *a = rand_bytes((size_t)n, -128, 127), *b = rand_bytes((size_t)n, -128, 127);
  int zlo = type == AP_UINT8 ? 0 : -128, zhi = type == AP_UINT8 ? 255 : 127;
  ap_ktensor ta = ktq(type, a, 2, 1, n, 0, 0, s1, rnd(zlo, zhi));
  ap_ktensor tb = ktq(type, b, 2, 1, n, 0, 0, s2, rnd(zlo, zhi));
  ap_ktensor to = kout(type, NULL, so, rnd(zlo, zhi));
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_kop_options o = {0};
  o.activation = act;
  char what[128];
  snprintf(what, sizeof what, "%s %s x %d, scales %g %g -> %g", builtin ? "SUB" : "ADD",
           type == AP_UINT8 ? "uint8" : "int8", n, (double)s1, (double)s2, (double)so);
  compare_all(what, builtin, &o, ins, 2, &to);
  free(a), free(b);
}

/* ADD or SUB over every pair of input bytes (a[i] = i, b[i] = i / 256, n = 65536) or the first
 * n of them (odd n: the 32- and 8-element loops' tails),
 * with the zero points given: add_avx2.c's folded roundings checked at every byte pair,
 * saturation and every clamp. b2: b has one element (broadcast: the reference's path). */
static void add_pairs(int32_t builtin, int type, int n, float s1, float s2, float so, int z1,
                      int z2, int zo, int act, bool b2) {
  int8_t *a = malloc((size_t)n), *b = malloc((size_t)n);
  for (int i = 0; i < n; i++)
    a[i] = (int8_t)(uint8_t)i, b[i] = (int8_t)(uint8_t)(i / 256 + (i & 1) * 77);
  ap_ktensor ta = ktq(type, a, 2, 1, n, 0, 0, s1, z1);
  ap_ktensor tb = ktq(type, b, 2, 1, b2 ? 1 : n, 0, 0, s2, z2);
  ap_ktensor to = kout(type, NULL, so, zo);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_kop_options o = {0};
  o.activation = act;
  char what[160];
  snprintf(what, sizeof what, "%s %s pairs x %d%s, scales %g %g -> %g, zero points %d %d -> %d",
           builtin ? "SUB" : "ADD", type == AP_UINT8 ? "uint8" : "int8", n,
           b2 ? " (broadcast)" : "", (double)s1, (double)s2, (double)so, z1, z2, zo);
  compare_all(what, builtin, &o, ins, 2, &to);
  free(a), free(b);
}

/* PAD of a rank-`rank` tensor of `type` by pads (before, after per dim): the fast rows, split
 * over the threads at every row (tests set parallel_min 1), against the reference's walk. */
static void pad_case(int type, int rank, const int32_t *dims, const int32_t *pads) {
  size_t n = ap_ktype_size(type);
  for (int d = 0; d < rank; d++)
    n *= (size_t)dims[d];
  int8_t *data = rand_bytes(n, -128, 127);
  ap_ktensor ti = ap_ktensor_make(type, data, rank, dims);
  ti.scale = 0.5f;
  ti.zero_point = type == AP_INT8 ? 3 : 0;
  int32_t pdims[2] = {rank, 2};
  ap_ktensor tp = ap_ktensor_make(AP_INT32, (void *)pads, 2, pdims);
  ap_ktensor to = kout(type, NULL, 0.5f, ti.zero_point);
  const ap_ktensor *ins[2] = {&ti, &tp};
  ap_kop_options o = {0};
  char what[128];
  snprintf(what, sizeof what, "PAD rank %d type %d, dims %d %d ...", rank, type, (int)dims[0],
           rank > 1 ? (int)dims[1] : 0);
  compare_all(what, B_PAD, &o, ins, 2, &to);
  free(data);
}

/* 1x1 convolution of one pixel (1, 2, 3) by filters (1, 1, 1) and (-1, 0, 2), biases 10 and
 * -5, every scale 1: 1 + 2 + 3 + 10 = 16 and -1 + 6 - 5 = 0; with input zero point 1 the
 * pixel is (0, 1, 2): 3 + 10 = 13 and 4 - 5 = -1; output zero point 2 adds 2. */
static void hand_worked(void) {
  int8_t in[3] = {1, 2, 3}, f[6] = {1, 1, 1, -1, 0, 2}, out[2];
  int32_t bias[2] = {10, -5};
  float scales[2] = {1.0f, 1.0f};
  ap_ktensor ti = ktq(AP_INT8, in, 4, 1, 1, 1, 3, 1.0f, 1);
  ap_ktensor tf = kt(AP_INT8, f, 4, 2, 1, 1, 3);
  tf.scale = 1.0f;
  tf.channel_scales = scales;
  tf.n_channels = 2;
  ap_ktensor tb = kt(AP_INT32, bias, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, out, 1.0f, 2);
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){AP_KPAD_VALID, 1, 1, 1, 1, AP_KACT_NONE, 0, 0};
  for (int i = 0; i < ncfg; i++) {
    size_t n = 0;
    ap_status s;
    int8_t *got = run(B_CONV, &o, ins, 3, &to, &cfgs[i].x, &n, &s);
    CHECK(got && s == AP_OK && n == 2);
    if (got && n == 2) {
      CHECK_MSG(got[0] == 15 && got[1] == 1, "%s: got %d %d, want 15 1", cfgs[i].name, got[0],
                got[1]);
    }
    free(got);
  }
}

/* The fast multipliers equal the reference's for scales across the range, ties included. */
static void multipliers(void) {
  enum { N = 4000 };
  static float scales[N];
  static int32_t m1[N], s1[N], m2[N], s2[N];
  for (int i = 0; i < N; i++) {
    int r = rnd(0, 9);
    scales[i] = r == 0   ? ldexpf(1.0f, rnd(-40, 40))
                : r == 1 ? ldexpf((float)rnd(1, 1 << 23), rnd(-60, 10))
                         : (float)rnd(1, 1000000) * 1e-7f;
  }
  scales[0] = 0.0f;
  scales[1] = 1e-38f;
  scales[2] = INFINITY;
  float input_scales[] = {1.0f, 0.0078125f, 0.0186311f, 3.7e-5f, 123.0f};
  ap_ktensor f = kt(AP_INT8, NULL, 1, N, 0, 0, 0);
  f.channel_scales = scales;
  f.n_channels = N;
  for (size_t i = 0; i < sizeof input_scales / sizeof input_scales[0]; i++) {
    ap_kconv_channel_multipliers(input_scales[i], &f, 0.05f, N, m1, s1);
    ap_fast_channel_multipliers(input_scales[i], &f, 0.05f, N, m2, s2);
    int bad = 0;
    for (int c = 0; c < N; c++)
      bad += m1[c] != m2[c] || s1[c] != s2[c];
    CHECK_MSG(bad == 0, "input scale %g: %d multipliers differ", (double)input_scales[i], bad);
  }
}

int main(void) {
  multipliers();
  ap_port_workers *w2 = NULL, *w3 = NULL;
  CHECK(ap_port_workers_create(NULL, 2, &w2, NULL) == AP_OK);
  CHECK(ap_port_workers_create(NULL, 3, &w3, NULL) == AP_OK);
  add_cfgs(&ap_fast_generic, w2, w3);
  add_cfgs(&ap_fast_dsp_level, w2, w3);
  add_cfgs(&ap_fast_dsp_small_level, w2, w3);
#ifdef AP_FAST_X86
  uint32_t f = ap_port_cpu_features();
  if (f & AP_CPU_SSE41) add_cfgs(&ap_fast_sse41, w2, w3);
  if (f & AP_CPU_AVX2) add_cfgs(&ap_fast_avx2, w2, w3);
  if ((f & AP_CPU_AVX512BW) && (f & AP_CPU_AVX512VNNI)) add_cfgs(&ap_fast_avx512, w2, w3);
#endif
#ifdef AP_FAST_NEON
  uint32_t fa = ap_port_cpu_features();
  if (fa & AP_CPU_NEON) add_cfgs(&ap_fast_neon, w2, w3);
  if ((fa & AP_CPU_NEON) && (fa & AP_CPU_NEON_DOT)) add_cfgs(&ap_fast_neondot, w2, w3);
#endif
  hand_worked();
  /* Convolutions: tails of 8 and 32, borders, odd sizes with stride 2, dilation, 1x1 direct
   * rows, batches; the larger ones split over threads. */
  static const int convs[][11] = {
      {1, 5, 5, 3, 2, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 7, 7, 13, 9, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {2, 6, 5, 17, 33, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_RELU6},
      {1, 9, 7, 33, 7, 1, 1, 2, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 8, 9, 5, 17, 5, 3, 2, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 9, 9, 4, 6, 3, 3, 1, 2, AP_KPAD_SAME, AP_KACT_RELU},
      {1, 6, 6, 8, 8, 3, 3, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 19, 17, 33, 17, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {2, 15, 15, 64, 40, 1, 1, 1, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      {1, 1, 1, 70, 1, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      /* Few rows, many channels: split by blocks of output channels (a 77 and a 100 tail). */
      {1, 7, 7, 160, 200, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_RELU6},
      {1, 5, 6, 24, 100, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {2, 4, 4, 40, 77, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      /* Patch runs of 18 and 21 values (a full block of 16 and an overlapping last one), the
       * last run ending at the input's last byte; over 128 rows (packed weights). */
      {2, 5, 5, 6, 9, 3, 3, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 12, 12, 7, 19, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {1, 13, 11, 3, 5, 3, 3, 2, 1, AP_KPAD_VALID, AP_KACT_NONE},
      /* At most 32 taps (8 and 16 channels: smallk_avx2.c; 32: the tiled products): a
       * first layer's 3x3 over RGB with stride 2 and odd sizes, 1x1 rows of 8, 16, 17 and 32
       * taps (an odd count of pixels, batches, stride 2), dilation, runs of 15 taps, the last
       * pixel at the input's end. */
      {1, 13, 12, 3, 8, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      {1, 11, 10, 3, 16, 3, 3, 1, 2, AP_KPAD_SAME, AP_KACT_RELU},
      {2, 9, 7, 8, 16, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 7, 9, 16, 16, 1, 1, 2, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 7, 9, 16, 32, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 5, 5, 32, 8, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_RELU},
      {1, 6, 7, 5, 8, 2, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 7, 6, 1, 16, 3, 5, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 9, 8, 17, 8, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_RELU6},
      /* Border pixels a filter row at a time (smallk_avx2.c's sk_patch): a first layer's SAME
       * 3x3 with stride 1 (runs cut at both sides, rows above and below), one whose filter is
       * wider than the input (every run cut at both ends), a 5x5 over one channel (two taps
       * cut), a 2x3 over 5 channels (runs of 15: an odd lane), stride 2 with the padding
       * below and right only. */
      {1, 9, 7, 3, 16, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 3, 2, 3, 8, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {1, 7, 6, 1, 16, 5, 5, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {2, 5, 4, 5, 8, 2, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 10, 12, 3, 8, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      /* Filter rows of an even count of values over 48 rows or more: the outer kit over the
       * input's rows widened once (win16_avx2.c). Groups of four pixels across two output rows
       * (out_w 13, 9), stride 2, dilation (runs of 9 pairs: an odd step last), a 5x5 filter's
       * padding of 2 columns, a VALID stride-2 map whose last input column no tap reads, 24
       * and 17 output channels (a half block after a whole one). */
      {1, 12, 13, 8, 24, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {1, 16, 16, 16, 32, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 10, 9, 6, 17, 3, 3, 1, 2, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 11, 14, 10, 16, 5, 5, 1, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      {1, 18, 31, 4, 16, 2, 2, 2, 1, AP_KPAD_VALID, AP_KACT_NONE},
      /* The packed outer product over 49 rows (a 7x7 map: the last row alone, outer_row1) with
       * 11 pairs (four a step, then three), two whole blocks and a half one; a first layer's
       * 3x3 over RGB with stride 2 whose windows all lie inside (patch16's runs of 9, the
       * call's last row built on the stack). */
      {1, 7, 7, 22, 40, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 15, 15, 3, 32, 3, 3, 2, 1, AP_KPAD_VALID, AP_KACT_RELU6},
      /* 32768 weights or more (conv_int8.c's PACK_SPLIT_MIN): packed over the threads in
       * pieces of whole 16-channel blocks, the last piece's block a half one (72 channels). */
      {1, 8, 9, 64, 72, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_RELU},
  };
  for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++) {
    const int *c = convs[i];
    conv_case(false, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10]);
  }
  /* Zero points at the int8 ends and outputs that saturate both ways (a small output scale):
   * the 16-channel stores pack with saturation before the offset and the clamp. Rows in place
   * (1x1, few rows), packed (many rows), 16 and 8 channel tails. */
  static const int zps[][3] = {{-128, 127, 0}, {127, -128, 0}, {-128, -128, 1}, {127, 127, 1}};
  for (size_t i = 0; i < sizeof zps / sizeof zps[0]; i++) {
    int act = zps[i][2] ? AP_KACT_RELU6 : AP_KACT_NONE;
    conv_case_q(false, 1, 5, 5, 40, 40, 1, 1, 1, 1, AP_KPAD_VALID, act, zps[i][0], zps[i][1],
                0.004f, 20000);
    conv_case_q(false, 1, 12, 12, 9, 24, 3, 3, 1, 1, AP_KPAD_SAME, act, zps[i][0], zps[i][1], 0.01f,
                20000);
    conv_case_q(false, 1, 3, 3, 48, 32, 1, 1, 1, 1, AP_KPAD_VALID, act, zps[i][0], zps[i][1], 0.5f,
                20000);
    conv_case_q(false, 1, 9, 8, 16, 16, 3, 3, 1, 1, AP_KPAD_SAME, act, zps[i][0], zps[i][1], 0.01f,
                20000); /* widened rows (win16_avx2.c) */
  }
  /* Sums near the int32 ends (biases up to 2^30 - 1) through left shifts (a small output scale:
   * the shifted sum wraps, as the reference's) and long right shifts (a large one): the
   * vector requantization's rounding at every distance. */
  static const float out_scales[] = {0.0005f, 0.03f, 40.0f, 3e5f};
  for (size_t i = 0; i < sizeof out_scales / sizeof out_scales[0]; i++) {
    conv_case_q(false, 1, 12, 12, 9, 24, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE, 5, -3,
                out_scales[i], (1 << 30) - 1);
    conv_case_q(false, 1, 5, 5, 40, 40, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE, -7, 9,
                out_scales[i], (1 << 30) - 1);
  }
  /* Depthwise: channel tails of 8, multipliers 1 to 3, 3x3 and 5x5, stride 2 on odd sizes,
   * dilation, every border. */
  static const int dws[][11] = {
      {1, 5, 5, 3, 3, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 7, 7, 9, 9, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      {1, 8, 7, 17, 17, 3, 3, 2, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 6, 6, 4, 8, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 11, 9, 1, 8, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      {1, 7, 7, 1, 12, 3, 3, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {2, 9, 9, 5, 15, 5, 5, 2, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {1, 9, 11, 16, 16, 3, 3, 1, 2, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 40, 37, 40, 40, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      {1, 3, 3, 8, 8, 5, 5, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      /* multipliers of 8 (one input channel a block): micro_speech's 10x8 window of 80 taps,
       * dilation with 16 a channel, several input channels at every border */
      {1, 49, 40, 1, 8, 10, 8, 2, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {2, 9, 10, 3, 48, 3, 5, 1, 2, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 7, 6, 2, 16, 5, 5, 2, 1, AP_KPAD_VALID, AP_KACT_RELU6},
  };
  for (size_t i = 0; i < sizeof dws / sizeof dws[0]; i++) {
    const int *c = dws[i];
    conv_case(true, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10]);
  }
  /* Multiplier 1 (AVX2: 16-channel blocks, then an 8-channel one, then scalar channels): 16,
   * 24, 39 and 64 channels, 3x3 and 5x5 (unrolled), 1x1, 3x1 and 7x7 (pairs counted at run
   * time), a row 1 wide and 2 high (every tap at a border), zero points at the int8 ends. */
  static const int dw1s[][11] = {
      {1, 6, 5, 16, 16, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 7, 9, 24, 24, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      {2, 9, 8, 39, 39, 3, 3, 1, 2, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 25, 5, 64, 64, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {1, 8, 9, 48, 48, 5, 5, 2, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 6, 7, 40, 40, 5, 5, 1, 1, AP_KPAD_VALID, AP_KACT_RELU6},
      {1, 4, 5, 33, 33, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 7, 6, 56, 56, 3, 1, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 9, 10, 17, 17, 7, 7, 2, 1, AP_KPAD_SAME, AP_KACT_RELU},
      {1, 2, 1, 32, 32, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      /* 8 channels, stride 1 across: pixels inside in twos (an odd and an even run); stride 2 */
      {1, 9, 12, 8, 8, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      {1, 8, 11, 8, 8, 5, 5, 1, 2, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 6, 9, 8, 8, 2, 2, 2, 1, AP_KPAD_VALID, AP_KACT_NONE},
      /* 3x3 windows inside addressed from their corner: 16-channel blocks then an 8-channel
       * block (stride 2), then scalar channels (no padding) */
      {1, 7, 10, 40, 40, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU6},
      {1, 6, 9, 19, 19, 3, 3, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      /* 3x3, stride 1, 16 or 32 channels: each block swept along a row inside the input
       * (long rows, a row of one pixel inside, batches; padding rows take the corner path) */
      {1, 9, 23, 32, 32, 3, 3, 1, 1, AP_KPAD_VALID, AP_KACT_RELU6},
      {2, 8, 19, 16, 16, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE},
      {1, 5, 3, 32, 32, 3, 3, 1, 1, AP_KPAD_VALID, AP_KACT_NONE},
      {1, 11, 4, 32, 32, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_RELU},
  };
  static const int dw1_zps[][2] = {{-128, 127}, {127, -128}, {0, 0}, {999, 999}};
  for (size_t i = 0; i < sizeof dw1s / sizeof dw1s[0]; i++)
    for (size_t z = 0; z < sizeof dw1_zps / sizeof dw1_zps[0]; z++) {
      const int *c = dw1s[i];
      conv_case_q(true, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10],
                  dw1_zps[z][0], dw1_zps[z][1], 0.0f, 20000);
    }
  /* Multipliers above 1 for some channels (left shifts: no folding), 16 and 8 channel blocks. */
  conv_case_q(true, 1, 6, 7, 24, 24, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE, 999, 999, 0.0004f,
              20000);
  conv_case_q(true, 1, 5, 5, 40, 40, 5, 5, 1, 1, AP_KPAD_SAME, AP_KACT_NONE, -128, 127, 0.0004f,
              20000);
  dw_bias_ends();
  /* Fully connected: depths off 16, unit tails of 4, batches, a nonzero filter zero point
   * (per-tensor), per channel, and a depth whose int32 sum wraps. */
  fc_case(1, 1, 1, false, 0, false);
  fc_case(1, 7, 3, false, 0, false);
  fc_case(3, 17, 5, true, 0, false);
  fc_case(2, 33, 9, false, 3, false);
  fc_case(1, 100, 17, true, 0, false);
  fc_case(1, 640, 130, false, 0, false);
  fc_case(1, 70000, 2, false, 0, true);
  fconv_case(1, 5, 5, 3, 5, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE, true, false);
  fconv_case(2, 9, 11, 7, 17, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU, true, true);
  fconv_case(1, 8, 8, 16, 8, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_RELU6, false, false);
  fconv_case(1, 13, 12, 5, 9, 5, 3, 1, 2, AP_KPAD_SAME, AP_KACT_RELU_N1_TO_1, true, true);
  fconv_case(1, 16, 16, 16, 32, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE, true, false);
  add_case(0, AP_INT8, 1, 0.1f, 0.2f, 0.3f, AP_KACT_NONE);
  add_case(0, AP_INT8, 37, 0.05f, 0.02f, 0.04f, AP_KACT_RELU);
  add_case(41, AP_INT8, 100, 0.01f, 0.3f, 0.25f, AP_KACT_NONE);
  add_case(0, AP_UINT8, 45, 0.1f, 0.1f, 0.1f, AP_KACT_RELU6);
  add_case(0, AP_INT8, 70001, 0.02f, 0.03f, 0.05f, AP_KACT_NONE);
  /* 4096 to 8191 elements: two tasks of 2048 or more (add_int8.c), pieces cut at multiples of
   * 32 */
  add_case(0, AP_INT8, 4097, 0.02f, 0.03f, 0.05f, AP_KACT_RELU);
  add_case(0, AP_UINT8, 6001, 0.1f, 0.05f, 0.1f, AP_KACT_NONE);
  add_case(41, AP_UINT8, 9, 0.5f, 0.002f, 0.01f, AP_KACT_NONE);
  /* Every byte pair: equal scales (multipliers 2^30, shift 0), scales 10^6 apart (shifts near
   * -20), outputs saturating both ways (a small output scale) or rounding near the zero point
   * (a large one: ties), zero points at the ends of the type, each activation. */
  add_pairs(0, AP_INT8, 65536, 0.1f, 0.1f, 0.1f, 0, 0, 0, AP_KACT_NONE, false);
  add_pairs(41, AP_INT8, 65536, 0.1f, 0.1f, 0.1f, -128, 127, 3, AP_KACT_NONE, false);
  add_pairs(0, AP_INT8, 65536, 1.0f, 1e-6f, 0.5f, 127, -128, -128, AP_KACT_RELU, false);
  add_pairs(41, AP_INT8, 65536, 3e-6f, 0.7f, 0.02f, -5, 9, 127, AP_KACT_RELU6, false);
  add_pairs(0, AP_INT8, 65536, 0.05f, 0.08f, 0.001f, 17, -100, -3, AP_KACT_NONE, false);
  add_pairs(0, AP_INT8, 65536, 0.05f, 0.08f, 25.0f, 17, -100, 0, AP_KACT_RELU_N1_TO_1, false);
  add_pairs(41, AP_INT8, 65536, 0.004f, 0.004f, 7.0f, 1, -1, -2, AP_KACT_NONE, false);
  add_pairs(0, AP_UINT8, 65536, 0.1f, 0.3f, 0.2f, 0, 255, 128, AP_KACT_NONE, false);
  add_pairs(41, AP_UINT8, 65536, 0.9f, 2e-6f, 0.01f, 255, 0, 255, AP_KACT_RELU, false);
  add_pairs(0, AP_UINT8, 65536, 0.02f, 0.02f, 0.001f, 128, 128, 0, AP_KACT_RELU6, false);
  /* add_avx2.c's folds at the ends of their ranges and just past them (the direct path):
   * input shifts -11 and -12 (scale ratios 0.75 2^-10, 0.75 2^-11), output shifts -1, 0, -23 and
   * -24 (twice the larger input scale over the output scale 2^18.5, 2^19.5, 1/12, 1/24). */
  add_pairs(0, AP_INT8, 65536, 0.5f, 0.5f * 0.75f / 1024, 0.05f, 3, -9, 1, AP_KACT_NONE, false);
  add_pairs(41, AP_INT8, 65536, 0.75f / 4096, 0.5f, 0.05f, 3, -9, 1, AP_KACT_NONE, false);
  add_pairs(0, AP_INT8, 65536, 0.5f, 0.3f, 1.0f / 370727.6f, -1, 2, 0, AP_KACT_NONE, false);
  add_pairs(0, AP_UINT8, 65536, 0.5f, 0.3f, 1.0f / 741455.2f, 128, 2, 100, AP_KACT_NONE, false);
  add_pairs(41, AP_INT8, 65536, 0.5f, 0.3f, 12.0f, -1, 2, -128, AP_KACT_NONE, false);
  add_pairs(0, AP_INT8, 65536, 0.5f, 0.3f, 24.0f, -1, 2, 127, AP_KACT_NONE, false);
  /* Lengths off 8 and 32 (the loops' tails, per thread). */
  static const int lens[] = {15, 16, 17, 511, 512, 513, 527, 544, 1023, 4109};
  for (int i = 0; i < (int)(sizeof lens / sizeof lens[0]); i++) {
    add_pairs(i & 1 ? 41 : 0, AP_INT8, lens[i], 0.03f, 0.05f, 0.04f, -7, 12, 5, AP_KACT_NONE,
              false);
    add_pairs(i & 1 ? 0 : 41, AP_UINT8, lens[i], 0.03f, 0.01f, 0.02f, 100, 30, 140, AP_KACT_RELU,
              false);
  }
  /* A one-element b: the broadcast takes the reference's path at every level. */
  add_pairs(0, AP_INT8, 4109, 0.03f, 0.05f, 0.04f, -7, 12, 5, AP_KACT_NONE, true);
  add_pairs(41, AP_UINT8, 700, 0.03f, 0.01f, 0.02f, 100, 30, 140, AP_KACT_NONE, true);
  /* PAD: the last padded dim inner or outer, nothing padded after it, all-padding rows (a
   * batch pad), element sizes 1, 2 and 4, fewer rows than threads. */
  static const int32_t d4[] = {2, 7, 5, 3}, p4[] = {1, 0, 1, 1, 2, 0, 0, 0};
  static const int32_t d4b[] = {1, 12, 11, 4}, p4b[] = {0, 0, 1, 1, 1, 1, 0, 0};
  static const int32_t d4c[] = {1, 3, 4, 5}, p4c[] = {0, 0, 0, 0, 0, 0, 2, 3};
  static const int32_t d2[] = {1, 9}, p2[] = {0, 1, 0, 0};
  static const int32_t d5[] = {2, 3, 2, 3, 2}, p5[] = {1, 1, 0, 2, 1, 0, 0, 1, 0, 0};
  static const int32_t d1[] = {5}, p1[] = {2, 1};
  pad_case(AP_INT8, 4, d4, p4);
  pad_case(AP_INT8, 4, d4b, p4b);
  pad_case(AP_INT8, 4, d4c, p4c);
  pad_case(AP_FLOAT32, 4, d4b, p4b);
  pad_case(AP_INT16, 4, d4, p4);
  pad_case(AP_INT8, 5, d5, p5);
  pad_case(AP_INT8, 2, d2, p2);
  pad_case(AP_INT32, 1, d1, p1);
  ap_port_workers_destroy(w2);
  ap_port_workers_destroy(w3);
  return ap_test_done();
}
