/* arenaplan serve: the models of a YAML configuration over HTTP (KServe v2), under a byte
 * budget; --check prints what each model costs and what the budget allows, before listening. */
#include "commands.h"

#include <string.h>

static int run(int argc, char **argv);

const ap_command cmd_serve = {
    "serve", "serve models over HTTP (KServe v2 protocol) under a memory budget", run,
    "usage: arenaplan serve [options] CONFIG.yaml\n"
    "  --check              print each model's exact cost (weights, per interpreter, resident)\n"
    "                       and what the budget allows together; exit 1 if a model can never\n"
    "                       fit; nothing listens\n"
    "  --json               with --check: machine-readable output\n"
    "\n"
    "CONFIG (YAML; model paths relative to its folder; sizes 64K, 1.5M, 2G; durations 500ms,\n"
    "30s, 2m):\n"
    "  listen: 127.0.0.1        address to bind (default 127.0.0.1)\n"
    "  port: 8000               0: an ephemeral port (default 0); the bound one is printed:\n"
    "                           \"arenaplan serve: listening on http://ADDR:PORT\"\n"
    "  budget: 64M              bytes for all resident models, or a percentage of the smaller\n"
    "                           of physical memory and the cgroup limit (default 80%)\n"
    "  max_body: 1M             larger request bodies get 413 (default 1M)\n"
    "  request_timeout: 5s      how long an inference waits for room, then 503 (default 5s)\n"
    "  connection_timeout: 30s  idle connections are closed (default 30s)\n"
    "  drain_timeout: 10s       SIGTERM: in-flight requests get this long (default 10s)\n"
    "  idle_timeout: 60s        unload models idle this long (default 60s; never)\n"
    "  workers: 4               HTTP worker threads (default 4)\n"
    "  max_connections: 256     (default 256)\n"
    "  models:\n"
    "    - name: classifier     the URL name: /v2/models/classifier/infer\n"
    "      model: mobilenet.tflite\n"
    "      threads: 2           interpreters that may run at once (default 4)\n"
    "      pinned: false        loaded at start, never unloaded (default false)\n"
    "      idle_timeout: 30s    (default: the server's)\n"
    "      warmup: 1            invokes before a new interpreter serves (default 0)\n"
    "      inplace: false       stream: false   kernels: fast|reference|small\n"
    "      prepare: each|once   strategy: best\n"
    "\n"
    "Endpoints: GET /v2/health/live, /v2/health/ready, /v2, /v2/models/NAME,\n"
    "/v2/models/NAME/ready, /metrics; POST /v2/models/NAME/infer (JSON or binary tensors),\n"
    "/v2/repository/index, /v2/repository/models/NAME/load, .../unload.\n"
    "Signals: SIGTERM or SIGINT drains and exits 0; SIGHUP re-reads CONFIG's models.\n"
    "exit status: 0 served until SIGTERM, or all models can fit; 1 a model can never fit in\n"
    "the budget (the server does not start); 2 bad usage, a malformed configuration, an unreadable "
    "model, a build without\n"
    "the server\n"
    "\n"
    "example:\n"
    "  arenaplan serve --check serve.yaml\n"};

#ifndef AP_HAVE_SERVE

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_serve, argc, argv)) return AP_EXIT_OK;
  return cli_fail("serve", "this build has no server (configure with -DAP_SERVE=ON; it needs "
                           "libmicrohttpd-dev, libjansson-dev and libyaml-dev)");
}

#else

#include "arenaplan/serve.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

static void print_size_json(FILE *f, const char *key, uint64_t v, bool comma) {
  fprintf(f, "\"%s\": %llu%s", key, (unsigned long long)v, comma ? ", " : "");
}

typedef struct check_row {
  ap_pool_cost cost;
  uint64_t max_bytes;
  size_t threads;
  bool fits_alone;
} check_row;

