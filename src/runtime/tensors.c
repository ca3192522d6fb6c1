/* Tensors: current dims and bytes, and the accessors that describe a tensor by value (from
 * the compact record and the model, read in place). */
#include "runtime_internal.h"

#include <string.h>

static bool dims_bytes(int type, const int32_t *dims, int rank, size_t *out) {
  size_t n = 1, bits;
  for (int i = 0; i < rank; i++)
    if (dims[i] < 0 || !ap_mul_size(n, (size_t)dims[i], &n)) return false;
  /* A resource tensor holds its variable's id (int32), as in TFLite Micro (VAR_HANDLE writes it,
   * READ/ASSIGN_VARIABLE read it): 4 bytes per element in the arena. */
  unsigned width = type == AP_RESOURCE ? 32 : ap_dtype_bits(type);
  if (!ap_mul_size(n, width, &bits)) return false;
  *out = bits / 8 + (bits % 8 != 0);
  return true;
}

size_t rt_tensor_bytes(const rt_tensor *t) {
  size_t b = 0;
  dims_bytes(t->type, t->dims, t->rank, &b); /* checked when the dims were set */
  return b;
}

ap_status rt_set_dims(ap_interpreter *it, rt_tensor *t, const int32_t *dims, int rank,
                      bool may_allocate) {
  size_t bytes;
  if (rank < 0 || rank > AP_MAX_DIMS || (rank > 0 && !dims) ||
      !dims_bytes(t->type, dims, rank, &bytes))
    return rt_fail(it, AP_ERR_ARG,
                   "invalid shape of rank %d (at most %d dims, each >= 0, whose product fits "
                   "in memory)",
                   rank, AP_MAX_DIMS);
  if (rank == t->rank && (rank == 0 || memcmp(dims, t->dims, (size_t)rank * 4) == 0)) return AP_OK;
  if (rank == t->rank && (t->flags & RT_OWNED_DIMS)) {
    memmove((int32_t *)t->dims, dims, (size_t)rank * 4);
    return AP_OK;
  }
  if (!may_allocate)
    return rt_fail(it, AP_ERR_NOT_ALLOCATED,
                   "a shape changed rank (%d to %d): call ap_interpreter_allocate() again", t->rank,
                   rank);
  int32_t *p = rt_tables_alloc(it, rank ? (size_t)rank * 4 : 4);
  if (!p) return rt_nomem(it);
  if (rank) memcpy(p, dims, (size_t)rank * 4);
  t->dims = p;
  t->rank = (uint16_t)rank;
  t->flags |= RT_OWNED_DIMS;
  return AP_OK;
}

/* A string tensor's bytes: its buffer's last offset (runtime-written or checked buffers only). */
static size_t string_bytes(const void *data) {
  int32_t n, end;
  memcpy(&n, data, 4);
  memcpy(&end, (const uint8_t *)data + 4 * (1 + (size_t)n), 4);
  return (size_t)end;
}

