/* SPACE_TO_DEPTH, DEPTH_TO_SPACE, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, MIRROR_PAD,
 * DYNAMIC_UPDATE_SLICE, RESIZE_NEAREST_NEIGHBOR, EMBEDDING_LOOKUP and GATHER with batch_dims:
 * hand-worked outputs, clamping and padding at the edges, and the refusals (blocks that do not
 * divide, out-of-range ids and indices: errors, never a read outside the input). */
#include "kernels/kops_datamove.h"
#include "kxtest.h"

static ap_status run1(kx_run *r, int32_t builtin, const ap_ktensor *const *ins, int n_in,
                      ap_ktensor *out) {
  ap_ktensor *outs[1] = {out};
  ap_kop_options opt = r->opt;
  kx_setup(r, ins, n_in, outs, 1);
  r->opt = opt;
  return kx_do(r, builtin);
}

static void test_space_depth(void) {
  /* [1, 4, 4, 1] of 0..15 in blocks of 2: each 2x2 block becomes one pixel's 4 channels. */
  int8_t v[16], d[16], back[16];
  for (int i = 0; i < 16; i++)
    v[i] = (int8_t)i;
  ap_ktensor tv = kt(AP_INT8, v, 4, 1, 4, 4, 1), td = kout(AP_INT8, d, 0, 0);
  const ap_ktensor *ins[1] = {&tv};
  kx_run r;
  memset(&r, 0, sizeof r);
  r.opt.block_size = 2;
  CHECK_EQ(run1(&r, AP_KB_SPACE_TO_DEPTH, ins, 1, &td), AP_OK);
  CHECK_DIMS4(td, 1, 2, 2, 4);
  int8_t w[16] = {0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15};
  CHECK_ARRAY(d, w, 16);
  /* DEPTH_TO_SPACE undoes it. */
  ap_ktensor tb = kout(AP_INT8, back, 0, 0);
  ins[0] = &td;
  CHECK_EQ(run1(&r, AP_KB_DEPTH_TO_SPACE, ins, 1, &tb), AP_OK);
  CHECK_DIMS4(tb, 1, 4, 4, 1);
  CHECK_ARRAY(back, v, 16);
  /* 4 channels do not make blocks of 3x3; 4 rows do not divide by 3; block 0 is invalid. */
  r.opt.block_size = 3;
  CHECK_EQ(run1(&r, AP_KB_DEPTH_TO_SPACE, ins, 1, &tb), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "DEPTH_TO_SPACE: 4 channels do not divide into blocks of 9");
  ins[0] = &tv;
  CHECK_EQ(run1(&r, AP_KB_SPACE_TO_DEPTH, ins, 1, &td), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SPACE_TO_DEPTH: 4 x 4 does not divide into blocks of 3");
  r.opt.block_size = 0;
  CHECK_EQ(run1(&r, AP_KB_SPACE_TO_DEPTH, ins, 1, &td), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SPACE_TO_DEPTH: block_size 0 is invalid");
  /* A huge block over a zero-sized input: refused, no overflow in the channel count. */
  r.opt.block_size = INT32_MAX / 2;
  tv.dims[1] = 0, tv.dims[2] = 0;
  CHECK_EQ(run1(&r, AP_KB_SPACE_TO_DEPTH, ins, 1, &td), AP_ERR_FORMAT);
  tv.dims[1] = 4, tv.dims[2] = 4;
  /* Not 4-D. */
  tv.rank = 3;
  r.opt.block_size = 2;
  CHECK_EQ(run1(&r, AP_KB_SPACE_TO_DEPTH, ins, 1, &td), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SPACE_TO_DEPTH: input has rank 3, expected 4 to 4");
}

static void test_space_batch(void) {
  /* [1, 2, 4, 1] of 0..7, blocks [2, 2], no padding: batch b takes rows b / 2, cols b % 2. */
  float v[8] = {0, 1, 2, 3, 4, 5, 6, 7}, o[8], back[8];
  int32_t block[2] = {2, 2}, pads[4] = {0, 0, 0, 0};
  ap_ktensor tv = kt(AP_FLOAT32, v, 4, 1, 2, 4, 1), tbl = kt(AP_INT32, block, 1, 2, 0, 0, 0);
  ap_ktensor tp = kt(AP_INT32, pads, 2, 2, 2, 0, 0), to = kout(AP_FLOAT32, o, 0, 0);
  const ap_ktensor *ins[3] = {&tv, &tbl, &tp};
  kx_run r;
  memset(&r, 0, sizeof r);
  CHECK_EQ(run1(&r, AP_KB_SPACE_TO_BATCH_ND, ins, 3, &to), AP_OK);
  CHECK_DIMS4(to, 4, 1, 2, 1);
  float w[8] = {0, 2, 1, 3, 4, 6, 5, 7};
  CHECK_ARRAY(o, w, 8);
  /* BATCH_TO_SPACE_ND undoes it; cropping a column each side keeps cols 1..2. */
  ap_ktensor tb = kout(AP_FLOAT32, back, 0, 0);
  ins[0] = &to;
  CHECK_EQ(run1(&r, AP_KB_BATCH_TO_SPACE_ND, ins, 3, &tb), AP_OK);
  CHECK_DIMS4(tb, 1, 2, 4, 1);
  CHECK_ARRAY(back, v, 8);
  pads[2] = 1, pads[3] = 1;
  CHECK_EQ(run1(&r, AP_KB_BATCH_TO_SPACE_ND, ins, 3, &tb), AP_OK);
  CHECK_DIMS4(tb, 1, 2, 2, 1);
  float wc[4] = {1, 2, 5, 6};
  CHECK_ARRAY(back, wc, 4);
  /* Padding a row on top of [1, 1, 2, 1]: the first two batches are all padding (zero). */
  float v2[2] = {1, 2};
  int32_t pads2[4] = {1, 0, 0, 0};
  tv = kt(AP_FLOAT32, v2, 4, 1, 1, 2, 1);
  tp = kt(AP_INT32, pads2, 2, 2, 2, 0, 0);
  ins[0] = &tv;
  CHECK_EQ(run1(&r, AP_KB_SPACE_TO_BATCH_ND, ins, 3, &to), AP_OK);
  CHECK_DIMS4(to, 4, 1, 1, 1);
  float w2[4] = {0, 0, 1, 2};
  CHECK_ARRAY(o, w2, 4);
  /* Rank 3 ([batch, height, channels]) with one block dim. */
  float v3[4] = {1, 2, 3, 4};
  int32_t b3[1] = {2}, p3[2] = {0, 0};
  ap_ktensor t3 = kt(AP_FLOAT32, v3, 3, 1, 4, 1, 0), tb3 = kt(AP_INT32, b3, 1, 1, 0, 0, 0);
  ap_ktensor tp3 = kt(AP_INT32, p3, 2, 1, 2, 0, 0);
  const ap_ktensor *ins3[3] = {&t3, &tb3, &tp3};
  CHECK_EQ(run1(&r, AP_KB_SPACE_TO_BATCH_ND, ins3, 3, &to), AP_OK);
  CHECK(to.rank == 3 && to.dims[0] == 2 && to.dims[1] == 2 && to.dims[2] == 1);
  float w3[4] = {1, 3, 2, 4};
  CHECK_ARRAY(o, w3, 4);
  /* 4 rows padded to 5 do not divide by 2; a block of 0; 3 batches do not divide by 2. */
  p3[1] = 1;
  CHECK_EQ(run1(&r, AP_KB_SPACE_TO_BATCH_ND, ins3, 3, &to), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SPACE_TO_BATCH_ND: dim 1: 5 padded does not divide by 2");
  p3[1] = 0, b3[0] = 0;
  CHECK_EQ(run1(&r, AP_KB_SPACE_TO_BATCH_ND, ins3, 3, &to), AP_ERR_FORMAT);
  b3[0] = 2;
  t3.dims[0] = 3;
  CHECK_EQ(run1(&r, AP_KB_BATCH_TO_SPACE_ND, ins3, 3, &to), AP_ERR_FORMAT);
  /* Padding past INT32_MAX with a block of 1: too large, not truncated. */
  b3[0] = 1, p3[1] = INT32_MAX;
  t3.dims[0] = 1;
  CHECK_EQ(run1(&r, AP_KB_SPACE_TO_BATCH_ND, ins3, 3, &to), AP_ERR_OVERFLOW);
  b3[0] = 2, p3[1] = 0;
  /* Block shape unknown before running. */
  t3.dims[0] = 1;
  tb3.data = NULL;
  CHECK_EQ(run1(&r, AP_KB_SPACE_TO_BATCH_ND, ins3, 3, &to), AP_ERR_UNSUPPORTED);
}

static void test_mirror_pad(void) {
  /* [1 2 3] padded [2, 2]: REFLECT leaves the edge out, SYMMETRIC repeats it. */
  int8_t v[4] = {1, 2, 3, 4}, o[9];
  int32_t pads[4] = {2, 2, 0, 0};
  ap_ktensor tv = kt(AP_INT8, v, 1, 3, 0, 0, 0), tp = kt(AP_INT32, pads, 2, 1, 2, 0, 0);
  ap_ktensor to = kout(AP_INT8, o, 0, 0);
  const ap_ktensor *ins[2] = {&tv, &tp};
  kx_run r;
  memset(&r, 0, sizeof r);
  r.opt.mirror_mode = 0;
  CHECK_EQ(run1(&r, AP_KB_MIRROR_PAD, ins, 2, &to), AP_OK);
  int8_t wr[7] = {3, 2, 1, 2, 3, 2, 1};
  CHECK(to.rank == 1 && to.dims[0] == 7);
  CHECK_ARRAY(o, wr, 7);
  r.opt.mirror_mode = 1;
  CHECK_EQ(run1(&r, AP_KB_MIRROR_PAD, ins, 2, &to), AP_OK);
  int8_t ws[7] = {2, 1, 1, 2, 3, 3, 2};
  CHECK_ARRAY(o, ws, 7);
  /* REFLECT can take at most dim - 1 = 2; SYMMETRIC at most 3. */
  pads[0] = 3;
  CHECK_EQ(run1(&r, AP_KB_MIRROR_PAD, ins, 2, &to), AP_OK);
  CHECK(to.dims[0] == 8 && o[0] == 3 && o[2] == 1);
  r.opt.mirror_mode = 0;
  CHECK_EQ(run1(&r, AP_KB_MIRROR_PAD, ins, 2, &to), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "MIRROR_PAD: dim 0 of 3 cannot take REFLECT padding [3, 2]");
  /* [2, 2] SYMMETRIC with [[1, 0], [0, 1]]: the first row and the last column repeat. */
  int32_t p2[4] = {1, 0, 0, 1};
  tv = kt(AP_INT8, v, 2, 2, 2, 0, 0);
  tp = kt(AP_INT32, p2, 2, 2, 2, 0, 0);
  r.opt.mirror_mode = 1;
  CHECK_EQ(run1(&r, AP_KB_MIRROR_PAD, ins, 2, &to), AP_OK);
  int8_t w2[9] = {1, 2, 2, 1, 2, 2, 3, 4, 4};
  CHECK(to.rank == 2 && to.dims[0] == 3 && to.dims[1] == 3);
  CHECK_ARRAY(o, w2, 9);
  /* Paddings of the wrong shape. */
  tp = kt(AP_INT32, p2, 2, 1, 2, 0, 0);
  CHECK_EQ(run1(&r, AP_KB_MIRROR_PAD, ins, 2, &to), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "MIRROR_PAD: paddings must be an INT32 or INT64 [2, 2]");
}

static void test_update_slice(void) {
  /* [3, 3] of 0..8, a [2, 2] update at [2, -1]: clamped to [1, 0] so the block fits. */
  float v[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8}, u[4] = {-1, -2, -3, -4}, o[9];
  int64_t start[2] = {2, -1};
  ap_ktensor tv = kt(AP_FLOAT32, v, 2, 3, 3, 0, 0), tu = kt(AP_FLOAT32, u, 2, 2, 2, 0, 0);
  ap_ktensor ts = kt(AP_INT64, start, 1, 2, 0, 0, 0), to = kout(AP_FLOAT32, o, 0, 0);
  const ap_ktensor *ins[3] = {&tv, &tu, &ts};
  kx_run r;
  memset(&r, 0, sizeof r);
  CHECK_EQ(run1(&r, AP_KB_DYNAMIC_UPDATE_SLICE, ins, 3, &to), AP_OK);
  float w[9] = {0, 1, 2, -1, -2, 5, -3, -4, 8};
  CHECK(to.rank == 2 && to.dims[0] == 3 && to.dims[1] == 3);
  CHECK_ARRAY(o, w, 9);
  /* In place (output on the operand's bytes), start [0, 1]. */
  start[0] = 0, start[1] = 1;
  to.data = v;
  CHECK_EQ(run1(&r, AP_KB_DYNAMIC_UPDATE_SLICE, ins, 3, &to), AP_OK);
  float wi[9] = {0, -1, -2, 3, -3, -4, 6, 7, 8};
  CHECK_ARRAY(v, wi, 9);
  /* An update larger than the operand; start indices of the wrong length. */
  tu = kt(AP_FLOAT32, u, 2, 4, 1, 0, 0);
  CHECK_EQ(run1(&r, AP_KB_DYNAMIC_UPDATE_SLICE, ins, 3, &to), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "DYNAMIC_UPDATE_SLICE: update dim 0 is 4, larger than the operand's 3");
  tu = kt(AP_FLOAT32, u, 2, 2, 2, 0, 0);
  ts.dims[0] = 3;
  CHECK_EQ(run1(&r, AP_KB_DYNAMIC_UPDATE_SLICE, ins, 3, &to), AP_ERR_FORMAT);
}

static void test_resize_nearest(void) {
  /* [1, 2, 2, 1] to 4 x 4: each pixel doubles (floor(y * 0.5)). */
  int16_t v[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, o[16];
  int32_t size[2] = {4, 4};
  ap_ktensor tv = kt(AP_INT16, v, 4, 1, 2, 2, 1), ts = kt(AP_INT32, size, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_INT16, o, 0, 0);
  const ap_ktensor *ins[2] = {&tv, &ts};
  kx_run r;
  memset(&r, 0, sizeof r);
  CHECK_EQ(run1(&r, AP_KB_RESIZE_NEAREST_NEIGHBOR, ins, 2, &to), AP_OK);
  CHECK_DIMS4(to, 1, 4, 4, 1);
  int16_t w[16] = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
  CHECK_ARRAY(o, w, 16);
  /* 2 to 3 with align_corners: scale 0.5, round(0.5) = 1 (half away from zero): [0, 1, 1]. */
  size[0] = 3, size[1] = 3;
  r.opt.align_corners = true;
  CHECK_EQ(run1(&r, AP_KB_RESIZE_NEAREST_NEIGHBOR, ins, 2, &to), AP_OK);
  int16_t wa[9] = {1, 2, 2, 3, 4, 4, 3, 4, 4};
  CHECK_ARRAY(o, wa, 9);
  /* 3 to 2 with half-pixel centres: (y + 0.5) * 1.5 gives 0.75 and 2.25: rows 0 and 2. */
  r.opt.align_corners = false, r.opt.half_pixel_centers = true;
  tv = kt(AP_INT16, v, 4, 1, 3, 3, 1);
  size[0] = 2, size[1] = 2;
  CHECK_EQ(run1(&r, AP_KB_RESIZE_NEAREST_NEIGHBOR, ins, 2, &to), AP_OK);
  int16_t wh[4] = {1, 3, 7, 9};
  CHECK_ARRAY(o, wh, 4);
  /* A negative size; a size unknown before running; a 3-D input. */
  size[0] = -1;
  CHECK_EQ(run1(&r, AP_KB_RESIZE_NEAREST_NEIGHBOR, ins, 2, &to), AP_ERR_FORMAT);
  size[0] = 2;
  ts.data = NULL;
  CHECK_EQ(run1(&r, AP_KB_RESIZE_NEAREST_NEIGHBOR, ins, 2, &to), AP_ERR_UNSUPPORTED);
  ts.data = size;
  tv.rank = 3;
  CHECK_EQ(run1(&r, AP_KB_RESIZE_NEAREST_NEIGHBOR, ins, 2, &to), AP_ERR_FORMAT);
}

static void test_embedding_lookup(void) {
  /* Rows 2 and 0 of a [3, 2] table. */
  float table[6] = {0, 1, 10, 11, 20, 21}, o[4];
  int32_t ids[2] = {2, 0};
  ap_ktensor ti = kt(AP_INT32, ids, 1, 2, 0, 0, 0), tt = kt(AP_FLOAT32, table, 2, 3, 2, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, o, 0, 0);
  const ap_ktensor *ins[2] = {&ti, &tt};
  kx_run r;
  memset(&r, 0, sizeof r);
  CHECK_EQ(run1(&r, AP_KB_EMBEDDING_LOOKUP, ins, 2, &to), AP_OK);
  float w[4] = {20, 21, 0, 1};
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 2);
  CHECK_ARRAY(o, w, 4);
  /* An id outside the table, either side: an error at eval, nothing read. */
  ids[1] = 3;
  CHECK_EQ(run1(&r, AP_KB_EMBEDDING_LOOKUP, ins, 2, &to), AP_ERR_RANGE);
  CHECK_STR(r.err.msg, "EMBEDDING_LOOKUP: id 3 (position 1) is outside [0, 3)");
  ids[1] = -1;
  CHECK_EQ(run1(&r, AP_KB_EMBEDDING_LOOKUP, ins, 2, &to), AP_ERR_RANGE);
  /* Hybrid: an int8 table (scale 0.5, zero point 0) read into float32. */
  int8_t q[4] = {-4, 2, 6, 127};
  int32_t one = 1;
  ap_ktensor tq = ktq(AP_INT8, q, 2, 2, 2, 0, 0, 0.5f, 0), t1 = kt(AP_INT32, &one, 1, 1, 0, 0, 0);
  ins[0] = &t1, ins[1] = &tq;
  CHECK_EQ(run1(&r, AP_KB_EMBEDDING_LOOKUP, ins, 2, &to), AP_OK);
  CHECK(to.dims[0] == 1 && to.dims[1] == 2 && o[0] == 3.0f && o[1] == 63.5f);
  tq.zero_point = 1;
  CHECK_EQ(run1(&r, AP_KB_EMBEDDING_LOOKUP, ins, 2, &to), AP_ERR_UNSUPPORTED);
  /* Ids must be an INT32 vector; the table needs rank 2. */
  tq.zero_point = 0;
  t1.type = AP_INT64;
  CHECK_EQ(run1(&r, AP_KB_EMBEDDING_LOOKUP, ins, 2, &to), AP_ERR_FORMAT);
}

static void test_gather_batch(void) {
  /* batch_dims 1, axis 1: row b of params picks with row b of the indices. */
  float p[6] = {0, 1, 2, 10, 11, 12}, o[4];
  int32_t idx[4] = {2, 0, 1, 1};
  ap_ktensor tp = kt(AP_FLOAT32, p, 2, 2, 3, 0, 0), ti = kt(AP_INT32, idx, 2, 2, 2, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, o, 0, 0);
  const ap_ktensor *ins[2] = {&tp, &ti};
  kx_run r;
  memset(&r, 0, sizeof r);
  r.opt.axis = 1, r.opt.batch_dims = 1;
  CHECK_EQ(run1(&r, AP_KB_GATHER, ins, 2, &to), AP_OK);
  float w[4] = {2, 0, 11, 11};
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 2);
  CHECK_ARRAY(o, w, 4);
  /* batch_dims -1 counts from the indices' rank: 2 - 1 = 1, the same. */
  r.opt.batch_dims = -1;
  CHECK_EQ(run1(&r, AP_KB_GATHER, ins, 2, &to), AP_OK);
  CHECK_ARRAY(o, w, 4);
  /* int8 [2, 2, 3], indices [2, 1], axis 2: a dim between batch and axis. */
  int8_t q[12], qo[4];
  for (int i = 0; i < 12; i++)
    q[i] = (int8_t)i;
  int32_t qi[2] = {2, 0};
  ap_ktensor tq = kt(AP_INT8, q, 3, 2, 2, 3, 0), tqi = kt(AP_INT32, qi, 2, 2, 1, 0, 0);
  ap_ktensor tqo = kout(AP_INT8, qo, 0, 0);
  const ap_ktensor *qins[2] = {&tq, &tqi};
  r.opt.axis = 2, r.opt.batch_dims = 1;
  CHECK_EQ(run1(&r, AP_KB_GATHER, qins, 2, &tqo), AP_OK);
  int8_t wq[4] = {2, 5, 6, 9};
  CHECK(tqo.rank == 3 && tqo.dims[0] == 2 && tqo.dims[1] == 2 && tqo.dims[2] == 1);
  CHECK_ARRAY(qo, wq, 4);
  /* An index out of range for its batch: an error. Batch dims that differ; batch_dims past
   * the axis. */
  qi[1] = 3;
  CHECK_EQ(run1(&r, AP_KB_GATHER, qins, 2, &tqo), AP_ERR_RANGE);
  CHECK_STR(r.err.msg, "GATHER: index 3 (position 1) is outside [0, 3)");
  qi[1] = 0;
  tqi.dims[0] = 1;
  CHECK_EQ(run1(&r, AP_KB_GATHER, qins, 2, &tqo), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "GATHER: batch dim 0 is 2 in params, 1 in indices");
  tqi.dims[0] = 2;
  r.opt.axis = 0;
  CHECK_EQ(run1(&r, AP_KB_GATHER, qins, 2, &tqo), AP_ERR_FORMAT);
}

int main(void) {
  test_space_depth();
  test_space_batch();
  test_mirror_pad();
  test_update_slice();
  test_resize_nearest();
  test_embedding_lookup();
  test_gather_batch();
  return ap_test_done();
}
