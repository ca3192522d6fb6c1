/* A bounds-checked FlexBuffers reader: the format of custom ops' options
 * (TFLite_Detection_PostProcess, the Signal library ops). Zero-copy over the caller's bytes;
 * every offset, width and length is checked against the buffer before it is followed, so a
 * hostile options blob gives a status and a message, never a read out of bounds.
 *
 *   ap_flex root, v;
 *   if (ap_flex_root(bytes, size, &root, err) != AP_OK) return ...;
 *   int64_t n;
 *   if (ap_flex_map_find(&root, "max_detections", &v) && ap_flex_as_int(&v, &n, err) == AP_OK) ...
 */
#ifndef AP_MODEL_FLEXBUF_H
#define AP_MODEL_FLEXBUF_H

#include "base/base.h"

/* A reference to one value inside a buffer. */
typedef struct ap_flex {
  const uint8_t *buf; /* the whole buffer */
  size_t size;
  size_t offset;        /* where the value (or, for offset types, its offset field) starts */
  uint8_t parent_width; /* byte width of the slot holding the value */
  uint8_t byte_width;   /* byte width of the pointed-to data (offset types) */
  uint8_t type;         /* FlexBuffers type (AP_FLEX_*) */
} ap_flex;

enum {
  AP_FLEX_NULL = 0,
  AP_FLEX_INT = 1,
  AP_FLEX_UINT = 2,
  AP_FLEX_FLOAT = 3,
  AP_FLEX_KEY = 4,
  AP_FLEX_STRING = 5,
  AP_FLEX_INDIRECT_INT = 6,
  AP_FLEX_INDIRECT_UINT = 7,
  AP_FLEX_INDIRECT_FLOAT = 8,
  AP_FLEX_MAP = 9,
  AP_FLEX_VECTOR = 10,
  AP_FLEX_VECTOR_INT = 11,
  AP_FLEX_VECTOR_UINT = 12,
  AP_FLEX_VECTOR_FLOAT = 13,
  AP_FLEX_VECTOR_KEY = 14,
  /* 15: deprecated string vector; 16-24: fixed-length typed vectors */
  AP_FLEX_VECTOR_BOOL = 36,
  AP_FLEX_BLOB = 25,
  AP_FLEX_BOOL = 26
};

/* The root value of a FlexBuffers blob. */
ap_status ap_flex_root(const void *data, size_t size, ap_flex *out, ap_errbuf *err);

/* Map lookup by key (exact, byte-wise); false when `map` is not a map, the key is absent, or
 * the map is malformed. */
bool ap_flex_map_find(const ap_flex *map, const char *key, ap_flex *out);

/* Scalars (inline or indirect), converted as FlexBuffers' As* accessors do (a bool reads as
 * 0/1, a float as an int truncates); null, strings and containers fail with AP_ERR_FORMAT, a
 * value the result cannot hold (uint > INT64_MAX, float out of range or NaN as int) with
 * AP_ERR_RANGE, and floats must be 4 or 8 bytes wide. `err` may be NULL everywhere. */
ap_status ap_flex_as_int(const ap_flex *v, int64_t *out, ap_errbuf *err);
ap_status ap_flex_as_float(const ap_flex *v, double *out, ap_errbuf *err);
ap_status ap_flex_as_bool(const ap_flex *v, bool *out, ap_errbuf *err);

/* Vectors (untyped, typed and fixed-length) and maps: element count and element i (a map's
 * values in key order). ap_flex_length also gives a string's, blob's or key's byte count. */
ap_status ap_flex_length(const ap_flex *v, size_t *out, ap_errbuf *err);
ap_status ap_flex_at(const ap_flex *v, size_t i, ap_flex *out, ap_errbuf *err);

/* Key i of a map (keys are sorted; pointer into the buffer, NUL-terminated there). */
ap_status ap_flex_map_key(const ap_flex *map, size_t i, const char **s, size_t *len,
                          ap_errbuf *err);

/* A string or key: pointer into the buffer and length (not NUL-terminated for strings, and
 * checked to lie inside the buffer). */
ap_status ap_flex_as_string(const ap_flex *v, const char **s, size_t *len, ap_errbuf *err);

#endif
