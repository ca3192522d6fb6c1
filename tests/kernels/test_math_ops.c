/* SQRT, RSQRT, EXP, LOG, ABS, NEG, LEAKY_RELU and the broadcasting binary ops DIV, FLOOR_DIV,
 * SQUARED_DIFFERENCE, POW, MAXIMUM, MINIMUM, EQUAL, LESS, SELECT_V2. Expected values are exact
 * by construction (powers of two, perfect squares) or the float libm result of a literal. */
#include "kxtest.h"

#include <float.h>

static void test_unary(void) {
  float in[4] = {4, 0.25f, 1, -9}, out[4];
  ap_ktensor ti = kt(AP_FLOAT32, in, 2, 2, 2, 0, 0), to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[1] = {&ti};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_SQRT), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 2);
  CHECK(out[0] == 2 && out[1] == 0.5f && out[2] == 1 && isnan(out[3]));
  CHECK_EQ(kx_do(&r, AP_KB_RSQRT), AP_OK);
  CHECK(out[0] == 0.5f && out[1] == 2 && out[2] == 1 && isnan(out[3]));
  CHECK_EQ(kx_do(&r, AP_KB_ABS), AP_OK);
  CHECK(out[0] == 4 && out[3] == 9);
  CHECK_EQ(kx_do(&r, AP_KB_NEG), AP_OK);
  CHECK(out[0] == -4 && out[3] == 9);
  in[0] = 0, in[1] = 1, in[2] = -INFINITY, in[3] = 2;
  CHECK_EQ(kx_do(&r, AP_KB_EXP), AP_OK);
  CHECK(out[0] == 1 && out[1] == expf(1) && out[2] == 0 && out[3] == expf(2));
  in[0] = 1, in[1] = 0, in[2] = -1, in[3] = 8;
  CHECK_EQ(kx_do(&r, AP_KB_LOG), AP_OK);
  CHECK(out[0] == 0 && out[1] == -INFINITY && isnan(out[2]) && out[3] == logf(8));
  /* LEAKY_RELU: x > 0 ? x : alpha * x; 0 stays 0 (and -0 becomes -0 * alpha). */
  in[0] = 3, in[1] = 0, in[2] = -2, in[3] = -0.5f;
  r.opt.alpha = 0.25f;
  CHECK_EQ(kx_do(&r, AP_KB_LEAKY_RELU), AP_OK);
  CHECK(out[0] == 3 && out[1] == 0 && out[2] == -0.5f && out[3] == -0.125f);
  /* int32 ABS/NEG saturate at INT32_MIN instead of overflowing. */
  int32_t iv[3] = {-5, INT32_MIN, 7}, io[3];
  ti = kt(AP_INT32, iv, 1, 3, 0, 0, 0);
  to = kout(AP_INT32, io, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_ABS), AP_OK);
  CHECK(io[0] == 5 && io[1] == INT32_MAX && io[2] == 7);
  CHECK_EQ(kx_do(&r, AP_KB_NEG), AP_OK);
  CHECK(io[0] == 5 && io[1] == INT32_MAX && io[2] == -7);
  CHECK_EQ(kx_do(&r, AP_KB_SQRT), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "SQRT: unsupported type INT32");
  /* Zero-sized: prepare gives the empty shape, eval writes nothing. */
  ti = kt(AP_FLOAT32, in, 2, 0, 3, 0, 0);
  to = kout(AP_FLOAT32, out, 0, 0);
  out[0] = 42;
  CHECK_EQ(kx_do(&r, AP_KB_EXP), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 0 && to.dims[1] == 3 && out[0] == 42);
  to = kout(AP_INT32, out, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_EXP), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "EXP: output type INT32 differs from input FLOAT32");
  r.c.n_inputs = 0;
  CHECK_EQ(kx_do(&r, AP_KB_EXP), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "EXP: expected 1 to 1 inputs and 1 output");
}

