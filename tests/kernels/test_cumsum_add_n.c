/* CUMSUM and ADD_N: float sums in TFLite's order, exclusive and reverse scans, and the int8
 * path worked by hand: with scales 1 the rescales are exact, so outputs are sums saturated to
 * int8, plus TFLite's start from the scaled input offset (a sum of k values carries one extra
 * -zero_point). */
#include "kernels/kops_datamove.h"
#include "kxtest.h"

static ap_status run(kx_run *r, int32_t builtin, const ap_ktensor *const *ins, int n_in,
                     ap_ktensor *out) {
  ap_ktensor *outs[1] = {out};
  ap_kop_options opt = r->opt;
  kx_setup(r, ins, n_in, outs, 1);
  r->opt = opt;
  return kx_do(r, builtin);
}

static void test_cumsum_float(void) {
  float v[6] = {1, 2, 3, 4, 5, 6}, o[6];
  int32_t axis = 1;
  ap_ktensor tv = kt(AP_FLOAT32, v, 2, 2, 3, 0, 0), ta = kt(AP_INT32, &axis, 0, 0, 0, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, o, 0, 0);
  const ap_ktensor *ins[2] = {&tv, &ta};
  kx_run r;
  memset(&r, 0, sizeof r);
  CHECK_EQ(run(&r, AP_KB_CUMSUM, ins, 2, &to), AP_OK);
  float w[6] = {1, 3, 6, 4, 9, 15};
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 3);
  CHECK_ARRAY(o, w, 6);
  r.opt.exclusive = true;
  CHECK_EQ(run(&r, AP_KB_CUMSUM, ins, 2, &to), AP_OK);
  float we[6] = {0, 1, 3, 0, 4, 9};
  CHECK_ARRAY(o, we, 6);
  r.opt.reverse = true;
  CHECK_EQ(run(&r, AP_KB_CUMSUM, ins, 2, &to), AP_OK);
  float wer[6] = {5, 3, 0, 11, 6, 0};
  CHECK_ARRAY(o, wer, 6);
  r.opt.exclusive = false;
  CHECK_EQ(run(&r, AP_KB_CUMSUM, ins, 2, &to), AP_OK);
  float wr[6] = {6, 5, 3, 15, 11, 6};
  CHECK_ARRAY(o, wr, 6);
  /* Axis -2 is axis 0: down the columns. */
  r.opt.reverse = false;
  axis = -2;
  CHECK_EQ(run(&r, AP_KB_CUMSUM, ins, 2, &to), AP_OK);
  float w0[6] = {1, 2, 3, 5, 7, 9};
  CHECK_ARRAY(o, w0, 6);
  /* Axis out of range (in prepare when known, and at eval); a scalar input; an INT64 axis. */
  axis = 2;
  CHECK_EQ(run(&r, AP_KB_CUMSUM, ins, 2, &to), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "CUMSUM: axis 2 out of range for rank 2");
  axis = 0;
  tv.rank = 0;
  CHECK_EQ(run(&r, AP_KB_CUMSUM, ins, 2, &to), AP_ERR_FORMAT);
  tv.rank = 2;
  ta.type = AP_INT64;
  CHECK_EQ(run(&r, AP_KB_CUMSUM, ins, 2, &to), AP_ERR_FORMAT);
  /* Zero-sized: nothing to write. */
  ta.type = AP_INT32;
  tv.dims[1] = 0;
  o[0] = 42;
  CHECK_EQ(run(&r, AP_KB_CUMSUM, ins, 2, &to), AP_OK);
  CHECK(o[0] == 42);
}

static void test_cumsum_int8(void) {
  /* Scales 1, zero points 0: [100 50 -20] sums to [100 150 130], saturated to 127. */
  int8_t v[3] = {100, 50, -20}, o[3];
  int32_t axis = 0;
  ap_ktensor tv = ktq(AP_INT8, v, 1, 3, 0, 0, 0, 1.0f, 0), ta = kt(AP_INT32, &axis, 1, 1, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, o, 1.0f, 0);
  const ap_ktensor *ins[2] = {&tv, &ta};
  kx_run r;
  memset(&r, 0, sizeof r);
  CHECK_EQ(run(&r, AP_KB_CUMSUM, ins, 2, &to), AP_OK);
  int8_t w[3] = {100, 127, 127};
  CHECK_ARRAY(o, w, 3);
  /* Zero points 1: values 3, 5 are 2, 4; TFLite's sum starts at -1 (the offset), so the
   * outputs are 1 + 2 - 1 = 2 and 1 + 6 - 1 = 6; exclusive: 1 - 1 = 0, then 2. */
  v[0] = 3, v[1] = 5;
  tv = ktq(AP_INT8, v, 1, 2, 0, 0, 0, 1.0f, 1);
  to = kout(AP_INT8, o, 1.0f, 1);
  CHECK_EQ(run(&r, AP_KB_CUMSUM, ins, 2, &to), AP_OK);
  CHECK(o[0] == 2 && o[1] == 6);
  r.opt.exclusive = true;
  CHECK_EQ(run(&r, AP_KB_CUMSUM, ins, 2, &to), AP_OK);
  CHECK(o[0] == 0 && o[1] == 2);
  /* An output scale so small the rescale reaches 1: refused, not miscomputed. */
  to.scale = 1e-7f;
  CHECK_EQ(run(&r, AP_KB_CUMSUM, ins, 2, &to), AP_ERR_UNSUPPORTED);
  to.scale = 0;
  CHECK_EQ(run(&r, AP_KB_CUMSUM, ins, 2, &to), AP_ERR_FORMAT);
}

