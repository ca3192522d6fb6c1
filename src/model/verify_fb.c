#include "model/verify_fb.h"

#include "base/base.h"
#include "model/flatbuf.h"
#include "model/schema_gen.h"

#include <stdarg.h>
#include <stdio.h>

void fb_verifier_init(fb_verifier *v, const uint8_t *b, size_t size) {
  memset(v, 0, sizeof *v);
  v->b = b;
  v->size = size;
  /* Every table and every vector item takes at least 4 bytes, so an honest file needs well
   * under size/2 units; the constant keeps tiny files from tripping it. */
  v->work_limit = (uint64_t)size / 2 + 65536;
}

static bool failf(fb_verifier *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool failf(fb_verifier *v, const char *fmt, ...) {
  size_t o = 0;
  for (unsigned i = 0; i < v->npath && o < sizeof v->msg; i++) {
    int n = v->path[i].index >= 0
                ? snprintf(v->msg + o, sizeof v->msg - o, "%s%s[%lld]", i ? "." : "",
                           v->path[i].name, (long long)v->path[i].index)
                : snprintf(v->msg + o, sizeof v->msg - o, "%s%s", i ? "." : "", v->path[i].name);
    if (n < 0) break;
    o += (size_t)n;
  }
  if (o + 2 < sizeof v->msg && v->npath) {
    memcpy(v->msg + o, ": ", 3);
    o += 2;
  }
  if (o < sizeof v->msg) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->msg + o, sizeof v->msg - o, fmt, ap);
    va_end(ap);
  }
  return false;
}

bool fb_verifier_spend(fb_verifier *v, uint64_t n) {
  v->work += n;
  if (v->work > v->work_limit)
    return failf(v,
                 "the file reuses its tables or vectors too often (verification work over %llu "
                 "for %zu bytes): shared or looping offsets",
                 (unsigned long long)v->work_limit, v->size);
  return true;
}

static bool in_file(const fb_verifier *v, size_t pos, size_t len) {
  return pos <= v->size && len <= v->size - pos;
}

static void push(fb_verifier *v, const char *name) {
  if (v->npath < sizeof v->path / sizeof v->path[0]) {
    v->path[v->npath].name = name;
    v->path[v->npath].index = -1;
  }
  v->npath++;
}

static void pop(fb_verifier *v) {
  v->npath--;
}

static void set_index(fb_verifier *v, size_t i) {
  if (v->npath && v->npath <= sizeof v->path / sizeof v->path[0])
    v->path[v->npath - 1].index = (int64_t)i;
}

/* Follows the uoffset at `at` (which the caller has bounds-checked). */
static bool follow(fb_verifier *v, size_t at, size_t *target) {
  uint32_t o = fb_u32(v->b, at);
  /* As FlatBuffers' own verifier: an offset may not point to itself or wrap past 2^31. */
  if (o == 0 || o > INT32_MAX) return failf(v, "invalid offset %u at %zu", o, at);
  size_t t;
  if (!ap_add_size(at, o, &t) || t >= v->size)
    return failf(v, "offset at %zu points to %llu, past the end of the file (%zu bytes)", at,
                 (unsigned long long)at + o, v->size);
  *target = t;
  return true;
}

static bool vector(fb_verifier *v, size_t at, size_t item, size_t *pos, uint32_t *n) {
  size_t p = 0;
  if (!follow(v, at, &p)) return false;
  if (p % 4) return failf(v, "vector at offset %zu is not 4-byte aligned", p);
  if (!in_file(v, p, 4))
    return failf(v, "vector at offset %zu runs past the end of the file (%zu bytes)", p, v->size);
  uint32_t count = fb_u32(v->b, p);
  size_t bytes;
  if (!ap_mul_size(count, item, &bytes) || !in_file(v, p + 4, bytes))
    return failf(v,
                 "vector at offset %zu of %u items x %zu bytes runs past the end of the file "
                 "(%zu bytes)",
                 p, count, item, v->size);
  if (item == 8 && (p + 4) % 8)
    return failf(v, "vector of 8-byte items at offset %zu is not 8-byte aligned", p + 4);
  *pos = p;
  *n = count;
  return true;
}

static bool string(fb_verifier *v, size_t at) {
  size_t p = 0;
  uint32_t n;
  if (!vector(v, at, 1, &p, &n)) return false;
  /* p + 4 + n <= size was checked; the terminator needs one byte more. */
  if (p + 4 + (size_t)n >= v->size || v->b[p + 4 + n] != 0)
    return failf(v, "string at offset %zu (%u bytes) is not NUL-terminated", p, n);
  return true;
}

