/* Issue 15's math, comparison, logic and reduction ops, hand-worked: FLOOR, CEIL, ROUND (ties
 * to even, worked from floorf), SIN, COS, SQUARE, LOGICAL_NOT; FLOOR_MOD, GREATER,
 * GREATER_EQUAL, LESS_EQUAL, NOT_EQUAL, LOGICAL_AND, LOGICAL_OR with broadcasting; SUM,
 * REDUCE_MAX, REDUCE_MIN, REDUCE_ALL, MEAN int16; ARG_MIN; L2_POOL_2D. */
#include "kernels/kops_mathlogic.h"
#include "kxtest.h"

#include <float.h>

static bool same_bits(float a, float b) {
  return memcmp(&a, &b, sizeof a) == 0;
}

/* kx_do with the scratch prepare asks for (the quantized reductions need one). */
static ap_status kx_do_scratch(kx_run *r, int32_t builtin) {
  const ap_kernel *k = ap_kernel_find(builtin);
  if (!k) return AP_ERR_UNSUPPORTED;
  size_t scratch = 0;
  r->err.msg[0] = 0;
  ap_status s = k->prepare(&r->c, &scratch);
  if (s != AP_OK) return s;
  void *buf = scratch ? malloc(scratch) : NULL;
  if (scratch && !buf) return AP_ERR_NOMEM;
  static const ap_kop_options none;
  r->c.options = &none;
  r->c.scratch = buf;
  s = k->eval(&r->c);
  r->c.options = &r->opt;
  r->c.scratch = NULL;
  free(buf);
  return s;
}

static void test_rounding(void) {
  enum { N = 12 };
  float in[N] = {0.5f,  1.5f,        2.5f, -0.5f,    -1.5f,     -2.5f,
                 -0.0f, 0.49999997f, NAN,  INFINITY, -INFINITY, 8388609.0f};
  float out[N];
  ap_ktensor ti = kt(AP_FLOAT32, in, 1, N, 0, 0, 0), to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[1] = {&ti};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  /* Ties go to the even neighbour; -0.5 becomes floor + 1 = +0 (not -0 as rintf gives), and
   * -0 stays -0 (its distance to floor(-0) is 0). */
  CHECK_EQ(kx_do(&r, AP_KB_ROUND), AP_OK);
  const float round_want[N] = {0, 2, 2, 0, -2, -2, -0.0f, 0, NAN, INFINITY, -INFINITY, 8388609.0f};
  for (int i = 0; i < N; i++) {
    CHECK_MSG(i == 8 ? isnan(out[i]) : same_bits(out[i], round_want[i]), "ROUND[%d] = %g", i,
              (double)out[i]);
  }
  CHECK(!signbit(out[3]) && signbit(out[6]));
  CHECK_EQ(kx_do(&r, AP_KB_FLOOR), AP_OK);
  CHECK(out[0] == 0 && out[3] == -1 && out[5] == -3 && signbit(out[6]) && out[6] == 0);
  CHECK(isnan(out[8]) && out[9] == INFINITY && out[10] == -INFINITY);
  CHECK_EQ(kx_do(&r, AP_KB_CEIL), AP_OK);
  CHECK(out[0] == 1 && out[2] == 3 && out[3] == 0 && signbit(out[3]) && out[4] == -1);
  CHECK(isnan(out[8]) && out[9] == INFINITY);
  CHECK_EQ(kx_do(&r, AP_KB_SQUARE), AP_OK);
  CHECK(out[1] == 2.25f && out[5] == 6.25f && same_bits(out[6], 0.0f) && isnan(out[8]));
  CHECK(out[10] == INFINITY);
  in[0] = 0, in[1] = -0.0f, in[2] = 1, in[3] = INFINITY;
  CHECK_EQ(kx_do(&r, AP_KB_SIN), AP_OK);
  CHECK(same_bits(out[0], 0.0f) && same_bits(out[1], -0.0f) && out[2] == sinf(1.0f) &&
        isnan(out[3]) && isnan(out[8]));
  CHECK_EQ(kx_do(&r, AP_KB_COS), AP_OK);
  CHECK(out[0] == 1 && out[1] == 1 && out[2] == cosf(1.0f) && isnan(out[3]));
  /* Float only; LOGICAL_NOT bool only. */
  int32_t iv[2] = {1, 2}, io[2];
  ti = kt(AP_INT32, iv, 1, 2, 0, 0, 0);
  to = kout(AP_INT32, io, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_ROUND), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "ROUND: unsupported type INT32");
  CHECK_EQ(kx_do(&r, AP_KB_LOGICAL_NOT), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "LOGICAL_NOT: unsupported type INT32");
  uint8_t bv[3] = {0, 1, 0}, bo[3];
  ti = kt(AP_BOOL, bv, 1, 3, 0, 0, 0);
  to = kout(AP_BOOL, bo, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_LOGICAL_NOT), AP_OK);
  CHECK(bo[0] == 1 && bo[1] == 0 && bo[2] == 1);
  to = kout(AP_FLOAT32, out, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_LOGICAL_NOT), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "LOGICAL_NOT: output type FLOAT32 differs from input BOOL");
}

