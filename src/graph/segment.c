/* Streamed segments (graph.h, ap_graph_options.stream): which runs of subgraph 0's ops run row
 * by row, the ring each map between them becomes, and the lifetimes that follow. */
#include "arenaplan/options.h"
#include "graph_internal.h"

#include <string.h>

/* Longest segment considered: bounds the search and the runtime's stack. */
#define SEG_MAX_OPS AP_SEGMENT_MAX_OPS
/* Tallest map streamed: the ring and lead computations walk every row (a hostile shape of 2^30
 * rows would take seconds). */
#define SEG_MAX_ROWS 65536

typedef struct member {
  bool ok;                 /* may be in a segment */
  int32_t fh, stride, dil; /* its window */
  int32_t in, out;         /* input 0 and output 0 (subgraph 0 indices) */
  int32_t side; /* ADD, SUB, MUL: the input read whole or constant (-1: none); `in` is chained */
  int64_t top;  /* PAD: rows added on top (-1: TFLite's padding from the window) */
  int64_t in_h, out_h;      /* map heights */
  uint64_t in_row, out_row; /* bytes of one row of each */
} member;

typedef struct cost {
  uint64_t peak, sum;
} cost;

static bool better(cost a, cost b) {
  return a.peak < b.peak || (a.peak == b.peak && a.sum < b.sum);
}

static bool constant_or_absent(const ap_graph *g, int32_t t) {
  return t < 0 || g->life[g->tensor_base[0] + (size_t)t].kind == AP_KIND_CONSTANT;
}

static bool data_kind(ap_tensor_kind k) {
  return k == AP_KIND_INTERMEDIATE || k == AP_KIND_INPUT || k == AP_KIND_OUTPUT;
}

/* Element-wise ops of one input that keep the map's shape (the type may change): row y of
 * the output is row y of the input. */
static bool unary_elementwise(int32_t builtin) {
  switch (builtin) {
  case 6:   /* DEQUANTIZE */
  case 14:  /* LOGISTIC */
  case 19:  /* RELU */
  case 20:  /* RELU_N1_TO_1 */
  case 21:  /* RELU6 */
  case 28:  /* TANH */
  case 53:  /* CAST */
  case 98:  /* LEAKY_RELU */
  case 114: /* QUANTIZE */
  case 117: /* HARD_SWISH */ return true;
  default: return false;
  }
}

/* A constant that broadcasts along the rows of an NHWC map: every output row reads all of it
 * (rank below 3, or rows and batch of 1). */
static bool row_broadcast(const ap_graph *g, int32_t t) {
  ap_tensor_info ti;
  if (!constant_or_absent(g, t) || t < 0 || ap_model_tensor(g->model, 0, (size_t)t, &ti) != AP_OK)
    return false;
  if (ti.shape.n < 3) return true;
  if (ti.shape.n == 3) return ti.shape.v[0] == 1;
  return ti.shape.n == 4 && ti.shape.v[0] == 1 && ti.shape.v[1] == 1;
}

static void elementwise_member(member *m, int32_t in, int32_t out, const int32_t din[4],
                               const ap_tensor_info *ti, const int32_t dout[4],
                               const ap_tensor_info *to) {
  m->fh = m->stride = m->dil = 1;
  m->in = in;
  m->out = out;
  m->in_h = din[1];
  m->out_h = dout[1];
  m->in_row = ti->bytes / (uint64_t)din[1];
  m->out_row = to->bytes / (uint64_t)dout[1];
  m->ok = m->in_h <= SEG_MAX_ROWS && m->out_h <= SEG_MAX_ROWS;
}

