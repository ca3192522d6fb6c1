/* The writer's API: each call checks its arguments and copies them into the in-memory model;
 * writer_build.c serialises it. */
#include "model/writer_internal.h"
#include "port/port.h"

#include <stdio.h>
#include <string.h>

/* The schema's PLACEHOLDER_FOR_GREATER_OP_CODES: deprecated_builtin_code holds builtins up to
 * 127; larger ones put 127 there and the real code in builtin_code. */
#define WR_PLACEHOLDER_OP 127
#define WR_BUILTIN_CUSTOM 32

ap_status ap_writer_create(const ap_writer_options *opt, ap_writer **out) {
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  const ap_allocator *a = ap_alloc_or_default(opt ? opt->allocator : NULL);
  ap_writer *w = ap_calloc(a, 1, sizeof *w);
  if (!w) return AP_ERR_NOMEM;
  w->alloc = a;
  w->unchecked = opt && opt->unchecked;
  w->external_buffers = opt && opt->external_buffers;
  w->version = 3;
  fb_init(&w->fb, a);
  *out = w;
  /* Subgraph 0 and the empty buffer 0 exist from the start: every model needs both. */
  if (!wr_grow(w, (void **)&w->subgraphs, &w->subgraph_cap, 0, sizeof *w->subgraphs) ||
      !wr_grow(w, (void **)&w->buffers, &w->buffer_cap, 0, sizeof *w->buffers)) {
    ap_writer_destroy(w);
    *out = NULL;
    return AP_ERR_NOMEM;
  }
  w->mem_status = AP_OK;
  w->subgraph_count = 1;
  w->buffer_count = 1;
  return AP_OK;
}

void ap_writer_destroy(ap_writer *w) {
  if (!w) return;
  for (size_t i = 0; i < w->subgraph_count; i++) {
    ap_free(w->alloc, w->subgraphs[i].tensors);
    ap_free(w->alloc, w->subgraphs[i].ops);
  }
  ap_free(w->alloc, w->subgraphs);
  ap_free(w->alloc, w->opcodes);
  ap_free(w->alloc, w->buffers);
  ap_free(w->alloc, w->metadata);
  ap_free(w->alloc, w->signatures);
  fb_release(&w->fb);
  wr_arena_free(w);
  ap_free(w->alloc, w);
}

const char *ap_writer_error(const ap_writer *w) {
  return w ? w->err.msg : "no writer (NULL)";
}

/* Every call starts here: a NULL writer cannot keep a message, so only the status tells.
 * The message is not cleared: it stays the last failure's until the next one. */
#define BEGIN(w)                                                                                   \
  do {                                                                                             \
    if (!(w)) return AP_ERR_ARG;                                                                   \
  } while (0)

ap_status ap_writer_set_version(ap_writer *w, uint32_t version) {
  BEGIN(w);
  w->version = version;
  return AP_OK;
}

ap_status ap_writer_set_description(ap_writer *w, const char *text) {
  BEGIN(w);
  if (!text) {
    w->description = NULL;
    return AP_OK;
  }
  char *d = wr_strdup(w, text);
  if (!d) return w->mem_status;
  w->description = d;
  return AP_OK;
}

ap_status ap_writer_add_buffer(ap_writer *w, const void *data, size_t size, uint32_t *index) {
  BEGIN(w);
  if (!data && size)
    return ap_fail(&w->err, AP_ERR_ARG, "add_buffer: data is NULL but size is %zu", size);
  if (w->buffer_count >= UINT32_MAX)
    return ap_fail(&w->err, AP_ERR_RANGE, "add_buffer: the model already has %zu buffers",
                   w->buffer_count);
  if (size > FB_MAX_SIZE)
    return ap_fail(&w->err, AP_ERR_OVERFLOW,
                   "add_buffer: %zu bytes exceed the 2 GiB limit of a FlatBuffer", size);
  if (!wr_grow(w, (void **)&w->buffers, &w->buffer_cap, w->buffer_count, sizeof *w->buffers))
    return w->mem_status;
  wr_buffer *b = &w->buffers[w->buffer_count];
  b->size = size;
  b->data = NULL;
  if (size && !(b->data = wr_memdup(w, data, size, 1))) return w->mem_status;
  if (index) *index = (uint32_t)w->buffer_count;
  w->buffer_count++;
  return AP_OK;
}

