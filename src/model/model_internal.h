/* The model handle and what the loader, verifier and accessors share. */
#ifndef AP_MODEL_INTERNAL_H
#define AP_MODEL_INTERNAL_H

#include "arenaplan/model.h"
#include "base/base.h"
#include "model/flatbuf.h"
#include "model/schema_gen.h"
#include "port/port.h"

struct ap_model {
  const ap_allocator *alloc;
  ap_errbuf err;
  char *name;           /* the path or the caller's name, for messages */
  const uint8_t *bytes; /* the whole file; the flatbuffer starts at 0 */
  size_t size;
  ap_port_file file; /* the mapped file to undo; empty for a caller's buffer */
  bool ok;           /* verified: the accessors may read */
  size_t root;       /* the Model table */
  fb_vec opcodes, subgraphs, buffers, metadata, signatures;
};

/* Verifies m->bytes[0..size) as a TFLite model and fills root and the top-level vectors.
 * On failure writes "NAME: what is wrong" into m->err. */
ap_status ap_model_verify(ap_model *m);

/* Positions of the tables of one kind, for verified models with in-range indices. */
size_t ap_model_subgraph_pos(const ap_model *m, size_t sg);
size_t ap_model_tensor_pos(const ap_model *m, size_t sg, size_t t);
size_t ap_model_op_pos(const ap_model *m, size_t sg, size_t op);

/* The resolved builtin of an OperatorCode table. */
int32_t ap_model_opcode_builtin(const uint8_t *b, size_t opcode_table);

/* A buffer's bytes as stored: the data vector, or the region after the flatbuffer
 * (offset > 1 and size > 0). Returns false when the external region is outside the file. */
bool ap_model_buffer_region(const uint8_t *b, size_t file_size, size_t buffer_table,
                            const uint8_t **data, uint64_t *size);

/* Byte size of `n` elements of `dtype` (sub-byte types packed, rounded up); false when the
 * type has no fixed size or on overflow. */
bool ap_dtype_bytes(int dtype, size_t n, size_t *out);

#endif
