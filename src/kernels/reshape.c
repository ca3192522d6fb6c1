/* RESHAPE: a copy of the bytes under a new shape (one -1 inferred), or nothing when input
 * and output share storage. */
#include "kernels/kernels.h"

#include <string.h>

ap_status ap_reshape_prepare(const ap_ktensor *input, const int32_t *shape, int n,
                             ap_ktensor *output, ap_errbuf *err) {
  if (!input || !output || n < 0 || (n > 0 && !shape)) {
    return ap_fail(err, AP_ERR_ARG, "RESHAPE: bad argument");
  }
  if (n > AP_KMAXDIMS) return ap_fail(err, AP_ERR_UNSUPPORTED, "RESHAPE: rank %d too large", n);
  size_t in_count;
  if (!ap_ktensor_count(input, &in_count)) {
    return ap_fail(err, AP_ERR_FORMAT, "RESHAPE: invalid input shape");
  }
  if (output->type != input->type) {
    return ap_fail(err, AP_ERR_FORMAT, "RESHAPE: types differ (%s -> %s)",
                   ap_ktype_name(input->type), ap_ktype_name(output->type));
  }
  int unknown = -1;
  size_t known = 1;
  for (int i = 0; i < n; i++) {
    if (shape[i] == -1 && unknown < 0) {
      unknown = i;
    } else if (shape[i] < 0 || !ap_mul_size(known, (size_t)shape[i], &known)) {
      return ap_fail(err, AP_ERR_FORMAT, "RESHAPE: invalid new shape dim %d = %d", i,
                     (int)shape[i]);
    }
  }
  output->rank = n;
  for (int i = 0; i < n; i++)
    output->dims[i] = shape[i];
  if (unknown >= 0) {
    if (known == 0 || in_count % known != 0 || in_count / known > INT32_MAX) {
      return ap_fail(err, AP_ERR_FORMAT, "RESHAPE: cannot infer a dim: %zu elements into %zu",
                     in_count, known);
    }
    output->dims[unknown] = (int32_t)(in_count / known);
  } else if (known != in_count) {
    return ap_fail(err, AP_ERR_FORMAT, "RESHAPE: %zu elements cannot take a shape of %zu", in_count,
                   known);
  }
  return AP_OK;
}

ap_status ap_reshape_eval(const ap_ktensor *input, ap_ktensor *output) {
  if (!input || !output || !input->data || !output->data) return AP_ERR_ARG;
  size_t n, es = ap_ktype_size(input->type);
  size_t out_n;
  if (es == 0 || !ap_ktensor_count(input, &n) || !ap_ktensor_count(output, &out_n) || n != out_n ||
      output->type != input->type) {
    return AP_ERR_ARG;
  }
  if (input->data != output->data) memmove(output->data, input->data, n * es);
  return AP_OK;
}
