/* Streamed segments at run time (graph.h, ap_graph_options.stream): a segment's ops run row by
 * row, each pulling from the op before it the input rows its next output row's window needs,
 * so every map between them lives in a ring of rows (row y at slot y % rows) that the plan
 * sized. The rows are computed by the reference kernels' row-range entry points
 * (kernels/kops_stream.h), the same loops as a whole-tensor eval. Nothing is allocated: the
 * members' parameters live on the stack for the segment's run. */
#include "arenaplan/options.h"
#include "kernels/kops_stream.h"
#include "runtime_internal.h"

#include <string.h>

bool rt_stream(const ap_interpreter *it) {
  if (!it->stream || it->has_max) return false;
  for (size_t i = 0; i < it->custom_op_count; i++)
    if (!it->custom_ops[i].name) return false;
  return true;
}

uint32_t *rt_stream_alloc(ap_interpreter *it) {
  size_t bytes;
  if (it->sg_count == 0 || !ap_mul_size(it->sg[0].op_count, 2 * sizeof(uint32_t), &bytes)) {
    rt_fail(it, AP_ERR_OVERFLOW, "too many ops to stream");
    return NULL;
  }
  return rt_tables_alloc(it, bytes ? bytes : 1);
}

ap_status rt_stream_table(ap_interpreter *it, const ap_graph *g, uint32_t *t) {
  size_t n = ap_graph_segment_count(g);
  if (n == 0 || it->sg_count == 0) return AP_OK;
  uint32_t ops = it->sg[0].op_count;
  for (size_t i = 0; i < n; i++) {
    ap_segment seg;
    if (ap_graph_segment(g, i, &seg) != AP_OK || seg.subgraph != 0 ||
        seg.first_op + (uint64_t)seg.op_count > ops || seg.op_count > AP_SEGMENT_MAX_OPS)
      return rt_fail(it, AP_ERR_KERNEL, "streamed segment %zu out of range", i);
    t[2 * seg.first_op] = seg.op_count;
  }
  for (uint32_t k = 0; k < ops; k++) {
    ap_op_info op;
    if (ap_model_op(it->model, 0, k, &op) != AP_OK || op.outputs.n < 1 || op.outputs.v[0] < 0)
      continue;
    t[2 * k + 1] = ap_graph_ring_rows(g, it->sg[0].tensor_base + (uint64_t)op.outputs.v[0]);
  }
  it->segments = t;
  return AP_OK;
}

enum { M_CONV = 1, M_DEPTHWISE, M_POOL, M_ADD, M_PAD };

/* One member of the running segment. */
typedef struct member {
  int kind;
  union {
    ap_conv_params conv;
    ap_pool_params pool;
    ap_binary_params bin;
    ap_pad_params pad;
  } p;
  ap_ktensor in, filter, bias, out; /* ADD: `filter` is the input read whole */
  bool side_first;                  /* ADD: the whole input is its input 0 */
  size_t in_row, side_row, out_row; /* ADD: bytes per row */
  bool has_bias;
  void *scratch;
  ap_krows rows; /* rings; r0/r1 set per call */
  int32_t eff, stride, pad, in_h, out_h;
  int32_t done; /* output rows computed so far */
} member;

static ap_status view(ap_interpreter *it, int32_t t, ap_ktensor *v) {
  ap_tensor_info ti;
  ap_errbuf e = {{0}};
  ap_status s = ap_model_tensor(it->model, 0, (size_t)t, &ti);
  if (s != AP_OK) return rt_fail(it, s, "%s", ap_model_error(it->model));
  const rt_tensor *r = rt_rec(it, 0, (size_t)t);
  void *data;
  if (r) {
    data = r->data;
    /* The plan's rings follow the model's shapes. */
    if (r->rank != ti.shape.n || memcmp(r->dims, ti.shape.v, ti.shape.n * sizeof(int32_t)) != 0)
      return rt_fail(it, AP_ERR_KERNEL, "streamed segment: tensor %d changed shape", (int)t);
  } else {
    size_t size;
    data = (void *)ap_model_buffer(it->model, ti.buffer, &size);
  }
  s = ap_ktensor_from_info(&ti, data, v, &e);
  return s == AP_OK ? AP_OK : rt_fail(it, s, "%s", e.msg);
}

/* A view of one row of t (dims [1, 1, W, C]), data set per row. */
static ap_ktensor row_view(const ap_ktensor *t, size_t *row_bytes) {
  ap_ktensor r = *t;
  r.dims[1] = 1;
  *row_bytes = (size_t)t->dims[2] * (size_t)t->dims[3] * ap_ktype_size(t->type);
  return r;
}

/* ADD inside a segment: the chained input is the previous op's output (`in`, a ring), the
 * other is read whole; the kernel runs on one row of each. */
