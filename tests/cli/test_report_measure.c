/* `report --measure N`: each point of the kernels' curve timed by N invokes (the median beside
 * the estimate, in the text, the JSON and the HTML page), and bad counts refused; the library's
 * ap_report_options.measure likewise (0: not measured; outside 0..1000 refused with a message). */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cli(const char *args, char **out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "'%s' %s", ap_test_cli(), args);
  return ap_test_run(cmd, true, out);
}

/* The curve of a report with `measure` invokes per point; n points into *n. */
static void library(const ap_model *m, int measure, bool *all_measured, bool *none_measured,
                    size_t *n) {
  ap_report_options o = {.measure = measure};
  ap_report *r = NULL;
  CHECK_MSG(ap_report_create(m, &o, NULL, &r) == AP_OK, "%s", ap_report_error(r));
  const ap_report_kernel_point *p = ap_report_kernel_curve(r, n);
  *all_measured = *none_measured = true;
  for (size_t i = 0; i < *n; i++) {
    *all_measured = *all_measured && p[i].measured_ns > 0;
    *none_measured = *none_measured && p[i].measured_ns == 0;
  }
  ap_report_destroy(r);
}

int main(void) {
  ap_test_require_shared();
  char path[512], args[2048];
  ap_test_path(path, sizeof path, "models/mlperf_kws_dscnn_int8.tflite");
  ap_model *m = NULL;
  CHECK(ap_model_open(path, NULL, &m) == AP_OK);
  bool all, none;
  size_t n = 0;
  library(m, 3, &all, &none, &n);
  CHECK_MSG(n > 1 && all, "%zu points, every one measured: %d", n, all);
  library(m, 0, &all, &none, &n);
  CHECK_MSG(n > 1 && none, "%zu points, none measured: %d", n, none);
  for (int bad = -1; bad <= 1001; bad += 1002) {
    ap_report_options o = {.measure = bad};
    ap_report *r = NULL;
    CHECK_EQ(ap_report_create(m, &o, NULL, &r), AP_ERR_ARG);
    CHECK_CONTAINS(ap_report_error(r), "measure: ");
    CHECK_CONTAINS(ap_report_error(r), " invokes (0 to 1000)");
    ap_report_destroy(r);
  }
  ap_model_destroy(m);

  char *out = NULL;
  snprintf(args, sizeof args, "report '%s' --inplace --measure 2", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(out,
                 "          total   estimated    measured   kernels other than the fast ones\n");
  free(out);
  snprintf(args, sizeof args, "report '%s' --inplace", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(out, "          total   estimated   kernels other than the fast ones\n");
  free(out);
  snprintf(args, sizeof args, "report '%s' --measure 2 --json", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(out, "\"budget_bytes\": null, \"measured_ns\": ");
  CHECK(strstr(out, "\"measured_ns\": null") == NULL);
  free(out);
  snprintf(args, sizeof args, "report '%s' --json", path);
  CHECK_EQ(cli(args, &out), 0);
  CHECK_CONTAINS(out, "\"budget_bytes\": null, \"measured_ns\": null, ");
  free(out);
  char dir[] = "/tmp/ap_report_measure_XXXXXX", html[512];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(html, sizeof html, "%s/measure.html", dir);
  snprintf(args, sizeof args, "report '%s' --measure 1 --html '%s'", path, html);
  CHECK_EQ(cli(args, &out), 0);
  free(out);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cat '%s'", html);
  CHECK_EQ(ap_test_run(cmd, false, &out), 0);
  CHECK_CONTAINS(out, "<th>estimated</th><th>measured (median)</th>");
  free(out);
  remove(html);
  rmdir(dir);
  for (int i = 0; i < 3; i++) {
    const char *bad[] = {"0", "1001", "x"};
    snprintf(args, sizeof args, "report '%s' --measure %s", path, bad[i]);
    CHECK_EQ(cli(args, &out), 2);
    char want[128];
    snprintf(want, sizeof want, "--measure \"%s\": expected 1 to 1000 invokes", bad[i]);
    CHECK_CONTAINS(out, want);
    free(out);
  }
  return ap_test_done();
}
