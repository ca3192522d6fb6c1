/* Offline plans stored in a model: the "OfflineMemoryAllocation" metadata (tflite-micro
 * docs/memory_management.md; micro_allocation_info.cc GetOfflinePlannedOffsets). TFLite Micro
 * checks only the count; what its allocator then does with the offsets is src/tflm's job. The
 * words are little-endian, as TFLite's FlatBuffers are: read as host words (little-endian hosts
 * only, like the rest of the reader). */
#include "model/model_internal.h"

#include <stdio.h>
#include <string.h>

static size_t total_tensors(const ap_model *m) {
  size_t n = 0;
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    n += ap_model_tensor_count(m, sg);
  return n;
}

#define FAIL(s, ...) (err && err_size ? snprintf(err, err_size, __VA_ARGS__) : 0, (s))

void ap_offline_plan_free(ap_offline_plan *p, const ap_allocator *a) {
  if (!p) return;
  ap_free(ap_alloc_or_default(a), p->offsets);
  memset(p, 0, sizeof *p);
}

ap_status ap_model_offline_plan(const ap_model *m, const ap_allocator *a, ap_offline_plan *out,
                                bool *found, char *err, size_t err_size) {
  if (!out || !found) return AP_ERR_ARG;
  memset(out, 0, sizeof *out);
  *found = false;
  if (!m) return FAIL(AP_ERR_ARG, "no model");
  a = ap_alloc_or_default(a);
  for (size_t i = 0; i < ap_model_metadata_count(m); i++) {
    ap_metadata_info md;
    if (ap_model_metadata(m, i, &md) != AP_OK || strcmp(md.name, AP_OFFLINE_PLAN_METADATA))
      continue;
    *found = true;
    size_t size;
    const uint8_t *b = ap_model_buffer(m, md.buffer, &size);
    if (!b || size < 12)
      return FAIL(AP_ERR_FORMAT, "%s: buffer %u holds %zu bytes, fewer than its 3-word header",
                  AP_OFFLINE_PLAN_METADATA, md.buffer, b ? size : 0);
    uint32_t w[3];
    memcpy(w, b, sizeof w);
    size_t want = total_tensors(m);
    if (w[2] != want)
      return FAIL(AP_ERR_FORMAT,
                  "%s: %u offsets, the model has %zu tensors (TFLite Micro refuses it)",
                  AP_OFFLINE_PLAN_METADATA, w[2], want);
    if ((size - 12) / 4 < want)
      return FAIL(AP_ERR_FORMAT, "%s: %zu offsets announced, the buffer holds %zu",
                  AP_OFFLINE_PLAN_METADATA, want, (size - 12) / 4);
    out->version = w[0];
    out->subgraphs = w[1];
    out->count = want;
    out->offsets = ap_calloc(a, want ? want : 1, sizeof *out->offsets);
    if (!out->offsets) return FAIL(AP_ERR_NOMEM, "out of memory");
    memcpy(out->offsets, b + 12, want * sizeof *out->offsets);
    return AP_OK;
  }
  return AP_OK;
}

ap_status ap_offline_plan_encode(const ap_offline_plan *p, const ap_allocator *a, uint8_t **bytes,
                                 size_t *size) {
  if (!p || !bytes || !size || (p->count && !p->offsets)) return AP_ERR_ARG;
  *bytes = NULL;
  *size = 0;
  size_t n;
  if (p->count > UINT32_MAX || !ap_mul_size(p->count + 3, 4, &n)) return AP_ERR_OVERFLOW;
  uint8_t *b = ap_alloc(ap_alloc_or_default(a), n);
  if (!b) return AP_ERR_NOMEM;
  uint32_t w[3] = {p->version, p->subgraphs, (uint32_t)p->count};
  memcpy(b, w, sizeof w);
  if (p->count) memcpy(b + 12, p->offsets, p->count * 4);
  *bytes = b;
  *size = n;
  return AP_OK;
}
