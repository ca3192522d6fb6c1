/* The fast float kernels (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED) against the reference,
 * through the registry, at every SIMD level this CPU has, with 1, 2 and 3 threads: channel and
 * unit counts off the 8- and 16-lane panels, rows wider and narrower than a register block,
 * padding at every border (taps wholly outside the input too), stride 2, dilation, depth
 * multipliers, batches, activations, no bias, NaN, inf and -0 in the input and inf in the
 * weights (the convolution then skips taps outside the input instead of reading zeros). */
#include "kernels/fast/fast.h"
#include "kernels/registry.h"
#include "ktest.h"

#include <string.h>

enum { B_ADD = 0, B_AVG = 1, B_CONV = 3, B_DW = 4, B_FC = 9, B_MAX = 17, B_MUL = 18, B_SUB = 41 };

static uint64_t rng = 777;
static int32_t rnd(int32_t lo, int32_t hi) {
  return lo + (int32_t)(ap_test_rand(&rng) % (uint64_t)(hi - lo + 1));
}

static ap_kexec cfgs[32];
static int ncfg;
static ap_fast_level flats[4]; /* levels with their packed-weight kit taken away */
static int nflat;

static void add_cfgs(const ap_fast_level *l, ap_port_workers *w2, ap_port_workers *w3) {
  cfgs[ncfg++] = (ap_kexec){.level = l, .threads = 1, .parallel_min = 1};
  cfgs[ncfg++] = (ap_kexec){.level = l,
                            .workers = w2,
                            .threads = 2,
                            .parallel_min = 1}; /* parallel_min 1: every op splits */
  cfgs[ncfg++] = (ap_kexec){.level = l, .workers = w3, .threads = 3, .parallel_min = 1};
}

/* The level as the kernel choice's "in place" candidate runs it (ap_fast_level_flat: the float
 * convolution packs one tap at a time, the fully connected reads its weights in place), on 1
 * and 2 threads (and 2 with one workspace); a level without that kit has no such candidate. */
static void add_flat(const ap_fast_level *l, ap_port_workers *w2) {
  if (!l->outer) return;
  ap_fast_level *f = &flats[nflat++];
  *f = *l;
  f->outer = NULL;
  cfgs[ncfg++] = (ap_kexec){.level = f, .threads = 1, .parallel_min = 1};
  cfgs[ncfg++] = (ap_kexec){.level = f, .workers = w2, .threads = 2, .parallel_min = 1};
  /* with one workspace, as the runtime runs that candidate: the tap passes still split */
  cfgs[ncfg++] =
      (ap_kexec){.level = f, .workers = w2, .threads = 2, .one_workspace = true, .parallel_min = 1};
  /* and with the lean kernels, as that candidate runs (lean.h: the float CONV_2D with pixels in
   * lanes, no scratch), on 1 and 2 threads (one workspace) */
  cfgs[ncfg++] = (ap_kexec){.level = f, .threads = 1, .lean = true, .parallel_min = 1};
  cfgs[ncfg++] = (ap_kexec){.level = f,
                            .workers = w2,
                            .threads = 2,
                            .lean = true,
                            .one_workspace = true,
                            .parallel_min = 1};
}

/* Prepare and eval with exec x (NULL: the reference kernel); the output (malloc'd) or NULL. */
static float *run(int32_t builtin, const ap_kop_options *o, const ap_ktensor *const *ins, int n_ins,
                  const ap_kexec *x, size_t *n) {
  const ap_kernel *k = ap_kernel_find(builtin);
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  memset(params, 0, sizeof params);
  ap_kop_options opt = *o;
  opt.exec = x;
  ap_errbuf err = {{0}};
  ap_ktensor out = kout(AP_FLOAT32, NULL, 0.0f, 0), *outs[1] = {&out};
  ap_kctx c = {ins, n_ins, outs, 1, &opt, params, NULL, &err};
  size_t scratch = 0;
  if (k->prepare(&c, &scratch) != AP_OK || !ap_ktensor_count(&out, n)) return NULL;
  out.data = malloc(*n ? *n * 4 : 1);
  /* poisoned (not NaN, which matches any NaN): an output the kernel left unwritten shows */
  memset(out.data, 0x5a, *n * 4);
  /* Scratch past its size is poisoned: a kernel reading beyond it would show. */
  unsigned char *sc = scratch ? malloc(ap_kscratch_round(scratch) + 64) : NULL;
  if (sc) memset(sc, 0xff, ap_kscratch_round(scratch) + 64);
  c.scratch = sc;
  ap_status s = k->eval(&c);
  free(sc);
  if (s != AP_OK) {
    free(out.data);
    return NULL;
  }
  return out.data;
}

