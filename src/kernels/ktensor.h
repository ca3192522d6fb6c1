/* The kernels' view of a tensor, and what every kernel shares: activation and padding codes
 * (TFLite's schema values), shape helpers, and the scratch contract.
 *
 * Kernels are pure functions over these views. A family has a prepare function, which checks
 * types and shapes, computes everything TFLite Micro computes in its Prepare (multipliers,
 * shifts, output shape, activation range) and the scratch bytes eval needs, and an eval
 * function, which writes the output from the inputs and the prepared parameters. Eval never
 * allocates: its scratch comes from the caller (planned in the arena), aligned to
 * AP_KSCRATCH_ALIGN and only valid during that call. Per-channel multipliers are recomputed
 * into scratch at every eval rather than kept: they cost a frexp per channel, and keeping
 * them would put per-channel tables in persistent memory for the whole interpreter lifetime.
 */
#ifndef AP_KERNELS_KTENSOR_H
#define AP_KERNELS_KTENSOR_H

#include "arenaplan/model.h"
#include "base/base.h"

#define AP_KMAXDIMS 6
#define AP_KSCRATCH_ALIGN 16

typedef struct ap_ktensor {
  void *data; /* NULL during prepare for non-constant tensors */
  int32_t dims[AP_KMAXDIMS];
  int rank;    /* 0 = scalar */
  int type;    /* ap_dtype */
  float scale; /* per-tensor quantization (scale 0: none) */
  int32_t zero_point;
  const float *channel_scales; /* per-axis scales, n_channels of them, or NULL */
  const int64_t *channel_zero_points;
  int n_channels;
  int quantized_dimension;
  bool is_variable; /* state the op keeps across invokes (LSTM, SVDF write it) */
} ap_ktensor;

/* TFLite ActivationFunctionType. */
enum {
  AP_KACT_NONE = 0,
  AP_KACT_RELU = 1,
  AP_KACT_RELU_N1_TO_1 = 2,
  AP_KACT_RELU6 = 3,
  AP_KACT_TANH = 4,
  AP_KACT_SIGN_BIT = 5
};

/* TFLite Padding. */
enum { AP_KPAD_SAME = 0, AP_KPAD_VALID = 1 };

/* A view with the given type and dims, no data, no quantization. */
ap_ktensor ap_ktensor_make(int type, void *data, int rank, const int32_t *dims);

/* Element count; false if a dim is negative, rank is out of range or the count overflows. */
bool ap_ktensor_count(const ap_ktensor *t, size_t *out);
/* The view of a model tensor (ap_model_tensor's info) over `data`: shape (rank at most
 * AP_KMAXDIMS), type, the first scale and zero point as the per-tensor values, and the per-axis
 * scales when there are several. Fails on a rank or zero point the kernels cannot represent. */
ap_status ap_ktensor_from_info(const ap_tensor_info *info, void *data, ap_ktensor *out,
                               ap_errbuf *err);

/* "FLOAT32", "INT8", ... for messages. The model layer's ap_dtype_name says the same; the
 * kernels keep their own so they link without the model layer. */
const char *ap_ktype_name(int type);
/* Element size in bytes of the types kernels handle (0 for others). */
size_t ap_ktype_size(int type);
/* Dim i of the shape extended to `rank` with leading 1s (as TFLite's ExtendedShape). */
int32_t ap_ktensor_dim_ext(const ap_ktensor *t, int rank, int i);
/* Scale of output channel c: the per-axis scale, or the single scale broadcast. */
float ap_ktensor_channel_scale(const ap_ktensor *t, int c);
bool ap_kshape_equal(const ap_ktensor *a, const ap_ktensor *b);

/* A shape recorded by prepare; eval refuses tensors whose shapes differ from it, so a caller
 * that prepared one shape and evaluates another gets AP_ERR_ARG instead of an overrun. */
typedef struct ap_kshape {
  int32_t dims[AP_KMAXDIMS];
  int rank;
} ap_kshape;
ap_kshape ap_kshape_of(const ap_ktensor *t);
bool ap_kshape_is(const ap_ktensor *t, const ap_kshape *s);

/* Rounds a scratch size up so the next block stays aligned. */
static inline size_t ap_kscratch_round(size_t n) {
  return (n + AP_KSCRATCH_ALIGN - 1) / AP_KSCRATCH_ALIGN * AP_KSCRATCH_ALIGN;
}

/* TFLite's padding computation (kernels/padding.h): output size and the leading padding. */
typedef struct ap_kpadding {
  int32_t out_h, out_w;
  int32_t pad_h, pad_w;               /* top and left */
  int32_t pad_h_offset, pad_w_offset; /* extra bottom/right padding when the total is odd */
} ap_kpadding;
/* False when the output would be empty or negative (filter larger than a VALID input) or a
 * stride or dilation is not positive. */
bool ap_kcompute_padding(int padding, int32_t in_h, int32_t in_w, int32_t filter_h,
                         int32_t filter_w, int32_t stride_h, int32_t stride_w, int32_t dilation_h,
                         int32_t dilation_w, ap_kpadding *out);

#endif
