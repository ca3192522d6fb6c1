/* The Signal library's front-end ops, hand-worked: window, FFT auto-scale, energy, filter bank,
 * square root, spectral subtraction (state across runs), log, PCAN; and their refusals. */
#include "sigtest.h"

#include <math.h>

static void test_window(void) {
  /* Two frames of a 2-tap window, shift 14: products floor and saturate to int16. */
  int16_t x[4] = {1000, -3, 32767, -32768}, w[2] = {16384, 8192}, y[4];
  ap_ktensor in = kt(AP_INT16, x, 2, 2, 2, 0, 0), win = kt(AP_INT16, w, 1, 2, 0, 0, 0);
  ap_ktensor out = kt(AP_INT16, y, 2, 2, 2, 0, 0);
  const ap_ktensor *ins[] = {&in, &win};
  ap_ktensor *outs[] = {&out};
  sig_opt o[] = {{"shift", 14, false}};
  sig_run r;
  sig_setup(&r, ins, 2, outs, 1, o, 1);
  CHECK_EQ(sig_do(&r, "SignalWindow"), AP_OK);
  /* 1000*16384>>14 = 1000; -3*8192>>14 = floor(-1.5) = -2; 32767*16384>>14 = 32767;
   * -32768*8192>>14 = -16384. */
  int16_t want[4] = {1000, -2, 32767, -16384};
  CHECK_ARRAY(y, want, 4);
  /* shift 0: 32767 * 16384 saturates high, -32768 * 8192 low. */
  o[0].value = 0;
  sig_setup(&r, ins, 2, outs, 1, o, 1);
  CHECK_EQ(sig_do(&r, "SignalWindow"), AP_OK);
  CHECK_EQ(y[2], 32767);
  CHECK_EQ(y[3], -32768);
  /* Hostile: shift 32, a window that does not tile the input, no options, a missing key. */
  o[0].value = 32;
  sig_setup(&r, ins, 2, outs, 1, o, 1);
  CHECK_SIG_FAIL(&r, "SignalWindow", AP_ERR_UNSUPPORTED, "\"shift\" is 32");
  o[0].value = 1;
  ap_ktensor win3 = kt(AP_INT16, w, 1, 3, 0, 0, 0);
  const ap_ktensor *ins3[] = {&in, &win3};
  sig_setup(&r, ins3, 2, outs, 1, o, 1);
  CHECK_SIG_FAIL(&r, "SignalWindow", AP_ERR_FORMAT, "whole windows of 3");
  sig_setup(&r, ins, 2, outs, 1, NULL, 0);
  CHECK_SIG_FAIL(&r, "SignalWindow", AP_ERR_FORMAT, "no options");
  sig_opt other[] = {{"shifts", 1, false}};
  sig_setup(&r, ins, 2, outs, 1, other, 1);
  CHECK_SIG_FAIL(&r, "SignalWindow", AP_ERR_FORMAT, "\"shift\" is missing");
  /* Garbage options bytes, wrong arity, wrong types. */
  sig_setup(&r, ins, 2, outs, 1, o, 1);
  r.opt.custom_options_size = 5;
  CHECK_SIG_FAIL(&r, "SignalWindow", AP_ERR_FORMAT, "options");
  sig_setup(&r, ins, 1, outs, 1, o, 1);
  CHECK_SIG_FAIL(&r, "SignalWindow", AP_ERR_FORMAT, "expected 2 inputs");
  ap_ktensor fin = kt(AP_FLOAT32, x, 2, 2, 2, 0, 0);
  const ap_ktensor *insf[] = {&fin, &win};
  sig_setup(&r, insf, 2, outs, 1, o, 1);
  CHECK_SIG_FAIL(&r, "SignalWindow", AP_ERR_UNSUPPORTED, "input is FLOAT32, expected INT16");
}

static void auto_scale(const int16_t *x, int n, int16_t *y, int32_t *bits, ap_status want) {
  ap_ktensor in = kt(AP_INT16, (void *)x, 1, n, 0, 0, 0), out = kt(AP_INT16, y, 1, n, 0, 0, 0);
  ap_ktensor b = kt(AP_INT32, bits, 0, 0, 0, 0, 0);
  const ap_ktensor *ins[] = {&in};
  ap_ktensor *outs[] = {&out, &b};
  sig_opt none[1] = {{"", 0, false}};
  sig_run r;
  sig_setup(&r, ins, 1, outs, 2, none, 0); /* an empty map, as the model carries */
  CHECK_EQ(sig_do(&r, "SignalFftAutoScale"), want);
}

