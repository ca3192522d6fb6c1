/* The two reproductions against the peers' own numbers, and best on the shared instances.
 * Expected values come from outside arenaplan: TFLite Micro's measured head per model
 * (bench/tflm_arena.tsv, column plain_head: GreedyMemoryPlanner's plan of exactly these
 * buffers), and the figures for MiniMalloc's A measured with the peers' code. */
#include "arenaplan/plan.h"
#include "test.h"

#include <stdlib.h>

static ap_problem *load(const char *rel, uint64_t align) {
  char path[4096];
  ap_test_path(path, sizeof path, "%s", rel);
  size_t len = 0;
  uint8_t *text = ap_test_read_file(path, &len);
  CHECK_MSG(text != NULL, "cannot read %s", path);
  ap_problem *p = NULL;
  CHECK(ap_problem_create(NULL, &p) == AP_OK);
  CHECK(ap_problem_set_alignment(p, align) == AP_OK);
  if (text)
    CHECK_MSG(ap_problem_parse_csv(p, (char *)text, len) == AP_OK, "%s: %s", rel,
              ap_problem_error(p));
  free(text);
  return p;
}

static uint64_t arena_of(const ap_problem *p, const char *strategy) {
  ap_plan *plan = NULL;
  ap_status st = ap_plan_create(p, &(ap_plan_options){.strategy = strategy}, &plan);
  CHECK_MSG(st == AP_OK, "%s: %s", strategy, ap_plan_error(plan));
  uint64_t arena = 0;
  if (st == AP_OK) {
    char msg[512];
    CHECK_MSG(ap_plan_check(p, ap_plan_offsets(plan), ap_plan_arena(plan), msg, sizeof msg) ==
                  AP_OK,
              "%s", msg);
    arena = ap_plan_arena(plan);
  }
  ap_plan_destroy(plan);
  return arena;
}

static void test_minimalloc(void) {
  ap_problem *p = load("bench/minimalloc/challenging/A.1048576.csv", 1);
  CHECK_EQ(ap_problem_count(p), 154);
  CHECK_EQ(ap_problem_lower_bound(p), 1048576);
  CHECK_EQ(arena_of(p, "tflm"), 1352704);
  CHECK_EQ(arena_of(p, "tflite"), 1374208);
  ap_problem_destroy(p);
  const char *names = "ABCDEFGHIJK";
  for (const char *c = names; *c; c++) {
    char rel[128];
    snprintf(rel, sizeof rel, "bench/minimalloc/challenging/%c.1048576.csv", *c);
    p = load(rel, 1);
    uint64_t best = arena_of(p, "best");
    CHECK_MSG(best <= arena_of(p, "tflm") && best <= arena_of(p, "tflite"), "%c", *c);
    CHECK(best >= ap_problem_lower_bound(p));
    ap_problem_destroy(p);
  }
}

/* The column `name` of the row of `model` in the TSV text; 0 if absent. */
static uint64_t tsv_value(const char *tsv, const char *model, const char *name) {
  const char *nl = strchr(tsv, '\n');
  if (!nl) return 0;
  int col = -1, k = 0;
  for (const char *s = tsv; s < nl; k++) {
    const char *e = s;
    while (e < nl && *e != '\t')
      e++;
    if ((size_t)(e - s) == strlen(name) && strncmp(s, name, (size_t)(e - s)) == 0) col = k;
    s = e + 1;
  }
  if (col < 0) return 0;
  size_t ml = strlen(model);
  for (const char *row = nl + 1; *row; row = strchr(row, '\n') ? strchr(row, '\n') + 1 : "") {
    if (strncmp(row, model, ml) != 0 || row[ml] != '\t') continue;
    const char *s = row;
    for (int i = 0; i < col && s; i++)
      s = strchr(s, '\t') ? strchr(s, '\t') + 1 : NULL;
    return s ? strtoull(s, NULL, 10) : 0;
  }
  return 0;
}

static void test_tflm_plans(void) {
  static const char *const models[] = {"audio_preprocessor_int8",
                                       "call_once_mul",
                                       "conformer_float",
                                       "dtln_noise_suppression_int8",
                                       "hello_world_float",
                                       "hello_world_int8",
                                       "keyword_scrambled_svdf",
                                       "magic_wand_float",
                                       "micro_speech_int8",
                                       "mlperf_ad_fc_int8",
                                       "mlperf_ic_resnet_float",
                                       "mlperf_ic_resnet_int8",
                                       "mlperf_kws_dscnn_int8",
                                       "mlperf_sww_int8",
                                       "mlperf_vww_int8",
                                       "mnist_lstm_float",
                                       "mnist_lstm_int8",
                                       "mobilenet_v2_torch_int8",
                                       "movenet_lightning_ptq",
                                       "multi_signatures",
                                       "nested_while",
                                       "person_detect_int8",
                                       "resource_vars_fc",
                                       "tflm_test_conv",
                                       "while_multi_subgraph"};
  char path[4096];
  size_t len;
  char *tsv =
      (char *)ap_test_read_file(ap_test_path(path, sizeof path, "bench/tflm_arena.tsv"), &len);
  CHECK(tsv != NULL);
  if (!tsv) return;
  char *z = realloc(tsv, len + 1);
  if (!z) {
    free(tsv);
    return;
  }
  tsv = z;
  tsv[len] = '\0';
  for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
    char rel[256];
    snprintf(rel, sizeof rel, "bench/tflm_plans/%s.csv", models[m]);
    /* The buffers are already rounded to TFLite Micro's 16 bytes. */
    ap_problem *p = load(rel, 16);
    uint64_t head = tsv_value(tsv, models[m], "plain_head");
    CHECK_MSG(head > 0, "%s: no plain_head", models[m]);
    CHECK_MSG(arena_of(p, "tflm") == head, "%s: tflm %llu, TFLite Micro %llu", models[m],
              (unsigned long long)arena_of(p, "tflm"), (unsigned long long)head);
    CHECK_MSG(arena_of(p, "best") == ap_problem_lower_bound(p), "%s: best not optimal", models[m]);
    /* And the literal transcription of TFLite Micro's planner agrees with its own number. */
    uint64_t lit[256], lit_head = 0;
    if (ap_problem_count(p) <= 256) {
      CHECK_EQ(ap_test_tflm_literal(p, lit, &lit_head), 0);
      CHECK_MSG(lit_head == head, "%s: literal transcription %llu", models[m],
                (unsigned long long)lit_head);
    }
    ap_problem_destroy(p);
  }
  free(tsv);
  ap_problem *vww = load("bench/tflm_plans/mlperf_vww_int8.csv", 16);
  CHECK_EQ(arena_of(vww, "tflm"), 73728);
  CHECK_EQ(arena_of(vww, "tflite"), 64512);
  CHECK_EQ(arena_of(vww, "best"), 55296);
  ap_problem_destroy(vww);
}

int main(void) {
  ap_test_require_shared();
  test_minimalloc();
  test_tflm_plans();
  return ap_test_done();
}