static int check(const ap_serve_config *c, bool json) {
  char err[600];
  ap_pool_cost *costs = calloc(c->model_count, sizeof *costs);
  check_row *rows = calloc(c->model_count, sizeof *rows);
  if (!costs || !rows) {
    free(costs);
    free(rows);
    return cli_fail("serve", "out of memory");
  }
  if (ap_serve_measure(c, costs, err, sizeof err) != AP_OK) {
    free(costs);
    free(rows);
    fprintf(stderr, "arenaplan: %s\n", err);
    return AP_EXIT_USAGE;
  }
  uint64_t pinned = 0, all = 0, all_max = 0;
  size_t never = 0;
  for (size_t i = 0; i < c->model_count; i++) {
    check_row *r = &rows[i];
    r->cost = costs[i];
    r->threads = ap_serve_model_threads(c, i);
    r->max_bytes = r->cost.weights + r->cost.handle + r->threads * r->cost.interpreter;
    if (c->models[i].pinned) pinned += r->cost.resident;
    all += r->cost.resident;
    all_max += r->max_bytes;
  }
  /* A model can never be served when it does not fit beside the pinned models (pinned ones
   * are never unloaded), or alone. */
  for (size_t i = 0; i < c->model_count; i++) {
    uint64_t others = pinned - (c->models[i].pinned ? rows[i].cost.resident : 0);
    rows[i].fits_alone =
        others <= c->budget_bytes && rows[i].cost.resident <= c->budget_bytes - others;
    if (!rows[i].fits_alone) never++;
  }
  ap_serve_overhead ov;
  ap_serve_overhead_estimate(c, &ov);
  char a[64], b[64], d[64], e[64];
  if (json) {
    printf("{\"config\": ");
    cli_json_string(stdout, c->path);
    printf(", ");
    print_size_json(stdout, "budget", c->budget_bytes, true);
    printf("\"budget_percent\": %g, \"models\": [", c->budget_percent);
    for (size_t i = 0; i < c->model_count; i++) {
      const check_row *r = &rows[i];
      printf("%s{\"name\": ", i ? ", " : "");
      cli_json_string(stdout, c->models[i].name);
      printf(", \"path\": ");
      cli_json_string(stdout, c->models[i].path);
      printf(", ");
      print_size_json(stdout, "weights", r->cost.weights, true);
      print_size_json(stdout, "handle", r->cost.handle, true);
      print_size_json(stdout, "interpreter", r->cost.interpreter, true);
      print_size_json(stdout, "resident", r->cost.resident, true);
      printf("\"threads\": %zu, ", r->threads);
      print_size_json(stdout, "max", r->max_bytes, true);
      printf("\"pinned\": %s, \"fits\": %s}", c->models[i].pinned ? "true" : "false",
             r->fits_alone ? "true" : "false");
    }
    printf("], ");
    print_size_json(stdout, "all_resident", all, true);
    print_size_json(stdout, "all_max", all_max, true);
    print_size_json(stdout, "pinned", pinned, true);
    printf("\"all_fit_at_once\": %s, \"never_fit\": %zu, \"overhead\": {",
           all <= c->budget_bytes ? "true" : "false", never);
    print_size_json(stdout, "base_rss", ov.base_rss, true);
    print_size_json(stdout, "per_connection", ov.per_connection, true);
    print_size_json(stdout, "connections", ov.connections, true);
    print_size_json(stdout, "bodies", ov.bodies, true);
    print_size_json(stdout, "total", ov.total, false);
    printf("}}\n");
  } else {
    printf("%s: budget %s", c->path, cli_size(a, sizeof a, c->budget_bytes));
    if (c->budget_percent > 0) printf(" (%g%% of the machine's memory)", c->budget_percent);
    printf("\n\n%-20s %14s %12s %14s %14s %7s  %s\n", "model", "weights", "per interp.", "resident",
           "max", "threads", "verdict");
    for (size_t i = 0; i < c->model_count; i++) {
      const check_row *r = &rows[i];
      printf("%-20s %14s %12s %14s %14s %7zu  %s%s\n", c->models[i].name,
             cli_thousands(a, sizeof a, r->cost.weights + r->cost.handle),
             cli_thousands(b, sizeof b, r->cost.interpreter),
             cli_thousands(d, sizeof d, r->cost.resident), cli_thousands(e, sizeof e, r->max_bytes),
             r->threads, r->fits_alone ? "fits" : "NEVER FITS",
             c->models[i].pinned ? " (pinned)" : "");
    }
    printf("\n(weights: the file mapped once plus the model handle; resident: weights and one\n"
           "interpreter; max: weights and `threads` interpreters)\n\n");
    printf("all resident at once: %s with one interpreter each, %s with all\n",
           cli_size(a, sizeof a, all), cli_size(b, sizeof b, all_max));
    if (all_max <= c->budget_bytes)
      printf("policy: everything fits at once, interpreters included; nothing is evicted\n");
    else if (all <= c->budget_bytes)
      printf("policy: every model fits resident at once; at full concurrency idle\n"
             "interpreters and idle models make room (least recently used first)\n");
    else
      printf("policy: not all fit at once (%s over): models load on demand and the least\n"
             "recently used idle ones are unloaded to make room; a request waits up to %llu ms\n"
             "for room, then gets 503 with Retry-After\n",
             cli_size(a, sizeof a, all - c->budget_bytes),
             (unsigned long long)c->request_timeout_ms);
    if (pinned) printf("pinned (always resident): %s\n", cli_size(a, sizeof a, pinned));
    for (size_t i = 0; i < c->model_count; i++)
      if (!rows[i].fits_alone)
        printf("%s:%d: model %s can never fit: needs %s, budget %s%s\n", c->path, c->models[i].line,
               c->models[i].name, cli_size(a, sizeof a, rows[i].cost.resident),
               cli_size(b, sizeof b, c->budget_bytes), pinned ? " beside the pinned models" : "");
    char f[64];
    printf("server overhead (beside the budget): %s = base %s + %llu connections x %s + "
           "%u workers x %s decoding bodies (max_body %s; a JSON body's parse up to 21x)\n",
           cli_size(a, sizeof a, ov.total), cli_size(b, sizeof b, ov.base_rss),
           (unsigned long long)ov.connections, cli_size(d, sizeof d, ov.per_connection), c->workers,
           cli_size(e, sizeof e, ov.bodies / (c->workers ? c->workers : 1)),
           cli_size(f, sizeof f, c->max_body));
  }
  free(costs);
  free(rows);
  return never ? AP_EXIT_CHECK : AP_EXIT_OK;
}

