/* KISS FFT (v130), the FFT TFLite Micro's SignalRfft and SignalIrfft run, written again for
 * int16 (FIXED_POINT=16), int32 (FIXED_POINT=32) and float: a complex FFT of half the length
 * over the real samples taken in pairs, mixed radix (4s first, then 2, 3, 5; decimation in
 * time), the fixed-point butterflies scaling their inputs down by the radix with KISS's
 * rounding multiply (by SAMP_MAX / radix, not an exact division), wrapping sums, twiddles
 * rounded from the double cos and sin; then the split step between the half-length complex FFT
 * and the real one. The bytes depend on this exact schedule, which is why it is KISS's. */
#ifndef AP_KERNELS_SIGNAL_KISS_H
#define AP_KERNELS_SIGNAL_KISS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AP_KISS_MAX_FACTORS 32

typedef struct ap_kiss_plan {
  int32_t half; /* the complex FFT's length: fft_length / 2 */
  int n_factors;
  int16_t radix[AP_KISS_MAX_FACTORS];
  bool inverse;
} ap_kiss_plan;

/* KISS's factoring of fft_length / 2; false when fft_length is odd, below 4, or has a factor
 * above 5 (KISS's generic butterfly needs a heap TFLite Micro does not give it). */
bool ap_kiss_plan_init(ap_kiss_plan *p, int32_t fft_length, bool inverse);

/* Per type (16, 32, f): the twiddles (half values, then half / 2 split twiddles, each a pair of
 * scalars) and the transforms. rfft: `x` is fft_length samples, `y` half + 1 complex values.
 * irfft: `x` is half + 1 complex values, `z` half complex values of scratch, `y` fft_length
 * samples. */
#define AP_KISS_DECLARE(SFX, T)                                                                    \
  void ap_kiss_twiddles_##SFX(const ap_kiss_plan *p, T *tw);                                       \
  void ap_kiss_rfft_##SFX(const ap_kiss_plan *p, const T *tw, const T *x, T *y);                   \
  void ap_kiss_irfft_##SFX(const ap_kiss_plan *p, const T *tw, const T *x, T *z, T *y);
AP_KISS_DECLARE(16, int16_t)
AP_KISS_DECLARE(32, int32_t)
AP_KISS_DECLARE(f, float)
#undef AP_KISS_DECLARE

#endif
