/* The protocol's endpoints: a request (method, path, body) in, a reply out. No socket here:
 * server.c hands complete requests to serve_route. */
#include "serve_internal.h"

#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void serve_reply_error(serve_reply *r, int status, const char *fmt, ...) {
  char msg[V2_ERR_SIZE + 128];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  v2_buf_free(&r->body);
  r->status = status;
  r->header_len = 0;
  r->content_type = "application/json";
  if (!v2_encode_error(msg, &r->body)) r->status = 500;
}

static void reply_json(serve_reply *r, int status, json_t *root) {
  v2_buf_free(&r->body);
  char *text = root ? json_dumps(root, JSON_COMPACT) : NULL;
  json_decref(root);
  if (!text || !v2_buf_append(&r->body, text, strlen(text))) {
    free(text);
    serve_reply_error(r, 500, "out of memory");
    return;
  }
  free(text);
  r->status = status;
  r->content_type = "application/json";
}

/* A model name from a path segment, for messages: printable, at most 64 bytes. */
static void shown_name(char *buf, size_t size, const char *s, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < size && k < 64; i++)
    buf[k++] = isprint((unsigned char)s[i]) ? s[i] : '?';
  buf[k] = '\0';
}

/* The model of "/v2/models/NAME..." or "/v2/repository/models/NAME/...": only names of the
 * configuration match (a traversal such as "..%2F.." never names a file: it names no model). */
static serve_model *model_of(ap_server *s, const char *seg, const char **rest, serve_reply *r) {
  const char *end = strchr(seg, '/');
  size_t n = end ? (size_t)(end - seg) : strlen(seg);
  *rest = seg + n;
  char name[256];
  if (n == 0 || n >= sizeof name) {
    shown_name(name, sizeof name, seg, n);
    serve_reply_error(r, 404, "unknown model '%s'", name);
    return NULL;
  }
  memcpy(name, seg, n);
  name[n] = '\0';
  serve_model *m = memchr(seg, '\0', n) ? NULL : serve_find(s, name);
  if (!m) {
    char shown[80];
    shown_name(shown, sizeof shown, seg, n);
    serve_reply_error(r, 404, "unknown model '%s'", shown);
  }
  return m;
}

static bool parse_header_len(const char *v, uint64_t *out) {
  if (!v || !isdigit((unsigned char)v[0])) return false;
  uint64_t x = 0;
  for (const char *p = v; *p; p++) {
    if (!isdigit((unsigned char)*p) || x > (UINT64_MAX - 9) / 10) return false;
    x = x * 10 + (uint64_t)(*p - '0');
  }
  *out = x;
  return true;
}

