/* cli_parse_size and cli_size: the CLI's sizes, compiled in from the CLI's own source (the
 * tests link the library only). K, M, G are powers of 1024; a fraction needs a unit. */
#include "../../tools/arenaplan/cli.c"
#include "../../tools/arenaplan/help.c"
#include "test.h"

/* help.c's command table: this test runs none of the commands. */
const ap_command *const ap_commands[] = {NULL};

static void ok(const char *s, uint64_t want) {
  uint64_t v = 12345;
  CHECK_MSG(cli_parse_size(s, &v) && v == want, "\"%s\" -> %llu, want %llu", s,
            (unsigned long long)v, (unsigned long long)want);
}

static void bad(const char *s) {
  uint64_t v = 12345;
  CHECK_MSG(!cli_parse_size(s, &v), "\"%s\" was accepted as %llu", s, (unsigned long long)v);
  CHECK_EQ(v, 12345); /* untouched on failure */
}

int main(void) {
  ok("76800", 76800);
  ok("0", 0);
  ok("75K", 76800);
  ok("75k", 76800);
  ok("75KB", 76800);
  ok("75KiB", 76800);
  ok("1.5M", 1572864);
  ok("1.5MiB", 1572864);
  ok("2MiB", 2097152);
  ok("2mib", 2097152);
  ok("1G", 1073741824);
  ok("0.5K", 512);
  ok(".5K", 512);
  ok("0.1K", 102); /* 102.4 bytes: whole bytes, rounded down */
  ok("0.75K", 768);
  ok("1.999999999999999999K", 2047);
  ok("0.000000000000000001G", 0);
  ok("100B", 100);
  ok("18446744073709551615", UINT64_MAX);
  ok("16777215G", 16777215ull << 30);
  bad("");
  bad(NULL);
  bad("K");
  bad("-1");
  bad("-1K");
  bad(" 75K");
  bad("75 K");
  bad("75K ");
  bad("1.5"); /* a fraction of a byte */
  bad("1.5B");
  bad("1.");
  bad("1.K");
  bad("1.5e3M"); /* strtod would read an exponent */
  bad("1e3");
  bad("0x10");
  bad("75Q");
  bad("75Ki");
  bad("75KK");
  bad("18446744073709551616");
  bad("17179869184G");           /* 2^34 GiB = 2^64 bytes */
  bad("1.0000000000000000000K"); /* 19 fraction digits */
  bad("nan");
  bad("inf");

  char b[64];
  CHECK_STR(cli_size(b, sizeof b, 93568), "93,568 B (91.4 KiB)");
  CHECK_STR(cli_size(b, sizeof b, 1023), "1,023 B");
  CHECK_STR(cli_size(b, sizeof b, 1024), "1,024 B (1.0 KiB)");
  CHECK_STR(cli_size(b, sizeof b, 1572864), "1,572,864 B (1.5 MiB)");
  CHECK_STR(cli_thousands(b, sizeof b, 0), "0");
  CHECK_STR(cli_thousands(b, sizeof b, 1000), "1,000");
  CHECK_STR(cli_thousands(b, sizeof b, UINT64_MAX), "18,446,744,073,709,551,615");
  return ap_test_done();
}
