/* CONCATENATION: reference_ops::Concatenation. TFLite Micro copies int8 bytes unchanged even
 * when the inputs' quantization differs from the output's, and so do we. uint8 (which TFLite
 * Micro does not take) is TFLite's ConcatenationWithScaling: an input whose scale or zero point
 * differs from the output's is requantized. */
#include "kernels/kernels.h"
#include "kernels/kops_detect.h"
#include "kernels/quant.h"

#include <string.h>

ap_status ap_concat_prepare(int axis, int activation, const ap_ktensor *const *inputs, int n,
                            ap_ktensor *output, ap_concat_params *p, ap_errbuf *err) {
  if (!inputs || n < 1 || !output || !p) {
    return ap_fail(err, AP_ERR_ARG, "CONCATENATION: bad argument");
  }
  memset(p, 0, sizeof *p);
  if (activation != AP_KACT_NONE) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "CONCATENATION: fused activation %d unsupported",
                   activation);
  }
  const ap_ktensor *t0 = inputs[0];
  if (!t0) return ap_fail(err, AP_ERR_ARG, "CONCATENATION: input 0 is NULL");
  int rank = t0->rank;
  if (rank < 1 || rank > AP_KMAXDIMS) {
    return ap_fail(err, AP_ERR_FORMAT, "CONCATENATION: rank %d unsupported", rank);
  }
  int a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    return ap_fail(err, AP_ERR_FORMAT, "CONCATENATION: axis %d out of range for rank %d", axis,
                   rank);
  }
  if (ap_ktype_size(t0->type) == 0 || output->type != t0->type) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "CONCATENATION: unsupported types %s -> %s",
                   ap_ktype_name(t0->type), ap_ktype_name(output->type));
  }
  int64_t along = 0;
  for (int k = 0; k < n; k++) {
    const ap_ktensor *t = inputs[k];
    size_t c;
    if (!t || t->rank != rank || t->type != t0->type || !ap_ktensor_count(t, &c)) {
      return ap_fail(err, AP_ERR_FORMAT, "CONCATENATION: input %d does not match input 0", k);
    }
    for (int d = 0; d < rank; d++) {
      if (d != a && t->dims[d] != t0->dims[d]) {
        return ap_fail(err, AP_ERR_FORMAT, "CONCATENATION: input %d dim %d is %d, input 0 has %d",
                       k, d, (int)t->dims[d], (int)t0->dims[d]);
      }
    }
    along += t->dims[a];
    if (t->type == AP_UINT8 && (t->scale != output->scale || t->zero_point != output->zero_point) &&
        (!ap_kq_scale_ok(t->scale) || !ap_kq_scale_ok(output->scale))) {
      return ap_fail(err, AP_ERR_FORMAT,
                     "CONCATENATION: uint8 input %d needs rescaling but a scale is not positive",
                     k);
    }
  }
  if (along > INT32_MAX) return ap_fail(err, AP_ERR_OVERFLOW, "CONCATENATION: output too large");
  output->rank = rank;
  memcpy(output->dims, t0->dims, sizeof output->dims);
  output->dims[a] = (int32_t)along;
  size_t c;
  if (!ap_ktensor_count(output, &c)) {
    return ap_fail(err, AP_ERR_OVERFLOW, "CONCATENATION: output too large");
  }
  p->axis = a;
  return AP_OK;
}

ap_status ap_concat_eval(const ap_concat_params *p, const ap_ktensor *const *inputs, int n,
                         ap_ktensor *output) {
  if (!p || !inputs || !output || !output->data || p->axis < 0 || p->axis >= output->rank) {
    return AP_ERR_ARG;
  }
  size_t es = ap_ktype_size(output->type);
  size_t outer = 1, inner = es;
  for (int d = 0; d < p->axis; d++)
    outer *= (size_t)output->dims[d];
  for (int d = p->axis + 1; d < output->rank; d++)
    inner *= (size_t)output->dims[d];
  /* The inputs must still tile the output exactly (eval may get other tensors than prepare). */
  int64_t along = 0;
  for (int k = 0; k < n; k++) {
    const ap_ktensor *t = inputs[k];
    if (!t || !t->data || t->rank != output->rank || t->type != output->type) return AP_ERR_ARG;
    for (int d = 0; d < t->rank; d++) {
      if (d != p->axis && t->dims[d] != output->dims[d]) return AP_ERR_ARG;
    }
    along += t->dims[p->axis];
  }
  if (along != output->dims[p->axis]) return AP_ERR_ARG;
  unsigned char *out = output->data;
  for (size_t o = 0; o < outer; o++) {
    for (int k = 0; k < n; k++) {
      const ap_ktensor *t = inputs[k];
      size_t block = (size_t)t->dims[p->axis] * inner;
      const unsigned char *src = (const unsigned char *)t->data + o * block;
      if (t->type == AP_UINT8 && (t->scale != output->scale || t->zero_point != output->zero_point))
        ap_kdetect_requant_u8(out, src, block, t->scale, t->zero_point, output->scale,
                              output->zero_point);
      else
        memcpy(out, src, block);
      out += block;
    }
  }
  return AP_OK;
}
