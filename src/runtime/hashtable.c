/* TFLite's static hash tables (kernels/hashtable/): HASHTABLE makes table `table_id` (shared by
 * every HASHTABLE op of that id, in any subgraph) and outputs its handle (int32 table_id);
 * HASHTABLE_IMPORT fills it once from keys and values (later imports are ignored, as TFLite's
 * StaticHashtable); HASHTABLE_FIND maps keys to values, default_value for a missing key;
 * HASHTABLE_SIZE gives its entry count (int64 [1]). Keys and values: int64 -> string or
 * string -> int64, TFLite's two kinds. A duplicate key keeps its first value.
 *
 * Memory: a table's record is persistent (the HASHTABLE op's state); its entries are copied at
 * import into the import op's block of the dynamic region (runtime.h: dynamic tensors), with a
 * sorted permutation for binary search, so FIND allocates nothing but its output's block. */
#include "arenaplan/options.h"
#include "runtime_internal.h"

#include <string.h>

enum { HT_CREATE = 136, HT_FIND = 137, HT_IMPORT = 138, HT_SIZE = 139 };
enum { OPTIONS_HASHTABLE = 107 }; /* BuiltinOptions: HashtableOptions */

typedef struct rt_table {
  int32_t id;
  int key_type, value_type; /* AP_INT64 / AP_STRING */
  bool imported;
  size_t count;           /* entries given */
  size_t distinct;        /* keys (HASHTABLE_SIZE: a duplicate key is one entry) */
  const int64_t *ints;    /* the int64 side (keys or values), count entries */
  const uint8_t *strings; /* the string side: a string buffer of count strings */
  const uint32_t *order;  /* keys' order, ascending (ties: first given first) */
} rt_table;

static int32_t raw_int(const ap_model *m, size_t sg, size_t op, unsigned field) {
  ap_raw_field f;
  int32_t v = 0;
  if (ap_model_op_raw_option(m, sg, op, 1, field, &f) != AP_OK || !f.data ||
      f.table_type != OPTIONS_HASHTABLE)
    return 0;
  if (f.size == 1) v = *(const int8_t *)f.data;
  if (f.size == 4) memcpy(&v, f.data, 4);
  return v;
}

static rt_table *state_of(const ap_interpreter *it, uint32_t sg, uint32_t k) {
  const rt_op *o = &it->sg[sg].ops[k];
  return rt_op_is_custom(o) && o->ext ? ((rt_custom *)o->ext)->state : NULL;
}

/* The table of handle `id`: the first HASHTABLE op's of that id, in model order. */
static rt_table *find_table(const ap_interpreter *it, int32_t id) {
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    for (uint32_t k = 0; k < it->sg[sg].op_count; k++) {
      rt_table *t = state_of(it, sg, k);
      ap_op_info op;
      if (t && ap_model_op(it->model, sg, k, &op) == AP_OK && !op.custom &&
          op.builtin == HT_CREATE && t->id == id)
        return t;
    }
  return NULL;
}

static ap_status handle(ap_op_context *c, rt_table **out) {
  ap_tensor h;
  int32_t id = -1;
  if (!ap_op_input(c, 0, &h) || !h.data || h.bytes < 4)
    return ap_op_fail(c, AP_ERR_FORMAT, "input 0 holds no table handle");
  memcpy(&id, h.data, 4);
  *out = find_table(c->it, id);
  if (!*out) return ap_op_fail(c, AP_ERR_FORMAT, "no HASHTABLE op makes table %d", id);
  return AP_OK;
}

static ap_status set_output(ap_op_context *c, size_t i, const int32_t *dims, int rank, size_t bytes,
                            void **data) {
  rt_tensor *x = i < c->info.outputs.n && c->info.outputs.v[i] >= 0
                     ? rt_rec(c->it, c->subgraph, (size_t)c->info.outputs.v[i])
                     : NULL;
  if (!x) return ap_op_fail(c, AP_ERR_FORMAT, "output %zu is absent or constant", i);
  ap_status s = rt_dynamic_set(c->it, c->subgraph, x, dims, rank, bytes);
  *data = x->data;
  return s;
}

