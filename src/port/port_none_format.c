/* The freestanding port's snprintf and vsnprintf (AP_PORT_NONE). The library's messages use
 * %zu, %llu and %g; newlib-nano's printf prints "zu", "lu" and nothing for those, so a
 * firmware's error messages came out garbled. These take precedence over the C library's
 * (the linker finds them in libarenaplan.a first) and are smaller: flags - 0 + space,
 * width and precision (numbers or *), lengths hh h l ll z j t, conversions d i u x X o c s p
 * f e g %. Floats are formatted for people (about 15 significant digits), not round-trips. */
#ifdef AP_PORT_NONE
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int vsnprintf(char *out, size_t size, const char *fmt, va_list ap);
int snprintf(char *out, size_t size, const char *fmt, ...);

typedef struct sink {
  char *out;
  size_t size, n; /* n: characters the full result has */
} sink;

static void put(sink *s, char c) {
  if (s->n + 1 < s->size) s->out[s->n] = c;
  s->n++;
}

typedef struct spec {
  bool left, zero, plus, space;
  int width, prec; /* prec -1: none */
} spec;

/* `body` (len chars) after `sign` (0 or a char), padded to the width. */
static void emit(sink *s, const spec *p, char sign, const char *body, int len) {
  int total = len + (sign != 0), pad = p->width > total ? p->width - total : 0;
  if (!p->left && !p->zero)
    for (; pad > 0; pad--)
      put(s, ' ');
  if (sign) put(s, sign);
  if (!p->left)
    for (; pad > 0; pad--)
      put(s, '0');
  for (int i = 0; i < len; i++)
    put(s, body[i]);
  for (; pad > 0; pad--)
    put(s, ' ');
}

static void integer(sink *s, spec p, uint64_t v, bool neg, unsigned base, bool upper) {
  char buf[72];
  int len = 0;
  const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  while (v) {
    buf[sizeof buf - 1 - len++] = digits[v % base];
    v /= base;
  }
  int want = p.prec < 0 ? 1 : p.prec; /* %.0d of 0 prints nothing */
  while (len < want && len < 64)
    buf[sizeof buf - 1 - len++] = '0';
  if (p.prec >= 0) p.zero = false;
  char sign = neg ? '-' : p.plus ? '+' : p.space ? ' ' : 0;
  emit(s, &p, sign, buf + sizeof buf - len, len);
}

/* Fixed notation of v >= 0 with `prec` decimals into buf; returns its length. */
static int fixed(char *buf, int cap, double v, int prec) {
  double r = 0.5;
  for (int i = 0; i < prec; i++)
    r /= 10;
  v += r;
  int len = 0, e = 0;
  double unit = 1;
  while (unit * 10 <= v && e < 308) {
    unit *= 10;
    e++;
  }
  for (int i = e; i >= 0 && len < cap; i--, unit /= 10) {
    int d = (int)(v / unit);
    if (d > 9) d = 9;
    if (d < 0) d = 0;
    buf[len++] = (char)('0' + d);
    v -= d * unit;
  }
  if (prec > 0 && len < cap) buf[len++] = '.';
  for (int i = 0; i < prec && len < cap; i++) {
    v *= 10;
    int d = (int)v;
    if (d > 9) d = 9;
    buf[len++] = (char)('0' + d);
    v -= d;
  }
  return len;
}

static void floating(sink *s, spec p, double v, char conv) {
  char buf[400];
  char sign = v < 0 ? '-' : p.plus ? '+' : p.space ? ' ' : 0;
  if (v < 0) v = -v;
  if (v != v || v > 1.7976931348623157e308) {
    p.zero = false;
    emit(s, &p, v != v ? 0 : sign, v != v ? "nan" : "inf", 3);
    return;
  }
  int prec = p.prec < 0 ? 6 : p.prec, len = 0, e = 0;
  double m = v;
  if (m != 0) {
    while (m >= 10) {
      m /= 10;
      e++;
    }
    while (m < 1) {
      m *= 10;
      e--;
    }
  }
  bool g = conv == 'g' || conv == 'G';
  if (g) {
    if (prec == 0) prec = 1;
    /* The exponent after rounding to prec significant digits decides the style. */
    double r = 0.5;
    for (int i = 1; i < prec; i++)
      r /= 10;
    if (m + r >= 10) e++;
    conv = e < -4 || e >= prec ? 'e' : 'f';
    prec = conv == 'e' ? prec - 1 : prec - 1 - e;
  }
  if (conv == 'f' || conv == 'F') {
    len = fixed(buf, 330, v, prec);
  } else {
    double r = 0.5;
    for (int i = 0; i < prec; i++)
      r /= 10;
    if (m + r >= 10) {
      m /= 10;
      e++;
    }
    len = fixed(buf, 40, m, prec);
    buf[len++] = 'e';
    buf[len++] = e < 0 ? '-' : '+';
    int a = e < 0 ? -e : e;
    if (a >= 100) buf[len++] = (char)('0' + a / 100);
    buf[len++] = (char)('0' + a / 10 % 10);
    buf[len++] = (char)('0' + a % 10);
  }
  if (g) { /* %g drops trailing zeros and a bare point */
    int end = len, point = -1, expo = len;
    for (int i = 0; i < len; i++) {
      if (buf[i] == '.') point = i;
      if (buf[i] == 'e') expo = i;
    }
    if (point >= 0) {
      end = expo;
      while (end > point + 1 && buf[end - 1] == '0')
        end--;
      if (end == point + 1) end = point;
      for (int i = expo; i < len; i++)
        buf[end++] = buf[i];
      len = end;
    }
  }
  emit(s, &p, sign, buf, len);
}

