/* SignalDelay, SignalFramer, SignalStacker and SignalOverlapAdd, hand-worked over several
 * runs (their state carries samples from one invoke to the next), a reset, and refusals. */
#include "sigtest.h"

static sig_run r;
static ap_ktensor t_in, t_out, t_valid;
static const ap_ktensor *ins[1] = {&t_in};
static ap_ktensor *outs[2] = {&t_out, &t_valid};

static void test_delay(void) {
  int16_t x[6], y[6];
  t_in = kt(AP_INT16, x, 2, 1, 3, 0, 0);
  t_out = kt(AP_INT16, y, 2, 1, 3, 0, 0);
  sig_opt o[] = {{"delay_length", 2, false}};
  sig_setup(&r, ins, 1, outs, 1, o, 1);
  /* Delay 2 on frames of 3: two zeros, then the stream. */
  int16_t in1[3] = {1, 2, 3}, in2[3] = {4, 5, 6}, w1[3] = {0, 0, 1}, w2[3] = {2, 3, 4};
  memcpy(x, in1, sizeof in1);
  CHECK_EQ(sig_do(&r, "SignalDelay"), AP_OK);
  CHECK_ARRAY(y, w1, 3);
  memcpy(x, in2, sizeof in2);
  CHECK_EQ(sig_do(&r, "SignalDelay"), AP_OK);
  CHECK_ARRAY(y, w2, 3);
  /* A reset brings the zeros back. */
  memset(r.state, 0, r.state_bytes);
  memcpy(x, in1, sizeof in1);
  CHECK_EQ(sig_do(&r, "SignalDelay"), AP_OK);
  CHECK_ARRAY(y, w1, 3);
  sig_free(&r);
  /* Delay 5, longer than a frame, on two rows that keep their own samples. */
  t_in = kt(AP_INT16, x, 2, 2, 3, 0, 0);
  t_out = kt(AP_INT16, y, 2, 2, 3, 0, 0);
  o[0].value = 5;
  sig_setup(&r, ins, 1, outs, 1, o, 1);
  int16_t a[6] = {1, 2, 3, -1, -2, -3}, b[6] = {4, 5, 6, -4, -5, -6};
  int16_t wa[6] = {0}, wb[6] = {0, 0, 1, 0, 0, -1};
  memcpy(x, a, sizeof a);
  CHECK_EQ(sig_do(&r, "SignalDelay"), AP_OK);
  CHECK_ARRAY(y, wa, 6);
  memcpy(x, b, sizeof b);
  CHECK_EQ(sig_do(&r, "SignalDelay"), AP_OK);
  CHECK_ARRAY(y, wb, 6);
  CHECK_EQ(sig_do(&r, "SignalDelay"), AP_OK); /* 2, 3, 4 and -2, -3, -4 */
  CHECK(y[0] == 2 && y[2] == 4 && y[3] == -2 && y[5] == -4);
  sig_free(&r);
  /* Delay 0 copies; a negative delay is refused. */
  o[0].value = 0;
  sig_setup(&r, ins, 1, outs, 1, o, 1);
  CHECK_EQ(sig_do(&r, "SignalDelay"), AP_OK);
  CHECK_ARRAY(y, b, 6);
  o[0].value = -1;
  sig_setup(&r, ins, 1, outs, 1, o, 1);
  CHECK_SIG_FAIL(&r, "SignalDelay", AP_ERR_UNSUPPORTED, "\"delay_length\" is -1");
}

static void framer_setup(int16_t *x, int n_in, int16_t *y, int frames, int size, bool *valid,
                         int step, bool prefill) {
  t_in = kt(AP_INT16, x, 1, n_in, 0, 0, 0);
  t_out = kt(AP_INT16, y, 2, frames, size, 0, 0);
  t_valid = kt(AP_BOOL, valid, 0, 0, 0, 0, 0);
  sig_opt o[] = {
      {"frame_size", size, false}, {"frame_step", step, false}, {"prefill", prefill, true}};
  sig_setup(&r, ins, 1, outs, 2, o, 3);
}

