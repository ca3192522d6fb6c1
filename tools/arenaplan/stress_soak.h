/* `arenaplan stress --threads N --duration SECONDS`: N interpreters over one loaded model,
 * invoking concurrently (for a time or a number of invokes each), outputs checked against a
 * single-thread run; memory sampled every second; then N threads calling one shared
 * interpreter, which must answer AP_ERR_BUSY rather than run two invokes at once. */
#ifndef AP_STRESS_SOAK_H
#define AP_STRESS_SOAK_H

#include "cli.h"

#define SOAK_MAX_THREADS 256
#define SOAK_MAX_DURATION 86400.0

typedef struct soak_config {
  const ap_model *model;
  const char *path;     /* for messages */
  const char *strategy; /* NULL: best */
  const ap_custom_op *custom_ops;
  size_t custom_op_count;
  unsigned threads;    /* 1..SOAK_MAX_THREADS */
  double duration;     /* seconds; 0: `iterations` invokes per thread instead */
  uint64_t iterations; /* per thread without a duration */
  uint64_t seed;
  const char *csv; /* NULL: no curve written */
  bool json;
} soak_config;

/* Runs, prints the results (text or JSON) and returns the exit status: 0 all equal and no
 * growth, 1 a mismatch, a failed invoke, corrupt shared outputs or memory growth after the
 * first invoke, 2 the model cannot run or the CSV cannot be written. */
int soak_run(const soak_config *c);

#endif
