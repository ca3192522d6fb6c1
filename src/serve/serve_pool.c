/* The configuration's models as the pool's: per-model options, explicit residency, states. */
#include "serve_internal.h"

#include <string.h>

ap_pool_options ap_serve_pool_options(const ap_serve_config *c) {
  ap_pool_options o = ap_pool_defaults();
  o.budget_bytes = c ? c->budget_bytes : 0;
  o.idle_ms = c ? c->idle_ms : o.idle_ms;
  return o;
}

ap_status serve_pool_add(ap_pool *p, const ap_serve_config *c, const ap_serve_model_config *m) {
  (void)c;
  ap_pool_model_options o = ap_pool_model_defaults();
  o.idle_ms = m->idle_ms;
  o.pinned = m->pinned;
  o.max_interpreters = m->threads;
  o.warmup = m->warmup;
  o.strategy = m->strategy;
  o.kernels = m->kernels;
  o.inplace = m->inplace;
  o.stream = m->stream;
  o.prepare = m->prepare;
  return ap_pool_add_with(p, m->name, m->path, &o);
}

ap_status serve_pool_load(ap_pool *p, const char *name, uint64_t timeout_ms) {
  return ap_pool_load(p, name, timeout_ms);
}

ap_status serve_pool_unload(ap_pool *p, const char *name) {
  return ap_pool_unload(p, name);
}

ap_status serve_pool_remove(ap_pool *p, const char *name) {
  return ap_pool_remove(p, name);
}

bool serve_pool_info(ap_pool *p, const char *name, ap_pool_model_info *out) {
  size_t n = ap_pool_model_count(p);
  for (size_t i = 0; i < n; i++)
    if (ap_pool_model(p, i, out) == AP_OK && !strcmp(out->name, name)) return true;
  memset(out, 0, sizeof *out);
  out->state = AP_POOL_UNLOADED;
  return false;
}
