/* The FlexBuffers reader (see flexbuf.h). Every read goes through rd_uint/rd_int, which check
 * the position and width against the buffer; offsets are followed only backwards and only
 * within the buffer, so no input can make the reader touch a byte outside [buf, buf + size).
 * Nothing recurses: each call resolves one level, so nesting depth costs the caller's loop,
 * never our stack. */
#include "flexbuf.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static bool width_ok(unsigned w) {
  return w == 1 || w == 2 || w == 4 || w == 8;
}

/* Reads an unsigned little-endian value of width w at pos. */
static bool rd_uint(const uint8_t *buf, size_t size, size_t pos, unsigned w, uint64_t *out) {
  if (!width_ok(w) || pos > size || size - pos < w) return false;
  uint64_t v = 0;
  for (unsigned i = 0; i < w; i++)
    v |= (uint64_t)buf[pos + i] << (8 * i);
  *out = v;
  return true;
}

static bool rd_int(const uint8_t *buf, size_t size, size_t pos, unsigned w, int64_t *out) {
  uint64_t u;
  if (!rd_uint(buf, size, pos, w, &u)) return false;
  if (w < 8 && (u >> (8 * w - 1)) & 1) u |= ~(uint64_t)0 << (8 * w); /* sign-extend */
  memcpy(out, &u, sizeof u);
  return true;
}

static bool rd_float(const uint8_t *buf, size_t size, size_t pos, unsigned w, double *out) {
  uint64_t u;
  if ((w != 4 && w != 8) || !rd_uint(buf, size, pos, w, &u)) return false;
  if (w == 4) {
    uint32_t u32 = (uint32_t)u;
    float f;
    memcpy(&f, &u32, sizeof f);
    *out = f;
  } else {
    memcpy(out, &u, sizeof *out);
  }
  return true;
}

static bool type_known(unsigned t) {
  return t <= AP_FLEX_BOOL || t == AP_FLEX_VECTOR_BOOL;
}

static bool is_inline(unsigned t) {
  return t == AP_FLEX_NULL || t == AP_FLEX_INT || t == AP_FLEX_UINT || t == AP_FLEX_FLOAT ||
         t == AP_FLEX_BOOL;
}

static bool is_fixed_vector(unsigned t) {
  return t >= 16 && t <= 24;
}

static bool is_typed_vector(unsigned t) {
  return (t >= AP_FLEX_VECTOR_INT && t <= 15) || t == AP_FLEX_VECTOR_BOOL;
}

static const char *type_name(unsigned t) {
  static const char *const names[] = {
      "null",          "int",          "uint",          "float",          "key",
      "string",        "indirect int", "indirect uint", "indirect float", "map",
      "vector",        "int vector",   "uint vector",   "float vector",   "key vector",
      "string vector", "int2",         "uint2",         "float2",         "int3",
      "uint3",         "float3",       "int4",          "uint4",          "float4",
      "blob",          "bool"};
  if (t < sizeof names / sizeof names[0]) return names[t];
  return t == AP_FLEX_VECTOR_BOOL ? "bool vector" : "unknown";
}

/* Follows an offset-typed value's slot to the data it points to. */
static ap_status target(const ap_flex *v, size_t *out, ap_errbuf *err) {
  uint64_t off;
  if (!rd_uint(v->buf, v->size, v->offset, v->parent_width, &off))
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: %s at %zu: offset slot outside the buffer",
                   type_name(v->type), v->offset);
  if (off > v->offset)
    return ap_fail(err, AP_ERR_FORMAT,
                   "flexbuffer: %s at %zu: offset %" PRIu64 " points before the buffer",
                   type_name(v->type), v->offset, off);
  *out = v->offset - (size_t)off;
  return AP_OK;
}

/* Builds a reference from a packed type byte (type << 2 | log2 width). */
static ap_status make_ref(const ap_flex *parent, size_t offset, unsigned parent_width,
                          uint8_t packed, ap_flex *out, ap_errbuf *err) {
  unsigned t = packed >> 2;
  if (!type_known(t))
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: unknown value type %u at %zu", t, offset);
  *out = (ap_flex){.buf = parent->buf,
                   .size = parent->size,
                   .offset = offset,
                   .parent_width = (uint8_t)parent_width,
                   .byte_width = (uint8_t)(1u << (packed & 3)),
                   .type = (uint8_t)t};
  return AP_OK;
}

