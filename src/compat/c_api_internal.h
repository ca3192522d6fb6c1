/* TFLite's C API over arenaplan's runtime: the records behind the opaque handles. */
#ifndef AP_COMPAT_C_API_INTERNAL_H
#define AP_COMPAT_C_API_INTERNAL_H

#include "arenaplan/arenaplan.h"
#include "arenaplan_c_api.h"
#include "base/base.h"
#include "tensorflow/lite/c/c_api.h"
#include "tensorflow/lite/c/c_api_experimental.h"

#include <stdatomic.h>

typedef void (*capi_reporter)(void *user_data, const char *format, va_list args);

#define CAPI_MAX_CUSTOM_OPS 64

struct TfLiteModel {
  ap_model *m;
  void *copy; /* the aligned copy of an unaligned buffer, or NULL */
  /* TfLiteModelDelete may come before the interpreters made from the model are deleted. */
  atomic_int refs;
};

struct TfLiteInterpreterOptions {
  int threads;
  capi_reporter reporter;
  void *user_data;
  /* The first refused call (a delegate, a TFLite custom op registration): create fails. */
  char refused[160];
  void *arena;
  size_t arena_size;
  const char *strategy;
  bool reuse_inputs; /* arenaplan_options_set_preserve_inputs(o, false) */
  ap_custom_op custom[CAPI_MAX_CUSTOM_OPS];
  size_t custom_count;
};

/* A tensor handle: which tensor; everything else is read from the runtime when asked. */
struct TfLiteTensor {
  const TfLiteInterpreter *owner;
  uint32_t subgraph, index;
};

struct TfLiteInterpreter {
  TfLiteModel *model;
  ap_interpreter *it;
  TfLiteInterpreterOptions opt; /* a copy: the runtime keeps pointers into opt.custom */
  TfLiteTensor *tensors;        /* one per tensor of every subgraph */
  size_t *first;                /* subgraph i's tensors start at tensors[first[i]] */
  size_t subgraphs;
  int *inputs, *outputs; /* subgraph 0's tensor indices, as TFLite hands them out */
  int32_t input_count, output_count;
};

/* The default signature of a model without signatures (TFLite's key). */
#define CAPI_DEFAULT_SIGNATURE "serving_default"
#define CAPI_NO_SIGNATURE SIZE_MAX

struct TfLiteSignatureRunner {
  TfLiteInterpreter *owner;
  size_t signature; /* CAPI_NO_SIGNATURE: the default one */
  ap_signature_info info;
};

/* Formats a message and hands it to the reporter, or to stderr without one. */
void capi_report(capi_reporter reporter, void *user_data, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same through an interpreter's options. */
#define capi_ireport(interp, ...)                                                                  \
  capi_report((interp)->opt.reporter, (interp)->opt.user_data, __VA_ARGS__)
/* A status as TFLite's: kTfLiteOk for AP_OK, else kTfLiteError after reporting the runtime's
 * message prefixed by `what`. */
TfLiteStatus capi_status(const TfLiteInterpreter *in, ap_status s, const char *what);

/* Checks dims given to a resize (0 to AP_MAX_DIMS of them, not NULL when any) and copies them
 * into dims; false after reporting what is wrong, prefixed by `what`. */
bool capi_dims(const TfLiteInterpreter *in, const char *what, const int *input_dims,
               int32_t input_dims_size, int32_t dims[AP_MAX_DIMS]);

/* The handle of tensor t of subgraph sg (NULL out of range). */
TfLiteTensor *capi_tensor(const TfLiteInterpreter *in, size_t sg, int64_t t);
/* TFLite's type of an ap_dtype. */
TfLiteType capi_type(int ap_dtype);

void capi_model_retain(TfLiteModel *m);

#endif
