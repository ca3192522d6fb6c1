/* The speed-memory curve of the kernel choice: the Pareto points (total bytes against the
 * estimated invoke time) from the fastest plan down to the smallest, each the runtime's own
 * choice for a budget one byte below the point before it, with every op's kernel there.
 * Computed once, on the first call (each point is an allocate). */
#include "report_internal.h"

#include "port/port.h"

#include <stdlib.h>
#include <string.h>

/* Points planned at most (a model with many ops whose kernels trade bytes for time gives a
 * dense curve; its ends are always kept). */
enum { CURVE_MAX = 48 };

static const char *const kernel_names[] = {"fast", "one thread", "in place", "reference", "-"};

const char *ap_report_kernel_name(int kernel) {
  return kernel >= 0 && kernel < 5 ? kernel_names[kernel] : "?";
}

/* Inputs by a fixed pattern: floats in [-1, 1] (no NaN or subnormal to slow a kernel down),
 * other types byte by byte. */
static void fill_inputs(ap_interpreter *it) {
  for (size_t i = 0; i < ap_interpreter_input_count(it); i++) {
    ap_tensor t;
    if (ap_interpreter_input(it, i, &t) != AP_OK || !t.data || t.is_constant) continue;
    if (t.type == AP_FLOAT32) {
      float *f = t.data;
      for (size_t j = 0; j < t.bytes / sizeof *f; j++)
        f[j] = (float)((int)(j % 17) - 8) / 8.0f;
    } else if (t.type != AP_STRING) {
      uint8_t *b = t.data;
      for (size_t j = 0; j < t.bytes; j++)
        b[j] = (uint8_t)(j * 37 + 11);
    }
  }
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static uint64_t median_u64(uint64_t *t, size_t n) {
  qsort(t, n, sizeof *t, cmp_u64);
  return t[n / 2] ? t[n / 2] : 1; /* (0 means "not measured") */
}

static uint64_t timed(ap_interpreter *it, bool *ok) {
  uint64_t t0 = ap_port_now_ns();
  *ok = *ok && ap_interpreter_invoke(it) == AP_OK;
  return ap_port_now_ns() - t0;
}

/* The interpreter of point p, allocated and fed (NULL when it no longer allocates). */
static ap_interpreter *point_interpreter(ap_report *r, const ap_report_kernel_point *p);

/* Times the points against the first (the fastest plan) in alternating pairs, one
 * interpreter beside the first at a time: point i's time is the median over its pairs of
 * (its invoke / the first's, the pair's order alternating) times the first's median over all
 * pairs. Measured one after the other, a point's figure took whatever the machine was doing
 * then (two runs of the same plan could differ by half); in pairs, a slow spell slows both
 * halves of a pair. */
static void measure_curve(ap_report *r, ap_report_kernel_point *pt, size_t n) {
  size_t k = (size_t)r->measure, first_n = 0;
  uint64_t *first = ap_alloc(r->alloc, (n > 1 ? n - 1 : 1) * k * sizeof *first);
  uint64_t *ratio = ap_alloc(r->alloc, k * sizeof *ratio); /* per mille */
  ap_interpreter *a = first && ratio ? point_interpreter(r, &pt[0]) : NULL;
  bool ok = a && ap_interpreter_invoke(a) == AP_OK; /* one untimed invoke */
  if (ok && n == 1)
    for (size_t j = 0; j < k; j++)
      first[first_n++] = timed(a, &ok);
  uint64_t *scaled = ap_alloc(r->alloc, n * sizeof *scaled); /* per mille of the first's */
  for (size_t i = 1; ok && scaled && i < n; i++) {
    ap_interpreter *b = point_interpreter(r, &pt[i]);
    bool okb = b && ap_interpreter_invoke(b) == AP_OK;
    for (size_t j = 0; okb && j < k; j++) {
      uint64_t ta, tb;
      if (j % 2) {
        tb = timed(b, &okb);
        ta = timed(a, &ok);
      } else {
        ta = timed(a, &ok);
        tb = timed(b, &okb);
      }
      first[first_n++] = ta;
      ratio[j] = tb * 1000 / (ta ? ta : 1);
    }
    scaled[i] = okb && ok ? median_u64(ratio, k) : 0;
    ap_interpreter_destroy(b);
  }
  if (ok && scaled && first_n) {
    uint64_t base = median_u64(first, first_n);
    pt[0].measured_ns = base;
    for (size_t i = 1; i < n; i++)
      pt[i].measured_ns = scaled[i] ? (base * scaled[i] + 500) / 1000 : 0;
  }
  ap_interpreter_destroy(a);
  ap_free(r->alloc, scaled);
  ap_free(r->alloc, ratio);
  ap_free(r->alloc, first);
}

/* The report's planning options for one point's interpreter. */
static ap_interpreter_options point_options(const ap_report *r, int kernels, uint64_t budget) {
  ap_interpreter_options io = ap_interpreter_defaults();
  io.strategy = r->strategy;
  io.alignment = r->alignment;
  io.allocator = r->alloc;
  io.inplace = r->inplace;
  io.stream = r->stream;
  io.kernels = kernels;
  io.budget = budget;
  return io;
}

/* One interpreter with `kernels` at `budget` (UINT64_MAX: the fastest plan); false when
 * nothing fits. */
static bool point_at(ap_report *r, int kernels, uint64_t budget, size_t ops,
                     ap_report_kernel_point *p) {
  ap_interpreter_options io = point_options(r, kernels, budget);
  ap_interpreter *it = NULL;
  ap_memory_usage mu;
  bool ok = ap_interpreter_create(r->model, &io, &it) == AP_OK &&
            ap_interpreter_allocate(it) == AP_OK && ap_interpreter_memory(it, &mu) == AP_OK;
  uint8_t *kernel = ok ? ap_alloc(r->alloc, ops ? ops : 1) : NULL;
  ok = ok && kernel;
  for (size_t sg = 0, i = 0; ok && sg < ap_model_subgraph_count(r->model); sg++)
    for (size_t k = 0; k < ap_model_op_count(r->model, sg); k++, i++) {
      const char *name = ap_interpreter_op_kernel(it, sg, k);
      kernel[i] = 4;
      for (uint8_t j = 0; name && j < 4; j++)
        if (strcmp(name, kernel_names[j]) == 0) kernel[i] = j;
    }
  if (ok)
    *p = (ap_report_kernel_point){.budget = budget,
                                  .total = mu.total,
                                  .estimate_ns = ap_interpreter_estimate_ns(it),
                                  .op_count = ops,
                                  .kernel = kernel};
  else
    ap_free(r->alloc, kernel);
  ap_interpreter_destroy(it);
  return ok;
}

static ap_interpreter *point_interpreter(ap_report *r, const ap_report_kernel_point *p) {
  /* (the cut curve's last point is the reference kernels' plan, planned with budget 0) */
  ap_interpreter_options io =
      point_options(r, p->budget ? AP_KERNELS_AUTO : AP_KERNELS_REFERENCE, p->budget);
  ap_interpreter *it = NULL;
  if (ap_interpreter_create(r->model, &io, &it) != AP_OK || ap_interpreter_allocate(it) != AP_OK) {
    ap_interpreter_destroy(it);
    return NULL;
  }
  fill_inputs(it);
  return it;
}

static void compute(ap_report *r) {
  size_t ops = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(r->model); sg++)
    ops += ap_model_op_count(r->model, sg);
  r->curve = ap_alloc(r->alloc, CURVE_MAX * sizeof *r->curve);
  if (!r->curve) return;
  size_t n = 0;
  uint64_t budget = UINT64_MAX;
  while (n < CURVE_MAX && budget > 0 && point_at(r, AP_KERNELS_AUTO, budget, ops, &r->curve[n])) {
    if (r->curve[n].total > budget) { /* (the runtime keeps its budgets: not reached) */
      ap_free(r->alloc, (void *)r->curve[n].kernel);
      break;
    }
    budget = r->curve[n].total - 1;
    /* A smaller plan as fast as the one before it dominates that one. */
    if (n && r->curve[n].estimate_ns <= r->curve[n - 1].estimate_ns) {
      ap_free(r->alloc, (void *)r->curve[n - 1].kernel);
      r->curve[n - 1] = r->curve[n];
    } else {
      n++;
    }
  }
  /* Cut short: the last point gives way to the other end, the reference kernels' plan. */
  ap_report_kernel_point last;
  if (n == CURVE_MAX && point_at(r, AP_KERNELS_REFERENCE, 0, ops, &last)) {
    ap_free(r->alloc, (void *)r->curve[n - 1].kernel);
    r->curve[n - 1] = last;
  }
  r->curve_count = n;
  if (r->measure && n) measure_curve(r, r->curve, n);
}

const ap_report_kernel_point *ap_report_kernel_curve(const ap_report *cr, size_t *count) {
  if (count) *count = 0;
  if (!cr || !count) return NULL;
  ap_report *r = (ap_report *)cr; /* a cache: the report is otherwise unchanged */
  if (!r->curve_done) {
    r->curve_done = true;
    compute(r);
  }
  *count = r->curve_count;
  return r->curve;
}

void report_kernel_curve_free(ap_report *r) {
  for (size_t i = 0; r->curve && i < r->curve_count; i++)
    ap_free(r->alloc, (void *)r->curve[i].kernel);
  ap_free(r->alloc, r->curve);
  r->curve = NULL;
  r->curve_count = 0;
}
