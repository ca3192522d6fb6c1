/* The server: libmicrohttpd's workers take complete requests to serve_route; a run loop
 * keeps the pool's idle unloads going and drains on stop. */
#include "serve_internal.h"
#include "slow_clients.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void set_error(ap_server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(ap_server *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->err, sizeof s->err, fmt, ap);
  va_end(ap);
}

const char *ap_server_error(const ap_server *s) {
  return s ? s->err : "no server";
}
ap_pool *ap_server_pool(ap_server *s) {
  return s ? s->pool : NULL;
}
uint16_t ap_server_port(const ap_server *s) {
  return s ? s->port : 0;
}

serve_model *serve_find(ap_server *s, const char *name) {
  serve_model *found = NULL;
  pthread_mutex_lock(&s->lock);
  for (size_t i = 0; i < s->model_count && !found; i++)
    if (!s->models[i]->removed && !strcmp(s->models[i]->name, name)) found = s->models[i];
  pthread_mutex_unlock(&s->lock);
  return found;
}

/* Probes and registers one model (the server's lock not held: probing takes a while). */
static ap_status add_model(ap_server *s, const ap_serve_config *c,
                           const ap_serve_model_config *mc) {
  char err[400] = "";
  serve_model *m = calloc(1, sizeof *m);
  if (!m || !(m->name = strdup(mc->name))) {
    serve_model_free(m);
    set_error(s, "out of memory");
    return AP_ERR_NOMEM;
  }
  m->cfg = mc;
  ap_status st = serve_model_probe(m, mc, err, sizeof err);
  bool named = false; /* the pool's messages name the model themselves */
  if (st == AP_OK && (st = serve_pool_add(s->pool, c, mc)) != AP_OK) {
    snprintf(err, sizeof err, "%s", ap_pool_error(s->pool));
    named = !strncmp(err, "model ", 6);
  }
  if (st == AP_OK) st = ap_pool_cost_of(s->pool, mc->name, &m->cost);
  /* Pinned models are resident from the start: they never leave, so they never wait. */
  if (st == AP_OK && mc->pinned &&
      (st = serve_pool_load(s->pool, mc->name, c->request_timeout_ms)) != AP_OK)
    snprintf(err, sizeof err, "pinned, but cannot be loaded: %s", ap_pool_error(s->pool));
  if (st == AP_OK) {
    pthread_mutex_lock(&s->lock);
    if (s->model_count == s->model_cap) {
      size_t cap = s->model_cap ? s->model_cap * 2 : 8;
      serve_model **ms = realloc(s->models, cap * sizeof *ms);
      if (ms) {
        s->models = ms;
        s->model_cap = cap;
      } else {
        st = AP_ERR_NOMEM;
        snprintf(err, sizeof err, "out of memory");
      }
    }
    if (st == AP_OK) s->models[s->model_count++] = m;
    pthread_mutex_unlock(&s->lock);
  }
  if (st != AP_OK) {
    if (named)
      set_error(s, "%s:%d: %s", c->path, mc->line, err);
    else
      set_error(s, "%s:%d: model %s: %s", c->path, mc->line, mc->name, err);
    serve_model_free(m);
  }
  return st;
}

/* One log line per load, unload and eviction, with the bytes and the reason (logfmt). */
static void on_pool_event(void *ctx, const ap_pool_event *e) {
  (void)ctx;
  if (e->kind == AP_POOL_EVENT_LOAD)
    fprintf(stderr,
            "arenaplan serve: load model=%s bytes=%llu reason=%s resident=%llu "
            "elapsed_ms=%.1f\n",
            e->model, (unsigned long long)e->bytes, ap_pool_reason_name(e->reason),
            (unsigned long long)e->resident_bytes, (double)e->elapsed_us / 1000.0);
  else
    fprintf(stderr, "arenaplan serve: %s model=%s bytes=%llu reason=%s resident=%llu\n",
            e->reason == AP_POOL_REASON_IDLE || e->reason == AP_POOL_REASON_ROOM ? "evict"
                                                                                 : "unload",
            e->model, (unsigned long long)e->bytes, ap_pool_reason_name(e->reason),
            (unsigned long long)e->resident_bytes);
}

