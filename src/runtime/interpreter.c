/* The interpreter: create, allocate (prepare, plan, place), resize, invoke. */
#include "runtime_internal.h"

#include <string.h>

ap_interpreter_options ap_interpreter_defaults(void) {
  return (ap_interpreter_options){.strategy = "best", .alignment = 16};
}

/* Bytes of the records create makes, laid out after the struct in one block. */
typedef struct layout {
  size_t sg, slots, tensors, ops, dims, ranks, total;
} layout;

static bool add_part(size_t *at, size_t n, size_t size, size_t *off) {
  size_t bytes;
  *off = (*at + 7) & ~(size_t)7;
  return ap_mul_size(n, size, &bytes) && ap_add_size(*off, bytes, at);
}

/* Entry inputs, the inputs a caller may resize: subgraph 0's (slots 0 .. its input count - 1),
 * then those of every other signature's subgraph, in signature order (a subgraph two signatures
 * share once). Returns their count; fills *sg and *t for slot `slot` when it is below it.
 * Walked once, by ap_interpreter_create, into the entry map (entry_at reads it): a planned
 * firmware's interpreter has subgraph 0's inputs only and links no signature reading. */
static size_t entry_inputs(const ap_model *m, size_t slot, uint32_t *sg, int32_t *t) {
  ap_ivec in = ap_model_subgraph_inputs(m, 0);
  size_t count = in.n;
  if (slot < count) {
    *sg = 0;
    *t = in.v[slot];
  }
  for (size_t i = 0, n = ap_model_signature_count(m); i < n; i++) {
    ap_signature_info si;
    if (ap_model_signature(m, i, &si) != AP_OK || si.subgraph == 0) continue;
    bool seen = false;
    for (size_t j = 0; j < i && !seen; j++) {
      ap_signature_info sj;
      seen = ap_model_signature(m, j, &sj) == AP_OK && sj.subgraph == si.subgraph;
    }
    if (seen) continue;
    in = ap_model_subgraph_inputs(m, si.subgraph);
    if (slot >= count && slot - count < in.n) {
      *sg = si.subgraph;
      *t = in.v[slot - count];
    }
    count += in.n;
  }
  return count;
}

/* The entry map: (subgraph, tensor) of each entry input after subgraph 0's, right after the
 * entry inputs' ranks in the block init_entries makes. */
static int32_t *entry_map(const ap_interpreter *it) {
  uintptr_t end = (uintptr_t)(it->input_rank + it->entry_input_count);
  return (int32_t *)((end + 3) & ~(uintptr_t)3);
}

/* Entry input `slot` (below entry_input_count): its subgraph and tensor (-1: none). */
static void entry_at(const ap_interpreter *it, size_t slot, uint32_t *sg, int32_t *t) {
  if (slot < it->input_count) {
    *sg = 0;
    *t = ap_model_subgraph_inputs(it->model, 0).v[slot];
    return;
  }
  const int32_t *m = entry_map(it) + 2 * (slot - it->input_count);
  *sg = (uint32_t)m[0];
  *t = m[1];
}

static bool compute_layout(const ap_model *m, size_t nin, bool max, layout *l) {
  size_t at = sizeof(ap_interpreter), nsg = ap_model_subgraph_count(m), nt = 0, no = 0, nr = 0;
  for (size_t sg = 0; sg < nsg; sg++) {
    size_t records = 0, count = ap_model_tensor_count(m, sg);
    for (size_t t = 0; t < count; t++) {
      ap_tensor_info ti;
      records += ap_model_tensor(m, sg, t, &ti) == AP_OK && (!ti.is_constant || ti.is_variable);
    }
    if (records >= UINT16_MAX) return false; /* slots are 16-bit */
    if (!ap_add_size(nt, count, &nt) || !ap_add_size(no, ap_model_op_count(m, sg), &no) ||
        !ap_add_size(nr, records, &nr))
      return false;
  }
  if (nt > UINT32_MAX || no > UINT32_MAX || nsg > UINT32_MAX) return false;
  size_t ndims = nin * AP_MAX_DIMS * (max ? 2 : 1), nranks = nin * (max ? 2 : 1);
  return add_part(&at, nsg, sizeof(rt_subgraph), &l->sg) &&
         add_part(&at, nr, sizeof(rt_tensor), &l->tensors) &&
         add_part(&at, nt, sizeof(uint16_t), &l->slots) &&
         add_part(&at, no, sizeof(rt_op), &l->ops) &&
         add_part(&at, ndims, sizeof(int32_t), &l->dims) &&
         add_part(&at, nranks, sizeof(int8_t), &l->ranks) && ap_add_size(at, 15, &l->total) &&
         ((l->total &= ~(size_t)15), true);
}

/* A tensor's record as the model describes it (and with its resized dims for an input). */
static void reset_tensor(rt_tensor *x, const ap_tensor_info *ti) {
  x->type = (uint8_t)ti->type;
  x->flags = ti->is_variable ? RT_VARIABLE : 0;
  x->dims = ti->shape.v;
  x->rank = (uint16_t)ti->shape.n;
  x->data = NULL;
}

/* Points the entry inputs at their resized dims (or their max dims while planning). */
static void apply_input_dims(ap_interpreter *it, bool at_max) {
  for (size_t i = 0; i < it->entry_input_count; i++) {
    uint32_t sg = 0;
    int32_t t = -1;
    entry_at(it, i, &sg, &t);
    if (t < 0) continue;
    rt_tensor *x = rt_rec(it, sg, (size_t)t);
    if (!x) continue;
    bool max = at_max && it->has_max && i < it->input_count && it->max_rank[i] >= 0;
    const int32_t *d = max ? &it->max_dims[i * AP_MAX_DIMS] : &it->input_dims[i * AP_MAX_DIMS];
    int rank = max ? it->max_rank[i] : it->input_rank[i];
    if (rank < 0) continue;
    x->dims = d;
    x->rank = (uint16_t)rank;
    x->flags |= RT_OWNED_DIMS;
  }
}

