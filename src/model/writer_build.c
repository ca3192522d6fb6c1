/* Serialises the writer's model into a FlatBuffer following tflite/schema.fbs. Parents are
 * written before children (fb_builder.h explains why); buffer data goes last so the model's
 * structure is compact at the front of the file and the weights follow it. Field ids below are
 * the schema's declaration order. */
#include "model/writer_internal.h"

#include <string.h>

enum {
  MODEL_VERSION,
  MODEL_OPCODES,
  MODEL_SUBGRAPHS,
  MODEL_DESCRIPTION,
  MODEL_BUFFERS,
  MODEL_METADATA = 6,
  MODEL_SIGNATURES
};
enum { OPCODE_DEPRECATED, OPCODE_CUSTOM, OPCODE_VERSION, OPCODE_BUILTIN };
enum { SG_TENSORS, SG_INPUTS, SG_OUTPUTS, SG_OPERATORS, SG_NAME };
enum {
  TENSOR_SHAPE,
  TENSOR_TYPE,
  TENSOR_BUFFER,
  TENSOR_NAME,
  TENSOR_QUANT,
  TENSOR_VARIABLE,
  TENSOR_SIGNATURE = 7,
  TENSOR_HAS_RANK
};
enum { QUANT_SCALE = 2, QUANT_ZERO_POINT, QUANT_DIMENSION = 6 };
enum {
  OP_OPCODE,
  OP_INPUTS,
  OP_OUTPUTS,
  OP_OPTIONS_TYPE,
  OP_OPTIONS,
  OP_CUSTOM,
  OP_INTERMEDIATES = 8,
  OP_OPTIONS2_TYPE = 11,
  OP_OPTIONS2
};
enum { BUFFER_DATA, BUFFER_OFFSET, BUFFER_SIZE };
enum { META_NAME, META_BUFFER };
enum { TMAP_NAME, TMAP_TENSOR };
enum { SIG_INPUTS, SIG_OUTPUTS, SIG_KEY, SIG_SUBGRAPH = 4 };

static size_t str(fb_builder *b, const char *s) {
  return fb_string(b, s, strlen(s));
}

static size_t ivec(fb_builder *b, wr_ivec v) {
  return fb_vector(b, v.v, v.n, 4, 4);
}

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static uint64_t f64_bits(double f) {
  uint64_t u;
  memcpy(&u, &f, 8);
  return u;
}

static size_t options_table(fb_builder *b, const wr_options *o) {
  fb_table t;
  fb_table_begin(&t);
  for (size_t i = 0; i < o->count; i++) {
    const ap_option_field *f = &o->fields[i];
    uint64_t u = (uint64_t)f->i;
    switch (f->kind) {
    case AP_OPT_BOOL:
    case AP_OPT_INT8:
    case AP_OPT_UINT8: fb_table_scalar(&t, f->id, 1, u); break;
    case AP_OPT_INT16:
    case AP_OPT_UINT16: fb_table_scalar(&t, f->id, 2, u); break;
    case AP_OPT_INT32:
    case AP_OPT_UINT32: fb_table_scalar(&t, f->id, 4, u); break;
    case AP_OPT_INT64:
    case AP_OPT_UINT64: fb_table_scalar(&t, f->id, 8, u); break;
    case AP_OPT_FLOAT32: fb_table_scalar(&t, f->id, 4, f32_bits((float)f->f)); break;
    case AP_OPT_FLOAT64: fb_table_scalar(&t, f->id, 8, f64_bits(f->f)); break;
    default: fb_table_offset(&t, f->id); break;
    }
  }
  size_t pos = fb_table_end(b, &t);
  for (size_t i = 0; i < o->count; i++) {
    const ap_option_field *f = &o->fields[i];
    size_t child;
    switch (f->kind) {
    case AP_OPT_INT32_VECTOR: child = fb_vector(b, f->data, f->n, 4, 4); break;
    case AP_OPT_INT64_VECTOR: child = fb_vector(b, f->data, f->n, 8, 8); break;
    case AP_OPT_UINT8_VECTOR: child = fb_vector(b, f->data, f->n, 1, 4); break;
    case AP_OPT_STRING: child = str(b, f->data); break;
    default: continue;
    }
    fb_table_link(b, &t, f->id, child);
  }
  return pos;
}

