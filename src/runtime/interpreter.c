/* The interpreter: create, allocate (prepare, plan, place), invoke, resize. */
#include "runtime_internal.h"

#include <string.h>

ap_interpreter_options ap_interpreter_defaults(void) {
  return (ap_interpreter_options){.strategy = "best", .alignment = 16};
}

bool rt_set_shape(ap_tensor *t, const int32_t *dims, int rank) {
  if (rank < 0 || rank > AP_MAX_DIMS) return false;
  size_t n = 1;
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 0 || !ap_mul_size(n, (size_t)dims[i], &n)) return false;
    t->dims[i] = dims[i];
  }
  t->rank = rank;
  unsigned bits = ap_dtype_bits(t->type);
  size_t bytes;
  if (bits == 0 || !ap_mul_size(n, bits, &bytes)) return false;
  t->bytes = (bytes + 7) / 8;
  return true;
}

/* A tensor as the model describes it: type, quantization, shape, constant data. */
static ap_status init_tensor(ap_interpreter *it, size_t sg, size_t t) {
  ap_tensor *x = &it->sg[sg].tensors[t];
  ap_tensor_info ti;
  ap_status s = ap_model_tensor(it->model, sg, t, &ti);
  if (s != AP_OK) return ap_fail(&it->err, s, "%s", ap_model_error(it->model));
  x->name = ti.name;
  x->type = ti.type;
  x->is_constant = ti.is_constant;
  x->is_variable = ti.is_variable;
  x->scales = ti.scale;
  x->zero_points = ti.zero_point;
  x->quant_count = ti.scale_count;
  x->scale = ti.scale_count ? ti.scale[0] : 0.0f;
  x->zero_point = ti.zero_point_count ? (int32_t)ti.zero_point[0] : 0;
  x->quantized_dimension = ti.quantized_dimension;
  if (ti.shape.n > AP_MAX_DIMS)
    return ap_fail(&it->err, AP_ERR_UNSUPPORTED, "subgraph %zu tensor %zu: rank %zu (at most %d)",
                   sg, t, ti.shape.n, AP_MAX_DIMS);
  const int32_t *dims = ti.shape.v;
  int rank = (int)ti.shape.n;
  if (sg == 0 && it->input_dims) {
    ap_ivec in = ap_model_subgraph_inputs(it->model, 0);
    for (size_t i = 0; i < in.n; i++)
      if ((size_t)in.v[i] == t && it->input_rank[i] >= 0) {
        dims = it->input_dims[i];
        rank = it->input_rank[i];
      }
  }
  x->rank = rank;
  for (int d = 0; d < rank; d++) x->dims[d] = dims[d];
  x->bytes = ti.bytes;
  if (!rt_set_shape(x, dims, rank)) x->bytes = ti.bytes; /* strings, resources: as the model says */
  x->data = NULL;
  if (ti.is_constant) {
    size_t size;
    x->data = (void *)ap_model_buffer(it->model, ti.buffer, &size);
    x->bytes = ti.bytes ? ti.bytes : size;
  }
  return AP_OK;
}

