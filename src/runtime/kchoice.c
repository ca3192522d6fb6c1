/* Kernel choice as part of planning: each builtin op's candidate kernels (fast on the
 * interpreter's threads, with one workspace, with one workspace without packed weights and with
 * the lean kernels where they cover the op (kernels/fast/lean.h: int8 convolution and depthwise in
 * the reference's scratch at SIMD speed), reference), each with the scratch its prepare asks for
 * and an estimated time; allocate keeps the set with the fastest estimated invoke whose total
 * fits the budget. Every candidate set is planned like the
 * real one (the same problem with the scratch sized for it), so scratch that fits in the free
 * space at its step costs nothing. The strategies see only requests, as ever.
 *
 * The time model. An op's work is its multiply-adds (CONV_2D, DEPTHWISE_CONV_2D,
 * FULLY_CONNECTED, BATCH_MATMUL, TRANSPOSE_CONV) or its output elements (any other op). The
 * reference kernels take about 1 ns per int8 multiply-add and 0.8 ns per float one on this
 * project's x86-64 machines (mlperf_ic_resnet_int8: 12.5 M multiply-adds in 9.6-11 ms at
 * `--kernels reference`); each SIMD level divides that by its measured speed-up over the
 * reference (bench/RESULTS.md: 21-43x for int8 at avx2, 5-13x for float), taken at its lower
 * end so that the model never promises more than the kernels give. Without packed weights a
 * product reads each weight once per row instead of once per tile: 1.3x the packed time (the
 * gap measured between `--kernels small`, which gave up packing, and `fast` on the avx512
 * level). The lean int8 CONV_2D widens patches of up to 640 taps on the stack for the level's
 * own products (kernels/fast/lean.h): 1.0-1.17x the packed time at avx2 (the shared models'
 * convolutions, per-op profiles interleaved with `--kernels fast`), so 1.15x there. Threads divide
 * ops of AP_FAST_PARALLEL_MIN (64K) multiply-adds or more, 256K for an int8 FULLY_CONNECTED (the
 * kernels' own thresholds, below which an op stays on one thread), by 0.85 x the thread count.
 * Every byte of scratch costs a write and a read (0.05 ns each): of two candidates that compute
 * alike, the smaller wins. Only the ordering matters to the choice, and the ordering is that of the
 * kernels (each candidate is slower and smaller than the one before it); the absolute estimate is
 * what reports show beside the measured time. */
#include "runtime_internal.h"

#include "kernels/fast/lean.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { B_CONV = 3, B_DW = 4, B_FC = 9, B_SOFTMAX = 25, B_TCONV = 67, B_BMM = 126 };

/* Speed-ups over the reference per level: {8-bit, float}. */
typedef struct level_speed {
  const char *name;
  double q8, f32;
} level_speed;
static const level_speed speeds[] = {
    {"generic", 3, 1.5}, {"sse41", 10, 3}, {"avx2", 20, 5},
    {"avx512", 30, 8},   {"neon", 10, 3},  {"neondot", 16, 3},
};

static double level_speedup(const ap_fast_level *l, bool is_float) {
  const char *name = ap_fast_level_name(l);
  for (size_t i = 0; i < sizeof speeds / sizeof *speeds; i++)
    if (strcmp(speeds[i].name, name) == 0) return is_float ? speeds[i].f32 : speeds[i].q8;
  return 1;
}

const ap_kexec *rt_kexec_op(const ap_interpreter *it, const rt_op *o, rt_kexec_room *room) {
  const ap_kexec *x = rt_kexec(it);
  unsigned k = rt_op_choice(o);
  if (!x || k == RT_K_FAST) return x;
  if (k == RT_K_REF) return NULL;
#ifdef AP_PORT_NONE
  (void)room;
  return x;
#else
  room->one = *x;
  room->one.one_workspace = true; /* the workers for kernels with one scratch for all threads */
  if (k == RT_K_FLAT) {
    room->one.lean = true; /* the lean kernels where they cover the op (lean.h) */
    if (x->level->outer) {
      room->flat = *x->level;
      room->flat.outer = NULL;
      room->one.level = &room->flat;
    }
  }
  return &room->one;
#endif
}

bool rt_kchoice_on(const ap_interpreter *it) {
  return (it->kernels == AP_KERNELS_AUTO || it->kernels == AP_KERNELS_SMALL) && it->exec.level;
}

