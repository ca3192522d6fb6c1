/* A plan made on the host, carried as words, placed by ap_interpreter_create_planned
 * (include/arenaplan/planned.h): on the oracle's models, in every layout (plain, in place,
 * streamed in place; portable fast and reference kernels), the planned interpreter's outputs
 * equal the normal interpreter's and TFLite Micro's byte for byte, and every damaged plan,
 * another model's plan, a short buffer and bad arguments give a status, never a run. */
#include "rt_test.h"

#include <stdlib.h>
#include <string.h>

typedef struct layout {
  const char *name;
  bool inplace, stream;
  int kernels;
} layout;

static const layout layouts[] = {
    {"plain", false, false, AP_KERNELS_FAST},
    {"in place", true, false, AP_KERNELS_FAST},
    {"streamed in place", true, true, AP_KERNELS_FAST},
    {"reference, in place", true, false, AP_KERNELS_REFERENCE},
};

static ap_interpreter *host(const ap_model *m, const layout *l) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.inplace = l->inplace;
  o.stream = l->stream;
  o.kernels = l->kernels;
  ap_interpreter *it = NULL;
  if (ap_interpreter_create(m, &o, &it) != AP_OK || ap_interpreter_allocate(it) != AP_OK) {
    ap_interpreter_destroy(it);
    return NULL;
  }
  return it;
}

/* The plan's words (malloc'd), or NULL when the model has what a plan cannot carry. */
static uint32_t *plan_of(ap_interpreter *it, size_t *n) {
  if (ap_interpreter_plan_words(it, NULL, 0, n) != AP_OK) return NULL;
  uint32_t *w = malloc(*n * sizeof *w);
  CHECK(w != NULL);
  CHECK_EQ(ap_interpreter_plan_words(it, w, *n - 1, n), AP_ERR_RANGE);
  CHECK_EQ(ap_interpreter_plan_words(it, w, *n, n), AP_OK);
  return w;
}

static bool same_outputs(ap_interpreter *a, ap_interpreter *b) {
  if (ap_interpreter_output_count(a) != ap_interpreter_output_count(b)) return false;
  for (size_t k = 0; k < ap_interpreter_output_count(a); k++) {
    ap_tensor x, y;
    if (ap_interpreter_output(a, k, &x) != AP_OK || ap_interpreter_output(b, k, &y) != AP_OK ||
        x.bytes != y.bytes || (x.bytes && memcmp(x.data, y.data, x.bytes) != 0))
      return false;
  }
  return true;
}

/* Damaged plans: every one refused with a status (through the entry point that takes
 * segments, so that each check is the one under test). */
