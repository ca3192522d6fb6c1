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
    k->conv = (ap_conv_options){o->conv2d.padding,
                                o->conv2d.stride_w,
                                o->conv2d.stride_h,
                                o->conv2d.dilation_w_factor,
                                o->conv2d.dilation_h_factor,
                                o->conv2d.activation,
                                0,
                                o->conv2d.quantized_bias_type};
    break;
  case AP_OPTIONS_DEPTHWISE_CONV2D:
    k->conv = (ap_conv_options){
        o->depthwise_conv2d.padding,           o->depthwise_conv2d.stride_w,
        o->depthwise_conv2d.stride_h,          o->depthwise_conv2d.dilation_w_factor,
        o->depthwise_conv2d.dilation_h_factor, o->depthwise_conv2d.activation,
        o->depthwise_conv2d.depth_multiplier,  0};
    break;
  case AP_OPTIONS_POOL2D:
    k->pool =
        (ap_pool_options){o->pool2d.padding,      o->pool2d.stride_w,      o->pool2d.stride_h,
                          o->pool2d.filter_width, o->pool2d.filter_height, o->pool2d.activation};
    break;
  case AP_OPTIONS_FULLY_CONNECTED:
    k->fc = (ap_fc_options){o->fully_connected.activation, o->fully_connected.keep_num_dims,
                            o->fully_connected.asymmetric_quantize_inputs,
                            o->fully_connected.quantized_bias_type};
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
  case AP_OPTIONS_TRANSPOSE_CONV:
    k->conv = (ap_conv_options){o->transpose_conv.padding,
                                o->transpose_conv.stride_w,
                                o->transpose_conv.stride_h,
                                1,
                                1,
                                o->transpose_conv.activation,
                                0,
                                o->transpose_conv.quantized_bias_type};
    break;
  case AP_OPTIONS_BATCH_MATMUL:
    k->adj_x = o->batch_matmul.adj_x;
    k->adj_y = o->batch_matmul.adj_y;
    break;
  case AP_OPTIONS_RESIZE:
    k->align_corners = o->resize.align_corners;
    k->half_pixel_centers = o->resize.half_pixel_centers;
    break;
  case AP_OPTIONS_LEAKY_RELU: k->alpha = o->leaky_relu.alpha; break;
  case AP_OPTIONS_PACK:
    k->axis = o->pack.axis;
    k->count = o->pack.values_count;
    break;
  case AP_OPTIONS_UNPACK:
    k->axis = o->unpack.axis;
    k->count = o->unpack.num;
    break;
  case AP_OPTIONS_GATHER:
    k->axis = o->gather.axis;
    k->batch_dims = o->gather.batch_dims;
    break;
  case AP_OPTIONS_STRIDED_SLICE:
    k->ss.begin_mask = o->strided_slice.begin_mask;
    k->ss.end_mask = o->strided_slice.end_mask;
    k->ss.ellipsis_mask = o->strided_slice.ellipsis_mask;
    k->ss.new_axis_mask = o->strided_slice.new_axis_mask;
    k->ss.shrink_axis_mask = o->strided_slice.shrink_axis_mask;
    k->ss.offset = o->strided_slice.offset;
    break;
  case AP_OPTIONS_SEQUENCE_LSTM:
    k->activation = o->sequence_lstm.activation;
    k->lstm.cell_clip = o->sequence_lstm.cell_clip;
    k->lstm.proj_clip = o->sequence_lstm.proj_clip;
    k->lstm.time_major = o->sequence_lstm.time_major;
    k->lstm.asymmetric_quantize_inputs = o->sequence_lstm.asymmetric_quantize_inputs;
    k->lstm.diagonal_recurrent_tensors = o->sequence_lstm.diagonal_recurrent_tensors;
    break;
  case AP_OPTIONS_SVDF:
    k->activation = o->svdf.activation;
    k->svdf_rank = o->svdf.rank;
    break;
    /* -- 16x8 conv family options -- */

    /* -- int16 element-wise options -- */

    /* -- data movement options -- */
  case AP_OPTIONS_SPLIT: k->num_splits = o->split.num_splits; break;
  case AP_OPTIONS_BLOCK: k->block_size = o->block.block_size; break;
  case AP_OPTIONS_MIRROR_PAD: k->mirror_mode = o->mirror_pad.mode; break;
  case AP_OPTIONS_SQUEEZE:
    k->squeeze_dims = o->squeeze.squeeze_dims.v;
    k->squeeze_dims_n = (int)o->squeeze.squeeze_dims.n;
    break;
  case AP_OPTIONS_CUMSUM:
    k->exclusive = o->cumsum.exclusive;
    k->reverse = o->cumsum.reverse;
    break;

    /* -- math, comparison, logic, reduction options -- */

  default: break;
  }
}

