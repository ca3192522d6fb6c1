/* UNIDIRECTIONAL_SEQUENCE_LSTM and its int16 sigmoid and tanh. Expected values are worked out
 * by hand in the comments from TFLite's definitions (the interpolated table sigmoid_table_uint16
 * at the nodes used, whose values are 65536 sigmoid(i / 24) rounded: checked against
 * sigmoid itself in each comment), not read from our output. */
#include "kernels/lstm.h"
#include "ktest.h"

#include <string.h>

static void test_act16(void) {
  /* Logistic, Q3.12 in: 3x / 512 is the table index. 0 -> 0.5 = 16384. 512 (0.125): node 3,
   * 34813 (65536 sigmoid(0.125) = 34813.4): (34813 << 9 + 512) >> 10 = 17407 (32768 x 0.53121 =
   * 17406.7). -512: (2^25 - 34813 << 9 + 511) >> 10 = 15361 (32768 x 0.46879 = 15361.3).
   * -32768 (-8): node 192, 65514: (2^25 - 65514 << 9 + 511) >> 10 = 11 (32768 sigmoid(-8) = 11.0).
   * 32767: node 191 (65513) + 509/512 of the step to 65514: (65513 * 512 + 509 + 512) >> 10 =
   * 32757 (32768 sigmoid(7.99976) = 32757.0): the int16 range never reaches the saturation.
   * -1: 3/512 of the first step (683): 2^25 - (16777216 + 2049) + 511 >> 10 = 16382. */
  int16_t v[6] = {0, 512, -512, -32768, 32767, -1};
  ap_kact16_logistic(v, 6);
  int16_t want[6] = {16384, 17407, 15361, 11, 32757, 16382};
  CHECK_ARRAY(v, want, 6);

  /* Tanh, Q3.12 in (multiplier 0, shift 0: 3x / 256 is the index). 256 (0.0625): node 3:
   * (34813 << 8) - 2^23 + 128 >> 8 = 2045 (32768 tanh(0.0625) = 2045.4); -256 gives -2045 (the
   * floor of -2044.5). |x| >= 21760 saturates: 32767, and -32767 (not -32768) below. */
  int16_t t[6] = {0, 256, -256, 32767, -32768, 21760}, out[6];
  ap_kact16_tanh(0, 0, t, out, 6);
  int16_t want_t[6] = {0, 2045, -2045, 32767, -32767, 32767};
  CHECK_ARRAY(out, want_t, 6);
  /* Q4.11 (cell scale 2^-11, TFLite Micro's shift 15 - 11 - 3 = 1, multiplier 0 -> 6):
   * 128 is 0.0625 again. Q2.13 (scale 2^-13: shift -1 -> multiplier 3, right shift 1 with
   * rounding): 512 is 0.0625; 1 -> (3 + 1) >> 1 = 2 and -1 -> (-3 + 1) >> 1 = -1 in the table's
   * units: 2 / 256 of node 0..1 (32768 -> 33451): (32768 << 8 + 2 * 683) - 2^23 + 128 >> 8 = 5,
   * and -1: -(32768 << 8 + 683) + 2^23 + 127 >> 8 = -3. */
  int16_t q411 = 128, q213[3] = {512, 1, -1}, o1, o3[3];
  ap_kact16_tanh(0, 1, &q411, &o1, 1);
  CHECK_EQ(o1, 2045);
  ap_kact16_tanh(3, 1, q213, o3, 3);
  int16_t want3[3] = {2045, 5, -3};
  CHECK_ARRAY(o3, want3, 3);
}

typedef struct lstm_case {
  _Alignas(16) unsigned char params[AP_KPARAMS_SIZE];
  _Alignas(16) unsigned char scratch[1024];
  ap_ktensor t[24], out;
  const ap_ktensor *in[24];
  ap_ktensor *outs[1];
  ap_kop_options opt;
  ap_errbuf err;
  ap_kctx c;
} lstm_case;

