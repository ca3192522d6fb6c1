#include "arenaplan/plan.h"
#include "test.h"
#include <stdlib.h>
int main(int argc, char **argv) {
  for (int f = 1; f < argc; f++) {
    size_t len;
    uint8_t *text = ap_test_read_file(argv[f], &len);
    ap_problem *p;
    ap_problem_create(NULL, &p);
    if (ap_problem_parse_csv(p, (char *)text, len) != AP_OK) {
      printf("%s: %s\n", argv[f], ap_problem_error(p));
      continue;
    }
    uint64_t lb = ap_problem_lower_bound(p);
    printf("%s n=%zu lb=%llu", argv[f], ap_problem_count(p), (unsigned long long)lb);
    for (size_t s = 0; s < ap_strategy_count(); s++) {
      ap_plan *plan;
      ap_status st = ap_plan_create(p, &(ap_plan_options){.strategy = ap_strategy_name(s)}, &plan);
      if (st)
        printf(" %s=ERR(%s)", ap_strategy_name(s), ap_plan_error(plan));
      else
        printf(" %s=%llu(%.3f,%.2fms)", ap_strategy_name(s),
               (unsigned long long)ap_plan_arena(plan), (double)ap_plan_arena(plan) / lb,
               ap_plan_time_ms(plan));
      ap_plan_destroy(plan);
    }
    printf("\n");
    ap_problem_destroy(p);
    free(text);
  }
  return 0;
}