/* A unary element-wise op on an NHWC map of batch 1 whose output has the input's dims. */
static ap_status classify_unary(ap_graph *g, const ap_op_info *op, member *m) {
  ap_tensor_info ti, to;
  int32_t di[4], dout[4];
  if (op->inputs.n != 1 || !graph_nhwc(g, 0, op->inputs.v[0], &ti, di) ||
      !graph_nhwc(g, 0, op->outputs.v[0], &to, dout) || memcmp(di, dout, sizeof di) != 0 ||
      dout[0] != 1)
    return AP_OK;
  /* Scales along the rows would need a row's own scale. */
  if ((ti.scale_count > 1 && ti.quantized_dimension < 3) ||
      (to.scale_count > 1 && to.quantized_dimension < 3))
    return AP_OK;
  const ap_lifetime *li = &g->life[g->tensor_base[0] + (size_t)op->inputs.v[0]];
  const ap_lifetime *lo = &g->life[g->tensor_base[0] + (size_t)op->outputs.v[0]];
  if (!li->planned || !lo->planned || !data_kind(li->kind) || !data_kind(lo->kind)) return AP_OK;
  elementwise_member(m, op->inputs.v[0], op->outputs.v[0], di, &ti, dout, &to);
  return AP_OK;
}

/* ADD, SUB and MUL of a map of the output's shape (batch 1) and either another such map of
 * the same type (a skip: row y of both make row y) or a constant broadcasting along rows. The
 * chained input is the one the op before writes; which it is for a skip is decided there. */
static ap_status classify_binary(ap_graph *g, const ap_op_info *op, member *m) {
  if (op->inputs.n != 2 || op->inputs.v[0] < 0 || op->inputs.v[1] < 0 ||
      op->inputs.v[0] == op->inputs.v[1])
    return AP_OK;
  ap_tensor_info t0, t1, to;
  int32_t d0[4], d1[4], dout[4];
  if (!graph_nhwc(g, 0, op->outputs.v[0], &to, dout) || dout[0] != 1) return AP_OK;
  const ap_lifetime *lo = &g->life[g->tensor_base[0] + (size_t)op->outputs.v[0]];
  if (!lo->planned || !data_kind(lo->kind)) return AP_OK;
  bool c0 = row_broadcast(g, op->inputs.v[0]), c1 = row_broadcast(g, op->inputs.v[1]);
  if (c0 != c1) { /* a constant operand: the other is chained */
    int32_t in = op->inputs.v[c0 ? 1 : 0];
    const ap_lifetime *li = &g->life[g->tensor_base[0] + (size_t)in];
    if (!graph_nhwc(g, 0, in, &t0, d0) || memcmp(d0, dout, sizeof d0) != 0 || !li->planned ||
        !data_kind(li->kind))
      return AP_OK;
    elementwise_member(m, in, op->outputs.v[0], d0, &t0, dout, &to);
    m->side = op->inputs.v[c0 ? 0 : 1];
    return AP_OK;
  }
  if (!graph_nhwc(g, 0, op->inputs.v[0], &t0, d0) || !graph_nhwc(g, 0, op->inputs.v[1], &t1, d1) ||
      memcmp(d0, dout, sizeof d0) != 0 || memcmp(d1, dout, sizeof d1) != 0 || t0.type != to.type ||
      t1.type != to.type)
    return AP_OK;
  if (to.type != AP_FLOAT32 && to.type != AP_INT8 && to.type != AP_UINT8) return AP_OK;
  elementwise_member(m, op->inputs.v[0], op->outputs.v[0], d0, &t0, dout, &to);
  m->side = op->inputs.v[1];
  return AP_OK;
}

/* PAD and PADV2 of a 4-D map, constant paddings (none on the batch) and value: output row y
 * is input row y - top, or padding. */
