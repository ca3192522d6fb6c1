/* SignalRfft and SignalIrfft on int16: TFLite Micro runs KISS FFT (v130) built with
 * FIXED_POINT=16, and the bytes depend on its exact schedule, so this is the same algorithm
 * written again: a complex FFT of half the length over the real samples taken in pairs, mixed
 * radix (4s first, then 2, 3, 5; decimation in time), every butterfly scaling its inputs down by
 * its radix with KISS's rounding multiply (by 32767/radix, not an exact division), int16
 * wrapping sums, and Q15 twiddles rounded from the double cos and sin. Then the split step
 * that turns the half-length complex FFT into the real one (and back for the inverse).
 *
 * Twiddles are computed once into the op's state (zeroed by a reset: computed again). KISS's
 * generic butterfly (a radix above 5) needs a heap TFLite Micro does not give it, so lengths
 * with such a factor are refused, as are odd lengths. */
#include "kernels/kops_signal.h"

#include <math.h>
#include <string.h>

#define MAX_FACTORS 32

typedef struct cpx {
  int16_t r, i;
} cpx;

typedef struct sig_fft_params {
  ap_kstate st;       /* the twiddles */
  int32_t fft_length; /* real samples */
  int32_t half;       /* complex FFT length */
  int32_t in_len, out_len;
  size_t frames;
  int n_factors;
  int16_t radix[MAX_FACTORS];
  bool inverse;
} sig_fft_params;
_Static_assert(sizeof(sig_fft_params) <= AP_KPARAMS_SIZE, "params");

/* The state: a ready flag, then `half` twiddles and half/2 split twiddles. */
typedef struct fft_state {
  int32_t ready;
  int32_t pad;
} fft_state;

static inline int16_t w16(int32_t x) {
  return (int16_t)(uint16_t)(uint32_t)x;
}
/* Q15 product with KISS's rounding (add half, shift right 15), as int16. */
static inline int16_t qround(int32_t x) {
  return w16((x + (1 << 14)) >> 15);
}
static inline cpx cmul(cpx a, cpx b) {
  return (cpx){qround((int32_t)a.r * b.r - (int32_t)a.i * b.i),
               qround((int32_t)a.r * b.i + (int32_t)a.i * b.r)};
}
static inline cpx cadd(cpx a, cpx b) {
  return (cpx){w16(a.r + b.r), w16(a.i + b.i)};
}
static inline cpx csub(cpx a, cpx b) {
  return (cpx){w16(a.r - b.r), w16(a.i - b.i)};
}
/* KISS's C_FIXDIV: times (32767 / k) in Q15. */
static inline cpx cdiv(cpx a, int k) {
  int32_t m = 32767 / k;
  return (cpx){qround(a.r * m), qround(a.i * m)};
}

/* KISS's factoring: 4s while they divide, then 2, 3, 5, 7, ... up to floor(sqrt(n)) of the
 * original n, after which the rest is one factor. */
static int factor(int32_t n, int16_t *radix) {
  int count = 0, p = 4;
  double root = floor(sqrt((double)n));
  do {
    while (n % p) {
      p = p == 4 ? 2 : p == 2 ? 3 : p + 2;
      if (p > root) p = n;
    }
    if (count == MAX_FACTORS || p > INT16_MAX) return -1;
    radix[count++] = (int16_t)p;
    n /= p;
  } while (n > 1);
  return count;
}

static cpx twiddle(double phase) {
  return (cpx){(int16_t)floor(0.5 + 32767 * cos(phase)), (int16_t)floor(0.5 + 32767 * sin(phase))};
}

static void make_twiddles(const sig_fft_params *p, cpx *tw, cpx *split) {
  const double pi = 3.14159265358979323846;
  for (int32_t k = 0; k < p->half; k++) {
    double phase = -2 * pi * k / p->half;
    tw[k] = twiddle(p->inverse ? -phase : phase);
  }
  for (int32_t k = 0; k < p->half / 2; k++) {
    double phase = -pi * ((double)(k + 1) / p->half + .5);
    split[k] = twiddle(p->inverse ? -phase : phase);
  }
}

