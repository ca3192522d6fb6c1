/* BATCH_MATMUL on float32 (TFLite's batch_matmul.cc over reference batch_matmul.h): for each
 * broadcast batch, out[i][j] = sum over k of lhs[i][k] * rhs[k][j], summed from 0.0f in k order;
 * adj_x / adj_y read the operand transposed. Batch dims broadcast as numpy's. */
#include "kernels/kops.h"

#include <string.h>

/* The batch part (all dims but the last two) of t as its own view, for broadcasting. */
static ap_ktensor batch_view(const ap_ktensor *t) {
  return ap_ktensor_make(t->type, NULL, t->rank - 2, t->dims);
}

ap_status ap_kx_batch_matmul_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "BATCH_MATMUL", 2, 2, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *a = c->inputs[0], *b = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  if (a->type != AP_FLOAT32 || b->type != AP_FLOAT32 || out->type != AP_FLOAT32) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "BATCH_MATMUL: unsupported types %s, %s -> %s",
                   ap_ktype_name(a->type), ap_ktype_name(b->type), ap_ktype_name(out->type));
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
