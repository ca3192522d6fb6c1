#include "kernels/ktensor.h"

#include <string.h>

ap_ktensor ap_ktensor_make(int type, void *data, int rank, const int32_t *dims) {
  ap_ktensor t;
  memset(&t, 0, sizeof t);
  t.type = type;
  t.data = data;
  t.rank = rank;
  for (int i = 0; i < rank && i < AP_KMAXDIMS; i++)
    t.dims[i] = dims[i];
  return t;
}

bool ap_ktensor_count(const ap_ktensor *t, size_t *out) {
  if (!t || t->rank < 0 || t->rank > AP_KMAXDIMS) return false;
  size_t n = 1;
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] < 0 || !ap_mul_size(n, (size_t)t->dims[i], &n)) return false;
  }
  *out = n;
  return true;
}

ap_status ap_ktensor_from_info(const ap_tensor_info *info, void *data, ap_ktensor *out,
                               ap_errbuf *err) {
  if (!info || !out) return ap_fail(err, AP_ERR_ARG, "tensor view: NULL argument");
  memset(out, 0, sizeof *out);
  if (info->shape.n > AP_KMAXDIMS || (info->shape.n && !info->shape.v)) {
    return ap_fail(err, AP_ERR_UNSUPPORTED, "tensor \"%s\": rank %zu exceeds %d", info->name,
                   info->shape.n, AP_KMAXDIMS);
  }
  out->rank = (int)info->shape.n;
  for (size_t i = 0; i < info->shape.n; i++)
    out->dims[i] = info->shape.v[i];
  out->type = info->type;
  out->data = data;
  out->quantized_dimension = info->quantized_dimension;
  if (info->scale_count > 0 && info->scale) {
    out->scale = info->scale[0];
    out->channel_scales = info->scale;
    out->n_channels = info->scale_count > INT32_MAX ? INT32_MAX : (int)info->scale_count;
  }
  if (info->zero_point_count > 0 && info->zero_point) {
    int64_t zp = info->zero_point[0];
    if (zp < INT32_MIN || zp > INT32_MAX) {
      return ap_fail(err, AP_ERR_FORMAT, "tensor \"%s\": zero point %lld out of range", info->name,
                     (long long)zp);
    }
    out->zero_point = (int32_t)zp;
    out->channel_zero_points = info->zero_point;
  }
  return AP_OK;
}

const char *ap_ktype_name(int type) {
  static const char *const names[] = {
      "FLOAT32", "FLOAT16",   "INT32",  "UINT8",   "INT64",      "STRING", "BOOL",
      "INT16",   "COMPLEX64", "INT8",   "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE",
      "VARIANT", "UINT32",    "UINT16", "INT4",    "BFLOAT16",   "INT2",   "UINT4"};
  if (type < 0 || type >= (int)(sizeof names / sizeof names[0])) return "UNKNOWN";
  return names[type];
}

size_t ap_ktype_size(int type) {
  switch (type) {
  case AP_FLOAT32:
  case AP_INT32: return 4;
  case AP_INT8:
  case AP_UINT8:
  case AP_BOOL: return 1;
  case AP_INT16: return 2;
  case AP_INT64: return 8;
  default: return 0;
  }
}

int32_t ap_ktensor_dim_ext(const ap_ktensor *t, int rank, int i) {
  int lead = rank - t->rank;
  return i < lead ? 1 : t->dims[i - lead];
}

float ap_ktensor_channel_scale(const ap_ktensor *t, int c) {
  if (t->channel_scales && t->n_channels > 0) {
    return t->channel_scales[t->n_channels > 1 ? c : 0];
  }
  return t->scale;
}

bool ap_kshape_equal(const ap_ktensor *a, const ap_ktensor *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++) {
    if (a->dims[i] != b->dims[i]) return false;
  }
  return true;
}

ap_kshape ap_kshape_of(const ap_ktensor *t) {
  ap_kshape s;
  memset(&s, 0, sizeof s);
  s.rank = t->rank;
  for (int i = 0; i < t->rank && i < AP_KMAXDIMS; i++)
    s.dims[i] = t->dims[i];
  return s;
}

bool ap_kshape_is(const ap_ktensor *t, const ap_kshape *s) {
  if (!t || t->rank != s->rank) return false;
  for (int i = 0; i < s->rank; i++) {
    if (t->dims[i] != s->dims[i]) return false;
  }
  return true;
}

/* kernels/padding.h: SAME ignores the filter for the output size; VALID drops the partial
 * windows. The leading padding is half the total, rounded down. */
static bool out_size(int padding, int64_t in, int64_t filter, int64_t stride, int64_t dilation,
                     int64_t *out) {
  int64_t eff = (filter - 1) * dilation + 1;
  if (padding == AP_KPAD_SAME) {
    *out = (in + stride - 1) / stride;
  } else if (padding == AP_KPAD_VALID) {
    int64_t v = in + stride - eff;
    *out = v < 0 ? -1 : v / stride;
  } else {
    return false;
  }
  return *out > 0 && *out <= INT32_MAX;
}

static void pad_for(int64_t in, int64_t filter, int64_t stride, int64_t dilation, int64_t out,
                    int32_t *pad, int32_t *offset) {
  int64_t eff = (filter - 1) * dilation + 1;
  int64_t total = (out - 1) * stride + eff - in;
  if (total < 0) total = 0;
  *pad = (int32_t)(total / 2);
  *offset = (int32_t)(total % 2);
}

bool ap_kcompute_padding(int padding, int32_t in_h, int32_t in_w, int32_t filter_h,
                         int32_t filter_w, int32_t stride_h, int32_t stride_w, int32_t dilation_h,
                         int32_t dilation_w, ap_kpadding *p) {
  if (in_h <= 0 || in_w <= 0 || filter_h <= 0 || filter_w <= 0 || stride_h <= 0 || stride_w <= 0 ||
      dilation_h <= 0 || dilation_w <= 0) {
    return false;
  }
  int64_t oh, ow;
  if (!out_size(padding, in_h, filter_h, stride_h, dilation_h, &oh) ||
      !out_size(padding, in_w, filter_w, stride_w, dilation_w, &ow)) {
    return false;
  }
  /* The last window's far edge, (out - 1) * stride + effective filter, bounds every index the
   * kernels compute in int32; hostile strides or dilations must not overflow it. */
  if ((oh - 1) * stride_h + ((int64_t)filter_h - 1) * dilation_h + 1 > INT32_MAX ||
      (ow - 1) * stride_w + ((int64_t)filter_w - 1) * dilation_w + 1 > INT32_MAX) {
    return false;
  }
  p->out_h = (int32_t)oh;
  p->out_w = (int32_t)ow;
  pad_for(in_h, filter_h, stride_h, dilation_h, oh, &p->pad_h, &p->pad_h_offset);
  pad_for(in_w, filter_w, stride_w, dilation_w, ow, &p->pad_w, &p->pad_w_offset);
  return true;
}