ap_status ap_server_create(const ap_serve_config *c, ap_server **out) {
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  ap_server *s = calloc(1, sizeof *s);
  if (!s) return AP_ERR_NOMEM;
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->wake, NULL);
  serve_conns_init(&s->conns);
  atomic_init(&s->in_flight, 0);
  atomic_init(&s->inferring, 0);
  *out = s;
  if (!c || !c->model_count) {
    set_error(s, "no configuration or no models");
    return AP_ERR_ARG;
  }
  s->cfg = c;
  /* jansson's hash seed, set once before the workers start (its documented advice for
   * threaded programs; a no-op when already seeded). */
  json_object_seed(0);
  ap_pool_options o = ap_serve_pool_options(c);
  o.on_event = on_pool_event;
  o.event_ctx = s;
  ap_status st = ap_pool_create(&o, &s->pool);
  if (st != AP_OK) {
    set_error(s, "%s", s->pool ? ap_pool_error(s->pool) : "out of memory");
    return st;
  }
  for (size_t i = 0; i < c->model_count; i++)
    if ((st = add_model(s, c, &c->models[i])) != AP_OK) return st;
  return AP_OK;
}

typedef struct conn_ctx {
  v2_buf body;
  bool too_big, replied;
  uint64_t start_us;
} conn_ctx;

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode why) {
  (void)cls, (void)c, (void)why;
  conn_ctx *x = *con_cls;
  if (!x) return;
  v2_buf_free(&x->body);
  free(x);
  *con_cls = NULL;
}

static enum MHD_Result send_reply(ap_server *s, struct MHD_Connection *c, serve_reply *r) {
  struct MHD_Response *resp =
      MHD_create_response_from_buffer(r->body.len, r->body.data, MHD_RESPMEM_MUST_FREE);
  if (!resp) {
    v2_buf_free(&r->body);
    return MHD_NO;
  }
  r->body.data = NULL; /* the response frees it */
  r->body.len = r->body.cap = 0;
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type);
  if (r->header_len) {
    char v[32];
    snprintf(v, sizeof v, "%zu", r->header_len);
    MHD_add_response_header(resp, "Inference-Header-Content-Length", v);
  }
  if (r->retry_after) MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "1");
  enum MHD_Result ok = MHD_queue_response(c, (unsigned)r->status, resp);
  MHD_destroy_response(resp);
  (void)s;
  return ok;
}

static enum MHD_Result too_large(ap_server *s, struct MHD_Connection *c, uint64_t got) {
  serve_reply r = {0};
  serve_reply_error(&r, 413, "the body (%llu bytes or more) is over max_body (%llu bytes)",
                    (unsigned long long)got, (unsigned long long)s->cfg->max_body);
  serve_record(s, NULL, 413, 0);
  return send_reply(s, c, &r);
}

