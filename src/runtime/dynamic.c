/* The dynamic region: tensors whose shape is known only while running (a size computed from
 * input values, as dynamic_shapes' STRIDED_SLICE end from a CAST of an input). Allocate finds
 * them (an input is dynamic, or the prepare of an op fails while an input whose value decides
 * its output shape is neither constant nor folded) and plans them at 0 bytes; invoke prepares
 * their ops with the values at hand and gives each output a block of the caller's allocator,
 * kept and reused by later invokes, grown only when an invoke needs more bytes than any before.
 */
#include "kernels/kops_datamove.h"
#include "runtime_internal.h"

#include <string.h>

/* A dynamic tensor (t < UINT32_MAX) or a dynamic op's scratch (t == UINT32_MAX, op). */
typedef struct rt_dyn {
  int32_t dims[AP_MAX_DIMS]; /* the tensor's dims point here */
  struct rt_dyn *next;
  void *block;
  size_t cap;
  uint32_t sg, t, op;
} rt_dyn;

/* A dynamic tensor's record points its dims at its node: no search at invoke. */
/* The record of tensor t. Found by index, not from the tensor's dims pointer: another op
 * writing the same tensor (a malformed but loadable graph) may have pointed its dims elsewhere
 * in its prepare. */
static rt_dyn *find(const ap_interpreter *it, uint32_t sg, uint32_t t) {
  for (rt_dyn *d = it->dynamic; d; d = d->next)
    if (d->t == t && d->sg == sg) return d;
  return NULL;
}

static bool is_dynamic(const ap_op_context *c, ap_ivec v, size_t i) {
  if (i >= v.n || v.v[i] < 0) return false;
  const rt_tensor *r = rt_rec(c->it, c->subgraph, (size_t)v.v[i]);
  return r && (r->flags & RT_DYNAMIC);
}

bool rt_op_dynamic(const ap_op_context *c) {
  for (size_t i = 0; i < c->info.outputs.n; i++)
    if (is_dynamic(c, c->info.outputs, i)) return true;
  return false;
}

bool rt_inputs_dynamic(const ap_op_context *c) {
  for (size_t i = 0; i < c->info.inputs.n; i++)
    if (is_dynamic(c, c->info.inputs, i)) return true;
  return false;
}

/* The inputs whose values a builtin's prepare reads (bit i: input i). */
static uint32_t shape_inputs(int32_t builtin) {
  switch (builtin) {
  case AP_KB_RESHAPE:
  case AP_KB_PAD:
  case AP_KB_TRANSPOSE:
  case AP_KB_MEAN:
  case AP_KB_RESIZE_BILINEAR:
  case AP_KB_REVERSE_V2:
  case AP_KB_ARG_MAX:
  case AP_KB_TILE: return 1u << 1;
  case AP_KB_PADV2: return 3u << 1;
  case AP_KB_SLICE: return 3u << 1;
  case AP_KB_STRIDED_SLICE: return 7u << 1;
  case AP_KB_TRANSPOSE_CONV: return 1u;
  /* data movement (kops_datamove.h) */
  case AP_KB_SPLIT:
  case AP_KB_FILL: return 1u;
  case AP_KB_EXPAND_DIMS:
  case AP_KB_BROADCAST_TO:
  case AP_KB_MIRROR_PAD:
  case AP_KB_RESIZE_NEAREST_NEIGHBOR: return 1u << 1;
  case AP_KB_SPLIT_V: return 3u << 1;
  case AP_KB_SPACE_TO_BATCH_ND:
  case AP_KB_BATCH_TO_SPACE_ND: return 3u << 1;
  default: return 0;
  }
}

bool rt_shape_inputs_unknown(const ap_op_context *c) {
  uint32_t mask = c->info.custom ? 0 : shape_inputs(c->info.builtin);
  for (size_t i = 0; i < c->info.inputs.n && i < 32; i++) {
    int32_t t = c->info.inputs.v[i];
    if (!(mask >> i & 1u) || t < 0) continue;
    const rt_tensor *r = rt_rec(c->it, c->subgraph, (size_t)t);
    if (r && !(r->flags & RT_KNOWN)) return true;
  }
  return false;
}

static rt_dyn *new_node(ap_interpreter *it, uint32_t sg, uint32_t t, uint32_t op) {
  rt_dyn *d = rt_tables_alloc(it, sizeof *d);
  if (!d) return NULL;
  d->sg = sg, d->t = t, d->op = op;
  d->next = it->dynamic;
  it->dynamic = d;
  return d;
}

/* Another op of the subgraph writing tensor t (index of the first), or -1. A dynamic tensor's
 * block and dims belong to its one writer: a second writer would see no data before it runs, or
 * a block sized for the other op's output. */
