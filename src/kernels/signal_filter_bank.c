/* The filter bank stage of the audio front end: SignalFilterBank (triangular mel filters over
 * the energy spectrum), SignalFilterBankSquareRoot, SignalFilterBankSpectralSubtraction (noise
 * estimate kept across invokes) and SignalFilterBankLog. */
#include "kernels/kops_signal.h"

#include <string.h>

typedef struct sig_fb_params {
  ap_kstate st;     /* spectral subtraction: the noise estimate */
  int32_t channels; /* num_channels */
  size_t n, in_n, weights_n, bands_n;
  /* spectral subtraction */
  uint32_t smoothing, one_minus, alt_smoothing, alt_one_minus, min_remaining;
  int32_t smoothing_bits, ss_bits;
  bool clamping;
  /* log */
  int32_t correction_bits, output_scale;
} sig_fb_params;
_Static_assert(sizeof(sig_fb_params) <= AP_KPARAMS_SIZE, "params");

#define FILTER_BANK "SignalFilterBank"

ap_status ap_sig_filter_bank_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_sig_io(c, FILTER_BANK, 6, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  sig_fb_params *p = c->params;
  memset(p, 0, sizeof *p);
  static const char *const names[] = {
      "input",         "weights", "unweights", "channel frequency starts", "channel weight starts",
      "channel widths"};
  size_t n[6];
  ap_flex root;
  for (int i = 0; i < 6; i++)
    if ((s = ap_sig_check(c, FILTER_BANK, names[i], c->inputs[i], i ? AP_INT16 : AP_UINT32, 1,
                          &n[i])) != AP_OK)
      return s;
  if ((s = ap_sig_check(c, FILTER_BANK, "output", c->outputs[0], AP_UINT64, 1, &p->n)) != AP_OK ||
      (s = ap_sig_options(c, FILTER_BANK, &root)) != AP_OK ||
      (s = ap_sig_opt_int(c, FILTER_BANK, &root, "num_channels", 1, INT32_MAX - 1, &p->channels)) !=
          AP_OK)
    return s;
  p->in_n = n[0];
  p->weights_n = n[1];
  /* Channel 0 of the three band tables is the scratch channel TFLite Micro drops. */
  p->bands_n = (size_t)p->channels + 1;
  if (n[2] != n[1] || n[3] < p->bands_n || n[4] < p->bands_n || n[5] < p->bands_n ||
      p->n > (size_t)p->channels)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   FILTER_BANK ": %d channels need band tables of %zu (have %zu, %zu, %zu), "
                               "weights and unweights alike (%zu, %zu), at most %d outputs (%zu)",
                   p->channels, p->bands_n, n[3], n[4], n[5], n[1], n[2], p->channels, p->n);
  *scratch = p->bands_n * sizeof(uint64_t);
  return AP_OK;
}

/* Each band's energy is weighted into its channel and "unweighted" (1 - weight) into the next
 * one; channel 0 only collects the first band's unweights. Weights are int16 times uint64 as in
 * TFLite Micro: a negative weight wraps modulo 2^64. Bands are checked against the tables here,
 * since the tables may be computed at run time. */
ap_status ap_sig_filter_bank_eval(ap_kctx *c) {
  const sig_fb_params *p = c->params;
  const uint32_t *x = c->inputs[0]->data;
  const int16_t *w = c->inputs[1]->data, *uw = c->inputs[2]->data;
  const int16_t *freq = c->inputs[3]->data, *wstart = c->inputs[4]->data,
                *width = c->inputs[5]->data;
  uint64_t *acc = c->scratch, *y = c->outputs[0]->data;
  if (!x || !w || !uw || !freq || !wstart || !width || !y || !acc) return AP_ERR_ARG;
  uint64_t weighted = 0, unweighted = 0;
  for (size_t ch = 0; ch < p->bands_n; ch++) {
    int32_t f0 = freq[ch], w0 = wstart[ch], len = width[ch];
    if (len > 0 && (f0 < 0 || w0 < 0 || (size_t)f0 + (size_t)len > p->in_n ||
                    (size_t)w0 + (size_t)len > p->weights_n))
      return ap_fail(c->err, AP_ERR_RANGE,
                     FILTER_BANK ": channel %zu: band %d+%d or weights %d+%d out of range (%zu "
                                 "bins, %zu weights)",
                     ch, f0, len, w0, len, p->in_n, p->weights_n);
    for (int32_t j = 0; j < len; j++) {
      uint64_t e = x[f0 + j];
      weighted += (uint64_t)(int64_t)w[w0 + j] * e;
      unweighted += (uint64_t)(int64_t)uw[w0 + j] * e;
    }
    acc[ch] = weighted;
    weighted = unweighted;
    unweighted = 0;
  }
  memcpy(y, acc + 1, p->n * sizeof *y);
  return AP_OK;
}

