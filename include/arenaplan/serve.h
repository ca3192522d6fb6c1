/* arenaplan serve: the models of a pool served over HTTP with the Open Inference Protocol
 * (KServe v2: JSON and binary tensors, health, metadata, the model repository extension) and
 * Prometheus metrics, under the pool's byte budget. An optional part of the build (AP_SERVE):
 * libarenaplan never links HTTP, JSON or YAML; this library (arenaplan_serve) does.
 *
 *   ap_serve_config *c;
 *   char err[512];
 *   if (ap_serve_config_load("serve.yaml", &c, err, sizeof err) != AP_OK) { puts(err); ... }
 *   ap_server *s;
 *   if (ap_server_create(c, &s) != AP_OK) { puts(ap_server_error(s)); ... }  // costs measured
 *   if (ap_server_start(s) != AP_OK) ...      // listening; ap_server_port(s) is the port
 *   ap_server_run(s);                         // until ap_server_stop(s) from another thread
 *   ap_server_destroy(s);
 *   ap_serve_config_free(c);
 *
 * Requests. Each inference acquires an interpreter of its own from the pool (loading the model
 * when needed, making room by unloading idle models), copies the inputs in, invokes, encodes the
 * outputs and releases it: two requests never share an interpreter. When the model cannot be
 * made resident within request_timeout the answer is 503 with Retry-After.
 *
 * Memory. The pool's budget bounds the models' bytes; the server's own fixed overhead (the
 * process with no model loaded, plus libmicrohttpd's per-connection buffers at the connection
 * limit, plus request bodies being decoded, per worker) is measured and reported beside it
 * (ap_server_overhead, /metrics, `arenaplan serve --check`).
 */
#ifndef ARENAPLAN_SERVE_H
#define ARENAPLAN_SERVE_H

#include "arenaplan/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One model of the configuration (a `models:` entry). */
typedef struct ap_serve_model_config {
  char *name;       /* 1 to 255 of [A-Za-z0-9._-], not starting with '.' */
  char *path;       /* the `model:` path, resolved against the configuration's folder */
  size_t threads;   /* interpreters that may run at once (0: the pool's default, 4) */
  bool pinned;      /* never unloaded to make room or for idleness */
  uint64_t idle_ms; /* 0: the server's idle_timeout; AP_POOL_NEVER: never */
  unsigned warmup;  /* invokes on zeroed inputs before a new interpreter serves */
  bool inplace, stream;
  int kernels;    /* AP_KERNELS_*, -1: the server's default (fast) */
  int prepare;    /* AP_PREPARE_* */
  char *strategy; /* NULL: "best" */
  int line;       /* where the entry starts in the file (1-based) */
} ap_serve_model_config;

typedef struct ap_serve_config {
  char *path;                     /* the file it was read from ("" when parsed from text) */
  char *listen;                   /* address to bind, default "127.0.0.1" */
  uint16_t port;                  /* 0: an ephemeral port (printed on start) */
  uint64_t budget_bytes;          /* resolved: a size, or a percentage of the machine's memory */
  double budget_percent;          /* > 0 when `budget` was a percentage (or the default 80 %) */
  uint64_t max_body;              /* largest request body, default 1 MiB */
  uint64_t request_timeout_ms;    /* how long an inference waits for room, default 5 s */
  uint64_t connection_timeout_ms; /* idle connections closed after, default 30 s */
  uint64_t drain_timeout_ms;      /* SIGTERM: in-flight requests get this long, default 10 s */
  uint64_t idle_ms;               /* models idle this long are unloaded, default 60 s */
  unsigned workers;               /* HTTP worker threads, default 4 */
  unsigned max_connections;       /* default 256 */
  ap_serve_model_config *models;
  size_t model_count;
} ap_serve_config;

/* Reads a YAML configuration. Strict: an unknown key, a value of the wrong type or range, a
 * duplicate key or model name is an error naming the file and line ("serve.yaml:7: ...");
 * AP_ERR_IO for an unreadable file, AP_ERR_FORMAT for the rest. A percentage budget is
 * resolved against ap_pool_machine_memory() (the smaller of physical memory and the cgroup
 * limit). On failure *out is NULL. */
ap_status ap_serve_config_load(const char *path, ap_serve_config **out, char *err, size_t err_size);
/* The same from text in memory; relative model paths are taken against dir (NULL: as
 * written, from the current folder), `name` names the text in messages. */
ap_status ap_serve_config_parse(const char *text, size_t len, const char *name, const char *dir,
                                ap_serve_config **out, char *err, size_t err_size);
void ap_serve_config_free(ap_serve_config *c);

/* The pool options a configuration implies (budget, idle time): what the server uses. */
ap_pool_options ap_serve_pool_options(const ap_serve_config *c);

/* The server's own memory beside the pool's: measured, not guessed. */
typedef struct ap_serve_overhead {
  uint64_t base_rss;       /* VmRSS of the process when the server started, no model loaded */
  uint64_t per_connection; /* libmicrohttpd's buffer per connection (its memory limit) */
  uint64_t connections;    /* the connection limit */
  uint64_t bodies;         /* request bodies held at once: workers x max_body */
  uint64_t total;          /* base_rss + per_connection x connections + bodies */
} ap_serve_overhead;

/* What the overhead will be for c, measured in this process now (base_rss: its VmRSS). */
ap_status ap_serve_overhead_estimate(const ap_serve_config *c, ap_serve_overhead *out);

/* Each model's exact cost as the server will count it, measured without a budget (a probe
 * interpreter per model, nothing left loaded): costs has c->model_count entries. On failure
 * err names the file, line and model. */
ap_status ap_serve_measure(const ap_serve_config *c, ap_pool_cost *costs, char *err,
                           size_t err_size);
/* The interpreters a model may have at once (its threads, else the pool's default). */
size_t ap_serve_model_threads(const ap_serve_config *c, size_t i);

typedef struct ap_server ap_server;

/* Registers every model of c with a new pool (each model's cost measured; only the pinned
 * ones loaded).
 * On failure *out is still a server whose message says why (NULL only when memory ran out);
 * destroy it. c must outlive the server (or until ap_server_reload replaces it). */
ap_status ap_server_create(const ap_serve_config *c, ap_server **out);
/* Binds and starts the HTTP workers. AP_ERR_IO when the address cannot be bound. */
ap_status ap_server_start(ap_server *s);
/* The bound port (the ephemeral one when the configuration said 0); 0 before start. */
uint16_t ap_server_port(const ap_server *s);
/* Runs the housekeeping (idle unloads) until ap_server_stop; then stops accepting, lets
 * in-flight requests finish (up to drain_timeout), stops the workers and returns
 * (ap_server_destroy then unloads the models). */
ap_status ap_server_run(ap_server *s);
/* Asks run to return. Safe from any thread (not from a signal handler: use a thread that
 * waits for signals, as `arenaplan serve` does). */
void ap_server_stop(ap_server *s);
/* Applies a new configuration's models: added ones registered, removed ones removed (unloaded
 * when idle), changed ones (file or options) removed and registered again with the new ones.
 * Server-wide settings (listen, port, budget, workers) keep their first values. c must then outlive
 * the server. */
ap_status ap_server_reload(ap_server *s, const ap_serve_config *c);
ap_status ap_server_overhead(const ap_server *s, ap_serve_overhead *out);
/* The pool behind the server (its stats and models). */
ap_pool *ap_server_pool(ap_server *s);
const char *ap_server_error(const ap_server *s);
/* Every acquired interpreter must be released (run has returned). NULL is harmless. */
void ap_server_destroy(ap_server *s);

#ifdef __cplusplus
}
#endif
#endif