/* One radix-r pass over m groups; twiddles advance `stride` per group. */
static void pass2(cpx *f, const cpx *tw, size_t stride, size_t m) {
  for (size_t u = 0; u < m; u++) {
    cpx a = cdiv(f[u], 2), b = cdiv(f[u + m], 2);
    cpx t = cmul(b, tw[u * stride]);
    f[u + m] = csub(a, t);
    f[u] = cadd(a, t);
  }
}

static void pass3(cpx *f, const cpx *tw, size_t stride, size_t m) {
  int16_t sin120 = tw[stride * m].i;
  for (size_t u = 0; u < m; u++) {
    cpx a = cdiv(f[u], 3), b = cdiv(f[u + m], 3), c = cdiv(f[u + 2 * m], 3);
    cpx s1 = cmul(b, tw[u * stride]), s2 = cmul(c, tw[2 * u * stride]);
    cpx sum = cadd(s1, s2), diff = csub(s1, s2);
    cpx mid = {w16(a.r - (sum.r >> 1)), w16(a.i - (sum.i >> 1))};
    diff = (cpx){qround(diff.r * sin120), qround(diff.i * sin120)};
    f[u] = cadd(a, sum);
    f[u + 2 * m] = (cpx){w16(mid.r + diff.i), w16(mid.i - diff.r)};
    f[u + m] = (cpx){w16(mid.r - diff.i), w16(mid.i + diff.r)};
  }
}

static void pass4(cpx *f, const cpx *tw, size_t stride, size_t m, bool inverse) {
  for (size_t u = 0; u < m; u++) {
    cpx a = cdiv(f[u], 4), b = cdiv(f[u + m], 4), c = cdiv(f[u + 2 * m], 4),
        d = cdiv(f[u + 3 * m], 4);
    cpx s0 = cmul(b, tw[u * stride]), s1 = cmul(c, tw[2 * u * stride]),
        s2 = cmul(d, tw[3 * u * stride]);
    cpx s5 = csub(a, s1);
    a = cadd(a, s1);
    cpx s3 = cadd(s0, s2), s4 = csub(s0, s2);
    f[u + 2 * m] = csub(a, s3);
    f[u] = cadd(a, s3);
    /* The odd outputs rotate s4 by -i (forward) or +i (inverse). */
    int16_t rr = inverse ? w16(-s4.i) : s4.i, ri = inverse ? s4.r : w16(-s4.r);
    f[u + m] = (cpx){w16(s5.r + rr), w16(s5.i + ri)};
    f[u + 3 * m] = (cpx){w16(s5.r - rr), w16(s5.i - ri)};
  }
}

static inline int16_t qmul(int16_t a, int16_t b) {
  return qround((int32_t)a * b);
}

static void pass5(cpx *f, const cpx *tw, size_t stride, size_t m) {
  cpx ya = tw[stride * m], yb = tw[2 * stride * m];
  for (size_t u = 0; u < m; u++) {
    cpx x0 = cdiv(f[u], 5), x1 = cdiv(f[u + m], 5), x2 = cdiv(f[u + 2 * m], 5),
        x3 = cdiv(f[u + 3 * m], 5), x4 = cdiv(f[u + 4 * m], 5);
    x1 = cmul(x1, tw[u * stride]);
    x2 = cmul(x2, tw[2 * u * stride]);
    x3 = cmul(x3, tw[3 * u * stride]);
    x4 = cmul(x4, tw[4 * u * stride]);
    cpx s7 = cadd(x1, x4), s10 = csub(x1, x4), s8 = cadd(x2, x3), s9 = csub(x2, x3);
    f[u] = (cpx){w16(x0.r + (s7.r + s8.r)), w16(x0.i + (s7.i + s8.i))};
    cpx s5 = {w16(x0.r + qmul(s7.r, ya.r) + qmul(s8.r, yb.r)),
              w16(x0.i + qmul(s7.i, ya.r) + qmul(s8.i, yb.r))};
    cpx s6 = {w16(qmul(s10.i, ya.i) + qmul(s9.i, yb.i)),
              w16(-qmul(s10.r, ya.i) - qmul(s9.r, yb.i))};
    f[u + m] = csub(s5, s6);
    f[u + 4 * m] = cadd(s5, s6);
    cpx s11 = {w16(x0.r + qmul(s7.r, yb.r) + qmul(s8.r, ya.r)),
               w16(x0.i + qmul(s7.i, yb.r) + qmul(s8.i, ya.r))};
    cpx s12 = {w16(-qmul(s10.i, yb.i) + qmul(s9.i, ya.i)),
               w16(qmul(s10.r, yb.i) - qmul(s9.r, ya.i))};
    f[u + 2 * m] = cadd(s11, s12);
    f[u + 3 * m] = csub(s11, s12);
  }
}