static void test_div(void) {
  /* [2, 2] / [2] broadcasts along dim 0. */
  float a[4] = {1, 6, -3, 8}, b[2] = {2, 4}, out[4];
  ap_ktensor ta = kt(AP_FLOAT32, a, 2, 2, 2, 0, 0), tb = kt(AP_FLOAT32, b, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_DIV), AP_OK);
  float want[4] = {0.5f, 1.5f, -1.5f, 2};
  CHECK_ARRAY(out, want, 4);
  r.opt.activation = AP_KACT_RELU;
  CHECK_EQ(kx_do(&r, AP_KB_DIV), AP_OK);
  CHECK(out[2] == 0 && out[3] == 2);
  r.opt.activation = AP_KACT_TANH;
  CHECK_EQ(kx_do(&r, AP_KB_DIV), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "DIV: unsupported fused activation 4");
  r.opt.activation = AP_KACT_NONE;
  /* FLOOR_DIV rounds toward -inf; float division by zero is an error, as in TFLite. */
  CHECK_EQ(kx_do(&r, AP_KB_FLOOR_DIV), AP_OK);
  float wantf[4] = {0, 1, -2, 2};
  CHECK_ARRAY(out, wantf, 4);
  b[1] = 0;
  CHECK_EQ(kx_do(&r, AP_KB_FLOOR_DIV), AP_ERR_KERNEL);
  CHECK_STR(r.err.msg, "FLOOR_DIV: division by 0 at output element 1");
  /* float DIV by zero is IEEE inf, clamped like TFLite's activation range for NONE
   * ([lowest, max]) to FLT_MAX. */
  CHECK_EQ(kx_do(&r, AP_KB_DIV), AP_OK);
  CHECK(out[1] == FLT_MAX && out[3] == FLT_MAX);
  /* int32: DIV truncates, FLOOR_DIV floors. A scalar divisor broadcasts everywhere. */
  int32_t ia[4] = {7, -7, 6, INT32_MIN}, ib[1] = {2}, io[4];
  ta = kt(AP_INT32, ia, 1, 4, 0, 0, 0);
  tb = kt(AP_INT32, ib, 0, 0, 0, 0, 0);
  to = kout(AP_INT32, io, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_DIV), AP_OK);
  CHECK(to.rank == 1 && to.dims[0] == 4);
  int32_t wd[4] = {3, -3, 3, INT32_MIN / 2};
  CHECK_ARRAY(io, wd, 4);
  CHECK_EQ(kx_do(&r, AP_KB_FLOOR_DIV), AP_OK);
  int32_t wfd[4] = {3, -4, 3, INT32_MIN / 2};
  CHECK_ARRAY(io, wfd, 4);
  ib[0] = -1;
  CHECK_EQ(kx_do(&r, AP_KB_DIV), AP_ERR_KERNEL);
  CHECK_STR(r.err.msg, "DIV: INT32_MIN / -1 overflows at output element 3");
  CHECK_EQ(kx_do(&r, AP_KB_FLOOR_DIV), AP_ERR_KERNEL);
  CHECK_STR(r.err.msg, "FLOOR_DIV: INT32_MIN / -1 overflows at output element 3");
  ib[0] = 0;
  CHECK_EQ(kx_do(&r, AP_KB_DIV), AP_ERR_KERNEL);
  CHECK_STR(r.err.msg, "DIV: division by 0 at output element 0");
  /* Shapes that do not broadcast. */
  tb = kt(AP_INT32, ib, 1, 3, 0, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_DIV), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "DIV: shapes do not broadcast: dim 0 is 4 and 3");
  /* [2^31-1, 1, 1] against [1, 2^31-1, 2^31-1]: each input is fine (no data is touched in
   * prepare), the broadcast product overflows. */
  ta = kt(AP_INT32, NULL, 3, INT32_MAX, 1, 1, 0);
  tb = kt(AP_INT32, NULL, 3, 1, INT32_MAX, INT32_MAX, 0);
  CHECK_EQ(kx_do(&r, AP_KB_DIV), AP_ERR_OVERFLOW);
  CHECK_STR(r.err.msg, "DIV: the broadcast output is too large");
}