/* Op k's work (see the top), whether it computes in float, and the work from which its fast
 * kernel splits over threads: AP_FAST_PARALLEL_MIN, four times that for an int8
 * FULLY_CONNECTED (fc_int8.c counts a quarter of its multiply-adds). */
static double op_work(const ap_interpreter *it, uint32_t sg, uint32_t k, bool *is_float,
                      double *split) {
  ap_op_info op;
  *is_float = false;
  *split = AP_FAST_PARALLEL_MIN;
  if (ap_model_op(it->model, sg, k, &op) != AP_OK || op.outputs.n < 1 || op.outputs.v[0] < 0)
    return 0;
  const rt_tensor *out = rt_rec(it, sg, (size_t)op.outputs.v[0]);
  double elems = 1;
  for (uint16_t d = 0; out && d < out->rank; d++)
    elems *= out->dims[d] > 0 ? out->dims[d] : 0;
  if (!out) elems = 0;
  *is_float = out && out->type == AP_FLOAT32;
  ap_tensor_info w = {0};
  bool has_w = op.inputs.n > 1 && op.inputs.v[1] >= 0 &&
               ap_model_tensor(it->model, sg, (size_t)op.inputs.v[1], &w) == AP_OK;
  const int32_t *wd = has_w ? w.shape.v : NULL;
  size_t wn = has_w ? w.shape.n : 0;
  switch (op.builtin) {
  case B_CONV: /* [out, kh, kw, in] */ return wn == 4 ? elems * wd[1] * wd[2] * wd[3] : elems;
  case B_DW: /* [1, kh, kw, out] */ return wn == 4 ? elems * wd[1] * wd[2] : elems;
  case B_FC: /* [units, depth]; u8_fc.c splits from AP_FAST_PARALLEL_MIN */
    if (out && out->type == AP_INT8) *split = 4.0 * AP_FAST_PARALLEL_MIN;
    return wn >= 2 ? elems * wd[wn - 1] : elems;
  case B_BMM: return wn >= 2 ? elems * wd[wn - 1] : elems;
  case B_TCONV: { /* the output's each element sums kh x kw x in / stride^2: bounded above */
    ap_tensor_info f = {0};
    if (op.inputs.n > 1 && op.inputs.v[1] >= 0 &&
        ap_model_tensor(it->model, sg, (size_t)op.inputs.v[1], &f) == AP_OK && f.shape.n == 4)
      return elems * f.shape.v[1] * f.shape.v[2] * f.shape.v[3];
    return elems;
  }
  default: return elems / 4; /* an element of an element-wise op: a fraction of a multiply-add */
  }
}

#if defined(__x86_64__) || defined(_M_X64)
/* The in-place candidate's time over the packed one's for op k (see the top): less for an
 * int8 CONV_2D the lean kernel widens, at the levels that run it, and for a float CONV_2D the
 * lean kernel runs at avx2: 0.97-1.07x the packed time on mlperf_ic_resnet_float's 3x3 layers
 * (one thread, each layer's shape through the registry, min of 3000 evals interleaved: 69/71,
 * 61/63, 38.5/36 and 68/65 us), so 1.05 there. (At avx512 the packed kernel has 16 lanes to the
 * lean one's 8: 1.3 as without it.) Its stack holds fh rows of every input channel over 8
 * pixels' columns or it declines; counted here at stride 2 (the widest rows of stride 1 or 2). */
static double flat_factor(const ap_interpreter *it, uint32_t sg, uint32_t k) {
  const char *level = ap_fast_level_name(it->exec.level);
  ap_op_info op;
  ap_tensor_info w = {0};
  if ((strcmp(level, "avx2") != 0 && strcmp(level, "avx512") != 0) ||
      ap_model_op(it->model, sg, k, &op) != AP_OK || op.builtin != B_CONV || op.inputs.n < 2 ||
      op.inputs.v[1] < 0 || op.outputs.n < 1 || op.outputs.v[0] < 0 ||
      ap_model_tensor(it->model, sg, (size_t)op.inputs.v[1], &w) != AP_OK || w.shape.n != 4)
    return 1.3;
  const rt_tensor *out = rt_rec(it, sg, (size_t)op.outputs.v[0]);
  bool wide = out && out->type == AP_INT8 &&
              (int64_t)w.shape.v[1] * w.shape.v[2] * w.shape.v[3] <= AP_FAST_LEAN_WIDE_K;
  int64_t fh = w.shape.v[1], fw = w.shape.v[2], d = w.shape.v[3];
  bool lean_float = out && out->type == AP_FLOAT32 && strcmp(level, "avx2") == 0 && fh > 0 &&
                    fh <= 64 && fw > 0 && fw <= 64 && d > 0 &&
                    (fh * d + 1) * 2 * (8 + (fw - 1) / 2) * 4 <= AP_FAST_LEAN_FSTACK_BYTES;
  return wide ? 1.15 : lean_float ? 1.05 : 1.3;
}
#else
static double flat_factor(const ap_interpreter *it, uint32_t sg, uint32_t k) {
  (void)it, (void)sg, (void)k;
  return 1.3; /* no lean kernels (x86-64 only) */
}
#endif