/* The complex FFT of `in` (half values) into `out`: inputs placed in mixed-radix digit-reversed
 * order, then the passes from the last factor (smallest groups) to the first. KISS recurses
 * depth first; each pass only reads its own group, so doing them level by level is the same. */
static void cfft(const sig_fft_params *p, const cpx *tw, const cpx *in, cpx *out) {
  size_t n = (size_t)p->half;
  for (size_t pos = 0; pos < n; pos++) {
    size_t rest = pos, m = n, src = 0, stride = 1;
    for (int l = 0; l < p->n_factors; l++) {
      m /= (size_t)p->radix[l];
      src += (rest / m) * stride;
      rest %= m;
      stride *= (size_t)p->radix[l];
    }
    out[pos] = in[src];
  }
  size_t stride = n;
  for (int l = p->n_factors - 1; l >= 0; l--) {
    size_t r = (size_t)p->radix[l];
    stride /= r;
    size_t m = n / stride / r, block = r * m;
    for (size_t b = 0; b < stride; b++) {
      cpx *f = out + b * block;
      switch (r) {
      case 2: pass2(f, tw, stride, m); break;
      case 3: pass3(f, tw, stride, m); break;
      case 4: pass4(f, tw, stride, m, p->inverse); break;
      default: pass5(f, tw, stride, m); break;
      }
    }
  }
}

/* The real FFT from the complex FFT of the even/odd pairs (KISS's kiss_fftr). */
static void rfft(const sig_fft_params *p, const cpx *tw, const cpx *split, const int16_t *x,
                 cpx *tmp, cpx *y) {
  int32_t n = p->half;
  cfft(p, tw, (const cpx *)x, tmp);
  cpx dc = cdiv(tmp[0], 2);
  y[0] = (cpx){w16(dc.r + dc.i), 0};
  y[n] = (cpx){w16(dc.r - dc.i), 0};
  for (int32_t k = 1; k <= n / 2; k++) {
    cpx a = cdiv(tmp[k], 2), b = cdiv((cpx){tmp[n - k].r, w16(-tmp[n - k].i)}, 2);
    cpx sum = cadd(a, b), t = cmul(csub(a, b), split[k - 1]);
    y[k] = (cpx){w16((sum.r + t.r) >> 1), w16((sum.i + t.i) >> 1)};
    y[n - k] = (cpx){w16((sum.r - t.r) >> 1), w16((t.i - sum.i) >> 1)}; /* k = n/2: this wins */
  }
}

/* The inverse (KISS's kiss_fftri): the half-length spectrum rebuilt, then the inverse FFT. */
static void irfft(const sig_fft_params *p, const cpx *tw, const cpx *split, const cpx *x, cpx *z,
                  int16_t *y) {
  int32_t n = p->half;
  z[0] = cdiv((cpx){w16(x[0].r + x[n].r), w16(x[0].r - x[n].r)}, 2);
  for (int32_t k = 1; k <= n / 2; k++) {
    cpx a = cdiv(x[k], 2), b = cdiv((cpx){x[n - k].r, w16(-x[n - k].i)}, 2);
    cpx even = cadd(a, b), odd = cmul(csub(a, b), split[k - 1]);
    z[k] = cadd(even, odd);
    cpx back = csub(even, odd);
    z[n - k] = (cpx){back.r, w16(-back.i)};
  }
  cfft(p, tw, z, (cpx *)y);
}

