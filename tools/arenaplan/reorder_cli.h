/* The reordered model, for `reorder` and the --reorder option of `plan` and `report`. */
#ifndef AP_REORDER_CLI_H
#define AP_REORDER_CLI_H

#include "cli.h"

typedef struct cli_reordered {
  ap_reorder *r;
  ap_model_patch patch; /* the new bytes; empty when no order changed */
  ap_model *model;      /* reads patch.bytes; NULL when no order changed */
} cli_reordered;

/* Reorders m. On failure prints "arenaplan: PATH: ..." and returns false. */
bool cli_reorder(const char *path, const ap_model *m, const ap_reorder_options *o,
                 cli_reordered *out);
/* The model to use: the reordered one, or m when nothing changed. */
const ap_model *cli_reordered_model(const cli_reordered *x, const ap_model *m);
void cli_reordered_free(cli_reordered *x);
/* "order:        reordered, exact search (lower bound 336 B -> 256 B)" or "stored order
 * kept (proven optimal)", one line. */
void cli_reorder_line(FILE *f, const cli_reordered *x);

#endif
