/* Runs arenaplan's builtin kernels (src/kernels/, pure functions over ap_ktensor views) as ops:
 * the model's options become the kernel's, the interpreter's tensors its views, and the
 * scratch a kernel asks for a request in the plan. */
#include "arenaplan/options.h"
#include "kernels/registry.h"
#include "runtime_internal.h"

#include <string.h>

static void to_kernel_options(const ap_op_options *o, ap_kop_options *k) {
  memset(k, 0, sizeof *k);
  switch (o->kind) {
  case AP_OPTIONS_CONV2D:
    k->conv = (ap_conv_options){o->conv2d.padding, o->conv2d.stride_w, o->conv2d.stride_h,
                                o->conv2d.dilation_w_factor, o->conv2d.dilation_h_factor,
                                o->conv2d.activation, 0};
    break;
  case AP_OPTIONS_DEPTHWISE_CONV2D:
    k->conv = (ap_conv_options){o->depthwise_conv2d.padding, o->depthwise_conv2d.stride_w,
                                o->depthwise_conv2d.stride_h,
                                o->depthwise_conv2d.dilation_w_factor,
                                o->depthwise_conv2d.dilation_h_factor,
                                o->depthwise_conv2d.activation,
                                o->depthwise_conv2d.depth_multiplier};
    break;
  case AP_OPTIONS_POOL2D:
    k->pool = (ap_pool_options){o->pool2d.padding, o->pool2d.stride_w, o->pool2d.stride_h,
                                o->pool2d.filter_width, o->pool2d.filter_height,
                                o->pool2d.activation};
    break;
  case AP_OPTIONS_FULLY_CONNECTED:
    k->fc = (ap_fc_options){o->fully_connected.activation, o->fully_connected.keep_num_dims,
                            o->fully_connected.asymmetric_quantize_inputs};
    break;
  case AP_OPTIONS_SOFTMAX: k->beta = o->softmax.beta; break;
  case AP_OPTIONS_CONCATENATION:
    k->axis = o->concatenation.axis;
    k->activation = o->concatenation.activation;
    break;
  case AP_OPTIONS_ADD: k->activation = o->add.activation; break;
  case AP_OPTIONS_ACTIVATION: k->activation = o->activation.activation; break;
  case AP_OPTIONS_RESHAPE:
    k->new_shape = o->reshape.new_shape.v;
    k->new_shape_n = (int)o->reshape.new_shape.n;
    break;
  case AP_OPTIONS_REDUCER: k->keep_dims = o->reducer.keep_dims; break;
  default: break;
  }
}

/* A kernel view of an interpreter tensor (shape, type, quantization, data). */
static ap_status to_view(ap_op_context *c, const ap_tensor *t, ap_ktensor *v) {
  if (t->rank > AP_KMAXDIMS)
    return ap_op_fail(c, AP_ERR_UNSUPPORTED, "tensor %s has rank %d (kernels take %d)", t->name,
                      t->rank, AP_KMAXDIMS);
  *v = ap_ktensor_make(t->type, t->data, t->rank, t->dims);
  v->scale = t->scale;
  v->zero_point = t->zero_point;
  if (t->quant_count > 1) {
    v->channel_scales = t->scales;
    v->channel_zero_points = t->zero_points;
    v->n_channels = (int)t->quant_count;
    v->quantized_dimension = t->quantized_dimension;
  }
  return AP_OK;
}

/* Views of every input and output, kept in persistent memory for eval. */
static ap_status build_views(ap_op_context *c) {
  size_t nin = ap_op_input_count(c), nout = ap_op_output_count(c);
  for (size_t i = 0; i < nin; i++) {
    ap_tensor *t = ap_op_input(c, i);
    c->kin_ptr[i] = NULL;
    if (!t) continue;
    ap_status s = to_view(c, t, &c->kin[i]);
    if (s != AP_OK) return s;
    c->kin_ptr[i] = &c->kin[i];
  }
  for (size_t i = 0; i < nout; i++) {
    ap_status s = to_view(c, ap_op_output(c, i), &c->kout[i]);
    if (s != AP_OK) return s;
    c->kout_ptr[i] = &c->kout[i];
  }
  return AP_OK;
}

static ap_status wrap(ap_op_context *c, ap_status s, ap_errbuf *e) {
  return s == AP_OK ? AP_OK : ap_op_fail(c, s, "%s", e->msg);
}