static ap_status push_opcode(ap_writer *w, int8_t deprecated, int32_t builtin, const char *custom,
                             int32_t version, uint32_t *index) {
  if (w->opcode_count >= UINT32_MAX)
    return ap_fail(&w->err, AP_ERR_RANGE, "add_opcode: the model already has %zu opcodes",
                   w->opcode_count);
  if (!wr_grow(w, (void **)&w->opcodes, &w->opcode_cap, w->opcode_count, sizeof *w->opcodes))
    return w->mem_status;
  wr_opcode *o = &w->opcodes[w->opcode_count];
  o->deprecated_builtin = deprecated;
  o->builtin = builtin;
  o->version = version;
  o->custom = NULL;
  if (custom && !(o->custom = wr_strdup(w, custom))) return w->mem_status;
  if (index) *index = (uint32_t)w->opcode_count;
  w->opcode_count++;
  return AP_OK;
}

static ap_status check_version(ap_writer *w, int32_t version) {
  if (version < 1 && !w->unchecked)
    return ap_fail(&w->err, AP_ERR_ARG, "add_opcode: version %d (operator versions start at 1)",
                   (int)version);
  return AP_OK;
}

ap_status ap_writer_add_opcode(ap_writer *w, int32_t builtin, int32_t version, uint32_t *index) {
  BEGIN(w);
  if (builtin < 0 && !w->unchecked)
    return ap_fail(&w->err, AP_ERR_ARG, "add_opcode: builtin %d is negative", (int)builtin);
  if (builtin == WR_BUILTIN_CUSTOM && !w->unchecked)
    return ap_fail(&w->err, AP_ERR_ARG,
                   "add_opcode: builtin 32 is CUSTOM; use ap_writer_add_custom_opcode");
  ap_status s = check_version(w, version);
  if (s) return s;
  int8_t deprecated = (int8_t)(builtin < WR_PLACEHOLDER_OP ? builtin : WR_PLACEHOLDER_OP);
  return push_opcode(w, deprecated, builtin, NULL, version, index);
}

ap_status ap_writer_add_custom_opcode(ap_writer *w, const char *custom_code, int32_t version,
                                      uint32_t *index) {
  BEGIN(w);
  if (!custom_code || !*custom_code)
    return ap_fail(&w->err, AP_ERR_ARG, "add_custom_opcode: the custom code name is %s",
                   custom_code ? "empty" : "NULL");
  ap_status s = check_version(w, version);
  if (s) return s;
  return push_opcode(w, WR_BUILTIN_CUSTOM, WR_BUILTIN_CUSTOM, custom_code, version, index);
}

ap_status ap_writer_add_opcode_raw(ap_writer *w, int8_t deprecated_builtin_code,
                                   int32_t builtin_code, const char *custom_code, int32_t version,
                                   uint32_t *index) {
  BEGIN(w);
  return push_opcode(w, deprecated_builtin_code, builtin_code, custom_code, version, index);
}

static ap_status check_sg(ap_writer *w, const char *call, uint32_t sg) {
  if (sg >= w->subgraph_count)
    return ap_fail(&w->err, AP_ERR_RANGE, "%s: subgraph %u out of range (the model has %zu)", call,
                   (unsigned)sg, w->subgraph_count);
  return AP_OK;
}