/* The model a request names, for its metrics ("/v2/models/NAME[/versions/1]/infer"). */
static serve_model *metrics_model(ap_server *s, const char *url) {
  if (strncmp(url, "/v2/models/", 11)) return NULL;
  const char *n = url + 11, *end = strchr(n, '/');
  if (!end || (strcmp(end, "/infer") && strcmp(end, "/versions/1/infer")) ||
      (size_t)(end - n) >= 256)
    return NULL;
  char name[256];
  memcpy(name, n, (size_t)(end - n));
  name[end - n] = '\0';
  return serve_find(s, name);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls) {
  (void)version;
  ap_server *s = cls;
  conn_ctx *x = *con_cls;
  if (!x) {
    if (!(x = calloc(1, sizeof *x))) return MHD_NO;
    *con_cls = x;
    x->start_us = serve_now_us();
    const char *cl =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl) {
      errno = 0;
      char *end;
      unsigned long long n = strtoull(cl, &end, 10);
      if (errno || *end || n > s->cfg->max_body) {
        /* Refused before a byte of it is read (curl's Expect: 100-continue gets this too). */
        x->replied = true;
        return too_large(s, c, errno ? UINT64_MAX : n);
      }
    }
    return MHD_YES;
  }
  if (*upload_size) {
    if (!x->replied && !x->too_big) {
      if (*upload_size > s->cfg->max_body - x->body.len) {
        x->too_big = true;
        v2_buf_free(&x->body);
      } else if (!v2_buf_append(&x->body, upload, *upload_size)) {
        return MHD_NO;
      }
    }
    *upload_size = 0; /* a body over the limit is read and dropped, then answered 413 */
    return MHD_YES;
  }
  if (x->replied) return MHD_YES;
  x->replied = true;
  if (x->too_big) return too_large(s, c, s->cfg->max_body + 1);
  atomic_fetch_add(&s->in_flight, 1);
  serve_conn_handling(s, c, true);
  serve_reply r = {0};
  const char *hl =
      MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Inference-Header-Content-Length");
  serve_route(s, method, url, x->body.data, x->body.len, hl, &r);
  serve_model *m = metrics_model(s, url);
  serve_record(s, m, r.status, (double)(serve_now_us() - x->start_us) / 1e6);
  enum MHD_Result res = send_reply(s, c, &r);
  serve_conn_handling(s, c, false);
  atomic_fetch_sub(&s->in_flight, 1);
  return res;
}

ap_status ap_server_start(ap_server *s) {
  if (!s || !s->pool) return AP_ERR_ARG;
  const ap_serve_config *c = s->cfg;
  struct sockaddr_in a4;
  struct sockaddr_in6 a6;
  struct sockaddr *addr;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_AUTO;
  memset(&a4, 0, sizeof a4);
  memset(&a6, 0, sizeof a6);
  if (inet_pton(AF_INET, c->listen, &a4.sin_addr) == 1) {
    a4.sin_family = AF_INET;
    a4.sin_port = htons(c->port);
    addr = (struct sockaddr *)&a4;
  } else if (inet_pton(AF_INET6, c->listen, &a6.sin6_addr) == 1) {
    a6.sin6_family = AF_INET6;
    a6.sin6_port = htons(c->port);
    addr = (struct sockaddr *)&a6;
    flags |= MHD_USE_IPv6;
  } else {
    set_error(s, "listen: \"%s\" is not an IPv4 or IPv6 address", c->listen);
    return AP_ERR_ARG;
  }
  ap_serve_overhead_estimate(c, &s->overhead); /* no model loaded yet: the base */
  /* connection_timeout is the run loop's sweep alone (slow_clients.c): libmicrohttpd's own
   * inactivity timeout (0: none) would count the time a connection waits for its worker,
   * busy with other connections' inferences, against the client. */
  struct MHD_Daemon *d =
      MHD_start_daemon(flags, c->port, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, addr,
                       MHD_OPTION_THREAD_POOL_SIZE, (unsigned)c->workers,
                       MHD_OPTION_CONNECTION_LIMIT, (unsigned)c->max_connections,
                       MHD_OPTION_CONNECTION_TIMEOUT, 0u, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                       (size_t)SERVE_CONNECTION_MEMORY, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
                       s, MHD_OPTION_NOTIFY_CONNECTION, serve_conn_notify, s, MHD_OPTION_END);
  if (!d) {
    set_error(s, "cannot listen on %s port %u: %s", c->listen, (unsigned)c->port, strerror(errno));
    return AP_ERR_IO;
  }
  s->daemon = d;
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  s->port = info ? info->port : c->port;
  return AP_OK;
}

void ap_server_stop(ap_server *s) {
  if (!s) return;
  pthread_mutex_lock(&s->lock);
  s->stopping = true;
  pthread_cond_signal(&s->wake);
  pthread_mutex_unlock(&s->lock);
}

