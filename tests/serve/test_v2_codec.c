/* The KServe v2 codec without a socket: requests decoded (JSON, nested data, binary tensors),
 * refused with their message (malformed, wrong types and ranges, lying sizes), matched to a
 * model's tensors, and responses encoded byte for byte. */
#include "test.h"
#include "v2_codec.h"

#include <stdlib.h>
#include <string.h>

static bool decode(const char *json, v2_request *r, char *err) {
  return v2_decode_request((const uint8_t *)json, strlen(json), false, 0, r, err, V2_ERR_SIZE);
}

static void refused(const char *json, const char *want) {
  v2_request r;
  char err[V2_ERR_SIZE];
  CHECK_MSG(!decode(json, &r, err), "accepted: %s", json);
  CHECK_CONTAINS(err, want);
  CHECK(r.inputs == NULL && r.input_count == 0 && r.id == NULL);
}

static void json_requests(void) {
  v2_request r;
  char err[V2_ERR_SIZE];
  CHECK(decode("{\"id\":\"r7\",\"inputs\":[{\"name\":\"a\",\"datatype\":\"INT16\",\"shape\":[2,2],"
               "\"data\":[[1,-2],[300,-32768]]},{\"name\":\"f\",\"datatype\":\"FP32\","
               "\"shape\":[2],\"data\":[0.1,-3]}],\"outputs\":[{\"name\":\"o\","
               "\"parameters\":{\"binary_data\":true}},{\"name\":\"p\"}]}",
               &r, err));
  CHECK_STR(r.id, "r7");
  CHECK_EQ(r.input_count, 2);
  CHECK_STR(r.inputs[0].name, "a");
  CHECK_EQ(r.inputs[0].dtype, AP_INT16);
  CHECK_EQ(r.inputs[0].rank, 2);
  CHECK_EQ(r.inputs[0].bytes, 8);
  const uint8_t want16[8] = {1, 0, 0xfe, 0xff, 0x2c, 0x01, 0x00, 0x80}; /* little-endian */
  CHECK(memcmp(r.inputs[0].data, want16, 8) == 0);
  float f[2];
  memcpy(f, r.inputs[1].data, 8);
  CHECK(f[0] == 0.1f && f[1] == -3.0f);
  CHECK_EQ(r.output_count, 2);
  CHECK(r.outputs[0].binary && !r.outputs[1].binary);
  v2_request_free(&r);

  CHECK(decode("{\"inputs\":[{\"name\":\"b\",\"datatype\":\"BOOL\",\"shape\":[3],"
               "\"data\":[true,false,1]}],\"parameters\":{\"binary_data_output\":true}}",
               &r, err));
  CHECK(r.binary_output && r.id == NULL);
  CHECK(memcmp(r.inputs[0].data, "\1\0\1", 3) == 0);
  v2_request_free(&r);

  refused("", "empty request body");
  refused("{\"inputs\":[", "malformed JSON");
  refused("[1,2]", "must be a JSON object");
  refused("{\"inputs\":[]}", "inputs must be a non-empty array");
  refused("{\"inputs\":[{\"name\":\"a\",\"datatype\":\"UINT8\",\"shape\":[2],\"data\":[1,256]}]}",
          "input 'a': element 1 (256) is out of UINT8's range");
  refused("{\"inputs\":[{\"name\":\"a\",\"datatype\":\"INT8\",\"shape\":[2],\"data\":[1]}]}",
          "input 'a': data has 1 elements, the shape 2");
  refused("{\"inputs\":[{\"name\":\"a\",\"datatype\":\"INT8\",\"shape\":[1],\"data\":[1.5]}]}",
          "element 0 is not an integer");
  refused("{\"inputs\":[{\"name\":\"a\",\"datatype\":\"QINT8\",\"shape\":[1],\"data\":[1]}]}",
          "unknown datatype \"QINT8\"");
  refused("{\"inputs\":[{\"name\":\"a\",\"datatype\":\"INT8\",\"shape\":[-1],\"data\":[]}]}",
          "shape[0] is not a dimension");
  /* A huge shape with three values fails on the count, before any buffer is made. */
  refused("{\"inputs\":[{\"name\":\"a\",\"datatype\":\"FP32\",\"shape\":[2147483647,2147483647],"
          "\"data\":[1,2,3]}]}",
          "data has 3 elements, the shape 4611686014132420609");
  refused("{\"inputs\":[{\"name\":\"a\",\"datatype\":\"INT64\",\"shape\":[2147483647,2147483647,"
          "2147483647,2147483647],\"data\":[]}]}",
          "overflows");
  refused("{\"inputs\":[{\"name\":\"a\",\"datatype\":\"INT8\",\"shape\":[1],\"data\":[1]},"
          "{\"name\":\"a\",\"datatype\":\"INT8\",\"shape\":[1],\"data\":[1]}]}",
          "input 'a' given twice");
  refused("{\"inputs\":[{\"name\":\"a\",\"datatype\":\"INT8\",\"shape\":[1],\"data\":[1]}],"
          "\"inputs\":[]}",
          "duplicate object key");
  refused("{\"id\":5,\"inputs\":[{\"name\":\"a\",\"datatype\":\"INT8\",\"shape\":[1],"
          "\"data\":[1]}]}",
          "id must be a string");
}

