/* Edge cases of the issue-8 ops that their own tests leave out: zero-sized dims (every op
 * writes nothing and gives the empty shape), broadcasting both ways, IEEE specials (NaN, inf,
 * -0) where TFLite's reference code decides the answer by its operand order, and saturation.
 * Every expectation follows from the op's definition in TFLite's reference kernels; where
 * operand order matters, the comment names the expression. */
#include "kxtest.h"

#include <float.h>

static void test_zero_sized(void) {
  kx_run r;
  float f[4] = {1, 2, 3, 4}, out[8] = {42};
  /* PACK of two [0] tensors -> [2, 0]; UNPACK of [2, 0] along 0 -> two [0]. */
  ap_ktensor a = kt(AP_FLOAT32, f, 1, 0, 0, 0, 0), b = kt(AP_FLOAT32, f, 1, 0, 0, 0, 0);
  ap_ktensor o = kout(AP_FLOAT32, out, 0, 0), o2 = kout(AP_FLOAT32, out + 4, 0, 0);
  const ap_ktensor *two[2] = {&a, &b};
  ap_ktensor *one_out[1] = {&o}, *two_out[2] = {&o, &o2};
  kx_setup(&r, two, 2, one_out, 1);
  r.opt.count = 2;
  CHECK_EQ(kx_do(&r, AP_KB_PACK), AP_OK);
  CHECK(o.rank == 2 && o.dims[0] == 2 && o.dims[1] == 0 && out[0] == 42);
  ap_ktensor v = kt(AP_FLOAT32, f, 2, 2, 0, 0, 0);
  const ap_ktensor *one[1] = {&v};
  kx_setup(&r, one, 1, two_out, 2);
  r.opt.count = 2;
  CHECK_EQ(kx_do(&r, AP_KB_UNPACK), AP_OK);
  CHECK(o.rank == 1 && o.dims[0] == 0 && o2.rank == 1 && o2.dims[0] == 0 && out[0] == 42);
  /* CAST and the unary math ops of [3, 0]. */
  v = kt(AP_FLOAT32, f, 2, 3, 0, 0, 0);
  int32_t io[2] = {42, 42};
  o = kout(AP_INT32, io, 0, 0);
  kx_setup(&r, one, 1, one_out, 1);
  CHECK_EQ(kx_do(&r, AP_KB_CAST), AP_OK);
  CHECK(o.rank == 2 && o.dims[0] == 3 && o.dims[1] == 0 && io[0] == 42);
  o = kout(AP_FLOAT32, out, 0, 0);
  static const int32_t unary[] = {AP_KB_SQRT, AP_KB_RSQRT, AP_KB_LOG, AP_KB_LEAKY_RELU,
                                  AP_KB_L2_NORMALIZATION};
  for (size_t i = 0; i < sizeof unary / sizeof unary[0]; i++) {
    CHECK_EQ(kx_do(&r, unary[i]), AP_OK);
    CHECK(o.dims[0] == 3 && o.dims[1] == 0 && out[0] == 42);
  }
  /* SHAPE of a scalar: an empty vector. */
  int32_t s[1] = {42};
  v = kt(AP_FLOAT32, NULL, 0, 0, 0, 0, 0);
  o = kout(AP_INT32, s, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_SHAPE), AP_OK);
  CHECK(o.rank == 1 && o.dims[0] == 0 && s[0] == 42);
  /* Binary ops: [0, 2] against [2] broadcasts to [0, 2]; a zero dim against 1 stays zero. */
  a = kt(AP_FLOAT32, f, 2, 0, 2, 0, 0);
  b = kt(AP_FLOAT32, f, 1, 2, 0, 0, 0);
  o = kout(AP_FLOAT32, out, 0, 0);
  kx_setup(&r, two, 2, one_out, 1);
  static const int32_t binary[] = {AP_KB_DIV,   AP_KB_FLOOR_DIV,   AP_KB_SQUARED_DIFFERENCE,
                                   AP_KB_POW,   AP_KB_MAXIMUM,     AP_KB_MINIMUM,
                                   AP_KB_PRELU, AP_KB_BATCH_MATMUL};
  for (size_t i = 0; i < sizeof binary / sizeof binary[0]; i++) {
    if (binary[i] == AP_KB_BATCH_MATMUL) b = kt(AP_FLOAT32, f, 2, 2, 2, 0, 0);
    CHECK_MSG(kx_do(&r, binary[i]) == AP_OK, "op %d: %s", binary[i], r.err.msg);
    CHECK(o.rank == 2 && o.dims[0] == 0 && o.dims[1] == 2 && out[0] == 42);
  }
  uint8_t bo[1] = {42};
  b = kt(AP_FLOAT32, f, 1, 2, 0, 0, 0);
  o = kout(AP_BOOL, bo, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_EQUAL), AP_OK);
  CHECK_EQ(kx_do(&r, AP_KB_LESS), AP_OK);
  CHECK(o.rank == 2 && o.dims[0] == 0 && bo[0] == 42);
  /* SELECT_V2 with a [0, 1] condition. */
  uint8_t cond[1] = {1};
  ap_ktensor tc = kt(AP_BOOL, cond, 2, 0, 1, 0, 0);
  const ap_ktensor *three[3] = {&tc, &b, &b};
  o = kout(AP_FLOAT32, out, 0, 0);
  kx_setup(&r, three, 3, one_out, 1);
  CHECK_EQ(kx_do(&r, AP_KB_SELECT_V2), AP_OK);
  CHECK(o.rank == 2 && o.dims[0] == 0 && o.dims[1] == 2 && out[0] == 42);
  /* REVERSE_V2 of [0, 3] along 1; GATHER_ND with no index rows; RESIZE_BILINEAR of an empty
   * batch. */
  int32_t ax[1] = {1};
  v = kt(AP_FLOAT32, f, 2, 0, 3, 0, 0);
  ap_ktensor t_ax = kt(AP_INT32, ax, 1, 1, 0, 0, 0);
  const ap_ktensor *vx[2] = {&v, &t_ax};
  kx_setup(&r, vx, 2, one_out, 1);
  CHECK_EQ(kx_do(&r, AP_KB_REVERSE_V2), AP_OK);
  CHECK(o.rank == 2 && o.dims[0] == 0 && o.dims[1] == 3 && out[0] == 42);
  v = kt(AP_FLOAT32, f, 2, 2, 2, 0, 0);
  t_ax = kt(AP_INT32, ax, 2, 0, 1, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_GATHER_ND), AP_OK);
  CHECK(o.rank == 2 && o.dims[0] == 0 && o.dims[1] == 2 && out[0] == 42);
  int32_t size[2] = {3, 3};
  v = kt(AP_FLOAT32, f, 4, 0, 2, 2, 1);
  t_ax = kt(AP_INT32, size, 1, 2, 0, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_RESIZE_BILINEAR), AP_OK);
  CHECK_DIMS4(o, 0, 3, 3, 1);
  CHECK_EQ(out[0], 42);
}