static int64_t other_writer(const ap_op_context *c, uint32_t t) {
  size_t n = ap_model_op_count(c->it->model, c->subgraph);
  for (size_t k = 0; k < n; k++) {
    ap_op_info op;
    if (k == c->index || ap_model_op(c->it->model, c->subgraph, k, &op) != AP_OK) continue;
    for (size_t j = 0; j < op.outputs.n; j++)
      if (op.outputs.v[j] == (int32_t)t) return (int64_t)k;
  }
  return -1;
}

ap_status rt_mark_dynamic(ap_op_context *c) {
  ap_interpreter *it = c->it;
  if (c->phase != RT_PREPARE)
    return ap_op_fail(c, AP_ERR_NOT_ALLOCATED, "became dynamic: call ap_interpreter_allocate()");
  it->msg[0] = 0; /* a failed prepare's message no longer applies */
  for (size_t i = 0; i < c->info.outputs.n; i++) {
    rt_tensor *x = rt_rec(it, c->subgraph, (size_t)c->info.outputs.v[i]);
    if (!x || (x->flags & RT_VARIABLE))
      return ap_op_fail(c, AP_ERR_UNSUPPORTED,
                        "output %zu is a constant or variable tensor, but its shape is known only "
                        "while running",
                        i);
    if (x->flags & RT_DYNAMIC) continue; /* listed twice among the outputs */
    int64_t other = other_writer(c, x->index);
    if (other >= 0)
      return ap_op_fail(c, AP_ERR_UNSUPPORTED,
                        "output %zu (tensor %u) has a shape known only while running, and op %lld "
                        "writes it too",
                        i, x->index, (long long)other);
    rt_dyn *d = new_node(it, c->subgraph, x->index, 0);
    if (!d) return rt_nomem(it);
    if (x->rank) memcpy(d->dims, x->dims, (size_t)x->rank * 4);
    x->dims = d->dims;
    x->flags |= RT_DYNAMIC | RT_OWNED_DIMS;
    it->dynamic_count++;
  }
  /* Its scratch, sized while running like its outputs. */
  return new_node(it, c->subgraph, UINT32_MAX, c->index) ? AP_OK : rt_nomem(it);
}

/* Makes `*d` hold at least `bytes` (at least 1: kernels refuse NULL even for no elements):
 * AP_OK, AP_ERR_OVERFLOW or AP_ERR_NOMEM (the caller words the message). */
static ap_status grow(ap_interpreter *it, rt_dyn *d, size_t bytes) {
  if (d->block && bytes <= d->cap) return AP_OK;
  size_t want = bytes ? bytes : 1;
  if (want > SIZE_MAX - 15) return AP_ERR_OVERFLOW;
  want = (want + 15) & ~(size_t)15;
  void *p = it->alloc.alloc(it->alloc.ctx, want);
  if (!p) return AP_ERR_NOMEM;
  rt_free(it, d->block);
  it->dynamic_bytes += want - d->cap;
  d->block = p;
  d->cap = want;
  return AP_OK;
}

static ap_status reserve(ap_op_context *c, rt_dyn *d, size_t bytes, const char *what) {
  ap_status s = grow(c->it, d, bytes);
  if (s == AP_ERR_OVERFLOW)
    return ap_op_fail(c, AP_ERR_OVERFLOW, "%s of %zu bytes overflows", what, bytes);
  if (s != AP_OK)
    return ap_op_fail(c, AP_ERR_NOMEM, "out of memory for %zu bytes of %s (dynamic region)", bytes,
                      what);
  return AP_OK;
}

ap_status rt_dynamic_track(ap_interpreter *it, uint32_t sg, rt_tensor *x) {
  if (x->flags & RT_DYNAMIC) return AP_OK;
  rt_dyn *d = new_node(it, sg, x->index, 0);
  if (!d) return rt_nomem(it);
  if (x->rank) memcpy(d->dims, x->dims, (size_t)x->rank * 4);
  x->dims = d->dims;
  x->flags |= RT_DYNAMIC | RT_OWNED_DIMS;
  it->dynamic_count++;
  return AP_OK;
}

ap_status rt_dynamic_set(ap_interpreter *it, uint32_t sg, rt_tensor *x, const int32_t *dims,
                         int rank, size_t bytes) {
  rt_dyn *d = (x->flags & RT_DYNAMIC) ? find(it, sg, x->index) : NULL;
  if (!d) return rt_fail(it, AP_ERR_ARG, "subgraph %u tensor %u is not dynamic", sg, x->index);
  if (rank < 0 || rank > AP_MAX_DIMS)
    return rt_fail(it, AP_ERR_UNSUPPORTED, "subgraph %u tensor %u: rank %d", sg, x->index, rank);
  ap_status s = grow(it, d, bytes);
  if (s != AP_OK)
    return rt_fail(it, s, "subgraph %u tensor %u: no memory for %zu bytes (dynamic region)", sg,
                   x->index, bytes);
  if (rank) memcpy(d->dims, dims, (size_t)rank * 4);
  x->dims = d->dims;
  x->rank = (uint16_t)rank;
  x->data = d->block;
  return AP_OK;
}

