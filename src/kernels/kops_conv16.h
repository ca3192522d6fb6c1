/* Shared by the conv-like families for the types added in issue 15 (16x8 quantization, INT4
 * weights, int8/int16 TRANSPOSE_CONV and BATCH_MATMUL): the INT4 unpacking TFLite Micro does
 * before its int8 kernels. The kinds and options themselves extend kernels.h's families. */
#ifndef AP_KERNELS_KOPS_CONV16_H
#define AP_KERNELS_KOPS_CONV16_H

#include "kernels/ktensor.h"

#include <string.h>

/* UnpackDenseInt4IntoInt8 (tensor_utils): n signed 4-bit values packed two to a byte over the
 * flat tensor, the low nibble first, each sign-extended into one int8. src holds
 * ceil(n / 2) bytes; the high nibble of an odd count's last byte is ignored. */
void ap_kint4_unpack(const uint8_t *src, size_t n, int8_t *dst);

/* The scratch of an int8 kernel over an INT4 filter: `head` bytes (rounded) for its own use,
 * then the filter's elements unpacked, one byte each. False on overflow or a bad filter. */
bool ap_kint4_scratch(const ap_ktensor *filter, size_t head, size_t *unpacked_at, size_t *total);

/* Element i of an int64 array that may be only 4-byte aligned (a model's bias buffer). */
static inline int64_t ap_kload_i64(const void *p, size_t i) {
  int64_t v;
  memcpy(&v, (const unsigned char *)p + i * sizeof v, sizeof v);
  return v;
}

/* The 16x8 kernels' int64 requantization (ap_kq_mul64) holds for shifts up to 7 only, as
 * TFLite's contract says: fails naming `op` when a channel's input * filter / output scale
 * needs more (n channels, scales broadcast as the conv family's). */
ap_status ap_kconv_check_mul64(const char *op, float input_scale, const ap_ktensor *filter,
                               float output_scale, int32_t n, ap_errbuf *err);

#endif
