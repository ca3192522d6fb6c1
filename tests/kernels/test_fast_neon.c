/* The AArch64 levels' pieces against the scalar reference, on AArch64 only (make test-aarch64
 * runs it under qemu-aarch64; elsewhere it reports itself skipped):
 * - the requantization lanes (SQRDMULH, the rounding shift's fixup for ties) against ap_kq_*
 *   over windows of every shift around ties, INT32_MIN and INT32_MAX, and random values;
 * - each kernel of the neon and neondot levels against the generic level's (itself checked
 *   against the reference kernels by test_fast_kernels) on edge shapes and hostile values:
 *   depths off 8 and 16, input offsets -127 and 128, full-range weights, sums that wrap;
 * - ADD/SUB against the reference's quant_add_sub written out with ap_kq_mul_lt1, float ADD/SUB
 *   against a +/- b and the reference's clamp, NaN, infinities and -0.0 included. */
#include "kernels/fast/fast.h"
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__aarch64__)
#include "kernels/fast/int8_neon.h"

static uint64_t rng = 777;
static int32_t rnd(int32_t lo, int32_t hi) {
  return (int32_t)((int64_t)lo + (int64_t)(ap_test_rand(&rng) % (uint64_t)((int64_t)hi - lo + 1)));
}
static int32_t rnd32(void) {
  return (int32_t)(uint32_t)ap_test_rand(&rng);
}

/* RoundingDivideByPOT: every exponent over windows around 0 and the int32 ends, and around
 * ties (k * 2^e + 2^(e-1) + {-1, 0, 1}) for random k of both signs. */
static void rdbpot(void) {
  long bad = 0, n = 0;
  for (int e = 0; e <= 31; e++) {
    int32x4_t ne = vdupq_n_s32(-e);
    int32_t xs[4];
    for (int w = 0; w < 3; w++) {
      int64_t start = w == 0 ? -20000 : w == 1 ? INT32_MIN : (int64_t)INT32_MAX - 40003;
      for (int64_t x = start; x < start + 40004; x += 4) {
        for (int i = 0; i < 4; i++)
          xs[i] = (int32_t)(x + i);
        int32_t got[4];
        vst1q_s32(got, ap_neon_rdbpot(vld1q_s32(xs), ne));
        for (int i = 0; i < 4; i++, n++)
          bad += got[i] != ap_kq_rdbpot(xs[i], e);
      }
    }
    for (int r = 0; r < 20000 && e > 0; r++) {
      int64_t k = rnd(-(int32_t)(1u << (31 - e)), (int32_t)((1u << (31 - e)) - 1));
      for (int i = 0; i < 4; i++) {
        int64_t v = k * ((int64_t)1 << e) + ((int64_t)1 << (e - 1)) + (i % 3) - 1;
        xs[i] = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
      }
      int32_t got[4];
      vst1q_s32(got, ap_neon_rdbpot(vld1q_s32(xs), ne));
      for (int i = 0; i < 4; i++, n++)
        bad += got[i] != ap_kq_rdbpot(xs[i], e);
    }
  }
  CHECK_MSG(bad == 0, "rounding divide: %ld of %ld lanes differ", bad, n);
}

static const int32_t edges[] = {INT32_MIN,
                                INT32_MIN + 1,
                                -(1 << 30) - 1,
                                -(1 << 30),
                                -(1 << 30) + 1,
                                -65536,
                                -3,
                                -2,
                                -1,
                                0,
                                1,
                                2,
                                3,
                                65535,
                                (1 << 30) - 1,
                                1 << 30,
                                (1 << 30) + 1,
                                INT32_MAX - 1,
                                INT32_MAX};
enum { NEDGES = sizeof edges / sizeof edges[0] };

/* A multiplier as ap_kq_multiplier makes them (in [2^30, 2^31), or 0) or an edge. */
static int32_t rnd_mult(void) {
  int r = rnd(0, 9);
  if (r == 0) return edges[rnd(0, NEDGES - 1)] & INT32_MAX;
  if (r == 1) return 0;
  return rnd(1 << 30, INT32_MAX);
}

static int32_t rnd_x(void) {
  int r = rnd(0, 5);
  if (r == 0) return edges[rnd(0, NEDGES - 1)];
  if (r == 1) return rnd(-70000, 70000);
  if (r == 2) return rnd32() >> rnd(0, 31);
  return rnd32();
}

