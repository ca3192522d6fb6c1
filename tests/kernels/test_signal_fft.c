/* SignalRfft and SignalIrfft (int16, KISS FFT's fixed point), hand-worked on small lengths
 * (each butterfly scales by its radix with KISS's multiply by 32767/radix), a DFT check on a
 * long one, and their refusals. */
#include "sigtest.h"

#include <math.h>

static ap_status fft_t(const char *op, int n, int frames, int in_len, int out_len, void *x, void *y,
                       int type, int tensor_type, sig_run *r) {
  static ap_ktensor in, out;
  static const ap_ktensor *ins[1];
  static ap_ktensor *outs[1];
  in = kt(tensor_type, x, 2, frames, in_len, 0, 0);
  out = kt(tensor_type, y, 2, frames, out_len, 0, 0);
  ins[0] = &in;
  outs[0] = &out;
  sig_opt o[] = {{"T", type, false}, {"fft_length", n, false}};
  sig_setup(r, ins, 1, outs, 1, o, 2);
  ap_status s = sig_do(r, op);
  sig_free(r);
  return s;
}

static ap_status fft(const char *op, int n, int frames, int in_len, int out_len, int16_t *x,
                     int16_t *y, int type, sig_run *r) {
  return fft_t(op, n, frames, in_len, out_len, x, y, type, AP_INT16, r);
}

static void test_small(void) {
  sig_run r;
  int16_t y[12];
  /* Length 4 (a complex FFT of 2, one radix-2 pass). An impulse of 1000: the radix-2 pass
   * halves it (1000 * 16383 / 32768 rounds to 500), the split step halves again (250), and
   * every bin is 250 = 1000 / 4. */
  int16_t a[4] = {1000, 0, 0, 0};
  CHECK_EQ(fft("SignalRfft", 4, 1, 4, 6, a, y, AP_INT16, &r), AP_OK);
  int16_t wa[6] = {250, 0, 250, 0, 250, 0};
  CHECK_ARRAY(y, wa, 6);
  /* The impulse one sample later: X[k] = 1000 e^{-i pi k / 2} / 4 = 250, -250i, -250. Bin 1
   * goes through the split twiddle e^{-i pi} = (-32767, 0): 500 * -32767 / 32768 -> -500. */
  int16_t b[4] = {0, 1000, 0, 0};
  CHECK_EQ(fft("SignalRfft", 4, 1, 4, 6, b, y, AP_INT16, &r), AP_OK);
  int16_t wb[6] = {250, 0, 0, -250, -250, 0};
  CHECK_ARRAY(y, wb, 6);
  /* A frame shorter than fft_length is zero-padded: 3 samples give the same spectrum. Two
   * frames are transformed one by one. */
  int16_t c[6] = {1000, 0, 0, 0, 1000, 0};
  int16_t y2[12];
  CHECK_EQ(fft("SignalRfft", 4, 2, 3, 6, c, y2, AP_INT16, &r), AP_OK);
  CHECK_ARRAY(y2, wa, 6);
  int16_t wc[6] = {250, 0, 0, -250, -250, 0};
  CHECK_ARRAY(y2 + 6, wc, 6);
  /* Length 6 (radix 3: 600 * 10922 / 32768 rounds to 200) and 10 (radix 5: 1000 * 6553 /
   * 32768 -> 200): impulses give flat spectra of 600 / 6 and 1000 / 10. */
  int16_t d[6] = {600, 0, 0, 0, 0, 0};
  CHECK_EQ(fft("SignalRfft", 6, 1, 6, 8, d, y, AP_INT16, &r), AP_OK);
  for (int k = 0; k < 8; k++)
    CHECK_EQ(y[k], k % 2 ? 0 : 100);
  int16_t e[10] = {1000};
  CHECK_EQ(fft("SignalRfft", 10, 1, 10, 12, e, y, AP_INT16, &r), AP_OK);
  for (int k = 0; k < 12; k++)
    CHECK_EQ(y[k], k % 2 ? 0 : 100);
  /* The inverse of wb: rebuilt half spectrum (0, 250), (0, 250) (the split twiddle is now
   * e^{+i pi}), then an inverse radix-2 pass: the samples 0, 250, 0, 0 (each direction scales
   * by 1/4). */
  int16_t back[4];
  CHECK_EQ(fft("SignalIrfft", 4, 1, 6, 4, wb, back, AP_INT16, &r), AP_OK);
  int16_t wback[4] = {0, 250, 0, 0};
  CHECK_ARRAY(back, wback, 4);
}

/* Length 512, as the micro_speech front end: within a few LSB of the exact DFT / 512 (each of
 * the 4 radix-4 passes and the split step rounds), and the inverse of that spectrum is the
 * input / 512 as nearly. */
