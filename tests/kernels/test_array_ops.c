/* CAST, SHAPE, PACK, UNPACK, GATHER, ARG_MAX, SLICE and STRIDED_SLICE through the registry.
 * Expectations are worked out by hand from the ops' definitions (numpy semantics). */
#include "kxtest.h"

static void test_cast_shape(void) {
  float f[6] = {1.9f, -1.9f, 0, 300, -300, NAN};
  int8_t q[6];
  ap_ktensor ti = kt(AP_FLOAT32, f, 1, 6, 0, 0, 0), to = kout(AP_INT8, q, 0, 0);
  const ap_ktensor *ins[1] = {&ti};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 1, outs, 1);
  /* Truncation toward zero; out of range saturates (undefined in TFLite); NaN -> 0. */
  CHECK_EQ(kx_do(&r, AP_KB_CAST), AP_OK);
  int8_t wq[6] = {1, -1, 0, 127, -128, 0};
  CHECK_ARRAY(q, wq, 6);
  uint8_t b[6];
  to = kout(AP_BOOL, b, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_CAST), AP_OK);
  uint8_t wb[6] = {1, 1, 0, 1, 1, 1};
  CHECK_ARRAY(b, wb, 6);
  /* int32 -> uint8 wraps like static_cast; -> float is exact for small values. */
  int32_t iv[3] = {257, -1, 5};
  uint8_t u[3];
  ti = kt(AP_INT32, iv, 1, 3, 0, 0, 0);
  to = kout(AP_UINT8, u, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_CAST), AP_OK);
  CHECK(u[0] == 1 && u[1] == 255 && u[2] == 5);
  float fo[3];
  to = kout(AP_FLOAT32, fo, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_CAST), AP_OK);
  CHECK(fo[0] == 257 && fo[1] == -1 && fo[2] == 5);
  to = kout(AP_FLOAT64, fo, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_CAST), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "CAST: unsupported types INT32 -> FLOAT64");

  /* SHAPE needs no input data. */
  ap_ktensor ts = kt(AP_FLOAT32, NULL, 3, 2, 0, 7, 0);
  int32_t s32[3];
  int64_t s64[3];
  ins[0] = &ts;
  to = kout(AP_INT32, s32, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_SHAPE), AP_OK);
  CHECK(to.rank == 1 && to.dims[0] == 3 && s32[0] == 2 && s32[1] == 0 && s32[2] == 7);
  to = kout(AP_INT64, s64, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_SHAPE), AP_OK);
  CHECK(s64[0] == 2 && s64[1] == 0 && s64[2] == 7);
  to = kout(AP_INT8, s64, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_SHAPE), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "SHAPE: output type INT8, expected INT32 or INT64");
}