/* The estimated nanoseconds of op k under choice ch, with `scratch` bytes of scratch. */
static double op_ns(const ap_interpreter *it, uint32_t sg, uint32_t k, unsigned ch,
                    uint64_t scratch) {
  bool is_float;
  double split;
  double work = op_work(it, sg, k, &is_float, &split);
  double ns = work * (is_float ? 0.8 : 1.0);
  if (ch != RT_K_REF && it->exec.level) {
    ns /= level_speedup(it->exec.level, is_float);
    if (ch == RT_K_FLAT) ns *= flat_factor(it, sg, k);
    if (ch == RT_K_FAST && it->exec.threads > 1 && work >= split) ns /= 0.85 * it->exec.threads;
  }
  return ns + 0.1 * (double)scratch;
}

/* A builtin op's scratch under choice ch (its prepare run again, which is pure). */
static ap_status op_scratch(ap_interpreter *it, uint32_t sg, uint32_t k, unsigned ch,
                            uint64_t *bytes) {
  rt_op *o = &it->sg[sg].ops[k];
  unsigned was = rt_op_choice(o);
  rt_op_set_choice(o, ch);
  ap_op_context c = {.it = it, .subgraph = sg, .index = k, .phase = RT_EVAL, .op = o};
  ap_status s = ap_model_op(it->model, sg, k, &c.info);
  size_t n = 0;
  uint64_t calls = it->prepare_calls; /* a measurement, not the op's prepare */
  if (s == AP_OK) s = rt_builtin_scratch_bytes(&c, &n);
  it->prepare_calls = calls;
  rt_op_set_choice(o, was);
  *bytes = n;
  return s;
}

/* The ops whose kernels' scratch depends on the choice: the families whose fast paths take
 * workspaces, patch rows, packed weights or tables. */
static bool has_variants(const ap_interpreter *it, uint32_t sg, uint32_t k) {
  ap_op_info op;
  if (ap_model_op(it->model, sg, k, &op) != AP_OK) return false;
  switch (op.builtin) {
  case B_CONV:
  case B_DW:
  case B_FC:
  case B_TCONV:
  case B_BMM:
  case B_SOFTMAX: return true;
  default: return false;
  }
}

/* An op with two or more candidates (each smaller and slower than the one before). */
typedef struct cand {
  uint32_t sg, k, op; /* op: model-wide */
  uint8_t n;
  uint8_t ch[RT_K_COUNT];
  uint64_t bytes[RT_K_COUNT];
  double ns[RT_K_COUNT];
  rt_prep_scratch *node; /* its scratch request, linked into prep while it has bytes */
} cand;

typedef struct search {
  ap_interpreter *it;
  rt_prep *prep;
  ap_allocator *temp;
  cand *c;
  size_t n;
  uint64_t plans; /* plans made (for the message of a slow search) */
} search;

/* Sizes prep's requests for the choice v (an index into each candidate's list), and sets the
 * ops' choices: the plan lets no op on the threads overlap its input (place.c). */
static void apply(search *S, const uint8_t *v) {
  for (size_t i = 0; i < S->n; i++) {
    cand *c = &S->c[i];
    rt_op_set_choice(&S->it->sg[c->sg].ops[c->k], c->ch[v[i]]);
    rt_prep *p = &S->prep[c->op];
    uint64_t b = c->bytes[v[i]];
    c->node->next = NULL;
    c->node->bytes = b;
    p->scratch = b ? c->node : NULL;
    p->scratch_count = b ? 1 : 0;
  }
}