bool rt_fill_tensor(const ap_interpreter *it, size_t sg, size_t t, ap_tensor *out) {
  if (!it || !it->sg || !out || sg >= it->sg_count || t >= it->sg[sg].tensor_count) return false;
  const rt_tensor *r = rt_rec(it, sg, t);
  ap_tensor_info ti;
  if (ap_model_tensor(it->model, sg, t, &ti) != AP_OK) return false;
  memset(out, 0, sizeof *out);
  out->name = ti.name;
  if (r) {
    out->type = r->type;
    out->rank = r->rank;
    if (r->rank) memcpy(out->dims, r->dims, (size_t)r->rank * 4);
    out->data = r->data;
    out->bytes = r->data || !(r->flags & RT_DYNAMIC) ? rt_tensor_bytes(r) : 0;
    if (r->type == AP_STRING && r->data) out->bytes = string_bytes(r->data); /* its values' */
  } else {
    size_t size = 0;
    out->type = ti.type;
    out->rank = (int)ti.shape.n; /* at most AP_MAX_DIMS: checked at create */
    if (ti.shape.n) memcpy(out->dims, ti.shape.v, ti.shape.n * 4);
    out->data = (void *)ap_model_buffer(it->model, ti.buffer, &size);
    /* Strings, and sparse tensors (compressed): what the buffer holds. */
    out->bytes = ti.bytes && ti.bytes <= size ? ti.bytes : size;
  }
  out->scales = ti.scale;
  out->zero_points = ti.zero_point;
  out->quant_count = ti.scale_count;
  out->scale = ti.scale_count ? ti.scale[0] : 0.0f;
  out->zero_point = ti.zero_point_count ? (int32_t)ti.zero_point[0] : 0;
  out->quantized_dimension = ti.quantized_dimension;
  out->is_constant = r == NULL;
  out->is_variable = r && (r->flags & RT_VARIABLE);
  out->is_dynamic = r && (r->flags & RT_DYNAMIC);
  return true;
}

size_t ap_interpreter_input_count(const ap_interpreter *it) {
  return it && it->sg ? it->input_count : 0;
}
size_t ap_interpreter_output_count(const ap_interpreter *it) {
  return it && it->sg ? ap_model_subgraph_outputs(it->model, 0).n : 0;
}

static ap_status io(const ap_interpreter *it, size_t i, ap_tensor *out, bool input) {
  if (!it || !out) return AP_ERR_ARG;
  if (!it->sg) return AP_ERR_ARG;
  ap_ivec v =
      input ? ap_model_subgraph_inputs(it->model, 0) : ap_model_subgraph_outputs(it->model, 0);
  if (i >= v.n || v.v[i] < 0) return AP_ERR_RANGE;
  return rt_fill_tensor(it, 0, (size_t)v.v[i], out) ? AP_OK : AP_ERR_RANGE;
}

ap_status ap_interpreter_input(const ap_interpreter *it, size_t i, ap_tensor *out) {
  return io(it, i, out, true);
}
ap_status ap_interpreter_output(const ap_interpreter *it, size_t i, ap_tensor *out) {
  return io(it, i, out, false);
}

ap_status ap_interpreter_tensor(const ap_interpreter *it, size_t subgraph, size_t tensor,
                                ap_tensor *out) {
  if (!it || !out || !it->sg) return AP_ERR_ARG;
  return rt_fill_tensor(it, subgraph, tensor, out) ? AP_OK : AP_ERR_RANGE;
}

ap_status ap_interpreter_tensor_by_name(const ap_interpreter *it, const char *name, ap_tensor *out,
                                        size_t *subgraph, size_t *tensor) {
  if (!it || !out || !name || !it->sg) return AP_ERR_ARG;
  for (size_t sg = 0; sg < it->sg_count; sg++)
    for (size_t t = 0; t < it->sg[sg].tensor_count; t++) {
      ap_tensor_info ti;
      if (ap_model_tensor(it->model, sg, t, &ti) != AP_OK || strcmp(ti.name, name) != 0) continue;
      if (subgraph) *subgraph = sg;
      if (tensor) *tensor = t;
      return rt_fill_tensor(it, sg, t, out) ? AP_OK : AP_ERR_RANGE;
    }
  return AP_ERR_RANGE;
}

ap_status ap_interpreter_memory(const ap_interpreter *it, ap_memory_usage *out) {
  if (!it || !out) return AP_ERR_ARG;
  if (!it->allocated) return AP_ERR_NOT_ALLOCATED;
  uint64_t arena16;
  ap_align_up(it->arena_bytes, 16, &arena16);
  out->arena = it->arena_bytes;
  out->persistent = it->persistent_bytes;
  out->tables = it->tables_bytes;
  out->total = arena16 + it->persistent_bytes + it->tables_bytes;
  out->arena_lower_bound = it->arena_lower_bound;
  return AP_OK;
}