static ap_status check_options(ap_interpreter *it, const ap_interpreter_options *o) {
  if ((o->arena != NULL) != (o->arena_size != 0))
    return rt_fail(it, AP_ERR_ARG, "a caller-owned arena needs both a pointer and a size");
  if (o->custom_op_count && !o->custom_ops)
    return rt_fail(it, AP_ERR_ARG, "custom_op_count is %zu but custom_ops is NULL",
                   o->custom_op_count);
  for (size_t i = 0; i < o->custom_op_count; i++)
    if (!o->custom_ops[i].name && o->custom_ops[i].builtin == AP_BUILTIN_CUSTOM)
      return rt_fail(it, AP_ERR_ARG, "custom op %zu has no name", i);
  if (o->max_input_count && !o->max_input_dims)
    return rt_fail(it, AP_ERR_ARG, "max_input_count is %zu but max_input_dims is NULL",
                   o->max_input_count);
  if (o->max_input_count > it->input_count)
    return rt_fail(it, AP_ERR_ARG, "max_input_dims has %zu entries, the model %u inputs",
                   o->max_input_count, it->input_count);
  if (o->kernels < AP_KERNELS_AUTO || o->kernels > AP_KERNELS_FAST)
    return rt_fail(it, AP_ERR_ARG,
                   "kernels %d: expected AP_KERNELS_AUTO, AP_KERNELS_FAST, AP_KERNELS_REFERENCE or "
                   "AP_KERNELS_SMALL",
                   o->kernels);
  if (o->prepare != AP_PREPARE_EACH_INVOKE && o->prepare != AP_PREPARE_ONCE)
    return rt_fail(it, AP_ERR_ARG, "prepare %d: expected AP_PREPARE_EACH_INVOKE or AP_PREPARE_ONCE",
                   o->prepare);
  if (o->threads < 0 || o->threads > AP_MAX_THREADS)
    return rt_fail(it, AP_ERR_ARG, "threads %d: expected 0 to %d", o->threads, AP_MAX_THREADS);
  if (o->alignment > 4096)
    return rt_fail(it, AP_ERR_ARG, "alignment %llu is above 4096",
                   (unsigned long long)o->alignment);
  /* Offsets are multiples of the alignment and tensors are read as their type: an alignment
   * that is no multiple of 8 (int64, double) would hand kernels misaligned pointers. */
  if (o->alignment % 8 != 0)
    return rt_fail(it, AP_ERR_ARG,
                   "alignment %llu: must be a multiple of 8 (the widest element), or 0 for 16",
                   (unsigned long long)o->alignment);
  return AP_OK;
}

static ap_status init_tables(ap_interpreter *it, const ap_interpreter_options *o, const layout *l) {
  const ap_model *m = it->model;
  uint8_t *base = (uint8_t *)it;
  it->sg = (rt_subgraph *)(base + l->sg);
  rt_tensor *tensors = (rt_tensor *)(base + l->tensors);
  uint16_t *slots = (uint16_t *)(base + l->slots);
  rt_op *ops = (rt_op *)(base + l->ops);
  it->input_dims = (int32_t *)(base + l->dims);
  it->input_rank = (int8_t *)(base + l->ranks);
  if (it->has_max) {
    it->max_dims = it->input_dims + it->input_count * AP_MAX_DIMS;
    it->max_rank = it->input_rank + it->input_count;
  }
  /* Current input dims start as the model's (a non-tensor input index keeps rank -1); those
   * of the other entries' inputs: init_entries. */
  ap_ivec in = ap_model_subgraph_inputs(m, 0);
  for (uint32_t i = 0; i < it->input_count; i++) {
    it->input_rank[i] = -1;
    if (it->has_max) it->max_rank[i] = -1;
    ap_tensor_info ti;
    if (in.v[i] < 0 || ap_model_tensor(m, 0, (size_t)in.v[i], &ti) != AP_OK ||
        ti.shape.n > AP_MAX_DIMS)
      continue;
    if (ti.shape.n) memcpy(&it->input_dims[i * AP_MAX_DIMS], ti.shape.v, ti.shape.n * 4);
    it->input_rank[i] = (int8_t)ti.shape.n;
  }
  size_t tb = 0, ob = 0, rb = 0;
  for (uint32_t sg = 0; sg < it->sg_count; sg++) {
    rt_subgraph *r = &it->sg[sg];
    r->tensors = tensors + rb;
    r->slot = slots + tb;
    r->ops = ops + ob;
    r->tensor_count = (uint32_t)ap_model_tensor_count(m, sg);
    r->op_count = (uint32_t)ap_model_op_count(m, sg);
    r->tensor_base = (uint32_t)tb;
    r->op_base = (uint32_t)ob;
    tb += r->tensor_count;
    ob += r->op_count;
    for (uint32_t t = 0; t < r->tensor_count; t++) {
      ap_tensor_info ti;
      ap_status s = ap_model_tensor(m, sg, t, &ti);
      if (s != AP_OK) return rt_fail(it, s, "%s", ap_model_error(m));
      if (ti.shape.n > AP_MAX_DIMS)
        return rt_fail(it, AP_ERR_UNSUPPORTED, "subgraph %u tensor %u: rank %zu (at most %d)", sg,
                       t, ti.shape.n, AP_MAX_DIMS);
      if (ti.type > 255)
        return rt_fail(it, AP_ERR_UNSUPPORTED, "subgraph %u tensor %u: type %d", sg, t, ti.type);
      if (ti.is_constant && !ti.is_variable) continue; /* a variable's data is its start */
      rt_tensor *x = &r->tensors[r->record_count];
      r->slot[t] = (uint16_t)++r->record_count;
      x->index = t;
      reset_tensor(x, &ti);
    }
    rb += r->record_count;
  }
  for (size_t i = 0; i < o->max_input_count; i++) {
    const ap_dims *d = &o->max_input_dims[i];
    if (d->rank == 0 && !d->dims) continue;
    if (d->rank < 0 || d->rank > AP_MAX_DIMS || !d->dims)
      return rt_fail(it, AP_ERR_ARG, "max_input_dims[%zu]: rank %d (1 to %d, with dims)", i,
                     d->rank, AP_MAX_DIMS);
    for (int k = 0; k < d->rank; k++)
      if (d->dims[k] < 0)
        return rt_fail(it, AP_ERR_ARG, "max_input_dims[%zu]: dim %d is %d", i, k, d->dims[k]);
    memcpy(&it->max_dims[i * AP_MAX_DIMS], d->dims, (size_t)d->rank * 4);
    it->max_rank[i] = (int8_t)d->rank;
  }
  return AP_OK;
}