static void test_pack_unpack(void) {
  /* Two [2] inputs: axis 0 -> [2, 2] rows; axis -1 (= 1) -> columns. */
  float a[2] = {1, 2}, b[2] = {3, 4}, out[4];
  ap_ktensor ta = kt(AP_FLOAT32, a, 1, 2, 0, 0, 0), tb = kt(AP_FLOAT32, b, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[2] = {&ta, &tb};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  r.opt.count = 2;
  CHECK_EQ(kx_do(&r, AP_KB_PACK), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 2);
  float w0[4] = {1, 2, 3, 4};
  CHECK_ARRAY(out, w0, 4);
  r.opt.axis = -1;
  CHECK_EQ(kx_do(&r, AP_KB_PACK), AP_OK);
  float w1[4] = {1, 3, 2, 4};
  CHECK_ARRAY(out, w1, 4);
  r.opt.axis = 2;
  CHECK_EQ(kx_do(&r, AP_KB_PACK), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "PACK: axis 2 out of range for rank 1");
  r.opt.axis = 0;
  r.opt.count = 3;
  CHECK_EQ(kx_do(&r, AP_KB_PACK), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "PACK: values_count is 3 but there are 2 inputs");
  r.opt.count = 2;
  tb.dims[0] = 3;
  CHECK_EQ(kx_do(&r, AP_KB_PACK), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "PACK: input 1 differs from input 0 in shape or type");

  /* UNPACK [2, 3] along axis 1 -> three [2] outputs; along axis 0 -> two [3]. */
  int16_t v[6] = {1, 2, 3, 4, 5, 6}, o0[3], o1[3], o2[3];
  ap_ktensor tv = kt(AP_INT16, v, 2, 2, 3, 0, 0);
  ap_ktensor u0 = kout(AP_INT16, o0, 0, 0), u1 = kout(AP_INT16, o1, 0, 0),
             u2 = kout(AP_INT16, o2, 0, 0);
  const ap_ktensor *uins[1] = {&tv};
  ap_ktensor *uouts[3] = {&u0, &u1, &u2};
  kx_setup(&r, uins, 1, uouts, 3);
  r.opt.axis = -1;
  r.opt.count = 3;
  CHECK_EQ(kx_do(&r, AP_KB_UNPACK), AP_OK);
  CHECK(u0.rank == 1 && u0.dims[0] == 2);
  CHECK(o0[0] == 1 && o0[1] == 4 && o1[0] == 2 && o1[1] == 5 && o2[0] == 3 && o2[1] == 6);
  r.c.n_outputs = 2;
  r.opt.axis = 0;
  r.opt.count = 2;
  CHECK_EQ(kx_do(&r, AP_KB_UNPACK), AP_OK);
  CHECK(u0.rank == 1 && u0.dims[0] == 3);
  CHECK(o0[0] == 1 && o0[2] == 3 && o1[0] == 4 && o1[2] == 6);
  r.opt.count = 3;
  CHECK_EQ(kx_do(&r, AP_KB_UNPACK), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "UNPACK: num is 3 and there are 2 outputs, dim 0 is 2");
}

static void test_gather(void) {
  /* params [3, 2], indices [2, 2] along axis 0 -> [2, 2, 2]. */
  float p[6] = {10, 11, 20, 21, 30, 31}, out[8];
  int32_t idx[4] = {2, 0, 1, 1};
  ap_ktensor tp = kt(AP_FLOAT32, p, 2, 3, 2, 0, 0), ti = kt(AP_INT32, idx, 2, 2, 2, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[2] = {&tp, &ti};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_GATHER), AP_OK);
  CHECK(to.rank == 3 && to.dims[0] == 2 && to.dims[1] == 2 && to.dims[2] == 2);
  float w[8] = {30, 31, 10, 11, 20, 21, 20, 21};
  CHECK_ARRAY(out, w, 8);
  /* axis -1 with int64 scalar index: column 1 -> [3]. */
  int64_t one = 1;
  ap_ktensor t1 = kt(AP_INT64, &one, 0, 0, 0, 0, 0);
  ins[1] = &t1;
  r.opt.axis = -1;
  CHECK_EQ(kx_do(&r, AP_KB_GATHER), AP_OK);
  CHECK(to.rank == 1 && to.dims[0] == 3 && out[0] == 11 && out[1] == 21 && out[2] == 31);
  /* Out of range, either side: an error, no read. */
  one = 2;
  CHECK_EQ(kx_do(&r, AP_KB_GATHER), AP_ERR_RANGE);
  CHECK_STR(r.err.msg, "GATHER: index 2 (position 0) is outside [0, 2)");
  one = -1;
  CHECK_EQ(kx_do(&r, AP_KB_GATHER), AP_ERR_RANGE);
  CHECK_STR(r.err.msg, "GATHER: index -1 (position 0) is outside [0, 2)");
  r.opt.batch_dims = 1;
  CHECK_EQ(kx_do(&r, AP_KB_GATHER), AP_ERR_FORMAT); /* a scalar index has no batch dim */
  CHECK_STR(r.err.msg, "GATHER: batch_dims 1 must lie in [0, 0] (the axis and the indices' rank)");
  r.opt.batch_dims = 0;
  /* Zero indices: an empty output. */
  ap_ktensor t0 = kt(AP_INT32, idx, 1, 0, 0, 0, 0);
  ins[1] = &t0;
  r.opt.axis = 0;
  CHECK_EQ(kx_do(&r, AP_KB_GATHER), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 0 && to.dims[1] == 2);
}