static void binary_requests(void) {
  const char *head = "{\"inputs\":[{\"name\":\"x\",\"datatype\":\"UINT8\",\"shape\":[1,3],"
                     "\"parameters\":{\"binary_data_size\":3}},{\"name\":\"y\",\"datatype\":"
                     "\"INT32\",\"shape\":[1],\"parameters\":{\"binary_data_size\":4}}]}";
  size_t hl = strlen(head);
  uint8_t body[512];
  memcpy(body, head, hl);
  memcpy(body + hl, "\x0a\x0b\x0c\x01\x02\x03\x04", 7);
  v2_request r;
  char err[V2_ERR_SIZE];
  CHECK(v2_decode_request(body, hl + 7, true, hl, &r, err, sizeof err));
  CHECK_EQ(r.input_count, 2);
  CHECK(r.inputs[0].data == body + hl && r.inputs[0].bytes == 3 && !r.inputs[0].owned);
  CHECK(r.inputs[1].data == body + hl + 3 && r.inputs[1].bytes == 4);
  v2_request_free(&r);
  /* Lies: a header length past the body, bytes left over, bytes missing. */
  CHECK(!v2_decode_request(body, hl + 7, true, hl + 8, &r, err, sizeof err));
  CHECK_CONTAINS(err, "Inference-Header-Content-Length");
  CHECK(!v2_decode_request(body, hl + 7, true, hl - 1, &r, err, sizeof err));
  CHECK_CONTAINS(err, "malformed JSON");
  memcpy(body + hl + 7, "\x05", 1);
  CHECK(!v2_decode_request(body, hl + 8, true, hl, &r, err, sizeof err));
  CHECK_CONTAINS(err, "the body has 8 binary bytes after the JSON header, the inputs' "
                      "binary_data_size add up to 7");
  CHECK(!v2_decode_request(body, hl + 6, true, hl, &r, err, sizeof err));
  CHECK_CONTAINS(err, "input 'y': binary_data_size 4 but only 3 binary bytes remain");
  /* A declared size that disagrees with the shape, and a huge one. */
  const char *lie = "{\"inputs\":[{\"name\":\"x\",\"datatype\":\"UINT8\",\"shape\":[1,3],"
                    "\"parameters\":{\"binary_data_size\":9223372036854775807}}]}";
  CHECK(!v2_decode_request((const uint8_t *)lie, strlen(lie), true, strlen(lie), &r, err,
                           sizeof err));
  CHECK_CONTAINS(err, "binary_data_size");
}

