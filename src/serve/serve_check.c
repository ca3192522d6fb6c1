/* What `arenaplan serve --check` needs: each model's cost measured as the server counts it,
 * and the server's own overhead, before anything listens. */
#include "serve_internal.h"

#include <stdio.h>
#include <string.h>

ap_status ap_serve_overhead_estimate(const ap_serve_config *c, ap_serve_overhead *out) {
  if (!c || !out) return AP_ERR_ARG;
  uint64_t rss, hwm;
  serve_process_memory(&rss, &hwm);
  out->base_rss = rss;
  out->per_connection = SERVE_CONNECTION_MEMORY;
  out->connections = c->max_connections;
  out->bodies = (uint64_t)c->workers * c->max_body * SERVE_BODY_FACTOR;
  out->total = rss + out->per_connection * out->connections + out->bodies;
  return AP_OK;
}

size_t ap_serve_model_threads(const ap_serve_config *c, size_t i) {
  if (!c || i >= c->model_count) return 0;
  ap_pool_options o = ap_serve_pool_options(c);
  return c->models[i].threads ? c->models[i].threads : o.max_interpreters;
}

ap_status ap_serve_measure(const ap_serve_config *c, ap_pool_cost *costs, char *err,
                           size_t err_size) {
  if (err && err_size) err[0] = '\0';
  if (!c || !costs) return AP_ERR_ARG;
  ap_pool_options o = ap_serve_pool_options(c);
  o.budget_bytes = UINT64_MAX / 4; /* measure every model, whatever the budget */
  ap_pool *p = NULL;
  ap_status st = ap_pool_create(&o, &p);
  if (st != AP_OK) {
    if (err) snprintf(err, err_size, "%s", p ? ap_pool_error(p) : "out of memory");
    ap_pool_destroy(p);
    return st;
  }
  for (size_t i = 0; i < c->model_count && st == AP_OK; i++) {
    const ap_serve_model_config *m = &c->models[i];
    st = serve_pool_add(p, c, m);
    if (st == AP_OK) st = ap_pool_cost_of(p, m->name, &costs[i]);
    if (st != AP_OK && err)
      snprintf(err, err_size, "%s:%d: model %s: %s", c->path, m->line, m->name, ap_pool_error(p));
  }
  ap_pool_destroy(p);
  return st;
}