static void test_dft(void) {
  enum { N = 512 };
  static int16_t x[N], y[N + 2], back[N];
  uint64_t s = 12345;
  for (int i = 0; i < N; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x[i] = (int16_t)(s >> 48);
  }
  sig_run r;
  CHECK_EQ(fft("SignalRfft", N, 1, N, N + 2, x, y, AP_INT16, &r), AP_OK);
  double worst = 0;
  for (int k = 0; k <= N / 2; k++) {
    double re = 0, im = 0;
    for (int i = 0; i < N; i++) {
      re += x[i] * cos(2 * M_PI * k * i / N);
      im -= x[i] * sin(2 * M_PI * k * i / N);
    }
    worst = fmax(worst, fmax(fabs(re / N - y[2 * k]), fabs(im / N - y[2 * k + 1])));
  }
  CHECK_MSG(worst < 4, "worst bin differs by %g", worst);
  CHECK_EQ(fft("SignalIrfft", N, 1, N + 2, N, y, back, AP_INT16, &r), AP_OK);
  /* The spectrum is x / 512, the inverse scales by 1/512 again: back = x / 512^2 * 512. */
  worst = 0;
  for (int i = 0; i < N; i++)
    worst = fmax(worst, fabs(x[i] / 512.0 - back[i]));
  CHECK_MSG(worst < 4, "worst sample differs by %g", worst);
}

static void test_refusals(void) {
  sig_run r;
  int16_t x[64] = {0}, y[64];
  /* Odd, a radix of 7 (KISS's generic butterfly would need a heap), too short. */
  CHECK_EQ(fft("SignalRfft", 7, 1, 7, 8, x, y, AP_INT16, &r), AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(r.err.msg, "fft_length 7: must be even");
  CHECK_EQ(fft("SignalRfft", 14, 1, 14, 16, x, y, AP_INT16, &r), AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(r.err.msg, "must factor into 2, 3 and 5");
  CHECK_EQ(fft("SignalRfft", 2, 1, 2, 4, x, y, AP_INT16, &r), AP_ERR_UNSUPPORTED);
  CHECK_EQ(fft("SignalRfft", 0, 1, 2, 4, x, y, AP_INT16, &r), AP_ERR_UNSUPPORTED);
  /* A frame longer than fft_length, an output not fft_length / 2 + 1 complex values. */
  CHECK_EQ(fft("SignalRfft", 4, 1, 5, 6, x, y, AP_INT16, &r), AP_ERR_FORMAT);
  CHECK_CONTAINS(r.err.msg, "do not fit fft_length 4");
  CHECK_EQ(fft("SignalRfft", 4, 1, 4, 4, x, y, AP_INT16, &r), AP_ERR_FORMAT);
  CHECK_EQ(fft("SignalIrfft", 4, 1, 4, 4, x, y, AP_INT16, &r), AP_ERR_FORMAT);
  /* Option T must be one of the three and agree with the tensors. */
  CHECK_EQ(fft("SignalRfft", 4, 1, 4, 6, x, y, AP_FLOAT32, &r), AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(r.err.msg, "input is INT16, expected FLOAT32");
  CHECK_EQ(fft("SignalRfft", 4, 1, 4, 6, x, y, AP_INT8, &r), AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(r.err.msg, "type INT8 (option T)");
  CHECK(strchr(r.err.msg, '\n') == NULL);
}

/* int32 (Q31: the radix-2 pass multiplies by 2147483647 / 2, the split step by the same) and
 * float (no scaling; the float inverse divides by fft_length, as TFLite Micro's wrapper). */
static void test_other_types(void) {
  sig_run r;
  int32_t a[4] = {1 << 20, 0, 0, 0}, y[6];
  CHECK_EQ(fft_t("SignalRfft", 4, 1, 4, 6, a, y, AP_INT32, AP_INT32, &r), AP_OK);
  int32_t wa[6] = {1 << 18, 0, 1 << 18, 0, 1 << 18, 0};
  CHECK_ARRAY(y, wa, 6);
  float f[4] = {0, 1, 0, 0}, fy[6], back[4];
  CHECK_EQ(fft_t("SignalRfft", 4, 1, 4, 6, f, fy, AP_FLOAT32, AP_FLOAT32, &r), AP_OK);
  /* X = 1, -i, -1; bin 1's real part is not 0 but what the float twiddle of -pi leaves:
   * (0 - 2 * sin(-pi)) / 2 with sin(-pi) = -1.2e-16 in float. */
  float wf[6] = {1, 0, (float)sin(-M_PI), -1, -1, 0};
  CHECK_ARRAY(fy, wf, 6);
  CHECK_EQ(fft_t("SignalIrfft", 4, 1, 6, 4, fy, back, AP_FLOAT32, AP_FLOAT32, &r), AP_OK);
  for (int i = 0; i < 4; i++)
    CHECK_MSG(fabsf(back[i] - f[i]) < 1e-6f, "[%d]: %g", i, back[i]);
}

int main(void) {
  test_small();
  test_dft();
  test_refusals();
  test_other_types();
  return ap_test_done();
}
