/* SPLIT, SPLIT_V, SQUEEZE, EXPAND_DIMS, FILL, ZEROS_LIKE, BROADCAST_TO, BROADCAST_ARGS:
 * hand-worked outputs, negative axes, zero-sized dims, rank 1 to the kernels' limit of 6, and
 * the refusals (counts that do not divide, values unknown before running, malformed shapes). */
#include "kernels/kops_datamove.h"
#include "kxtest.h"

static ap_ktensor kt6(int type, void *data, int rank, const int32_t *dims) {
  return ap_ktensor_make(type, data, rank, dims);
}

static void test_split(void) {
  /* [2, 6] split 3 ways along axis -1: [[0 1][6 7]], [[2 3][8 9]], [[4 5][10 11]]. */
  int32_t v[12], o[3][4], axis = -1;
  for (int i = 0; i < 12; i++)
    v[i] = i;
  ap_ktensor ta = kt(AP_INT32, &axis, 0, 0, 0, 0, 0), tv = kt(AP_INT32, v, 2, 2, 6, 0, 0);
  ap_ktensor to[3] = {kout(AP_INT32, o[0], 0, 0), kout(AP_INT32, o[1], 0, 0),
                      kout(AP_INT32, o[2], 0, 0)};
  const ap_ktensor *ins[2] = {&ta, &tv};
  ap_ktensor *outs[3] = {&to[0], &to[1], &to[2]};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 3);
  CHECK_EQ(kx_do(&r, AP_KB_SPLIT), AP_OK);
  CHECK(to[2].rank == 2 && to[2].dims[0] == 2 && to[2].dims[1] == 2);
  int32_t w0[4] = {0, 1, 6, 7}, w2[4] = {4, 5, 10, 11};
  CHECK_ARRAY(o[0], w0, 4);
  CHECK_ARRAY(o[2], w2, 4);
  /* num_splits, when stored, must be the number of outputs. */
  r.opt.num_splits = 2;
  CHECK_EQ(kx_do(&r, AP_KB_SPLIT), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SPLIT: num_splits 2 but 3 outputs");
  r.opt.num_splits = 0;
  /* 2 rows do not split 3 ways. */
  axis = 0;
  CHECK_EQ(kx_do(&r, AP_KB_SPLIT), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SPLIT: dim 0 of size 2 does not split into 3");
  axis = 2;
  CHECK_EQ(kx_do(&r, AP_KB_SPLIT), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SPLIT: axis 2 out of range for rank 2");
  /* An axis not known before running: refused (it decides the output shapes). */
  ta.data = NULL;
  CHECK_EQ(kx_do(&r, AP_KB_SPLIT), AP_ERR_UNSUPPORTED);
  ta.data = &axis;
  /* Zero-sized: [0, 6] along axis 1 gives three [0, 2], nothing written. */
  axis = 1;
  tv.dims[0] = 0;
  o[0][0] = 99;
  CHECK_EQ(kx_do(&r, AP_KB_SPLIT), AP_OK);
  CHECK(to[0].dims[0] == 0 && to[0].dims[1] == 2 && o[0][0] == 99);
  /* Rank 6, split along the last axis by an INT64 axis. */
  int32_t d6[6] = {1, 2, 1, 1, 1, 6};
  int64_t axis64 = 5;
  ap_ktensor t6 = kt6(AP_INT32, v, 6, d6), ta64 = kt(AP_INT64, &axis64, 1, 1, 0, 0, 0);
  ins[0] = &ta64, ins[1] = &t6;
  CHECK_EQ(kx_do(&r, AP_KB_SPLIT), AP_OK);
  CHECK(to[1].rank == 6 && to[1].dims[1] == 2 && to[1].dims[5] == 2);
  int32_t w1[4] = {2, 3, 8, 9};
  CHECK_ARRAY(o[1], w1, 4);
  /* Eval with outputs that do not tile the input: refused, nothing written. */
  to[1].dims[5] = 3;
  CHECK_EQ(ap_kernel_find(AP_KB_SPLIT)->eval(&r.c), AP_ERR_ARG);
  /* Wrong arity: one input. */
  kx_setup(&r, ins, 1, outs, 3);
  CHECK_EQ(kx_do(&r, AP_KB_SPLIT), AP_ERR_FORMAT);
}

static void test_split_v(void) {
  /* [5] into sizes [1, -1, 2]: the -1 takes the remaining 2. */
  float v[5] = {1, 2, 3, 4, 5}, o0[1], o1[2], o2[2];
  int32_t sizes[3] = {1, -1, 2}, axis = 0;
  ap_ktensor tv = kt(AP_FLOAT32, v, 1, 5, 0, 0, 0), ts = kt(AP_INT32, sizes, 1, 3, 0, 0, 0);
  ap_ktensor ta = kt(AP_INT32, &axis, 1, 1, 0, 0, 0);
  ap_ktensor to[3] = {kout(AP_FLOAT32, o0, 0, 0), kout(AP_FLOAT32, o1, 0, 0),
                      kout(AP_FLOAT32, o2, 0, 0)};
  const ap_ktensor *ins[3] = {&tv, &ts, &ta};
  ap_ktensor *outs[3] = {&to[0], &to[1], &to[2]};
  kx_run r;
  kx_setup(&r, ins, 3, outs, 3);
  CHECK_EQ(kx_do(&r, AP_KB_SPLIT_V), AP_OK);
  CHECK(to[0].dims[0] == 1 && to[1].dims[0] == 2 && to[2].dims[0] == 2);
  CHECK(o0[0] == 1 && o1[0] == 2 && o1[1] == 3 && o2[0] == 4 && o2[1] == 5);
  /* Sizes that do not add up, two -1s, or too few sizes: errors. */
  sizes[1] = 1;
  CHECK_EQ(kx_do(&r, AP_KB_SPLIT_V), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SPLIT_V: size_splits add up to 4, the dim 0 has 5 elements");
  sizes[0] = -1, sizes[1] = -1;
  CHECK_EQ(kx_do(&r, AP_KB_SPLIT_V), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SPLIT_V: size_splits[1] is -1");
  ts.dims[0] = 2;
  CHECK_EQ(kx_do(&r, AP_KB_SPLIT_V), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SPLIT_V: 2 size_splits for 3 outputs");
}

static void test_squeeze_expand(void) {
  /* [1, 2, 1, 3]: every dim of 1 goes, or only the listed ones (negative counts back). */
  int8_t v[6] = {1, 2, 3, 4, 5, 6}, o[6];
  ap_ktensor tv = kt(AP_INT8, v, 4, 1, 2, 1, 3), to = kout(AP_INT8, o, 0, 0);
  const ap_ktensor *ins[2] = {&tv, NULL};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_SQUEEZE), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 3);
  CHECK_ARRAY(o, v, 6);
  int32_t sd[1] = {-2};
  r.opt.squeeze_dims = sd, r.opt.squeeze_dims_n = 1;
  CHECK_EQ(kx_do(&r, AP_KB_SQUEEZE), AP_OK);
  CHECK(to.rank == 3 && to.dims[0] == 1 && to.dims[1] == 2 && to.dims[2] == 3);
  sd[0] = 1; /* a dim of 2 */
  CHECK_EQ(kx_do(&r, AP_KB_SQUEEZE), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SQUEEZE: squeeze_dims[0] = 1 is not a dim of size 1");
  sd[0] = 4;
  CHECK_EQ(kx_do(&r, AP_KB_SQUEEZE), AP_ERR_FORMAT);
  r.opt.squeeze_dims_n = 0;
  /* Rank 6 of ones squeezes to a scalar; in place (output on the input's bytes) is a no-op. */
  int32_t ones[6] = {1, 1, 1, 1, 1, 1};
  ap_ktensor t6 = kt6(AP_INT8, v, 6, ones), tin = kout(AP_INT8, v, 0, 0);
  ins[0] = &t6, outs[0] = &tin;
  CHECK_EQ(kx_do(&r, AP_KB_SQUEEZE), AP_OK);
  CHECK(tin.rank == 0 && v[0] == 1);
  /* EXPAND_DIMS of [2, 3]: axis -1 appends, 0 prepends, 3 is out of range. */
  int32_t axis = -1;
  ap_ktensor ta = kt(AP_INT32, &axis, 0, 0, 0, 0, 0);
  tv = kt(AP_INT8, v, 2, 2, 3, 0, 0);
  ins[0] = &tv, ins[1] = &ta, outs[0] = &to;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_EXPAND_DIMS), AP_OK);
  CHECK(to.rank == 3 && to.dims[0] == 2 && to.dims[1] == 3 && to.dims[2] == 1);
  CHECK_ARRAY(o, v, 6);
  axis = 0;
  CHECK_EQ(kx_do(&r, AP_KB_EXPAND_DIMS), AP_OK);
  CHECK(to.rank == 3 && to.dims[0] == 1 && to.dims[1] == 2);
  axis = 3;
  CHECK_EQ(kx_do(&r, AP_KB_EXPAND_DIMS), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "EXPAND_DIMS: axis 3 out of range for rank 2");
  /* Rank 6 has no room for another dim. */
  axis = 0;
  ins[0] = &t6;
  CHECK_EQ(kx_do(&r, AP_KB_EXPAND_DIMS), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "EXPAND_DIMS: output rank 7 exceeds 6");
}

static void test_fill_zeros(void) {
  /* FILL [2, 3] with int8 7; dims zero-sized gives an empty output. */
  int32_t dims[2] = {2, 3};
  int8_t val = 7, o[6];
  ap_ktensor td = kt(AP_INT32, dims, 1, 2, 0, 0, 0), tv = kt(AP_INT8, &val, 0, 0, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, o, 0, 0);
  const ap_ktensor *ins[2] = {&td, &tv};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_FILL), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 3);
  int8_t w[6] = {7, 7, 7, 7, 7, 7};
  CHECK_ARRAY(o, w, 6);
  dims[0] = 0;
  o[0] = 1;
  CHECK_EQ(kx_do(&r, AP_KB_FILL), AP_OK);
  CHECK(to.dims[0] == 0 && o[0] == 1);
  dims[0] = -1;
  CHECK_EQ(kx_do(&r, AP_KB_FILL), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "FILL: dims[0] is -1");
  /* The value must be a scalar of the output's type; dims unknown: refused (dynamic op). */
  dims[0] = 2;
  tv.rank = 1, tv.dims[0] = 1;
  CHECK_EQ(kx_do(&r, AP_KB_FILL), AP_ERR_FORMAT);
  tv.rank = 0;
  to.type = AP_INT16;
  CHECK_EQ(kx_do(&r, AP_KB_FILL), AP_ERR_UNSUPPORTED);
  to.type = AP_INT8;
  td.data = NULL;
  CHECK_EQ(kx_do(&r, AP_KB_FILL), AP_ERR_UNSUPPORTED);
  /* ZEROS_LIKE of float [3] (NaN and -0 in): +0.0 bit patterns. */
  float f[3] = {NAN, -0.0f, 5}, fo[3] = {1, 1, 1};
  ap_ktensor tf = kt(AP_FLOAT32, f, 1, 3, 0, 0, 0), tfo = kout(AP_FLOAT32, fo, 0, 0);
  ins[0] = &tf, outs[0] = &tfo;
  kx_setup(&r, ins, 1, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_ZEROS_LIKE), AP_OK);
  CHECK(tfo.rank == 1 && tfo.dims[0] == 3 && !signbit(fo[1]) && fo[0] == 0 && fo[2] == 0);
}

