/* String tensors (model.h: TFLite's buffer of a count, offsets and bytes). Their bytes depend on
 * their values, so every non-constant string tensor is dynamic (dynamic.c): planned at 0 bytes,
 * given a block of the allocator when its value is known (ap_interpreter_set_string for an
 * input, the op writing it otherwise), grown only when a value needs more than any before.
 *
 * The ops TFLite runs on strings move whole strings: each kernel here only says which input
 * element every output element is (a map), and emit() writes the output buffer from the map in
 * two passes (sizes, then bytes), so no op needs memory beyond its output's block. EQUAL and
 * NOT_EQUAL compare strings into a bool output. */
#include "arenaplan/options.h"
#include "kernels/kops.h"
#include "kernels/kops_datamove.h"
#include "kernels/kops_mathlogic.h"
#include "runtime_internal.h"

#include <string.h>

enum { KB_CONCATENATION = 2 }; /* BuiltinOperator; the kernels' table names it nowhere */

/* Which element of which input an output element is. */
typedef struct str_map {
  ap_tensor in[8]; /* the op's inputs (CONCATENATION: up to 8 here) */
  size_t n_in;
  int32_t dims[AP_MAX_DIMS]; /* the output's */
  int rank;
  /* Kernel parameters. */
  int axis;
  size_t outer, inner, count; /* GATHER, CONCATENATION: sizes around the axis */
  int64_t begin[AP_MAX_DIMS];
  int64_t bad; /* an index out of range (GATHER, GATHER_ND), else -1 */
  int32_t builtin;
} str_map;

static size_t elements(const int32_t *dims, int rank) {
  size_t n = 1;
  for (int k = 0; k < rank; k++)
    if (!ap_mul_size(n, (size_t)dims[k], &n)) return SIZE_MAX;
  return n;
}

static void coords(size_t i, const int32_t *dims, int rank, size_t *c) {
  for (int k = rank - 1; k >= 0; k--) {
    size_t d = dims[k] > 0 ? (size_t)dims[k] : 1;
    c[k] = i % d;
    i /= d;
  }
}

static size_t flat(const size_t *c, const int32_t *dims, int rank) {
  size_t i = 0;
  for (int k = 0; k < rank; k++)
    i = i * (size_t)dims[k] + c[k];
  return i;
}

static bool int_at(const ap_tensor *t, size_t i, int64_t *v) {
  if (!t->data) return false;
  if (t->type == AP_INT32 && (i + 1) * 4 <= t->bytes) {
    int32_t x;
    memcpy(&x, (const uint8_t *)t->data + 4 * i, 4);
    *v = x;
    return true;
  }
  if (t->type == AP_INT64 && (i + 1) * 8 <= t->bytes) {
    memcpy(v, (const uint8_t *)t->data + 8 * i, 8);
    return true;
  }
  return false;
}

/* The output element i's source: input *k, element *e (false: an index out of range). */
static bool source(str_map *m, size_t i, size_t *k, size_t *e) {
  size_t c[AP_MAX_DIMS];
  *k = 0;
  switch (m->builtin) {
  case AP_KB_GATHER: {
    size_t nidx = elements(m->in[1].dims, m->in[1].rank), per = nidx * m->inner;
    size_t o = i / per, r = i % per;
    int64_t idx = 0;
    if (!int_at(&m->in[1], r / m->inner, &idx) || idx < 0 || (uint64_t)idx >= m->count) {
      m->bad = idx;
      return false;
    }
    *e = (o * m->count + (size_t)idx) * m->inner + r % m->inner;
    return true;
  }
  case AP_KB_GATHER_ND: {
    const ap_tensor *p = &m->in[0], *ix = &m->in[1];
    int depth = ix->dims[ix->rank - 1];
    size_t b = i / m->inner, at = 0;
    for (int d = 0; d < depth; d++) {
      int64_t v = 0;
      if (!int_at(ix, b * (size_t)depth + (size_t)d, &v) || v < 0 || v >= p->dims[d]) {
        m->bad = v;
        return false;
      }
      at = at * (size_t)p->dims[d] + (size_t)v;
    }
    *e = at * m->inner + i % m->inner;
    return true;
  }
  case KB_CONCATENATION: {
    size_t along = (size_t)m->dims[m->axis], per = along * m->inner;
    size_t o = i / per, a = (i % per) / m->inner;
    for (size_t j = 0; j < m->n_in; j++) {
      size_t dj = (size_t)m->in[j].dims[m->axis];
      if (a < dj) {
        *k = j;
        *e = (o * dj + a) * m->inner + i % m->inner;
        return true;
      }
      a -= dj;
    }
    return false;
  }
  case AP_KB_SLICE:
  case AP_KB_TILE:
    coords(i, m->dims, m->rank, c);
    for (int d = 0; d < m->rank; d++)
      c[d] =
          m->builtin == AP_KB_SLICE ? c[d] + (size_t)m->begin[d] : c[d] % (size_t)m->in[0].dims[d];
    *e = flat(c, m->in[0].dims, m->rank);
    return true;
  case AP_KB_FILL: *k = 1, *e = 0; return true;
  default: *e = i; return true; /* RESHAPE, SQUEEZE, EXPAND_DIMS: the same order */
  }
}

