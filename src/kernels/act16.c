/* int16 LOGISTIC and TANH (TFLite Micro's logistic_common.cc / tanh.cc, reference
 * integer_ops/logistic.h and tanh.h): the input rescaled to 3 * 4096 per unit (a power-of-two
 * scale takes the exact 3 << shift), then a 256-entry sigmoid table (sigmoid(i / 24) in Q0.16)
 * interpolated linearly; tanh(x) = 2 sigmoid(2x) - 1 reads it at twice the resolution.
 *
 * The table is built here, in the op's scratch at each eval: each entry is the sample
 * 65536 sigmoid(i / 24) raised by half the amount linear interpolation falls short at the
 * middle of the interval that starts there (sigmoid is concave past 0), rounded; the last entry
 * is 1.0 saturated to 65535. This reproduces TFLite's table entry for entry. */
#include "kernels/kops_elem16.h"
#include "kernels/quant.h"

#include <math.h>

enum { TABLE_SIZE = 256 };

static double sigmoid_q16(double i) {
  return 65536.0 / (1.0 + exp(-i / 24.0));
}

static void sigmoid_table(uint16_t *t) {
  for (int i = 0; i < TABLE_SIZE - 1; i++) {
    double v = sigmoid_q16(i), next = sigmoid_q16(i + 1), mid = sigmoid_q16(i + 0.5);
    double r = floor(v + (mid - (v + next) / 2) / 2 + 0.5);
    t[i] = (uint16_t)(r > 65535.0 ? 65535.0 : r);
  }
  t[TABLE_SIZE - 1] = 65535;
}

/* CheckedLog2: log2 in float (std::log times 1 / log 2), rounded; exact within 1e-3. */
static bool checked_log2(float x, int *log2) {
  float l = logf(x) * (1.0f / logf(2.0f));
  float r = roundf(l);
  *log2 = (int)r;
  return fabsf(l - r) < 1e-3f;
}

size_t ap_act16_scratch(void) {
  return ap_kscratch_round(TABLE_SIZE * sizeof(uint16_t));
}

ap_status ap_act16_setup(bool tanh_op, const ap_ktensor *in, const ap_ktensor *out,
                         ap_unary_params *p, ap_errbuf *err) {
  const char *name = tanh_op ? "TANH" : "LOGISTIC";
  if (!ap_kq_scale_ok(in->scale) || !ap_kq_scale_ok(out->scale)) {
    return ap_fail(err, AP_ERR_FORMAT, "%s: int16 tensors need positive scales", name);
  }
  int out_log2;
  if (in->zero_point != 0 || out->zero_point != 0 || !checked_log2(out->scale, &out_log2) ||
      out_log2 != -15) {
    return ap_fail(err, AP_ERR_UNSUPPORTED,
                   "%s: int16 needs zero points 0 and output scale 2^-15, got %g, %d -> %g, %d",
                   name, (double)in->scale, (int)in->zero_point, (double)out->scale,
                   (int)out->zero_point);
  }
  int in_log2;
  bool pot = checked_log2(in->scale, &in_log2);
  int shift = 12 + in_log2; /* (15 - 3 integer bits) */
  pot = pot && (shift == 0 || (tanh_op && shift == 1));
  if (pot) { /* a power-of-two scale: exactly 3 << shift, no rounding */
    p->multiplier = 3 << shift;
    p->shift = 0;
  } else {
    double m = (double)in->scale * 4096.0 * 3.0;
    shift = 0;
    while (m <= 32767.0 / 2.0 && shift <= 30) {
      shift++;
      m *= 2.0;
    }
    /* TFLite Micro only DCHECKs m <= 32767; up to 65535 the product with any int16 still
     * fits int32, past that it would overflow. */
    if (!(m <= 65535.0)) {
      return ap_fail(err, AP_ERR_UNSUPPORTED, "%s: int16 input scale %g is too large", name,
                     (double)in->scale);
    }
    p->multiplier = (int32_t)m;
    p->shift = shift;
  }
  p->scratch_bytes = ap_act16_scratch();
  return AP_OK;
}

void ap_act16_eval(const ap_unary_params *p, bool tanh_op, const int16_t *x, int16_t *y, size_t n,
                   void *scratch) {
  uint16_t *t = scratch;
  sigmoid_table(t);
  int32_t round = p->shift > 0 ? (int32_t)1 << (p->shift - 1) : 0;
  for (size_t i = 0; i < n; i++) {
    int32_t v = (x[i] * p->multiplier + round) >> p->shift;
    uint32_t a = (uint32_t)(v < 0 ? -v : v);
    if (!tanh_op) {
      uint32_t uh = a >> 9, r;
      if (uh >= 255) {
        r = 0x7FFFu << 10;
      } else {
        r = ((uint32_t)t[uh] << 9) + (a & 0x1ff) * (uint32_t)(t[uh + 1] - t[uh]);
      }
      r = v >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1;
      y[i] = (int16_t)(r >> 10);
    } else {
      uint32_t uh = a >> 8;
      int32_t r;
      if (uh >= 255) {
        r = 0xFFFF << 8;
      } else {
        r = (int32_t)(((uint32_t)t[uh] << 8) + (a & 0xff) * (uint32_t)(t[uh + 1] - t[uh]));
      }
      r = v >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
      y[i] = (int16_t)(r >> 8);
    }
  }
}