/* Same bits, except that any NaN matches any NaN (which NaN an operation on two NaNs gives
 * depends on the operand order the compiler picked for the reference itself). */
static void compare_all(const char *what, int32_t builtin, const ap_kop_options *o,
                        const ap_ktensor *const *ins, int n_ins) {
  size_t nref = 0, n = 0;
  float *ref = run(builtin, o, ins, n_ins, NULL, &nref);
  CHECK_MSG(ref != NULL, "%s: reference failed", what);
  for (int i = 0; ref && i < ncfg; i++) {
    float *got = run(builtin, o, ins, n_ins, &cfgs[i], &n);
    size_t at = 0;
    while (got && n == nref && at < n &&
           (memcmp(&got[at], &ref[at], 4) == 0 || (isnan(got[at]) && isnan(ref[at]))))
      at++;
    CHECK_MSG(got && n == nref && at == n, "%s: %s%s, %d threads: element %zu of %zu is %a, not %a",
              what, cfgs[i].level->name,
              cfgs[i].lean                        ? " lean"
              : ap_fast_level_flat(cfgs[i].level) ? " in place"
                                                  : "",
              cfgs[i].threads, at, nref, got && at < n ? (double)got[at] : 0.0,
              at < nref ? (double)ref[at] : 0.0);
    free(got);
  }
  free(ref);
}

/* Values in [-3.3, 3.3]; with specials about one in 20 is NaN, inf, -inf, -0 or 0. */
static float *rand_floats(size_t n, bool specials) {
  float *p = malloc((n ? n : 1) * sizeof *p);
  for (size_t i = 0; i < n; i++) {
    p[i] = (float)rnd(-1000, 1000) / 300.0f;
    int r = specials ? rnd(0, 100) : 99;
    if (r == 0) p[i] = NAN;
    if (r == 1) p[i] = INFINITY;
    if (r == 2) p[i] = -INFINITY;
    if (r == 3 || r == 4) p[i] = -0.0f;
    if (r == 5) p[i] = 0.0f;
  }
  return p;
}

typedef struct conv_shape {
  int b, h, w, cin, cout, fh, fw, stride, dil, padding, act;
} conv_shape;