static void test_floor_mod(void) {
  /* [2, 4] % [4]: the remainder takes the divisor's sign. */
  float a[8] = {5, -5, 5, -5, 0, -0.0f, 7, -5}, b[4] = {3, 3, -3, -3}, out[8];
  ap_ktensor ta = kt(AP_FLOAT32, a, 2, 2, 4, 0, 0), tb = kt(AP_FLOAT32, b, 1, 4, 0, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_FLOOR_MOD), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 4);
  const float want[8] = {2, 1, -1, -2, 0, -0.0f, -2, -2};
  for (int i = 0; i < 8; i++)
    CHECK_MSG(same_bits(out[i], want[i]), "FLOOR_MOD[%d] = %g", i, (double)out[i]);
  /* x % 0 and inf % y are NaN; x % inf is x, moved by inf when the signs differ. */
  b[0] = 0, a[0] = 5, a[1] = INFINITY, b[1] = 3, b[2] = INFINITY, a[2] = -5, b[3] = INFINITY,
  a[3] = 5;
  CHECK_EQ(kx_do(&r, AP_KB_FLOOR_MOD), AP_OK);
  CHECK(isnan(out[0]) && isnan(out[1]) && out[2] == INFINITY && out[3] == 5);
  int32_t ia[2] = {5, -5}, ib[2] = {3, 3}, io[2];
  ta = kt(AP_INT32, ia, 1, 2, 0, 0, 0), tb = kt(AP_INT32, ib, 1, 2, 0, 0, 0);
  to = kout(AP_INT32, io, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_FLOOR_MOD), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "FLOOR_MOD: unsupported input types INT32 and INT32");
}

