/* Small helpers for kernel tests: tensor views over stack arrays. */
#ifndef AP_TESTS_KTEST_H
#define AP_TESTS_KTEST_H

#include "kernels/kernels.h"
#include "kernels/quant.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>

static inline ap_ktensor kt(int type, void *data, int rank, int32_t d0, int32_t d1, int32_t d2,
                            int32_t d3) {
  int32_t dims[4] = {d0, d1, d2, d3};
  return ap_ktensor_make(type, data, rank, dims);
}

static inline ap_ktensor ktq(int type, void *data, int rank, int32_t d0, int32_t d1, int32_t d2,
                             int32_t d3, float scale, int32_t zero_point) {
  ap_ktensor t = kt(type, data, rank, d0, d1, d2, d3);
  t.scale = scale;
  t.zero_point = zero_point;
  return t;
}

/* An output view: type, quantization and data; prepare fills the dims. */
static inline ap_ktensor kout(int type, void *data, float scale, int32_t zero_point) {
  return ktq(type, data, 0, 0, 0, 0, 0, scale, zero_point);
}

#define CHECK_DIMS4(t, a, b, c, d)                                                                 \
  do {                                                                                             \
    CHECK_EQ((t).rank, 4);                                                                         \
    CHECK_EQ((t).dims[0], a);                                                                      \
    CHECK_EQ((t).dims[1], b);                                                                      \
    CHECK_EQ((t).dims[2], c);                                                                      \
    CHECK_EQ((t).dims[3], d);                                                                      \
  } while (0)

#define CHECK_ARRAY(got, want, n)                                                                  \
  do {                                                                                             \
    for (size_t ap_i_ = 0; ap_i_ < (size_t)(n); ap_i_++) {                                         \
      CHECK_MSG((got)[ap_i_] == (want)[ap_i_], "[%zu]: got %g, want %g", ap_i_,                    \
                (double)(got)[ap_i_], (double)(want)[ap_i_]);                                      \
    }                                                                                              \
  } while (0)

#endif