static void test_argmax(void) {
  /* [2, 3]: ties take the first index; axis 0 and axis -1. */
  float v[6] = {1, 5, 5, 7, 0, 5};
  int32_t axis = 1, o32[3];
  ap_ktensor tv = kt(AP_FLOAT32, v, 2, 2, 3, 0, 0), ta = kt(AP_INT32, &axis, 1, 1, 0, 0, 0);
  ap_ktensor to = kout(AP_INT32, o32, 0, 0);
  const ap_ktensor *ins[2] = {&tv, &ta};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_ARG_MAX), AP_OK);
  CHECK(to.rank == 1 && to.dims[0] == 2 && o32[0] == 1 && o32[1] == 0);
  axis = 0;
  int64_t o64[3];
  to = kout(AP_INT64, o64, 0, 0);
  CHECK_EQ(kx_do(&r, AP_KB_ARG_MAX), AP_OK);
  CHECK(to.rank == 1 && to.dims[0] == 3 && o64[0] == 1 && o64[1] == 0 && o64[2] == 0);
  /* int8 raw values. */
  int8_t q[4] = {-128, 3, 3, -1};
  ap_ktensor tq = ktq(AP_INT8, q, 1, 4, 0, 0, 0, 0.1f, 0);
  ins[0] = &tq;
  axis = -1;
  CHECK_EQ(kx_do(&r, AP_KB_ARG_MAX), AP_OK);
  CHECK(to.rank == 0 && o64[0] == 1);
  axis = 1;
  CHECK_EQ(kx_do(&r, AP_KB_ARG_MAX), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "ARG_MAX: axis 1 out of range for rank 1");
  ta.data = NULL;
  CHECK_EQ(kx_do(&r, AP_KB_ARG_MAX), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "ARG_MAX: axis must be a constant INT32 or INT64 tensor of one element");
}

static void test_slice(void) {
  /* [3, 4] = 0..11; begin [1, 1], size [2, -1] -> rows 1-2, cols 1-3. */
  int32_t v[12], out[12];
  for (int i = 0; i < 12; i++)
    v[i] = i;
  int32_t begin[2] = {1, 1}, size[2] = {2, -1};
  ap_ktensor tv = kt(AP_INT32, v, 2, 3, 4, 0, 0), tb = kt(AP_INT32, begin, 1, 2, 0, 0, 0);
  ap_ktensor ts = kt(AP_INT32, size, 1, 2, 0, 0, 0), to = kout(AP_INT32, out, 0, 0);
  const ap_ktensor *ins[3] = {&tv, &tb, &ts};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 3, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_SLICE), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 3);
  int32_t w[6] = {5, 6, 7, 9, 10, 11};
  CHECK_ARRAY(out, w, 6);
  size[0] = 3;
  CHECK_EQ(kx_do(&r, AP_KB_SLICE), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SLICE: dim 0: begin 1 size 3 do not fit its 3 elements");
  begin[0] = INT32_MIN; /* must not wrap d - begin into a valid-looking size */
  size[0] = -1;
  CHECK_EQ(kx_do(&r, AP_KB_SLICE), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "SLICE: dim 0: begin -2147483648 size -1 do not fit its 3 elements");
  begin[0] = 1;
  size[0] = 0;
  CHECK_EQ(kx_do(&r, AP_KB_SLICE), AP_OK);
  CHECK(to.dims[0] == 0 && to.dims[1] == 3);
  tb.data = NULL;
  CHECK_EQ(kx_do(&r, AP_KB_SLICE), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "SLICE: unsupported begin: not a constant tensor, and its values decide "
                       "the output shape, which must be known before running");
}