ap_status ap_interpreter_create(const ap_model *m, const ap_interpreter_options *opt,
                                ap_interpreter **out) {
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  ap_interpreter_options o = opt ? *opt : ap_interpreter_defaults();
  const ap_allocator *a = ap_alloc_or_default(o.allocator);
  ap_interpreter *it;
  bool caller_buffer = o.arena && o.arena_size;
  if (caller_buffer) {
    /* The interpreter itself lives in the caller's buffer: a device needs no heap. */
    ap_interpreter tmp = {.buf = o.arena, .buf_size = o.arena_size};
    it = rt_tables_alloc(&tmp, sizeof *it);
    if (!it) return AP_ERR_ARENA_TOO_SMALL;
    *it = tmp;
  } else {
    it = ap_calloc(a, 1, sizeof *it);
    if (!it) return AP_ERR_NOMEM;
    it->tables_bytes = sizeof *it;
  }
  *out = it;
  it->alloc = a;
  it->opt = o;
  it->model = m;
  atomic_init(&it->busy, 0);
  if (!m) return ap_fail(&it->err, AP_ERR_ARG, "no model");
  if ((o.arena != NULL) != (o.arena_size != 0))
    return ap_fail(&it->err, AP_ERR_ARG, "a caller-owned arena needs both a pointer and a size");
  /* Offsets are multiples of the alignment and tensors are read as their type: an alignment
   * that is no multiple of 8 (int64, double) would hand kernels misaligned pointers. */
  if (o.alignment % 8 != 0)
    return ap_fail(&it->err, AP_ERR_ARG,
                   "alignment %llu: must be a multiple of 8 (the widest element), or 0 for 16",
                   (unsigned long long)o.alignment);
  if (o.custom_op_count && !o.custom_ops)
    return ap_fail(&it->err, AP_ERR_ARG, "custom_op_count is %zu but custom_ops is NULL",
                   o.custom_op_count);
  it->sg_count = ap_model_subgraph_count(m);
  if (it->sg_count == 0) return ap_fail(&it->err, AP_ERR_ARG, "the model has no subgraphs");
  it->sg = rt_tables_alloc(it, it->sg_count * sizeof *it->sg);
  if (!it->sg) return AP_ERR_NOMEM;
  for (size_t sg = 0; sg < it->sg_count; sg++) {
    ap_subgraph_rt *r = &it->sg[sg];
    r->tensor_count = ap_model_tensor_count(m, sg);
    r->op_count = ap_model_op_count(m, sg);
    size_t tb, ob;
    if (!ap_mul_size(r->tensor_count, sizeof *r->tensors, &tb) ||
        !ap_mul_size(r->op_count, sizeof *r->ops, &ob))
      return ap_fail(&it->err, AP_ERR_OVERFLOW, "subgraph %zu: too many tensors or ops", sg);
    r->tensors = rt_tables_alloc(it, tb);
    r->ops = rt_tables_alloc(it, ob);
    if (!r->tensors || !r->ops)
      return it->buf ? AP_ERR_ARENA_TOO_SMALL : AP_ERR_NOMEM;
    for (size_t k = 0; k < r->op_count; k++) {
      ap_op_context *c = &r->ops[k];
      c->it = it;
      c->subgraph = (uint32_t)sg;
      c->index = (uint32_t)k;
      ap_status s = ap_model_op(m, sg, k, &c->info);
      if (s != AP_OK) return ap_fail(&it->err, s, "%s", ap_model_error(m));
    }
  }
  size_t nin = ap_model_subgraph_inputs(m, 0).n;
  it->input_dims = rt_tables_alloc(it, (nin ? nin : 1) * sizeof *it->input_dims);
  it->input_rank = rt_tables_alloc(it, (nin ? nin : 1) * sizeof *it->input_rank);
  if (!it->input_dims || !it->input_rank) return it->buf ? AP_ERR_ARENA_TOO_SMALL : AP_ERR_NOMEM;
  for (size_t i = 0; i < nin; i++) {
    it->input_dims[i] = rt_tables_alloc(it, AP_MAX_DIMS * sizeof(int32_t));
    if (!it->input_dims[i]) return it->buf ? AP_ERR_ARENA_TOO_SMALL : AP_ERR_NOMEM;
    it->input_rank[i] = -1; /* as in the model */
  }
  for (size_t sg = 0; sg < it->sg_count; sg++)
    for (size_t t = 0; t < it->sg[sg].tensor_count; t++) {
      ap_status s = init_tensor(it, sg, t);
      if (s != AP_OK) return s;
    }
  return AP_OK;
}

void ap_interpreter_destroy(ap_interpreter *it) {
  if (!it) return;
  rt_release(it);
  if (it->buf) return; /* everything else lives in the caller's buffer */
  const ap_allocator *a = it->alloc;
  if (it->input_dims) {
    size_t nin = ap_model_subgraph_inputs(it->model, 0).n;
    for (size_t i = 0; i < nin; i++) ap_free(a, it->input_dims[i]);
  }
  ap_free(a, it->input_dims);
  ap_free(a, it->input_rank);
  if (it->sg)
    for (size_t sg = 0; sg < it->sg_count; sg++) {
      ap_free(a, it->sg[sg].tensors);
      ap_free(a, it->sg[sg].ops);
    }
  ap_free(a, it->sg);
  ap_free(a, it);
}

const char *ap_interpreter_error(const ap_interpreter *it) {
  return it ? it->err.msg : "no interpreter (out of memory, or a NULL argument)";
}

static bool enter(ap_interpreter *it) {
  int expected = 0;
  return atomic_compare_exchange_strong(&it->busy, &expected, 1);
}
static void leave(ap_interpreter *it) { atomic_store(&it->busy, 0); }

