/* A stable sort of (key, index) pairs, used wherever the plan layer needs an order: radix
 * sort, so a million requests sort in milliseconds and every order is deterministic. */
#ifndef AP_SRC_PLAN_SORT_H
#define AP_SRC_PLAN_SORT_H

#include "base/base.h"

typedef struct ap_kv {
  uint64_t key;
  uint32_t idx;
} ap_kv;

/* A step as an unsigned key that sorts like the step (steps may be negative). */
static inline uint64_t ap_step_key(int32_t s) {
  return (uint64_t)((int64_t)s - INT32_MIN);
}
/* The number of steps a lifetime spans minus one: last - first, without int32 overflow. */
#define ap_span_len(r) ((uint64_t)((int64_t)(r)->last - (int64_t)(r)->first))

/* Sorts v by key ascending; equal keys keep their order. AP_ERR_NOMEM if scratch fails. */
ap_status ap_sort_kv(const ap_allocator *a, ap_kv *v, size_t n);

#endif
