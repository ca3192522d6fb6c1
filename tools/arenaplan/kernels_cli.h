/* --kernels and --small-scratch, shared by run, report and header. */
#ifndef AP_CLI_KERNELS_H
#define AP_CLI_KERNELS_H

#include "cli.h"

typedef struct cli_kernels {
  int kernels;    /* AP_KERNELS_* */
  uint64_t small; /* --small-scratch (0: AP_SMALL_SCRATCH_DEFAULT) */
} cli_kernels;

/* The usage lines of both options. */
#define CLI_KERNELS_USAGE                                                                          \
  "  --kernels K          fast (default: SIMD kernels for this CPU, capped by the\n"               \
  "                       environment's AP_SIMD=generic, sse41|avx2|avx512 on x86-64,\n"           \
  "                       neon|neondot on AArch64), small (the fast\n"                             \
  "                       kernels within a scratch budget: no op's scratch exceeds its\n"          \
  "                       reference kernel's by more than --small-scratch; an op needing\n"        \
  "                       more runs on one thread, then without packed weights, else its\n"        \
  "                       reference kernel) or reference (the plain loops the fast ones are\n"     \
  "                       bit-exact with; least scratch)\n"                                        \
  "  --small-scratch SIZE the budget of --kernels small (default 8K; implies small)\n"

/* When argv[*i] is --kernels or --small-scratch, reads it (and its value) into k: 1; a bad
 * value: -1 (usage printed); another option: 0. */
int cli_kernels_arg(const ap_command *cmd, int argc, char **argv, int *i, cli_kernels *k);
/* "fast", "small" or "reference". */
const char *cli_kernels_name(int kernels);

#endif
