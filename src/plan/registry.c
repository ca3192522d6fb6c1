/* The strategies by name, in the order `compare` shows them. */
#include "plan/strategy.h"

#include <string.h>

#ifdef AP_ONE_STRATEGY
/* A firmware that plans with one strategy compiles this file with
 * -DAP_ONE_STRATEGY=ap_strategy_<name> and links only that strategy's code. */
extern const ap_strategy AP_ONE_STRATEGY;
static const ap_strategy *const strategies[] = {&AP_ONE_STRATEGY};
#else
extern const ap_strategy ap_strategy_naive, ap_strategy_linear, ap_strategy_tflm,
    ap_strategy_tflite, ap_strategy_greedy_size, ap_strategy_greedy_breadth, ap_strategy_sweep,
    ap_strategy_skyline, ap_strategy_search, ap_strategy_best, ap_strategy_exact;

static const ap_strategy *const strategies[] = {
    &ap_strategy_naive,       &ap_strategy_linear,         &ap_strategy_tflm,  &ap_strategy_tflite,
    &ap_strategy_greedy_size, &ap_strategy_greedy_breadth, &ap_strategy_sweep, &ap_strategy_skyline,
    &ap_strategy_search,      &ap_strategy_best,           &ap_strategy_exact,
    /* exact: ap_plan_create starts it from best's plan, so it only ever improves on it. */
};
#endif

#define COUNT (sizeof strategies / sizeof strategies[0])

size_t ap_strategy_count(void) {
  return COUNT;
}

const char *ap_strategy_name(size_t i) {
  return i < COUNT ? strategies[i]->name : NULL;
}

const char *ap_strategy_summary(size_t i) {
  return i < COUNT ? strategies[i]->summary : NULL;
}

const ap_strategy *ap_strategy_find(const char *name) {
  for (size_t i = 0; name && i < COUNT; i++)
    if (strcmp(strategies[i]->name, name) == 0) return strategies[i];
  return NULL;
}