/* w_specials: 0 none, 1 an inf weight, 2 every weight negative (products of 0 are -0). */
static void conv_case(bool dw, conv_shape s, bool has_bias, bool in_specials, int w_specials) {
  size_t nin = (size_t)s.b * s.h * s.w * s.cin;
  size_t nf = (size_t)s.cout * s.fh * s.fw * (dw ? 1 : s.cin);
  float *in = rand_floats(nin, in_specials), *f = rand_floats(nf, false),
        *bias = rand_floats((size_t)s.cout, false);
  if (w_specials == 1) f[(size_t)rnd(0, (int32_t)nf - 1)] = INFINITY;
  for (size_t i = 0; w_specials == 2 && i < nf; i++)
    f[i] = -fabsf(f[i]) - 0.5f;
  if (w_specials == 2)
    for (size_t i = 0; i < nin; i++)
      in[i] = i % 3 ? 0.0f : -0.0f;
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, s.b, s.h, s.w, s.cin);
  ap_ktensor tf = dw ? kt(AP_FLOAT32, f, 4, 1, s.fh, s.fw, s.cout)
                     : kt(AP_FLOAT32, f, 4, s.cout, s.fh, s.fw, s.cin);
  ap_ktensor tb = kt(AP_FLOAT32, bias, 1, s.cout, 0, 0, 0);
  const ap_ktensor *ins[3] = {&ti, &tf, has_bias ? &tb : NULL};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){s.padding, s.stride, s.stride, s.dil, s.dil, s.act, 0, 0};
  if (dw) o.conv.depth_multiplier = s.cout / s.cin;
  char what[200];
  snprintf(what, sizeof what, "float %s b%d %dx%dx%d -> %d, %dx%d, stride %d, dilation %d%s%s%s",
           dw ? "DEPTHWISE" : "CONV", s.b, s.h, s.w, s.cin, s.cout, s.fh, s.fw, s.stride, s.dil,
           has_bias ? "" : ", no bias", in_specials ? ", NaN/inf/-0 input" : "",
           w_specials == 1   ? ", an inf weight"
           : w_specials == 2 ? ", zero input"
                             : "");
  compare_all(what, dw ? B_DW : B_CONV, &o, ins, 3);
  free(in), free(f), free(bias);
}

static void fc_case(int batches, int depth, int units, bool has_bias, bool specials, int act) {
  float *x = rand_floats((size_t)batches * depth, specials),
        *w = rand_floats((size_t)units * depth, specials), *bias = rand_floats((size_t)units, 0);
  ap_ktensor tx = kt(AP_FLOAT32, x, 2, batches, depth, 0, 0);
  ap_ktensor tw = kt(AP_FLOAT32, w, 2, units, depth, 0, 0);
  ap_ktensor tb = kt(AP_FLOAT32, bias, 1, units, 0, 0, 0);
  const ap_ktensor *ins[3] = {&tx, &tw, has_bias ? &tb : NULL};
  ap_kop_options o = {0};
  o.fc.activation = act;
  char what[160];
  snprintf(what, sizeof what, "float FC %d x %d -> %d%s%s", batches, depth, units,
           has_bias ? "" : ", no bias", specials ? ", NaN/inf/-0" : "");
  compare_all(what, B_FC, &o, ins, 3);
  free(x), free(w), free(bias);
}

static void pool_case(bool max, conv_shape s, bool specials) {
  size_t nin = (size_t)s.b * s.h * s.w * s.cin;
  float *in = rand_floats(nin, specials);
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, s.b, s.h, s.w, s.cin);
  const ap_ktensor *ins[1] = {&ti};
  ap_kop_options o = {0};
  o.pool = (ap_pool_options){s.padding, s.stride, s.stride, s.fw, s.fh, s.act};
  char what[200];
  snprintf(what, sizeof what, "float %s b%d %dx%dx%d, %dx%d, stride %d%s", max ? "MAX" : "AVERAGE",
           s.b, s.h, s.w, s.cin, s.fh, s.fw, s.stride, specials ? ", NaN/inf/-0" : "");
  compare_all(what, max ? B_MAX : B_AVG, &o, ins, 1);
  free(in);
}

/* ADD, SUB or MUL of shapes a and b (rank 4, leading dims of 0 dropped: lower rank). */
static void bin_case(int32_t builtin, const int32_t da[4], const int32_t db[4], int act) {
  int ra = 0, rb = 0;
  size_t na = 1, nb = 1;
  for (int i = 0; i < 4; i++) {
    if (da[i]) ra++, na *= (size_t)da[i];
    if (db[i]) rb++, nb *= (size_t)db[i];
  }
  float *a = rand_floats(na, true), *b = rand_floats(nb, true);
  ap_ktensor ta = ap_ktensor_make(AP_FLOAT32, a, ra, da + 4 - ra);
  ap_ktensor tb = ap_ktensor_make(AP_FLOAT32, b, rb, db + 4 - rb);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_kop_options o = {0};
  o.activation = act;
  char what[200];
  snprintf(what, sizeof what, "float %s [%d,%d,%d,%d] by [%d,%d,%d,%d]",
           builtin == B_ADD   ? "ADD"
           : builtin == B_SUB ? "SUB"
                              : "MUL",
           da[0], da[1], da[2], da[3], db[0], db[1], db[2], db[3]);
  compare_all(what, builtin, &o, ins, 2);
  free(a), free(b);
}

