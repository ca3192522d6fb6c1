/* The oracle tests again with the fast kernels at every SIMD level (forced with AP_SIMD; a
 * level the CPU lacks runs the best one it has) and with 1, 2 and 3 threads, and with the
 * reference kernels; builtin ops prepared at each invoke or once (options.prepare, alternating
 * over the configurations, both for the reference kernels): every configuration must give
 * TFLite Micro's bytes. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

/* Under ASan+UBSan (unoptimised, ~10x slower) each level runs with one thread count, the
 * counts 1-3 spread over the levels; the plain build runs every level with every count. */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* A cross build's tests run under its emulator (qemu-aarch64), the programs they start too. */
#ifndef AP_TEST_EMULATOR
#define AP_TEST_EMULATOR ""
#endif

static int run(const char *test, const char *env) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s %s '%s/tests/%s' > /dev/null", env, AP_TEST_EMULATOR, AP_BUILD_DIR,
           test);
  int rc = system(cmd);
  return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

int main(void) {
  ap_test_require_shared();
  static const char *const tests[] = {"runtime_test_oracle", "runtime_test_oracle_ops"};
  /* This architecture's levels (a level of another one caps nothing: the best would run). */
#if defined(__aarch64__)
  static const char *const levels[] = {"generic", "neon", "neondot"};
#else
  static const char *const levels[] = {"generic", "sse41", "avx2", "avx512"};
#endif
  char env[256];
  for (size_t t = 0; t < 2; t++) {
    int rc = run(tests[t], "AP_TEST_KERNELS=reference");
    CHECK_MSG(rc == 0, "%s with the reference kernels: exit %d", tests[t], rc);
    rc = run(tests[t], "AP_TEST_KERNELS=reference AP_TEST_PREPARE=once");
    CHECK_MSG(rc == 0, "%s with the reference kernels prepared once: exit %d", tests[t], rc);
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++)
      for (int threads = 1; threads <= 3; threads++) {
        if (SANITIZED && threads != 1 + (int)(l % 3)) continue;
        snprintf(env, sizeof env,
                 "AP_TEST_KERNELS=fast AP_SIMD=%s AP_TEST_THREADS=%d AP_TEST_PREPARE=%s", levels[l],
                 threads, (l + (size_t)threads) % 2 ? "each" : "once");
        rc = run(tests[t], env);
        CHECK_MSG(rc == 0, "%s with %s: exit %d", tests[t], env, rc);
      }
  }
  return ap_test_done();
}
