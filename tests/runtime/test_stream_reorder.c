/* Streamed segments with in-place sharing on a reordered op order (the ap_reorder order,
 * patched into a copy of the model in memory, as `plan --reorder` does): on every shared model
 * the runtime runs, the outputs are bit-identical to "naive" on the stored order over seeded
 * random inputs. Reordering changes which chains are contiguous, so it changes the segments.
 * ap_reorder keeps most stored orders (already optimal), so each single-subgraph model also runs
 * on a second valid order: each step the highest-numbered ready op (branches swapped). */
#include "inplace.h"

typedef struct reordered {
  ap_reorder *r;
  ap_model_patch patch;
  ap_model *model; /* NULL: the stored order was kept */
} reordered;

static bool reorder_model(const char *name, const ap_model *m, reordered *x) {
  memset(x, 0, sizeof *x);
  /* The first, narrowest search always runs to its end: a small budget keeps the test fast. */
  ap_reorder_options ro = {.budget_seconds = 0.25};
  if (ap_reorder_create(m, &ro, NULL, &x->r) != AP_OK) {
    CHECK_MSG(0, "%s: reorder: %s", name, x->r ? ap_reorder_error(x->r) : "out of memory");
    return false;
  }
  if (!ap_reorder_changed(x->r)) return true;
  size_t n;
  const uint32_t *order = ap_reorder_order(x->r, &n);
  if (ap_model_patch_order(m, order, n, NULL, &x->patch) != AP_OK ||
      ap_model_from_buffer(x->patch.bytes, x->patch.size, name, NULL, &x->model) != AP_OK) {
    CHECK_MSG(0, "%s: the reordered model: %s", name,
              x->model ? ap_model_error(x->model) : x->patch.error);
    return false;
  }
  return true;
}

static ap_interpreter *make_stream_inplace(const ap_model *m, bool big);

static bool reads_or_writes(const ap_op_info *o, int32_t t, bool writes_only) {
  for (size_t k = 0; k < o->outputs.n; k++)
    if (o->outputs.v[k] == t) return true;
  for (size_t k = 0; !writes_only && k < o->inputs.n; k++)
    if (o->inputs.v[k] == t) return true;
  return false;
}

/* Op j must follow op i < j when it reads what i writes, or writes what i reads or writes. */
static bool depends(const ap_op_info *i, const ap_op_info *j) {
  for (size_t k = 0; k < j->inputs.n; k++)
    if (j->inputs.v[k] >= 0 && reads_or_writes(i, j->inputs.v[k], true)) return true;
  for (size_t k = 0; k < j->outputs.n; k++)
    if (j->outputs.v[k] >= 0 && reads_or_writes(i, j->outputs.v[k], false)) return true;
  return false;
}

/* The latest-ready order of subgraph 0 (false when the model has other subgraphs, variable
 * tensors or custom ops, whose effects the tensors do not show, or when it is the stored one). */
static bool late_order(const ap_model *m, uint32_t *order, size_t n) {
  if (ap_model_subgraph_count(m) != 1 || n != ap_model_op_count(m, 0) || n < 2) return false;
  for (size_t t = 0; t < ap_model_tensor_count(m, 0); t++) {
    ap_tensor_info ti;
    if (ap_model_tensor(m, 0, t, &ti) != AP_OK || ti.is_variable) return false;
  }
  ap_op_info *ops = calloc(n, sizeof *ops);
  bool *done = calloc(n, sizeof *done), *dep = calloc(n * n, sizeof *dep), ok = ops && done && dep,
       moved = false;
  for (size_t i = 0; ok && i < n; i++)
    ok = ap_model_op(m, 0, i, &ops[i]) == AP_OK && !ops[i].custom;
  for (size_t j = 0; ok && j < n; j++)
    for (size_t i = 0; i < j; i++)
      dep[j * n + i] = depends(&ops[i], &ops[j]);
  for (size_t k = 0; ok && k < n; k++) {
    size_t pick = n;
    for (size_t j = n; j-- > 0 && pick == n;) {
      bool ready = !done[j];
      for (size_t i = 0; ready && i < j; i++)
        ready = done[i] || !dep[j * n + i];
      if (ready) pick = j;
    }
    ok = pick < n;
    if (ok) {
      done[pick] = true;
      order[k] = (uint32_t)pick;
      moved |= pick != k;
    }
  }
  free(dep);
  free(done);
  free(ops);
  return ok && moved;
}