/* The other entries' inputs (extra of them), after create: dims and ranks for every entry
 * input (subgraph 0's copied) and the map, in one tables block that replaces create's dims and
 * ranks (max dims stay where create put them); their current dims are the model's. A planned
 * interpreter never comes here: its entry inputs are subgraph 0's. */
/* That block's bytes for n entry inputs, extra of them past subgraph 0's (its dims first, then
 * the ranks at *ranks); false on overflow. */
static bool entries_bytes(size_t n, size_t extra, size_t *ranks, size_t *bytes) {
  size_t map;
  return n <= INT32_MAX && ap_mul_size(n, AP_MAX_DIMS * 4, ranks) && ap_mul_size(extra, 8, &map) &&
         ap_add_size(*ranks, n + 3, bytes) && ap_add_size(*bytes, map, bytes);
}

static void init_entries(ap_interpreter *it, size_t extra) {
  size_t n = it->input_count + extra, dims = 0, bytes = 0;
  /* The block is the end of create's allocation (checked there). */
  entries_bytes(n, extra, &dims, &bytes);
  uint8_t *block = (uint8_t *)it + it->create_tables - ((bytes + 15) & ~(size_t)15);
  memcpy(block, it->input_dims, (size_t)it->input_count * AP_MAX_DIMS * 4);
  memcpy(block + dims, it->input_rank, it->input_count);
  it->input_dims = (int32_t *)block;
  it->input_rank = (int8_t *)(block + dims);
  it->entry_input_count = (uint32_t)n;
  int32_t *map_at = entry_map(it);
  for (uint32_t i = it->input_count; i < it->entry_input_count; i++) {
    uint32_t sg = 0;
    int32_t t = -1;
    ap_tensor_info ti;
    entry_inputs(it->model, i, &sg, &t);
    map_at[2 * (i - it->input_count)] = (int32_t)sg;
    map_at[2 * (i - it->input_count) + 1] = t;
    it->input_rank[i] = -1;
    if (t < 0 || ap_model_tensor(it->model, sg, (size_t)t, &ti) != AP_OK ||
        ti.shape.n > AP_MAX_DIMS)
      continue;
    if (ti.shape.n) memcpy(&it->input_dims[i * AP_MAX_DIMS], ti.shape.v, ti.shape.n * 4);
    it->input_rank[i] = (int8_t)ti.shape.n;
  }
}

/* alloc: o's allocator resolved (never NULL); check: the options' check (NULL: options the
 * runtime made itself, as a planned interpreter's, so that a firmware does not link it);
 * extra: bytes after the layout for init_entries (0 for a planned interpreter, whose entry
 * inputs are subgraph 0's: its firmware links no signature reading). */
