/* Copies of a verified model with one change, every other byte as it was: the operators of each
 * subgraph in a new order, or one more metadata entry with its buffer.
 *
 * Why patch instead of rebuilding with the writer: a rebuild would have to re-encode every
 * table (options of every op kind, quantization, signatures, fields newer than our schema),
 * and anything it missed would silently change the model. A patch touches only what it must.
 *
 * Reordering permutes a vector of offsets in place: each element is relative to its own slot,
 * so an element moved from slot i to slot j is re-based; it stays valid while the operator
 * tables lie after the vector (FlatBuffers writers put children first in build order, which
 * is after the parent in the file).
 *
 * Adding metadata cannot grow vectors in place, so a new root Model table is written in a
 * block inserted right after the file header: it points forward at the old model's vectors
 * (all offsets are relative, so the old bytes stay valid when shifted) and at new metadata
 * and buffers vectors holding the old entries plus the new one. The block is a multiple of 16
 * bytes long, which keeps every buffer's 16-byte alignment; Buffer.offset fields (absolute
 * positions of data stored after the FlatBuffer) are shifted by the same amount. */
#include "arenaplan/writer.h"
#include "model/model_internal.h"

#include <stdio.h>
#include <string.h>

#define MODEL_FIELDS 10 /* Model's fields in our schema: version, then nine offsets */

static ap_status fail(ap_model_patch *out, ap_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static ap_status fail(ap_model_patch *out, ap_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out->error, sizeof out->error, fmt, ap);
  va_end(ap);
  return s;
}

void ap_model_patch_free(ap_model_patch *p, const ap_allocator *a) {
  if (!p) return;
  ap_free(ap_alloc_or_default(a), p->bytes);
  p->bytes = NULL;
  p->size = 0;
}

static ap_status start(const ap_model *m, ap_model_patch *out) {
  if (!out) return AP_ERR_ARG;
  memset(out, 0, sizeof *out);
  if (!m || !m->ok) return fail(out, AP_ERR_ARG, "no model, or a model that failed to load");
  return AP_OK;
}

ap_status ap_model_patch_order(const ap_model *m, const uint32_t *order, size_t count,
                               const ap_allocator *a, ap_model_patch *out) {
  ap_status st = start(m, out);
  if (st) return st;
  a = ap_alloc_or_default(a);
  size_t total = 0;
  for (size_t sg = 0; sg < m->subgraphs.n; sg++)
    total += ap_model_op_count(m, sg);
  if (!order || count != total)
    return fail(out, AP_ERR_ARG, "%s: an order of %zu ops given, the model has %zu", m->name, count,
                total);
  uint8_t *b = ap_alloc(a, m->size ? m->size : 1);
  uint8_t *seen = ap_calloc(a, total ? total : 1, 1);
  if (!b || !seen) {
    ap_free(a, b);
    ap_free(a, seen);
    return fail(out, AP_ERR_NOMEM, "out of memory for a %zu-byte copy", m->size);
  }
  memcpy(b, m->bytes, m->size);
  size_t base = 0;
  for (size_t sg = 0; sg < m->subgraphs.n && !st; sg++) {
    size_t t = ap_model_subgraph_pos(m, sg);
    fb_vec ops = fb_vector(m->bytes, t, FB_SubGraph_operators);
    for (size_t k = 0; k < ops.n && !st; k++) {
      uint32_t from = order[base + k];
      if (from >= ops.n || seen[base + from]) {
        st = fail(out, AP_ERR_ARG,
                  "%s: subgraph %zu: the order is not a permutation of its %u ops "
                  "(position %zu holds %u)",
                  m->name, sg, ops.n, k, from);
        break;
      }
      seen[base + from] = 1;
      size_t target = fb_vec_ref(m->bytes, ops, from);
      size_t slot = ops.pos + 4 + 4 * k;
      if (target <= slot || target - slot > UINT32_MAX) {
        st = fail(out, AP_ERR_UNSUPPORTED,
                  "%s: subgraph %zu: operator %u lies before its vector; "
                  "cannot reorder in place",
                  m->name, sg, from);
        break;
      }
      uint32_t rel = (uint32_t)(target - slot);
      memcpy(b + slot, &rel, 4);
    }
    base += ops.n;
  }
  ap_free(a, seen);
  if (st) {
    ap_free(a, b);
    return st;
  }
  out->bytes = b;
  out->size = m->size;
  return AP_OK;
}