/* SQRDMULH is SaturatingRoundingDoublingHighMul: every pair of edges (INT32_MIN squared
 * saturates), products that land on the rounding tie (b a power of two, a odd), random pairs. */
static void srdhm(void) {
  long bad = 0, n = 0;
  int32_t a[4], b[4], got[4];
  for (int i = 0; i < NEDGES; i++)
    for (int j = 0; j < NEDGES; j++, n++) {
      int32_t r = vgetq_lane_s32(vqrdmulhq_s32(vdupq_n_s32(edges[i]), vdupq_n_s32(edges[j])), 0);
      bad += r != ap_kq_srdhm(edges[i], edges[j]);
    }
  for (int r = 0; r < 400000; r++) {
    for (int i = 0; i < 4; i++) {
      int kind = rnd(0, 2);
      a[i] = kind == 0 ? (rnd32() | 1) : rnd_x();
      b[i] = kind == 0 ? (int32_t)(1u << rnd(0, 30)) * (rnd(0, 1) ? 1 : -1) : rnd32();
    }
    vst1q_s32(got, vqrdmulhq_s32(vld1q_s32(a), vld1q_s32(b)));
    for (int i = 0; i < 4; i++, n++)
      bad += got[i] != ap_kq_srdhm(a[i], b[i]);
  }
  CHECK_MSG(bad == 0, "SQRDMULH: %ld of %ld lanes differ from the reference", bad, n);
}

/* MultiplyByQuantizedMultiplier (and its shift <= 0 form) for shifts past both clamps. */
static void mulq(void) {
  long bad = 0, bad_lt1 = 0, n = 0;
  int32_t x[4], m[4], s[4], got[4], got1[4];
  for (int r = 0; r < 500000; r++) {
    for (int i = 0; i < 4; i++) {
      x[i] = rnd_x();
      m[i] = rnd_mult();
      s[i] = rnd(0, 9) == 0 ? rnd(-40, 40) : rnd(-31, 8);
    }
    int32x4_t vx = vld1q_s32(x), vm = vld1q_s32(m), vs = vld1q_s32(s);
    vst1q_s32(got, ap_neon_mulq(vx, vm, vs));
    vst1q_s32(got1, ap_neon_mulq_lt1(vx, vm, vs));
    for (int i = 0; i < 4; i++, n++) {
      bad += got[i] != ap_kq_mul(x[i], m[i], s[i]);
      bad_lt1 += got1[i] != ap_kq_mul_lt1(x[i], m[i], s[i]);
    }
  }
  CHECK_MSG(bad == 0, "ap_neon_mulq: %ld of %ld lanes differ from ap_kq_mul", bad, n);
  CHECK_MSG(bad_lt1 == 0, "ap_neon_mulq_lt1: %ld of %ld lanes differ", bad_lt1, n);
}

/* A row of requantizations: tails of 8, the sum's wrap, offsets and clamps. */
static void requant_row(void) {
  int32_t acc[40], add[40], mult[40], shift[40];
  int8_t got[40], want[40];
  long bad = 0;
  for (int r = 0; r < 2000; r++) {
    int n = rnd(1, 40);
    int32_t off = rnd(-128, 127), lo = rnd(-128, 0), hi = rnd(lo, 127);
    for (int i = 0; i < n; i++) {
      acc[i] = rnd_x(), add[i] = rnd_x(), mult[i] = rnd_mult(), shift[i] = rnd(-31, 8);
      want[i] = ap_fast_requant((int32_t)((uint32_t)acc[i] + (uint32_t)add[i]), mult[i], shift[i],
                                off, lo, hi);
    }
    ap_neon_requant_row(acc, add, n, mult, shift, off, lo, hi, got);
    bad += memcmp(got, want, (size_t)n) != 0;
  }
  CHECK_MSG(bad == 0, "requant rows: %ld differ", bad);
}

static void fill(int8_t *p, size_t n, bool extreme) {
  for (size_t i = 0; i < n; i++)
    p[i] = (int8_t)(extreme ? (rnd(0, 1) ? -128 : 127) : rnd(-128, 127));
}

/* Multipliers and shifts that bring sums of about `terms` products of int8 magnitudes into
 * the output's range (a shift too far right clamps every output and hides differences), a few
 * shifted further either way; biases of the same size, one in 16 anywhere in int32 (wrap). */
