/* `arenaplan diff`: float/int8 twins (errors after dequantization, top-1 agreement), exit
 * codes of --max-error and --min-iou, the SSD detector against itself (every box matched, IoU
 * 1), and mismatched models (input counts, input shapes): one line, exit 2. */
#include "support/json.h"
#include "test.h"

#include <stdlib.h>

/* Sanitized builds run the SSD detector (seconds per invoke there) as little as they can. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static const char *model(char *buf, size_t size, const char *name) {
  return ap_test_path(buf, size, "models/%s.tflite", name);
}

/* `arenaplan diff ARGS`: exit status; stdout in *out, first stderr line in *err. */
static int diff(const char *args, char **out, char **err) {
  char cmd[16384];
  snprintf(cmd, sizeof cmd, "'%s' diff %s 2>/dev/null", ap_test_cli(), args);
  int rc = ap_test_run(cmd, false, out);
  if (err) {
    snprintf(cmd, sizeof cmd, "'%s' diff %s 2>&1 >/dev/null", ap_test_cli(), args);
    ap_test_run(cmd, false, err);
  }
  return rc;
}

static void twins(const char *f, const char *q, double max_lo, double max_hi) {
  char a[1024], b[1024], args[4096];
  snprintf(args, sizeof args, "'%s' '%s' --json", model(a, sizeof a, f), model(b, sizeof b, q));
  char *out = NULL;
  CHECK_EQ(diff(args, &out, NULL), 0);
  ap_json *j = out ? ap_json_parse(out) : NULL;
  CHECK(j != NULL);
  double max = -1, mean = -1;
  int64_t agree = -1, total = -1;
  CHECK(ap_json_f64(j, "outputs[0].max_abs_error", &max));
  CHECK(ap_json_f64(j, "outputs[0].mean_abs_error", &mean));
  CHECK(ap_json_i64(j, "outputs[0].top1_agree", &agree));
  CHECK(ap_json_i64(j, "outputs[0].top1_total", &total));
  CHECK_MSG(max > max_lo && max < max_hi, "%s: max error %g", f, max);
  CHECK(mean > 0 && mean <= max);
  CHECK_EQ(total, 3);
  CHECK_EQ(agree, 3);
  const ap_json *d = j ? ap_json_at(j, "detections") : NULL;
  CHECK(d && d->type == AP_JSON_NULL);
  printf("%s vs %s: max %g mean %g top-1 %lld/%lld\n", f, q, max, mean, (long long)agree,
         (long long)total);
  ap_json_free(j);
  free(out);
  /* A limit the pair does not meet: exit 1 and the verdict names it; one it meets: 0. */
  snprintf(args, sizeof args, "'%s' '%s' --max-error %g", a, b, max / 2);
  CHECK_EQ(diff(args, &out, NULL), 1);
  CHECK(out && strstr(out, "verdict: a limit is not met\n  output 0: max error "));
  free(out);
  snprintf(args, sizeof args, "'%s' '%s' --max-error %g --seeds 3", a, b, max * 1.01);
  CHECK_EQ(diff(args, NULL, NULL), 0);
  /* A model against itself: no error at all. */
  snprintf(args, sizeof args, "'%s' '%s' --max-error 0 --seeds 2", b, b);
  CHECK_EQ(diff(args, &out, NULL), 0);
  CHECK(out && strstr(out, "max abs error 0  mean abs error 0  top-1 agrees 2/2"));
  free(out);
}

static void detector(void) {
  char a[1024], args[4096];
  ap_test_path(a, sizeof a, "detection/ssd_mobilenet_v1_coco_uint8.tflite");
  snprintf(args, sizeof args, "'%s' '%s' --seeds 1 --min-iou 1 --json", a, a);
  char *out = NULL;
  CHECK_EQ(diff(args, &out, NULL), 0);
  ap_json *j = out ? ap_json_parse(out) : NULL;
  int64_t na = -1, nb = -1, matched = -1, missed = -1, extra = -1;
  double iou = -1;
  CHECK(ap_json_i64(j, "detections.boxes_a", &na) && na == 10);
  CHECK(ap_json_i64(j, "detections.boxes_b", &nb) && nb == 10);
  CHECK(ap_json_i64(j, "detections.matched", &matched) && matched == 10);
  CHECK(ap_json_i64(j, "detections.missed", &missed) && missed == 0);
  CHECK(ap_json_i64(j, "detections.extra", &extra) && extra == 0);
  CHECK(ap_json_f64(j, "detections.mean_iou", &iou) && iou == 1);
  bool det = false;
  CHECK(ap_json_bool(j, "outputs[0].detection", &det) && det);
  ap_json_free(j);
  free(out);
}

static void mismatched(const char *x, const char *y, const char *want_fmt) {
  char a[1024], b[1024], args[4096], want[4096];
  snprintf(args, sizeof args, "'%s' '%s'", model(a, sizeof a, x), model(b, sizeof b, y));
  snprintf(want, sizeof want, want_fmt, a, b);
  char *out = NULL, *err = NULL;
  CHECK_EQ(diff(args, &out, &err), 2);
  CHECK(out && !*out);
  CHECK_MSG(err && strcmp(err, want) == 0, "got \"%s\", want \"%s\"", err ? err : "", want);
  free(out);
  free(err);
}

int main(void) {
  ap_test_require_shared();
  twins("mlperf_ic_resnet_float", "mlperf_ic_resnet_int8", 0.01, 1);
  twins("mnist_lstm_float", "mnist_lstm_int8", 0.0001, 0.05);
  if (!SANITIZED) detector();
  mismatched("mlperf_ic_resnet_float", "mnist_lstm_float",
             "arenaplan: diff: input 0 is [1,32,32,3] in %s, [1,28,28] in %s\n");
  mismatched("mnist_lstm_float", "conformer_float", "arenaplan: diff: %s has 1 input, %s has 2\n");
  return ap_test_done();
}
