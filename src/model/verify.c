/* The model verifier: the FlatBuffers structure first (verify_fb.c), then the meaning every
 * accessor relies on: indices in range, byte sizes computable, constants large enough, data
 * stored after the flatbuffer inside the file. Runs once at load. */
#include "model/model_internal.h"
#include "model/verify_fb.h"

#include <stdio.h>

#define FAIL(...) ap_fail(&m->err, AP_ERR_FORMAT, __VA_ARGS__)

typedef struct sub_ref {
  uint16_t union_id, table_id, field;
  bool vector;
} sub_ref;

/* Options fields that name subgraphs. */
static const sub_ref sub_refs[] = {
    {FBU_BuiltinOptions, FBT_WhileOptions, FB_WhileOptions_cond_subgraph_index, false},
    {FBU_BuiltinOptions, FBT_WhileOptions, FB_WhileOptions_body_subgraph_index, false},
    {FBU_BuiltinOptions, FBT_IfOptions, FB_IfOptions_then_subgraph_index, false},
    {FBU_BuiltinOptions, FBT_IfOptions, FB_IfOptions_else_subgraph_index, false},
    {FBU_BuiltinOptions, FBT_CallOnceOptions, FB_CallOnceOptions_init_subgraph_index, false},
    {FBU_BuiltinOptions, FBT_CallOptions, FB_CallOptions_subgraph, false},
    {FBU_BuiltinOptions2, FBT_StablehloWhileOptions, FB_StablehloWhileOptions_cond_subgraph_index,
     false},
    {FBU_BuiltinOptions2, FBT_StablehloWhileOptions, FB_StablehloWhileOptions_body_subgraph_index,
     false},
    {FBU_BuiltinOptions2, FBT_StablehloCaseOptions, FB_StablehloCaseOptions_branch_subgraph_indices,
     true},
    {FBU_BuiltinOptions2, FBT_StableHLOCompositeOptions,
     FB_StableHLOCompositeOptions_decomposition_subgraph_index, false},
    {FBU_BuiltinOptions2, FBT_StablehloReduceOptions, FB_StablehloReduceOptions_body_subgraph_index,
     false},
    {FBU_BuiltinOptions2, FBT_StablehloReduceWindowOptions,
     FB_StablehloReduceWindowOptions_body_subgraph_index, false},
    {FBU_BuiltinOptions2, FBT_StablehloSortOptions,
     FB_StablehloSortOptions_comparator_subgraph_index, false},
    {FBU_BuiltinOptions2, FBT_StablehloScatterOptions,
     FB_StablehloScatterOptions_update_computation_subgraph_index, false},
};

bool ap_model_buffer_region(const uint8_t *b, size_t file_size, size_t buf, const uint8_t **data,
                            uint64_t *size) {
  *data = NULL;
  *size = 0;
  fb_vec d = fb_vector(b, buf, FB_Buffer_data);
  if (d.n) {
    *data = b + d.pos + 4;
    *size = d.n;
    return true;
  }
  uint64_t off = fb_get_u64(b, buf, FB_Buffer_offset, 0);
  uint64_t sz = fb_get_u64(b, buf, FB_Buffer_size, 0);
  /* The schema: offset/size are meaningful only for offset > 1. */
  if (off <= 1 || sz == 0) return true;
  uint64_t end;
  if (!ap_add_u64(off, sz, &end) || end > file_size) return false;
  *data = b + off;
  *size = sz;
  return true;
}

/* The element count of a shape, or false on overflow. */
static bool shape_elems(const int32_t *dims, size_t n, size_t *out) {
  size_t e = 1;
  for (size_t i = 0; i < n; i++)
    if (dims[i] < 0 || !ap_mul_size(e, (size_t)dims[i], &e)) return false;
  *out = e;
  return true;
}

