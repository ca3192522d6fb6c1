/* The memory map as one self-contained HTML page: the estimate, the picture inline, and a
 * little script that shows a request's tensor under the pointer. Nothing is fetched. */
#include "report_internal.h"

#include <inttypes.h>

static const char style[] =
    "body{font-family:sans-serif;margin:24px;color:#222}"
    "table{border-collapse:collapse;margin:12px 0}"
    "td,th{padding:2px 10px;text-align:right;border-bottom:1px solid #eee}"
    "td:first-child,th:first-child{text-align:left}"
    "rect.req:hover{stroke:#000;stroke-width:1.5}"
    "#tip{position:fixed;display:none;pointer-events:none;background:#fff;border:1px solid #888;"
    "padding:6px 8px;font-size:12px;white-space:pre;box-shadow:2px 2px 6px rgba(0,0,0,.2)}";

static const char script[] =
    "(function(){var tip=document.getElementById('tip');"
    "document.querySelectorAll('rect.req').forEach(function(r){"
    "r.addEventListener('mousemove',function(e){var d=r.dataset;"
    "tip.textContent=d.name+'\\n'+d.kind+' '+d.shape+'\\n'+Number(d.bytes).toLocaleString('en-US')"
    "+' bytes at offset '+Number(d.offset).toLocaleString('en-US')+'\\nlives steps '+d.first+"
    "'..'+d.last+(d.ring?'\\n'+d.ring:'');tip.style.display='block';tip.style.left=(e.clientX+14)+'"
    "px';"
    "tip.style.top=(e.clientY+14)+'px';});"
    "r.addEventListener('mouseleave',function(){tip.style.display='none';});});})();";

static void thousands(FILE *f, uint64_t v) {
  char d[32];
  fputs(report_thousands(d, sizeof d, v), f);
}

static void row(FILE *f, const char *what, uint64_t bytes, uint64_t total, const char *note) {
  fprintf(f, "<tr><td>%s</td><td>", what);
  thousands(f, bytes);
  fprintf(f, "</td><td>%.1f%%</td><td>%s</td></tr>\n",
          total ? 100.0 * (double)bytes / (double)total : 0.0, note);
}

/* The kernel choice's Pareto points: total, estimated time, the ops off the fast kernels. */
static void curve(const ap_report *r, FILE *f) {
  size_t n;
  const ap_report_kernel_point *p = ap_report_kernel_curve(r, &n);
  if (!n) return;
  bool measured = p[0].measured_ns != 0;
  fprintf(f,
          "<h2>Kernels: speed against memory</h2>\n<p>Each point is the fastest estimated "
          "plan within its total (<code>--budget</code> plans it); op indices model-wide."
          "</p>\n<table>\n<tr><th>total bytes</th><th>estimated</th>%s<th>kernels other "
          "than the fast ones</th></tr>\n",
          measured ? "<th>measured (median)</th>" : "");
  for (size_t i = 0; i < n; i++) {
    fprintf(f, "<tr><td>");
    thousands(f, p[i].total);
    fprintf(f, "</td><td>%.1f us</td><td>", (double)p[i].estimate_ns / 1000.0);
    if (measured) fprintf(f, "%.1f us</td><td>", (double)p[i].measured_ns / 1000.0);
    bool any = false;
    for (int kind = 1; kind <= 3; kind++) {
      size_t j = 0;
      for (size_t k = 0; k < p[i].op_count; k++) {
        if (p[i].kernel[k] != kind) continue;
        if (j++)
          fprintf(f, ", %zu", k);
        else
          fprintf(f, "%s%s: op %zu", any ? "; " : "", ap_report_kernel_name(kind), k);
        any = true;
      }
    }
    fprintf(f, "%s</td></tr>\n", any ? "" : "every op fast");
  }
  fprintf(f, "</table>\n");
}

ap_status ap_report_write_html(const ap_report *r, FILE *f) {
  if (!r || !f || !r->mp) return AP_ERR_ARG;
  const ap_estimate *e = &r->est;
  fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
             "arenaplan report: ");
  report_xml_escape(f, ap_model_path(r->model));
  fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", style);
  report_xml_escape(f, ap_model_path(r->model));
  fprintf(f, "</h1>\n<p>Strategy %s, %" PRIu64 "-byte alignment. Arena ", r->strategy,
          r->alignment);
  thousands(f, e->arena);
  fprintf(f, " bytes, lower bound ");
  thousands(f, ap_model_plan_lower_bound(r->mp));
  fprintf(f, " bytes, %zu requests.</p>\n", r->req_count);
  fprintf(f, "<table>\n<tr><th>part</th><th>bytes</th><th>share</th><th></th></tr>\n");
  row(f, "weights W (the model file)", e->weights, e->total, "read in place");
  row(f, "inputs and outputs", e->io, e->total, "in the arena");
  row(f, "intermediates and scratch M", e->intermediates, e->total, "the rest of the arena");
  row(f, "persistent", e->persistent, e->total, e->from_runtime ? "measured" : "from the model");
  row(f, "interpreter tables", e->tables, e->total,
      e->from_runtime ? "measured" : "unknown: the runtime could not allocate the model");
  row(f, "total", e->total, e->total, "");
  fprintf(f, "</table>\n");
  curve(r, f);
  fprintf(f, "<p>Hover a rectangle to see its tensor.%s</p>\n<div id=\"map\">\n",
          report_has_rings(r)
              ? " Hatched: a streamed segment's ring, a few rows of a map that never exists "
                "whole."
              : "");
  ap_status s = report_write_svg_inline(r, f);
  fprintf(f, "</div>\n<div id=\"tip\"></div>\n<script>%s</script>\n</body>\n</html>\n", script);
  return s != AP_OK ? s : ferror(f) ? AP_ERR_IO : AP_OK;
}
