/* arenaplan writer: builds a TFLite model (.tflite, FlatBuffers "TFL3", schema version 3)
 * from code.
 *
 *   ap_writer *w;
 *   if (ap_writer_create(NULL, &w) != AP_OK) return 1;      // only out of memory fails here
 *   uint32_t conv, wbuf;
 *   int32_t in, out, weights;
 *   ap_writer_add_opcode(w, 3, 1, &conv);                   // CONV_2D, version 1
 *   ap_writer_add_buffer(w, data, size, &wbuf);
 *   ap_writer_add_tensor(w, 0, &(ap_writer_tensor){.name = "x", .shape = dims, .rank = 4}, &in);
 *   ...
 *   ap_options o = ap_options_conv2d(AP_PADDING_SAME, 1, 1, AP_ACT_RELU, 1, 1);
 *   ap_writer_add_op(w, 0, &(ap_writer_op){.opcode = conv, .inputs = ins, .input_count = 3,
 *                                          .outputs = &out, .output_count = 1,
 *                                          .options = &o}, NULL);
 *   if (ap_writer_save(w, "m.tflite") != AP_OK) fprintf(stderr, "%s\n", ap_writer_error(w));
 *   ap_writer_destroy(w);
 *
 * Everything given is copied at once (strings, shapes, buffer data, option vectors): the
 * caller's memory may be reused as soon as a call returns. Indices are checked when they are
 * added (a tensor's buffer, an op's opcode and tensors, ...) so a mistake is reported by the
 * call that made it; options.unchecked turns those checks off for tests that craft invalid
 * models on purpose. The writer starts with subgraph 0 (unnamed) and buffer 0 (the empty
 * buffer TFLite requires), so a one-subgraph model needs no ap_writer_add_subgraph.
 *
 * Output: buffer data starts at 16-byte aligned offsets (the schema's force_align), the file
 * identifier is "TFL3", and the whole model is one FlatBuffer below 2 GiB.
 */
#ifndef ARENAPLAN_WRITER_H
#define ARENAPLAN_WRITER_H

#include "arenaplan/base.h"
#include "arenaplan/model.h"
#include "arenaplan/options.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ap_writer ap_writer;

typedef struct ap_writer_options {
  const ap_allocator *allocator; /* NULL: malloc/free */
  /* Writes indices, dtypes and dims as given, without range checks (the output stays a
   * well-formed FlatBuffer): for tests of a model reader's verifier. */
  bool unchecked;
  /* Stores buffer data after the FlatBuffer, found through Buffer.offset/size (from the file's
   * start) instead of Buffer.data: the layout TFLite uses for models over 2 GB. */
  bool external_buffers;
} ap_writer_options;

/* Creates a writer holding subgraph 0 and buffer 0. *out is NULL only if memory for the
 * writer itself could not be had (AP_ERR_NOMEM). */
ap_status ap_writer_create(const ap_writer_options *opt, ap_writer **out);
void ap_writer_destroy(ap_writer *w);
/* The last failure's message, "" if none. Never NULL. */
const char *ap_writer_error(const ap_writer *w);

/* Model.version, 3 unless set. */
ap_status ap_writer_set_version(ap_writer *w, uint32_t version);
/* Model.description; NULL removes it. */
ap_status ap_writer_set_description(ap_writer *w, const char *text);

/* A buffer holding a copy of `size` bytes (size 0: an empty buffer; data may then be NULL). */
ap_status ap_writer_add_buffer(ap_writer *w, const void *data, size_t size, uint32_t *index);

/* An operator code for builtin `builtin` (BuiltinOperator, e.g. 3 = CONV_2D). Writes both
 * builtin_code and deprecated_builtin_code = min(builtin, 127), as current converters do.
 * version >= 1. Every call adds a new code, even for a builtin already present (real models
 * hold the same builtin at several versions). */
ap_status ap_writer_add_opcode(ap_writer *w, int32_t builtin, int32_t version, uint32_t *index);
/* A CUSTOM (32) operator code named `custom_code`. */
ap_status ap_writer_add_custom_opcode(ap_writer *w, const char *custom_code, int32_t version,
                                      uint32_t *index);
/* An operator code written exactly as given, e.g. deprecated_builtin_code only with
 * builtin_code 0 as files from before TensorFlow 2.3 have. custom_code may be NULL. */
ap_status ap_writer_add_opcode_raw(ap_writer *w, int8_t deprecated_builtin_code,
                                   int32_t builtin_code, const char *custom_code, int32_t version,
                                   uint32_t *index);