static void test_compare(void) {
  /* [2, 2] against [2]: NaN compares false except NOT_EQUAL; -0 equals +0. */
  float a[4] = {1, NAN, -0.0f, 3}, b[2] = {1, 0};
  uint8_t o[4];
  ap_ktensor ta = kt(AP_FLOAT32, a, 2, 2, 2, 0, 0), tb = kt(AP_FLOAT32, b, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_BOOL, o, 0, 0);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  static const struct {
    int32_t op;
    uint8_t want[4];
  } cases[] = {{AP_KB_GREATER, {0, 0, 0, 1}},    {AP_KB_GREATER_EQUAL, {1, 0, 0, 1}},
               {AP_KB_LESS_EQUAL, {1, 0, 1, 0}}, {AP_KB_NOT_EQUAL, {0, 1, 1, 1}},
               {AP_KB_EQUAL, {1, 0, 0, 0}},      {AP_KB_LESS, {0, 0, 1, 0}}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    CHECK_EQ(kx_do(&r, cases[k].op), AP_OK);
    CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 2);
    CHECK_ARRAY(o, cases[k].want, 4);
  }
  /* -0 against +0: equal, so GREATER_EQUAL and LESS_EQUAL both hold. */
  a[0] = -0.0f, b[0] = 0;
  CHECK_EQ(kx_do(&r, AP_KB_GREATER_EQUAL), AP_OK);
  CHECK(o[0] == 1);
  CHECK_EQ(kx_do(&r, AP_KB_NOT_EQUAL), AP_OK);
  CHECK(o[0] == 0);
  /* int64 values one apart above 2^53 stay apart. */
  int64_t la[2] = {(1LL << 53) + 1, INT64_MIN}, lb[2] = {1LL << 53, INT64_MIN};
  ta = kt(AP_INT64, la, 1, 2, 0, 0, 0), tb = kt(AP_INT64, lb, 1, 2, 0, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_GREATER), AP_OK);
  CHECK(o[0] == 1 && o[1] == 0);
  CHECK_EQ(kx_do(&r, AP_KB_LESS_EQUAL), AP_OK);
  CHECK(o[0] == 0 && o[1] == 1);
  /* int8 compares real values: 1 at scale 0.5 equals 2 at scale 0.25 (both 0.5); with zero
   * points -1 and 3: -1 + 1 = 0 equals 3 - 3 = 0. */
  int8_t qa[3] = {1, -1, 2}, qb[3] = {2, 3, 2};
  ta = ktq(AP_INT8, qa, 1, 3, 0, 0, 0, 0.5f, 0), tb = ktq(AP_INT8, qb, 1, 3, 0, 0, 0, 0.25f, 0);
  CHECK_EQ(kx_do(&r, AP_KB_NOT_EQUAL), AP_OK);
  CHECK(o[0] == 0 && o[1] == 1 && o[2] == 1);
  CHECK_EQ(kx_do(&r, AP_KB_GREATER_EQUAL), AP_OK);
  CHECK(o[0] == 1 && o[1] == 0 && o[2] == 1);
  ta.zero_point = -1, tb.zero_point = 3;
  CHECK_EQ(kx_do(&r, AP_KB_LESS_EQUAL), AP_OK);
  CHECK(o[0] == 0 && o[1] == 1 && o[2] == 0);
  CHECK_EQ(kx_do(&r, AP_KB_GREATER), AP_OK);
  CHECK(o[0] == 1 && o[1] == 0 && o[2] == 1);
  /* bool NOT_EQUAL; bool GREATER is not a TFLite comparison. */
  uint8_t ba[2] = {0, 1}, bb[1] = {1};
  ta = kt(AP_BOOL, ba, 1, 2, 0, 0, 0), tb = kt(AP_BOOL, bb, 1, 1, 0, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_NOT_EQUAL), AP_OK);
  CHECK(o[0] == 1 && o[1] == 0);
  CHECK_EQ(kx_do(&r, AP_KB_GREATER), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "GREATER: unsupported input types BOOL and BOOL");
  /* TFLite Micro's int16 GREATER answers false everywhere: refused, saying so. */
  int16_t sa[1] = {2}, sb[1] = {1};
  ta = kt(AP_INT16, sa, 1, 1, 0, 0, 0), tb = kt(AP_INT16, sb, 1, 1, 0, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_GREATER), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "GREATER: INT16 is unsupported (TFLite Micro's kernel has no int16 "
                       "rescaling and outputs false everywhere)");
  CHECK_EQ(kx_do(&r, AP_KB_LESS_EQUAL), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "LESS_EQUAL: unsupported input types INT16 and INT16");
  /* Output must be BOOL; shapes must broadcast. */
  float f3[3] = {0};
  ta = kt(AP_FLOAT32, a, 2, 2, 2, 0, 0), tb = kt(AP_FLOAT32, f3, 1, 3, 0, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_GREATER), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "GREATER: shapes do not broadcast: dim 1 is 2 and 3");
  to = kout(AP_FLOAT32, f3, 0, 0);
  tb = kt(AP_FLOAT32, b, 1, 2, 0, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_NOT_EQUAL), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "NOT_EQUAL: output type FLOAT32, expected BOOL");
}

