/* Shared by the C API's tests: an error reporter that keeps what it is told, and a model
 * loaded through the C API. */
#ifndef AP_TEST_CAPI_H
#define AP_TEST_CAPI_H

#include "arenaplan_c_api.h"
#include "tensorflow/lite/c/c_api.h"
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>

/* Every message the reporter got since the last reset, one per line. */
typedef struct heard {
  char text[8192];
  size_t len;
  int count;
} heard;

static inline void heard_reporter(void *user_data, const char *format, va_list args) {
  heard *h = user_data;
  h->count++;
  if (h->len + 1 >= sizeof h->text) return;
  int n = vsnprintf(h->text + h->len, sizeof h->text - h->len, format, args);
  if (n < 0) return;
  h->len += (size_t)n < sizeof h->text - h->len ? (size_t)n : sizeof h->text - h->len - 1;
  if (h->len + 1 < sizeof h->text) h->text[h->len++] = '\n';
  h->text[h->len] = '\0';
}

static inline void heard_reset(heard *h) {
  h->len = 0;
  h->count = 0;
  h->text[0] = '\0';
}

/* Options with the reporter (and nothing else); h starts empty. */
static inline TfLiteInterpreterOptions *heard_options(heard *h) {
  heard_reset(h);
  TfLiteInterpreterOptions *o = TfLiteInterpreterOptionsCreate();
  TfLiteInterpreterOptionsSetErrorReporter(o, heard_reporter, h);
  return o;
}

static inline TfLiteModel *capi_model(const char *name) {
  char path[4096];
  ap_test_path(path, sizeof path, "models/%s.tflite", name);
  TfLiteModel *m = TfLiteModelCreateFromFile(path);
  CHECK_MSG(m != NULL, "%s: TfLiteModelCreateFromFile failed", path);
  return m;
}

/* An interpreter of shared model `name` reporting to h, made as TFLite's example does: the
 * options and the model are deleted right after (the interpreter keeps what it needs). */
static inline TfLiteInterpreter *capi_interpreter(const char *name, heard *h) {
  heard_reset(h);
  TfLiteModel *m = capi_model(name);
  if (!m) return NULL;
  TfLiteInterpreterOptions *o = heard_options(h);
  TfLiteInterpreter *it = TfLiteInterpreterCreate(m, o);
  TfLiteInterpreterOptionsDelete(o);
  TfLiteModelDelete(m);
  CHECK_MSG(it != NULL, "%s: %s", name, h->text);
  return it;
}

#endif
