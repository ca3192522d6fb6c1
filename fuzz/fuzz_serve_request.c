/* fuzz_serve_request: a KServe v2 inference request body from an untrusted client, decoded,
 * matched against a model's tensors and its inputs encoded back as a response (JSON and
 * binary). The first byte picks the binary extension: odd bytes give the next two bytes as
 * an Inference-Header-Content-Length (so it may lie), even bytes none. */
#include "v2_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what) {
  fprintf(stderr, "fuzz_serve_request: %s\n", what);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3) return 0;
  bool has_header = data[0] & 1;
  uint64_t header_len = (uint64_t)data[1] << 8 | data[2];
  data += 3;
  size -= 3;
  /* Exactly `size` bytes of its own: the decoder must not read past the body. */
  uint8_t *body = malloc(size ? size : 1);
  if (!body) return 0;
  memcpy(body, data, size);
  v2_request r;
  char err[V2_ERR_SIZE];
  if (!v2_decode_request(body, size, has_header, header_len, &r, err, sizeof err)) {
    if (!err[0]) die("failure without a message");
    if (r.inputs || r.input_count || r.id) die("failure left a request behind");
    free(body);
    return 0;
  }
  for (size_t i = 0; i < r.input_count; i++) {
    const v2_input *in = &r.inputs[i];
    if (!in->name || (in->bytes && !in->data)) die("input without a name or data");
    if (in->data && !in->owned && (in->data < body || in->data + in->bytes > body + size))
      die("binary input outside the body");
  }
  /* A model with two inputs and one output of each of two types. */
  static const v2_tensor_sig ins[2] = {{"input", AP_UINT8, 2, {1, 4}, 4},
                                       {"x", AP_FLOAT32, 1, {2}, 8}};
  static const v2_tensor_sig outs[2] = {{"out", AP_INT8, 1, {3}, 3},
                                        {"score", AP_FLOAT32, 1, {1}, 4}};
  size_t input_of[2];
  uint8_t want[2];
  if (!v2_match(&r, ins, 2, outs, 2, input_of, want, err, sizeof err) && !err[0])
    die("match failure without a message");
  /* The decoded inputs, echoed as outputs. */
  v2_tensor_out echo[V2_MAX_TENSORS];
  int32_t dims[V2_MAX_TENSORS][AP_MAX_DIMS];
  for (size_t i = 0; i < r.input_count; i++) {
    for (int d = 0; d < r.inputs[i].rank; d++)
      dims[i][d] = (int32_t)r.inputs[i].shape[d];
    echo[i] = (v2_tensor_out){r.inputs[i].name, r.inputs[i].dtype, r.inputs[i].rank, dims[i],
                              r.inputs[i].data, r.inputs[i].bytes, (i & 1) != 0};
  }
  v2_buf out = {0};
  size_t hl;
  if (v2_encode_response("m", r.id, echo, r.input_count, &out, &hl, err, sizeof err)) {
    if (hl > out.len) die("header length past the body");
  } else if (!err[0]) {
    die("encode failure without a message");
  }
  v2_buf_free(&out);
  v2_request_free(&r);
  free(body);
  return 0;
}