/* The new bytes being laid out: `at` only grows, every offset written points forward. */
typedef struct lay {
  uint8_t *b;
  size_t at;
} lay;

static void put_u16(lay *l, size_t pos, uint16_t v) {
  memcpy(l->b + pos, &v, 2);
}
static void put_u32(lay *l, size_t pos, uint32_t v) {
  memcpy(l->b + pos, &v, 4);
}
static void put_i32(lay *l, size_t pos, int32_t v) {
  memcpy(l->b + pos, &v, 4);
}
/* A uoffset at `pos` to `target` (> pos by construction). */
static void put_ref(lay *l, size_t pos, size_t target) {
  put_u32(l, pos, (uint32_t)(target - pos));
}
static size_t take(lay *l, size_t bytes, size_t align) {
  l->at = (l->at + align - 1) / align * align;
  size_t p = l->at;
  l->at += bytes;
  return p;
}

static bool is_replaced(const ap_model *m, size_t i, const char *name) {
  ap_metadata_info md;
  return ap_model_metadata(m, i, &md) == AP_OK && strcmp(md.name, name) == 0;
}

/* Writes the block into l (sizes were computed by a dry run with l->b == NULL: every put is
 * then skipped by the caller, so only `take` runs). Returns the Model table's position. */
static size_t lay_block(lay *l, const ap_model *m, size_t shift, const char *name, const void *data,
                        size_t size, size_t kept_meta) {
  const uint8_t *ob = m->bytes;
  bool w = l->b != NULL;
  size_t vt_fields = MODEL_FIELDS;
  size_t vt = take(l, 4 + 2 * vt_fields, 4);
  size_t tbl = take(l, 4 + 4 * MODEL_FIELDS, 4);
  size_t nbuf = m->buffers.n + 1;
  size_t mvec = take(l, 4 + 4 * (kept_meta + 1), 4);
  size_t bvec = take(l, 4 + 4 * nbuf, 4);
  size_t mvt = take(l, 8, 4), mtbl = take(l, 12, 4);
  size_t nlen = strlen(name);
  size_t str = take(l, 4 + nlen + 1, 4);
  size_t bvt = take(l, 6, 4), btbl = take(l, 8, 4);
  /* the data vector's bytes start 16-aligned (force_align: 16) */
  l->at = ((l->at + 4 + 15) / 16) * 16 - 4;
  size_t dvec = take(l, 4 + size, 4);
  if (!w) return tbl;

  size_t old_root = m->root;
  put_u16(l, vt, (uint16_t)(4 + 2 * vt_fields));
  put_u16(l, vt + 2, (uint16_t)(4 + 4 * MODEL_FIELDS));
  put_i32(l, tbl, (int32_t)(tbl - vt));
  for (unsigned f = 0; f < MODEL_FIELDS; f++) {
    size_t slot = tbl + 4 + 4 * f;
    size_t of = fb_field(ob, old_root, f);
    bool present = of != 0;
    if (f == FB_Model_metadata || f == FB_Model_buffers) present = true;
    put_u16(l, vt + 4 + 2 * f, present ? (uint16_t)(4 + 4 * f) : 0);
    if (!present) continue;
    if (f == FB_Model_version)
      put_u32(l, slot, fb_u32(ob, of));
    else if (f == FB_Model_metadata)
      put_ref(l, slot, mvec);
    else if (f == FB_Model_buffers)
      put_ref(l, slot, bvec);
    else
      put_ref(l, slot, shift + fb_deref(ob, of));
  }
  put_u32(l, mvec, (uint32_t)(kept_meta + 1));
  size_t k = 0;
  for (size_t i = 0; i < m->metadata.n; i++) {
    if (is_replaced(m, i, name)) continue;
    put_ref(l, mvec + 4 + 4 * k, shift + fb_vec_ref(ob, m->metadata, i));
    k++;
  }
  put_ref(l, mvec + 4 + 4 * k, mtbl);
  put_u32(l, bvec, (uint32_t)nbuf);
  for (size_t i = 0; i < m->buffers.n; i++)
    put_ref(l, bvec + 4 + 4 * i, shift + fb_vec_ref(ob, m->buffers, i));
  put_ref(l, bvec + 4 + 4 * m->buffers.n, btbl);
  /* Metadata {name, buffer} */
  put_u16(l, mvt, 8);
  put_u16(l, mvt + 2, 12);
  put_u16(l, mvt + 4, 4);
  put_u16(l, mvt + 6, 8);
  put_i32(l, mtbl, (int32_t)(mtbl - mvt));
  put_ref(l, mtbl + 4, str);
  put_u32(l, mtbl + 8, (uint32_t)m->buffers.n);
  put_u32(l, str, (uint32_t)nlen);
  memcpy(l->b + str + 4, name, nlen + 1);
  /* Buffer {data} */
  put_u16(l, bvt, 6);
  put_u16(l, bvt + 2, 8);
  put_u16(l, bvt + 4, 4);
  put_i32(l, btbl, (int32_t)(btbl - bvt));
  put_ref(l, btbl + 4, dvec);
  put_u32(l, dvec, (uint32_t)size);
  if (size) memcpy(l->b + dvec + 4, data, size);
  return tbl;
}

