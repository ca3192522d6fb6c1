/* Streamed segments with in-place sharing on a reordered op order (the ap_reorder order,
 * patched into a copy of the model in memory, as `plan --reorder` does): on every shared model
 * the runtime runs, the outputs are bit-identical to "naive" on the stored order over seeded
 * random inputs. Reordering changes which chains are contiguous, so it changes the segments. */
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

static void reordered_free(reordered *x) {
  ap_model_destroy(x->model);
  ap_model_patch_free(&x->patch, NULL);
  ap_reorder_destroy(x->r);
}

static ap_interpreter *make_stream_inplace(const ap_model *m) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.stream = o.inplace = true;
  ap_interpreter *it = NULL;
  if (ap_interpreter_create(m, &o, &it) != AP_OK || ap_interpreter_allocate(it) != AP_OK) {
    ap_interpreter_destroy(it);
    return NULL;
  }
  return it;
}

static void check_reordered(const char *name, size_t *models, size_t *changed) {
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
  ap_interpreter *s = make_stream_inplace(rm);
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
  reordered_free(&x);
  ap_interpreter_destroy(naive);
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  static char names[128][64];
  size_t n = ap_test_models(names, 128), models = 0, changed = 0;
  for (size_t i = 0; i < n; i++) {
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(names[i]) - strlen(".tflite")), names[i]);
    /* An NPU's custom op; conformer_float: 38 MB, no convolution chain. */
    if (strcmp(name, "person_detect_vela") == 0 || strcmp(name, "conformer_float") == 0) continue;
    check_reordered(name, &models, &changed);
  }
  CHECK(models >= 16);
  /* Some models' orders change (else this tests only the stored orders). */
  CHECK(changed >= 1);
  return ap_test_done();
}
