/* Planning and placement: every non-constant tensor and scratch request becomes a request,
 * the strategy plans them, and each tensor's data pointer (and each scratch pointer) is set to
 * its offset in the arena. All memory used here is temporary (rt_temp_allocator). */
#include "kernels/stream_kernels.h"
#include "runtime_internal.h"

#include <string.h>

typedef struct plan_state {
  ap_allocator *temp; /* the one allocator of a planning: every state points at it */
  int64_t *fixed;     /* the model's offline plan per request, or NULL */
  uint64_t *bytes;
  bool *split;            /* per model-wide op: split over the threads, so not over its input */
  void ***scratch_target; /* per scratch request id - tensor count: where its address goes */
  ap_graph *g;
  ap_problem *p;
  ap_plan *plan;
} plan_state;

static void plan_state_free(plan_state *s) {
  ap_plan_destroy(s->plan);
  ap_problem_destroy(s->p);
  ap_graph_destroy(s->g);
  ap_free(s->temp, s->scratch_target);
  ap_free(s->temp, s->fixed);
  ap_free(s->temp, s->bytes);
  ap_free(s->temp, s->split);
}

/* Takes the arena: from the caller buffer's bottom (after checking it fits below the tables
 * and persistent state) or from the allocator. */
static ap_status take_arena(ap_interpreter *it, uint64_t base_align) {
  if (it->buf) {
    uintptr_t lo = (uintptr_t)it->buf, end = lo + it->buf_size;
    uintptr_t top = it->tail_used ? end - it->tail_used : end & ~(uintptr_t)15;
    uint64_t base;
    ap_align_up(lo, base_align, &base);
    uint64_t arena16;
    ap_align_up(it->arena_bytes, 16, &arena16);
    if (base > top || top - base < it->arena_bytes) {
      uint64_t needs = (base - lo) + arena16 + it->tables_bytes + it->persistent_bytes;
      return rt_fail(it, AP_ERR_ARENA_TOO_SMALL,
                     "arena too small: needs %llu bytes, buffer has %zu%s",
                     (unsigned long long)needs, it->buf_size,
                     lo % 16 ? " (the buffer is not 16-byte aligned: the need counts the "
                               "padding at its start)"
                             : "");
    }
    it->arena = (uint8_t *)(uintptr_t)base;
    return AP_OK;
  }
  size_t want;
  if (!ap_add_size((size_t)it->arena_bytes, (size_t)base_align, &want) ||
      it->arena_bytes > SIZE_MAX)
    return rt_fail(it, AP_ERR_OVERFLOW, "arena of %llu bytes overflows",
                   (unsigned long long)it->arena_bytes);
  it->arena_mem = ap_alloc(&it->alloc, want);
  if (!it->arena_mem)
    return rt_fail(it, AP_ERR_NOMEM, "out of memory for an arena of %llu bytes",
                   (unsigned long long)it->arena_bytes);
  uint64_t base;
  ap_align_up((uintptr_t)it->arena_mem, base_align, &base);
  it->arena = (uint8_t *)(uintptr_t)base;
  return AP_OK;
}

/* A model carrying TFLite Micro's offline plan is planned as TFLite Micro would: its tensors at
 * the offsets given (slot i for tensor i of any subgraph, as TFLite Micro reads them), the rest
 * around them. An invalid plan (wrong count, overlap of live tensors, misaligned) fails. */
static ap_status offline_plan(ap_interpreter *it, plan_state *st, size_t total) {
  ap_offline_plan p;
  bool found;
  char err[256];
  ap_status s = ap_model_offline_plan(it->model, st->temp, &p, &found, err, sizeof err);
  if (s != AP_OK) return rt_fail(it, s, "%s: %s", ap_model_path(it->model), err);
  if (!found) return AP_OK;
  size_t n = ap_problem_count(st->p);
  const ap_request *req = ap_problem_requests(st->p);
  st->fixed = ap_alloc(st->temp, (n ? n : 1) * sizeof *st->fixed);
  if (!st->fixed) {
    ap_offline_plan_free(&p, st->temp);
    return rt_fail(it, AP_ERR_NOMEM, "out of memory for planning");
  }
  for (size_t i = 0; i < n; i++) {
    uint32_t sg, t;
    if (req[i].id < total && ap_graph_id_tensor(st->g, req[i].id, &sg, &t) && p.offsets[t] < -1) {
      s = rt_fail(it, AP_ERR_FORMAT, "%s: %s: tensor %u of subgraph %u has offset %d",
                  ap_model_path(it->model), AP_OFFLINE_PLAN_METADATA, t, sg, p.offsets[t]);
      ap_offline_plan_free(&p, st->temp);
      return s;
    }
    st->fixed[i] = req[i].id < total && ap_graph_id_tensor(st->g, req[i].id, &sg, &t) &&
                           t < p.count && p.offsets[t] >= 0
                       ? p.offsets[t]
                       : -1;
  }
  ap_offline_plan_free(&p, st->temp);
  return AP_OK;
}