static void infer(ap_server *s, serve_model *m, const uint8_t *body, size_t len,
                  const char *header_len, serve_reply *r) {
  uint64_t hl = 0;
  if (header_len && !parse_header_len(header_len, &hl)) {
    serve_reply_error(r, 400, "Inference-Header-Content-Length \"%.32s\" is not a byte count",
                      header_len);
    return;
  }
  char err[V2_ERR_SIZE];
  v2_request req;
  if (!v2_decode_request(body, len, header_len != NULL, hl, &req, err, sizeof err)) {
    serve_reply_error(r, 400, "%s", err);
    return;
  }
  size_t input_of[V2_MAX_TENSORS];
  uint8_t want[V2_MAX_TENSORS];
  if (m->input_count > V2_MAX_TENSORS || m->output_count > V2_MAX_TENSORS) {
    serve_reply_error(r, 500, "model %s: more than %d inputs or outputs", m->name, V2_MAX_TENSORS);
  } else if (!v2_match(&req, m->inputs, m->input_count, m->outputs, m->output_count, input_of, want,
                       err, sizeof err)) {
    serve_reply_error(r, 400, "%s", err);
  } else {
    ap_interpreter *it = NULL;
    ap_status st = ap_pool_acquire(s->pool, m->name, s->cfg->request_timeout_ms, &it);
    if (st == AP_ERR_BUDGET || st == AP_ERR_TIMEOUT) {
      serve_reply_error(r, 503, "model %s: not resident within %llu ms: %s", m->name,
                        (unsigned long long)s->cfg->request_timeout_ms, ap_pool_error(s->pool));
      r->retry_after = true;
    } else if (st == AP_ERR_ARG) {
      serve_reply_error(r, 404, "unknown model '%s'", m->name);
    } else if (st != AP_OK) {
      serve_reply_error(r, 500, "model %s: %s", m->name, ap_pool_error(s->pool));
    } else {
      /* Every request starts from the model's initial state, whoever used it before. */
      st = ap_interpreter_reset_variables(it);
      for (size_t k = 0; st == AP_OK && k < m->input_count; k++) {
        ap_tensor t;
        const v2_input *in = &req.inputs[input_of[k]];
        st = ap_interpreter_input(it, k, &t);
        if (st == AP_OK && (t.bytes != in->bytes || !t.data)) st = AP_ERR_ARG;
        if (st == AP_OK) memcpy(t.data, in->data, in->bytes);
      }
      if (st == AP_OK) st = ap_interpreter_invoke(it);
      if (st != AP_OK) {
        serve_reply_error(r, 500, "model %s: %s", m->name, ap_interpreter_error(it));
      } else {
        v2_tensor_out outs[V2_MAX_TENSORS];
        ap_tensor ts[V2_MAX_TENSORS];
        size_t n = 0;
        for (size_t k = 0; st == AP_OK && k < m->output_count; k++) {
          if (!want[k]) continue;
          st = ap_interpreter_output(it, k, &ts[n]);
          outs[n] = (v2_tensor_out){m->outputs[k].name, ts[n].type,  ts[n].rank,  ts[n].dims,
                                    ts[n].data,         ts[n].bytes, want[k] == 2};
          n++;
        }
        v2_buf_free(&r->body);
        if (st != AP_OK) {
          serve_reply_error(r, 500, "model %s: %s", m->name, ap_interpreter_error(it));
        } else if (!v2_encode_response(m->name, req.id, outs, n, &r->body, &r->header_len, err,
                                       sizeof err)) {
          serve_reply_error(r, 400, "%s", err);
        } else {
          r->status = 200;
          r->content_type = r->header_len ? "application/octet-stream" : "application/json";
        }
      }
      ap_pool_release(s->pool, it);
    }
  }
  v2_request_free(&req);
}

static void metadata(serve_model *m, serve_reply *r) {
  v2_buf_free(&r->body);
  if (!v2_encode_metadata(m->name, m->inputs, m->input_count, m->outputs, m->output_count,
                          &r->body)) {
    serve_reply_error(r, 500, "out of memory");
    return;
  }
  r->status = 200;
  r->content_type = "application/json";
}

static void repository_index(ap_server *s, serve_reply *r) {
  json_t *a = json_array();
  pthread_mutex_lock(&s->lock);
  for (size_t i = 0; a && i < s->model_count; i++) {
    serve_model *m = s->models[i];
    if (m->removed) continue;
    ap_pool_model_info info;
    serve_pool_info(s->pool, m->name, &info);
    bool loaded = info.state == AP_POOL_READY || info.state == AP_POOL_BUSY;
    const char *state = ap_pool_state_name(info.state);
    json_t *o = json_object();
    if (!o || json_array_append_new(a, o) || json_object_set_new(o, "name", json_string(m->name)) ||
        json_object_set_new(o, "version", json_string("1")) ||
        json_object_set_new(o, "state",
                            json_string(loaded                           ? "READY"
                                        : info.state == AP_POOL_UNLOADED ? "UNAVAILABLE"
                                                                         : "LOADING")) ||
        json_object_set_new(o, "reason", json_string(loaded ? "" : state))) {
      json_decref(a);
      a = NULL;
    }
  }
  pthread_mutex_unlock(&s->lock);
  reply_json(r, 200, a);
}

