/* `arenaplan run` on the uint8 SSD detector: the detections table and `--json`'s detections
 * equal what TFLite's own outputs (shared/detection/oracle_tflite_ref, seeds 1-3) give at the
 * threshold, computed here from those files; a classifier has no detections; bad thresholds
 * are one line and exit 2. */
#include "support/json.h"
#include "test.h"

#include <math.h>
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

static const char *ssd(char *buf, size_t size) {
  return ap_test_path(buf, size, "detection/ssd_mobilenet_v1_coco_uint8.tflite");
}

static float *oracle(int seed, int k, size_t *n) {
  char path[4096];
  size_t bytes = 0;
  float *v =
      (float *)ap_test_read_file(ap_test_path(path, sizeof path,
                                              "detection/oracle_tflite_ref/"
                                              "ssd_mobilenet_v1_coco_uint8.seed%d.output%d.bin",
                                              seed, k),
                                 &bytes);
  CHECK_MSG(v != NULL, "cannot read %s", path);
  *n = bytes / 4;
  return v;
}

/* The expected table, from the oracle's files. */
static void expected(int seed, double threshold, char *buf, size_t size, size_t *shown) {
  size_t nb, nc, ns, nn;
  float *b = oracle(seed, 0, &nb), *c = oracle(seed, 1, &nc), *s = oracle(seed, 2, &ns),
        *n = oracle(seed, 3, &nn);
  size_t o = 0, count = n && nn ? (size_t)n[0] : 0;
  *shown = 0;
  if (!b || !c || !s || !n || count > ns || count > nc || 4 * count > nb) {
    CHECK_MSG(0, "seed %d: oracle files unreadable or inconsistent", seed);
    count = 0;
  }
  for (size_t i = 0; i < count; i++)
    if (s[i] >= threshold) ++*shown;
  o += (size_t)snprintf(buf + o, size - o,
                        "detections  %zu reported by TFLite_Detection_PostProcess, %zu with "
                        "score >= %g\n",
                        count, *shown, threshold);
  if (*shown)
    o += (size_t)snprintf(buf + o, size - o,
                          "  class  score     ymin      xmin      "
                          "ymax      xmax\n");
  for (size_t i = 0; i < count && o < size; i++) {
    if (!(s[i] >= threshold)) continue;
    o += (size_t)snprintf(buf + o, size - o, "  %5d  %.6f  %.6f  %.6f  %.6f  %.6f\n", (int)c[i],
                          (double)s[i], (double)b[4 * i], (double)b[4 * i + 1],
                          (double)b[4 * i + 2], (double)b[4 * i + 3]);
  }
  free(b);
  free(c);
  free(s);
  free(n);
}

static void table(int seed, const char *threshold_arg, double threshold) {
  char m[4096], cmd[8192], want[4096];
  size_t shown = 0;
  expected(seed, threshold, want, sizeof want, &shown);
  snprintf(cmd, sizeof cmd, "'%s' run '%s' --iterations 1 --seed %d%s%s", ap_test_cli(),
           ssd(m, sizeof m), seed, threshold_arg ? " --score-threshold " : "",
           threshold_arg ? threshold_arg : "");
  char *out = NULL;
  CHECK_EQ(ap_test_run(cmd, false, &out), 0);
  const char *at = out ? strstr(out, "\ndetections  ") : NULL;
  CHECK_MSG(at && strcmp(at + 1, want) == 0, "seed %d threshold %g: got\n%s\nwant\n%s", seed,
            threshold, at ? at + 1 : "(no detections section)", want);
  printf("seed %d, threshold %g: %zu shown\n", seed, threshold, shown);
  free(out);
}

static void json(int seed, double threshold) {
  char m[4096], cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' run '%s' --iterations 1 --seed %d --json --score-threshold %g",
           ap_test_cli(), ssd(m, sizeof m), seed, threshold);
  char *out = NULL;
  CHECK_EQ(ap_test_run(cmd, false, &out), 0);
  ap_json *j = out ? ap_json_parse(out) : NULL;
  CHECK(j != NULL);
  size_t nb, nc, ns, nn;
  float *b = oracle(seed, 0, &nb), *c = oracle(seed, 1, &nc), *s = oracle(seed, 2, &ns),
        *n = oracle(seed, 3, &nn);
  if (j && b && c && s && n) {
    int64_t reported = -1;
    CHECK(ap_json_i64(j, "detections.reported", &reported) && reported == (int64_t)n[0]);
    long w = 0;
    for (size_t i = 0; i < (size_t)n[0] && i < ns; i++) {
      if (!(s[i] >= threshold)) continue;
      char p[64];
      double v;
      int64_t cls;
      snprintf(p, sizeof p, "detections.boxes[%ld].class", w);
      CHECK(ap_json_i64(j, p, &cls) && cls == (int64_t)c[i]);
      /* %.9g round-trips a float exactly. */
      static const char *const keys[] = {"score", "ymin", "xmin", "ymax", "xmax"};
      for (int k = 0; k < 5; k++) {
        float want = k == 0 ? s[i] : b[4 * i + (size_t)k - 1];
        snprintf(p, sizeof p, "detections.boxes[%ld].%s", w, keys[k]);
        CHECK_MSG(ap_json_f64(j, p, &v) && (float)v == want, "%s", p);
      }
      w++;
    }
    CHECK_EQ(ap_json_len(j, "detections.boxes"), w);
    CHECK(w > 0);
  }
  free(b);
  free(c);
  free(s);
  free(n);
  ap_json_free(j);
  free(out);
}

static void classifier(void) {
  char m[4096], cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' run '%s' --iterations 1 --json", ap_test_cli(),
           ap_test_path(m, sizeof m, "models/person_detect_int8.tflite"));
  char *out = NULL;
  CHECK_EQ(ap_test_run(cmd, false, &out), 0);
  ap_json *j = out ? ap_json_parse(out) : NULL;
  const ap_json *d = j ? ap_json_at(j, "detections") : NULL;
  CHECK(d && d->type == AP_JSON_NULL);
  ap_json_free(j);
  free(out);
}

static void bad(const char *v) {
  char m[4096], cmd[8192], want[256];
  snprintf(cmd, sizeof cmd, "'%s' run '%s' --score-threshold '%s' 2>&1 >/dev/null | head -1",
           ap_test_cli(), ssd(m, sizeof m), v);
  char *err = NULL;
  ap_test_run(cmd, false, &err);
  snprintf(want, sizeof want,
           "arenaplan: run: --score-threshold \"%s\": expected a number from 0 to 1\n", v);
  CHECK_MSG(err && strcmp(err, want) == 0, "got \"%s\"", err ? err : "");
  free(err);
  snprintf(cmd, sizeof cmd, "'%s' run '%s' --score-threshold '%s' >/dev/null 2>&1", ap_test_cli(),
           ssd(m, sizeof m), v);
  CHECK_EQ(ap_test_run(cmd, false, NULL), 2);
}

int main(void) {
  ap_test_require_shared();
  table(1, "0.1", 0.1);
  if (!SANITIZED) {
    table(1, NULL, 0.5); /* the default: random inputs score below it */
    table(2, "0.11", 0.11);
    table(3, "0", 0);
    json(1, 0.1);
  }
  classifier();
  bad("-0.1");
  bad("1.5");
  bad("nan");
  bad("abc");
  bad("");
  return ap_test_done();
}
