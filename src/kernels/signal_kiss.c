/* KISS FFT's three arithmetics (signal_kiss.h), each instantiating signal_kiss_impl.h. */
#include "kernels/signal_kiss.h"

#include <math.h>

#define KISS_CAT2(a, b) a##_##b
#define KISS_CAT(a, b) KISS_CAT2(a, b)
#define KF(name) KISS_CAT(name, KSFX)

bool ap_kiss_plan_init(ap_kiss_plan *p, int32_t fft_length, bool inverse) {
  p->inverse = inverse;
  p->n_factors = 0;
  if (fft_length < 4 || fft_length % 2) return false;
  int32_t n = p->half = fft_length / 2;
  /* 4s while they divide, then 2, 3, 5, 7, ... up to floor(sqrt) of the length, after which
   * what is left is one factor. */
  int32_t f = 4;
  double root = floor(sqrt((double)n));
  do {
    while (n % f) {
      f = f == 4 ? 2 : f == 2 ? 3 : f + 2;
      if (f > root) f = n;
    }
    if (f > 5 || p->n_factors == AP_KISS_MAX_FACTORS) return false;
    p->radix[p->n_factors++] = (int16_t)f;
    n /= f;
  } while (n > 1);
  return true;
}

/* FIXED_POINT=16: Q15, products in int32 rounded by adding half; sums wrap in int16; the
 * radix division multiplies by 32767 / radix. HALF_OF of a sum sees the exact int sum. */
#define KSFX 16
#define KT int16_t
typedef struct cpx_16 {
  int16_t r, i;
} cpx_16;
static inline int16_t w16(int32_t x) {
  return (int16_t)(uint16_t)(uint32_t)x;
}
static inline int16_t round_16(int32_t x) {
  return w16((int32_t)((uint32_t)x + (1u << 14)) >> 15);
}
static inline int16_t add_16(int16_t a, int16_t b) {
  return w16(a + b);
}
static inline int16_t sub_16(int16_t a, int16_t b) {
  return w16(a - b);
}
static inline int16_t neg_16(int16_t a) {
  return w16(-a);
}
static inline int16_t negmul_16(int16_t a) {
  return w16(-a);
}
static inline int16_t smul_16(int16_t a, int16_t b) {
  return round_16((int32_t)a * b);
}
static inline cpx_16 cmul_16(cpx_16 a, cpx_16 b) {
  return (cpx_16){round_16((int32_t)a.r * b.r - (int32_t)a.i * b.i),
                  round_16((int32_t)a.r * b.i + (int32_t)a.i * b.r)};
}
static inline int16_t div_16(int16_t a, int k) {
  return round_16(a * (32767 / k));
}
static inline int16_t half_16(int16_t a) {
  return (int16_t)(a >> 1);
}
static inline int16_t halfsum_16(int16_t a, int16_t b) {
  return w16((a + b) >> 1);
}
static inline int16_t halfdiff_16(int16_t a, int16_t b) {
  return w16((a - b) >> 1);
}
static inline int16_t tw_16(double c) {
  return (int16_t)floor(.5 + 32767 * c);
}
#include "kernels/signal_kiss_impl.h"
#undef KSFX
#undef KT

/* FIXED_POINT=32: Q31, products in int64; int32 sums wrap (TFLite Micro's int arithmetic on
 * its x86 build), HALF_OF of a sum included. */
#define KSFX 32
#define KT int32_t
typedef struct cpx_32 {
  int32_t r, i;
} cpx_32;
static inline int32_t w32(int64_t x) {
  return (int32_t)(uint32_t)(uint64_t)x;
}
static inline int32_t round_32(int64_t x) {
  return w32((int64_t)((uint64_t)x + (UINT64_C(1) << 30)) >> 31);
}
static inline int32_t add_32(int32_t a, int32_t b) {
  return w32((int64_t)a + b);
}
static inline int32_t sub_32(int32_t a, int32_t b) {
  return w32((int64_t)a - b);
}
static inline int32_t neg_32(int32_t a) {
  return w32(-(int64_t)a);
}
static inline int32_t negmul_32(int32_t a) {
  return w32(-(int64_t)a);
}
static inline int32_t smul_32(int32_t a, int32_t b) {
  return round_32((int64_t)a * b);
}
static inline cpx_32 cmul_32(cpx_32 a, cpx_32 b) {
  return (cpx_32){round_32((int64_t)a.r * b.r - (int64_t)a.i * b.i),
                  round_32((int64_t)a.r * b.i + (int64_t)a.i * b.r)};
}
static inline int32_t div_32(int32_t a, int k) {
  return round_32((int64_t)a * (2147483647 / k));
}
static inline int32_t half_32(int32_t a) {
  return a >> 1;
}
static inline int32_t halfsum_32(int32_t a, int32_t b) {
  return add_32(a, b) >> 1;
}
static inline int32_t halfdiff_32(int32_t a, int32_t b) {
  return sub_32(a, b) >> 1;
}
static inline int32_t tw_32(double c) {
  return (int32_t)floor(.5 + 2147483647 * c);
}
#include "kernels/signal_kiss_impl.h"
#undef KSFX
#undef KT

/* float: no scaling in the butterflies; each operation rounds to float in KISS's order. */
#define KSFX f
#define KT float
typedef struct cpx_f {
  float r, i;
} cpx_f;
static inline float add_f(float a, float b) {
  return a + b;
}
static inline float sub_f(float a, float b) {
  return a - b;
}
static inline float neg_f(float a) {
  return -a;
}
static inline float negmul_f(float a) {
  return a * -1.0f; /* not -a: a NaN keeps its sign through a multiply */
}
static inline float smul_f(float a, float b) {
  return a * b;
}
static inline cpx_f cmul_f(cpx_f a, cpx_f b) {
  float rr = a.r * b.r, ii = a.i * b.i, ri = a.r * b.i, ir = a.i * b.r;
  return (cpx_f){rr - ii, ri + ir};
}
static inline float div_f(float a, int k) {
  (void)k;
  return a;
}
static inline float half_f(float a) {
  return a * .5f;
}
static inline float halfsum_f(float a, float b) {
  return (a + b) * .5f;
}
static inline float halfdiff_f(float a, float b) {
  return (a - b) * .5f;
}
static inline float tw_f(double c) {
  return (float)c;
}
#include "kernels/signal_kiss_impl.h"
#undef KSFX
#undef KT