ap_status ap_writer_add_subgraph(ap_writer *w, const char *name, uint32_t *index) {
  BEGIN(w);
  if (w->subgraph_count >= UINT32_MAX)
    return ap_fail(&w->err, AP_ERR_RANGE, "add_subgraph: the model already has %zu subgraphs",
                   w->subgraph_count);
  if (!wr_grow(w, (void **)&w->subgraphs, &w->subgraph_cap, w->subgraph_count,
               sizeof *w->subgraphs))
    return w->mem_status;
  wr_subgraph *g = &w->subgraphs[w->subgraph_count];
  memset(g, 0, sizeof *g);
  if (name && !(g->name = wr_strdup(w, name))) return w->mem_status;
  if (index) *index = (uint32_t)w->subgraph_count;
  w->subgraph_count++;
  return AP_OK;
}

ap_status ap_writer_set_subgraph_name(ap_writer *w, uint32_t sg, const char *name) {
  BEGIN(w);
  ap_status s = check_sg(w, "set_subgraph_name", sg);
  if (s) return s;
  char *n = NULL;
  if (name && !(n = wr_strdup(w, name))) return w->mem_status;
  w->subgraphs[sg].name = n;
  return AP_OK;
}

/* Checks a list of tensor indices against subgraph g and copies it. `min` is -1 where an
 * absent optional tensor is allowed. */
static ap_status copy_indices(ap_writer *w, const char *what, const wr_subgraph *g,
                              const int32_t *v, size_t n, int32_t min, wr_ivec *out) {
  if (n && !v) return ap_fail(&w->err, AP_ERR_ARG, "%s: NULL with count %zu", what, n);
  if (n > UINT32_MAX)
    return ap_fail(&w->err, AP_ERR_OVERFLOW, "%s: %zu indices do not fit a FlatBuffer vector", what,
                   n);
  for (size_t i = 0; i < n && !w->unchecked; i++)
    if (v[i] < min || (v[i] >= 0 && (size_t)v[i] >= g->tensor_count))
      return ap_fail(&w->err, AP_ERR_RANGE,
                     "%s[%zu]: tensor %d out of range (the subgraph has %zu tensors)", what, i,
                     (int)v[i], g->tensor_count);
  out->n = n;
  out->v = NULL;
  if (n && !(out->v = wr_memdup(w, v, n, sizeof *v))) return w->mem_status;
  return AP_OK;
}

ap_status ap_writer_set_subgraph_io(ap_writer *w, uint32_t sg, const int32_t *inputs,
                                    size_t input_count, const int32_t *outputs,
                                    size_t output_count) {
  BEGIN(w);
  ap_status s = check_sg(w, "set_subgraph_io", sg);
  if (s) return s;
  wr_subgraph *g = &w->subgraphs[sg];
  wr_ivec in, out;
  if ((s = copy_indices(w, "subgraph inputs", g, inputs, input_count, 0, &in)) ||
      (s = copy_indices(w, "subgraph outputs", g, outputs, output_count, 0, &out)))
    return s;
  g->inputs = in;
  g->outputs = out;
  return AP_OK;
}

