/* `arenaplan tflm` on TFLite Micro's whole op set: for every model of shared/oracle/ops that
 * TFLite Micro allocates (one per op and type, and the real test models), our model of its
 * allocator gives exactly the arena_used_bytes, head and tail its plain MicroInterpreter
 * measured (shared/oracle/ops/tflm_arena.tsv, columns plain_*), with no unmodelled op. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>
#include <string.h>

int main(void) {
  ap_test_require_shared();
  char path[4096];
  size_t n = 0;
  uint8_t *raw =
      ap_test_read_file(ap_test_path(path, sizeof path, "oracle/ops/tflm_arena.tsv"), &n);
  CHECK_MSG(raw != NULL, "cannot read %s", path);
  if (!raw) return ap_test_done();
  char *text = malloc(n + 1);
  memcpy(text, raw, n);
  text[n] = '\0';
  free(raw);
  size_t models = 0, exact = 0;
  char *save = NULL;
  strtok_r(text, "\n", &save); /* the header */
  for (char *line; (line = strtok_r(NULL, "\n", &save));) {
    char *f[9];
    size_t k = 0;
    for (char *p = line; k < 9; k++) {
      f[k] = p;
      char *tab = strchr(p, '\t');
      if (!tab) break;
      *tab = '\0';
      p = tab + 1;
    }
    if (k < 8) continue;
    long long used = atoll(f[4]), head = atoll(f[5]), tail = atoll(f[6]);
    ap_model *m = NULL;
    ap_test_path(path, sizeof path, "oracle/ops/%s.tflite", f[0]);
    if (ap_model_open(path, NULL, &m) != AP_OK) {
      CHECK_MSG(0, "%s: %s", f[0], ap_model_error(m));
      ap_model_destroy(m);
      continue;
    }
    models++;
    ap_tflm_result r;
    ap_status s = ap_tflm_estimate(m, &(ap_tflm_options){.target = AP_TFLM_HOST64}, NULL, &r);
    CHECK_MSG(s == AP_OK, "%s: %s", f[0], r.error);
    if (s == AP_OK) {
      bool same = (long long)r.arena_used_bytes == used && (long long)r.head_bytes == head &&
                  (long long)r.tail_bytes == tail && r.unmodelled_count == 0;
      CHECK_MSG(
          same,
          "%s: ours used %llu head %llu tail %llu (%zu unmodelled), TFLite Micro %lld %lld %lld",
          f[0], (unsigned long long)r.arena_used_bytes, (unsigned long long)r.head_bytes,
          (unsigned long long)r.tail_bytes, r.unmodelled_count, used, head, tail);
      exact += same;
      ap_tflm_result_free(&r, NULL);
    }
    ap_model_destroy(m);
  }
  printf("tflm on oracle/ops: %zu models, %zu exact\n", models, exact);
  CHECK_EQ(models, (size_t)548);
  free(text);
  return ap_test_done();
}
