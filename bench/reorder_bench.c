/* Reordering and offline plans on every shared model: the lower bound in the stored order and in
 * the order `reorder` finds (exact or heuristic, search time), the best arena of the new order,
 * and TFLite Micro's head as measured (../shared/bench/tflm_arena.tsv) beside the head an
 * embedded plan gives it. Usage: bench_reorder_bench [SEARCH_SECONDS]. Prints Markdown. */
#include "arenaplan/arenaplan.h"
#include "test.h"

#include <stdlib.h>

static uint64_t best_arena(const ap_model *m, uint64_t *lb, bool inplace) {
  ap_model_plan *mp = NULL;
  ap_model_plan_options o = ap_model_plan_defaults();
  o.inplace = inplace;
  uint64_t arena = 0;
  *lb = 0;
  if (ap_model_plan_create(m, &o, NULL, &mp) == AP_OK) {
    arena = ap_model_plan_arena(mp);
    *lb = ap_model_plan_lower_bound(mp);
  }
  ap_model_plan_destroy(mp);
  return arena;
}

int main(int argc, char **argv) {
  double budget = argc > 1 ? atof(argv[1]) : 0;
  ap_test_require_shared();
  char names[64][64];
  size_t n = ap_test_models(names, 64);
  printf("## Reordering and offline plans\n\n");
  printf("Lower bounds and arenas under our lifetimes, 16-byte alignment (the project's lower "
         "bound: the topmost live request counts its unaligned size). `peak`: the reorder "
         "objective, aligned sizes summed. `TFLM head`: measured (tflm_arena.tsv, host); "
         "`embedded`: TFLite Micro's head with `arenaplan embed`'s plan. `in-place`: the best "
         "arena of the new order with in-place sharing (views and element-wise ops on their "
         "input's bytes, conv/pool outputs overlapping their input).\n\n");
  printf("| model | ops | stored LB | reordered LB | peak stored -> new | search | ms | "
         "best arena (new order) | in-place | TFLM head | embedded |\n");
  printf("|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|\n");
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    ap_model *m;
    if (ap_model_open(ap_test_path(path, sizeof path, "models/%s", names[i]), NULL, &m) != AP_OK) {
      printf("| %s | load failed |\n", names[i]);
      ap_model_destroy(m);
      continue;
    }
    char *dot = strstr(names[i], ".tflite");
    if (dot) *dot = 0;
    ap_reorder *r;
    if (ap_reorder_create(m, &(ap_reorder_options){.budget_seconds = budget}, NULL, &r) != AP_OK) {
      printf("| %s | reorder failed: %s |\n", names[i], ap_reorder_error(r));
      ap_reorder_destroy(r);
      ap_model_destroy(m);
      continue;
    }
    size_t ops = 0;
    uint64_t before = 0, after = 0;
    double ms = 0;
    for (size_t sg = 0; sg < ap_reorder_subgraph_count(r); sg++) {
      ap_reorder_subgraph in;
      ap_reorder_subgraph_info(r, sg, &in);
      ops += in.ops;
      ms += in.ms;
      before = in.peak_before > before ? in.peak_before : before;
      after = in.peak_after > after ? in.peak_after : after;
    }
    uint64_t lb0, lb1, arena, inplace, unused;
    best_arena(m, &lb0, false);
    ap_model_patch pt = {0};
    ap_model *m2 = NULL;
    size_t count;
    const uint32_t *order = ap_reorder_order(r, &count);
    if (ap_reorder_changed(r) && ap_model_patch_order(m, order, count, NULL, &pt) == AP_OK &&
        ap_model_from_buffer(pt.bytes, pt.size, names[i], NULL, &m2) == AP_OK)
      arena = best_arena(m2, &lb1, false), inplace = best_arena(m2, &unused, true);
    else
      arena = best_arena(m, &lb1, false), inplace = best_arena(m, &unused, true);
    char *head = ap_test_tflm_field(names[i], "plain_head");
    char embedded[64] = "-";
    ap_offline_plan p;
    char err[512];
    if (ap_tflm_offline_build(m, NULL, NULL, &p, err, sizeof err) == AP_OK) {
      ap_tflm_offline_result res;
      if (ap_tflm_offline_check(m, p.offsets, p.count, NULL, &res, err, sizeof err) == AP_OK)
        snprintf(embedded, sizeof embedded, "%llu", (unsigned long long)res.head_bytes);
      ap_offline_plan_free(&p, NULL);
    }
    printf("| %s | %zu | %llu | %llu | %llu -> %llu | %s | %.1f | %llu | %llu | %s | %s |\n",
           names[i], ops, (unsigned long long)lb0, (unsigned long long)lb1,
           (unsigned long long)before, (unsigned long long)after, ap_reorder_method(r), ms,
           (unsigned long long)arena, (unsigned long long)inplace,
           head && strcmp(head, "") ? head : "-", embedded);
    free(head);
    ap_model_destroy(m2);
    ap_model_patch_free(&pt, NULL);
    ap_reorder_destroy(r);
    ap_model_destroy(m);
  }
  return 0;
}