static void check_late(const char *name, const ap_model *m, ap_interpreter *naive, size_t *alt) {
  /* Under the sanitizers the big maps' invokes are slow; the first order covers them. */
  if (ORACLE_SANITIZED && arena_of(naive) > (1u << 20)) return;
  size_t n = ap_model_op_count(m, 0);
  uint32_t *order = calloc(n ? n : 1, sizeof *order);
  ap_model_patch patch = {0};
  ap_model *lm = NULL;
  if (!order || !late_order(m, order, n)) {
    free(order);
    return;
  }
  CHECK_MSG(ap_model_patch_order(m, order, n, NULL, &patch) == AP_OK &&
                ap_model_from_buffer(patch.bytes, patch.size, name, NULL, &lm) == AP_OK,
            "%s: the late order: %s", name, lm ? ap_model_error(lm) : patch.error);
  ap_interpreter *s = lm ? make_stream_inplace(lm, false) : NULL;
  CHECK_MSG(!lm || s, "%s: streamed in-place allocate on the late order failed", name);
  uint64_t seeds = ORACLE_SANITIZED ? 1 : 2;
  for (uint64_t seed = 1; s && seed <= seeds; seed++) {
    if (!oracle_invoke(naive, name, seed) || !oracle_invoke(s, name, seed)) break;
    CHECK_MSG(same_outputs(naive, s), "%s seed %llu: late-order streamed in-place outputs differ",
              name, (unsigned long long)seed);
  }
  if (s) {
    printf("%-28s late      streamed in-place %10llu\n", name, (unsigned long long)arena_of(s));
    (*alt)++;
  }
  ap_interpreter_destroy(s);
  ap_model_destroy(lm);
  ap_model_patch_free(&patch, NULL);
  free(order);
}

static void reordered_free(reordered *x) {
  ap_model_destroy(x->model);
  ap_model_patch_free(&x->patch, NULL);
  ap_reorder_destroy(x->r);
}

/* big: under the sanitizers, a model whose naive arena is above 1 MiB runs the fast kernels
 * rather than the default's choice: the choice plans its streamed segments dozens of times
 * (dp_net_float: minutes under ASan); the plain build and test_kernel_budget check the choice. */
static ap_interpreter *make_stream_inplace(const ap_model *m, bool big) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.stream = o.inplace = true;
  if (ORACLE_SANITIZED && big) o.kernels = AP_KERNELS_FAST;
  return oracle_make(m, &o);
}

static void check_reordered(const char *name, size_t *models, size_t *changed, size_t *alt) {
  ap_model *m = oracle_open(name);
  if (!m) return;
  ap_interpreter *naive = make(m, "naive", false);
  reordered x;
  if (!naive || !reorder_model(name, m, &x)) {
    if (naive) reordered_free(&x);
    ap_interpreter_destroy(naive);
    ap_model_destroy(m);
    return;
  }
  const ap_model *rm = x.model ? x.model : m;
  ap_interpreter *s = make_stream_inplace(rm, arena_of(naive) > (1u << 20));
  CHECK_MSG(s, "%s: streamed in-place allocate on the reordered model failed", name);
  uint64_t seeds = ORACLE_SANITIZED ? 1 : 2, done = 0;
  for (uint64_t seed = 1; s && seed <= seeds; seed++) {
    if (!oracle_invoke(naive, name, seed) || !oracle_invoke(s, name, seed)) break;
    CHECK_MSG(same_outputs(naive, s), "%s seed %llu: reordered streamed in-place outputs differ",
              name, (unsigned long long)seed);
    done++;
  }
  CHECK_EQ(done, s ? seeds : 0);
  if (s) {
    printf("%-28s %-9s streamed in-place %10llu  naive %10llu\n", name,
           x.model ? "reordered" : "kept", (unsigned long long)arena_of(s),
           (unsigned long long)arena_of(naive));
    (*models)++;
    if (x.model) (*changed)++;
  }
  ap_interpreter_destroy(s);
  check_late(name, m, naive, alt);
  reordered_free(&x);
  ap_interpreter_destroy(naive);
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  static char names[128][64];
  size_t n = ap_test_models(names, 128), models = 0, changed = 0, alt = 0;
  for (size_t i = 0; i < n; i++) {
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(names[i]) - strlen(".tflite")), names[i]);
    /* An NPU's custom op; conformer_float: 38 MB, no convolution chain. */
    if (strcmp(name, "person_detect_vela") == 0 || strcmp(name, "conformer_float") == 0) continue;
    check_reordered(name, &models, &changed, &alt);
  }
  CHECK(models >= 16);
  /* Some models' orders change (else this tests only the stored orders). */
  CHECK(changed >= 1);
  /* Five models take a second order (dp_net_float, dynamic_shapes, the two ResNets, movenet);
   * under the sanitizers the three whose naive arena is above 1 MiB are skipped. */
  CHECK(alt >= (ORACLE_SANITIZED ? 2u : 5u));
  return ap_test_done();
}