static void test_framer(void) {
  int16_t x[4], y[8];
  bool valid;
  /* Frames of 4 every 2 samples, two steps per run. Run 1: the first step leaves 2 samples
   * (not a frame: valid false, that frame untouched), the second makes 1 2 3 4. */
  framer_setup(x, 4, y, 2, 4, &valid, 2, false);
  int16_t in1[4] = {1, 2, 3, 4}, in2[4] = {5, 6, 7, 8};
  memcpy(x, in1, sizeof in1);
  memset(y, 0x7f, sizeof y);
  CHECK_EQ(sig_do(&r, "SignalFramer"), AP_OK);
  CHECK(!valid);
  CHECK_EQ(y[0], 0x7f7f);
  int16_t w1[4] = {1, 2, 3, 4};
  CHECK_ARRAY(y + 4, w1, 4);
  memcpy(x, in2, sizeof in2);
  CHECK_EQ(sig_do(&r, "SignalFramer"), AP_OK);
  CHECK(valid);
  int16_t w2[8] = {3, 4, 5, 6, 5, 6, 7, 8};
  CHECK_ARRAY(y, w2, 8);
  sig_free(&r);
  /* Prefill: frame_size - frame_step zeros are there from the start. */
  framer_setup(x, 4, y, 2, 4, &valid, 2, true);
  memcpy(x, in1, sizeof in1);
  CHECK_EQ(sig_do(&r, "SignalFramer"), AP_OK);
  CHECK(valid);
  int16_t w3[8] = {0, 0, 1, 2, 1, 2, 3, 4};
  CHECK_ARRAY(y, w3, 8);
  /* A reset prefills again. */
  memset(r.state, 0, r.state_bytes);
  CHECK_EQ(sig_do(&r, "SignalFramer"), AP_OK);
  CHECK_ARRAY(y, w3, 8);
  sig_free(&r);
  /* Frames of 5 every 2 (TFLite Micro's buffer: 6), prefilled with 3 zeros. */
  framer_setup(x, 2, y, 1, 5, &valid, 2, true);
  x[0] = 1, x[1] = 2;
  CHECK_EQ(sig_do(&r, "SignalFramer"), AP_OK);
  int16_t w4[5] = {0, 0, 0, 1, 2};
  CHECK_ARRAY(y, w4, 5);
  x[0] = 3, x[1] = 4;
  CHECK_EQ(sig_do(&r, "SignalFramer"), AP_OK);
  int16_t w5[5] = {0, 1, 2, 3, 4};
  CHECK_ARRAY(y, w5, 5);
  CHECK(valid);
  sig_free(&r);
  /* Rows that are not whole steps; prefill with a step above the frame; an output of the wrong
   * size. */
  framer_setup(x, 4, y, 1, 4, &valid, 3, false);
  CHECK_SIG_FAIL(&r, "SignalFramer", AP_ERR_FORMAT, "not whole steps of 3");
  framer_setup(x, 4, y, 1, 2, &valid, 4, true);
  CHECK_SIG_FAIL(&r, "SignalFramer", AP_ERR_UNSUPPORTED, "prefill with frame_step 4");
  framer_setup(x, 4, y, 1, 4, &valid, 2, false);
  CHECK_SIG_FAIL(&r, "SignalFramer", AP_ERR_FORMAT, "output has 4 elements");
}

static void stacker_setup(int16_t *x, int16_t *y, int out_n, bool *valid, int left, int right,
                          int step) {
  t_in = kt(AP_INT16, x, 1, 2, 0, 0, 0);
  t_out = kt(AP_INT16, y, 1, out_n, 0, 0, 0);
  t_valid = kt(AP_BOOL, valid, 0, 0, 0, 0, 0);
  sig_opt o[] = {{"num_channels", 2, false},
                 {"stacker_left_context", left, false},
                 {"stacker_right_context", right, false},
                 {"stacker_step", step, false}};
  sig_setup(&r, ins, 1, outs, 2, o, 4);
}