static ap_status classify_pad(ap_graph *g, const ap_op_info *op, member *m) {
  if (op->inputs.n < 2 || op->inputs.n > 3 || op->inputs.v[1] < 0) return AP_OK;
  for (size_t i = 1; i < op->inputs.n; i++)
    if (!constant_or_absent(g, op->inputs.v[i])) return AP_OK;
  ap_tensor_info ti, to, tp;
  int32_t di[4], dout[4];
  if (!graph_nhwc(g, 0, op->inputs.v[0], &ti, di) ||
      !graph_nhwc(g, 0, op->outputs.v[0], &to, dout) || di[0] != 1 || dout[0] != 1 ||
      ti.type != to.type || ap_model_tensor(g->model, 0, (size_t)op->inputs.v[1], &tp) != AP_OK)
    return AP_OK;
  size_t size = 0;
  const void *pd = ap_model_buffer(g->model, tp.buffer, &size);
  if (!pd || tp.shape.n != 2 || tp.shape.v[0] != 4 || tp.shape.v[1] != 2 ||
      (tp.type != AP_INT32 && tp.type != AP_INT64) || size < (tp.type == AP_INT32 ? 32u : 64u))
    return AP_OK;
  int64_t v[8];
  for (int i = 0; i < 8; i++) {
    if (tp.type == AP_INT32) {
      int32_t x;
      memcpy(&x, (const uint8_t *)pd + 4 * i, 4);
      v[i] = x;
    } else {
      memcpy(&v[i], (const uint8_t *)pd + 8 * i, 8);
    }
    if (v[i] < 0) return AP_OK;
  }
  if (v[0] || v[1] || di[1] + v[2] + v[3] != dout[1]) return AP_OK;
  const ap_lifetime *li = &g->life[g->tensor_base[0] + (size_t)op->inputs.v[0]];
  const ap_lifetime *lo = &g->life[g->tensor_base[0] + (size_t)op->outputs.v[0]];
  if (!li->planned || !lo->planned || !data_kind(li->kind) || !data_kind(lo->kind)) return AP_OK;
  m->fh = m->stride = m->dil = 1;
  m->top = v[2];
  m->in = op->inputs.v[0];
  m->out = op->outputs.v[0];
  m->in_h = di[1];
  m->out_h = dout[1];
  m->in_row = ti.bytes / (uint64_t)di[1];
  m->out_row = to.bytes / (uint64_t)dout[1];
  m->ok = m->in_h <= SEG_MAX_ROWS && m->out_h <= SEG_MAX_ROWS;
  return AP_OK;
}

/* Whether op k of subgraph 0 can run on rows (see graph.h for the rules). */
static ap_status classify(ap_graph *g, size_t k, member *m) {
  memset(m, 0, sizeof *m);
  size_t ok = g->op_base[0] + k;
  if (g->op_first[ok] < 0 || g->op_first[ok] != g->op_last[ok]) return AP_OK;
  ap_op_info op;
  ap_status s = ap_model_op(g->model, 0, k, &op);
  if (s != AP_OK) return ap_fail(&g->err, s, "%s", ap_model_error(g->model));
  if (op.custom || op.inputs.n < 1 || op.outputs.n != 1 || op.inputs.v[0] < 0 ||
      op.outputs.v[0] < 0)
    return AP_OK;
  m->side = -1;
  m->top = -1;
  if (op.builtin == 0 || op.builtin == 18 || op.builtin == 41) return classify_binary(g, &op, m);
  if (unary_elementwise(op.builtin)) return classify_unary(g, &op, m);
  if (op.builtin == 34 || op.builtin == 60) return classify_pad(g, &op, m);
  bool same;
  if (!graph_op_window(g, 0, k, &op, &m->fh, &m->stride, &m->dil, &same) || m->fh <= 0 ||
      m->stride <= 0 || m->dil <= 0)
    return AP_OK;
  bool pool = op.builtin == 1 || op.builtin == 17;
  if (pool ? op.inputs.n != 1 : op.inputs.n < 2) return AP_OK;
  for (size_t i = 1; i < op.inputs.n; i++)
    if (!constant_or_absent(g, op.inputs.v[i])) return AP_OK;
  ap_tensor_info ti, to;
  int32_t di[4], dout[4];
  if (!graph_nhwc(g, 0, op.inputs.v[0], &ti, di) || !graph_nhwc(g, 0, op.outputs.v[0], &to, dout) ||
      di[0] != 1 || dout[0] != 1 || ti.type != to.type)
    return AP_OK;
  if (ti.type != AP_FLOAT32 && ti.type != AP_INT8 && ti.type != AP_UINT8 && ti.type != AP_INT16)
    return AP_OK;
  if (!pool) {
    ap_tensor_info tf;
    /* A missing filter is the kernel's to refuse, not a reason to fail the graph. */
    if (op.inputs.v[1] < 0 || ap_model_tensor(g->model, 0, (size_t)op.inputs.v[1], &tf) != AP_OK)
      return AP_OK;
    /* Float maps with integer filters are the hybrids: they quantize the whole input. */
    if (ti.type == AP_FLOAT32 && tf.type != AP_FLOAT32) return AP_OK;
  }
  const ap_lifetime *li = &g->life[g->tensor_base[0] + (size_t)op.inputs.v[0]];
  const ap_lifetime *lo = &g->life[g->tensor_base[0] + (size_t)op.outputs.v[0]];
  if (!li->planned || !lo->planned || !data_kind(li->kind) || !data_kind(lo->kind)) return AP_OK;
  m->in = op.inputs.v[0];
  m->out = op.outputs.v[0];
  m->in_h = di[1];
  m->out_h = dout[1];
  m->in_row = ti.bytes / (uint64_t)di[1];
  m->out_row = to.bytes / (uint64_t)dout[1];
  m->ok = m->in_h <= SEG_MAX_ROWS && m->out_h <= SEG_MAX_ROWS;
  return AP_OK;
}

