/* `--what-if int8` on plan, report and header, against real float/int8 twins: the re-typed
 * float model's planned arena and weights are within 2 % of the int8 twin's (they are equal
 * today); the report's device total differs from the twin's measured one by exactly what
 * re-typing cannot know: the int8 kernels' scratch (the twin's runtime arena over its plan)
 * and their state (its persistent and tables over the float model's). The header carries the
 * sizes. A quantized model has nothing to re-type (the SSD detector's float32 detections
 * are float by definition): one line, exit 2. */
#include "support/json.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>

static ap_json *cli_json(const char *sub, const char *name, const char *extra) {
  char m[4096], cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' %s '%s' %s --json", ap_test_cli(), sub,
           ap_test_path(m, sizeof m, "models/%s.tflite", name), extra);
  char *out = NULL;
  int rc = ap_test_run(cmd, false, &out);
  CHECK_MSG(rc == 0, "%s: exit %d", cmd, rc);
  ap_json *j = out ? ap_json_parse(out) : NULL;
  CHECK_MSG(j != NULL, "%s: no JSON", cmd);
  free(out);
  return j;
}

static int64_t get(const ap_json *j, const char *path) {
  int64_t v = -1;
  CHECK_MSG(j && ap_json_i64(j, path, &v), "no %s", path);
  return v;
}

static void within2(const char *what, int64_t got, int64_t want) {
  double d = want ? fabs((double)got - (double)want) / (double)want : (double)(got != 0);
  CHECK_MSG(d <= 0.02, "%s: what-if %lld, twin %lld (%.2f%%)", what, (long long)got,
            (long long)want, 100 * d);
  printf("  %-8s what-if %lld, twin %lld (%+.2f%%)\n", what, (long long)got, (long long)want,
         want ? 100.0 * ((double)got - (double)want) / (double)want : 0.0);
}

static void twin(const char *f, const char *q) {
  printf("%s vs %s\n", f, q);
  ap_json *wp = cli_json("plan", f, "--what-if int8"), *tp = cli_json("plan", q, "");
  ap_json *th = cli_json("info", q, "");
  within2("arena", get(wp, "what_if_int8.io_int8.arena_bytes"), get(tp, "arena_bytes"));
  ap_json *hw = cli_json("", q, ""); /* the headline: weight_bytes */
  within2("weights", get(wp, "what_if_int8.io_int8.weights_bytes"), get(hw, "weight_bytes"));
  /* Kept float can only add the QUANTIZE/DEQUANTIZE steps. */
  CHECK(get(wp, "what_if_int8.io_float.arena_bytes") >=
        get(wp, "what_if_int8.io_int8.arena_bytes"));
  CHECK_EQ(get(wp, "what_if_int8.arena_bytes_now"), get(wp, "arena_bytes"));

  ap_json *wr = cli_json("report", f, "--what-if int8"), *tr = cli_json("report", q, "");
  ap_json *fr = cli_json("report", f, "");
  int64_t device = get(wr, "what_if_int8.io_int8.device_bytes");
  int64_t twin_device = get(tr, "estimate.device_bytes");
  int64_t scratch = get(tr, "estimate.arena_bytes") - get(tp, "arena_bytes");
  int64_t state = get(tr, "estimate.tables_bytes") - get(fr, "estimate.tables_bytes") +
                  get(tr, "estimate.persistent_bytes") -
                  get(wr, "what_if_int8.io_int8.persistent_bytes");
  CHECK_MSG(twin_device - device == scratch + state,
            "device: what-if %lld, twin %lld; int8 scratch %lld + kernel state %lld",
            (long long)device, (long long)twin_device, (long long)scratch, (long long)state);
  printf("  device   what-if %lld, twin %lld: the gap is int8 scratch %lld + kernel state %lld\n",
         (long long)device, (long long)twin_device, (long long)scratch, (long long)state);
  ap_json_free(wp);
  ap_json_free(tp);
  ap_json_free(th);
  ap_json_free(hw);
  ap_json_free(wr);
  ap_json_free(tr);
  ap_json_free(fr);
}

