/* Sizes as people write them ("76800", "75K", "1.5M", "2MiB"): the CLI's options and the
 * server's configuration read them alike. */
#include "arenaplan/base.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool ap_parse_size(const char *s, uint64_t *out) {
  if (!s || !(isdigit((unsigned char)*s) || *s == '.')) return false;
  /* Integers are parsed exactly; a fraction only with a unit ("1.5M"). */
  errno = 0;
  char *end;
  unsigned long long whole = strtoull(s, &end, 10);
  if (errno) return false;
  /* The fraction as num / den, in integers: exact, and no exponent or hex as strtod takes. */
  uint64_t num = 0, den = 1;
  bool has_frac = false;
  if (*end == '.') {
    char *p = end + 1;
    for (; isdigit((unsigned char)*p); p++) {
      if (den >= 1000000000000000000ull) return false; /* more than 18 digits */
      num = num * 10 + (uint64_t)(*p - '0');
      den *= 10;
    }
    if (p == end + 1) return false;
    has_frac = true;
    end = p;
  }
  uint64_t mult = 1;
  if (*end) {
    char u = (char)toupper((unsigned char)*end);
    const char *rest = end + 1;
    if (u == 'K')
      mult = 1ull << 10;
    else if (u == 'M')
      mult = 1ull << 20;
    else if (u == 'G')
      mult = 1ull << 30;
    else if (u == 'B' && *rest == '\0')
      mult = 1;
    else
      return false;
    if (u != 'B' && *rest && strcmp(rest, "B") != 0 && strcmp(rest, "iB") != 0 &&
        strcmp(rest, "ib") != 0 && strcmp(rest, "b") != 0)
      return false;
  }
  if (has_frac && mult == 1) return false;
  uint64_t v;
  if (__builtin_mul_overflow((uint64_t)whole, mult, &v)) return false;
  if (has_frac) {
    /* Whole bytes, rounded down ("0.1K" is 102): floor(num * mult / den) by binary long
     * division (mult is a power of two; num < den < 2^60, so r never overflows and no
     * 128-bit type is needed: 32-bit targets build this too). */
    uint64_t extra = 0, r = num;
    for (uint64_t m = mult; m > 1; m >>= 1) {
      r <<= 1;
      extra <<= 1;
      if (r >= den) {
        r -= den;
        extra |= 1;
      }
    }
    if (__builtin_add_overflow(v, extra, &v)) return false;
  }
  *out = v;
  return true;
}
