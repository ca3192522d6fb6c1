/* Every shared model, supported or not: create and allocate either work or fail with a
 * message naming the op (an unsupported op never crashes, and is never reported as another
 * failure); models that allocate run on zeros. */
#include "rt_test.h"

int main(void) {
  ap_test_require_shared();
  static char names[128][64];
  size_t n = ap_test_models(names, 128);
  CHECK(n >= 16);
  int ran = 0, unsupported = 0;
  for (size_t i = 0; i < n; i++) {
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(names[i]) - strlen(".tflite")), names[i]);
    ap_model *m = rt_load(name);
    CHECK_MSG(m != NULL, "%s", name);
    if (!m) continue;
    ap_interpreter *it;
    ap_status s = ap_interpreter_create(m, NULL, &it);
    CHECK_MSG(s == AP_OK, "%s: %s", name, ap_interpreter_error(it));
    if (s == AP_OK) s = ap_interpreter_allocate(it);
    if (s == AP_OK) {
      ap_memory_usage u;
      CHECK(ap_interpreter_memory(it, &u) == AP_OK);
      /* Zeros in, whatever comes out: the point is that it runs. */
      for (size_t k = 0; k < ap_interpreter_input_count(it); k++) {
        ap_tensor t;
        if (ap_interpreter_input(it, k, &t) == AP_OK && t.data) memset(t.data, 0, t.bytes);
      }
      /* nested_while loops while x == x * x and doubles x: 0 is a fixed point, so on zeros it
       * never ends (TFLite Micro's WHILE has no bound either); the oracle tests run it. */
      bool endless = strcmp(name, "nested_while") == 0;
      if (u.arena < (1u << 20) && !endless) /* the big ones run in test_interpreter_models */
        CHECK_MSG(ap_interpreter_invoke(it) == AP_OK, "%s: %s", name, ap_interpreter_error(it));
      printf("%-30s runs (arena %llu)\n", name, (unsigned long long)u.arena);
      ran++;
    } else {
      CHECK_MSG(s == AP_ERR_UNSUPPORTED, "%s: %s: %s", name, ap_status_name(s),
                ap_interpreter_error(it));
      CHECK_CONTAINS(ap_interpreter_error(it), "unsupported ");
      /* The interpreter says "... at subgraph S op N" for ops without a kernel; a kernel's
       * own refusal comes prefixed "subgraph S op N (OP): ". */
      CHECK_CONTAINS(ap_interpreter_error(it), "subgraph ");
      printf("%-30s %s\n", name, ap_interpreter_error(it));
      unsupported++;
      CHECK_EQ(ap_interpreter_invoke(it), AP_ERR_NOT_ALLOCATED);
    }
    ap_interpreter_destroy(it);
    ap_model_destroy(m);
  }
  CHECK(ran >= 16);
  return ap_test_done();
}