static void test_broadcast_compare(void) {
  /* [2, 1] against [1, 3] -> [2, 3]: every pair (a_i, b_j). */
  float a[2] = {1, NAN}, b[3] = {0, 1, NAN};
  uint8_t eq[6], lt[6];
  ap_ktensor ta = kt(AP_FLOAT32, a, 2, 2, 1, 0, 0), tb = kt(AP_FLOAT32, b, 2, 1, 3, 0, 0);
  ap_ktensor to = kout(AP_BOOL, eq, 0, 0);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_EQUAL), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 3);
  uint8_t weq[6] = {0, 1, 0, 0, 0, 0}; /* NaN equals nothing, itself included */
  CHECK_ARRAY(eq, weq, 6);
  to = kout(AP_BOOL, lt, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_LESS), AP_OK);
  uint8_t wlt[6] = {0, 0, 0, 0, 0, 0}; /* 1 < 0, 1 < 1 false; any NaN: false */
  CHECK_ARRAY(lt, wlt, 6);
  b[0] = 2;
  CHECK_EQ(kx_do(&r, AP_KB_LESS), AP_OK);
  CHECK(lt[0] == 1 && lt[3] == 0);
  /* MAXIMUM is x > y ? x : y and MINIMUM x < y ? x : y (maximum_minimum.h): a NaN on the
   * left loses, a NaN on the right wins. -0 against 0 keeps the right operand. */
  float x[4] = {NAN, 1, -0.0f, 0.0f}, y[4] = {1, NAN, 0.0f, -0.0f}, m[4];
  ap_ktensor tx = kt(AP_FLOAT32, x, 1, 4, 0, 0, 0), ty = kt(AP_FLOAT32, y, 1, 4, 0, 0, 0);
  ap_ktensor tm = kout(AP_FLOAT32, m, 0, 0);
  ins[0] = &tx, ins[1] = &ty;
  outs[0] = &tm;
  CHECK_EQ(kx_do(&r, AP_KB_MAXIMUM), AP_OK);
  CHECK(m[0] == 1 && isnan(m[1]) && m[2] == 0 && !signbit(m[2]) && signbit(m[3]));
  CHECK_EQ(kx_do(&r, AP_KB_MINIMUM), AP_OK);
  CHECK(m[0] == 1 && isnan(m[1]) && !signbit(m[2]) && signbit(m[3]));
  /* int32 [3] against a [1] vector (rank 1 both, dim 1 broadcasts). */
  int32_t i1[3] = {INT32_MIN, 0, INT32_MAX}, i2[1] = {-1}, io[3];
  ap_ktensor t1 = kt(AP_INT32, i1, 1, 3, 0, 0, 0), t2 = kt(AP_INT32, i2, 1, 1, 0, 0, 0);
  ap_ktensor tio = kout(AP_INT32, io, 0, 0);
  ins[0] = &t2, ins[1] = &t1; /* the short one first: broadcasting is symmetric */
  outs[0] = &tio;
  CHECK_EQ(kx_do(&r, AP_KB_MAXIMUM), AP_OK);
  CHECK(tio.rank == 1 && tio.dims[0] == 3 && io[0] == -1 && io[1] == 0 && io[2] == INT32_MAX);
  CHECK_EQ(kx_do(&r, AP_KB_MINIMUM), AP_OK);
  CHECK(io[0] == INT32_MIN && io[1] == -1 && io[2] == -1);
}