#define ap_interpreter_create_planned ap_interpreter_create_planned_streamed
static void hostile(const uint8_t *model, size_t size, const uint32_t *plan, size_t n, uint8_t *buf,
                    size_t buf_size, bool streamed) {
  ap_interpreter *it = NULL;
  uint32_t *w = malloc(n * sizeof *w);
  CHECK(w != NULL);
  CHECK_EQ(ap_interpreter_create_planned(model, size, plan, n, buf, buf_size, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_create_planned(NULL, size, plan, n, buf, buf_size, &it), AP_ERR_ARG);
  CHECK(it == NULL);
  CHECK_EQ(ap_interpreter_create_planned(model, size, plan, n, NULL, buf_size, &it), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_create_planned(model + 4, size - 4, plan, n, buf, buf_size, &it),
           AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_create_planned(model, size, NULL, n, buf, buf_size, &it),
           AP_ERR_INVALID_PLAN);
  CHECK_EQ(ap_interpreter_create_planned(model, size, plan, n - 1, buf, buf_size, &it),
           AP_ERR_INVALID_PLAN);
  CHECK_EQ(ap_interpreter_create_planned(model, size - 8, plan, n, buf, buf_size, &it),
           AP_ERR_INVALID_PLAN);
  /* A header word changed: magic, length, size, fingerprint, counts. */
  for (size_t i = 0; i < 9; i++) {
    if (i == 4 || i == 5 || i == 6) continue; /* flags, arena, alignment: checked below */
    memcpy(w, plan, n * sizeof *w);
    w[i] ^= 1;
    CHECK_MSG(ap_interpreter_create_planned(model, size, w, n, buf, buf_size, &it) ==
                  AP_ERR_INVALID_PLAN,
              "header word %zu", i);
    CHECK(it == NULL);
  }
  /* The model's bytes changed: the fingerprint no longer matches. */
  uint8_t *copy = aligned_alloc(16, (size + 15) & ~(size_t)15);
  CHECK(copy != NULL);
  memcpy(copy, model, size);
  copy[size / 2] ^= 0x40;
  CHECK_EQ(ap_interpreter_create_planned(copy, size, plan, n, buf, buf_size, &it),
           AP_ERR_INVALID_PLAN);
  free(copy);
  /* Too small a buffer: a status, with or without an interpreter to say why. */
  CHECK(ap_interpreter_create_planned(model, size, plan, n, buf, 64, &it) != AP_OK);
  ap_interpreter_destroy(it);
  CHECK(ap_interpreter_create_planned(model, size, plan, n, buf, buf_size / 2, &it) != AP_OK);
  ap_interpreter_destroy(it);
  /* An arena larger than the buffer, a tensor or scratch beyond the arena, too little scratch. */
  memcpy(w, plan, n * sizeof *w);
  w[5] = (uint32_t)buf_size;
  CHECK_EQ(ap_interpreter_create_planned(model, size, w, n, buf, buf_size, &it),
           AP_ERR_ARENA_TOO_SMALL);
  ap_interpreter_destroy(it);
  uint32_t nt = plan[7], no = plan[8];
  for (uint32_t t = 0; t < nt; t++) {
    if (!plan[9 + t]) continue;
    memcpy(w, plan, n * sizeof *w);
    w[9 + t] = plan[5]; /* offset arena - 1: past the end for any tensor of a byte or more */
    CHECK_EQ(ap_interpreter_create_planned(model, size, w, n, buf, buf_size, &it),
             AP_ERR_INVALID_PLAN);
    ap_interpreter_destroy(it);
    memcpy(w, plan, n * sizeof *w);
    w[9 + t] |= 0x80000000u; /* a folded value: never planned */
    CHECK_EQ(ap_interpreter_create_planned(model, size, w, n, buf, buf_size, &it),
             AP_ERR_INVALID_PLAN);
    ap_interpreter_destroy(it);
    memcpy(w, plan, n * sizeof *w);
    w[9 + t] = 0; /* a tensor with bytes left unplaced */
    CHECK_EQ(ap_interpreter_create_planned(model, size, w, n, buf, buf_size, &it),
             AP_ERR_INVALID_PLAN);
    ap_interpreter_destroy(it);
    break;
  }
  for (uint32_t k = 0; k < no; k++) {
    uint32_t *s = w + 9 + nt + 2 * k;
    if (!plan[9 + nt + 2 * k] || !plan[9 + nt + 2 * k + 1]) continue;
    memcpy(w, plan, n * sizeof *w);
    s[1] -= 1;
    CHECK_EQ(ap_interpreter_create_planned(model, size, w, n, buf, buf_size, &it),
             AP_ERR_INVALID_PLAN);
    ap_interpreter_destroy(it);
    memcpy(w, plan, n * sizeof *w);
    s[1] = plan[5] + 1;
    CHECK_EQ(ap_interpreter_create_planned(model, size, w, n, buf, buf_size, &it),
             AP_ERR_INVALID_PLAN);
    ap_interpreter_destroy(it);
    break;
  }
#undef ap_interpreter_create_planned
  if (streamed) {
    CHECK_EQ(ap_interpreter_create_planned(model, size, plan, n, buf, buf_size, &it),
             AP_ERR_UNSUPPORTED);
    CHECK_CONTAINS(ap_interpreter_error(it), "streamed");
    ap_interpreter_destroy(it);
    memcpy(w, plan, n * sizeof *w);
    w[9 + nt + 2 * no] = no + 1; /* a segment longer than the model */
    CHECK_EQ(ap_interpreter_create_planned_streamed(model, size, w, n, buf, buf_size, &it),
             AP_ERR_INVALID_PLAN);
    ap_interpreter_destroy(it);
  }
  free(w);
}

/* One model in one layout; returns whether it was planned and compared. */
static bool run(const char *name, const ap_model *m, const layout *l, const uint32_t *other,
                size_t other_n, bool *hostile_done) {
  ap_interpreter *ref = host(m, l);
  if (!ref) return false;
  size_t n = 0;
  uint32_t *plan = plan_of(ref, &n);
  if (!plan) {
    printf("%-26s %-20s not planned: %s\n", name, l->name, ap_interpreter_error(ref));
    ap_interpreter_destroy(ref);
    return false;
  }
  size_t size = 0;
  const uint8_t *model = ap_model_bytes(m, &size);
  ap_memory_usage mu;
  uint64_t overhead = 0;
  CHECK_EQ(ap_interpreter_memory(ref, &mu), AP_OK);
  CHECK_EQ(ap_interpreter_plan_overhead(ref, &overhead), AP_OK);
  size_t buf_size = (size_t)(((mu.arena + 15) & ~(uint64_t)15) + overhead);
  uint8_t *buf = aligned_alloc(16, (buf_size + 15) & ~(size_t)15);
  CHECK(buf != NULL);
  ap_interpreter *it = NULL;
  bool streamed = (plan[4] & 2) != 0;
  ap_status s = ap_interpreter_create_planned_streamed(model, size, plan, n, buf, buf_size, &it);
  CHECK_MSG(s == AP_OK, "%s %s: create_planned: %s", name, l->name,
            it ? ap_interpreter_error(it) : ap_status_name(s));
  if (s == AP_OK) {
    CHECK_EQ(ap_interpreter_streamed(it), streamed);
    CHECK_EQ(ap_interpreter_input_count(it), ap_interpreter_input_count(ref));
    for (int seed = 1; seed <= 2; seed++) {
      if (!rt_feed_oracle(ref, name, seed) || !rt_feed_oracle(it, name, seed)) break;
      CHECK_EQ(ap_interpreter_invoke(ref), AP_OK);
      CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s %s: invoke: %s", name, l->name,
                ap_interpreter_error(it));
      CHECK_MSG(same_outputs(ref, it), "%s %s seed %d: planned outputs differ", name, l->name,
                seed);
      for (size_t k = 0; k < ap_interpreter_output_count(it); k++)
        CHECK_MSG(rt_matches_oracle(it, name, seed, k), "%s %s seed %d: output %zu != TFLM", name,
                  l->name, seed, k);
    }
    printf("%-26s %-20s arena %8llu  buffer %8zu  plan %5zu words%s\n", name, l->name,
           (unsigned long long)mu.arena, buf_size, n, streamed ? "  streamed" : "");
  }
  ap_interpreter_destroy(it);
  if (other) {
    CHECK_EQ(ap_interpreter_create_planned(model, size, other, other_n, buf, buf_size, &it),
             AP_ERR_INVALID_PLAN);
  }
  if (!*hostile_done || streamed) {
    hostile(model, size, plan, n, buf, buf_size, streamed);
    *hostile_done = true;
  }
  free(buf);
  free(plan);
  ap_interpreter_destroy(ref);
  return true;
}

