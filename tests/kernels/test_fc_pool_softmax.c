/* FULLY_CONNECTED, pooling and SOFTMAX on hand-worked cases. */
#include "ktest.h"

#include <string.h>

static void test_fc(void) {
  /* float: two batches of depth 3, two units. */
  float in[6] = {1, 2, 3, -1, 0, 1}, w[6] = {1, 1, 1, 1, 0, -1}, bias[2] = {0.5f, 0}, out[4];
  ap_ktensor ti = kt(AP_FLOAT32, in, 2, 2, 3, 0, 0), tw = kt(AP_FLOAT32, w, 2, 2, 3, 0, 0);
  ap_ktensor tb = kt(AP_FLOAT32, bias, 1, 2, 0, 0, 0), to = kout(AP_FLOAT32, out, 0, 0);
  ap_fc_options o = {AP_KACT_NONE, false, false, 0};
  ap_fc_params p;
  CHECK_EQ(ap_fc_prepare(&o, &ti, &tw, &tb, &to, &p, NULL), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 2);
  CHECK_EQ(ap_fc_eval(&p, &ti, &tw, &tb, &to, NULL), AP_OK);
  float want[4] = {6.5f, -2, 0.5f, -2};
  CHECK_ARRAY(out, want, 4);
  /* keep_num_dims keeps [1, 2, 3] as [1, 2, 2]; without it a 4-D input flattens. */
  ti = kt(AP_FLOAT32, in, 3, 1, 2, 3, 0);
  o.keep_num_dims = true;
  CHECK_EQ(ap_fc_prepare(&o, &ti, &tw, &tb, &to, &p, NULL), AP_OK);
  CHECK(to.rank == 3 && to.dims[0] == 1 && to.dims[1] == 2 && to.dims[2] == 2);
  o.keep_num_dims = false;
  ti = kt(AP_FLOAT32, in, 4, 1, 1, 2, 3);
  CHECK_EQ(ap_fc_prepare(&o, &ti, &tw, &tb, &to, &p, NULL), AP_OK);
  CHECK(to.rank == 2 && to.dims[0] == 2 && to.dims[1] == 2);
  ap_errbuf e = {""};
  ti = kt(AP_FLOAT32, in, 1, 5, 0, 0, 0);
  CHECK_EQ(ap_fc_prepare(&o, &ti, &tw, &tb, &to, &p, &e), AP_ERR_FORMAT);
  CHECK_STR(e.msg, "FULLY_CONNECTED: input has 5 elements, not a multiple of depth 3");

  /* int8 per-tensor: input scale 0.5 zp 1, weights scale 0.25, output scale 0.125 zp -3.
   * x = [3, 5] -> [1, 2]; w = [4, -8] -> [1, -2]; bias 4 at 0.125 -> 0.5.
   * 1 - 4 + 0.5 = -2.5 -> -20 - 3 = -23. */
  int8_t qi[2] = {3, 5}, qw[2] = {4, -8}, qo[1];
  int32_t qb[1] = {4};
  ti = ktq(AP_INT8, qi, 2, 1, 2, 0, 0, 0.5f, 1);
  tw = ktq(AP_INT8, qw, 2, 1, 2, 0, 0, 0.25f, 0);
  tb = kt(AP_INT32, qb, 1, 1, 0, 0, 0);
  to = kout(AP_INT8, qo, 0.125f, -3);
  CHECK_EQ(ap_fc_prepare(&o, &ti, &tw, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KFC_INT8);
  CHECK_EQ(p.output_multiplier, 1073741824); /* 0.5*0.25/0.125 = 1 */
  CHECK_EQ(p.output_shift, 1);
  CHECK_EQ(ap_fc_eval(&p, &ti, &tw, &tb, &to, NULL), AP_OK);
  CHECK_EQ(qo[0], -23);
  /* Per-channel with two units: scales [0.25, 1.0]; unit 1 weights [1, 1] -> 3 -> 24 - 3. */
  int8_t qw2[4] = {4, -8, 1, 1}, qo2[2];
  int32_t qb2[2] = {4, 0};
  float scales[2] = {0.25f, 1.0f};
  tw = kt(AP_INT8, qw2, 2, 2, 2, 0, 0);
  tw.channel_scales = scales;
  tw.n_channels = 2;
  tb = kt(AP_INT32, qb2, 1, 2, 0, 0, 0);
  to = kout(AP_INT8, qo2, 0.125f, -3);
  CHECK_EQ(ap_fc_prepare(&o, &ti, &tw, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KFC_INT8_PER_CHANNEL);
  _Alignas(16) unsigned char scratch[64];
  CHECK_EQ(ap_fc_eval(&p, &ti, &tw, &tb, &to, scratch), AP_OK);
  CHECK_EQ(qo2[0], -23);
  CHECK_EQ(qo2[1], 21);
  /* uint8 with a filter zero point: (x - 128) . (w - 100), scale 1 -> 1. */
  uint8_t ui[2] = {130, 126}, uw[2] = {103, 99}, uo[1];
  ti = ktq(AP_UINT8, ui, 2, 1, 2, 0, 0, 1.0f, 128);
  tw = ktq(AP_UINT8, uw, 2, 1, 2, 0, 0, 1.0f, 100);
  to = kout(AP_UINT8, uo, 1.0f, 10);
  CHECK_EQ(ap_fc_prepare(&o, &ti, &tw, NULL, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_fc_eval(&p, &ti, &tw, NULL, &to, NULL), AP_OK);
  CHECK_EQ(uo[0], 10 + 2 * 3 + (-2) * (-1));

  /* Hybrid, symmetric: x = [0.5, -1] -> 127/1 scale: [64, -127] (63.5 rounds up).
   * w = [2, 2] at 0.5: (128 - 254) = -126, times (1/127 * 0.5), plus bias 1. */
  float hx[2] = {0.5f, -1.0f}, hb[1] = {1.0f}, ho[1];
  int8_t hw[2] = {2, 2};
  ti = kt(AP_FLOAT32, hx, 2, 1, 2, 0, 0);
  tw = ktq(AP_INT8, hw, 2, 1, 2, 0, 0, 0.5f, 0);
  tb = kt(AP_FLOAT32, hb, 1, 1, 0, 0, 0);
  to = kout(AP_FLOAT32, ho, 0, 0);
  CHECK_EQ(ap_fc_prepare(&o, &ti, &tw, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(p.kind, AP_KFC_HYBRID);
  CHECK_EQ(ap_fc_eval(&p, &ti, &tw, &tb, &to, scratch), AP_OK);
  CHECK(ho[0] == 1.0f + -126.0f * (1.0f / 127.0f * 0.5f));
  /* All-zero input: the output is the bias, activation applied. */
  hx[0] = hx[1] = 0;
  hb[0] = -2.0f;
  o.activation = AP_KACT_RELU_N1_TO_1;
  CHECK_EQ(ap_fc_prepare(&o, &ti, &tw, &tb, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_fc_eval(&p, &ti, &tw, &tb, &to, scratch), AP_OK);
  CHECK(ho[0] == -1.0f);
}

static void test_pool(void) {
  /* Average, 3x3 input, 2x2 filter, stride 2, SAME: windows clip at the edge and average only
   * what they cover: (1+2+4+5)/4, (3+6)/2, (7+8)/2, 9. */
  float in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, out[4];
  ap_ktensor ti = kt(AP_FLOAT32, in, 4, 1, 3, 3, 1), to = kout(AP_FLOAT32, out, 0, 0);
  ap_pool_options o = {AP_KPAD_SAME, 2, 2, 2, 2, AP_KACT_NONE};
  ap_pool_params p;
  CHECK_EQ(ap_pool_prepare(AP_KPOOL_AVERAGE, &o, &ti, &to, &p, NULL), AP_OK);
  CHECK_DIMS4(to, 1, 2, 2, 1);
  CHECK_EQ(ap_pool_eval(&p, &ti, &to), AP_OK);
  float want[4] = {3, 4.5f, 7.5f, 9};
  CHECK_ARRAY(out, want, 4);
  CHECK_EQ(ap_pool_prepare(AP_KPOOL_MAX, &o, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_pool_eval(&p, &ti, &to), AP_OK);
  float wantm[4] = {5, 6, 8, 9};
  CHECK_ARRAY(out, wantm, 4);
  /* int8 average rounds half away from zero: pairs (1,2)=1.5, (-1,-2)=-1.5, (0,-1)=-0.5,
   * (1,0)=0.5, in a 1x8 input with a 1x2 filter, stride 2. */
  int8_t qi[8] = {1, 2, -1, -2, 0, -1, 1, 0}, qo[4];
  ti = ktq(AP_INT8, qi, 4, 1, 1, 8, 1, 1.0f, 0);
  to = kout(AP_INT8, qo, 1.0f, 0);
  ap_pool_options oq = {AP_KPAD_VALID, 2, 1, 2, 1, AP_KACT_NONE};
  CHECK_EQ(ap_pool_prepare(AP_KPOOL_AVERAGE, &oq, &ti, &to, &p, NULL), AP_OK);
  CHECK_DIMS4(to, 1, 1, 4, 1);
  CHECK_EQ(ap_pool_eval(&p, &ti, &to), AP_OK);
  int8_t wantq[4] = {2, -2, -1, 1};
  CHECK_ARRAY(qo, wantq, 4);
  /* int8 max with RELU at zero point 0: negatives clamp to 0. */
  oq.activation = AP_KACT_RELU;
  CHECK_EQ(ap_pool_prepare(AP_KPOOL_MAX, &oq, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_pool_eval(&p, &ti, &to), AP_OK);
  int8_t wantqm[4] = {2, 0, 0, 1};
  CHECK_ARRAY(qo, wantqm, 4);
  /* uint8 average: (3 + 4) / 2 = 3.5 -> 4. */
  uint8_t ui[2] = {3, 4}, uo[1];
  ti = ktq(AP_UINT8, ui, 4, 1, 1, 2, 1, 1.0f, 0);
  to = kout(AP_UINT8, uo, 1.0f, 0);
  oq.activation = AP_KACT_NONE;
  oq.stride_w = 1;
  CHECK_EQ(ap_pool_prepare(AP_KPOOL_AVERAGE, &oq, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_pool_eval(&p, &ti, &to), AP_OK);
  CHECK_EQ(uo[0], 4);
  ap_errbuf e = {""};
  ti = ktq(AP_INT8, qi, 4, 1, 1, 8, 1, 1.0f, 0);
  to = kout(AP_UINT8, uo, 1.0f, 0);
  CHECK_EQ(ap_pool_prepare(AP_KPOOL_MAX, &oq, &ti, &to, &p, &e), AP_ERR_UNSUPPORTED);
  CHECK_STR(e.msg, "MAX_POOL_2D: unsupported types INT8 -> UINT8");
}

static void test_softmax(void) {
  /* float: equal logits share equally; beta scales the logits. */
  float in[4] = {0, 0, 0, 0}, out[4];
  ap_ktensor ti = kt(AP_FLOAT32, in, 2, 1, 4, 0, 0), to = kout(AP_FLOAT32, out, 0, 0);
  ap_softmax_params p;
  CHECK_EQ(ap_softmax_prepare(1.0f, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_softmax_eval(&p, &ti, &to), AP_OK);
  CHECK(out[0] == 0.25f && out[3] == 0.25f);
  float in2[2] = {0, 1}, out2[2];
  ti = kt(AP_FLOAT32, in2, 1, 2, 0, 0, 0);
  to = kout(AP_FLOAT32, out2, 0, 0);
  CHECK_EQ(ap_softmax_prepare(2.0f, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_softmax_eval(&p, &ti, &to), AP_OK);
  CHECK(fabsf(out2[1] - (float)(1.0 / (1.0 + exp(-2.0)))) < 1e-6f);

  /* int8, four equal logits: 1/4 at scale 1/256 is 64 steps above -128. */
  int8_t qi[4] = {5, 5, 5, 5}, qo[4];
  ti = ktq(AP_INT8, qi, 2, 1, 4, 0, 0, 1.0f, 0);
  to = kout(AP_INT8, qo, 1.0f / 256, -128);
  CHECK_EQ(ap_softmax_prepare(1.0f, &ti, &to, &p, NULL), AP_OK);
  /* scale 1: 2^26 = 0.5 * 2^27; radius (31 * 2^26) / 2^27 = 15.5 -> 15 */
  CHECK_EQ(p.input_multiplier, 1073741824);
  CHECK_EQ(p.input_left_shift, 27);
  CHECK_EQ(p.diff_min, -15);
  CHECK_EQ(ap_softmax_eval(&p, &ti, &to), AP_OK);
  int8_t want[4] = {-64, -64, -64, -64};
  CHECK_ARRAY(qo, want, 4);
  /* int8 -> int16 (scale 1/65536, zero point -32768): 1/4 is 16384 steps above the minimum;
   * uint8 -> uint8 (scale 1/256, zero point 0): 64. */
  int16_t wo[4];
  ap_ktensor tw = kout(AP_INT16, wo, 1.0f / 65536, -32768);
  CHECK_EQ(ap_softmax_prepare(1.0f, &ti, &tw, &p, NULL), AP_OK);
  CHECK_EQ(ap_softmax_eval(&p, &ti, &tw), AP_OK);
  CHECK(wo[0] == -16384 && wo[3] == -16384);
  uint8_t ui[4] = {9, 9, 9, 9}, uo[4];
  ap_ktensor tui = ktq(AP_UINT8, ui, 2, 1, 4, 0, 0, 1.0f, 0),
             tuo = kout(AP_UINT8, uo, 1.0f / 256, 0);
  CHECK_EQ(ap_softmax_prepare(1.0f, &tui, &tuo, &p, NULL), AP_OK);
  CHECK_EQ(ap_softmax_eval(&p, &tui, &tuo), AP_OK);
  CHECK(uo[0] == 64 && uo[3] == 64);
  CHECK_EQ(ap_softmax_prepare(1.0f, &ti, &to, &p, NULL), AP_OK);
  /* One logit 16 steps above the rest: the others fall below diff_min and give exactly -128;
   * the winner's 1.0 saturates at 127. */
  int8_t qi2[4] = {20, 4, 4, 4};
  ti.data = qi2;
  CHECK_EQ(ap_softmax_eval(&p, &ti, &to), AP_OK);
  int8_t want2[4] = {127, -128, -128, -128};
  CHECK_ARRAY(qo, want2, 4);
  /* Against float softmax over a sweep of logits at scale 1/8: within one step. */
  int8_t qi3[10], qo3[10];
  for (int i = 0; i < 10; i++)
    qi3[i] = (int8_t)(i * 7 - 30);
  ti = ktq(AP_INT8, qi3, 2, 1, 10, 0, 0, 0.125f, 0);
  to = kout(AP_INT8, qo3, 1.0f / 256, -128);
  CHECK_EQ(ap_softmax_prepare(1.0f, &ti, &to, &p, NULL), AP_OK);
  CHECK_EQ(ap_softmax_eval(&p, &ti, &to), AP_OK);
  double sum = 0;
  for (int i = 0; i < 10; i++)
    sum += exp(qi3[i] * 0.125);
  for (int i = 0; i < 10; i++) {
    double want_q = round(exp(qi3[i] * 0.125) / sum * 256) - 128;
    if (want_q > 127) want_q = 127;
    CHECK_MSG(fabs(qo3[i] - want_q) <= 1, "[%d] %d vs %g", i, qo3[i], want_q);
  }
  /* The output quantization is fixed by TFLite Micro. */
  ap_errbuf e = {""};
  to = kout(AP_INT8, qo3, 1.0f / 128, -128);
  CHECK_EQ(ap_softmax_prepare(1.0f, &ti, &to, &p, &e), AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(e.msg, "SOFTMAX: unsupported INT8 -> INT8 with output scale");
}

int main(void) {
  test_fc();
  test_pool();
  test_softmax();
  return ap_test_done();
}
