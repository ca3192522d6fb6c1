/* The report's insides, shared by the files of src/report/. */
#ifndef AP_SRC_REPORT_INTERNAL_H
#define AP_SRC_REPORT_INTERNAL_H

#include "arenaplan/report.h"
#include "base/base.h"

struct ap_report {
  const ap_allocator *alloc;
  ap_errbuf err;
  const ap_model *model;
  char strategy[32];
  uint64_t alignment;
  bool inplace;          /* planned with in-place sharing (the runtime must be told the same) */
  bool stream;           /* streamed segments asked for (the runtime must be told the same) */
  bool runtime_streamed; /* the runtime kept a plan with segments */
  ap_model_plan *mp;
  ap_estimate est;
  ap_errbuf runtime_err;
  uint64_t *tensor_bytes; /* the runtime's, model-wide (NULL: the model's) */
  ap_scratch_info *scratch;
  size_t scratch_count;
  ap_report_dynamic *dyn; /* the runtime's dynamic tensors */
  size_t dyn_count;
  size_t tensor_total; /* request ids of scratch start here */
  ap_report_request *req;
  size_t req_count;
  uint64_t *live;
  size_t steps;
  ap_report_alt alts[AP_REPORT_ALT_COUNT];
  char model_alt_name[48];
  int kernels; /* AP_KERNELS_* the plan is for */
  size_t small_scratch;
  uint64_t budget;
  int measure; /* invokes timed per curve point */
  ap_report_kernels kc[4]; /* indexed by AP_KERNELS_* (kernel_costs.c) */
  ap_report_kernel_point *curve; /* kernel_curve.c, on the first call */
  size_t curve_count;
  bool curve_done;
};

/* Fills r->kc, one interpreter per kernel choice (kernel_costs.c); frees them. */
void report_kernel_costs(ap_report *r);
void report_kernel_costs_free(ap_report *r);
void report_kernel_curve_free(ap_report *r);
/* The C header's lines for the kernel choices (kernel_costs.c). */
void report_kernels_macros(const ap_report *r, const char *prefix, FILE *f);

/* Fills r->live from the requests (live.c). */
ap_status report_live_bytes(ap_report *r);
/* "[1,96,96,1]" for a request's tensor ("" for scratch) into buf. */
const char *report_shape(const ap_report *r, const ap_report_request *q, char *buf, size_t size);
/* The plan has streamed segments, whose rings the map hatches. */
bool report_has_rings(const ap_report *r);
/* "93,568" into buf (people read the HTML page). */
const char *report_thousands(char *buf, size_t size, uint64_t v);
/* Writes s with <, >, &, " and ' escaped for XML text and attributes. */
void report_xml_escape(FILE *f, const char *s);

/* The SVG without the XML declaration, for inlining in HTML (svg.c). */
ap_status report_write_svg_inline(const ap_report *r, FILE *f);

#endif
