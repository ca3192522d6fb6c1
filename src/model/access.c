/* Accessors over a verified model: argument checks only, the bytes are known good. */
#include "model/model_internal.h"

#define OK(m) ((m) && (m)->ok)

uint32_t ap_model_version(const ap_model *m) {
  return OK(m) ? fb_get_u32(m->bytes, m->root, FB_Model_version, 0) : 0;
}

const char *ap_model_description(const ap_model *m) {
  return OK(m) ? fb_string(m->bytes, m->root, FB_Model_description) : NULL;
}

size_t ap_model_subgraph_count(const ap_model *m) {
  return OK(m) ? m->subgraphs.n : 0;
}
size_t ap_model_buffer_count(const ap_model *m) {
  return OK(m) ? m->buffers.n : 0;
}
size_t ap_model_opcode_count(const ap_model *m) {
  return OK(m) ? m->opcodes.n : 0;
}
size_t ap_model_metadata_count(const ap_model *m) {
  return OK(m) ? m->metadata.n : 0;
}
size_t ap_model_signature_count(const ap_model *m) {
  return OK(m) ? m->signatures.n : 0;
}

const uint8_t *ap_model_buffer(const ap_model *m, size_t i, size_t *size) {
  const uint8_t *data = NULL;
  uint64_t n = 0;
  if (OK(m) && i < m->buffers.n)
    ap_model_buffer_region(m->bytes, m->size, fb_vec_ref(m->bytes, m->buffers, i), &data, &n);
  if (size) *size = (size_t)n;
  return n ? data : NULL;
}

int32_t ap_model_opcode_builtin(const uint8_t *b, size_t oc) {
  int32_t dep = fb_get_i8(b, oc, FB_OperatorCode_deprecated_builtin_code, 0);
  int32_t code = fb_get_i32(b, oc, FB_OperatorCode_builtin_code, 0);
  /* Older files leave builtin_code at 0 and use the byte; newer ones clamp the byte at 127
   * (PLACEHOLDER_FOR_GREATER_OP_CODES) and use the int. */
  return dep > code ? dep : code;
}

ap_status ap_model_opcode(const ap_model *m, size_t i, ap_opcode_info *out) {
  if (!m || !out) return AP_ERR_ARG;
  if (!m->ok || i >= m->opcodes.n) return AP_ERR_RANGE;
  size_t oc = fb_vec_ref(m->bytes, m->opcodes, i);
  out->builtin = ap_model_opcode_builtin(m->bytes, oc);
  out->custom = fb_string(m->bytes, oc, FB_OperatorCode_custom_code);
  out->version = fb_get_i32(m->bytes, oc, FB_OperatorCode_version, 1);
  return AP_OK;
}

ap_status ap_model_metadata(const ap_model *m, size_t i, ap_metadata_info *out) {
  if (!m || !out) return AP_ERR_ARG;
  if (!m->ok || i >= m->metadata.n) return AP_ERR_RANGE;
  size_t t = fb_vec_ref(m->bytes, m->metadata, i);
  const char *name = fb_string(m->bytes, t, FB_Metadata_name);
  out->name = name ? name : "";
  out->buffer = fb_get_u32(m->bytes, t, FB_Metadata_buffer, 0);
  return AP_OK;
}

ap_status ap_model_signature(const ap_model *m, size_t i, ap_signature_info *out) {
  if (!m || !out) return AP_ERR_ARG;
  if (!m->ok || i >= m->signatures.n) return AP_ERR_RANGE;
  size_t t = fb_vec_ref(m->bytes, m->signatures, i);
  const char *key = fb_string(m->bytes, t, FB_SignatureDef_signature_key);
  out->key = key ? key : "";
  out->subgraph = fb_get_u32(m->bytes, t, FB_SignatureDef_subgraph_index, 0);
  out->input_count = fb_vector(m->bytes, t, FB_SignatureDef_inputs).n;
  out->output_count = fb_vector(m->bytes, t, FB_SignatureDef_outputs).n;
  return AP_OK;
}

static ap_status tensor_map(const ap_model *m, size_t sig, size_t k, unsigned field,
                            ap_tensor_map *out) {
  if (!m || !out) return AP_ERR_ARG;
  if (!m->ok || sig >= m->signatures.n) return AP_ERR_RANGE;
  fb_vec maps = fb_vector(m->bytes, fb_vec_ref(m->bytes, m->signatures, sig), field);
  if (k >= maps.n) return AP_ERR_RANGE;
  size_t t = fb_vec_ref(m->bytes, maps, k);
  const char *name = fb_string(m->bytes, t, FB_TensorMap_name);
  out->name = name ? name : "";
  out->tensor = fb_get_u32(m->bytes, t, FB_TensorMap_tensor_index, 0);
  return AP_OK;
}

ap_status ap_model_signature_input(const ap_model *m, size_t sig, size_t k, ap_tensor_map *out) {
  return tensor_map(m, sig, k, FB_SignatureDef_inputs, out);
}

ap_status ap_model_signature_output(const ap_model *m, size_t sig, size_t k, ap_tensor_map *out) {
  return tensor_map(m, sig, k, FB_SignatureDef_outputs, out);
}

size_t ap_model_subgraph_pos(const ap_model *m, size_t sg) {
  return OK(m) && sg < m->subgraphs.n ? fb_vec_ref(m->bytes, m->subgraphs, sg) : 0;
}

static fb_vec sg_vector(const ap_model *m, size_t sg, unsigned field) {
  size_t t = ap_model_subgraph_pos(m, sg);
  fb_vec none = {0, 0};
  return t ? fb_vector(m->bytes, t, field) : none;
}

