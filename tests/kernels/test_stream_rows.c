/* The row-range entry points (kernels/kops_stream.h): rows computed from rings equal the
 * whole-map eval's, worked by hand on small maps, and bad ranges or rings are refused. */
#include "kernels/kops_stream.h"
#include "ktest.h"

#include <string.h>

/* CONV_2D 3x1 (filter rows 1, 2, 3; no bias), stride 1, SAME, on a 5x1x1 map x = 1..5:
 * out[y] = x[y-1] + 2 x[y] + 3 x[y+1] (padding 0) = 8, 14, 20, 26, 14. Fed from a ring of 3
 * input rows and writing a ring of 2 output rows, row by row, as a segment pulls them. */
static void conv_ring(void) {
  float x[5] = {1, 2, 3, 4, 5}, f[3] = {1, 2, 3}, whole[5];
  ap_conv_options o = {.padding = AP_KPAD_SAME, .stride_w = 1, .stride_h = 1};
  ap_ktensor ti = kt(AP_FLOAT32, x, 4, 1, 5, 1, 1), tf = kt(AP_FLOAT32, f, 4, 1, 3, 1, 1);
  ap_ktensor to = kout(AP_FLOAT32, whole, 0, 0);
  ap_conv_params p;
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_conv_eval(&p, &ti, &tf, NULL, &to, NULL), AP_OK);
  float want[5] = {8, 14, 20, 26, 14};
  CHECK_ARRAY(whole, want, 5);
  float ring_in[3], ring_out[2];
  ap_ktensor ri = ti, ro = to;
  ri.data = ring_in;
  ro.data = ring_out;
  int32_t have = 0; /* input rows in the ring */
  for (int32_t y = 0; y < 5; y++) {
    for (; have < 5 && have <= y + 1; have++)
      ring_in[have % 3] = x[have];
    ap_krows rows = {y, y + 1, 3, 2};
    CHECK_EQ(ap_conv_eval_rows(&p, &ri, &tf, NULL, &ro, NULL, &rows), AP_OK);
    CHECK_EQ(ring_out[y % 2], want[y]);
  }
  /* Out of range or rings that do not fit: refused, nothing written. */
  ap_krows bad[] = {{-1, 1, 3, 2}, {2, 1, 3, 2}, {0, 6, 3, 2},
                    {0, 1, 6, 2},  {0, 1, 3, 6}, {0, 1, -1, 0}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK_EQ(ap_conv_eval_rows(&p, &ri, &tf, NULL, &ro, NULL, &bad[i]), AP_ERR_ARG);
  /* An empty range computes nothing; NULL rows is the whole map. */
  ap_krows none = {3, 3, 0, 0};
  CHECK_EQ(ap_conv_eval_rows(&p, &ti, &tf, NULL, &to, NULL, &none), AP_OK);
  CHECK_EQ(ap_conv_eval_rows(&p, &ti, &tf, NULL, &to, NULL, NULL), AP_OK);
  CHECK_ARRAY(whole, want, 5);
}

/* Rings hold one image: batch 2 with a ring is refused, without one it is fine. */
static void batches(void) {
  float x[4] = {1, 2, 3, 4}, out[4];
  ap_pool_options o = {
      .padding = AP_KPAD_VALID, .stride_w = 1, .stride_h = 1, .filter_w = 1, .filter_h = 1};
  ap_ktensor ti = kt(AP_FLOAT32, x, 4, 2, 2, 1, 1), to = kout(AP_FLOAT32, out, 0, 0);
  ap_pool_params p;
  CHECK_EQ(ap_pool_prepare(AP_KPOOL_MAX, &o, &ti, &to, &p, NULL), AP_OK);
  ap_krows ring = {0, 1, 1, 0}, whole = {0, 2, 0, 0};
  CHECK_EQ(ap_pool_eval_rows(&p, &ti, &to, &ring), AP_ERR_ARG);
  CHECK_EQ(ap_pool_eval_rows(&p, &ti, &to, &whole), AP_OK);
  float want[4] = {1, 2, 3, 4};
  CHECK_ARRAY(out, want, 4);
}

/* MAX_POOL_2D 2x1 stride 2 on 4 rows, from a ring of 2 rows: max(1,7)=7, max(3,-2)=3. */
static void pool_ring(void) {
  float x[4] = {1, 7, 3, -2}, ring[2], out[2];
  ap_pool_options o = {
      .padding = AP_KPAD_VALID, .stride_w = 1, .stride_h = 2, .filter_w = 1, .filter_h = 2};
  ap_ktensor ti = kt(AP_FLOAT32, x, 4, 1, 4, 1, 1), to = kout(AP_FLOAT32, out, 0, 0);
  ap_pool_params p;
  CHECK_EQ(ap_pool_prepare(AP_KPOOL_MAX, &o, &ti, &to, &p, NULL), AP_OK);
  ap_ktensor ri = ti;
  ri.data = ring;
  for (int32_t y = 0; y < 2; y++) {
    ring[0] = x[2 * y];
    ring[1] = x[2 * y + 1];
    ap_krows rows = {y, y + 1, 2, 0};
    CHECK_EQ(ap_pool_eval_rows(&p, &ri, &to, &rows), AP_OK);
  }
  float want[2] = {7, 3};
  CHECK_ARRAY(out, want, 2);
}

