/* Our model of TFLite Micro's allocator against TFLite Micro itself: for every model it can
 * allocate on a host, the plain interpreter's smallest working arena, arena_used_bytes, head
 * and tail (../shared/bench/tflm_arena.tsv, measured with tflite-micro 90b983c2) on both
 * targets, and the recording (benchmark) setup's categories. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>

/* The value in column `col` of `model`'s row in tflm_arena.tsv, or -1. */
static long long tsv(const char *model, const char *col) {
  char path[4096];
  size_t size;
  char *text =
      (char *)ap_test_read_file(ap_test_path(path, sizeof path, "bench/tflm_arena.tsv"), &size);
  if (!text) return -1;
  text[size - 1] = '\0';
  char *save, *line = strtok_r(text, "\n", &save);
  int want = -1, k = 0;
  char *fs, *f = strtok_r(line, "\t", &fs);
  for (; f; f = strtok_r(NULL, "\t", &fs), k++)
    if (strcmp(f, col) == 0) want = k;
  long long result = -1;
  while (want >= 0 && result < 0 && (line = strtok_r(NULL, "\n", &save))) {
    k = 0;
    f = strtok_r(line, "\t", &fs);
    if (!f || strcmp(f, model) != 0) continue;
    for (; f; f = strtok_r(NULL, "\t", &fs), k++)
      if (k == want) result = strtoll(f, NULL, 10);
  }
  free(text);
  return result;
}

typedef struct counts {
  int models, exact[2];
} counts;

static void check_model(const char *name, counts *c) {
  if (tsv(name, "plain_head") < 0) return; /* TFLite Micro cannot allocate it on a host */
  c->models++;
  char path[4096];
  ap_model *m;
  ap_test_path(path, sizeof path, "models/%s.tflite", name);
  CHECK_MSG(ap_model_open(path, NULL, &m) == AP_OK, "%s", ap_model_error(m));
  for (int t = 0; t < 2; t++) {
    ap_tflm_result r;
    ap_status st = ap_tflm_estimate(m, &(ap_tflm_options){.target = (ap_tflm_target)t}, NULL, &r);
    CHECK_MSG(st == AP_OK, "%s: %s", name, r.error);
    long long want_min = tsv(name, t ? "min_arena_plain_16_32" : "min_arena_plain_16");
    long long want_used = tsv(name, t ? "plain_arena_used_bytes_32" : "plain_arena_used_bytes");
    long long want_head = tsv(name, t ? "head_32" : "plain_head");
    long long want_tail = tsv(name, t ? "plain_tail_32" : "plain_tail");
    bool exact = (long long)r.min_arena_bytes == want_min &&
                 (long long)r.arena_used_bytes == want_used &&
                 (long long)r.head_bytes == want_head && (long long)r.tail_bytes == want_tail;
    if (!exact)
      printf("gap %s %s: min %llu/%lld used %llu/%lld head %llu/%lld tail %llu/%lld\n", name,
             t ? "mcu32" : "host64", (unsigned long long)r.min_arena_bytes, want_min,
             (unsigned long long)r.arena_used_bytes, want_used, (unsigned long long)r.head_bytes,
             want_head, (unsigned long long)r.tail_bytes, want_tail);
    c->exact[t] += exact;
    ap_tflm_result_free(&r, NULL);
  }
  ap_model_destroy(m);
}

int main(void) {
  ap_test_require_shared();
  char names[64][64];
  size_t n = ap_test_models(names, 64);
  CHECK(n == 30);
  counts c = {0};
  for (size_t i = 0; i < n; i++) {
    names[i][strlen(names[i]) - 7] = '\0';
    check_model(names[i], &c);
  }
  printf("exact: host64 %d/%d, mcu32 %d/%d\n", c.exact[0], c.models, c.exact[1], c.models);
  CHECK_EQ(c.models, 25);
  CHECK_EQ(c.exact[0], 25);
  CHECK_EQ(c.exact[1], 25);
  return ap_test_done();
}
