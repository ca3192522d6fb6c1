/* arenaplan model: a TFLite (.tflite, FlatBuffers "TFL3") model, read in place.
 *
 *   ap_model *m;
 *   if (ap_model_open("m.tflite", NULL, &m) != AP_OK) {
 *     fprintf(stderr, "%s\n", ap_model_error(m));   // m may be NULL only on out-of-memory
 *     ap_model_destroy(m);
 *     return 1;
 *   }
 *   for (size_t i = 0; i < ap_model_tensor_count(m, 0); i++) { ap_tensor_info t; ... }
 *   ap_model_destroy(m);
 *
 * Zero-copy: the model is a read-only mmap of the file (ap_model_open) or the caller's buffer
 * (ap_model_from_buffer; the buffer must outlive the model and stay unchanged). Nothing is
 * unpacked. The whole file is verified once at load: afterwards every accessor is bounds-safe.
 * Pointers returned by accessors point into the model's bytes and live as long as the model.
 *
 * Little-endian hosts only (the format's byte order).
 */
#ifndef ARENAPLAN_MODEL_H
#define ARENAPLAN_MODEL_H

#include "arenaplan/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ap_model ap_model;

/* TFLite TensorType values (schema.fbs). */
typedef enum ap_dtype {
  AP_FLOAT32 = 0, AP_FLOAT16 = 1, AP_INT32 = 2, AP_UINT8 = 3, AP_INT64 = 4, AP_STRING = 5,
  AP_BOOL = 6, AP_INT16 = 7, AP_COMPLEX64 = 8, AP_INT8 = 9, AP_FLOAT64 = 10,
  AP_COMPLEX128 = 11, AP_UINT64 = 12, AP_RESOURCE = 13, AP_VARIANT = 14, AP_UINT32 = 15,
  AP_UINT16 = 16, AP_INT4 = 17, AP_BFLOAT16 = 18, AP_INT2 = 19, AP_UINT4 = 20,
  AP_FLOAT8_E4M3FN = 21, AP_FLOAT8_E5M2 = 22
} ap_dtype;
#define AP_DTYPE_COUNT 23

/* "FLOAT32", "INT8", ...; "UNKNOWN" out of range. */
const char *ap_dtype_name(int dtype);
/* Bits per element (32 for FLOAT32, 4 for INT4); 0 for STRING, RESOURCE, VARIANT and
 * unknown types, whose size is not a function of their shape. */
unsigned ap_dtype_bits(int dtype);

/* "CONV_2D", "FULLY_CONNECTED", ...; "UNKNOWN" for codes the schema does not name. */
const char *ap_builtin_name(int32_t builtin_code);
#define AP_BUILTIN_CUSTOM 32

typedef struct ap_model_options {
  const ap_allocator *allocator; /* NULL: malloc/free */
} ap_model_options;

/* Loads and verifies a model. On any failure *out is still a model handle (unless memory for
 * it could not be had, then NULL) whose ap_model_error() names what is wrong, with the
 * file name, the index and the numbers; destroy it as usual. */
ap_status ap_model_open(const char *path, const ap_model_options *opt, ap_model **out);
/* The same over bytes the caller keeps alive and unchanged for the model's lifetime. The
 * buffer must be 8-byte aligned (AP_ERR_ARG otherwise: int32 and int64 vectors are handed out
 * in place); `name` is used in messages (NULL: "(buffer)"). */
ap_status ap_model_from_buffer(const void *data, size_t size, const char *name,
                               const ap_model_options *opt, ap_model **out);
void ap_model_destroy(ap_model *m);
/* The last failure's message, "" if none. Never NULL (for m == NULL: a fixed message). */
const char *ap_model_error(const ap_model *m);

/* Whole-model facts. Counts are 0 for a failed model. */
const char *ap_model_path(const ap_model *m);
const uint8_t *ap_model_bytes(const ap_model *m, size_t *size);
uint32_t ap_model_version(const ap_model *m);
const char *ap_model_description(const ap_model *m); /* NULL if absent */
size_t ap_model_subgraph_count(const ap_model *m);
size_t ap_model_buffer_count(const ap_model *m);
size_t ap_model_opcode_count(const ap_model *m);
size_t ap_model_metadata_count(const ap_model *m);
size_t ap_model_signature_count(const ap_model *m);