static ap_status prepare_ops(ap_interpreter *it) {
  for (size_t sg = 0; sg < it->sg_count; sg++) {
    for (size_t k = 0; k < it->sg[sg].op_count; k++) {
      ap_op_context *c = &it->sg[sg].ops[k];
      c->state = NULL;
      c->scratch = NULL;
      c->scratch_count = 0;
      if (!rt_find_kernel(c)) {
        if (c->info.custom)
          return ap_fail(&it->err, AP_ERR_UNSUPPORTED,
                         "unsupported custom op \"%s\" at subgraph %zu op %zu: register it with "
                         "ap_interpreter_options.custom_ops",
                         c->info.custom, sg, k);
        return ap_fail(&it->err, AP_ERR_UNSUPPORTED,
                       "unsupported op %s (builtin %d) at subgraph %zu op %zu",
                       ap_builtin_name(c->info.builtin), c->info.builtin, sg, k);
      }
      /* A constant's bytes are the model's, read in place (a read-only mapping for files):
       * an op must never write them. */
      for (size_t i = 0; i < c->info.outputs.n; i++) {
        int32_t t = c->info.outputs.v[i];
        if (t >= 0 && it->sg[sg].tensors[t].is_constant)
          return ap_fail(&it->err, AP_ERR_FORMAT,
                         "subgraph %zu op %zu (%s): output %zu is tensor %d, a constant", sg, k,
                         c->info.custom ? c->info.custom : ap_builtin_name(c->info.builtin), i, t);
      }
      c->preparing = true;
      ap_status s = c->builtin  ? rt_builtin_prepare(c)
                    : c->custom->prepare ? c->custom->prepare(c)
                                         : AP_OK;
      c->preparing = false;
      if (s != AP_OK) return s;
    }
  }
  return AP_OK;
}

static ap_status place_variables(ap_interpreter *it) {
  for (size_t sg = 0; sg < it->sg_count; sg++)
    for (size_t t = 0; t < it->sg[sg].tensor_count; t++) {
      ap_tensor *x = &it->sg[sg].tensors[t];
      if (!x->is_variable || x->is_constant || x->bytes == 0) continue;
      x->data = rt_persistent_alloc(it, x->bytes);
      if (!x->data) return it->buf ? AP_ERR_ARENA_TOO_SMALL : AP_ERR_NOMEM;
    }
  return AP_OK;
}

/* Plans every non-constant tensor and scratch buffer, takes the arena and places them. */
static ap_status plan_and_place(ap_interpreter *it) {
  size_t total = 0;
  for (size_t sg = 0; sg < it->sg_count; sg++) total += it->sg[sg].tensor_count;
  size_t scratch_total = 0;
  for (size_t sg = 0; sg < it->sg_count; sg++)
    for (size_t k = 0; k < it->sg[sg].op_count; k++)
      scratch_total += (size_t)it->sg[sg].ops[k].scratch_count;
  uint64_t *bytes = ap_calloc(it->alloc, total ? total : 1, sizeof *bytes);
  void ***targets = ap_calloc(it->alloc, total + scratch_total + 1, sizeof *targets);
  ap_graph *g = NULL;
  ap_problem *p = NULL;
  ap_plan *plan = NULL;
  ap_status s = AP_OK;
  if (!bytes || !targets) {
    s = ap_fail(&it->err, AP_ERR_NOMEM, "out of memory for planning");
    goto done;
  }
  for (size_t sg = 0, id = 0; sg < it->sg_count; sg++)
    for (size_t t = 0; t < it->sg[sg].tensor_count; t++, id++) {
      ap_tensor *x = &it->sg[sg].tensors[t];
      bytes[id] = x->is_constant || x->is_variable ? 0 : x->bytes;
      targets[id] = &x->data;
    }
  ap_graph_options go = {.rules = AP_RULES_ARENAPLAN, .tensor_bytes = bytes,
                         .tensor_bytes_count = total};
  s = ap_graph_create(it->model, &go, it->alloc, &g);
  if (s != AP_OK) {
    ap_fail(&it->err, s, "%s", ap_graph_error(g));
    goto done;
  }
  for (size_t sg = 0; sg < it->sg_count; sg++)
    for (size_t k = 0; k < it->sg[sg].op_count; k++)
      for (ap_scratch_rec *r = it->sg[sg].ops[k].scratch; r; r = r->next) {
        s = ap_graph_add_scratch(g, sg, k, r->bytes, &r->request_id);
        if (s != AP_OK) {
          ap_fail(&it->err, s, "%s", ap_graph_error(g));
          goto done;
        }
        targets[r->request_id] = &r->data;
      }
  uint64_t align = it->opt.alignment ? it->opt.alignment : 16;
  s = ap_graph_problem(g, -1, align, &p);
  if (s != AP_OK) {
    ap_fail(&it->err, s, "%s", ap_graph_error(g));
    goto done;
  }
  const char *strategy = it->opt.preserve_all ? "naive" : it->opt.strategy;
  s = ap_plan_create(p, &(ap_plan_options){.strategy = strategy}, &plan);
  if (s != AP_OK) {
    ap_fail(&it->err, s, "%s", ap_plan_error(plan));
    goto done;
  }
  it->arena_bytes = ap_plan_arena(plan);
  uint64_t base_align = align > 16 ? align : 16;
  if (it->buf) {
    uintptr_t lo = (uintptr_t)it->buf;
    uint64_t base;
    ap_align_up(lo, base_align, &base);
    uint64_t top = (uintptr_t)(it->buf + it->buf_size) - it->tail_used;
    uint64_t arena16;
    ap_align_up(it->arena_bytes, 16, &arena16);
    if (base > top || top - base < it->arena_bytes) {
      s = ap_fail(&it->err, AP_ERR_ARENA_TOO_SMALL, "arena too small: needs %llu bytes, buffer has %zu",
                  (unsigned long long)((base - lo) + arena16 + it->tail_used), it->buf_size);
      goto done;
    }
    it->arena = (uint8_t *)(uintptr_t)base;
  } else {
    size_t want;
    if (!ap_add_size((size_t)it->arena_bytes, (size_t)base_align, &want)) {
      s = ap_fail(&it->err, AP_ERR_OVERFLOW, "arena of %llu bytes overflows",
                  (unsigned long long)it->arena_bytes);
      goto done;
    }
    it->arena_mem = ap_alloc(it->alloc, want);
    if (!it->arena_mem) {
      s = ap_fail(&it->err, AP_ERR_NOMEM, "out of memory for an arena of %llu bytes",
                  (unsigned long long)it->arena_bytes);
      goto done;
    }
    uint64_t base;
    ap_align_up((uintptr_t)it->arena_mem, base_align, &base);
    it->arena = (uint8_t *)(uintptr_t)base;
  }
  const ap_request *req = ap_problem_requests(p);
  const uint64_t *off = ap_plan_offsets(plan);
  for (size_t i = 0; i < ap_problem_count(p); i++) *targets[req[i].id] = it->arena + off[i];
done:
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
  ap_graph_destroy(g);
  ap_free(it->alloc, targets);
  ap_free(it->alloc, bytes);
  return s;
}

