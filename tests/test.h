/* The test harness: CHECK macros that count, a closing "N passed, N failed" line, and helpers
 * for the shared data and the CLI. Each tests/<layer>/test_*.c is one executable. */
#ifndef AP_TEST_H
#define AP_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int ap_test_passed, ap_test_failed;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (cond) {                                                                                    \
      ap_test_passed++;                                                                            \
    } else {                                                                                       \
      ap_test_failed++;                                                                            \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                     \
    }                                                                                              \
  } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
  do {                                                                                             \
    if (cond) {                                                                                    \
      ap_test_passed++;                                                                            \
    } else {                                                                                       \
      ap_test_failed++;                                                                            \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)

#define CHECK_EQ(a, b)                                                                             \
  do {                                                                                             \
    long long ap_a_ = (long long)(a), ap_b_ = (long long)(b);                                      \
    CHECK_MSG(ap_a_ == ap_b_, "%s = %lld, %s = %lld", #a, ap_a_, #b, ap_b_);                       \
  } while (0)

#define CHECK_STR(a, b)                                                                            \
  do {                                                                                             \
    const char *ap_a_ = (a), *ap_b_ = (b);                                                         \
    CHECK_MSG(ap_a_ &&ap_b_ &&strcmp(ap_a_, ap_b_) == 0, "\"%s\" != \"%s\"",                       \
              ap_a_ ? ap_a_ : "(null)", ap_b_ ? ap_b_ : "(null)");                                 \
  } while (0)

/* Checks that `haystack` contains `needle`. */
#define CHECK_CONTAINS(haystack, needle)                                                           \
  do {                                                                                             \
    const char *ap_h_ = (haystack), *ap_n_ = (needle);                                             \
    CHECK_MSG(ap_h_ &&strstr(ap_h_, ap_n_), "\"%s\" does not contain \"%s\"",                      \
              ap_h_ ? ap_h_ : "(null)", ap_n_);                                                    \
  } while (0)

/* Prints the closing line and returns the exit status for main(). */
int ap_test_done(void);

/* The shared data folder. ap_test_require_shared() exits with 77 (ctest: skipped) and says so
 * clearly when it is absent; CI always has it. */
const char *ap_test_shared(void);
void ap_test_require_shared(void);
/* Path into shared/: ap_test_path(buf, sizeof buf, "models/%s", name). */
const char *ap_test_path(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The shared models (*.tflite in shared/models), sorted; returns the count. */
size_t ap_test_models(char names[][64], size_t max);

/* Field `col` of `model`'s row in shared/bench/tflm_arena.tsv (TFLite Micro's measurements),
 * malloc'd; NULL when the file, the row or the column is absent. */
char *ap_test_tflm_field(const char *model, const char *col);
/* The same as an integer; -1 when absent or not a number. */
long long ap_test_tflm_value(const char *model, const char *col);

/* Reads a whole file into malloc'd memory (16-byte aligned); NULL on failure. */
uint8_t *ap_test_read_file(const char *path, size_t *size);

/* Runs a shell command, captures stdout (and stderr if merge_stderr) into a malloc'd string;
 * returns the exit status (or -1). */
int ap_test_run(const char *cmd, bool merge_stderr, char **out);
/* The CLI binary's path. */
const char *ap_test_cli(void);
/* "93,568" into buf: the tests' own grouping of the CLI's sizes, so a CLI bug there cannot
 * hide. */
const char *ap_test_thousands(char *buf, size_t size, uint64_t v);

/* Appends n random requests shaped like a network's tensors (seeded: the same problem for
 * the same seed): mostly short lifetimes, some long, a few for the whole run. */
struct ap_problem;
int ap_test_random_problem(struct ap_problem *p, size_t n, uint64_t seed);

/* TFLite Micro's greedy planner as literally as its source reads (quadratic): the offsets
 * and TFLite Micro's head (highest offset + aligned size). 0 on success. */
int ap_test_tflm_literal(const struct ap_problem *p, uint64_t *offsets, uint64_t *arena);

/* A deterministic PRNG for tests (xorshift64*). */
uint64_t ap_test_rand(uint64_t *state);

#endif