static void test_fft_auto_scale(void) {
  int16_t y[4];
  int32_t bits = -1;
  /* Largest magnitude 200 has 8 bits: shift by 16 - 8 - 1 = 7. */
  int16_t a[4] = {0, 100, -200, 50};
  auto_scale(a, 4, y, &bits, AP_OK);
  int16_t wa[4] = {0, 12800, -25600, 6400};
  CHECK_ARRAY(y, wa, 4);
  CHECK_EQ(bits, 7);
  /* All zeros: TFLite Micro's bit count of 0 is 32 (GCC), so no shift. */
  int16_t z[2] = {0, 0};
  auto_scale(z, 2, y, &bits, AP_OK);
  CHECK_EQ(bits, 0);
  int16_t one[1] = {1};
  auto_scale(one, 1, y, &bits, AP_OK);
  CHECK_EQ(bits, 14);
  CHECK_EQ(y[0], 16384);
  /* -32768 negates to 32768, which the int16 maximum wraps to -32768; 5 then beats it, and
   * the shift of 12 wraps -32768 to 0. */
  int16_t q[2] = {-32768, 5};
  auto_scale(q, 2, y, &bits, AP_OK);
  CHECK_EQ(bits, 12);
  CHECK_EQ(y[0], 0);
  CHECK_EQ(y[1], 20480);
  /* Input and output of different lengths. */
  ap_ktensor in = kt(AP_INT16, a, 1, 4, 0, 0, 0), out = kt(AP_INT16, y, 1, 3, 0, 0, 0);
  ap_ktensor b = kt(AP_INT32, &bits, 0, 0, 0, 0, 0);
  const ap_ktensor *ins[] = {&in};
  ap_ktensor *outs[] = {&out, &b};
  sig_run r;
  sig_setup(&r, ins, 1, outs, 2, NULL, 0);
  CHECK_SIG_FAIL(&r, "SignalFftAutoScale", AP_ERR_FORMAT, "input has 4 elements, output 3");
}

static void test_energy(void) {
  int16_t x[8] = {3, 4, -32768, -32768, 100, 0, 1, 1};
  uint32_t y[4] = {7, 7, 7, 7};
  ap_ktensor in = kt(AP_INT16, x, 1, 8, 0, 0, 0), out = kt(AP_UINT32, y, 1, 4, 0, 0, 0);
  const ap_ktensor *ins[] = {&in};
  ap_ktensor *outs[] = {&out};
  sig_opt o[] = {{"end_index", 3, false}, {"start_index", 1, false}};
  sig_run r;
  sig_setup(&r, ins, 1, outs, 1, o, 2);
  CHECK_EQ(sig_do(&r, "SignalEnergy"), AP_OK);
  /* Bins 1 and 2 only; 2 * 32768^2 = 2^31 wraps int32 in TFLite Micro, fits uint32 here. */
  uint32_t want[4] = {0, 2147483648u, 10000, 0};
  CHECK_ARRAY(y, want, 4);
  o[0].value = 5;
  sig_setup(&r, ins, 1, outs, 1, o, 2);
  CHECK_SIG_FAIL(&r, "SignalEnergy", AP_ERR_FORMAT, "end_index 5 is past");
  o[0].value = 3;
  o[1].value = -1;
  sig_setup(&r, ins, 1, outs, 1, o, 2);
  CHECK_SIG_FAIL(&r, "SignalEnergy", AP_ERR_UNSUPPORTED, "\"start_index\" is -1");
}

typedef struct fb_case {
  uint32_t x[4];
  int16_t w[4], uw[4], freq[3], wstart[3], width[3];
  uint64_t y[2];
} fb_case;

static ap_status filter_bank(fb_case *k, int channels, int out_n, sig_run *r) {
  static ap_ktensor t[7];
  t[0] = kt(AP_UINT32, k->x, 1, 4, 0, 0, 0);
  t[1] = kt(AP_INT16, k->w, 1, 4, 0, 0, 0);
  t[2] = kt(AP_INT16, k->uw, 1, 4, 0, 0, 0);
  t[3] = kt(AP_INT16, k->freq, 1, 3, 0, 0, 0);
  t[4] = kt(AP_INT16, k->wstart, 1, 3, 0, 0, 0);
  t[5] = kt(AP_INT16, k->width, 1, 3, 0, 0, 0);
  t[6] = kt(AP_UINT64, k->y, 1, out_n, 0, 0, 0);
  static const ap_ktensor *ins[6];
  for (int i = 0; i < 6; i++)
    ins[i] = &t[i];
  static ap_ktensor *outs[1];
  outs[0] = &t[6];
  sig_opt o[] = {{"num_channels", channels, false}};
  sig_setup(r, ins, 6, outs, 1, o, 1);
  return sig_do(r, "SignalFilterBank");
}