#define SQRT "SignalFilterBankSquareRoot"

ap_status ap_sig_filter_bank_sqrt_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_sig_io(c, SQRT, 2, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  sig_fb_params *p = c->params;
  memset(p, 0, sizeof *p);
  size_t out_n;
  if ((s = ap_sig_check(c, SQRT, "input", c->inputs[0], AP_UINT64, 1, &p->n)) != AP_OK ||
      (s = ap_sig_check(c, SQRT, "scale bits", c->inputs[1], AP_INT32, 0, NULL)) != AP_OK ||
      (s = ap_sig_check(c, SQRT, "output", c->outputs[0], AP_UINT32, 1, &out_n)) != AP_OK)
    return s;
  if (out_n != p->n)
    return ap_fail(c->err, AP_ERR_FORMAT, SQRT ": input has %zu elements, output %zu", p->n, out_n);
  return AP_OK;
}

ap_status ap_sig_filter_bank_sqrt_eval(ap_kctx *c) {
  const sig_fb_params *p = c->params;
  const uint64_t *x = c->inputs[0]->data;
  const int32_t *bits = c->inputs[1]->data;
  uint32_t *y = c->outputs[0]->data;
  if (!x || !bits || !y) return AP_ERR_ARG;
  if (*bits < 0 || *bits > 31)
    return ap_fail(c->err, AP_ERR_RANGE, SQRT ": scale bits %d out of range (0 to 31)", *bits);
  for (size_t i = 0; i < p->n; i++)
    y[i] = ap_sig_sqrt64(x[i]) >> *bits;
  return AP_OK;
}

#define SUBTRACT "SignalFilterBankSpectralSubtraction"

static ap_status subtraction_options(ap_kctx *c, sig_fb_params *p) {
  ap_flex root;
  int32_t v[5];
  static const char *const keys[] = {"smoothing", "one_minus_smoothing", "alternate_smoothing",
                                     "alternate_one_minus_smoothing", "min_signal_remaining"};
  ap_status s = ap_sig_options(c, SUBTRACT, &root);
  /* TFLite Micro reads these as int32 and keeps them as uint32. */
  for (int i = 0; s == AP_OK && i < 5; i++)
    s = ap_sig_opt_int(c, SUBTRACT, &root, keys[i], INT32_MIN, INT32_MAX, &v[i]);
  if (s != AP_OK ||
      (s = ap_sig_opt_int(c, SUBTRACT, &root, "num_channels", 1, INT32_MAX, &p->channels)) !=
          AP_OK ||
      (s = ap_sig_opt_int(c, SUBTRACT, &root, "smoothing_bits", 0, 31, &p->smoothing_bits)) !=
          AP_OK ||
      (s = ap_sig_opt_int(c, SUBTRACT, &root, "spectral_subtraction_bits", 0, 63, &p->ss_bits)) !=
          AP_OK ||
      (s = ap_sig_opt_bool(c, SUBTRACT, &root, "clamping", &p->clamping)) != AP_OK)
    return s;
  p->smoothing = (uint32_t)v[0];
  p->one_minus = (uint32_t)v[1];
  p->alt_smoothing = (uint32_t)v[2];
  p->alt_one_minus = (uint32_t)v[3];
  p->min_remaining = (uint32_t)v[4];
  return AP_OK;
}

