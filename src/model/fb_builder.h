/* A small FlatBuffers builder, internal to the model layer.
 *
 * It builds front to back: a parent is written first with placeholder offsets, and each child
 * is appended later and patched in (fb_link). A FlatBuffers uoffset must point forward, and
 * everything appended after a field lies after it, so every offset is positive by
 * construction. Alignment is relative to the buffer start, which itself is 16-byte aligned,
 * so an aligned position is an aligned address.
 *
 * Errors are sticky: after the first failure (out of memory, 2 GiB limit, misuse) every call
 * does nothing and returns position 0; the caller checks fb->status once at the end.
 * Little-endian hosts only, like the rest of arenaplan.
 */
#ifndef AP_SRC_MODEL_FB_BUILDER_H
#define AP_SRC_MODEL_FB_BUILDER_H

#include "base/base.h"

/* FlatBuffers offsets are 32-bit and soffsets signed: a buffer must stay below 2 GiB. */
#define FB_MAX_SIZE ((size_t)INT32_MAX)
/* The most fields one table may set, and the largest field id. TFLite tables stay far below
 * both (the widest options table has 17 fields); the bound keeps a vtable (4 + 2 * (id + 1)
 * bytes) small enough to build on the stack. */
#define FB_MAX_FIELDS 32
#define FB_MAX_FIELD_ID 255

typedef struct fb_builder {
  const ap_allocator *alloc;
  uint8_t *raw; /* the allocation; buf is raw rounded up to 16 bytes */
  uint8_t *buf;
  size_t len, cap;
  ap_status status; /* AP_OK until the first failure */
  size_t *vtables;  /* positions of the distinct vtables written so far (shared by tables) */
  size_t vt_count, vt_cap;
} fb_builder;

typedef struct fb_field {
  uint16_t id;
  uint8_t size;  /* 1, 2, 4 or 8 */
  uint64_t bits; /* scalar value, little-endian low bytes; 0 for offsets */
  size_t pos;    /* absolute position once the table is written */
} fb_field;

typedef struct fb_table {
  fb_field f[FB_MAX_FIELDS];
  unsigned n;
  bool bad; /* a field beyond FB_MAX_FIELDS, a duplicate id or an id beyond FB_MAX_FIELD_ID */
} fb_table;

void fb_init(fb_builder *b, const ap_allocator *a);
/* Forgets the contents (keeps the memory). */
void fb_reset(fb_builder *b);
void fb_release(fb_builder *b);

/* Appends n bytes (zeros when p is NULL); returns their position. */
size_t fb_append(fb_builder *b, const void *p, size_t n);
/* Appends zeros until len % align == rem (align a power of two). */
void fb_pad(fb_builder *b, size_t align, size_t rem);
/* Stores a little-endian uint32 at pos (which must lie inside the buffer). */
void fb_put_u32(fb_builder *b, size_t pos, uint32_t v);
void fb_put_u64(fb_builder *b, size_t pos, uint64_t v);
/* Makes the uoffset field at `at` point to `target` (which must lie after it). */
void fb_link(fb_builder *b, size_t at, size_t target);

/* Root: a placeholder root offset and the 4-character file identifier, at position 0. */
void fb_begin_file(fb_builder *b, const char identifier[4]);

/* Tables: begin, add fields in any order, end. Scalars are stored as given, even when equal
 * to the schema default (callers skip defaults they do not want written). */
void fb_table_begin(fb_table *t);
void fb_table_scalar(fb_table *t, unsigned id, unsigned size, uint64_t bits);
/* An offset field (table, vector or string) to be linked once its target is written. */
void fb_table_offset(fb_table *t, unsigned id);
/* Writes the vtable (or reuses an identical one) and the table; returns the table position. */
size_t fb_table_end(fb_builder *b, fb_table *t);
/* The absolute position of field `id` after fb_table_end; 0 if the table has no such field. */
size_t fb_field_pos(const fb_table *t, unsigned id);
/* fb_link(b, fb_field_pos(t, id), target). */
void fb_table_link(fb_builder *b, const fb_table *t, unsigned id, size_t target);

/* A vector of n elements of elem_size bytes whose first element is aligned to `align` (at
 * least elem_size and 4). `data` NULL writes zeros. Returns the vector's position (its length
 * field, what offsets point to); the elements start 4 bytes later. */
size_t fb_vector(fb_builder *b, const void *data, size_t n, size_t elem_size, size_t align);
/* A string of n bytes (NUL appended). */
size_t fb_string(fb_builder *b, const char *s, size_t n);

#endif
