/* The freestanding port's snprintf (src/port/port_none_format.c), compiled here under other
 * names and checked against the host's: integers of every length, strings, padding,
 * precision, truncation, and the floats messages print (%g, %.1f). */
#define AP_PORT_NONE 1
#define vsnprintf none_vsnprintf
#define snprintf none_snprintf
#include "port/port_none_format.c"
#undef vsnprintf
#undef snprintf
#include "test.h"

#include <math.h>

static char got[256], want[256];

#define SAME(...)                                                                                  \
  do {                                                                                             \
    int n1 = none_snprintf(got, sizeof got, __VA_ARGS__);                                          \
    int n2 = snprintf(want, sizeof want, __VA_ARGS__);                                             \
    CHECK_STR(got, want);                                                                          \
    CHECK_EQ(n1, n2);                                                                              \
  } while (0)

int main(void) {
  SAME("plain text, 100%% sure");
  SAME("%d %d %d %i", 0, -1, 2147483647, (int)-2147483647 - 1);
  SAME("%u %x %X %o", 4294967295u, 0xdeadbeefu, 0xabcu, 8u);
  SAME("%zu %zu", (size_t)0, (size_t)-1);
  SAME("%llu %lld %lld", 18446744073709551615ull, -9223372036854775807ll - 1, 42ll);
  SAME("%lu %ld %hd %hhu", 123456789ul, -5l, (short)-3, (unsigned char)250);
  SAME("[%5d] [%-5d] [%05d] [%+d] [% d] [%.3d] [%5.3d]", 42, 42, 42, 42, 42, 7, 7);
  SAME("[%s] [%8s] [%-8s] [%.3s] [%.*s] [%*d]", "abc", "abc", "abc", "abcdef", 2, "xyz", 4, 9);
  SAME("%02x%02x", 5u, 255u);
  SAME("%c%c", 'o', 'k');
  SAME("tensor %u of subgraph %u (%s): %zu bytes at %llu", 3u, 0u, "conv", (size_t)4096,
       123456789012ull);
  /* (Exact ties like 1.25 round up here, to even in glibc: messages only.) */
  SAME("%.1f %.2f %.0f %f", 1.26, 3.14159, 2.5e3, 0.1);
  SAME("%.1f%% %.1f", 99.95, -0.04);
  SAME("%g %g %g %g %g", 0.5, 100.0, 0.00390625, 1e-7, 123456789.0);
  SAME("%g %g %g %g", 0.0, -2.5, 3.0517578125e-05, 1e20);
  SAME("%g %g", 0.1 + 0.2, 1.0 / 3.0);
  SAME("%e %.2e", 12345.678, 0.000123);
  SAME("%g %f", (double)INFINITY, (double)-INFINITY);
  /* Truncation: the count is what the whole result needs; the buffer is terminated. */
  char small[8];
  CHECK_EQ(none_snprintf(small, sizeof small, "%s", "0123456789"), 10);
  CHECK_STR(small, "0123456");
  CHECK_EQ(none_snprintf(NULL, 0, "%d", 12345), 5);
  CHECK_EQ(none_snprintf(small, 1, "abc"), 3);
  CHECK_STR(small, "");
  /* Unknown conversions and a lone % at the end do not read past the format. */
  none_snprintf(got, sizeof got, "%q and %");
  CHECK_STR(got, "%q and ");
  return ap_test_done();
}