static ap_status create(const ap_model *m, const ap_interpreter_options *opt,
                        const ap_allocator *alloc,
                        ap_status (*check)(ap_interpreter *, const ap_interpreter_options *),
                        size_t extra, ap_interpreter **out) {
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  ap_interpreter_options o = opt ? *opt : ap_interpreter_defaults();
  ap_interpreter tmp = {.alloc = *alloc};
  size_t nin = m ? ap_model_subgraph_inputs(m, 0).n : 0;
  bool has_max = o.max_input_count > 0 && o.max_input_dims;
  layout l = {0};
  if (m && (!compute_layout(m, nin, has_max, &l) || !ap_add_size(l.total, extra, &l.total)))
    return AP_ERR_OVERFLOW;
  if (!m) l.total = (sizeof(ap_interpreter) + 15) & ~(size_t)15;
  ap_interpreter *it;
  if (o.arena && o.arena_size) {
    /* The interpreter itself lives in the caller's buffer: a device needs no heap. */
    tmp.buf = o.arena;
    tmp.buf_size = o.arena_size;
    it = rt_tables_alloc(&tmp, l.total);
    if (!it) return AP_ERR_ARENA_TOO_SMALL;
  } else {
    it = tmp.alloc.alloc(tmp.alloc.ctx, l.total);
    if (!it) return AP_ERR_NOMEM;
    memset(it, 0, l.total);
    tmp.tables_bytes = l.total;
  }
  memcpy(it, &tmp, sizeof tmp);
  it->create_tables = it->tables_bytes;
  it->create_tail = it->tail_used;
  it->model = m;
  it->strategy = o.strategy ? o.strategy : "best";
  it->custom_ops = o.custom_ops;
  it->custom_op_count = o.custom_op_count;
  it->alignment = o.alignment;
  it->preserve_all = o.preserve_all;
  it->preserve_inputs = o.preserve_inputs;
  it->max_loop_iterations = o.max_loop_iterations;
  it->inplace = o.inplace && !o.preserve_all;
  it->stream = o.stream && !o.preserve_all;
  it->kernels = o.kernels;
  it->budget = o.kernels == AP_KERNELS_SMALL ? o.small_scratch : o.budget;
  it->threads = o.threads > 1 ? o.threads : 1;
  it->keep_prepared = o.prepare == AP_PREPARE_ONCE;
  it->stale_input = -1;
  atomic_init(&it->busy, 0);
  *out = it;
  if (!m) return rt_fail(it, AP_ERR_ARG, "no model");
  it->sg_count = (uint32_t)ap_model_subgraph_count(m);
  it->input_count = (uint32_t)nin;
  it->entry_input_count = (uint32_t)nin;
  if (it->sg_count == 0) return rt_fail(it, AP_ERR_ARG, "the model has no subgraphs");
  ap_status s = check ? check(it, &o) : AP_OK;
  if (s != AP_OK) return s;
  it->has_max = has_max;
  s = init_tables(it, &o, &l);
  if (s != AP_OK) it->sg = NULL; /* unusable: every other call says so */
  return s;
}

ap_status ap_interpreter_create(const ap_model *m, const ap_interpreter_options *opt,
                                ap_interpreter **out) {
  uint32_t sg;
  int32_t t;
  size_t extra = m ? entry_inputs(m, SIZE_MAX, &sg, &t) - ap_model_subgraph_inputs(m, 0).n : 0;
  size_t nin = m ? ap_model_subgraph_inputs(m, 0).n : 0, dims = 0, bytes = 0;
  if (extra && !entries_bytes(nin + extra, extra, &dims, &bytes)) return AP_ERR_OVERFLOW;
  ap_status s = create(m, opt, ap_alloc_or_default(opt ? opt->allocator : NULL), check_options,
                       (bytes + 15) & ~(size_t)15, out);
  if (s == AP_OK && extra) init_entries(*out, extra);
  return s;
}

ap_status rt_create_in_buffer(const ap_model *m, const ap_interpreter_options *o,
                              ap_interpreter **out) {
  if (!o || !o->arena || !o->arena_size) return AP_ERR_ARG;
  return create(m, o, ap_no_heap(), NULL, 0, out);
}

void ap_interpreter_destroy(ap_interpreter *it) {
  if (!it) return;
  rt_release(it);
  ap_port_workers_destroy(it->workers);
  if (it->buf) return; /* everything else lives in the caller's buffer */
  ap_allocator a = it->alloc;
  a.free(a.ctx, it);
}

const char *ap_interpreter_error(const ap_interpreter *it) {
  return it ? it->msg : "no interpreter (out of memory, or a NULL argument)";
}

static bool enter(ap_interpreter *it) {
  int expected = 0;
  return atomic_compare_exchange_strong(&it->busy, &expected, 1);
}
static void leave(ap_interpreter *it) {
  atomic_store(&it->busy, 0);
}

static ap_status unsupported(ap_interpreter *it, const ap_op_info *op, size_t sg, size_t k) {
  if (op->custom)
    return rt_fail(it, AP_ERR_UNSUPPORTED,
                   "unsupported custom op \"%s\" at subgraph %zu op %zu: register it with "
                   "ap_interpreter_options.custom_ops (an ap_custom_op named \"%s\")",
                   op->custom, sg, k, op->custom);
  return rt_fail(it, AP_ERR_UNSUPPORTED, "unsupported op %s (builtin %d) at subgraph %zu op %zu",
                 ap_builtin_name(op->builtin), op->builtin, sg, k);
}

ap_status rt_prepare_all(ap_interpreter *it, int phase, rt_prep *prep) {
  for (uint32_t sg = 0; sg < it->sg_count; sg++) {
    rt_subgraph *r = &it->sg[sg];
    for (uint32_t k = 0; k < r->op_count; k++) {
      ap_op_context c = {.it = it,
                         .subgraph = sg,
                         .index = k,
                         .phase = phase,
                         .op = &r->ops[k],
                         .prep = prep ? &prep[r->op_base + k] : NULL};
      ap_status s = ap_model_op(it->model, sg, k, &c.info);
      if (s != AP_OK) return rt_fail(it, s, "%s", ap_model_error(it->model));
      if (phase == RT_PREPARE && !rt_string_kernel(&c) && !rt_find_kernel(it, &c.info, c.op))
        return unsupported(it, &c.info, sg, k);
      if (!rt_op_is_custom(c.op)) {
        s = rt_builtin_prepare(&c);
      } else if (rt_string_op(c.op)) {
        s = rt_string_prepare(&c);
      } else if (rt_inputs_dynamic(&c)) {
        s = ap_op_fail(&c, AP_ERR_UNSUPPORTED,
                       "an input's shape is known only while running; custom kernels are "
                       "prepared in allocate");
      } else {
        const ap_op_kernel *kern = rt_op_custom(c.op);
        s = kern->prepare ? kern->prepare(&c) : AP_OK;
        if (s != AP_OK && !it->msg[0]) s = ap_op_fail(&c, s, "prepare failed");
      }
      if (s != AP_OK) return s;
    }
  }
  return AP_OK;
}