/* A new subgraph (after subgraph 0, which always exists); name may be NULL. */
ap_status ap_writer_add_subgraph(ap_writer *w, const char *name, uint32_t *index);
ap_status ap_writer_set_subgraph_name(ap_writer *w, uint32_t sg, const char *name);
/* The subgraph's input and output tensor indices (replacing earlier ones). */
ap_status ap_writer_set_subgraph_io(ap_writer *w, uint32_t sg, const int32_t *inputs,
                                    size_t input_count, const int32_t *outputs,
                                    size_t output_count);

typedef struct ap_writer_tensor {
  const char *name;     /* NULL: no name */
  int type;             /* ap_dtype; 0 = FLOAT32 */
  const int32_t *shape; /* rank dims, each >= 0 */
  size_t rank;
  const int32_t *shape_signature; /* NULL: absent; else rank dims, each >= -1 */
  bool has_rank;                  /* the schema's has_rank (false: written only when true) */
  uint32_t buffer;                /* 0: no data */
  bool is_variable;
  /* Quantization, written when any count is nonzero or quantized_dimension is. */
  const float *scale;
  size_t scale_count;
  const int64_t *zero_point;
  size_t zero_point_count;
  int32_t quantized_dimension;
} ap_writer_tensor;
/* Adds a tensor to subgraph sg; *index receives its index (int32_t, as ops refer to it). */
ap_status ap_writer_add_tensor(ap_writer *w, uint32_t sg, const ap_writer_tensor *t,
                               int32_t *index);

/* Builtin options: one table of the BuiltinOptions (or BuiltinOptions2) union, given as a
 * list of fields. A field's id is its declaration order in the options table of
 * tflite/schema.fbs, counting deprecated fields (a union field counts twice: its _type field
 * first). Any op's options can be written this way; the helpers below fill it for the common
 * ones. Fields are written even when equal to the schema default. */
typedef enum ap_option_kind {
  AP_OPT_BOOL = 1,
  AP_OPT_INT8,
  AP_OPT_UINT8,
  AP_OPT_INT16,
  AP_OPT_UINT16,
  AP_OPT_INT32,
  AP_OPT_UINT32,
  AP_OPT_INT64,
  AP_OPT_UINT64, /* the value is i reinterpreted as uint64_t */
  AP_OPT_FLOAT32,
  AP_OPT_FLOAT64,
  AP_OPT_INT32_VECTOR, /* data: n int32_t */
  AP_OPT_INT64_VECTOR, /* data: n int64_t */
  AP_OPT_UINT8_VECTOR, /* data: n bytes */
  AP_OPT_STRING        /* data: a NUL-terminated string */
} ap_option_kind;

typedef struct ap_option_field {
  uint16_t id; /* 0 .. AP_OPTIONS_MAX_FIELD_ID */
  ap_option_kind kind;
  int64_t i;        /* integer kinds and BOOL; must fit the kind */
  double f;         /* FLOAT32, FLOAT64 */
  const void *data; /* vector and string kinds */
  size_t n;         /* vector kinds: element count */
} ap_option_field;

#define AP_OPTIONS_MAX_FIELDS 24
#define AP_OPTIONS_MAX_FIELD_ID 255
typedef struct ap_options {
  uint8_t type; /* the union's type number (1 = Conv2DOptions, ...); 0 = no options */
  size_t count;
  ap_option_field fields[AP_OPTIONS_MAX_FIELDS];
} ap_options;

/* BuiltinOptions union type numbers (schema.fbs declaration order, from 1). */
enum {
  AP_BUILTIN_OPTIONS_CONV2D = 1,
  AP_BUILTIN_OPTIONS_DEPTHWISE_CONV2D = 2,
  AP_BUILTIN_OPTIONS_POOL2D = 5,
  AP_BUILTIN_OPTIONS_FULLY_CONNECTED = 8,
  AP_BUILTIN_OPTIONS_SOFTMAX = 9,
  AP_BUILTIN_OPTIONS_CONCATENATION = 10,
  AP_BUILTIN_OPTIONS_ADD = 11,
  AP_BUILTIN_OPTIONS_RESHAPE = 17,
  AP_BUILTIN_OPTIONS_MUL = 21
};

/* Conv2DOptions: padding, stride_w, stride_h, fused_activation_function, dilation_w_factor,
 * dilation_h_factor. */