static ap_status build(ap_interpreter *it, rt_prep *prep, bool place, plan_state *st,
                       size_t total) {
  st->bytes = ap_alloc(st->temp, (total ? total : 1) * sizeof *st->bytes);
  if (!st->bytes) return rt_fail(it, AP_ERR_NOMEM, "out of memory for planning");
  for (size_t sg = 0, id = 0; sg < it->sg_count; sg++)
    for (size_t t = 0; t < it->sg[sg].tensor_count; t++, id++) {
      const rt_tensor *x = rt_rec(it, sg, t);
      st->bytes[id] = !x || (x->flags & (RT_VARIABLE | RT_DYNAMIC)) ? 0 : rt_tensor_bytes(x);
    }
  /* An op on the fast kernels on threads (its kernel choice RT_K_FAST) splits its rows over
   * them: it may not overlap its input. kchoice's search sets the ops' choices before each
   * plan it measures, so its totals count the overlaps lost to threading. */
  size_t ops = 0;
  for (size_t sg = 0; sg < it->sg_count; sg++)
    ops += it->sg[sg].op_count;
  if (rt_inplace(it) && it->exec.workers && ops) {
    st->split = ap_alloc(st->temp, ops * sizeof *st->split);
    if (!st->split) return rt_fail(it, AP_ERR_NOMEM, "out of memory for planning");
    for (size_t sg = 0, i = 0; sg < it->sg_count; sg++)
      for (size_t k = 0; k < it->sg[sg].op_count; k++, i++) {
        const rt_op *o = &it->sg[sg].ops[k];
        st->split[i] = !rt_op_is_custom(o) && rt_op_choice(o) == RT_K_FAST;
      }
  }
  ap_graph_options go = {.rules = AP_RULES_ARENAPLAN,
                         .preserve_inputs = it->preserve_inputs,
                         .tensor_bytes = st->bytes,
                         .tensor_bytes_count = total,
                         .inplace = rt_inplace(it),
                         .no_overlap = st->split,
                         .no_overlap_count = st->split ? ops : 0,
                         .stream = rt_stream(it)};
  ap_status s = ap_graph_create(it->model, &go, st->temp, &st->g);
  if (s != AP_OK) return rt_fail(it, s, "%s", ap_graph_error(st->g));
  for (uint32_t k = 0; it->stream_grow && k < it->sg[0].op_count; k++) {
    ap_op_info op;
    if (!it->stream_grow[k] || ap_model_op(it->model, 0, k, &op) != AP_OK || op.outputs.n < 1 ||
        op.outputs.v[0] < 0)
      continue;
    const rt_tensor *r = rt_rec(it, 0, (size_t)op.outputs.v[0]);
    s = ap_graph_grow_ring(st->g, it->sg[0].tensor_base + (uint64_t)op.outputs.v[0],
                           it->stream_grow[k], r && r->rank == 4 ? (uint32_t)r->dims[1] : 0);
    if (s != AP_OK) return rt_fail(it, s, "op %u: its ring cannot grow", k);
  }
  /* Room for every kernel's requests and one per op (a segment member's own). */
  size_t slots = 0, scratch_count = 0;
  for (size_t sg = 0, op = 0; sg < it->sg_count; sg++)
    for (size_t k = 0; k < it->sg[sg].op_count; k++, op++, slots++)
      for (rt_prep_scratch *r = prep[op].scratch; r; r = r->next)
        slots++;
  if (place) {
    st->scratch_target = ap_alloc(st->temp, (slots + 1) * sizeof *st->scratch_target);
    if (!st->scratch_target) return rt_fail(it, AP_ERR_NOMEM, "out of memory for planning");
  }
  for (size_t sg = 0, op = 0; sg < it->sg_count; sg++)
    for (size_t k = 0; k < it->sg[sg].op_count; k++, op++) {
      rt_op *o = &it->sg[sg].ops[k];
      if (place && !rt_op_is_custom(o)) o->ext = NULL; /* set again when planned */
      /* A segment's member runs its kernel's rows: their scratch, not what the op's own
       * kernel asked for. */
      if (sg == 0 && !rt_op_is_custom(o) && rt_stream_in(st->g, (uint32_t)k)) {
        uint64_t bytes = 0, id;
        for (rt_prep_scratch *r = prep[op].scratch; r; r = r->next)
          r->id = UINT64_MAX;
        if ((s = rt_stream_scratch(it, st->g, (uint32_t)k, &bytes)) != AP_OK) return s;
        if (bytes == 0) continue;
        s = ap_graph_add_scratch(st->g, sg, k, bytes, &id);
        if (s != AP_OK) return rt_fail(it, s, "%s", ap_graph_error(st->g));
        if (place) st->scratch_target[id - total] = &o->ext;
        scratch_count++;
        continue;
      }
      uint32_t j = 0;
      for (rt_prep_scratch *r = prep[op].scratch; r; r = r->next, j++) {
        s = ap_graph_add_scratch(st->g, sg, k, r->bytes, &r->id);
        if (s != AP_OK) return rt_fail(it, s, "%s", ap_graph_error(st->g));
        scratch_count++;
        if (!place) continue;
        void **target = rt_op_is_custom(o) ? &((rt_custom *)o->ext)->scratch[j] : &o->ext;
        st->scratch_target[r->id - total] = target;
        if (rt_op_is_custom(o)) ((rt_custom *)o->ext)->capacity[j] = r->bytes;
        if (!rt_op_is_custom(o) && it->scratch_cap) it->scratch_cap[op] = r->bytes;
      }
    }
  (void)scratch_count;
  uint64_t align = it->alignment ? it->alignment : 16;
  s = ap_graph_problem(st->g, -1, align, &st->p);
  if (s != AP_OK) return rt_fail(it, s, "%s", ap_graph_error(st->g));
  const char *strategy = it->preserve_all ? "naive" : it->strategy;
  if (!it->preserve_all) {
    s = offline_plan(it, st, total);
    if (s != AP_OK) return s;
    if (st->fixed) strategy = "tflm";
  }
  s = ap_plan_create(st->p, &(ap_plan_options){.strategy = strategy, .fixed_offsets = st->fixed},
                     &st->plan);
  if (s != AP_OK)
    return rt_fail(it, s, "%s%s", st->fixed ? AP_OFFLINE_PLAN_METADATA ": " : "",
                   ap_plan_error(st->plan));
  return AP_OK;
}

