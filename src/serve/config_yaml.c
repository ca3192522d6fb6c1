/* The server's YAML configuration, read with libyaml's document loader. Strict: every key is
 * known, every value checked, every error names the line. */
#include "serve_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct cfg_reader {
  yaml_document_t *doc;
  const char *name;
  char *err;
  size_t err_size;
} cfg_reader;

static ap_status fail(cfg_reader *r, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static ap_status fail(cfg_reader *r, const yaml_node_t *n, const char *fmt, ...) {
  if (!r->err || !r->err_size) return AP_ERR_FORMAT;
  int k =
      n ? snprintf(r->err, r->err_size, "%s:%lu: ", r->name, (unsigned long)n->start_mark.line + 1)
        : snprintf(r->err, r->err_size, "%s: ", r->name);
  if (k < 0 || (size_t)k >= r->err_size) return AP_ERR_FORMAT;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err + k, r->err_size - (size_t)k, fmt, ap);
  va_end(ap);
  return AP_ERR_FORMAT;
}

/* A scalar's text, or NULL (with the error) when the node is not a scalar. */
static const char *scalar(cfg_reader *r, const yaml_node_t *n, const char *key, ap_status *st) {
  if (n->type != YAML_SCALAR_NODE) {
    *st = fail(r, n, "%s: expected a single value", key);
    return NULL;
  }
  /* libyaml keeps scalars NUL-terminated; a NUL inside one would cut it short silently. */
  if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length) {
    *st = fail(r, n, "%s: NUL byte in the value", key);
    return NULL;
  }
  return (const char *)n->data.scalar.value;
}

static ap_status get_bool(cfg_reader *r, const yaml_node_t *n, const char *key, bool *out) {
  ap_status st = AP_OK;
  const char *v = scalar(r, n, key, &st);
  if (!v) return st;
  if (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on")) {
    *out = true;
  } else if (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off")) {
    *out = false;
  } else {
    return fail(r, n, "%s: \"%s\" is not true or false", key, v);
  }
  return AP_OK;
}

static ap_status get_uint(cfg_reader *r, const yaml_node_t *n, const char *key, uint64_t lo,
                          uint64_t hi, uint64_t *out) {
  ap_status st = AP_OK;
  const char *v = scalar(r, n, key, &st);
  if (!v) return st;
  errno = 0;
  char *end;
  unsigned long long x = isdigit((unsigned char)v[0]) ? strtoull(v, &end, 10) : 0;
  if (!isdigit((unsigned char)v[0]) || errno || *end || x < lo || x > hi)
    return fail(r, n, "%s: \"%s\" is not an integer from %llu to %llu", key, v,
                (unsigned long long)lo, (unsigned long long)hi);
  *out = x;
  return AP_OK;
}

static ap_status get_size(cfg_reader *r, const yaml_node_t *n, const char *key, uint64_t *out) {
  ap_status st = AP_OK;
  const char *v = scalar(r, n, key, &st);
  if (!v) return st;
  if (!ap_parse_size(v, out) || *out == 0)
    return fail(r, n, "%s: \"%s\" is not a size like 65536, 64K, 1.5M, 2G", key, v);
  return AP_OK;
}

/* "250ms", "30s", "2m", a bare number of seconds ("1.5"); "never" when allowed. */
static ap_status get_duration(cfg_reader *r, const yaml_node_t *n, const char *key,
                              bool allow_never, uint64_t *ms) {
  ap_status st = AP_OK;
  const char *v = scalar(r, n, key, &st);
  if (!v) return st;
  if (allow_never && !strcmp(v, "never")) {
    *ms = AP_POOL_NEVER;
    return AP_OK;
  }
  char *end;
  errno = 0;
  double x = (isdigit((unsigned char)v[0]) || v[0] == '.') ? strtod(v, &end) : -1;
  double unit = 1000;
  if (x >= 0 && !errno) {
    if (!strcmp(end, "ms"))
      unit = 1;
    else if (!strcmp(end, "s") || !*end)
      unit = 1000;
    else if (!strcmp(end, "m"))
      unit = 60000;
    else if (!strcmp(end, "h"))
      unit = 3600000;
    else
      x = -1;
  }
  if (x < 0 || errno || !isfinite(x) || x * unit > 1e12 || strchr(v, 'x') || strchr(v, 'X') ||
      strchr(v, 'e') || strchr(v, 'E'))
    return fail(r, n, "%s: \"%s\" is not a duration like 500ms, 30s, 2m%s", key, v,
                allow_never ? " or never" : "");
  *ms = (uint64_t)llround(x * unit);
  return AP_OK;
}