static ap_status fft_prepare(ap_kctx *c, size_t *scratch, bool inverse) {
  const char *op = inverse ? "SignalIrfft" : "SignalRfft";
  ap_status s = ap_sig_io(c, op, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  sig_fft_params *p = c->params;
  memset(p, 0, sizeof *p);
  p->inverse = inverse;
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  size_t in_n, out_n;
  ap_flex root;
  int32_t type;
  if ((s = ap_sig_options(c, op, &root)) != AP_OK ||
      (s = ap_sig_opt_int(c, op, &root, "T", INT32_MIN, INT32_MAX, &type)) != AP_OK ||
      (s = ap_sig_opt_int(c, op, &root, "fft_length", 2, 1 << 24, &p->fft_length)) != AP_OK)
    return s;
  if (type != AP_INT16)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "%s: type %s (option T) is not supported (INT16 is)",
                   op, ap_ktype_name(type));
  if ((s = ap_sig_check(c, op, "input", in, AP_INT16, -1, &in_n)) != AP_OK ||
      (s = ap_sig_check(c, op, "output", out, AP_INT16, in->rank, &out_n)) != AP_OK)
    return s;
  if (p->fft_length % 2)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "%s: fft_length %d is odd", op, p->fft_length);
  p->half = p->fft_length / 2;
  p->n_factors = factor(p->half, p->radix);
  for (int l = 0; l < p->n_factors; l++)
    if (p->radix[l] > 5 || p->half == 1) p->n_factors = -1;
  if (p->n_factors < 0)
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "%s: fft_length %d: half of it must factor into 2, 3 and 5 (KISS FFT's "
                   "butterflies without a heap)",
                   op, p->fft_length);
  p->in_len = in->dims[in->rank - 1];
  p->out_len = out->dims[out->rank - 1];
  for (int d = 0; d + 1 < in->rank; d++)
    if (in->dims[d] != out->dims[d])
      return ap_fail(c->err, AP_ERR_FORMAT, "%s: input and output differ in dim %d", op, d);
  p->frames = p->in_len ? in_n / (size_t)p->in_len : 0;
  /* The forward FFT zero-pads each frame to fft_length and writes half + 1 complex values; the
   * inverse reads half + 1 and writes fft_length samples. */
  int32_t want_in = inverse ? 2 * (p->half + 1) : p->in_len;
  int32_t want_out = inverse ? p->fft_length : 2 * (p->half + 1);
  if ((inverse ? p->in_len != want_in : p->in_len > p->fft_length) || p->out_len != want_out)
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "%s: frames of %d in and %d out do not fit fft_length %d (%s%d in, %d out)", op,
                   p->in_len, p->out_len, p->fft_length, inverse ? "" : "at most ", want_in,
                   want_out);
  size_t tw = (size_t)p->half + (size_t)p->half / 2;
  p->st.bytes = sizeof(fft_state) + tw * sizeof(cpx);
  /* The zero-padded frame and the complex FFT's output (the inverse: the rebuilt spectrum). */
  *scratch = (size_t)p->fft_length * sizeof(int16_t) + (size_t)p->half * sizeof(cpx);
  (void)out_n;
  return AP_OK;
}

static ap_status fft_eval(ap_kctx *c) {
  const sig_fft_params *p = c->params;
  const int16_t *x = c->inputs[0]->data;
  int16_t *y = c->outputs[0]->data;
  fft_state *st = p->st.data;
  if (!x || !y || !st || !c->scratch)
    return ap_fail(c->err, AP_ERR_ARG, "%s: no data, state or scratch",
                   p->inverse ? "SignalIrfft" : "SignalRfft");
  cpx *tw = (cpx *)(st + 1), *split = tw + p->half;
  if (!st->ready) {
    make_twiddles(p, tw, split);
    st->ready = 1;
  }
  int16_t *frame = c->scratch;
  cpx *tmp = (cpx *)(frame + p->fft_length);
  for (size_t f = 0; f < p->frames; f++) {
    const int16_t *xf = x + f * (size_t)p->in_len;
    int16_t *yf = y + f * (size_t)p->out_len;
    if (p->inverse) {
      irfft(p, tw, split, (const cpx *)xf, tmp, yf);
    } else {
      memcpy(frame, xf, (size_t)p->in_len * sizeof *frame);
      memset(frame + p->in_len, 0, (size_t)(p->fft_length - p->in_len) * sizeof *frame);
      rfft(p, tw, split, frame, tmp, (cpx *)yf);
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
