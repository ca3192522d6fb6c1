/* `arenaplan run --profile`: per-op medians from the interpreter's per-invoke op times. */
#include "run_profile.h"

#include "run.h"

#include <stdlib.h>
#include <string.h>

bool run_profile_init(run_profile *p, size_t ops, size_t iterations) {
  memset(p, 0, sizeof *p);
  size_t n = ops ? ops : 1;
  if (iterations > SIZE_MAX / sizeof(uint64_t) / n) return false;
  p->ns = calloc(n * iterations, sizeof(uint64_t));
  p->ops = ops;
  p->iterations = iterations;
  return p->ns != NULL;
}

void run_profile_free(run_profile *p) {
  free(p->ns);
  p->ns = NULL;
}

uint64_t *run_profile_row(run_profile *p, size_t i) {
  return p->ns + i * (p->ops ? p->ops : 1);
}

static int cmp_u64(const void *pa, const void *pb) {
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return a < b ? -1 : a > b;
}

/* Op k's median in microseconds; tmp holds `iterations` values. */
static double median_us(const run_profile *p, size_t k, uint64_t *tmp) {
  size_t n = p->iterations;
  for (size_t i = 0; i < n; i++)
    tmp[i] = p->ns[i * p->ops + k];
  qsort(tmp, n, sizeof *tmp, cmp_u64);
  double m = n % 2 ? (double)tmp[n / 2] : ((double)tmp[n / 2 - 1] + (double)tmp[n / 2]) / 2;
  return m / 1e3;
}

static const char *op_type(const ap_model *m, size_t k) {
  ap_op_info info;
  if (ap_model_op(m, 0, k, &info) != AP_OK) return "?";
  return info.custom ? info.custom : ap_builtin_name(info.builtin);
}

static const char *op_shape(char *b, size_t size, ap_interpreter *it, const ap_model *m, size_t k) {
  ap_op_info info;
  ap_tensor t;
  if (ap_model_op(m, 0, k, &info) != AP_OK || info.outputs.n == 0 || info.outputs.v[0] < 0 ||
      ap_interpreter_tensor(it, 0, (size_t)info.outputs.v[0], &t) != AP_OK)
    return "-";
  return run_shape(b, size, &t);
}

void run_profile_print(run_profile *p, ap_interpreter *it, const ap_model *m,
                       double invoke_median_us) {
  uint64_t *tmp = malloc((p->iterations ? p->iterations : 1) * sizeof *tmp);
  if (!tmp) return;
  double sum = 0;
  printf("\nprofile (median wall time per op over %zu iterations; a streamed segment's time is "
         "its first op's)\n",
         p->iterations);
  printf("  %4s  %-24s %-20s %10s %7s\n", "op", "type", "output", "us", "share");
  for (size_t k = 0; k < p->ops; k++) {
    char b[64];
    double us = median_us(p, k, tmp);
    sum += us;
    printf("  %4zu  %-24s %-20s %10.1f %6.1f%%\n", k, op_type(m, k),
           op_shape(b, sizeof b, it, m, k), us,
           invoke_median_us > 0 ? 100 * us / invoke_median_us : 0.0);
  }
  printf("  sum of op medians %.1f us, invoke median %.1f us (the rest, %.1f us, is the "
         "runtime's own work and the medians' spread)\n",
         sum, invoke_median_us, invoke_median_us - sum);
  free(tmp);
}

void run_profile_json(run_profile *p, ap_interpreter *it, const ap_model *m) {
  uint64_t *tmp = malloc((p->iterations ? p->iterations : 1) * sizeof *tmp);
  if (!tmp) return;
  double sum = 0;
  printf("  \"profile\": [");
  for (size_t k = 0; k < p->ops; k++) {
    char b[64];
    double us = median_us(p, k, tmp);
    sum += us;
    printf("%s\n    {\"op\": %zu, \"type\": ", k ? "," : "", k);
    cli_json_string(stdout, op_type(m, k));
    printf(", \"output\": ");
    cli_json_string(stdout, op_shape(b, sizeof b, it, m, k));
    printf(", \"us_median\": %.3f}", us);
  }
  printf("%s],\n  \"profile_sum_us\": %.1f,\n", p->ops ? "\n  " : "", sum);
  free(tmp);
}
