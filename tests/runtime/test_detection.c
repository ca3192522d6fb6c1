/* The real uint8 SSD detector (shared/detection/ssd_mobilenet_v1_coco_uint8.tflite: legacy
 * uint8 CONV_2D, DEPTHWISE_CONV_2D, RESHAPE, CONCATENATION with rescaling, LOGISTIC, and the
 * custom op TFLite_Detection_PostProcess) against TensorFlow Lite's reference kernels
 * (shared/detection/oracle_tflite_ref): for seeds 1-3 our input equals the oracle's input file
 * (the oracle rule) and the four outputs (boxes, classes, scores, count), whose shapes prepare
 * sets from the op's options, equal TFLite's byte for byte. Prints each seed's detections. */
#include "oracle.h"

static void compare_file(const char *name, const void *data, size_t bytes) {
  char path[4096];
  size_t n = 0;
  uint8_t *want = ap_test_read_file(
      ap_test_path(path, sizeof path, "detection/oracle_tflite_ref/%s", name), &n);
  CHECK_MSG(want != NULL, "cannot read %s", path);
  if (!want) return;
  CHECK_MSG(n == bytes, "%s: %zu bytes, ours %zu", name, n, bytes);
  if (n == bytes && memcmp(want, data, n) != 0) {
    size_t i = 0;
    while (((const uint8_t *)data)[i] == want[i])
      i++;
    CHECK_MSG(0, "%s: differs first at byte %zu of %zu", name, i, n);
  } else if (n == bytes) {
    ap_test_passed++;
  }
  free(want);
}

static void check_shape(const ap_tensor *t, int rank, int32_t d0, int32_t d1, int32_t d2) {
  int32_t want[3] = {d0, d1, d2};
  CHECK_EQ(t->rank, rank);
  CHECK_EQ(t->type, AP_FLOAT32);
  for (int i = 0; i < rank && i < t->rank; i++)
    CHECK_EQ(t->dims[i], want[i]);
}

static void run_seed(const ap_model *m, int seed) {
  ap_interpreter *it = oracle_interpreter(m, "ssd_mobilenet_v1_coco_uint8", NULL, false);
  if (!it) return;
  char name[128];
  ap_tensor in = {0}, out[4];
  CHECK_EQ(ap_interpreter_input_count(it), 1);
  CHECK_EQ(ap_interpreter_output_count(it), 4);
  CHECK(oracle_input(it, 0, &in) != NULL && in.type == AP_UINT8 && in.bytes == 270000);
  oracle_fill(&in, (uint64_t)seed, 0);
  snprintf(name, sizeof name, "ssd_mobilenet_v1_coco_uint8.seed%d.input0.bin", seed);
  compare_file(name, in.data, in.bytes);
  ap_status s = ap_interpreter_invoke(it);
  CHECK_MSG(s == AP_OK, "seed %d: %s", seed, ap_interpreter_error(it));
  for (int k = 0; s == AP_OK && k < 4; k++) {
    CHECK(oracle_output(it, (size_t)k, &out[k]) != NULL);
    snprintf(name, sizeof name, "ssd_mobilenet_v1_coco_uint8.seed%d.output%d.bin", seed, k);
    compare_file(name, out[k].data, out[k].bytes);
  }
  if (s == AP_OK) {
    check_shape(&out[0], 3, 1, 10, 4);
    check_shape(&out[1], 2, 1, 10, 0);
    check_shape(&out[2], 2, 1, 10, 0);
    check_shape(&out[3], 1, 1, 0, 0);
    const float *box = out[0].data, *cls = out[1].data, *score = out[2].data;
    float count = *(const float *)out[3].data;
    printf("seed %d: %g detections; best: class %g score %g box (%g, %g, %g, %g)\n", seed,
           (double)count, (double)cls[0], (double)score[0], (double)box[0], (double)box[1],
           (double)box[2], (double)box[3]);
  }
  ap_interpreter_destroy(it);
}

int main(void) {
  ap_test_require_shared();
  char path[4096];
  ap_model *m = NULL;
  ap_status s = ap_model_open(
      ap_test_path(path, sizeof path, "detection/ssd_mobilenet_v1_coco_uint8.tflite"), NULL, &m);
  CHECK_MSG(s == AP_OK, "%s: %s", path, ap_model_error(m));
  if (s == AP_OK) {
    /* Sanitized builds run one seed: a memory error shows on the first. */
    for (int seed = 1; seed <= (ORACLE_SANITIZED ? 1 : 3); seed++)
      run_seed(m, seed);
  }
  ap_model_destroy(m);
  return ap_test_done();
}