uint32_t ap_segment_ring_rows(int32_t in_h, int32_t out_h, int32_t kernel_h, int32_t stride,
                              int32_t dilation) {
  if (in_h <= 0 || out_h <= 0 || kernel_h <= 0 || stride <= 0 || dilation <= 0) return 0;
  int64_t eff = ((int64_t)kernel_h - 1) * dilation + 1; /* every product below < 2^63 */
  int64_t total = ((int64_t)out_h - 1) * stride + eff - in_h;
  int64_t pad = total > 0 ? total / 2 : 0, rows = 1;
  for (int64_t y = 0; y < out_h && rows < in_h; y++) {
    int64_t lo = y * stride - pad, hi = lo + eff;
    lo = lo < 0 ? 0 : lo;
    hi = hi > in_h ? in_h : hi;
    if (hi - lo > rows) rows = hi - lo;
  }
  return (uint32_t)rows;
}

/* The rows of its input that op `m` needs at once. */
static uint64_t ring_rows(const member *m) {
  return ap_segment_ring_rows((int32_t)m->in_h, (int32_t)m->out_h, m->fh, m->stride, m->dil);
}

static int64_t member_eff(const member *m) {
  return ((int64_t)m->fh - 1) * m->dil + 1;
}

/* TFLite's top padding (as the kernels compute it). */
static int64_t member_pad(const member *m) {
  if (m->top >= 0) return m->top;
  int64_t total = (m->out_h - 1) * m->stride + member_eff(m) - m->in_h;
  return total > 0 ? total / 2 : 0;
}

/* The runtime's pull (src/runtime/stream.c): op i computes rows up to `upto`, pulling from op
 * i - 1 the input rows each row's window reaches. */
static void pull(const member *m, int64_t *done, size_t i, int64_t upto) {
  while (done[i] < upto) {
    if (i > 0) {
      int64_t hi = done[i] * m[i].stride - member_pad(&m[i]) + member_eff(&m[i]);
      hi = hi > m[i].in_h ? m[i].in_h : hi;
      if (hi > 0) pull(m, done, i - 1, hi);
    }
    done[i]++;
  }
}

/* The segment's output may start `lead` bytes below its input (a permitted overlap, as
 * overlap.c's for one op): once the last op has written row y, the first op reads its input
 * only from row max(0, next * stride - pad) on (next: its next row to compute; all rows are
 * dead once it has computed them all), so
 *   lead = max over y of (y + 1) * out_row - dead(y) * in_row. */
static int64_t segment_lead(const member *m, size_t count) {
  int64_t done[SEG_MAX_OPS] = {0}, lead = INT64_MIN;
  const member *first = &m[0], *last = &m[count - 1];
  for (int64_t y = 0; y < last->out_h; y++) {
    pull(m, done, count - 1, y + 1);
    int64_t dead = first->in_h;
    if (done[0] < first->out_h) {
      dead = done[0] * first->stride - member_pad(first);
      dead = dead < 0 ? 0 : dead > first->in_h ? first->in_h : dead;
    }
    /* An ADD reading the segment's input whole reads its row `done` next. */
    for (size_t i = 1; i < count; i++)
      if (m[i].side == first->in && done[i] < dead) dead = done[i];
    int64_t l = (y + 1) * (int64_t)last->out_row - dead * (int64_t)first->in_row;
    if (l > lead) lead = l;
  }
  return lead;
}