static ap_status bad_index(ap_op_context *c, const str_map *m) {
  return ap_op_fail(c, AP_ERR_RANGE, "index %lld out of range (the dimension has %zu)",
                    (long long)m->bad, m->builtin == AP_KB_GATHER ? m->count : 0);
}

static rt_tensor *output(ap_op_context *c, size_t i) {
  return c->info.outputs.n > i && c->info.outputs.v[i] >= 0
             ? rt_rec(c->it, c->subgraph, (size_t)c->info.outputs.v[i])
             : NULL;
}

/* Writes output 0 (string) from the map: sizes first, then the block, then the bytes. */
static ap_status emit(ap_op_context *c, str_map *m) {
  size_t n = elements(m->dims, m->rank), total, k, e;
  if (n == SIZE_MAX || n > INT32_MAX - 2 || !ap_mul_size(n + 2, 4, &total))
    return ap_op_fail(c, AP_ERR_OVERFLOW, "output of %zu strings: too many", n);
  for (size_t i = 0; i < n; i++) {
    const uint8_t *s;
    size_t len;
    if (!source(m, i, &k, &e)) return bad_index(c, m);
    if (!ap_string_at(m->in[k].data, e, &s, &len))
      return ap_op_fail(c, AP_ERR_FORMAT, "input %zu has no string %zu", k, e);
    if (!ap_add_size(total, len, &total) || total > INT32_MAX)
      return ap_op_fail(c, AP_ERR_OVERFLOW, "output strings exceed 2 GiB");
  }
  rt_tensor *x = output(c, 0);
  if (!x || x->type != AP_STRING) return ap_op_fail(c, AP_ERR_FORMAT, "output 0 is not a string");
  ap_status st = rt_dynamic_set(c->it, c->subgraph, x, m->dims, m->rank, total);
  if (st != AP_OK) return st;
  uint8_t *p = x->data;
  int32_t v = (int32_t)n, at = (int32_t)((n + 2) * 4);
  memcpy(p, &v, 4);
  for (size_t i = 0; i < n; i++) {
    const uint8_t *s;
    size_t len;
    source(m, i, &k, &e);
    ap_string_at(m->in[k].data, e, &s, &len);
    memcpy(p + 4 * (1 + i), &at, 4);
    if (len) memcpy(p + at, s, len);
    at += (int32_t)len;
  }
  memcpy(p + 4 * (1 + n), &at, 4);
  return AP_OK;
}

static ap_status input(ap_op_context *c, size_t i, ap_tensor *t, bool string) {
  if (!ap_op_input(c, i, t)) return ap_op_fail(c, AP_ERR_FORMAT, "input %zu is absent", i);
  if (string && t->type != AP_STRING)
    return ap_op_fail(c, AP_ERR_UNSUPPORTED, "input %zu is %s, not STRING", i,
                      ap_dtype_name(t->type));
  if (!t->data)
    return ap_op_fail(c, AP_ERR_NOT_ALLOCATED, "input %zu has no value yet%s", i,
                      string ? " (set string inputs with ap_interpreter_set_string)" : "");
  if (string && ap_string_count(t->data) != elements(t->dims, t->rank))
    return ap_op_fail(c, AP_ERR_FORMAT, "input %zu holds %zu strings for %zu elements", i,
                      ap_string_count(t->data), elements(t->dims, t->rank));
  return AP_OK;
}

