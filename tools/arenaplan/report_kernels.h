/* The report's kernels section (report_kernels.c), text and JSON. */
#ifndef AP_CLI_REPORT_KERNELS_H
#define AP_CLI_REPORT_KERNELS_H

#include "kernels_cli.h"

/* planned: the kernels the report's plan is for (marked). */
void report_print_kernels(const ap_report *r, const cli_kernels *planned);
/* ",\n  \"kernels\": ..., \"kernel_choices\": [...]" (continues an object). */
void report_json_kernels(const ap_report *r, const cli_kernels *planned);
/* The kernel choice's Pareto points (total, estimated time, the ops not on the fast kernels). */
void report_print_curve(const ap_report *r);

#endif