/* How many input slots of subgraph 0's ops name each of its tensors. */
static ap_status count_readers(ap_graph *g, uint32_t *n) {
  size_t nt = ap_model_tensor_count(g->model, 0);
  for (size_t k = 0; k < ap_model_op_count(g->model, 0); k++) {
    ap_op_info op;
    ap_status s = ap_model_op(g->model, 0, k, &op);
    if (s != AP_OK) return ap_fail(&g->err, s, "%s", ap_model_error(g->model));
    for (size_t i = 0; i < op.inputs.n; i++)
      if (op.inputs.v[i] >= 0 && (size_t)op.inputs.v[i] < nt) n[op.inputs.v[i]]++;
  }
  return AP_OK;
}

typedef struct search {
  ap_graph *g;
  size_t n;        /* ops of subgraph 0 */
  member *m;       /* n */
  bool *link;      /* n: op k's output may be a ring read by op k+1 */
  uint32_t *reads; /* per tensor of subgraph 0: input slots naming it */
  uint64_t *live;  /* per step: bytes live, before streaming */
} search;

static bool present(const ap_lifetime *l, int32_t s) {
  return l->planned && l->first <= s && s <= l->last;
}

/* Whether tensor t is read whole by ops [a, b]: the segment's input, or a skip. */
static bool whole_input(const search *w, size_t a, size_t b, int32_t t) {
  if (t == w->m[a].in) return true;
  for (size_t i = a + 1; i <= b; i++)
    if (w->m[i].side == t) return true;
  return false;
}

/* The cost of streaming ops [a, b] (b > a), and whether it is no worse anywhere than not. */
static bool segment_cost(const search *w, size_t a, size_t b, cost *c) {
  const ap_graph *g = w->g;
  size_t base = g->tensor_base[0];
  int32_t sa = g->op_first[g->op_base[0] + a], sb = g->op_first[g->op_base[0] + b];
  /* A skip ADD, SUB or MUL runs inside only, on a side input written before the segment (a
   * constant operand may start one). */
  if (w->m[a].side >= 0 && !constant_or_absent(g, w->m[a].side)) return false;
  uint64_t side = 0;
  for (size_t i = a + 1; i <= b; i++) {
    const ap_lifetime *ls = w->m[i].side >= 0 ? &g->life[base + (size_t)w->m[i].side] : NULL;
    if (ls && ls->kind != AP_KIND_CONSTANT && ls->producer >= sa) return false;
    bool again = w->m[i].side == w->m[a].in;
    for (size_t j = a + 1; j < i; j++)
      again |= w->m[j].side == w->m[i].side;
    if (ls && ls->planned && !again) side += ls->bytes;
  }
  const ap_lifetime *li = &g->life[base + (size_t)w->m[a].in];
  uint64_t in = li->bytes, out = g->life[base + (size_t)w->m[b].out].bytes, fixed = in + out;
  fixed += side;
  /* In place, an input dying here lets the output start `lead` bytes below it: input at
   * [0, in), output at [-lead, out - lead); the two take the span of their union. */
  if (g->opt.inplace && li->last >= sa && li->last <= sb && li->kind != AP_KIND_OUTPUT) {
    int64_t lead = segment_lead(&w->m[a], b - a + 1);
    int64_t bottom = lead > 0 ? -lead : 0;
    int64_t top = (int64_t)out - lead > (int64_t)in ? (int64_t)out - lead : (int64_t)in;
    if ((uint64_t)(top - bottom) < fixed) fixed = (uint64_t)(top - bottom);
  }
  for (size_t i = a; i < b; i++)
    fixed += ring_rows(&w->m[i + 1]) * w->m[i + 1].in_row;
  uint64_t before = 0;
  *c = (cost){0, 0};
  for (size_t j = a; j <= b; j++) {
    int32_t s = g->op_first[g->op_base[0] + j];
    uint64_t live = w->live[s], mine = 0;
    if (present(&g->life[base + (size_t)w->m[a].in], s))
      mine += g->life[base + (size_t)w->m[a].in].bytes;
    for (size_t i = a; i <= b; i++) {
      if (present(&g->life[base + (size_t)w->m[i].out], s))
        mine += g->life[base + (size_t)w->m[i].out].bytes;
      const ap_lifetime *ls = w->m[i].side >= 0 ? &g->life[base + (size_t)w->m[i].side] : NULL;
      /* (The first member's operand is a constant: nothing to count.) */
      if (ls && i > a && !whole_input(w, a, i - 1, w->m[i].side) && present(ls, s))
        mine += ls->bytes;
    }
    uint64_t now = live - mine + fixed;
    if (now > c->peak) c->peak = now;
    if (live > before) before = live;
    c->sum += now;
  }
  return c->peak <= before;
}