int vsnprintf(char *out, size_t size, const char *fmt, va_list ap) {
  sink s = {out, size, 0};
  for (const char *f = fmt; *f; f++) {
    if (*f != '%') {
      put(&s, *f);
      continue;
    }
    spec p = {false, false, false, false, 0, -1};
    for (;; f++) {
      if (f[1] == '-')
        p.left = true;
      else if (f[1] == '0')
        p.zero = true;
      else if (f[1] == '+')
        p.plus = true;
      else if (f[1] == ' ')
        p.space = true;
      else if (f[1] != '#')
        break;
    }
    f++;
    if (*f == '*') {
      p.width = va_arg(ap, int);
      if (p.width < 0) {
        p.left = true;
        p.width = -p.width;
      }
      f++;
    } else {
      while (*f >= '0' && *f <= '9')
        p.width = p.width * 10 + (*f++ - '0');
    }
    if (*f == '.') {
      f++;
      p.prec = 0;
      if (*f == '*') {
        p.prec = va_arg(ap, int);
        f++;
      } else {
        while (*f >= '0' && *f <= '9')
          p.prec = p.prec * 10 + (*f++ - '0');
      }
    }
    int lng = 0; /* 1: long, 2: long long / intmax, 3: size_t / ptrdiff_t, -1 -2: h hh */
    if (*f == 'h')
      lng = *++f == 'h' ? (f++, -2) : -1;
    else if (*f == 'l')
      lng = *++f == 'l' ? (f++, 2) : 1;
    else if (*f == 'j')
      lng = 2, f++;
    else if (*f == 'z' || *f == 't')
      lng = 3, f++;
    else if (*f == 'L')
      f++;
    char c = *f;
    if (!c) break;
    switch (c) {
    case 'd':
    case 'i': {
      long long v = lng == 2   ? va_arg(ap, long long)
                    : lng == 1 ? va_arg(ap, long)
                    : lng == 3 ? (long long)va_arg(ap, ptrdiff_t)
                               : va_arg(ap, int);
      if (lng == -1) v = (short)v;
      if (lng == -2) v = (signed char)v;
      integer(&s, p, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0, 10, false);
      break;
    }
    case 'u':
    case 'x':
    case 'X':
    case 'o': {
      uint64_t v = lng == 2   ? va_arg(ap, unsigned long long)
                   : lng == 1 ? va_arg(ap, unsigned long)
                   : lng == 3 ? va_arg(ap, size_t)
                              : va_arg(ap, unsigned);
      if (lng == -1) v = (unsigned short)v;
      if (lng == -2) v = (unsigned char)v;
      p.plus = p.space = false;
      integer(&s, p, v, false, c == 'u' ? 10 : c == 'o' ? 8 : 16, c == 'X');
      break;
    }
    case 'p': {
      put(&s, '0');
      put(&s, 'x');
      p.width = p.width > 2 ? p.width - 2 : 0;
      integer(&s, p, (uintptr_t)va_arg(ap, void *), false, 16, false);
      break;
    }
    case 'c': {
      char ch = (char)va_arg(ap, int);
      emit(&s, &p, 0, &ch, 1);
      break;
    }
    case 's': {
      const char *str = va_arg(ap, const char *);
      if (!str) str = "(null)";
      int len = 0;
      while (str[len] && (p.prec < 0 || len < p.prec))
        len++;
      p.zero = false;
      emit(&s, &p, 0, str, len);
      break;
    }
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G': floating(&s, p, va_arg(ap, double), c); break;
    case '%': put(&s, '%'); break;
    default: /* unknown: shown as written */ put(&s, '%'); put(&s, c);
    }
  }
  if (size) out[s.n < size ? s.n : size - 1] = '\0';
  return s.n > 0x7fffffff ? 0x7fffffff : (int)s.n;
}

int snprintf(char *out, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(out, size, fmt, ap);
  va_end(ap);
  return n;
}
#endif
