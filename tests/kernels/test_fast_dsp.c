/* The Cortex-M DSP level's kernels, both families (fast: int8_dsp.c, dsp_gemm.c, dsp_dw.c;
 * small: dsp_small.c), against the reference kernels through the registry, and the fast
 * family's inline requantization (ap_fast_mul) against the reference's ap_kq_mul. On the host
 * the kernels run dsp_acle.h's C forms of the instructions; scripts/test_mcu_kernels.sh builds
 * this same file for QEMU's Cortex-M4 and Cortex-M55 (make test-mcu), where they run the
 * instructions themselves. The edges: odd channel counts and depth tails (k % 4), odd row
 * counts (the 2x2 product's last row alone), padding at every border, stride 2, dilation,
 * depth multipliers 1, 3, 4 and 8, zero points at the int8 ends, hand-worked outputs at the
 * rounding ties, and the int32 ends of the requantization. On a core with Helium (QEMU's
 * Cortex-M55) the same cases run the MVE level (kernels/fast/mve*.c) too, and its vector
 * requantization (ap_mve_requant) is checked against ap_kq_mul on the same edges. */
#include "kernels/fast/dsp.h"
#include "kernels/fast/dsp_acle.h"
#include "kernels/fast/fast.h"
#include "kernels/fast/mve.h"
#include "kernels/registry.h"
#include "ktest.h"

#include <string.h>

enum { B_AVG = 1, B_CONV = 3, B_DW = 4, B_FC = 9, B_MAX = 17 };

#ifdef AP_TEST_QEMU
enum { RANDOM_MULS = 20000 };
#else
enum { RANDOM_MULS = 2000000 };
#endif

static uint64_t rng = 2026;
static int32_t rnd(int32_t lo, int32_t hi) {
  return lo + (int32_t)(ap_test_rand(&rng) % (uint64_t)((int64_t)hi - lo + 1));
}

/* The fast and small families, and on a core with Helium (QEMU's Cortex-M55) the MVE level. */
static const ap_fast_level *levels[3];
static int n_levels = 2;

/* Prepare and eval of `builtin` with level l (NULL: reference) on one thread: the output
 * bytes (malloc'd), or NULL with *s the failure. */
static int8_t *run(int32_t builtin, const ap_kop_options *o, const ap_ktensor *const *ins, int n,
                   const ap_ktensor *out_view, const ap_fast_level *l, size_t *bytes,
                   ap_status *s) {
  const ap_kernel *k = ap_kernel_find(builtin);
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  memset(params, 0, sizeof params);
  ap_kexec x = {.level = l, .threads = 1};
  ap_kop_options opt = *o;
  opt.exec = l ? &x : NULL;
  ap_errbuf err = {{0}};
  ap_ktensor out = *out_view, *outs[1] = {&out};
  ap_kctx c = {ins, n, outs, 1, &opt, params, NULL, &err};
  size_t scratch = 0;
  *s = k->prepare(&c, &scratch);
  if (*s != AP_OK) return NULL;
  size_t count;
  ap_ktensor_count(&out, &count);
  *bytes = count;
  out.data = malloc(count ? count : 1);
  /* Poisoned too: malloc may hand back the block the previous level's run freed, holding its
   * (correct) outputs, which a kernel writing nothing would leave in place. */
  memset(out.data, 0x5A, count ? count : 1);
  /* The scratch exactly as prepare sized it, poisoned: a kernel reading what it did not write,
   * or past the end, shows. */
  size_t sb = ap_kscratch_round(scratch);
  /* Aligned by hand: newlib-nano (the QEMU build) has no aligned_alloc. */
  unsigned char *block = scratch ? malloc(sb + 16) : NULL, *sc = NULL;
  if (block) {
    sc = block + (16 - (uintptr_t)block % 16) % 16;
    memset(sc, 0xA5, sb);
  }
  c.scratch = sc;
  ap_kop_options run_opt = {0};
  run_opt.exec = opt.exec;
  c.options = &run_opt;
  *s = k->eval(&c);
  free(block);
  return out.data;
}