ap_status ap_flex_root(const void *data, size_t size, ap_flex *out, ap_errbuf *err) {
  if (!out) return ap_fail(err, AP_ERR_ARG, "flexbuffer: NULL output");
  if (!data || size < 3)
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: %zu bytes, too short for a root", size);
  const uint8_t *b = data;
  unsigned w = b[size - 1];
  if (!width_ok(w))
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: root width %u is not 1, 2, 4 or 8", w);
  if (size - 2 < w)
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: root width %u larger than the buffer", w);
  ap_flex whole = {.buf = b, .size = size};
  return make_ref(&whole, size - 2 - w, w, b[size - 2], out, err);
}

/* A container's data position, element width and element count, all checked to fit. */
typedef struct {
  size_t data, width, len;
  unsigned elem_type; /* for typed vectors; AP_FLEX_NULL when each element has its own type */
} vec_info;

static ap_status vector_info(const ap_flex *v, vec_info *vi, ap_errbuf *err) {
  unsigned t = v->type;
  if (t != AP_FLEX_MAP && t != AP_FLEX_VECTOR && !is_typed_vector(t) && !is_fixed_vector(t))
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: %s is not a vector or map", type_name(t));
  size_t pos = 0;
  ap_status s = target(v, &pos, err);
  if (s != AP_OK) return s;
  size_t w = v->byte_width;
  uint64_t len;
  if (is_fixed_vector(t)) {
    len = (t - 16) / 3 + 2;
    vi->elem_type = (t - 16) % 3 + AP_FLEX_INT;
  } else {
    if (pos < w || !rd_uint(v->buf, v->size, pos - w, (unsigned)w, &len))
      return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: %s at %zu: length outside the buffer",
                     type_name(t), pos);
    vi->elem_type = t == AP_FLEX_VECTOR_BOOL ? AP_FLEX_BOOL
                    : is_typed_vector(t)     ? t - AP_FLEX_VECTOR_INT + AP_FLEX_INT
                                             : AP_FLEX_NULL;
  }
  /* Untyped vectors and maps keep one type byte per element after the elements. */
  uint64_t per = w + (vi->elem_type == AP_FLEX_NULL ? 1 : 0), need;
  if (!ap_mul_u64(len, per, &need) || need > v->size - pos)
    return ap_fail(err, AP_ERR_FORMAT,
                   "flexbuffer: %s at %zu: %" PRIu64 " elements run past the buffer", type_name(t),
                   pos, len);
  vi->data = pos;
  vi->width = w;
  vi->len = (size_t)len;
  return AP_OK;
}

ap_status ap_flex_length(const ap_flex *v, size_t *out, ap_errbuf *err) {
  if (!v || !out) return ap_fail(err, AP_ERR_ARG, "flexbuffer: NULL argument");
  if (v->type == AP_FLEX_STRING || v->type == AP_FLEX_BLOB || v->type == AP_FLEX_KEY) {
    const char *s;
    return ap_flex_as_string(v, &s, out, err);
  }
  vec_info vi;
  ap_status s = vector_info(v, &vi, err);
  if (s == AP_OK) *out = vi.len;
  return s;
}

ap_status ap_flex_at(const ap_flex *v, size_t i, ap_flex *out, ap_errbuf *err) {
  if (!v || !out) return ap_fail(err, AP_ERR_ARG, "flexbuffer: NULL argument");
  vec_info vi;
  ap_status s = vector_info(v, &vi, err);
  if (s != AP_OK) return s;
  if (i >= vi.len)
    return ap_fail(err, AP_ERR_RANGE, "flexbuffer: index %zu of a %zu-element %s", i, vi.len,
                   type_name(v->type));
  size_t slot = vi.data + i * vi.width;
  if (vi.elem_type == AP_FLEX_NULL)
    return make_ref(v, slot, (unsigned)vi.width, v->buf[vi.data + vi.len * vi.width + i], out, err);
  /* Typed vectors' elements have the vector's width (offset types among them point to
   * byte-width-1 data: keys, and the deprecated string vector's strings). */
  return make_ref(v, slot, (unsigned)vi.width, (uint8_t)(vi.elem_type << 2), out, err);
}