static ap_status prepare_add(ap_interpreter *it, uint32_t k, const ap_op_info *op,
                             const ap_op_options *o, member *m) {
  if (op->inputs.n != 2 || op->outputs.n != 1 || op->inputs.v[0] < 0 || op->inputs.v[1] < 0 ||
      o->kind != AP_OPTIONS_ADD)
    return rt_fail(it, AP_ERR_KERNEL, "op %u: not streamable", k);
  ap_op_info prev;
  ap_status s = ap_model_op(it->model, 0, k - 1, &prev);
  if (s != AP_OK || prev.outputs.n < 1) return rt_fail(it, AP_ERR_KERNEL, "op %u: no chain", k);
  m->side_first = op->inputs.v[1] == prev.outputs.v[0];
  s = view(it, op->inputs.v[m->side_first ? 1 : 0], &m->in);
  if (s == AP_OK) s = view(it, op->inputs.v[m->side_first ? 0 : 1], &m->filter);
  if (s == AP_OK) s = view(it, op->outputs.v[0], &m->out);
  if (s != AP_OK) return s;
  ap_ktensor a = row_view(&m->in, &m->in_row), b = row_view(&m->filter, &m->side_row);
  ap_ktensor out = row_view(&m->out, &m->out_row);
  ap_errbuf e = {{0}};
  s = m->side_first
          ? ap_binary_prepare(AP_KBIN_ADD, o->add.activation, &b, &a, &out, &m->p.bin, &e)
          : ap_binary_prepare(AP_KBIN_ADD, o->add.activation, &a, &b, &out, &m->p.bin, &e);
  if (s != AP_OK) return rt_fail(it, s, "op %u: %s", k, e.msg);
  if (!ap_kshape_equal(&m->in, &m->out) || !ap_kshape_equal(&m->filter, &m->out) || m->in.rank != 4)
    return rt_fail(it, AP_ERR_KERNEL, "op %u: ADD in a segment broadcasts", k);
  m->kind = M_ADD;
  m->eff = m->stride = 1;
  m->in_h = m->out_h = m->out.dims[1];
  return AP_OK;
}

static ap_status eval_add_row(member *m, int32_t y) {
  size_t in_slot = (size_t)(m->rows.in_ring ? y % m->rows.in_ring : y);
  size_t out_slot = (size_t)(m->rows.out_ring ? y % m->rows.out_ring : y);
  size_t r;
  ap_ktensor a = row_view(&m->in, &r), b = row_view(&m->filter, &r), out = row_view(&m->out, &r);
  a.data = (uint8_t *)m->in.data + in_slot * m->in_row;
  b.data = (uint8_t *)m->filter.data + (size_t)y * m->side_row;
  out.data = (uint8_t *)m->out.data + out_slot * m->out_row;
  return m->side_first ? ap_binary_eval(&m->p.bin, &b, &a, &out)
                       : ap_binary_eval(&m->p.bin, &a, &b, &out);
}