/* The op with each family against the reference, byte for byte. */
static void compare(const char *what, int32_t builtin, const ap_kop_options *o,
                    const ap_ktensor *const *ins, int n, const ap_ktensor *out) {
  size_t nref = 0;
  ap_status sref;
  int8_t *ref = run(builtin, o, ins, n, out, NULL, &nref, &sref);
  CHECK_MSG(ref && sref == AP_OK, "%s: the reference failed (%d)", what, (int)sref);
  for (int i = 0; ref && i < n_levels; i++) {
    size_t ng = 0;
    ap_status sg;
    int8_t *got = run(builtin, o, ins, n, out, levels[i], &ng, &sg);
    CHECK_MSG(got && sg == AP_OK && ng == nref, "%s (%s): failed (%d)", what, levels[i]->name,
              (int)sg);
    size_t bad = 0, first = 0;
    for (size_t j = 0; got && ng == nref && j < nref; j++)
      if (got[j] != ref[j] && bad++ == 0) first = j;
    /* %lu, not %zu: newlib-nano's printf (the QEMU build) has no z. */
    CHECK_MSG(bad == 0, "%s (%s): %lu of %lu bytes differ, first [%lu] %d, want %d", what,
              levels[i]->name, (unsigned long)bad, (unsigned long)nref, (unsigned long)first,
              got ? got[first] : 0, ref[first]);
    free(got);
  }
  free(ref);
}

static int8_t *bytes(size_t n, int lo, int hi) {
  int8_t *p = malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++)
    p[i] = (int8_t)rnd(lo, hi);
  return p;
}

/* The output scale of conv_case: 0.2 makes every multiplier below 1/2 (right shifts); a tiny
 * one makes them above 1 (left shifts, no right shift: the requantization's other form). */
static float out_scale = 0.2f;

typedef struct conv_shape {
  int h, w, cin, cout, fh, fw, stride, dil, padding, act, in_zp, out_zp;
} conv_shape;

static void conv_case(bool depthwise, conv_shape c) {
  int mult = depthwise ? c.cout / c.cin : 1;
  size_t nin = (size_t)c.h * c.w * c.cin,
         nf = (size_t)c.cout * c.fh * c.fw * (depthwise ? 1 : c.cin);
  int8_t *in = bytes(nin, -128, 127), *f = bytes(nf, -127, 127);
  int32_t *bias = malloc((size_t)c.cout * 4);
  float *scales = malloc((size_t)c.cout * sizeof *scales);
  for (int i = 0; i < c.cout; i++) {
    bias[i] = rnd(-30000, 30000);
    scales[i] = 0.002f + 0.05f * (float)rnd(0, 1000) / 1000.0f;
  }
  ap_ktensor ti = ktq(AP_INT8, in, 4, 1, c.h, c.w, c.cin, 0.05f, c.in_zp);
  ap_ktensor tf = depthwise ? kt(AP_INT8, f, 4, 1, c.fh, c.fw, c.cout)
                            : kt(AP_INT8, f, 4, c.cout, c.fh, c.fw, c.cin);
  tf.scale = scales[0];
  tf.channel_scales = scales;
  tf.n_channels = c.cout;
  tf.quantized_dimension = depthwise ? 3 : 0;
  ap_ktensor tb = kt(AP_INT32, bias, 1, c.cout, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, NULL, out_scale, c.out_zp);
  const ap_ktensor *ins[3] = {&ti, &tf, &tb};
  ap_kop_options o = {0};
  o.conv = (ap_conv_options){
      c.padding, c.stride, c.stride, c.dil, c.dil, c.act, depthwise ? mult : 0, 0};
  char what[160];
  snprintf(what, sizeof what, "%s %dx%dx%d -> %d, %dx%d, stride %d, dilation %d, %s, zp %d/%d",
           depthwise ? "DEPTHWISE" : "CONV", c.h, c.w, c.cin, c.cout, c.fh, c.fw, c.stride, c.dil,
           c.padding == AP_KPAD_SAME ? "SAME" : "VALID", c.in_zp, c.out_zp);
  compare(what, depthwise ? B_DW : B_CONV, &o, ins, 3, &to);
  free(in), free(f), free(bias), free(scales);
}