static ap_status verify_tensor(ap_model *m, fb_verifier *v, size_t sg, size_t i, size_t t) {
  const uint8_t *b = m->bytes;
  int type = fb_get_i8(b, t, FB_Tensor_type, 0);
  if (type < 0 || type >= AP_DTYPE_COUNT)
    return FAIL("%s: subgraph %zu tensor %zu: unknown type %d (known types are 0..%d)", m->name, sg,
                i, type, AP_DTYPE_COUNT - 1);
  uint32_t buf = fb_get_u32(b, t, FB_Tensor_buffer, 0);
  if (buf != 0 && buf >= m->buffers.n)
    return FAIL("%s: subgraph %zu tensor %zu: buffer index %u out of range (model has %u "
                "buffers)",
                m->name, sg, i, buf, m->buffers.n);
  uint32_t ext = fb_get_u32(b, t, FB_Tensor_external_buffer, 0);
  if (ext != 0)
    return ap_fail(&m->err, AP_ERR_UNSUPPORTED,
                   "%s: subgraph %zu tensor %zu: data in external buffer %u (another file) is not "
                   "supported",
                   m->name, sg, i, ext);
  fb_vec shape = fb_vector(b, t, FB_Tensor_shape);
  const int32_t *dims = fb_vec_data(b, shape);
  if (!fb_verifier_spend(v, shape.n)) return FAIL("%s: %s", m->name, v->msg);
  for (uint32_t k = 0; k < shape.n; k++)
    if (dims[k] < 0)
      return FAIL("%s: subgraph %zu tensor %zu: shape dim %u is %d (must be >= 0; -1 belongs in "
                  "shape_signature)",
                  m->name, sg, i, k, dims[k]);
  size_t elems, bytes = 0;
  if (!shape_elems(dims, shape.n, &elems) ||
      (ap_dtype_bits(type) && !ap_dtype_bytes(type, elems, &bytes)))
    return FAIL("%s: subgraph %zu tensor %zu: byte size overflows (%u dims, %s)", m->name, sg, i,
                shape.n, ap_dtype_name(type));
  fb_vec sig = fb_vector(b, t, FB_Tensor_shape_signature);
  const int32_t *sdims = fb_vec_data(b, sig);
  if (!fb_verifier_spend(v, sig.n)) return FAIL("%s: %s", m->name, v->msg);
  for (uint32_t k = 0; k < sig.n; k++)
    if (sdims[k] < -1)
      return FAIL("%s: subgraph %zu tensor %zu: shape_signature dim %u is %d (must be >= -1)",
                  m->name, sg, i, k, sdims[k]);
  size_t q = fb_table(b, t, FB_Tensor_quantization);
  if (q) {
    fb_vec scale = fb_vector(b, q, FB_QuantizationParameters_scale);
    fb_vec zp = fb_vector(b, q, FB_QuantizationParameters_zero_point);
    /* quantized_dimension is not checked against the rank: real files (person_detect's
     * biases) carry the filter's dimension on a rank-1 tensor. */
    if (zp.n && scale.n && zp.n != scale.n)
      return FAIL("%s: subgraph %zu tensor %zu: quantization has %u scales but %u zero points",
                  m->name, sg, i, scale.n, zp.n);
  }
  if (type == AP_STRING && buf != 0) {
    const uint8_t *data;
    uint64_t have;
    char why[160];
    size_t bt = fb_vec_ref(b, m->buffers, buf);
    if (ap_model_buffer_region(b, m->size, bt, &data, &have) && have &&
        ap_string_buffer_check(data, (size_t)have, elems, NULL, why, sizeof why) != AP_OK)
      return FAIL("%s: subgraph %zu tensor %zu: constant buffer %u: %s", m->name, sg, i, buf, why);
  }
  if (buf != 0 && bytes && !fb_table(b, t, FB_Tensor_sparsity)) {
    const uint8_t *data;
    uint64_t have;
    size_t bt = fb_vec_ref(b, m->buffers, buf);
    if (ap_model_buffer_region(b, m->size, bt, &data, &have) && have && have < bytes)
      return FAIL("%s: subgraph %zu tensor %zu: constant buffer %u holds %llu bytes, the tensor "
                  "needs %zu",
                  m->name, sg, i, buf, (unsigned long long)have, bytes);
  }
  return AP_OK;
}