/* running: at invoke (the scratch must be there); else sizing it while planning. */
static ap_status prepare(ap_interpreter *it, uint32_t k, member *m, bool running) {
  ap_op_info op;
  ap_op_options o;
  ap_status s = ap_model_op(it->model, 0, k, &op);
  if (s == AP_OK) s = ap_model_op_options(it->model, 0, k, &o);
  if (s != AP_OK) return rt_fail(it, s, "%s", ap_model_error(it->model));
  memset(m, 0, sizeof *m);
  if (op.builtin == 0) return prepare_add(it, k, &op, &o, m);
  if (op.inputs.n < 1 || op.outputs.n != 1)
    return rt_fail(it, AP_ERR_KERNEL, "op %u: not streamable", k);
  s = view(it, op.inputs.v[0], &m->in);
  if (s == AP_OK) s = view(it, op.outputs.v[0], &m->out);
  if (s == AP_OK && (op.builtin == 34 || op.builtin == 60)) {
    if (op.inputs.n < 2 || op.inputs.v[1] < 0)
      return rt_fail(it, AP_ERR_FORMAT, "op %u: paddings are missing", k);
    s = view(it, op.inputs.v[1], &m->filter);
    m->has_bias = op.inputs.n > 2 && op.inputs.v[2] >= 0;
    if (s == AP_OK && m->has_bias) s = view(it, op.inputs.v[2], &m->bias);
    if (s != AP_OK) return s;
    ap_errbuf e = {{0}};
    ap_ktensor out = m->out;
    s = ap_pad_prepare(&m->in, &m->filter, m->has_bias ? &m->bias : NULL, &out, &m->p.pad, &e);
    if (s != AP_OK) return rt_fail(it, s, "op %u: %s", k, e.msg);
    if (!ap_kshape_equal(&out, &m->out) || m->in.rank != 4)
      return rt_fail(it, AP_ERR_KERNEL, "op %u: output shape differs from the planned one", k);
    m->kind = M_PAD;
    m->eff = m->stride = 1;
    m->pad = m->p.pad.before[1];
    m->in_h = m->in.dims[1];
    m->out_h = m->out.dims[1];
    return AP_OK;
  }
  if (s == AP_OK && op.builtin != 1 && op.builtin != 17) {
    if (op.inputs.n < 2 || op.inputs.v[1] < 0)
      return rt_fail(it, AP_ERR_FORMAT, "op %u: filter is missing", k);
    s = view(it, op.inputs.v[1], &m->filter);
    m->has_bias = op.inputs.n > 2 && op.inputs.v[2] >= 0;
    if (s == AP_OK && m->has_bias) s = view(it, op.inputs.v[2], &m->bias);
  }
  if (s != AP_OK) return s;
  ap_errbuf e = {{0}};
  ap_ktensor out = m->out;
  int32_t fh = 0, dil = 1;
  if (op.builtin == 3 && o.kind == AP_OPTIONS_CONV2D) {
    ap_conv_options co = {o.conv2d.padding,
                          o.conv2d.stride_w,
                          o.conv2d.stride_h,
                          o.conv2d.dilation_w_factor,
                          o.conv2d.dilation_h_factor,
                          o.conv2d.activation,
                          0,
                          o.conv2d.quantized_bias_type};
    m->kind = M_CONV;
    s = ap_conv_prepare(&co, &m->in, &m->filter, m->has_bias ? &m->bias : NULL, &out, &m->p.conv,
                        &e);
  } else if (op.builtin == 4 && o.kind == AP_OPTIONS_DEPTHWISE_CONV2D) {
    ap_conv_options co = {
        o.depthwise_conv2d.padding,           o.depthwise_conv2d.stride_w,
        o.depthwise_conv2d.stride_h,          o.depthwise_conv2d.dilation_w_factor,
        o.depthwise_conv2d.dilation_h_factor, o.depthwise_conv2d.activation,
        o.depthwise_conv2d.depth_multiplier,  0};
    m->kind = M_DEPTHWISE;
    s = ap_depthwise_prepare(&co, &m->in, &m->filter, m->has_bias ? &m->bias : NULL, &out,
                             &m->p.conv, &e);
  } else if ((op.builtin == 1 || op.builtin == 17) && o.kind == AP_OPTIONS_POOL2D) {
    ap_pool_options po = {o.pool2d.padding,      o.pool2d.stride_w,      o.pool2d.stride_h,
                          o.pool2d.filter_width, o.pool2d.filter_height, o.pool2d.activation};
    m->kind = M_POOL;
    s = ap_pool_prepare(op.builtin == 1 ? AP_KPOOL_AVERAGE : AP_KPOOL_MAX, &po, &m->in, &out,
                        &m->p.pool, &e);
    fh = o.pool2d.filter_height;
  } else {
    return rt_fail(it, AP_ERR_KERNEL, "op %u: not streamable", k);
  }
  if (s != AP_OK) return rt_fail(it, s, "op %u: %s", k, e.msg);
  if (!ap_kshape_equal(&out, &m->out))
    return rt_fail(it, AP_ERR_KERNEL, "op %u: output shape differs from the planned one", k);
  if (m->kind == M_POOL) {
    m->stride = m->p.pool.stride_h;
    m->pad = m->p.pool.pad.pad_h;
  } else {
    fh = m->filter.dims[1];
    dil = m->p.conv.dilation_h;
    m->stride = m->p.conv.stride_h;
    m->pad = m->p.conv.pad.pad_h;
    if (m->p.conv.scratch_bytes) m->scratch = it->sg[0].ops[k].ext;
    if (running && m->p.conv.scratch_bytes && !m->scratch)
      return rt_fail(it, AP_ERR_KERNEL, "op %u: scratch was not planned", k);
  }
  m->eff = (fh - 1) * dil + 1;
  m->in_h = m->in.dims[1];
  m->out_h = m->out.dims[1];
  return AP_OK;
}

/* Output rows [y0, y1) of member m. */
static ap_status eval_rows(member *m, int32_t y0, int32_t y1) {
  m->rows.r0 = y0;
  m->rows.r1 = y1;
  const ap_ktensor *bias = m->has_bias ? &m->bias : NULL;
  switch (m->kind) {
  case M_CONV:
    return ap_conv_eval_rows(&m->p.conv, &m->in, &m->filter, bias, &m->out, m->scratch, &m->rows);
  case M_DEPTHWISE:
    return ap_depthwise_eval_rows(&m->p.conv, &m->in, &m->filter, bias, &m->out, m->scratch,
                                  &m->rows);
  case M_ADD:
    for (int32_t y = y0; y < y1; y++) {
      ap_status s = eval_add_row(m, y);
      if (s != AP_OK) return s;
    }
    return AP_OK;
  case M_PAD: return ap_pad_eval_rows(&m->p.pad, &m->in, &m->out, &m->rows);
  default: return ap_pool_eval_rows(&m->p.pool, &m->in, &m->out, &m->rows);
  }
}

