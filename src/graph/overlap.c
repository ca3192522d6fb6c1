/* In-place with an offset (as Arm's Vela places IFM and OFM, and TinyEngine depthwise
 * convolutions): CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D and MAX_POOL_2D compute their
 * NHWC output row by row (batch, output row, column, channel), and output row r of batch b
 * reads input rows from max(0, r * stride - pad_top) on. So once output row r is written, the
 * input rows before that one are dead, and output row r may be written over them:
 *
 *   offset(in) - offset(out) >= lead = max over b, r of
 *       (b * H_out + r + 1) * out_row_bytes - (b * H_in + min(H_in, max(0, r * stride - pad_top)))
 *                                            * in_row_bytes
 *
 * (the end of output row r must not pass the first input row still to be read). Rows are
 * whole, which is conservative within a row. The kernels (src/kernels/conv.c, depthwise.c,
 * pooling.c) write each output element right after reading its window, in that order, and
 * read nothing of the input after the last output row; the hybrid kernels read all of the
 * input into scratch first, which is safer still. */
#include "graph_internal.h"

#include "arenaplan/options.h"

#include <string.h>

/* Largest tensor this reasons about: keeps every product below in 64 bits. */
#define BYTES_MAX ((uint64_t)1 << 40)
/* A function, not an expression: where size_t has 32 bits the test is always true, and
 * -Wtype-limits would say so. */
static bool below_max(uint64_t bytes) {
  return bytes < BYTES_MAX;
}

static bool nhwc(const ap_graph *g, size_t sg, int32_t t, ap_tensor_info *ti, int32_t d[4]) {
  if (t < 0 || ap_model_tensor(g->model, sg, (size_t)t, ti) != AP_OK || ti->shape.n != 4)
    return false;
  for (int i = 0; i < 4; i++) {
    d[i] = ti->shape.v[i];
    if (d[i] <= 0) return false;
  }
  /* Sizes a caller gave (a runtime's shapes) must be the model's for the rows to be right. */
  return ti->bytes > 0 && below_max(ti->bytes) &&
         g->life[g->tensor_base[sg] + (size_t)t].bytes == ti->bytes;
}

/* Filter height, vertical stride, dilation and padding of the op; false for other ops. */
static bool window(const ap_graph *g, size_t sg, size_t k, const ap_op_info *op, int32_t *fh,
                   int32_t *stride, int32_t *dil, bool *same) {
  ap_op_options o;
  if (ap_model_op_options(g->model, sg, k, &o) != AP_OK) return false;
  ap_tensor_info ft;
  int32_t fd[4];
  switch (op->builtin) {
  case 3: /* CONV_2D: filter [O, KH, KW, I] */
  case 4: /* DEPTHWISE_CONV_2D: filter [1, KH, KW, C] */
    if (op->inputs.n < 2 || op->inputs.v[1] < 0 ||
        ap_model_tensor(g->model, sg, (size_t)op->inputs.v[1], &ft) != AP_OK || ft.shape.n != 4)
      return false;
    memcpy(fd, ft.shape.v, sizeof fd);
    *fh = fd[1];
    if (op->builtin == 3 && o.kind == AP_OPTIONS_CONV2D) {
      *stride = o.conv2d.stride_h;
      *dil = o.conv2d.dilation_h_factor;
      *same = o.conv2d.padding == AP_PADDING_SAME;
      return true;
    }
    if (op->builtin == 4 && o.kind == AP_OPTIONS_DEPTHWISE_CONV2D) {
      *stride = o.depthwise_conv2d.stride_h;
      *dil = o.depthwise_conv2d.dilation_h_factor;
      *same = o.depthwise_conv2d.padding == AP_PADDING_SAME;
      return true;
    }
    return false;
  case 1:  /* AVERAGE_POOL_2D */
  case 17: /* MAX_POOL_2D */
    if (o.kind != AP_OPTIONS_POOL2D) return false;
    *fh = o.pool2d.filter_height;
    *stride = o.pool2d.stride_h;
    *dil = 1;
    *same = o.pool2d.padding == AP_PADDING_SAME;
    return true;
  default: return false;
  }
}

static size_t root(const ap_graph *g, size_t id) {
  return g->share[id] == SIZE_MAX ? id : g->share[id];
}