static void test_logical(void) {
  /* [2, 1] with [3] -> [2, 3]. */
  uint8_t a[2] = {0, 1}, b[3] = {0, 1, 1}, o[6];
  ap_ktensor ta = kt(AP_BOOL, a, 2, 2, 1, 0, 0), tb = kt(AP_BOOL, b, 1, 3, 0, 0, 0);
  ap_ktensor to = kout(AP_BOOL, o, 0, 0);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_LOGICAL_AND), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 3);
  const uint8_t and_want[6] = {0, 0, 0, 0, 1, 1}, or_want[6] = {0, 1, 1, 1, 1, 1};
  CHECK_ARRAY(o, and_want, 6);
  CHECK_EQ(kx_do(&r, AP_KB_LOGICAL_OR), AP_OK);
  CHECK_ARRAY(o, or_want, 6);
  /* Zero-sized: nothing written. */
  ta = kt(AP_BOOL, a, 2, 0, 1, 0, 0);
  o[0] = 7;
  CHECK_EQ(kx_do(&r, AP_KB_LOGICAL_OR), AP_OK);
  CHECK(to.dims[0] == 0 && to.dims[1] == 3 && o[0] == 7);
  float f[2] = {0};
  ta = kt(AP_FLOAT32, f, 1, 2, 0, 0, 0), tb = kt(AP_FLOAT32, f, 1, 2, 0, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_LOGICAL_AND), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "LOGICAL_AND: unsupported input types FLOAT32 and FLOAT32");
  r.c.n_inputs = 1;
  CHECK_EQ(kx_do(&r, AP_KB_LOGICAL_OR), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "LOGICAL_OR: expected 2 to 2 inputs and 1 output");
}

