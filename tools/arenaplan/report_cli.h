/* `arenaplan report`: parsed once (cmd_report.c), printed as text (report_text.c) or JSON
 * (report_json.c). */
#ifndef AP_CLI_REPORT_H
#define AP_CLI_REPORT_H

#include "kernels_cli.h"

typedef struct report_args {
  const char *model, *strategy, *html, *svg, *soak;
  bool json, wide, has_budget, reorder, inplace, stream;
  uint64_t budget;
  uint64_t measure;              /* --measure N: invokes timed per curve point */
  cli_kernels kernels;          /* --kernels, --small-scratch */
  const struct whatif *what_if; /* --what-if int8, else NULL */
  uint64_t what_if_extra;       /* what the re-typed device adds to arena + variables */
} report_args;

void report_print_text(const ap_report *r, const report_args *a);
void report_print_json(const ap_report *r, const report_args *a);
/* "op 3 CONV_2D" (or "subgraph 1 op 3 ADD") for the op at a step; "-" for none. */
const char *report_step_label(const ap_report *r, int32_t step, char *buf, size_t size);
/* The requests live at a step, largest first; returns how many (indices into the requests). */
size_t report_live_at(const ap_report *r, size_t step, size_t *idx, size_t max);

#endif
