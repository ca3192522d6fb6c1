/* PACK (values_count inputs of one shape stacked along a new axis) and UNPACK (the inverse:
 * `num` outputs), as TFLite's pack.cc/unpack.cc: any element type, copied as bytes. Both are
 * an outer loop over the dims before the axis and one block copy per input or output. */
#include "kernels/kops.h"

#include <string.h>

/* Elements before the axis (outer) and from it on (inner) of a shape. */
static bool split_at(const ap_ktensor *t, int axis, size_t *outer, size_t *inner) {
  size_t o = 1, in = 1;
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] < 0) return false;
    if (!ap_mul_size(i < axis ? o : in, (size_t)t->dims[i], i < axis ? &o : &in)) return false;
  }
  *outer = o;
  *inner = in;
  return true;
}

ap_status ap_kx_pack_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "PACK", 1, 1 << 16, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *first = c->inputs[0];
  ap_ktensor *out = c->outputs[0];
  int n = c->n_inputs;
  if (c->options->count != n) {
    return ap_fail(c->err, AP_ERR_FORMAT, "PACK: values_count is %d but there are %d inputs",
                   (int)c->options->count, n);
  }
  int rank = first->rank;
  if (rank < 0 || rank + 1 > AP_KMAXDIMS) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "PACK: input rank %d too large", rank);
  }
  int axis = c->options->axis < 0 ? c->options->axis + rank + 1 : c->options->axis;
  if (axis < 0 || axis > rank) {
    return ap_fail(c->err, AP_ERR_FORMAT, "PACK: axis %d out of range for rank %d",
                   c->options->axis, rank);
  }
  for (int k = 0; k < n; k++) {
    if (!c->inputs[k] || !ap_kshape_equal(c->inputs[k], first) ||
        c->inputs[k]->type != first->type) {
      return ap_fail(c->err, AP_ERR_FORMAT, "PACK: input %d differs from input 0 in shape or type",
                     k);
    }
  }
  if (out->type != first->type || ap_ktype_size(first->type) == 0) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "PACK: unsupported types %s -> %s",
                   ap_ktype_name(first->type), ap_ktype_name(out->type));
  }
  out->rank = rank + 1;
  for (int i = 0, j = 0; i < rank + 1; i++)
    out->dims[i] = i == axis ? n : first->dims[j++];
  size_t count;
  if (!ap_ktensor_count(out, &count)) return ap_fail(c->err, AP_ERR_FORMAT, "PACK: invalid shape");
  p->axis = axis;
  p->count = n;
  p->in_shape = ap_kshape_of(first);
  p->out_shape = ap_kshape_of(out);
  return AP_OK;
}

ap_status ap_kx_pack_eval(ap_kctx *c) {
  if (!c || !c->params || !c->inputs || c->n_outputs < 1 || !c->outputs[0]) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  ap_ktensor *out = c->outputs[0];
  if (c->n_inputs != p->count || !out->data || !ap_kshape_is(out, &p->out_shape)) {
    return AP_ERR_ARG;
  }
  for (int k = 0; k < p->count; k++) {
    if (!c->inputs[k] || !c->inputs[k]->data || !ap_kshape_is(c->inputs[k], &p->in_shape)) {
      return AP_ERR_ARG;
    }
  }
  size_t outer, inner, es = ap_ktype_size(out->type);
  if (!split_at(c->inputs[0], p->axis, &outer, &inner)) return AP_ERR_ARG;
  size_t block = inner * es;
  unsigned char *dst = out->data;
  for (size_t o = 0; o < outer; o++) {
    for (int k = 0; k < p->count; k++) {
      memcpy(dst, (const unsigned char *)c->inputs[k]->data + o * block, block);
      dst += block;
    }
  }
  return AP_OK;
}

ap_status ap_kx_unpack_prepare(ap_kctx *c, size_t *scratch) {
  ap_status s = ap_kx_arity(c, "UNPACK", 1, 1, 1);
  if (s != AP_OK) return s;
  *scratch = 0;
  ap_kx_params *p = c->params;
  memset(p, 0, sizeof *p);
  const ap_ktensor *in = c->inputs[0];
  int rank = in->rank;
  size_t count;
  if (rank < 1 || !ap_ktensor_count(in, &count)) {
    return ap_fail(c->err, AP_ERR_FORMAT, "UNPACK: input needs rank at least 1, has %d", rank);
  }
  int axis = c->options->axis < 0 ? c->options->axis + rank : c->options->axis;
  if (axis < 0 || axis >= rank) {
    return ap_fail(c->err, AP_ERR_FORMAT, "UNPACK: axis %d out of range for rank %d",
                   c->options->axis, rank);
  }
  int n = in->dims[axis];
  if (c->options->count != n || c->n_outputs != n) {
    return ap_fail(c->err, AP_ERR_FORMAT,
                   "UNPACK: num is %d and there are %d outputs, dim %d is %d",
                   (int)c->options->count, c->n_outputs, axis, n);
  }
  if (ap_ktype_size(in->type) == 0) {
    return ap_fail(c->err, AP_ERR_UNSUPPORTED, "UNPACK: unsupported type %s",
                   ap_ktype_name(in->type));
  }
  for (int k = 0; k < n; k++) {
    ap_ktensor *out = c->outputs[k];
    if (out->type != in->type) {
      return ap_fail(c->err, AP_ERR_FORMAT, "UNPACK: output %d is %s, input %s", k,
                     ap_ktype_name(out->type), ap_ktype_name(in->type));
    }
    out->rank = rank - 1;
    for (int i = 0, j = 0; i < rank; i++) {
      if (i != axis) out->dims[j++] = in->dims[i];
    }
  }
  p->axis = axis;
  p->count = n;
  p->in_shape = ap_kshape_of(in);
  if (n > 0) p->out_shape = ap_kshape_of(c->outputs[0]);
  return AP_OK;
}

ap_status ap_kx_unpack_eval(ap_kctx *c) {
  if (!c || !c->params || c->n_inputs < 1 || !c->inputs[0] || !c->outputs) return AP_ERR_ARG;
  const ap_kx_params *p = c->params;
  const ap_ktensor *in = c->inputs[0];
  if (c->n_outputs != p->count || !in->data || !ap_kshape_is(in, &p->in_shape)) return AP_ERR_ARG;
  for (int k = 0; k < p->count; k++) {
    if (!c->outputs[k] || !c->outputs[k]->data || !ap_kshape_is(c->outputs[k], &p->out_shape)) {
      return AP_ERR_ARG;
    }
  }
  size_t outer, inner, es = ap_ktype_size(in->type);
  if (!split_at(in, p->axis, &outer, &inner)) return AP_ERR_ARG;
  /* inner counts the axis too: one output's block is inner / n. */
  size_t block = p->count ? inner / (size_t)p->count * es : 0;
  const unsigned char *src = in->data;
  for (size_t o = 0; o < outer; o++) {
    for (int k = 0; k < p->count; k++) {
      memcpy((unsigned char *)c->outputs[k]->data + o * block, src, block);
      src += block;
    }
  }
  return AP_OK;
}