static void test_filter_bank(void) {
  /* Scratch channel 0 takes bin 0; channel 1 bin 1; channel 2 bins 2-3. Each channel gets its
   * bins' weighted energy plus the previous band's unweighted energy:
   * ch1 = 1*10 + 200*20 = 4010, ch2 = 2*20 + 300*30 + 400*40 = 25040. */
  fb_case k = {{10, 20, 30, 40},
               {100, 200, 300, 400},
               {1, 2, 3, 4},
               {0, 1, 2},
               {0, 1, 2},
               {1, 1, 2},
               {0, 0}};
  sig_run r;
  CHECK_EQ(filter_bank(&k, 2, 2, &r), AP_OK);
  CHECK(k.y[0] == 4010 && k.y[1] == 25040);
  /* A negative weight times the uint64 energy wraps modulo 2^64: 10 - 20. */
  k.w[1] = -1;
  CHECK_EQ(filter_bank(&k, 2, 2, &r), AP_OK);
  CHECK(k.y[0] == UINT64_MAX - 9);
  /* A band past the spectrum, a negative start, tables too short, too many outputs. */
  k.w[1] = 200;
  k.width[2] = 3;
  CHECK_SIG_FAIL(&r, "SignalFilterBank", AP_ERR_RANGE, "channel 2: band 2+3");
  CHECK_EQ(filter_bank(&k, 2, 2, &r), AP_ERR_RANGE);
  k.width[2] = 2;
  k.freq[1] = -1;
  CHECK_EQ(filter_bank(&k, 2, 2, &r), AP_ERR_RANGE);
  k.freq[1] = 1;
  CHECK_EQ(filter_bank(&k, 3, 2, &r), AP_ERR_FORMAT);
  CHECK_CONTAINS(r.err.msg, "3 channels need band tables of 4");
  CHECK_EQ(filter_bank(&k, 1, 2, &r), AP_ERR_FORMAT);
  CHECK_EQ(filter_bank(&k, 0, 2, &r), AP_ERR_UNSUPPORTED);
  CHECK_EQ(filter_bank(&k, 2, 2, &r), AP_OK);
}

static void test_sqrt(void) {
  /* Roots round up when x > r^2 + r (3 -> 2, 15 -> 4), except at the type's top: below 2^32
   * TFLite Micro's 16-bit shortcut keeps 65535 even for 65535^2 + 65535 + 1. */
  uint64_t x[11] = {0, 1, 2, 3, 4, 15, 16, UINT32_MAX, 4294901761u, UINT64_C(1) << 32, UINT64_MAX};
  uint32_t y[11], want[11] = {0, 1, 1, 2, 2, 4, 4, 65535, 65535, 65536, UINT32_MAX};
  int32_t bits = 0;
  ap_ktensor in = kt(AP_UINT64, x, 1, 11, 0, 0, 0), b = kt(AP_INT32, &bits, 0, 0, 0, 0, 0);
  ap_ktensor out = kt(AP_UINT32, y, 1, 11, 0, 0, 0);
  const ap_ktensor *ins[] = {&in, &b};
  ap_ktensor *outs[] = {&out};
  sig_run r;
  sig_setup(&r, ins, 2, outs, 1, NULL, 0);
  CHECK_EQ(sig_do(&r, "SignalFilterBankSquareRoot"), AP_OK);
  CHECK_ARRAY(y, want, 11);
  bits = 1;
  CHECK_EQ(sig_do(&r, "SignalFilterBankSquareRoot"), AP_OK);
  CHECK_EQ(y[5], 2);
  CHECK_EQ(y[10], UINT32_MAX >> 1);
  bits = 32;
  CHECK_SIG_FAIL(&r, "SignalFilterBankSquareRoot", AP_ERR_RANGE, "scale bits 32");
  bits = -1;
  CHECK_EQ(sig_do(&r, "SignalFilterBankSquareRoot"), AP_ERR_RANGE);
  CHECK_EQ(ap_sig_sqrt32(UINT32_MAX), 65535);
  CHECK_EQ(ap_sig_sqrt64((UINT64_C(1) << 40) + (UINT64_C(1) << 20) + 1), (1u << 20) + 1);
}

