/* How TFLite quantizes float activations on the fly for hybrid kernels (tensor_utils'
 * portable versions; the optimized ones give the same values). */
#include "kernels/kernels.h"

#include <math.h>
#include <string.h>

const int ap_khybrid_anchor = 1;

static void min_max(const float *v, size_t n, float *lo, float *hi) {
  float a = v[0], b = v[0];
  for (size_t i = 1; i < n; i++) {
    if (v[i] < a) a = v[i];
    if (b < v[i]) b = v[i];
  }
  *lo = a;
  *hi = b;
}

void ap_kquantize_asymmetric(const float *v, size_t n, int8_t *q, float *scaling_factor,
                             int32_t *offset) {
  if (n == 0) {
    *scaling_factor = 1.0f;
    *offset = 0;
    return;
  }
  float lo, hi;
  min_max(v, n, &lo, &hi);
  const double qmin = -128.0, qmax = 127.0;
  double rmin = lo < 0.0f ? (double)lo : 0.0;
  double rmax = 0.0f < hi ? (double)hi : 0.0;
  if (rmin == rmax) {
    memset(q, 0, n);
    *scaling_factor = 1.0f;
    *offset = 0;
    return;
  }
  double scale = (rmax - rmin) / (qmax - qmin);
  double zp_from_min = qmin - rmin / scale;
  double zp_from_max = qmax - rmax / scale;
  double zp_from_min_error = fabs(qmin) + fabs(rmin / scale);
  double zp_from_max_error = fabs(qmax) + fabs(rmax / scale);
  double zp = zp_from_min_error < zp_from_max_error ? zp_from_min : zp_from_max;
  int32_t nudged;
  if (zp <= qmin) {
    nudged = -128;
  } else if (zp >= qmax) {
    nudged = 127;
  } else {
    nudged = (int8_t)round(zp);
  }
  *scaling_factor = (float)scale;
  *offset = nudged;
  const float inv = 1.0f / *scaling_factor;
  for (size_t i = 0; i < n; i++) {
    float r = roundf((float)nudged + v[i] * inv);
    /* NaN: x86's conversion gives INT32_MIN, which the clamp takes to the minimum. */
    int32_t x = r >= 127.0f ? 127 : (r <= -128.0f || r != r) ? -128 : (int32_t)r;
    q[i] = (int8_t)x;
  }
}

void ap_kquantize_symmetric(const float *v, size_t n, int8_t *q, float *scaling_factor) {
  if (n == 0) {
    *scaling_factor = 1.0f;
    return;
  }
  float lo, hi;
  min_max(v, n, &lo, &hi);
  float range = fabsf(lo) < fabsf(hi) ? fabsf(hi) : fabsf(lo);
  if (range == 0.0f) {
    memset(q, 0, n);
    *scaling_factor = 1.0f;
    return;
  }
  *scaling_factor = range / 127.0f;
  const float inv = 127.0f / range;
  for (size_t i = 0; i < n; i++) {
    float r = roundf(v[i] * inv);
    int32_t x = r >= 127.0f ? 127 : (r <= -127.0f || r != r) ? -127 : (int32_t)r;
    q[i] = (int8_t)x;
  }
}