static void fc_case(int batches, int depth, int units, int in_zp, int out_zp) {
  int8_t *in = bytes((size_t)batches * depth, -128, 127);
  int8_t *w = bytes((size_t)units * depth, -127, 127);
  int32_t *bias = malloc((size_t)units * 4);
  for (int i = 0; i < units; i++)
    bias[i] = rnd(-30000, 30000);
  ap_ktensor ti = ktq(AP_INT8, in, 2, batches, depth, 0, 0, 0.05f, in_zp);
  ap_ktensor tw = ktq(AP_INT8, w, 2, units, depth, 0, 0, 0.01f, 0);
  ap_ktensor tb = kt(AP_INT32, bias, 1, units, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, NULL, 0.3f, out_zp);
  const ap_ktensor *ins[3] = {&ti, &tw, &tb};
  ap_kop_options o = {0};
  char what[96];
  snprintf(what, sizeof what, "FULLY_CONNECTED %d x %d -> %d, zp %d/%d", batches, depth, units,
           in_zp, out_zp);
  compare(what, B_FC, &o, ins, 3, &to);
  free(in), free(w), free(bias);
}

/* AVERAGE_POOL_2D or MAX_POOL_2D, int8, against the reference (the MVE level's pools). */
typedef struct pool_shape {
  int builtin, h, w, c, fh, fw, stride, padding, act, zp;
} pool_shape;

static void pool_case(pool_shape c) {
  int8_t *in = bytes((size_t)c.h * c.w * c.c, -128, 127);
  ap_ktensor ti = ktq(AP_INT8, in, 4, 1, c.h, c.w, c.c, 0.05f, c.zp);
  ap_ktensor to = kout(AP_INT8, NULL, 0.05f, c.zp);
  const ap_ktensor *ins[1] = {&ti};
  ap_kop_options o = {0};
  o.pool = (ap_pool_options){c.padding, c.stride, c.stride, c.fw, c.fh, c.act};
  char what[128];
  snprintf(what, sizeof what, "%s %dx%dx%d, %dx%d, stride %d, %s, zp %d",
           c.builtin == B_AVG ? "AVERAGE_POOL_2D" : "MAX_POOL_2D", c.h, c.w, c.c, c.fh, c.fw,
           c.stride, c.padding == AP_KPAD_SAME ? "SAME" : "VALID", c.zp);
  compare(what, c.builtin, &o, ins, 1, &to);
  free(in);
}

/* 1x1 convolution of one pixel x = 1 (zero point 0) by four one-weight filters 3, -3, 6, -6,
 * no bias; input scale 1, filter scales 0.25, output scale 1: the multiplier 0.25 is 2^30 with
 * shift -1, so each output is two roundings at their ties. SaturatingRoundingDoublingHighMul
 * by 2^30 halves with ties up (3 -> 2, -3 -> -1, 6 -> 3, -6 -> -3), then RoundingDivideByPOT by
 * 2 rounds ties away from zero (2 -> 1, -1 -> -1, 3 -> 2, -3 -> -2): 1, -1, 2, -2. With output
 * zero point 126: 127, 125, 128 clamped to 127, 124. */
/* The ties above on `pixels` pixels in a row (in[]), the outputs want[0] with output zero point
 * 0 and want[1] with 126, four channels per pixel. */
static void ties_case(const int8_t *in, int pixels, const int8_t *const want[2]) {
  int8_t f[4] = {3, -3, 6, -6};
  float scales[4] = {0.25f, 0.25f, 0.25f, 0.25f};
  ap_ktensor ti = ktq(AP_INT8, (void *)in, 4, 1, 1, pixels, 1, 1.0f, 0);
  ap_ktensor tf = kt(AP_INT8, f, 4, 4, 1, 1, 1);
  tf.scale = 0.25f;
  tf.channel_scales = scales;
  tf.n_channels = 4;
  size_t count = (size_t)pixels * 4;
  for (int z = 0; z < 2; z++) {
    ap_ktensor to = kout(AP_INT8, NULL, 1.0f, z ? 126 : 0);
    const ap_ktensor *ins[2] = {&ti, &tf};
    ap_kop_options o = {0};
    o.conv = (ap_conv_options){AP_KPAD_VALID, 1, 1, 1, 1, AP_KACT_NONE, 0, 0};
    for (int i = 0; i <= n_levels; i++) {
      const ap_fast_level *l = i < n_levels ? levels[i] : NULL;
      size_t n = 0;
      ap_status s;
      int8_t *got = run(B_CONV, &o, ins, 2, &to, l, &n, &s);
      CHECK(got && s == AP_OK && n == count);
      for (size_t j = 0; got && n == count && j < count; j++)
        CHECK_MSG(got[j] == want[z][j], "%s, %d pixels, zero point %d: [%d] = %d, want %d",
                  l ? l->name : "reference", pixels, z ? 126 : 0, (int)j, got[j], want[z][j]);
      free(got);
    }
  }
}

