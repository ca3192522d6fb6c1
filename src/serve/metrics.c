/* /metrics: the pool's bytes and the server's counters in Prometheus' text format. */
#include "serve_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const double serve_bucket_le[SERVE_BUCKETS] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                               0.1,    0.25,  0.5,    1,     2.5,  5,     10};

void serve_record(ap_server *s, serve_model *m, int status, double seconds) {
  pthread_mutex_lock(&s->lock);
  if (status >= 100 && status < 600) s->http_by_class[status / 100]++;
  if (status == 413) s->rejected_too_large++;
  if (m) {
    if (status == 200)
      m->requests_ok++;
    else
      m->requests_failed++;
    if (status == 503) m->rejected_busy++;
    size_t b = 0;
    while (b < SERVE_BUCKETS && seconds > serve_bucket_le[b])
      b++;
    m->latency_count[b]++;
    m->latency_sum += seconds;
  }
  pthread_mutex_unlock(&s->lock);
}

static bool put(v2_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool put(v2_buf *b, const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  return n >= 0 && (size_t)n < sizeof line && v2_buf_append(b, line, (size_t)n);
}

static bool head(v2_buf *b, const char *name, const char *type, const char *help) {
  return put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static const char *const states[] = {"unloaded", "loading", "warming", "ready", "busy"};

bool serve_metrics(ap_server *s, v2_buf *b) {
  ap_pool_stats ps;
  if (ap_pool_get_stats(s->pool, &ps) != AP_OK) return false;
  uint64_t rss, hwm;
  serve_process_memory(&rss, &hwm);
  bool ok = true;
#define G(name, help, value)                                                                       \
  ok = ok && head(b, name, "gauge", help) && put(b, name " %llu\n", (unsigned long long)(value))
#define C(name, help, value)                                                                       \
  ok = ok && head(b, name, "counter", help) && put(b, name " %llu\n", (unsigned long long)(value))
  G("arenaplan_budget_bytes", "The pool's byte budget.", ps.budget_bytes);
  G("arenaplan_resident_bytes", "Bytes the pool holds now (weights, handles, interpreters).",
    ps.resident_bytes);
  G("arenaplan_peak_resident_bytes", "The most bytes the pool ever held at once.",
    ps.peak_resident_bytes);
  G("arenaplan_process_resident_bytes", "The process's VmRSS.", rss);
  G("arenaplan_process_peak_resident_bytes", "The process's VmHWM.", hwm);
  G("arenaplan_overhead_base_bytes", "VmRSS when the server started, no model loaded.",
    s->overhead.base_rss);
  G("arenaplan_overhead_connection_bytes", "libmicrohttpd's buffer per connection.",
    s->overhead.per_connection);
  G("arenaplan_overhead_bytes",
    "The server's fixed overhead: base + connection buffers at the limit + bodies.",
    s->overhead.total);
  C("arenaplan_pool_loads_total", "Models loaded.", ps.loads);
  C("arenaplan_pool_unloads_total", "Models unloaded (any reason).", ps.unloads);
  C("arenaplan_pool_acquires_total", "Interpreters handed to requests.", ps.acquires);
  C("arenaplan_pool_hits_total", "Acquires that found the model loaded.", ps.hits);
  ok = ok &&
       head(b, "arenaplan_pool_evictions_total", "counter",
            "Models unloaded by reason: idle, room (for another), explicit.") &&
       put(b, "arenaplan_pool_evictions_total{reason=\"idle\"} %llu\n",
           (unsigned long long)ps.evictions_idle) &&
       put(b, "arenaplan_pool_evictions_total{reason=\"room\"} %llu\n",
           (unsigned long long)ps.evictions_room) &&
       put(b, "arenaplan_pool_evictions_total{reason=\"explicit\"} %llu\n",
           (unsigned long long)ps.unloads_explicit);
  C("arenaplan_admission_budget_failures_total",
    "Acquires that failed with the budget full after their wait (503).", ps.budget_failures);
  G("arenaplan_admission_waiting", "Acquires waiting now (the queue).", ps.waiting);
  C("arenaplan_admission_waits_total", "Acquires that waited for a release.", ps.waits);
  C("arenaplan_admission_failures_total", "Acquires that failed (budget, timeout, load).",
    ps.failures);
  G("arenaplan_in_flight_requests", "Inference requests being served now.",
    atomic_load(&s->inferring));
  pthread_mutex_lock(&s->lock);
  ok = ok && head(b, "arenaplan_http_responses_total", "counter", "HTTP responses by class.");
  for (int c = 1; c <= 5; c++)
    ok = ok && put(b, "arenaplan_http_responses_total{class=\"%dxx\"} %llu\n", c,
                   (unsigned long long)s->http_by_class[c]);
  C("arenaplan_rejected_too_large_total", "Bodies over max_body (413).", s->rejected_too_large);
  pthread_mutex_lock(&s->conns.mu);
  uint64_t dropped = s->conns.dropped;
  pthread_mutex_unlock(&s->conns.mu);
  C("arenaplan_connections_dropped_total",
    "Connections cut for not delivering a whole request within connection_timeout.", dropped);
  /* One group per metric family (the text format wants a family's samples together). */
  for (int fam = 0; ok && fam < 9; fam++) {
    static const char *const fams[][3] = {
        {"arenaplan_model_bytes", "gauge", "Bytes a model holds now."},
        {"arenaplan_model_state", "gauge", "1 for the model's state."},
        {"arenaplan_model_cost_bytes", "gauge", "Resident cost: the model with one interpreter."},
        {"arenaplan_model_loads_total", "counter", "Loads of the model."},
        {"arenaplan_model_unloads_total", "counter", "Unloads of the model."},
        {"arenaplan_requests_total", "counter", "Inference requests by result."},
        {"arenaplan_rejected_busy_total", "counter", "503: not resident within the wait."},
        {"arenaplan_request_seconds", "histogram", "Inference request latency."},
        {"arenaplan_model_evictions_total", "counter",
         "Unloads of the model by reason: idle, room (for another), explicit."}};
    ok = head(b, fams[fam][0], fams[fam][1], fams[fam][2]);
    for (size_t i = 0; ok && i < s->model_count; i++) {
      serve_model *m = s->models[i];
      if (m->removed) continue;
      const char *n = m->name, *f = fams[fam][0];
      ap_pool_model_info info;
      serve_pool_info(s->pool, n, &info);
      const char *state = ap_pool_state_name(info.state);
      switch (fam) {
      case 0:
        ok = put(b, "%s{model=\"%s\"} %llu\n", f, n, (unsigned long long)info.resident_bytes);
        break;
      case 1:
        for (size_t st = 0; ok && st < sizeof states / sizeof states[0]; st++)
          ok = put(b, "%s{model=\"%s\",state=\"%s\"} %d\n", f, n, states[st],
                   !strcmp(state, states[st]));
        break;
      case 2:
        ok = put(b, "%s{model=\"%s\"} %llu\n", f, n, (unsigned long long)m->cost.resident);
        break;
      case 3: ok = put(b, "%s{model=\"%s\"} %llu\n", f, n, (unsigned long long)info.loads); break;
      case 4: ok = put(b, "%s{model=\"%s\"} %llu\n", f, n, (unsigned long long)info.unloads); break;
      case 5:
        ok = put(b, "%s{model=\"%s\",result=\"ok\"} %llu\n", f, n,
                 (unsigned long long)m->requests_ok) &&
             put(b, "%s{model=\"%s\",result=\"error\"} %llu\n", f, n,
                 (unsigned long long)m->requests_failed);
        break;
      case 6:
        ok = put(b, "%s{model=\"%s\"} %llu\n", f, n, (unsigned long long)m->rejected_busy);
        break;
      case 8:
        ok = put(b, "%s{model=\"%s\",reason=\"idle\"} %llu\n", f, n,
                 (unsigned long long)info.evictions_idle) &&
             put(b, "%s{model=\"%s\",reason=\"room\"} %llu\n", f, n,
                 (unsigned long long)info.evictions_room) &&
             put(b, "%s{model=\"%s\",reason=\"explicit\"} %llu\n", f, n,
                 (unsigned long long)info.unloads_explicit);
        break;
      default: {
        uint64_t cum = 0;
        for (size_t j = 0; ok && j <= SERVE_BUCKETS; j++) {
          cum += m->latency_count[j];
          if (j < SERVE_BUCKETS)
            ok = put(b, "%s_bucket{model=\"%s\",le=\"%g\"} %llu\n", f, n, serve_bucket_le[j],
                     (unsigned long long)cum);
          else
            ok =
                put(b, "%s_bucket{model=\"%s\",le=\"+Inf\"} %llu\n", f, n, (unsigned long long)cum);
        }
        ok = ok && put(b, "%s_sum{model=\"%s\"} %.6f\n", f, n, m->latency_sum) &&
             put(b, "%s_count{model=\"%s\"} %llu\n", f, n, (unsigned long long)cum);
      }
      }
    }
  }
  pthread_mutex_unlock(&s->lock);
#undef G
#undef C
  return ok;
}