/* A 1-D integer input's values as dims (RESHAPE's shape, FILL's dims, TILE's multiples...). */
static ap_status int_vector(ap_op_context *c, const ap_tensor *t, size_t i, int64_t *v, int *n) {
  size_t count = elements(t->dims, t->rank);
  if ((t->type != AP_INT32 && t->type != AP_INT64) || count > AP_MAX_DIMS)
    return ap_op_fail(c, AP_ERR_UNSUPPORTED,
                      "input %zu: %s with %zu values (int32 or int64, at "
                      "most %d)",
                      i, ap_dtype_name(t->type), count, AP_MAX_DIMS);
  for (size_t k = 0; k < count; k++)
    if (!int_at(t, k, &v[k])) return ap_op_fail(c, AP_ERR_FORMAT, "input %zu is short", i);
  *n = (int)count;
  return AP_OK;
}

static ap_status set_dims(ap_op_context *c, str_map *m, const int64_t *v, int n) {
  for (int k = 0; k < n; k++) {
    if (v[k] < 0 || v[k] > INT32_MAX)
      return ap_op_fail(c, AP_ERR_FORMAT, "output dim %d would be %lld", k, (long long)v[k]);
    m->dims[k] = (int32_t)v[k];
  }
  m->rank = n;
  return elements(m->dims, n) == SIZE_MAX
             ? ap_op_fail(c, AP_ERR_OVERFLOW, "output element count overflows")
             : AP_OK;
}

static ap_status reshape(ap_op_context *c, str_map *m, ap_op_options *o) {
  int64_t v[AP_MAX_DIMS];
  int n = 0;
  ap_tensor shape;
  ap_status s;
  if (c->info.inputs.n > 1 && ap_op_input(c, 1, &shape) && shape.data) {
    if ((s = int_vector(c, &shape, 1, v, &n)) != AP_OK) return s;
  } else if (o->kind == AP_OPTIONS_RESHAPE && o->reshape.new_shape.v &&
             o->reshape.new_shape.n <= AP_MAX_DIMS) {
    n = (int)o->reshape.new_shape.n;
    for (int k = 0; k < n; k++)
      v[k] = o->reshape.new_shape.v[k];
  } else {
    return ap_op_fail(c, AP_ERR_FORMAT, "no new shape (input 1 or the options)");
  }
  size_t have = elements(m->in[0].dims, m->in[0].rank), known = 1;
  int infer = -1;
  for (int k = 0; k < n; k++) {
    if (v[k] == -1 && infer < 0)
      infer = k;
    else if (v[k] < 0 || !ap_mul_size(known, (size_t)v[k], &known))
      return ap_op_fail(c, AP_ERR_FORMAT, "new shape dim %d is %lld", k, (long long)v[k]);
  }
  if (infer >= 0) v[infer] = known ? (int64_t)(have / known) : 0;
  if ((s = set_dims(c, m, v, n)) != AP_OK) return s;
  if (elements(m->dims, n) != have)
    return ap_op_fail(c, AP_ERR_FORMAT, "cannot reshape %zu strings to %zu", have,
                      elements(m->dims, n));
  return AP_OK;
}

static ap_status squeeze(ap_op_context *c, str_map *m, ap_op_options *o) {
  const ap_tensor *t = &m->in[0];
  bool drop[AP_MAX_DIMS] = {false};
  if (o->kind == AP_OPTIONS_SQUEEZE && o->squeeze.squeeze_dims.n) {
    for (size_t k = 0; k < o->squeeze.squeeze_dims.n; k++) {
      int32_t a = o->squeeze.squeeze_dims.v[k];
      if (a < 0) a += t->rank;
      if (a < 0 || a >= t->rank || t->dims[a] != 1)
        return ap_op_fail(c, AP_ERR_FORMAT, "squeeze_dims[%zu] = %d is no dim of size 1", k,
                          o->squeeze.squeeze_dims.v[k]);
      drop[a] = true;
    }
  } else {
    for (int a = 0; a < t->rank; a++)
      drop[a] = t->dims[a] == 1;
  }
  m->rank = 0;
  for (int a = 0; a < t->rank; a++)
    if (!drop[a]) m->dims[m->rank++] = t->dims[a];
  return AP_OK;
}

