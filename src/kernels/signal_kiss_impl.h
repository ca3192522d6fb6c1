/* The KISS FFT transforms for one scalar type, included by signal_kiss.c once per type with
 * KSFX (16, 32, f), KT (the scalar), the complex type KF(cpx) and its scalar operations
 * defined: KF(add), KF(sub), KF(neg) (unary minus), KF(negmul) (times -1), KF(smul) (KISS's
 * S_MUL), KF(cmul) (C_MUL), KF(div) (C_FIXDIV's per-part DIVSCALAR), KF(half) (HALF_OF),
 * KF(halfsum) and KF(halfdiff) (HALF_OF of a sum and a difference, formed in KISS's widths),
 * KF(tw) (a twiddle part from its double). No include guard: included several times. */

static inline KF(cpx) KF(cadd)(KF(cpx) a, KF(cpx) b) {
  return (KF(cpx)){KF(add)(a.r, b.r), KF(add)(a.i, b.i)};
}
static inline KF(cpx) KF(csub)(KF(cpx) a, KF(cpx) b) {
  return (KF(cpx)){KF(sub)(a.r, b.r), KF(sub)(a.i, b.i)};
}
static inline KF(cpx) KF(cdiv)(KF(cpx) a, int k) {
  return (KF(cpx)){KF(div)(a.r, k), KF(div)(a.i, k)};
}

void KISS_CAT(ap_kiss_twiddles, KSFX)(const ap_kiss_plan *p, KT *tw) {
  const double pi = 3.14159265358979323846;
  KF(cpx) *t = (KF(cpx) *)tw, *split = t + p->half;
  for (int32_t k = 0; k < p->half; k++) {
    double phase = -2 * pi * k / p->half;
    if (p->inverse) phase = -phase;
    t[k] = (KF(cpx)){KF(tw)(cos(phase)), KF(tw)(sin(phase))};
  }
  for (int32_t k = 0; k < p->half / 2; k++) {
    double phase = -pi * ((double)(k + 1) / p->half + .5);
    if (p->inverse) phase = -phase;
    split[k] = (KF(cpx)){KF(tw)(cos(phase)), KF(tw)(sin(phase))};
  }
}

/* One radix-r pass over m groups; twiddles advance `stride` per group. */
static void KF(pass2)(KF(cpx) * f, const KF(cpx) * tw, size_t stride, size_t m) {
  for (size_t u = 0; u < m; u++) {
    KF(cpx) a = KF(cdiv)(f[u], 2), b = KF(cdiv)(f[u + m], 2);
    KF(cpx) t = KF(cmul)(b, tw[u * stride]);
    f[u + m] = KF(csub)(a, t);
    f[u] = KF(cadd)(a, t);
  }
}

static void KF(pass3)(KF(cpx) * f, const KF(cpx) * tw, size_t stride, size_t m) {
  KT sin120 = tw[stride * m].i;
  for (size_t u = 0; u < m; u++) {
    KF(cpx) a = KF(cdiv)(f[u], 3), b = KF(cdiv)(f[u + m], 3), c = KF(cdiv)(f[u + 2 * m], 3);
    KF(cpx) s1 = KF(cmul)(b, tw[u * stride]), s2 = KF(cmul)(c, tw[2 * u * stride]);
    KF(cpx) sum = KF(cadd)(s1, s2), diff = KF(csub)(s1, s2);
    KF(cpx) mid = {KF(sub)(a.r, KF(half)(sum.r)), KF(sub)(a.i, KF(half)(sum.i))};
    diff = (KF(cpx)){KF(smul)(diff.r, sin120), KF(smul)(diff.i, sin120)};
    f[u] = KF(cadd)(a, sum);
    f[u + 2 * m] = (KF(cpx)){KF(add)(mid.r, diff.i), KF(sub)(mid.i, diff.r)};
    f[u + m] = (KF(cpx)){KF(sub)(mid.r, diff.i), KF(add)(mid.i, diff.r)};
  }
}