static void rnd_quant(int32_t n, int32_t *mult, int32_t *shift, int32_t *bias, int64_t terms) {
  int bits = 0;
  for (double mag = 128.0 * 128.0 * sqrt((double)terms); mag > 32.0; mag /= 2)
    bits++;
  for (int32_t i = 0; i < n; i++) {
    mult[i] = rnd(1 << 30, INT32_MAX);
    shift[i] = -bits + (rnd(0, 7) ? rnd(-1, 1) : rnd(-6, 6));
    if (shift[i] < -31) shift[i] = -31;
    if (bias) bias[i] = rnd(0, 15) ? rnd(-(1 << bits), 1 << bits) : rnd32();
  }
}
/* Outputs inside the activation range, of all compared: most must be, or the comparisons
 * would only see clamped values. */
static long inside, compared;

static void count_inside(const int8_t *out, size_t n, int32_t lo, int32_t hi) {
  for (size_t i = 0; i < n; i++)
    inside += out[i] > lo && out[i] < hi;
  compared += (long)n;
}

static int32_t rnd_out_off(void) {
  return rnd(0, 3) ? rnd(-30, 30) : rnd(-128, 127);
}

static int32_t rnd_lo(void) {
  return rnd(0, 3) ? -128 : rnd(-128, 0);
}

static int32_t rnd_hi(int32_t lo) {
  return rnd(0, 3) ? 127 : rnd(lo, 127);
}

static int32_t rnd_in_off(void) {
  int r = rnd(0, 3);
  return r == 0 ? -127 : r == 1 ? 128 : rnd(-127, 128);
}

/* The gemm kit (rows of patches times every channel) against the generic level's. */
static void gemm_case(const ap_fast_level *l, const ap_gemm_kit *kit, int32_t n, int32_t k,
                      int32_t rows, bool extreme) {
  const ap_gemm_kit *ref = &ap_fast_generic.gemm;
  int8_t *w = malloc((size_t)n * k), *src = malloc((size_t)rows * k);
  int32_t *bias = malloc((size_t)n * 4), *mult = malloc((size_t)n * 4),
          *shift = malloc((size_t)n * 4);
  int32_t *cb = malloc((size_t)n * 4), *cb_ref = malloc((size_t)n * 4);
  int32_t *acc = malloc((size_t)n * 4 * 4);
  int8_t *out = malloc((size_t)rows * n), *want = malloc((size_t)rows * n);
  uint8_t *a = calloc((size_t)rows, kit->arow_bytes(k)),
          *a_ref = calloc((size_t)rows, ref->arow_bytes(k));
  void *packed = malloc(kit->packed_bytes(n, k) + 1);
  fill(w, (size_t)n * k, extreme);
  fill(src, (size_t)rows * k, extreme);
  int32_t in_off = rnd_in_off();
  rnd_quant(n, mult, shift, bias, k);
  kit->pack(w, n, k, bias, in_off, packed, cb);
  ref->pack(w, n, k, bias, in_off, NULL, cb_ref);
  for (int32_t i = 0; i < rows; i++) {
    kit->arow(src + (size_t)i * k, k, in_off, a + (size_t)i * kit->arow_bytes(k));
    ref->arow(src + (size_t)i * k, k, in_off, a_ref + (size_t)i * ref->arow_bytes(k));
  }
  int32_t off = rnd_out_off(), lo = rnd_lo(), hi = rnd_hi(lo);
  ap_qgemm g = {n, k, w, packed, cb, mult, shift, off, lo, hi};
  ap_qgemm gr = {n, k, w, NULL, cb_ref, mult, shift, off, lo, hi};
  for (int32_t r0 = 0; r0 < rows; r0 += kit->mr) {
    int32_t m = rows - r0 < kit->mr ? rows - r0 : kit->mr;
    kit->gemm(&g, a + (size_t)r0 * kit->arow_bytes(k), m, acc, out + (size_t)r0 * n, (size_t)n);
  }
  for (int32_t r = 0; r < rows; r++)
    ref->gemm(&gr, a_ref + (size_t)r * ref->arow_bytes(k), 1, acc, want + (size_t)r * n, (size_t)n);
  count_inside(want, (size_t)rows * n, lo, hi);
  CHECK_MSG(memcmp(out, want, (size_t)rows * n) == 0, "%s %s gemm n %d k %d rows %d in_off %d%s",
            l->name, kit == l->outer ? "outer" : "inner", n, k, rows, in_off,
            extreme ? " extreme" : "");
  free(w), free(src), free(bias), free(mult), free(shift), free(cb), free(cb_ref), free(acc);
  free(out), free(want), free(a), free(a_ref), free(packed);
}

