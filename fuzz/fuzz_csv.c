/* fuzz_csv: a MiniMalloc CSV problem from untrusted text, planned with every strategy. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ap_problem *p = NULL;
  if (ap_problem_create(NULL, &p) != AP_OK) return 0;
  /* The first byte, when it is a digit, picks an alignment so the aligned paths run too. */
  if (size && data[0] >= '1' && data[0] <= '9')
    (void)ap_problem_set_alignment(p, (uint64_t)1 << (data[0] - '1'));
  /* A copy of exactly `size` bytes: the parser must not read past len (no terminator). */
  char *text = malloc(size ? size : 1);
  if (text) {
    if (size) memcpy(text, data, size);
    ap_status st = ap_problem_parse_csv(p, text, size);
    if (st != AP_OK && !ap_problem_error(p)[0]) fuzz_die("csv", "failure without a message");
    (void)ap_problem_lower_bound(p);
    fuzz_plan_all(p);
    free(text);
  }
  ap_problem_destroy(p);
  return 0;
}