/* Wires the 24 inputs (NULL where t[i] has no data) and runs prepare, then eval without options
 * as the runtime does. */
static ap_status run(lstm_case *k) {
  for (int i = 0; i < 24; i++)
    k->in[i] = k->t[i].data ? &k->t[i] : NULL;
  k->outs[0] = &k->out;
  k->opt.activation = k->opt.activation ? k->opt.activation : AP_KACT_TANH;
  k->c = (ap_kctx){k->in, 24, k->outs, 1, &k->opt, k->params, NULL, &k->err};
  const ap_kernel *kern = ap_kernel_find(44);
  if (!kern) return AP_ERR_UNSUPPORTED;
  size_t scratch = 0;
  ap_status s = kern->prepare(&k->c, &scratch);
  if (s != AP_OK) return s;
  if (scratch > sizeof k->scratch) return AP_ERR_INVALID_PLAN;
  static const ap_kop_options none;
  k->c.options = &none;
  k->c.scratch = k->scratch;
  return kern->eval(&k->c);
}

/* int8: 1 batch, 2 steps, 1 input, 2 cells; recurrent weights 0 so each gate is
 * sat16(w x + b) in Q3.12 (input scale 2^-7 x weight scale 2^-5 = 2^-12: multiplier 1).
 * x = 127: forget, input and output gates: 127 * 127 + 20000 > 32767 -> 32767 -> sigmoid 32757;
 * the cell gate: +32767 for cell 0 and -32768 for cell 1 -> tanh +-32767. Cell scale 2^-15.
 * Step 1: cell = 0 + MBQM(32757 * +-32767, ~2^-15) = +-32756 (32755.98: the gate scale is
 * 0.00003051757f, a hair under 2^-15). Step 2: cell = MBQM(32757 * +-32756) = +-32745 (plus
 * +-32756): +-65501 saturates to 32767 and -32768. Hidden (scale 2^-7, zero point 10):
 * tanh(cell) with multiplier 3, right shift 3 (scale power -15): step 2, cell 32767 ->
 * (98301 + 4) >> 3 = 12288, node 48 (57724 = 65536 sigmoid(2)): 24956 (32768 tanh(1) = 24956);
 * -32768 -> -12288 -> -24956; times 32757 at ~2^-23: +-97.45 -> +-97, plus 10: 107 and -87.
 * Step 1's cells +-32756 -> 12284 and -12283 -> tanh 24951 and -24950 -> 97.43 and -97.43 ->
 * 107 and -87 too. */
static void int8_case(lstm_case *k, int8_t *x, int8_t *w, int32_t *bias, int8_t *r, int8_t *h,
                      int16_t *cell, int8_t *out) {
  memset(k, 0, sizeof *k);
  k->t[AP_LSTM_INPUT] = ktq(AP_INT8, x, 3, 1, 2, 1, 0, 1.0f / 128, 0);
  for (int g = 0; g < 4; g++) {
    k->t[AP_LSTM_W_INPUT + g] = ktq(AP_INT8, w + 2 * g, 2, 2, 1, 0, 0, 1.0f / 32, 0);
    k->t[AP_LSTM_R_INPUT + g] = ktq(AP_INT8, r, 2, 2, 2, 0, 0, 1.0f / 32, 0);
    k->t[AP_LSTM_BIAS_INPUT + g] = ktq(AP_INT32, bias + 2 * g, 1, 2, 0, 0, 0, 1.0f / 4096, 0);
  }
  k->t[AP_LSTM_HIDDEN] = ktq(AP_INT8, h, 2, 1, 2, 0, 0, 1.0f / 128, 10);
  k->t[AP_LSTM_CELL] = ktq(AP_INT16, cell, 2, 1, 2, 0, 0, 1.0f / 32768, 0);
  k->t[AP_LSTM_HIDDEN].is_variable = k->t[AP_LSTM_CELL].is_variable = true;
  k->out = kout(AP_INT8, out, 1.0f / 128, 10);
}