/* Custom ops' records (state, scratch pointers and sizes), from what prepare collected. */
static ap_status finish_custom(ap_interpreter *it, rt_prep *prep) {
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    for (uint32_t k = 0; k < it->sg[sg].op_count; k++) {
      rt_op *o = &it->sg[sg].ops[k];
      if (!rt_op_is_custom(o)) continue;
      const rt_prep *p = &prep[it->sg[sg].op_base + k];
      size_t n = p->scratch_count, bytes = sizeof(rt_custom) + n * (sizeof(void *) + 8);
      rt_custom *r = rt_tables_alloc(it, bytes);
      if (!r) return rt_nomem(it);
      r->state = p->state;
      r->scratch_count = (uint32_t)n;
      r->scratch = (void **)(r + 1);
      r->capacity = (uint64_t *)(r->scratch + n);
      o->ext = r;
    }
  return AP_OK;
}

/* A variable's initial value: its buffer's data when the model gives it, else TFLite Micro's
 * reset value (ResetVariableTensors): an int8 tensor's zero point in every byte, zeros for
 * other types. */
static void reset_variable(const ap_interpreter *it, size_t sg, rt_tensor *x) {
  if (!(x->flags & RT_VARIABLE) || !x->data) return;
  size_t bytes = rt_tensor_bytes(x), size = 0;
  ap_tensor_info ti;
  bool known = ap_model_tensor(it->model, sg, x->index, &ti) == AP_OK;
  const uint8_t *init = known ? ap_model_buffer(it->model, ti.buffer, &size) : NULL;
  int fill = known && ti.type == AP_INT8 && ti.zero_point_count ? (int)(int8_t)ti.zero_point[0] : 0;
  if (init && size == bytes)
    memcpy(x->data, init, bytes);
  else
    memset(x->data, fill, bytes);
}

static ap_status place_variables(ap_interpreter *it) {
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    for (uint32_t k = 0; k < it->sg[sg].record_count; k++) {
      rt_tensor *x = &it->sg[sg].tensors[k];
      if (!(x->flags & RT_VARIABLE)) continue;
      size_t bytes = rt_tensor_bytes(x);
      if (!bytes) continue;
      x->data = rt_persistent_alloc(it, bytes);
      if (!x->data) return rt_nomem(it);
    }
  return AP_OK;
}

/* With max dims: every non-constant tensor gets dims storage of its own (so a resize can
 * rewrite shapes in place), and planned sizes are kept to check resizes against. */
static ap_status prepare_for_resizes(ap_interpreter *it) {
  size_t total = 0, ops = 0;
  for (uint32_t sg = 0; sg < it->sg_count; sg++) {
    total += it->sg[sg].tensor_count;
    ops += it->sg[sg].op_count;
  }
  it->capacity = rt_tables_alloc(it, total * sizeof *it->capacity);
  it->scratch_cap = rt_tables_alloc(it, (ops ? ops : 1) * sizeof *it->scratch_cap);
  if (!it->capacity || !it->scratch_cap) return rt_nomem(it);
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    for (uint32_t k = 0; k < it->sg[sg].record_count; k++) {
      rt_tensor *x = &it->sg[sg].tensors[k];
      if ((x->flags & RT_OWNED_DIMS) || x->rank == 0) continue;
      int32_t *d = rt_tables_alloc(it, (size_t)x->rank * 4);
      if (!d) return rt_nomem(it);
      memcpy(d, x->dims, (size_t)x->rank * 4);
      x->dims = d;
      x->flags |= RT_OWNED_DIMS;
    }
  return AP_OK;
}

static bool inputs_at_max(const ap_interpreter *it) {
  for (uint32_t i = 0; i < it->input_count; i++) {
    if (it->max_rank[i] < 0 || it->input_rank[i] < 0) continue;
    if (it->max_rank[i] != it->input_rank[i] ||
        memcmp(&it->max_dims[i * AP_MAX_DIMS], &it->input_dims[i * AP_MAX_DIMS],
               (size_t)it->input_rank[i] * 4) != 0)
      return false;
  }
  return true;
}

/* The kernels' level and workers, chosen once: kernels read them in every prepare and eval. */
static ap_status choose_kernels(ap_interpreter *it) {
  it->exec.level = it->kernels != AP_KERNELS_REFERENCE ? ap_fast_select() : NULL;
  it->exec.small_extra = 0; /* AP_KERNELS_SMALL is a budget for the choice (kchoice.c) */
  if (it->exec.level && it->threads > 1 && !it->workers) {
    ap_errbuf e = {{0}};
    ap_status s = ap_port_workers_create(&it->alloc, it->threads, &it->workers, &e);
    if (s != AP_OK) return rt_fail(it, s, "%s", e.msg);
  }
  it->exec.workers = it->exec.level ? it->workers : NULL;
  it->exec.threads = it->exec.workers ? it->threads : 1;
  return AP_OK;
}

const char *ap_interpreter_kernels(const ap_interpreter *it) {
  if (!it || !it->allocated) return "none";
  return ap_fast_level_name(it->exec.level);
}

int ap_interpreter_threads(const ap_interpreter *it) {
  return it && it->allocated ? it->exec.threads : 1;
}