static ap_status create_prepare(ap_op_context *c) {
  if (c->phase != RT_PREPARE) return AP_OK; /* a resize's re-run keeps allocate's state */
  const ap_model *m = c->it->model;
  rt_table *t = ap_op_persistent(c, sizeof *t);
  if (!t) return rt_nomem(c->it);
  t->id = raw_int(m, c->subgraph, c->index, 0);
  t->key_type = raw_int(m, c->subgraph, c->index, 1);
  t->value_type = raw_int(m, c->subgraph, c->index, 2);
  if (!((t->key_type == AP_INT64 && t->value_type == AP_STRING) ||
        (t->key_type == AP_STRING && t->value_type == AP_INT64)))
    return ap_op_fail(c, AP_ERR_UNSUPPORTED,
                      "table %d: %s -> %s (int64 -> string or string -> "
                      "int64)",
                      t->id, ap_dtype_name(t->key_type), ap_dtype_name(t->value_type));
  ap_op_set_state(c, t);
  return rt_mark_dynamic(c);
}

static ap_status create_eval(ap_op_context *c) {
  rt_table *t = ap_op_state(c);
  static const int32_t one[] = {1};
  void *data = NULL;
  ap_status s = set_output(c, 0, one, 1, 4, &data);
  if (s == AP_OK) memcpy(data, &t->id, 4);
  return s;
}

/* Key i against key j of a table being imported (strings: bytes, then length). */
static int compare(const rt_table *t, uint32_t i, uint32_t j) {
  int r;
  if (t->key_type == AP_INT64) {
    r = (t->ints[i] > t->ints[j]) - (t->ints[i] < t->ints[j]);
  } else {
    const uint8_t *a, *b;
    size_t la, lb;
    ap_string_at(t->strings, i, &a, &la);
    ap_string_at(t->strings, j, &b, &lb);
    r = memcmp(a, b, la < lb ? la : lb);
    if (!r) r = (la > lb) - (la < lb);
  }
  return r ? r : (i > j) - (i < j);
}

static bool same_key(const rt_table *t, uint32_t i, uint32_t j) {
  if (t->key_type == AP_INT64) return t->ints[i] == t->ints[j];
  const uint8_t *a, *b;
  size_t la, lb;
  ap_string_at(t->strings, i, &a, &la);
  ap_string_at(t->strings, j, &b, &lb);
  return la == lb && (la == 0 || memcmp(a, b, la) == 0);
}

static void sift(const rt_table *t, uint32_t *o, size_t root, size_t n) {
  for (size_t child; (child = 2 * root + 1) < n; root = child) {
    if (child + 1 < n && compare(t, o[child], o[child + 1]) < 0) child++;
    if (compare(t, o[root], o[child]) >= 0) return;
    uint32_t x = o[root];
    o[root] = o[child];
    o[child] = x;
  }
}

/* IMPORT's and FIND's inputs: the table, keys (input 1) and `what` (input 2: the values, or the
 * default value), typed as the table's keys and values. */
static ap_status table_inputs(ap_op_context *c, rt_table **t, ap_tensor *k, ap_tensor *v,
                              const char *what) {
  ap_status s = handle(c, t);
  if (s != AP_OK) return s;
  if (!ap_op_input(c, 1, k) || !ap_op_input(c, 2, v) || !k->data || !v->data)
    return ap_op_fail(c, AP_ERR_NOT_ALLOCATED, "keys or %s have no value yet", what);
  if (k->type != (*t)->key_type || v->type != (*t)->value_type)
    return ap_op_fail(c, AP_ERR_FORMAT, "keys %s and %s %s for a %s -> %s table",
                      ap_dtype_name(k->type), what, ap_dtype_name(v->type),
                      ap_dtype_name((*t)->key_type), ap_dtype_name((*t)->value_type));
  return AP_OK;
}