/* Fully connected over a unit range against the generic level's. */
static void fc_case(const ap_fast_level *l, int32_t batches, int32_t depth, int32_t units,
                    bool per_unit, bool extreme) {
  int8_t *x = malloc((size_t)batches * depth), *w = malloc((size_t)units * depth);
  int8_t *out = malloc((size_t)batches * units), *want = malloc((size_t)batches * units);
  int32_t *bias = malloc((size_t)units * 4), *mult = malloc((size_t)units * 4),
          *shift = malloc((size_t)units * 4);
  fill(x, (size_t)batches * depth, extreme);
  fill(w, (size_t)units * depth, extreme);
  rnd_quant(units, mult, shift, bias, depth);
  int32_t lo = rnd_lo();
  ap_qfc f = {x,
              w,
              bias,
              out,
              batches,
              depth,
              units,
              rnd_in_off(),
              rnd(0, 2) ? 0 : rnd(-128, 127),
              rnd_out_off(),
              lo,
              rnd_hi(lo),
              per_unit ? mult : NULL,
              per_unit ? shift : NULL,
              mult[0],
              shift[0]};
  int32_t u0 = units > 2 ? rnd(0, 1) : 0, u1 = units > 3 ? units - rnd(0, 1) : units;
  memset(out, 0, (size_t)batches * units);
  memset(want, 0, (size_t)batches * units);
  l->fc(&f, u0, u1);
  f.out = want;
  ap_fast_generic.fc(&f, u0, u1);
  count_inside(want + (size_t)u0, (size_t)(u1 - u0), f.act_min, f.act_max);
  CHECK_MSG(memcmp(out, want, (size_t)batches * units) == 0,
            "%s fc %d x %d -> %d [%d, %d) in_off %d filter_off %d%s", l->name, batches, depth,
            units, u0, u1, f.in_off, f.filter_off, extreme ? " extreme" : "");
  free(x), free(w), free(out), free(want), free(bias), free(mult), free(shift);
}

/* Depthwise rows against the generic level's. */
static void dw_case(const ap_fast_level *l, int32_t h, int32_t wd, int32_t in_d, int32_t mult,
                    int32_t fh, int32_t fw, int32_t stride, int32_t dil, int32_t pad,
                    bool extreme) {
  int32_t C = in_d * mult;
  int32_t oh = (h + 2 * pad - dil * (fh - 1) - 1) / stride + 1;
  int32_t ow = (wd + 2 * pad - dil * (fw - 1) - 1) / stride + 1;
  if (oh <= 0 || ow <= 0) return;
  int8_t *in = malloc((size_t)h * wd * in_d), *f = malloc((size_t)fh * fw * C);
  int8_t *out = malloc((size_t)oh * ow * C), *want = malloc((size_t)oh * ow * C);
  int32_t *bias = malloc((size_t)C * 4), *qm = malloc((size_t)C * 4), *qs = malloc((size_t)C * 4);
  void *ws = malloc(ap_fast_dw_ws(fh * fw, C));
  fill(in, (size_t)h * wd * in_d, extreme);
  fill(f, (size_t)fh * fw * C, extreme);
  rnd_quant(C, qm, qs, bias, fh * fw);
  int32_t lo = rnd_lo();
  ap_qdw d = {.in = in,
              .f = f,
              .bias = rnd(0, 3) ? bias : NULL,
              .out = out,
              .geom = {.in_h = h,
                       .in_w = wd,
                       .in_d = in_d,
                       .out_h = oh,
                       .out_w = ow,
                       .out_d = C,
                       .f_h = fh,
                       .f_w = fw,
                       .mult = mult,
                       .stride_h = stride,
                       .stride_w = stride,
                       .dil_h = dil,
                       .dil_w = dil,
                       .pad_h = pad,
                       .pad_w = pad},
              .in_off = rnd_in_off(),
              .out_off = rnd_out_off(),
              .act_min = lo,
              .act_max = rnd_hi(lo),
              .qmult = qm,
              .qshift = qs};
  int32_t oy0 = oh > 2 ? 1 : 0, oy1 = oh;
  memset(out, 0, (size_t)oh * ow * C);
  memset(want, 0, (size_t)oh * ow * C);
  l->dw(&d, 0, oy0, oy1, ws);
  d.out = want;
  ap_fast_generic.dw(&d, 0, oy0, oy1, ws);
  count_inside(want + (size_t)oy0 * ow * C, (size_t)(oy1 - oy0) * ow * C, d.act_min, d.act_max);
  CHECK_MSG(memcmp(out, want, (size_t)oh * ow * C) == 0,
            "%s dw %dx%dx%d mult %d filter %dx%d stride %d dil %d pad %d in_off %d%s", l->name, h,
            wd, in_d, mult, fh, fw, stride, dil, pad, d.in_off, extreme ? " extreme" : "");
  free(in), free(f), free(out), free(want), free(bias), free(qm), free(qs), free(ws);
}