ap_status ap_model_patch_metadata(const ap_model *m, const char *name, const void *data,
                                  size_t size, const ap_allocator *a, ap_model_patch *out) {
  ap_status st = start(m, out);
  if (st) return st;
  a = ap_alloc_or_default(a);
  if (!name || !name[0] || (size && !data))
    return fail(out, AP_ERR_ARG, "metadata needs a name and its bytes");
  if (strlen(name) > 4096 || size > (size_t)INT32_MAX)
    return fail(out, AP_ERR_OVERFLOW, "metadata of %zu bytes is too large", size);
  /* Fields past our schema's could be offsets we would not re-base. */
  size_t vt = fb_vtable(m->bytes, m->root);
  uint16_t vt_size = fb_u16(m->bytes, vt);
  for (size_t e = 4 + 2 * MODEL_FIELDS; e + 2 <= vt_size; e += 2)
    if (fb_u16(m->bytes, vt + e))
      return fail(out, AP_ERR_UNSUPPORTED,
                  "%s: the Model table has fields newer than arenaplan's "
                  "schema; not rewritten",
                  m->name);
  size_t kept = 0;
  for (size_t i = 0; i < m->metadata.n; i++)
    kept += !is_replaced(m, i, name);

  lay dry = {NULL, 8};
  lay_block(&dry, m, 0, name, data, size, kept);
  size_t shift = (dry.at + 15) / 16 * 16, total;
  if (!ap_add_size(shift, m->size, &total) || total > (size_t)INT32_MAX)
    return fail(out, AP_ERR_OVERFLOW, "%s: the model would exceed 2 GiB", m->name);
  uint8_t *b = ap_calloc(a, total, 1);
  if (!b) return fail(out, AP_ERR_NOMEM, "out of memory for a %zu-byte model", total);
  memcpy(b + shift, m->bytes, m->size);
  memcpy(b + 4, m->bytes + 4, 4); /* the file identifier, "TFL3" */
  lay l = {b, 8};
  size_t root = lay_block(&l, m, shift, name, data, size, kept);
  put_u32(&l, 0, (uint32_t)root);
  /* Data stored after the FlatBuffer moved with it. */
  for (size_t i = 0; i < m->buffers.n; i++) {
    size_t bt = fb_vec_ref(m->bytes, m->buffers, i);
    size_t f = fb_field(m->bytes, bt, FB_Buffer_offset);
    uint64_t o = f ? fb_u64(m->bytes, f) : 0;
    if (o > 1) {
      o += shift;
      memcpy(b + shift + f, &o, 8);
    }
  }
  out->bytes = b;
  out->size = total;
  return AP_OK;
}