ap_status ap_interpreter_allocate(ap_interpreter *it) {
  if (!it) return AP_ERR_ARG;
  static const char failed[] = "the interpreter failed to create: ";
  if (!it->sg && strncmp(it->err.msg, failed, sizeof failed - 1) == 0) return AP_ERR_ARG;
  if (!it->sg)
    return ap_fail(&it->err, AP_ERR_ARG, "%s%s", failed, it->err.msg[0] ? it->err.msg : "no model");
  if (!enter(it)) return AP_ERR_BUSY;
  rt_release(it);
  ap_status s = AP_OK;
  for (size_t sg = 0; s == AP_OK && sg < it->sg_count; sg++)
    for (size_t t = 0; s == AP_OK && t < it->sg[sg].tensor_count; t++) s = init_tensor(it, sg, t);
  if (s == AP_OK) s = prepare_ops(it);
  if (s == AP_OK) s = place_variables(it);
  if (s == AP_OK) s = plan_and_place(it);
  for (size_t sg = 0; s == AP_OK && sg < it->sg_count; sg++)
    for (size_t k = 0; s == AP_OK && k < it->sg[sg].op_count; k++)
      if (it->sg[sg].ops[k].builtin) s = rt_builtin_bind(&it->sg[sg].ops[k]);
  if (s == AP_OK) s = ap_interpreter_reset_variables(it);
  if (s == AP_OK)
    it->allocated = true;
  else
    rt_release(it);
  leave(it);
  return s;
}

ap_status ap_interpreter_resize_input(ap_interpreter *it, size_t input, const int32_t *dims,
                                      int rank) {
  if (!it || (!dims && rank > 0)) return AP_ERR_ARG;
  if (!it->sg) return ap_fail(&it->err, AP_ERR_ARG, "the interpreter failed to create");
  ap_ivec in = ap_model_subgraph_inputs(it->model, 0);
  if (input >= in.n)
    return ap_fail(&it->err, AP_ERR_RANGE, "input %zu out of range (the model has %zu)", input,
                   in.n);
  if (rank < 0 || rank > AP_MAX_DIMS)
    return ap_fail(&it->err, AP_ERR_ARG, "rank %d out of range (0 to %d)", rank, AP_MAX_DIMS);
  ap_tensor probe = it->sg[0].tensors[in.v[input]];
  if (!rt_set_shape(&probe, dims, rank))
    return ap_fail(&it->err, AP_ERR_ARG,
                   "input %zu: dims must be >= 0 and their product must fit in memory", input);
  if (!enter(it)) return AP_ERR_BUSY;
  for (int d = 0; d < rank; d++) it->input_dims[input][d] = dims[d];
  it->input_rank[input] = rank;
  it->sg[0].tensors[in.v[input]] = probe;
  it->allocated = false;
  ap_fail(&it->err, AP_OK, "input %zu was resized: call ap_interpreter_allocate() before invoke",
          input);
  leave(it);
  return AP_OK;
}