/* The total (as ap_memory_usage.total) of the plan for choice v. */
static ap_status total_of(search *S, const uint8_t *v, uint64_t *total) {
  apply(S, v);
  uint64_t arena, arena16;
  S->plans++;
  ap_status s = rt_plan(S->it, S->prep, false, &arena);
  if (s != AP_OK) return s;
  ap_align_up(arena, 16, &arena16);
  *total = arena16 + S->it->persistent_bytes + S->it->tables_bytes;
  return AP_OK;
}

static double time_of(const search *S, const uint8_t *v) {
  double t = 0;
  for (size_t i = 0; i < S->n; i++)
    t += S->c[i].ns[v[i]];
  return t;
}

/* Every candidate op's list: its choices in order, each kept only when it needs fewer bytes
 * than every faster one (else it is slower for nothing). */
static ap_status collect(search *S) {
  ap_interpreter *it = S->it;
  size_t ops = 0;
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    ops += it->sg[sg].op_count;
  S->c = ap_alloc(S->temp, (ops ? ops : 1) * sizeof *S->c);
  if (!S->c) return rt_fail(it, AP_ERR_NOMEM, "out of memory for planning");
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    for (uint32_t k = 0; k < it->sg[sg].op_count; k++) {
      rt_op *o = &it->sg[sg].ops[k];
      rt_prep *p = &S->prep[it->sg[sg].op_base + k];
      /* A builtin has one request at most, its kernel's (a segment member's prep is not
       * planned: the segment's rows are, alike for every choice). */
      if (rt_op_is_custom(o) || p->scratch_count > 1 || !has_variants(it, sg, k)) continue;
      cand c = {.sg = sg, .k = k, .op = it->sg[sg].op_base + k};
      for (unsigned ch = 0; ch < RT_K_COUNT; ch++) {
        uint64_t b;
        if (op_scratch(it, sg, k, ch, &b) != AP_OK) {
          it->msg[0] = 0; /* (a shape known only in allocate's prepare): not a candidate */
          c.n = 0;
          break;
        }
        if (c.n && b >= c.bytes[c.n - 1]) continue;
        c.ch[c.n] = (uint8_t)ch;
        c.bytes[c.n] = b;
        c.ns[c.n] = op_ns(it, sg, k, ch, b);
        c.n++;
      }
      if (c.n < 2) continue;
      c.node = p->scratch;
      if (!c.node) {
        c.node = ap_alloc(S->temp, sizeof *c.node);
        if (!c.node) return rt_fail(it, AP_ERR_NOMEM, "out of memory for planning");
        memset(c.node, 0, sizeof *c.node);
      }
      S->c[S->n++] = c;
    }
  return AP_OK;
}

static void format_bytes(char *b, size_t n, uint64_t v) {
  char digits[32];
  int len = snprintf(digits, sizeof digits, "%" PRIu64, v), o = 0;
  for (int i = 0; i < len && (size_t)o + 2 < n; i++) {
    if (i && (len - i) % 3 == 0) b[o++] = ',';
    b[o++] = digits[i];
  }
  b[o] = 0;
}

/* Exhaustive over every combination (few): the fastest within limit. */
static ap_status exhaustive(search *S, uint64_t limit, uint8_t *best) {
  uint8_t v[S->n ? S->n : 1];
  memset(v, 0, sizeof v);
  double best_t = -1;
  uint64_t best_total = UINT64_MAX;
  for (;;) {
    uint64_t total;
    ap_status s = total_of(S, v, &total);
    if (s != AP_OK) return s;
    double t = time_of(S, v);
    if (total <= limit && (best_t < 0 || t < best_t || (t == best_t && total < best_total))) {
      best_t = t;
      best_total = total;
      memcpy(best, v, S->n);
    }
    size_t i = 0;
    while (i < S->n && ++v[i] == S->c[i].n)
      v[i++] = 0;
    if (i == S->n) break;
  }
  return AP_OK;
}

/* Upgrades from the plan v (total within the limit): each op steps back up, most time lost
 * first, while the total stays within `within`; an op whose step does not fit stays (marked in
 * `stuck`, so no problem is planned twice). */