/* Which data a view of a non-constant tensor carries. */
enum {
  VIEW_NONE,  /* none (outputs) */
  VIEW_KNOWN, /* the values prepare folded: in prepare, those; at eval, the same in the arena */
  VIEW_ALL    /* every tensor's (a dynamic op at eval) */
};

static void *view_data(const ap_op_context *c, const rt_tensor *r, int data) {
  if (data == VIEW_ALL) return r->data;
  if (data == VIEW_NONE || !(r->flags & RT_KNOWN)) return NULL;
  return c->phase == RT_EVAL ? r->data
                             : (void *)c->it->dyn->known_value(c->it, c->subgraph, r->index);
}

/* A kernel's view of tensor `t` of subgraph `sg`: current dims, the model's type and
 * quantization, and data as `data` says (constants: always; other tensors in a static op: only
 * values known in prepare, so prepare computes the same at every eval). */
static ap_status to_view(ap_op_context *c, int32_t t, int data, ap_ktensor *v) {
  const rt_tensor *r = rt_rec(c->it, c->subgraph, (size_t)t);
  ap_tensor_info ti;
  ap_status s = ap_model_tensor(c->it->model, c->subgraph, (size_t)t, &ti);
  if (s != AP_OK) return ap_op_fail(c, s, "tensor %d: %s", t, ap_model_error(c->it->model));
  int rank = r ? r->rank : (int)ti.shape.n;
  if (rank > AP_KMAXDIMS)
    return ap_op_fail(c, AP_ERR_UNSUPPORTED, "tensor %d has rank %d (kernels take %d)", t, rank,
                      AP_KMAXDIMS);
  if (r) {
    *v = ap_ktensor_make(r->type, view_data(c, r, data), rank, r->dims);
    v->is_variable = (r->flags & RT_VARIABLE) != 0;
  } else {
    size_t size;
    void *data = (void *)ap_model_buffer(c->it->model, ti.buffer, &size);
    *v = ap_ktensor_make(ti.type, data, rank, ti.shape.v);
  }
  v->scale = ti.scale_count ? ti.scale[0] : 0.0f;
  v->zero_point = ti.zero_point_count ? (int32_t)ti.zero_point[0] : 0;
  if (ti.scale_count > 1) {
    v->channel_scales = ti.scale;
    v->channel_zero_points = ti.zero_point_count == ti.scale_count ? ti.zero_point : NULL;
    v->n_channels = (int)ti.scale_count;
    v->quantized_dimension = ti.quantized_dimension;
  }
  return AP_OK;
}

/* Views of the op's tensors (inputs absent: NULL pointers; inputs' data as `data` says), its
 * kernel options, and the kernel's prepare on `params`; then, in prepare, folding. */