static ap_status import_eval(ap_op_context *c) {
  rt_table *t;
  ap_tensor k, v;
  ap_status s = table_inputs(c, &t, &k, &v, "values");
  if (s != AP_OK || t->imported) return s;
  const ap_tensor *ints = k.type == AP_INT64 ? &k : &v, *strs = k.type == AP_STRING ? &k : &v;
  size_t n = ints->bytes / 8, sbytes = strs->bytes, total, order;
  if (ap_string_count(strs->data) != n)
    return ap_op_fail(c, AP_ERR_FORMAT, "%zu keys for %zu values",
                      k.type == AP_INT64 ? n : ap_string_count(k.data),
                      v.type == AP_INT64 ? n : ap_string_count(v.data));
  if (n > UINT32_MAX || !ap_mul_size(n, 8, &total) || !ap_mul_size(n, 4, &order) ||
      !ap_add_size(total, order, &total) || !ap_add_size(total, sbytes + 8, &total))
    return ap_op_fail(c, AP_ERR_OVERFLOW, "a table of %zu entries overflows", n);
  uint8_t *block;
  if ((s = rt_dynamic_scratch(c, total, (void **)&block)) != AP_OK) return s;
  memcpy(block, ints->data, n * 8);
  uint32_t *o = (uint32_t *)(block + n * 8);
  uint8_t *strings = (uint8_t *)(o + n);
  memcpy(strings, strs->data, sbytes);
  t->ints = (const int64_t *)block;
  t->strings = strings;
  t->count = n;
  for (size_t i = 0; i < n; i++)
    o[i] = (uint32_t)i;
  for (size_t i = n / 2; i-- > 0;) /* heapsort: no recursion, no memory */
    sift(t, o, i, n);
  for (size_t end = n; end-- > 1;) {
    uint32_t x = o[0];
    o[0] = o[end];
    o[end] = x;
    sift(t, o, 0, end);
  }
  t->order = o;
  t->distinct = 0;
  for (size_t i = 0; i < n; i++) /* sorted: a new key differs from the one before it */
    t->distinct += i == 0 || !same_key(t, o[i - 1], o[i]);
  t->imported = true;
  return AP_OK;
}