static ap_status allocate(ap_interpreter *it) {
  it->dyn = &rt_dyn_all;
  it->ready_ops = &rt_ready_all;
  ap_status cs = choose_kernels(it);
  if (cs != AP_OK) return cs;
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    for (uint32_t k = 0; k < it->sg[sg].record_count; k++) {
      rt_tensor *x = &it->sg[sg].tensors[k];
      ap_tensor_info ti;
      ap_model_tensor(it->model, sg, x->index, &ti); /* checked at create */
      reset_tensor(x, &ti);
    }
  apply_input_dims(it, true);
  ap_status ms = rt_strings_mark(it);
  if (ms != AP_OK) return ms;
  size_t ops = 0;
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    ops += it->sg[sg].op_count;
  if (it->keep_prepared && ops) {
    it->ready = rt_tables_alloc(it, ops * sizeof *it->ready);
    if (!it->ready) return rt_nomem(it);
  }
  ap_allocator temp = rt_temp_allocator(it);
  rt_prep *prep = ap_calloc(&temp, ops ? ops : 1, sizeof *prep);
  if (!prep) return rt_fail(it, AP_ERR_NOMEM, "out of memory for planning");
  ap_status s = rt_prepare_all(it, RT_PREPARE, prep);
  if (s == AP_OK) s = finish_custom(it, prep);
  if (s == AP_OK) s = place_variables(it);
  if (s == AP_OK && it->has_max) s = prepare_for_resizes(it);
  uint64_t arena;
  if (s == AP_OK && rt_kchoice_on(it)) s = rt_kchoice(it, prep);
  if (s == AP_OK) s = rt_plan(it, prep, true, &arena);
  if (s == AP_OK) s = rt_ready_bind(it);
  /* Only headers are read here: the arena placed over the buffer's temporaries holds no data
   * yet. */
  for (size_t i = 0; i < ops; i++) {
    rt_prep_scratch *r = prep[i].scratch;
    while (r) {
      rt_prep_scratch *n = r->next;
      ap_free(&temp, r);
      r = n;
    }
  }
  ap_free(&temp, prep);
  it->temp_used = 0;
  it->temp_top = 0;
  if (s == AP_OK && it->has_max && !inputs_at_max(it)) {
    apply_input_dims(it, false);
    s = rt_prepare_all(it, RT_RESHAPE, NULL);
    if (s == AP_OK) s = rt_ready_bind(it);
  }
  return s;
}

ap_status ap_interpreter_allocate(ap_interpreter *it) {
  if (!it) return AP_ERR_ARG;
  if (!it->sg) {
    static const char prefix[] = "the interpreter failed to create: ";
    if (strncmp(it->msg, prefix, sizeof prefix - 1) == 0) return AP_ERR_ARG;
    char why[RT_MSG_MAX]; /* rt_fail must not read the buffer it writes */
    memcpy(why, it->msg, sizeof why);
    return rt_fail(it, AP_ERR_ARG, "%s%s", prefix, why);
  }
  if (!enter(it)) return AP_ERR_BUSY;
  rt_release(it);
  it->msg[0] = 0;
  ap_status s = allocate(it);
  if (s == AP_OK) {
    it->allocated = true;
    it->stale_input = -1;
    for (uint32_t sg = 0; sg < it->sg_count; sg++)
      for (uint32_t k = 0; k < it->sg[sg].record_count; k++)
        reset_variable(it, sg, &it->sg[sg].tensors[k]);
  } else {
    rt_release(it);
  }
  leave(it);
  return s;
}

static bool within_max(const ap_interpreter *it, size_t input, const int32_t *dims, int rank) {
  if (!it->has_max || input >= it->input_count || it->max_rank[input] != rank) return false;
  for (int d = 0; d < rank; d++)
    if (dims[d] > it->max_dims[input * AP_MAX_DIMS + d]) return false;
  return true;
}

/* Resizes entry input `slot` (entry_inputs; SIZE_MAX: none). Messages name it as subgraph 0's
 * input a (by_tensor false; b: the input count) or as tensor b of subgraph a (by_tensor): each
 * message is written whole, so that a firmware without messages links no formatting. */
static ap_status resize_slot(ap_interpreter *it, size_t slot, const int32_t *dims, int rank,
                             bool by_tensor, size_t a, size_t b) {
  if (!it) return AP_ERR_ARG;
  if (!it->sg) return rt_fail(it, AP_ERR_ARG, "the interpreter failed to create");
  if (!enter(it)) return AP_ERR_BUSY;
  ap_status s = AP_OK;
  uint32_t sg = 0;
  int32_t t = -1;
  if (slot < it->entry_input_count) entry_at(it, slot, &sg, &t);
  if (t < 0) {
    s = by_tensor ? rt_fail(it, AP_ERR_ARG,
                            "subgraph %zu tensor %zu is no input of subgraph 0 or of a "
                            "signature's subgraph",
                            a, b)
                  : rt_fail(it, AP_ERR_RANGE, "input %zu out of range (the model has %zu)", a, b);
  } else if (rank < 0 || rank > AP_MAX_DIMS || (rank > 0 && !dims)) {
    s = by_tensor ? rt_fail(it, AP_ERR_ARG,
                            "subgraph %zu tensor %zu: rank %d out of range (0 to %d, with dims)", a,
                            b, rank, AP_MAX_DIMS)
                  : rt_fail(it, AP_ERR_ARG, "input %zu: rank %d out of range (0 to %d, with dims)",
                            a, rank, AP_MAX_DIMS);
  } else {
    const rt_tensor *x = rt_rec(it, sg, (size_t)t);
    if (!x) {
      s = by_tensor ? rt_fail(it, AP_ERR_ARG, "subgraph %zu tensor %zu is a constant", a, b)
                    : rt_fail(it, AP_ERR_ARG, "input %zu is a constant", a);
    } else {
      rt_tensor probe = *x;
      probe.flags &= (uint8_t)~RT_OWNED_DIMS;
      s = rt_set_dims(it, &probe, dims, rank, false);
      if (s == AP_ERR_NOT_ALLOCATED) s = AP_OK; /* only validating */
    }
  }
  if (s != AP_OK) {
    leave(it);
    return s;
  }
  if (rank) memcpy(&it->input_dims[slot * AP_MAX_DIMS], dims, (size_t)rank * 4);
  it->input_rank[slot] = (int8_t)rank;
  if (it->allocated && within_max(it, slot, dims, rank)) {
    /* The plan holds the maximum: shapes and parameters follow without a new plan. */
    apply_input_dims(it, false);
    s = rt_prepare_all(it, RT_RESHAPE, NULL);
    if (s == AP_OK) s = rt_ready_bind(it);
    if (s == AP_OK) {
      leave(it);
      return AP_OK;
    }
    /* The message says why; the plan cannot serve these dims. */
  }
  it->allocated = false;
  /* A signature input's resize leaves the generic message: invoke names only subgraph 0's. */
  it->stale_input = slot < it->input_count ? (int32_t)slot : -1;
  if (s == AP_OK && by_tensor)
    rt_fail(it, AP_OK,
            "subgraph %zu tensor %zu was resized: call ap_interpreter_allocate() again before "
            "invoke",
            a, b);
  else if (s == AP_OK)
    rt_fail(it, AP_OK, "input %zu was resized: call ap_interpreter_allocate() again before invoke",
            a);
  leave(it);
  return AP_OK;
}