static void test_float_specials(void) {
  /* Unary: sqrt(inf) = inf, 1/sqrt(0) = inf, 1/sqrt(inf) = 0, sqrt(-0) = -0; exp overflows
   * to inf at 89 (e^89 > FLT_MAX) and underflows to 0 at -104; log(inf) = inf. */
  float x[4] = {INFINITY, 0, -0.0f, 89}, out[4];
  ap_ktensor tx = kt(AP_FLOAT32, x, 1, 4, 0, 0, 0), to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[2] = {&tx, NULL};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_SQRT), AP_OK);
  CHECK(isinf(out[0]) && out[1] == 0 && out[2] == 0 && signbit(out[2]));
  CHECK_EQ(kx_do(&r, AP_KB_RSQRT), AP_OK);
  CHECK(out[0] == 0 && isinf(out[1]) && out[1] > 0 && isinf(out[2]) && out[2] < 0);
  CHECK_EQ(kx_do(&r, AP_KB_EXP), AP_OK);
  CHECK(isinf(out[0]) && out[1] == 1 && out[2] == 1 && isinf(out[3]));
  x[3] = -104;
  CHECK_EQ(kx_do(&r, AP_KB_EXP), AP_OK);
  CHECK(out[3] == 0);
  CHECK_EQ(kx_do(&r, AP_KB_LOG), AP_OK);
  CHECK(isinf(out[0]) && out[0] > 0 && isinf(out[1]) && out[1] < 0);
  /* LEAKY_RELU with alpha -1 (a leaky ABS) and alpha 2: x > 0 ? x : alpha * x. */
  x[0] = -3, x[1] = 2, x[2] = -0.5f, x[3] = 0;
  r.opt.alpha = -1;
  CHECK_EQ(kx_do(&r, AP_KB_LEAKY_RELU), AP_OK);
  float wl[4] = {3, 2, 0.5f, 0};
  CHECK_ARRAY(out, wl, 4);
  r.opt.alpha = 2;
  CHECK_EQ(kx_do(&r, AP_KB_LEAKY_RELU), AP_OK);
  float wl2[4] = {-6, 2, -1, 0};
  CHECK_ARRAY(out, wl2, 4);
  /* Binary: 0 / 0 = NaN passes the activation clamp (min(max(NaN, lo), hi) keeps it);
   * -1 / 0 = -inf clamps to the lowest float. FLOOR_DIV with negative divisors:
   * floor(7 / -2) = -4, floor(-7 / -2) = 3. POW: 0^0 = 1, (-8)^(1/3) = NaN, 2^-inf = 0. */
  float a[4] = {0, -1, 7, -7}, b[4] = {0, 0, -2, -2};
  ap_ktensor ta = kt(AP_FLOAT32, a, 1, 4, 0, 0, 0), tb = kt(AP_FLOAT32, b, 1, 4, 0, 0, 0);
  ins[0] = &ta, ins[1] = &tb;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_DIV), AP_OK);
  CHECK(isnan(out[0]) && out[1] == -FLT_MAX && out[2] == -3.5f && out[3] == 3.5f);
  b[0] = b[1] = 1;
  CHECK_EQ(kx_do(&r, AP_KB_FLOOR_DIV), AP_OK);
  float wf[4] = {0, -1, -4, 3};
  CHECK_ARRAY(out, wf, 4);
  a[0] = 0, b[0] = 0, a[1] = -8, b[1] = 1.0f / 3, a[2] = 2, b[2] = -INFINITY;
  CHECK_EQ(kx_do(&r, AP_KB_POW), AP_OK);
  CHECK(out[0] == 1 && isnan(out[1]) && out[2] == 0);
  /* SQUARED_DIFFERENCE overflows to inf past sqrt(FLT_MAX). */
  a[0] = 2e19f, b[0] = -2e19f;
  CHECK_EQ(kx_do(&r, AP_KB_SQUARED_DIFFERENCE), AP_OK);
  CHECK(isinf(out[0]));
}

