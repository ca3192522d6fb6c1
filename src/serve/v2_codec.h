/* The Open Inference Protocol (KServe v2) codec: request bodies in, decoded requests out;
 * tensors in, response bodies out. Pure functions (no socket, no pool, no model), so they are
 * unit-tested and fuzzed alone. Errors are a message for {"error": "..."} and a 400. */
#ifndef AP_SERVE_V2_CODEC_H
#define AP_SERVE_V2_CODEC_H

#include "arenaplan/runtime.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define V2_MAX_TENSORS 256
#define V2_ERR_SIZE 256

/* "FP32", "UINT8", ... for the ap_dtype values the protocol has a name for; NULL otherwise. */
const char *v2_datatype_name(int dtype);
/* The ap_dtype of a protocol name; -1 when unknown. */
int v2_datatype_of(const char *name);
/* Bytes per element of a type the protocol carries (0 when none). */
size_t v2_element_size(int dtype);

typedef struct v2_input {
  char *name;
  int dtype;
  int rank;
  int64_t shape[AP_MAX_DIMS];
  const uint8_t *data; /* row-major, little-endian element bytes: into the body or `owned` */
  size_t bytes;
  uint8_t *owned;
} v2_input;

typedef struct v2_output_req {
  char *name;
  bool binary; /* parameters.binary_data (or the request's binary_data_output) */
} v2_output_req;

typedef struct v2_request {
  char *id; /* NULL when absent */
  v2_input *inputs;
  size_t input_count;
  v2_output_req *outputs; /* requested ones; none: every output */
  size_t output_count;
  bool binary_output; /* parameters.binary_data_output: outputs not named are binary */
} v2_request;

/* Decodes an inference request body. With the binary extension, header_len is the
 * Inference-Header-Content-Length (has_header true): the JSON is body[0, header_len) and the
 * binary tensors follow in input order, each input with parameters.binary_data_size taking
 * that many bytes; every byte of the body must be accounted for. Returns true, or false with
 * a message in err (the request then holds nothing). Never reads past len. */
bool v2_decode_request(const uint8_t *body, size_t len, bool has_header, uint64_t header_len,
                       v2_request *out, char *err, size_t err_size);
void v2_request_free(v2_request *r);

/* What a model takes and gives, for the checks below and the metadata. */
typedef struct v2_tensor_sig {
  const char *name;
  int dtype;
  int rank;
  int32_t dims[AP_MAX_DIMS];
  size_t bytes;
} v2_tensor_sig;

/* Matches a decoded request to a model's inputs and outputs: every model input given exactly
 * once with its datatype, shape and byte count; every requested output known. Fills
 * input_of[k] with the request input for model input k and, for each model output k,
 * want[k] 0 (not returned), 1 (JSON) or 2 (binary). */
bool v2_match(const v2_request *r, const v2_tensor_sig *inputs, size_t input_count,
              const v2_tensor_sig *outputs, size_t output_count, size_t *input_of, uint8_t *want,
              char *err, size_t err_size);

/* One output tensor of a response. */
typedef struct v2_tensor_out {
  const char *name;
  int dtype;
  int rank;
  const int32_t *dims;
  const void *data;
  size_t bytes;
  bool binary;
} v2_tensor_out;

/* A growable byte buffer (malloc). */
typedef struct v2_buf {
  uint8_t *data;
  size_t len, cap;
} v2_buf;
bool v2_buf_append(v2_buf *b, const void *p, size_t n);
void v2_buf_free(v2_buf *b);

/* Encodes an inference response: {"model_name", "model_version", "id"?, "outputs": [...]}
 * followed by the binary outputs' bytes; *header_len is the JSON's length when some output is
 * binary, else 0 (no Inference-Header-Content-Length). Float values are written so that they
 * parse back to the same bits; NaN and infinities have no JSON number, so such an output must
 * be asked for in binary (false with the message). */
bool v2_encode_response(const char *model, const char *id, const v2_tensor_out *outs, size_t n,
                        v2_buf *out, size_t *header_len, char *err, size_t err_size);

/* {"error": "message"} */
bool v2_encode_error(const char *message, v2_buf *out);

/* Model metadata: {"name", "versions", "platform", "inputs": [{name, datatype, shape}], ...} */
bool v2_encode_metadata(const char *model, const v2_tensor_sig *inputs, size_t input_count,
                        const v2_tensor_sig *outputs, size_t output_count, v2_buf *out);

#endif
