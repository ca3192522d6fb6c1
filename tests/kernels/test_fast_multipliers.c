/* The AVX2 per-channel multipliers (kernels/fast/multipliers_avx2.c) against multipliers.c's,
 * value for value: random scales over many binades, multipliers whose rounding carries to 2^31,
 * ones below 2^-32 (zero), and lanes off the integer route (zero, subnormal, negative, infinite,
 * NaN) beside ordinary ones; channel counts with every remainder of 4. */
#include "kernels/fast/fast.h"
#include "test.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
static uint64_t rng = 2929;

static void check(const float *scales, int32_t n, float in_scale, float out_scale,
                  const char *what) {
  int32_t m0[64], s0[64], m1[64], s1[64];
  ap_ktensor f;
  memset(&f, 0, sizeof f);
  f.channel_scales = scales;
  f.n_channels = n;
  ap_fast_channel_multipliers(in_scale, &f, out_scale, n, m0, s0);
  memset(m1, 0x5a, sizeof m1), memset(s1, 0x5a, sizeof s1);
  ap_fast_avx2_channel_multipliers(in_scale, &f, out_scale, n, m1, s1);
  int bad = 0;
  for (int32_t c = 0; c < n; c++)
    bad += m0[c] != m1[c] || s0[c] != s1[c];
  CHECK_MSG(bad == 0, "%s (%d channels): %d multipliers differ", what, n, bad);
  CHECK_MSG(m1[n] == 0x5a5a5a5a && s1[n] == 0x5a5a5a5a, "%s: wrote past channel %d", what, n);
}

int main(void) {
  float s[64];
  for (int round = 0; round < 200; round++) {
    int32_t n = 1 + (int32_t)(ap_test_rand(&rng) % 63);
    for (int32_t c = 0; c < n; c++)
      s[c] = ldexpf(1.0f + (float)(ap_test_rand(&rng) % 100000) / 100000.0f,
                    -(int)(ap_test_rand(&rng) % 40));
    check(s, n, 0.02f + (float)(ap_test_rand(&rng) % 100) / 1000.0f,
          0.01f + (float)(ap_test_rand(&rng) % 1000) / 100.0f, "random");
  }
  /* 1 - 2^-24 times powers of two: the double's significand rounds up to 2^31 */
  for (int32_t c = 0; c < 16; c++)
    s[c] = ldexpf(1.0f - ldexpf(1.0f, -24), -c);
  check(s, 16, 1.0f, 1.0f, "carry");
  for (int32_t c = 0; c < 8; c++)
    s[c] = ldexpf(1.0f, -40 - c);
  check(s, 8, 1.0f, 1.0f, "below 2^-32");
  const float odd[] = {0.0f, 1e-45f, -0.5f, INFINITY, NAN, -0.0f, 0.25f, 0.3f};
  for (int k = 0; k < 8; k++) {
    for (int32_t c = 0; c < 12; c++)
      s[c] = 0.001f * (float)(c + 1);
    s[k] = odd[k];
    check(s, 12, 0.5f, 0.25f, "a lane off the route");
  }
  return ap_test_done();
}
#else
int main(void) {
  return 0;
}
#endif