/* ADD/SUB of 8-bit tensors against the reference's formula. */
static void add_case(const ap_fast_level *l, size_t n, bool is_unsigned, bool sub) {
  uint8_t *a = malloc(n), *b = malloc(n), *out = malloc(n), *want = malloc(n);
  fill((int8_t *)a, n, false);
  fill((int8_t *)b, n, false);
  ap_binary_params p;
  memset(&p, 0, sizeof p);
  p.op = sub ? AP_KBIN_SUB : AP_KBIN_ADD;
  int32_t zlo = is_unsigned ? -255 : -127, zhi = is_unsigned ? 0 : 128;
  p.input1_offset = rnd(zlo, zhi), p.input2_offset = rnd(zlo, zhi);
  p.output_offset = is_unsigned ? rnd(0, 255) : rnd(-128, 127);
  p.left_shift = 20;
  p.input1_multiplier = rnd(1 << 30, INT32_MAX), p.input1_shift = rnd(-31, 0);
  p.input2_multiplier = rnd(1 << 30, INT32_MAX), p.input2_shift = rnd(-31, 0);
  p.output_multiplier = rnd(1 << 30, INT32_MAX), p.output_shift = rnd(-31, 0);
  p.act_min = is_unsigned ? rnd(0, 128) : rnd(-128, 0);
  p.act_max = rnd(p.act_min, is_unsigned ? 255 : 127);
  l->add(&p, a, b, out, n, is_unsigned);
  for (size_t i = 0; i < n; i++) {
    int32_t x = is_unsigned ? a[i] : (int8_t)a[i], y = is_unsigned ? b[i] : (int8_t)b[i];
    int32_t xs = (int32_t)((uint32_t)(p.input1_offset + x) << p.left_shift);
    int32_t ys = (int32_t)((uint32_t)(p.input2_offset + y) << p.left_shift);
    int32_t xr = ap_kq_mul_lt1(xs, p.input1_multiplier, p.input1_shift);
    int32_t yr = ap_kq_mul_lt1(ys, p.input2_multiplier, p.input2_shift);
    int32_t raw = sub ? xr - yr : xr + yr;
    int32_t r = ap_kq_mul_lt1(raw, p.output_multiplier, p.output_shift) + p.output_offset;
    want[i] = (uint8_t)ap_kq_clamp(r, p.act_min, p.act_max);
  }
  CHECK_MSG(memcmp(out, want, n) == 0, "%s %s %s x %zu", l->name, sub ? "SUB" : "ADD",
            is_unsigned ? "uint8" : "int8", n);
  free(a), free(b), free(out), free(want);
}

/* Float ADD/SUB and the clamp: NaN passes through it, infinities and -0.0 keep their bits, tails
 * of 4; compared bit for bit (the same NaN: one operand is NaN, so its payload propagates). */
static void fadd_case(const ap_fast_level *l, size_t n, bool sub, float lo, float hi) {
  static const float specials[] = {NAN, -NAN, INFINITY, -INFINITY, -0.0f, 0.0f, 1e-45f, 3.4e38f};
  float *a = malloc(n * 4), *b = malloc(n * 4), *out = malloc(n * 4), *want = malloc(n * 4);
  for (size_t i = 0; i < n; i++) {
    a[i] = rnd(0, 4) ? (float)rnd(-3000, 3000) / 256.0f : specials[rnd(0, 7)];
    b[i] = rnd(0, 4) ? (float)rnd(-3000, 3000) / 256.0f : specials[rnd(0, 7)];
    if (rnd(0, 9) == 0) b[i] = a[i]; /* a - a: +0.0; inf - inf: NaN */
  }
  ap_binary_params p;
  memset(&p, 0, sizeof p);
  p.op = sub ? AP_KBIN_SUB : AP_KBIN_ADD;
  p.fact_min = lo, p.fact_max = hi;
  l->fadd(&p, a, b, out, n);
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    want[i] = ap_kq_clampf(sub ? a[i] - b[i] : a[i] + b[i], lo, hi);
    bool both_nan = isnan(out[i]) && isnan(want[i]) && isnan(a[i]) && isnan(b[i]);
    bad += memcmp(out + i, want + i, 4) != 0 && !both_nan;
  }
  CHECK_MSG(bad == 0, "%s float %s x %zu, range [%g, %g]: %zu differ", l->name, sub ? "SUB" : "ADD",
            n, (double)lo, (double)hi, bad);
  free(a), free(b), free(out), free(want);
}