static ap_status check_tensor(ap_writer *w, const wr_subgraph *g, const ap_writer_tensor *t) {
  size_t ti = g->tensor_count;
  if (t->rank && !t->shape)
    return ap_fail(&w->err, AP_ERR_ARG, "tensor %zu: shape is NULL with rank %zu", ti, t->rank);
  if ((t->scale_count && !t->scale) || (t->zero_point_count && !t->zero_point))
    return ap_fail(&w->err, AP_ERR_ARG, "tensor %zu: quantization %s is NULL with a count", ti,
                   t->scale_count && !t->scale ? "scale" : "zero_point");
  if (t->rank > UINT32_MAX || t->scale_count > UINT32_MAX || t->zero_point_count > UINT32_MAX)
    return ap_fail(&w->err, AP_ERR_OVERFLOW,
                   "tensor %zu: a count does not fit a FlatBuffer "
                   "vector",
                   ti);
  if (w->unchecked) return AP_OK;
  if (t->type < 0 || t->type >= AP_DTYPE_COUNT)
    return ap_fail(&w->err, AP_ERR_ARG, "tensor %zu: type %d is not a TensorType (0..%d)", ti,
                   t->type, AP_DTYPE_COUNT - 1);
  for (size_t d = 0; d < t->rank; d++) {
    if (t->shape[d] < 0)
      return ap_fail(&w->err, AP_ERR_ARG,
                     "tensor %zu: shape[%zu] is %d (dynamic dims belong in shape_signature)", ti, d,
                     (int)t->shape[d]);
    if (t->shape_signature && t->shape_signature[d] < -1)
      return ap_fail(&w->err, AP_ERR_ARG, "tensor %zu: shape_signature[%zu] is %d (below -1)", ti,
                     d, (int)t->shape_signature[d]);
  }
  if (t->buffer >= w->buffer_count)
    return ap_fail(&w->err, AP_ERR_RANGE, "tensor %zu: buffer %u out of range (the model has %zu)",
                   ti, (unsigned)t->buffer, w->buffer_count);
  if (t->scale_count && t->zero_point_count && t->scale_count != t->zero_point_count)
    return ap_fail(&w->err, AP_ERR_ARG, "tensor %zu: %zu scales but %zu zero points", ti,
                   t->scale_count, t->zero_point_count);
  if (t->scale_count > 1 &&
      (t->quantized_dimension < 0 || (size_t)t->quantized_dimension >= t->rank))
    return ap_fail(&w->err, AP_ERR_ARG,
                   "tensor %zu: quantized_dimension %d out of range for rank %zu", ti,
                   (int)t->quantized_dimension, t->rank);
  return AP_OK;
}

ap_status ap_writer_add_tensor(ap_writer *w, uint32_t sg, const ap_writer_tensor *t,
                               int32_t *index) {
  BEGIN(w);
  if (!t) return ap_fail(&w->err, AP_ERR_ARG, "add_tensor: the tensor is NULL");
  ap_status s = check_sg(w, "add_tensor", sg);
  if (s) return s;
  wr_subgraph *g = &w->subgraphs[sg];
  if (g->tensor_count >= INT32_MAX)
    return ap_fail(&w->err, AP_ERR_RANGE, "add_tensor: subgraph %u already has %zu tensors",
                   (unsigned)sg, g->tensor_count);
  if ((s = check_tensor(w, g, t))) return s;
  if (!wr_grow(w, (void **)&g->tensors, &g->tensor_cap, g->tensor_count, sizeof *g->tensors))
    return w->mem_status;
  wr_tensor *d = &g->tensors[g->tensor_count];
  memset(d, 0, sizeof *d);
  d->type = t->type;
  d->buffer = t->buffer;
  d->is_variable = t->is_variable;
  d->has_rank = t->has_rank;
  d->quantized_dimension = t->quantized_dimension;
  d->has_quant = t->scale_count || t->zero_point_count || t->quantized_dimension;
  d->shape.n = t->rank;
  d->has_signature = t->shape_signature != NULL;
  d->signature.n = t->shape_signature ? t->rank : 0;
  d->scale_count = t->scale_count;
  d->zero_point_count = t->zero_point_count;
  if ((t->name && !(d->name = wr_strdup(w, t->name))) ||
      (t->rank && !(d->shape.v = wr_memdup(w, t->shape, t->rank, sizeof(int32_t)))) ||
      (d->signature.n &&
       !(d->signature.v = wr_memdup(w, t->shape_signature, t->rank, sizeof(int32_t)))) ||
      (t->scale_count && !(d->scale = wr_memdup(w, t->scale, t->scale_count, sizeof(float)))) ||
      (t->zero_point_count &&
       !(d->zero_point = wr_memdup(w, t->zero_point, t->zero_point_count, sizeof(int64_t)))))
    return w->mem_status;
  if (index) *index = (int32_t)g->tensor_count;
  g->tensor_count++;
  return AP_OK;
}