static ap_status expand_dims(ap_op_context *c, str_map *m) {
  const ap_tensor *t = &m->in[0];
  ap_tensor ax;
  int64_t a;
  ap_status s = input(c, 1, &ax, false);
  if (s != AP_OK) return s;
  if (!int_at(&ax, 0, &a)) return ap_op_fail(c, AP_ERR_UNSUPPORTED, "axis: int32 or int64");
  if (a < 0) a += t->rank + 1;
  if (a < 0 || a > t->rank || t->rank >= AP_MAX_DIMS)
    return ap_op_fail(c, AP_ERR_FORMAT, "axis out of range for rank %d", t->rank);
  m->rank = t->rank + 1;
  for (int k = 0, j = 0; k < m->rank; k++)
    m->dims[k] = k == a ? 1 : t->dims[j++];
  return AP_OK;
}

static ap_status gather(ap_op_context *c, str_map *m, ap_op_options *o) {
  const ap_tensor *p = &m->in[0], *ix = &m->in[1];
  if (ix->type != AP_INT32 && ix->type != AP_INT64)
    return ap_op_fail(c, AP_ERR_UNSUPPORTED, "indices are %s (int32 or int64)",
                      ap_dtype_name(ix->type));
  int axis = o->kind == AP_OPTIONS_GATHER ? o->gather.axis : 0;
  if (o->kind == AP_OPTIONS_GATHER && o->gather.batch_dims != 0)
    return ap_op_fail(c, AP_ERR_UNSUPPORTED, "batch_dims %d on strings", o->gather.batch_dims);
  if (axis < 0) axis += p->rank;
  if (axis < 0 || axis >= p->rank || p->rank + ix->rank - 1 > AP_MAX_DIMS)
    return ap_op_fail(c, AP_ERR_FORMAT, "axis %d for params of rank %d", axis, p->rank);
  m->count = (size_t)p->dims[axis];
  m->inner = elements(p->dims + axis + 1, p->rank - axis - 1);
  m->rank = 0;
  for (int k = 0; k < axis; k++)
    m->dims[m->rank++] = p->dims[k];
  for (int k = 0; k < ix->rank; k++)
    m->dims[m->rank++] = ix->dims[k];
  for (int k = axis + 1; k < p->rank; k++)
    m->dims[m->rank++] = p->dims[k];
  return AP_OK;
}

static ap_status gather_nd(ap_op_context *c, str_map *m) {
  const ap_tensor *p = &m->in[0], *ix = &m->in[1];
  if ((ix->type != AP_INT32 && ix->type != AP_INT64) || ix->rank < 1)
    return ap_op_fail(c, AP_ERR_UNSUPPORTED, "indices: int32 or int64 of rank >= 1");
  int depth = ix->dims[ix->rank - 1];
  if (depth < 1 || depth > p->rank || ix->rank - 1 + p->rank - depth > AP_MAX_DIMS)
    return ap_op_fail(c, AP_ERR_FORMAT, "index depth %d for params of rank %d", depth, p->rank);
  m->inner = elements(p->dims + depth, p->rank - depth);
  m->rank = 0;
  for (int k = 0; k < ix->rank - 1; k++)
    m->dims[m->rank++] = ix->dims[k];
  for (int k = depth; k < p->rank; k++)
    m->dims[m->rank++] = p->dims[k];
  return AP_OK;
}

