/* What `arenaplan header` writes besides the header (header_files.c). */
#ifndef AP_CLI_HEADER_FILES_H
#define AP_CLI_HEADER_FILES_H

#include "commands.h"

#include <errno.h>

/* OUT: a C file defining `const unsigned char PREFIX_DATA[]`, the model's bytes, aligned. */
int header_write_model_array(const ap_model *m, const char *prefix, const char *out);
/* OUT ("-": stdout): the names of the ops the model uses, one a line, each once (builtins by
 * their schema name, custom ops by their custom_code). */
int header_write_ops(const ap_model *m, const char *out);

#endif
