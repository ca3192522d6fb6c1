/* The quantized pools' loops (int8, uint8, int16), included by pool_generic.c and
 * pool_avx2.c, which compile them with their level's flags. Each output pixel runs over its
 * window's inside (padding is never averaged in, as the reference) for 16 channels at a time
 * in fixed-length blocks the compiler turns into vector code; sums are the reference's (int32,
 * int16's wrapping) and so are the rounding and the clamp. */
#include "kernels/fast/fastops.h"

#define POOL_BLOCK 16

/* Division by the window's count without a divide: for 0 <= x < 2^31, x / count (truncated)
 * is (x * m) >> sh with sh = 31 + ceil(log2(count)) and m = ceil(2^sh / count), as m * count
 * exceeds 2^sh by less than count <= 2^(sh - 31) (Granlund and Montgomery). */
typedef struct pool_div {
  uint64_t m;
  int sh;
  int32_t count;
} pool_div;

static inline pool_div pool_div_of(int32_t count) {
  int lg = 0;
  while (lg < 31 && ((int64_t)1 << lg) < count)
    lg++;
  pool_div d = {0, 31 + lg, count};
  d.m = (((uint64_t)1 << d.sh) + (uint64_t)count - 1) / (uint64_t)count;
  return d;
}

/* Rounded average as the reference: half away from zero, truncating division (exact through
 * the reciprocal while the rounded sum stays below 2^31, as every int8 and uint8 sum does). */
static inline int32_t pool_avg(int32_t acc, const pool_div *d) {
  int32_t half = d->count / 2;
  if (acc > -(1 << 30) && acc < (1 << 30) && d->count < (1 << 29)) {
    if (acc > 0) return (int32_t)(((uint64_t)(acc + half) * d->m) >> d->sh);
    return -(int32_t)(((uint64_t)(half - acc) * d->m) >> d->sh);
  }
  return acc > 0 ? (int32_t)(((int64_t)acc + half) / d->count)
                 : (int32_t)(((int64_t)acc - half) / d->count);
}

/* One block of channels over the window: OP(acc, value) for each tap inside, N lanes. */
#define POOL_TAPS(T, N, OP)                                                                        \
  for (int32_t fy = fy0; fy < fy1; fy++) {                                                         \
    const T *s =                                                                                   \
        in + (((size_t)b * q->in_h + (size_t)(y0 + fy)) * q->in_w + (size_t)(x0 + fx0)) * D + c0;  \
    for (int32_t fx = fx0; fx < fx1; fx++, s += D)                                                 \
      for (int32_t i = 0; i < (N); i++)                                                            \
        acc[i] = OP(acc[i], s[i]);                                                                 \
  }
#define POOL_ADD(a, v) ((int32_t)((uint32_t)(a) + (uint32_t)(int32_t)(v)))
#define POOL_MAX(a, v) ((a) > (v) ? (a) : (int32_t)(v))

#define POOL_FN(NAME, T, LOWEST)                                                                   \
  static bool NAME(const ap_qpool *q, int32_t b, int32_t oy0, int32_t oy1) {                       \
    const T *in = q->in;                                                                           \
    T *out = q->out;                                                                               \
    int32_t D = q->depth;                                                                          \
    bool avg = q->kind == AP_KPOOL_AVERAGE;                                                        \
    for (int32_t oy = oy0; oy < oy1; oy++)                                                         \
      for (int32_t ox = 0; ox < q->out_w; ox++) {                                                  \
        int32_t y0 = oy * q->stride_h - q->pad_h, x0 = ox * q->stride_w - q->pad_w;                \
        int32_t fy0 = y0 < 0 ? -y0 : 0, fy1 = q->in_h - y0 < q->f_h ? q->in_h - y0 : q->f_h;       \
        int32_t fx0 = x0 < 0 ? -x0 : 0, fx1 = q->in_w - x0 < q->f_w ? q->in_w - x0 : q->f_w;       \
        int32_t count = (fy1 - fy0) * (fx1 - fx0);                                                 \
        if (fy1 <= fy0 || fx1 <= fx0) {                                                            \
          if (avg) return false; /* the reference's error: nothing to average */                   \
          fy1 = fy0;             /* no taps: the lowest value, clamped */                          \
        }                                                                                          \
        T *o = out + (((size_t)b * q->out_h + oy) * q->out_w + ox) * D;                            \
        pool_div dv = pool_div_of(count > 0 ? count : 1);                                          \
        for (int32_t c0 = 0; c0 < D; c0 += POOL_BLOCK) {                                           \
          int32_t acc[POOL_BLOCK];                                                                 \
          int32_t n = D - c0 < POOL_BLOCK ? D - c0 : POOL_BLOCK;                                   \
          for (int32_t i = 0; i < POOL_BLOCK; i++)                                                 \
            acc[i] = avg ? 0 : (LOWEST);                                                           \
          if (n == POOL_BLOCK && avg) {                                                            \
            POOL_TAPS(T, POOL_BLOCK, POOL_ADD)                                                     \
          } else if (n == POOL_BLOCK) {                                                            \
            POOL_TAPS(T, POOL_BLOCK, POOL_MAX)                                                     \
          } else if (avg) {                                                                        \
            POOL_TAPS(T, n, POOL_ADD)                                                              \
          } else {                                                                                 \
            POOL_TAPS(T, n, POOL_MAX)                                                              \
          }                                                                                        \
          for (int32_t i = 0; i < n; i++) {                                                        \
            int32_t v = avg ? pool_avg(acc[i], &dv) : acc[i];                                      \
            o[c0 + i] = (T)(v < q->act_min ? q->act_min : v > q->act_max ? q->act_max : v);        \
          }                                                                                        \
        }                                                                                          \
      }                                                                                            \
    return true;                                                                                   \
  }

POOL_FN(pool_s8, int8_t, -128)
POOL_FN(pool_u8, uint8_t, 0)
POOL_FN(pool_s16, int16_t, -32768)

static bool pool_rows(const ap_qpool *q, int32_t b, int32_t oy0, int32_t oy1) {
  switch (q->type) {
  case AP_INT8: return pool_s8(q, b, oy0, oy1);
  case AP_UINT8: return pool_u8(q, b, oy0, oy1);
  default: return pool_s16(q, b, oy0, oy1);
  }
}