static void test_reduce_float(void) {
  /* [2, 3] reduced over axis -1 (= 1), listed twice, keep_dims: [2, 1]. */
  float in[6] = {1, 2, 3, -4, NAN, 0.5f}, out[6];
  int32_t axes[2] = {-1, 1};
  ap_ktensor ti = kt(AP_FLOAT32, in, 2, 2, 3, 0, 0), ta = kt(AP_INT32, axes, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[2] = {&ti, &ta};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  r.opt.keep_dims = true;
  CHECK_EQ(kx_do(&r, AP_KB_SUM), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 1);
  CHECK(out[0] == 6 && isnan(out[1]));
  /* A NaN never beats the current maximum or minimum. */
  CHECK_EQ(kx_do(&r, AP_KB_REDUCE_MAX), AP_OK);
  CHECK(out[0] == 3 && out[1] == 0.5f);
  CHECK_EQ(kx_do(&r, AP_KB_REDUCE_MIN), AP_OK);
  CHECK(out[0] == 1 && out[1] == -4);
  /* Axis 0 without keep_dims: [3]. */
  axes[0] = 0, ta.dims[0] = 1;
  r.opt.keep_dims = false;
  CHECK_EQ(kx_do(&r, AP_KB_REDUCE_MAX), AP_OK);
  CHECK(to.rank == 1 && to.dims[0] == 3 && out[0] == 1 && out[1] == 2 && out[2] == 3);
  /* Empty input: every output keeps the initial value (0, lowest, highest). */
  ti = kt(AP_FLOAT32, in, 2, 3, 0, 0, 0);
  axes[0] = 1;
  CHECK_EQ(kx_do(&r, AP_KB_SUM), AP_OK);
  CHECK(to.rank == 1 && to.dims[0] == 3 && same_bits(out[0], 0.0f) && out[2] == 0);
  CHECK_EQ(kx_do(&r, AP_KB_REDUCE_MAX), AP_OK);
  CHECK(out[0] == -FLT_MAX && out[2] == -FLT_MAX);
  CHECK_EQ(kx_do(&r, AP_KB_REDUCE_MIN), AP_OK);
  CHECK(out[1] == FLT_MAX);
  /* A scalar: the axis is ignored, the output is the value. */
  ti = kt(AP_FLOAT32, in, 0, 0, 0, 0, 0);
  in[0] = -2.5f;
  axes[0] = 3;
  CHECK_EQ(kx_do(&r, AP_KB_SUM), AP_OK);
  CHECK(to.rank == 0 && out[0] == -2.5f);
  /* Bad axes and types. */
  ti = kt(AP_FLOAT32, in, 2, 2, 3, 0, 0);
  axes[0] = -3;
  CHECK_EQ(kx_do(&r, AP_KB_SUM), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SUM: axis -3 out of range for rank 2");
  axes[0] = 2;
  CHECK_EQ(kx_do(&r, AP_KB_REDUCE_MIN), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "REDUCE_MIN: axis 2 out of range for rank 2");
  ta.data = NULL;
  CHECK_EQ(kx_do(&r, AP_KB_REDUCE_MAX), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "REDUCE_MAX: axis must be a constant INT32 tensor");
  ta.data = axes;
  axes[0] = 0;
  int32_t iv[6] = {0}, io[6];
  ti = kt(AP_INT32, iv, 2, 2, 3, 0, 0);
  to = kout(AP_INT32, io, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_SUM), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "SUM: unsupported types INT32 -> INT32");
  CHECK_EQ(kx_do(&r, AP_KB_REDUCE_ALL), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "REDUCE_ALL: unsupported types INT32 -> INT32");
  r.c.n_inputs = 1;
  CHECK_EQ(kx_do(&r, AP_KB_SUM), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SUM: expected 2 to 2 inputs and 1 output");
}

static void test_reduce_all(void) {
  /* [2, 2, 2] over axes {0, 2}: [2] (and keep_dims [1, 2, 1]). */
  uint8_t in[8] = {1, 1, 1, 0, 1, 1, 1, 1}, out[4];
  int32_t axes[2] = {2, 0};
  int32_t dims[3] = {2, 2, 2};
  ap_ktensor ti = ap_ktensor_make(AP_BOOL, in, 3, dims), ta = kt(AP_INT32, axes, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_BOOL, out, 0, 0);
  const ap_ktensor *ins[2] = {&ti, &ta};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  r.opt.keep_dims = true;
  CHECK_EQ(kx_do(&r, AP_KB_REDUCE_ALL), AP_OK);
  CHECK(to.rank == 3 && to.dims[0] == 1 && to.dims[1] == 2 && to.dims[2] == 1);
  CHECK(out[0] == 1 && out[1] == 0);
  /* Empty: true. */
  dims[1] = 0;
  ti = ap_ktensor_make(AP_BOOL, in, 3, dims);
  r.opt.keep_dims = false;
  axes[0] = 1, ta.dims[0] = 1;
  memset(out, 0, sizeof out);
  CHECK_EQ(kx_do(&r, AP_KB_REDUCE_ALL), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 2);
  CHECK(out[0] == 1 && out[1] == 1 && out[2] == 1 && out[3] == 1);
}

static void test_reduce_int(void) {
  /* SUM int8, input scale 0.5, output scale 1: the multiplier halves, and the doubling high
   * multiply rounds ties up: 3/2 -> 2, -3/2 -> -1, 1/2 -> 1, -1/2 -> 0. */
  int8_t in[8] = {1, 2, -1, -2, 1, 0, -1, 0}, out[4];
  int32_t axes[1] = {1};
  ap_ktensor ti = ktq(AP_INT8, in, 2, 4, 2, 0, 0, 0.5f, 0), ta = kt(AP_INT32, axes, 1, 1, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, out, 1.0f, 0);
  const ap_ktensor *ins[2] = {&ti, &ta};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do_scratch(&r, AP_KB_SUM), AP_OK);
  CHECK(to.rank == 1 && to.dims[0] == 4);
  const int8_t want[4] = {2, -1, 1, 0};
  CHECK_ARRAY(out, want, 4);
  /* Zero points: count input zero points come off the sum, the output's goes on; then the
   * int8 range clamps (127 * 2 + ... saturates). */
  ti.zero_point = -1, to.zero_point = 10;
  CHECK_EQ(kx_do_scratch(&r, AP_KB_SUM), AP_OK);
  const int8_t want_zp[4] = {13, 10, 12, 11}; /* (sum + 2) / 2 rounded, + 10 */
  CHECK_ARRAY(out, want_zp, 4);
  in[0] = in[1] = 127;
  to.scale = 0.5f, ti.zero_point = 0, to.zero_point = 0;
  CHECK_EQ(kx_do_scratch(&r, AP_KB_SUM), AP_OK);
  CHECK(out[0] == 127 && out[1] == -3);
  /* Empty input: a raw 0, not the output zero point. */
  ti = ktq(AP_INT8, in, 2, 4, 0, 0, 0, 0.5f, 0);
  to.zero_point = 5;
  out[0] = 9;
  CHECK_EQ(kx_do_scratch(&r, AP_KB_SUM), AP_OK);
  CHECK(to.dims[0] == 4 && out[0] == 0 && out[3] == 0);
  /* int16 SUM and MEAN share the requantization. */
  int16_t s[4] = {1000, 3, -7, 32767}, so[2];
  ti = ktq(AP_INT16, s, 2, 2, 2, 0, 0, 1.0f, 0);
  to = kout(AP_INT16, so, 1.0f, 0);
  CHECK_EQ(kx_do_scratch(&r, AP_KB_SUM), AP_OK);
  CHECK(so[0] == 1003 && so[1] == 32760);
  s[1] = 3, s[2] = 32767, s[3] = 32767;
  CHECK_EQ(kx_do_scratch(&r, AP_KB_SUM), AP_OK);
  CHECK(so[0] == 1003 && so[1] == 32767);
  s[0] = -3, s[1] = 0, s[2] = 3, s[3] = 0;
  CHECK_EQ(kx_do_scratch(&r, AP_KB_MEAN), AP_OK);
  CHECK(so[0] == -1 && so[1] == 2); /* -1.5 -> -1, 1.5 -> 2 */
  /* REDUCE_MAX/MIN int8: raw values, so input and output must share their quantization. */
  int8_t m[4] = {-128, -5, 7, 127}, mo[2];
  ti = ktq(AP_INT8, m, 2, 2, 2, 0, 0, 0.5f, 3);
  to = kout(AP_INT8, mo, 0.5f, 3);
  CHECK_EQ(kx_do(&r, AP_KB_REDUCE_MAX), AP_OK);
  CHECK(mo[0] == -5 && mo[1] == 127);
  CHECK_EQ(kx_do(&r, AP_KB_REDUCE_MIN), AP_OK);
  CHECK(mo[0] == -128 && mo[1] == 7);
  to.zero_point = 2;
  CHECK_EQ(kx_do(&r, AP_KB_REDUCE_MIN), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "REDUCE_MIN: int8 input and output must share scale and zero point");
  to.scale = 0;
  CHECK_EQ(kx_do(&r, AP_KB_SUM), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SUM: quantized tensors need positive scales and in-range zero points");
  /* Eval refuses a missing scratch. */
  to = kout(AP_INT8, mo, 0.5f, 3);
  const ap_kernel *k = ap_kernel_find(AP_KB_SUM);
  size_t scratch = 0;
  CHECK_EQ(k->prepare(&r.c, &scratch), AP_OK);
  CHECK_EQ(scratch, 2 * sizeof(int32_t));
  CHECK_EQ(k->eval(&r.c), AP_ERR_ARG);
}

static void test_arg_min(void) {
  /* [2, 3] over axis -1: the first index of the smallest; a leading NaN is never beaten. */
  float in[6] = {3, 1, 1, NAN, -1, -2};
  int32_t axis[1] = {-1}, out[3];
  ap_ktensor ti = kt(AP_FLOAT32, in, 2, 2, 3, 0, 0), ta = kt(AP_INT32, axis, 1, 1, 0, 0, 0);
  ap_ktensor to = kout(AP_INT32, out, 0, 0);
  const ap_ktensor *ins[2] = {&ti, &ta};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_ARG_MIN), AP_OK);
  CHECK(to.rank == 1 && to.dims[0] == 2 && out[0] == 1 && out[1] == 0);
  CHECK_EQ(kx_do(&r, AP_KB_ARG_MAX), AP_OK);
  CHECK(out[0] == 0 && out[1] == 0);
  axis[0] = 0;
  in[3] = 5;
  CHECK_EQ(kx_do(&r, AP_KB_ARG_MIN), AP_OK);
  CHECK(to.dims[0] == 3 && out[0] == 0 && out[1] == 1 && out[2] == 1);
  axis[0] = 2;
  CHECK_EQ(kx_do(&r, AP_KB_ARG_MIN), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "ARG_MIN: axis 2 out of range for rank 2");
  uint8_t b[6] = {0};
  ti = kt(AP_BOOL, b, 2, 2, 3, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_ARG_MIN), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "ARG_MIN: unsupported input type BOOL");
}