static void test_strided_slice(void) {
  int32_t v[12], out[12];
  for (int i = 0; i < 12; i++)
    v[i] = i;
  /* [3, 4]: x[-1:, ::-2] -> row 2, cols 3, 1 = [[11, 9]]. */
  int32_t begin[2] = {-1, 0}, end[2] = {0, 0}, strides[2] = {1, -2};
  ap_ktensor tv = kt(AP_INT32, v, 2, 3, 4, 0, 0), tb = kt(AP_INT32, begin, 1, 2, 0, 0, 0);
  ap_ktensor te = kt(AP_INT32, end, 1, 2, 0, 0, 0), tst = kt(AP_INT32, strides, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_INT32, out, 0, 0);
  const ap_ktensor *ins[4] = {&tv, &tb, &te, &tst};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 4, outs, 1);
  r.opt.ss.end_mask = 3;   /* both ends open */
  r.opt.ss.begin_mask = 2; /* dim 1 starts at its far end for a negative stride */
  CHECK_EQ(kx_do(&r, AP_KB_STRIDED_SLICE), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 1 && to.dims[1] == 2);
  CHECK(out[0] == 11 && out[1] == 9);
  /* x[1, 1:3]: shrink dim 0 -> [2] = {5, 6}. */
  begin[0] = 1, begin[1] = 1, end[0] = 2, end[1] = 3, strides[1] = 1;
  r.opt.ss.begin_mask = r.opt.ss.end_mask = 0;
  r.opt.ss.shrink_axis_mask = 1;
  CHECK_EQ(kx_do(&r, AP_KB_STRIDED_SLICE), AP_OK);
  CHECK(to.rank == 1 && to.dims[0] == 2 && out[0] == 5 && out[1] == 6);
  /* Ends past the dim clamp; an empty range gives 0 elements. */
  r.opt.ss.shrink_axis_mask = 0;
  begin[0] = 0, end[0] = 100, begin[1] = 3, end[1] = 1;
  CHECK_EQ(kx_do(&r, AP_KB_STRIDED_SLICE), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 3 && to.dims[1] == 0);
  /* offset: end is relative to begin. x[0:0+2, 1:1+2]. */
  begin[1] = 1, end[0] = 2, end[1] = 2;
  r.opt.ss.offset = true;
  CHECK_EQ(kx_do(&r, AP_KB_STRIDED_SLICE), AP_OK);
  CHECK(to.dims[0] == 2 && to.dims[1] == 2 && out[0] == 1 && out[1] == 2 && out[2] == 5 &&
        out[3] == 6);
  r.opt.ss.offset = false;
  /* Errors: shrinking a dim at a missing index, zero stride, masks we do not take, begin not
   * constant. */
  begin[0] = 3;
  r.opt.ss.shrink_axis_mask = 1;
  CHECK_EQ(kx_do(&r, AP_KB_STRIDED_SLICE), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "STRIDED_SLICE: shrunk dim 0: index 3 is outside its 3 elements");
  r.opt.ss.shrink_axis_mask = 0;
  strides[0] = 0;
  CHECK_EQ(kx_do(&r, AP_KB_STRIDED_SLICE), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "STRIDED_SLICE: stride 0 of dim 0");
  strides[0] = 1;
  r.opt.ss.new_axis_mask = 1;
  CHECK_EQ(kx_do(&r, AP_KB_STRIDED_SLICE), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "STRIDED_SLICE: ellipsis_mask 0 / new_axis_mask 1 are not supported");
  r.opt.ss.new_axis_mask = 0;
  te.data = NULL;
  CHECK_EQ(kx_do(&r, AP_KB_STRIDED_SLICE), AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(r.err.msg, "STRIDED_SLICE: unsupported end: not a constant tensor");
}

static void test_reverse(void) {
  /* [2, 3] = 0..5 reversed along axis 1, then along both (-2 is axis 0). */
  int8_t v[6] = {0, 1, 2, 3, 4, 5}, out[6];
  int32_t axes[2] = {1, -2};
  ap_ktensor tv = kt(AP_INT8, v, 2, 2, 3, 0, 0), ta = kt(AP_INT32, axes, 1, 1, 0, 0, 0);
  ap_ktensor to = kout(AP_INT8, out, 0, 0);
  const ap_ktensor *ins[2] = {&tv, &ta};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_REVERSE_V2), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 3);
  int8_t w1[6] = {2, 1, 0, 5, 4, 3};
  CHECK_ARRAY(out, w1, 6);
  ta.dims[0] = 2;
  CHECK_EQ(kx_do(&r, AP_KB_REVERSE_V2), AP_OK);
  int8_t w2[6] = {5, 4, 3, 2, 1, 0};
  CHECK_ARRAY(out, w2, 6);
  axes[1] = 1;
  CHECK_EQ(kx_do(&r, AP_KB_REVERSE_V2), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "REVERSE_V2: axis 1 is invalid for rank 2");
}

static void test_gather_nd(void) {
  /* params [2, 2, 2] = 0..7; indices [2, 2] pick [1, 0] and [0, 1]: rows {4, 5} and {2, 3}. */
  int8_t v[8] = {0, 1, 2, 3, 4, 5, 6, 7}, out[8];
  int32_t idx[4] = {1, 0, 0, 1};
  ap_ktensor tv = ktq(AP_INT8, v, 3, 2, 2, 2, 0, 0.5f, 1), ti = kt(AP_INT32, idx, 2, 2, 2, 0, 0);
  ap_ktensor to = kout(AP_INT8, out, 0.5f, 1);
  const ap_ktensor *ins[2] = {&tv, &ti};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_GATHER_ND), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 2);
  int8_t w[4] = {4, 5, 2, 3};
  CHECK_ARRAY(out, w, 4);
  /* Full depth (3 components): single elements; int64 indices. */
  int64_t full[3] = {1, 1, 0};
  ap_ktensor tf = kt(AP_INT64, full, 1, 3, 0, 0, 0);
  ins[1] = &tf;
  CHECK_EQ(kx_do(&r, AP_KB_GATHER_ND), AP_OK);
  CHECK(to.rank == 0 && out[0] == 6);
  full[2] = 2;
  CHECK_EQ(kx_do(&r, AP_KB_GATHER_ND), AP_ERR_RANGE);
  CHECK_STR(r.err.msg, "GATHER_ND: index 2 (row 0, component 2) is outside [0, 2)");
  tf.dims[0] = 4;
  CHECK_EQ(kx_do(&r, AP_KB_GATHER_ND), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "GATHER_ND: index depth 4 must be between 1 and the params rank 3");
}

