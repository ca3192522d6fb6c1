/* The skyline placer shared by `skyline`, `search` and `best`. */
#ifndef AP_SRC_PLAN_SKYLINE_H
#define AP_SRC_PLAN_SKYLINE_H

#include "plan/place.h"

typedef struct ap_skyline {
  const ap_strategy_ctx *ctx;
  size_t t;          /* elementary time ranges */
  uint32_t *a, *b;   /* request i covers ranges [a[i], b[i]) */
  uint64_t *h;       /* t heights */
  uint32_t *pending; /* unplaced requests */
} ap_skyline;

ap_status ap_skyline_init(const ap_strategy_ctx *ctx, ap_skyline *s);
void ap_skyline_free(ap_skyline *s);
/* Places every request; among those that fit the lowest stretch of the skyline the one with
 * the highest prio goes first (ties: lowest index). Writes offsets, returns the arena. */
uint64_t ap_skyline_run(ap_skyline *s, const uint64_t *prio, uint64_t *off);

#endif