/* Buffer i's bytes (inside the flatbuffer, or after it via Buffer.offset/size). Returns NULL
 * and size 0 when the buffer holds no data or i is out of range. */
const uint8_t *ap_model_buffer(const ap_model *m, size_t i, size_t *size);

typedef struct ap_opcode_info {
  int32_t builtin;      /* max(builtin_code, deprecated_builtin_code) */
  const char *custom;   /* custom_code, NULL if absent */
  int32_t version;
} ap_opcode_info;
ap_status ap_model_opcode(const ap_model *m, size_t i, ap_opcode_info *out);

typedef struct ap_metadata_info {
  const char *name;     /* "" if absent */
  uint32_t buffer;
} ap_metadata_info;
ap_status ap_model_metadata(const ap_model *m, size_t i, ap_metadata_info *out);

/* An offline plan: the metadata "OfflineMemoryAllocation" TFLite Micro reads (and arenaplan
 * writes with `embed`), little-endian int32 words [version, subgraph count, count, offset x
 * count] with count the tensors of all subgraphs and -1 for a tensor planned at run time.
 * tflm.h says how TFLite Micro applies one. */
#define AP_OFFLINE_PLAN_METADATA "OfflineMemoryAllocation"
typedef struct ap_offline_plan {
  uint32_t version, subgraphs;
  int32_t *offsets; /* count */
  size_t count;
} ap_offline_plan;
void ap_offline_plan_free(ap_offline_plan *p, const ap_allocator *a);
/* The model's plan. *found false (AP_OK) when it has none; AP_ERR_FORMAT when its buffer is too
 * short or its count is not the model's tensor count (TFLite Micro refuses it). */
ap_status ap_model_offline_plan(const ap_model *m, const ap_allocator *a, ap_offline_plan *out,
                                bool *found, char *err, size_t err_size);
/* The metadata bytes of a plan (*bytes from the allocator: the caller frees it). */
ap_status ap_offline_plan_encode(const ap_offline_plan *p, const ap_allocator *a, uint8_t **bytes,
                                 size_t *size);

typedef struct ap_tensor_map {
  const char *name;
  uint32_t tensor;
} ap_tensor_map;
typedef struct ap_signature_info {
  const char *key;      /* signature_key, "" if absent */
  uint32_t subgraph;
  size_t input_count, output_count;
} ap_signature_info;
ap_status ap_model_signature(const ap_model *m, size_t i, ap_signature_info *out);
ap_status ap_model_signature_input(const ap_model *m, size_t sig, size_t k, ap_tensor_map *out);
ap_status ap_model_signature_output(const ap_model *m, size_t sig, size_t k, ap_tensor_map *out);

/* A vector of int32 inside the model (little-endian, 4-byte aligned: verified). */
typedef struct ap_ivec {
  const int32_t *v;
  size_t n;
} ap_ivec;

/* Subgraphs. */
const char *ap_model_subgraph_name(const ap_model *m, size_t sg); /* "" if absent */
size_t ap_model_tensor_count(const ap_model *m, size_t sg);
size_t ap_model_op_count(const ap_model *m, size_t sg);
ap_ivec ap_model_subgraph_inputs(const ap_model *m, size_t sg);
ap_ivec ap_model_subgraph_outputs(const ap_model *m, size_t sg);