static ap_status check_indices(ap_model *m, fb_verifier *v, fb_vec vec, uint32_t ntensors,
                               bool optional, const char *where, size_t sg, size_t op,
                               const char *what) {
  const int32_t *ix = fb_vec_data(m->bytes, vec);
  if (!fb_verifier_spend(v, vec.n)) return FAIL("%s: %s", m->name, v->msg);
  for (uint32_t k = 0; k < vec.n; k++) {
    if (optional && ix[k] == -1) continue;
    if (ix[k] < 0 || (uint32_t)ix[k] >= ntensors) {
      if (op == SIZE_MAX)
        return FAIL("%s: subgraph %zu: %s %u is tensor %d, out of range (subgraph has %u "
                    "tensors)",
                    m->name, sg, what, k, ix[k], ntensors);
      return FAIL("%s: subgraph %zu %s %zu: %s %u is tensor %d, out of range (subgraph has %u "
                  "tensors)",
                  m->name, sg, where, op, what, k, ix[k], ntensors);
    }
  }
  return AP_OK;
}

static ap_status verify_subgraph_refs(ap_model *m, size_t sg, size_t i, size_t op) {
  const uint8_t *b = m->bytes;
  for (size_t r = 0; r < sizeof sub_refs / sizeof sub_refs[0]; r++) {
    const sub_ref *s = &sub_refs[r];
    bool two = s->union_id == FBU_BuiltinOptions2;
    uint8_t type = fb_get_u8(
        b, op, two ? FB_Operator_builtin_options_2_type : FB_Operator_builtin_options_type, 0);
    const fb_union_desc *u = &fb_unions[s->union_id];
    if (type == 0 || type >= u->count || u->members[type] != s->table_id) continue;
    size_t t = fb_table(b, op, two ? FB_Operator_builtin_options_2 : FB_Operator_builtin_options);
    if (!t) continue;
    const int32_t *idx;
    uint32_t n;
    int32_t one;
    if (s->vector) {
      fb_vec vec = fb_vector(b, t, s->field);
      idx = fb_vec_data(b, vec);
      n = vec.n;
    } else {
      one = fb_get_i32(b, t, s->field, 0);
      idx = &one;
      n = 1;
    }
    for (uint32_t k = 0; k < n; k++)
      if (idx[k] < 0 || (uint32_t)idx[k] >= m->subgraphs.n)
        return FAIL("%s: subgraph %zu operator %zu: %s.%s %d out of range (model has %u "
                    "subgraphs)",
                    m->name, sg, i, fb_tables[s->table_id].name,
                    fb_tables[s->table_id].fields[s->field].name, idx[k], m->subgraphs.n);
  }
  return AP_OK;
}

