/* Real-valued CLI options (--score-threshold, --max-error, --min-iou, --duration). */
#ifndef AP_REAL_H
#define AP_REAL_H

#include <stdbool.h>

/* A finite decimal number in [lo, hi], the whole string; *out untouched on failure. Hex floats,
 * "inf", "nan" and empty strings are refused. */
bool cli_parse_real(const char *s, double lo, double hi, double *out);

#endif