static void test_stacker(void) {
  int16_t x[2], y[6];
  bool valid;
  /* 2 channels, one frame of context each side: stacks of 3 frames. The first frame also
   * stands for the left context, so the second run has a stack: 1 2 | 1 2 | 3 4. */
  stacker_setup(x, y, 6, &valid, 1, 1, 1);
  x[0] = 1, x[1] = 2;
  y[0] = 99;
  CHECK_EQ(sig_do(&r, "SignalStacker"), AP_OK);
  CHECK(!valid);
  CHECK_EQ(y[0], 99);
  x[0] = 3, x[1] = 4;
  CHECK_EQ(sig_do(&r, "SignalStacker"), AP_OK);
  CHECK(valid);
  int16_t w1[6] = {1, 2, 1, 2, 3, 4};
  CHECK_ARRAY(y, w1, 6);
  x[0] = 5, x[1] = 6;
  CHECK_EQ(sig_do(&r, "SignalStacker"), AP_OK);
  int16_t w2[6] = {1, 2, 3, 4, 5, 6};
  CHECK_ARRAY(y, w2, 6);
  CHECK(valid);
  sig_free(&r);
  /* Step 2: every other run makes a stack. */
  stacker_setup(x, y, 6, &valid, 1, 1, 2);
  bool seen[4];
  for (int k = 0; k < 4; k++) {
    x[0] = (int16_t)(10 * k), x[1] = (int16_t)(10 * k + 1);
    CHECK_EQ(sig_do(&r, "SignalStacker"), AP_OK);
    seen[k] = valid;
  }
  CHECK(!seen[0] && seen[1] && !seen[2] && seen[3]);
  int16_t w3[6] = {10, 11, 20, 21, 30, 31};
  CHECK_ARRAY(y, w3, 6);
  sig_free(&r);
  /* A step past the stack; an output of another size. */
  stacker_setup(x, y, 6, &valid, 1, 1, 4);
  CHECK_SIG_FAIL(&r, "SignalStacker", AP_ERR_UNSUPPORTED, "stacker_step 4 is more than the 3");
  stacker_setup(x, y, 4, &valid, 1, 1, 1);
  CHECK_SIG_FAIL(&r, "SignalStacker", AP_ERR_FORMAT, "output 4 (6 expected)");
}

static void test_overlap_add(void) {
  int16_t x[8], y[4];
  t_in = kt(AP_INT16, x, 2, 2, 4, 0, 0);
  t_out = kt(AP_INT16, y, 1, 4, 0, 0, 0);
  sig_opt o[] = {{"T", AP_INT16, false}, {"frame_step", 2, false}};
  sig_setup(&r, ins, 1, outs, 1, o, 2);
  /* Frames of 4 every 2: 1 2 3 4 gives 1 2 and keeps 3 4; plus 10 20 30 40: 13 24, keeps
   * 30 40; the next run starts from 30 40 0 0. */
  int16_t a[8] = {1, 2, 3, 4, 10, 20, 30, 40}, z[8] = {0};
  memcpy(x, a, sizeof a);
  CHECK_EQ(sig_do(&r, "SignalOverlapAdd"), AP_OK);
  int16_t w1[4] = {1, 2, 13, 24};
  CHECK_ARRAY(y, w1, 4);
  memcpy(x, z, sizeof z);
  CHECK_EQ(sig_do(&r, "SignalOverlapAdd"), AP_OK);
  int16_t w2[4] = {30, 40, 0, 0};
  CHECK_ARRAY(y, w2, 4);
  /* The int16 sum saturates: 32767 + 32767 and -32768 - 32768 (the second frame's start on the
   * first one's carried tail). */
  int16_t s[8] = {0, 0, 32767, -32768, 32767, -32768, 0, 0};
  memcpy(x, s, sizeof s);
  CHECK_EQ(sig_do(&r, "SignalOverlapAdd"), AP_OK);
  CHECK(y[2] == 32767 && y[3] == -32768);
  sig_free(&r);
  /* float32 */
  float xf[8] = {1, 2, 3, 4, 10, 20, 30, 40}, yf[4];
  t_in = kt(AP_FLOAT32, xf, 2, 2, 4, 0, 0);
  t_out = kt(AP_FLOAT32, yf, 1, 4, 0, 0, 0);
  o[0].value = AP_FLOAT32;
  sig_setup(&r, ins, 1, outs, 1, o, 2);
  CHECK_EQ(sig_do(&r, "SignalOverlapAdd"), AP_OK);
  float wf[4] = {1, 2, 13, 24};
  CHECK_ARRAY(yf, wf, 4);
  sig_free(&r);
  /* A step above the frame; a type other than the tensors'; an unsupported T. */
  o[1].value = 5;
  sig_setup(&r, ins, 1, outs, 1, o, 2);
  CHECK_SIG_FAIL(&r, "SignalOverlapAdd", AP_ERR_UNSUPPORTED, "frame_step 5 is more than");
  o[0].value = AP_INT16;
  o[1].value = 2;
  sig_setup(&r, ins, 1, outs, 1, o, 2);
  CHECK_SIG_FAIL(&r, "SignalOverlapAdd", AP_ERR_UNSUPPORTED, "input is FLOAT32, expected INT16");
  o[0].value = AP_INT32;
  sig_setup(&r, ins, 1, outs, 1, o, 2);
  CHECK_SIG_FAIL(&r, "SignalOverlapAdd", AP_ERR_UNSUPPORTED, "type INT32 (option T)");
}

int main(void) {
  test_delay();
  test_framer();
  test_stacker();
  test_overlap_add();
  sig_free(&r);
  return ap_test_done();
}
