/* --kernels and --small-scratch, shared by run, report and header. */
#ifndef AP_CLI_KERNELS_H
#define AP_CLI_KERNELS_H

#include "cli.h"

typedef struct cli_kernels {
  int kernels;     /* AP_KERNELS_* */
  uint64_t small;  /* --small-scratch (0: AP_SMALL_SCRATCH_DEFAULT) */
  uint64_t budget; /* --budget (0: none given) */
} cli_kernels;

/* The usage lines of both options. */
#define CLI_KERNELS_USAGE                                                                          \
  "  --kernels K          auto (default: each op's kernel chosen with the plan, for the\n"         \
  "                       fastest estimated invoke whose total is within --budget, or\n"           \
  "                       within 1.02 x the reference kernels' total), fast (SIMD kernels\n"       \
  "                       on every op, whatever their scratch; capped by the environment's\n"      \
  "                       AP_SIMD=generic, sse41|avx2|avx512 on x86-64, neon|neondot on\n"         \
  "                       AArch64), small (auto within the reference total +\n"                    \
  "                       --small-scratch) or reference (the plain loops the fast ones are\n"      \
  "                       bit-exact with; least scratch)\n"                                        \
  "  --small-scratch SIZE the bytes --kernels small adds (default 8K; implies small)\n"
#define CLI_BUDGET_USAGE                                                                           \
  "  --budget SIZE        the fastest plan whose total (arena + persistent + tables) is\n"         \
  "                       within SIZE (76K, 1.5M); exit 1 saying by how much when none\n"          \
  "                       fits (implies auto)\n"

/* When argv[*i] is --kernels or --small-scratch, reads it (and its value) into k: 1; a bad
 * value: -1 (usage printed); another option: 0. */
int cli_kernels_arg(const ap_command *cmd, int argc, char **argv, int *i, cli_kernels *k);
/* The same for --budget (run and header; report reads its own and passes it on). */
int cli_budget_arg(const ap_command *cmd, int argc, char **argv, int *i, cli_kernels *k);
/* "auto", "fast", "small" or "reference". */
const char *cli_kernels_name(int kernels);

#endif
