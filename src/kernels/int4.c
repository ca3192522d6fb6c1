/* INT4 weights: TFLite Micro unpacks them into an int8 scratch copy at every eval and runs its
 * int8 kernel over the copy; so do we. */
#include "kernels/kops_conv16.h"

void ap_kint4_unpack(const uint8_t *src, size_t n, int8_t *dst) {
  for (size_t i = 0; i < n; i++) {
    unsigned nibble = (i & 1) ? (unsigned)src[i / 2] >> 4 : (unsigned)src[i / 2] & 0xFu;
    dst[i] = (int8_t)((int)nibble - (nibble >= 8 ? 16 : 0));
  }
}

bool ap_kint4_scratch(const ap_ktensor *filter, size_t head, size_t *unpacked_at, size_t *total) {
  size_t n;
  if (!filter || filter->type != AP_INT4 || !ap_ktensor_count(filter, &n) ||
      head > SIZE_MAX - AP_KSCRATCH_ALIGN) {
    return false;
  }
  *unpacked_at = ap_kscratch_round(head);
  return ap_add_size(*unpacked_at, n, total);
}
