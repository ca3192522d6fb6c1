/* ap_kexpm1f / ap_ktanhf (ELU, TANH, LSTM, SVDF): the edges worked by hand on every target, and
 * on x86-64 glibc (where TFLite Micro's oracle bytes were made) bit for bit against libm over
 * a sweep of all floats of both signs. */
#include "kernels/kops_arm64.h"
#include "test.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static void test_edges(void) {
  CHECK_EQ(bits(ap_kexpm1f(0.0f)), bits(0.0f));
  CHECK_EQ(bits(ap_kexpm1f(-0.0f)), bits(-0.0f));       /* the sign of zero survives */
  CHECK_EQ(bits(ap_kexpm1f(0x1p-30f)), bits(0x1p-30f)); /* below 2^-25: x itself */
  CHECK(ap_kexpm1f(INFINITY) == INFINITY);
  CHECK(ap_kexpm1f(-INFINITY) == -1.0f);
  CHECK(ap_kexpm1f(89.0f) == INFINITY); /* overflows */
  CHECK(ap_kexpm1f(-30.0f) == -1.0f);   /* below -27 ln2 the -1 is exact in float */
  CHECK(isnan(ap_kexpm1f(NAN)));
  CHECK(fabsf(ap_kexpm1f(1.0f) - 1.71828183f) <= 0x1p-23f);
  CHECK(fabsf(ap_kexpm1f(-1.0f) + 0.632120559f) <= 0x1p-24f);
  CHECK(fabsf(ap_kexpm1f(10.0f) - 22025.4658f) <= 0x1p-9f);
  CHECK_EQ(bits(ap_ktanhf(-0.0f)), bits(-0.0f));
  CHECK(ap_ktanhf(INFINITY) == 1.0f && ap_ktanhf(-INFINITY) == -1.0f);
  CHECK(ap_ktanhf(30.0f) == 1.0f && ap_ktanhf(-30.0f) == -1.0f);
  CHECK(isnan(ap_ktanhf(NAN)));
  CHECK(fabsf(ap_ktanhf(0.5f) - 0.462117157f) <= 0x1p-25f);
  CHECK(ap_ktanhf(-0.5f) == -ap_ktanhf(0.5f)); /* odd */
}

/* Both signs of every 509th float bit pattern (about 8.4 M each way, under a second). */
static void test_against_x86_64_glibc(void) {
#if defined(__x86_64__) && defined(__GLIBC__)
  unsigned long bad = 0;
  for (uint32_t b = 0; b <= 0x7f800000u; b += 509) {
    for (uint32_t s = 0; s < 2; s++) {
      float x;
      uint32_t u = b | (s << 31);
      memcpy(&x, &u, sizeof x);
      bool same = bits(ap_kexpm1f(x)) == bits(expm1f(x)) && bits(ap_ktanhf(x)) == bits(tanhf(x));
      if (!same && bad++ < 4)
        CHECK_MSG(0, "x = %a: ours %a %a, glibc %a %a", x, ap_kexpm1f(x), ap_ktanhf(x), expm1f(x),
                  tanhf(x));
    }
  }
  CHECK_EQ(bad, 0);
#endif
}

int main(void) {
  test_edges();
  test_against_x86_64_glibc();
  return ap_test_done();
}