ap_status ap_interpreter_resize_input(ap_interpreter *it, size_t input, const int32_t *dims,
                                      int rank) {
  size_t n = it && it->sg ? it->input_count : 0;
  return resize_slot(it, input < n ? input : SIZE_MAX, dims, rank, false, input, n);
}

ap_status ap_interpreter_resize_tensor(ap_interpreter *it, size_t subgraph, size_t tensor,
                                       const int32_t *dims, int rank) {
  size_t slot = SIZE_MAX;
  for (size_t i = 0; it && it->sg && i < it->entry_input_count && slot == SIZE_MAX; i++) {
    uint32_t sg = 0;
    int32_t t = -1;
    entry_at(it, i, &sg, &t);
    if (sg == subgraph && t >= 0 && (size_t)t == tensor) slot = i;
  }
  return resize_slot(it, slot, dims, rank, true, subgraph, tensor);
}

/* Runs op *k of subgraph sg, or the streamed segment starting there (then *k moves to its last
 * op). */
static ap_status rt_run_op(ap_interpreter *it, uint32_t sg, uint32_t *kp, uint32_t depth) {
  rt_subgraph *r = &it->sg[sg];
  uint32_t k = *kp;
  if (sg == 0 && it->segments && it->segments[2 * k] > 1) {
    *kp = k + it->segments[2 * k] - 1;
    return it->stream_run(it, k, it->segments[2 * k]);
  }
  const rt_ready *ready = it->ready ? it->ready[r->op_base + k] : NULL;
  if (ready && it->ready_ops) return it->ready_ops->eval(it, sg, k, ready);
  ap_op_context c = {
      .it = it, .subgraph = sg, .index = k, .phase = RT_EVAL, .op = &r->ops[k], .depth = depth};
  ap_status s = ap_model_op(it->model, sg, k, &c.info);
  if (s != AP_OK) {
    s = rt_fail(it, s, "%s", ap_model_error(it->model));
  } else if (!rt_op_is_custom(c.op)) {
    s = rt_builtin_eval(&c);
  } else if (rt_op_custom(c.op)->eval) {
    s = rt_op_custom(c.op)->eval(&c);
    if (s != AP_OK && !it->msg[0]) s = ap_op_fail(&c, s, "eval failed");
  }
  return s;
}

ap_status rt_run_subgraph(ap_interpreter *it, uint32_t sg, uint32_t depth) {
  rt_subgraph *r = &it->sg[sg];
  ap_status s = AP_OK;
#ifndef AP_PORT_NONE
  /* Only the entry's own ops are timed: a nested call is part of its caller op's time. */
  uint64_t *prof = sg == 0 && depth == 0 ? it->profile : NULL;
  for (uint32_t k = 0; s == AP_OK && k < r->op_count; k++) {
    uint32_t first = k;
    uint64_t t0 = prof ? ap_port_now_ns() : 0;
    s = rt_run_op(it, sg, &k, depth);
    if (prof && first < it->profile_count) prof[first] = ap_port_now_ns() - t0;
  }
#elif defined(AP_FW_PROFILE)
  /* A firmware's per-op profile, off by default: built with -DAP_FW_PROFILE, the library calls
   * the firmware's fw_profile_op(k) before op k and fw_profile_op(UINT32_MAX) at the end, so
   * the firmware reads its timer there (QEMU -icount: instructions per op). */
  extern void fw_profile_op(uint32_t k);
  for (uint32_t k = 0; s == AP_OK && k < r->op_count; k++) {
    fw_profile_op(k);
    s = rt_run_op(it, sg, &k, depth);
  }
  fw_profile_op(0xffffffffu);
#else /* no clock: a firmware's flash pays nothing for the profile */
  for (uint32_t k = 0; s == AP_OK && k < r->op_count; k++)
    s = rt_run_op(it, sg, &k, depth);
#endif
  return s;
}

