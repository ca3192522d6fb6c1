/* What the context-level kernels share: argument checks and broadcast iteration. */
#include "kernels/kops.h"

#include <string.h>

ap_status ap_kx_arity(ap_kctx *c, const char *op, int n_in, int max_in, int n_out) {
  bool ok = c && c->options && c->params && c->inputs && c->outputs && c->n_inputs >= n_in &&
            c->n_inputs <= max_in && c->n_outputs >= n_out;
  for (int i = 0; ok && i < n_in; i++)
    ok = c->inputs[i] != NULL;
  for (int i = 0; ok && i < c->n_outputs; i++)
    ok = c->outputs[i] != NULL;
  if (!ok) {
    return ap_fail(c ? c->err : NULL, AP_ERR_FORMAT, "%s: expected %d to %d inputs and %d output%s",
                   op, n_in, max_in, n_out, n_out == 1 ? "" : "s");
  }
  return AP_OK;
}

void ap_kx_strided_copy(unsigned char *dst, const unsigned char *src, size_t es, size_t n, int rank,
                        const int32_t *dims, const int64_t *step, int64_t pos) {
  int32_t idx[AP_KMAXDIMS] = {0};
  for (size_t k = 0; k < n; k++) {
    memcpy(dst + k * es, src + (size_t)pos * es, es);
    for (int i = rank - 1; i >= 0; i--) {
      if (++idx[i] < dims[i]) {
        pos += step[i];
        break;
      }
      pos -= step[i] * (dims[i] - 1);
      idx[i] = 0;
    }
  }
}

bool ap_kx_eval_io(const ap_kctx *c, int min_in, int max_in, const ap_ktensor **in,
                   ap_ktensor **out) {
  if (!c || !c->params || c->n_inputs < min_in || c->n_inputs > max_in || c->n_outputs < 1)
    return false;
  const ap_kx_params *p = c->params;
  *in = c->inputs[0];
  *out = c->outputs[0];
  return *in && *out && (*in)->data && (*out)->data && ap_kshape_is(*in, &p->in_shape) &&
         ap_kshape_is(*out, &p->out_shape);
}

ap_status ap_kbcast_shape(const char *op, const ap_ktensor *const *ins, int n, ap_ktensor *out,
                          ap_errbuf *err) {
  int rank = 0;
  size_t count;
  for (int k = 0; k < n; k++) {
    if (!ap_ktensor_count(ins[k], &count)) {
      return ap_fail(err, AP_ERR_FORMAT, "%s: input %d has an invalid shape", op, k);
    }
    rank = AP_MAX(rank, ins[k]->rank);
  }
  for (int i = 0; i < rank; i++) {
    int32_t d = 1;
    for (int k = 0; k < n; k++) {
      int32_t dk = ap_ktensor_dim_ext(ins[k], rank, i);
      if (dk == d || dk == 1) continue;
      if (d != 1) {
        return ap_fail(err, AP_ERR_FORMAT, "%s: shapes do not broadcast: dim %d is %d and %d", op,
                       i, (int)d, (int)dk);
      }
      d = dk;
    }
    out->dims[i] = d;
  }
  out->rank = rank;
  /* Every input fits in memory, but their broadcast product may not. */
  if (!ap_ktensor_count(out, &count)) {
    return ap_fail(err, AP_ERR_OVERFLOW, "%s: the broadcast output is too large", op);
  }
  return AP_OK;
}

void ap_kbcast_init(ap_kbcast *b, const ap_ktensor *const *ins, int n, const ap_ktensor *out) {
  memset(b, 0, sizeof *b);
  b->rank = out->rank;
  b->n_in = n;
  for (int i = 0; i < out->rank; i++)
    b->dims[i] = out->dims[i];
  for (int k = 0; k < n; k++) {
    size_t s = 1;
    for (int i = out->rank - 1; i >= 0; i--) {
      int32_t d = ap_ktensor_dim_ext(ins[k], out->rank, i);
      b->stride[k][i] = d == 1 ? 0 : s;
      s *= (size_t)d;
    }
  }
}

void ap_kbcast_next(ap_kbcast *b) {
  for (int i = b->rank - 1; i >= 0; i--) {
    if (++b->idx[i] < b->dims[i]) {
      for (int k = 0; k < b->n_in; k++)
        b->off[k] += b->stride[k][i];
      return;
    }
    for (int k = 0; k < b->n_in; k++)
      b->off[k] -= b->stride[k][i] * (size_t)(b->dims[i] - 1);
    b->idx[i] = 0;
  }
}