static void test_int8(void) {
  static lstm_case k;
  int8_t x[2] = {127, 127}, r[4] = {0}, out[4];
  /* Gates in tensor order: input, forget, cell, output; cell 1's cell gate is negative. */
  int8_t w[8] = {127, 127, 127, 127, 127, -127, 127, 127};
  int32_t bias[8] = {20000, 20000, 20000, 20000, 20000, -20000, 20000, 20000};
  static const float clips[3] = {0.0f, 10.0f, 0.5f};
  /* No clip: saturated at both ends. Clip 10 (327680 units, saturating to 32767): symmetric,
   * so -32768 becomes -32767. Clip 0.5 (16384 units): the cell stops at +-16384 each step;
   * tanh(0.5) in Q0.15 and the hidden state follow: 16384 -> (49152 + 4) >> 3 = 6144, node 24
   * (47911 = 65536 sigmoid(1)): (47911 << 8) - 2^23 + 128 >> 8 = 15143 (32768 tanh(0.5) =
   * 15142.7); x 32757 at ~2^-23 = 59.13 -> 59, plus 10 = 69; -16384 -> -6144 -> -15143 -> -59
   * + 10 = -49. */
  static const int16_t want_cell[3][2] = {{32767, -32768}, {32767, -32767}, {16384, -16384}};
  static const int8_t want_out[3][4] = {
      {107, -87, 107, -87}, {107, -87, 107, -87}, {69, -49, 69, -49}};
  for (int i = 0; i < 3; i++) {
    int8_t h[2] = {10, 10};
    int16_t cell[2] = {0, 0};
    int8_case(&k, x, w, bias, r, h, cell, out);
    k.opt.lstm.cell_clip = clips[i];
    CHECK_MSG(run(&k) == AP_OK, "clip %g: %s", clips[i], k.err.msg);
    CHECK_ARRAY(cell, want_cell[i], 2);
    CHECK_ARRAY(out, want_out[i], 4);
    CHECK_EQ(h[0], want_out[i][2]);
    CHECK_EQ(h[1], want_out[i][3]);
    CHECK_EQ(k.out.rank, 3);
    CHECK(k.out.dims[0] == 1 && k.out.dims[1] == 2 && k.out.dims[2] == 2);
  }
}

/* float32, 1 step, 1 input, 1 cell, zero recurrent weights: each gate is act(x w + b) summed as
 * TFLite Micro does ((0 + x w) + b, then + the recurrent 0). x = 0.5, w = 2, b = 0.5: 1.5. */
static void test_float(void) {
  static lstm_case k;
  for (int clip = 0; clip < 2; clip++) {
    float x = 0.5f, w[4] = {2, 2, 2, 2}, b[4] = {0.5f, 0.5f, 0.5f, 0.5f}, r = 0, h = 0, cell = 0,
          out = 0;
    memset(&k, 0, sizeof k);
    k.t[AP_LSTM_INPUT] = kt(AP_FLOAT32, &x, 3, 1, 1, 1, 0);
    for (int g = 0; g < 4; g++) {
      k.t[AP_LSTM_W_INPUT + g] = kt(AP_FLOAT32, &w[g], 2, 1, 1, 0, 0);
      k.t[AP_LSTM_R_INPUT + g] = kt(AP_FLOAT32, &r, 2, 1, 1, 0, 0);
      k.t[AP_LSTM_BIAS_INPUT + g] = kt(AP_FLOAT32, &b[g], 1, 1, 0, 0, 0);
    }
    k.t[AP_LSTM_HIDDEN] = kt(AP_FLOAT32, &h, 2, 1, 1, 0, 0);
    k.t[AP_LSTM_CELL] = kt(AP_FLOAT32, &cell, 2, 1, 1, 0, 0);
    k.t[AP_LSTM_HIDDEN].is_variable = k.t[AP_LSTM_CELL].is_variable = true;
    k.out = kout(AP_FLOAT32, &out, 0, 0);
    k.opt.lstm.cell_clip = clip ? 0.25f : 0.0f;
    CHECK_MSG(run(&k) == AP_OK, "%s", k.err.msg);
    float s = 1.0f / (1.0f + expf(-1.5f)), g = tanhf(1.5f);
    float want_cell = clip ? 0.25f : 0.0f * s + s * g;
    CHECK(cell == want_cell);
    CHECK(out == tanhf(want_cell) * s && h == out);
  }
}

