/* The test harness's few functions for a kernel test built for a Cortex-M board under QEMU
 * (scripts/test_mcu_kernels.sh): the counters and closing line of tests/support/test.c, its
 * random numbers, and newlib's write hook on semihosting (examples/firmware/startup.c's
 * fw_puts), so the CHECK lines reach the host. Not a ctest (no test_ prefix). */
#include "firmware.h"
#include "test.h"

#include <stdio.h>

int ap_test_passed, ap_test_failed;

int ap_test_done(void) {
  printf("%d passed, %d failed\n", ap_test_passed, ap_test_failed);
  fflush(stdout);
  return ap_test_failed ? 1 : 0;
}

uint64_t ap_test_rand(uint64_t *s) {
  uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Dull;
}

int _write(int fd, const char *buf, int n);
int _write(int fd, const char *buf, int n) {
  (void)fd;
  char chunk[65];
  for (int i = 0; i < n;) {
    int k = 0;
    while (k < 64 && i < n)
      chunk[k++] = buf[i++];
    chunk[k] = 0;
    fw_puts(chunk);
  }
  return n;
}