static size_t field_size(unsigned kind) {
  switch (kind) {
  case FB_SCALAR1:
  case FB_UTYPE: return 1;
  case FB_SCALAR2: return 2;
  case FB_SCALAR8: return 8;
  default: return 4;
  }
}

static bool field(fb_verifier *v, size_t at, const fb_slot *f, uint8_t utype) {
  size_t p = 0;
  uint32_t n;
  switch (f->kind) {
  case FB_STRING: return string(v, at);
  case FB_VEC1: return vector(v, at, 1, &p, &n);
  case FB_VEC2: return vector(v, at, 2, &p, &n);
  case FB_VEC4: return vector(v, at, 4, &p, &n);
  case FB_VEC8: return vector(v, at, 8, &p, &n);
  case FB_VEC_STRING:
  case FB_VEC_TABLE:
    if (!vector(v, at, 4, &p, &n)) return false;
    for (uint32_t i = 0; i < n; i++) {
      set_index(v, i);
      size_t item = p + 4 + 4 * (size_t)i, t = 0;
      if (f->kind == FB_VEC_STRING) {
        if (!fb_verifier_spend(v, 1) || !string(v, item)) return false;
      } else if (!follow(v, item, &t) || !fb_verify_table(v, t, f->ref)) {
        return false;
      }
    }
    return true;
  case FB_TABLE: return follow(v, at, &p) && fb_verify_table(v, p, f->ref);
  case FB_UNION: {
    const fb_union_desc *u = &fb_unions[f->ref];
    if (utype == 0) return true; /* NONE: the value is never read */
    if (!follow(v, at, &p)) return false;
    /* A member this schema does not know (a newer file) is never read either. */
    return utype >= u->count || fb_verify_table(v, p, u->members[utype]);
  }
  default: return true; /* scalars: size and alignment checked by the caller */
  }
}

bool fb_verify_table(fb_verifier *v, size_t t, unsigned table_id) {
  const fb_table_desc *d = &fb_tables[table_id];
  if (v->depth >= FB_MAX_DEPTH) return failf(v, "tables nested deeper than %d", FB_MAX_DEPTH);
  if (!fb_verifier_spend(v, 1)) return false;
  if (t % 4) return failf(v, "%s table at offset %zu is not 4-byte aligned", d->name, t);
  if (!in_file(v, t, 4))
    return failf(v, "%s table at offset %zu runs past the end of the file (%zu bytes)", d->name, t,
                 v->size);
  int64_t vt = (int64_t)t - (int64_t)fb_i32(v->b, t);
  if (vt < 0 || !in_file(v, (size_t)vt, 4))
    return failf(v, "%s table at offset %zu: vtable at %lld is outside the file (%zu bytes)",
                 d->name, t, (long long)vt, v->size);
  if (vt % 2)
    return failf(v, "%s table at offset %zu: vtable at %lld is not 2-byte aligned", d->name, t,
                 (long long)vt);
  size_t vpos = (size_t)vt;
  uint16_t vsize = fb_u16(v->b, vpos), tsize = fb_u16(v->b, vpos + 2);
  if (vsize < 4 || vsize % 2 || !in_file(v, vpos, vsize))
    return failf(v, "%s table at offset %zu: vtable at %zu has bad size %u (file is %zu bytes)",
                 d->name, t, vpos, vsize, v->size);
  if (tsize < 4 || !in_file(v, t, tsize))
    return failf(v, "%s table at offset %zu: its %u bytes run past the end of the file (%zu bytes)",
                 d->name, t, tsize, v->size);
  unsigned slots = (unsigned)(vsize - 4) / 2;
  v->depth++;
  for (unsigned i = 0; i < d->nfields && i < slots; i++) {
    const fb_slot *f = &d->fields[i];
    uint16_t fo = fb_u16(v->b, vpos + 4 + 2 * i);
    if (!fo || f->kind == FB_SKIP) continue;
    size_t fs = field_size(f->kind);
    push(v, f->name);
    if ((size_t)fo + fs > tsize) {
      return failf(v, "field at table offset %u (%zu bytes) runs past the %s table's %u bytes", fo,
                   fs, d->name, tsize);
    }
    if ((t + fo) % fs) return failf(v, "field at offset %zu is not %zu-byte aligned", t + fo, fs);
    uint8_t utype = 0;
    if (f->kind == FB_UNION && i > 0) {
      uint16_t to = fb_u16(v->b, vpos + 4 + 2 * (i - 1));
      if (to && (size_t)to + 1 <= tsize) utype = fb_u8(v->b, t + to);
    }
    if (!field(v, t + fo, f, utype)) return false;
    pop(v);
  }
  v->depth--;
  return true;
}