static void test_resize_bilinear(void) {
  /* [1, 1, 2, 1] -> [1, 1, 4, 1]; width scale 2 / 4 = 0.5, source x = 0, 0.5, 1, 1.5 (the last
   * clamps its upper neighbour to 1). */
  float v[2] = {0, 4}, out[4];
  int32_t size[2] = {1, 4};
  ap_ktensor tv = kt(AP_FLOAT32, v, 4, 1, 1, 2, 1), ts = kt(AP_INT32, size, 1, 2, 0, 0, 0);
  ap_ktensor to = kout(AP_FLOAT32, out, 0, 0);
  const ap_ktensor *ins[2] = {&tv, &ts};
  ap_ktensor *outs[1] = {&to};
  kx_run r;
  kx_setup(&r, ins, 2, outs, 1);
  CHECK_EQ(kx_do(&r, AP_KB_RESIZE_BILINEAR), AP_OK);
  CHECK_DIMS4(to, 1, 1, 4, 1);
  float w[4] = {0, 2, 4, 4};
  CHECK_ARRAY(out, w, 4);
  /* align_corners: scale (2 - 1) / (4 - 1) in float. */
  r.opt.align_corners = true;
  CHECK_EQ(kx_do(&r, AP_KB_RESIZE_BILINEAR), AP_OK);
  CHECK(out[0] == 0 && out[1] == 4 * (1.0f / 3) && out[3] == 4);
  /* half_pixel_centers: source x = -0.25, 0.25, 0.75, 1.25; at -0.25 both neighbours are 0
   * and the weights 1.25 and -0.25 still sum to the input. */
  r.opt.align_corners = false;
  r.opt.half_pixel_centers = true;
  v[0] = 8;
  CHECK_EQ(kx_do(&r, AP_KB_RESIZE_BILINEAR), AP_OK);
  float wh[4] = {8, 7, 5, 4};
  CHECK_ARRAY(out, wh, 4);
  r.opt.align_corners = true;
  CHECK_EQ(kx_do(&r, AP_KB_RESIZE_BILINEAR), AP_ERR_FORMAT);
  CHECK_STR(r.err.msg, "RESIZE_BILINEAR: align_corners and half_pixel_centers exclude each other");
  r.opt.align_corners = r.opt.half_pixel_centers = false;
  /* int8: 10-bit coordinates (scale (2048 + 2) / 4 = 512); x = 0.5 lands on an exact half
   * (2^19 of 2^20), which rounds away from zero: 1 -> 1, -1 -> -1. */
  int8_t q[2] = {8, 4}, qo[4];
  ap_ktensor tq = ktq(AP_INT8, q, 4, 1, 1, 2, 1, 0.5f, 0);
  ins[0] = &tq;
  to = kout(AP_INT8, qo, 0.5f, 0);
  CHECK_EQ(kx_do(&r, AP_KB_RESIZE_BILINEAR), AP_OK);
  int8_t wq[4] = {8, 6, 4, 4};
  CHECK_ARRAY(qo, wq, 4);
  q[0] = 1, q[1] = 0;
  CHECK_EQ(kx_do(&r, AP_KB_RESIZE_BILINEAR), AP_OK);
  CHECK(qo[0] == 1 && qo[1] == 1 && qo[2] == 0);
  q[0] = -1;
  CHECK_EQ(kx_do(&r, AP_KB_RESIZE_BILINEAR), AP_OK);
  CHECK(qo[0] == -1 && qo[1] == -1 && qo[2] == 0);
  to.scale = 0.25f;
  CHECK_EQ(kx_do(&r, AP_KB_RESIZE_BILINEAR), AP_ERR_UNSUPPORTED);
  CHECK_STR(r.err.msg, "RESIZE_BILINEAR: int8 input and output must share quantization");
}

int main(void) {
  test_reverse();
  test_resize_bilinear();
  test_gather_nd();
  test_cast_shape();
  test_pack_unpack();
  test_gather();
  test_argmax();
  test_slice();
  test_strided_slice();
  return ap_test_done();
}
