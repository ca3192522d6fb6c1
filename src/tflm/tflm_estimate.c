/* Replays TFLite Micro's MicroInterpreter::AllocateTensors() on a model of its
 * SingleArenaBufferAllocator: the tail grows down from the arena end, each block aligned on
 * its own; the head grows up from the start (scratch-request array, temporaries, then the
 * plan). The arena end is 16-aligned, so a block's padding depends only on the tail size
 * before it, and every fit test is "front + tail <= arena size". */
#include "arenaplan/graph.h"
#include "tflm/tflm_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct sim {
  const ap_allocator *a;
  const ap_model *m;
  const tflm_sizes *z;
  ap_tflm_target target;
  ap_tflm_result *r;
  size_t item_cap;
  uint64_t tail;
  uint64_t peak;     /* max of front + tail seen */
  tflm_needs *needs; /* per op (model-wide op index) */
  const tflm_rule **rule;
  size_t *op_base; /* per subgraph: index of its op 0 in needs/rule */
  ap_tflm_scratch *scratch;
  size_t scratch_count, scratch_cap;
  const char **resources; /* resource variables already holding a buffer */
  size_t resource_count, resource_cap;
} sim;

static ap_status fail(sim *s, ap_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static ap_status fail(sim *s, ap_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->r->error, sizeof s->r->error, fmt, ap);
  va_end(ap);
  return st;
}

static bool grow(const ap_allocator *a, void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return true;
  size_t n = *cap ? *cap : 16;
  while (n < need) {
    if (!ap_mul_size(n, 2, &n)) return false;
  }
  void *q = ap_calloc(a, n, elem);
  if (!q) return false;
  if (*p) memcpy(q, *p, *cap * elem);
  ap_free(a, *p);
  *p = q;
  *cap = n;
  return true;
}

/* One tail allocation: AllocatePersistentBuffer(bytes, align), of `count` objects as
 * RecordingMicroAllocator counts them. */
static ap_status take_n(sim *s, ap_tflm_phase ph, ap_tflm_category cat, int32_t sg, int32_t op,
                        const char *what, uint64_t bytes, uint32_t align, uint32_t count) {
  ap_tflm_result *r = s->r;
  uint64_t end, after;
  if (!ap_add_u64(s->tail, bytes, &end) || !ap_align_up(end, align, &after))
    return fail(s, AP_ERR_OVERFLOW, "tail size overflows at %s", what);
  if (!grow(s->a, (void **)&r->items, &s->item_cap, r->item_count + 1, sizeof *r->items))
    return fail(s, AP_ERR_NOMEM, "out of memory");
  r->items[r->item_count++] = (ap_tflm_item){ph, cat, sg, op, what, bytes, align, after - s->tail};
  r->category_bytes[cat] += after - s->tail;
  r->category_count[cat] += count;
  s->tail = after;
  return AP_OK;
}

static ap_status take(sim *s, ap_tflm_phase ph, ap_tflm_category cat, int32_t sg, int32_t op,
                      const char *what, uint64_t bytes, uint32_t align) {
  return take_n(s, ph, cat, sg, op, what, bytes, align, 1);
}

/* AllocateTemp(bytes, align) from `front`. */
static ap_status temp(sim *s, uint64_t *front, uint64_t bytes, uint32_t align) {
  if (!ap_align_up(*front, align, front) || !ap_add_u64(*front, bytes, front))
    return fail(s, AP_ERR_OVERFLOW, "temporary size overflows");
  return AP_OK;
}

static void see_peak(sim *s, uint64_t front) {
  uint64_t v;
  if (!ap_add_u64(front, s->tail, &v)) v = UINT64_MAX;
  if (v > s->peak) s->peak = v;
}

static bool quantized(const ap_tensor_info *t) {
  return t->scale_count > 0 && t->zero_point_count > 0;
}

/* A TfLiteTensor from the flatbuffer: the struct, and for quantized tensors a
 * TfLiteAffineQuantization and a zero-point TfLiteIntArray (the scales stay in the model). */