static ap_status get_string(cfg_reader *r, const yaml_node_t *n, const char *key, char **out) {
  ap_status st = AP_OK;
  const char *v = scalar(r, n, key, &st);
  if (!v) return st;
  if (!v[0]) return fail(r, n, "%s: empty", key);
  char *c = strdup(v);
  if (!c) return fail(r, n, "out of memory");
  free(*out);
  *out = c;
  return AP_OK;
}

static bool name_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 255 || s[0] == '.') return false;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)s[i]) && s[i] != '.' && s[i] != '_' && s[i] != '-') return false;
  return true;
}

/* Walks a mapping's pairs, refusing non-scalar keys and duplicates. */
typedef ap_status (*pair_fn)(cfg_reader *r, const char *key, yaml_node_t *value, void *ctx);
static ap_status each_pair(cfg_reader *r, yaml_node_t *map, const char *what, pair_fn fn,
                           void *ctx) {
  if (map->type != YAML_MAPPING_NODE) return fail(r, map, "%s: expected a mapping of keys", what);
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
    yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
    if (!k || !v) return fail(r, map, "%s: malformed mapping", what);
    ap_status st = AP_OK;
    const char *key = scalar(r, k, "key", &st);
    if (!key) return st;
    for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
      yaml_node_t *k2 = yaml_document_get_node(r->doc, q->key);
      if (k2 && k2->type == YAML_SCALAR_NODE && !strcmp((const char *)k2->data.scalar.value, key))
        return fail(r, k, "%s: duplicate key %s (first on line %lu)", what, key,
                    (unsigned long)k2->start_mark.line + 1);
    }
    if ((st = fn(r, key, v, ctx)) != AP_OK) return st;
  }
  return AP_OK;
}

typedef struct model_ctx {
  ap_serve_model_config *m;
  const char *dir;
} model_ctx;

static ap_status model_pair(cfg_reader *r, const char *key, yaml_node_t *v, void *ctx) {
  model_ctx *mc = ctx;
  ap_serve_model_config *m = mc->m;
  uint64_t u;
  ap_status st;
  if (!strcmp(key, "name")) {
    if ((st = get_string(r, v, key, &m->name)) != AP_OK) return st;
    if (!name_ok(m->name))
      return fail(r, v, "name: \"%s\": use 1 to 255 of A-Z a-z 0-9 . _ - (not starting with .)",
                  m->name);
    return AP_OK;
  }
  if (!strcmp(key, "model")) {
    char *rel = NULL;
    if ((st = get_string(r, v, key, &rel)) != AP_OK) return st;
    if (rel[0] == '/' || !mc->dir) {
      m->path = rel;
      return AP_OK;
    }
    size_t n = strlen(mc->dir) + strlen(rel) + 2;
    m->path = malloc(n);
    if (!m->path) {
      free(rel);
      return fail(r, v, "out of memory");
    }
    snprintf(m->path, n, "%s/%s", mc->dir, rel);
    free(rel);
    return AP_OK;
  }
  if (!strcmp(key, "threads")) {
    if ((st = get_uint(r, v, key, 1, 64, &u)) != AP_OK) return st;
    m->threads = (size_t)u;
    return AP_OK;
  }
  if (!strcmp(key, "pinned")) return get_bool(r, v, key, &m->pinned);
  if (!strcmp(key, "idle_timeout")) {
    if ((st = get_duration(r, v, key, true, &m->idle_ms)) != AP_OK) return st;
    if (m->idle_ms == 0) return fail(r, v, "idle_timeout: must be more than 0 (or never)");
    return AP_OK;
  }
  if (!strcmp(key, "warmup")) {
    if ((st = get_uint(r, v, key, 0, 1000, &u)) != AP_OK) return st;
    m->warmup = (unsigned)u;
    return AP_OK;
  }
  if (!strcmp(key, "inplace")) return get_bool(r, v, key, &m->inplace);
  if (!strcmp(key, "stream")) return get_bool(r, v, key, &m->stream);
  if (!strcmp(key, "strategy")) return get_string(r, v, key, &m->strategy);
  if (!strcmp(key, "kernels")) {
    const char *s = scalar(r, v, key, &st);
    if (!s) return st;
    if (!strcmp(s, "auto"))
      m->kernels = AP_KERNELS_AUTO;
    else if (!strcmp(s, "fast"))
      m->kernels = AP_KERNELS_FAST;
    else if (!strcmp(s, "reference"))
      m->kernels = AP_KERNELS_REFERENCE;
    else if (!strcmp(s, "small"))
      m->kernels = AP_KERNELS_SMALL;
    else
      return fail(r, v, "kernels: \"%s\" is not auto, fast, reference or small", s);
    return AP_OK;
  }
  if (!strcmp(key, "prepare")) {
    const char *s = scalar(r, v, key, &st);
    if (!s) return st;
    if (!strcmp(s, "each"))
      m->prepare = AP_PREPARE_EACH_INVOKE;
    else if (!strcmp(s, "once"))
      m->prepare = AP_PREPARE_ONCE;
    else
      return fail(r, v, "prepare: \"%s\" is not each or once", s);
    return AP_OK;
  }
  return fail(r, v,
              "unknown key \"%s\" in a model (name, model, threads, pinned, idle_timeout, "
              "warmup, inplace, stream, strategy, kernels, prepare)",
              key);
}