static ap_status run_prepare(ap_op_context *c, int data, ap_ktensor *kin, ap_ktensor **pin,
                             ap_ktensor *kout, ap_ktensor **pout, void *params, size_t *scratch,
                             size_t *state) {
  size_t nin = c->info.inputs.n, nout = c->info.outputs.n;
  for (size_t i = 0; i < nin; i++) {
    pin[i] = NULL;
    if (c->info.inputs.v[i] < 0) continue;
    ap_status s = to_view(c, c->info.inputs.v[i], data, &kin[i]);
    if (s != AP_OK) return s;
    pin[i] = &kin[i];
  }
  for (size_t i = 0; i < nout; i++) {
    ap_status s = to_view(c, c->info.outputs.v[i], VIEW_NONE, &kout[i]);
    if (s != AP_OK) return s;
    pout[i] = &kout[i];
  }
  ap_op_options oo;
  ap_status s = ap_model_op_options(c->it->model, c->subgraph, c->index, &oo);
  if (s == AP_ERR_UNSUPPORTED) {
    memset(&oo, 0, sizeof oo);
  } else if (s != AP_OK) {
    return ap_op_fail(c, s, "cannot read its options");
  }
  ap_kop_options kopt;
  to_kernel_options(&oo, &kopt);
  kopt.custom_options = c->info.custom_options;
  kopt.custom_options_size = c->info.custom_options_size;
  ap_errbuf e = {{0}};
  RT_KEXEC_ROOM(room);
  kopt.exec = rt_kexec_op(c->it, c->op, room);
  ap_kctx k = {(const ap_ktensor *const *)pin, (int)nin, pout, (int)nout, &kopt, params, NULL, &e};
  *scratch = 0;
  c->kernel_called = true;
  c->it->prepare_calls++;
  s = rt_op_builtin(c->op)->prepare(&k, scratch);
  if (s != AP_OK) return ap_op_fail(c, s, "%s", e.msg);
  c->kernel_prepared = true;
  const ap_kstate *st = ap_kernel_state(rt_op_builtin(c->op), params);
  *state = st ? st->bytes : 0;
  return c->phase == RT_EVAL || !c->it->dyn ? AP_OK : c->it->dyn->fold(c, &k, *scratch);
}

/* Parameters live on the stack for one call: kernels keep nothing between ops. */
typedef union rt_params {
  unsigned char bytes[AP_KPARAMS_SIZE];
  max_align_t align;
} rt_params;

ap_status rt_builtin_prepare(ap_op_context *c) {
  size_t nin = c->info.inputs.n, nout = c->info.outputs.n;
  ap_ktensor kin[nin + 1], kout[nout + 1], *pin[nin + 1], *pout[nout + 1];
  rt_params params;
  memset(&params, 0, sizeof params);
  size_t scratch, state = 0;
  /* Dynamic ops are prepared while running; allocate decides which ops they are. */
  if (c->phase != RT_PREPARE && rt_op_dynamic(c)) return AP_OK;
  if (c->phase == RT_PREPARE && rt_inputs_dynamic(c)) return rt_mark_dynamic(c);
  ap_status s = run_prepare(c, VIEW_KNOWN, kin, pin, kout, pout, &params, &scratch, &state);
  if (s != AP_OK && c->kernel_called && !c->kernel_prepared && c->phase == RT_PREPARE &&
      rt_shape_inputs_unknown(c))
    return rt_mark_dynamic(c);
  if (s != AP_OK) return s;
  if (state && (s = rt_state_take(c, state)) != AP_OK) return s;
  ap_interpreter *it = c->it;
  /* The kernel decided its outputs' shapes. */
  for (size_t i = 0; i < nout; i++) {
    rt_tensor *t = rt_rec(it, c->subgraph, (size_t)c->info.outputs.v[i]);
    if (!t)
      return ap_op_fail(c, AP_ERR_FORMAT,
                        "output %zu is a constant tensor (its data is the model's)", i);
    if (t->flags & RT_VARIABLE) continue;
    s = ap_op_set_output_shape(c, i, kout[i].dims, kout[i].rank);
    if (s != AP_OK) return s;
  }
  if (c->phase == RT_RESHAPE && it->scratch_cap) {
    uint64_t cap = it->scratch_cap[it->sg[c->subgraph].op_base + c->index];
    if (scratch > cap)
      return ap_op_fail(c, AP_ERR_NOT_ALLOCATED,
                        "scratch needs %zu bytes, more than the %llu planned for the maximum "
                        "input dims: call ap_interpreter_allocate() again",
                        scratch, (unsigned long long)cap);
  }
  if (!rt_op_dynamic(c) && c->it->ready_ops) {
    s = c->it->ready_ops->keep(c, pin, pout, &params, scratch);
    if (s != AP_OK) return s;
  }
  int index;
  return scratch && c->prep ? ap_op_request_scratch(c, scratch, &index) : AP_OK;
}