/* time_major: a [time, batch, input] input runs each step on the whole batch; the same data
 * laid out [batch, time, input] runs batch after batch. Both give each batch row the same
 * sequence of states, so out[b][t] agrees between the layouts, and so do the final states. */
static void run_layout(bool time_major, const float *x, float *out, float *h, float *cell) {
  static lstm_case k;
  static float w[4] = {0.5f, -1, 2, 0.25f}, r[4] = {0.75f, 0.5f, -0.5f, 1}, b[4] = {0, 0.1f, 0, 1};
  memset(&k, 0, sizeof k);
  k.t[AP_LSTM_INPUT] = kt(AP_FLOAT32, (void *)x, 3, 3, 3, 1, 0); /* 3 x 3 either way */
  for (int g = 0; g < 4; g++) {
    k.t[AP_LSTM_W_INPUT + g] = kt(AP_FLOAT32, &w[g], 2, 1, 1, 0, 0);
    k.t[AP_LSTM_R_INPUT + g] = kt(AP_FLOAT32, &r[g], 2, 1, 1, 0, 0);
    k.t[AP_LSTM_BIAS_INPUT + g] = kt(AP_FLOAT32, &b[g], 1, 1, 0, 0, 0);
  }
  k.t[AP_LSTM_HIDDEN] = kt(AP_FLOAT32, h, 2, 3, 1, 0, 0);
  k.t[AP_LSTM_CELL] = kt(AP_FLOAT32, cell, 2, 3, 1, 0, 0);
  k.t[AP_LSTM_HIDDEN].is_variable = k.t[AP_LSTM_CELL].is_variable = true;
  k.out = kout(AP_FLOAT32, out, 0, 0);
  k.opt.lstm.time_major = time_major;
  CHECK_MSG(run(&k) == AP_OK, "%s", k.err.msg);
}

static void test_time_major(void) {
  float xb[9] = {1, -2, 0.5f, 3, 0, -1, 0.25f, 2, -0.5f}, xt[9], ob[9], ot[9];
  for (int b = 0; b < 3; b++)
    for (int t = 0; t < 3; t++)
      xt[t * 3 + b] = xb[b * 3 + t];
  float hb[3] = {0}, cb[3] = {0}, ht[3] = {0}, ct[3] = {0};
  run_layout(false, xb, ob, hb, cb);
  run_layout(true, xt, ot, ht, ct);
  for (int b = 0; b < 3; b++)
    for (int t = 0; t < 3; t++)
      CHECK_MSG(ob[b * 3 + t] == ot[t * 3 + b], "batch %d step %d", b, t);
  CHECK_ARRAY(hb, ht, 3);
  CHECK_ARRAY(cb, ct, 3);
  CHECK(hb[0] != hb[1] && hb[1] != hb[2]); /* the rows really differ */
}

