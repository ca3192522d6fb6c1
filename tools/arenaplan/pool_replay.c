/* `arenaplan pool --trace`: the trace file and its replay. */
#include "pool_replay.h"
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TRACE_LINE_MAX 1024

static bool parse_line(char *line, const char *const *names, size_t count, pool_request *r,
                       const char **why) {
  char *comma = strchr(line, ',');
  if (!comma) {
    *why = "expected time_ms,model";
    return false;
  }
  *comma = 0;
  char *name = comma + 1;
  size_t len = strlen(name);
  while (len && (name[len - 1] == '\r' || name[len - 1] == ' '))
    name[--len] = 0;
  while (*name == ' ')
    name++;
  uint64_t t;
  if (!cli_parse_uint(line, UINT64_MAX, &t)) {
    *why = "time_ms is not a non-negative integer";
    return false;
  }
  for (size_t i = 0; i < count; i++)
    if (strcmp(names[i], name) == 0) {
      r->time_ms = t;
      r->model = i;
      return true;
    }
  *why = NULL; /* the caller names the model */
  return false;
}

bool pool_read_trace(const char *path, const char *const *names, size_t count, pool_request **out,
                     size_t *n) {
  *out = NULL;
  *n = 0;
  /* O_NONBLOCK: a FIFO with no writer must not hang the command; only regular files pass. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return cli_fail(path, "cannot open: %s", strerror(errno)), false;
  struct stat st;
  const char *bad = fstat(fd, &st) != 0    ? strerror(errno)
                    : S_ISDIR(st.st_mode)  ? "is a directory, not a trace file"
                    : !S_ISREG(st.st_mode) ? "not a regular file"
                                           : NULL;
  FILE *f = bad ? NULL : fdopen(fd, "r");
  if (!f) {
    close(fd);
    return cli_fail(path, "%s", bad ? bad : strerror(errno)), false;
  }
  size_t cap = 0, lineno = 0;
  char line[TRACE_LINE_MAX + 2];
  bool ok = true;
  while (ok && fgets(line, sizeof line, f)) {
    lineno++;
    size_t len = strlen(line);
    if (len && line[len - 1] == '\n')
      line[--len] = 0;
    else if (len > TRACE_LINE_MAX) {
      ok = !cli_fail(path, "line %zu: longer than %d bytes", lineno, TRACE_LINE_MAX);
      break;
    }
    if (len && line[len - 1] == '\r') line[--len] = 0;
    if (len == 0 || (lineno == 1 && strcmp(line, "time_ms,model") == 0)) continue;
    if (*n == cap) {
      size_t ncap = cap ? cap * 2 : 256;
      pool_request *g = ncap > SIZE_MAX / sizeof *g ? NULL : realloc(*out, ncap * sizeof *g);
      if (!g) {
        ok = !cli_fail(path, "out of memory at line %zu", lineno);
        break;
      }
      *out = g;
      cap = ncap;
    }
    char copy[TRACE_LINE_MAX + 2];
    memcpy(copy, line, len + 1);
    const char *why;
    pool_request *r = &(*out)[*n];
    if (!parse_line(line, names, count, r, &why)) {
      if (why)
        ok = !cli_fail(path, "line %zu: \"%s\": %s", lineno, copy, why);
      else
        ok = !cli_fail(path,
                       "line %zu: unknown model \"%s\" (the models are the files' names "
                       "without .tflite)",
                       lineno, strchr(copy, ',') + 1);
    } else if (*n && r->time_ms < (*out)[*n - 1].time_ms) {
      ok =
          !cli_fail(path, "line %zu: time %llu ms is before the previous request's %llu ms", lineno,
                    (unsigned long long)r->time_ms, (unsigned long long)(*out)[*n - 1].time_ms);
    } else {
      (*n)++;
    }
  }
  if (ok && ferror(f)) ok = !cli_fail(path, "read error");
  fclose(f);
  if (ok && *n == 0) ok = !cli_fail(path, "no requests (expected lines of time_ms,model)");
  if (!ok) {
    free(*out);
    *out = NULL;
    *n = 0;
  }
  return ok;
}

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

bool pool_replay(ap_pool *p, const char *trace, const char *const *names, size_t count,
                 const pool_request *req, size_t n, uint64_t seed, uint64_t *clock_ms,
                 pool_replay_result *out) {
  out->latency_us = calloc(n, sizeof *out->latency_us);
  out->acquire_us = calloc(n, sizeof *out->acquire_us);
  out->requests = calloc(count ? count : 1, sizeof *out->requests);
  if (!out->latency_us || !out->acquire_us || !out->requests)
    return cli_fail(trace, "out of memory"), false;
  for (size_t i = 0; i < n; i++) {
    const char *name = names[req[i].model];
    *clock_ms = req[i].time_ms;
    double t0 = now_us();
    ap_interpreter *it = NULL;
    ap_status s = ap_pool_acquire(p, name, 0, &it);
    double t1 = now_us();
    if (s != AP_OK)
      return cli_fail(trace, "request %zu (%s): %s", i + 1, name, ap_pool_error(p)), false;
    /* Input generation is the client's work, outside the latency. */
    for (size_t k = 0; k < ap_interpreter_input_count(it); k++) {
      ap_tensor t;
      if (ap_interpreter_input(it, k, &t) == AP_OK) run_fill_random(&t, seed + i, k);
    }
    double t2 = now_us();
    s = ap_interpreter_invoke(it);
    if (s != AP_OK) {
      cli_fail(trace, "request %zu (%s): %s", i + 1, name, ap_interpreter_error(it));
      ap_pool_release(p, it);
      return false;
    }
    ap_pool_release(p, it);
    out->acquire_us[i] = t1 - t0;
    out->latency_us[i] = (t1 - t0) + (now_us() - t2);
    out->requests[req[i].model]++;
  }
  return true;
}
