/* The runtime benchmark: for each model of issue 4, the median invoke time and the bytes a
 * device must provide (arena + persistent + interpreter tables), beside the smallest arena a
 * plain TFLite Micro interpreter works with (min_arena_plain_16 of
 * ../shared/bench/tflm_arena.tsv, measured with TFLite Micro's own code). Prints Markdown
 * (scripts/bench.sh appends it to bench/RESULTS.md).
 *
 *   bench_run_bench [RUNS]      (default 9 invokes per model; inputs: the oracle rule, seed 1) */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>
#include <time.h>

static const char *const models[] = {
    "hello_world_float",     "hello_world_int8",           "micro_speech_int8",
    "person_detect_int8",    "magic_wand_float",           "tflm_test_conv",
    "mlperf_kws_dscnn_int8", "mlperf_kws_dscnn_hybrid",    "mlperf_vww_int8",
    "mlperf_ic_resnet_int8", "mlperf_ic_resnet_float",     "mlperf_ad_fc_int8",
    "mlperf_sww_int8",       "mobilenet_v1_025_128_uint8", "mobilenet_v2_torch_int8",
    "multi_signatures",
};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The oracle's input rule (shared/oracle/tflm/README.md), so times are on the same data. */
static void fill(ap_tensor *t, uint64_t seed, uint64_t k) {
  uint64_t x = (seed + k) * 0x9E3779B97F4A7C15ULL + 1;
  unsigned char *p = t->data;
  if (!p) return;
  size_t w = t->type == AP_FLOAT32 || t->type == AP_INT32 ? 4 : t->type == AP_INT16 ? 2 : 1;
  for (size_t i = 0; i < t->bytes / w; i++) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    uint64_t r = x * 0x2545F4914F6CDD1DULL;
    if (t->type == AP_FLOAT32) {
      float v = ((r >> 40) / 16777216.0f) * 2 - 1;
      memcpy(p + 4 * i, &v, 4);
    } else if (t->type == AP_INT32) {
      int32_t v = (int32_t)((r >> 32) % 201) - 100;
      memcpy(p + 4 * i, &v, 4);
    } else if (t->type == AP_INT16) {
      int16_t v = (int16_t)(r >> 48);
      memcpy(p + 2 * i, &v, 2);
    } else {
      p[i] = (unsigned char)(r >> 56);
    }
  }
}

/* min_arena_plain_16 for `name` from tflm_arena.tsv; 0 when TFLite Micro cannot run it. */
static uint64_t tflm_arena(const char *text, const char *name) {
  int col = -1;
  const char *line = text;
  for (int c = 0, pos = 0; line[pos] && line[pos] != '\n'; pos++) {
    if (pos == 0 || line[pos - 1] == '\t') {
      const char *f = line + pos;
      size_t n = strcspn(f, "\t\n");
      if (n == 18 && strncmp(f, "min_arena_plain_16", 18) == 0) col = c;
      c++;
    }
  }
  if (col < 0) return 0;
  size_t len = strlen(name);
  for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
    if (strncmp(l, name, len) != 0 || l[len] != '\t') continue;
    const char *f = l;
    for (int c = 0; c < col && f; c++)
      f = strchr(f, '\t') ? strchr(f, '\t') + 1 : NULL;
    return f ? strtoull(f, NULL, 10) : 0;
  }
  return 0;
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 9;
  if (runs < 1 || runs > 1000) runs = 9;
  ap_test_require_shared();
  char path[4096];
  size_t len = 0;
  uint8_t *raw = ap_test_read_file(ap_test_path(path, sizeof path, "bench/tflm_arena.tsv"), &len);
  char *tsv = calloc(1, len + 1);
  if (raw && tsv) memcpy(tsv, raw, len);
  free(raw);
  printf("\n## Runtime: invoke time and memory per model\n\n");
  printf("`build/bench/bench_run_bench %d`: strategy `best`, inputs from the oracle rule (seed 1), "
         "median of %d invokes. Bytes are exact (ap_interpreter_memory). TFLite Micro is "
         "`min_arena_plain_16` of ../shared/bench/tflm_arena.tsv: the smallest arena with which "
         "a plain TFLite Micro interpreter works (it holds TFLite Micro's planned tensors, "
         "persistent data and bookkeeping); `-` where TFLite Micro cannot run the model. "
         "Target: total / TFLite Micro <= 0.75.\n\n",
         runs, runs);
  printf("| model | invoke us (median) | arena | persistent | tables | total | TFLite Micro "
         "| total / TFLite Micro |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
  double *t = calloc((size_t)runs, sizeof *t);
  size_t under = 0, compared = 0;
  double worst = 0;
  for (size_t i = 0; t && i < sizeof models / sizeof models[0]; i++) {
    ap_model *m = NULL;
    ap_interpreter *it = NULL;
    ap_interpreter_options o = ap_interpreter_defaults();
    ap_test_path(path, sizeof path, "models/%s.tflite", models[i]);
    if (ap_model_open(path, NULL, &m) != AP_OK || ap_interpreter_create(m, &o, &it) != AP_OK ||
        ap_interpreter_allocate(it) != AP_OK) {
      printf("| %s | failed: %s | | | | | | |\n", models[i],
             it ? ap_interpreter_error(it) : ap_model_error(m));
      ap_interpreter_destroy(it);
      ap_model_destroy(m);
      continue;
    }
    bool ok = true;
    for (int r = 0; r < runs && ok; r++) {
      for (size_t k = 0; k < ap_interpreter_input_count(it); k++)
        fill(ap_interpreter_input(it, k), 1, k);
      ap_interpreter_reset_variables(it);
      double t0 = now_ms();
      ok = ap_interpreter_invoke(it) == AP_OK;
      t[r] = now_ms() - t0;
    }
    ap_memory_usage u = {0};
    ap_interpreter_memory(it, &u);
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    double med = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
    uint64_t tflm = tsv ? tflm_arena(tsv, models[i]) : 0;
    char ratio[32] = "-", tf[32] = "-";
    if (tflm) {
      double q = (double)u.total / (double)tflm;
      snprintf(ratio, sizeof ratio, "%s%.3f%s", q <= 0.75 ? "" : "**", q, q <= 0.75 ? "" : "**");
      snprintf(tf, sizeof tf, "%llu", (unsigned long long)tflm);
      compared++;
      under += q <= 0.75;
      worst = q > worst ? q : worst;
    }
    printf("| %s | %s | %llu | %llu | %llu | %llu | %s | %s |\n", models[i],
           ok ? (snprintf(path, sizeof path, "%.1f", med * 1000), path) : "invoke failed",
           (unsigned long long)u.arena, (unsigned long long)u.persistent,
           (unsigned long long)u.tables, (unsigned long long)u.total, tf, ratio);
    ap_interpreter_destroy(it);
    ap_model_destroy(m);
  }
  printf("\n%zu of %zu models TFLite Micro runs are at or below 0.75 of its arena (bold: above); "
         "worst ratio %.3f.\n",
         under, compared, worst);
  free(t);
  free(tsv);
  return 0;
}