static ap_status persistent_tensor(sim *s, size_t t) {
  ap_tensor_info ti;
  ap_status st = ap_model_tensor(s->m, 0, t, &ti);
  if (st) return fail(s, st, "%s", ap_model_error(s->m));
  st = take(s, AP_TFLM_PHASE_FINISH, AP_TFLM_PERSISTENT_TENSOR, -1, -1, "TfLiteTensor",
            s->z->tensor.size, s->z->tensor.align);
  if (!st && quantized(&ti))
    st = take(s, AP_TFLM_PHASE_FINISH, AP_TFLM_PERSISTENT_TENSOR_QUANT, -1, -1,
              "TfLiteAffineQuantization", s->z->affine_quantization.size,
              s->z->affine_quantization.align);
  if (!st && quantized(&ti))
    st = take(s, AP_TFLM_PHASE_FINISH, AP_TFLM_PERSISTENT_TENSOR_QUANT, -1, -1,
              "zero-point TfLiteIntArray", 4 + 4 * (uint64_t)ti.scale_count, 4);
  return st;
}

static ap_status temp_tensor(sim *s, size_t sg, int32_t t, uint64_t *front) {
  if (t < 0) return AP_OK; /* an absent optional input: no tensor */
  ap_tensor_info ti;
  ap_status st = ap_model_tensor(s->m, sg, (size_t)t, &ti);
  if (st) return fail(s, st, "%s", ap_model_error(s->m));
  st = temp(s, front, s->z->tensor.size, s->z->tensor.align);
  if (!st && quantized(&ti))
    st = temp(s, front, s->z->affine_quantization.size, s->z->affine_quantization.align);
  if (!st && quantized(&ti)) st = temp(s, front, 4 + 4 * (uint64_t)ti.scale_count, 4);
  return st;
}

static bool has_op(const ap_model *m, const char *name) {
  for (size_t sg = 0; sg < ap_model_subgraph_count(m); sg++)
    for (size_t i = 0; i < ap_model_op_count(m, sg); i++) {
      ap_op_info op;
      if (ap_model_op(m, sg, i, &op) == AP_OK && op.builtin != AP_BUILTIN_CUSTOM &&
          strcmp(ap_builtin_name(op.builtin), name) == 0)
        return true;
    }
  return false;
}

static ap_status setup(sim *s, const ap_tflm_options *o) {
  const tflm_sizes *z = s->z;
  tflm_layout arena =
      o->recording ? z->recording_single_arena_allocator : z->single_arena_allocator;
  tflm_layout alloc = o->recording ? z->recording_micro_allocator : z->micro_allocator;
  ap_status st = take(s, AP_TFLM_PHASE_SETUP, AP_TFLM_ALLOCATOR_OBJECTS, -1, -1,
                      "SingleArenaBufferAllocator", arena.size, arena.align);
  if (!st)
    st = take(s, AP_TFLM_PHASE_SETUP, AP_TFLM_ALLOCATOR_OBJECTS, -1, -1, "GreedyMemoryPlanner",
              z->greedy_planner.size, z->greedy_planner.align);
  if (!st)
    st = take(s, AP_TFLM_PHASE_SETUP, AP_TFLM_ALLOCATOR_OBJECTS, -1, -1, "MicroAllocator",
              alloc.size, alloc.align);
  /* An application whose model uses resource variables must hand the interpreter a
   * MicroResourceVariables, made on the allocator: the object and its slots. */
  s->r->resource_variables = o->recording || has_op(s->m, "VAR_HANDLE");
  if (!st && s->r->resource_variables) {
    uint64_t slots = o->resource_variable_slots ? o->resource_variable_slots : 100;
    st = take(s, AP_TFLM_PHASE_SETUP, AP_TFLM_PERSISTENT_BUFFER, -1, -1, "MicroResourceVariables",
              z->resource_variables_object, 16);
    if (!st)
      st = take(s, AP_TFLM_PHASE_SETUP, AP_TFLM_PERSISTENT_BUFFER, -1, -1,
                "MicroResourceVariables slots", slots * z->resource_variable_slot, 16);
  }
  return st;
}

/* StartModelAllocation: the builtin-data allocator, the scratch-request array at the head
 * (sized for the first op), the SubgraphAllocations, every subgraph's TfLiteEvalTensors,
 * then every subgraph's NodeAndRegistrations. */