static size_t opcode_table(fb_builder *b, const wr_opcode *o) {
  fb_table t;
  fb_table_begin(&t);
  fb_table_scalar(&t, OPCODE_DEPRECATED, 1, (uint8_t)o->deprecated_builtin);
  if (o->custom) fb_table_offset(&t, OPCODE_CUSTOM);
  fb_table_scalar(&t, OPCODE_VERSION, 4, (uint32_t)o->version);
  fb_table_scalar(&t, OPCODE_BUILTIN, 4, (uint32_t)o->builtin);
  size_t pos = fb_table_end(b, &t);
  if (o->custom) fb_table_link(b, &t, OPCODE_CUSTOM, str(b, o->custom));
  return pos;
}

static size_t quant_table(fb_builder *b, const wr_tensor *x) {
  fb_table t;
  fb_table_begin(&t);
  if (x->scale_count) fb_table_offset(&t, QUANT_SCALE);
  if (x->zero_point_count) fb_table_offset(&t, QUANT_ZERO_POINT);
  if (x->quantized_dimension)
    fb_table_scalar(&t, QUANT_DIMENSION, 4, (uint32_t)x->quantized_dimension);
  size_t pos = fb_table_end(b, &t);
  if (x->scale_count)
    fb_table_link(b, &t, QUANT_SCALE, fb_vector(b, x->scale, x->scale_count, 4, 4));
  if (x->zero_point_count)
    fb_table_link(b, &t, QUANT_ZERO_POINT, fb_vector(b, x->zero_point, x->zero_point_count, 8, 8));
  return pos;
}

static size_t tensor_table(fb_builder *b, const wr_tensor *x) {
  fb_table t;
  fb_table_begin(&t);
  fb_table_offset(&t, TENSOR_SHAPE);
  if (x->type) fb_table_scalar(&t, TENSOR_TYPE, 1, (uint8_t)x->type);
  if (x->buffer) fb_table_scalar(&t, TENSOR_BUFFER, 4, x->buffer);
  if (x->name) fb_table_offset(&t, TENSOR_NAME);
  if (x->has_quant) fb_table_offset(&t, TENSOR_QUANT);
  if (x->is_variable) fb_table_scalar(&t, TENSOR_VARIABLE, 1, 1);
  if (x->has_signature) fb_table_offset(&t, TENSOR_SIGNATURE);
  if (x->has_rank) fb_table_scalar(&t, TENSOR_HAS_RANK, 1, 1);
  size_t pos = fb_table_end(b, &t);
  fb_table_link(b, &t, TENSOR_SHAPE, ivec(b, x->shape));
  if (x->name) fb_table_link(b, &t, TENSOR_NAME, str(b, x->name));
  if (x->has_quant) fb_table_link(b, &t, TENSOR_QUANT, quant_table(b, x));
  if (x->has_signature) fb_table_link(b, &t, TENSOR_SIGNATURE, ivec(b, x->signature));
  return pos;
}

static size_t op_table(fb_builder *b, const wr_op *o) {
  fb_table t;
  fb_table_begin(&t);
  if (o->opcode) fb_table_scalar(&t, OP_OPCODE, 4, o->opcode);
  fb_table_offset(&t, OP_INPUTS);
  fb_table_offset(&t, OP_OUTPUTS);
  if (o->options.type) {
    fb_table_scalar(&t, OP_OPTIONS_TYPE, 1, o->options.type);
    fb_table_offset(&t, OP_OPTIONS);
  }
  if (o->has_custom) fb_table_offset(&t, OP_CUSTOM);
  if (o->intermediates.n) fb_table_offset(&t, OP_INTERMEDIATES);
  if (o->options2.type) {
    fb_table_scalar(&t, OP_OPTIONS2_TYPE, 1, o->options2.type);
    fb_table_offset(&t, OP_OPTIONS2);
  }
  size_t pos = fb_table_end(b, &t);
  fb_table_link(b, &t, OP_INPUTS, ivec(b, o->inputs));
  fb_table_link(b, &t, OP_OUTPUTS, ivec(b, o->outputs));
  if (o->options.type) fb_table_link(b, &t, OP_OPTIONS, options_table(b, &o->options));
  if (o->has_custom) fb_table_link(b, &t, OP_CUSTOM, fb_vector(b, o->custom, o->custom_size, 1, 4));
  if (o->intermediates.n) fb_table_link(b, &t, OP_INTERMEDIATES, ivec(b, o->intermediates));
  if (o->options2.type) fb_table_link(b, &t, OP_OPTIONS2, options_table(b, &o->options2));
  return pos;
}