/* Makes ops [a, b] segment `index`: rings and the lifetimes graph.h describes. */
static void record(ap_graph *g, const search *w, size_t index, size_t a, size_t b) {
  size_t base = g->tensor_base[0];
  int32_t sa = g->op_first[g->op_base[0] + a], sb = g->op_first[g->op_base[0] + b];
  ap_segment *sg = &g->seg[index];
  g->seg_lead[index] = segment_lead(&w->m[a], b - a + 1);
  *sg = (ap_segment){0, (uint32_t)a, (uint32_t)(b - a + 1), 0, 0};
  ap_lifetime *in = &g->life[base + (size_t)w->m[a].in];
  if (in->last < sb) in->last = sb;
  if (in->last_reader < sb) in->last_reader = sb;
  for (size_t i = a + 1; i <= b; i++) {
    ap_lifetime *ls = w->m[i].side >= 0 ? &g->life[base + (size_t)w->m[i].side] : NULL;
    if (ls && ls->planned && ls->last < sb) ls->last = sb;
    if (ls && ls->planned && ls->last_reader < sb) ls->last_reader = sb;
  }
  /* The output from the last step: everything live while the segment runs is live there
   * (its input, rings and members' scratch reach it), so that step stands for them all. */
  ap_lifetime *out = &g->life[base + (size_t)w->m[b].out];
  if (out->first < sb) out->first = sb;
  for (size_t i = a; i < b; i++) {
    size_t id = base + (size_t)w->m[i].out;
    uint64_t rows = ring_rows(&w->m[i + 1]);
    ap_lifetime *l = &g->life[id];
    uint64_t ring = rows * w->m[i + 1].in_row;
    sg->saved += l->bytes - ring;
    sg->ring_bytes += ring;
    l->bytes = ring;
    l->first = sa;
    l->last = sb;
    g->ring_rows[id] = (uint32_t)rows;
  }
  for (size_t j = a; j <= b; j++)
    g->seg_of_op[g->op_base[0] + j] = (int32_t)index;
}

