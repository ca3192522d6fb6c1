/* The kernel choice's speed-memory curve (ap_report_kernel_curve) on every shared model the
 * runtime runs: a Pareto front (totals fall strictly, estimates rise strictly: no point
 * dominated), its fast end the fast kernels' plan (same total and estimate as an interpreter
 * with AP_KERNELS_FAST), its small end no larger than the reference kernels' plan and the
 * smallest there is (a budget one byte below fits nothing), and every point the plan an
 * interpreter makes with that point's budget (so `header --budget` gives any point). */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <dirent.h>
#include <string.h>

/* total and estimate of an interpreter with these kernels and budget; false if it fails. */
static bool measure(const ap_model *m, int kernels, uint64_t budget, uint64_t *total,
                    uint64_t *est) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.kernels = kernels;
  o.budget = budget;
  ap_interpreter *it = NULL;
  ap_memory_usage mu;
  bool ok = ap_interpreter_create(m, &o, &it) == AP_OK && ap_interpreter_allocate(it) == AP_OK &&
            ap_interpreter_memory(it, &mu) == AP_OK;
  if (ok) {
    *total = mu.total;
    *est = ap_interpreter_estimate_ns(it);
  }
  ap_interpreter_destroy(it);
  return ok;
}

static void curve(const char *path, const char *name, size_t *checked, size_t *multi) {
  ap_model *m = NULL;
  if (ap_model_open(path, NULL, &m) != AP_OK) {
    ap_model_destroy(m);
    return;
  }
  uint64_t ft, fe, rt, re;
  bool runs =
      measure(m, AP_KERNELS_FAST, 0, &ft, &fe) && measure(m, AP_KERNELS_REFERENCE, 0, &rt, &re);
  ap_report *r = NULL;
  CHECK_MSG(ap_report_create(m, NULL, NULL, &r) == AP_OK, "%s: %s", name, ap_report_error(r));
  size_t n = 0;
  const ap_report_kernel_point *p = ap_report_kernel_curve(r, &n);
  if (!runs) { /* the runtime cannot allocate it: no curve */
    CHECK_MSG(n == 0, "%s: a curve without a runtime", name);
  } else {
    (*checked)++;
    *multi += n > 1;
    CHECK_MSG(n >= 1 && p, "%s: no curve", name);
    for (size_t i = 1; i < n; i++) {
      CHECK_MSG(p[i].total < p[i - 1].total && p[i].estimate_ns > p[i - 1].estimate_ns,
                "%s: point %zu (%llu B, %llu ns) against %zu (%llu B, %llu ns)", name, i,
                (unsigned long long)p[i].total, (unsigned long long)p[i].estimate_ns, i - 1,
                (unsigned long long)p[i - 1].total, (unsigned long long)p[i - 1].estimate_ns);
    }
    if (n) {
      CHECK_MSG(p[0].total == ft && p[0].estimate_ns == fe,
                "%s: fast end %llu B %llu ns, fast kernels %llu B %llu ns", name,
                (unsigned long long)p[0].total, (unsigned long long)p[0].estimate_ns,
                (unsigned long long)ft, (unsigned long long)fe);
      CHECK_MSG(p[n - 1].total <= rt, "%s: small end %llu B, reference kernels %llu B", name,
                (unsigned long long)p[n - 1].total, (unsigned long long)rt);
      /* The budget one byte below the small end fits nothing. */
      uint64_t t, e;
      CHECK_MSG(!measure(m, AP_KERNELS_AUTO, p[n - 1].total - 1, &t, &e),
                "%s: a plan below the small end (%llu B)", name,
                (unsigned long long)p[n - 1].total);
    }
    for (size_t i = 0; i < n; i++) { /* each point again from its budget: the same plan */
      uint64_t t, e;
      CHECK_MSG(measure(m, AP_KERNELS_AUTO, p[i].budget, &t, &e) && t == p[i].total &&
                    e == p[i].estimate_ns,
                "%s: point %zu (%llu B, %llu ns) planned again: %llu B, %llu ns", name, i,
                (unsigned long long)p[i].total, (unsigned long long)p[i].estimate_ns,
                (unsigned long long)t, (unsigned long long)e);
    }
  }
  ap_report_destroy(r);
  ap_model_destroy(m);
}

/* options.measure: every point timed (in pairs against the fast end), none without it. */
static void measured(const char *name) {
  char path[512];
  ap_test_path(path, sizeof path, "models/%s.tflite", name);
  ap_model *m = NULL;
  CHECK_MSG(ap_model_open(path, NULL, &m) == AP_OK, "%s", path);
  for (int k = 0; k <= 5; k += 5) {
    ap_report_options o = {.measure = k, .inplace = true};
    ap_report *r = NULL;
    CHECK_MSG(ap_report_create(m, &o, NULL, &r) == AP_OK, "%s: %s", name, ap_report_error(r));
    size_t n = 0;
    const ap_report_kernel_point *p = ap_report_kernel_curve(r, &n);
    CHECK_MSG(n >= 2, "%s: %zu points", name, n);
    for (size_t i = 0; p && i < n; i++)
      CHECK_MSG((p[i].measured_ns != 0) == (k != 0), "%s measure %d: point %zu measured %llu ns",
                name, k, i, (unsigned long long)p[i].measured_ns);
    ap_report_destroy(r);
  }
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  char dir[512];
  ap_test_path(dir, sizeof dir, "models");
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  size_t checked = 0, multi = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 8 || strcmp(e->d_name + len - 7, ".tflite") != 0) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    curve(path, e->d_name, &checked, &multi);
  }
  if (d) closedir(d);
  printf("%zu models with a curve, %zu with more than one point\n", checked, multi);
  CHECK(checked >= 20);
  CHECK(multi >= 3);
  measured("micro_speech_int8");
  measured("tflm_test_conv");
  return ap_test_done();
}