/* One 3x3 SAME convolution by hand: a 2x2 input (1, 2; 3, 4), one channel, every weight 1,
 * bias 0.5: each output sums the whole input, 10.5; RELU_N1_TO_1 clamps it to 1. */
static void hand_worked(void) {
  float in[4] = {1, 2, 3, 4}, f[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, bias[1] = {0.5f};
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, 1, 2, 2, 1), tf = kt(AP_FLOAT32, f, 4, 1, 3, 3, 1);
  ap_ktensor tb = kt(AP_FLOAT32, bias, 1, 1, 0, 0, 0);
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  for (int act = 0; act < 2; act++) {
    ap_kop_options o = {0};
    o.conv = (ap_conv_options){
        AP_KPAD_SAME, 1, 1, 1, 1, act ? AP_KACT_RELU_N1_TO_1 : AP_KACT_NONE, 0, 0};
    for (int i = 0; i < ncfg; i++) {
      size_t n = 0;
      float *got = run(B_CONV, &o, ins, 3, &cfgs[i], &n);
      CHECK(got && n == 4);
      for (size_t j = 0; got && j < n; j++)
        CHECK_MSG(got[j] == (act ? 1.0f : 10.5f), "%s: %g", cfgs[i].level->name, (double)got[j]);
      free(got);
    }
  }
}

/* Expected outputs of one convolution at every configuration (bitwise, by hand). */
static void expect(const char *what, const ap_kop_options *o, const ap_ktensor *const *ins,
                   const float *want, size_t count) {
  for (int i = 0; i < ncfg; i++) {
    size_t n = 0;
    float *got = run(B_CONV, o, ins, 3, &cfgs[i], &n);
    CHECK_MSG(got && n == count, "%s: %s: %zu outputs", what, cfgs[i].level->name, n);
    for (size_t j = 0; got && n == count && j < n; j++)
      CHECK_MSG(memcmp(&got[j], &want[j], 4) == 0, "%s: %s%s, %d threads: [%zu] %g, not %g", what,
                cfgs[i].level->name, ap_fast_level_flat(cfgs[i].level) ? " in place" : "",
                cfgs[i].threads, j, (double)got[j], (double)want[j]);
    free(got);
  }
}

/* The tap-by-tap variant's edges by hand (every configuration runs them, the flat ones by
 * taps). A 3x3 input 1..9, one channel, two filters: ones, and 2 at the centre; stride 2,
 * SAME (one row and column of padding each side): each output of the first sums the 2x2
 * corner it covers, (1+2+4+5, 2+3+5+6, 4+5+7+8, 5+6+8+9), the second doubles the input at its
 * centre (1, 3, 7, 9); bias 0.5 and -1. Then dilation 2, VALID, over a 5x5 input 1..25:
 * ones on the nine taps at even rows and columns, 117; and a wholly padded first pass: 1x5
 * input, 3x3 SAME, rows above and below outside (their taps' passes add nothing). */