/* A vector of n table offsets to be filled; returns its position. */
static size_t table_vector(fb_builder *b, size_t n) {
  return fb_vector(b, NULL, n, 4, 4);
}

static void link_elem(fb_builder *b, size_t vec, size_t i, size_t target) {
  fb_link(b, vec + 4 + 4 * i, target);
}

static size_t subgraph_table(fb_builder *b, const wr_subgraph *g) {
  fb_table t;
  fb_table_begin(&t);
  fb_table_offset(&t, SG_TENSORS);
  fb_table_offset(&t, SG_INPUTS);
  fb_table_offset(&t, SG_OUTPUTS);
  fb_table_offset(&t, SG_OPERATORS);
  if (g->name) fb_table_offset(&t, SG_NAME);
  size_t pos = fb_table_end(b, &t);
  size_t v = table_vector(b, g->tensor_count);
  fb_table_link(b, &t, SG_TENSORS, v);
  for (size_t i = 0; i < g->tensor_count && b->status == AP_OK; i++)
    link_elem(b, v, i, tensor_table(b, &g->tensors[i]));
  fb_table_link(b, &t, SG_INPUTS, ivec(b, g->inputs));
  fb_table_link(b, &t, SG_OUTPUTS, ivec(b, g->outputs));
  v = table_vector(b, g->op_count);
  fb_table_link(b, &t, SG_OPERATORS, v);
  for (size_t i = 0; i < g->op_count && b->status == AP_OK; i++)
    link_elem(b, v, i, op_table(b, &g->ops[i]));
  if (g->name) fb_table_link(b, &t, SG_NAME, str(b, g->name));
  return pos;
}

static size_t tmap_vector(fb_builder *b, const wr_tmap *m, size_t n) {
  size_t v = table_vector(b, n);
  for (size_t i = 0; i < n && b->status == AP_OK; i++) {
    fb_table t;
    fb_table_begin(&t);
    fb_table_offset(&t, TMAP_NAME);
    fb_table_scalar(&t, TMAP_TENSOR, 4, m[i].tensor);
    link_elem(b, v, i, fb_table_end(b, &t));
    fb_table_link(b, &t, TMAP_NAME, str(b, m[i].name));
  }
  return v;
}

static size_t signature_table(fb_builder *b, const wr_signature *s) {
  fb_table t;
  fb_table_begin(&t);
  fb_table_offset(&t, SIG_INPUTS);
  fb_table_offset(&t, SIG_OUTPUTS);
  fb_table_offset(&t, SIG_KEY);
  fb_table_scalar(&t, SIG_SUBGRAPH, 4, s->subgraph);
  size_t pos = fb_table_end(b, &t);
  fb_table_link(b, &t, SIG_INPUTS, tmap_vector(b, s->inputs, s->input_count));
  fb_table_link(b, &t, SIG_OUTPUTS, tmap_vector(b, s->outputs, s->output_count));
  fb_table_link(b, &t, SIG_KEY, str(b, s->key));
  return pos;
}

/* Buffer tables now, their data at the very end: returns the data fields' positions (0 for
 * buffers without data) in `data_at`. */
static size_t buffer_tables(fb_builder *b, const ap_writer *w, size_t *data_at) {
  size_t v = table_vector(b, w->buffer_count);
  for (size_t i = 0; i < w->buffer_count && b->status == AP_OK; i++) {
    fb_table t;
    fb_table_begin(&t);
    if (w->buffers[i].size && w->external_buffers) {
      fb_table_scalar(&t, BUFFER_OFFSET, 8, 0); /* set once the data's position is known */
      fb_table_scalar(&t, BUFFER_SIZE, 8, w->buffers[i].size);
    } else if (w->buffers[i].size) {
      fb_table_offset(&t, BUFFER_DATA);
    }
    link_elem(b, v, i, fb_table_end(b, &t));
    data_at[i] = fb_field_pos(&t, w->external_buffers ? BUFFER_OFFSET : BUFFER_DATA);
  }
  return v;
}