ap_status ap_server_run(ap_server *s) {
  if (!s || !s->daemon) return AP_ERR_ARG;
  pthread_mutex_lock(&s->lock);
  while (!s->stopping) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += 1;
    pthread_cond_timedwait(&s->wake, &s->lock, &t);
    pthread_mutex_unlock(&s->lock);
    ap_pool_collect(s->pool); /* idle unloads even with no traffic */
    uint64_t ms = s->cfg->connection_timeout_ms;
    serve_conns_sweep(s, serve_now_us(), ms > UINT64_MAX / 1000u ? UINT64_MAX : ms * 1000u);
    pthread_mutex_lock(&s->lock);
  }
  s->draining = true;
  pthread_mutex_unlock(&s->lock);
  /* Stop accepting; requests in flight finish (up to drain_timeout), then the workers stop.
   * The listening socket is ours once quiesced, but the workers may still be letting go of
   * it: it is closed only after they have stopped (libmicrohttpd's rule). */
  MHD_socket fd = MHD_quiesce_daemon(s->daemon);
  uint64_t until = serve_now_us() + s->cfg->drain_timeout_ms * 1000u;
  while (atomic_load(&s->in_flight) && serve_now_us() < until) {
    struct timespec nap = {0, 10 * 1000 * 1000};
    nanosleep(&nap, NULL);
  }
  MHD_stop_daemon(s->daemon);
  s->daemon = NULL;
  if (fd != MHD_INVALID_SOCKET) close(fd);
  return AP_OK;
}

static bool same_text(const char *a, const char *b) {
  return a == b || (a && b && !strcmp(a, b));
}

/* Whether a reload may keep a model as it is: the same file and the same options. */
static bool same_model(const ap_serve_model_config *a, const ap_serve_model_config *b) {
  return same_text(a->path, b->path) && same_text(a->strategy, b->strategy) &&
         a->threads == b->threads && a->pinned == b->pinned && a->idle_ms == b->idle_ms &&
         a->warmup == b->warmup && a->inplace == b->inplace && a->stream == b->stream &&
         a->kernels == b->kernels && a->prepare == b->prepare;
}

ap_status ap_server_reload(ap_server *s, const ap_serve_config *c) {
  if (!s || !c) return AP_ERR_ARG;
  ap_status result = AP_OK;
  /* Removed, or changed: unknown to requests from now on (a changed one is registered again
   * below with its new options); the pool unloads them when idle. Only reload writes
   * `removed` and the models array grows only here and in create. */
  pthread_mutex_lock(&s->lock);
  size_t n = s->model_count;
  pthread_mutex_unlock(&s->lock);
  for (size_t i = 0; i < n; i++) {
    serve_model *m = s->models[i];
    if (m->removed) continue;
    const ap_serve_model_config *keep = NULL;
    for (size_t j = 0; j < c->model_count && !keep; j++)
      if (!strcmp(c->models[j].name, m->name) && same_model(&c->models[j], m->cfg))
        keep = &c->models[j];
    pthread_mutex_lock(&s->lock);
    if (keep)
      m->cfg = keep;
    else
      m->removed = true;
    pthread_mutex_unlock(&s->lock);
    if (!keep) serve_pool_remove(s->pool, m->name);
  }
  for (size_t j = 0; j < c->model_count; j++) {
    if (serve_find(s, c->models[j].name)) continue;
    ap_status st = add_model(s, c, &c->models[j]);
    if (st != AP_OK && result == AP_OK) result = st;
  }
  return result; /* server-wide settings keep their first values (serve.h) */
}

ap_status ap_server_overhead(const ap_server *s, ap_serve_overhead *out) {
  if (!s || !out) return AP_ERR_ARG;
  *out = s->overhead;
  return AP_OK;
}

void ap_server_destroy(ap_server *s) {
  if (!s) return;
  if (s->daemon) MHD_stop_daemon(s->daemon);
  ap_pool_destroy(s->pool);
  for (size_t i = 0; i < s->model_count; i++)
    serve_model_free(s->models[i]);
  free(s->models);
  pthread_cond_destroy(&s->wake);
  pthread_mutex_destroy(&s->lock);
  serve_conns_destroy(&s->conns);
  free(s);
}