static ap_status start(sim *s) {
  const tflm_sizes *z = s->z;
  size_t n_sg = ap_model_subgraph_count(s->m);
  ap_status st =
      take(s, AP_TFLM_PHASE_START, AP_TFLM_MODEL_START, -1, -1, "MicroBuiltinDataAllocator",
           z->builtin_data_allocator.size, z->builtin_data_allocator.align);
  see_peak(s, (uint64_t)z->scratch_request.size * TFLM_MAX_REQUESTS);
  if (!st)
    st = take(s, AP_TFLM_PHASE_START, AP_TFLM_MODEL_START, -1, -1, "SubgraphAllocations[]",
              (uint64_t)z->subgraph_allocations.size * n_sg, z->subgraph_allocations.align);
  for (size_t sg = 0; sg < n_sg && !st; sg++)
    st = take_n(s, AP_TFLM_PHASE_START, AP_TFLM_EVAL_TENSOR, (int32_t)sg, -1, "TfLiteEvalTensor[]",
                (uint64_t)z->eval_tensor.size * ap_model_tensor_count(s->m, sg),
                z->eval_tensor.align, (uint32_t)ap_model_tensor_count(s->m, sg));
  for (size_t sg = 0; sg < n_sg && !st; sg++)
    st = take_n(s, AP_TFLM_PHASE_START, AP_TFLM_NODE_AND_REGISTRATION, (int32_t)sg, -1,
                "NodeAndRegistration[]",
                (uint64_t)z->node_and_registration.size * ap_model_op_count(s->m, sg),
                z->node_and_registration.align, (uint32_t)ap_model_op_count(s->m, sg));
  see_peak(s, (uint64_t)z->scratch_request.size * TFLM_MAX_REQUESTS);
  return st;
}

/* Works out every op's rule and needs once; names the ops we do not model. */
static ap_status classify_ops(sim *s) {
  size_t n_sg = ap_model_subgraph_count(s->m), total = 0;
  s->op_base = ap_calloc(s->a, n_sg + 1, sizeof *s->op_base);
  if (!s->op_base) return fail(s, AP_ERR_NOMEM, "out of memory");
  for (size_t sg = 0; sg < n_sg; sg++) {
    s->op_base[sg] = total;
    total += ap_model_op_count(s->m, sg);
  }
  s->op_base[n_sg] = total;
  s->needs = ap_calloc(s->a, total ? total : 1, sizeof *s->needs);
  s->rule = ap_calloc(s->a, total ? total : 1, sizeof *s->rule);
  s->r->unmodelled = ap_calloc(s->a, total ? total : 1, sizeof *s->r->unmodelled);
  if (!s->needs || !s->rule || !s->r->unmodelled) return fail(s, AP_ERR_NOMEM, "out of memory");
  for (size_t sg = 0; sg < n_sg; sg++)
    for (size_t i = 0; i < ap_model_op_count(s->m, sg); i++) {
      tflm_op_ctx c = {.m = s->m, .sg = sg, .op = i, .target = s->target};
      ap_status st = ap_model_op(s->m, sg, i, &c.info);
      if (st) return fail(s, st, "%s", ap_model_error(s->m));
      const char *name = c.info.custom ? c.info.custom : ap_builtin_name(c.info.builtin);
      if (c.info.custom && strstr(c.info.custom, "ethos-u"))
        return fail(s, AP_ERR_UNSUPPORTED,
                    "op %zu of subgraph %zu is the Ethos-U custom op: TFLite Micro allocates "
                    "this model only on an Ethos-U device, not with reference kernels",
                    i, sg);
      if (tflm_kernel_absent(&c.info))
        return fail(s, AP_ERR_UNSUPPORTED,
                    "op %zu of subgraph %zu is %s: TFLite Micro has no kernel for it", i, sg, name);
      size_t k = s->op_base[sg] + i;
      s->rule[k] = tflm_rule_for(&c.info);
      if (!s->rule[k]) {
        s->r->unmodelled[s->r->unmodelled_count++] =
            (ap_tflm_unmodelled){(uint32_t)sg, (uint32_t)i, name, AP_TFLM_UNMODELLED_ALLOWANCE};
        s->r->unmodelled_bytes += AP_TFLM_UNMODELLED_ALLOWANCE;
        continue;
      }
      st = tflm_op_needs(&c, s->rule[k], &s->needs[k]);
      if (st == AP_ERR_OVERFLOW)
        return fail(s, st, "op %zu (%s) of subgraph %zu: a buffer size overflows", i, name, sg);
      if (st == AP_ERR_UNSUPPORTED)
        return fail(s, st, "op %zu (%s) of subgraph %zu: more than %d requests", i, name, sg,
                    TFLM_MAX_REQUESTS);
      if (st)
        return fail(s, st,
                    "op %zu (%s) of subgraph %zu: tensors or options TFLite Micro's "
                    "kernel cannot prepare",
                    i, name, sg);
      if (s->needs[k].reject[0])
        return fail(s, AP_ERR_UNSUPPORTED, "TFLite Micro cannot allocate this model: %s",
                    s->needs[k].reject);
    }
  return AP_OK;
}