static void KF(pass4)(KF(cpx) * f, const KF(cpx) * tw, size_t stride, size_t m, bool inverse) {
  for (size_t u = 0; u < m; u++) {
    KF(cpx)
    a = KF(cdiv)(f[u], 4), b = KF(cdiv)(f[u + m], 4), c = KF(cdiv)(f[u + 2 * m], 4),
    d = KF(cdiv)(f[u + 3 * m], 4);
    KF(cpx)
    s0 = KF(cmul)(b, tw[u * stride]), s1 = KF(cmul)(c, tw[2 * u * stride]),
    s2 = KF(cmul)(d, tw[3 * u * stride]);
    KF(cpx) s5 = KF(csub)(a, s1);
    a = KF(cadd)(a, s1);
    KF(cpx) s3 = KF(cadd)(s0, s2), s4 = KF(csub)(s0, s2);
    f[u + 2 * m] = KF(csub)(a, s3);
    f[u] = KF(cadd)(a, s3);
    /* The odd outputs turn s4 by -i (forward) or +i (inverse). */
    if (inverse) {
      f[u + m] = (KF(cpx)){KF(sub)(s5.r, s4.i), KF(add)(s5.i, s4.r)};
      f[u + 3 * m] = (KF(cpx)){KF(add)(s5.r, s4.i), KF(sub)(s5.i, s4.r)};
    } else {
      f[u + m] = (KF(cpx)){KF(add)(s5.r, s4.i), KF(sub)(s5.i, s4.r)};
      f[u + 3 * m] = (KF(cpx)){KF(sub)(s5.r, s4.i), KF(add)(s5.i, s4.r)};
    }
  }
}

static void KF(pass5)(KF(cpx) * f, const KF(cpx) * tw, size_t stride, size_t m) {
  KF(cpx) ya = tw[stride * m], yb = tw[2 * stride * m];
  for (size_t u = 0; u < m; u++) {
    KF(cpx)
    x0 = KF(cdiv)(f[u], 5), x1 = KF(cdiv)(f[u + m], 5), x2 = KF(cdiv)(f[u + 2 * m], 5),
    x3 = KF(cdiv)(f[u + 3 * m], 5), x4 = KF(cdiv)(f[u + 4 * m], 5);
    x1 = KF(cmul)(x1, tw[u * stride]);
    x2 = KF(cmul)(x2, tw[2 * u * stride]);
    x3 = KF(cmul)(x3, tw[3 * u * stride]);
    x4 = KF(cmul)(x4, tw[4 * u * stride]);
    KF(cpx) s7 = KF(cadd)(x1, x4), s10 = KF(csub)(x1, x4);
    KF(cpx) s8 = KF(cadd)(x2, x3), s9 = KF(csub)(x2, x3);
    f[u] = (KF(cpx)){KF(add)(x0.r, KF(add)(s7.r, s8.r)), KF(add)(x0.i, KF(add)(s7.i, s8.i))};
    KF(cpx)
    s5 = {KF(add)(KF(add)(x0.r, KF(smul)(s7.r, ya.r)), KF(smul)(s8.r, yb.r)),
          KF(add)(KF(add)(x0.i, KF(smul)(s7.i, ya.r)), KF(smul)(s8.i, yb.r))};
    KF(cpx)
    s6 = {KF(add)(KF(smul)(s10.i, ya.i), KF(smul)(s9.i, yb.i)),
          KF(sub)(KF(neg)(KF(smul)(s10.r, ya.i)), KF(smul)(s9.r, yb.i))};
    f[u + m] = KF(csub)(s5, s6);
    f[u + 4 * m] = KF(cadd)(s5, s6);
    KF(cpx)
    s11 = {KF(add)(KF(add)(x0.r, KF(smul)(s7.r, yb.r)), KF(smul)(s8.r, ya.r)),
           KF(add)(KF(add)(x0.i, KF(smul)(s7.i, yb.r)), KF(smul)(s8.i, ya.r))};
    KF(cpx)
    s12 = {KF(add)(KF(neg)(KF(smul)(s10.i, yb.i)), KF(smul)(s9.i, ya.i)),
           KF(sub)(KF(smul)(s10.r, yb.i), KF(smul)(s9.r, ya.i))};
    f[u + 2 * m] = KF(cadd)(s11, s12);
    f[u + 3 * m] = KF(csub)(s11, s12);
  }
}