static void hand_worked_taps(void) {
  float in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, bias[2] = {0.5f, -1.0f};
  float f[18] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0};
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, 1, 3, 3, 1), tf = kt(AP_FLOAT32, f, 4, 2, 3, 3, 1);
  ap_ktensor tb = kt(AP_FLOAT32, bias, 1, 2, 0, 0, 0);
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){AP_KPAD_SAME, 2, 2, 1, 1, AP_KACT_NONE, 0, 0};
  const float want[8] = {12.5f, 1, 16.5f, 5, 24.5f, 13, 28.5f, 17};
  expect("3x3 stride 2 SAME", &o, ins, want, 8);

  float in5[25], ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  for (int i = 0; i < 25; i++)
    in5[i] = (float)(i + 1);
  ap_ktensor t5 = kt(AP_FLOAT32, in5, 4, 1, 5, 5, 1), t1 = kt(AP_FLOAT32, ones, 4, 1, 3, 3, 1);
  const ap_ktensor *ins5[3] = {&t5, &t1, NULL};
  o.conv = (ap_conv_options){AP_KPAD_VALID, 1, 1, 2, 2, AP_KACT_NONE, 0, 0};
  const float want5[1] = {117};
  expect("3x3 dilation 2 VALID", &o, ins5, want5, 1);

  ap_ktensor trow = kt(AP_FLOAT32, in5, 4, 1, 1, 5, 1);
  const ap_ktensor *insr[3] = {&trow, &t1, NULL};
  o.conv = (ap_conv_options){AP_KPAD_SAME, 1, 1, 1, 1, AP_KACT_RELU6, 0, 0};
  const float wantr[5] = {3, 6, 6, 6, 6}; /* 1+2, 1+2+3, 2+3+4 (9), ... clamped at 6 */
  expect("1x5 3x3 SAME, RELU6", &o, insr, wantr, 5);
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
#ifdef AP_FAST_X86
  if (feat & AP_CPU_AVX2) add_flat(&ap_fast_avx2, w2);
  if ((feat & AP_CPU_AVX512BW) && (feat & AP_CPU_AVX512VNNI)) add_flat(&ap_fast_avx512, w2);
#endif
#ifdef AP_FAST_NEON
  if (feat_a & AP_CPU_NEON) add_flat(&ap_fast_neon, w2);
  if ((feat_a & AP_CPU_NEON) && (feat_a & AP_CPU_NEON_DOT)) add_flat(&ap_fast_neondot, w2);
