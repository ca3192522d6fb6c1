/* Runs the exact strategy on the MiniMalloc suite (A-K, alignment 1) and on every real-model
 * instance in shared/bench/tflm_plans (alignment 16), each from exact's own first-fit start,
 * and prints arena, lower bound, ratio, whether the optimum was proven, and the time (wall
 * clock, which the budget is measured in, and the CPU time of this process, which is what to
 * compare on a loaded machine).
 *
 *   bench_exact_bench [--budget SECONDS] [--only SUBSTRING]
 *
 * The budget defaults to 60 s per instance. */
#include "plan/strategy.h"
#include "test.h"

#include <dirent.h>
#include <stdlib.h>
#include <time.h>

extern const ap_strategy ap_strategy_exact;

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The file as a NUL-terminated string (ap_test_read_file does not terminate). */
static char *read_text(const char *path) {
  size_t len;
  uint8_t *raw = ap_test_read_file(path, &len);
  char *text = raw ? malloc(len + 1) : NULL;
  if (text) {
    memcpy(text, raw, len);
    text[len] = 0;
  }
  free(raw);
  return text;
}

/* Parses "id,lower,upper,size" (upper exclusive). Returns the count, or 0 on error. */
static size_t load_csv(const char *path, ap_request **out) {
  char *text = read_text(path);
  if (!text) return 0;
  size_t cap = 64, n = 0;
  ap_request *req = malloc(cap * sizeof *req);
  char *line = strchr(text, '\n');
  while (line && req) {
    unsigned long long id, lo, up, sz;
    if (sscanf(line + 1, "%llu,%llu,%llu,%llu", &id, &lo, &up, &sz) == 4 && up > lo) {
      if (n == cap) req = realloc(req, (cap *= 2) * sizeof *req);
      if (!req) break;
      req[n++] = (ap_request){id, sz, (int32_t)lo, (int32_t)(up - 1)};
    }
    line = strchr(line + 1, '\n');
  }
  free(text);
  *out = req;
  return n;
}

typedef struct ev {
  int64_t t;
  int64_t d;
} ev;

static int cmp_ev(const void *a, const void *b) {
  const ev *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return (x->d > y->d) - (x->d < y->d); /* ends before starts at the same step */
}

/* Peak of live aligned bytes (sizes here are multiples of the alignment). */
static uint64_t lower_bound(const ap_request *r, size_t n, uint64_t align) {
  ev *e = malloc(2 * n * sizeof *e);
  for (size_t i = 0; i < n; i++) {
    int64_t s = (int64_t)((r[i].size + align - 1) / align * align);
    e[2 * i] = (ev){r[i].first, s};
    e[2 * i + 1] = (ev){(int64_t)r[i].last + 1, -s};
  }
  qsort(e, 2 * n, sizeof *e, cmp_ev);
  int64_t live = 0, peak = 0;
  for (size_t i = 0; i < 2 * n; i++) {
    live += e[i].d;
    if (live > peak) peak = live;
  }
  free(e);
  return (uint64_t)peak;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run(const char *label, const char *path, uint64_t align, double budget) {
  ap_request *req = NULL;
  size_t n = load_csv(path, &req);
  if (!n) {
    printf("%-32s cannot read %s\n", label, path);
    free(req);
    return;
  }
  uint64_t lb = lower_bound(req, n, align);
  uint64_t *off = malloc(n * sizeof *off);
  ap_errbuf err = {{0}};
  ap_strategy_ctx ctx = {
      .req = req, .n = n, .align = align, .lower_bound = lb, .budget_seconds = budget, .err = &err};
  ap_strategy_result res = {0};
  double t = clock_s(CLOCK_MONOTONIC), cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  ap_status st = ap_strategy_exact.plan(&ctx, off, &res);
  t = clock_s(CLOCK_MONOTONIC) - t;
  cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu;
  if (st != AP_OK)
    printf("%-32s %5zu  error %s: %s\n", label, n, ap_status_name(st), err.msg);
  else
    printf("%-32s %5zu %12llu %12llu %7.4f %-7s %9.3f %9.3f\n", label, n,
           (unsigned long long)res.arena, (unsigned long long)lb, (double)res.arena / (double)lb,
           res.optimal ? "yes" : "no", t, cpu);
  fflush(stdout);
  free(off);
  free(req);
}

int main(int argc, char **argv) {
  double budget = 60;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--budget") && i + 1 < argc)
      budget = atof(argv[++i]);
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--budget SECONDS] [--only SUBSTRING]\n", argv[0]);
      return 2;
    }
  }
  ap_test_require_shared();
  char path[1024];
  printf("%-32s %5s %12s %12s %7s %-7s %9s %9s\n", "instance", "n", "arena", "lower_bound", "ratio",
         "optimal", "wall_s", "cpu_s");
  for (char c = 'A'; c <= 'K'; c++) {
    char label[32];
    snprintf(label, sizeof label, "minimalloc/%c", c);
    if (only && !strstr(label, only)) continue;
    run(label, ap_test_path(path, sizeof path, "bench/minimalloc/challenging/%c.1048576.csv", c), 1,
        budget);
  }
  DIR *d = opendir(ap_test_path(path, sizeof path, "bench/tflm_plans"));
  char *names[256];
  size_t nn = 0;
  for (struct dirent *e; d && (e = readdir(d)) && nn < 256;) {
    size_t l = strlen(e->d_name);
    if (l > 4 && !strcmp(e->d_name + l - 4, ".csv")) names[nn++] = strdup(e->d_name);
  }
  if (d) closedir(d);
  qsort(names, nn, sizeof *names, cmp_str);
  for (size_t i = 0; i < nn; i++) {
    char label[300];
    snprintf(label, sizeof label, "tflm/%.*s", (int)(strlen(names[i]) - 4), names[i]);
    if (!only || strstr(label, only))
      run(label, ap_test_path(path, sizeof path, "bench/tflm_plans/%s", names[i]), 16, budget);
    free(names[i]);
  }
  return 0;
}