static ap_status upgrade_pass(search *S, uint64_t within, uint8_t *v, uint8_t *stuck) {
  memset(stuck, 0, S->n);
  for (;;) {
    size_t pick = SIZE_MAX;
    double most = 0;
    for (size_t i = 0; i < S->n; i++) {
      double lost = v[i] && !stuck[i] ? S->c[i].ns[v[i]] - S->c[i].ns[v[i] - 1] : 0;
      if (lost > most) most = lost, pick = i;
    }
    if (pick == SIZE_MAX) return AP_OK;
    v[pick]--;
    uint64_t t;
    ap_status s = total_of(S, v, &t);
    if (s != AP_OK) return s;
    if (t > within) v[pick]++, stuck[pick] = 1;
  }
}

/* The upgrades that cost nothing first (the total stays v's: scratch placed in free space,
 * the same whatever the limit), then those within the limit. Taken the other way, one large
 * upgrade that fits a larger limit can fill the free space the small ones needed, and a larger
 * budget gives a slower plan (dp_net_float: 6.55 ms estimated at 340,716 B, 6.36 ms at
 * 337,056 B). */
static ap_status upgrade(search *S, uint64_t limit, uint8_t *v, uint8_t *stuck) {
  uint64_t t;
  ap_status s = total_of(S, v, &t);
  if (s == AP_OK) s = upgrade_pass(S, t < limit ? t : limit, v, stuck);
  if (s == AP_OK && t < limit) s = upgrade_pass(S, limit, v, stuck);
  return s;
}

/* Greedy with a bound. From every op fastest (v, total `total`: over the limit), the step
 * down saving the most bytes per nanosecond lost, re-planned, until the total fits: the first
 * plan of that path within the limit. Two starts are then improved by upgrade(): that plan and
 * every op at its smallest (`small`, which the caller checked fits), and the faster result is
 * kept. The path's plan alone could be slower for a larger budget than for a smaller one (its
 * steps down overshoot by different amounts: dp_net_float's default was 2.6 % slower than its
 * plan at the reference total); the smallest start is the same for every budget, so what it
 * upgrades to at a budget it also reaches at any larger one, where its upgrades fit alike. */
static ap_status greedy(search *S, uint64_t limit, uint64_t total, const uint8_t *small,
                        uint8_t *v) {
  uint8_t *w = ap_alloc(S->temp, S->n), *stuck = ap_alloc(S->temp, S->n);
  ap_status s = w && stuck ? AP_OK : rt_fail(S->it, AP_ERR_NOMEM, "out of memory for planning");
  while (s == AP_OK && total > limit) {
    size_t pick = SIZE_MAX;
    double best = -1;
    for (size_t i = 0; i < S->n; i++) {
      const cand *c = &S->c[i];
      if (v[i] + 1 >= c->n) continue;
      double saved = (double)(c->bytes[v[i]] - c->bytes[v[i] + 1]);
      double lost = c->ns[v[i] + 1] - c->ns[v[i]];
      double r = saved / (lost > 1 ? lost : 1);
      if (r > best) best = r, pick = i;
    }
    if (pick == SIZE_MAX) break;
    v[pick]++;
    s = total_of(S, v, &total);
  }
  if (s == AP_OK) s = upgrade(S, limit, v, stuck);
  uint64_t t0 = 0, t1 = 0;
  if (s == AP_OK) s = total_of(S, v, &t0);
  if (s == AP_OK) {
    memcpy(w, small, S->n);
    s = upgrade(S, limit, w, stuck);
  }
  if (s == AP_OK) s = total_of(S, w, &t1);
  double e0 = time_of(S, v), e1 = time_of(S, w);
  bool take = t1 <= limit && (t0 > limit || e1 < e0 || (e1 == e0 && t1 < t0));
  if (s == AP_OK && take) memcpy(v, w, S->n);
  ap_free(S->temp, stuck);
  ap_free(S->temp, w);
  return s;
}