/* The input rows [lo, hi) member m's output row y reads. */
static int64_t window_lo(const member *m, int64_t y) {
  int64_t lo = y * m->stride - m->pad;
  return lo < 0 ? 0 : lo > m->in_h ? m->in_h : lo;
}
static int64_t window_hi(const member *m, int64_t y) {
  int64_t hi = y * m->stride - m->pad + m->eff;
  return hi < 0 ? 0 : hi > m->in_h ? m->in_h : hi;
}

/* Computes member i's output rows up to `upto`, pulling its input rows from member i - 1.
 * Rows go in batches, one kernel call each: as many as the input ring holds the windows of at
 * once (all, for the first member, whose input is whole). Writing a batch into the output
 * ring leaves its last rows there, which hold what the caller's window needs; and inputs are
 * only read earlier than one row at a time would (segment.c's overlap lead still holds). */
static ap_status pull(member *m, uint32_t i, int32_t upto) {
  while (m[i].done < upto) {
    int32_t y0 = m[i].done, y1 = upto;
    if (i > 0) {
      int64_t ring = m[i].rows.in_ring;
      while (y1 > y0 + 1 && window_hi(&m[i], y1 - 1) - window_lo(&m[i], y0) > ring)
        y1--;
      int64_t hi = window_hi(&m[i], y1 - 1);
      if (hi > 0) {
        ap_status s = pull(m, i - 1, (int32_t)hi);
        if (s != AP_OK) return s;
      }
    }
    ap_status s = eval_rows(&m[i], y0, y1);
    if (s != AP_OK) return s;
    m[i].done = y1;
  }
  return AP_OK;
}

ap_status rt_stream_run(ap_interpreter *it, uint32_t k, uint32_t count) {
  member m[AP_SEGMENT_MAX_OPS];
  if (count < 2 || count > AP_SEGMENT_MAX_OPS || k + (uint64_t)count > it->sg[0].op_count)
    return rt_fail(it, AP_ERR_KERNEL, "streamed segment at op %u: bad length %u", k, count);
  for (uint32_t i = 0; i < count; i++) {
    ap_status s = prepare(it, k + i, &m[i], true);
    if (s != AP_OK) return s;
    /* Rings between members; the segment's input and output are whole. */
    m[i].rows.in_ring = i > 0 ? (int32_t)it->segments[2 * (k + i - 1) + 1] : 0;
    m[i].rows.out_ring = i + 1 < count ? (int32_t)it->segments[2 * (k + i) + 1] : 0;
    if (i > 0 && m[i].in.data != m[i - 1].out.data)
      return rt_fail(it, AP_ERR_KERNEL, "streamed segment at op %u: ops %u and %u not chained", k,
                     k + i - 1, k + i);
  }
  ap_status s = pull(m, count - 1, m[count - 1].out_h);
  if (s != AP_OK)
    return rt_fail(it, s, "streamed segment at op %u: %s", k,
                   s == AP_ERR_UNSUPPORTED ? "a kernel refused rows" : ap_status_name(s));
  return AP_OK;
}

bool rt_stream_in(const ap_graph *g, uint32_t k) {
  for (size_t i = 0; i < ap_graph_segment_count(g); i++) {
    ap_segment s;
    if (ap_graph_segment(g, i, &s) == AP_OK && s.subgraph == 0 && k >= s.first_op &&
        k - s.first_op < s.op_count)
      return true;
  }
  return false;
}

bool rt_stream_member(const ap_interpreter *it, uint32_t k) {
  if (!it->segments) return false;
  for (uint32_t back = 0; back < AP_SEGMENT_MAX_OPS && back <= k; back++)
    if (it->segments[2 * (k - back)] > back) return true;
  return false;
}

ap_status rt_stream_scratch(ap_interpreter *it, uint32_t k, uint64_t *bytes) {
  member m;
  ap_status s = prepare(it, k, &m, false);
  if (s != AP_OK) return s;
  *bytes = m.kind == M_CONV || m.kind == M_DEPTHWISE ? m.p.conv.scratch_bytes : 0;
  return AP_OK;
}

bool ap_interpreter_streamed(const ap_interpreter *it) {
  return it && it->allocated && it->segments;
}