static void hand_worked_ties(void) {
  static const int8_t in1[1] = {1}, w1a[4] = {1, -1, 2, -2}, w1b[4] = {127, 125, 127, 124};
  ties_case(in1, 1, (const int8_t *const[2]){w1a, w1b});
  /* Four pixels 1, -1, 2, -2 (the MVE level's 1x1 rows four at a time): x = 2 gives the sums
   * 6, -6, 12, -12, halved with ties up to 3, -3, 6, -6 (floor((x + 1) / 2)), then halved with
   * ties away from zero to 2, -2, 3, -3; x = -2 the negatives. */
  static const int8_t in4[4] = {1, -1, 2, -2};
  static const int8_t w4a[16] = {1, -1, 2, -2, -1, 1, -2, 2, 2, -2, 3, -3, -2, 2, -3, 3};
  static const int8_t w4b[16] = {127, 125, 127, 124, 125, 127, 124, 127,
                                 127, 124, 127, 123, 124, 127, 123, 127};
  ties_case(in4, 4, (const int8_t *const[2]){w4a, w4b});
}

/* The prepared word's form (ap_dsp_rqb_of, ap_dsp_rqb_apply: the product's and the depthwise's
 * requantization) against ap_kq_mul: 1 when they differ. A shift outside the form (e = -shift
 * outside [2, 24], a negative multiplier) stays the shift itself; preparing a prepared word again
 * leaves it (each eval prepares the layer's shifts in place). *fast counts the words prepared. */
static int rqb_differs(int32_t x, int32_t m, int32_t s, long *fast) {
  uint32_t b = ap_dsp_rqb_of(m, s);
  bool want = m >= 0 && s <= -2 && s >= -24;
  if (ap_dsp_rqb_fast(b) != want) return 1;
  if (!want) return b != (uint32_t)s;
  ++*fast;
  return ap_dsp_rqb_apply((uint32_t)x, m, b) != ap_kq_mul(x, m, s) ||
         ap_dsp_rqb_of(m, (int32_t)b) != b;
}

/* ap_fast_mul (and the kernels' ap_dsp_requant) equals ap_kq_mul at the int32 ends, every shift
 * from -40 to 40, the multiplier INT32_MIN (the one saturating product), and both roundings' ties;
 * then at random. */