static void subtract(sig_run *r, uint32_t *x, uint32_t *y, uint32_t *noise, bool clamping,
                     bool setup) {
  static ap_ktensor in, out, nout;
  static const ap_ktensor *ins[1];
  static ap_ktensor *outs[2];
  in = kt(AP_UINT32, x, 1, 2, 0, 0, 0);
  out = kt(AP_UINT32, y, 1, 2, 0, 0, 0);
  nout = kt(AP_UINT32, noise, 1, 2, 0, 0, 0);
  ins[0] = &in;
  outs[0] = &out;
  outs[1] = &nout;
  /* Scale 16 (4 bits): smoothing 1/4 on even channels, 1/2 on odd; floor 1/8 of the signal;
   * the smoother works on the signal times 4 (2 bits). */
  sig_opt o[] = {{"alternate_one_minus_smoothing", 8, false},
                 {"alternate_smoothing", 8, false},
                 {"clamping", clamping, true},
                 {"min_signal_remaining", 2, false},
                 {"num_channels", 2, false},
                 {"one_minus_smoothing", 12, false},
                 {"smoothing", 4, false},
                 {"smoothing_bits", 2, false},
                 {"spectral_subtraction_bits", 4, false}};
  if (setup) sig_setup(r, ins, 1, outs, 2, o, 9);
}

static void test_spectral_subtraction(void) {
  for (int clamping = 0; clamping < 2; clamping++) {
    sig_run r;
    uint32_t x[2] = {100, 40}, y[2], noise[2];
    subtract(&r, x, y, noise, clamping, true);
    /* Run 1, noise from 0: ch0 (400*4)>>4 = 100, output max((400-100)>>2, 100*2>>4) = 75;
     * ch1 (160*8)>>4 = 80, output (160-80)>>2 = 20. */
    CHECK_EQ(sig_do(&r, "SignalFilterBankSpectralSubtraction"), AP_OK);
    CHECK(y[0] == 75 && y[1] == 20 && noise[0] == 100 && noise[1] == 80);
    /* Run 2 keeps the estimate: ch0 signal 0, noise (100*12)>>4 = 75 above it: output 0, and
     * with clamping the estimate drops to the signal; ch1 (160*8 + 80*8)>>4 = 120, output 10. */
    x[0] = 0;
    CHECK_EQ(sig_do(&r, "SignalFilterBankSpectralSubtraction"), AP_OK);
    CHECK(y[0] == 0 && y[1] == 10 && noise[1] == 120);
    CHECK_EQ(noise[0], clamping ? 0 : 75);
    /* A reset (zeroed state) gives run 1's results again. */
    memset(r.state, 0, r.state_bytes);
    x[0] = 100;
    CHECK_EQ(sig_do(&r, "SignalFilterBankSpectralSubtraction"), AP_OK);
    CHECK(y[0] == 75 && y[1] == 20 && noise[0] == 100 && noise[1] == 80);
    sig_free(&r);
  }
  /* The floor wins when the estimate eats the signal: min_signal_remaining 2/16 of 100. */
  sig_run r;
  uint32_t x[2] = {100, 100}, y[2], noise[2];
  subtract(&r, x, y, noise, false, true);
  CHECK_EQ(sig_do(&r, "SignalFilterBankSpectralSubtraction"), AP_OK);
  x[0] = x[1] = 1;
  CHECK_EQ(sig_do(&r, "SignalFilterBankSpectralSubtraction"), AP_OK);
  CHECK(y[0] == 0 && y[1] == 0);
  sig_free(&r);
  /* num_channels disagreeing with the tensors; smoothing_bits out of range. */
  sig_opt bad[] = {{"alternate_one_minus_smoothing", 8, false},
                   {"alternate_smoothing", 8, false},
                   {"clamping", 0, true},
                   {"min_signal_remaining", 2, false},
                   {"num_channels", 3, false},
                   {"one_minus_smoothing", 12, false},
                   {"smoothing", 4, false},
                   {"smoothing_bits", 2, false},
                   {"spectral_subtraction_bits", 4, false}};
  subtract(&r, x, y, noise, false, true);
  r.opt.custom_options_size = sig_flex_map(r.flex, bad, 9);
  CHECK_SIG_FAIL(&r, "SignalFilterBankSpectralSubtraction", AP_ERR_FORMAT, "num_channels 3");
  bad[4].value = 2;
  bad[7].value = 32;
  r.opt.custom_options_size = sig_flex_map(r.flex, bad, 9);
  CHECK_SIG_FAIL(&r, "SignalFilterBankSpectralSubtraction", AP_ERR_UNSUPPORTED,
                 "\"smoothing_bits\" is 32");
  sig_free(&r);
}

