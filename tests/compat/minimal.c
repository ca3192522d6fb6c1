/* TFLite's classic minimal C API example, rewritten: a program that knows only TFLite's C API
 * (tensorflow/lite/c/c_api.h) and the C library. It builds unchanged against TFLite's header
 * and library or against arenaplan's (tests/compat: -ltensorflowlite_c, and again loaded
 * through dlopen of libtensorflowlite_c.so).
 *
 *   minimal MODEL SEED OUTDIR
 *
 * Loads MODEL, creates options (2 threads, an error reporter) and an interpreter, deletes the
 * options and the model (the interpreter keeps what it needs), allocates, fills each input with
 * TFLite Micro oracle's seeded rule (shared/oracle/tflm/README.md) and copies it in, invokes,
 * copies each output out to OUTDIR/outputK.bin, and prints every getter of every input and
 * output, one line each. Exit 0, or 1 with the reporter's messages on stderr.
 */
#include "tensorflow/lite/c/c_api.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reporter(void *user_data, const char *format, va_list args) {
  fprintf(stderr, "%s: ", (const char *)user_data);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
}

static uint64_t draw(uint64_t *x) {
  *x ^= *x >> 12;
  *x ^= *x << 25;
  *x ^= *x >> 27;
  return *x * 0x2545F4914F6CDD1DULL;
}

/* The oracle's input rule: input k draws from a generator seeded with seed + k. */
static void fill(unsigned char *p, size_t bytes, TfLiteType type, uint64_t seed, uint64_t k) {
  uint64_t x = (seed + k) * 0x9E3779B97F4A7C15ULL + 1;
  size_t width = type == kTfLiteInt16 ? 2 : type == kTfLiteInt32 || type == kTfLiteFloat32 ? 4 : 1;
  memset(p, 0, bytes);
  if (width == 1 && type != kTfLiteInt8 && type != kTfLiteUInt8 && type != kTfLiteBool) return;
  for (size_t i = 0; i < bytes / width; i++) {
    uint64_t r = draw(&x);
    if (type == kTfLiteInt8 || type == kTfLiteUInt8) {
      p[i] = (unsigned char)(r >> 56);
    } else if (type == kTfLiteBool) {
      p[i] = (unsigned char)(r >> 63);
    } else if (type == kTfLiteInt16) {
      int16_t v = (int16_t)(r >> 48);
      memcpy(p + 2 * i, &v, 2);
    } else if (type == kTfLiteInt32) {
      int32_t v = (int32_t)((r >> 32) % 201) - 100;
      memcpy(p + 4 * i, &v, 4);
    } else {
      float v = ((r >> 40) / 16777216.0f) * 2 - 1;
      memcpy(p + 4 * i, &v, 4);
    }
  }
}

/* One line with every getter: "input 0 name=x type=FLOAT32 dims=[1,2] bytes=8 scale=0
 * zero_point=0". */
static void describe(const char *kind, int k, const TfLiteTensor *t) {
  TfLiteQuantizationParams q = TfLiteTensorQuantizationParams(t);
  printf("%s %d name=%s type=%s dims=[", kind, k, TfLiteTensorName(t),
         TfLiteTypeGetName(TfLiteTensorType(t)));
  for (int32_t d = 0; d < TfLiteTensorNumDims(t); d++)
    printf("%s%d", d ? "," : "", (int)TfLiteTensorDim(t, d));
  printf("] bytes=%zu scale=%.9g zero_point=%d\n", TfLiteTensorByteSize(t), (double)q.scale,
         (int)q.zero_point);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: minimal MODEL SEED OUTDIR\n");
    return 2;
  }
  uint64_t seed = strtoull(argv[2], NULL, 10);
  printf("TfLiteVersion %s\n", TfLiteVersion());

  TfLiteModel *model = TfLiteModelCreateFromFile(argv[1]);
  if (!model) return 1;
  TfLiteInterpreterOptions *options = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetNumThreads(options, 2);
  TfLiteInterpreterOptionsSetErrorReporter(options, reporter, "minimal");
  TfLiteInterpreter *interpreter = TfLiteInterpreterCreate(model, options);
  /* Both may go once the interpreter exists. */
  TfLiteInterpreterOptionsDelete(options);
  TfLiteModelDelete(model);
  if (!interpreter) return 1;
  if (TfLiteInterpreterAllocateTensors(interpreter) != kTfLiteOk) {
    TfLiteInterpreterDelete(interpreter);
    return 1;
  }

  int status = 0;
  int32_t inputs = TfLiteInterpreterGetInputTensorCount(interpreter);
  for (int32_t k = 0; k < inputs && status == 0; k++) {
    TfLiteTensor *input = TfLiteInterpreterGetInputTensor(interpreter, k);
    describe("input", (int)k, input);
    size_t bytes = TfLiteTensorByteSize(input);
    unsigned char *buf = malloc(bytes ? bytes : 1);
    if (!buf) return 1;
    fill(buf, bytes, TfLiteTensorType(input), seed, (uint64_t)k);
    if (TfLiteTensorCopyFromBuffer(input, buf, bytes) != kTfLiteOk ||
        (bytes && memcmp(TfLiteTensorData(input), buf, bytes) != 0))
      status = 1;
    free(buf);
  }
  if (status == 0 && TfLiteInterpreterInvoke(interpreter) != kTfLiteOk) status = 1;

  int32_t outputs = TfLiteInterpreterGetOutputTensorCount(interpreter);
  for (int32_t k = 0; k < outputs && status == 0; k++) {
    const TfLiteTensor *output = TfLiteInterpreterGetOutputTensor(interpreter, k);
    describe("output", (int)k, output);
    size_t bytes = TfLiteTensorByteSize(output);
    unsigned char *buf = malloc(bytes ? bytes : 1);
    if (!buf) return 1;
    if (TfLiteTensorCopyToBuffer(output, buf, bytes) != kTfLiteOk ||
        (bytes && memcmp(TfLiteTensorData(output), buf, bytes) != 0)) {
      status = 1;
    } else {
      char path[4096];
      snprintf(path, sizeof path, "%s/output%d.bin", argv[3], (int)k);
      FILE *f = fopen(path, "wb");
      if (!f || fwrite(buf, 1, bytes, f) != bytes) status = 1;
      if (f && fclose(f) != 0) status = 1;
    }
    free(buf);
  }
  TfLiteInterpreterDelete(interpreter);
  return status;
}