static void mul_edges(void) {
  const int32_t xs[] = {INT32_MIN,  INT32_MIN + 1, -65536,   -3, -2, -1, 0, 1, 2, 3, 65535, 1 << 30,
                        -(1 << 30), INT32_MAX - 1, INT32_MAX};
  const int32_t ms[] = {0, 1, 1 << 30, (1 << 30) + 1, INT32_MAX, INT32_MIN, 1518500250, 2147483000};
  long bad = 0, n = 0, fast = 0;
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
    for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++)
      for (int32_t s = -40; s <= 40; s++, n++) {
        bad += ap_fast_mul(xs[i], ms[j], s) != ap_kq_mul(xs[i], ms[j], s);
        bad += ap_dsp_requant((uint32_t)xs[i], ms[j], s, 0, -128, 127) !=
               (int8_t)ap_kq_clamp(ap_kq_mul(xs[i], ms[j], s), -128, 127);
        ap_dsp_rqc q = ap_dsp_rqc_of(ms[j], s);
        bad += ap_dsp_rqc_apply(&q, (uint32_t)xs[i], s) != ap_kq_mul(xs[i], ms[j], s);
        bad += rqb_differs(xs[i], ms[j], s, &fast);
      }
  CHECK_MSG(bad == 0, "%ld of %ld edge products differ", bad, n);
  /* SSAT #8, the clamp of a layer whose activation range is all of int8. */
  const int32_t sat_in[] = {INT32_MIN, -65536, -129, -128, -1, 0, 127, 128, 65535, INT32_MAX};
  const int32_t sat_out[] = {-128, -128, -128, -128, -1, 0, 127, 127, 127, 127};
  for (size_t i = 0; i < sizeof sat_in / sizeof sat_in[0]; i++)
    CHECK_MSG(ap_dsp_ssat8(sat_in[i]) == sat_out[i], "ssat8(%ld) = %ld", (long)sat_in[i],
              (long)ap_dsp_ssat8(sat_in[i]));
  /* 15 sums by the 7 multipliers >= 0 by the 23 shifts -24 .. -2 take the prepared form. */
  CHECK_MSG(fast == 15 * 7 * 23, "%ld edge products prepared", fast);
  /* Ties: x odd times 2^30 is exactly half-way for the high mul; then a remainder of exactly
   * half of 2^e (h = q 2^e + 2^(e-1), either sign) for the division. */
  bad = 0, n = 0;
  for (int32_t e = 1; e <= 31; e++)
    for (int32_t q = -5; q <= 5; q++)
      for (int32_t odd = 0; odd < 2; odd++, n++) {
        int64_t h = (int64_t)q * ((int64_t)1 << e) + ((int64_t)1 << (e - 1));
        if (h >= INT32_MAX / 2 || h <= INT32_MIN / 2) continue;
        int32_t x = (int32_t)(2 * h - odd); /* srdhm(x, 2^30) = floor((x + 1) / 2) = h */
        bad += ap_fast_mul(x, 1 << 30, -e) != ap_kq_mul(x, 1 << 30, -e);
        bad += ap_fast_mul(-x, 1 << 30, -e) != ap_kq_mul(-x, 1 << 30, -e);
        bad += ap_dsp_requant((uint32_t)x, 1 << 30, -e, 3, -128, 127) !=
               (int8_t)ap_kq_clamp(ap_kq_mul(x, 1 << 30, -e) + 3, -128, 127);
        ap_dsp_rqc q = ap_dsp_rqc_of(1 << 30, -e);
        bad += ap_dsp_rqc_apply(&q, (uint32_t)x, -e) != ap_kq_mul(x, 1 << 30, -e);
        bad += ap_dsp_rqc_apply(&q, (uint32_t)-x, -e) != ap_kq_mul(-x, 1 << 30, -e);
        bad += rqb_differs(x, 1 << 30, -e, &fast) + rqb_differs(-x, 1 << 30, -e, &fast);
        /* The multiplier one below: the high product's tie missed by one. */
        bad += rqb_differs(x, (1 << 30) - 1, -e, &fast);
      }
  CHECK_MSG(bad == 0, "%ld of %ld ties differ", bad, n);
  bad = 0;
  for (long i = 0; i < RANDOM_MULS; i++) {
    int32_t x = (int32_t)(uint32_t)ap_test_rand(&rng);
    if (i & 1) x >>= rnd(0, 24); /* sums of every size */
    int32_t m = rnd(1 << 30, INT32_MAX), s = rnd(-33, 33);
    bad += ap_fast_mul(x, m, s) != ap_kq_mul(x, m, s);
    /* The kernels' form, with the offset and a clamp. */
    int32_t off = rnd(-128, 127), lo = rnd(-128, 0), hi = rnd(0, 127);
    bad += ap_dsp_requant((uint32_t)x, m, s, off, lo, hi) !=
           (int8_t)ap_kq_clamp(ap_kq_mul(x, m, s) + off, lo, hi);
    ap_dsp_rqc q = ap_dsp_rqc_of(m, s);
    bad += ap_dsp_rqc_apply(&q, (uint32_t)x, s) != ap_kq_mul(x, m, s);
    bad += rqb_differs(x, m, s, &fast);
  }
  CHECK_MSG(bad == 0, "%ld of %d random products differ", bad, (int)RANDOM_MULS);
}

#if AP_MVE_NATIVE
/* ap_mve_requant, four lanes at once, equals ap_kq_mul on mul_edges' values: the int32 ends,
 * every shift from -40 to 40 (clamped as the reference clamps), INT32_MIN times INT32_MIN (the
 * saturating VQRDMULH), both roundings' ties of either sign (VRSHL alone rounds the negative
 * ones up: the fix-up's case), then at random. Each lane gets another multiplier and shift. */