ap_options ap_options_conv2d(ap_padding padding, int32_t stride_w, int32_t stride_h,
                             ap_activation act, int32_t dilation_w, int32_t dilation_h);
/* DepthwiseConv2DOptions. */
ap_options ap_options_depthwise_conv2d(ap_padding padding, int32_t stride_w, int32_t stride_h,
                                       int32_t depth_multiplier, ap_activation act,
                                       int32_t dilation_w, int32_t dilation_h);
/* Pool2DOptions (AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D). */
ap_options ap_options_pool2d(ap_padding padding, int32_t stride_w, int32_t stride_h,
                             int32_t filter_w, int32_t filter_h, ap_activation act);
/* FullyConnectedOptions: fused_activation_function, weights_format DEFAULT, keep_num_dims. */
ap_options ap_options_fully_connected(ap_activation act, bool keep_num_dims);
ap_options ap_options_softmax(float beta);
ap_options ap_options_add(ap_activation act);
ap_options ap_options_mul(ap_activation act);
/* ReshapeOptions.new_shape; the dims are copied when the op is added, not here. */
ap_options ap_options_reshape(const int32_t *new_shape, size_t n);
/* ConcatenationOptions. */
ap_options ap_options_concatenation(int32_t axis, ap_activation act);

typedef struct ap_writer_op {
  uint32_t opcode;       /* index into the operator codes */
  const int32_t *inputs; /* -1: an absent optional input */
  size_t input_count;
  const int32_t *outputs;
  size_t output_count;
  const int32_t *intermediates;
  size_t intermediate_count;
  const ap_options *options;     /* builtin_options; NULL: none */
  const ap_options *options2;    /* builtin_options_2 (BuiltinOptions2); NULL: none */
  const uint8_t *custom_options; /* copied; NULL: none */
  size_t custom_options_size;
} ap_writer_op;
/* Appends an op to subgraph sg (ops run in the order added); index may be NULL. */
ap_status ap_writer_add_op(ap_writer *w, uint32_t sg, const ap_writer_op *op, uint32_t *index);

/* Model.metadata entry `name` pointing at an existing buffer. */
ap_status ap_writer_add_metadata(ap_writer *w, const char *name, uint32_t buffer);
/* A new buffer holding a copy of the bytes, and a metadata entry for it; buffer may be NULL. */
ap_status ap_writer_add_metadata_bytes(ap_writer *w, const char *name, const void *data,
                                       size_t size, uint32_t *buffer);

/* A SignatureDef: key, the subgraph it runs, and name -> tensor maps (ap_tensor_map from
 * model.h; tensor indices are the subgraph's). index may be NULL. */
ap_status ap_writer_add_signature(ap_writer *w, const char *key, uint32_t subgraph,
                                  const ap_tensor_map *inputs, size_t input_count,
                                  const ap_tensor_map *outputs, size_t output_count,
                                  uint32_t *index);

/* Serialises the model. *bytes (16-byte aligned) is owned by the writer and stays valid until
 * the next finish, save or destroy. The writer can be extended and finished again. */
ap_status ap_writer_finish(ap_writer *w, const uint8_t **bytes, size_t *size);
/* Finishes and writes the bytes to `path`. */
ap_status ap_writer_save(ap_writer *w, const char *path);


/* Patches: a copy of an existing (loaded) model with one change, every other byte as it was.
 * out->bytes (16-byte aligned, from the allocator) is the caller's: free it with
 * ap_model_patch_free. On failure out->error says why and nothing needs freeing. */
typedef struct ap_model_patch {
  uint8_t *bytes;
  size_t size;
  char error[256];
} ap_model_patch;
/* The operators of every subgraph in a new order: order[base + k] is the index of the op that
 * runs k-th in its subgraph, base the op count of the subgraphs before it (count: all ops).
 * Each subgraph's slice must be a permutation. Only the operators vectors change. */
ap_status ap_model_patch_order(const ap_model *m, const uint32_t *order, size_t count,
                               const ap_allocator *a, ap_model_patch *out);
/* One metadata entry `name` with a new buffer holding `size` bytes of `data`; an entry of that
 * name already present is replaced (its old buffer stays, unreferenced). */
ap_status ap_model_patch_metadata(const ap_model *m, const char *name, const void *data,
                                  size_t size, const ap_allocator *a, ap_model_patch *out);
void ap_model_patch_free(ap_model_patch *p, const ap_allocator *a);

#ifdef __cplusplus
}
#endif
#endif
