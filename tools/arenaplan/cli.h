/* Shared pieces of the arenaplan CLI: the subcommand table, error lines, sizes, options. */
#ifndef AP_CLI_H
#define AP_CLI_H

#include "arenaplan/arenaplan.h"

#include <stdio.h>

/* Exit statuses every subcommand uses. */
enum { AP_EXIT_OK = 0, AP_EXIT_CHECK = 1, AP_EXIT_USAGE = 2 };

typedef struct ap_command {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv); /* argv[0] is the subcommand's name */
  const char *usage;                 /* the --help text */
} ap_command;

/* Prints "arenaplan: WHAT: MESSAGE" on stderr; returns AP_EXIT_USAGE. */
int cli_fail(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints the usage text on stderr and returns AP_EXIT_USAGE (for bad usage). */
int cli_usage_error(const ap_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The help (help.c): a command's usage followed by its example; the overview of every
 * command in groups; the nearest option of cmd's usage to a mistyped arg, and the nearest
 * command to a mistyped name (NULL when none is near). */
void cli_print_help(const ap_command *cmd, FILE *f);
void cli_print_overview(FILE *f);
const char *cli_example(const ap_command *cmd);
const char *cli_suggest_option(const ap_command *cmd, const char *arg);
const char *cli_suggest_command(const char *name);
/* True when argv holds -h or --help; prints the usage to stdout. */
bool cli_wants_help(const ap_command *cmd, int argc, char **argv);

/* "93,568 B (91.4 KiB)" into buf; returns buf. */
const char *cli_size(char *buf, size_t size, uint64_t bytes);
/* "93,568" into buf; returns buf. */
const char *cli_thousands(char *buf, size_t size, uint64_t v);
/* Parses "76800", "75K", "1.5M", "2MiB", "1G" (K = 1024). False on anything else, negative
 * values, or values that do not fit 64 bits. */
bool cli_parse_size(const char *s, uint64_t *out);
/* Parses a non-negative integer no larger than max. */
bool cli_parse_uint(const char *s, uint64_t max, uint64_t *out);

/* The --budget verdict, one line naming what was compared:
 *   fits: needs 55,296 B, budget 76,800 B (21,504 B to spare): the plan's arena
 *   does not fit: needs 93,568 B, budget 76,800 B (short by 16,768 B): the plan's arena */
void cli_budget_line(FILE *f, uint64_t needs, uint64_t budget, const char *what);

/* Writes s as a JSON string literal (quotes included). */
void cli_json_string(FILE *f, const char *s);

#endif

/* msg without a leading "PATH: ": the library's messages about a model start with its file
 * name, and the CLI's error line names it once. */
const char *cli_unprefixed(const char *path, const char *msg);
/* Opens a model; on failure prints "arenaplan: FILE: what is wrong" and returns NULL. */
ap_model *cli_open_model(const char *path);
/* Parses "arenaplan", "tflite" or "tflm". */
bool cli_parse_rules(const char *s, ap_rules *out);
/* Checks a strategy name; on failure prints the valid ones and returns false. */
bool cli_check_strategy(const ap_command *cmd, const char *name);
/* The value of an option that takes one ("--align 16"); on a missing value prints the error
 * and returns NULL. Advances *i. */
const char *cli_value(const ap_command *cmd, int argc, char **argv, int *i);
/* "[1,96,96,1]" into buf; returns buf. */
const char *cli_shape(char *buf, size_t size, ap_ivec shape);
/* Writes bytes to path; on failure prints "arenaplan: PATH: ..." and returns false. */
bool cli_write_file(const char *path, const void *bytes, size_t size);