ap_status rt_builtin_prepare(ap_op_context *c) {
  ap_interpreter *it = c->it;
  size_t nin = ap_op_input_count(c), nout = ap_op_output_count(c);
  c->kin = rt_persistent_alloc(it, (nin + 1) * sizeof *c->kin);
  c->kin_ptr = rt_persistent_alloc(it, (nin + 1) * sizeof *c->kin_ptr);
  c->kout = rt_persistent_alloc(it, (nout + 1) * sizeof *c->kout);
  c->kout_ptr = rt_persistent_alloc(it, (nout + 1) * sizeof *c->kout_ptr);
  c->params = rt_persistent_alloc(it, c->builtin->params_size ? c->builtin->params_size : 1);
  if (!c->kin || !c->kin_ptr || !c->kout || !c->kout_ptr || !c->params)
    return it->buf ? AP_ERR_ARENA_TOO_SMALL : AP_ERR_NOMEM;
  ap_op_options oo;
  ap_status s = ap_model_op_options(it->model, c->subgraph, c->index, &oo);
  if (s == AP_ERR_UNSUPPORTED) {
    memset(&oo, 0, sizeof oo);
  } else if (s != AP_OK) {
    return ap_op_fail(c, s, "cannot read its options");
  }
  to_kernel_options(&oo, &c->kopt);
  s = build_views(c);
  if (s != AP_OK) return s;
  ap_errbuf e = {{0}};
  ap_kctx k = {(const ap_ktensor *const *)c->kin_ptr, (int)nin, c->kout_ptr, (int)nout, &c->kopt,
               c->params, NULL, &e};
  size_t scratch = 0;
  s = wrap(c, c->builtin->prepare(&k, &scratch), &e);
  if (s != AP_OK) return s;
  /* The kernel decided its outputs' shapes. */
  for (size_t i = 0; i < nout; i++) {
    ap_tensor *t = ap_op_output(c, i);
    if (t->is_constant) continue;
    if (!rt_set_shape(t, c->kout[i].dims, c->kout[i].rank))
      return ap_op_fail(c, AP_ERR_OVERFLOW, "output %zu: shape too large", i);
  }
  c->builtin_scratch = -1;
  if (scratch) return ap_op_request_scratch(c, scratch, &c->builtin_scratch);
  return AP_OK;
}

static bool same_shape(const ap_ktensor *v, const ap_tensor *t) {
  if (v->rank != t->rank) return false;
  for (int d = 0; d < t->rank; d++)
    if (v->dims[d] != t->dims[d]) return false;
  return true;
}

ap_status rt_builtin_bind(ap_op_context *c) {
  size_t nin = ap_op_input_count(c), nout = ap_op_output_count(c);
  /* The views were taken at this op's prepare; a later op that writes the same tensor may
   * have given it another shape, and the plan sized it for that one: the kernel would run
   * over bytes it does not have. */
  for (size_t i = 0; i < nin; i++) {
    ap_tensor *t = ap_op_input(c, i);
    if (t && !same_shape(&c->kin[i], t))
      return ap_op_fail(c, AP_ERR_FORMAT,
                        "input %zu (tensor %d) changed shape after this op's prepare (another "
                        "op writes it)",
                        i, c->info.inputs.v[i]);
    if (t) c->kin[i].data = t->data;
  }
  for (size_t i = 0; i < nout; i++) {
    ap_tensor *t = ap_op_output(c, i);
    if (!same_shape(&c->kout[i], t))
      return ap_op_fail(c, AP_ERR_FORMAT,
                        "output %zu (tensor %d) changed shape after this op's prepare (another "
                        "op writes it)",
                        i, c->info.outputs.v[i]);
    c->kout[i].data = t->data;
  }
  return AP_OK;
}

ap_status rt_builtin_eval(ap_op_context *c) {
  ap_errbuf e = {{0}};
  ap_kctx k = {(const ap_ktensor *const *)c->kin_ptr, (int)ap_op_input_count(c), c->kout_ptr,
               (int)ap_op_output_count(c), &c->kopt, c->params,
               c->builtin_scratch >= 0 ? ap_op_scratch(c, c->builtin_scratch) : NULL, &e};
  return wrap(c, c->builtin->eval(&k), &e);
}