ap_status ap_interpreter_set_profile(ap_interpreter *it, uint64_t *ns_per_op, size_t count) {
  if (!it) return AP_ERR_ARG;
  if (!ns_per_op != !count) return rt_fail(it, AP_ERR_ARG, "profile: array and count go together");
  if (count > SIZE_MAX / sizeof *ns_per_op)
    return rt_fail(it, AP_ERR_ARG, "profile: %zu entries is more than memory holds", count);
#ifdef AP_PORT_NONE
  if (ns_per_op) return rt_fail(it, AP_ERR_UNSUPPORTED, "profile: this build has no clock");
#endif
  if (!enter(it)) return AP_ERR_BUSY;
  it->profile = ns_per_op;
  it->profile_count = count;
  leave(it);
  return AP_OK;
}

/* Whether subgraph sg is an entry: subgraph 0 or a signature's (the graph plans those as
 * entries, one after the other in one arena). */
static bool is_entry(const ap_interpreter *it, size_t sg) {
  for (size_t i = 0, n = ap_model_signature_count(it->model); i < n; i++) {
    ap_signature_info si;
    if (ap_model_signature(it->model, i, &si) == AP_OK && si.subgraph == sg) return true;
  }
  return false;
}

static ap_status invoke_entry(ap_interpreter *it, uint32_t entry) {
  if (!it) return AP_ERR_ARG;
  if (!enter(it)) return AP_ERR_BUSY;
  ap_status s = AP_OK;
  if (!it->sg) {
    s = rt_fail(it, AP_ERR_ARG, "the interpreter failed to create");
  } else if (!it->allocated && it->stale_input >= 0) {
    ap_tensor_info ti;
    ap_ivec in = ap_model_subgraph_inputs(it->model, 0);
    const char *name =
        ap_model_tensor(it->model, 0, (size_t)in.v[it->stale_input], &ti) == AP_OK ? ti.name : "";
    s = rt_fail(it, AP_ERR_NOT_ALLOCATED,
                "input %d (\"%s\") was resized: call ap_interpreter_allocate() again before "
                "invoke",
                it->stale_input, name);
  } else if (!it->allocated) {
    s = rt_fail(it, AP_ERR_NOT_ALLOCATED,
                "not allocated: call ap_interpreter_allocate() before invoke");
  } else {
    /* Workers asleep since the last invoke wake while the first ops run. */
    ap_port_workers_wake(it->exec.workers);
#ifndef AP_PORT_NONE
    /* Ops inside a streamed segment, or not reached, read 0. */
    if (it->profile && entry == 0) memset(it->profile, 0, it->profile_count * sizeof *it->profile);
#endif
    s = rt_run_subgraph(it, entry, 0);
  }
  leave(it);
  return s;
}

ap_status ap_interpreter_invoke(ap_interpreter *it) {
  return invoke_entry(it, 0);
}

/* The entry check lives here, not in invoke_entry: a firmware calling ap_interpreter_invoke
 * links no signature reading. */
ap_status ap_interpreter_invoke_subgraph(ap_interpreter *it, size_t subgraph) {
  if (!it) return AP_ERR_ARG;
  if (it->sg && subgraph && (subgraph >= it->sg_count || !is_entry(it, subgraph))) {
    if (!enter(it)) return AP_ERR_BUSY;
    ap_status s = rt_fail(it, subgraph >= it->sg_count ? AP_ERR_RANGE : AP_ERR_ARG,
                          "subgraph %zu is not an entry (subgraph 0 or a signature's subgraph; "
                          "the model has %u subgraphs)",
                          subgraph, it->sg_count);
    leave(it);
    return s;
  }
  return invoke_entry(it, (uint32_t)subgraph);
}

ap_status ap_interpreter_reset_variables(ap_interpreter *it) {
  if (!it || !it->sg) return AP_ERR_ARG;
  /* Variables live in the persistent region, which a failed allocate has freed. */
  if (!it->allocated)
    return rt_fail(it, AP_ERR_NOT_ALLOCATED,
                   "not allocated: call ap_interpreter_allocate() before reset_variables");
  if (!enter(it)) return AP_ERR_BUSY;
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    for (uint32_t k = 0; k < it->sg[sg].record_count; k++)
      reset_variable(it, sg, &it->sg[sg].tensors[k]);
  rt_control_reset(it);
  rt_resource_reset(it);
  rt_state_reset(it);
  leave(it);
  return AP_OK;
}

ap_status ap_interpreter_max_dims_cost(ap_interpreter *it, uint64_t *planned_arena,
                                       uint64_t *current_arena) {
  if (!it || !planned_arena || !current_arena) return AP_ERR_ARG;
  if (!it->allocated)
    return rt_fail(it, AP_ERR_NOT_ALLOCATED, "not allocated: call ap_interpreter_allocate()");
  *planned_arena = *current_arena = it->arena_bytes;
  if (!it->has_max) return AP_OK;
  if (!enter(it)) return AP_ERR_BUSY;
  size_t ops = 0;
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    ops += it->sg[sg].op_count;
  /* Planning temporaries must not touch the arena the plan placed: take them from the allocator. */
  uint8_t *buf = it->buf;
  it->buf = NULL;
  ap_allocator temp = rt_temp_allocator(it);
  rt_prep *prep = ap_calloc(&temp, ops ? ops : 1, sizeof *prep);
  ap_status s = prep ? rt_prepare_all(it, RT_RESHAPE, prep) : AP_ERR_NOMEM;
  if (s == AP_OK) s = rt_ready_bind(it); /* the prepare above rewrote the ops' blocks */
  if (s == AP_OK) s = rt_plan(it, prep, false, current_arena);
  for (size_t i = 0; prep && i < ops; i++)
    for (rt_prep_scratch *r = prep[i].scratch, *n; r; r = n) {
      n = r->next;
      ap_free(&temp, r);
    }
  ap_free(&temp, prep);
  it->buf = buf;
  leave(it);
  return s;
}