/* The entry of key `key` (int64 *ik, or string s/len): its index, or -1. */
static int64_t lookup(const rt_table *t, int64_t ik, const uint8_t *s, size_t len) {
  size_t lo = 0, hi = t->count;
  while (lo < hi) { /* the first entry not below the key */
    size_t mid = lo + (hi - lo) / 2;
    uint32_t e = t->order[mid];
    int r;
    if (t->key_type == AP_INT64) {
      r = (t->ints[e] > ik) - (t->ints[e] < ik);
    } else {
      const uint8_t *a;
      size_t la;
      ap_string_at(t->strings, e, &a, &la);
      r = memcmp(a, s, la < len ? la : len);
      if (!r) r = (la > len) - (la < len);
    }
    if (r < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == t->count) return -1;
  uint32_t e = t->order[lo];
  if (t->key_type == AP_INT64) return t->ints[e] == ik ? (int64_t)e : -1;
  const uint8_t *a;
  size_t la;
  ap_string_at(t->strings, e, &a, &la);
  return la == len && (len == 0 || memcmp(a, s, len) == 0) ? (int64_t)e : -1;
}

static ap_status find_eval(ap_op_context *c) {
  rt_table *t;
  ap_tensor k, d;
  ap_status s = table_inputs(c, &t, &k, &d, "default_value");
  if (s != AP_OK) return s;
  size_t n = 1;
  for (int i = 0; i < k.rank; i++)
    if (!ap_mul_size(n, (size_t)k.dims[i], &n)) return ap_op_fail(c, AP_ERR_OVERFLOW, "keys");
  if (k.type == AP_STRING ? ap_string_count(k.data) != n : k.bytes / 8 != n)
    return ap_op_fail(c, AP_ERR_FORMAT, "keys hold other than %zu elements", n);
  int64_t e;
  void *out = NULL;
  if (t->value_type == AP_INT64) { /* string keys */
    int64_t dflt;
    if (d.bytes < 8) return ap_op_fail(c, AP_ERR_FORMAT, "default_value is empty");
    memcpy(&dflt, d.data, 8);
    if ((s = set_output(c, 0, k.dims, k.rank, n * 8, &out)) != AP_OK) return s;
    for (size_t i = 0; i < n; i++) {
      const uint8_t *ks;
      size_t kl;
      ap_string_at(k.data, i, &ks, &kl);
      e = t->imported ? lookup(t, 0, ks, kl) : -1;
      memcpy((uint8_t *)out + 8 * i, e >= 0 ? &t->ints[e] : &dflt, 8);
    }
    return AP_OK;
  }
  /* int64 keys -> strings: sizes first, then the buffer. */
  if (ap_string_count(d.data) < 1) return ap_op_fail(c, AP_ERR_FORMAT, "default_value is empty");
  size_t total;
  if (n > INT32_MAX - 2 || !ap_mul_size(n + 2, 4, &total))
    return ap_op_fail(c, AP_ERR_OVERFLOW, "%zu keys", n);
  const uint8_t *vs;
  size_t vl;
  for (int pass = 0; pass < 2; pass++) {
    int32_t at = (int32_t)((n + 2) * 4), count = (int32_t)n;
    if (pass == 1) {
      if ((s = set_output(c, 0, k.dims, k.rank, total, &out)) != AP_OK) return s;
      memcpy(out, &count, 4);
    }
    for (size_t i = 0; i < n; i++) {
      int64_t key;
      memcpy(&key, (const uint8_t *)k.data + 8 * i, 8);
      e = t->imported ? lookup(t, key, NULL, 0) : -1;
      if (e >= 0)
        ap_string_at(t->strings, (size_t)e, &vs, &vl);
      else
        ap_string_at(d.data, 0, &vs, &vl);
      if (pass == 0) {
        if (!ap_add_size(total, vl, &total) || total > INT32_MAX)
          return ap_op_fail(c, AP_ERR_OVERFLOW, "values exceed 2 GiB");
        continue;
      }
      memcpy((uint8_t *)out + 4 * (1 + i), &at, 4);
      if (vl) memcpy((uint8_t *)out + at, vs, vl);
      at += (int32_t)vl;
    }
    if (pass == 1) memcpy((uint8_t *)out + 4 * (1 + n), &at, 4);
  }
  return AP_OK;
}

static ap_status size_eval(ap_op_context *c) {
  rt_table *t;
  ap_status s = handle(c, &t);
  static const int32_t one[] = {1};
  void *out = NULL;
  if (s == AP_OK) s = set_output(c, 0, one, 1, 8, &out);
  if (s == AP_OK) {
    int64_t n = t->imported ? (int64_t)t->distinct : 0;
    memcpy(out, &n, 8);
  }
  return s;
}

/* Their outputs (and the import's block) are sized while running: dynamic. */
static ap_status dynamic_prepare(ap_op_context *c) {
  return c->phase == RT_PREPARE ? rt_mark_dynamic(c) : AP_OK;
}

static const ap_op_kernel kernels[] = {
    {create_prepare, create_eval},
    {dynamic_prepare, find_eval},
    {dynamic_prepare, import_eval},
    {dynamic_prepare, size_eval},
};

const ap_op_kernel *rt_hashtable_kernel(int32_t builtin) {
  return builtin >= HT_CREATE && builtin <= HT_SIZE ? &kernels[builtin - HT_CREATE] : NULL;
}

bool rt_hashtable_op(const ap_op_kernel *k) {
  return k >= kernels && k < kernels + sizeof kernels / sizeof kernels[0];
}