/* Segments run the level's direct kits (stream.c) where the arena stays as small as without
 * them: everywhere when that costs nothing, else segment by segment from none. st holds the
 * plan with them everywhere (it->stream_lean all RT_KITS_ONCE) and gets the chosen one. The
 * segment by segment search plans with a fast strategy (the interpreter's may take tens of
 * milliseconds a plan); its choice is then planned with the interpreter's and kept only when
 * that arena is no larger than without the kits. */
static ap_status stream_kits(ap_interpreter *it, rt_prep *prep, bool place, plan_state *st,
                             size_t total, uint8_t *lean) {
  uint32_t ops = it->sg[0].op_count;
  plan_state base = {.temp = st->temp};
  memset(lean, RT_KITS_NONE, ops);
  ap_status s = build(it, prep, place, &base, total);
  if (s != AP_OK || ap_plan_arena(st->plan) <= ap_plan_arena(base.plan)) {
    memset(lean, RT_KITS_ONCE, ops);
    plan_state_free(&base);
    return s;
  }
  const char *strategy = it->strategy;
  it->strategy = "skyline";
  plan_state fast = {.temp = st->temp};
  s = build(it, prep, place, &fast, total);
  uint64_t floor = s == AP_OK ? ap_plan_arena(fast.plan) : 0;
  plan_state_free(&fast);
  static const uint8_t tries[] = {RT_KITS_ONCE, RT_KITS_EACH, RT_KITS_SMALL, RT_KITS_DW};
  for (size_t i = 0; s == AP_OK && i < ap_graph_segment_count(st->g); i++) {
    ap_segment seg;
    if (ap_graph_segment(st->g, i, &seg) != AP_OK || seg.subgraph != 0 || seg.first_op >= ops)
      continue;
    for (size_t j = 0; j < sizeof tries; j++) {
      lean[seg.first_op] = tries[j];
      plan_state c = {.temp = st->temp};
      bool keep = build(it, prep, place, &c, total) == AP_OK && ap_plan_arena(c.plan) <= floor;
      plan_state_free(&c);
      if (keep) break;
      lean[seg.first_op] = RT_KITS_NONE;
    }
  }
  /* Where a segment's members could not all run the kits, each of its members in turn packing
   * once, kept when the arena stays as with the segments' choice alone. */
  uint64_t cur = 0;
  bool members = false, bounded = false;
  for (size_t i = 0; s == AP_OK && i < ap_graph_segment_count(st->g); i++) {
    ap_segment seg;
    if (ap_graph_segment(st->g, i, &seg) != AP_OK || seg.subgraph != 0 ||
        seg.first_op + (uint64_t)seg.op_count > ops || lean[seg.first_op] == RT_KITS_ONCE ||
        lean[seg.first_op] == RT_KITS_EACH) /* (all its members on the kits already) */
      continue;
    for (uint32_t k = seg.first_op; k < seg.first_op + seg.op_count; k++) {
      ap_op_info op; /* CONV_2D and DEPTHWISE_CONV_2D have kits */
      if (ap_model_op(it->model, 0, k, &op) != AP_OK || (op.builtin != 3 && op.builtin != 4))
        continue;
      plan_state c = {.temp = st->temp};
      if (!bounded) {
        if (build(it, prep, place, &c, total) != AP_OK) break;
        cur = ap_plan_arena(c.plan);
        plan_state_free(&c);
        bounded = true;
      }
      lean[k] |= RT_KITS_MEMBER_ONCE;
      bool keep = build(it, prep, place, &c, total) == AP_OK && ap_plan_arena(c.plan) <= cur;
      plan_state_free(&c);
      members |= keep;
      if (!keep) lean[k] &= (uint8_t)~RT_KITS_MEMBER_ONCE;
    }
  }
  it->strategy = strategy;
  /* The members' choice planned with the interpreter's strategy must not be larger than the
   * segments' alone. */
  uint64_t without = UINT64_MAX;
  uint8_t *flags = members ? ap_alloc(st->temp, ops) : NULL;
  if (members && !flags) {
    for (uint32_t k = 0; k < ops; k++)
      lean[k] &= (uint8_t)~RT_KITS_MEMBER_ONCE;
    members = false;
  }
  if (members) {
    for (uint32_t k = 0; k < ops; k++) {
      flags[k] = lean[k] & RT_KITS_MEMBER_ONCE;
      lean[k] &= (uint8_t)~RT_KITS_MEMBER_ONCE;
    }
    plan_state c = {.temp = st->temp};
    if (build(it, prep, place, &c, total) == AP_OK) without = ap_plan_arena(c.plan);
    plan_state_free(&c);
    for (uint32_t k = 0; k < ops; k++)
      lean[k] |= flags[k];
  }
  plan_state chosen = {.temp = st->temp};
  if (members &&
      (build(it, prep, place, &chosen, total) != AP_OK || ap_plan_arena(chosen.plan) > without)) {
    plan_state_free(&chosen);
    chosen = (plan_state){.temp = st->temp};
    for (uint32_t k = 0; k < ops; k++)
      lean[k] &= (uint8_t)~RT_KITS_MEMBER_ONCE;
    members = false;
  }
  ap_free(st->temp, flags);
  if (s == AP_OK && (chosen.plan || build(it, prep, place, &chosen, total) == AP_OK) &&
      ap_plan_arena(chosen.plan) <= ap_plan_arena(base.plan)) {
    plan_state_free(&base);
    base = chosen;
  } else {
    plan_state_free(&chosen);
    memset(lean, RT_KITS_NONE, ops);
  }
  plan_state_free(st);
  *st = base;
  return AP_OK;
}