static ap_status concatenation(ap_op_context *c, str_map *m, ap_op_options *o) {
  const ap_tensor *t = &m->in[0];
  int axis = o->kind == AP_OPTIONS_CONCATENATION ? o->concatenation.axis : 0;
  if (axis < 0) axis += t->rank;
  if (axis < 0 || axis >= t->rank)
    return ap_op_fail(c, AP_ERR_FORMAT, "axis %d for rank %d", axis, t->rank);
  m->axis = axis;
  m->rank = t->rank;
  memcpy(m->dims, t->dims, sizeof m->dims);
  m->dims[axis] = 0;
  for (size_t j = 0; j < m->n_in; j++) {
    const ap_tensor *u = &m->in[j];
    if (u->rank != t->rank) return ap_op_fail(c, AP_ERR_FORMAT, "input %zu: rank differs", j);
    for (int k = 0; k < t->rank; k++)
      if (k != axis && u->dims[k] != t->dims[k])
        return ap_op_fail(c, AP_ERR_FORMAT, "input %zu: dim %d is %d, not %d", j, k, u->dims[k],
                          t->dims[k]);
    if ((int64_t)m->dims[axis] + u->dims[axis] > INT32_MAX)
      return ap_op_fail(c, AP_ERR_OVERFLOW, "concatenated dim overflows");
    m->dims[axis] += u->dims[axis];
  }
  m->inner = elements(t->dims + axis + 1, t->rank - axis - 1);
  return AP_OK;
}

static ap_status slice_or_tile(ap_op_context *c, str_map *m) {
  const ap_tensor *t = &m->in[0];
  int64_t a[AP_MAX_DIMS], b[AP_MAX_DIMS];
  int na, nb = t->rank;
  ap_tensor x;
  ap_status s = input(c, 1, &x, false);
  if (s == AP_OK) s = int_vector(c, &x, 1, a, &na);
  if (s != AP_OK) return s;
  if (m->builtin == AP_KB_SLICE) {
    if ((s = input(c, 2, &x, false)) != AP_OK || (s = int_vector(c, &x, 2, b, &nb)) != AP_OK)
      return s;
  }
  if (na != t->rank || nb != t->rank)
    return ap_op_fail(c, AP_ERR_FORMAT, "%d and %d values for rank %d", na, nb, t->rank);
  m->rank = t->rank;
  for (int d = 0; d < t->rank; d++) {
    int64_t out;
    if (m->builtin == AP_KB_TILE) {
      if (a[d] < 0 || a[d] > INT32_MAX || (out = a[d] * t->dims[d]) > INT32_MAX)
        return ap_op_fail(c, AP_ERR_FORMAT, "multiple %d is %lld", d, (long long)a[d]);
    } else {
      out = a[d] >= 0 && a[d] <= t->dims[d] && b[d] == -1 ? t->dims[d] - a[d] : b[d];
      if (a[d] < 0 || a[d] > t->dims[d] || out < 0 || out > t->dims[d] - a[d])
        return ap_op_fail(c, AP_ERR_FORMAT, "dim %d: begin %lld size %lld outside %d", d,
                          (long long)a[d], (long long)b[d], t->dims[d]);
      m->begin[d] = a[d];
    }
    m->dims[d] = (int32_t)out;
  }
  return elements(m->dims, m->rank) == SIZE_MAX ? ap_op_fail(c, AP_ERR_OVERFLOW, "too large")
                                                : AP_OK;
}

/* EQUAL, NOT_EQUAL: numpy broadcasting into a bool output. */
static ap_status compare(ap_op_context *c, str_map *m) {
  const ap_tensor *a = &m->in[0], *b = &m->in[1];
  int rank = a->rank > b->rank ? a->rank : b->rank;
  int32_t da[AP_MAX_DIMS], db[AP_MAX_DIMS];
  for (int k = 0; k < rank; k++) {
    int ka = k - (rank - a->rank), kb = k - (rank - b->rank);
    da[k] = ka >= 0 ? a->dims[ka] : 1;
    db[k] = kb >= 0 ? b->dims[kb] : 1;
    if (da[k] != db[k] && da[k] != 1 && db[k] != 1)
      return ap_op_fail(c, AP_ERR_FORMAT, "dims %d and %d do not broadcast", da[k], db[k]);
    m->dims[k] = da[k] == 1 ? db[k] : da[k];
  }
  m->rank = rank;
  size_t n = elements(m->dims, rank), ca[AP_MAX_DIMS], cb[AP_MAX_DIMS];
  rt_tensor *x = output(c, 0);
  if (!x || x->type != AP_BOOL) return ap_op_fail(c, AP_ERR_FORMAT, "output 0 is not BOOL");
  ap_status s =
      n == SIZE_MAX ? AP_ERR_OVERFLOW : rt_dynamic_set(c->it, c->subgraph, x, m->dims, rank, n);
  if (s != AP_OK) return s;
  for (size_t i = 0; i < n; i++) {
    coords(i, m->dims, rank, ca);
    for (int k = 0; k < rank; k++) {
      cb[k] = db[k] == 1 ? 0 : ca[k];
      ca[k] = da[k] == 1 ? 0 : ca[k];
    }
    const uint8_t *sa, *sb;
    size_t la, lb;
    ap_string_at(a->data, flat(ca, da, rank), &sa, &la);
    ap_string_at(b->data, flat(cb, db, rank), &sb, &lb);
    bool eq = la == lb && (la == 0 || memcmp(sa, sb, la) == 0);
    ((uint8_t *)x->data)[i] = (uint8_t)(eq == (m->builtin == AP_KB_EQUAL));
  }
  return AP_OK;
}