/* A key: NUL-terminated bytes at its target, the terminator inside the buffer. */
static ap_status key_bytes(const ap_flex *v, const char **s, size_t *len, ap_errbuf *err) {
  size_t pos = 0;
  ap_status st = target(v, &pos, err);
  if (st != AP_OK) return st;
  const uint8_t *nul = pos < v->size ? memchr(v->buf + pos, 0, v->size - pos) : NULL;
  if (!nul)
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: key at %zu not terminated in the buffer", pos);
  *s = (const char *)(v->buf + pos);
  *len = (size_t)(nul - (v->buf + pos));
  return AP_OK;
}

ap_status ap_flex_as_string(const ap_flex *v, const char **s, size_t *len, ap_errbuf *err) {
  if (!v || !s || !len) return ap_fail(err, AP_ERR_ARG, "flexbuffer: NULL argument");
  if (v->type == AP_FLEX_KEY) return key_bytes(v, s, len, err);
  if (v->type != AP_FLEX_STRING && v->type != AP_FLEX_BLOB)
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: %s is not a string", type_name(v->type));
  size_t pos = 0;
  ap_status st = target(v, &pos, err);
  if (st != AP_OK) return st;
  uint64_t n;
  if (pos < v->byte_width || !rd_uint(v->buf, v->size, pos - v->byte_width, v->byte_width, &n))
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: %s at %zu: length outside the buffer",
                   type_name(v->type), pos);
  if (n > v->size - pos)
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: %s at %zu: %" PRIu64 " bytes run past the end",
                   type_name(v->type), pos, n);
  *s = (const char *)(v->buf + pos);
  *len = (size_t)n;
  return AP_OK;
}

/* The keys vector of a map: position, width and count (the count equals the values'). */
static ap_status map_keys(const ap_flex *map, const vec_info *vals, ap_flex *keys, ap_errbuf *err) {
  size_t w = vals->width;
  /* Before the values' length: the keys' width, and before it the offset to the keys. */
  if (vals->data < 3 * w)
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: map at %zu: no room for its keys' header",
                   vals->data);
  uint64_t kw;
  if (!rd_uint(map->buf, map->size, vals->data - 2 * w, (unsigned)w, &kw) ||
      !width_ok((unsigned)kw))
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: map at %zu: bad keys width", vals->data);
  ap_flex kref = {.buf = map->buf,
                  .size = map->size,
                  .offset = vals->data - 3 * w,
                  .parent_width = (uint8_t)w,
                  .byte_width = (uint8_t)kw,
                  .type = AP_FLEX_VECTOR_KEY};
  vec_info ki;
  ap_status s = vector_info(&kref, &ki, err);
  if (s != AP_OK) return s;
  if (ki.len != vals->len)
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: map at %zu: %zu keys for %zu values",
                   vals->data, ki.len, vals->len);
  *keys = kref;
  return AP_OK;
}

ap_status ap_flex_map_key(const ap_flex *map, size_t i, const char **s, size_t *len,
                          ap_errbuf *err) {
  if (!map || !s || !len) return ap_fail(err, AP_ERR_ARG, "flexbuffer: NULL argument");
  if (map->type != AP_FLEX_MAP)
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: %s is not a map", type_name(map->type));
  vec_info vi;
  ap_flex keys, k;
  ap_status st = vector_info(map, &vi, err);
  if (st == AP_OK) st = map_keys(map, &vi, &keys, err);
  if (st == AP_OK) st = ap_flex_at(&keys, i, &k, err);
  if (st == AP_OK) st = key_bytes(&k, s, len, err);
  return st;
}

/* strcmp order on bytes (unsigned), the order FlexBuffers sorts keys in. */
static int key_cmp(const char *a, size_t alen, const char *b) {
  size_t blen = strlen(b), n = AP_MIN(alen, blen);
  int c = memcmp(a, b, n);
  if (c) return c;
  return alen < blen ? -1 : alen > blen ? 1 : 0;
}

bool ap_flex_map_find(const ap_flex *map, const char *key, ap_flex *out) {
  if (!map || !key || !out || map->type != AP_FLEX_MAP) return false;
  vec_info vi;
  ap_flex keys;
  if (vector_info(map, &vi, NULL) != AP_OK || map_keys(map, &vi, &keys, NULL) != AP_OK)
    return false;
  /* Binary search, as FlexBuffers' own lookup: keys are sorted by the writer. On an unsorted
   * (hostile) map a present key may be missed, never a wrong byte read. */
  size_t lo = 0, hi = vi.len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2, klen = 0;
    ap_flex k;
    const char *ks = NULL;
    if (ap_flex_at(&keys, mid, &k, NULL) != AP_OK || key_bytes(&k, &ks, &klen, NULL) != AP_OK)
      return false;
    int c = key_cmp(ks, klen, key);
    if (c == 0) return ap_flex_at(map, mid, out, NULL) == AP_OK;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return false;
}