ap_status ap_interpreter_invoke(ap_interpreter *it) {
  if (!it) return AP_ERR_ARG;
  if (!enter(it)) return AP_ERR_BUSY;
  ap_status s = AP_OK;
  if (!it->allocated) {
    s = ap_fail(&it->err, AP_ERR_NOT_ALLOCATED,
                "not allocated: call ap_interpreter_allocate() before invoke (and again after "
                "resizing an input)");
  } else {
    ap_subgraph_rt *r = &it->sg[0];
    for (size_t k = 0; s == AP_OK && k < r->op_count; k++) {
      ap_op_context *c = &r->ops[k];
      if (c->builtin)
        s = rt_builtin_eval(c);
      else if (c->custom->eval)
        s = c->custom->eval(c);
    }
  }
  leave(it);
  return s;
}

ap_status ap_interpreter_reset_variables(ap_interpreter *it) {
  if (!it || !it->sg) return AP_ERR_ARG;
  for (size_t sg = 0; sg < it->sg_count; sg++)
    for (size_t t = 0; t < it->sg[sg].tensor_count; t++) {
      ap_tensor *x = &it->sg[sg].tensors[t];
      if (!x->is_variable || x->is_constant || !x->data) continue;
      memset(x->data, 0, x->bytes);
    }
  return AP_OK;
}

size_t ap_interpreter_input_count(const ap_interpreter *it) {
  return it && it->sg ? ap_model_subgraph_inputs(it->model, 0).n : 0;
}
size_t ap_interpreter_output_count(const ap_interpreter *it) {
  return it && it->sg ? ap_model_subgraph_outputs(it->model, 0).n : 0;
}
ap_tensor *ap_interpreter_input(ap_interpreter *it, size_t i) {
  if (i >= ap_interpreter_input_count(it)) return NULL;
  return &it->sg[0].tensors[ap_model_subgraph_inputs(it->model, 0).v[i]];
}
const ap_tensor *ap_interpreter_output(const ap_interpreter *it, size_t i) {
  if (i >= ap_interpreter_output_count(it)) return NULL;
  return &it->sg[0].tensors[ap_model_subgraph_outputs(it->model, 0).v[i]];
}
ap_tensor *ap_interpreter_tensor(ap_interpreter *it, size_t subgraph, size_t tensor) {
  if (!it || !it->sg || subgraph >= it->sg_count || tensor >= it->sg[subgraph].tensor_count)
    return NULL;
  return &it->sg[subgraph].tensors[tensor];
}
ap_tensor *ap_interpreter_tensor_by_name(ap_interpreter *it, const char *name) {
  if (!it || !it->sg || !name) return NULL;
  for (size_t sg = 0; sg < it->sg_count; sg++)
    for (size_t t = 0; t < it->sg[sg].tensor_count; t++)
      if (strcmp(it->sg[sg].tensors[t].name, name) == 0) return &it->sg[sg].tensors[t];
  return NULL;
}

ap_status ap_interpreter_memory(const ap_interpreter *it, ap_memory_usage *out) {
  if (!it || !out) return AP_ERR_ARG;
  if (!it->allocated) /* only the message changes, as in ap_graph_problem */
    return ap_fail((ap_errbuf *)&it->err, AP_ERR_NOT_ALLOCATED,
                   "not allocated: call ap_interpreter_allocate() first");
  uint64_t arena16;
  ap_align_up(it->arena_bytes, 16, &arena16);
  out->arena = it->arena_bytes;
  out->persistent = it->persistent_bytes;
  out->tables = it->tables_bytes;
  /* With a caller buffer: the exact size that works (arena rounded to the 16-byte grid the
   * tail uses). Otherwise: the sum of the three regions. */
  out->total = it->buf ? arena16 + it->tail_used
                       : out->arena + out->persistent + out->tables;
  return AP_OK;
}
