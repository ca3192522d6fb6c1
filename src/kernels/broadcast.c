/* BROADCAST_TO (reference broadcast_to.h): the input repeated along the dims where it is 1 (or
 * missing, counted from the right) to a constant target shape. BROADCAST_ARGS
 * (broadcast_args.h): the shape two shapes broadcast to, as a vector; its length is known in
 * prepare, its values only once the inputs are (the runtime folds constant ones in prepare). */
#include "kernels/kops_datamove.h"

#include <string.h>

ap_status ap_kx_broadcast_to_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kxd_begin(c, scratch, "BROADCAST_TO", 2, 2);
  if (s != AP_OK || (s = ap_kxd_input(c, "BROADCAST_TO", 0, AP_KMAXDIMS)) != AP_OK) return s;
  const ap_ktensor *in = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  int64_t v[AP_KMAXDIMS];
  int rank;
  s = ap_kxd_shape_values(c, "BROADCAST_TO", "shape", c->inputs[1], 1, AP_KMAXDIMS, v, &rank);
  if (s != AP_OK) return s;
  if (c->inputs[1]->rank != 1 || rank < in->rank) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "BROADCAST_TO: a shape of %d dims for an input of rank %d", rank, in->rank);
  }
  for (int i = 0; i < rank; i++) {
    int32_t d = ap_ktensor_dim_ext(in, rank, i);
    if (v[i] < 0 || v[i] > INT32_MAX || (d != 1 && d != v[i])) {
      return ap_fail(c->err, AP_ERR_FORMAT, "BROADCAST_TO: dim %d of %d cannot broadcast to %lld",
                     i, (int)d, (long long)v[i]);
    }
    out->dims[i] = (int32_t)v[i];
  }
  out->rank = rank;
  return ap_kxd_finish(c, "BROADCAST_TO");
}

ap_status ap_kx_broadcast_to_eval(ap_kctx *c) {
  const ap_ktensor *in;
  ap_ktensor *out;
  size_t n;
  if (!ap_kx_eval_io(c, 2, 2, &in, &out) || !ap_ktensor_count(out, &n)) return AP_ERR_ARG;
  if (n == 0) return AP_OK;
  /* The trailing dims the input does not broadcast are copied as one block: broadcast over the
   * leading k dims only, in units of that block. */
  int rank = out->rank, k = rank;
  size_t block = ap_ktype_size(in->type);
  while (k > 0 && ap_ktensor_dim_ext(in, rank, k - 1) == out->dims[k - 1])
    block *= (size_t)out->dims[--k];
  int32_t lead[AP_KMAXDIMS];
  for (int i = 0; i < k; i++)
    lead[i] = ap_ktensor_dim_ext(in, rank, i);
  ap_ktensor in_k = ap_ktensor_make(in->type, NULL, k, lead);
  ap_ktensor out_k = ap_ktensor_make(out->type, NULL, k, out->dims);
  const ap_ktensor *ins[1] = {&in_k};
  ap_kbcast b;
  ap_kbcast_init(&b, ins, 1, &out_k);
  ap_ktensor_count(&out_k, &n);
  for (size_t i = 0; i < n; i++, ap_kbcast_next(&b))
    memcpy((unsigned char *)out->data + i * block,
           (const unsigned char *)in->data + b.off[0] * block, block);
  return AP_OK;
}

ap_status ap_kx_broadcast_args_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kxd_begin(c, scratch, "BROADCAST_ARGS", 2, 2);
  if (s != AP_OK) return s;
  ap_kx_params *p = c->params;
  const ap_ktensor *a = c->inputs[0], *b = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  size_t na, nb;
  if ((a->type != AP_INT32 && a->type != AP_INT64) || b->type != a->type || out->type != a->type) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "BROADCAST_ARGS: unsupported types %s, %s -> %s",
                   ap_ktype_name(a->type), ap_ktype_name(b->type), ap_ktype_name(out->type));
  }
  if (a->rank != 1 || b->rank != 1 || !ap_ktensor_count(a, &na) || !ap_ktensor_count(b, &nb)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "BROADCAST_ARGS: both shapes must be vectors");
  }
  out->rank = 1;
  out->dims[0] = a->dims[0] > b->dims[0] ? a->dims[0] : b->dims[0];
  p->in2_shape = ap_kshape_of(b);
  return ap_kxd_finish(c, "BROADCAST_ARGS");
}

ap_status ap_kx_broadcast_args_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs != 2 || c->n_outputs < 1) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  const ap_ktensor *a = c->inputs[0], *b = c->inputs[1];
  ap_ktensor *out = c->outputs[0];
  if (!a || !b || !out || !a->data || !b->data || !out->data || !ap_kshape_is(a, &p->in_shape) ||
      !ap_kshape_is(b, &p->in2_shape) || !ap_kshape_is(out, &p->out_shape) ||
      out->type != a->type || b->type != a->type)
    return AP_ERR_ARG;
  size_t n = (size_t)out->dims[0], na = (size_t)a->dims[0], nb = (size_t)b->dims[0];
  /* Right-aligned: element i from the end of each shape, 1 where a shape is shorter. */
  for (size_t i = 0; i < n; i++) {
    int64_t x = i < na ? ap_kxd_int_at(a, na - 1 - i) : 1,
            y = i < nb ? ap_kxd_int_at(b, nb - 1 - i) : 1;
    if (x != 1 && y != 1 && x != y) {
      return ap_fail(c->err, AP_ERR_FORMAT,
                     "BROADCAST_ARGS: dims %lld and %lld (%zu from the end) do not broadcast",
                     (long long)x, (long long)y, i);
    }
    int64_t r = x == 1 ? y : x;
    if (out->type == AP_INT32) {
      ((int32_t *)out->data)[n - 1 - i] = (int32_t)r;
    } else {
      ((int64_t *)out->data)[n - 1 - i] = r;
    }
  }
  return AP_OK;
}