typedef struct top_ctx {
  ap_serve_config *c;
  const char *dir;
  bool has_budget;
  const yaml_node_t *budget_node;
} top_ctx;

static ap_status read_models(cfg_reader *r, yaml_node_t *seq, top_ctx *t) {
  if (seq->type != YAML_SEQUENCE_NODE)
    return fail(r, seq, "models: expected a list of models (- name: ...)");
  size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
  if (n == 0) return fail(r, seq, "models: the list is empty");
  if (t->c->models) return fail(r, seq, "models: given twice");
  t->c->models = calloc(n, sizeof *t->c->models);
  if (!t->c->models) return fail(r, seq, "out of memory");
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *item = yaml_document_get_node(r->doc, seq->data.sequence.items.start[i]);
    if (!item) return fail(r, seq, "models: malformed list");
    ap_serve_model_config *m = &t->c->models[i];
    t->c->model_count = i + 1;
    m->kernels = -1;
    m->line = (int)item->start_mark.line + 1;
    model_ctx mc = {m, t->dir};
    ap_status st = each_pair(r, item, "model", model_pair, &mc);
    if (st != AP_OK) return st;
    if (!m->name) return fail(r, item, "model: no name");
    if (!m->path) return fail(r, item, "model %s: no model (the .tflite file)", m->name);
    for (size_t j = 0; j < i; j++)
      if (!strcmp(t->c->models[j].name, m->name))
        return fail(r, item, "model %s: the name is already used on line %d", m->name,
                    t->c->models[j].line);
  }
  return AP_OK;
}

static ap_status top_pair(cfg_reader *r, const char *key, yaml_node_t *v, void *ctx) {
  top_ctx *t = ctx;
  ap_serve_config *c = t->c;
  uint64_t u;
  ap_status st;
  if (!strcmp(key, "listen")) return get_string(r, v, key, &c->listen);
  if (!strcmp(key, "port")) {
    if ((st = get_uint(r, v, key, 0, 65535, &u)) != AP_OK) return st;
    c->port = (uint16_t)u;
    return AP_OK;
  }
  if (!strcmp(key, "budget")) {
    const char *s = scalar(r, v, key, &st);
    if (!s) return st;
    size_t len = strlen(s);
    t->has_budget = true;
    t->budget_node = v;
    if (len > 1 && s[len - 1] == '%') {
      char *end;
      errno = 0;
      double p = isdigit((unsigned char)s[0]) ? strtod(s, &end) : -1;
      if (p <= 0 || p > 100 || errno || end != s + len - 1)
        return fail(r, v, "budget: \"%s\" is not a percentage from 0 to 100", s);
      c->budget_percent = p;
      return AP_OK;
    }
    c->budget_percent = 0;
    return get_size(r, v, key, &c->budget_bytes);
  }
  if (!strcmp(key, "max_body")) return get_size(r, v, key, &c->max_body);
  if (!strcmp(key, "request_timeout"))
    return get_duration(r, v, key, false, &c->request_timeout_ms);
  if (!strcmp(key, "connection_timeout")) {
    if ((st = get_duration(r, v, key, false, &c->connection_timeout_ms)) != AP_OK) return st;
    if (c->connection_timeout_ms < 1000)
      return fail(r, v, "connection_timeout: at least 1s (the server checks once a second)");
    return AP_OK;
  }
  if (!strcmp(key, "drain_timeout")) return get_duration(r, v, key, false, &c->drain_timeout_ms);
  if (!strcmp(key, "idle_timeout")) {
    if ((st = get_duration(r, v, key, true, &c->idle_ms)) != AP_OK) return st;
    if (c->idle_ms == 0) return fail(r, v, "idle_timeout: must be more than 0 (or never)");
    return AP_OK;
  }
  if (!strcmp(key, "workers")) {
    if ((st = get_uint(r, v, key, 1, SERVE_MAX_WORKERS, &u)) != AP_OK) return st;
    c->workers = (unsigned)u;
    return AP_OK;
  }
  if (!strcmp(key, "max_connections")) {
    if ((st = get_uint(r, v, key, 1, 65536, &u)) != AP_OK) return st;
    c->max_connections = (unsigned)u;
    return AP_OK;
  }
  if (!strcmp(key, "models")) return read_models(r, v, t);
  return fail(r, v,
              "unknown key \"%s\" (listen, port, budget, max_body, request_timeout, "
              "connection_timeout, drain_timeout, idle_timeout, workers, max_connections, "
              "models)",
              key);
}