static ap_status string_eval(ap_op_context *c) {
  str_map m = {.builtin = c->info.builtin, .bad = -1};
  /* A graph feeding an op its own output (loadable, but malformed): growing the output's block
   * would free the input's bytes under the op. */
  for (size_t i = 0; i < c->info.inputs.n; i++)
    if (c->info.outputs.n && c->info.inputs.v[i] == c->info.outputs.v[0])
      return ap_op_fail(c, AP_ERR_FORMAT, "input %zu is its own output (tensor %d)", i,
                        c->info.inputs.v[i]);
  ap_op_options o;
  if (ap_model_op_options(c->it->model, c->subgraph, c->index, &o) != AP_OK)
    memset(&o, 0, sizeof o);
  int32_t b = c->info.builtin;
  bool all_strings = b == KB_CONCATENATION || b == AP_KB_EQUAL || b == AP_KB_NOT_EQUAL;
  m.n_in = b == KB_CONCATENATION ? c->info.inputs.n : 1;
  if (m.n_in > 8) return ap_op_fail(c, AP_ERR_UNSUPPORTED, "more than 8 string inputs");
  if (all_strings && b != KB_CONCATENATION) m.n_in = 2;
  if (b == AP_KB_GATHER || b == AP_KB_GATHER_ND) m.n_in = 2;
  size_t first = b == AP_KB_FILL ? 1 : 0; /* FILL's string is its input 1 */
  ap_status s = AP_OK;
  if (b == AP_KB_FILL) {
    int64_t v[AP_MAX_DIMS];
    int n;
    if ((s = input(c, 0, &m.in[0], false)) != AP_OK ||
        (s = int_vector(c, &m.in[0], 0, v, &n)) != AP_OK || (s = set_dims(c, &m, v, n)) != AP_OK)
      return s;
    m.n_in = 2;
  }
  for (size_t i = first; i < m.n_in; i++) {
    bool str = all_strings || i == 0 || (b == AP_KB_FILL && i == 1);
    if ((s = input(c, i, &m.in[i], str)) != AP_OK) return s;
  }
  switch (b) {
  case AP_KB_GATHER: s = gather(c, &m, &o); break;
  case AP_KB_GATHER_ND: s = gather_nd(c, &m); break;
  case AP_KB_RESHAPE: s = reshape(c, &m, &o); break;
  case AP_KB_SQUEEZE: s = squeeze(c, &m, &o); break;
  case AP_KB_EXPAND_DIMS: s = expand_dims(c, &m); break;
  case KB_CONCATENATION: s = concatenation(c, &m, &o); break;
  case AP_KB_SLICE:
  case AP_KB_TILE: s = slice_or_tile(c, &m); break;
  case AP_KB_FILL:
    if (ap_string_count(m.in[1].data) != 1)
      s = ap_op_fail(c, AP_ERR_FORMAT, "the value holds %zu strings (one)",
                     ap_string_count(m.in[1].data));
    break;
  case AP_KB_EQUAL:
  case AP_KB_NOT_EQUAL: return compare(c, &m);
  default: return ap_op_fail(c, AP_ERR_UNSUPPORTED, "no string kernel");
  }
  return s != AP_OK ? s : emit(c, &m);
}

static const ap_op_kernel string_kernel = {.prepare = NULL, .eval = string_eval};

bool rt_string_op(const rt_op *o) {
  return rt_op_is_custom(o) &&
         (rt_op_custom(o) == &string_kernel || rt_hashtable_op(rt_op_custom(o)));
}

