/* The problem's insides, shared by the files of the plan layer (never by other layers). */
#ifndef AP_SRC_PLAN_PROBLEM_H
#define AP_SRC_PLAN_PROBLEM_H

#include "arenaplan/plan.h"
#include "base/base.h"

/* Requests are indexed by uint32_t inside strategies; keeping the count below this also keeps
 * every index product in 64 bits. */
#define AP_MAX_REQUESTS ((size_t)INT32_MAX)

struct ap_problem {
  const ap_allocator *alloc;
  ap_errbuf err;
  ap_request *req;
  size_t n, cap;
  uint64_t align;
  /* Sum of the aligned sizes: kept so that any plan's offsets provably fit in 64 bits. */
  uint64_t total;
};

/* Checks one request against the rules every strategy relies on. */
ap_status ap_request_validate(const ap_request *r, uint64_t align, ap_errbuf *err);
/* The lower bound of any request array (see lower_bound.c). 0 for n == 0. */
ap_status ap_lower_bound_of(const ap_allocator *a, const ap_request *req, size_t n, uint64_t align,
                            uint64_t *out);

#endif