/* PrepareNodeAndRegistrationDataFromFlatbuffer: each op's parsed builtin options. */
static ap_status parse(sim *s) {
  for (size_t sg = 0; sg < ap_model_subgraph_count(s->m); sg++)
    for (size_t i = 0; i < ap_model_op_count(s->m, sg); i++) {
      const tflm_rule *r = s->rule[s->op_base[sg] + i];
      if (!r || !r->params_size[s->target]) continue;
      ap_status st = take(s, AP_TFLM_PHASE_PARSE, AP_TFLM_BUILTIN_DATA, (int32_t)sg, (int32_t)i,
                          "builtin options", r->params_size[s->target], r->params_align[s->target]);
      if (st) return st;
    }
  return AP_OK;
}

/* InitSubgraphs: every kernel's init, every subgraph. Unmodelled ops get their allowance. */
static ap_status init(sim *s) {
  for (size_t sg = 0; sg < ap_model_subgraph_count(s->m); sg++)
    for (size_t i = 0; i < ap_model_op_count(s->m, sg); i++) {
      size_t k = s->op_base[sg] + i;
      ap_status st = AP_OK;
      if (!s->rule[k])
        st = take(s, AP_TFLM_PHASE_INIT, AP_TFLM_PERSISTENT_BUFFER, (int32_t)sg, (int32_t)i,
                  "allowance for an unmodelled op", AP_TFLM_UNMODELLED_ALLOWANCE, 16);
      for (size_t j = 0; j < s->needs[k].init_count && !st; j++)
        st = take(s, AP_TFLM_PHASE_INIT, AP_TFLM_PERSISTENT_BUFFER, (int32_t)sg, (int32_t)i,
                  j ? "kernel buffer (init)" : "OpData", s->needs[k].init[j], 16);
      if (st) return st;
    }
  return AP_OK;
}

/* The resource a VAR_HANDLE names ("container/shared_name"), for the op producing tensor t. */
static const char *resource_of(sim *s, size_t sg, int32_t t) {
  for (size_t i = 0; i < ap_model_op_count(s->m, sg); i++) {
    ap_op_info op;
    ap_op_options o;
    if (ap_model_op(s->m, sg, i, &op) != AP_OK || op.outputs.n < 1 || op.outputs.v[0] != t ||
        ap_model_op_options(s->m, sg, i, &o) != AP_OK || o.kind != AP_OPTIONS_VAR_HANDLE)
      continue;
    return o.var_handle.shared_name ? o.var_handle.shared_name : "";
  }
  return NULL;
}

