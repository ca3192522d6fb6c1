/* The pool calls that depend on per-model options and explicit residency (the pool API of
 * issue 26): the only file that changes when the pool gains them. */
#include "serve_internal.h"

#include <string.h>

ap_pool_options ap_serve_pool_options(const ap_serve_config *c) {
  ap_pool_options o = ap_pool_defaults();
  o.budget_bytes = c ? c->budget_bytes : 0;
  o.idle_ms = c ? c->idle_ms : o.idle_ms;
  /* Until the pool takes options per model, the largest `threads` and any `warmup` apply to
   * every model (the costs are per interpreter either way). */
  size_t most = 0;
  for (size_t i = 0; c && i < c->model_count; i++) {
    if (c->models[i].threads > most) most = c->models[i].threads;
    if (c->models[i].warmup) o.warm_up = true;
  }
  if (most) o.max_interpreters = most;
  return o;
}

ap_status serve_pool_add(ap_pool *p, const ap_serve_config *c, const ap_serve_model_config *m) {
  (void)c;
  return ap_pool_add(p, m->name, m->path);
}

ap_status serve_pool_load(ap_pool *p, const char *name, uint64_t timeout_ms) {
  ap_interpreter *it;
  ap_status st = ap_pool_acquire(p, name, timeout_ms, &it);
  if (st == AP_OK) st = ap_pool_release(p, it);
  return st;
}

ap_status serve_pool_unload(ap_pool *p, const char *name) {
  (void)p;
  (void)name;
  return AP_ERR_UNSUPPORTED;
}

ap_status serve_pool_remove(ap_pool *p, const char *name) {
  (void)p;
  (void)name;
  return AP_ERR_UNSUPPORTED;
}

const char *serve_pool_state(ap_pool *p, const char *name, bool *loaded) {
  *loaded = false;
  size_t n = ap_pool_model_count(p);
  for (size_t i = 0; i < n; i++) {
    ap_pool_model_info info;
    if (ap_pool_model(p, i, &info) != AP_OK || strcmp(info.name, name)) continue;
    *loaded = info.loaded;
    return !info.loaded ? "unloaded" : info.acquired ? "busy" : "ready";
  }
  return "unknown";
}
