/* arenaplan header --plan: the placement a device reads instead of planning
 * (include/arenaplan/planned.h), made by allocating the model as the device will run it. */
#ifndef AP_CLI_HEADER_PLAN_H
#define AP_CLI_HEADER_PLAN_H

#include "commands.h"

#include <stdio.h>

typedef struct header_plan {
  uint32_t *words;
  size_t count;
  uint64_t buffer; /* the caller buffer create_planned needs (a 64-bit host's upper bound) */
} header_plan;

/* Allocates the model (strategy, in place, streamed, reference or portable fast kernels) and
 * takes its plan. Returns an exit code; the words are freed by header_plan_free. */
int header_make_plan(const char *path, const ap_model *m, const char *strategy, bool inplace,
                     bool stream, bool reference, header_plan *p);
/* The header's part: NAME_PLAN_WORDS, NAME_PLAN_BUFFER_BYTES, the array's declaration. */
void header_plan_macros(const header_plan *p, const char *prefix, FILE *f);
/* OUT: a C file defining `const uint32_t NAME_PLAN[NAME_PLAN_WORDS]`. */
int header_write_plan(const header_plan *p, const ap_model *m, const char *prefix, const char *out);
void header_plan_free(header_plan *p);

#endif