int main(void) {
  ap_test_require_shared();
  /* Plans are for the portable fast kernels (what arenaplan header --plan sets). */
  setenv("AP_SIMD", "generic", 1);
  ap_model *first = rt_load("hello_world_int8");
  CHECK(first != NULL);
  if (!first) return ap_test_done();
  ap_interpreter *fi = host(first, &layouts[0]);
  size_t other_n = 0;
  uint32_t *other = fi ? plan_of(fi, &other_n) : NULL;
  CHECK(other != NULL);
  /* Not allocated, several subgraphs: refused with a reason. */
  ap_interpreter *na = NULL;
  size_t n;
  CHECK_EQ(ap_interpreter_create(first, NULL, &na), AP_OK);
  CHECK_EQ(ap_interpreter_plan_words(na, NULL, 0, &n), AP_ERR_NOT_ALLOCATED);
  CHECK_EQ(ap_interpreter_plan_words(NULL, NULL, 0, &n), AP_ERR_ARG);
  CHECK_EQ(ap_interpreter_plan_words(na, NULL, 0, NULL), AP_ERR_ARG);
  ap_interpreter_destroy(na);
  size_t planned = 0;
  bool hostile_done = false;
  for (size_t i = 0; i < RT_ORACLE_MODEL_COUNT; i++) {
    ap_model *m = rt_load(rt_oracle_models[i]);
    CHECK(m != NULL);
    if (!m) continue;
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
      bool self = strcmp(rt_oracle_models[i], "hello_world_int8") == 0;
      planned +=
          run(rt_oracle_models[i], m, &layouts[l], self ? NULL : other, other_n, &hostile_done);
    }
    ap_model_destroy(m);
  }
  ap_model *multi = rt_load("multi_signatures");
  ap_interpreter *mi = multi ? host(multi, &layouts[0]) : NULL;
  if (mi) {
    CHECK_EQ(ap_interpreter_plan_words(mi, NULL, 0, &n), AP_ERR_UNSUPPORTED);
    CHECK_CONTAINS(ap_interpreter_error(mi), "subgraphs");
  }
  ap_interpreter_destroy(mi);
  ap_model_destroy(multi);
  /* The four firmware models and most others, in all four layouts. */
  CHECK(planned >= 40);
  free(other);
  ap_interpreter_destroy(fi);
  ap_model_destroy(first);
  return ap_test_done();
}