ap_status ap_sig_spectral_subtraction_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_sig_io(c, SUBTRACT, 1, 2);
  if (s != AP_OK) return s;
  *scratch = 0;
  sig_fb_params *p = c->params;
  memset(p, 0, sizeof *p);
  size_t out_n, noise_n;
  if ((s = ap_sig_check(c, SUBTRACT, "input", c->inputs[0], AP_UINT32, 1, &p->n)) != AP_OK ||
      (s = ap_sig_check(c, SUBTRACT, "output", c->outputs[0], AP_UINT32, 1, &out_n)) != AP_OK ||
      (s = ap_sig_check(c, SUBTRACT, "noise estimate output", c->outputs[1], AP_UINT32, 1,
                        &noise_n)) != AP_OK ||
      (s = subtraction_options(c, p)) != AP_OK)
    return s;
  if (p->n != (size_t)p->channels || out_n != p->n || noise_n != p->n)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   SUBTRACT ": num_channels %d, but input, output and noise estimate have %zu, "
                            "%zu and %zu elements",
                   p->channels, p->n, out_n, noise_n);
  p->st.bytes = p->n * sizeof(uint32_t);
  return AP_OK;
}

/* Per channel: the noise estimate follows the signal through a one-pole smoother (odd channels
 * with the alternate coefficients), and the output is the signal minus the estimate, at least
 * min_signal_remaining of the signal. uint32/uint64 widths as in TFLite Micro (the scaled-up
 * signal wraps in 32 bits). */
ap_status ap_sig_spectral_subtraction_eval(ap_kctx *c) {
  const sig_fb_params *p = c->params;
  const uint32_t *x = c->inputs[0]->data;
  uint32_t *y = c->outputs[0]->data, *noise_out = c->outputs[1]->data, *noise = p->st.data;
  if (!x || !y || !noise_out || !noise)
    return ap_fail(c->err, AP_ERR_ARG, SUBTRACT ": no data or state");
  for (size_t i = 0; i < p->n; i++) {
    uint32_t sm = i & 1 ? p->alt_smoothing : p->smoothing;
    uint32_t om = i & 1 ? p->alt_one_minus : p->one_minus;
    uint32_t up = x[i] << p->smoothing_bits;
    noise[i] = (uint32_t)(((uint64_t)up * sm + (uint64_t)noise[i] * om) >> p->ss_bits);
    uint32_t est = noise[i];
    if (est > up) {
      est = up;
      if (p->clamping) noise[i] = est;
    }
    uint32_t floor = (uint32_t)(((uint64_t)x[i] * p->min_remaining) >> p->ss_bits);
    uint32_t left = (up - est) >> p->smoothing_bits;
    y[i] = left > floor ? left : floor;
  }
  memcpy(noise_out, noise, p->n * sizeof *noise);
  return AP_OK;
}

#define LOG "SignalFilterBankLog"

ap_status ap_sig_filter_bank_log_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_sig_io(c, LOG, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  sig_fb_params *p = c->params;
  memset(p, 0, sizeof *p);
  size_t out_n;
  ap_flex root;
  if ((s = ap_sig_check(c, LOG, "input", c->inputs[0], AP_UINT32, 1, &p->n)) != AP_OK ||
      (s = ap_sig_check(c, LOG, "output", c->outputs[0], AP_INT16, 1, &out_n)) != AP_OK ||
      (s = ap_sig_options(c, LOG, &root)) != AP_OK ||
      (s = ap_sig_opt_int(c, LOG, &root, "input_correction_bits", 0, 31, &p->correction_bits)) !=
          AP_OK ||
      (s = ap_sig_opt_int(c, LOG, &root, "output_scale", INT32_MIN, INT32_MAX, &p->output_scale)) !=
          AP_OK)
    return s;
  if (out_n != p->n)
    return ap_fail(c->err, AP_ERR_FORMAT, LOG ": input has %zu elements, output %zu", p->n, out_n);
  return AP_OK;
}

ap_status ap_sig_filter_bank_log_eval(ap_kctx *c) {
  const sig_fb_params *p = c->params;
  const uint32_t *x = c->inputs[0]->data;
  int16_t *y = c->outputs[0]->data;
  if (!x || !y) return AP_ERR_ARG;
  for (size_t i = 0; i < p->n; i++) {
    uint32_t v = x[i] << p->correction_bits;
    uint32_t l = v > 1 ? ap_sig_log32(v, (uint32_t)p->output_scale) : 0;
    y[i] = (int16_t)(l < INT16_MAX ? l : INT16_MAX);
  }
  return AP_OK;
}
