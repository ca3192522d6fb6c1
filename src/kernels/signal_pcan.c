/* SignalPCAN: per-channel energy normalisation. Each channel's gain comes from its noise
 * estimate through a piecewise-quadratic lookup (the "wide dynamic function", a table the model
 * carries), the gained signal (snr, 12 fractional bits) goes through the shrink function (x^2/4
 * below 2, x - 1 above) into 6 fractional bits. */
#include "kernels/kops_signal.h"

#include <string.h>

#define PCAN "SignalPCAN"
#define SNR_BITS 12
#define OUT_BITS 6

typedef struct sig_pcan_params {
  int32_t snr_shift;
  size_t n, lut_n;
} sig_pcan_params;
_Static_assert(sizeof(sig_pcan_params) <= AP_KPARAMS_SIZE, "params");

ap_status ap_sig_pcan_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_sig_io(c, PCAN, 3, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  sig_pcan_params *p = c->params;
  memset(p, 0, sizeof *p);
  size_t noise_n, out_n;
  ap_flex root;
  if ((s = ap_sig_check(c, PCAN, "input", c->inputs[0], AP_UINT32, 1, &p->n)) != AP_OK ||
      (s = ap_sig_check(c, PCAN, "noise estimate", c->inputs[1], AP_UINT32, 1, &noise_n)) !=
          AP_OK ||
      (s = ap_sig_check(c, PCAN, "gain table", c->inputs[2], AP_INT16, 1, &p->lut_n)) != AP_OK ||
      (s = ap_sig_check(c, PCAN, "output", c->outputs[0], AP_UINT32, 1, &out_n)) != AP_OK ||
      (s = ap_sig_options(c, PCAN, &root)) != AP_OK ||
      (s = ap_sig_opt_int(c, PCAN, &root, "snr_shift", 0, 63, &p->snr_shift)) != AP_OK)
    return s;
  if (noise_n != p->n || out_n != p->n)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   PCAN ": input, noise estimate and output have %zu, %zu and %zu elements", p->n,
                   noise_n, out_n);
  if (p->lut_n < 3)
    return ap_fail(c->err, AP_ERR_FORMAT, PCAN ": gain table has %zu entries (at least 3)",
                   p->lut_n);
  return AP_OK;
}

/* x <= 2 indexes the table; above, segment b (x's bit count) has three coefficients at
 * 4b - 6, evaluated at x's next 10 bits below the top one. The arithmetic is TFLite Micro's
 * int32, wrapping where a hostile table could overflow it; *ok false when the table is too
 * short for x. */
static int32_t gain(uint32_t x, const int16_t *lut, size_t lut_n, bool *ok) {
  if (x <= 2) {
    *ok = x < lut_n;
    return *ok ? lut[x] : 0;
  }
  int b = ap_sig_bits32(x);
  size_t at = (size_t)(4 * b - 6);
  if (at + 3 > lut_n) {
    *ok = false;
    return 0;
  }
  const int16_t *k = lut + at;
  int32_t frac = (int32_t)((b < 11 ? x << (11 - b) : x >> (b - 11)) & 0x3FF);
  int32_t r = ((int32_t)k[2] * frac) >> 5;
  r = (int32_t)((uint32_t)r + ((uint32_t)(int32_t)k[1] << 5));
  r = (int32_t)((uint32_t)r * (uint32_t)frac);
  r = (int32_t)((uint32_t)r + (1u << 14)) >> 15;
  *ok = true;
  return (int16_t)(uint16_t)(uint32_t)(r + k[0]);
}

static uint32_t shrink(uint32_t x) {
  if (x < (2u << SNR_BITS)) return (x * x) >> (2 + 2 * SNR_BITS - OUT_BITS);
  return (x >> (SNR_BITS - OUT_BITS)) - (1u << OUT_BITS);
}

ap_status ap_sig_pcan_eval(ap_kctx *c) {
  const sig_pcan_params *p = c->params;
  const uint32_t *x = c->inputs[0]->data, *noise = c->inputs[1]->data;
  const int16_t *lut = c->inputs[2]->data;
  uint32_t *y = c->outputs[0]->data;
  if (!x || !noise || !lut || !y) return AP_ERR_ARG;
  for (size_t i = 0; i < p->n; i++) {
    bool ok;
    uint32_t g = (uint32_t)gain(noise[i], lut, p->lut_n, &ok);
    if (!ok)
      return ap_fail(c->err, AP_ERR_RANGE,
                     PCAN ": channel %zu: noise estimate %u needs gain table entries past its %zu",
                     i, noise[i], p->lut_n);
    uint32_t snr = (uint32_t)(((uint64_t)x[i] * g) >> p->snr_shift);
    y[i] = shrink(snr);
  }
  return AP_OK;
}