static void test_log(void) {
  /* ln(x) * output_scale in 16-bit fixed point: ln 2 * 1024 = 709.8 -> 710, ln 3 -> 1125,
   * ln 1000 -> 7074; 0 and 1 give 0. */
  uint32_t x[6] = {0, 1, 2, 3, 1000, UINT32_MAX};
  int16_t y[6];
  ap_ktensor in = kt(AP_UINT32, x, 1, 6, 0, 0, 0), out = kt(AP_INT16, y, 1, 6, 0, 0, 0);
  const ap_ktensor *ins[] = {&in};
  ap_ktensor *outs[] = {&out};
  sig_opt o[] = {{"input_correction_bits", 0, false}, {"output_scale", 1024, false}};
  sig_run r;
  sig_setup(&r, ins, 1, outs, 1, o, 2);
  CHECK_EQ(sig_do(&r, "SignalFilterBankLog"), AP_OK);
  int16_t want[6] = {0, 0, 710, 1125, 7074, 22715};
  CHECK_ARRAY(y, want, 6);
  /* Scale 65536: ln 2 (45426) saturates to 32767; ln 3 * 65536 wraps the uint32 product. */
  o[1].value = 65536;
  sig_setup(&r, ins, 1, outs, 1, o, 2);
  CHECK_EQ(sig_do(&r, "SignalFilterBankLog"), AP_OK);
  CHECK_EQ(y[2], 32767);
  CHECK_EQ(y[3], 6462);
  /* Correction bits shift the input up first: 1 << 2 = 4, ln 4 * 1024 = 1419.6 -> 1420. */
  o[0].value = 2;
  o[1].value = 1024;
  sig_setup(&r, ins, 1, outs, 1, o, 2);
  CHECK_EQ(sig_do(&r, "SignalFilterBankLog"), AP_OK);
  CHECK_EQ(y[1], 1420);
  o[0].value = 32;
  sig_setup(&r, ins, 1, outs, 1, o, 2);
  CHECK_SIG_FAIL(&r, "SignalFilterBankLog", AP_ERR_UNSUPPORTED, "\"input_correction_bits\" is 32");
  /* The table is round(65536 * (log2(1 + i/128) - i/128)), and 0 after its 129 entries. */
  for (int i = 0; i <= 128; i++)
    CHECK_EQ(ap_sig_log_table[i], (int)lround(65536 * (log2(1 + i / 128.0) - i / 128.0)));
  CHECK_EQ(ap_sig_log_table[129], 0);
}

static void test_pcan(void) {
  /* Gains: noise 0 and 2 index the table (100, 300); noise 3 is in segment 2 (bits), whose
   * coefficients start at 4*2-6 = 2: frac = (3 << 9) & 1023 = 512,
   * ((64*512 >> 5) + (10 << 5)) * 512 = 688128, rounded >> 15 = 21, + 300 = 321. */
  int16_t lut[5] = {100, 200, 300, 10, 64};
  uint32_t noise[3] = {0, 2, 3}, x[3] = {4096, 10000, 2000}, y[3];
  ap_ktensor in = kt(AP_UINT32, x, 1, 3, 0, 0, 0), ne = kt(AP_UINT32, noise, 1, 3, 0, 0, 0);
  ap_ktensor lt = kt(AP_INT16, lut, 1, 5, 0, 0, 0), out = kt(AP_UINT32, y, 1, 3, 0, 0, 0);
  const ap_ktensor *ins[] = {&in, &ne, &lt};
  ap_ktensor *outs[] = {&out};
  sig_opt o[] = {{"snr_shift", 6, false}};
  sig_run r;
  sig_setup(&r, ins, 3, outs, 1, o, 1);
  CHECK_EQ(sig_do(&r, "SignalPCAN"), AP_OK);
  /* snr = x * gain >> 6: 6400 (below 2 in 12 bits: 6400^2 >> 20 = 39), 46875 (above:
   * (46875 >> 6) - 64 = 668), 10031 ((10031 >> 6) - 64 = 92). */
  uint32_t want[3] = {39, 668, 92};
  CHECK_ARRAY(y, want, 3);
  /* A noise estimate whose segment lies past the table. */
  noise[2] = 1u << 20;
  CHECK_SIG_FAIL(&r, "SignalPCAN", AP_ERR_RANGE, "past its 5");
  o[0].value = 64;
  sig_setup(&r, ins, 3, outs, 1, o, 1);
  CHECK_SIG_FAIL(&r, "SignalPCAN", AP_ERR_UNSUPPORTED, "\"snr_shift\" is 64");
}

int main(void) {
  test_window();
  test_fft_auto_scale();
  test_energy();
  test_filter_bank();
  test_sqrt();
  test_spectral_subtraction();
  test_log();
  test_pcan();
  return ap_test_done();
}
