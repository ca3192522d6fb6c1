/* `arenaplan run --profile`: each op's median wall time over the iterations and its share. */
#ifndef AP_RUN_PROFILE_H
#define AP_RUN_PROFILE_H

#include "cli.h"

#include <stdio.h>

/* ns[i * ops + k]: op k's time in invoke i (ap_interpreter_set_profile's array, one row per
 * iteration). */
typedef struct run_profile {
  size_t ops, iterations;
  uint64_t *ns;
} run_profile;

/* Allocates the rows; false when out of memory or the size overflows. */
bool run_profile_init(run_profile *p, size_t ops, size_t iterations);
void run_profile_free(run_profile *p);
/* The row invoke `i` writes. */
uint64_t *run_profile_row(run_profile *p, size_t i);
/* The human table (op, type, output shape, median us, share of the invoke median) and the sum
 * against the invoke's median. */
void run_profile_print(run_profile *p, ap_interpreter *it, const ap_model *m,
                       double invoke_median_us);
/* `"profile": [...]` and `"profile_sum_us"` members (each line ends ",\n"). */
void run_profile_json(run_profile *p, ap_interpreter *it, const ap_model *m);

#endif
