/* `arenaplan pool --trace`: reading a request trace and replaying it through a real pool. */
#ifndef AP_POOL_REPLAY_H
#define AP_POOL_REPLAY_H

#include "cli.h"

typedef struct pool_request {
  uint64_t time_ms;
  size_t model; /* index in the pool's registration order */
} pool_request;

/* Reads "time_ms,model" lines (an optional "time_ms,model" header first; empty lines are
 * skipped); times must not decrease and every model must be one of names[0..count). On
 * failure prints "arenaplan: PATH: line N: ..." and returns false. *out is malloc'd. */
bool pool_read_trace(const char *path, const char *const *names, size_t count, pool_request **out,
                     size_t *n);

typedef struct pool_replay_result {
  double *latency_us; /* per request, malloc'd */
  double *acquire_us; /* per request, the acquire alone (a load when it needs one) */
  uint64_t *requests; /* per model, malloc'd */
} pool_replay_result;

/* Replays the requests in order: the pool's clock reads *clock_ms, set to each request's time
 * before its acquire; inputs are the seeded random rule with seed + request index. Latency:
 * acquire, invoke and release, in real time. On failure prints the error, returns false. */
bool pool_replay(ap_pool *p, const char *trace, const char *const *names, size_t count,
                 const pool_request *req, size_t n, uint64_t seed, uint64_t *clock_ms,
                 pool_replay_result *out);

#endif