typedef struct ap_tensor_info {
  const char *name;          /* "" if absent */
  int type;                  /* ap_dtype */
  ap_ivec shape;             /* n == 0: scalar (or unknown rank, see has_rank) */
  ap_ivec shape_signature;   /* v == NULL if absent; -1 marks a dynamic dimension */
  bool has_rank;             /* has_rank, or a shape vector is stored (older files) */
  uint32_t buffer;           /* index into the model's buffers; 0 = no data */
  bool is_variable;
  bool is_constant;          /* its buffer holds data */
  size_t bytes;              /* shape product x element size, sub-byte types packed
                                (verified not to overflow); 0 for STRING/RESOURCE/VARIANT */
  /* Quantization (all n == 0 if absent). zero_point is int64 as in the schema. */
  const float *scale;
  size_t scale_count;
  const int64_t *zero_point;
  size_t zero_point_count;
  int32_t quantized_dimension;
} ap_tensor_info;
ap_status ap_model_tensor(const ap_model *m, size_t sg, size_t t, ap_tensor_info *out);

/* A sparse tensor's encoding (Tensor.sparsity, TFLite's TACO-style format): present false for a
 * dense tensor. Its constant buffer holds the compressed values (fewer bytes than the dense
 * shape's). dims_table is internal (where dim_metadata sits); read each dimension's metadata
 * with ap_model_tensor_sparse_dim, k < dim_count. */
typedef struct ap_sparsity {
  bool present;
  ap_ivec traversal_order;
  ap_ivec block_map;
  size_t dim_count;
  size_t dims_table;
} ap_sparsity;
typedef struct ap_sparse_index {
  int type; /* AP_INT32, AP_UINT16 or AP_UINT8; 0 when absent */
  const void *values;
  size_t count;
} ap_sparse_index;
typedef struct ap_sparse_dim {
  int format; /* 0 DENSE, 1 SPARSE_CSR */
  int32_t dense_size;
  ap_sparse_index array_segments, array_indices;
} ap_sparse_dim;
ap_status ap_model_tensor_sparsity(const ap_model *m, size_t sg, size_t t, ap_sparsity *out);
ap_status ap_model_tensor_sparse_dim(const ap_model *m, size_t sg, size_t t, size_t k,
                                     ap_sparse_dim *out);

typedef struct ap_op_info {
  uint32_t opcode_index;
  int32_t builtin;           /* resolved from the opcode */
  const char *custom;        /* custom_code of the opcode, NULL if builtin */
  int32_t version;
  ap_ivec inputs;            /* -1 = optional input absent */
  ap_ivec outputs;
  ap_ivec intermediates;
  uint8_t options_type;      /* BuiltinOptions union type, 0 if none */
  const uint8_t *custom_options; /* NULL if absent */
  size_t custom_options_size;
} ap_op_info;
ap_status ap_model_op(const ap_model *m, size_t sg, size_t op, ap_op_info *out);

/* String tensors (STRING): TFLite's buffer format, int32 count n, int32 offsets[n + 1] from the
 * buffer's start (offsets[0] == 4 * (n + 2); string i is bytes [offsets[i], offsets[i + 1]);
 * offsets[n] is where the strings end), then the bytes; little-endian, no alignment needed.
 * check: AP_ERR_FORMAT with the reason in err for a buffer shorter than its header, a negative
 * or overflowing count, a count other than `count` (SIZE_MAX: any), a first offset not right
 * after the offsets, offsets out of order or past `size`; *used (may be NULL) gets offsets[n].
 * The readers below trust a buffer that passed the check (or that this library wrote). */
ap_status ap_string_buffer_check(const void *data, size_t size, size_t count, size_t *used,
                                 char *err, size_t err_size);
size_t ap_string_count(const void *data);
size_t ap_string_buffer_size(const void *data); /* offsets[n]: the bytes the buffer uses */
/* String i (false past the end); s points into the buffer (not NUL-terminated). */
bool ap_string_at(const void *data, size_t i, const uint8_t **s, size_t *len);
/* Writes n strings as a buffer into out (out_size bytes); *need gets the buffer's size (call
 * with out NULL to learn it). AP_ERR_OVERFLOW above INT32_MAX bytes, AP_ERR_ARG when out_size
 * is too small. */
ap_status ap_string_buffer_write(void *out, size_t out_size, const uint8_t *const *strings,
                                 const size_t *lens, size_t n, size_t *need);

#ifdef __cplusplus
}
#endif
#endif