static bool is_string(const ap_op_context *c, ap_ivec v, size_t i) {
  ap_tensor_info ti;
  return i < v.n && v.v[i] >= 0 &&
         ap_model_tensor(c->it->model, c->subgraph, (size_t)v.v[i], &ti) == AP_OK &&
         ti.type == AP_STRING;
}

bool rt_string_kernel(ap_op_context *c) {
  if (c->info.custom) return false;
  const ap_op_kernel *table = rt_hashtable_kernel(c->info.builtin);
  if (table) {
    c->op->kernel = (uintptr_t)table | 1u;
    return true;
  }
  switch (c->info.builtin) {
  case AP_KB_GATHER:
  case AP_KB_GATHER_ND:
  case AP_KB_RESHAPE:
  case AP_KB_SQUEEZE:
  case AP_KB_EXPAND_DIMS:
  case KB_CONCATENATION:
  case AP_KB_SLICE:
  case AP_KB_TILE:
  case AP_KB_EQUAL:
  case AP_KB_NOT_EQUAL: break;
  case AP_KB_FILL:
    if (!is_string(c, c->info.inputs, 1)) return false;
    c->op->kernel = (uintptr_t)&string_kernel | 1u;
    return true;
  default: return false;
  }
  if (!is_string(c, c->info.inputs, 0)) return false;
  c->op->kernel = (uintptr_t)&string_kernel | 1u;
  return true;
}

/* Its outputs' shapes and bytes follow from its inputs' values: dynamic. (A hash table op
 * prepares itself.) */
ap_status rt_string_prepare(ap_op_context *c) {
  const ap_op_kernel *k = rt_op_custom(c->op);
  if (k != &string_kernel) return k->prepare(c);
  return c->phase == RT_PREPARE ? rt_mark_dynamic(c) : AP_OK;
}

ap_status rt_strings_mark(ap_interpreter *it) {
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    for (uint32_t k = 0; k < it->sg[sg].record_count; k++) {
      rt_tensor *x = &it->sg[sg].tensors[k];
      if (x->type != AP_STRING) continue;
      if (x->flags & RT_VARIABLE)
        return rt_fail(it, AP_ERR_UNSUPPORTED, "subgraph %u tensor %u: a variable string", sg,
                       x->index);
      ap_status s = rt_dynamic_track(it, sg, x);
      if (s != AP_OK) return s;
    }
  return AP_OK;
}

ap_status ap_interpreter_set_string(ap_interpreter *it, size_t subgraph, size_t tensor,
                                    const void *buffer, size_t size, const int32_t *dims,
                                    int rank) {
  if (!it) return AP_ERR_ARG;
  if (!it->sg || !it->allocated)
    return rt_fail(it, AP_ERR_NOT_ALLOCATED,
                   "not allocated: call ap_interpreter_allocate() before setting a string");
  if (subgraph >= it->sg_count || tensor >= it->sg[subgraph].tensor_count)
    return rt_fail(it, AP_ERR_RANGE, "subgraph %zu tensor %zu: out of range", subgraph, tensor);
  rt_tensor *x = rt_rec(it, subgraph, tensor);
  if (!x || x->type != AP_STRING)
    return rt_fail(it, AP_ERR_ARG, "subgraph %zu tensor %zu: not a non-constant string tensor",
                   subgraph, tensor);
  if (rank < 0 || rank > AP_MAX_DIMS || (rank && !dims))
    return rt_fail(it, AP_ERR_ARG, "rank %d (0 to %d, with dims)", rank, AP_MAX_DIMS);
  size_t count = 1, used = 0;
  for (int k = 0; k < rank; k++)
    if (dims[k] < 0 || !ap_mul_size(count, (size_t)dims[k], &count))
      return rt_fail(it, AP_ERR_ARG, "dim %d is %d", k, dims[k]);
  char why[160];
  if (ap_string_buffer_check(buffer, size, count, &used, why, sizeof why) != AP_OK)
    return rt_fail(it, AP_ERR_FORMAT, "subgraph %zu tensor %zu: %s", subgraph, tensor, why);
  ap_status s = rt_dynamic_set(it, (uint32_t)subgraph, x, dims, rank, used);
  if (s == AP_OK && used) memcpy(x->data, buffer, used);
  return s;
}
