/* BATCH_MATMUL (TFLite Micro's batch_matmul.cc over reference batch_matmul.h): for each
 * broadcast batch, out[i][j] = sum over k of lhs[i][k] * rhs[k][j]; adj_x / adj_y read the
 * operand transposed. Batch dims broadcast as numpy's. float32 sums from 0.0f in k order.
 * int8 sums (lhs - zero point) * (rhs - zero point) in int32, int16 (zero points 0) in int64;
 * then one multiplier (lhs scale * rhs scale / output scale), the output zero point and the
 * type's range (no fused activation). TFLM's transposes and its flattening of the batch dims
 * move operands, not values, so the sums are the same. */
#include "kernels/kops.h"
#include "kernels/kops_conv16.h"
#include "kernels/quant.h"

#include <string.h>

/* The batch part (all dims but the last two) of t as its own view, for broadcasting. */
static ap_ktensor batch_view(const ap_ktensor *t) {
  return ap_ktensor_make(t->type, NULL, t->rank - 2, t->dims);
}

/* TFLM's quantization parameters: q_offset {-lhs zero point, -rhs zero point, output zero
 * point}, q_mult[0] / q_shift[0] the output multiplier, imin / imax the type's range. */
static ap_status bmm_quant(ap_kctx *c, ap_kx_params *p, const ap_ktensor *a, const ap_ktensor *b,
                           const ap_ktensor *out) {
  if (!ap_kq_scale_ok(a->scale) || !ap_kq_scale_ok(b->scale) || !ap_kq_scale_ok(out->scale) ||
      !ap_kq_zero_point_ok(a) || !ap_kq_zero_point_ok(b) || !ap_kq_zero_point_ok(out)) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "BATCH_MATMUL: quantized tensors need positive scales and in-range zero points");
  }
  if (a->type == AP_INT16 && (a->zero_point || b->zero_point || out->zero_point)) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "BATCH_MATMUL: int16 zero points must be 0 (have %d, %d, %d)",
                   (int)a->zero_point, (int)b->zero_point, (int)out->zero_point);
  }
  /* GetQuantizedConvolutionMultipler: the scale product is taken in float. */
  double product = (double)(a->scale * b->scale);
  ap_kq_multiplier(product / (double)out->scale, &p->q_mult[0], &p->q_shift[0]);
  if (a->type == AP_INT16 && p->q_shift[0] > 7) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED,
                   "BATCH_MATMUL: rescale by 2^%d is beyond the 64-bit requantization's 2^7",
                   p->q_shift[0]);
  }
  p->q_offset[0] = -a->zero_point;
  p->q_offset[1] = -b->zero_point;
  p->q_offset[2] = out->zero_point;
  p->imin = a->type == AP_INT8 ? -128 : -32768;
  p->imax = a->type == AP_INT8 ? 127 : 32767;
  return AP_OK;
}

ap_status ap_kx_batch_matmul_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "BATCH_MATMUL", 2, 2, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *a = c->inputs[0], *b = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  int t = a->type;
  if ((t != AP_FLOAT32 && t != AP_INT8 && t != AP_INT16) || b->type != t || out->type != t) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "BATCH_MATMUL: unsupported types %s, %s -> %s",
                   ap_ktype_name(a->type), ap_ktype_name(b->type), ap_ktype_name(out->type));
  }
  if (t != AP_FLOAT32) {
    s = bmm_quant(c, p, a, b, out);
    if (s != AP_OK) return s;
  }
  size_t n;
  if (a->rank < 2 || b->rank < 2 || a->rank > 5 || b->rank > 5 || !ap_ktensor_count(a, &n) ||
      !ap_ktensor_count(b, &n)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "BATCH_MATMUL: inputs need ranks 2 to 5, have %d and %d",
                   a->rank, b->rank);
  }
  bool adj_x = c->options->adj_x, adj_y = c->options->adj_y;
  int32_t m = a->dims[a->rank - (adj_x ? 1 : 2)], k = a->dims[a->rank - (adj_x ? 2 : 1)];
  int32_t kb = b->dims[b->rank - (adj_y ? 1 : 2)], nn = b->dims[b->rank - (adj_y ? 2 : 1)];
  if (k != kb) {
    return ap_fail(c->err, AP_ERR_FORMAT, "BATCH_MATMUL: inner dims differ: %d and %d", (int)k,
                   (int)kb);
  }
  ap_ktensor ba = batch_view(a), bb = batch_view(b);
  const ap_ktensor *bins[2] = {&ba, &bb};
  s = ap_kbcast_shape("BATCH_MATMUL", bins, 2, out, c->err);
  if (s != AP_OK) return s;
  out->dims[out->rank] = m;
  out->dims[out->rank + 1] = nn;
  out->rank += 2;
  if (!ap_ktensor_count(out, &n)) {
    return ap_fail(c->err, AP_ERR_OVERFLOW, "BATCH_MATMUL: output too large");
  }
  p->kind = (adj_x ? 1 : 0) | (adj_y ? 2 : 0);
  p->in_shape = ap_kshape_of(a);
  p->in2_shape = ap_kshape_of(b);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

