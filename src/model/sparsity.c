/* A tensor's sparsity parameters (Tensor.sparsity): read in place, verified at load. Apart from
 * access.c, so that a firmware reading tensors links none of it. */
#include "model/model_internal.h"

#include <string.h>

static ap_ivec ivec(const ap_model *m, fb_vec v) {
  return (ap_ivec){fb_vec_data(m->bytes, v), v.n};
}

/* A SparseIndexVector union member's values (Int32Vector, Uint16Vector or Uint8Vector). */
static void index_vector(const uint8_t *b, size_t dm, unsigned type_id, unsigned id,
                         ap_sparse_index *out) {
  static const int types[] = {0, AP_INT32, AP_UINT16, AP_UINT8};
  uint8_t type = fb_get_u8(b, dm, type_id, 0);
  size_t t = type >= 1 && type <= 3 ? fb_table(b, dm, id) : 0;
  if (!t) return;
  fb_vec v = fb_vector(b, t, 0); /* every member's `values` is field 0 */
  out->type = types[type];
  out->values = v.n ? fb_vec_data(b, v) : NULL;
  out->count = v.n;
}

ap_status ap_model_tensor_sparsity(const ap_model *m, size_t sg, size_t i, ap_sparsity *out) {
  if (!m || !out) return AP_ERR_ARG;
  size_t t = ap_model_tensor_pos(m, sg, i);
  if (!t) return AP_ERR_RANGE;
  const uint8_t *b = m->bytes;
  memset(out, 0, sizeof *out);
  size_t sp = fb_table(b, t, FB_Tensor_sparsity);
  if (!sp) return AP_OK;
  out->present = true;
  out->traversal_order = ivec(m, fb_vector(b, sp, FB_SparsityParameters_traversal_order));
  out->block_map = ivec(m, fb_vector(b, sp, FB_SparsityParameters_block_map));
  fb_vec dims = fb_vector(b, sp, FB_SparsityParameters_dim_metadata);
  out->dim_count = dims.n;
  out->dims_table = dims.n ? sp : 0;
  return AP_OK;
}

ap_status ap_model_tensor_sparse_dim(const ap_model *m, size_t sg, size_t i, size_t k,
                                     ap_sparse_dim *out) {
  ap_sparsity s;
  if (!out) return AP_ERR_ARG;
  ap_status st = ap_model_tensor_sparsity(m, sg, i, &s);
  if (st != AP_OK) return st;
  if (k >= s.dim_count) return AP_ERR_RANGE;
  const uint8_t *b = m->bytes;
  fb_vec dims = fb_vector(b, s.dims_table, FB_SparsityParameters_dim_metadata);
  size_t dm = fb_vec_ref(b, dims, k);
  memset(out, 0, sizeof *out);
  out->format = fb_get_i8(b, dm, FB_DimensionMetadata_format, 0);
  out->dense_size = fb_get_i32(b, dm, FB_DimensionMetadata_dense_size, 0);
  index_vector(b, dm, FB_DimensionMetadata_array_segments_type, FB_DimensionMetadata_array_segments,
               &out->array_segments);
  index_vector(b, dm, FB_DimensionMetadata_array_indices_type, FB_DimensionMetadata_array_indices,
               &out->array_indices);
  return AP_OK;
}
