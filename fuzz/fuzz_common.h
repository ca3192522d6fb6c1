/* Shared by the fuzz harnesses: plan a problem with every fast strategy and check each plan.
 * Any failure of the checker on a plan the library returned as AP_OK is a bug: abort() so
 * libFuzzer records the input. */
#ifndef AP_FUZZ_COMMON_H
#define AP_FUZZ_COMMON_H

#include "arenaplan/arenaplan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Bounds the search inside "search" and "best" (skyline work units; the default is ~16M, far
 * too slow per input under ASan) and "exact"'s node count. Deterministic, unlike time. */
#define FUZZ_BUDGET_NODES 20000

/* Copies the input into its own read-only pages (page-aligned, so 8-byte aligned as
 * ap_model_from_buffer needs): the model's bytes are the caller's and must never be written
 * (ap_model_open maps files read-only), so a write is a crash here too. */
static inline uint8_t *fuzz_readonly_copy(const uint8_t *data, size_t size, size_t *map_size) {
  *map_size = size ? size : 1;
  void *p = mmap(NULL, *map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  if (size) memcpy(p, data, size);
  mprotect(p, *map_size, PROT_READ);
  return p;
}

static inline void fuzz_readonly_free(uint8_t *p, size_t map_size) {
  if (p) munmap(p, map_size);
}

static inline void fuzz_die(const char *what, const char *msg) {
  fprintf(stderr, "fuzz: %s: %s\n", what, msg);
  abort();
}

/* Plans p with every strategy ("exact" under a tiny node budget) and checks every plan. */
static inline void fuzz_plan_all(const ap_problem *p) {
  for (size_t i = 0; i < ap_strategy_count(); i++) {
    const char *name = ap_strategy_name(i);
    ap_plan_options o = {.strategy = name, .budget_nodes = FUZZ_BUDGET_NODES};
    if (strcmp(name, "exact") == 0) o.budget_nodes = 200;
    ap_plan *plan = NULL;
    ap_status st = ap_plan_create(p, &o, &plan);
    if (!plan) fuzz_die(name, "no plan handle");
    if (st == AP_OK) {
      char msg[256];
      if (ap_plan_count(plan) != ap_problem_count(p)) fuzz_die(name, "plan count differs");
      if (ap_plan_check(p, ap_plan_offsets(plan), ap_plan_arena(plan), msg, sizeof msg) != AP_OK)
        fuzz_die(name, msg);
      if (ap_plan_arena(plan) < ap_plan_lower_bound(plan)) fuzz_die(name, "below lower bound");
      (void)ap_plan_reused(p, plan);
    } else if (!ap_plan_error(plan)[0]) {
      fuzz_die(name, "failure without a message");
    }
    ap_plan_destroy(plan);
  }
}

#endif