/* DEPTHWISE_CONV_2D int8 3x1 (filter 1, 1, 1), stride 2, SAME on 4 rows (pad 0: total 1):
 * out[y] = x[2y] + x[2y+1] + x[2y+2] with zero points 0 and unit scales: 1+2+3, 3+4 = 6, 7. */
static void depthwise_ring(void) {
  int8_t x[4] = {1, 2, 3, 4}, f[3] = {1, 1, 1}, out[2], ring[3];
  int32_t scratch[8];
  ap_conv_options o = {.padding = AP_KPAD_SAME, .stride_w = 1, .stride_h = 2};
  ap_ktensor ti = ktq(AP_INT8, x, 4, 1, 4, 1, 1, 1.0f, 0);
  ap_ktensor tf = ktq(AP_INT8, f, 4, 1, 3, 1, 1, 1.0f, 0);
  ap_ktensor to = kout(AP_INT8, out, 1.0f, 0);
  ap_conv_params p;
  CHECK_EQ(ap_depthwise_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  ap_ktensor ri = ti;
  ri.data = ring;
  for (int32_t y = 0; y < 2; y++) {
    for (int32_t r = 2 * y; r < 2 * y + 3 && r < 4; r++)
      ring[r % 3] = x[r];
    ap_krows rows = {y, y + 1, 3, 0};
    CHECK_EQ(ap_depthwise_eval_rows(&p, &ri, &tf, NULL, &to, scratch, &rows), AP_OK);
  }
  int8_t want[2] = {6, 7};
  CHECK_ARRAY(out, want, 2);
}

/* The hybrid (float map, int8 filter) quantizes the whole input: rows are refused. */
static void hybrid_refused(void) {
  float x[3] = {1, 2, 3}, out[3];
  int8_t f[1] = {1};
  float scale = 1.0f;
  ap_conv_options o = {.padding = AP_KPAD_SAME, .stride_w = 1, .stride_h = 1};
  ap_ktensor ti = kt(AP_FLOAT32, x, 4, 1, 3, 1, 1), to = kout(AP_FLOAT32, out, 0, 0);
  ap_ktensor tf = ktq(AP_INT8, f, 4, 1, 1, 1, 1, scale, 0);
  ap_conv_params p;
  CHECK_EQ(ap_conv_prepare(&o, &ti, &tf, NULL, &to, &p, NULL), AP_OK);
  static _Alignas(16) unsigned char scratch[256];
  CHECK(p.scratch_bytes <= sizeof scratch);
  ap_krows rows = {0, 1, 0, 0};
  CHECK_EQ(ap_conv_eval_rows(&p, &ti, &tf, NULL, &to, scratch, &rows), AP_ERR_UNSUPPORTED);
  CHECK_EQ(ap_conv_eval_rows(&p, &ti, &tf, NULL, &to, scratch, NULL), AP_OK);
}

/* PAD 1 row on top, 1 below, 1 column left of a 2x1 map, from a 1-row ring: rows of padding
 * (zero point 0) and copies. */
static void pad_rows(void) {
  int8_t x[2] = {5, 6}, out[8], ring[1];
  int32_t pads[8] = {0, 0, 1, 1, 1, 0, 0, 0};
  ap_ktensor ti = ktq(AP_INT8, x, 4, 1, 2, 1, 1, 1.0f, 0);
  ap_ktensor tp = kt(AP_INT32, pads, 2, 4, 2, 0, 0);
  ap_ktensor to = kout(AP_INT8, out, 1.0f, 0);
  ap_pad_params p;
  CHECK_EQ(ap_pad_prepare(&ti, &tp, NULL, &to, &p, NULL), AP_OK);
  CHECK_DIMS4(to, 1, 4, 2, 1);
  ap_ktensor ri = ti;
  ri.data = ring;
  memset(out, 99, sizeof out);
  for (int32_t y = 0; y < 4; y++) {
    if (y >= 1 && y <= 2) ring[0] = x[y - 1];
    ap_krows rows = {y, y + 1, 1, 0};
    CHECK_EQ(ap_pad_eval_rows(&p, &ri, &to, &rows), AP_OK);
  }
  int8_t want[8] = {0, 0, 0, 5, 0, 6, 0, 0};
  CHECK_ARRAY(out, want, 8);
  CHECK_EQ(ap_pad_eval_rows(&p, &ri, &to, NULL), AP_ERR_ARG);
}

int main(void) {
  conv_ring();
  batches();
  pool_ring();
  depthwise_ring();
  hybrid_refused();
  pad_rows();
  return ap_test_done();
}