static void kernels(const ap_fast_level *l) {
  static const int32_t ks[] = {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 257, 1000};
  const ap_gemm_kit *kits[2] = {&l->gemm, l->outer};
  for (int kt = 0; kt < 2 && kits[kt]; kt++) {
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
      for (int32_t n = 1; n <= 9; n += 2)
        for (int32_t rows = 1; rows <= 6; rows += 5) {
          gemm_case(l, kits[kt], n, ks[i], rows, false);
          gemm_case(l, kits[kt], n + 1, ks[i], rows + 2, true);
        }
    gemm_case(l, kits[kt], 33, 70000, 2, true); /* sums that wrap */
    gemm_case(l, kits[kt], 47, 37, 9, false);   /* blocks of 16 channels and a tail */
  }
  static const int32_t depths[] = {1, 7, 8, 15, 16, 17, 31, 32, 33, 100, 640};
  for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++)
    for (int32_t units = 1; units <= 9; units += 4) {
      fc_case(l, 1 + (int32_t)(i % 3), depths[i], units, i % 2 == 0, false);
      fc_case(l, 2, depths[i], units + 1, i % 2 == 1, true);
    }
  fc_case(l, 1, 70000, 3, false, true);
  fc_case(l, 1, 300, 130, true, false); /* more units than one requantized chunk */
  for (int32_t in_d = 1; in_d <= 20; in_d += 3)
    for (int32_t mult = 1; mult <= 3; mult++) {
      dw_case(l, 5, 6, in_d, mult, 3, 3, 1, 1, 1, false);
      dw_case(l, 7, 5, in_d, mult, 3, 3, 2, 1, 1, true);
      dw_case(l, 9, 8, in_d, mult, 5, 5, 1, 2, 2, false);
      dw_case(l, 3, 4, in_d, mult, 5, 3, 1, 1, 2, true);
    }
  dw_case(l, 6, 6, 16, 1, 9, 9, 1, 1, 4, false);  /* more than 64 taps: the generic loop */
  dw_case(l, 3, 3, 700, 2, 5, 5, 1, 1, 2, true);  /* 35000 tap-channels: the generic loop */
  dw_case(l, 4, 3, 300, 3, 3, 3, 1, 1, 1, false); /* 8100 tap-channels, a tail of 4 */
  for (size_t n = 1; n <= 40; n++)
    add_case(l, n, n % 2 == 0, n % 3 == 0);
  for (size_t n = 1; n <= 13; n++) {
    fadd_case(l, n, n % 2 == 0, -INFINITY, INFINITY);
    fadd_case(l, n * 7, n % 3 == 0, 0.0f, n % 2 ? 6.0f : INFINITY);
    fadd_case(l, n * 3, n % 2 == 1, -1.0f, 1.0f);
  }
  add_case(l, 1000, false, false);
  add_case(l, 1003, true, true);
}

int main(void) {
  rdbpot();
  srdhm();
  mulq();
  requant_row();
  uint32_t f = ap_port_cpu_features();
  CHECK(f & AP_CPU_NEON);
  kernels(&ap_fast_neon);
  if (f & AP_CPU_NEON_DOT)
    kernels(&ap_fast_neondot);
  else
    printf("no dot product on this CPU: the neondot level is not tested\n");
  CHECK_MSG(inside * 3 > compared * 2, "only %ld of %ld outputs inside the activation range",
            inside, compared);
  printf("%ld of %ld kernel outputs inside the activation range\n", inside, compared);
  return ap_test_done();
}
#else
int main(void) {
  printf("test_fast_neon: AArch64 only (make test-aarch64)\n");
  return 77;
}
#endif
