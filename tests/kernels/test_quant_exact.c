/* quant_exact.c (the multipliers without double arithmetic, for cores without a double FPU)
 * against quant.c's double formulas, value for value: random float scales of every kind
 * (typical exponents, few significant bits so that the division and the 31-bit rounding meet
 * their ties, subnormals, extremes), 32-bit odd products (ties of the 31-bit rounding), every
 * pair of special values, and CalculateInputRadius over its shifts. */
#include "kernels/quant.h"
#include "test.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static uint64_t state = 88172645463325252ull;
static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static float from_bits(uint32_t b) {
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}

static int bad;

static void one(float a, float b, float c) {
  int32_t m1, m2;
  int s1, s2;
  ap_kq_multiplier((double)a * (double)b / (double)c, &m1, &s1);
  ap_kq_multiplier_ratio(a, b, c, &m2, &s2);
  if ((m1 != m2 || s1 != s2) && bad++ < 4)
    CHECK_MSG(0, "%a * %a / %a: double %d %d, integer %d %d", a, b, c, m1, s1, m2, s2);
  for (int bits = 1; bits < 8; bits++) { /* TFLite's shift is undefined for 0 bits */
    int32_t x1 = 0, x2 = 0;
    int l1 = 0, l2 = 0;
    bool o1 = ap_kq_softmax_scaling((double)a, (double)b, bits, &x1, &l1);
    bool o2 = ap_kq_softmax_scaling_f(a, b, bits, &x2, &l2);
    if ((o1 != o2 || (o1 && (x1 != x2 || l1 != l2))) && bad++ < 4)
      CHECK_MSG(0, "softmax %a %a %d: double %d %d %d, integer %d %d %d", a, b, bits, o1, x1, l1,
                o2, x2, l2);
  }
}

static void test_random(void) {
  for (long i = 0; i < 400000; i++) {
    uint32_t ba = (uint32_t)next(), bb = (uint32_t)next(), bc = (uint32_t)next();
    switch (i % 4) {
    case 1: /* scales as models carry them */
      ba = (ba & 0x807fffffu) | (uint32_t)(110 + next() % 30) << 23;
      bb = (bb & 0x007fffffu) | (uint32_t)(110 + next() % 30) << 23;
      bc = (bc & 0x007fffffu) | (uint32_t)(110 + next() % 30) << 23;
      break;
    case 2: /* few significant bits: ties */
      ba &= 0xffff0000u | (uint32_t)(next() & 0x1ff) << 7;
      bb &= 0xfff00000u | (uint32_t)(next() & 0x3f) << 13;
      bc &= 0xfffc0000u;
      break;
    case 3: /* subnormals and extremes */
      if (next() & 1) ba &= 0x807fffffu;
      if (next() & 1) bc &= 0x807fffffu;
      if (next() & 1) bb |= 0x7f000000u;
      break;
    default: break;
    }
    one(from_bits(ba), from_bits(bb), from_bits(bc));
  }
}

static void test_ties_and_specials(void) {
  for (uint32_t x = 1; x < 40000; x += 2) {
    float a = (float)(65536 + x), b = (float)(32768 + (x % 977) * 2 + 1);
    one(a, b, 1.0f);
    one(a, b, 3.0f);
    one(a, 1.0f, b);
  }
  const float sp[] = {0.0f,  -0.0f,   INFINITY, -INFINITY, NAN,  1.0f,
                      -1.0f, FLT_MIN, FLT_MAX,  0x1p-149f, 0.5f, 0x1.8p-7f};
  const int n = (int)(sizeof sp / sizeof sp[0]);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        one(sp[i], sp[j], sp[k]);
  CHECK_EQ(bad, 0);
}

static void test_input_radius(void) {
  for (int bits = 0; bits <= 30; bits++)
    for (int shift = -70; shift <= 70; shift++)
      CHECK_EQ(ap_kq_input_radius_int(bits, shift), ap_kq_input_radius(bits, shift));
}

int main(void) {
  test_random();
  test_ties_and_specials();
  test_input_radius();
  return ap_test_done();
}