static ap_status verify_op(ap_model *m, fb_verifier *v, size_t sg, size_t i, size_t op,
                           uint32_t ntensors) {
  const uint8_t *b = m->bytes;
  uint32_t opcode = fb_get_u32(b, op, FB_Operator_opcode_index, 0);
  if (opcode >= m->opcodes.n)
    return FAIL("%s: subgraph %zu operator %zu: opcode index %u out of range (model has %u "
                "operator codes)",
                m->name, sg, i, opcode, m->opcodes.n);
  ap_status s;
  if ((s = check_indices(m, v, fb_vector(b, op, FB_Operator_inputs), ntensors, true, "operator", sg,
                         i, "input")) ||
      (s = check_indices(m, v, fb_vector(b, op, FB_Operator_outputs), ntensors, false, "operator",
                         sg, i, "output")) ||
      (s = check_indices(m, v, fb_vector(b, op, FB_Operator_intermediates), ntensors, false,
                         "operator", sg, i, "intermediate")))
    return s;
  if (!fb_field(b, op, FB_Operator_custom_options)) {
    uint64_t off = fb_get_u64(b, op, FB_Operator_large_custom_options_offset, 0);
    uint64_t sz = fb_get_u64(b, op, FB_Operator_large_custom_options_size, 0);
    uint64_t end;
    if (off > 1 && sz && (!ap_add_u64(off, sz, &end) || end > m->size))
      return FAIL("%s: subgraph %zu operator %zu: custom options at offset %llu (%llu bytes) lie "
                  "outside the file (%zu bytes)",
                  m->name, sg, i, (unsigned long long)off, (unsigned long long)sz, m->size);
  }
  return verify_subgraph_refs(m, sg, i, op);
}

static ap_status verify_subgraph(ap_model *m, fb_verifier *v, size_t sg) {
  const uint8_t *b = m->bytes;
  size_t st = fb_vec_ref(b, m->subgraphs, sg);
  fb_vec tensors = fb_vector(b, st, FB_SubGraph_tensors);
  fb_vec ops = fb_vector(b, st, FB_SubGraph_operators);
  ap_status s;
  for (uint32_t i = 0; i < tensors.n; i++)
    if ((s = verify_tensor(m, v, sg, i, fb_vec_ref(b, tensors, i)))) return s;
  if ((s = check_indices(m, v, fb_vector(b, st, FB_SubGraph_inputs), tensors.n, false, "", sg,
                         SIZE_MAX, "input")) ||
      (s = check_indices(m, v, fb_vector(b, st, FB_SubGraph_outputs), tensors.n, false, "", sg,
                         SIZE_MAX, "output")))
    return s;
  for (uint32_t i = 0; i < ops.n; i++)
    if ((s = verify_op(m, v, sg, i, fb_vec_ref(b, ops, i), tensors.n))) return s;
  return AP_OK;
}

static ap_status verify_signature(ap_model *m, size_t i) {
  const uint8_t *b = m->bytes;
  size_t sd = fb_vec_ref(b, m->signatures, i);
  uint32_t sg = fb_get_u32(b, sd, FB_SignatureDef_subgraph_index, 0);
  if (sg >= m->subgraphs.n)
    return FAIL("%s: signature %zu: subgraph index %u out of range (model has %u subgraphs)",
                m->name, i, sg, m->subgraphs.n);
  uint32_t nt = fb_vector(b, fb_vec_ref(b, m->subgraphs, sg), FB_SubGraph_tensors).n;
  for (int out = 0; out < 2; out++) {
    fb_vec maps = fb_vector(b, sd, out ? FB_SignatureDef_outputs : FB_SignatureDef_inputs);
    for (uint32_t k = 0; k < maps.n; k++) {
      uint32_t t = fb_get_u32(b, fb_vec_ref(b, maps, k), FB_TensorMap_tensor_index, 0);
      if (t >= nt)
        return FAIL("%s: signature %zu: %s %u is tensor %u, out of range (subgraph %u has %u "
                    "tensors)",
                    m->name, i, out ? "output" : "input", k, t, sg, nt);
    }
  }
  return AP_OK;
}

static void show_ident(char out[24], const uint8_t *id) {
  size_t o = 0;
  for (int i = 0; i < 4; i++) {
    if (id[i] >= 0x20 && id[i] < 0x7f && id[i] != '"' && id[i] != '\\')
      out[o++] = (char)id[i];
    else
      o += (size_t)snprintf(out + o, 5, "\\x%02x", id[i]);
  }
  out[o] = '\0';
}