static void matching(void) {
  static const v2_tensor_sig ins[1] = {{"img", AP_UINT8, 2, {2, 2}, 4}};
  static const v2_tensor_sig outs[2] = {{"cls", AP_UINT8, 1, {3}, 3},
                                        {"box", AP_FLOAT32, 1, {1}, 4}};
  size_t input_of[1];
  uint8_t want[2];
  char err[V2_ERR_SIZE];
  v2_request r;
  CHECK(decode("{\"inputs\":[{\"name\":\"img\",\"datatype\":\"UINT8\",\"shape\":[2,2],"
               "\"data\":[1,2,3,4]}],\"outputs\":[{\"name\":\"box\"}]}",
               &r, err));
  CHECK(v2_match(&r, ins, 1, outs, 2, input_of, want, err, sizeof err));
  CHECK(input_of[0] == 0 && want[0] == 0 && want[1] == 1);
  v2_request_free(&r);
  struct {
    const char *json, *err;
  } bad[] = {
      {"{\"inputs\":[{\"name\":\"im\",\"datatype\":\"UINT8\",\"shape\":[2,2],\"data\":[1,2,3,4]}]}",
       "unknown input 'im'"},
      {"{\"inputs\":[{\"name\":\"img\",\"datatype\":\"INT8\",\"shape\":[2,2],\"data\":[1,2,3,4]}]}",
       "input 'img': datatype INT8, the model takes UINT8"},
      {"{\"inputs\":[{\"name\":\"img\",\"datatype\":\"UINT8\",\"shape\":[4],\"data\":[1,2,3,4]}]}",
       "input 'img': shape [4], the model takes [2,2]"},
      {"{\"inputs\":[{\"name\":\"img\",\"datatype\":\"UINT8\",\"shape\":[2,2],\"data\":[1,2,3,4]}],"
       "\"outputs\":[{\"name\":\"nope\"}]}",
       "unknown output 'nope'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK(decode(bad[i].json, &r, err));
    CHECK(!v2_match(&r, ins, 1, outs, 2, input_of, want, err, sizeof err));
    CHECK_STR(err, bad[i].err);
    v2_request_free(&r);
  }
}

static void responses(void) {
  const int32_t d1[1] = {3}, d2[2] = {1, 2};
  const uint8_t cls[3] = {0, 7, 255};
  const float box[2] = {0.1f, -2.5f};
  v2_tensor_out outs[2] = {{"cls", AP_UINT8, 1, d1, cls, 3, false},
                           {"box", AP_FLOAT32, 2, d2, box, 8, false}};
  v2_buf b = {0};
  size_t hl;
  char err[V2_ERR_SIZE];
  CHECK(v2_encode_response("m", "id\"1", outs, 2, &b, &hl, err, sizeof err));
  CHECK_EQ(hl, 0);
  const char *want = "{\"model_name\":\"m\",\"model_version\":\"1\",\"id\":\"id\\\"1\",\"outputs\":"
                     "[{\"name\":\"cls\",\"datatype\":\"UINT8\",\"shape\":[3],\"data\":[0,7,255]},"
                     "{\"name\":\"box\",\"datatype\":\"FP32\",\"shape\":[1,2],\"data\":"
                     "[0.10000000149011612,-2.5]}]}";
  CHECK_EQ(b.len, strlen(want));
  CHECK(b.len == strlen(want) && memcmp(b.data, want, b.len) == 0);
  v2_buf_free(&b);
  /* Binary: the JSON header, then the bytes, its length in *header_len. */
  outs[1].binary = true;
  CHECK(v2_encode_response("m", NULL, outs, 2, &b, &hl, err, sizeof err));
  CHECK(hl > 0 && b.len == hl + 8);
  CHECK(memcmp(b.data + hl, box, 8) == 0);
  CHECK(memmem(b.data, hl, "\"parameters\":{\"binary_data_size\":8}", 35) != NULL);
  v2_buf_free(&b);
  /* NaN has no JSON number: refused unless asked in binary. */
  const float nan[1] = {__builtin_nanf("")};
  v2_tensor_out n = {"n", AP_FLOAT32, 1, d1, nan, 4, false};
  CHECK(!v2_encode_response("m", NULL, &n, 1, &b, &hl, err, sizeof err));
  CHECK_CONTAINS(err, "binary_data: true");
  v2_buf_free(&b);
  CHECK(v2_encode_error("unknown model 'x'", &b));
  CHECK(b.len == 29 && memcmp(b.data, "{\"error\":\"unknown model 'x'\"}", 29) == 0);
  v2_buf_free(&b);
}

int main(void) {
  json_requests();
  binary_requests();
  matching();
  responses();
  return ap_test_done();
}
