/* EMBEDDING_LOOKUP (TFLite Micro's embedding_lookup.cc): rows of a table (rank >= 2) picked by
 * an INT32 vector of ids; an id outside the table fails eval, as TFLite Micro's does. A float32
 * or int8 table copies its rows; an int8 table with a float32 output (the hybrid case, zero point
 * 0) is dequantized, each value times the table's scale in float. GATHER's checks are shared
 * (ap_kx_gather_record, ap_kx_gather_io). */
#include "kernels/kops_datamove.h"

#include <string.h>

ap_status ap_kx_embedding_lookup_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kxd_begin(c, scratch, "EMBEDDING_LOOKUP", 2, 2);
  if (s != AP_OK) return s;
  ap_kx_params *p = c->params;
  const ap_ktensor *ids = c->inputs[0], *table = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  size_t n;
  if (ids->rank != 1 || ids->type != AP_INT32 || table->rank < 2 || !ap_ktensor_count(ids, &n) ||
      !ap_ktensor_count(table, &n)) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "EMBEDDING_LOOKUP: expected an INT32 vector of ids and a table of rank >= 2");
  }
  bool hybrid = table->type == AP_INT8 && out->type == AP_FLOAT32;
  if (!hybrid && (s = ap_kxd_same_type(c, "EMBEDDING_LOOKUP", table, out)) != AP_OK) return s;
  if (hybrid && (table->zero_point != 0 || table->channel_scales)) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "EMBEDDING_LOOKUP: an int8 table read as float32 needs one scale and zero "
                   "point 0 (it has %d)",
                   (int)table->zero_point);
  }
  ap_kxd_shape_like(out, table);
  out->dims[0] = ids->dims[0];
  p->kind = hybrid;
  p->alpha = table->scale;
  return ap_kx_gather_record(c, "EMBEDDING_LOOKUP");
}

ap_status ap_kx_embedding_lookup_eval(ap_kctx *c) {
  const ap_ktensor *ids, *table;
  ap_ktensor *out;
  if (!ap_kx_gather_io(c, &ids, &table, &out)) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  size_t rows = (size_t)table->dims[0], cols = ap_kxd_span(table, 1, table->rank);
  size_t n = (size_t)ids->dims[0], es = ap_ktype_size(table->type);
  for (size_t i = 0; i < n; i++) {
    int32_t id = ((const int32_t *)ids->data)[i];
    if (id < 0 || (size_t)id >= rows) {
      return ap_fail(c->err, AP_ERR_RANGE,
                     "EMBEDDING_LOOKUP: id %d (position %zu) is outside [0, %zu)", (int)id, i,
                     rows);
    }
    if (p->kind) {
      const int8_t *row = (const int8_t *)table->data + (size_t)id * cols;
      float *o = (float *)out->data + i * cols;
      for (size_t k = 0; k < cols; k++)
        o[k] = (float)row[k] * p->alpha;
    } else {
      memcpy((unsigned char *)out->data + i * cols * es,
             (const unsigned char *)table->data + (size_t)id * cols * es, cols * es);
    }
  }
  return AP_OK;
}
