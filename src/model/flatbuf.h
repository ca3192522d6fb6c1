/* Little-endian FlatBuffers access by position. These readers do no bounds checks: they are
 * used only on bytes the verifier (verify.c) has accepted, which guarantees every table,
 * vtable, vector and string they touch lies inside the buffer. Position 0 is never a table or
 * a vector (the root offset lives there), so 0 means "absent". */
#ifndef AP_MODEL_FLATBUF_H
#define AP_MODEL_FLATBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint8_t fb_u8(const uint8_t *b, size_t pos) {
  return b[pos];
}
static inline uint16_t fb_u16(const uint8_t *b, size_t pos) {
  uint16_t v;
  memcpy(&v, b + pos, sizeof v);
  return v;
}
static inline uint32_t fb_u32(const uint8_t *b, size_t pos) {
  uint32_t v;
  memcpy(&v, b + pos, sizeof v);
  return v;
}
static inline int32_t fb_i32(const uint8_t *b, size_t pos) {
  int32_t v;
  memcpy(&v, b + pos, sizeof v);
  return v;
}
static inline uint64_t fb_u64(const uint8_t *b, size_t pos) {
  uint64_t v;
  memcpy(&v, b + pos, sizeof v);
  return v;
}
static inline float fb_f32(const uint8_t *b, size_t pos) {
  float v;
  memcpy(&v, b + pos, sizeof v);
  return v;
}

/* The vtable of the table at `t` (a table starts with a signed offset back to its vtable). */
static inline size_t fb_vtable(const uint8_t *b, size_t t) {
  return (size_t)((int64_t)t - (int64_t)fb_i32(b, t));
}

/* Position of field slot `id` of the table at `t`; 0 when the field is absent. */
static inline size_t fb_field(const uint8_t *b, size_t t, unsigned id) {
  if (!t) return 0;
  size_t vt = fb_vtable(b, t);
  size_t entry = 4 + 2 * (size_t)id;
  if (entry + 2 > fb_u16(b, vt)) return 0;
  uint16_t off = fb_u16(b, vt + entry);
  return off ? t + off : 0;
}

/* Follows the uoffset stored at `pos`. */
static inline size_t fb_deref(const uint8_t *b, size_t pos) {
  return pos + fb_u32(b, pos);
}

/* The table a field refers to; 0 if absent. */
static inline size_t fb_table(const uint8_t *b, size_t t, unsigned id) {
  size_t f = fb_field(b, t, id);
  return f ? fb_deref(b, f) : 0;
}

/* A vector: `pos` is its length word, its items start at pos + 4. */
typedef struct fb_vec {
  size_t pos;
  uint32_t n;
} fb_vec;

static inline fb_vec fb_vector(const uint8_t *b, size_t t, unsigned id) {
  fb_vec v = {0, 0};
  size_t f = fb_field(b, t, id);
  if (f) {
    v.pos = fb_deref(b, f);
    v.n = fb_u32(b, v.pos);
  }
  return v;
}

static inline const void *fb_vec_data(const uint8_t *b, fb_vec v) {
  return v.pos ? b + v.pos + 4 : NULL;
}

/* Item i of a vector of tables (or strings): the referenced position. */
static inline size_t fb_vec_ref(const uint8_t *b, fb_vec v, size_t i) {
  return fb_deref(b, v.pos + 4 + 4 * i);
}

/* A string field (verified to be NUL-terminated); NULL if absent. */
static inline const char *fb_string(const uint8_t *b, size_t t, unsigned id) {
  size_t f = fb_field(b, t, id);
  return f ? (const char *)b + fb_deref(b, f) + 4 : NULL;
}

/* Scalar fields with their schema default when absent. */
static inline uint8_t fb_get_u8(const uint8_t *b, size_t t, unsigned id, uint8_t def) {
  size_t f = fb_field(b, t, id);
  return f ? fb_u8(b, f) : def;
}
static inline int8_t fb_get_i8(const uint8_t *b, size_t t, unsigned id, int8_t def) {
  size_t f = fb_field(b, t, id);
  return f ? (int8_t)fb_u8(b, f) : def;
}
static inline int32_t fb_get_i32(const uint8_t *b, size_t t, unsigned id, int32_t def) {
  size_t f = fb_field(b, t, id);
  return f ? fb_i32(b, f) : def;
}
static inline uint32_t fb_get_u32(const uint8_t *b, size_t t, unsigned id, uint32_t def) {
  size_t f = fb_field(b, t, id);
  return f ? fb_u32(b, f) : def;
}
static inline uint64_t fb_get_u64(const uint8_t *b, size_t t, unsigned id, uint64_t def) {
  size_t f = fb_field(b, t, id);
  return f ? fb_u64(b, f) : def;
}
static inline float fb_get_f32(const uint8_t *b, size_t t, unsigned id, float def) {
  size_t f = fb_field(b, t, id);
  return f ? fb_f32(b, f) : def;
}

#endif