static ap_status verify_header(ap_model *m) {
  const uint8_t *b = m->bytes;
  if (m->size == 0) return FAIL("%s: empty file (0 bytes)", m->name);
  if (m->size < 8)
    return FAIL("%s: not a TFLite model: file is %zu bytes, smaller than a FlatBuffer header "
                "(8 bytes)",
                m->name, m->size);
  uint32_t root = fb_u32(b, 0);
  bool root_ok = root % 4 == 0 && root >= 8 && (size_t)root + 4 <= m->size;
  if (memcmp(b + 4, "TFL3", 4) != 0) {
    char id[24];
    show_ident(id, b + 4);
    if (!root_ok)
      return FAIL("%s: not a FlatBuffer: root table offset %u is %s (file is %zu bytes), file "
                  "identifier \"%s\" (a TFLite model has \"TFL3\")",
                  m->name, root, root % 4 ? "misaligned" : "outside the file", m->size, id);
    return FAIL("%s: not a TFLite model: file identifier is \"%s\", expected \"TFL3\"", m->name,
                id);
  }
  if (!root_ok) {
    if (root % 4 || root < 8)
      return FAIL("%s: corrupt: root table offset %u is %s", m->name, root,
                  root % 4 ? "not 4-byte aligned" : "inside the header");
    return FAIL("%s: truncated: file is %zu bytes, root table offset %u", m->name, m->size, root);
  }
  m->root = root;
  return AP_OK;
}

ap_status ap_model_verify(ap_model *m) {
  ap_status s = verify_header(m);
  if (s) return s;
  const uint8_t *b = m->bytes;
  fb_verifier v;
  fb_verifier_init(&v, b, m->size);
  if (!fb_verify_table(&v, m->root, FBT_Model)) return FAIL("%s: %s", m->name, v.msg);
  m->opcodes = fb_vector(b, m->root, FB_Model_operator_codes);
  m->subgraphs = fb_vector(b, m->root, FB_Model_subgraphs);
  m->buffers = fb_vector(b, m->root, FB_Model_buffers);
  m->metadata = fb_vector(b, m->root, FB_Model_metadata);
  m->signatures = fb_vector(b, m->root, FB_Model_signature_defs);
  if (m->subgraphs.n == 0) return FAIL("%s: model has no subgraphs", m->name);
  for (uint32_t i = 0; i < m->buffers.n; i++) {
    const uint8_t *data;
    uint64_t size;
    size_t bt = fb_vec_ref(b, m->buffers, i);
    if (!ap_model_buffer_region(b, m->size, bt, &data, &size))
      return FAIL("%s: buffer %u: data at offset %llu (%llu bytes) lies outside the file (%zu "
                  "bytes)",
                  m->name, i, (unsigned long long)fb_get_u64(b, bt, FB_Buffer_offset, 0),
                  (unsigned long long)fb_get_u64(b, bt, FB_Buffer_size, 0), m->size);
  }
  for (uint32_t sg = 0; sg < m->subgraphs.n; sg++)
    if ((s = verify_subgraph(m, &v, sg))) return s;
  for (uint32_t i = 0; i < m->signatures.n; i++)
    if ((s = verify_signature(m, i))) return s;
  for (uint32_t i = 0; i < m->metadata.n; i++) {
    uint32_t buf = fb_get_u32(b, fb_vec_ref(b, m->metadata, i), FB_Metadata_buffer, 0);
    if (buf >= m->buffers.n)
      return FAIL("%s: metadata %u: buffer index %u out of range (model has %u buffers)", m->name,
                  i, buf, m->buffers.n);
  }
  fb_vec mb = fb_vector(b, m->root, FB_Model_metadata_buffer);
  const int32_t *mbi = fb_vec_data(b, mb);
  for (uint32_t i = 0; i < mb.n; i++)
    if (mbi[i] < 0 || (uint32_t)mbi[i] >= m->buffers.n)
      return FAIL("%s: metadata_buffer %u: buffer index %d out of range (model has %u buffers)",
                  m->name, i, mbi[i], m->buffers.n);
  return AP_OK;
}