static void test_add_n(void) {
  float a[2] = {1, 2}, b[2] = {3, 4}, c[2] = {5, 6}, o[2];
  ap_ktensor ta = kt(AP_FLOAT32, a, 1, 2, 0, 0, 0), tb = kt(AP_FLOAT32, b, 1, 2, 0, 0, 0);
  ap_ktensor tc = kt(AP_FLOAT32, c, 1, 2, 0, 0, 0), to = kout(AP_FLOAT32, o, 0, 0);
  const ap_ktensor *ins[3] = {&ta, &tb, &tc};
  kx_run r;
  memset(&r, 0, sizeof r);
  CHECK_EQ(run(&r, AP_KB_ADD_N, ins, 3, &to), AP_OK);
  CHECK(to.rank == 1 && to.dims[0] == 2 && o[0] == 9 && o[1] == 12);
  /* Shapes that differ; a single input. */
  tc.dims[0] = 1;
  CHECK_EQ(run(&r, AP_KB_ADD_N, ins, 3, &to), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "ADD_N: input 2 differs from input 0 in type or shape");
  CHECK_EQ(run(&r, AP_KB_ADD_N, ins, 1, &to), AP_ERR_FORMAT);
  ins[2] = NULL; /* an absent third input */
  CHECK_EQ(run(&r, AP_KB_ADD_N, ins, 3, &to), AP_ERR_FORMAT);
  ins[2] = &tc;
  /* int32 wraps as TFLite's adds do. */
  int32_t x = INT32_MAX, y = 1, z;
  ap_ktensor tx = kt(AP_INT32, &x, 0, 0, 0, 0, 0), ty = kt(AP_INT32, &y, 0, 0, 0, 0, 0);
  ap_ktensor tz = kout(AP_INT32, &z, 0, 0);
  const ap_ktensor *iins[2] = {&tx, &ty};
  CHECK_EQ(run(&r, AP_KB_ADD_N, iins, 2, &tz), AP_OK);
  CHECK(tz.rank == 0 && z == INT32_MIN);
  /* int8, scales 1, zero points 0: 100 + 50 - 20 saturates at 127; -100 - 50 at -128. */
  int8_t p[2] = {100, -100}, q[2] = {50, -50}, s[2] = {-20, 0}, qo[2];
  ap_ktensor tp = ktq(AP_INT8, p, 1, 2, 0, 0, 0, 1.0f, 0),
             tq = ktq(AP_INT8, q, 1, 2, 0, 0, 0, 1.0f, 0);
  ap_ktensor ts = ktq(AP_INT8, s, 1, 2, 0, 0, 0, 1.0f, 0), tqo = kout(AP_INT8, qo, 1.0f, 0);
  const ap_ktensor *qins[3] = {&tp, &tq, &ts};
  CHECK_EQ(run(&r, AP_KB_ADD_N, qins, 3, &tqo), AP_OK);
  CHECK(qo[0] == 127 && qo[1] == -128);
  /* Output scale 2: 130 / 2 = 65; (-150) / 2 = -75. */
  tqo.scale = 2.0f;
  CHECK_EQ(run(&r, AP_KB_ADD_N, qins, 3, &tqo), AP_OK);
  CHECK(qo[0] == 65 && qo[1] == -75);
  /* int8 inputs must share quantization. */
  tq.scale = 0.5f;
  CHECK_EQ(run(&r, AP_KB_ADD_N, qins, 3, &tqo), AP_ERR_UNSUPPORTED);
}

int main(void) {
  test_cumsum_float();
  test_cumsum_int8();
  test_add_n();
  return ap_test_done();
}