size_t ap_model_tensor_pos(const ap_model *m, size_t sg, size_t i) {
  fb_vec v = sg_vector(m, sg, FB_SubGraph_tensors);
  return i < v.n ? fb_vec_ref(m->bytes, v, i) : 0;
}

size_t ap_model_op_pos(const ap_model *m, size_t sg, size_t i) {
  fb_vec v = sg_vector(m, sg, FB_SubGraph_operators);
  return i < v.n ? fb_vec_ref(m->bytes, v, i) : 0;
}

const char *ap_model_subgraph_name(const ap_model *m, size_t sg) {
  size_t t = ap_model_subgraph_pos(m, sg);
  const char *name = t ? fb_string(m->bytes, t, FB_SubGraph_name) : NULL;
  return name ? name : "";
}

size_t ap_model_tensor_count(const ap_model *m, size_t sg) {
  return sg_vector(m, sg, FB_SubGraph_tensors).n;
}

size_t ap_model_op_count(const ap_model *m, size_t sg) {
  return sg_vector(m, sg, FB_SubGraph_operators).n;
}

static ap_ivec ivec(const ap_model *m, fb_vec v) {
  if (!m) return (ap_ivec){NULL, 0}; /* sg_vector gives an empty vector for a NULL model */
  ap_ivec r = {fb_vec_data(m->bytes, v), v.n};
  return r;
}

ap_ivec ap_model_subgraph_inputs(const ap_model *m, size_t sg) {
  return ivec(m, sg_vector(m, sg, FB_SubGraph_inputs));
}

ap_ivec ap_model_subgraph_outputs(const ap_model *m, size_t sg) {
  return ivec(m, sg_vector(m, sg, FB_SubGraph_outputs));
}

ap_status ap_model_tensor(const ap_model *m, size_t sg, size_t i, ap_tensor_info *out) {
  if (!m || !out) return AP_ERR_ARG;
  size_t t = ap_model_tensor_pos(m, sg, i);
  if (!t) return AP_ERR_RANGE;
  const uint8_t *b = m->bytes;
  memset(out, 0, sizeof *out);
  const char *name = fb_string(b, t, FB_Tensor_name);
  out->name = name ? name : "";
  out->type = fb_get_i8(b, t, FB_Tensor_type, 0);
  out->shape = ivec(m, fb_vector(b, t, FB_Tensor_shape));
  out->shape_signature = ivec(m, fb_vector(b, t, FB_Tensor_shape_signature));
  /* Files before has_rank: a present shape means a known rank. */
  out->has_rank = fb_get_u8(b, t, FB_Tensor_has_rank, 0) || out->shape.v != NULL;
  out->buffer = fb_get_u32(b, t, FB_Tensor_buffer, 0);
  out->is_variable = fb_get_u8(b, t, FB_Tensor_is_variable, 0) != 0;
  size_t data_size = 0;
  out->is_constant = out->buffer != 0 && ap_model_buffer(m, out->buffer, &data_size) != NULL;
  size_t elems = 1;
  for (size_t k = 0; k < out->shape.n; k++)
    elems *= (size_t)out->shape.v[k]; /* verified */
  if (!ap_dtype_bytes(out->type, elems, &out->bytes)) out->bytes = 0;
  size_t q = fb_table(b, t, FB_Tensor_quantization);
  if (q) {
    fb_vec scale = fb_vector(b, q, FB_QuantizationParameters_scale);
    fb_vec zp = fb_vector(b, q, FB_QuantizationParameters_zero_point);
    out->scale = scale.n ? fb_vec_data(b, scale) : NULL;
    out->scale_count = scale.n;
    out->zero_point = zp.n ? fb_vec_data(b, zp) : NULL;
    out->zero_point_count = zp.n;
    out->quantized_dimension = fb_get_i32(b, q, FB_QuantizationParameters_quantized_dimension, 0);
  }
  return AP_OK;
}

ap_status ap_model_op(const ap_model *m, size_t sg, size_t i, ap_op_info *out) {
  if (!m || !out) return AP_ERR_ARG;
  size_t op = ap_model_op_pos(m, sg, i);
  if (!op) return AP_ERR_RANGE;
  const uint8_t *b = m->bytes;
  memset(out, 0, sizeof *out);
  out->opcode_index = fb_get_u32(b, op, FB_Operator_opcode_index, 0);
  ap_opcode_info oc;
  ap_model_opcode(m, out->opcode_index, &oc); /* in range: verified */
  out->builtin = oc.builtin;
  out->custom = oc.custom;
  out->version = oc.version;
  out->inputs = ivec(m, fb_vector(b, op, FB_Operator_inputs));
  out->outputs = ivec(m, fb_vector(b, op, FB_Operator_outputs));
  out->intermediates = ivec(m, fb_vector(b, op, FB_Operator_intermediates));
  out->options_type = fb_get_u8(b, op, FB_Operator_builtin_options_type, 0);
  fb_vec co = fb_vector(b, op, FB_Operator_custom_options);
  if (co.pos) {
    out->custom_options = co.n ? fb_vec_data(b, co) : NULL;
    out->custom_options_size = co.n;
  } else {
    uint64_t off = fb_get_u64(b, op, FB_Operator_large_custom_options_offset, 0);
    uint64_t size = fb_get_u64(b, op, FB_Operator_large_custom_options_size, 0);
    if (off > 1 && size) { /* inside the file: verified */
      out->custom_options = b + off;
      out->custom_options_size = (size_t)size;
    }
  }
  return AP_OK;
}