/* Larger rings where the arena stays as it is: a member whose input ring holds more rows gets
 * more rows per kernel call (fewer calls, fuller tiles, weights packed at each call packed less
 * often). Each ring in turn tries its whole map, then 4x and 2x its rows, planned with a fast
 * strategy against that strategy's arena without growth; the result is planned with the
 * interpreter's strategy and kept only when its arena is no larger than st's. */
enum { GROW_MAX = 4096 };

static ap_status stream_grow(ap_interpreter *it, rt_prep *prep, bool place, plan_state *st,
                             size_t total) {
  uint32_t ops = it->sg[0].op_count;
  uint32_t *grow = ap_alloc(st->temp, ops * sizeof *grow);
  if (!grow) return AP_OK; /* only speed is lost */
  memset(grow, 0, ops * sizeof *grow);
  const char *strategy = it->strategy;
  it->strategy = "skyline";
  ap_status s = AP_OK;
  uint64_t floor = 0;
  bool any = false, planned = false;
  for (size_t i = 0; s == AP_OK && i < ap_graph_segment_count(st->g); i++) {
    ap_segment seg;
    if (ap_graph_segment(st->g, i, &seg) != AP_OK || seg.subgraph != 0 ||
        seg.first_op + (uint64_t)seg.op_count > ops)
      continue;
    for (uint32_t k = seg.first_op; k + 1 < seg.first_op + seg.op_count; k++) {
      ap_op_info op;
      if (ap_model_op(it->model, 0, k, &op) != AP_OK || op.outputs.n < 1 || op.outputs.v[0] < 0)
        continue;
      const rt_tensor *r = rt_rec(it, 0, (size_t)op.outputs.v[0]);
      uint32_t rows = ap_graph_ring_rows(st->g, it->sg[0].tensor_base + (uint64_t)op.outputs.v[0]);
      if (!r || r->rank != 4 || r->dims[1] <= 0 || !rows || rows > UINT32_MAX / 4) continue;
      uint32_t h = (uint32_t)r->dims[1], tries[] = {h, 4 * rows, 2 * rows};
      /* A ring of a few KiB already gives its kernel calls enough to do (and large models
       * would plan many times). */
      if (rt_tensor_bytes(r) / h * rows >= GROW_MAX) continue;
      for (size_t j = 0; j < sizeof tries / sizeof *tries; j++) {
        if (tries[j] <= rows || tries[j] > h) continue;
        if (!planned) { /* the bound, planned only when some ring may grow */
          plan_state fast = {.temp = st->temp};
          s = build(it, prep, place, &fast, total);
          floor = s == AP_OK ? ap_plan_arena(fast.plan) : 0;
          plan_state_free(&fast);
          planned = true;
          it->stream_grow = grow;
          if (s != AP_OK) break;
        }
        grow[k] = tries[j];
        plan_state c = {.temp = st->temp};
        bool keep = build(it, prep, place, &c, total) == AP_OK && ap_plan_arena(c.plan) <= floor;
        plan_state_free(&c);
        if (keep) {
          any = true;
          break;
        }
        grow[k] = 0;
      }
    }
  }
  it->strategy = strategy;
  if (s == AP_OK && any) {
    plan_state c = {.temp = st->temp};
    if (build(it, prep, place, &c, total) == AP_OK &&
        ap_plan_arena(c.plan) <= ap_plan_arena(st->plan)) {
      plan_state_free(st);
      *st = c;
    } else {
      plan_state_free(&c);
    }
  }
  it->stream_grow = NULL;
  ap_free(st->temp, grow);
  return s;
}