/* MicroResourceVariables::Allocate: the first assignment to a resource allocates its buffer. */
static ap_status assign_variable(sim *s, size_t sg, size_t i, const ap_op_info *op) {
  if (op->inputs.n < 2 || op->inputs.v[1] < 0) return AP_OK;
  const char *name = op->inputs.v[0] >= 0 ? resource_of(s, sg, op->inputs.v[0]) : NULL;
  for (size_t j = 0; name && j < s->resource_count; j++)
    if (strcmp(s->resources[j], name) == 0) return AP_OK;
  if (name) {
    if (!grow(s->a, (void **)&s->resources, &s->resource_cap, s->resource_count + 1,
              sizeof *s->resources))
      return fail(s, AP_ERR_NOMEM, "out of memory");
    s->resources[s->resource_count++] = name;
  }
  ap_tensor_info value;
  ap_status st = ap_model_tensor(s->m, sg, (size_t)op->inputs.v[1], &value);
  if (st) return fail(s, st, "%s", ap_model_error(s->m));
  return take(s, AP_TFLM_PHASE_PREPARE, AP_TFLM_PERSISTENT_BUFFER, (int32_t)sg, (int32_t)i,
              "resource variable buffer", value.bytes, 16);
}

/* PrepareSubgraphs: each kernel's prepare. The head holds the scratch-request array, sized for
 * the requests so far plus kMaxScratchBuffersPerOp; above it the kernel's temporary
 * TfLiteTensors (every input and output it reads), freed after the op. */
static ap_status prepare(sim *s) {
  for (size_t sg = 0; sg < ap_model_subgraph_count(s->m); sg++)
    for (size_t i = 0; i < ap_model_op_count(s->m, sg); i++) {
      size_t k = s->op_base[sg] + i;
      const tflm_needs *n = &s->needs[k];
      ap_op_info op;
      ap_status st = ap_model_op(s->m, sg, i, &op);
      if (st) return fail(s, st, "%s", ap_model_error(s->m));
      uint64_t front =
          (uint64_t)s->z->scratch_request.size * (s->scratch_count + TFLM_MAX_REQUESTS);
      for (size_t j = 0; j < op.inputs.n && !st; j++)
        st = temp_tensor(s, sg, op.inputs.v[j], &front);
      for (size_t j = 0; j < op.outputs.n && !st; j++)
        st = temp_tensor(s, sg, op.outputs.v[j], &front);
      for (size_t j = 0; j < n->prepare_count && !st; j++)
        st = take(s, AP_TFLM_PHASE_PREPARE, AP_TFLM_PERSISTENT_BUFFER, (int32_t)sg, (int32_t)i,
                  "kernel buffer (prepare)", n->prepare[j], 16);
      if (!st && n->assign_variable) st = assign_variable(s, sg, i, &op);
      if (st) return st;
      see_peak(s, front);
      if (!grow(s->a, (void **)&s->scratch, &s->scratch_cap, s->scratch_count + n->scratch_count,
                sizeof *s->scratch))
        return fail(s, AP_ERR_NOMEM, "out of memory");
      for (size_t j = 0; j < n->scratch_count; j++) {
        s->scratch[s->scratch_count++] =
            (ap_tflm_scratch){(uint32_t)sg, (uint32_t)i, n->scratch[j]};
        if (!ap_add_u64(s->r->scratch_bytes, n->scratch[j], &s->r->scratch_bytes))
          return fail(s, AP_ERR_OVERFLOW, "scratch bytes overflow");
      }
    }
  s->r->scratch_requests = s->scratch_count;
  s->r->scratch = s->scratch; /* the result owns it now */
  s->scratch = NULL;
  s->scratch_cap = 0;
  return AP_OK;
}

static ap_status build_problem(sim *s, ap_problem **out) {
  ap_graph *g = NULL;
  ap_status st = ap_graph_create(s->m, &(ap_graph_options){.rules = AP_RULES_TFLM}, s->a, &g);
  const ap_tflm_scratch *q = s->r->scratch;
  for (size_t j = 0; j < s->r->scratch_requests && !st; j++)
    st = ap_graph_add_scratch(g, q[j].subgraph, q[j].op, q[j].bytes, NULL);
  if (!st) st = ap_graph_problem(g, -1, 16, out);
  if (st) fail(s, st, "TFLite Micro's lifetimes: %s", g ? ap_graph_error(g) : "out of memory");
  ap_graph_destroy(g);
  return st;
}

/* FinishModelAllocation: scratch handles, variable tensors, then the plan. The planning step
 * holds in the head the scratch-request array, then (temp) one size_t per subgraph and an
 * AllocationInfo per tensor and scratch buffer, then hands all the memory left between temp
 * and tail to the planner, which needs planner_per_buffer bytes per planned buffer. */