static long mve_check4(const int32_t x[4], const int32_t m[4], const int32_t s[4]) {
  int32_t got[4];
  vst1q_s32(got, ap_mve_requant(vld1q_s32(x), vld1q_s32(m), vld1q_s32(s)));
  long bad = 0;
  for (int l = 0; l < 4; l++)
    bad += got[l] != ap_kq_mul(x[l], m[l], s[l]);
  return bad;
}

static void mve_requant_edges(void) {
  const int32_t xs[] = {INT32_MIN,  INT32_MIN + 1, -65536,   -3, -2, -1, 0, 1, 2, 3, 65535, 1 << 30,
                        -(1 << 30), INT32_MAX - 1, INT32_MAX};
  const int32_t ms[] = {0, 1, 1 << 30, (1 << 30) + 1, INT32_MAX, INT32_MIN, 1518500250, 2147483000};
  long bad = 0, n = 0;
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++)
    for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++)
      for (int32_t s = -40; s <= 40; s++, n++) {
        int32_t x[4] = {xs[i], -xs[i], xs[(i + 1) % 15], xs[i]};
        int32_t m[4] = {ms[j], ms[j], ms[(j + 3) % 8], ms[j]};
        int32_t sh[4] = {s, -s, s, s > 0 ? 0 : s / 2};
        bad += mve_check4(x, m, sh);
      }
  CHECK_MSG(bad == 0, "mve: %ld of %ld edge products differ", bad, n * 4);
  bad = 0, n = 0;
  for (int32_t e = 1; e <= 31; e++)
    for (int32_t q = -5; q <= 5; q++)
      for (int32_t odd = 0; odd < 2; odd++, n++) {
        int64_t h = (int64_t)q * ((int64_t)1 << e) + ((int64_t)1 << (e - 1));
        if (h >= INT32_MAX / 2 || h <= INT32_MIN / 2) continue;
        int32_t x = (int32_t)(2 * h - odd); /* srdhm(x, 2^30) = floor((x + 1) / 2) = h */
        int32_t xv[4] = {x, -x, x, -x}, m[4] = {1 << 30, 1 << 30, 1 << 30, 1 << 30};
        int32_t sh[4] = {-e, -e, e > 1 ? 1 - e : -e, -e};
        bad += mve_check4(xv, m, sh);
      }
  CHECK_MSG(bad == 0, "mve: %ld of %ld ties differ", bad, n * 4);
  /* The tie the fix-up exists for, by hand: x = -3, m = 2^30: h = -1, e = 1: -1/2 rounds away
   * from zero to -1 (VRSHL alone gives 0); -1 and 1 are 0 and 1 after the high mul. */
  int32_t x1[4] = {-3, 3, -1, 1}, m1[4] = {1 << 30, 1 << 30, 1 << 30, 1 << 30};
  int32_t s1[4] = {-1, -1, -1, -1}, want[4] = {-1, 1, 0, 1}, got[4];
  vst1q_s32(got, ap_mve_requant(vld1q_s32(x1), vld1q_s32(m1), vld1q_s32(s1)));
  for (int l = 0; l < 4; l++)
    CHECK_MSG(got[l] == want[l], "mve tie lane %d: %d, want %d", l, got[l], want[l]);
  bad = 0;
  for (long i = 0; i < RANDOM_MULS; i++) {
    int32_t x[4], m[4], sh[4];
    for (int l = 0; l < 4; l++) {
      x[l] = (int32_t)(uint32_t)ap_test_rand(&rng);
      if ((i + l) & 1) x[l] >>= rnd(0, 24);
      m[l] = rnd(1 << 30, INT32_MAX), sh[l] = rnd(-33, 33);
    }
    bad += mve_check4(x, m, sh);
  }
  CHECK_MSG(bad == 0, "mve: %ld of %d random products differ", bad, (int)RANDOM_MULS * 4);
}
#endif