ap_status rt_kchoice(ap_interpreter *it, rt_prep *prep) {
  ap_allocator temp = rt_temp_allocator(it);
  search S = {.it = it, .prep = prep, .temp = &temp};
  ap_status s = collect(&S);
  uint8_t *v = NULL, *small = NULL;
  if (s == AP_OK && S.n) {
    v = ap_alloc(&temp, S.n);
    small = ap_alloc(&temp, S.n);
    if (!v || !small) s = rt_fail(it, AP_ERR_NOMEM, "out of memory for planning");
  }
  uint64_t fast = 0, least = 0, limit = 0;
  /* With no choice to make, only a budget given is checked (one plan). */
  bool given = it->kernels == AP_KERNELS_AUTO && it->budget;
  bool search = S.n || given;
  if (s == AP_OK && search) {
    if (S.n) memset(v, 0, S.n);
    for (size_t i = 0; i < S.n; i++)
      small[i] = (uint8_t)(S.c[i].n - 1);
    s = total_of(&S, small, &least);
  }
  /* The smallest plan is measured as it will be placed (the default's limit follows it); the
   * search's plans are bounds from above (it->plan_quick), so what fits them fits placed. */
  it->plan_quick = true;
  if (s == AP_OK && search) {
    uint64_t extra = it->budget ? it->budget : AP_SMALL_SCRATCH_DEFAULT;
    if (it->kernels == AP_KERNELS_SMALL)
      limit = least + extra;
    else
      limit = given ? it->budget : least + least / 50;
    fast = least;
    if (S.n) s = total_of(&S, v, &fast);
  }
  if (s == AP_OK && search && fast > limit) {
    if (least > limit) {
      char b[32], n[32], d[32];
      format_bytes(b, sizeof b, limit);
      format_bytes(n, sizeof n, least);
      format_bytes(d, sizeof d, least - limit);
      s = rt_fail(it, AP_ERR_ARENA_TOO_SMALL,
                  "budget %s B: the smallest plan (reference kernels where they need less "
                  "scratch) needs %s B, %s B over",
                  b, n, d);
    } else {
      size_t combos = 1;
      for (size_t i = 0; i < S.n && combos <= 64; i++)
        combos *= S.c[i].n;
      s = combos <= 64 ? exhaustive(&S, limit, v) : greedy(&S, limit, fast, small, v);
      /* Nothing found within the bound: the smallest plan, which fits as placed. */
      uint64_t t;
      if (s == AP_OK) s = total_of(&S, v, &t);
      if (s == AP_OK && t > limit) memcpy(v, small, S.n);
    }
  }
  it->plan_quick = false;
  /* The choice into the ops, each chosen op prepared again (its parameters and its prepared
   * block follow its kernel), and prep's requests sized for it. */
  for (size_t i = 0; s == AP_OK && i < S.n; i++) {
    const cand *c = &S.c[i];
    rt_op *o = &it->sg[c->sg].ops[c->k];
    rt_op_set_choice(o, c->ch[v[i]]);
    if (!v[i]) continue;
    ap_op_context cx = {.it = it, .subgraph = c->sg, .index = c->k, .phase = RT_RESHAPE, .op = o};
    uint64_t *cap = it->scratch_cap, *tcap = it->capacity;
    it->scratch_cap = it->capacity = NULL; /* sized by the plan to come */
    s = ap_model_op(it->model, c->sg, c->k, &cx.info);
    if (s == AP_OK) s = rt_builtin_prepare(&cx);
    it->scratch_cap = cap;
    it->capacity = tcap;
  }
  if (s == AP_OK && S.n) apply(&S, v);
  for (size_t i = 0; i < S.n; i++)
    if (S.prep[S.c[i].op].scratch != S.c[i].node) ap_free(&temp, S.c[i].node);
  ap_free(&temp, small);
  ap_free(&temp, v);
  ap_free(&temp, S.c);
  return s;
}

const char *ap_interpreter_op_kernel(const ap_interpreter *it, size_t sg, size_t op) {
  if (!it || !it->allocated || sg >= it->sg_count || op >= it->sg[sg].op_count) return NULL;
  const rt_op *o = &it->sg[sg].ops[op];
  if (rt_op_is_custom(o)) return "-";
  if (!it->exec.level) return "reference";
  static const char *const names[] = {"fast", "one thread", "in place", "reference"};
  return names[rt_op_choice(o)];
}

uint64_t ap_interpreter_estimate_ns(const ap_interpreter *it) {
  if (!it || !it->allocated) return 0;
  double t = 0;
  ap_interpreter *w = (ap_interpreter *)it; /* scratch sizes: prepare only reads */
  for (uint32_t sg = 0; sg < it->sg_count; sg++)
    for (uint32_t k = 0; k < it->sg[sg].op_count; k++) {
      const rt_op *o = &it->sg[sg].ops[k];
      if (rt_op_is_custom(o)) continue;
      uint64_t b = 0;
      unsigned ch = it->exec.level ? rt_op_choice(o) : RT_K_REF;
      if (op_scratch(w, sg, k, rt_op_choice(o), &b) != AP_OK) b = 0;
      t += op_ns(it, sg, k, ch, b);
    }
  return (uint64_t)t;
}