static void test_l2_pool(void) {
  /* [1, 2, 2, 1], 2x2 VALID stride 2: sqrt((9 + 16 + 0 + 0) / 4) = 2.5. */
  float in[4] = {3, 4, 0, 0}, out[4];
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, 1, 2, 2, 1), to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[1] = {&ti};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  r.opt.pool = (ap_pool_options){AP_KPAD_VALID, 2, 2, 2, 2, AP_KACT_NONE};
  CHECK_EQ(kx_do(&r, AP_KB_L2_POOL_2D), AP_OK);
  CHECK_DIMS4(to, 1, 1, 1, 1);
  CHECK(out[0] == 2.5f);
  /* SAME 3x3 stride 1: windows clipped to the image, divided by the clipped count; RELU6. */
  in[0] = 6, in[1] = 8, in[2] = -8, in[3] = 6; /* all windows: sqrt(200 / 4) */
  r.opt.pool = (ap_pool_options){AP_KPAD_SAME, 1, 1, 3, 3, AP_KACT_RELU6};
  CHECK_EQ(kx_do(&r, AP_KB_L2_POOL_2D), AP_OK);
  CHECK_DIMS4(to, 1, 2, 2, 1);
  CHECK(out[0] == 6 && out[3] == 6);
  r.opt.pool.activation = AP_KACT_NONE;
  CHECK_EQ(kx_do(&r, AP_KB_L2_POOL_2D), AP_OK);
  CHECK(out[0] == sqrtf(50.0f));
  in[0] = NAN;
  CHECK_EQ(kx_do(&r, AP_KB_L2_POOL_2D), AP_OK);
  CHECK(isnan(out[0]) && isnan(out[3]));
  int8_t q[4] = {0}, qo[4];
  ti = ktq(AP_INT8, q, 4, 1, 2, 2, 1, 0.5f, 0);
  to = kout(AP_INT8, qo, 0.5f, 0);
  CHECK_EQ(kx_do(&r, AP_KB_L2_POOL_2D), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "L2_POOL_2D: unsupported types INT8 -> INT8");
  ti = kt(AP_FLOAT32, in, 3, 1, 2, 2, 0);
  to = kout(AP_FLOAT32, out, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_L2_POOL_2D), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "L2_POOL_2D: input must be 4-D and non-empty");
  r.c.n_inputs = 0;
  CHECK_EQ(kx_do(&r, AP_KB_L2_POOL_2D), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "L2_POOL_2D: expected 1 to 1 inputs and 1 output");
}

int main(void) {
  test_rounding();
  test_floor_mod();
  test_compare();
  test_logical();
  test_reduce_float();
  test_reduce_all();
  test_reduce_int();
  test_arg_min();
  test_l2_pool();
  return ap_test_done();
}