static ap_status finish(sim *s) {
  const tflm_sizes *z = s->z;
  ap_tflm_result *r = s->r;
  ap_status st = AP_OK;
  if (s->scratch_count)
    st = take(s, AP_TFLM_PHASE_FINISH, AP_TFLM_SCRATCH_HANDLES, -1, -1, "ScratchBufferHandle[]",
              (uint64_t)z->scratch_handle.size * s->scratch_count, z->scratch_handle.align);
  size_t tensors = 0, n_sg = ap_model_subgraph_count(s->m);
  for (size_t sg = 0; sg < n_sg && !st; sg++) {
    tensors += ap_model_tensor_count(s->m, sg);
    for (size_t t = 0; t < ap_model_tensor_count(s->m, sg) && !st; t++) {
      ap_tensor_info ti;
      st = ap_model_tensor(s->m, sg, t, &ti);
      if (st) return fail(s, st, "%s", ap_model_error(s->m));
      if (ti.is_variable)
        st = take(s, AP_TFLM_PHASE_FINISH, AP_TFLM_VARIABLE_BUFFER, (int32_t)sg, -1,
                  "variable tensor", ti.bytes, 16);
    }
  }
  if (st) return st;

  ap_problem *p = NULL;
  st = build_problem(s, &p);
  if (st) return st;
  ap_plan *plan = NULL;
  st = ap_plan_create(p, &(ap_plan_options){.strategy = "tflm"}, &plan);
  if (st) {
    fail(s, st, "TFLite Micro's planner: %s", plan ? ap_plan_error(plan) : "out of memory");
  } else {
    r->head_bytes = ap_plan_arena(plan);
    r->planned_buffers = ap_problem_count(p);
  }
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
  if (st) return st;

  uint64_t front = (uint64_t)z->scratch_request.size * (s->scratch_count + TFLM_MAX_REQUESTS);
  if ((st = temp(s, &front, (uint64_t)z->size_t_.size * n_sg, z->size_t_.align)) ||
      (st = temp(s, &front, (uint64_t)z->allocation_info.size * (tensors + s->scratch_count),
                 z->allocation_info.align)))
    return st;
  see_peak(s, front);
  uint64_t a16, t16;
  if (!ap_align_up(front, 16, &a16) || !ap_align_up(s->tail, 16, &t16))
    return fail(s, AP_ERR_OVERFLOW, "planning size overflows");
  uint64_t planner;
  if (!ap_mul_u64(z->planner_per_buffer, r->planned_buffers, &planner) ||
      !ap_add_u64(a16, planner, &r->planning_peak_bytes) ||
      !ap_add_u64(r->planning_peak_bytes, t16, &r->planning_peak_bytes))
    return fail(s, AP_ERR_OVERFLOW, "planning size overflows");

  /* MicroInterpreter::AllocateTensors: the input and output TfLiteTensors of subgraph 0. */
  for (int out = 0; out < 2 && !st; out++) {
    ap_ivec io = out ? ap_model_subgraph_outputs(s->m, 0) : ap_model_subgraph_inputs(s->m, 0);
    st = take(s, AP_TFLM_PHASE_FINISH, AP_TFLM_PERSISTENT_BUFFER, -1, -1,
              out ? "TfLiteTensor*[] (outputs)" : "TfLiteTensor*[] (inputs)",
              (uint64_t)z->pointer * io.n, 16);
    for (size_t j = 0; j < io.n && !st; j++) {
      if (io.v[j] < 0) return fail(s, AP_ERR_FORMAT, "subgraph 0 has a negative I/O tensor");
      st = persistent_tensor(s, (size_t)io.v[j]);
    }
  }
  return st;
}

static bool has_offline_plan(const ap_model *m) {
  for (size_t i = 0; i < ap_model_metadata_count(m); i++) {
    ap_metadata_info md;
    if (ap_model_metadata(m, i, &md) == AP_OK && strcmp(md.name, "OfflineMemoryAllocation") == 0)
      return true;
  }
  return false;
}