/* The complex FFT of `in` (half values) into `out`: inputs placed in mixed-radix digit-reversed
 * order, then the passes from the last factor (smallest groups) to the first. KISS recurses
 * depth first; each pass reads only its own group, so level by level is the same. */
static void KF(cfft)(const ap_kiss_plan *p, const KF(cpx) * tw, const KF(cpx) * in, KF(cpx) * out) {
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
    size_t m = n / stride / r;
    for (size_t b = 0; b < stride; b++) {
      KF(cpx) *f = out + b * r * m;
      switch (r) {
      case 2: KF(pass2)(f, tw, stride, m); break;
      case 3: KF(pass3)(f, tw, stride, m); break;
      case 4: KF(pass4)(f, tw, stride, m, p->inverse); break;
      default: KF(pass5)(f, tw, stride, m); break;
      }
    }
  }
}

void KISS_CAT(ap_kiss_rfft, KSFX)(const ap_kiss_plan *p, const KT *twiddles, const KT *x, KT *out) {
  int32_t n = p->half;
  const KF(cpx) *tw = (const KF(cpx) *)twiddles, *split = tw + n;
  /* The complex FFT goes into the output itself: the split step reads bins k and n - k before it
   * writes them, and bin n (written from bin 0) is past the complex FFT's n values. */
  KF(cpx) *t = (KF(cpx) *)out, *y = t;
  KF(cfft)(p, tw, (const KF(cpx) *)x, t);
  KF(cpx) dc = KF(cdiv)(t[0], 2);
  y[0] = (KF(cpx)){KF(add)(dc.r, dc.i), 0};
  y[n] = (KF(cpx)){KF(sub)(dc.r, dc.i), 0};
  for (int32_t k = 1; k <= n / 2; k++) {
    KF(cpx) a = KF(cdiv)(t[k], 2), b = KF(cdiv)((KF(cpx)){t[n - k].r, KF(neg)(t[n - k].i)}, 2);
    KF(cpx) sum = KF(cadd)(a, b), w = KF(cmul)(KF(csub)(a, b), split[k - 1]);
    y[k] = (KF(cpx)){KF(halfsum)(sum.r, w.r), KF(halfsum)(sum.i, w.i)};
    /* At k = n/2 both name one bin, and this second write is the one kept, as in KISS. */
    y[n - k] = (KF(cpx)){KF(halfdiff)(sum.r, w.r), KF(halfdiff)(w.i, sum.i)};
  }
}

void KISS_CAT(ap_kiss_irfft, KSFX)(const ap_kiss_plan *p, const KT *twiddles, const KT *in, KT *tmp,
                                   KT *out) {
  int32_t n = p->half;
  const KF(cpx) *tw = (const KF(cpx) *)twiddles, *split = tw + n, *x = (const KF(cpx) *)in;
  KF(cpx) *z = (KF(cpx) *)tmp;
  z[0] = KF(cdiv)((KF(cpx)){KF(add)(x[0].r, x[n].r), KF(sub)(x[0].r, x[n].r)}, 2);
  for (int32_t k = 1; k <= n / 2; k++) {
    KF(cpx) a = KF(cdiv)(x[k], 2), b = KF(cdiv)((KF(cpx)){x[n - k].r, KF(neg)(x[n - k].i)}, 2);
    KF(cpx) even = KF(cadd)(a, b), odd = KF(cmul)(KF(csub)(a, b), split[k - 1]);
    z[k] = KF(cadd)(even, odd);
    KF(cpx) back = KF(csub)(even, odd);
    z[n - k] = (KF(cpx)){back.r, KF(negmul)(back.i)};
  }
  KF(cfft)(p, tw, z, (KF(cpx) *)out);
}