static void repository_model(ap_server *s, serve_model *m, const char *action, serve_reply *r) {
  ap_status st;
  if (!strcmp(action, "/load")) {
    st = serve_pool_load(s->pool, m->name, s->cfg->request_timeout_ms);
    if (st == AP_ERR_BUDGET || st == AP_ERR_TIMEOUT) {
      serve_reply_error(r, 503, "model %s: %s", m->name, ap_pool_error(s->pool));
      r->retry_after = true;
      return;
    }
  } else if (!strcmp(action, "/unload")) {
    st = serve_pool_unload(s->pool, m->name); /* now, or at its last release */
  } else {
    serve_reply_error(r, 404, "unknown path");
    return;
  }
  if (st != AP_OK) {
    serve_reply_error(r, 500, "model %s: %s", m->name, ap_pool_error(s->pool));
    return;
  }
  reply_json(r, 200, json_object());
}

static bool is(const char *method, const char *want, serve_reply *r) {
  if (!strcmp(method, want)) return true;
  serve_reply_error(r, 405, "use %s", want);
  return false;
}

void serve_route(ap_server *s, const char *method, const char *url, const uint8_t *body, size_t len,
                 const char *header_len, serve_reply *r) {
  const char *rest;
  serve_model *m;
  r->content_type = "application/json";
  if (!strcmp(url, "/v2/health/live")) {
    if (is(method, "GET", r)) reply_json(r, 200, json_pack("{s:b}", "live", 1));
  } else if (!strcmp(url, "/v2/health/ready")) {
    pthread_mutex_lock(&s->lock);
    bool ready = !s->draining;
    pthread_mutex_unlock(&s->lock);
    if (is(method, "GET", r)) reply_json(r, ready ? 200 : 503, json_pack("{s:b}", "ready", ready));
  } else if (!strcmp(url, "/v2") || !strcmp(url, "/v2/")) {
    if (is(method, "GET", r))
      reply_json(r, 200,
                 json_pack("{s:s,s:s,s:[s,s]}", "name", "arenaplan", "version", ap_version(),
                           "extensions", "binary_tensor_data", "model_repository"));
  } else if (!strcmp(url, "/metrics")) {
    if (!is(method, "GET", r)) return;
    v2_buf_free(&r->body);
    if (!serve_metrics(s, &r->body)) {
      serve_reply_error(r, 500, "out of memory");
      return;
    }
    r->status = 200;
    r->content_type = "text/plain; version=0.0.4";
  } else if (!strcmp(url, "/v2/repository/index")) {
    if (is(method, "POST", r)) repository_index(s, r);
  } else if (!strncmp(url, "/v2/repository/models/", 22)) {
    if ((m = model_of(s, url + 22, &rest, r)) && is(method, "POST", r))
      repository_model(s, m, rest, r);
  } else if (!strncmp(url, "/v2/models/", 11)) {
    if (!(m = model_of(s, url + 11, &rest, r))) return;
    if (!strcmp(rest, "/versions/1"))
      rest += 11; /* the one version there is */
    else if (!strncmp(rest, "/versions/1/", 12))
      rest += 11;
    if (!*rest || !strcmp(rest, "/")) {
      if (is(method, "GET", r)) metadata(m, r);
    } else if (!strcmp(rest, "/ready")) {
      /* Ready: resident and warmed up. Otherwise 400, as the protocol's "4xx: not ready"
       * (an unloaded model still serves: the next request loads it). */
      if (!is(method, "GET", r)) return;
      ap_pool_model_info info;
      serve_pool_info(s->pool, m->name, &info);
      if (info.state == AP_POOL_READY || info.state == AP_POOL_BUSY)
        reply_json(r, 200, json_pack("{s:s,s:b}", "name", m->name, "ready", 1));
      else
        serve_reply_error(r, 400,
                          "model %s is not ready: %s (a request or a repository load "
                          "loads it)",
                          m->name, ap_pool_state_name(info.state));
    } else if (!strcmp(rest, "/infer")) {
      if (!is(method, "POST", r)) return;
      atomic_fetch_add(&s->inferring, 1);
      infer(s, m, body, len, header_len, r);
      atomic_fetch_sub(&s->inferring, 1);
    } else {
      serve_reply_error(r, 404, "unknown path");
    }
  } else {
    serve_reply_error(r, 404, "unknown path");
  }
}