#endif
  hand_worked();
  hand_worked_taps();
  enum { S = AP_KPAD_SAME, V = AP_KPAD_VALID };
  static const conv_shape convs[] = {
      {1, 5, 5, 3, 5, 3, 3, 1, 1, S, AP_KACT_NONE},
      {2, 9, 11, 7, 17, 3, 3, 2, 1, S, AP_KACT_RELU},
      {1, 8, 8, 16, 8, 1, 1, 1, 1, V, AP_KACT_RELU6},
      {1, 13, 12, 5, 9, 5, 3, 1, 2, S, AP_KACT_RELU_N1_TO_1},
      {1, 16, 16, 16, 32, 3, 3, 1, 1, S, AP_KACT_NONE},
      {1, 7, 20, 4, 33, 3, 3, 1, 1, S, AP_KACT_NONE},   /* panels of 16 and a lone channel */
      {1, 6, 19, 3, 48, 3, 3, 2, 1, S, AP_KACT_RELU},   /* three 16-panels, odd width */
      {1, 3, 3, 2, 15, 7, 7, 1, 1, S, AP_KACT_NONE},    /* taps wholly outside */
      {1, 4, 1, 6, 31, 3, 3, 1, 1, S, AP_KACT_NONE},    /* one column */
      {1, 10, 10, 8, 64, 3, 3, 1, 3, S, AP_KACT_RELU6}, /* dilation 3 */
      {1, 9, 30, 1, 1, 3, 5, 2, 1, V, AP_KACT_NONE},
      {1, 5, 13, 32, 16, 1, 1, 2, 1, S, AP_KACT_NONE},
      /* One pixel wide (on one thread turned into one row): magic_wand's shape first. */
      {1, 42, 1, 8, 16, 4, 1, 1, 1, S, AP_KACT_RELU},
      {2, 9, 1, 3, 17, 3, 1, 2, 1, V, AP_KACT_NONE},
      {1, 20, 1, 5, 9, 3, 1, 1, 2, S, AP_KACT_RELU6},
      {1, 2, 1, 4, 8, 5, 1, 1, 1, S, AP_KACT_NONE}, /* taps wholly outside */
      /* the lean kernel: a row too wide for its stack (ranges of 16 pixels), stride 3 */
      {1, 3, 41, 64, 9, 3, 3, 1, 1, S, AP_KACT_RELU},
      {2, 8, 23, 5, 12, 3, 4, 3, 1, S, AP_KACT_NONE},
      /* the lean kernel's stores of 1 to 7 channels of a pixel (2 and 3: no store of 4) */
      {1, 4, 19, 6, 2, 3, 3, 1, 1, S, AP_KACT_NONE},
      {1, 3, 18, 5, 3, 3, 3, 1, 1, S, AP_KACT_RELU},
      {1, 3, 21, 3, 7, 3, 3, 1, 1, S, AP_KACT_NONE},
      /* its stride-2 transposes: from an odd first column (padding 1), channels off 8 */
      {1, 7, 21, 16, 9, 3, 3, 2, 1, S, AP_KACT_RELU},
      {1, 6, 20, 12, 8, 3, 3, 2, 1, S, AP_KACT_NONE},
      {2, 5, 19, 8, 16, 3, 3, 2, 1, V, AP_KACT_NONE},
  };
  for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++) {
    conv_case(false, convs[i], i % 3 != 1, i % 2 == 1, 0);
    conv_case(false, convs[i], true, true, 1);
    conv_case(false, convs[i], i % 2, false, 2);
  }
  static const conv_shape dws[] = {
      {1, 5, 5, 3, 3, 3, 3, 1, 1, S, AP_KACT_NONE},
      {1, 7, 7, 9, 9, 3, 3, 2, 1, S, AP_KACT_RELU6},
      {1, 8, 7, 17, 17, 3, 3, 2, 1, V, AP_KACT_NONE},
      {1, 6, 6, 4, 8, 3, 3, 1, 1, S, AP_KACT_NONE},    /* multiplier 2 */
      {1, 11, 9, 1, 8, 3, 3, 2, 1, S, AP_KACT_RELU6},  /* multiplier 8 */
      {1, 20, 3, 2, 16, 4, 3, 1, 1, S, AP_KACT_RELU},  /* multiplier 8, two inputs */
      {1, 7, 7, 1, 12, 3, 3, 1, 1, V, AP_KACT_NONE},   /* multiplier 12 */
      {2, 9, 9, 5, 15, 5, 5, 2, 1, S, AP_KACT_RELU},   /* multiplier 3 */
      {1, 9, 11, 16, 16, 3, 3, 1, 2, S, AP_KACT_NONE}, /* dilation */
      {1, 12, 13, 40, 40, 3, 3, 1, 1, S, AP_KACT_RELU6},
      {1, 3, 3, 37, 37, 5, 5, 1, 1, S, AP_KACT_NONE},        /* taps wholly outside */
      {1, 4, 4, 3, 48, 3, 3, 2, 1, S, AP_KACT_RELU_N1_TO_1}, /* multiplier 16 */
      /* 8, 16 or 24 channels: four pixels at a time across rows (magic_wand's shape first),
       * pixel counts off the block of four, batches, dilation, taps wholly outside. */
      {1, 128, 3, 1, 8, 4, 3, 1, 1, S, AP_KACT_RELU},
      {2, 7, 5, 8, 8, 3, 3, 1, 1, S, AP_KACT_NONE},
      {1, 9, 7, 24, 24, 3, 3, 2, 2, S, AP_KACT_RELU6},
      {2, 5, 3, 3, 24, 3, 2, 1, 1, V, AP_KACT_NONE},   /* multiplier 8, three inputs */
      {1, 3, 2, 16, 16, 7, 5, 1, 1, S, AP_KACT_NONE},  /* taps wholly outside */
      {1, 12, 11, 8, 8, 9, 9, 1, 1, S, AP_KACT_NONE},  /* 81 taps: one pixel at a time */
      {1, 10, 10, 2, 16, 8, 8, 1, 1, S, AP_KACT_RELU}, /* 64 taps, multiplier 8 */
  };
  for (size_t i = 0; i < sizeof dws / sizeof dws[0]; i++) {
    conv_case(true, dws[i], i % 3 != 1, i % 2 == 1, 0);
    conv_case(true, dws[i], true, true, 1);
  }
  static const int fcs[][3] = {{1, 1, 1},   {1, 7, 3},    {3, 17, 5},  {2, 33, 9},    {1, 100, 17},
                               {5, 8, 8},   {4, 64, 16},  {9, 9, 33},  {1, 640, 130}, {7, 3, 70},
                               {8, 16, 16}, {40, 70, 37}, {100, 5, 3}, {13, 128, 80}};
  for (size_t i = 0; i < sizeof fcs / sizeof fcs[0]; i++) {
    fc_case(fcs[i][0], fcs[i][1], fcs[i][2], i % 3 != 2, false,
            i % 2 ? AP_KACT_RELU : AP_KACT_NONE);
    fc_case(fcs[i][0], fcs[i][1], fcs[i][2], true, true, AP_KACT_RELU6);
  }
  /* Pools: channel tails of 8 and 32, clipped windows at every border, stride 2 on odd
   * sizes, activations. */
  static const conv_shape pools[] = {
      {1, 5, 5, 3, 0, 3, 3, 1, 1, S, AP_KACT_NONE},
      {1, 8, 7, 8, 0, 2, 2, 2, 1, V, AP_KACT_RELU},
      {2, 9, 9, 13, 0, 3, 3, 2, 1, S, AP_KACT_RELU6},
      {1, 8, 8, 64, 0, 8, 8, 1, 1, V, AP_KACT_NONE},
      {1, 7, 6, 45, 0, 5, 3, 2, 1, S, AP_KACT_RELU_N1_TO_1},
      {1, 128, 3, 8, 0, 3, 1, 3, 1, V, AP_KACT_NONE},
      /* batches: blocks of four whole windows across rows, clipped pixels between them */
      {2, 6, 5, 8, 0, 3, 3, 1, 1, S, AP_KACT_NONE},
      {3, 7, 2, 16, 0, 3, 2, 2, 1, S, AP_KACT_RELU},
  };
  for (size_t i = 0; i < sizeof pools / sizeof pools[0]; i++)
    for (int max = 0; max < 2; max++) {
      pool_case(max, pools[i], false);
      pool_case(max, pools[i], true);
    }
  /* Element-wise: same shapes, a scalar on either side, inner and outer broadcasts, both
   * inputs broadcast, lower ranks, rows shorter and longer than a register. */
  static const int32_t shapes[][2][4] = {
      {{2, 3, 4, 5}, {2, 3, 4, 5}},   {{1, 1, 7, 19}, {0, 0, 0, 1}},  {{0, 0, 0, 1}, {1, 3, 5, 9}},
      {{2, 3, 4, 5}, {0, 0, 0, 5}},   {{2, 3, 4, 5}, {2, 1, 4, 1}},   {{1, 3, 1, 17}, {2, 1, 4, 1}},
      {{3, 1, 1, 40}, {1, 5, 9, 40}}, {{0, 0, 33, 1}, {0, 0, 1, 21}}, {{1, 1, 1, 1}, {1, 1, 1, 1}},
      {{4, 1, 64, 1}, {0, 4, 1, 3}},
  };
  static const int32_t ops[] = {B_ADD, B_SUB, B_MUL};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    for (size_t k = 0; k < 3; k++)
      bin_case(ops[k], shapes[i][0], shapes[i][1],
               (int)(i + k) % 3 == 0   ? AP_KACT_RELU6
               : (int)(i + k) % 3 == 1 ? AP_KACT_NONE
                                       : AP_KACT_RELU_N1_TO_1);
  ap_port_workers_destroy(w2);
  ap_port_workers_destroy(w3);
  return ap_test_done();
}