static void header(void) {
  char m[4096], cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' header '%s' --what-if int8", ap_test_cli(),
           ap_test_path(m, sizeof m, "models/mlperf_ic_resnet_float.tflite"));
  char *out = NULL;
  CHECK_EQ(ap_test_run(cmd, false, &out), 0);
  CHECK(out && strstr(out, "#define MLPERF_IC_RESNET_FLOAT_WHATIF_INT8_ARENA_BYTES 49152u"));
  CHECK(out && strstr(out, "#define MLPERF_IC_RESNET_FLOAT_WHATIF_INT8_WEIGHTS_BYTES 78752u"));
  CHECK(out && strstr(out, "#define MLPERF_IC_RESNET_FLOAT_WHATIF_INT8_IO_FLOAT_ARENA_BYTES "));
  /* Inside the include guard: the guard's #endif is the last line. */
  const char *last = out ? strstr(out, "#endif /* MLPERF_IC_RESNET_FLOAT_ARENA_H */\n") : NULL;
  CHECK(last && last[strlen("#endif /* MLPERF_IC_RESNET_FLOAT_ARENA_H */\n")] == '\0');
  CHECK(last && strstr(out, "WHATIF") < last);
  free(out);
}

static void refused(const char *sub, const char *name, const char *opt, const char *want_fmt) {
  char m[4096], cmd[8192], want[4096];
  if (strchr(name, '/'))
    ap_test_path(m, sizeof m, "%s.tflite", name);
  else
    ap_test_path(m, sizeof m, "models/%s.tflite", name);
  snprintf(want, sizeof want, want_fmt, m);
  snprintf(cmd, sizeof cmd, "'%s' %s '%s' %s 2>&1 >/dev/null | head -1", ap_test_cli(), sub, m,
           opt);
  char *err = NULL;
  ap_test_run(cmd, false, &err);
  CHECK_MSG(err && strcmp(err, want) == 0, "%s %s: \"%s\", want \"%s\"", sub, opt, err ? err : "",
            want);
  free(err);
  snprintf(cmd, sizeof cmd, "'%s' %s '%s' %s >/dev/null 2>&1", ap_test_cli(), sub, m, opt);
  CHECK_EQ(ap_test_run(cmd, false, NULL), 2);
}

int main(void) {
  ap_test_require_shared();
  twin("mlperf_ic_resnet_float", "mlperf_ic_resnet_int8");
  twin("mnist_lstm_float", "mnist_lstm_int8");
  header();
  static const char *const subs[] = {"plan", "report", "header"};
  for (int i = 0; i < 3; i++) {
    char want[256];
    refused(subs[i], "person_detect_int8", "--what-if int8",
            "arenaplan: %s: --what-if int8: no float32 tensors to re-type: the model is "
            "already quantized (or holds no real numbers)\n");
    /* The LSTM's zero-sized float32 intermediates are not real numbers to re-type. */
    refused(subs[i], "mnist_lstm_int8", "--what-if int8",
            "arenaplan: %s: --what-if int8: no float32 tensors to re-type: the model is "
            "already quantized (or holds no real numbers)\n");
    /* The detector's only float32 tensors are its post-processing outputs: float by
     * definition. */
    refused(subs[i], "detection/ssd_mobilenet_v1_coco_uint8", "--what-if int8",
            "arenaplan: %s: --what-if int8: no float32 tensors to re-type: the model is "
            "already quantized (or holds no real numbers)\n");
    snprintf(want, sizeof want, "arenaplan: %s: --what-if \"int4\": the one what-if is int8\n",
             subs[i]);
    refused(subs[i], "mnist_lstm_float", "--what-if int4", want);
  }
  return ap_test_done();
}
