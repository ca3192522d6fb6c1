/* A model handle over bytes the plan's fingerprint vouches for: none of the verifier's code
 * (tables, vectors, strings) is linked into a firmware that uses it. */
#include "model/model_internal.h"
#include "model/trusted.h"

#include <string.h>

size_t ap_model_trusted_bytes(void) {
  return (sizeof(ap_model) + 1 + 15) & ~(size_t)15; /* the handle and an empty name */
}

uint32_t ap_model_fingerprint(const void *data, size_t size) {
  const uint8_t *b = data;
  uint32_t h = 2166136261u ^ (uint32_t)size;
  size_t i = 0;
  for (; i + 4 <= size; i += 4) {
    uint32_t w = (uint32_t)b[i] | (uint32_t)b[i + 1] << 8 | (uint32_t)b[i + 2] << 16 |
                 (uint32_t)b[i + 3] << 24;
    h = (h ^ w) * 16777619u;
  }
  if (i < size) {
    uint32_t w = 0;
    for (size_t k = 0; i + k < size; k++)
      w |= (uint32_t)b[i + k] << (8 * k);
    h = (h ^ w) * 16777619u;
  }
  return h;
}

/* A top-level vector inside the file (its count read from the bytes). */
static bool vector_fits(const ap_model *m, fb_vec v, size_t elem) {
  size_t bytes;
  return v.n == 0 ||
         (ap_mul_size(v.n, elem, &bytes) && v.pos + 4 <= m->size && bytes <= m->size - v.pos - 4);
}

ap_status ap_model_open_trusted(const void *data, size_t size, void *mem, ap_model **out) {
  if (!out || !mem || !data || (uintptr_t)data % 8 || (uintptr_t)mem % 8) return AP_ERR_ARG;
  *out = NULL;
  ap_model *m = mem;
  memset(m, 0, sizeof *m);
  m->alloc = ap_no_heap(); /* the handle is the caller's memory: destroying it frees nothing */
  m->name = (char *)(m + 1);
  m->name[0] = '\0';
  m->bytes = data;
  m->size = size;
  const uint8_t *b = data;
  if (size < 8 || memcmp(b + 4, "TFL3", 4) != 0) return AP_ERR_FORMAT;
  uint32_t root = fb_u32(b, 0);
  if (root % 4 || root < 8 || (size_t)root + 4 > size) return AP_ERR_FORMAT;
  m->root = root;
  m->opcodes = fb_vector(b, root, FB_Model_operator_codes);
  m->subgraphs = fb_vector(b, root, FB_Model_subgraphs);
  m->buffers = fb_vector(b, root, FB_Model_buffers);
  m->metadata = fb_vector(b, root, FB_Model_metadata);
  m->signatures = fb_vector(b, root, FB_Model_signature_defs);
  if (m->subgraphs.n == 0 || !vector_fits(m, m->opcodes, 4) || !vector_fits(m, m->subgraphs, 4) ||
      !vector_fits(m, m->buffers, 4))
    return AP_ERR_FORMAT;
  m->ok = true;
  *out = m;
  return AP_OK;
}