/* What TFLite Micro refuses, refused with the reason. */
static void test_refused(void) {
  static lstm_case k;
  int8_t x[2] = {0}, w[8] = {0}, r[4] = {0}, h[2] = {0}, out[4];
  int32_t bias[8] = {0};
  int16_t cell[2] = {0}, peep[2] = {0};
  int8_case(&k, x, w, bias, r, h, cell, out);
  k.t[AP_LSTM_PEEPHOLE + 1] = ktq(AP_INT16, peep, 1, 2, 0, 0, 0, 1.0f, 0);
  CHECK_EQ(run(&k), AP_ERR_UNSUPPORTED);
  CHECK_STR(k.err.msg, "UNIDIRECTIONAL_SEQUENCE_LSTM: peephole LSTM is not supported");

  int8_case(&k, x, w, bias, r, h, cell, out);
  memset(&k.t[AP_LSTM_W_INPUT], 0, sizeof k.t[0]);
  CHECK_EQ(run(&k), AP_ERR_UNSUPPORTED);
  CHECK_STR(k.err.msg, "UNIDIRECTIONAL_SEQUENCE_LSTM: the input gate's weights or bias are "
                       "missing (CIFG LSTM is not supported)");

  int8_case(&k, x, w, bias, r, h, cell, out);
  k.t[AP_LSTM_LAYER_NORM + 2] = ktq(AP_INT16, peep, 1, 2, 0, 0, 0, 1.0f, 0);
  CHECK_EQ(run(&k), AP_ERR_UNSUPPORTED);
  CHECK_STR(k.err.msg, "UNIDIRECTIONAL_SEQUENCE_LSTM: layer-norm LSTM is not supported");

  int8_case(&k, x, w, bias, r, h, cell, out);
  k.t[AP_LSTM_PROJECTION] = ktq(AP_INT8, r, 2, 2, 2, 0, 0, 1.0f, 0);
  CHECK_EQ(run(&k), AP_ERR_UNSUPPORTED);
  CHECK_STR(k.err.msg, "UNIDIRECTIONAL_SEQUENCE_LSTM: LSTM with projection is not supported");

  int8_case(&k, x, w, bias, r, h, cell, out);
  k.opt.activation = AP_KACT_RELU;
  CHECK_EQ(run(&k), AP_ERR_UNSUPPORTED);
  CHECK_STR(k.err.msg,
            "UNIDIRECTIONAL_SEQUENCE_LSTM: cell activation 1 is not supported (only TANH)");

  int8_case(&k, x, w, bias, r, h, cell, out);
  k.t[AP_LSTM_CELL].is_variable = false;
  CHECK_EQ(run(&k), AP_ERR_FORMAT);
  CHECK_CONTAINS(k.err.msg, "must be variable tensors");

  int8_case(&k, x, w, bias, r, h, cell, out);
  k.t[AP_LSTM_CELL].type = AP_INT8;
  CHECK_EQ(run(&k), AP_ERR_UNSUPPORTED);
  CHECK_STR(k.err.msg, "UNIDIRECTIONAL_SEQUENCE_LSTM: INT8 input with a INT8 cell state is not "
                       "supported (FLOAT32, or INT8 with INT16)");

  int8_case(&k, x, w, bias, r, h, cell, out);
  k.t[AP_LSTM_R_INPUT + 3].dims[1] = 3;
  CHECK_EQ(run(&k), AP_ERR_FORMAT);
  CHECK_STR(k.err.msg, "UNIDIRECTIONAL_SEQUENCE_LSTM: output gate: weights must be [2,1] and "
                       "[2,2], the bias [2]");

  int8_case(&k, x, w, bias, r, h, cell, out);
  k.t[AP_LSTM_CELL].scale = 1.0f / (1 << 30);
  CHECK_EQ(run(&k), AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(k.err.msg, "cell state scale 9.31323e-10 is out of range (2^-27 to 2^2)");

  /* Eval refuses a missing scratch or a changed shape instead of overrunning. */
  int8_case(&k, x, w, bias, r, h, cell, out);
  CHECK_EQ(run(&k), AP_OK);
  k.c.scratch = NULL;
  CHECK_EQ(ap_kernel_find(44)->eval(&k.c), AP_ERR_ARG);
  k.c.scratch = k.scratch;
  k.t[AP_LSTM_INPUT].dims[1] = 3;
  CHECK_EQ(ap_kernel_find(44)->eval(&k.c), AP_ERR_ARG);
}

int main(void) {
  test_act16();
  test_int8();
  test_float();
  test_time_major();
  test_refused();
  return ap_test_done();
}
