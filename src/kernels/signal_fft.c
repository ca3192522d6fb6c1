/* SignalRfft and SignalIrfft: KISS FFT (signal_kiss.h) per frame, in int16, int32 or float
 * (the op's option T). The forward transform zero-pads each frame to fft_length; the float
 * inverse then divides by fft_length, as TFLite Micro's wrapper does (the fixed-point ones
 * scale inside the butterflies). Twiddles are computed once into the op's state (zeroed by a
 * reset: computed again). */
#include "kernels/kops_signal.h"
#include "kernels/signal_kiss.h"

#include <string.h>

typedef struct sig_fft_params {
  ap_kstate st; /* a ready flag, then the twiddles */
  ap_kiss_plan plan;
  int32_t fft_length, in_len, out_len;
  int type;
  size_t frames, es;
} sig_fft_params;
_Static_assert(sizeof(sig_fft_params) <= AP_KPARAMS_SIZE, "params");

#define STATE_HEADER 16 /* the ready flag, padded so the twiddles stay aligned */

static ap_status fft_prepare(ap_kctx *c, size_t *scratch, bool inverse) {
  const char *op = inverse ? "SignalIrfft" : "SignalRfft";
  ap_status s = ap_sig_io(c, op, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  sig_fft_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  size_t in_n, out_n;
  ap_flex root;
  int32_t type;
  if ((s = ap_sig_options(c, op, &root)) != AP_OK ||
      (s = ap_sig_opt_int(c, op, &root, "T", INT32_MIN, INT32_MAX, &type)) != AP_OK ||
      (s = ap_sig_opt_int(c, op, &root, "fft_length", 0, 1 << 24, &p->fft_length)) != AP_OK)
    return s;
  if (type != AP_INT16 && type != AP_INT32 && type != AP_FLOAT32)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "%s: type %s (option T) is not supported (INT16, INT32 and FLOAT32 are)", op,
                   ap_ktype_name(type));
  p->type = type;
  p->es = type == AP_INT16 ? 2 : 4;
  if ((s = ap_sig_check(c, op, "input", in, type, -1, &in_n)) != AP_OK ||
      (s = ap_sig_check(c, op, "output", out, type, in->rank, &out_n)) != AP_OK)
    return s;
  if (!ap_kiss_plan_init(&p->plan, p->fft_length, inverse))
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "%s: fft_length %d: must be even, at least 4, and half of it must factor into "
                   "2, 3 and 5 (KISS FFT's butterflies without a heap)",
                   op, p->fft_length);
  p->in_len = in->dims[in->rank - 1];
  p->out_len = out->dims[out->rank - 1];
  for (int d = 0; d + 1 < in->rank; d++)
    if (in->dims[d] != out->dims[d])
      return ap_fail(c->err, AP_ERR_FORMAT, "%s: input and output differ in dim %d", op, d);
  p->frames = p->in_len ? in_n / (size_t)p->in_len : 0;
  /* The forward FFT zero-pads each frame to fft_length and writes half + 1 complex values; the
   * inverse reads half + 1 and writes fft_length samples. */
  int32_t half = p->plan.half;
  int32_t want_in = inverse ? 2 * (half + 1) : p->fft_length;
  int32_t want_out = inverse ? p->fft_length : 2 * (half + 1);
  if ((inverse ? p->in_len != want_in : p->in_len > want_in) || p->out_len != want_out)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "%s: frames of %d in and %d out do not fit fft_length %d (%s%d in, %d out)", op,
                   p->in_len, p->out_len, p->fft_length, inverse ? "" : "at most ", want_in,
                   want_out);
  (void)out_n;
  /* Twiddles: half, then half / 2 for the split step, two scalars each. */
  p->st.bytes = STATE_HEADER + ((size_t)half + (size_t)half / 2) * 2 * p->es;
  /* The zero-padded frame, or the inverse's rebuilt half spectrum: fft_length scalars either
   * way (TFLite Micro's work area; KISS's own buffer is the output here). */
  *scratch = (size_t)p->fft_length * p->es;
  return AP_OK;
}

/* The inverse's scratch holds the rebuilt half spectrum; the forward one the padded frame. */
static void transform(const sig_fft_params *p, const void *tw, const void *x, void *scratch,
                      void *y) {
  bool inv = p->plan.inverse;
  switch (p->type) {
  case AP_INT16:
    if (inv)
      ap_kiss_irfft_16(&p->plan, tw, x, scratch, y);
    else
      ap_kiss_rfft_16(&p->plan, tw, x, y);
    break;
  case AP_INT32:
    if (inv)
      ap_kiss_irfft_32(&p->plan, tw, x, scratch, y);
    else
      ap_kiss_rfft_32(&p->plan, tw, x, y);
    break;
  default:
    if (inv)
      ap_kiss_irfft_f(&p->plan, tw, x, scratch, y);
    else
      ap_kiss_rfft_f(&p->plan, tw, x, y);
    if (inv) /* TFLite Micro's float wrapper undoes KISS's unscaled inverse */
      for (int32_t i = 0; i < p->fft_length; i++)
        ((float *)y)[i] /= (float)p->fft_length;
    break;
  }
}

static ap_status fft_eval(ap_kctx *c) {
  const sig_fft_params *p = c->params;
  const unsigned char *x = c->inputs[0]->data;
  unsigned char *y = c->outputs[0]->data, *st = p->st.data;
  if (!x || !y || !st || !c->scratch)
    return ap_fail(c->err, AP_ERR_ARG, "%s: no data, state or scratch",
                   p->plan.inverse ? "SignalIrfft" : "SignalRfft");
  void *tw = st + STATE_HEADER;
  if (!*(int32_t *)st) {
    switch (p->type) {
    case AP_INT16: ap_kiss_twiddles_16(&p->plan, tw); break;
    case AP_INT32: ap_kiss_twiddles_32(&p->plan, tw); break;
    default: ap_kiss_twiddles_f(&p->plan, tw); break;
    }
    *(int32_t *)st = 1;
  }
  unsigned char *frame = c->scratch;
  size_t in_bytes = (size_t)p->in_len * p->es, out_bytes = (size_t)p->out_len * p->es;
  for (size_t f = 0; f < p->frames; f++) {
    if (p->plan.inverse) {
      transform(p, tw, x + f * in_bytes, frame, y + f * out_bytes);
    } else {
      memcpy(frame, x + f * in_bytes, in_bytes);
      memset(frame + in_bytes, 0, (size_t)p->fft_length * p->es - in_bytes);
      transform(p, tw, frame, NULL, y + f * out_bytes);
    }
  }
  return AP_OK;
}

ap_status ap_sig_rfft_prepare(ap_kctx *c, size_t *scratch) {
  return fft_prepare(c, scratch, false);
}
ap_status ap_sig_rfft_eval(ap_kctx *c) {
  return fft_eval(c);
}
ap_status ap_sig_irfft_prepare(ap_kctx *c, size_t *scratch) {
  return fft_prepare(c, scratch, true);
}
ap_status ap_sig_irfft_eval(ap_kctx *c) {
  return fft_eval(c);
}
