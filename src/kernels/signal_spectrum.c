/* SignalWindow (a frame times a window, shifted down and saturated to int16),
 * SignalFftAutoScale (the frame shifted up so its largest magnitude uses all 15 bits) and
 * SignalEnergy (squared magnitudes of a complex int16 spectrum). */
#include "kernels/kops_signal.h"

#include <string.h>

typedef struct sig_spec_params {
  int32_t shift, start, end;
  size_t n, weights;
} sig_spec_params;
_Static_assert(sizeof(sig_spec_params) <= AP_KPARAMS_SIZE, "params");

#define WINDOW "SignalWindow"

ap_status ap_sig_window_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_sig_io(c, WINDOW, 2, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  sig_spec_params *p = c->params;
  memset(p, 0, sizeof *p);
  size_t out_n;
  ap_flex root;
  if ((s = ap_sig_check(c, WINDOW, "input", c->inputs[0], AP_INT16, -1, &p->n)) != AP_OK ||
      (s = ap_sig_check(c, WINDOW, "weights", c->inputs[1], AP_INT16, 1, &p->weights)) != AP_OK ||
      (s = ap_sig_check(c, WINDOW, "output", c->outputs[0], AP_INT16, c->inputs[0]->rank,
                        &out_n)) != AP_OK ||
      (s = ap_sig_options(c, WINDOW, &root)) != AP_OK ||
      (s = ap_sig_opt_int(c, WINDOW, &root, "shift", 0, 31, &p->shift)) != AP_OK)
    return s;
  /* The window is applied to each run of `weights` samples: the input must hold whole runs. */
  if (p->weights == 0 || p->n % p->weights != 0 || out_n != p->n)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   WINDOW ": input (%zu elements) must be whole windows of %zu, output the same "
                          "size (%zu)",
                   p->n, p->weights, out_n);
  return AP_OK;
}

ap_status ap_sig_window_eval(ap_kctx *c) {
  const sig_spec_params *p = c->params;
  const int16_t *x = c->inputs[0]->data, *w = c->inputs[1]->data;
  int16_t *y = c->outputs[0]->data;
  if (!x || !w || !y) return AP_ERR_ARG;
  for (size_t i = 0; i < p->n; i++) {
    int32_t v = ((int32_t)x[i] * w[i % p->weights]) >> p->shift;
    y[i] = (int16_t)(v < INT16_MIN ? INT16_MIN : v > INT16_MAX ? INT16_MAX : v);
  }
  return AP_OK;
}

#define AUTO_SCALE "SignalFftAutoScale"

ap_status ap_sig_fft_auto_scale_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_sig_io(c, AUTO_SCALE, 1, 2);
  if (s != AP_OK) return s;
  *scratch = 0;
  sig_spec_params *p = c->params;
  memset(p, 0, sizeof *p);
  size_t in_n;
  if ((s = ap_sig_check(c, AUTO_SCALE, "input", c->inputs[0], AP_INT16, 1, &in_n)) != AP_OK ||
      (s = ap_sig_check(c, AUTO_SCALE, "output", c->outputs[0], AP_INT16, 1, &p->n)) != AP_OK ||
      (s = ap_sig_check(c, AUTO_SCALE, "scale bits output", c->outputs[1], AP_INT32, 0, NULL)) !=
          AP_OK)
    return s;
  if (in_n != p->n)
    return ap_fail(c->err, AP_ERR_FORMAT, AUTO_SCALE ": input has %zu elements, output %zu", in_n,
                   p->n);
  return AP_OK;
}

/* TFLite Micro's MaxAbs16 keeps its running maximum in an int16: -32768 negates to 32768, which
 * wraps back to -32768, and every later sample then beats it. Its bit count of a negative
 * (as uint32) or of 0 (GCC's builtin: 32) leaves no room, so the scale is 0 there. */
ap_status ap_sig_fft_auto_scale_eval(ap_kctx *c) {
  const sig_spec_params *p = c->params;
  const int16_t *x = c->inputs[0]->data;
  int16_t *y = c->outputs[0]->data;
  int32_t *bits = c->outputs[1]->data;
  if (!x || !y || !bits) return AP_ERR_ARG;
  int16_t max = 0;
  for (size_t i = 0; i < p->n; i++) {
    if (x[i] > max)
      max = x[i];
    else if (-x[i] > max)
      max = (int16_t)(uint16_t)(-(int32_t)x[i]);
  }
  int top = max > 0 ? ap_sig_bits32((uint32_t)max) : 32;
  int scale = 16 - top - 1;
  if (scale < 0) scale = 0;
  for (size_t i = 0; i < p->n; i++)
    y[i] = (int16_t)(uint16_t)((uint32_t)(int32_t)x[i] << scale);
  *bits = scale;
  return AP_OK;
}

#define ENERGY "SignalEnergy"

ap_status ap_sig_energy_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_sig_io(c, ENERGY, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  sig_spec_params *p = c->params;
  memset(p, 0, sizeof *p);
  size_t in_n;
  ap_flex root;
  if ((s = ap_sig_check(c, ENERGY, "input", c->inputs[0], AP_INT16, 1, &in_n)) != AP_OK ||
      (s = ap_sig_check(c, ENERGY, "output", c->outputs[0], AP_UINT32, 1, &p->n)) != AP_OK ||
      (s = ap_sig_options(c, ENERGY, &root)) != AP_OK ||
      (s = ap_sig_opt_int(c, ENERGY, &root, "start_index", 0, INT32_MAX, &p->start)) != AP_OK ||
      (s = ap_sig_opt_int(c, ENERGY, &root, "end_index", 0, INT32_MAX, &p->end)) != AP_OK)
    return s;
  if (p->end > p->start && ((size_t)p->end > p->n || (size_t)p->end > in_n / 2))
    return ap_fail(c->err, AP_ERR_FORMAT,
                   ENERGY ": end_index %d is past the spectrum (%zu complex values) or the output "
                          "(%zu)",
                   p->end, in_n / 2, p->n);
  return AP_OK;
}

/* Bins outside [start_index, end_index) are 0: TFLite Micro leaves them as the arena had them
 * (zeros in a fresh arena), and its models slice them away. Two squares of -32768 overflow
 * int32 in TFLite Micro; the sum here wraps the same way into the uint32 it is stored as. */
ap_status ap_sig_energy_eval(ap_kctx *c) {
  const sig_spec_params *p = c->params;
  const int16_t *x = c->inputs[0]->data;
  uint32_t *y = c->outputs[0]->data;
  if (!x || !y) return AP_ERR_ARG;
  memset(y, 0, p->n * sizeof *y);
  for (int32_t i = p->start; i < p->end; i++) {
    int32_t re = x[2 * i], im = x[2 * i + 1];
    y[i] = (uint32_t)(re * re) + (uint32_t)(im * im);
  }
  return AP_OK;
}
