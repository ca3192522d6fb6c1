#include "model/fb_builder.h"

#include <string.h>

void fb_init(fb_builder *b, const ap_allocator *a) {
  memset(b, 0, sizeof *b);
  b->alloc = ap_alloc_or_default(a);
}

void fb_reset(fb_builder *b) {
  b->len = 0;
  b->vt_count = 0;
  b->status = AP_OK;
}

void fb_release(fb_builder *b) {
  ap_free(b->alloc, b->raw);
  ap_free(b->alloc, b->vtables);
  const ap_allocator *a = b->alloc;
  fb_init(b, a);
}

static bool fail(fb_builder *b, ap_status s) {
  if (b->status == AP_OK) b->status = s;
  return false;
}

/* Makes room for `extra` more bytes. The buffer is moved by hand (no realloc in the
 * allocator interface) and re-aligned to 16 bytes, the strongest alignment a model needs. */
static bool reserve(fb_builder *b, size_t extra) {
  if (b->status != AP_OK) return false;
  size_t need;
  if (!ap_add_size(b->len, extra, &need) || need > FB_MAX_SIZE) return fail(b, AP_ERR_OVERFLOW);
  if (need <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 1024;
  while (cap < need)
    cap = cap > FB_MAX_SIZE / 2 ? FB_MAX_SIZE : cap * 2;
  uint8_t *raw = ap_alloc(b->alloc, cap + 15);
  if (!raw) return fail(b, AP_ERR_NOMEM);
  uint8_t *buf = raw + ((16 - (uintptr_t)raw % 16) % 16);
  if (b->len) memcpy(buf, b->buf, b->len);
  ap_free(b->alloc, b->raw);
  b->raw = raw;
  b->buf = buf;
  b->cap = cap;
  return true;
}

size_t fb_append(fb_builder *b, const void *p, size_t n) {
  if (!reserve(b, n)) return 0;
  size_t pos = b->len;
  if (n) {
    if (p)
      memcpy(b->buf + pos, p, n);
    else
      memset(b->buf + pos, 0, n);
  }
  b->len += n;
  return pos;
}

void fb_pad(fb_builder *b, size_t align, size_t rem) {
  size_t n = (rem - b->len % align + align) % align;
  fb_append(b, NULL, n);
}

static bool inside(fb_builder *b, size_t pos, size_t n) {
  if (b->status != AP_OK) return false;
  if (pos > b->len || b->len - pos < n) return fail(b, AP_ERR_ARG);
  return true;
}

void fb_put_u32(fb_builder *b, size_t pos, uint32_t v) {
  if (!inside(b, pos, 4)) return;
  for (int i = 0; i < 4; i++)
    b->buf[pos + i] = (uint8_t)(v >> (8 * i));
}

void fb_put_u64(fb_builder *b, size_t pos, uint64_t v) {
  if (!inside(b, pos, 8)) return;
  for (int i = 0; i < 8; i++)
    b->buf[pos + i] = (uint8_t)(v >> (8 * i));
}

void fb_link(fb_builder *b, size_t at, size_t target) {
  if (b->status != AP_OK) return;
  /* A zero position means "no such field"; a backward target would be a negative uoffset. */
  if (at == 0 || target <= at) {
    fail(b, AP_ERR_ARG);
    return;
  }
  fb_put_u32(b, at, (uint32_t)(target - at));
}

void fb_begin_file(fb_builder *b, const char identifier[4]) {
  fb_append(b, NULL, 4);
  fb_append(b, identifier, 4);
}

void fb_table_begin(fb_table *t) {
  t->n = 0;
  t->bad = false;
}

static fb_field *add_field(fb_table *t, unsigned id, unsigned size) {
  if (t->n >= FB_MAX_FIELDS || id > FB_MAX_FIELD_ID) {
    t->bad = true;
    return NULL;
  }
  for (unsigned i = 0; i < t->n; i++)
    if (t->f[i].id == id) {
      t->bad = true;
      return NULL;
    }
  fb_field *f = &t->f[t->n++];
  f->id = (uint16_t)id;
  f->size = (uint8_t)size;
  f->bits = 0;
  f->pos = 0;
  return f;
}

void fb_table_scalar(fb_table *t, unsigned id, unsigned size, uint64_t bits) {
  if (size != 1 && size != 2 && size != 4 && size != 8) {
    t->bad = true;
    return;
  }
  fb_field *f = add_field(t, id, size);
  if (f) f->bits = bits;
}

void fb_table_offset(fb_table *t, unsigned id) {
  add_field(t, id, 4);
}

/* An identical vtable written earlier, or 0. Only distinct vtables are listed, so the scan
 * stays short even for models with thousands of tensors. */
static size_t find_vtable(const fb_builder *b, const uint8_t *vt, size_t size) {
  for (size_t i = 0; i < b->vt_count; i++) {
    size_t p = b->vtables[i];
    if (b->buf[p] == vt[0] && b->buf[p + 1] == vt[1] && memcmp(b->buf + p, vt, size) == 0) return p;
  }
  return 0;
}

static void remember_vtable(fb_builder *b, size_t pos) {
  if (b->vt_count == b->vt_cap) {
    size_t cap = b->vt_cap ? b->vt_cap * 2 : 16;
    size_t *v = ap_calloc(b->alloc, cap, sizeof *v);
    if (!v) {
      fail(b, AP_ERR_NOMEM);
      return;
    }
    if (b->vt_count) memcpy(v, b->vtables, b->vt_count * sizeof *v);
    ap_free(b->alloc, b->vtables);
    b->vtables = v;
    b->vt_cap = cap;
  }
  b->vtables[b->vt_count++] = pos;
}

size_t fb_table_end(fb_builder *b, fb_table *t) {
  if (t->bad) fail(b, AP_ERR_ARG);
  if (b->status != AP_OK) return 0;

  /* Larger fields first, each aligned to its size: no padding between fields is needed
   * beyond what the 4-byte soffset at the table start leaves before an 8-byte field. */
  unsigned order[FB_MAX_FIELDS];
  unsigned max_id = 0, max_size = 4;
  for (unsigned i = 0; i < t->n; i++) {
    order[i] = i;
    if (t->f[i].id > max_id) max_id = t->f[i].id;
    if (t->f[i].size > max_size) max_size = t->f[i].size;
  }
  for (unsigned i = 1; i < t->n; i++)
    for (unsigned j = i; j > 0 && t->f[order[j]].size > t->f[order[j - 1]].size; j--) {
      unsigned tmp = order[j];
      order[j] = order[j - 1];
      order[j - 1] = tmp;
    }
  size_t rel[FB_MAX_FIELDS];
  size_t cursor = 4;
  for (unsigned k = 0; k < t->n; k++) {
    fb_field *f = &t->f[order[k]];
    cursor = (cursor + f->size - 1) / f->size * f->size;
    rel[order[k]] = cursor;
    cursor += f->size;
  }
  size_t table_size = cursor;
  size_t vt_size = 4 + 2 * (t->n ? (size_t)max_id + 1 : 0);
  if (table_size > UINT16_MAX) {
    fail(b, AP_ERR_ARG);
    return 0;
  }

  uint8_t vt[4 + 2 * (FB_MAX_FIELD_ID + 1)];
  memset(vt, 0, vt_size);
  vt[0] = (uint8_t)vt_size;
  vt[1] = (uint8_t)(vt_size >> 8);
  vt[2] = (uint8_t)table_size;
  vt[3] = (uint8_t)(table_size >> 8);
  for (unsigned i = 0; i < t->n; i++) {
    size_t slot = 4 + 2 * (size_t)t->f[i].id;
    vt[slot] = (uint8_t)rel[i];
    vt[slot + 1] = (uint8_t)(rel[i] >> 8);
  }

  size_t vt_pos = find_vtable(b, vt, vt_size);
  if (!vt_pos) {
    fb_pad(b, 2, 0);
    vt_pos = fb_append(b, vt, vt_size);
    remember_vtable(b, vt_pos);
  }
  fb_pad(b, max_size, 0);
  size_t start = fb_append(b, NULL, table_size);
  if (b->status != AP_OK) return 0;
  fb_put_u32(b, start, (uint32_t)(start - vt_pos)); /* soffset: the vtable lies before */
  for (unsigned i = 0; i < t->n; i++) {
    fb_field *f = &t->f[i];
    f->pos = start + rel[i];
    for (unsigned k = 0; k < f->size; k++)
      b->buf[f->pos + k] = (uint8_t)(f->bits >> (8 * k));
  }
  return start;
}

size_t fb_field_pos(const fb_table *t, unsigned id) {
  for (unsigned i = 0; i < t->n; i++)
    if (t->f[i].id == id) return t->f[i].pos;
  return 0;
}

void fb_table_link(fb_builder *b, const fb_table *t, unsigned id, size_t target) {
  fb_link(b, fb_field_pos(t, id), target);
}

size_t fb_vector(fb_builder *b, const void *data, size_t n, size_t elem_size, size_t align) {
  size_t bytes;
  if (n > UINT32_MAX || !ap_mul_size(n, elem_size, &bytes)) {
    fail(b, AP_ERR_OVERFLOW);
    return 0;
  }
  if (align < 4) align = 4;
  if (align < elem_size) align = elem_size;
  fb_pad(b, align, align - 4); /* the elements, 4 bytes after the length, land aligned */
  size_t pos = fb_append(b, NULL, 4);
  fb_put_u32(b, pos, (uint32_t)n);
  fb_append(b, data, bytes);
  return b->status == AP_OK ? pos : 0;
}

size_t fb_string(fb_builder *b, const char *s, size_t n) {
  if (n >= UINT32_MAX) {
    fail(b, AP_ERR_OVERFLOW);
    return 0;
  }
  fb_pad(b, 4, 0);
  size_t pos = fb_append(b, NULL, 4);
  fb_put_u32(b, pos, (uint32_t)n);
  fb_append(b, s, n);
  fb_append(b, NULL, 1);
  return b->status == AP_OK ? pos : 0;
}
