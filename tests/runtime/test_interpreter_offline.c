/* The runtime honours a model's OfflineMemoryAllocation plan: its tensors sit at the offsets
 * given (relative to each other), outputs stay bit-identical to a no-reuse run, and invalid
 * plans (wrong count, overlap of live tensors, misaligned) fail allocate with a clear message. */
#include "rt_test.h"

/* m with the offsets as its plan (pt owns the bytes). */
static ap_model *with_plan(const ap_model *m, const int32_t *offsets, size_t count,
                           ap_model_patch *pt) {
  ap_offline_plan p = {.version = 0, .subgraphs = 1, .offsets = (int32_t *)offsets, .count = count};
  uint8_t *words;
  size_t n;
  CHECK(ap_offline_plan_encode(&p, NULL, &words, &n) == AP_OK);
  CHECK(ap_model_patch_metadata(m, AP_OFFLINE_PLAN_METADATA, words, n, NULL, pt) == AP_OK);
  free(words);
  ap_model *m2 = NULL;
  CHECK_MSG(ap_model_from_buffer(pt->bytes, pt->size, "embedded", NULL, &m2) == AP_OK, "%s",
            ap_model_error(m2));
  return m2;
}

static ap_interpreter *allocate(const ap_model *m, const char *strategy, ap_status want) {
  ap_interpreter_options o = ap_interpreter_defaults();
  o.strategy = strategy;
  ap_interpreter *it = NULL;
  CHECK(ap_interpreter_create(m, &o, &it) == AP_OK);
  ap_status st = ap_interpreter_allocate(it);
  CHECK_MSG(st == want, "allocate: %s", ap_interpreter_error(it));
  return it;
}

static void test_honoured(const char *name) {
  ap_model *m = rt_load(name);
  CHECK(m != NULL);
  ap_offline_plan p;
  char err[512];
  CHECK(ap_tflm_offline_build(m, NULL, NULL, &p, err, sizeof err) == AP_OK);
  ap_model_patch pt;
  ap_model *m2 = with_plan(m, p.offsets, p.count, &pt);
  ap_interpreter *ref = allocate(m, "naive", AP_OK), *it = allocate(m2, NULL, AP_OK);
  /* Every tensor with an offset sits there, relative to the first such tensor. */
  size_t base = SIZE_MAX, fixed = 0;
  ap_tensor tb, tt;
  for (size_t t = 0; t < p.count; t++) {
    if (p.offsets[t] < 0) continue;
    CHECK(ap_interpreter_tensor(it, 0, t, &tt) == AP_OK && tt.data);
    if (base == SIZE_MAX) {
      base = t;
      tb = tt;
    }
    CHECK_MSG((intptr_t)((uint8_t *)tt.data - (uint8_t *)tb.data) ==
                  (intptr_t)p.offsets[t] - (intptr_t)p.offsets[base],
              "%s tensor %zu", name, t);
    fixed++;
  }
  CHECK(fixed > 0);
  CHECK(rt_feed_oracle(ref, name, 1) && rt_feed_oracle(it, name, 1));
  CHECK(ap_interpreter_invoke(ref) == AP_OK && ap_interpreter_invoke(it) == AP_OK);
  for (size_t k = 0; k < ap_interpreter_output_count(it); k++) {
    ap_tensor a, b;
    CHECK(ap_interpreter_output(ref, k, &a) == AP_OK && ap_interpreter_output(it, k, &b) == AP_OK);
    CHECK_MSG(a.bytes == b.bytes && memcmp(a.data, b.data, a.bytes) == 0, "%s output %zu", name, k);
    CHECK(rt_matches_oracle(it, name, 1, k));
  }
  ap_interpreter_destroy(it);
  ap_interpreter_destroy(ref);

  /* Invalid plans. */
  int32_t *bad = calloc(p.count, sizeof *bad);
  for (size_t t = 0; t < p.count; t++)
    bad[t] = p.offsets[t] < 0 ? -1 : 0;
  ap_model_destroy(m2);
  ap_model_patch_free(&pt, NULL);
  m2 = with_plan(m, bad, p.count, &pt);
  it = allocate(m2, NULL, AP_ERR_INVALID_PLAN);
  CHECK_CONTAINS(ap_interpreter_error(it), "OfflineMemoryAllocation: strategy tflm made an "
                                           "invalid plan");
  ap_interpreter_destroy(it);
  ap_model_destroy(m2);
  ap_model_patch_free(&pt, NULL);
  for (size_t t = 0; t < p.count; t++)
    bad[t] = p.offsets[t] < 0 ? -1 : p.offsets[t] + 8;
  m2 = with_plan(m, bad, p.count, &pt);
  it = allocate(m2, NULL, AP_ERR_INVALID_PLAN);
  CHECK_CONTAINS(ap_interpreter_error(it), "is not a multiple of the alignment 16");
  ap_interpreter_destroy(it);
  ap_model_destroy(m2);
  ap_model_patch_free(&pt, NULL);
  m2 = with_plan(m, p.offsets, p.count - 1, &pt);
  it = allocate(m2, NULL, AP_ERR_FORMAT);
  char want[160];
  snprintf(want, sizeof want, "OfflineMemoryAllocation: %zu offsets, the model has %zu tensors",
           p.count - 1, p.count);
  CHECK_CONTAINS(ap_interpreter_error(it), want);
  ap_interpreter_destroy(it);
  ap_model_destroy(m2);
  ap_model_patch_free(&pt, NULL);
  free(bad);
  ap_offline_plan_free(&p, NULL);
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  test_honoured("mlperf_kws_dscnn_int8");
  test_honoured("person_detect_int8");
  return ap_test_done();
}