/* The int8 and int16 sums, requantized. int8 sums wrap in 32 bits as TFLite's int32 AccumT. */
static void bmm_int(const ap_kx_params *p, const ap_ktensor *a, const ap_ktensor *b,
                    ap_ktensor *out, size_t batches, ap_kbcast *it, size_t k) {
  bool adj_x = p->kind & 1, adj_y = p->kind & 2, s8 = a->type == AP_INT8;
  size_t ar = (size_t)a->dims[a->rank - 2], ac = (size_t)a->dims[a->rank - 1];
  size_t br = (size_t)b->dims[b->rank - 2], bc = (size_t)b->dims[b->rank - 1];
  size_t m = (size_t)out->dims[out->rank - 2], nn = (size_t)out->dims[out->rank - 1];
  for (size_t bi = 0; bi < batches; bi++, ap_kbcast_next(it)) {
    size_t xa = it->off[0] * ar * ac, yb = it->off[1] * br * bc, zo = bi * m * nn;
    for (size_t i = 0; i < m; i++) {
      for (size_t j = 0; j < nn; j++) {
        uint64_t total = 0;
        for (size_t q = 0; q < k; q++) {
          size_t li = xa + (adj_x ? q * ac + i : i * ac + q);
          size_t ri = yb + (adj_y ? j * bc + q : q * bc + j);
          int32_t lv = s8 ? ((const int8_t *)a->data)[li] : ((const int16_t *)a->data)[li];
          int32_t rv = s8 ? ((const int8_t *)b->data)[ri] : ((const int16_t *)b->data)[ri];
          total += (uint64_t)(int64_t)((int64_t)(lv + p->q_offset[0]) * (rv + p->q_offset[1]));
        }
        int32_t r = s8 ? ap_kq_mul(ap_kq_wrap32((int64_t)total), p->q_mult[0], p->q_shift[0])
                       : ap_kq_mul64((int64_t)total, p->q_mult[0], p->q_shift[0]);
        r = ap_kq_clamp((int32_t)((uint32_t)r + (uint32_t)p->q_offset[2]), p->imin, p->imax);
        if (s8) {
          ((int8_t *)out->data)[zo + i * nn + j] = (int8_t)r;
        } else {
          ((int16_t *)out->data)[zo + i * nn + j] = (int16_t)r;
        }
      }
    }
  }
}

ap_status ap_kx_batch_matmul_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs != 2 || c->n_outputs < 1) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  const ap_ktensor *a = c->inputs[0], *b = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  if (!a || !b || !out || !a->data || !b->data || !out->data || !ap_kshape_is(a, &p->in_shape) ||
      !ap_kshape_is(b, &p->in2_shape) || !ap_kshape_is(out, &p->out_shape)) {
    return AP_ERR_ARG;
  }
  bool adj_x = p->kind & 1, adj_y = p->kind & 2;
  size_t ar = (size_t)a->dims[a->rank - 2], ac = (size_t)a->dims[a->rank - 1];
  size_t br = (size_t)b->dims[b->rank - 2], bc = (size_t)b->dims[b->rank - 1];
  size_t m = (size_t)out->dims[out->rank - 2], nn = (size_t)out->dims[out->rank - 1];
  size_t k = adj_x ? ar : ac;
  ap_ktensor ba = batch_view(a), bb = batch_view(b);
  ap_ktensor bo = ap_ktensor_make(AP_FLOAT32, NULL, out->rank - 2, out->dims);
  const ap_ktensor *bins[2] = {&ba, &bb};
  size_t batches;
  if (!ap_ktensor_count(&bo, &batches)) return AP_ERR_ARG;
  ap_kbcast it;
  ap_kbcast_init(&it, bins, 2, &bo);
  if (a->type != AP_FLOAT32) {
    bmm_int(p, a, b, out, batches, &it, k);
    return AP_OK;
  }
  const float *x = a->data, *y = b->data;
  float *z = out->data;
  for (size_t bi = 0; bi < batches; bi++, ap_kbcast_next(&it)) {
    const float *xa = x + it.off[0] * ar * ac, *yb = y + it.off[1] * br * bc;
    float *zo = z + bi * m * nn;
    for (size_t i = 0; i < m; i++) {
      for (size_t j = 0; j < nn; j++) {
        float total = 0.0f;
        for (size_t q = 0; q < k; q++) {
          float lv = adj_x ? xa[q * ac + i] : xa[i * ac + q];
          float rv = adj_y ? yb[j * bc + q] : yb[q * bc + j];
          total += lv * rv;
        }
        zo[i * nn + j] = total;
      }
    }
  }
  return AP_OK;
}
