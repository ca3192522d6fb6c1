/* Streamed segments at run time (graph.h, ap_graph_options.stream): a segment's ops run row by
 * row, each pulling from the op before it the input rows its next output row's window needs,
 * so every map between them lives in a ring of rows (row y at slot y % rows) that the plan
 * sized. The rows are computed by the fast kernels' row ranges (kernels/fast/rows.h) when the
 * interpreter runs fast kernels and they apply, else by the reference kernels' row-range entry
 * points (kernels/kops_stream.h), the same loops as a whole-tensor eval; both come from the
 * registration (kernels/stream_kernels.h), which may leave kinds out. Nothing is allocated
 * and little is on the stack: each member's state (its parameters, views and progress) heads
 * its scratch in the arena, planned with the segment. */
#include "arenaplan/options.h"
#include "kernels/fast/fastops.h"
#include "kernels/registry.h"
#include "kernels/stream_kernels.h"
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

enum { M_CONV = 1, M_DEPTHWISE, M_POOL, M_ADD, M_PAD, M_ELEM };

/* M_ELEM's second operand. */
enum { SIDE_NONE, SIDE_WHOLE, SIDE_CONSTANT };

/* The laid-out rows take no more of a member's state than the parameters they replace. */
_Static_assert(sizeof(ap_fast_block_rows) <= sizeof(ap_conv_params), "member state grows");