static void test_binary_math(void) {
  /* [2, 1] against [1, 3] -> [2, 3]. */
  float a[2] = {1, -2}, b[3] = {0, 3, -2}, out[6];
  ap_ktensor ta = kt(AP_FLOAT32, a, 2, 2, 1, 0, 0), tb = kt(AP_FLOAT32, b, 2, 1, 3, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_SQUARED_DIFFERENCE), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 3);
  float wsd[6] = {1, 4, 9, 4, 25, 0};
  CHECK_ARRAY(out, wsd, 6);
  CHECK_EQ(kx_do(&r, AP_KB_MAXIMUM), AP_OK);
  float wmax[6] = {1, 3, 1, 0, 3, -2};
  CHECK_ARRAY(out, wmax, 6);
  CHECK_EQ(kx_do(&r, AP_KB_MINIMUM), AP_OK);
  float wmin[6] = {0, 1, -2, -2, -2, -2};
  CHECK_ARRAY(out, wmin, 6);
  CHECK_EQ(kx_do(&r, AP_KB_POW), AP_OK);
  float wpow[6] = {1, 1, 1, 1, -8, 0.25f};
  CHECK_ARRAY(out, wpow, 6);
  /* int8 MAXIMUM compares raw values when the quantization is shared, and refuses otherwise. */
  int8_t qa[3] = {-128, 5, 127}, qb[1] = {0}, qo[3];
  ta = ktq(AP_INT8, qa, 1, 3, 0, 0, 0, 0.5f, -1);
  tb = ktq(AP_INT8, qb, 1, 1, 0, 0, 0, 0.5f, -1);
  to = kout(AP_INT8, qo, 0.5f, -1);
  CHECK_EQ(kx_do(&r, AP_KB_MAXIMUM), AP_OK);
  int8_t wq[3] = {0, 5, 127};
  CHECK_ARRAY(qo, wq, 3);
  CHECK_EQ(kx_do(&r, AP_KB_MINIMUM), AP_OK);
  int8_t wqm[3] = {-128, 0, 0};
  CHECK_ARRAY(qo, wqm, 3);
  to.scale = 0.25f;
  CHECK_EQ(kx_do(&r, AP_KB_MAXIMUM), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "MAXIMUM: quantized inputs must share the output's scale and zero point");
  CHECK_EQ(kx_do(&r, AP_KB_POW), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "POW: unsupported input types INT8 and INT8");
}

