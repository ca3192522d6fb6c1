/* Parsing real-valued options (see real.h). */
#include "real.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool cli_parse_real(const char *s, double lo, double hi, double *out) {
  if (!s || !*s || strpbrk(s, "xXnN") || s[0] == ' ' || s[0] == '\t') return false;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || !end || *end || !isfinite(v) || v < lo || v > hi) return false;
  *out = v;
  return true;
}