/* Signals go to one thread that waits for them (blocked everywhere else), so stopping and
 * reloading run as ordinary code, not in a handler. */
typedef struct sig_ctx {
  ap_server *server;
  const char *path;
  ap_serve_config **configs; /* every configuration read: the server points into them */
  size_t count, cap;
  sigset_t set;
} sig_ctx;

static void *signal_thread(void *arg) {
  sig_ctx *x = arg;
  for (;;) {
    int sig = 0;
    if (sigwait(&x->set, &sig) != 0) continue;
    if (sig == SIGHUP) {
      char err[600];
      ap_serve_config *c = NULL;
      if (ap_serve_config_load(x->path, &c, err, sizeof err) != AP_OK) {
        fprintf(stderr, "arenaplan: serve: SIGHUP: %s (configuration kept)\n", err);
        continue;
      }
      if (x->count == x->cap) {
        size_t cap = x->cap * 2;
        ap_serve_config **cs = realloc(x->configs, cap * sizeof *cs);
        if (!cs) {
          ap_serve_config_free(c);
          fprintf(stderr, "arenaplan: serve: SIGHUP: out of memory\n");
          continue;
        }
        x->configs = cs;
        x->cap = cap;
      }
      x->configs[x->count++] = c;
      if (ap_server_reload(x->server, c) != AP_OK)
        fprintf(stderr, "arenaplan: serve: SIGHUP: %s\n", ap_server_error(x->server));
      else
        fprintf(stderr, "arenaplan serve: reloaded %s (%zu models)\n", x->path, c->model_count);
      continue;
    }
    fprintf(stderr, "arenaplan serve: %s: draining\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    ap_server_stop(x->server);
    return NULL;
  }
}

static int serve(ap_serve_config *c, const char *path) {
  sig_ctx x = {.path = path, .cap = 4};
  x.configs = calloc(x.cap, sizeof *x.configs);
  if (!x.configs) return cli_fail("serve", "out of memory");
  x.configs[x.count++] = c;
  sigemptyset(&x.set);
  sigaddset(&x.set, SIGTERM);
  sigaddset(&x.set, SIGINT);
  sigaddset(&x.set, SIGHUP);
  /* Before any thread starts, so every thread (the HTTP workers too) inherits the mask. */
  pthread_sigmask(SIG_BLOCK, &x.set, NULL);
  signal(SIGPIPE, SIG_IGN);
  int rc = AP_EXIT_OK;
  ap_server *s = NULL;
  ap_status st = ap_server_create(c, &s);
  if (st == AP_OK) st = ap_server_start(s);
  if (st != AP_OK) {
    /* Messages about the configuration start with its path, like every "arenaplan: FILE: ". */
    const char *msg = s ? ap_server_error(s) : "out of memory";
    size_t n = strlen(c->path);
    fprintf(stderr, "arenaplan: %s%s\n", strncmp(msg, c->path, n) || msg[n] != ':' ? "serve: " : "",
            msg);
    rc = st == AP_ERR_BUDGET ? AP_EXIT_CHECK : AP_EXIT_USAGE; /* a model that can never fit */
  } else {
    char a[64];
    printf("arenaplan serve: listening on http://%s:%u (%zu models, budget %s)\n", c->listen,
           (unsigned)ap_server_port(s), c->model_count, cli_size(a, sizeof a, c->budget_bytes));
    fflush(stdout);
    x.server = s;
    pthread_t t;
    if (pthread_create(&t, NULL, signal_thread, &x) != 0) {
      rc = cli_fail("serve", "cannot start the signal thread");
    } else {
      ap_server_run(s);
      pthread_join(t, NULL);
      printf("arenaplan serve: stopped\n");
    }
  }
  ap_server_destroy(s);
  for (size_t i = 0; i < x.count; i++)
    ap_serve_config_free(x.configs[i]);
  free(x.configs);
  return rc;
}

static int run(int argc, char **argv) {
  if (cli_wants_help(&cmd_serve, argc, argv)) return AP_EXIT_OK;
  const char *path = NULL;
  bool check_only = false, json = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--check"))
      check_only = true;
    else if (!strcmp(argv[i], "--json"))
      json = true;
    else if (argv[i][0] == '-' && argv[i][1])
      return cli_usage_error(&cmd_serve, "unknown option %s", argv[i]);
    else if (!path)
      path = argv[i];
    else
      return cli_usage_error(&cmd_serve, "one configuration at a time (got \"%s\" too)", argv[i]);
  }
  if (!path) return cli_usage_error(&cmd_serve, "no configuration given");
  if (json && !check_only) return cli_usage_error(&cmd_serve, "--json goes with --check");
  char err[600];
  ap_serve_config *c = NULL;
  if (ap_serve_config_load(path, &c, err, sizeof err) != AP_OK) {
    fprintf(stderr, "arenaplan: %s\n", err);
    return AP_EXIT_USAGE;
  }
  if (check_only) {
    int rc = check(c, json);
    ap_serve_config_free(c);
    return rc;
  }
  return serve(c, path);
}

#endif