static ap_status build_fail(ap_writer *w) {
  fb_builder *b = &w->fb;
  if (b->status == AP_ERR_NOMEM)
    return ap_fail(&w->err, AP_ERR_NOMEM,
                   "out of memory while serialising the model (%zu bytes "
                   "written so far)",
                   b->len);
  if (b->status == AP_ERR_OVERFLOW)
    return ap_fail(&w->err, AP_ERR_OVERFLOW,
                   "the model does not fit one FlatBuffer: it would exceed %zu bytes (2 GiB)",
                   (size_t)FB_MAX_SIZE);
  return ap_fail(&w->err, b->status, "internal error while serialising the model (%s)",
                 ap_status_name(b->status));
}

ap_status wr_build(ap_writer *w) {
  fb_builder *b = &w->fb;
  fb_reset(b);
  size_t *data_at = ap_calloc(w->alloc, w->buffer_count, sizeof *data_at);
  if (!data_at)
    return ap_fail(&w->err, AP_ERR_NOMEM, "out of memory: %zu buffer positions", w->buffer_count);

  fb_begin_file(b, "TFL3");
  fb_table t;
  fb_table_begin(&t);
  fb_table_scalar(&t, MODEL_VERSION, 4, w->version);
  fb_table_offset(&t, MODEL_OPCODES);
  fb_table_offset(&t, MODEL_SUBGRAPHS);
  if (w->description) fb_table_offset(&t, MODEL_DESCRIPTION);
  fb_table_offset(&t, MODEL_BUFFERS);
  if (w->metadata_count) fb_table_offset(&t, MODEL_METADATA);
  if (w->signature_count) fb_table_offset(&t, MODEL_SIGNATURES);
  size_t root = fb_table_end(b, &t);
  if (root) fb_put_u32(b, 0, (uint32_t)root); /* the root uoffset, relative to position 0 */

  size_t v = table_vector(b, w->opcode_count);
  fb_table_link(b, &t, MODEL_OPCODES, v);
  for (size_t i = 0; i < w->opcode_count && b->status == AP_OK; i++)
    link_elem(b, v, i, opcode_table(b, &w->opcodes[i]));

  v = table_vector(b, w->subgraph_count);
  fb_table_link(b, &t, MODEL_SUBGRAPHS, v);
  for (size_t i = 0; i < w->subgraph_count && b->status == AP_OK; i++)
    link_elem(b, v, i, subgraph_table(b, &w->subgraphs[i]));

  if (w->description) fb_table_link(b, &t, MODEL_DESCRIPTION, str(b, w->description));
  fb_table_link(b, &t, MODEL_BUFFERS, buffer_tables(b, w, data_at));

  if (w->metadata_count) {
    v = table_vector(b, w->metadata_count);
    fb_table_link(b, &t, MODEL_METADATA, v);
    for (size_t i = 0; i < w->metadata_count && b->status == AP_OK; i++) {
      fb_table m;
      fb_table_begin(&m);
      fb_table_offset(&m, META_NAME);
      fb_table_scalar(&m, META_BUFFER, 4, w->metadata[i].buffer);
      link_elem(b, v, i, fb_table_end(b, &m));
      fb_table_link(b, &m, META_NAME, str(b, w->metadata[i].name));
    }
  }
  if (w->signature_count) {
    v = table_vector(b, w->signature_count);
    fb_table_link(b, &t, MODEL_SIGNATURES, v);
    for (size_t i = 0; i < w->signature_count && b->status == AP_OK; i++)
      link_elem(b, v, i, signature_table(b, &w->signatures[i]));
  }

  /* The schema's force_align: 16 on Buffer.data; external data is aligned the same way. */
  for (size_t i = 0; i < w->buffer_count && b->status == AP_OK; i++) {
    if (!data_at[i]) continue;
    if (w->external_buffers) {
      fb_pad(b, 16, 0);
      fb_put_u64(b, data_at[i], fb_append(b, w->buffers[i].data, w->buffers[i].size));
    } else {
      fb_link(b, data_at[i], fb_vector(b, w->buffers[i].data, w->buffers[i].size, 1, 16));
    }
  }
  ap_free(w->alloc, data_at);
  return b->status == AP_OK ? AP_OK : build_fail(w);
}