static ap_status pick(ap_graph *g, search *w) {
  size_t n = w->n;
  cost *best = ap_calloc(g->alloc, n + 1, sizeof *best);
  size_t *from = ap_calloc(g->alloc, n + 1, sizeof *from);
  if (!best || !from) {
    ap_free(g->alloc, best);
    ap_free(g->alloc, from);
    return ap_fail(&g->err, AP_ERR_NOMEM, "out of memory for streaming %zu ops", n);
  }
  for (size_t i = 1; i <= n; i++)
    best[i] = (cost){UINT64_MAX, UINT64_MAX};
  for (size_t i = 0; i < n; i++) {
    /* Op i alone: the steps of its range as they are. */
    size_t ok = g->op_base[0] + i;
    cost one = {0, 0};
    for (int32_t s = g->op_first[ok]; s >= 0 && s <= g->op_last[ok]; s++) {
      if (w->live[s] > one.peak) one.peak = w->live[s];
      one.sum += w->live[s];
    }
    cost c = {best[i].peak > one.peak ? best[i].peak : one.peak, best[i].sum + one.sum};
    if (better(c, best[i + 1])) best[i + 1] = c, from[i + 1] = i;
    for (size_t e = i + 1; e < n && e - i < SEG_MAX_OPS && w->link[e - 1]; e++) {
      cost seg;
      if (!segment_cost(w, i, e, &seg)) continue;
      c = (cost){best[i].peak > seg.peak ? best[i].peak : seg.peak, best[i].sum + seg.sum};
      if (better(c, best[e + 1])) best[e + 1] = c, from[e + 1] = i;
    }
  }
  /* Walk back from the end: segments come out last first. */
  size_t count = 0;
  for (size_t e = n; e > 0; e = from[e])
    count += e - from[e] > 1;
  g->seg = ap_calloc(g->alloc, count ? count : 1, sizeof *g->seg);
  g->seg_lead = ap_calloc(g->alloc, count ? count : 1, sizeof *g->seg_lead);
  ap_status st =
      g->seg && g->seg_lead ? AP_OK : ap_fail(&g->err, AP_ERR_NOMEM, "out of memory for segments");
  g->seg_count = st == AP_OK ? count : 0;
  for (size_t e = n, k = count; st == AP_OK && e > 0; e = from[e])
    if (e - from[e] > 1) record(g, w, --k, from[e], e - 1);
  ap_free(g->alloc, best);
  ap_free(g->alloc, from);
  return st;
}

ap_status graph_stream(ap_graph *g) {
  if (g->opt.rules != AP_RULES_ARENAPLAN)
    return ap_fail(&g->err, AP_ERR_UNSUPPORTED,
                   "streamed segments follow arenaplan's own rules only (not %s)",
                   ap_rules_name(g->opt.rules));
  size_t nt = g->tensor_base[g->sg_count], no = g->op_base[g->sg_count];
  g->seg_of_op = ap_calloc(g->alloc, no ? no : 1, sizeof *g->seg_of_op);
  g->ring_rows = ap_calloc(g->alloc, nt ? nt : 1, sizeof *g->ring_rows);
  if (!g->seg_of_op || !g->ring_rows)
    return ap_fail(&g->err, AP_ERR_NOMEM, "out of memory for streaming");
  for (size_t i = 0; i < no; i++)
    g->seg_of_op[i] = -1;
  if (g->sg_count == 0 || g->step_count == 0) return AP_OK;
  search w = {g, ap_model_op_count(g->model, 0), NULL, NULL, NULL, NULL};
  w.m = ap_calloc(g->alloc, w.n ? w.n : 1, sizeof *w.m);
  w.link = ap_calloc(g->alloc, w.n ? w.n : 1, sizeof *w.link);
  w.live = ap_calloc(g->alloc, g->step_count + 1, sizeof *w.live);
  size_t nt0 = ap_model_tensor_count(g->model, 0);
  w.reads = ap_calloc(g->alloc, nt0 ? nt0 : 1, sizeof *w.reads);
  ap_status st = AP_OK;
  if (!w.m || !w.link || !w.live || !w.reads)
    st = ap_fail(&g->err, AP_ERR_NOMEM, "out of memory for streaming");
  if (st == AP_OK) st = count_readers(g, w.reads);
  for (size_t k = 0; st == AP_OK && k < w.n; k++)
    st = classify(g, k, &w.m[k]);
  /* Live bytes per step (a difference array, then its running sum). */
  for (size_t i = 0; st == AP_OK && i < nt; i++) {
    const ap_lifetime *l = &g->life[i];
    if (!l->planned || l->first < 0) continue;
    w.live[l->first] += l->bytes;
    w.live[l->last + 1] -= l->bytes;
  }
  for (size_t s = 1; st == AP_OK && s <= g->step_count; s++)
    w.live[s] += w.live[s - 1];
  for (size_t k = 0; st == AP_OK && k + 1 < w.n; k++) {
    const member *a = &w.m[k], *b = &w.m[k + 1];
    if (b->ok && b->side >= 0 && a->out == b->side) { /* ADD chained through input 1 */
      w.m[k + 1].side = b->in;
      w.m[k + 1].in = a->out;
    }
    if (!a->ok || !b->ok || a->out != b->in ||
        g->op_first[g->op_base[0] + k + 1] != g->op_first[g->op_base[0] + k] + 1)
      continue;
    const ap_lifetime *l = &g->life[g->tensor_base[0] + (size_t)a->out];
    w.link[k] = l->kind == AP_KIND_INTERMEDIATE && w.reads[a->out] == 1 &&
                ring_rows(b) * b->in_row <= l->bytes;
  }
  if (st == AP_OK) st = pick(g, &w);
  ap_free(g->alloc, w.m);
  ap_free(g->alloc, w.link);
  ap_free(g->alloc, w.live);
  ap_free(g->alloc, w.reads);
  return st;
}