ap_status ap_writer_add_op(ap_writer *w, uint32_t sg, const ap_writer_op *op, uint32_t *index) {
  BEGIN(w);
  if (!op) return ap_fail(&w->err, AP_ERR_ARG, "add_op: the op is NULL");
  ap_status s = check_sg(w, "add_op", sg);
  if (s) return s;
  wr_subgraph *g = &w->subgraphs[sg];
  size_t oi = g->op_count;
  if (oi >= UINT32_MAX)
    return ap_fail(&w->err, AP_ERR_RANGE, "add_op: subgraph %u already has %zu ops", (unsigned)sg,
                   oi);
  if (op->opcode >= w->opcode_count && !w->unchecked)
    return ap_fail(&w->err, AP_ERR_RANGE, "op %zu: opcode %u out of range (the model has %zu)", oi,
                   (unsigned)op->opcode, w->opcode_count);
  if (op->custom_options_size && !op->custom_options)
    return ap_fail(&w->err, AP_ERR_ARG, "op %zu: custom_options is NULL with size %zu", oi,
                   op->custom_options_size);
  if (op->custom_options_size > FB_MAX_SIZE)
    return ap_fail(&w->err, AP_ERR_OVERFLOW,
                   "op %zu: %zu bytes of custom options exceed the 2 GiB limit", oi,
                   op->custom_options_size);
  wr_op o;
  memset(&o, 0, sizeof o);
  o.opcode = op->opcode;
  char what[3][48];
  snprintf(what[0], sizeof what[0], "op %zu: inputs", oi);
  snprintf(what[1], sizeof what[1], "op %zu: outputs", oi);
  snprintf(what[2], sizeof what[2], "op %zu: intermediates", oi);
  if ((s = copy_indices(w, what[0], g, op->inputs, op->input_count, -1, &o.inputs)) ||
      (s = copy_indices(w, what[1], g, op->outputs, op->output_count, 0, &o.outputs)) ||
      (s = copy_indices(w, what[2], g, op->intermediates, op->intermediate_count, 0,
                        &o.intermediates)))
    return s;
  snprintf(what[0], sizeof what[0], "op %zu: builtin_options", oi);
  snprintf(what[1], sizeof what[1], "op %zu: builtin_options_2", oi);
  if ((op->options && (s = wr_copy_options(w, op->options, &o.options, what[0]))) ||
      (op->options2 && (s = wr_copy_options(w, op->options2, &o.options2, what[1]))))
    return s;
  if (op->custom_options) {
    o.has_custom = true;
    o.custom_size = op->custom_options_size;
    if (o.custom_size && !(o.custom = wr_memdup(w, op->custom_options, o.custom_size, 1)))
      return w->mem_status;
  }
  if (!wr_grow(w, (void **)&g->ops, &g->op_cap, g->op_count, sizeof *g->ops)) return w->mem_status;
  g->ops[g->op_count] = o;
  if (index) *index = (uint32_t)g->op_count;
  g->op_count++;
  return AP_OK;
}

ap_status ap_writer_add_metadata(ap_writer *w, const char *name, uint32_t buffer) {
  BEGIN(w);
  if (!name) return ap_fail(&w->err, AP_ERR_ARG, "add_metadata: the name is NULL");
  if (buffer >= w->buffer_count && !w->unchecked)
    return ap_fail(&w->err, AP_ERR_RANGE,
                   "metadata \"%s\": buffer %u out of range (the model has %zu)", name,
                   (unsigned)buffer, w->buffer_count);
  if (!wr_grow(w, (void **)&w->metadata, &w->metadata_cap, w->metadata_count, sizeof *w->metadata))
    return w->mem_status;
  wr_metadata *m = &w->metadata[w->metadata_count];
  if (!(m->name = wr_strdup(w, name))) return w->mem_status;
  m->buffer = buffer;
  w->metadata_count++;
  return AP_OK;
}

ap_status ap_writer_add_metadata_bytes(ap_writer *w, const char *name, const void *data,
                                       size_t size, uint32_t *buffer) {
  BEGIN(w);
  if (!name) return ap_fail(&w->err, AP_ERR_ARG, "add_metadata: the name is NULL");
  uint32_t b;
  ap_status s = ap_writer_add_buffer(w, data, size, &b);
  if (s) return s;
  if ((s = ap_writer_add_metadata(w, name, b))) return s;
  if (buffer) *buffer = b;
  return AP_OK;
}