ap_status rt_builtin_eval(ap_op_context *c) {
  size_t nin = c->info.inputs.n, nout = c->info.outputs.n;
  ap_ktensor kin[nin + 1], kout[nout + 1], *pin[nin + 1], *pout[nout + 1];
  rt_params params;
  memset(&params, 0, sizeof params);
  size_t scratch, state_bytes = 0;
  bool dynamic = rt_dyn_op(c);
  ap_status s = run_prepare(c, dynamic ? VIEW_ALL : VIEW_KNOWN, kin, pin, kout, pout, &params,
                            &scratch, &state_bytes);
  if (s != AP_OK) return s;
  void *state = state_bytes ? rt_state_find(c, state_bytes) : NULL;
  if (state_bytes && !state) return AP_ERR_NOT_ALLOCATED; /* rt_state_find said why */
  for (size_t i = 0; i < nin; i++) {
    const rt_tensor *t = pin[i] ? rt_rec(c->it, c->subgraph, (size_t)c->info.inputs.v[i]) : NULL;
    if (t) kin[i].data = rt_data_or_empty(&kin[i], t->data);
  }
  for (size_t i = 0; i < nout; i++) {
    const rt_tensor *t = rt_rec(c->it, c->subgraph, (size_t)c->info.outputs.v[i]);
    if (!t) return ap_op_fail(c, AP_ERR_FORMAT, "output %zu is a constant tensor", i);
    if (dynamic) {
      s = c->it->dyn->output(c, i, &kout[i]);
      if (s != AP_OK) return s;
      continue;
    }
    /* Prepared shapes are the planned ones; anything else would overrun the arena. */
    if (kout[i].rank != t->rank || memcmp(kout[i].dims, t->dims, (size_t)t->rank * 4) != 0)
      return ap_op_fail(c, AP_ERR_KERNEL, "output %zu: shape differs from the planned one", i);
    kout[i].data = rt_data_or_empty(&kout[i], t->data);
  }
  void *scratch_at = c->op->ext;
  if (scratch && dynamic && (s = c->it->dyn->scratch(c, scratch, &scratch_at)) != AP_OK) return s;
  if (scratch && !scratch_at)
    return ap_op_fail(c, AP_ERR_KERNEL, "needs %zu bytes of scratch that were not planned",
                      scratch);
  ap_errbuf e = {{0}};
  ap_kop_options run; /* eval reads no model options, only how to run */
  memset(&run, 0, sizeof run);
  RT_KEXEC_ROOM(room);
  run.exec = rt_kexec_op(c->it, c->op, room);
  if (state) ap_kernel_state(rt_op_builtin(c->op), &params)->data = state;
  ap_kctx k = {(const ap_ktensor *const *)pin, (int)nin, pout, (int)nout, &run, &params,
               scratch ? scratch_at : NULL,    &e};
  s = rt_op_builtin(c->op)->eval(&k);
  return s == AP_OK ? AP_OK : ap_op_fail(c, s, "%s", e.msg[0] ? e.msg : ap_status_name(s));
}

ap_status rt_builtin_scratch_bytes(ap_op_context *c, size_t *scratch) {
  size_t nin = c->info.inputs.n, nout = c->info.outputs.n;
  ap_ktensor kin[nin + 1], kout[nout + 1], *pin[nin + 1], *pout[nout + 1];
  rt_params params;
  memset(&params, 0, sizeof params);
  size_t state;
  if (rt_dyn_op(c)) return (*scratch = 0), AP_OK; /* sized while running, not planned */
  return run_prepare(c, VIEW_KNOWN, kin, pin, kout, pout, &params, scratch, &state);
}