void ap_serve_config_free(ap_serve_config *c) {
  if (!c) return;
  for (size_t i = 0; i < c->model_count; i++) {
    free(c->models[i].name);
    free(c->models[i].path);
    free(c->models[i].strategy);
  }
  free(c->models);
  free(c->listen);
  free(c->path);
  free(c);
}

static ap_status parse_doc(cfg_reader *r, yaml_parser_t *parser, top_ctx *t) {
  yaml_document_t *doc = r->doc;
  if (!yaml_parser_load(parser, doc)) {
    if (r->err && r->err_size)
      snprintf(r->err, r->err_size, "%s:%lu: %s%s%s", r->name,
               (unsigned long)parser->problem_mark.line + 1,
               parser->problem ? parser->problem : "malformed YAML", parser->context ? " " : "",
               parser->context ? parser->context : "");
    return AP_ERR_FORMAT;
  }
  yaml_node_t *root = yaml_document_get_root_node(doc);
  if (!root) return fail(r, NULL, "empty configuration (no models)");
  ap_status st = each_pair(r, root, "configuration", top_pair, t);
  if (st != AP_OK) return st;
  /* One document only: a second one would be silently ignored. */
  yaml_document_t extra;
  if (!yaml_parser_load(parser, &extra)) return fail(r, NULL, "malformed YAML after the end");
  bool more = yaml_document_get_root_node(&extra) != NULL;
  yaml_document_delete(&extra);
  if (more) return fail(r, NULL, "more than one YAML document");
  if (!t->c->model_count) return fail(r, root, "no models (a models: list is required)");
  return AP_OK;
}

ap_status ap_serve_config_parse(const char *text, size_t len, const char *name, const char *dir,
                                ap_serve_config **out, char *err, size_t err_size) {
  if (err && err_size) err[0] = '\0';
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  if (!text && len) return AP_ERR_ARG;
  ap_serve_config *c = calloc(1, sizeof *c);
  if (!c) return AP_ERR_NOMEM;
  c->max_body = 1u << 20;
  c->request_timeout_ms = 5000;
  c->connection_timeout_ms = 30000;
  c->drain_timeout_ms = 10000;
  c->idle_ms = 60000;
  c->workers = 4;
  c->max_connections = 256;
  cfg_reader r = {NULL, name ? name : "configuration", err, err_size};
  c->path = strdup(name ? name : "");
  yaml_parser_t parser;
  yaml_document_t doc;
  memset(&doc, 0, sizeof doc);
  r.doc = &doc;
  if (!c->path || !yaml_parser_initialize(&parser)) {
    ap_serve_config_free(c);
    return AP_ERR_NOMEM;
  }
  yaml_parser_set_input_string(&parser, (const unsigned char *)(text ? text : ""), len);
  top_ctx t = {c, dir, false, NULL};
  ap_status st = parse_doc(&r, &parser, &t);
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  if (st == AP_OK && !c->listen && !(c->listen = strdup("127.0.0.1"))) st = AP_ERR_NOMEM;
  if (st == AP_OK && (!t.has_budget || c->budget_percent > 0)) {
    if (!t.has_budget) c->budget_percent = 80;
    uint64_t phys = 0, cg = 0;
    uint64_t base = 0;
    if (ap_pool_machine_memory(&phys, &cg) == AP_OK) base = cg && (!phys || cg < phys) ? cg : phys;
    if (base == 0) {
      st = fail(&r, t.budget_node, "budget: cannot read the machine's memory; give bytes");
    } else {
      c->budget_bytes = (uint64_t)((long double)base * c->budget_percent / 100.0L);
      if (c->budget_bytes == 0) st = fail(&r, t.budget_node, "budget: rounds to 0 bytes");
    }
  }
  if (st != AP_OK) {
    ap_serve_config_free(c);
    return st;
  }
  *out = c;
  return AP_OK;
}

ap_status ap_serve_config_load(const char *path, ap_serve_config **out, char *err,
                               size_t err_size) {
  if (err && err_size) err[0] = '\0';
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  if (!path) return AP_ERR_ARG;
  size_t len = 0;
  char *text = NULL;
  ap_status st = serve_read_file(path, 1u << 20, &text, &len, err, err_size);
  if (st != AP_OK) return st;
  /* Model paths are relative to the configuration's folder. */
  char *dir = strdup(path);
  if (!dir) {
    free(text);
    return AP_ERR_NOMEM;
  }
  char *slash = strrchr(dir, '/');
  if (slash) *(slash == dir ? slash + 1 : slash) = '\0';
  /* A file in the current folder: its model paths stay as written. */
  st = ap_serve_config_parse(text, len, path, slash ? dir : NULL, out, err, err_size);
  free(dir);
  free(text);
  return st;
}
