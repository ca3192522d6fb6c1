/* The server's pieces, shared between the files of src/serve/. */
#ifndef AP_SERVE_INTERNAL_H
#define AP_SERVE_INTERNAL_H

#include "arenaplan/serve.h"
#include "v2_codec.h"

#include <pthread.h>
#include <stdatomic.h>

/* libmicrohttpd's per-connection buffer (request line, headers, response headers): its
 * default, set explicitly so the overhead is a number we chose. */
#define SERVE_CONNECTION_MEMORY (32u * 1024u)

/* A request body being decoded holds, at worst, the body, jansson's tree of it and the decoded
 * tensors: measured 16 bytes of tree per byte of JSON for "[0,0,0,...]" (a 24-byte value and
 * an 8-byte slot per 2 bytes of text), plus up to 4 bytes of INT64 per such byte, plus the
 * body: 21 x max_body per worker. Binary tensors take the body alone. */
#define SERVE_BODY_FACTOR 21u

/* Reads a whole file of at most max bytes (NUL-terminated; *len without it). */
ap_status serve_read_file(const char *path, size_t max, char **text, size_t *len, char *err,
                          size_t err_size);
/* The process's resident set now and at its peak (VmRSS, VmHWM), in bytes; 0 when unknown. */
void serve_process_memory(uint64_t *rss, uint64_t *hwm);
uint64_t serve_now_us(void);

/* Latency histogram buckets, in seconds (Prometheus `le`), +Inf beyond the last. */
#define SERVE_BUCKETS 14
extern const double serve_bucket_le[SERVE_BUCKETS];

typedef struct serve_model {
  char *name;
  const ap_serve_model_config *cfg;
  v2_tensor_sig *inputs, *outputs;
  size_t input_count, output_count;
  char *names; /* the tensors' names, one block */
  ap_pool_cost cost;
  bool removed; /* by a reload: unknown to requests from now on (kept until destroy) */
  /* Metrics, under the server's lock. */
  uint64_t requests_ok, requests_failed, rejected_busy;
  uint64_t latency_count[SERVE_BUCKETS + 1];
  double latency_sum;
} serve_model;

/* Probes a model's tensors (an interpreter made and freed: the shapes kernels compute at
 * allocate, as the SSD's post-processing outputs need). */
ap_status serve_model_probe(serve_model *m, const ap_serve_model_config *cfg, char *err,
                            size_t err_size);
void serve_model_free(serve_model *m);

/* The pool calls the server makes that depend on the pool's model options and explicit
 * residency (pool_api.md); one place to wire them. */
ap_status serve_pool_add(ap_pool *p, const ap_serve_config *c, const ap_serve_model_config *m);
ap_status serve_pool_load(ap_pool *p, const char *name, uint64_t timeout_ms);
ap_status serve_pool_unload(ap_pool *p, const char *name);
ap_status serve_pool_remove(ap_pool *p, const char *name);
/* A registered model's pool record (false, and state unloaded, when the pool has none). */
bool serve_pool_info(ap_pool *p, const char *name, ap_pool_model_info *out);

/* Connections and how long their current request has taken to arrive (slow_clients.c). */
/* One libmicrohttpd worker thread: the time it has spent in request handlers, during which
 * its other connections cannot be read (slow_clients.c). */
typedef struct serve_worker {
  pthread_t thread;
  uint64_t busy_us;       /* handlers finished */
  uint64_t busy_since_us; /* the running handler's start (depth > 0) */
  unsigned depth;
} serve_worker;

#define SERVE_MAX_WORKERS 256 /* the configuration's limit on workers */

typedef struct serve_conns {
  pthread_mutex_t mu;
  struct serve_conn *head;
  uint64_t dropped; /* connections cut for not delivering a request in time */
  serve_worker workers[SERVE_MAX_WORKERS];
  size_t worker_count;
} serve_conns;

struct ap_server {
  const ap_serve_config *cfg;
  ap_pool *pool;
  pthread_mutex_t lock; /* models, metrics, stop */
  pthread_cond_t wake;
  serve_model **models;
  size_t model_count, model_cap;
  void *daemon; /* struct MHD_Daemon */
  uint16_t port;
  bool stopping, draining;
  atomic_size_t in_flight; /* every request being handled (the drain waits for 0) */
  atomic_size_t inferring; /* inference requests among them (/metrics) */
  ap_serve_overhead overhead;
  uint64_t http_by_class[6]; /* 1xx..5xx by first digit */
  uint64_t rejected_too_large;
  serve_conns conns;
  char err[512];
};

serve_model *serve_find(ap_server *s, const char *name);
/* The Prometheus text of /metrics. */
bool serve_metrics(ap_server *s, v2_buf *out);
void serve_record(ap_server *s, serve_model *m, int status, double seconds);

/* One HTTP request's answer: status, body, and the extra headers a v2 answer may need. */
typedef struct serve_reply {
  int status;
  v2_buf body;
  const char *content_type;
  size_t header_len; /* Inference-Header-Content-Length when > 0 */
  bool retry_after;
} serve_reply;
void serve_reply_error(serve_reply *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Routes one request (url already split from the query; body complete). */
void serve_route(ap_server *s, const char *method, const char *url, const uint8_t *body, size_t len,
                 const char *header_len, serve_reply *r);

#endif
