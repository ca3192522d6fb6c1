/* The writer's in-memory model: what ap_writer_add_* copied, serialised by writer_build.c.
 * All copied strings, shapes and data live in a chunked arena freed with the writer. */
#ifndef AP_SRC_MODEL_WRITER_INTERNAL_H
#define AP_SRC_MODEL_WRITER_INTERNAL_H

#include "arenaplan/writer.h"
#include "base/base.h"
#include "model/fb_builder.h"

typedef struct wr_chunk wr_chunk;

typedef struct wr_ivec {
  int32_t *v; /* NULL when n == 0 */
  size_t n;
} wr_ivec;

typedef struct wr_opcode {
  int8_t deprecated_builtin;
  int32_t builtin;
  char *custom; /* NULL: absent */
  int32_t version;
} wr_opcode;

typedef struct wr_buffer {
  uint8_t *data; /* NULL when size == 0 */
  size_t size;
} wr_buffer;

typedef struct wr_tensor {
  char *name;
  int type;
  wr_ivec shape;
  wr_ivec signature;
  bool has_signature, has_rank, is_variable, has_quant;
  uint32_t buffer;
  float *scale;
  size_t scale_count;
  int64_t *zero_point;
  size_t zero_point_count;
  int32_t quantized_dimension;
} wr_tensor;

typedef struct wr_options {
  uint8_t type; /* 0: none */
  size_t count;
  ap_option_field *fields; /* data of vectors and strings copied into the arena */
} wr_options;

typedef struct wr_op {
  uint32_t opcode;
  wr_ivec inputs, outputs, intermediates;
  wr_options options, options2;
  uint8_t *custom;
  size_t custom_size;
  bool has_custom;
} wr_op;

typedef struct wr_subgraph {
  char *name;
  wr_ivec inputs, outputs;
  wr_tensor *tensors;
  size_t tensor_count, tensor_cap;
  wr_op *ops;
  size_t op_count, op_cap;
} wr_subgraph;

typedef struct wr_metadata {
  char *name;
  uint32_t buffer;
} wr_metadata;

typedef struct wr_tmap {
  char *name;
  uint32_t tensor;
} wr_tmap;

typedef struct wr_signature {
  char *key;
  uint32_t subgraph;
  wr_tmap *inputs, *outputs;
  size_t input_count, output_count;
} wr_signature;

struct ap_writer {
  const ap_allocator *alloc;
  ap_errbuf err;
  ap_status mem_status; /* why the last arena or list allocation failed (NOMEM or OVERFLOW) */
  bool unchecked, external_buffers;
  wr_chunk *chunks;
  uint32_t version;
  char *description;
  wr_opcode *opcodes;
  size_t opcode_count, opcode_cap;
  wr_buffer *buffers;
  size_t buffer_count, buffer_cap;
  wr_subgraph *subgraphs;
  size_t subgraph_count, subgraph_cap;
  wr_metadata *metadata;
  size_t metadata_count, metadata_cap;
  wr_signature *signatures;
  size_t signature_count, signature_cap;
  fb_builder fb;
};

/* `size` bytes from the writer's arena, 16-byte aligned; NULL on failure (message set). */
void *wr_arena_alloc(ap_writer *w, size_t size);
/* n elements of elem_size bytes from the arena (uninitialised); NULL on failure. */
void *wr_alloc_array(ap_writer *w, size_t n, size_t elem_size);
/* Copies of caller data into the arena; NULL on failure (message set). wr_memdup returns NULL
 * for n == 0 too, so callers test n before treating NULL as a failure. */
char *wr_strdup(ap_writer *w, const char *s);
void *wr_memdup(ap_writer *w, const void *p, size_t n, size_t elem_size);
void wr_arena_free(ap_writer *w);
/* Ensures room for one more element in a growable array; false on failure (message set). */
bool wr_grow(ap_writer *w, void **items, size_t *cap, size_t count, size_t elem_size);

/* Checks and copies an options table (writer_options.c). `what` names it in messages. */
ap_status wr_copy_options(ap_writer *w, const ap_options *in, wr_options *out, const char *what);

/* Serialises the model into w->fb (writer_build.c). */
ap_status wr_build(ap_writer *w);

#endif