ap_status graph_find_overlap(ap_graph *g, size_t sg, const ap_op_info *op, int32_t step) {
  if (op->custom || op->inputs.n < 1 || op->outputs.n < 1 || op->inputs.v[0] < 0 ||
      op->outputs.v[0] < 0)
    return AP_OK;
  int32_t fh, stride, dil;
  bool same;
  size_t k = (size_t)g->step_op[step];
  if (!window(g, sg, k, op, &fh, &stride, &dil, &same) || fh <= 0 || stride <= 0 || dil <= 0)
    return AP_OK;
  size_t base = g->tensor_base[sg];
  size_t x = base + (size_t)op->inputs.v[0], out = base + (size_t)op->outputs.v[0];
  size_t r = root(g, x);
  const ap_lifetime *lx = &g->life[x], *lo = &g->life[out];
  bool data_x =
      lx->kind == AP_KIND_INTERMEDIATE || lx->kind == AP_KIND_INPUT || lx->kind == AP_KIND_OUTPUT;
  bool data_o = lo->kind == AP_KIND_INTERMEDIATE || lo->kind == AP_KIND_OUTPUT;
  /* The input's bytes die here (nobody reads them, nor any tensor sharing them, later), the
   * output is born here, and no other input of the op lives in those bytes. */
  if (!data_x || !data_o || !lx->planned || !lo->planned || g->req_last[r] != step ||
      (g->req_first[r] == step && lo->last == step) || lo->producer != step ||
      g->share[out] != SIZE_MAX)
    return AP_OK;
  for (size_t j = 1; j < op->inputs.n; j++) {
    int32_t y = op->inputs.v[j];
    if (y >= 0 && g->life[base + (size_t)y].planned && root(g, base + (size_t)y) == r) return AP_OK;
  }
  ap_tensor_info ti, to;
  int32_t di[4], dout[4];
  if (!nhwc(g, sg, op->inputs.v[0], &ti, di) || !nhwc(g, sg, op->outputs.v[0], &to, dout) ||
      di[0] != dout[0])
    return AP_OK;
  int64_t n = di[0], hin = di[1], hout = dout[1];
  int64_t in_row = (int64_t)(ti.bytes / (uint64_t)(n * hin));
  int64_t out_row = (int64_t)(to.bytes / (uint64_t)(n * hout));
  int64_t eff = ((int64_t)fh - 1) * dil + 1, span; /* < 2^62 */
  /* A hostile stride can make the window arithmetic overflow: no overlap then. */
  if (__builtin_mul_overflow(hout - 1, (int64_t)stride, &span) ||
      __builtin_add_overflow(span, eff, &span))
    return AP_OK;
  int64_t pad = same ? (span - hin) / 2 : 0;
  if (pad < 0) pad = 0;
  int64_t lead = INT64_MIN;
  for (int64_t b = 0; b < n; b++)
    for (int64_t y = 0; y < hout; y++) {
      int64_t need = y * stride - pad; /* y * stride <= span */
      need = need < 0 ? 0 : need > hin ? hin : need;
      int64_t l = (b * hout + y + 1) * out_row - (b * hin + need) * in_row;
      if (l > lead) lead = l;
    }
  /* Worth a pair only when some byte can be shared. */
  if (lead >= (int64_t)lo->bytes) return AP_OK;
  if (g->ovl_count == g->ovl_cap) {
    size_t cap = g->ovl_cap ? g->ovl_cap * 2 : 16;
    struct graph_overlap *nv = ap_calloc(g->alloc, cap, sizeof *nv);
    if (!nv) return ap_fail(&g->err, AP_ERR_NOMEM, "out of memory for %zu overlaps", cap);
    if (g->ovl_count) memcpy(nv, g->ovl, g->ovl_count * sizeof *nv);
    ap_free(g->alloc, g->ovl);
    g->ovl = nv;
    g->ovl_cap = cap;
  }
  g->ovl[g->ovl_count++] = (struct graph_overlap){r, out, lead};
  return AP_OK;
}

/* The index of the request with this id; requests come in id order. */
static bool find(const ap_problem *p, uint64_t id, size_t *at) {
  const ap_request *r = ap_problem_requests(p);
  size_t lo = 0, hi = ap_problem_count(p);
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  *at = lo;
  return lo < ap_problem_count(p) && r[lo].id == id;
}

ap_status graph_add_overlaps(ap_graph *g, ap_problem *p) {
  for (size_t k = 0; k < g->ovl_count; k++) {
    size_t a, b;
    if (!find(p, g->ovl[k].in, &a) || !find(p, g->ovl[k].out, &b)) continue;
    ap_status st = ap_problem_add_overlap(p, &(ap_overlap){a, b, g->ovl[k].lead});
    if (st != AP_OK) return ap_fail(&g->err, st, "%s", ap_problem_error(p));
  }
  return AP_OK;
}