static void test_compare_select(void) {
  /* [3] against a scalar; BOOL output. */
  float a[3] = {1, 2, 3}, b[1] = {2};
  uint8_t out[3];
  ap_ktensor ta = kt(AP_FLOAT32, a, 1, 3, 0, 0, 0), tb = kt(AP_FLOAT32, b, 0, 0, 0, 0, 0);
  ap_ktensor to = kout(AP_BOOL, out, 0, 0);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_EQUAL), AP_OK);
  CHECK(to.rank == 1 && to.dims[0] == 3 && out[0] == 0 && out[1] == 1 && out[2] == 0);
  CHECK_EQ(kx_do(&r, AP_KB_LESS), AP_OK);
  CHECK(out[0] == 1 && out[1] == 0 && out[2] == 0);
  to.type = AP_FLOAT32;
  CHECK_EQ(kx_do(&r, AP_KB_LESS), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "LESS: output type FLOAT32, expected BOOL");
  /* int64 and bool EQUAL. */
  int64_t la[2] = {INT64_MIN, 5}, lb[2] = {INT64_MIN, 6};
  ta = kt(AP_INT64, la, 1, 2, 0, 0, 0);
  tb = kt(AP_INT64, lb, 1, 2, 0, 0, 0);
  to = kout(AP_BOOL, out, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_EQUAL), AP_OK);
  CHECK(out[0] == 1 && out[1] == 0);
  CHECK_EQ(kx_do(&r, AP_KB_LESS), AP_OK);
  CHECK(out[0] == 0 && out[1] == 1);
  /* SELECT_V2: condition [2, 1], x [2, 2], y scalar -> [2, 2]. */
  uint8_t cond[2] = {1, 0};
  float x[4] = {1, 2, 3, 4}, y[1] = {-1}, so[4];
  ap_ktensor tc = kt(AP_BOOL, cond, 2, 2, 1, 0, 0), tx = kt(AP_FLOAT32, x, 2, 2, 2, 0, 0);
  ap_ktensor ty = kt(AP_FLOAT32, y, 0, 0, 0, 0, 0), tso = kout(AP_FLOAT32, so, 0, 0);
  const ap_ktensor *sins[3] = {&tc, &tx, &ty};
  ap_ktensor *souts[1] = {&tso};
  kx_setup(&r, sins, 3, souts, 1);
  CHECK_EQ(kx_do(&r, AP_KB_SELECT_V2), AP_OK);
  CHECK(tso.rank == 2 && tso.dims[0] == 2 && tso.dims[1] == 2);
  float ws[4] = {1, 2, -1, -1};
  CHECK_ARRAY(so, ws, 4);
  tc.type = AP_INT8;
  CHECK_EQ(kx_do(&r, AP_KB_SELECT_V2), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SELECT_V2: condition is INT8, expected BOOL");
  tc.type = AP_BOOL;
  tc.dims[0] = 3;
  CHECK_EQ(kx_do(&r, AP_KB_SELECT_V2), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SELECT_V2: shapes do not broadcast: dim 0 is 3 and 2");
}

static void test_prelu(void) {
  /* [2, 2] with per-channel alpha [2]: negatives scaled by their column's alpha; 0 stays. */
  float x[4] = {-2, -2, 0, 3}, alpha[2] = {0.5f, 0.25f}, out[4];
  ap_ktensor tx = kt(AP_FLOAT32, x, 2, 2, 2, 0, 0), ta = kt(AP_FLOAT32, alpha, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[2] = {&tx, &ta};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_PRELU), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 2);
  float want[4] = {-1, -0.5f, 0, 3};
  CHECK_ARRAY(out, want, 4);
  ta.type = AP_INT8;
  CHECK_EQ(kx_do(&r, AP_KB_PRELU), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "PRELU: unsupported types FLOAT32, INT8 -> FLOAT32");
}

static void test_transpose_conv(void) {
  /* Input [1, 2, 1, 1] = {1, 2}, filter [1, 2, 1, 1] = {10, 1}, stride 2 along h, VALID:
   * output [1, 4, 1, 1]: pixel 0 scatters to rows 0-1 (10, 1), pixel 1 to rows 2-3 (20, 2). */
  int32_t shape[4] = {1, 4, 1, 1};
  float x[2] = {1, 2}, w[2] = {10, 1}, out[4];
  ap_ktensor ts = kt(AP_INT32, shape, 1, 4, 0, 0, 0), tw = kt(AP_FLOAT32, w, 4, 1, 2, 1, 1);
  ap_ktensor tx = kt(AP_FLOAT32, x, 4, 1, 2, 1, 1), to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[4] = {&ts, &tw, &tx, NULL};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 3, outs, 1);
  r.opt.conv = (ap_conv_options){AP_KPAD_VALID, 1, 2, 1, 1, AP_KACT_NONE, 0, 0};
  CHECK_EQ(kx_do(&r, AP_KB_TRANSPOSE_CONV), AP_OK);
  CHECK_DIMS4(to, 1, 4, 1, 1);
  float want[4] = {10, 1, 20, 2};
  CHECK_ARRAY(out, want, 4);
  /* Stride 1, output 3 rows: the windows overlap on row 1 (1 + 20); bias -5 then RELU. */
  shape[1] = 3;
  float bias[1] = {-5};
  ap_ktensor tb = kt(AP_FLOAT32, bias, 1, 1, 0, 0, 0);
  ins[3] = &tb;
  r.c.n_inputs = 4;
  r.opt.conv.stride_h = 1;
  r.opt.conv.activation = AP_KACT_RELU;
  CHECK_EQ(kx_do(&r, AP_KB_TRANSPOSE_CONV), AP_OK);
  CHECK_DIMS4(to, 1, 3, 1, 1);
  float want2[3] = {5, 16, 0}; /* {10, 21, 2} - 5, clamped at 0 */
  CHECK_ARRAY(out, want2, 3);
  /* SAME with stride 2 and output 4: padding as for a conv of 4 rows by 2 taps -> 0. */
  shape[1] = 4;
  r.opt.conv.padding = AP_KPAD_SAME;
  r.opt.conv.stride_h = 2;
  r.opt.conv.activation = AP_KACT_NONE;
  CHECK_EQ(kx_do(&r, AP_KB_TRANSPOSE_CONV), AP_OK);
  float want3[4] = {5, -4, 15, -3};
  CHECK_ARRAY(out, want3, 4);
  /* output_shape unknown: the declared output shape stands (TFLite Micro reads only that);
   * without one, nothing says the output's size. */
  ts.data = NULL;
  CHECK_EQ(kx_do(&r, AP_KB_TRANSPOSE_CONV), AP_OK);
  CHECK_DIMS4(to, 1, 4, 1, 1);
  CHECK_ARRAY(out, want3, 4);
  to.rank = 0;
  CHECK_EQ(kx_do(&r, AP_KB_TRANSPOSE_CONV), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "TRANSPOSE_CONV: unsupported output_shape: it must be a constant INT32 [4]");
}