static void test_prelu_batch_matmul(void) {
  /* PRELU with an alpha of the input's full shape and one of shape [2, 1] (per row):
   * x >= 0 ? x : alpha * x (prelu.h). */
  float x[4] = {-1, -2, 3, -4}, full[4] = {1, 2, 3, 4}, row[2] = {10, -1}, out[4];
  ap_ktensor tx = kt(AP_FLOAT32, x, 2, 2, 2, 0, 0), ta = kt(AP_FLOAT32, full, 2, 2, 2, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[2] = {&tx, &ta};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_PRELU), AP_OK);
  float w1[4] = {-1, -4, 3, -16};
  CHECK_ARRAY(out, w1, 4);
  ta = kt(AP_FLOAT32, row, 2, 2, 1, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_PRELU), AP_OK);
  float w2[4] = {-10, -20, 3, 4};
  CHECK_ARRAY(out, w2, 4);
  /* BATCH_MATMUL: lhs [1, 1, 2] against rhs [2, 2, 1] broadcasts the lhs batch: batch b is
   * [1, 2] x rhs[b]. rhs = {1, 1} and {2, -1}: 1 + 2 = 3, 2 - 2 = 0. */
  float l[2] = {1, 2}, rr[4] = {1, 1, 2, -1}, mo[2];
  ap_ktensor tl = kt(AP_FLOAT32, l, 3, 1, 1, 2, 0), tr = kt(AP_FLOAT32, rr, 3, 2, 2, 1, 0);
  ap_ktensor tmo = kout(AP_FLOAT32, mo, 0, 0);
  ins[0] = &tl, ins[1] = &tr;
  outs[0] = &tmo;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_BATCH_MATMUL), AP_OK);
  CHECK(tmo.rank == 3 && tmo.dims[0] == 2 && tmo.dims[1] == 1 && tmo.dims[2] == 1);
  CHECK(mo[0] == 3 && mo[1] == 0);
  /* Batches 2 and 3 do not broadcast. */
  tl = kt(AP_FLOAT32, l, 3, 3, 1, 2, 0);
  CHECK_EQ(kx_do(&r, AP_KB_BATCH_MATMUL), AP_ERR_FORMAT);
}

/* dynamic_shapes multiplies two int32 scalars (a dim by 8): rank 0 stays rank 0; a scalar
 * broadcasts against a vector; int32 products wrap as TFLite's do on its targets. */
static void test_int32_mul(void) {
  int32_t a[2] = {3, INT32_MAX}, b[1] = {8}, o[2];
  ap_ktensor ta = kt(AP_INT32, a, 0, 0, 0, 0, 0), tb = kt(AP_INT32, b, 0, 0, 0, 0, 0);
  ap_ktensor to = kout(AP_INT32, o, 0, 0);
  ap_binary_params p;
  CHECK_EQ(ap_binary_prepare(AP_KBIN_MUL, AP_KACT_NONE, &ta, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_binary_eval(&p, &ta, &tb, &to), AP_OK);
  CHECK(to.rank == 0 && o[0] == 24);
  ta = kt(AP_INT32, a, 1, 2, 0, 0, 0);
  CHECK_EQ(ap_binary_prepare(AP_KBIN_MUL, AP_KACT_NONE, &ta, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_binary_eval(&p, &ta, &tb, &to), AP_OK);
  CHECK(to.rank == 1 && to.dims[0] == 2 && o[0] == 24 && o[1] == -8); /* (2^31 - 1) * 8 mod 2^32 */
}

/* CAST float -> int32 truncates (static_cast), so halves do not round: 2.5 -> 2, -2.5 -> -2,
 * +-0.5 -> 0; beyond the int32 range it saturates (undefined in C++, defined here), NaN -> 0.
 * int32 -> int8 keeps the low byte, as static_cast does: 300 -> 44, -129 -> 127. */
static void test_cast_ties(void) {
  float f[7] = {2.5f, -2.5f, 0.5f, -0.5f, 3e9f, -3e9f, NAN};
  int32_t o[7];
  ap_ktensor ti = kt(AP_FLOAT32, f, 1, 7, 0, 0, 0), to = kout(AP_INT32, o, 0, 0);
  const ap_ktensor *ins[1] = {&ti};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_CAST), AP_OK);
  int32_t w[7] = {2, -2, 0, 0, INT32_MAX, INT32_MIN, 0};
  CHECK_ARRAY(o, w, 7);
  int32_t iv[2] = {300, -129};
  int8_t q[2];
  ti = kt(AP_INT32, iv, 1, 2, 0, 0, 0);
  to = kout(AP_INT8, q, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_CAST), AP_OK);
  CHECK(q[0] == 44 && q[1] == 127);
}

int main(void) {
  test_cast_ties();
  test_int32_mul();
  test_zero_sized();
  test_broadcast_compare();
  test_float_specials();
  test_prelu_batch_matmul();
  return ap_test_done();
}