ap_status rt_dynamic_output(ap_op_context *c, size_t i, ap_ktensor *v) {
  rt_tensor *x = rt_rec(c->it, c->subgraph, (size_t)c->info.outputs.v[i]);
  if (!x || !(x->flags & RT_DYNAMIC))
    return ap_op_fail(c, AP_ERR_KERNEL, "output %zu is not dynamic", i);
  if (v->rank < 0 || v->rank > AP_MAX_DIMS)
    return ap_op_fail(c, AP_ERR_UNSUPPORTED, "output %zu: rank %d", i, v->rank);
  rt_dyn *d = find(c->it, c->subgraph, x->index);
  if (!d) return ap_op_fail(c, AP_ERR_KERNEL, "output %zu: no dynamic record", i);
  size_t n = 1, bits;
  for (int k = 0; k < v->rank; k++)
    if (v->dims[k] < 0 || !ap_mul_size(n, (size_t)v->dims[k], &n))
      return ap_op_fail(c, AP_ERR_OVERFLOW, "output %zu: dim %d is %d (negative, or too large)", i,
                        k, v->dims[k]);
  if (!ap_mul_size(n, ap_dtype_bits(x->type), &bits))
    return ap_op_fail(c, AP_ERR_OVERFLOW, "output %zu: its size overflows", i);
  size_t bytes = bits / 8 + (bits % 8 != 0);
  ap_status s = reserve(c, d, bytes, "a dynamic tensor");
  if (s != AP_OK) return s;
  if (v->rank) memcpy(d->dims, v->dims, (size_t)v->rank * 4);
  x->dims = d->dims;
  x->rank = (uint16_t)v->rank;
  x->data = d->block;
  v->data = d->block;
  return AP_OK;
}

ap_status rt_dynamic_scratch(ap_op_context *c, size_t bytes, void **out) {
  for (rt_dyn *d = c->it->dynamic; d; d = d->next) {
    if (d->t != UINT32_MAX || d->sg != c->subgraph || d->op != c->index) continue;
    ap_status s = reserve(c, d, bytes, "scratch");
    *out = d->block;
    return s;
  }
  return ap_op_fail(c, AP_ERR_KERNEL, "a dynamic op without a scratch record");
}

void rt_dynamic_release(ap_interpreter *it) {
  for (rt_dyn *d = it->dynamic; d; d = d->next) {
    rt_free(it, d->block);
    d->block = NULL;
    /* The record must not keep pointing into the tables freed next (an accessor may read it
     * after a failed allocate): back to the model's shape, no data. */
    rt_tensor *x = d->t != UINT32_MAX ? rt_rec(it, d->sg, d->t) : NULL;
    ap_tensor_info ti;
    if (!x || ap_model_tensor(it->model, d->sg, d->t, &ti) != AP_OK) continue;
    x->dims = ti.shape.v;
    x->rank = (uint16_t)ti.shape.n;
    x->data = NULL;
    x->flags &= (uint8_t) ~(RT_DYNAMIC | RT_OWNED_DIMS);
  }
  it->dynamic = NULL;
  it->known = NULL;
  it->dynamic_count = 0;
  it->dynamic_bytes = 0;
}

size_t ap_interpreter_dynamic_count(const ap_interpreter *it) {
  return it && it->sg && it->allocated ? it->dynamic_count : 0;
}

uint64_t ap_interpreter_dynamic_bytes(const ap_interpreter *it) {
  return it && it->sg && it->allocated ? it->dynamic_bytes : 0;
}

ap_status ap_interpreter_dynamic_tensor(const ap_interpreter *it, size_t i, size_t *subgraph,
                                        size_t *tensor) {
  if (!it || !subgraph || !tensor) return AP_ERR_ARG;
  if (!it->sg || !it->allocated) return AP_ERR_NOT_ALLOCATED;
  /* In model order (subgraph, then tensor index), whatever order allocate found them in. */
  size_t seen = 0;
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    for (uint32_t t = 0; t < it->sg[sg].tensor_count; t++) {
      const rt_tensor *r = rt_rec(it, sg, t);
      if (!r || !(r->flags & RT_DYNAMIC) || seen++ != i) continue;
      *subgraph = sg;
      *tensor = t;
      return AP_OK;
    }
  return AP_ERR_RANGE;
}
