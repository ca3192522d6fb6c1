/* `report --html F --soak CSV`: the memory curve `stress --csv` wrote, plotted into the HTML
 * report (an inline SVG and the samples' table). */
#include "soak_plot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SAMPLES 100000
#define HEADER "seconds,invokes,allocator_bytes,heap_bytes,resident_kib"

typedef struct point {
  double t;
  unsigned long long invokes, allocator, heap;
  long rss_kib;
} point;

static int read_csv(const char *path, point **out, size_t *n) {
  FILE *f = fopen(path, "r");
  if (!f) return cli_fail(path, "cannot open: %s", strerror(errno));
  char line[512];
  if (!fgets(line, sizeof line, f) || strncmp(line, HEADER, strlen(HEADER)) != 0) {
    fclose(f);
    return cli_fail(path, "not a `stress --csv` file (its first line must be %s)", HEADER);
  }
  point *p = calloc(MAX_SAMPLES, sizeof *p);
  if (!p) {
    fclose(f);
    return cli_fail(path, "out of memory");
  }
  size_t k = 0, lineno = 1;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (line[0] == '\n') continue;
    char extra;
    if (k == MAX_SAMPLES ||
        sscanf(line, "%lf,%llu,%llu,%llu,%ld %c", &p[k].t, &p[k].invokes, &p[k].allocator,
               &p[k].heap, &p[k].rss_kib, &extra) != 5 ||
        !(p[k].t >= 0) || p[k].rss_kib < 0) {
      fclose(f);
      free(p);
      return k == MAX_SAMPLES ? cli_fail(path, "more than %d samples", MAX_SAMPLES)
                              : cli_fail(path, "line %zu: expected 5 numbers", lineno);
    }
    k++;
  }
  fclose(f);
  if (!k) {
    free(p);
    return cli_fail(path, "no samples");
  }
  *out = p;
  *n = k;
  return AP_EXIT_OK;
}

static double value(const point *p, int series) {
  return series == 0   ? (double)p->allocator
         : series == 1 ? (double)p->heap
                       : (double)p->rss_kib * 1024.0;
}

static void plot(FILE *f, const point *p, size_t n) {
  static const char *const names[] = {"allocator bytes in use", "malloc bytes in use",
                                      "resident set"};
  static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c"};
  const double w = 720, h = 240, left = 60, bottom = 20;
  double tmax = p[n - 1].t > 0 ? p[n - 1].t : 1, vmax = 1;
  for (size_t i = 0; i < n; i++)
    for (int s = 0; s < 3; s++)
      vmax = value(&p[i], s) > vmax ? value(&p[i], s) : vmax;
  fprintf(f,
          "<h2>Memory over time (<code>arenaplan stress --csv</code>)</h2>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
          "id=\"soak\">\n",
          w + left + 10, h + bottom + 10);
  fprintf(f, "<text x=\"0\" y=\"12\" font-size=\"11\">%.0f B</text>\n", vmax);
  fprintf(f, "<text x=\"0\" y=\"%.0f\" font-size=\"11\">0</text>\n", h);
  fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">%.1f s</text>\n", left + w - 30,
          h + bottom, tmax);
  for (int s = 0; s < 3; s++) {
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", colors[s]);
    for (size_t i = 0; i < n; i++)
      fprintf(f, "%s%.1f,%.1f", i ? " " : "", left + w * p[i].t / tmax,
              h - (h - 10) * value(&p[i], s) / vmax);
    fprintf(f, "\"><title>%s</title></polyline>\n", names[s]);
    fprintf(f, "<text x=\"%.0f\" y=\"%d\" font-size=\"11\" fill=\"%s\">%s</text>\n", left + 10,
            14 + 13 * s, colors[s], names[s]);
  }
  fprintf(f, "</svg>\n<table id=\"soak-samples\">\n<tr><th>seconds</th><th>invokes</th>"
             "<th>allocator bytes</th><th>malloc bytes</th><th>resident KiB</th></tr>\n");
  for (size_t i = 0; i < n; i++)
    fprintf(f, "<tr><td>%.3f</td><td>%llu</td><td>%llu</td><td>%llu</td><td>%ld</td></tr>\n",
            p[i].t, p[i].invokes, p[i].allocator, p[i].heap, p[i].rss_kib);
  long long grew = (long long)p[n - 1].heap - (long long)p[0].heap + (long long)p[n - 1].allocator -
                   (long long)p[0].allocator;
  fprintf(f, "</table>\n<p>Bytes in use after the first invoke: %s.</p>\n",
          grew > 0 ? "<strong>grew</strong>" : "flat");
}

int soak_plot_html(const ap_report *r, const char *csv, const char *html) {
  point *p = NULL;
  size_t n = 0;
  int rc = read_csv(csv, &p, &n);
  if (rc != AP_EXIT_OK) return rc;
  char *text = NULL;
  size_t size = 0;
  FILE *m = open_memstream(&text, &size);
  ap_status s = m ? ap_report_write_html(r, m) : AP_ERR_NOMEM;
  if (m && fclose(m) != 0 && s == AP_OK) s = AP_ERR_NOMEM;
  /* The plot goes before the tooltip element the page ends with. */
  const char *at = s == AP_OK && text ? strstr(text, "<div id=\"tip\">") : NULL;
  if (!at) {
    free(text);
    free(p);
    return cli_fail(html, "write failed (%s)", ap_status_name(s == AP_OK ? AP_ERR_FORMAT : s));
  }
  FILE *f = fopen(html, "w");
  if (!f) {
    free(text);
    free(p);
    return cli_fail(html, "cannot write: %s", strerror(errno));
  }
  fwrite(text, 1, (size_t)(at - text), f);
  plot(f, p, n);
  fputs(at, f);
  free(text);
  free(p);
  if (fclose(f) != 0) return cli_fail(html, "cannot write: %s", strerror(errno));
  return AP_EXIT_OK;
}