ap_status rt_plan(ap_interpreter *it, rt_prep *prep, bool place, uint64_t *arena) {
  size_t total = 0;
  for (size_t sg = 0; sg < it->sg_count; sg++)
    total += it->sg[sg].tensor_count;
  /* The segments' table comes first: tables grow down from a caller buffer's top, and the
   * planning temporaries fill its bottom until the plan is placed. */
  uint32_t *table = NULL;
  if (place && rt_stream(it) && !(table = rt_stream_alloc(it))) return rt_nomem(it);
  /* Which segments run the direct kits: tables memory when placing (it stays), else a
   * temporary. */
  uint32_t ops = it->sg_count ? it->sg[0].op_count : 0;
  /* (A build without the kits, a board's, links neither search.) */
  bool kits = AP_KSTREAM_WIN && rt_stream(it) && ops && rt_stream_kits(it);
  bool quick = it->plan_quick && !place;
  ap_allocator temp = rt_temp_allocator(it);
  plan_state st = {.temp = &temp};
  uint8_t *lean = NULL, *kept = it->stream_lean;
  it->stream_lean = NULL;
  if (kits) {
    lean = place ? rt_tables_alloc(it, ops) : ap_alloc(st.temp, ops);
    if (!lean)
      return place ? rt_nomem(it) : rt_fail(it, AP_ERR_NOMEM, "out of memory for planning");
    memset(lean, quick ? RT_KITS_NONE : RT_KITS_ONCE, ops);
    it->stream_lean = lean;
  }
  ap_status s = build(it, prep, place, &st, total);
  if (s == AP_OK && kits && !quick && ap_graph_segment_count(st.g))
    s = stream_kits(it, prep, place, &st, total, lean);
  if (s == AP_OK && kits && !quick && ap_graph_segment_count(st.g))
    s = stream_grow(it, prep, place, &st, total);
  /* Streaming is never worse than not: a plan without segments that is smaller wins (the
   * segment search counts live bytes, not the in-place overlaps a planner then exploits). */
  /* Every state shares the one allocator above (plans and graphs keep its address). */
  plan_state alt = {.temp = st.temp};
  if (s == AP_OK && rt_stream(it) && ap_graph_segment_count(st.g)) {
    it->stream = false;
    ap_status s2 = build(it, prep, place, &alt, total);
    it->stream = true;
    if (s2 == AP_OK && ap_plan_arena(alt.plan) < ap_plan_arena(st.plan)) {
      plan_state_free(&st);
      st = alt;
    } else {
      plan_state_free(&alt);
    }
  }
  if (s == AP_OK) {
    *arena = ap_plan_arena(st.plan);
    if (place) {
      it->segments = NULL;
      if (table) s = rt_stream_table(it, st.g, table);
      it->stream_run = rt_stream_run;
      it->arena_bytes = *arena;
      it->arena_lower_bound = ap_plan_lower_bound(st.plan);
      uint64_t align = it->alignment ? it->alignment : 16;
      if (s == AP_OK) s = take_arena(it, align > 16 ? align : 16);
    }
  }
  if (s == AP_OK && place) {
    if (it->capacity) memcpy(it->capacity, st.bytes, total * sizeof *st.bytes);
    const ap_request *req = ap_problem_requests(st.p);
    const uint64_t *off = ap_plan_offsets(st.plan);
    for (size_t i = 0; i < ap_problem_count(st.p); i++) {
      uint64_t id = req[i].id;
      if (id >= total) {
        *st.scratch_target[id - total] = it->arena + off[i];
        continue;
      }
      uint32_t sg, t;
      rt_tensor *x = ap_graph_id_tensor(st.g, id, &sg, &t) ? rt_rec(it, sg, t) : NULL;
      if (x && !(x->flags & RT_DYNAMIC)) x->data = it->arena + off[i];
    }
    /* A tensor sharing another's bytes has no request: it takes its root's address. */
    for (uint64_t id = 0; rt_inplace(it) && id < total; id++) {
      uint64_t root;
      uint32_t sg, t, rsg, rt;
      if (!ap_graph_shares(st.g, id, &root) || !ap_graph_id_tensor(st.g, id, &sg, &t) ||
          !ap_graph_id_tensor(st.g, root, &rsg, &rt))
        continue;
      rt_tensor *x = rt_rec(it, sg, t), *r = rt_rec(it, rsg, rt);
      if (x && r && !((x->flags | r->flags) & RT_DYNAMIC)) x->data = r->data;
    }
  }
  plan_state_free(&st);
  if (!place) { /* a measurement: the placed plan's choice stays */
    ap_free(st.temp, lean);
    it->stream_lean = kept;
  }
  return s;
}