static void test_broadcast(void) {
  /* [2, 1] to [2, 3]: rows repeat; [3] to [2, 3]: the vector repeats. */
  int16_t v[3] = {1, 2, 3}, o[6];
  int32_t shape[2] = {2, 3};
  ap_ktensor tv = kt(AP_INT16, v, 2, 2, 1, 0, 0), ts = kt(AP_INT32, shape, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_INT16, o, 0, 0);
  const ap_ktensor *ins[2] = {&tv, &ts};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_BROADCAST_TO), AP_OK);
  int16_t w1[6] = {1, 1, 1, 2, 2, 2};
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 3);
  CHECK_ARRAY(o, w1, 6);
  tv = kt(AP_INT16, v, 1, 3, 0, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_BROADCAST_TO), AP_OK);
  int16_t w2[6] = {1, 2, 3, 1, 2, 3};
  CHECK_ARRAY(o, w2, 6);
  /* [2, 1, 2] to [2, 3, 2]: the inner pairs repeat as blocks. */
  int16_t v4[4] = {1, 2, 3, 4}, o12[12];
  int32_t shape3[3] = {2, 3, 2};
  ap_ktensor t4 = kt(AP_INT16, v4, 3, 2, 1, 2, 0), ts3 = kt(AP_INT32, shape3, 1, 3, 0, 0, 0);
  ap_ktensor to12 = kout(AP_INT16, o12, 0, 0);
  const ap_ktensor *ins3[2] = {&t4, &ts3};
  ap_ktensor *outs3[1] = {&to12};
  kx_run r3;
  kx_setup(&r3, ins3, 2, outs3, 1);
  CHECK_EQ(kx_do(&r3, AP_KB_BROADCAST_TO), AP_OK);
  int16_t w4[12] = {1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4};
  CHECK_ARRAY(o12, w4, 12);
  /* The same shape: one copy. */
  shape3[1] = 1;
  CHECK_EQ(kx_do(&r3, AP_KB_BROADCAST_TO), AP_OK);
  CHECK_ARRAY(o12, v4, 4);
  /* 3 does not broadcast to 2; a shorter target; a zero-sized target from a dim of 1. */
  shape[1] = 2;
  CHECK_EQ(kx_do(&r, AP_KB_BROADCAST_TO), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "BROADCAST_TO: dim 1 of 3 cannot broadcast to 2");
  tv = kt(AP_INT16, v, 2, 1, 3, 0, 0);
  shape[0] = 0, shape[1] = 3;
  CHECK_EQ(kx_do(&r, AP_KB_BROADCAST_TO), AP_OK);
  CHECK(to.dims[0] == 0 && to.dims[1] == 3);
  /* Rank 6 from a scalar. */
  int64_t s6[6] = {1, 2, 1, 1, 1, 3};
  ap_ktensor ts6 = kt(AP_INT64, s6, 1, 6, 0, 0, 0), tsc = kt(AP_INT16, v + 2, 0, 0, 0, 0, 0);
  ins[0] = &tsc, ins[1] = &ts6;
  CHECK_EQ(kx_do(&r, AP_KB_BROADCAST_TO), AP_OK);
  int16_t w3[6] = {3, 3, 3, 3, 3, 3};
  CHECK(to.rank == 6 && to.dims[5] == 3);
  CHECK_ARRAY(o, w3, 6);
  /* BROADCAST_ARGS: [2, 1] and [3] give [2, 3]; [2, 4] and [3] do not broadcast (at eval,
   * where the values are read). */
  int64_t a[2] = {2, 1}, b[1] = {3}, ab[2];
  ap_ktensor ta = kt(AP_INT64, a, 1, 2, 0, 0, 0), tb = kt(AP_INT64, b, 1, 1, 0, 0, 0);
  ap_ktensor tab = kout(AP_INT64, ab, 0, 0);
  ins[0] = &tb, ins[1] = &ta, outs[0] = &tab;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_BROADCAST_ARGS), AP_OK);
  CHECK(tab.rank == 1 && tab.dims[0] == 2 && ab[0] == 2 && ab[1] == 3);
  a[1] = 4;
  CHECK_EQ(kx_do(&r, AP_KB_BROADCAST_ARGS), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "BROADCAST_ARGS: dims 3 and 4 (0 from the end) do not broadcast");
  tab.type = AP_INT32;
  CHECK_EQ(kx_do(&r, AP_KB_BROADCAST_ARGS), AP_ERR_UNSUPPORTED);
}

int main(void) {
  test_split();
  test_split_v();
  test_squeeze_expand();
  test_fill_zeros();
  test_broadcast();
  return ap_test_done();
}
