/* The memory map as SVG: x = step, y = offset (0 at the bottom), one rectangle per request
 * coloured by kind, the live-bytes curve (the lower bound per step) over it, the arena line.
 * A streamed segment's ring is hatched: it holds a few rows of a map that never exists whole. */
#include "report_internal.h"

#include <inttypes.h>

#define W 960.0
#define H 540.0
#define LEFT 90.0
#define RIGHT 20.0
#define TOP 40.0
#define BOTTOM 50.0

static const char *const colour[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1"};
#define RING_FILL "url(#ring-hatch)"

typedef struct scale {
  double sx, sy;
} scale;

static double px(const scale *c, double step) {
  return LEFT + step * c->sx;
}
static double py(const scale *c, double bytes) {
  return H - BOTTOM - bytes * c->sy;
}

/* A round step between axis ticks: 1, 2 or 5 times a power of ten, about n ticks. */
static uint64_t tick_step(uint64_t range, int n) {
  uint64_t raw = range / (uint64_t)n + 1, p = 1;
  while (p <= raw / 10)
    p *= 10;
  return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

static void axes(const ap_report *r, const scale *c, uint64_t ymax, FILE *f) {
  fprintf(f, "<g class=\"axes\" font-family=\"sans-serif\" font-size=\"11\" fill=\"#333\">\n");
  fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", LEFT,
          H - BOTTOM, W - RIGHT, H - BOTTOM);
  fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n", LEFT, TOP,
          LEFT, H - BOTTOM);
  uint64_t xs = tick_step(r->steps, 10);
  for (uint64_t s = 0; s <= r->steps; s += xs)
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%" PRIu64 "</text>\n",
            px(c, (double)s), H - BOTTOM + 16, s);
  uint64_t ys = tick_step(ymax, 8);
  for (uint64_t b = 0; b <= ymax; b += ys)
    fprintf(f,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%" PRIu64 "</text>"
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n",
            LEFT - 6, py(c, (double)b) + 4, b, LEFT, py(c, (double)b), W - RIGHT, py(c, (double)b));
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">step</text>\n",
          LEFT + (W - LEFT - RIGHT) / 2, H - 12);
  fprintf(f,
          "<text transform=\"translate(14,%.1f) rotate(-90)\" text-anchor=\"middle\">offset "
          "(bytes)</text>\n",
          TOP + (H - TOP - BOTTOM) / 2);
  /* The legend, on one line above the plot. */
  double x = LEFT;
  for (int k = 0; k < 4; k++) {
    fprintf(f, "<rect x=\"%.1f\" y=\"12\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, colour[k]);
    fprintf(f, "<text x=\"%.1f\" y=\"22\">%s</text>\n", x + 16, ap_request_kind_name(k));
    x += 110;
  }
  if (report_has_rings(r)) {
    fprintf(f, "<rect x=\"%.1f\" y=\"12\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, RING_FILL);
    fprintf(f, "<text x=\"%.1f\" y=\"22\">ring (rows)</text>\n", x + 16);
    x += 90;
  }
  fprintf(f,
          "<line x1=\"%.1f\" y1=\"18\" x2=\"%.1f\" y2=\"18\" stroke=\"#d62728\" "
          "stroke-width=\"2\"/><text x=\"%.1f\" y=\"22\">live bytes (lower bound per step)"
          "</text>\n</g>\n",
          x, x + 20, x + 24);
}

/* "ring: 3 rows of 48 (1,152 B) in place of the whole map of 18,432 B" when request q is a
 * streamed segment's ring; "" otherwise. */
static const char *ring_note(const ap_report *r, const ap_report_request *q, char *buf,
                             size_t size) {
  ap_tensor_info ti;
  buf[0] = '\0';
  uint32_t rows = q->tensor >= 0 ? ap_graph_ring_rows(ap_model_plan_graph(r->mp), q->id) : 0;
  if (!rows || ap_model_tensor(r->model, q->subgraph, (size_t)q->tensor, &ti) != AP_OK ||
      ti.shape.n < 2)
    return buf;
  char ring[32], whole[32];
  snprintf(buf, size, "ring: %u row%s of %d (%s B) in place of the whole map of %s B",
           (unsigned)rows, rows == 1 ? "" : "s", ti.shape.v[1],
           report_thousands(ring, sizeof ring, q->bytes),
           report_thousands(whole, sizeof whole, ti.bytes));
  return buf;
}

static void rects(const ap_report *r, const scale *c, FILE *f) {
  char shape[256], ring[160];
  fprintf(f, "<g class=\"requests\" stroke=\"#fff\" stroke-width=\"0.5\">\n");
  for (size_t i = 0; i < r->req_count; i++) {
    const ap_report_request *q = &r->req[i];
    double x = px(c, q->first), w = (double)(q->last - q->first + 1) * c->sx;
    double y = py(c, (double)(q->offset + q->bytes)), h = (double)q->bytes * c->sy;
    if (h < 0.5) h = 0.5; /* keep a tiny request visible and hoverable */
    ring_note(r, q, ring, sizeof ring);
    fprintf(f,
            "<rect class=\"req\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" "
            "data-id=\"%" PRIu64 "\" data-kind=\"%s\" ",
            x, y, w, h, ring[0] ? RING_FILL : colour[q->kind], q->id,
            ap_request_kind_name(q->kind));
    if (ring[0]) fprintf(f, "data-ring=\"%s\" ", ring);
    fprintf(f, "data-name=\"");
    if (q->kind == AP_REQ_SCRATCH) {
      fprintf(f, "scratch of op %d (", q->op);
      report_xml_escape(f, ap_report_op_name(r, q->subgraph, q->op));
      fputc(')', f);
    } else {
      report_xml_escape(f, q->name);
    }
    fprintf(f,
            "\" data-shape=\"%s\" data-bytes=\"%" PRIu64 "\" data-offset=\"%" PRIu64
            "\" data-first=\"%d\" data-last=\"%d\"><title>",
            report_shape(r, q, shape, sizeof shape), q->bytes, q->offset, q->first, q->last);
    if (q->kind == AP_REQ_SCRATCH)
      fprintf(f, "scratch of op %d", q->op);
    else
      report_xml_escape(f, q->name);
    fprintf(f, " %s %" PRIu64 " bytes at %" PRIu64 ", steps %d..%d%s%s</title></rect>\n", shape,
            q->bytes, q->offset, q->first, q->last, ring[0] ? "; " : "", ring);
  }
  fprintf(f, "</g>\n");
}

static void curve(const ap_report *r, const scale *c, FILE *f) {
  fprintf(f, "<path class=\"live\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\" d=\"");
  for (size_t s = 0; s < r->steps; s++)
    fprintf(f, "%s%.2f %.2f H%.2f", s ? " L" : "M", px(c, (double)s), py(c, (double)r->live[s]),
            px(c, (double)s + 1));
  fprintf(f, "\"/>\n");
  double y = py(c, (double)r->est.arena);
  fprintf(f,
          "<line class=\"arena\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" y2=\"%.2f\" stroke=\"#000\" "
          "stroke-dasharray=\"6 4\"/>\n"
          "<text x=\"%.1f\" y=\"%.2f\" text-anchor=\"end\" font-family=\"sans-serif\" "
          "font-size=\"11\">arena %" PRIu64 " bytes</text>\n",
          LEFT, y, W - RIGHT, y, W - RIGHT, y - 4, r->est.arena);
}

static ap_status write_svg(const ap_report *r, FILE *f, bool standalone) {
  if (!r || !f || !r->mp) return AP_ERR_ARG;
  uint64_t ymax = r->est.arena;
  for (size_t s = 0; s < r->steps; s++)
    if (r->live[s] > ymax) ymax = r->live[s];
  if (ymax == 0) ymax = 1;
  scale c = {(W - LEFT - RIGHT) / (double)(r->steps ? r->steps : 1),
             (H - TOP - BOTTOM) / ((double)ymax * 1.05)};
  if (standalone) fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  fprintf(f,
          "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"memory-map\" width=\"%.0f\" "
          "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
          "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\"/>\n",
          W, H, W, H, W, H);
  /* Rings: the intermediates' colour crossed by white diagonals. */
  if (report_has_rings(r))
    fprintf(f,
            "<defs><pattern id=\"ring-hatch\" width=\"6\" height=\"6\" "
            "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
            "<rect width=\"6\" height=\"6\" fill=\"%s\"/>"
            "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#fff\" stroke-width=\"3\"/>"
            "</pattern></defs>\n",
            colour[AP_REQ_INTERMEDIATE]);
  axes(r, &c, ymax, f);
  rects(r, &c, f);
  curve(r, &c, f);
  fprintf(f, "</svg>\n");
  return ferror(f) ? AP_ERR_IO : AP_OK;
}

ap_status ap_report_write_svg(const ap_report *r, FILE *f) {
  return write_svg(r, f, true);
}

/* For the HTML page: the same picture without the XML declaration. */
ap_status report_write_svg_inline(const ap_report *r, FILE *f) {
  return write_svg(r, f, false);
}