/* The DSP instructions' C forms (or the instructions) on the lane edges. */
static void instructions(void) {
  CHECK_EQ(ap_sxtb16(0x80FF7F01u), 0xFFFF0001u);
  CHECK_EQ(ap_sxtb16_ror8(0x80FF7F01u), 0xFF80007Fu);
  CHECK_EQ(ap_smlad(0x7FFF8000u, 0x80008000u, 5u), 5u + 0x40000000u - 0x3FFF8000u);
  CHECK_EQ(ap_smlabb(0x0000FFFFu, 0x00000002u, 0u), 0xFFFFFFFEu);
  CHECK_EQ(ap_smlatt(0xFFFF0000u, 0x80000000u, 1u), 32769u);
  CHECK_EQ(ap_smlabt(0x00000003u, 0xFFFE0000u, 0u), 0xFFFFFFFAu);
  CHECK_EQ(ap_sadd16(0x7FFFFFFFu, 0x00010001u), 0x80000000u);
  CHECK_EQ(ap_dsp_dup16(-255), 0xFF01FF01u);
}

int main(void) {
  levels[0] = &ap_fast_dsp_level;
  levels[1] = &ap_fast_dsp_small_level;
#if AP_MVE_NATIVE
  levels[n_levels++] = &ap_fast_mve_level;
  mve_requant_edges();
#endif
  instructions();
  mul_edges();
  hand_worked_ties();
  /* CONV_2D: 1x1 rows in place with depth tails (k % 4 = 3, 1) and odd channel and row
   * counts, 1x1 with stride 2, then patches: padding at every border, dilation, a 5x3 window
   * with stride 2 on one input channel; zero points at the int8 ends. */
  static const conv_shape convs[] = {
      {3, 3, 3, 1, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE, 0, 0},
      {5, 1, 7, 5, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_RELU, -128, 127},
      {4, 4, 16, 16, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE, 127, -128},
      {5, 5, 8, 6, 1, 1, 2, 1, AP_KPAD_VALID, AP_KACT_RELU6, -5, 3},
      {5, 4, 5, 3, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE, 127, 0},
      {7, 6, 4, 7, 3, 3, 1, 2, AP_KPAD_SAME, AP_KACT_NONE, -128, -128},
      {9, 8, 1, 9, 5, 3, 2, 1, AP_KPAD_VALID, AP_KACT_RELU, 10, -20},
      {6, 5, 13, 11, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_NONE, -1, 5},
  };
  for (size_t i = 0; i < sizeof convs / sizeof convs[0]; i++)
    conv_case(false, convs[i]);
  /* DEPTHWISE_CONV_2D: channel tails (3, 13), the interior 3x3 window and its borders, stride
   * 2, dilation, a 5x5 window larger than the input, multipliers 4 and 8 (one input channel:
   * person_detect's first layer), 3 (one channel at a time), a 1x1 filter, 12 on one channel. */
  static const conv_shape dws[] = {
      {5, 5, 3, 3, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE, 0, 0},
      {7, 6, 13, 13, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU6, -128, 127},
      {9, 9, 8, 8, 3, 3, 1, 2, AP_KPAD_SAME, AP_KACT_NONE, 127, -128},
      {6, 6, 16, 16, 3, 3, 1, 1, AP_KPAD_VALID, AP_KACT_RELU, 3, -3},
      {8, 7, 16, 16, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE, -128, 0},
      {3, 3, 4, 4, 5, 5, 1, 1, AP_KPAD_SAME, AP_KACT_NONE, 50, 0},
      {7, 7, 2, 8, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_NONE, -128, 10},
      {9, 8, 1, 8, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU6, -128, -128},
      {5, 6, 2, 6, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE, 7, 7},
      {4, 5, 6, 6, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE, 127, 127},
      /* One input channel, multiplier 12: the MVE level's broadcast input, 8 channels and a
       * tail of 4. */
      {7, 6, 1, 12, 3, 3, 2, 1, AP_KPAD_SAME, AP_KACT_RELU, -128, 5},
  };
  for (size_t i = 0; i < sizeof dws / sizeof dws[0]; i++)
    conv_case(true, dws[i]);
  /* Multipliers above 1 (output scale 1e-4: left shifts), for the product and depthwise. */
  out_scale = 1e-4f;
  conv_case(false, convs[1]);
  conv_case(true, dws[3]);
  conv_case(true, dws[1]);
  out_scale = 0.2f;
  /* The MVE level's four rows a vector: 1x1 rows in place (the first three) with channel tails
   * of 3, 2 and 1 (n % 4), depths with and without a tail past sixteen (33, 16, 40), row counts
   * 63, 15 and 6 (the last group short), zero points at the int8 ends; then patches at most as
   * long as the channels are many (k <= n), four rows at a time from its workspace and the rest
   * in a pair: 3x3 windows with padding (k = 18, 27: depth tails of 2 and 11) and dilation, a
   * 1x1 with stride 2 (rows copied, k = 8: no full step). Then left shifts. */
  static const conv_shape ones[] = {
      {9, 7, 33, 7, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_NONE, -128, 127},
      {3, 5, 16, 6, 1, 1, 1, 1, AP_KPAD_VALID, AP_KACT_RELU6, 127, -128},
      {2, 3, 40, 9, 1, 1, 1, 1, AP_KPAD_SAME, AP_KACT_RELU, 0, -1},
      {6, 5, 2, 20, 3, 3, 1, 1, AP_KPAD_SAME, AP_KACT_NONE, -128, 127},
      {8, 7, 3, 28, 3, 3, 1, 2, AP_KPAD_SAME, AP_KACT_RELU6, 127, -128},
      {7, 7, 8, 12, 1, 1, 2, 1, AP_KPAD_VALID, AP_KACT_NONE, 3, -7},
  };
  for (size_t i = 0; i < sizeof ones / sizeof ones[0]; i++)
    conv_case(false, ones[i]);
  out_scale = 1e-4f;
  conv_case(false, ones[0]);
  out_scale = 0.2f;
  /* The MVE depthwise's interior pixels (constants prepared in the workspace, the input offset
   * folded into the bias): a 5x5 window on 24 channels, one input channel broadcast to 16, 20
   * channels (two full blocks and a tail of 4) with dilation 2, then left shifts. */
  static const conv_shape dw_inside[] = {
      {10, 9, 24, 24, 5, 5, 1, 1, AP_KPAD_SAME, AP_KACT_RELU6, -128, 127},
      {9, 9, 1, 16, 3, 3, 1, 1, AP_KPAD_VALID, AP_KACT_NONE, 127, -128},
      {8, 8, 20, 20, 3, 3, 1, 2, AP_KPAD_SAME, AP_KACT_NONE, 5, -5},
  };
  for (size_t i = 0; i < sizeof dw_inside / sizeof dw_inside[0]; i++)
    conv_case(true, dw_inside[i]);
  out_scale = 1e-4f;
  conv_case(true, dw_inside[2]);
  out_scale = 0.2f;
  /* Pools: windows cut by SAME padding (averages over 4, 6 and 9 taps), channel tails of 1 and
   * 3 (c % 4), 1x2 windows (every odd sum a tie, rounded away from zero), kws's global 25x5
   * average, activations with zero points at the int8 ends. */
  static const pool_shape pools[] = {
      {B_AVG, 7, 6, 13, 3, 3, 2, AP_KPAD_SAME, AP_KACT_RELU6, -128},
      {B_AVG, 6, 7, 8, 1, 2, 1, AP_KPAD_VALID, AP_KACT_NONE, 0},
      {B_AVG, 25, 5, 64, 25, 5, 1, AP_KPAD_VALID, AP_KACT_NONE, 127},
      {B_MAX, 8, 8, 8, 2, 2, 2, AP_KPAD_VALID, AP_KACT_NONE, 0},
      /* 1x2 windows: some pairs both below -100, where a max started above -128 shows. */
      {B_MAX, 6, 7, 8, 1, 2, 1, AP_KPAD_VALID, AP_KACT_NONE, -128},
      {B_MAX, 5, 5, 3, 3, 3, 1, AP_KPAD_SAME, AP_KACT_RELU, -128},
      {B_MAX, 6, 5, 7, 3, 2, 2, AP_KPAD_SAME, AP_KACT_RELU6, 127},
  };
  for (size_t i = 0; i < sizeof pools / sizeof pools[0]; i++)
    pool_case(pools[i]);
  /* FULLY_CONNECTED: depth tails, an odd unit count (the last unit alone), batches. */
  fc_case(1, 1, 1, 0, 0);
  fc_case(1, 3, 2, -128, 127);
  fc_case(2, 17, 7, 127, -128);
  fc_case(3, 64, 12, 5, -5);
  return ap_test_done();
}
