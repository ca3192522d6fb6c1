#include "json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
  const char *p;
  int depth;
} parser;

static void skip_ws(parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t')
    ps->p++;
}

static void clear(ap_json *j) {
  if (!j) return;
  for (size_t i = 0; i < j->n; i++) {
    clear(&j->items[i]);
    if (j->keys) free(j->keys[i]);
  }
  free(j->items);
  free(j->keys);
  free(j->s);
}

void ap_json_free(ap_json *j) {
  clear(j);
  free(j);
}

static char *parse_string(parser *ps) {
  if (*ps->p != '"') return NULL;
  ps->p++;
  size_t cap = 16, len = 0;
  char *s = malloc(cap);
  while (s && *ps->p != '"') {
    char c = *ps->p++;
    if (c == '\0' || (unsigned char)c < 0x20) goto bad;
    if (c == '\\') {
      char e = *ps->p++;
      switch (e) {
      case '"': c = '"'; break;
      case '\\': c = '\\'; break;
      case '/': c = '/'; break;
      case 'n': c = '\n'; break;
      case 't': c = '\t'; break;
      case 'r': c = '\r'; break;
      case 'b': c = '\b'; break;
      case 'f': c = '\f'; break;
      case 'u': {
        char hex[5] = {0};
        for (int i = 0; i < 4; i++) {
          if (!ps->p[i]) goto bad;
          hex[i] = ps->p[i];
        }
        char *end;
        long v = strtol(hex, &end, 16);
        if (*end || v >= 0x80) goto bad;
        c = (char)v;
        ps->p += 4;
        break;
      }
      default: goto bad;
      }
    }
    if (len + 2 > cap) {
      char *n = realloc(s, cap *= 2);
      if (!n) goto bad;
      s = n;
    }
    s[len++] = c;
  }
  if (!s) return NULL;
  s[len] = '\0';
  ps->p++;
  return s;
bad:
  free(s);
  return NULL;
}

static bool parse_value(parser *ps, ap_json *out);

static bool parse_container(parser *ps, ap_json *out, bool object) {
  char close = object ? '}' : ']';
  ps->p++;
  out->type = object ? AP_JSON_OBJECT : AP_JSON_ARRAY;
  size_t cap = 0;
  skip_ws(ps);
  if (*ps->p == close) {
    ps->p++;
    return true;
  }
  for (;;) {
    if (out->n == cap) {
      cap = cap ? cap * 2 : 8;
      ap_json *items = realloc(out->items, cap * sizeof *items);
      if (!items) return false;
      out->items = items;
      if (object) {
        char **keys = realloc(out->keys, cap * sizeof *keys);
        if (!keys) return false;
        out->keys = keys;
      }
    }
    ap_json *item = &out->items[out->n];
    memset(item, 0, sizeof *item);
    skip_ws(ps);
    if (object) {
      out->keys[out->n] = NULL;
      char *k = parse_string(ps);
      if (!k) return false;
      out->keys[out->n] = k;
      skip_ws(ps);
      if (*ps->p++ != ':') {
        out->n++; /* so clear() frees the key */
        return false;
      }
    }
    out->n++;
    if (!parse_value(ps, item)) return false;
    skip_ws(ps);
    if (*ps->p == ',') {
      ps->p++;
      continue;
    }
    if (*ps->p == close) {
      ps->p++;
      return true;
    }
    return false;
  }
}

static bool parse_value(parser *ps, ap_json *out) {
  if (++ps->depth > 200) return false;
  skip_ws(ps);
  bool ok = false;
  const char *p = ps->p;
  if (*p == '{' || *p == '[') {
    ok = parse_container(ps, out, *p == '{');
  } else if (*p == '"') {
    out->type = AP_JSON_STRING;
    ok = (out->s = parse_string(ps)) != NULL;
  } else if (strncmp(p, "true", 4) == 0 || strncmp(p, "false", 5) == 0) {
    out->type = AP_JSON_BOOL;
    out->b = *p == 't';
    ps->p += out->b ? 4 : 5;
    ok = true;
  } else if (strncmp(p, "null", 4) == 0) {
    out->type = AP_JSON_NULL;
    ps->p += 4;
    ok = true;
  } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
    char *end;
    errno = 0;
    out->num = strtod(p, &end);
    if (end != p) {
      size_t n = (size_t)(end - p);
      out->type = AP_JSON_NUMBER;
      out->s = malloc(n + 1);
      if (out->s) {
        memcpy(out->s, p, n);
        out->s[n] = '\0';
        ps->p = end;
        ok = true;
      }
    }
  }
  ps->depth--;
  return ok;
}

ap_json *ap_json_parse(const char *text) {
  if (!text) return NULL;
  ap_json *j = calloc(1, sizeof *j);
  if (!j) return NULL;
  parser ps = {text, 0};
  bool ok = parse_value(&ps, j);
  skip_ws(&ps);
  if (!ok || *ps.p) {
    ap_json_free(j);
    return NULL;
  }
  return j;
}

const ap_json *ap_json_at(const ap_json *j, const char *path) {
  const char *p = path;
  while (j && *p) {
    if (*p == '.') {
      p++;
      continue;
    }
    if (*p == '[') {
      char *end;
      unsigned long i = strtoul(p + 1, &end, 10);
      if (*end != ']' || j->type != AP_JSON_ARRAY || i >= j->n) return NULL;
      j = &j->items[i];
      p = end + 1;
      continue;
    }
    size_t len = strcspn(p, ".[");
    if (j->type != AP_JSON_OBJECT) return NULL;
    const ap_json *found = NULL;
    for (size_t i = 0; i < j->n && !found; i++)
      if (strlen(j->keys[i]) == len && strncmp(j->keys[i], p, len) == 0) found = &j->items[i];
    j = found;
    p += len;
  }
  return j;
}

const char *ap_json_str(const ap_json *j, const char *path) {
  const ap_json *v = ap_json_at(j, path);
  return v && v->type == AP_JSON_STRING ? v->s : NULL;
}

bool ap_json_i64(const ap_json *j, const char *path, int64_t *out) {
  const ap_json *v = ap_json_at(j, path);
  if (!v || v->type != AP_JSON_NUMBER || strpbrk(v->s, ".eE")) return false;
  char *end;
  errno = 0;
  long long x = strtoll(v->s, &end, 10);
  if (errno || *end) return false;
  *out = x;
  return true;
}

bool ap_json_f64(const ap_json *j, const char *path, double *out) {
  const ap_json *v = ap_json_at(j, path);
  if (!v || v->type != AP_JSON_NUMBER) return false;
  *out = v->num;
  return true;
}

bool ap_json_bool(const ap_json *j, const char *path, bool *out) {
  const ap_json *v = ap_json_at(j, path);
  if (!v || v->type != AP_JSON_BOOL) return false;
  *out = v->b;
  return true;
}

long ap_json_len(const ap_json *j, const char *path) {
  const ap_json *v = ap_json_at(j, path);
  if (!v || (v->type != AP_JSON_ARRAY && v->type != AP_JSON_OBJECT)) return -1;
  return (long)v->n;
}
