/* `report --html F --soak CSV`: the curve `stress --csv` writes, plotted in the HTML report. */
#ifndef AP_SOAK_PLOT_H
#define AP_SOAK_PLOT_H

#include "cli.h"

/* Writes the report's HTML to `html` with the samples of `csv` plotted (an SVG with the
 * allocator's and malloc's bytes in use and the resident set over time) and listed. Returns
 * the exit status; failures print one line naming the file. */
int soak_plot_html(const ap_report *r, const char *csv, const char *html);

#endif