static void sim_free(sim *s) {
  ap_free(s->a, s->needs);
  ap_free(s->a, (void *)s->rule);
  ap_free(s->a, s->op_base);
  ap_free(s->a, s->scratch);
  ap_free(s->a, (void *)s->resources);
}

ap_status ap_tflm_estimate(const ap_model *m, const ap_tflm_options *opt, const ap_allocator *a,
                           ap_tflm_result *out) {
  if (!out) return AP_ERR_ARG;
  memset(out, 0, sizeof *out);
  ap_tflm_options o = opt ? *opt : (ap_tflm_options){0};
  sim s = {.a = ap_alloc_or_default(a), .m = m, .r = out, .target = o.target};
  if (!m || (unsigned)o.target > AP_TFLM_MCU32)
    return fail(&s, AP_ERR_ARG, "no model, or an unknown target");
  if (ap_model_subgraph_count(m) == 0) return fail(&s, AP_ERR_FORMAT, "the model has no subgraph");
  out->target = o.target;
  s.z = tflm_sizes_for(o.target);
  ap_status st = classify_ops(&s);
  if (!st && has_offline_plan(m))
    st = fail(&s, AP_ERR_UNSUPPORTED,
              "the model carries an OfflineMemoryAllocation plan; arenaplan models TFLite "
              "Micro's online planner only ('arenaplan embed MODEL --check' gives its head "
              "with the plan)");
  if (!st) st = setup(&s, &o);
  if (!st) st = start(&s);
  if (!st) st = parse(&s);
  if (!st) st = init(&s);
  if (!st) st = prepare(&s);
  if (!st) st = finish(&s);
  sim_free(&s);
  if (st) {
    char msg[sizeof out->error];
    memcpy(msg, out->error, sizeof msg);
    ap_tflm_result_free(out, a);
    memcpy(out->error, msg, sizeof msg);
    return st;
  }
  out->temp_peak_bytes = s.peak;
  out->tail_bytes = s.tail;
  if (!ap_add_u64(out->head_bytes, s.tail, &out->arena_used_bytes)) {
    ap_tflm_result_free(out, a);
    return fail(&s, AP_ERR_OVERFLOW, "arena size overflows");
  }
  out->prepare_peak_bytes = AP_MAX(s.peak, out->arena_used_bytes);
  uint64_t need = AP_MAX(out->prepare_peak_bytes, out->planning_peak_bytes);
  if (!ap_align_up(need, 16, &out->min_arena_bytes)) {
    ap_tflm_result_free(out, a);
    return fail(&s, AP_ERR_OVERFLOW, "arena size overflows");
  }
  return AP_OK;
}

uint64_t ap_tflm_min_arena_with_head(const ap_tflm_result *r, uint64_t head_bytes) {
  if (!r) return 0;
  uint64_t used, need;
  if (!ap_add_u64(head_bytes, r->tail_bytes, &used)) return UINT64_MAX;
  need = AP_MAX(AP_MAX(used, r->temp_peak_bytes), r->planning_peak_bytes);
  return ap_align_up(need, 16, &need) ? need : UINT64_MAX;
}

void ap_tflm_result_free(ap_tflm_result *r, const ap_allocator *a) {
  if (!r) return;
  a = ap_alloc_or_default(a);
  ap_free(a, r->items);
  ap_free(a, r->unmodelled);
  ap_free(a, r->scratch);
  memset(r, 0, sizeof *r);
}

ap_status ap_tflm_problem(const ap_model *m, const ap_allocator *a, ap_problem **out, char *err,
                          size_t err_size) {
  if (!out) return AP_ERR_ARG;
  *out = NULL;
  ap_tflm_result r;
  memset(&r, 0, sizeof r);
  sim s = {.a = ap_alloc_or_default(a), .m = m, .r = &r, .z = tflm_sizes_for(AP_TFLM_HOST64)};
  ap_status st = m ? classify_ops(&s) : fail(&s, AP_ERR_ARG, "no model");
  if (!st) st = start(&s);
  if (!st) st = prepare(&s);
  if (!st) st = build_problem(&s, out);
  sim_free(&s);
  if (st && err && err_size) snprintf(err, err_size, "%s", r.error);
  ap_tflm_result_free(&r, a);
  return st;
}