/* One member of the running segment. */
typedef struct member {
  struct member *prev; /* the member before it in the segment (NULL: first) */
  uint8_t kind;        /* M_* */
  bool fast;           /* its rows run on the fast kernels */
  bool win;            /* ... their direct kits (rows_win.c) */
  bool fdw;            /* ... the float depthwise kernel (rows_block.c) */
  bool u8;             /* ... the uint8 kernels (rows_block.c, rows_u8.c) */
  bool own;            /* its kits' `ws` is its own over the run (AP_FAST_WIN_OWN) */
  bool ready;          /* its rows run from p.blk, laid out at the run's start */
  uint8_t how;         /* AP_FAST_WIN_* for the kits, AP_FAST_PACK_* for uint8 CONV_2D */
  size_t keep, temp;   /* its kernel's scratch kept over the run, and used by one call */
  union {
    ap_conv_params conv;
    ap_pool_params pool;
    ap_binary_params bin;
    ap_pad_params pad;
    ap_fast_block_rows blk; /* `ready`: replaces the parameters it was laid out from */
  } p;
  /* The input is the member before's output; the first's heads the segment's workspace. */
  const ap_ktensor *in;
  ap_ktensor filter, out;  /* ADD: `filter` is the input read whole */
  const void *bias;        /* the kernels read only a bias's data */
  bool side_first;         /* ADD, M_ELEM: the whole or constant input is its input 0 */
  int side;                /* M_ELEM: SIDE_* */
  const ap_kernel *kernel; /* M_ELEM: the registry's, on row views; its params and options are
                            * kept in `scratch` */
  bool has_bias;
  void *scratch; /* `keep` bytes after the state */
  void *ws;      /* `temp` bytes: the segment's workspace, shared by its members */
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

/* A view of row `slot` of t (dims [1, 1, W, C]). */
static ap_ktensor row_view(const ap_ktensor *t, size_t slot) {
  ap_ktensor r = *t;
  r.dims[1] = 1;
  size_t row = (size_t)t->dims[2] * (size_t)t->dims[3] * ap_ktype_size(t->type);
  r.data = (uint8_t *)t->data + slot * row;
  return r;
}

/* ADD inside a segment: the chained input is the previous op's output (`in`, a ring), the
 * other is read whole; the kernel runs on one row of each. */
static ap_status prepare_add(ap_interpreter *it, uint32_t k, const ap_op_info *op,
                             const ap_op_options *o, member *m, ap_ktensor *in, void *keep) {
  (void)keep;
  if (op->inputs.n != 2 || op->outputs.n != 1 || op->inputs.v[0] < 0 || op->inputs.v[1] < 0 ||
      o->kind != AP_OPTIONS_ADD)
    return rt_fail(it, AP_ERR_KERNEL, "op %u: not streamable", k);
  ap_op_info prev;
  ap_status s = ap_model_op(it->model, 0, k - 1, &prev);
  if (s != AP_OK || prev.outputs.n < 1) return rt_fail(it, AP_ERR_KERNEL, "op %u: no chain", k);
  m->side_first = op->inputs.v[1] == prev.outputs.v[0];
  m->in = in;
  s = view(it, op->inputs.v[m->side_first ? 1 : 0], in);
  if (s == AP_OK) s = view(it, op->inputs.v[m->side_first ? 0 : 1], &m->filter);
  if (s == AP_OK) s = view(it, op->outputs.v[0], &m->out);
  if (s != AP_OK) return s;
  ap_ktensor a = row_view(in, 0), b = row_view(&m->filter, 0), out = row_view(&m->out, 0);
  ap_errbuf e = {{0}};
  const ap_kstream *K = ap_kernel_stream();
  if (!K->add_prepare || !K->add_eval)
    return rt_fail(it, AP_ERR_UNSUPPORTED, "op %u: no row kernel", k);
  s = m->side_first ? K->add_prepare(AP_KBIN_ADD, o->add.activation, &b, &a, &out, &m->p.bin, &e)
                    : K->add_prepare(AP_KBIN_ADD, o->add.activation, &a, &b, &out, &m->p.bin, &e);
  if (s != AP_OK) return rt_fail(it, s, "op %u: %s", k, e.msg);
  if (!ap_kshape_equal(in, &m->out) || !ap_kshape_equal(&m->filter, &m->out) || in->rank != 4)
    return rt_fail(it, AP_ERR_KERNEL, "op %u: ADD in a segment broadcasts", k);
  m->kind = M_ADD;
  m->eff = m->stride = 1;
  m->in_h = m->out_h = m->out.dims[1];
  return AP_OK;
}

/* M_ELEM's kept scratch: the kernel's params, then its options. */
static size_t elem_keep(void) {
  return ap_kscratch_round(AP_KPARAMS_SIZE) + ap_kscratch_round(sizeof(ap_kop_options));
}

/* An element-wise op in a segment (segment.c's rules): the registry's kernel prepared on one
 * row of each map (the chained input `in`, a skip read whole or a constant broadcasting along
 * rows, the output) and run row by row. keep: elem_keep() bytes for its params and options. */
static ap_status prepare_elem(ap_interpreter *it, uint32_t k, const ap_op_info *op,
                              const ap_op_options *o, member *m, ap_ktensor *in, void *keep) {
  const rt_op *ro = &it->sg[0].ops[k];
  if (rt_op_is_custom(ro) || !rt_op_builtin(ro) || op->outputs.n != 1 || op->inputs.n < 1 ||
      op->inputs.n > 2 || op->inputs.v[0] < 0 || (op->inputs.n == 2 && op->inputs.v[1] < 0))
    return rt_fail(it, AP_ERR_KERNEL, "op %u: not streamable", k);
  m->kernel = rt_op_builtin(ro);
  int32_t chained = op->inputs.v[0], other = -1;
  if (op->inputs.n == 2) {
    bool c0 = !rt_rec(it, 0, (size_t)op->inputs.v[0]), c1 = !rt_rec(it, 0, (size_t)op->inputs.v[1]);
    if (c0 != c1) {
      m->side = SIDE_CONSTANT;
      m->side_first = c0;
    } else {
      ap_op_info prev;
      if (k == 0 || ap_model_op(it->model, 0, k - 1, &prev) != AP_OK || prev.outputs.n < 1)
        return rt_fail(it, AP_ERR_KERNEL, "op %u: no chain", k);
      m->side = SIDE_WHOLE;
      m->side_first = op->inputs.v[1] == prev.outputs.v[0];
    }
    chained = op->inputs.v[m->side_first ? 1 : 0];
    other = op->inputs.v[m->side_first ? 0 : 1];
  }
  m->in = in;
  ap_status s = view(it, chained, in);
  if (s == AP_OK && other >= 0) s = view(it, other, &m->filter);
  if (s == AP_OK) s = view(it, op->outputs.v[0], &m->out);
  if (s != AP_OK) return s;
  if (in->rank != 4 || !ap_kshape_equal(in, &m->out) ||
      (m->side == SIDE_WHOLE && !ap_kshape_equal(&m->filter, &m->out)))
    return rt_fail(it, AP_ERR_KERNEL, "op %u: not element-wise on rows", k);
  ap_kop_options *ko = (ap_kop_options *)((uint8_t *)keep + ap_kscratch_round(AP_KPARAMS_SIZE));
  memset(ko, 0, sizeof *ko);
  if (o->kind == AP_OPTIONS_ADD) ko->activation = o->add.activation;
  if (o->kind == AP_OPTIONS_ACTIVATION) ko->activation = o->activation.activation;
  if (o->kind == AP_OPTIONS_LEAKY_RELU) ko->alpha = o->leaky_relu.alpha;
  ko->exec = rt_kexec(it);
  /* Kernels see no data of the maps while preparing (as the interpreter's prepare). */
  ap_ktensor a = row_view(in, 0), b = m->side == SIDE_WHOLE ? row_view(&m->filter, 0) : m->filter;
  ap_ktensor out = row_view(&m->out, 0);
  a.data = out.data = NULL;
  if (m->side == SIDE_WHOLE) b.data = NULL;
  const ap_ktensor *ins[2] = {m->side_first ? &b : &a, m->side_first ? &a : &b};
  ap_ktensor *outs[1] = {&out};
  ap_errbuf e = {{0}};
  ap_kctx c = {ins, other >= 0 ? 2 : 1, outs, 1, ko, keep, NULL, &e};
  size_t scratch = 0;
  s = m->kernel->prepare(&c, &scratch);
  if (s != AP_OK) return rt_fail(it, s, "op %u: %s", k, e.msg);
  if (ap_kernel_state(m->kernel, keep) || out.rank != 4 || out.dims[1] != 1 ||
      out.dims[2] != m->out.dims[2] || out.dims[3] != m->out.dims[3])
    return rt_fail(it, AP_ERR_KERNEL, "op %u: not element-wise on rows", k);
  m->kind = M_ELEM;
  m->keep = elem_keep();
  m->temp = scratch;
  m->eff = m->stride = 1;
  m->in_h = m->out_h = m->out.dims[1];
  return AP_OK;
}

/* Output row y of an M_ELEM member. */
static ap_status eval_elem_row(const ap_kexec *x, member *m, int32_t y) {
  (void)x;
  size_t in_slot = (size_t)(m->rows.in_ring ? y % m->rows.in_ring : y);
  size_t out_slot = (size_t)(m->rows.out_ring ? y % m->rows.out_ring : y);
  ap_ktensor a = row_view(m->in, in_slot), out = row_view(&m->out, out_slot);
  ap_ktensor b = m->side == SIDE_WHOLE ? row_view(&m->filter, (size_t)y) : m->filter;
  const ap_ktensor *ins[2] = {m->side_first ? &b : &a, m->side_first ? &a : &b};
  ap_ktensor *outs[1] = {&out};
  ap_errbuf e = {{0}};
  uint8_t *keep = m->scratch;
  ap_kctx c = {ins,
               m->side == SIDE_NONE ? 1 : 2,
               outs,
               1,
               (const ap_kop_options *)(keep + ap_kscratch_round(AP_KPARAMS_SIZE)),
               keep,
               m->temp ? m->ws : NULL,
               &e};
  return m->kernel->eval(&c);
}

static ap_status eval_add_row(const ap_kexec *x, member *m, int32_t y) {
  size_t in_slot = (size_t)(m->rows.in_ring ? y % m->rows.in_ring : y);
  size_t out_slot = (size_t)(m->rows.out_ring ? y % m->rows.out_ring : y);
  ap_ktensor a = row_view(m->in, in_slot), b = row_view(&m->filter, (size_t)y);
  ap_ktensor out = row_view(&m->out, out_slot);
  const ap_ktensor *l = m->side_first ? &b : &a, *r2 = m->side_first ? &a : &b;
  ap_status s;
  const ap_kstream *K = ap_kernel_stream();
  if (m->fast && ((K->add_fast && K->add_fast(x, &m->p.bin, l, r2, &out, &s)) ||
                  (K->fadd_fast && K->fadd_fast(x, &m->p.bin, l, r2, &out, &s))))
    return s;
  return K->add_eval(&m->p.bin, l, r2, &out);
}

/* Element-wise members and ADD with a skip, reached through the registration
 * (kernels/stream_kernels.h) so that a firmware without such ops does not link them. */
struct rt_stream_kind {
  ap_status (*prepare)(ap_interpreter *it, uint32_t k, const ap_op_info *op, const ap_op_options *o,
                       member *m, ap_ktensor *in, void *keep);
  ap_status (*row)(const ap_kexec *x, member *m, int32_t y);
};
const struct rt_stream_kind rt_stream_add = {prepare_add, eval_add_row};
const struct rt_stream_kind rt_stream_elem = {prepare_elem, eval_elem_row};

/* Which kernel runs member m's rows (its input a ring of in_ring rows, 0: whole), and the
 * scratch it needs. A reference kernel's scratch is all one call's. */
/* How the segment starting at op `first` uses the direct kits (RT_KITS_*). */
static uint8_t kits_mode(const ap_interpreter *it, uint32_t first) {
  if (!AP_KSTREAM_WIN || !rt_stream_kits(it)) return RT_KITS_NONE;
  return it->stream_lean ? it->stream_lean[first] & ~RT_KITS_MEMBER_ONCE : RT_KITS_ONCE;
}

/* Member k's: its segment's (first op `first`), or once where the search chose that for it. */
static uint8_t member_mode(const ap_interpreter *it, uint32_t first, uint32_t k) {
  if (AP_KSTREAM_WIN && rt_stream_kits(it) && it->stream_lean &&
      (it->stream_lean[k] & RT_KITS_MEMBER_ONCE))
    return RT_KITS_ONCE;
  return kits_mode(it, first);
}

/* mode: the segment's kits_mode. Kernels come from the registration (kernels/stream_kernels.h):
 * a NULL entry is a kind the firmware does not link. */
static ap_status choose(ap_interpreter *it, uint32_t k, member *m, int32_t in_ring, uint8_t mode) {
  const ap_kexec *x = rt_kexec(it);
  if (m->kind == M_ELEM) return AP_OK; /* prepare_elem sized it */
  const ap_kstream *K = ap_kernel_stream();
  m->fast = m->win = m->fdw = m->u8 = false;
  m->keep = m->temp = 0;
  bool conv = m->kind == M_CONV, dw = m->kind == M_DEPTHWISE;
  (void)mode; /* the kits' alone */
#if AP_KSTREAM_WIN
  m->how = (uint8_t)((dw ? AP_FAST_WIN_DW : 0u) | (mode == RT_KITS_EACH ? AP_FAST_WIN_EACH : 0u) |
                     (mode == RT_KITS_SMALL || mode == RT_KITS_DW ? AP_FAST_WIN_BUDGET : 0u));
  if (K->win_scratch && mode != RT_KITS_NONE && ((conv && mode != RT_KITS_DW) || dw) &&
      K->win_scratch(x, &m->p.conv, m->in, &m->filter, m->how, &m->keep, &m->temp)) {
    m->fast = m->win = true;
    return AP_OK;
  }
#endif
  ap_kstream_fast_scratch fs = conv ? K->conv_fast_scratch : dw ? K->dw_fast_scratch : NULL;
  if (fs) m->fast = fs(x, &m->p.conv, m->in, &m->filter, in_ring, &m->keep, &m->temp);
#if AP_KSTREAM_BLOCK
  if (!m->fast && conv && K->u8conv_scratch) {
    /* The kits' search decides how its weights are packed, as a direct kit's. */
    m->how = mode == RT_KITS_ONCE    ? AP_FAST_PACK_ONCE
             : mode == RT_KITS_EACH  ? AP_FAST_PACK_EACH
             : mode == RT_KITS_SMALL ? AP_FAST_PACK_ONCE | AP_FAST_PACK_BUDGET
                                     : 0;
    m->fast = m->u8 =
        K->u8conv_scratch(x, &m->p.conv, m->in, &m->filter, m->how, &m->keep, &m->temp);
  }
  if (!m->fast && dw && K->fdw_scratch)
    m->fast = m->fdw = K->fdw_scratch(x, &m->p.conv, m->in, &m->filter, in_ring, &m->temp);
  if (!m->fast && dw && K->u8dw_scratch)
    m->fast = m->u8 = K->u8dw_scratch(x, &m->p.conv, m->in, &m->filter, in_ring, &m->temp);
  if (m->kind == M_POOL && K->pool_fast_scratch)
    m->fast = K->pool_fast_scratch(x, &m->p.pool, m->in, in_ring, &m->temp);
#endif
  if (m->kind == M_ADD)
    m->fast = x != NULL; /* the fast ADD needs no scratch and falls back by itself */
  if (!m->fast && (conv || dw)) {
    m->temp = m->p.conv.scratch_bytes;
    if (!(conv ? K->conv_rows : K->dw_rows))
      return rt_fail(it, AP_ERR_UNSUPPORTED,
                     "op %u: the fast row kernels do not cover it and the registration links no "
                     "reference rows",
                     k);
  }
  return AP_OK;
}

/* A member's state heads its scratch, then what its kernel keeps; the first member's then
 * holds the segment input's view and the segment's workspace. */
static size_t state_bytes(void) {
  return ap_kscratch_round(sizeof(member));
}

/* The member before's output, whose view the next member's input takes as it is. */
typedef struct chain {
  int32_t t; /* its tensor (-1: none) */
  const ap_ktensor *view;
} chain;

/* Fills *m for op k (its kernel's parameters and tensor views); *out_t: its output tensor. */
static ap_status prepare(ap_interpreter *it, uint32_t k, member *m, ap_ktensor *in, void *keep,
                         const chain *c, int32_t *out_t) {
  ap_op_info op;
  ap_op_options o;
  ap_status s = ap_model_op(it->model, 0, k, &op);
  if (s == AP_OK) {
    s = ap_model_op_options(it->model, 0, k, &o);
    if (s == AP_ERR_UNSUPPORTED) { /* an op without options */
      memset(&o, 0, sizeof o);
      s = AP_OK;
    }
  }
  if (s != AP_OK) return rt_fail(it, s, "%s", ap_model_error(it->model));
  memset(m, 0, sizeof *m);
  *out_t = op.outputs.n > 0 ? op.outputs.v[0] : -1;
  bool skip = op.inputs.n == 2 && op.inputs.v[0] >= 0 && op.inputs.v[1] >= 0 &&
              rt_rec(it, 0, (size_t)op.inputs.v[0]) && rt_rec(it, 0, (size_t)op.inputs.v[1]);
  const ap_kstream *K = ap_kernel_stream();
  if ((op.builtin == 0 && skip) || (op.builtin != 1 && op.builtin != 3 && op.builtin != 4 &&
                                    op.builtin != 17 && op.builtin != 34 && op.builtin != 60)) {
    const struct rt_stream_kind *sk = op.builtin == 0 && skip ? K->add_member : K->elem_member;
    if (!sk) return rt_fail(it, AP_ERR_UNSUPPORTED, "op %u: no row kernel", k);
    return sk->prepare(it, k, &op, &o, m, in, keep);
  }
  if (op.inputs.n < 1 || op.outputs.n != 1)
    return rt_fail(it, AP_ERR_KERNEL, "op %u: not streamable", k);
  ap_ktensor bias;
  m->in = in;
  /* (host builds only: a board's flash is worth more than the microseconds) */
  if (AP_KSTREAM_WIN && c && c->t >= 0 && op.inputs.v[0] == c->t)
    *in = *c->view; /* the same tensor's: its view read from the model again would be equal */
  else
    s = view(it, op.inputs.v[0], in);
  if (s == AP_OK) s = view(it, op.outputs.v[0], &m->out);
  if (s == AP_OK && (op.builtin == 34 || op.builtin == 60)) {
    if (op.inputs.n < 2 || op.inputs.v[1] < 0)
      return rt_fail(it, AP_ERR_FORMAT, "op %u: paddings are missing", k);
    s = view(it, op.inputs.v[1], &m->filter);
    m->has_bias = op.inputs.n > 2 && op.inputs.v[2] >= 0;
    if (s == AP_OK && m->has_bias) s = view(it, op.inputs.v[2], &bias);
    if (s != AP_OK) return s;
    ap_errbuf e = {{0}};
    ap_ktensor out = m->out;
    if (!K->pad_prepare) return rt_fail(it, AP_ERR_UNSUPPORTED, "op %u: no row kernel", k);
    s = K->pad_prepare(in, &m->filter, m->has_bias ? &bias : NULL, &out, &m->p.pad, &e);
    if (s != AP_OK) return rt_fail(it, s, "op %u: %s", k, e.msg);
    if (!ap_kshape_equal(&out, &m->out) || in->rank != 4)
      return rt_fail(it, AP_ERR_KERNEL, "op %u: output shape differs from the planned one", k);
    m->kind = M_PAD;
    m->eff = m->stride = 1;
    m->pad = m->p.pad.before[1];
    m->in_h = in->dims[1];
    m->out_h = m->out.dims[1];
    return AP_OK;
  }
  if (s == AP_OK && op.builtin != 1 && op.builtin != 17) {
    if (op.inputs.n < 2 || op.inputs.v[1] < 0)
      return rt_fail(it, AP_ERR_FORMAT, "op %u: filter is missing", k);
    s = view(it, op.inputs.v[1], &m->filter);
    m->has_bias = op.inputs.n > 2 && op.inputs.v[2] >= 0;
    if (s == AP_OK && m->has_bias) s = view(it, op.inputs.v[2], &bias);
  }
  if (s != AP_OK) return s;
  ap_errbuf e = {{0}};
  ap_ktensor out = m->out;
  int32_t fh = 0, dil = 1;
  if (op.builtin == 3 && o.kind == AP_OPTIONS_CONV2D && K->conv_prepare) {
    ap_conv_options co = {o.conv2d.padding,
                          o.conv2d.stride_w,
                          o.conv2d.stride_h,
                          o.conv2d.dilation_w_factor,
                          o.conv2d.dilation_h_factor,
                          o.conv2d.activation,
                          0,
                          o.conv2d.quantized_bias_type};
    m->kind = M_CONV;
    s = K->conv_prepare(&co, in, &m->filter, m->has_bias ? &bias : NULL, &out, &m->p.conv, &e);
  } else if (op.builtin == 4 && o.kind == AP_OPTIONS_DEPTHWISE_CONV2D && K->dw_prepare) {
    ap_conv_options co = {
        o.depthwise_conv2d.padding,           o.depthwise_conv2d.stride_w,
        o.depthwise_conv2d.stride_h,          o.depthwise_conv2d.dilation_w_factor,
        o.depthwise_conv2d.dilation_h_factor, o.depthwise_conv2d.activation,
        o.depthwise_conv2d.depth_multiplier,  0};
    m->kind = M_DEPTHWISE;
    s = K->dw_prepare(&co, in, &m->filter, m->has_bias ? &bias : NULL, &out, &m->p.conv, &e);
  } else if ((op.builtin == 1 || op.builtin == 17) && o.kind == AP_OPTIONS_POOL2D &&
             K->pool_prepare) {
    ap_pool_options po = {o.pool2d.padding,      o.pool2d.stride_w,      o.pool2d.stride_h,
                          o.pool2d.filter_width, o.pool2d.filter_height, o.pool2d.activation};
    m->kind = M_POOL;
    s = K->pool_prepare(op.builtin == 1 ? AP_KPOOL_AVERAGE : AP_KPOOL_MAX, &po, in, &out,
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
  }
  m->bias = m->has_bias ? bias.data : NULL;
  m->eff = (fh - 1) * dil + 1;
  m->in_h = in->dims[1];
  m->out_h = m->out.dims[1];
  return AP_OK;
}

/* Output rows [y0, y1) of member m. */
static ap_status eval_rows(const ap_kexec *x, member *m, int32_t y0, int32_t y1) {
  m->rows.r0 = y0;
  m->rows.r1 = y1;
  const ap_kstream *K = ap_kernel_stream();
  ap_status s;
#if AP_KSTREAM_BLOCK
  if (m->ready) return K->block_run(&m->p.blk, m->ws, &m->rows);
#endif
#if AP_KSTREAM_WIN
  if (m->win)
    return K->win_rows(&m->p.conv, m->in, &m->filter, &m->out, m->scratch, m->ws, &m->rows, &s)
               ? s
               : AP_ERR_KERNEL;
#endif
  switch (m->kind) {
  case M_CONV:
  case M_DEPTHWISE: {
    bool conv = m->kind == M_CONV;
    ap_ktensor bt = {.data = (void *)m->bias}; /* the kernels read only a bias's data */
    const ap_ktensor *bias = m->bias ? &bt : NULL;
#if AP_KSTREAM_BLOCK
    if (m->u8 && conv)
      return K->u8conv_rows(x, &m->p.conv, m->in, &m->filter, bias, &m->out, m->how, m->scratch,
                            m->ws, &m->rows);
    if (m->u8 || m->fdw)
      return (m->fdw ? K->fdw_rows : K->u8dw_rows)(x, &m->p.conv, m->in, &m->filter, bias, &m->out,
                                                   m->ws, &m->rows);
#endif
    if (m->fast)
      return (conv ? K->conv_fast_rows : K->dw_fast_rows)(x, &m->p.conv, m->in, &m->filter, bias,
                                                          &m->out, m->scratch, m->ws, &m->rows);
    return (conv ? K->conv_rows : K->dw_rows)(&m->p.conv, m->in, &m->filter, bias, &m->out, m->ws,
                                              &m->rows);
  }
  case M_ADD:
  case M_ELEM: {
    ap_status (*row)(const ap_kexec *, member *, int32_t) =
        (m->kind == M_ADD ? K->add_member : K->elem_member)->row;
    for (int32_t y = y0; y < y1; y++)
      if ((s = row(x, m, y)) != AP_OK) return s;
    return AP_OK;
  }
  case M_PAD: return K->pad_rows(&m->p.pad, m->in, &m->out, &m->rows);
  default:
    /* A level's kernel refusing its parameters leaves the rows to the reference's. */
#if AP_KSTREAM_BLOCK
    if (m->fast &&
        (s = K->pool_fast_rows(x, &m->p.pool, m->in, &m->out, m->ws, &m->rows)) != AP_ERR_KERNEL)
      return s;
#endif
    return K->pool_rows(&m->p.pool, m->in, &m->out, &m->rows);
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

/* The end of the batch of output rows from y0 (at most upto): the most whose input windows the
 * input ring holds at once, at least one. The windows' ends grow with y, so the last row that
 * fits follows from the unclamped end (where the clamped one is below the limit, so is upto's;
 * computed, not searched row by row: segments of short rows make many calls). */
static int32_t batch_end(const member *m, int32_t y0, int32_t upto) {
  int64_t limit = window_lo(m, y0) + m->rows.in_ring;
  if (window_hi(m, upto - 1) <= limit) return upto;
  if (m->stride <= 0) return y0 + 1;
  int64_t num = limit + m->pad - m->eff; /* y * stride <= num: the window ends by the limit */
  int64_t y1 = num < 0 ? 0 : (m->stride == 1 ? num : num / m->stride) + 1;
  return y1 <= y0 ? y0 + 1 : y1 >= upto ? upto : (int32_t)y1;
}

/* Computes member m's output rows up to `upto`, pulling its input rows from the member before.
 * Rows go in batches, one kernel call each: as many as the input ring holds the windows of at
 * once (all, for the first member, whose input is whole). Writing a batch into the output
 * ring leaves its last rows there, which hold what the caller's window needs; and inputs are
 * only read earlier than one row at a time would (segment.c's overlap lead still holds). */
static ap_status pull(const ap_kexec *x, member *m, int32_t upto) {
  while (m->done < upto) {
    int32_t y0 = m->done, y1 = upto;
    if (m->prev) {
      y1 = batch_end(m, y0, upto);
      int64_t hi = window_hi(m, y1 - 1);
      if (hi > 0) {
        ap_status s = pull(x, m->prev, (int32_t)hi);
        if (s != AP_OK) return s;
      }
    }
    ap_status s = eval_rows(x, m, y0, y1);
    if (s != AP_OK) return s;
    m->done = y1;
  }
  return AP_OK;
}

/* The rows of op k's input ring (0: whole): from g while planning, else the interpreter's. */
static int32_t input_ring(const ap_interpreter *it, const ap_graph *g, uint32_t k,
                          const ap_op_info *op) {
  if (g) {
    int32_t t = op->inputs.n > 0 ? op->inputs.v[0] : -1;
    /* ADD: the chained input may be either; only one of them is a ring. */
    uint32_t r = t >= 0 ? ap_graph_ring_rows(g, it->sg[0].tensor_base + (uint64_t)t) : 0;
    if (!r && op->inputs.n > 1 && op->inputs.v[1] >= 0)
      r = ap_graph_ring_rows(g, it->sg[0].tensor_base + (uint64_t)op->inputs.v[1]);
    return (int32_t)r;
  }
  return it->segments && k > 0 && it->segments[2 * k] == 0 ? (int32_t)it->segments[2 * k - 1] : 0;
}

#if AP_KSTREAM_WIN
/* A segment run's stack for direct kits the arena had no room for (x86-64 builds only). */
enum { STACK_KITS = 16384 };

/* Whether member m's calls have fewer than 8 pixels (rows of its input ring: whole, or one a
 * call at least). */
static bool narrow(const member *m) {
  int32_t rows = m->rows.in_ring > 1 ? m->rows.in_ring : 1;
  return m->out.rank != 4 || (int64_t)m->out.dims[2] * rows < 8;
}

/* An int8 convolution or depthwise member left off the direct kits by the arena (reading its
 * weights in place, or the depthwise rows), or on them packing its weights at each call (the
 * arena had no room to keep them), may run the kit with its weights packed once per segment
 * run on the stack: the packing is paid once per run, not at each call, and the arena is
 * unchanged. Its kept and call scratch bytes, or false. */
static bool stack_kit(const ap_interpreter *it, const member *m, size_t *keep, size_t *temp) {
  const ap_kstream *K = ap_kernel_stream();
  /* A convolution's calls of fewer than 8 pixels (mlperf_kws_dscnn_int8's 5-pixel rows one by
   * one) ran slower on the kit, packing included, than on the in-place product's 8-pixel
   * tiles; its depthwise members ran faster. */
  bool dw = m->kind == M_DEPTHWISE;
  bool each = m->win && (m->how & (AP_FAST_WIN_EACH | AP_FAST_WIN_BUDGET));
  if (!rt_stream_kits(it) || !m->fast || (m->win && !each) || m->u8 || m->fdw ||
      (m->kind != M_CONV && !dw) || m->out.rank != 4 || (!dw && narrow(m)) || !K->win_scratch ||
      !K->win_scratch(rt_kexec(it), &m->p.conv, m->in, &m->filter, dw ? AP_FAST_WIN_DW : 0u, keep,
                      temp))
    return false;
  *keep = ap_kscratch_round(*keep);
  *temp = ap_kscratch_round(*temp);
  return true;
}

/* Whether the ring into member m (from the member before) may move: the arena kept it to fewer
 * rows than its map, and m's scratch does not depend on its rows (the kits', the int8
 * convolution's: the planned bytes hold). */
static bool ring_movable(const member *m) {
  const member *p = m->prev;
  return p && m->rows.in_ring > 0 && m->rows.in_ring == p->rows.out_ring && p->out.rank == 4 &&
         m->in == &p->out && p->out.dims[1] > m->rows.in_ring &&
         (m->win ||
          (m->kind == M_CONV && m->fast && !m->u8 && !m->fdw && m->p.conv.kind == AP_KCONV_INT8));
}

/* The ring into member m moved onto `stack` with as many rows as fit `room` (up to its whole
 * map; at least twice its rows, else it stays): m's calls then take many rows at once
 * (mlperf_kws_dscnn_int8's first segment, at the arena's peak, had one 5-pixel row a call) and
 * a window's input rows are converted once for more output rows. A larger ring is always valid,
 * as one grown in the plan: pull's batches keep within it. */
static void stack_ring(member *m, uint8_t *stack, size_t room, size_t *used) {
  member *p = m->prev;
  size_t row = (size_t)p->out.dims[2] * (size_t)p->out.dims[3] * ap_ktype_size(p->out.type);
  if (row == 0 || room / row < 2 * (size_t)m->rows.in_ring) return;
  int32_t rows = room / row >= (size_t)p->out.dims[1] ? p->out.dims[1] : (int32_t)(room / row);
  p->out.data = stack + *used;
  p->rows.out_ring = m->rows.in_ring = rows;
  *used += ap_kscratch_round((size_t)rows * row);
}

/* A segment run's stack: first the rings into convolutions of narrow rows (their calls are
 * too short for the kits otherwise), then the kits above (their kept parts, and one call
 * scratch they share: calls do not overlap, as the members' shared workspace in the arena),
 * from the last member back while they fit; then the other rings that may move. The rings
 * take at most RING_STACK bytes, shared equally. */
enum { RING_STACK = 8192 };

static bool ring_turn(const member *m, const uint8_t *stack, bool first) {
  if (!ring_movable(m)) return false;
  const uint8_t *d = m->prev->out.data;
  if (d >= stack && d < stack + STACK_KITS) return false; /* moved already */
  return !first || (m->kind == M_CONV && narrow(m));
}

static void stack_rings(member *last, uint8_t *stack, size_t *used, size_t *left, bool first) {
  size_t rings = 0;
  for (member *m = last; m; m = m->prev)
    rings += ring_turn(m, stack, first);
  size_t room = STACK_KITS - *used < *left ? STACK_KITS - *used : *left;
  for (member *m = last; m && rings; m = m->prev)
    if (ring_turn(m, stack, first)) {
      size_t before = *used, share = room / rings--;
      stack_ring(m, stack, share / AP_KSCRATCH_ALIGN * AP_KSCRATCH_ALIGN, used);
      room -= *used - before;
      *left -= *used - before;
    }
}

static void stack_plan(const ap_interpreter *it, member *last, uint8_t *stack, size_t *used) {
  size_t left = RING_STACK;
  stack_rings(last, stack, used, &left, true);
  member *kit[AP_SEGMENT_MAX_OPS];
  size_t kept[AP_SEGMENT_MAX_OPS], calls[AP_SEGMENT_MAX_OPS], n = 0, sum = 0, temp = 0;
  for (member *m = last; m && n < AP_SEGMENT_MAX_OPS; m = m->prev) {
    size_t k, t;
    if (!stack_kit(it, m, &k, &t)) continue;
    size_t most = t < temp ? temp : t;
    if (k > STACK_KITS - *used - sum || most > STACK_KITS - *used - sum - k) continue;
    kit[n] = m;
    calls[n] = t;
    kept[n++] = k;
    sum += k;
    temp = most;
  }
  uint8_t *ws = stack + *used;
  *used += n ? temp : 0;
  for (size_t i = 0; i < n; i++) {
    kit[i]->win = true;
    kit[i]->how = kit[i]->kind == M_DEPTHWISE ? AP_FAST_WIN_DW : 0u; /* packed once, kept */
    kit[i]->scratch = stack + *used;
    kit[i]->ws = ws;
    kit[i]->temp = calls[i]; /* the kit's call scratch: own_window may give it its own */
    *used += kept[i];
  }
  stack_rings(last, stack, used, &left, false);
}

/* A member on the direct kits whose call scratch is the segment's shared workspace gets its own
 * on the stack where it fits: its window rows then outlive a call (each input row converted
 * once, not once per output row reading it), and weights packed at each call are packed once. */
static void own_window(member *m, uint8_t *stack, size_t *used) {
  size_t temp = ap_kscratch_round(m->temp) + AP_FAST_WIN_OWN_BYTES;
  if (!m->win || m->own || temp > STACK_KITS - *used) return;
  m->own = true;
  m->ws = stack + *used;
  *used += temp;
}
#endif

#if AP_KSTREAM_BLOCK
/* A float convolution, float depthwise or pool member on the fast rows gets them laid out once
 * for the run (rows.h): a segment calls it for a row or two at a time. */
static void ready(const ap_interpreter *it, member *m, const ap_ktensor *bias) {
  const ap_kstream *K = ap_kernel_stream();
  const ap_kexec *x = rt_kexec(it);
  ap_fast_block_rows b;
  bool ok = false;
  if (!m->fast || m->win || m->u8 || !K->block_run) return;
  if (m->kind == M_CONV && K->fconv_ready)
    ok = K->fconv_ready(x, &m->p.conv, m->in, &m->filter, bias, &m->out, m->scratch, &m->rows, &b);
  else if (m->kind == M_DEPTHWISE && m->fdw && K->fdw_ready)
    ok = K->fdw_ready(x, &m->p.conv, m->in, &m->filter, bias, &m->out, &m->rows, &b);
  else if (m->kind == M_POOL && K->pool_ready)
    ok = K->pool_ready(x, &m->p.pool, m->in, &m->out, &m->rows, &b);
  if (!ok) return;
  m->p.blk = b;
  m->ready = true;
}
#endif

/* Bytes of the segment input's view, after the first member's kept scratch. */
static size_t input_view_bytes(void) {
  return ap_kscratch_round(sizeof(ap_ktensor));
}

ap_status rt_stream_run(ap_interpreter *it, uint32_t k, uint32_t count) {
  if (count < 2 || count > AP_SEGMENT_MAX_OPS || k + (uint64_t)count > it->sg[0].op_count)
    return rt_fail(it, AP_ERR_KERNEL, "streamed segment at op %u: bad length %u", k, count);
  const ap_kexec *x = rt_kexec(it);
  member *prev = NULL;
  int32_t prev_t = -1;
  size_t temp = 0;
  ap_ktensor *input = NULL;
  for (uint32_t i = 0; i < count; i++) {
    member *m = it->sg[0].ops[k + i].ext;
    if (!m) return rt_fail(it, AP_ERR_KERNEL, "op %u: segment state was not planned", k + i);
    ap_ktensor in;
    chain c = {prev_t, prev ? &prev->out : NULL};
    ap_status s = prepare(it, k + i, m, &in, (uint8_t *)m + state_bytes(),
                          AP_KSTREAM_WIN ? &c : NULL, &prev_t);
    if (s != AP_OK) return s;
    m->prev = prev;
    /* Rings between members; the segment's input and output are whole. */
    m->rows.in_ring = i > 0 ? (int32_t)it->segments[2 * (k + i - 1) + 1] : 0;
    m->rows.out_ring = i + 1 < count ? (int32_t)it->segments[2 * (k + i) + 1] : 0;
    if ((s = choose(it, k + i, m, m->rows.in_ring, member_mode(it, k, k + i))) != AP_OK) return s;
    m->scratch = (uint8_t *)m + state_bytes();
    if (m->temp > temp) temp = m->temp;
    if (prev) {
      if (in.data != prev->out.data)
        return rt_fail(it, AP_ERR_KERNEL, "streamed segment at op %u: ops %u and %u not chained", k,
                       k + i - 1, k + i);
      m->in = &prev->out; /* the same tensor's view */
    } else {
      input = (ap_ktensor *)((uint8_t *)m->scratch + ap_kscratch_round(m->keep));
      *input = in;
      m->in = input;
    }
    prev = m;
  }
  /* The workspace follows the segment input's view (the plan sized it as here). */
  void *ws = temp ? (uint8_t *)input + input_view_bytes() : NULL;
  const ap_kstream *K = ap_kernel_stream();
#if AP_KSTREAM_WIN
  _Alignas(64) uint8_t stack[STACK_KITS];
  size_t used = 0;
#endif
  for (member *m = prev; m; m = m->prev)
    m->ws = ws;
#if AP_KSTREAM_WIN
  stack_plan(it, prev, stack, &used);
#endif
#if AP_KSTREAM_WIN
  for (member *m = prev; m; m = m->prev)
    own_window(m, stack, &used);
#endif
  for (member *m = prev; m; m = m->prev) {
    ap_ktensor bt = {.data = (void *)m->bias};
    const ap_ktensor *bias = m->bias ? &bt : NULL;
    ap_status s = AP_OK;
    if (m->win) { /* never set where the build has no kits */
#if AP_KSTREAM_WIN
      s = K->win_begin(x, &m->p.conv, m->in, &m->filter, bias,
                       m->how | (m->own ? AP_FAST_WIN_OWN : 0u), m->scratch, m->ws);
#endif
    }
#if AP_KSTREAM_BLOCK
    else if (m->u8 && m->kind == M_CONV)
      s = K->u8conv_begin(x, &m->p.conv, m->in, &m->filter, m->how, m->scratch);
#endif
    else if (m->fast && m->kind == M_CONV && !m->u8)
      s = K->conv_fast_begin(x, &m->p.conv, m->in, &m->filter, bias, m->rows.in_ring, m->scratch);
    else if (m->fast && m->kind == M_DEPTHWISE && !m->fdw && !m->u8)
      s = K->dw_fast_begin(x, &m->p.conv, m->in, &m->filter, m->rows.in_ring, m->scratch);
    if (s != AP_OK) return rt_fail(it, s, "streamed segment at op %u: %s", k, ap_status_name(s));
#if AP_KSTREAM_BLOCK
    ready(it, m, bias);
#endif
  }
  ap_status s = pull(x, prev, prev->out_h);
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

/* The segment op k is in: its first op and length (count 0: none), from g or the
 * interpreter's table. */
static void segment_of(const ap_interpreter *it, const ap_graph *g, uint32_t k, uint32_t *first,
                       uint32_t *count) {
  *first = *count = 0;
  if (g) {
    for (size_t i = 0; i < ap_graph_segment_count(g); i++) {
      ap_segment s;
      if (ap_graph_segment(g, i, &s) == AP_OK && s.subgraph == 0 && k >= s.first_op &&
          k - s.first_op < s.op_count) {
        *first = s.first_op;
        *count = s.op_count;
      }
    }
    return;
  }
  for (uint32_t back = 0; it->segments && back < AP_SEGMENT_MAX_OPS && back <= k; back++)
    if (it->segments[2 * (k - back)] > back) {
      *first = k - back;
      *count = it->segments[2 * (k - back)];
      return;
    }
}

/* Member op k's state and kernel scratch (ring sizes from g, or the interpreter's). */
static ap_status member_scratch(ap_interpreter *it, const ap_graph *g, uint32_t k, member *m,
                                ap_ktensor *in) {
  union {
    uint8_t bytes[AP_KPARAMS_SIZE + sizeof(ap_kop_options) + 2 * AP_KSCRATCH_ALIGN];
    max_align_t align;
  } keep;
  int32_t out_t;
  ap_status s = prepare(it, k, m, in, keep.bytes, NULL, &out_t);
  if (s != AP_OK) return s;
  ap_op_info op;
  if ((s = ap_model_op(it->model, 0, k, &op)) != AP_OK)
    return rt_fail(it, s, "%s", ap_model_error(it->model));
  uint8_t mode = RT_KITS_NONE;
  if (AP_KSTREAM_WIN) {
    uint32_t first, count;
    segment_of(it, g, k, &first, &count);
    if (count) mode = member_mode(it, first, k);
  }
  return choose(it, k, m, input_ring(it, g, k, &op), mode);
}

bool rt_stream_kits(const ap_interpreter *it) {
  /* Only the x86-64 levels have direct kits: a board links neither the search nor its
   * fallback. */
  if (!AP_KSTREAM_WIN) return false;
  const ap_kexec *x = rt_kexec(it);
  /* Not for AP_KERNELS_SMALL: their packed weights are what it bounds. The uint8 convolution's
   * packed product (rows_u8.c) is chosen the same way. */
  return x && x->level && !x->small_extra &&
         (x->level->conv || x->level->dwin ||
          (AP_KSTREAM_BLOCK && x->level->outer && x->level->ops && x->level->ops->u8gemm_packed));
}

bool rt_stream_lean_retry(ap_interpreter *it, uint32_t k) {
  if (!AP_KSTREAM_WIN) return false;
  uint32_t first, count, ops = it->sg[0].op_count;
  segment_of(it, NULL, k, &first, &count);
  if (!count || !rt_stream_kits(it)) return false;
  if (!it->stream_lean) {
    if (!(it->stream_lean = rt_tables_alloc(it, ops ? ops : 1))) return false;
    memset(it->stream_lean, 0, ops);
  }
  /* The plan's search's order (runtime/place.c). */
  for (uint32_t j = first; j < first + count; j++) /* back to the segment's modes */
    if (it->stream_lean[j] & RT_KITS_MEMBER_ONCE) {
      it->stream_lean[j] &= (uint8_t)~RT_KITS_MEMBER_ONCE;
      return true;
    }
  if (it->stream_lean[first] == RT_KITS_NONE) return false;
  static const uint8_t next[] = {[RT_KITS_ONCE] = RT_KITS_EACH,
                                 [RT_KITS_EACH] = RT_KITS_SMALL,
                                 [RT_KITS_SMALL] = RT_KITS_DW,
                                 [RT_KITS_DW] = RT_KITS_NONE};
  it->stream_lean[first] = next[it->stream_lean[first]];
  return true;
}

ap_status rt_stream_scratch(ap_interpreter *it, const ap_graph *g, uint32_t k, uint64_t *bytes) {
  member m;
  ap_ktensor in;
  ap_status s = member_scratch(it, g, k, &m, &in);
  if (s != AP_OK) return s;
  uint64_t b = state_bytes() + ap_kscratch_round(m.keep);
  uint32_t first, count;
  segment_of(it, g, k, &first, &count);
  if (count && first == k) {
    size_t temp = 0;
    for (uint32_t i = 0; i < count; i++) {
      if (i > 0 && (s = member_scratch(it, g, k + i, &m, &in)) != AP_OK) return s;
      if (m.temp > temp) temp = m.temp;
    }
    b += input_view_bytes() + ap_kscratch_round(temp);
  }
  *bytes = b;
  return AP_OK;
}

bool ap_interpreter_streamed(const ap_interpreter *it) {
  return it && it->allocated && it->segments;
}