/* A scalar's value as int, uint or double, whichever its type holds. */
typedef struct {
  enum { SC_INT, SC_UINT, SC_FLOAT } kind;
  int64_t i;
  uint64_t u;
  double f;
} scalar;

static ap_status read_scalar(const ap_flex *v, scalar *sc, ap_errbuf *err) {
  if (!v) return ap_fail(err, AP_ERR_ARG, "flexbuffer: NULL value");
  unsigned t = v->type;
  size_t pos = v->offset;
  unsigned w = v->parent_width;
  if (!is_inline(t) || t == AP_FLEX_NULL) {
    if (t != AP_FLEX_INDIRECT_INT && t != AP_FLEX_INDIRECT_UINT && t != AP_FLEX_INDIRECT_FLOAT)
      return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: %s is not a number", type_name(t));
    ap_status s = target(v, &pos, err);
    if (s != AP_OK) return s;
    w = v->byte_width;
    t = t - AP_FLEX_INDIRECT_INT + AP_FLEX_INT;
  }
  bool ok;
  if (t == AP_FLEX_FLOAT) {
    sc->kind = SC_FLOAT;
    ok = rd_float(v->buf, v->size, pos, w, &sc->f);
  } else if (t == AP_FLEX_INT) {
    sc->kind = SC_INT;
    ok = rd_int(v->buf, v->size, pos, w, &sc->i);
  } else { /* uint, bool */
    sc->kind = SC_UINT;
    ok = rd_uint(v->buf, v->size, pos, w, &sc->u);
  }
  if (!ok)
    return ap_fail(err, AP_ERR_FORMAT, "flexbuffer: %s at %zu: width %u or position invalid",
                   type_name(v->type), pos, w);
  return AP_OK;
}

ap_status ap_flex_as_int(const ap_flex *v, int64_t *out, ap_errbuf *err) {
  if (!out) return ap_fail(err, AP_ERR_ARG, "flexbuffer: NULL output");
  scalar sc = {0};
  ap_status s = read_scalar(v, &sc, err);
  if (s != AP_OK) return s;
  switch (sc.kind) {
  case SC_INT: *out = sc.i; return AP_OK;
  case SC_UINT:
    if (sc.u > INT64_MAX)
      return ap_fail(err, AP_ERR_RANGE, "flexbuffer: %" PRIu64 " does not fit an int64", sc.u);
    *out = (int64_t)sc.u;
    return AP_OK;
  case SC_FLOAT:
    /* -2^63 <= f < 2^63: outside, the C conversion is undefined. */
    if (!(sc.f >= -9223372036854775808.0 && sc.f < 9223372036854775808.0))
      return ap_fail(err, AP_ERR_RANGE, "flexbuffer: float %g does not fit an int64", sc.f);
    *out = (int64_t)sc.f;
    return AP_OK;
  }
  return AP_ERR_FORMAT;
}

ap_status ap_flex_as_float(const ap_flex *v, double *out, ap_errbuf *err) {
  if (!out) return ap_fail(err, AP_ERR_ARG, "flexbuffer: NULL output");
  scalar sc = {0};
  ap_status s = read_scalar(v, &sc, err);
  if (s != AP_OK) return s;
  *out = sc.kind == SC_FLOAT ? sc.f : sc.kind == SC_INT ? (double)sc.i : (double)sc.u;
  return AP_OK;
}

ap_status ap_flex_as_bool(const ap_flex *v, bool *out, ap_errbuf *err) {
  if (!out) return ap_fail(err, AP_ERR_ARG, "flexbuffer: NULL output");
  scalar sc = {0};
  ap_status s = read_scalar(v, &sc, err);
  if (s != AP_OK) return s;
  /* A float reads as its truncation, as FlexBuffers' AsBool (via AsUInt64) does. */
  *out = sc.kind == SC_FLOAT ? fabs(sc.f) >= 1.0 || isnan(sc.f)
         : sc.kind == SC_INT ? sc.i != 0
                             : sc.u != 0;
  return AP_OK;
}