static void test_batch_matmul(void) {
  /* lhs [2, 1, 2] (two batches of a 1x2 row), rhs [2, 2] shared by both batches -> [2, 1, 2].
   * Batch 0: [1, 2] x [[1, 2], [3, 4]] = [7, 10]; batch 1: [-1, 1] x ... = [2, 2]. */
  float a[4] = {1, 2, -1, 1}, b[4] = {1, 2, 3, 4}, out[4];
  ap_ktensor ta = kt(AP_FLOAT32, a, 3, 2, 1, 2, 0), tb = kt(AP_FLOAT32, b, 2, 2, 2, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_BATCH_MATMUL), AP_OK);
  CHECK(to.rank == 3 && to.dims[0] == 2 && to.dims[1] == 1 && to.dims[2] == 2);
  float want[4] = {7, 10, 2, 2};
  CHECK_ARRAY(out, want, 4);
  /* adj_y reads rhs transposed: [[1, 3], [2, 4]] -> batch 0: [1*1 + 2*2, 1*3 + 2*4]. */
  r.opt.adj_y = true;
  CHECK_EQ(kx_do(&r, AP_KB_BATCH_MATMUL), AP_OK);
  float want_y[4] = {5, 11, 1, 1};
  CHECK_ARRAY(out, want_y, 4);
  /* adj_x: lhs [2, 2, 1] read as [2, 1, 2] transposed, same products as the first case. */
  r.opt.adj_y = false;
  r.opt.adj_x = true;
  ta = kt(AP_FLOAT32, a, 3, 2, 2, 1, 0);
  CHECK_EQ(kx_do(&r, AP_KB_BATCH_MATMUL), AP_OK);
  CHECK_ARRAY(out, want, 4);
  r.opt.adj_x = false;
  CHECK_EQ(kx_do(&r, AP_KB_BATCH_MATMUL), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "BATCH_MATMUL: inner dims differ: 1 and 2");
  /* Empty inner dim: every output is the empty sum, 0. */
  ta = kt(AP_FLOAT32, a, 2, 2, 0, 0, 0);
  tb = kt(AP_FLOAT32, b, 2, 0, 2, 0, 0);
  out[0] = 9;
  CHECK_EQ(kx_do(&r, AP_KB_BATCH_MATMUL), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 2 && out[0] == 0 && out[3] == 0);
}

int main(void) {
  test_prelu();
  test_batch_matmul();
  test_transpose_conv();
  test_unary();
  test_div();
  test_binary_math();
  test_compare_select();
  return ap_test_done();
}