ap_status graph_segment_overlap(ap_graph *g, size_t sg, size_t op, int32_t step) {
  if (sg != 0 || !g->seg_of_op) return AP_OK;
  int32_t i = g->seg_of_op[g->op_base[0] + op];
  const ap_segment *s = &g->seg[i];
  if (op + 1 != (size_t)s->first_op + s->op_count) return AP_OK;
  ap_op_info first, last;
  ap_status st = ap_model_op(g->model, 0, s->first_op, &first);
  if (st == AP_OK) st = ap_model_op(g->model, 0, op, &last);
  if (st != AP_OK) return ap_fail(&g->err, st, "%s", ap_model_error(g->model));
  size_t base = g->tensor_base[0];
  size_t x = base + (size_t)first.inputs.v[0], out = base + (size_t)last.outputs.v[0];
  size_t r = g->share[x] == SIZE_MAX ? x : g->share[x];
  const ap_lifetime *lx = &g->life[x], *lo = &g->life[out];
  /* As overlap.c: the input's bytes die at the segment's last step, nothing else shares
   * them, and some byte can be shared. */
  if (!lx->planned || !lo->planned || g->req_last[r] != step || g->share[out] != SIZE_MAX ||
      lx->kind == AP_KIND_OUTPUT || g->seg_lead[i] >= (int64_t)lo->bytes)
    return AP_OK;
  return graph_push_overlap(g, r, out, g->seg_lead[i]);
}

size_t ap_graph_segment_count(const ap_graph *g) {
  return g ? g->seg_count : 0;
}

ap_status ap_graph_segment(const ap_graph *g, size_t i, ap_segment *out) {
  if (!g || !out) return AP_ERR_ARG;
  if (i >= g->seg_count) return AP_ERR_RANGE;
  *out = g->seg[i];
  return AP_OK;
}

uint32_t ap_graph_ring_rows(const ap_graph *g, uint64_t id) {
  if (!g || !g->ring_rows || id >= g->tensor_base[g->sg_count]) return 0;
  return g->ring_rows[id];
}

ap_status ap_graph_grow_ring(ap_graph *g, uint64_t id, uint32_t rows, uint32_t height) {
  if (!g || !g->ring_rows || id >= g->tensor_base[g->sg_count]) return AP_ERR_ARG;
  uint32_t old = g->ring_rows[id];
  ap_lifetime *l = &g->life[id];
  if (old == 0 || rows <= old || rows > height || l->bytes % old != 0) return AP_ERR_RANGE;
  uint64_t row = l->bytes / old, bytes;
  if (!ap_mul_u64(row, rows, &bytes)) return AP_ERR_OVERFLOW;
  for (size_t i = 0; i < g->seg_count; i++) {
    ap_segment *sg = &g->seg[i];
    if (g->op_first[g->op_base[sg->subgraph] + sg->first_op] != l->first) continue;
    if (sg->saved < bytes - l->bytes) return AP_ERR_RANGE; /* not smaller than the map */
    sg->ring_bytes += bytes - l->bytes;
    sg->saved -= bytes - l->bytes;
  }
  l->bytes = bytes;
  g->ring_rows[id] = rows;
  return AP_OK;
}