static ap_status copy_maps(ap_writer *w, const char *key, const char *what, const wr_subgraph *g,
                           const ap_tensor_map *in, size_t n, wr_tmap **out) {
  *out = NULL;
  if (n && !in)
    return ap_fail(&w->err, AP_ERR_ARG, "signature \"%s\": %s NULL with count %zu", key, what, n);
  if (n > UINT32_MAX)
    return ap_fail(&w->err, AP_ERR_OVERFLOW, "signature \"%s\": %zu %s", key, n, what);
  for (size_t i = 0; i < n; i++) {
    if (!in[i].name)
      return ap_fail(&w->err, AP_ERR_ARG, "signature \"%s\": %s[%zu] has a NULL name", key, what,
                     i);
    if (g && in[i].tensor >= g->tensor_count)
      return ap_fail(&w->err, AP_ERR_RANGE,
                     "signature \"%s\": %s[%zu] \"%s\": tensor %u out of range (the subgraph "
                     "has %zu tensors)",
                     key, what, i, in[i].name, (unsigned)in[i].tensor, g->tensor_count);
  }
  if (!n) return AP_OK;
  wr_tmap *m = wr_alloc_array(w, n, sizeof *m);
  if (!m) return w->mem_status;
  for (size_t i = 0; i < n; i++) {
    m[i].tensor = in[i].tensor;
    if (!(m[i].name = wr_strdup(w, in[i].name))) return w->mem_status;
  }
  *out = m;
  return AP_OK;
}

ap_status ap_writer_add_signature(ap_writer *w, const char *key, uint32_t subgraph,
                                  const ap_tensor_map *inputs, size_t input_count,
                                  const ap_tensor_map *outputs, size_t output_count,
                                  uint32_t *index) {
  BEGIN(w);
  if (!key) return ap_fail(&w->err, AP_ERR_ARG, "add_signature: the key is NULL");
  const wr_subgraph *g = NULL;
  if (!w->unchecked) {
    if (subgraph >= w->subgraph_count)
      return ap_fail(&w->err, AP_ERR_RANGE,
                     "signature \"%s\": subgraph %u out of range (the model has %zu)", key,
                     (unsigned)subgraph, w->subgraph_count);
    g = &w->subgraphs[subgraph];
  }
  wr_signature sig = {
      .subgraph = subgraph, .input_count = input_count, .output_count = output_count};
  ap_status s;
  if ((s = copy_maps(w, key, "inputs", g, inputs, input_count, &sig.inputs)) ||
      (s = copy_maps(w, key, "outputs", g, outputs, output_count, &sig.outputs)))
    return s;
  if (!(sig.key = wr_strdup(w, key))) return w->mem_status;
  if (!wr_grow(w, (void **)&w->signatures, &w->signature_cap, w->signature_count,
               sizeof *w->signatures))
    return w->mem_status;
  w->signatures[w->signature_count] = sig;
  if (index) *index = (uint32_t)w->signature_count;
  w->signature_count++;
  return AP_OK;
}

ap_status ap_writer_finish(ap_writer *w, const uint8_t **bytes, size_t *size) {
  BEGIN(w);
  if (!bytes || !size) return ap_fail(&w->err, AP_ERR_ARG, "finish: bytes or size is NULL");
  *bytes = NULL;
  *size = 0;
  ap_status s = wr_build(w);
  if (s) return s;
  *bytes = w->fb.buf;
  *size = w->fb.len;
  return AP_OK;
}

ap_status ap_writer_save(ap_writer *w, const char *path) {
  BEGIN(w);
  if (!path) return ap_fail(&w->err, AP_ERR_ARG, "save: the path is NULL");
  const uint8_t *bytes;
  size_t size;
  ap_status s = ap_writer_finish(w, &bytes, &size);
  if (s) return s;
  return ap_port_file_write(path, bytes, size, &w->err);
}
